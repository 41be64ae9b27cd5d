//! Stage 3, narrow phase (mesh walls): an ellipsoid against one triangle of a mesh wall.
//!
//! The gap of a convex body E and a triangle T is taken as the least signed distance to E of
//! the triangle's points, Φ = min over y ∈ T of sd_E(y). The signed distance of a convex set is
//! a convex function of the point (sd_E(y) = max over unit n of n·y − n·c − h_E(n), h_E the
//! support function about the centre c), so its least over T is found feature by feature:
//! * **face**: with n_f the face normal turned towards c, the support point x = c + s_E(−n_f)
//!   ([`ellipsoid_support`]) is E's point nearest the triangle's plane, and its foot on the
//!   plane is the plane's point nearest E. When that foot lies strictly inside T, the contact
//!   is a face contact along n_f with Φ = (x − a)·n_f: the flat wall's closed form, also for an
//!   overlap (as sphere–mesh and sphere–wall face contacts are);
//! * **rim**: else the least of sd_E over T lies on its boundary. Along an edge
//!   y(t) = v_k + t (v_{k+1} − v_k), t ∈ [0, 1], sd_E(y(t)) is convex in t with slope
//!   n_e·(v_{k+1} − v_k), so bisection on the slope's sign finds its least (an end, a vertex,
//!   when the slope does not change sign); sd_E(y) = (y − e)·n_e with e the ellipsoid's point
//!   nearest y and n_e its outward normal there
//!   ([`crate::shapes::ellipsoid::ellipsoid_nearest`], exact inside and out). The contact is the best edge point q: n = −n_e (from the triangle
//!   to the body), Φ = (q − e)·n_e, the body's point e.
//!
//! The candidates of neighbouring triangles then pass the mesh's shared-rim rule
//! ([`crate::mesh::drop_shared_rim_contacts`]): a rim point shared with a triangle whose face is
//! under the body, or found as near by a lower-indexed triangle, is dropped, so an ellipsoid on
//! a triangulated floor has one contact wherever it stands, shared edges and vertices included.

use crate::mesh::{closest_point_on_triangle, face_normal_towards, Candidate, Feature, Triangle};
use crate::shapes::ellipsoid::{ellipsoid_support, least_by_bisection, PlacedEllipsoid};
use glam::Vec3;

/// The contact of ellipsoid `body` with triangle `t` (index `index`; the method is the
/// module's), or `None` when the triangle is surely more than `cutoff` from it (its closest
/// point to the centre farther than the longest semi-axis plus `cutoff`) or the gap exceeds
/// `cutoff`. The candidate's `distance` is Φ and its arm is the body's contact point less the
/// centre.
pub fn ellipsoid_triangle_candidate(
    body: &PlacedEllipsoid,
    t: &Triangle,
    index: u32,
    cutoff: f32,
) -> Option<Candidate> {
    let v = t.vertices();
    let c = body.centre;
    let (nearest, _) = closest_point_on_triangle(c, v);
    if (nearest - c).length() - body.semi_axes.max_element() > cutoff {
        return None;
    }
    let face = face_normal_towards(v, c);
    let support = ellipsoid_support(body.q, body.semi_axes, -face);
    let x = c + support;
    let (foot, feature) = closest_point_on_triangle(x, v);
    let candidate = if feature == Feature::Face {
        let gap = (x - v[0]).dot(face);
        Candidate {
            triangle: index,
            point: foot,
            normal: face,
            distance: gap,
            feature,
            gap,
            arm: support,
        }
    } else {
        let (gap, q, e, n) = (0..3)
            .map(|k| least_on_edge(body, v[k], v[(k + 1) % 3]))
            .fold(
                None,
                |best: Option<(f32, Vec3, Vec3, Vec3)>, edge| match best {
                    Some(b) if b.0 <= edge.0 => Some(b),
                    _ => Some(edge),
                },
            )
            .expect("three edges");
        Candidate {
            triangle: index,
            point: q,
            normal: -n,
            distance: gap,
            feature: Feature::Rim,
            gap,
            arm: e - c,
        }
    };
    (candidate.gap <= cutoff).then_some(candidate)
}

/// The least signed distance to the ellipsoid along the segment from `a` to `b` (convex in the
/// segment's parameter t, with slope n_e·(b − a), n_e the outward normal at the ellipsoid's
/// point nearest y(t): the gradient of the signed distance), by bisection on that slope.
/// Returns (sd, the segment's point, the ellipsoid's nearest point, its outward normal).
fn least_on_edge(body: &PlacedEllipsoid, a: Vec3, b: Vec3) -> (f32, Vec3, Vec3, Vec3) {
    let at = |t: f32| {
        let y = a + t * (b - a);
        let (sd, e, n) = body.signed_distance(y);
        (sd, y, e, n)
    };
    at(least_by_bisection(|t| at(t).3.dot(b - a), 0.0, 1.0))
}
