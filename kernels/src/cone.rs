//! Euclidean projection onto the Coulomb friction cone (anitescu-2006 eq. 5.3's K_i), for the
//! warm start of stage 5 (prepare) and the sweeps of stage 6 (solve).

use glam::Vec4;

/// Projects (γn, γt1, γt2) onto K = {‖γt‖ ≤ μ γn}: keep inside, zero inside the polar cone,
/// else the nearest point of the cone's surface.
#[inline(always)]
pub fn project_cone(gn: f32, gt1: f32, gt2: f32, mu: f32) -> [f32; 3] {
    let t = (gt1 * gt1 + gt2 * gt2).sqrt();
    if t <= mu * gn {
        [gn, gt1, gt2]
    } else if mu * t <= -gn {
        [0.0, 0.0, 0.0]
    } else {
        let n = (gn + mu * t) / (1.0 + mu * mu);
        let scale = mu * n / t;
        [n, gt1 * scale, gt2 * scale]
    }
}

/// Projects four lanes (γn, γt1, γt2) onto K in the metric diag(1, s², s²), s² = `s2` per lane
/// (tangents weighted by s): the exact minimiser of each contact's local problem when
/// Dᵢᵀ M⁻¹ Dᵢ has diagonal (w_n, w_t, w_t) and s² = w_t/w_n. Inside: keep; in the polar cone:
/// zero; else onto the surface along the same tangential direction. Branch-free: lanes
/// inside keep their values through the final select, and the square root and divisions are
/// computed for every pack (an early return when all four lanes stick, tried before, was
/// mispredicted often enough in a settling bed that the sweep ran about 9 % slower with it).
#[inline(always)]
pub fn project_cone_scaled4(gn: Vec4, gt1: Vec4, gt2: Vec4, mu: Vec4, s2: Vec4) -> [Vec4; 3] {
    let tt = gt1 * gt1 + gt2 * gt2;
    let inside = gn.cmpge(Vec4::ZERO) & tt.cmple(mu * mu * gn * gn);
    let t = Vec4::from_array(tt.to_array().map(f32::sqrt));
    let polar = (mu * s2 * t).cmple(-gn);
    let n = (gn + mu * s2 * t) / (Vec4::ONE + mu * mu * s2);
    let scale = mu * n / t;
    let keep =
        |v: Vec4, surface: Vec4| Vec4::select(inside, v, Vec4::select(polar, Vec4::ZERO, surface));
    [keep(gn, n), keep(gt1, gt1 * scale), keep(gt2, gt2 * scale)]
}
