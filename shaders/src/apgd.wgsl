// Stage 6, solve (APGD; mirrors kernels/src/apgd.rs and the accelerated loop of
// kernels/src/jacobi.rs): Nesterov's acceleration of the projected Jacobi sweep with gradient
// restart and an adaptive step (Mazhar, Heyn, Negrut and Tasora 2015; O'Donoghue and Candès 2015).
// Appended to the Jacobi stage (layout, cone, rolling or rolling_off, jacobi); the momentum, the
// second-last iterates and the momentum's impulses are bound as group 2. `gamma` holds the last
// projected iterate γ_k and `gamma_last` γ_{k−1}; the extrapolated point y_k = γ_k + β (γ_k − γ_{k−1})
// is formed in the sweep, so one sweep k (all but a solve's last) is four dispatches:
//
//   apgd_sweep       y_k from γ_k, γ_{k−1} and the last β; γ_{k+1} = Π_K(y_k − ω W⁻¹ u(y_k)) at the
//                    current step ω; the records d1 = D (γ_{k+1} − y_k), d2 = D (γ_{k+1} − γ_k);
//                    per workgroup ⟨d1, d2⟩_W (minus the restart sum), ‖d1‖²_W and ‖d2‖²_W
//   weigh_momentum   θ_{k+1}² = (1 − θ_{k+1}) θ_k², β = θ_k (1 − θ_k) / (θ_k² + θ_{k+1}), or
//                    β = 0 and θ = 1 when the restart sum is positive; the move's
//                    ‖Δy‖²_W = ‖d1 + β d2‖²_W = ‖d1‖²_W + 2 β ⟨d1, d2⟩_W + β² ‖d2‖²_W
//   apgd_gather      the body gather of d1 + β d2 (the bodies move from v(y_k) to v(y_{k+1})),
//                    and per workgroup the move's kinetic energy Δvᵀ M Δv
//   adapt_step       ω ← 0.9 ‖Δy‖²_W / E and θ = 1 when ω E > ‖Δy‖²_W
//
// A solve's last sweep runs `apgd_sweep` without the records (its β = 0 afterwards) and the plain
// `body_gather` of d1, so the solve ends on the projected iterate in `gamma`. A solve starts with
// β = 0, where y_0 = γ_0 needs no γ_{−1}. Every sum is reduced in a fixed order (16 × 16 lanes per
// workgroup, then one workgroup over the blocks), never with atomics.

/// One solve's momentum: θ_k, the sweep's β, the current step ω, the last move's ‖Δy‖²_W, in a
/// distributed step this rank's sums or, written back by the host, the sums over the ranks
/// (`ranks`: the sweep's slots 0, 1, 2 and the move's kinetic energy), and per workgroup of the last dispatches four partial sums (`SUMS` of them): slots 0, 1, 2 the
/// sweep's ⟨d1, d2⟩_W, ‖d1‖²_W and ‖d2‖²_W (per contact workgroup), slot 3 the kinetic energy of
/// the velocity change (per body workgroup).
struct Momentum {
    theta: f32,
    beta: f32,
    omega: f32,
    length: f32,
    ranks: vec4<f32>,
    sums: array<f32>,
}

/// Partial sums per workgroup in `Momentum::sums`.
const SUMS: u32 = 4u;
/// The slot of the kinetic energy in a workgroup's partial sums.
const ENERGY_SLOT: u32 = 3u;

@group(2) @binding(0) var<storage, read_write> momentum: Momentum;
// γ_{k−1} of every contact's sliding rows at c and, with moment rows, of its moment rows at
// row_capacity + c (read only while β ≠ 0).
@group(2) @binding(1) var<storage, read_write> gamma_last: array<vec4<f32>>;
// d2 = D (γ_{k+1} − γ_k) of the last sweep (world vectors), at the same indices as `gamma_last`;
// d1 is the sweep's `impulse` (and the moment rows' `moments.impulse`).
@group(2) @binding(2) var<storage, read_write> momentum_impulse: array<vec4<f32>>;

/// Whether the sweep keeps the momentum's records γ_{k−1}, d2 and the partial sums (every sweep
/// of a solve but its last).
override keep_momentum: bool = true;

/// Whether the sweep's sums and the move's energy are the ones the host summed over the ranks
/// (`Momentum::ranks`, a distributed step), not this device's blocks.
override summed_by_host: bool = false;

var<workgroup> sum_scratch: array<vec3<f32>, WG>;

/// Lanes each of the first SPAN threads sums in `workgroup_sum` (SPAN × SPAN = WG).
const SPAN: u32 = 16u;

/// The sum of `v` over the workgroup in a fixed order (each component alone), for thread 0
/// (every thread must call it; the others get a partial sum): each of the first 16 threads sums
/// 16 lanes in order, then thread 0 sums those 16 in order. Three barriers (a halving tree takes
/// ten, which software devices pay dearly for).
fn workgroup_sum(lid: u32, v: vec3<f32>) -> vec3<f32> {
    sum_scratch[lid] = v;
    workgroupBarrier();
    var s = vec3<f32>(0.0);
    if lid < SPAN {
        // Thread lid alone reads and writes lanes lid × SPAN … lid × SPAN + SPAN − 1.
        for (var k = 0u; k < SPAN; k = k + 1u) {
            s = s + sum_scratch[lid * SPAN + k];
        }
        sum_scratch[lid * SPAN] = s;
    }
    workgroupBarrier();
    if lid == 0u {
        s = vec3<f32>(0.0);
        for (var k = 0u; k < SPAN; k = k + 1u) {
            s = s + sum_scratch[k * SPAN];
        }
    }
    workgroupBarrier();
    return s;
}

/// The sums of the sweep's slots 0, 1, 2 over the contact workgroups, in a fixed order, for
/// thread 0 (one workgroup calls it).
fn sum_sweep_blocks(lid: u32) -> vec3<f32> {
    var s = vec3<f32>(0.0);
    for (var g = lid; g < atomicLoad(&stats[STAT_GROUPS]); g = g + WG) {
        s = s + vec3<f32>(momentum.sums[SUMS * g], momentum.sums[SUMS * g + 1u],
                          momentum.sums[SUMS * g + 2u]);
    }
    return workgroup_sum(lid, s);
}

/// The sum of the kinetic-energy slot over the body workgroups, in a fixed order, for thread 0
/// (one workgroup calls it).
fn sum_energy_blocks(lid: u32) -> f32 {
    var s = 0.0;
    for (var g = lid; g < (params.n_bodies + WG - 1u) / WG; g = g + WG) {
        s = s + momentum.sums[SUMS * g + ENERGY_SLOT];
    }
    return workgroup_sum(lid, vec3<f32>(s, 0.0, 0.0)).x;
}

/// Writes the workgroup's sums of `v` to its partial-sum slots `first` … `first + count − 1`.
fn store_block_sums(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, first: u32, count: u32, v: vec3<f32>) {
    let s = workgroup_sum(lid, v);
    if lid == 0u {
        let base = SUMS * group_index(wid, nwg) + first;
        for (var k = 0u; k < count; k = k + 1u) {
            momentum.sums[base + k] = s[k];
        }
    }
}

/// One contact's share of (⟨d1, d2⟩_W, ‖d1‖²_W, ‖d2‖²_W) over three rows, in the rows' frames:
/// e1 = γ⁺ − y, e2 = γ⁺ − γ_k with the rows' inverse diagonals `mass` (rows of mass 0 add
/// nothing), so that ⟨d1, d2⟩_W = −⟨W (y − γ⁺), γ⁺ − γ_k⟩ is minus apgd::uphill and
/// ‖d1 + β d2‖²_W is apgd::w_length of the extrapolated move.
fn momentum_terms(y: vec3<f32>, next: vec3<f32>, last: vec3<f32>, mass: vec3<f32>) -> vec3<f32> {
    let e1 = next - y;
    let e2 = next - last;
    let positive = mass > vec3<f32>(0.0);
    let w1 = select(vec3<f32>(0.0), e1 / mass, positive);
    let w2 = select(vec3<f32>(0.0), e2 / mass, positive);
    return vec3<f32>(dot(w1, e2), dot(w1, e1), dot(w2, e2));
}

/// The sliding rows' inverse diagonals (mass_n, mass_t, mass_t) of a contact.
fn sliding_masses(row: ContactRow) -> vec3<f32> {
    return vec3<f32>(row.mass_n, row.mass_t, row.mass_t);
}

/// A solve's start (Momentum::start): θ_0 = 1, β = 0 (so y_0 = γ_0, and no γ_{−1} is read),
/// ω = the user's step.
@compute @workgroup_size(1)
fn start_solve() {
    momentum.theta = 1.0;
    momentum.beta = 0.0;
    momentum.omega = params.omega;
}

/// Every contact: the extrapolated point y_k = γ_k + β (γ_k − γ_{k−1}) of its sliding and moment
/// rows (Momentum::extrapolate, with the β `weigh_momentum` set after the last sweep; y_k = γ_k
/// when β = 0), placed in `gamma` (and the moment rows) for the sweep; then
/// γ_{k+1} = Π_K(y_k − ω W⁻¹ u(y_k)) at the current step ω (update_contact and update_moments,
/// whose impulse d1 = D (γ_{k+1} − y_k) the bodies' v(y_k) takes), the residual
/// W |γ_{k+1} − y_k| / ω, and with `keep_momentum` γ_{k−1} ← γ_k, d2 = D (γ_{k+1} − γ_k) and the
/// workgroup's shares of ⟨d1, d2⟩_W, ‖d1‖²_W and ‖d2‖²_W over the sliding and moment rows.
@compute @workgroup_size(256)
fn apgd_sweep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    var residual = 0.0;
    var terms = vec3<f32>(0.0);
    if c < contact_count() && !solved_here(c) && keep_momentum {
        // Another rank solves it: γ stays 0, and so does its share of the move.
        momentum_impulse[c] = vec4<f32>(0.0);
        if MOMENT_ROWS {
            momentum_impulse[params.row_capacity + c] = vec4<f32>(0.0);
        }
    }
    if c < contact_count() && solved_here(c) {
        let row = solver_row(c);
        let beta = momentum.beta;
        let k = params.row_capacity + c;
        let state = gamma[c];
        let last = state.xyz;
        var y = last;
        let m = moment_state(c);
        var y_moment = m.xyz;
        if beta != 0.0 {
            y = last + beta * (last - gamma_last[c].xyz);
            gamma[c] = vec4<f32>(y, state.w);
            if MOMENT_ROWS {
                y_moment = m.xyz + beta * (m.xyz - gamma_last[k].xyz);
                place_moments(c, y_moment);
            }
        }
        residual = update_rows(c, row, momentum.omega);
        if keep_momentum {
            let next = gamma[c].xyz;
            gamma_last[c] = vec4<f32>(last, 0.0);
            momentum_impulse[c] = vec4<f32>(impulse_vector(row, next - last), 0.0);
            terms = momentum_terms(y, next, last, sliding_masses(row));
            if MOMENT_ROWS {
                let next_moment = moment_state(c).xyz;
                gamma_last[k] = vec4<f32>(m.xyz, 0.0);
                momentum_impulse[k] = vec4<f32>(impulse_vector(row, next_moment - m.xyz), 0.0);
                terms = terms + momentum_terms(y_moment, next_moment, m.xyz, vec3<f32>(m.w));
            }
        }
    }
    if keep_momentum {
        store_block_sums(wid, nwg, lid, 0u, 3u, terms);
    }
    if report_residual {
        report_sweep_residual(wid, nwg, lid, residual);
    }
}

/// The momentum weight after a sweep (Momentum::weight): with θ_{k+1} the positive root of
/// θ_{k+1}² = (1 − θ_{k+1}) θ_k², β = θ_k (1 − θ_k) / (θ_k² + θ_{k+1}); when the restart sum
/// ⟨W (y − γ⁺), γ⁺ − γ_k⟩ = −⟨d1, d2⟩_W is positive (the gradient points uphill along the
/// momentum), β = 0 and θ = 1. Then the move's ‖Δy‖²_W for adapt_step: Δy = y_{k+1} − y_k =
/// (γ_{k+1} − y_k) + β (γ_{k+1} − γ_k), so ‖Δy‖²_W = ‖d1‖²_W + 2 β ⟨d1, d2⟩_W + β² ‖d2‖²_W
/// (Momentum::extrapolate's length). One workgroup.
@compute @workgroup_size(256)
fn weigh_momentum(@builtin(local_invocation_index) lid: u32) {
    var sums = momentum.ranks.xyz;
    if !summed_by_host {
        sums = sum_sweep_blocks(lid);
    }
    if lid == 0u {
        let t = momentum.theta;
        let next = (sqrt(t * t * t * t + 4.0 * t * t) - t * t) / 2.0;
        var beta = 0.0;
        // The restart sum is −sums.x (exactly: its terms are the negated terms of ⟨d1, d2⟩_W).
        if sums.x < 0.0 {
            momentum.theta = 1.0;
        } else {
            momentum.theta = next;
            beta = t * (1.0 - t) / (t * t + next);
        }
        momentum.beta = beta;
        momentum.length = sums.y + 2.0 * beta * sums.x + beta * beta * sums.z;
    }
}

/// The world impulses (linear, angular) a body receives from its contacts' entries `s..e` in
/// contact order for the move to y_{k+1}: Σ ±(d1 + β d2) and the lever arms' moments, with the
/// moment rows' d1 + β d2 (as jacobi's gathered_impulse of the sweep's impulse plus
/// Momentum::extrapolate's β D (γ_{k+1} − γ_k)).
fn extrapolated_impulse(s: u32, e: u32, beta: f32) -> array<vec3<f32>, 2> {
    var dp = vec3<f32>(0.0);
    var dl = vec3<f32>(0.0);
    for (var k = s; k < e; k = k + 1u) {
        let entry = body_entries[k];
        let c = entry.tag >> 1u;
        var p = impulse[c].xyz;
        var l = moment_impulse(c);
        if beta != 0.0 {
            p = p + beta * momentum_impulse[c].xyz;
            if MOMENT_ROWS {
                l = l + beta * momentum_impulse[params.row_capacity + c].xyz;
            }
        }
        if (entry.tag & 1u) != 0u {
            p = -p;
            l = -l;
        }
        dp = dp + p;
        dl = dl + cross(entry.arm, p);
        if MOMENT_ROWS {
            dl = dl + l;
        }
    }
    return array<vec3<f32>, 2>(dp, dl);
}

/// Every dynamic body: v ← v + M⁻¹ (P, L) for the impulses of `extrapolated_impulse`, and the
/// workgroup's share of the move's kinetic energy Δvᵀ M Δv = Σ (P·Δv + L·Δω) with Δv, Δω the
/// velocity changes after the planar mask (as jacobi::body_gather with its energy); in a
/// distributed step, of this rank's own bodies that no other rank holds (counts_energy: the
/// host adds the shared ones', with the impulses summed over the ranks).
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
            let g = extrapolated_impulse(s, e, momentum.beta);
            let after = kick(i, before, g);
            motion[i] = after;
            if counts_energy(i) {
                energy = dot(g[0], after.linear - before.linear)
                    + dot(g[1], after.angular - before.angular);
            }
        }
    }
    store_block_sums(wid, nwg, lid, ENERGY_SLOT, 1u, vec3<f32>(energy, 0.0, 0.0));
}

/// The step's adaptation after a move (Momentum::adapt_step): with E the move's kinetic energy
/// (‖Δy‖²_N) and L = ‖Δy‖²_W (from weigh_momentum), the Rayleigh quotient E / L of W⁻¹ N bounds
/// its largest eigenvalue from below; when ω E > L (and E > 0) the step becomes 0.9 L / E and the
/// momentum restarts (θ = 1; the move's β stays, the next sweep extrapolates with it). One
/// workgroup.
@compute @workgroup_size(256)
fn adapt_step(@builtin(local_invocation_index) lid: u32) {
    var energy = momentum.ranks.w;
    if !summed_by_host {
        energy = sum_energy_blocks(lid);
    }
    let length = momentum.length;
    if lid == 0u && energy * momentum.omega > length && energy > 0.0 {
        momentum.omega = 0.9 * length / energy;
        momentum.theta = 1.0;
    }
}

/// A distributed step: this rank's sums of the sweep's slots 0, 1, 2 over its contact
/// workgroups, in `Momentum::ranks` for the host to sum over the ranks. One workgroup.
@compute @workgroup_size(256)
fn rank_sweep_sums(@builtin(local_invocation_index) lid: u32) {
    let sums = sum_sweep_blocks(lid);
    if lid == 0u {
        momentum.ranks = vec4<f32>(sums, momentum.ranks.w);
    }
}

/// A distributed step: this rank's share of the move's kinetic energy (its own unshared
/// bodies'), in `Momentum::ranks.w` for the host. One workgroup.
@compute @workgroup_size(256)
fn rank_move_energy(@builtin(local_invocation_index) lid: u32) {
    let energy = sum_energy_blocks(lid);
    if lid == 0u {
        momentum.ranks.w = energy;
    }
}

/// A distributed step: each shared body's velocity before the gather of the move and this
/// rank's `extrapolated_impulse` on it (as share_impulses for Jacobi's gather).
@compute @workgroup_size(256)
fn share_extrapolated_impulses(@builtin(workgroup_id) wid: vec3<u32>,
                               @builtin(num_workgroups) nwg: vec3<u32>,
                               @builtin(local_invocation_index) lid: u32) {
    let s = thread_index(wid, nwg, lid);
    if s < params.n_shared {
        let i = shared_list[s];
        record_shared(s, extrapolated_impulse(body_start[i], body_start[i + 1u], momentum.beta));
    }
}
