// Stage 7, integrate (mirrors kernels/src/integrate.rs): positions follow the new velocities.

/// q⁺ = q + h v⁺ (hart-anitescu eq. 2.11) and orientation q⁺ = normalise(q + ½ h ω ⊗ q).
@compute @workgroup_size(256)
fn integrate_positions(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                       @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if i >= params.n_bodies || kind[i] == FIXED {
        return;
    }
    let m = motion[i];
    let p = pos_radius[i];
    pos_radius[i] = vec4<f32>(p.xyz + m.linear * params.h, p.w);
    let w = m.angular;
    if any(w != vec3<f32>(0.0)) {
        let q = orientation[i];
        // (w, 0) ⊗ q, the Hamilton product with a pure quaternion.
        let spin = vec4<f32>(q.w * w + cross(w, q.xyz), -dot(w, q.xyz));
        let s = q + spin * (0.5 * params.h);
        orientation[i] = s * (1.0 / length(s));
    }
}
