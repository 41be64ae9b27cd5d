//! Stage 3, narrow phase: an ellipsoid inside a cylinder or cone frustum wall (a drum or a
//! hopper, the grains inside: signed radius > 0).
//!
//! A point x, at s = e·(x − o) along the axis e and ρ from it, is inside the mantle
//! R(s) = R₀ + k s by its clearance f(x) = (R₀ + k s − ρ)/√(1 + k²) (the signed distance to the
//! generator line, [`crate::wall_contact::sphere_frustum`]). With ρ(x) = max over unit radial
//! u ⊥ e of u·(x − o), the body's least clearance is
//!
//!   min over x ∈ E of f = R₀/√(1 + k²) − max over u of [m·(c − o) + h_E(m)],
//!   m(u) = (u − k e)/√(1 + k²),
//!
//! h_E the support function about the centre c: f is linear less convex, and its least over a
//! convex body is a support point, x* = c + s_E(m*) ([`ellipsoid_support`]) in the best m*.
//! The maximum over the circle of radial directions u(θ) is sought at 16 angles from the
//! centre's own radial direction and refined within one sample spacing of the best by
//! bisection on its slope, u'(θ)·(x*(θ) − o)/√(1 + k²) (the support function's gradient is the
//! support point): zero where x* lies in u's half-plane. This is exact when the maximum there
//! is the only one, as for a body smaller than the mantle's radius (two equal maxima, a body
//! on the axis, give either). The contact is
//! x* with the normal −m* = (k e − u*)/√(1 + k²) (towards the axis) and Φ = R₀/√(1 + k²) −
//! m*·(x* − o), when the foot of x* on the generator lies within the frustum's length.
//!
//! Beyond an end the nearest wall points are that end's rim circle
//! y(φ) = o + s_end e + R(s_end) w(φ): the least signed distance to the ellipsoid along it,
//! sd_E(y(φ)), sought the same way (16 angles from the centre's, then bisection on its slope
//! n_e·y'(φ)),
//! gives the contact: the rim point q, the ellipsoid's nearest point e and outward normal n_e
//! there, n = −n_e and Φ = sd_E(q), as an ellipsoid meets a mesh triangle's rim
//! ([`crate::pair_algorithms::ellipsoid_triangle`]).

use crate::layout::Wall;
use crate::shapes::ellipsoid::{ellipsoid_support, least_by_bisection, PlacedEllipsoid};
use glam::Vec3;
use std::f32::consts::TAU;

/// Angles sampled around the circle before the bisection.
const SAMPLES: usize = 16;

/// An ellipsoid's contact with a wall: the normal from the wall to the body, the gap and the
/// body's contact point less its centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EllipsoidWallTouch {
    /// Unit normal from the wall to the body.
    pub n: Vec3,
    /// Gap Φ (m).
    pub phi: f32,
    /// The body's contact point less its centre.
    pub arm: Vec3,
}

/// The contact of ellipsoid `body` with the inside of frustum (or cylinder) wall `wall` (the
/// module's method), or `None` when the wall is off or the centre lies more than the longest
/// semi-axis beyond the mantle (the body is on its far side).
pub fn ellipsoid_in_frustum(wall: &Wall, body: &PlacedEllipsoid) -> Option<EllipsoidWallTouch> {
    let (o, e, k, half) = (wall.o(), wall.n(), wall.slope(), wall.u[3]);
    let r0 = wall.cylinder_radius().abs();
    let norm = (1.0 + k * k).sqrt();
    let (s_c, radial_c) = axial_and_radial(body.centre - o, e);
    if (r0 + k * s_c - radial_c.length()) / norm < -body.semi_axes.max_element() {
        return None;
    }
    let a1 = radial_c
        .try_normalize()
        .unwrap_or_else(|| Wall::axis_normal(e));
    let a2 = e.cross(a1);
    let radial = |theta: f32| theta.cos() * a1 + theta.sin() * a2;
    let turning = |theta: f32| -theta.sin() * a1 + theta.cos() * a2;
    let direction = |theta: f32| (radial(theta) - k * e) / norm;
    let deepest =
        |theta: f32| body.centre + ellipsoid_support(body.q, body.semi_axes, direction(theta)) - o;
    let theta = least_around_circle(
        |t| -direction(t).dot(deepest(t)),
        |t| -turning(t).dot(deepest(t)),
    );
    let m = direction(theta);
    let arm = ellipsoid_support(body.q, body.semi_axes, m);
    let x = body.centre + arm;
    let (s, radial_x) = axial_and_radial(x - o, e);
    let foot = (s + k * (radial_x.length() - r0)) / (1.0 + k * k);
    if foot.abs() <= half {
        return Some(EllipsoidWallTouch {
            n: -m,
            phi: r0 / norm - m.dot(x - o),
            arm,
        });
    }
    let end = half.copysign(foot);
    let rim = |phi: f32| o + end * e + (r0 + k * end) * radial(phi);
    let phi = least_around_circle(
        |p| body.signed_distance(rim(p)).0,
        |p| body.signed_distance(rim(p)).2.dot(turning(p)),
    );
    let (gap, nearest, n) = body.signed_distance(rim(phi));
    Some(EllipsoidWallTouch {
        n: -n,
        phi: gap,
        arm: nearest - body.centre,
    })
}

/// The axial coordinate of `rel` along unit `e` and its radial part.
#[inline(always)]
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn axial_and_radial(rel: Vec3, e: Vec3) -> (f32, Vec3) {
    let s = rel.dot(e);
    (s, rel - s * e)
}

/// The angle θ of the least of `f` (of derivative `slope`) around the circle: the best of
/// [`SAMPLES`] angles from 0, refined within one sample spacing of it by bisection on the
/// slope ([`least_by_bisection`]), unless that ends higher (the slope's sign change is then
/// another extremum).
fn least_around_circle(f: impl Fn(f32) -> f32, slope: impl Fn(f32) -> f32) -> f32 {
    let spacing = TAU / SAMPLES as f32;
    let (low, best) = (0..SAMPLES)
        .map(|i| i as f32 * spacing)
        .map(|t| (f(t), t))
        .fold((f32::INFINITY, 0.0), |b, x| if x.0 < b.0 { x } else { b });
    let t = least_by_bisection(slope, best - spacing, best + spacing);
    if f(t) <= low {
        t
    } else {
        best
    }
}
