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
