// Stage 5 (prepare) and stage 6 (solve), GPU only: the compact solver row, what the solve reads
// of a contact in each sweep. The full ContactRow (96 bytes, shared with the CPU) stays the
// narrow phase's, warm start's and observe's; the solve reads 48 bytes per contact instead and
// rebuilds the rest in registers (contact_frame.wgsl): on the GPU every body is a sphere, so both
// lever arms lie along the normal (r_a = s_a n, r_b = s_b n, s = ∓ the radius, 0 for a wall's
// absent b) and the tangents follow from n by tangent_frame; mass_n and mass_t follow from the
// two bodies' Motion, which the solve reads anyway for their velocities. The lengths are taken
// from the radii exactly as the narrow phase scales n by them (partner_row, mesh_row), so the
// rebuilt arms, frame and masses are the full row's bit for bit. Bound only by the
// pipelines with the solve's group 0 (`SOLVE_BINDINGS` in programs.rs), beside the step's 31.

/// One contact's solver row, 48 bytes: n and μ, the bias (hart-anitescu eq. 2.9's Φ/h − n·v_wall,
/// −t1·v_wall, −t2·v_wall) and s_a, then s_b, the two bodies (b NO_BODY for a wall) and whether
/// another rank solves the contact (1) or this one (0).
struct SolverRow {
    n: vec3<f32>,
    mu: f32,
    bias: vec3<f32>,
    arm_a: f32,
    arm_b: f32,
    body_a: u32,
    body_b: u32,
    elsewhere: u32,
}

@group(0) @binding(32) var<storage, read_write> solver_rows: array<SolverRow>;
// In a distributed step, every body's id in the whole bed (one entry outside one): the rank that
// owns the lower id of a pair solves it (kernels/src/interface.rs, Interface::decides).
@group(0) @binding(34) var<storage, read_write> body_ids: array<u32>;

/// Whether this rank solves a contact of bodies a and b (b NO_BODY for a wall): always in one
/// process; in a distributed step, when it owns the body of lower id (a wall's body for a wall
/// contact), as Coupling::decides on the CPU.
fn decided_here(a: u32, b: u32) -> bool {
    if params.n_owned >= params.n_bodies {
        return true;
    }
    var lower = a;
    if b != NO_BODY && body_ids[b] < body_ids[a] {
        lower = b;
    }
    return lower < params.n_owned;
}

/// Whether this rank's sweeps update contact c (every contact outside a distributed step).
fn solved_here(c: u32) -> bool {
    return solver_rows[c].elsewhere == 0u;
}

/// Contact c's row rebuilt from its solver row: the frame and masses of contact_frame for the
/// lever arms s_a n and s_b n, the stored μ and bias (Φ is not kept: the solve does not read it).
fn solver_row(c: u32) -> ContactRow {
    let s = solver_rows[c];
    var row = contact_frame(s.body_a, s.body_b, s.n, s.arm_a * s.n, s.arm_b * s.n);
    row.mu = s.mu;
    row.bias = s.bias;
    return row;
}

/// Every contact's solver row from its full row: n, μ, the bias, the bodies, whether another
/// rank solves it (then its γ and impulse are zeroed) and the lever arms' lengths along the normal, s_a = −r_a and s_b = r_b (0 for a wall) with r the spheres' radii,
/// as partner_row and mesh_row build the arms r_a = −r_a n, r_b = r_b n; a row with an
/// anisotropic body also gets the masses with its tensor (give_tensor_masses).
@compute @workgroup_size(256)
fn compact_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= contact_count() {
        return;
    }
    let row = rows[c];
    var arm_b = 0.0;
    if row.body_b != NO_BODY {
        arm_b = pos_radius[row.body_b].w;
    }
    let here = decided_here(row.body_a, row.body_b);
    solver_rows[c] = SolverRow(row.n, row.mu, row.bias, -pos_radius[row.body_a].w, arm_b, row.body_a,
                               row.body_b, select(1u, 0u, here));
    if !here {
        // Another rank solves it: it keeps γ = 0 and gives its bodies nothing here.
        gamma[c] = vec4<f32>(0.0);
        impulse[c] = vec4<f32>(0.0);
    }
    if has_anisotropic_body(row) {
        give_tensor_masses(c, solver_row(c));
    }
}
