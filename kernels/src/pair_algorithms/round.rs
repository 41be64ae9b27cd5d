//! The pairs of round shapes: sphere–sphere, capsule–sphere, capsule–capsule and
//! ellipse–sphere, each the nearest points of the two surfaces.

use crate::shapes::capsule::{closest_between_segments, closest_on_segment, overlap_along};
use crate::shapes::ellipse::ellipse_nearest;
use crate::shapes::sphere::spheres_touch;
use crate::shapes::{Placed, Shape, Touch};
use glam::Vec3;

/// The contact points of bodies a and b of the pairs [`crate::pairs::PairRoutine::Spheres`],
/// [`crate::pairs::PairRoutine::CapsuleSphere`], [`crate::pairs::PairRoutine::Capsules`] and
/// [`crate::pairs::PairRoutine::EllipseSphere`] route here: their surfaces' nearest points and,
/// for two capsules whose segments overlap along a's axis, the two ends of the overlap (see
/// `capsules_touch`).
pub fn contact_points(a: &Placed, b: &Placed) -> [Option<Touch>; 3] {
    match (a.shape, b.shape) {
        (Shape::Sphere, Shape::Sphere) => [
            Some(spheres_touch(a.centre, a.radius, b.centre, b.radius)),
            None,
            None,
        ],
        (Shape::Capsule { half_length }, Shape::Sphere) => {
            let p = closest_on_segment(a.centre, a.q, half_length, b.centre);
            [
                Some(spheres_touch(p, a.radius, b.centre, b.radius)),
                None,
                None,
            ]
        }
        (Shape::Sphere, Shape::Capsule { .. }) | (Shape::Sphere, Shape::Ellipse { .. }) => {
            contact_points(b, a).map(|t| t.map(Touch::swapped))
        }
        (Shape::Capsule { half_length: la }, Shape::Capsule { half_length: lb }) => {
            capsules_touch(a, la, b, lb)
        }
        (Shape::Ellipse { a: ea, b: eb }, Shape::Sphere) => {
            let (e, n) = ellipse_nearest(a.centre, a.q, ea, eb, b.centre);
            let touch = Touch {
                n: -n,
                phi: (b.centre - e).dot(n) - b.radius,
                pa: e,
                pb: b.centre - b.radius * n,
            };
            [Some(touch), None, None]
        }
        (a, b) => unreachable!("{a:?}–{b:?} is not a pair of contact_points' (crate::pairs)"),
    }
}

/// Capsule–capsule: the spheres of the capsules' radii about their segments' nearest points
/// ([`closest_between_segments`]), Φ = ‖p_a − p_b‖ − r_a − r_b; and, where b's segment covers a
/// stretch of a's axis, each end of that stretch more than the smaller radius from the first
/// point, against b's segment. Every such pair of points must stay r_a + r_b apart, so these
/// rows are as valid as the first: they hold capsules lying side by side the way a capsule's two
/// ends hold it on a wall, and keep nearly parallel rods that turn within a step (their nearest
/// points slide along them) from passing into each other at either end.
fn capsules_touch(a: &Placed, la: f32, b: &Placed, lb: f32) -> [Option<Touch>; 3] {
    let (ua, ub) = (a.q * Vec3::X, b.q * Vec3::X);
    let (s, t) = closest_between_segments(a.centre, ua, la, b.centre, ub, lb);
    let at =
        |s: f32, t: f32| spheres_touch(a.centre + ua * s, a.radius, b.centre + ub * t, b.radius);
    let (lo, hi) = overlap_along(ua.dot(ub), ua.dot(a.centre - b.centre), la, lb);
    let end = |e: f32| {
        (hi > lo && (e - s).abs() > a.radius.min(b.radius))
            .then(|| at(e, (a.centre + ua * e - b.centre).dot(ub).clamp(-lb, lb)))
    };
    [Some(at(s, t)), end(lo), end(hi)]
}
