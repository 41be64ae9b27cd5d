// Stage 1, forces (mirrors kernels/src/forces.rs): non-contact forces.

/// `Actuation.kind` of an applied force (kernels/src/forces.rs's LOAD).
const LOAD: u32 = 1u;

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

/// Kinematic bodies take their prescribed velocities for the step; a dynamic body with an
/// applied force f takes v ← v + h M⁻¹ f (hart-anitescu eq. 2.11's h·k term; one entry per body,
/// its forces summed on the host).
@compute @workgroup_size(256)
fn apply_drives(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let d = thread_index(wid, nwg, lid);
    if d >= params.n_drives {
        return;
    }
    let dr = drives[d];
    if dr.kind == LOAD {
        if is_dynamic(dr.body) {
            var m = motion[dr.body];
            m.linear = m.linear + vec3<f32>(dr.lx, dr.ly, dr.lz) * (params.h * m.inv_mass);
            motion[dr.body] = planar_mask(m);
        }
        return;
    }
    motion[dr.body].linear = vec3<f32>(dr.lx, dr.ly, dr.lz);
    motion[dr.body].angular = vec3<f32>(dr.ax, dr.ay, dr.az);
}
