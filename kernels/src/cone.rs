//! Euclidean projection onto the Coulomb friction cone (anitescu-2006 eq. 5.3's K_i).

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

/// Projects onto K in the metric diag(1, s², s²) with s² = `s2` (tangents weighted by s): the
/// exact minimiser of the contact's local problem when Dᵢᵀ M⁻¹ Dᵢ has diagonal (w_n, w_t, w_t)
/// and s² = w_t/w_n. Sticking contacts take no square root; sliding ones keep their direction.
#[inline(always)]
pub fn project_cone_scaled(gn: f32, gt1: f32, gt2: f32, mu: f32, s2: f32) -> [f32; 3] {
    let tt = gt1 * gt1 + gt2 * gt2;
    if gn >= 0.0 && tt <= mu * mu * gn * gn {
        return [gn, gt1, gt2];
    }
    let t = tt.sqrt();
    if mu * s2 * t <= -gn {
        return [0.0, 0.0, 0.0];
    }
    let n = (gn + mu * s2 * t) / (1.0 + mu * mu * s2);
    let scale = mu * n / t;
    [n, gt1 * scale, gt2 * scale]
}
