// Stage 5, prepare (only with moment rows and anisotropic bodies; after the warm start and the
// solver rows' compaction): the moment rows' diagonal of the contacts with an anisotropic body.
// The warm start, whose stage cannot bind the tensor, counted such a body's share of w_m as its
// Motion.inv_inertia = 0; it is 1/I_min, the largest eigenvalue of its block (n, t1, t2)ᵀ I_w⁻¹
// (n, t1, t2), as Moments::build. Appended to the Jacobi module with the moment rows, bound to the
// solve's group 0 and the moments as group 1.

/// Body i's share of w_m: 1/I_min if it is anisotropic, else 1/I (0 for a fixed body).
fn moment_share(i: u32) -> f32 {
    if is_anisotropic(i) {
        let m = inertia[i].moments;
        return 1.0 / min(m.x, min(m.y, m.z));
    }
    return motion[i].inv_inertia;
}

/// 1/w_m and w_m |r_a| of every contact with an anisotropic body (moment_row's last two).
@compute @workgroup_size(256)
fn weigh_anisotropic_moments(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                             @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= contact_count() {
        return;
    }
    let row = rows[c];
    let b = row.body_b;
    if !(is_anisotropic(row.body_a) || (b != NO_BODY && is_anisotropic(b))) {
        return;
    }
    var w = moment_share(row.body_a);
    if b != NO_BODY {
        w = w + moment_share(b);
    }
    moments[c].row.z = select(0.0, 1.0 / w, w > 0.0);
    moments[c].row.w = w * length(row.ra);
}
