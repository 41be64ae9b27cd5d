//! The contacts of the geometrically implicit stepper: which pair of bodies, the friction
//! ellipsoid's parameters, the closest-point conditions (equation (9) of Chakraborty et al.)
//! and the contact frame.

use super::surface::{ImplicitSurface, Pose};
use glam::DVec3;

/// The friction ellipsoid (λ_t/e_t)² + (λ_o/e_o)² + (λ_r/e_r)² ≤ μ² λ_n² of a contact: e_t and
/// e_o are dimensionless, e_r (spin) is a length; e_r = 0 drops the spin term (no spin
/// friction).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Friction {
    /// Coefficient of friction μ ≥ 0.
    pub mu: f64,
    /// e_t > 0 (first tangent direction).
    pub e_t: f64,
    /// e_o > 0 (second tangent direction).
    pub e_o: f64,
    /// e_r ≥ 0 (spin about the normal, a length); 0: no spin friction (p_r = 0).
    pub e_r: f64,
}

impl Friction {
    /// Coulomb friction `mu` with unit tangential constants (e_t = e_o = 1, the friction
    /// ellipsoid round in the tangent plane) and spin constant `e_r`.
    pub fn isotropic(mu: f64, e_r: f64) -> Self {
        Friction {
            mu,
            e_t: 1.0,
            e_o: 1.0,
            e_r,
        }
    }
}

/// A contact between bodies `a` (its closest point a₁, outward normal n pointing at `b`) and
/// `b` (closest point a₂).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPair {
    /// Index of the first body.
    pub a: usize,
    /// Index of the second body.
    pub b: usize,
    /// Its friction ellipsoid.
    pub friction: Friction,
}

/// How a step sees the gap: the paper's geometrically implicit one or, for comparison, the
/// linearised gap of the explicit time-steppers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GapModel {
    /// Closest points a₁, a₂ on the bodies at the end of the step are unknowns of the step,
    /// with the gap n·(a₂ − a₁) of those points (Chakraborty et al., equations (9)–(11)).
    #[default]
    GeometricallyImplicit,
    /// The gap Φ(q^ℓ) + h n^ℓ·v_rel(ν^{ℓ+1}), with the closest points, lever arms and contact
    /// frame frozen at the start of the step (the linearised scheme, for comparison only).
    Linearised,
}

/// The world axis least aligned with `n`: the reference from which [`contact_frame`] builds
/// the tangents (kept for a whole step, so the frame is a smooth function of n).
pub fn reference_axis(n: DVec3) -> DVec3 {
    let a = n.abs();
    if a.x <= a.y && a.x <= a.z {
        DVec3::X
    } else if a.y <= a.z {
        DVec3::Y
    } else {
        DVec3::Z
    }
}

/// The tangents (t, o) of the contact frame (n, t, o): t the unit projection of `axis` on the
/// plane normal to n, o = n × t.
pub fn contact_frame(n: DVec3, axis: DVec3) -> (DVec3, DVec3) {
    let t = (axis - axis.dot(n) * n).normalize();
    (t, n.cross(t))
}

/// The two bodies' surfaces and poses seen by one contact.
#[derive(Clone, Copy, Debug)]
pub struct ContactGeometry<'a> {
    /// Surface of body a.
    pub surface_a: &'a ImplicitSurface,
    /// Pose of body a.
    pub pose_a: Pose,
    /// Surface of body b.
    pub surface_b: &'a ImplicitSurface,
    /// Pose of body b.
    pub pose_b: Pose,
}

impl ContactGeometry<'_> {
    /// The six closest-point conditions of equation (9) in square form, with the outward unit
    /// normal n₁ of body a at a₁: f(a₁)/‖∇f(a₁)‖ = 0, g(a₂)/‖∇g(a₂)‖ = 0 (both points on their
    /// surfaces, each scaled to a length), t·(n₁ + n₂) = o·(n₁ + n₂) = 0 (opposed normals) and
    /// t·(a₂ − a₁) = o·(a₂ − a₁) = 0 (the points on the common normal), with (t, o) the
    /// tangents of n₁ from `axis`. Unit normals keep touching and intersecting points apart,
    /// as the paper's equation (9) does.
    pub fn closest_point_conditions(&self, a1: DVec3, a2: DVec3, axis: DVec3) -> ([f64; 6], DVec3) {
        let grad_a = self.surface_a.gradient(&self.pose_a, a1);
        let grad_b = self.surface_b.gradient(&self.pose_b, a2);
        let n1 = grad_a.normalize();
        let n2 = grad_b.normalize();
        let (t, o) = contact_frame(n1, axis);
        let d = a2 - a1;
        (
            [
                self.surface_a.value(&self.pose_a, a1) / grad_a.length(),
                self.surface_b.value(&self.pose_b, a2) / grad_b.length(),
                t.dot(n1 + n2),
                o.dot(n1 + n2),
                t.dot(d),
                o.dot(d),
            ],
            n1,
        )
    }
}
