// Stage 6, solve (APGD; mirrors kernels/src/apgd.rs and the accelerated loop of
// kernels/src/jacobi.rs): Nesterov's acceleration of the projected Jacobi sweep with gradient
// restart and an adaptive step (Mazhar, Heyn, Negrut and Tasora 2015; O'Donoghue and Candès 2015).
// Appended to the Jacobi stage (layout, cone, rolling or rolling_off, jacobi); the momentum and
// the last iterates are bound as group 2. One sweep k (all but a solve's last) is five dispatches:
//
//   apgd_sweep       γ⁺ = Π_K(y − ω W⁻¹ u(y)) at the current step ω, and per workgroup the
//                    restart sum ⟨W (y − γ⁺), γ⁺ − γ_k⟩
//   weigh_momentum   θ_{k+1}² = (1 − θ_{k+1}) θ_k², β = θ_k (1 − θ_k) / (θ_k² + θ_{k+1}), or
//                    β = 0 and θ = 1 when the restart sum is positive
//   extrapolate      y ← γ⁺ + β (γ⁺ − γ_k), γ_k ← γ⁺, the gather's impulse += β D (γ⁺ − γ_k), and
//                    per workgroup ‖Δy‖²_W
//   apgd_gather      the body gather, and per workgroup the move's kinetic energy Δvᵀ M Δv
//   adapt_step       ω ← 0.9 ‖Δy‖²_W / E and θ = 1 when ω E > ‖Δy‖²_W
//
// A solve's last sweep has β = 0: it runs `apgd_sweep` without the restart sum and the plain
// `body_gather` (γ_k, θ and ω are reset at the next solve's start). Every sum is reduced in a
// fixed order (16 × 16 lanes per workgroup, then one workgroup over the blocks), never with atomics.

/// One solve's momentum: θ_k, the sweep's β, the current step ω, and per workgroup of the last
/// dispatches three partial sums: slot 3 g the restart sum, 3 g + 1 ‖Δy‖²_W (both per contact
/// workgroup), 3 g + 2 the kinetic energy of the velocity change (per body workgroup).
struct Momentum {
    theta: f32,
    beta: f32,
    omega: f32,
    pad: f32,
    sums: array<f32>,
}

@group(2) @binding(0) var<storage, read_write> momentum: Momentum;
// γ_k of every contact's sliding rows at c and, with moment rows, of its moment rows at
// row_capacity + c.
@group(2) @binding(1) var<storage, read_write> gamma_last: array<vec4<f32>>;

/// Whether the sweep sums the restart test (every sweep of a solve but its last).
override restart_sum: bool = true;

var<workgroup> sum_scratch: array<f32, WG>;

/// Lanes each of the first SPAN threads sums in `workgroup_sum` (SPAN × SPAN = WG).
const SPAN: u32 = 16u;

/// The sum of `v` over the workgroup in a fixed order, for thread 0 (every thread must call it;
/// the others get a partial sum): each of the first 16 threads sums 16 lanes in order, then
/// thread 0 sums those 16 in order. Three barriers (a halving tree takes ten, which software
/// devices pay dearly for).
fn workgroup_sum(lid: u32, v: f32) -> f32 {
    sum_scratch[lid] = v;
    workgroupBarrier();
    var s = 0.0;
    if lid < SPAN {
        // Thread lid alone reads and writes lanes lid × SPAN … lid × SPAN + SPAN − 1.
        for (var k = 0u; k < SPAN; k = k + 1u) {
            s = s + sum_scratch[lid * SPAN + k];
        }
        sum_scratch[lid * SPAN] = s;
    }
    workgroupBarrier();
    if lid == 0u {
        s = 0.0;
        for (var k = 0u; k < SPAN; k = k + 1u) {
            s = s + sum_scratch[k * SPAN];
        }
    }
    workgroupBarrier();
    return s;
}

/// The sum of partial-sum slot `slot` over the first `blocks` workgroups, in a fixed order, for
/// thread 0 (one workgroup calls it).
fn sum_blocks(lid: u32, slot: u32, blocks: u32) -> f32 {
    var s = 0.0;
    for (var g = lid; g < blocks; g = g + WG) {
        s = s + momentum.sums[3u * g + slot];
    }
    return workgroup_sum(lid, s);
}

/// Writes the workgroup's sum of `v` to partial-sum slot `slot`.
fn store_block_sum(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, slot: u32, v: f32) {
    let s = workgroup_sum(lid, v);
    if lid == 0u {
        momentum.sums[3u * group_index(wid, nwg) + slot] = s;
    }
}

/// One contact's share of the restart sum ⟨W (y − γ⁺), γ⁺ − γ_k⟩ over its three rows, with the
/// rows' inverse diagonals `mass` (rows of mass 0 add nothing), as apgd::uphill.
fn restart_term(y: vec3<f32>, next: vec3<f32>, last: vec3<f32>, mass: vec3<f32>) -> f32 {
    let scaled = select(vec3<f32>(0.0), (y - next) / mass, mass > vec3<f32>(0.0));
    return dot(scaled, next - last);
}

/// ‖d‖²_W = Σ d_r² / mass_r over the rows of a world impulse vector `d` in the contact's frame
/// (rows of mass 0 add nothing), as apgd::w_length of apgd::rows_of.
fn w_length(row: ContactRow, d: vec3<f32>, mass: vec3<f32>) -> f32 {
    let r = vec3<f32>(dot(d, row.n), dot(d, row.t1), dot(d, row.t2));
    return dot(select(vec3<f32>(0.0), r * r / mass, mass > vec3<f32>(0.0)), vec3<f32>(1.0));
}

/// The sliding rows' inverse diagonals (mass_n, mass_t, mass_t) of a contact.
fn sliding_masses(row: ContactRow) -> vec3<f32> {
    return vec3<f32>(row.mass_n, row.mass_t, row.mass_t);
}

/// A solve's start (Momentum::start, the state): θ_0 = 1, β = 0, ω = the user's step.
@compute @workgroup_size(1)
fn start_solve() {
    momentum.theta = 1.0;
    momentum.beta = 0.0;
    momentum.omega = params.omega;
}

/// A solve's start (Momentum::start, the iterates): γ_0 = y_0 for every contact's sliding and
/// moment rows.
@compute @workgroup_size(256)
fn start_momentum(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= contact_count() {
        return;
    }
    gamma_last[c] = vec4<f32>(gamma[c].xyz, 0.0);
    if MOMENT_ROWS {
        gamma_last[params.row_capacity + c] = vec4<f32>(moment_state(c).xyz, 0.0);
    }
}

/// Every contact: γ⁺ = Π_K(y − ω W⁻¹ u(y)) at the current step ω (update_contact and
/// update_moments from the point y held in `gamma`), the residual W |γ⁺ − y| / ω, and with
/// `restart_sum` the workgroup's share of ⟨W (y − γ⁺), γ⁺ − γ_k⟩ over the sliding and moment rows.
@compute @workgroup_size(256)
fn apgd_sweep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    var residual = 0.0;
    var uphill = 0.0;
    if c < contact_count() {
        let row = solver_row(c);
        let y = gamma[c].xyz;
        let y_moment = moment_state(c).xyz;
        residual = update_rows(c, row, momentum.omega);
        if restart_sum {
            uphill = restart_term(y, gamma[c].xyz, gamma_last[c].xyz, sliding_masses(row));
            if MOMENT_ROWS {
                let m = moment_state(c);
                let last = gamma_last[params.row_capacity + c].xyz;
                uphill = uphill + restart_term(y_moment, m.xyz, last, vec3<f32>(m.w));
            }
        }
    }
    if restart_sum {
        store_block_sum(wid, nwg, lid, 0u, uphill);
    }
    if report_residual {
        report_sweep_residual(wid, nwg, lid, residual);
    }
}

/// The momentum weight after a sweep (Momentum::weight): with θ_{k+1} the positive root of
/// θ_{k+1}² = (1 − θ_{k+1}) θ_k², β = θ_k (1 − θ_k) / (θ_k² + θ_{k+1}); when the restart sum
/// ⟨W (y − γ⁺), γ⁺ − γ_k⟩ is positive (the gradient points uphill along the momentum), β = 0
/// and θ = 1. One workgroup.
@compute @workgroup_size(256)
fn weigh_momentum(@builtin(local_invocation_index) lid: u32) {
    let uphill = sum_blocks(lid, 0u, atomicLoad(&stats[STAT_GROUPS]));
    if lid == 0u {
        let t = momentum.theta;
        let next = (sqrt(t * t * t * t + 4.0 * t * t) - t * t) / 2.0;
        if uphill > 0.0 {
            momentum.theta = 1.0;
            momentum.beta = 0.0;
        } else {
            momentum.theta = next;
            momentum.beta = t * (1.0 - t) / (t * t + next);
        }
    }
}

/// Every contact (Momentum::extrapolate): y_{k+1} = γ⁺ + β (γ⁺ − γ_k) with γ_k ← γ⁺ for its
/// sliding and moment rows; the sweep's impulse change D (γ⁺ − y_k) gains β D (γ⁺ − γ_k), so the
/// gather moves the bodies to y_{k+1}; the workgroup's share of ‖y_{k+1} − y_k‖²_W is read back
/// from those world impulses on the rows' (orthonormal) frames.
@compute @workgroup_size(256)
fn extrapolate(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    var length = 0.0;
    if c < contact_count() {
        let row = solver_row(c);
        let beta = momentum.beta;
        let state = gamma[c];
        let push = beta * (state.xyz - gamma_last[c].xyz);
        gamma_last[c] = vec4<f32>(state.xyz, 0.0);
        gamma[c] = vec4<f32>(state.xyz + push, state.w);
        let change = impulse[c].xyz + impulse_vector(row, push);
        impulse[c] = vec4<f32>(change, 0.0);
        length = w_length(row, change, sliding_masses(row));
        if MOMENT_ROWS {
            let m = moment_state(c);
            let k = params.row_capacity + c;
            let push_m = beta * (m.xyz - gamma_last[k].xyz);
            gamma_last[k] = vec4<f32>(m.xyz, 0.0);
            length = length + w_length(row, push_moments(c, row, push_m), vec3<f32>(m.w));
        }
    }
    store_block_sum(wid, nwg, lid, 1u, length);
}

/// Every dynamic body: the gather of `body_gather`, and the workgroup's share of the move's
/// kinetic energy Δvᵀ M Δv = Σ (P·Δv + L·Δω) with Δv, Δω the velocity changes after the planar
/// mask (as jacobi::body_gather with its energy).
@compute @workgroup_size(256)
fn apgd_gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    var energy = 0.0;
    if i < params.n_bodies {
        let s = body_start[i];
        let e = body_start[i + 1u];
        if s != e {
            let before = motion[i];
            let g = gathered_impulse(s, e);
            let after = kick(before, g);
            motion[i] = after;
            energy = dot(g[0], after.linear - before.linear) + dot(g[1], after.angular - before.angular);
        }
    }
    store_block_sum(wid, nwg, lid, 2u, energy);
}

/// The step's adaptation after a move (Momentum::adapt_step): with E the move's kinetic energy
/// (‖Δy‖²_N) and L = ‖Δy‖²_W, the Rayleigh quotient E / L of W⁻¹ N bounds its largest eigenvalue
/// from below; when ω E > L (and E > 0) the step becomes 0.9 L / E and the momentum restarts
/// (θ = 1). One workgroup.
@compute @workgroup_size(256)
fn adapt_step(@builtin(local_invocation_index) lid: u32) {
    let length = sum_blocks(lid, 1u, atomicLoad(&stats[STAT_GROUPS]));
    let energy = sum_blocks(lid, 2u, (params.n_bodies + WG - 1u) / WG);
    if lid == 0u && energy * momentum.omega > length && energy > 0.0 {
        momentum.omega = 0.9 * length / energy;
        momentum.theta = 1.0;
    }
}
