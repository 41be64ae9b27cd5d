// Stage 6, solve (mirrors kernels/src/jacobi.rs; the body index is built in stage 5, prepare):
// projected Jacobi CCP sweeps (Tasora–Anitescu), each contact's row rebuilt from its compact
// solver row (solver_row.wgsl). Every
// contact updates from the same velocities (with spinning or rolling friction its moment rows
// right after its sliding rows, rolling.wgsl), then every body gathers M⁻¹ D Δγ of its contacts
// through the body → contacts index (no float atomics, a fixed summation order).

/// Counts the dynamic bodies' contacts.
@compute @workgroup_size(256)
fn count_body_contacts(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                       @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= contact_count() {
        return;
    }
    let row = rows[c];
    if is_dynamic(row.body_a) {
        atomicAdd(&body_fill[row.body_a], 1u);
    }
    if row.body_b != NO_BODY && is_dynamic(row.body_b) {
        atomicAdd(&body_fill[row.body_b], 1u);
    }
}

/// Writes each dynamic body's lever arm and `contact << 1 | side` into its range.
@compute @workgroup_size(256)
fn scatter_body_contacts(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                         @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= contact_count() {
        return;
    }
    let row = rows[c];
    if is_dynamic(row.body_a) {
        body_entries[body_start[row.body_a] + atomicAdd(&body_fill[row.body_a], 1u)] =
            BodyEntry(row.ra, c << 1u);
    }
    if row.body_b != NO_BODY && is_dynamic(row.body_b) {
        body_entries[body_start[row.body_b] + atomicAdd(&body_fill[row.body_b], 1u)] =
            BodyEntry(row.rb, (c << 1u) | 1u);
    }
}

/// Sorts each body's entries by contact (the scatter's order depends on timing).
@compute @workgroup_size(256)
fn sort_body_contacts(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                      @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if i >= params.n_bodies {
        return;
    }
    atomicStore(&body_fill[i], 0u);
    let s = body_start[i];
    let e = body_start[i + 1u];
    for (var k = s + 1u; k < e; k = k + 1u) {
        let x = body_entries[k];
        var j = k;
        while j > s && body_entries[j - 1u].tag > x.tag {
            body_entries[j] = body_entries[j - 1u];
            j = j - 1u;
        }
        body_entries[j] = x;
    }
}

/// The warm start's impulse D γ⁰ of every contact, for the gather.
@compute @workgroup_size(256)
fn contact_impulse(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= contact_count() {
        return;
    }
    impulse[c] = vec4<f32>(impulse_vector(rows[c], gamma[c].xyz), 0.0);
}

/// Whether this sweep reports its residual (only the last sweep of a step needs it).
override report_residual: bool = true;

/// The normal row's local step (before ω) of a compliant contact whose spring gives at most δ in
/// the step, u_n + min(ε γn, δ/h) ≥ 0: the larger root of the spring's and the rigid row's
/// residuals, min(mass_n (u_n + ε γn), (u_n + δ/h) / w_n) with 1/w_n = mass_n (1 + ε/w_n)
/// (as `bounded_spring_step` in kernels/src/contact_update.rs).
fn bounded_spring_step(mass_n: f32, un: f32, gn: f32) -> f32 {
    let spring = mass_n * un + params.softness * gn;
    let rigid = (un + params.give_speed) * (mass_n * (1.0 + params.softness_ratio));
    return min(spring, rigid);
}

/// Contact c's projected update γ⁺ = Π_K(γ − ω W⁻¹ u), u = Dᵀv + bias, in W's metric with the
/// compliant term ε γn (anitescu-2006 eq. 5.5 by projected Jacobi), the normal bias raised by the
/// Coulomb correction's lift in `gamma[c].w` (0 without it); keeps D Δγ for the gather and
/// returns the max-norm residual max(w_n |Δγn|, w_t |Δγt|) / ω (m/s, the projected gradient).
/// `omega` is the step ω (`params.omega`; APGD's current step in apgd.wgsl).
fn update_contact(c: u32, row: ContactRow, omega: f32) -> f32 {
    let state = gamma[c];
    let g = state.xyz;
    let u = relative_velocity(row, row.bias + vec3<f32>(state.w, 0.0, 0.0));
    let step = vec3<f32>(g.x - omega * bounded_spring_step(row.mass_n, u.x, g.x),
                         g.y - omega * row.mass_t * u.y,
                         g.z - omega * row.mass_t * u.z);
    let next = project_cone_scaled(step, row.mu, row.mass_n / row.mass_t);
    let d = next - g;
    gamma[c] = vec4<f32>(next, state.w);
    impulse[c] = vec4<f32>(impulse_vector(row, d), 0.0);
    return max(abs(d.x) / row.mass_n, max(abs(d.y), abs(d.z)) / row.mass_t) / omega;
}

/// Contact c's sliding rows (update_contact), then its moment rows from the same velocities
/// (update_moments), with step ω = `omega`; returns the larger residual.
fn update_rows(c: u32, row: ContactRow, omega: f32) -> f32 {
    return max(update_contact(c, row, omega), update_moments(c, row, omega));
}

/// Writes the workgroup's largest `residual` to its slot of `residual_blocks` (every thread of
/// the workgroup calls it).
fn report_sweep_residual(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, residual: f32) {
    let worst = workgroup_max(lid, bitcast<u32>(residual));
    if lid == 0u {
        residual_blocks[group_index(wid, nwg)] = worst;
    }
}

/// Every contact: γ⁺ = Π_K(γ − ω W⁻¹ u) (anitescu-2006 eq. 5.5, update_contact) on its row
/// rebuilt from the solver row, then its moment rows' γ_m⁺ from the same velocities
/// (update_moments); keeps the workgroup's largest residual. In a distributed step a contact
/// another rank solves is left at γ = 0 (solved_here).
@compute @workgroup_size(256)
fn contact_sweep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    var residual = 0.0;
    if c < contact_count() && solved_here(c) {
        residual = update_rows(c, solver_row(c), params.omega);
    }
    if report_residual {
        report_sweep_residual(wid, nwg, lid, residual);
    }
}

/// Σ (±P_i, r_i × ±P_i ± L_i) over the entries `s..e` of a body's contacts in contact order
/// (the moment impulses L_i only with spinning or rolling friction): the linear and angular
/// impulse the body receives from the sweep.
fn gathered_impulse(s: u32, e: u32) -> array<vec3<f32>, 2> {
    var dp = vec3<f32>(0.0);
    var dl = vec3<f32>(0.0);
    for (var k = s; k < e; k = k + 1u) {
        let entry = body_entries[k];
        var p = impulse[entry.tag >> 1u].xyz;
        if (entry.tag & 1u) != 0u {
            p = -p;
        }
        dp = dp + p;
        dl = add_moment_impulse(dl + cross(entry.arm, p), entry);
    }
    return array<vec3<f32>, 2>(dp, dl);
}

/// v ← v + M⁻¹ (P, L) for body i's gathered impulse `g` (then the planar mask): ω gains L/I, or
/// I_w⁻¹ L for an anisotropic body (inertia.wgsl).
fn kick(i: u32, m: Motion, g: array<vec3<f32>, 2>) -> Motion {
    var out = m;
    out.linear = m.linear + g[0] * m.inv_mass;
    out.angular = m.angular + g[1] * m.inv_inertia + anisotropic_turn(i, g[1]);
    return planar_mask(out);
}

/// Every dynamic body: v ← v + M⁻¹ Σ (±P_i, r_i × ±P_i ± L_i) over its contacts in contact order
/// (the moment impulses L_i only with spinning or rolling friction).
@compute @workgroup_size(256)
fn body_gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if i >= params.n_bodies {
        return;
    }
    let s = body_start[i];
    let e = body_start[i + 1u];
    if s == e {
        return;
    }
    motion[i] = kick(i, motion[i], gathered_impulse(s, e));
}
