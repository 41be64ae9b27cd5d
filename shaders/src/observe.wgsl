// Stage 8, observe (mirrors kernels/src/observe.rs): per-step statistics kept on the device and
// read back only every few steps.

/// Resets the step's counters and the grid bounds.
@compute @workgroup_size(16)
fn clear_statistics(@builtin(local_invocation_index) lid: u32) {
    if lid < STAT_SLOTS {
        atomicStore(&stats[lid], 0u);
    }
    // Min slots start at the largest ordered value, max slots and the reach sum at 0.
    if lid < BOUND_SLOTS {
        atomicStore(&bounds[lid], select(0u, 0xffffffffu, lid < B_MAX));
    }
}

/// The last sweep's max-norm residual: the largest of the contact workgroups' residuals.
@compute @workgroup_size(256)
fn reduce_residual(@builtin(local_invocation_index) lid: u32) {
    let groups = atomicLoad(&stats[STAT_GROUPS]);
    var r = 0u;
    for (var g = lid; g < groups; g = g + WG) {
        r = max(r, residual_blocks[g]);
    }
    let all = workgroup_max(lid, r);
    if lid == 0u {
        atomicStore(&stats[STAT_RESIDUAL], all);
    }
}
