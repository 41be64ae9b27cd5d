// Stage 1 (mirrors kernels/src/forces.rs): non-contact forces.

/// v* = v + h M⁻¹ f for gravity (hart-anitescu eq. 2.11's h·f term), dynamic bodies only.
@compute @workgroup_size(256)
fn apply_forces(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if i >= params.n_bodies || !is_dynamic(i) {
        return;
    }
    var m = motion[i];
    m.linear = m.linear + params.gravity * params.h;
    motion[i] = planar_mask(m);
}

/// Kinematic bodies take their prescribed velocities for the step.
@compute @workgroup_size(256)
fn apply_drives(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let d = thread_index(wid, nwg, lid);
    if d >= params.n_drives {
        return;
    }
    let dr = drives[d];
    motion[dr.body].linear = vec3<f32>(dr.lx, dr.ly, dr.lz);
    motion[dr.body].angular = vec3<f32>(dr.ax, dr.ay, dr.az);
}
