// Full rigid-body inertia (mirrors kernels/src/inertia.rs): the anisotropic bodies' principal
// moments (I1, I2, I3) in the body frame and their world inverse inertia
// I_w⁻¹ = R diag(1/I1, 1/I2, 1/I3) Rᵀ at the step's orientation. An anisotropic body has
// Motion.inv_inertia = 0 (the isotropic bodies' scalar fast path adds nothing for it) and its
// tensor here; the buffer holds one entry per body where some body is anisotropic, a single
// empty entry otherwise. Prepended to the stages bound to the solve's group 0 (the solve, the
// solver rows' compaction and integrate); the narrow phase gets inertia_off.wgsl.

/// One body's inertia: (I1, I2, I3, 1) for an anisotropic body ((0, 0, 0, 0) for the others),
/// then I_w⁻¹'s diagonal (xx, yy, zz) and off-diagonal (xy, xz, yz) entries.
struct BodyInertia {
    moments: vec4<f32>,
    diagonal: vec4<f32>,
    off_diagonal: vec4<f32>,
}

@group(0) @binding(33) var<storage, read_write> inertia: array<BodyInertia>;

/// Whether body i turns with its tensor.
fn is_anisotropic(i: u32) -> bool {
    return i < arrayLength(&inertia) && inertia[i].moments.w != 0.0;
}

/// I_w⁻¹ l for anisotropic body i.
fn inverse_inertia_times(i: u32, l: vec3<f32>) -> vec3<f32> {
    let d = inertia[i].diagonal;
    let o = inertia[i].off_diagonal;
    return vec3<f32>(d.x * l.x + o.x * l.y + o.y * l.z,
                     o.x * l.x + d.y * l.y + o.z * l.z,
                     o.y * l.x + o.z * l.y + d.z * l.z);
}

/// The angular velocity change I_w⁻¹ L of body i for a moment impulse L if it is anisotropic,
/// else 0 (an isotropic body turns by Motion.inv_inertia L, as PrincipalInertia::turn).
fn anisotropic_turn(i: u32, l: vec3<f32>) -> vec3<f32> {
    if is_anisotropic(i) {
        return inverse_inertia_times(i, l);
    }
    return vec3<f32>(0.0);
}

/// cᵀ I_w⁻¹ c, c = r × e: anisotropic body i's rotational share of a row's eᵀ M⁻¹ e (0 for
/// the others, whose share is Motion.inv_inertia |c|²).
fn rotational_weight(i: u32, c: vec3<f32>) -> f32 {
    if is_anisotropic(i) {
        return dot(c, inverse_inertia_times(i, c));
    }
    return 0.0;
}

/// Stores body i's I_w⁻¹ = Σ_k r_k r_kᵀ / I_k at unit orientation q, r_k = R e_k
/// (world_inverse_inertia).
fn refresh_inverse_inertia(i: u32, q: vec4<f32>) {
    let m = inertia[i].moments;
    let r1 = rotate_vector(q, vec3<f32>(1.0, 0.0, 0.0));
    let r2 = rotate_vector(q, vec3<f32>(0.0, 1.0, 0.0));
    let r3 = rotate_vector(q, vec3<f32>(0.0, 0.0, 1.0));
    let a = r1 / m.x;
    let b = r2 / m.y;
    let c = r3 / m.z;
    inertia[i].diagonal = vec4<f32>(a * r1 + b * r2 + c * r3, 0.0);
    inertia[i].off_diagonal = vec4<f32>(a.x * r1.y + b.x * r2.y + c.x * r3.y,
                                        a.x * r1.z + b.x * r2.z + c.x * r3.z,
                                        a.y * r1.z + b.y * r2.z + c.y * r3.z, 0.0);
}

/// Whether contact row `row` has an anisotropic body.
fn has_anisotropic_body(row: ContactRow) -> bool {
    return is_anisotropic(row.body_a) || (row.body_b != NO_BODY && is_anisotropic(row.body_b));
}

/// Gives full row c the masses of `weighed`, its frame rebuilt with the tensor: the narrow phase
/// counted an anisotropic body's 1/m only (inertia_off.wgsl), as the CPU's narrow phase does
/// before add_rotational_weights.
fn give_tensor_masses(c: u32, weighed: ContactRow) {
    rows[c].mass_n = weighed.mass_n;
    rows[c].mass_t = weighed.mass_t;
}
