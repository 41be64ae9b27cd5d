//! Cuboids: boxes of half-extents (a, b, c) along the body's local x, y and z axes, with sharp
//! edges. Their contacts are points, so that a box resting on a face is held at its corners and
//! does not rock:
//! * against a wall, each of the eight corners (a sphere of radius zero, [`cuboid_corners`]);
//! * against a sphere, the box's point nearest the sphere's centre ([`point_cuboid`]);
//! * against another cuboid, each corner of either box against the other box, and the nearest
//!   pairs of crossing edges that support both boxes along their common normal
//!   ([`cuboids_touch`]). A convex polyhedron's deepest point against a face is a corner; where
//!   two boxes meet edge across edge no corner touches, and two faces turned against each other
//!   overlap in a polygon whose corners are corners of either face or edge crossings, so the
//!   corners and the crossings hold every resting and colliding configuration of two boxes.
//!
//! The gap of a corner p outside a box is its distance to the box's nearest point e, along
//! n = (p − e)/‖p − e‖; inside, the depth below the nearest face, along that face's normal.

use crate::shapes::capsule::closest_between_segments;
use crate::shapes::{Placed, Shape, Touch};
use glam::{Quat, Vec3};

/// The most crossing edge pairs of two cuboids kept as contacts: two faces lying on each other
/// cross at up to eight points (the corners of their octagonal overlap).
pub const MAX_CROSSINGS: usize = 16;

/// The most contact points of two cuboids: eight corners of each against the other, and the
/// crossing edge pairs ([`cuboids_touch`]).
pub const CUBOID_PAIR_POINTS: usize = 16 + MAX_CROSSINGS;

/// The eight corners c + R (±a, ±b, ±c) of a cuboid; corner k takes the + sign on axis i when
/// bit i of k is set.
#[inline(always)]
pub fn cuboid_corners(centre: Vec3, q: Quat, half: Vec3) -> [Vec3; 8] {
    std::array::from_fn(|k| {
        let sign = |i: usize| if k >> i & 1 == 1 { 1.0 } else { -1.0 };
        centre + q * Vec3::new(sign(0) * half.x, sign(1) * half.y, sign(2) * half.z)
    })
}

/// A sphere of radius `r` about `p` (side a) against the cuboid of centre `c`, orientation `q`
/// and half-extents `half` (side b): with e the box's point nearest p, outside
/// n = (p − e)/‖p − e‖ and Φ = ‖p − e‖ − r; inside (or on the surface), n the normal of the
/// face nearest p and Φ = −(depth below that face) − r.
#[inline(always)]
pub fn point_cuboid(p: Vec3, r: f32, c: Vec3, q: Quat, half: Vec3) -> Touch {
    let local = q.inverse() * (p - c);
    let nearest = local.clamp(-half, half);
    let d = local - nearest;
    let dist = d.length();
    if dist > 0.0 {
        let n = q * (d / dist);
        return Touch {
            n,
            phi: dist - r,
            pa: p - r * n,
            pb: c + q * nearest,
        };
    }
    let depth = half - local.abs();
    let axis = if depth.x <= depth.y && depth.x <= depth.z {
        0
    } else if depth.y <= depth.z {
        1
    } else {
        2
    };
    let mut normal = Vec3::ZERO;
    normal[axis] = 1.0f32.copysign(local[axis]);
    let n = q * normal;
    Touch {
        n,
        phi: -depth[axis] - r,
        pa: p - r * n,
        pb: p + depth[axis] * n,
    }
}

/// One edge of a cuboid.
#[derive(Clone, Copy)]
struct Edge {
    /// Midpoint.
    mid: Vec3,
    /// Unit direction.
    dir: Vec3,
    /// Half-length.
    half_length: f32,
    /// The midpoint's offset from the centre along the box's two other axes, one vector each
    /// (±half-extent × that axis, in world axes).
    offsets: [Vec3; 2],
}

impl Edge {
    /// How far the box's farthest corner stands out beyond the edge along `n` (n ⟂ the edge):
    /// Σ over the two other axes of max(0, −2 o·n) (a corner differs from the edge's points by
    /// −2 o along each axis it flips). Zero when the edge bounds the box along n.
    #[inline(always)]
    fn beyond(&self, n: Vec3) -> f32 {
        self.offsets
            .iter()
            .map(|o| (-2.0 * o.dot(n)).max(0.0))
            .sum()
    }
}

/// The twelve edges of a cuboid.
fn cuboid_edges(centre: Vec3, q: Quat, half: Vec3) -> [Edge; 12] {
    std::array::from_fn(|e| {
        let (along, k) = (e / 4, e % 4);
        let (i, j) = ((along + 1) % 3, (along + 2) % 3);
        let mut oi = Vec3::ZERO;
        oi[i] = if k & 1 == 1 { half[i] } else { -half[i] };
        let mut oj = Vec3::ZERO;
        oj[j] = if k & 2 == 2 { half[j] } else { -half[j] };
        let mut axis = Vec3::ZERO;
        axis[along] = 1.0;
        Edge {
            mid: centre + q * (oi + oj),
            dir: q * axis,
            half_length: half[along],
            offsets: [q * oi, q * oj],
        }
    })
}

/// The greatest separation of two boxes over the fifteen axes of the separating-axis test
/// (each box's three face normals, the nine cross products of their edge directions, both
/// ways): max over n of min_a x·n − max_b x·n, the gap between them when positive. Along any
/// axis the boxes are at least this close, so a pair of points whose gap is much below it
/// (on another axis) is not where they meet.
fn greatest_separation(qa: Quat, qb: Quat, corners_a: &[Vec3; 8], corners_b: &[Vec3; 8]) -> f32 {
    let span = |corners: &[Vec3; 8], n: Vec3| {
        corners
            .iter()
            .map(|&c| c.dot(n))
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            })
    };
    let (ea, eb) = (
        [Vec3::X, Vec3::Y, Vec3::Z].map(|e| qa * e),
        [Vec3::X, Vec3::Y, Vec3::Z].map(|e| qb * e),
    );
    let crosses = ea.iter().flat_map(|&u| eb.iter().map(move |&v| u.cross(v)));
    ea.into_iter()
        .chain(eb)
        .chain(crosses.filter(|c| c.length_squared() >= CROSSING_SIN2))
        .map(|n| {
            let n = n.normalize();
            let ((lo_a, hi_a), (lo_b, hi_b)) = (span(corners_a, n), span(corners_b, n));
            (lo_a - hi_b).max(lo_b - hi_a)
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

/// Smallest sin² of the angle between two edges for them to count as crossing (below it the
/// corners of the parallel edges carry the contact).
const CROSSING_SIN2: f32 = 1e-4;

/// The contact points of cuboid `a` (half-extents `ha`) and cuboid `b` (`hb`): entries 0–7 a's
/// corners against b, 8–15 b's corners against a, from 16 on the crossing edges. Corners come
/// from [`point_cuboid`] at radius zero. An edge pair counts when its nearest points lie inside
/// both edges, the edges are not parallel, and their common normal n = ±(u_a × u_b), turned
/// from b's centre towards a's, has a wholly on its + side of a's edge and b wholly on the −
/// side of b's edge (both edges support their boxes along n, as on a separating axis), and
/// Φ = (p_a − p_b)·n is within 10⁻³ of the boxes' sizes of their greatest separation over the
/// separating-axis test's fifteen axes (so that edges which support their boxes along an axis
/// on which the boxes overlap deeply, beside an axis on which they barely touch, are not taken). Two faces lying on each other turned
/// against each other touch along the octagon of their overlap, whose corners are edge
/// crossings: all of them are kept, so such a stack stands on its whole overlap.
///
/// None of them when the boxes stand more than `cutoff` apart on some axis (every point's gap
/// is then above it: the narrow phase passes the pair's largest envelope).
pub fn cuboids_touch(
    a: &Placed,
    ha: Vec3,
    b: &Placed,
    hb: Vec3,
    cutoff: f32,
) -> [Option<Touch>; CUBOID_PAIR_POINTS] {
    let (corners_a, corners_b) = (
        cuboid_corners(a.centre, a.q, ha),
        cuboid_corners(b.centre, b.q, hb),
    );
    let mut out = [None; CUBOID_PAIR_POINTS];
    let separation = greatest_separation(a.q, b.q, &corners_a, &corners_b);
    let near = 1e-3 * (ha.min_element() + hb.min_element());
    if separation - near > cutoff {
        return out;
    }
    for k in 0..8 {
        out[k] = Some(point_cuboid(corners_a[k], 0.0, b.centre, b.q, hb));
    }
    // A corner of b that meets a corner of a (faces of one size lying on each other) is the
    // same contact seen from b: it is not counted twice (each contact holds its own pull-off
    // where the grains cohere, and a twin only slows the solve).
    let slack = 1e-5 * (ha.max_element() + hb.max_element());
    for k in 0..8 {
        let touch = point_cuboid(corners_b[k], 0.0, a.centre, a.q, ha).swapped();
        let twin = out[..8]
            .iter()
            .flatten()
            .any(|u| (u.pa - touch.pa).length() <= slack && (u.pb - touch.pb).length() <= slack);
        out[8 + k] = (!twin).then_some(touch);
    }
    let crossings = crossing_edges((a, ha, &corners_a), (b, hb, &corners_b), separation - near);
    out[16..].copy_from_slice(&crossings);
    out
}

/// The edge–edge contacts of [`cuboids_touch`] (at most [`MAX_CROSSINGS`], in edge order)
/// whose gap is at least `least`.
fn crossing_edges(
    (a, ha, corners_a): (&Placed, Vec3, &[Vec3; 8]),
    (b, hb, corners_b): (&Placed, Vec3, &[Vec3; 8]),
    least: f32,
) -> [Option<Touch>; MAX_CROSSINGS] {
    // Points may stand this far beyond a supporting plane (rounding of the corners' positions).
    let slack = 1e-5 * (ha.max_element() + hb.max_element());
    let mut out = [None; MAX_CROSSINGS];
    let mut found = 0;
    let (edges_a, edges_b) = (
        cuboid_edges(a.centre, a.q, ha),
        cuboid_edges(b.centre, b.q, hb),
    );
    // The common normal of an edge along a's axis i and one along b's axis j, turned from b
    // towards a (`None` for nearly parallel axes): four edges share each axis.
    let normals: [[Option<Vec3>; 3]; 3] = std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let cross = edges_a[4 * i].dir.cross(edges_b[4 * j].dir);
            (cross.length_squared() >= CROSSING_SIN2).then(|| {
                let n = cross.normalize();
                if (a.centre - b.centre).dot(n) < 0.0 {
                    -n
                } else {
                    n
                }
            })
        })
    });
    for (i, ea) in edges_a.iter().enumerate() {
        for (j, eb) in edges_b.iter().enumerate() {
            let Some(n) = normals[i / 4][j / 4] else {
                continue;
            };
            if found == MAX_CROSSINGS {
                break;
            }
            // Edges that do not bound their boxes along n, by far more than the slack the
            // corners are checked with below, are passed over before their nearest points.
            if ea.beyond(-n) > 4.0 * slack || eb.beyond(n) > 4.0 * slack {
                continue;
            }
            let (ca, ua, la) = (ea.mid, ea.dir, ea.half_length);
            let (cb, ub, lb) = (eb.mid, eb.dir, eb.half_length);
            let (s, t) = closest_between_segments(ca, ua, la, cb, ub, lb);
            if s.abs() >= la || t.abs() >= lb {
                continue;
            }
            let (pa, pb) = (ca + ua * s, cb + ub * t);
            let phi = (pa - pb).dot(n);
            if phi < least {
                continue;
            }
            let supports_a = corners_a.iter().all(|&c| (c - pa).dot(n) >= -slack);
            let supports_b = corners_b.iter().all(|&c| (c - pb).dot(n) <= slack);
            if supports_a && supports_b {
                out[found] = Some(Touch { n, phi, pa, pb });
                found += 1;
            }
        }
    }
    out
}

/// The contact points of a box–box or box–sphere pair, the pairs
/// [`crate::pairs::PairRoutine::Boxes`] routes here ([`cuboids_touch`]; against a sphere the
/// box's point nearest its centre, [`point_cuboid`]), numbered for the narrow phase's key
/// flags ([`crate::narrow_phase::point_flag`]), none of them for cuboids more than `cutoff`
/// apart ([`cuboids_touch`]).
#[inline(always)]
pub fn cuboid_pair_points(
    a: &Placed,
    b: &Placed,
    cutoff: f32,
) -> [Option<Touch>; CUBOID_PAIR_POINTS] {
    let mut out = [None; CUBOID_PAIR_POINTS];
    match (a.shape, b.shape) {
        (Shape::Cuboid { half_extents: ha }, Shape::Cuboid { half_extents: hb }) => {
            return cuboids_touch(a, ha, b, hb, cutoff);
        }
        (Shape::Cuboid { half_extents }, Shape::Sphere) => {
            out[0] = Some(point_cuboid(b.centre, b.radius, a.centre, a.q, half_extents).swapped());
        }
        (Shape::Sphere, Shape::Cuboid { half_extents }) => {
            out[0] = Some(point_cuboid(
                a.centre,
                a.radius,
                b.centre,
                b.q,
                half_extents,
            ));
        }
        (a, b) => unreachable!("{a:?}–{b:?} is not a pair of boxes' (crate::pairs)"),
    }
    out
}
