// Stage 7, integrate (mirrors kernels/src/integrate.rs and kernels/src/inertia.rs's free
// rotation): positions follow the new velocities; anisotropic bodies turn by the implicit
// midpoint rule of Euler's equations. Bound to the solve's group 0 (`SOLVE_BINDINGS`).

/// Newton iterations of the midpoint equation at most (as inertia::NEWTON_ITERATIONS); in f32 it
/// stops once a correction is below 1e-7 of ω̄, within 3 to 4 iterations at h|ω| ≲ 0.1.
const NEWTON_ITERATIONS: u32 = 12u;

/// The skew matrix of a × (·).
fn skew(a: vec3<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(vec3<f32>(0.0, a.z, -a.y), vec3<f32>(-a.z, 0.0, a.x), vec3<f32>(a.y, -a.x, 0.0));
}

/// The inverse of an invertible 3 × 3 matrix: its adjugate (rows the cross products of its
/// columns) over its determinant.
fn inverse3(m: mat3x3<f32>) -> mat3x3<f32> {
    let adjugate = transpose(mat3x3<f32>(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1])));
    return adjugate * (1.0 / determinant(m));
}

/// The change d = ω̄ − ω_b from body-frame angular velocity wb to the midpoint ω̄ of one step
/// of free rotation (as midpoint_angular_velocity): the root of I d + (h/2) ω̄ × I ω̄ = 0 by
/// Newton's method, Jacobian I + (h/2)([ω̄]× I − [I ω̄]×). Solved for the small d rather than
/// ω̄, so that f32 does not carry the equation in the difference I ω̄ − I ω_b of two large
/// terms.
fn midpoint_change(moments: vec3<f32>, wb: vec3<f32>) -> vec3<f32> {
    let inertia_matrix = mat3x3<f32>(vec3<f32>(moments.x, 0.0, 0.0), vec3<f32>(0.0, moments.y, 0.0),
                                     vec3<f32>(0.0, 0.0, moments.z));
    let half_h = 0.5 * params.h;
    var d = vec3<f32>(0.0);
    for (var k = 0u; k < NEWTON_ITERATIONS; k = k + 1u) {
        let x = wb + d;
        let ix = moments * x;
        let residual = moments * d + half_h * cross(x, ix);
        let jacobian = inertia_matrix + half_h * (skew(x) * inertia_matrix - skew(ix));
        let step = inverse3(jacobian) * residual;
        d = d - step;
        if length(step) <= 1e-7 * length(d) {
            break;
        }
    }
    return d;
}

/// One step of free rotation of anisotropic body i from orientation q and world angular
/// velocity w (as rotate_freely): ω̄ = ω_b + d from the midpoint rule in the body frame, q⁺ =
/// normalise(q + ½ h ω̄_w ⊗ q) with ω̄_w = R ω̄, ω⁺ = R⁺ (2 ω̄ − ω_b); then the next step's I_w⁻¹
/// at q⁺.
fn rotate_freely(i: u32, q: vec4<f32>, w: vec3<f32>) {
    let q0 = normalize(q);
    let wb = rotate_vector(vec4<f32>(-q0.xyz, q0.w), w);
    let d = midpoint_change(inertia[i].moments.xyz, wb);
    let w_mid = w + rotate_vector(q0, d);
    let turn = vec4<f32>(q0.w * w_mid + cross(w_mid, q0.xyz), -dot(w_mid, q0.xyz));
    let q1 = normalize(q0 + turn * (0.5 * params.h));
    orientation[i] = q1;
    // ω⁺ = R⁺ (ω_b + 2d) = C (2 ω̄_w − ω) with C = R⁺ Rᵀ the Cayley turn about ω̄_w, which fixes
    // it: 2 ω̄_w − C ω, so that ω passes through the near-identity C only. Turned into the body
    // frame and back through R and R⁺ in f32, |ω| drifted: V21's energy by 5e-4 over its 10 s
    // on lavapipe, against 4e-5 this way.
    motion[i].angular = 2.0 * w_mid - rotate_vector(vec4<f32>(0.5 * params.h * w_mid, 1.0), w);
    refresh_inverse_inertia(i, q1);
}

/// q⁺ = q + h v⁺ (hart-anitescu eq. 2.11) and orientation q⁺ = normalise(q + ½ h ω ⊗ q), or the
/// free rotation of an anisotropic body.
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
    if is_anisotropic(i) {
        rotate_freely(i, orientation[i], w);
    } else if any(w != vec3<f32>(0.0)) {
        let q = orientation[i];
        // (w, 0) ⊗ q, the Hamilton product with a pure quaternion.
        let spin = vec4<f32>(q.w * w + cross(w, q.xyz), -dot(w, q.xyz));
        let s = q + spin * (0.5 * params.h);
        orientation[i] = s * (1.0 / length(s));
    }
}

/// Every anisotropic body's I_w⁻¹ at its orientation, after the host uploaded the bodies (it
/// writes their moments only): the tensor integrate leaves for the next step, from the same
/// orientation's bits, so that a run restored from a snapshot steps as the run straight through.
@compute @workgroup_size(256)
fn refresh_inertia(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if i < params.n_bodies && is_anisotropic(i) {
        refresh_inverse_inertia(i, orientation[i]);
    }
}
