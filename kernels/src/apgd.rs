//! Stage 6, solve (APGD): Nesterov's acceleration of the projected Jacobi sweep, with gradient
//! restart (Mazhar, Heyn, Negrut and Tasora, ACM TOG 2015, Algorithm "APGD"; the restart rule of
//! O'Donoghue and Candès 2015).
//!
//! The CCP is min f(γ) = ½ γᵀ N γ + rᵀ γ over the product of friction cones, N = Dᵀ M⁻¹ D, and
//! the relative velocity u = Dᵀ v + bias of the velocities v = v* + M⁻¹ D γ is its gradient
//! N γ + r. One projected Jacobi sweep from a point y is therefore one projected gradient step
//! preconditioned by W⁻¹ = diag(Dᵢᵀ M⁻¹ Dᵢ)⁻¹ with step ω: γ⁺ = Π_K(y − ω W⁻¹ u(y)). APGD
//! evaluates that step at an extrapolated point instead of the last iterate:
//!
//!   y_{k+1} = γ_{k+1} + β_{k+1} (γ_{k+1} − γ_k),  β_{k+1} = θ_k (1 − θ_k) / (θ_k² + θ_{k+1}),
//!   θ_{k+1}² = (1 − θ_{k+1}) θ_k²,  θ_0 = 1,
//!
//! and restarts (β = 0, θ = 1) when the step's gradient points uphill along the momentum:
//! ⟨W (y_k − γ_{k+1}), γ_{k+1} − γ_k⟩ > 0 (the gradient mapping G = W (y − γ⁺) / ω, dual to γ).
//! The step starts at the user's ω and adapts without backtracking (a trial would cost another
//! gather): after every move y_k → y_{k+1}, the gather's kinetic energy of the velocity change,
//! ‖Δy‖²_N = Δvᵀ M Δv, over ‖Δy‖²_W is a Rayleigh quotient ρ of W⁻¹ N, a lower bound of the
//! Lipschitz constant the accelerated step needs ω ≤ 1/ρ for; when ω ρ > 1 the step shrinks to
//! 0.9/ρ and the momentum restarts. A too-long ω (ω = 1, Gauss–Seidel's) thus settles to the
//! pile's own step within a few sweeps instead of diverging. Each solve starts again from ω. The contact and moment rows share the momentum; the
//! joint rows stay an outer Gauss–Seidel split after each gather, as in projected Jacobi.
//!
//! The extrapolation is matrix-free: the velocities already follow γ⁺ after the sweep's gather
//! of D (γ⁺ − y), so moving to y_{k+1} adds β D (γ⁺ − γ_k) to the same gather. Every sum is taken
//! over fixed blocks in a fixed order, so the result does not depend on the thread count.

use crate::contact_update::{dot, lane, pack_impulse, Lanes3, RowPack};
use crate::packing::Packs;
use crate::rolling::MomentPacks;
use glam::Vec4;
use rayon::prelude::*;

/// Packs per block of the restart sums (a fixed grouping, whatever the thread count).
pub const PACKS_PER_BLOCK: usize = crate::parallel::BLOCK / 4;

/// The momentum state of one APGD solve: θ_k and the last iterate γ_k of the contact and
/// moment rows (the current point y is the packs' γ).
#[derive(Default)]
pub struct Momentum {
    theta: f32,
    last: Vec<Lanes3>,
    last_moment: Vec<Lanes3>,
}

impl Momentum {
    /// Starts a solve at the packs' γ (and the moment rows' γ_m): γ_0 = y_0, θ_0 = 1.
    pub fn start(&mut self, gamma: &[Lanes3], moments: Option<&[Lanes3]>) {
        self.theta = 1.0;
        self.last.clear();
        self.last.extend_from_slice(gamma);
        self.last_moment.clear();
        if let Some(m) = moments {
            self.last_moment.extend_from_slice(m);
        }
    }

    /// The last iterate γ_k of the contact rows, indexed like the packs.
    pub fn last(&self) -> &[Lanes3] {
        &self.last
    }

    /// The last iterate of the moment rows (empty without them).
    pub fn last_moment(&self) -> &[Lanes3] {
        &self.last_moment
    }

    /// The momentum weight β_{k+1} after a step whose restart sum is `uphill`
    /// (⟨W (y_k − γ_{k+1}), γ_{k+1} − γ_k⟩): θ's Nesterov sequence, or 0 with θ reset to 1 when
    /// the sum is positive. `coast = false` (the solve's last sweep) also gives 0, so the solve
    /// ends on a projected iterate.
    pub fn weight(&mut self, uphill: f64, coast: bool) -> f32 {
        let t = self.theta;
        let next = ((t * t * t * t + 4.0 * t * t).sqrt() - t * t) / 2.0;
        if uphill > 0.0 || !coast {
            self.theta = 1.0;
            return 0.0;
        }
        self.theta = next;
        t * (1.0 - t) / (t * t + next)
    }

    /// y_{k+1} = γ_{k+1} + β (γ_{k+1} − γ_k) for the contact rows (and moment rows), with
    /// γ_k ← γ_{k+1}; adds the extrapolation's world impulses β D (γ_{k+1} − γ_k) (on body a) to
    /// `impulse` (which holds the sweep's D (γ_{k+1} − y_k)) and the moment rows' to
    /// `moments.impulse`, for the sweep's gather. Returns the move's squared length in W's metric,
    /// ‖y_{k+1} − y_k‖²_W, read back from the world impulses (the rows' frames are orthonormal),
    /// summed over fixed blocks in order.
    pub fn extrapolate(
        &mut self,
        packs: &mut Packs,
        impulse: &mut [[f32; 4]],
        moments: Option<&mut MomentPacks>,
        beta: f32,
        blocks: &mut Vec<f64>,
    ) -> f64 {
        let beta = Vec4::splat(beta);
        let rows = &packs.rows;
        let contact_masses = |k: usize| [rows[k].mass_n, rows[k].mass_t, rows[k].mass_t];
        let mut length = extrapolate_family(
            rows,
            contact_masses,
            (&mut packs.gamma, &mut self.last, impulse),
            beta,
            blocks,
        );
        if let Some(m) = moments {
            let moment_rows = &m.rows;
            length += extrapolate_family(
                rows,
                |k| [moment_rows[k].mass; 3],
                (&mut m.gamma, &mut self.last_moment, &mut m.impulse),
                beta,
                blocks,
            );
        }
        length
    }

    /// Shortens the step after a move whose curvature says it was too long: with E = Δvᵀ M Δv
    /// the kinetic energy of the move's velocity change (`energy`, = ‖Δy‖²_N) and `length` =
    /// ‖Δy‖²_W, the Rayleigh quotient ρ = E / length of W⁻¹ N along the move bounds its largest
    /// eigenvalue from below, and the accelerated step needs ω ≤ 1/λ_max; when ω ρ > 1 the step
    /// becomes 0.9/ρ and the momentum restarts. Returns the step for the next sweep.
    pub fn adapt_step(&mut self, omega: f32, energy: f64, length: f64) -> f32 {
        if energy * omega as f64 > length && energy > 0.0 {
            self.theta = 1.0;
            return (0.9 * length / energy) as f32;
        }
        omega
    }
}

/// One family of rows (the contacts', or their moment rows') moved to y_{k+1}: per pack
/// [`extrapolate_rows`], the push's world impulse added to `impulse`, and the move's
/// ‖Δy‖²_W with the rows' inverse diagonals `masses(pack)`, summed over fixed blocks in order.
fn extrapolate_family(
    packs: &[RowPack],
    masses: impl Fn(usize) -> [Vec4; 3] + Sync,
    (gamma, last, impulse): (&mut [Lanes3], &mut [Lanes3], &mut [[f32; 4]]),
    beta: Vec4,
    blocks: &mut Vec<f64>,
) -> f64 {
    packs
        .par_chunks(PACKS_PER_BLOCK)
        .zip(gamma.par_chunks_mut(PACKS_PER_BLOCK))
        .zip(last.par_chunks_mut(PACKS_PER_BLOCK))
        .zip(impulse.par_chunks_mut(4 * PACKS_PER_BLOCK))
        .enumerate()
        .map(|(blk, (((rows, gamma), last), out))| {
            let mut length = 0.0f64;
            for (j, ((pack, g), l)) in rows.iter().zip(gamma).zip(last).enumerate() {
                let out = &mut out[4 * j..4 * j + 4];
                let push = extrapolate_rows(g, l, beta);
                add_lanes(out, &pack_impulse(pack, &push));
                let mass = masses(blk * PACKS_PER_BLOCK + j);
                length += w_length(&rows_of(pack, out), mass) as f64;
            }
            length
        })
        .collect_into_vec(blocks);
    blocks.iter().sum()
}

/// A pack's rows of the world impulses `out` (lanes' vectors) in its (n, t1, t2) frames.
#[inline(always)]
fn rows_of(pack: &RowPack, out: &[[f32; 4]]) -> Lanes3 {
    let mut world: Lanes3 = [Vec4::ZERO; 3];
    for (k, o) in out.iter().enumerate() {
        for (axis, w) in world.iter_mut().enumerate() {
            w[k] = o[axis];
        }
    }
    [
        dot(&world, &pack.n),
        dot(&world, &pack.t1),
        dot(&world, &pack.t2),
    ]
}

/// Σ over a pack's rows of d² / mass (mass the rows' inverse diagonals; lanes with mass 0 add
/// nothing): ‖d‖²_W.
#[inline(always)]
fn w_length(d: &Lanes3, mass: [Vec4; 3]) -> f32 {
    let mut sum = Vec4::ZERO;
    for r in 0..3 {
        sum += Vec4::select(mass[r].cmpgt(Vec4::ZERO), d[r] * d[r] / mass[r], Vec4::ZERO);
    }
    sum.element_sum()
}

/// One pack's extrapolation: returns β (γ − γ_k), with γ_k ← γ and γ ← γ + β (γ − γ_k).
#[inline(always)]
fn extrapolate_rows(gamma: &mut Lanes3, last: &mut Lanes3, beta: Vec4) -> Lanes3 {
    let push = [
        (gamma[0] - last[0]) * beta,
        (gamma[1] - last[1]) * beta,
        (gamma[2] - last[2]) * beta,
    ];
    *last = *gamma;
    for (g, d) in gamma.iter_mut().zip(push) {
        *g += d;
    }
    push
}

fn add_lanes(out: &mut [[f32; 4]], push: &Lanes3) {
    for (k, o) in out.iter_mut().enumerate() {
        *o = (Vec4::from_array(*o).truncate() + lane(push, k))
            .extend(0.0)
            .to_array();
    }
}

/// One pack's share of the restart sum ⟨W (y − γ⁺), γ⁺ − γ_k⟩ over its rows, with the rows'
/// inverse diagonals `mass` (per row of the pack: normal, first, second; lanes whose inverse
/// diagonal is 0, padding, add nothing).
#[inline(always)]
pub fn uphill(y: &Lanes3, next: &Lanes3, last: &Lanes3, mass: [Vec4; 3]) -> f32 {
    let mut sum = Vec4::ZERO;
    for r in 0..3 {
        let scaled = Vec4::select(
            mass[r].cmpgt(Vec4::ZERO),
            (y[r] - next[r]) / mass[r],
            Vec4::ZERO,
        );
        sum += scaled * (next[r] - last[r]);
    }
    sum.element_sum()
}
