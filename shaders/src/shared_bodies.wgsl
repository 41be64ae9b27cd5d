// Stage 6 of a distributed step on a GPU rank (mirrors the interface branch of body_gather in
// kernels/src/jacobi.rs; appended to the Jacobi stage): the bodies other ranks also hold.
// Every gather of the solve is three dispatches around a host exchange (shaders/src/distributed.rs):
//
//   share_impulses   each shared body's velocity before the gather and this rank's impulse on it
//                    (gathered_impulse of its contacts here)
//   body_gather      every body as in one process (a shared body's result is replaced below)
//   (host)           the shared impulses read back, summed over the holding ranks in rank order
//                    (Interface::sum_shared), the sums written back as `total`
//   kick_shared      each shared body: v ← v_before + M⁻¹ Σ_ranks (P, L), the same bits on every
//                    rank that holds it

/// A body other ranks also hold, by slot: its velocity before the gather, this rank's impulse
/// on it (Δp, ΔL) and the impulse summed over the holding ranks, 96 bytes (SharedBody in
/// shaders/src/distributed.rs).
struct SharedBody {
    motion: Motion,
    local_p: vec4<f32>,
    local_l: vec4<f32>,
    total_p: vec4<f32>,
    total_l: vec4<f32>,
}

/// A body no other rank holds (in `body_slot`).
const UNSHARED: u32 = 0xffffffffu;

// The local index of the body of each slot, the records by slot, and each local body's slot or
// UNSHARED (one entry each outside a distributed step).
@group(0) @binding(35) var<storage, read_write> shared_list: array<u32>;
@group(0) @binding(36) var<storage, read_write> shared_bodies: array<SharedBody>;
@group(0) @binding(37) var<storage, read_write> body_slot: array<u32>;

/// Whether body i's velocity change counts in this rank's kinetic energy of a move: every
/// body in one process; in a distributed step, this rank's own that no other rank holds (the
/// host counts the shared ones it owns).
fn counts_energy(i: u32) -> bool {
    if params.n_shared == 0u {
        return i < params.n_owned;
    }
    return i < params.n_owned && body_slot[i] == UNSHARED;
}

/// Records the shared body of slot s: its velocity now and this rank's impulse `g` on it.
fn record_shared(s: u32, g: array<vec3<f32>, 2>) {
    shared_bodies[s].motion = motion[shared_list[s]];
    shared_bodies[s].local_p = vec4<f32>(g[0], 0.0);
    shared_bodies[s].local_l = vec4<f32>(g[1], 0.0);
}

/// Every shared body: its velocity before the gather and this rank's impulse on it.
@compute @workgroup_size(256)
fn share_impulses(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let s = thread_index(wid, nwg, lid);
    if s < params.n_shared {
        let i = shared_list[s];
        record_shared(s, gathered_impulse(body_start[i], body_start[i + 1u]));
    }
}

/// Every shared body: v ← v_before + M⁻¹ (P, L) with the impulse summed over the ranks
/// (left as it was when that sum is zero, as on the CPU).
@compute @workgroup_size(256)
fn kick_shared(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let s = thread_index(wid, nwg, lid);
    if s >= params.n_shared {
        return;
    }
    let b = shared_bodies[s];
    let i = shared_list[s];
    if all(b.total_p.xyz == vec3<f32>(0.0)) && all(b.total_l.xyz == vec3<f32>(0.0)) {
        motion[i] = b.motion;
        return;
    }
    motion[i] = kick(i, b.motion, array<vec3<f32>, 2>(b.total_p.xyz, b.total_l.xyz));
}
