// A contact's frame and inverse diagonal masses from its normal and lever arms (mirrors
// kernels/src/narrow_phase.rs's tangent_frame and contact_row): shared by the narrow phase, which
// builds the full contact rows, and the solve, which rebuilds them from the compact solver rows
// (solver_row.wgsl).

/// eᵀ M⁻¹ e of body i (motion m) for direction e with lever arm r: 1/m + |r × e|²/I, plus
/// (r × e)ᵀ I_w⁻¹ (r × e) for an anisotropic body (rotational_weight: inertia.wgsl, or 0 in the
/// narrow phase, inertia_off.wgsl).
fn body_weight(i: u32, m: Motion, r: vec3<f32>, e: vec3<f32>) -> f32 {
    let c = cross(r, e);
    return m.inv_mass + m.inv_inertia * dot(c, c) + rotational_weight(i, c);
}

/// An orthonormal frame (t1, t2 = n × t1) for unit n, branch-free (as tangent_frame).
fn tangent_frame(n: vec3<f32>) -> array<vec3<f32>, 2> {
    if params.planar != 0u {
        return array<vec3<f32>, 2>(cross(vec3<f32>(0.0, 1.0, 0.0), n), vec3<f32>(0.0, 1.0, 0.0));
    }
    let sign = select(1.0, -1.0, (bitcast<u32>(n.z) & 0x80000000u) != 0u);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    return array<vec3<f32>, 2>(vec3<f32>(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x),
                               vec3<f32>(b, sign + n.y * n.y * a, -n.y));
}

/// The rows D = [n t1 t2] of a contact between bodies a and b (NO_BODY: a wall) with lever arms
/// ra, rb, and their inverse diagonal masses mass_n = 1 / (w_n (1 + ε/w_n)) (the compliant normal
/// row) and mass_t = 1 / ((w_t1 + w_t2) / 2), w_e = Σ eᵀ M⁻¹ e over the bodies (as contact_row);
/// Φ, μ and the bias are left 0 for the caller.
fn contact_frame(a: u32, b: u32, n: vec3<f32>, ra: vec3<f32>, rb: vec3<f32>) -> ContactRow {
    let frame = tangent_frame(n);
    let t1 = frame[0];
    let t2 = frame[1];
    let ma = motion[a];
    var wn = body_weight(a, ma, ra, n);
    var w1 = body_weight(a, ma, ra, t1);
    var w2 = body_weight(a, ma, ra, t2);
    if b != NO_BODY {
        let mb = motion[b];
        wn = wn + body_weight(b, mb, rb, n);
        w1 = w1 + body_weight(b, mb, rb, t1);
        w2 = w2 + body_weight(b, mb, rb, t2);
    }
    var row: ContactRow;
    row.n = n;
    row.t1 = t1;
    row.t2 = t2;
    row.mass_n = 1.0 / (wn * (1.0 + params.softness_ratio));
    row.ra = ra;
    row.mass_t = 1.0 / (0.5 * (w1 + w2));
    row.rb = rb;
    row.body_a = a;
    row.body_b = b;
    return row;
}
