// The narrow phase's stand-in for inertia.wgsl: its rows count an anisotropic body's 1/m only
// (Motion.inv_inertia = 0), as the CPU's narrow phase does; the solver rows' compaction adds the
// tensor's share (compact_rows, solver_row.wgsl), as PrincipalInertia::add_rotational_weights.

fn rotational_weight(i: u32, c: vec3<f32>) -> f32 {
    return 0.0;
}
