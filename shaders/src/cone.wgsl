// Projections onto the Coulomb friction cone (mirrors kernels/src/cone.rs), and a contact's
// D γ and Dᵀ v, which the stages that project share.

/// Euclidean projection of (γn, γt1, γt2) onto K = {‖γt‖ ≤ μ γn} (anitescu-2006 eq. 5.3's K_i).
fn project_cone(g: vec3<f32>, mu: f32) -> vec3<f32> {
    let t = sqrt(g.y * g.y + g.z * g.z);
    if t <= mu * g.x {
        return g;
    }
    if mu * t <= -g.x {
        return vec3<f32>(0.0);
    }
    let n = (g.x + mu * t) / (1.0 + mu * mu);
    let scale = mu * n / t;
    return vec3<f32>(n, g.y * scale, g.z * scale);
}

/// Projection onto K in the metric diag(1, s², s²) with s² = w_t/w_n: the exact minimiser of a
/// contact's local problem (as project_cone_scaled4).
fn project_cone_scaled(g: vec3<f32>, mu: f32, s2: f32) -> vec3<f32> {
    let tt = g.y * g.y + g.z * g.z;
    if g.x >= 0.0 && tt <= mu * mu * g.x * g.x {
        return g;
    }
    let t = sqrt(tt);
    if mu * s2 * t <= -g.x {
        return vec3<f32>(0.0);
    }
    let n = (g.x + mu * s2 * t) / (1.0 + mu * mu * s2);
    let scale = mu * n / t;
    return vec3<f32>(n, g.y * scale, g.z * scale);
}

/// World-space impulse D γ of a contact (acting on body a).
fn impulse_vector(row: ContactRow, g: vec3<f32>) -> vec3<f32> {
    return row.n * g.x + row.t1 * g.y + row.t2 * g.z;
}

/// Contact relative velocity in the contact's frame, u = Dᵀ v + `bias` (n, t1, t2 components) at
/// the current velocities (as relative_velocity).
fn relative_velocity(row: ContactRow, bias: vec3<f32>) -> vec3<f32> {
    let ma = motion[row.body_a];
    var vr = ma.linear + cross(ma.angular, row.ra);
    if row.body_b != NO_BODY {
        let mb = motion[row.body_b];
        vr = vr - (mb.linear + cross(mb.angular, row.rb));
    }
    return vec3<f32>(dot(vr, row.n), dot(vr, row.t1), dot(vr, row.t2)) + bias;
}
