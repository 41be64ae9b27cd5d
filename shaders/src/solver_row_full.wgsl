// Stage 5 (prepare) and stage 6 (solve) of a world with clumps: the twin of solver_row.wgsl
// for contacts whose lever arms need not lie along the normal (a clump member's arm runs from
// the body's centre of mass to the member's surface point), prepended instead of it. The solve
// then reads the full 96-byte row of every contact, which the narrow phase built with the arms,
// frame and masses of contact_frame; the compaction only gives the rows with an anisotropic
// body (every clump with unequal moments) the masses with its tensor.

/// Contact c's row as the narrow phase built it (with the tensor's masses after compact_rows).
fn solver_row(c: u32) -> ContactRow {
    return rows[c];
}

/// Whether this rank's sweeps update contact c: always (a world with clumps is never
/// distributed).
fn solved_here(c: u32) -> bool {
    return true;
}

/// The masses with the tensor of every row with an anisotropic body (give_tensor_masses): its
/// frame rebuilt by contact_frame for the row's own arms.
@compute @workgroup_size(256)
fn compact_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= contact_count() {
        return;
    }
    let row = rows[c];
    if has_anisotropic_body(row) {
        give_tensor_masses(c, contact_frame(row.body_a, row.body_b, row.n, row.ra, row.rb));
    }
}
