//! Where the walls cut a snapshot's plane: the line segments, in the x–z plane, that a
//! snapshot draws so that a drum, a silo or a hopper shows its walls around the grains.

use glam::{Vec2, Vec3};
use grains_kernels::mesh::Triangle;
use grains_kernels::Wall;
use std::f32::consts::TAU;

/// A segment from `.0` to `.1` in the x–z plane (m).
pub type Segment = (Vec2, Vec2);

/// Samples around a curved wall's circumference and along its axis (the polygon a cylinder's
/// cut is drawn as; 96 sides stay within 0.06 % of the radius).
const AROUND: usize = 96;
const ALONG: usize = 48;

/// The segments where `wall` cuts the plane y = `y`, within `reach` of the origin (m) along
/// unbounded directions (a plane's cut, an infinite cylinder's length); none for a wall switched
/// off. A rectangle's or plane's cut is one segment (none when it is parallel to the plane); a
/// cylinder's, cone's or annulus's is the contour y = `y` of its surface, found cell by cell on
/// a grid of its (angle, axial place or radius) parameters.
pub fn wall_section(wall: &Wall, y: f32, reach: f32) -> Vec<Segment> {
    if wall.is_off() {
        return Vec::new();
    }
    let o = wall.o();
    let axis = wall.n();
    let (a, b) = (Wall::axis_normal(axis), axis.cross(Wall::axis_normal(axis)));
    let round = |radius: &dyn Fn(f32) -> f32, offset: &dyn Fn(f32) -> f32, radial: usize| {
        let surface = |s: f32, t: f32| {
            let th = s * TAU;
            o + axis * offset(t) + radius(t) * (th.cos() * a + th.sin() * b)
        };
        contour(surface, y, AROUND, radial)
    };
    if wall.cylinder_radius() != 0.0 {
        // A cylinder, or a cone whose radius grows by `slope` per metre along the axis.
        let (r, slope, half) = (
            wall.cylinder_radius().abs(),
            wall.slope(),
            wall.u[3].min(reach),
        );
        let along = |t: f32| half * (2.0 * t - 1.0);
        return round(&|t| r + slope * along(t), &along, ALONG);
    }
    if wall.is_disk() {
        // An annulus: radii from inner (v.w) to outer (u.w) in its plane.
        let (inner, outer) = (wall.v[3], wall.u[3]);
        return round(&|t| inner + (outer - inner) * t, &|_| 0.0, 8);
    }
    let (u, v) = (
        Vec3::from_slice(&wall.u[..3]),
        Vec3::from_slice(&wall.v[..3]),
    );
    let (hu, hv) = (wall.u[3].min(reach), wall.v[3].min(reach));
    flat_section(o, (u, hu), (v, hv), y).into_iter().collect()
}

/// The segment where the triangle cuts the plane y = `y` (none when it lies on one side, or
/// in the plane): the crossings of its edges, joined.
pub fn triangle_section(t: &Triangle, y: f32) -> Option<Segment> {
    let v = [t.a, t.b, t.c].map(|p| Vec3::from_slice(&p[..3]));
    let hits: Vec<Vec2> = (0..3)
        .filter_map(|k| {
            let (a, b) = (v[k], v[(k + 1) % 3]);
            ((a.y < y) != (b.y < y)).then(|| {
                let q = a + (b - a) * ((y - a.y) / (b.y - a.y));
                Vec2::new(q.x, q.z)
            })
        })
        .collect();
    (hits.len() == 2).then(|| (hits[0], hits[1]))
}

/// The cut of the rectangle o + s u + t v (|s| ≤ hu, |t| ≤ hv) by the plane y = `y`: the
/// points where o.y + s u.y + t v.y = y, a line in (s, t) clipped to the rectangle.
fn flat_section(o: Vec3, (u, hu): (Vec3, f32), (v, hv): (Vec3, f32), y: f32) -> Option<Segment> {
    let c = y - o.y;
    // Walk along the line in the direction d = (v.y, −u.y) through the point p0 nearest (0, 0).
    let g = Vec2::new(u.y, v.y);
    if g.length_squared() < 1e-12 {
        return None;
    }
    let p0 = g * (c / g.length_squared());
    let d = Vec2::new(-g.y, g.x).normalize();
    let (mut lo, mut hi) = (f32::NEG_INFINITY, f32::INFINITY);
    for (p, dir, half) in [(p0.x, d.x, hu), (p0.y, d.y, hv)] {
        if dir.abs() < 1e-12 {
            if p.abs() > half {
                return None;
            }
        } else {
            let (a, b) = ((-half - p) / dir, (half - p) / dir);
            lo = lo.max(a.min(b));
            hi = hi.min(a.max(b));
        }
    }
    if !(lo <= hi && lo.is_finite() && hi.is_finite()) {
        return None;
    }
    let at = |k: f32| {
        let st = p0 + d * k;
        let p = o + st.x * u + st.y * v;
        Vec2::new(p.x, p.z)
    };
    Some((at(lo), at(hi)))
}

/// The contour y = `y` of the surface `p(s, t)` over s, t ∈ [0, 1], by marching squares on a
/// `ns` × `nt` grid (s wraps around: the last column meets the first), each crossing
/// placed by linear interpolation.
fn contour(p: impl Fn(f32, f32) -> Vec3, y: f32, ns: usize, nt: usize) -> Vec<Segment> {
    let grid: Vec<Vec3> = (0..=nt)
        .flat_map(|j| (0..ns).map(move |i| (i, j)))
        .map(|(i, j)| p(i as f32 / ns as f32, j as f32 / nt as f32))
        .collect();
    let at = |i: usize, j: usize| grid[j * ns + i % ns];
    let cross = |a: Vec3, b: Vec3| {
        let k = (y - a.y) / (b.y - a.y);
        let q = a + (b - a) * k;
        Vec2::new(q.x, q.z)
    };
    let mut out = Vec::new();
    for j in 0..nt {
        for i in 0..ns {
            let corners = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
            let mut hits = Vec::with_capacity(4);
            for k in 0..4 {
                let (a, b) = (corners[k], corners[(k + 1) % 4]);
                if (a.y < y) != (b.y < y) {
                    hits.push(cross(a, b));
                }
            }
            for pair in hits.chunks_exact(2) {
                out.push((pair[0], pair[1]));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_triangle_is_cut_between_its_edges() {
        let t = Triangle::new(
            [
                Vec3::new(0.0, -1.0, 0.0),
                Vec3::new(2.0, 1.0, 0.0),
                Vec3::new(0.0, 1.0, 2.0),
            ],
            0,
            0,
        );
        // At y = 0: the edges a–b and c–a cross at (1, 0) and (0, 1) in x–z.
        let (p, q) = triangle_section(&t, 0.0).unwrap();
        let ends = [p, q];
        assert!(
            ends.contains(&Vec2::new(1.0, 0.0)) && ends.contains(&Vec2::new(0.0, 1.0)),
            "{ends:?}"
        );
        assert!(triangle_section(&t, 1.5).is_none());
    }

    fn length(segments: &[Segment]) -> f32 {
        segments.iter().map(|(a, b)| a.distance(*b)).sum()
    }

    #[test]
    fn a_drum_about_y_is_cut_in_its_circle() {
        let drum = Wall::cylinder(
            [0.5, 0.0, -0.2, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            0.3,
            0.1,
            0.0,
            [0.0; 4],
        );
        let cut = wall_section(&drum, 0.02, 10.0);
        // The 96-gon's perimeter: 2 · 96 · R sin(π/96).
        let polygon = 2.0 * 96.0 * 0.3 * (std::f32::consts::PI / 96.0).sin();
        assert!((length(&cut) - polygon).abs() < 1e-4, "{}", length(&cut));
        for (a, b) in &cut {
            for p in [a, b] {
                assert!((p.distance(Vec2::new(0.5, -0.2)) - 0.3).abs() < 1e-5, "{p}");
            }
        }
        // Beyond its length the plane misses it.
        assert!(wall_section(&drum, 0.2, 10.0).is_empty());
    }

    #[test]
    fn a_hopper_cone_and_its_orifice_plate_are_cut_in_lines() {
        // A cone about z: radius 0.1 at z = 0 growing to 0.3 at z = 0.4 (slope 0.5).
        let cone = Wall::frustum(
            [0.0, 0.0, 0.2, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            0.2,
            0.5,
            0.2,
            0.0,
            [0.0; 4],
        );
        let cut = wall_section(&cone, 0.0, 10.0);
        // Two generators, each from (±0.1, 0) to (±0.3, 0.4): 2 · √(0.2² + 0.4²).
        let generator = (0.2f32 * 0.2 + 0.4 * 0.4).sqrt();
        assert!(
            (length(&cut) - 2.0 * generator).abs() < 1e-3,
            "{}",
            length(&cut)
        );
        for (p, q) in &cut {
            for e in [p, q] {
                assert!((e.x.abs() - (0.1 + 0.5 * e.y)).abs() < 1e-3, "{e}");
            }
        }
        // A plate under it with an orifice of 0.1: two segments from 0.1 to 0.3 either side.
        let plate = Wall::disk([0.0; 4], [0.0, 0.0, 1.0, 0.0], 0.3, 0.1, [0.0; 4]);
        let cut = wall_section(&plate, 0.0, 10.0);
        assert!((length(&cut) - 0.4).abs() < 1e-3, "{}", length(&cut));
        assert!(cut
            .iter()
            .all(|(p, q)| p.x.abs() >= 0.1 - 1e-3 && q.x.abs() >= 0.1 - 1e-3));
        // Switched off, it is not drawn.
        let gate = plate.with_flags(
            grains_kernels::wall_contact::WALL_OFF | grains_kernels::wall_contact::WALL_DISK,
        );
        assert!(wall_section(&gate, 0.0, 10.0).is_empty());
    }

    #[test]
    fn an_upright_cylinder_is_cut_in_two_lines() {
        let silo = Wall::cylinder(
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            0.5,
            1.0,
            0.0,
            [0.0; 4],
        );
        let cut = wall_section(&silo, 0.3, 10.0);
        // Two vertical lines at x = ±0.4, each 2 m long.
        assert!((length(&cut) - 4.0).abs() < 1e-3, "{}", length(&cut));
        for (a, b) in &cut {
            assert!(
                (a.x.abs() - 0.4).abs() < 2e-3 && (b.x.abs() - 0.4).abs() < 2e-3,
                "{a} {b}"
            );
        }
    }

    #[test]
    fn flat_walls_are_cut_in_a_segment_or_not_at_all() {
        // A box's +x side wall: normal −x, u = y, v = n × u = −z... any in-face axes will do.
        let side = Wall {
            origin: [0.3, 0.0, 0.25, 0.0],
            normal: [-1.0, 0.0, 0.0, 0.0],
            u: [0.0, 1.0, 0.0, 0.3],
            v: [0.0, 0.0, -1.0, 0.25],
            velocity: [0.0; 4],
        };
        let (a, b) = wall_section(&side, 0.1, 10.0)[0];
        let (lo, hi) = (a.y.min(b.y), a.y.max(b.y));
        assert!(a.x == 0.3 && b.x == 0.3 && lo.abs() < 1e-6 && (hi - 0.5).abs() < 1e-6);
        assert!(
            wall_section(&side, 0.31, 10.0).is_empty(),
            "beyond its width"
        );
        // A wall facing y (an end plate) is parallel to the plane.
        let end = Wall {
            normal: [0.0, 1.0, 0.0, 0.0],
            u: [1.0, 0.0, 0.0, f32::INFINITY],
            v: [0.0, 0.0, -1.0, f32::INFINITY],
            ..side
        };
        assert!(wall_section(&end, 0.0, 10.0).is_empty());
        // A tilted infinite plane is cut within the reach.
        let slope = Wall {
            origin: [0.0; 4],
            normal: [-0.6, 0.0, 0.8, 0.0],
            u: [0.8, 0.0, 0.6, f32::INFINITY],
            v: [0.0, 1.0, 0.0, f32::INFINITY],
            velocity: [0.0; 4],
        };
        let (a, b) = wall_section(&slope, 0.5, 2.0)[0];
        assert!((a.distance(b) - 4.0).abs() < 1e-5 && (a.y / a.x - 0.75).abs() < 1e-5);
    }
}
