// Stage 6, solve (mirrors kernels/src/coulomb_correction.rs; only with coulomb_correction = k > 0):
// the Coulomb correction of the cone relaxation. The CCP lets a sliding contact separate at
// μ‖u_T‖ (anitescu-2006 eq. 5.5's dual cone); each of the k passes moves μ‖u_T‖ of the last
// iterate into the normal row's right-hand side, then the step runs another max_iterations Jacobi
// sweeps from the last γ. The lift lives in `gamma[c].w`, which update_contact adds to the row's
// own normal bias, so every pass starts from Φ/h − n·v_wall.

/// Every contact's normal bias b_n = Φ/h − n·v_wall + μ‖u_T‖, u_T at the current velocities.
@compute @workgroup_size(256)
fn correct_normal_bias(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                       @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= contact_count() {
        return;
    }
    let row = solver_row(c);
    let u = relative_velocity(row, row.bias);
    gamma[c].w = row.mu * sqrt(u.y * u.y + u.z * u.z);
}
