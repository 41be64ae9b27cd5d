//! The per-contact work shared by every CCP sweep: relative velocity, projected impulse update
//! and impulse application (anitescu-2006 eq. 5.5 solved by a projected iteration).

use crate::cone::project_cone_scaled;
use crate::forces::planar_mask;
use crate::layout::{ContactRow, Motion};
use glam::Vec3;

/// What a sweep needs besides the rows.
#[derive(Clone, Copy, Debug)]
pub struct SweepParams {
    /// Over-relaxation ω of the projected step.
    pub omega: f32,
    /// Planar mode: bodies keep v_y = 0 and ω ∥ ŷ.
    pub planar: bool,
    /// Share of the softened normal diagonal that is compliance, ε·mass_n (0 = rigid).
    pub softness: f32,
}

/// u = Dᵀ v + bias: relative velocity (normal, t1, t2) of a with respect to b at the contact.
#[inline(always)]
pub fn relative_velocity(row: &ContactRow, a: &Motion, b: Option<&Motion>, bias: Vec3) -> Vec3 {
    let mut vr = a.v() + a.w().cross(Vec3::from_array(row.ra));
    if let Some(b) = b {
        vr -= b.v() + b.w().cross(Vec3::from_array(row.rb));
    }
    Vec3::new(
        vr.dot(Vec3::from_array(row.n)),
        vr.dot(Vec3::from_array(row.t1)),
        vr.dot(Vec3::from_array(row.t2)),
    ) + bias
}

/// γ⁺ = Π_K(γ − ω W⁻¹ u) with W = diag(Dᵀ M⁻¹ D), projected in W's metric; returns γ⁺ and the
/// fixed-point residual max(w_n |Δγn|, w_t |Δγt1|, w_t |Δγt2|) in m/s.
#[inline(always)]
pub fn projected_update(
    row: &ContactRow,
    gamma: [f32; 4],
    u: Vec3,
    p: &SweepParams,
) -> ([f32; 4], f32) {
    let omega = p.omega;
    // Compliant contact: u_n + Φ/h + ε γn ≥ 0, ε = softness / mass_n (an implicit spring).
    let gn = gamma[0] - omega * (row.mass_n * u.x + p.softness * gamma[0]);
    let g1 = gamma[1] - omega * row.mass_t * u.y;
    let g2 = gamma[2] - omega * row.mass_t * u.z;
    let [n, t1, t2] = project_cone_scaled(gn, g1, g2, row.mu, row.mass_n / row.mass_t);
    let dn = (n - gamma[0]).abs() / row.mass_n;
    let dt = (t1 - gamma[1]).abs().max((t2 - gamma[2]).abs()) / row.mass_t;
    ([n, t1, t2, 0.0], dn.max(dt))
}

/// World-space impulse vector D Δγ (acting on a; b receives its negative).
#[inline(always)]
pub fn impulse_vector(row: &ContactRow, dg: [f32; 4]) -> Vec3 {
    Vec3::from_array(row.n) * dg[0]
        + Vec3::from_array(row.t1) * dg[1]
        + Vec3::from_array(row.t2) * dg[2]
}

/// v ← v + M⁻¹ (±P, ±r × P): one body's share of an impulse P applied at arm `r`.
#[inline(always)]
pub fn apply_to_body(m: &mut Motion, r: Vec3, p: Vec3, planar: bool) {
    m.linear = (m.v() + p * m.inv_mass).to_array();
    m.angular = (m.w() + r.cross(p) * m.inv_inertia).to_array();
    if planar {
        planar_mask(m);
    }
}
