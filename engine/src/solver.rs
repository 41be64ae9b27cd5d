//! The solver choice and its knobs: which projected iteration solves each step's CCP, how many
//! sweeps it may take, when it stops and how far it relaxes.

use crate::error::BuildError;

pub use grains_kernels::SolverKind;

/// The most sweeps one step may take: `sweeps` × (1 + [`Settings::coulomb_correction`]), the
/// solves of the CCP and its Coulomb-correction passes (checked at build).
///
/// Real use sits far below it: the presets take 30 and 100 sweeps, deep rigid beds a few
/// hundred, and the solvers' convergence study (`grains bench --convergence`, docs/solvers.md)
/// runs its curves to 20,000 sweeps. 100,000 is five times that study. Above it a step of even
/// a small pour takes minutes (a sweep over the 1k pour's 2,800 contacts takes about 50 µs on a
/// core, a 100k bed's about 5 ms), and on the GPU a step records every sweep's dispatches into
/// one command buffer, so a typo such as `max_iterations = 4000000000` would sweep for hours or
/// exhaust the device's memory instead of running.
///
/// [`Settings::coulomb_correction`]: crate::Settings::coulomb_correction
pub const MAX_SWEEPS_PER_STEP: u64 = 100_000;

/// The projected iteration that solves each step's cone complementarity problem, with its knobs.
///
/// Every iteration sweeps over the contacts up to `sweeps` times per solve and stops early once
/// the max-norm residual falls to `tolerance` (m/s; 0 = always run every sweep): the projected
/// gradient W (γ − γ⁺) / ω of the sweep's contact updates, the CCP's optimality residual as a
/// velocity. `omega` is the over-relaxation ω in (0, 2) (APGD's step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Solver {
    /// Projected Gauss–Seidel over the colour classes of the contact graph (CPU backend only).
    /// Takes ω = 1.
    GaussSeidel {
        /// Most sweeps per solve.
        sweeps: u32,
        /// Stop when the max-norm residual falls to this (m/s).
        tolerance: f32,
        /// Over-relaxation ω.
        omega: f32,
    },
    /// Projected Jacobi: all contacts at once, then a per-body gather. Needs ω ≤ about 0.4 on
    /// dense piles. One of the GPU backend's two iterations (with APGD), which runs exactly
    /// `sweeps` sweeps (tolerance 0).
    Jacobi {
        /// Most sweeps per solve (exactly this many on the GPU).
        sweeps: u32,
        /// Stop when the max-norm residual falls to this (m/s); must be 0 on the GPU.
        tolerance: f32,
        /// Over-relaxation ω.
        omega: f32,
    },
    /// Accelerated projected gradient (APGD, Mazhar et al. 2015): projected Jacobi's step taken
    /// from an extrapolated point, with Nesterov's momentum and gradient restart; an order of
    /// magnitude fewer sweeps than Jacobi or Gauss–Seidel to a tight residual on deep piles.
    /// `omega` is the step (at most about 0.4 on dense piles, as for Jacobi). The GPU backend
    /// runs it too, with exactly `sweeps` sweeps (tolerance 0).
    Apgd {
        /// Most sweeps per solve (exactly this many on the GPU).
        sweeps: u32,
        /// Stop when the max-norm residual falls to this (m/s).
        tolerance: f32,
        /// Step ω of the preconditioned projected gradient.
        omega: f32,
    },
}

impl Solver {
    /// The same knobs on iteration `kind`.
    pub fn with_kind(self, kind: SolverKind) -> Self {
        let (sweeps, tolerance, omega) = (self.sweeps(), self.tolerance(), self.omega());
        match kind {
            SolverKind::GaussSeidel => Solver::GaussSeidel {
                sweeps,
                tolerance,
                omega,
            },
            SolverKind::Jacobi => Solver::Jacobi {
                sweeps,
                tolerance,
                omega,
            },
            SolverKind::Apgd => Solver::Apgd {
                sweeps,
                tolerance,
                omega,
            },
        }
    }

    /// The same solver with at most `n` sweeps per solve.
    pub fn with_sweeps(mut self, n: u32) -> Self {
        let (Solver::GaussSeidel { sweeps, .. }
        | Solver::Jacobi { sweeps, .. }
        | Solver::Apgd { sweeps, .. }) = &mut self;
        *sweeps = n;
        self
    }

    /// The same solver stopping at residual `t` (m/s).
    pub fn with_tolerance(mut self, t: f32) -> Self {
        let (Solver::GaussSeidel { tolerance, .. }
        | Solver::Jacobi { tolerance, .. }
        | Solver::Apgd { tolerance, .. }) = &mut self;
        *tolerance = t;
        self
    }

    /// The same solver with over-relaxation `w`.
    pub fn with_omega(mut self, w: f32) -> Self {
        let (Solver::GaussSeidel { omega, .. }
        | Solver::Jacobi { omega, .. }
        | Solver::Apgd { omega, .. }) = &mut self;
        *omega = w;
        self
    }

    /// Which iteration this is.
    pub fn kind(&self) -> SolverKind {
        match self {
            Solver::GaussSeidel { .. } => SolverKind::GaussSeidel,
            Solver::Jacobi { .. } => SolverKind::Jacobi,
            Solver::Apgd { .. } => SolverKind::Apgd,
        }
    }

    /// Most sweeps per solve.
    pub fn sweeps(&self) -> u32 {
        match *self {
            Solver::GaussSeidel { sweeps, .. }
            | Solver::Jacobi { sweeps, .. }
            | Solver::Apgd { sweeps, .. } => sweeps,
        }
    }

    /// Residual (m/s) at which a solve stops early.
    pub fn tolerance(&self) -> f32 {
        match *self {
            Solver::GaussSeidel { tolerance, .. }
            | Solver::Jacobi { tolerance, .. }
            | Solver::Apgd { tolerance, .. } => tolerance,
        }
    }

    /// Over-relaxation ω.
    pub fn omega(&self) -> f32 {
        match *self {
            Solver::GaussSeidel { omega, .. }
            | Solver::Jacobi { omega, .. }
            | Solver::Apgd { omega, .. } => omega,
        }
    }

    /// Checks each knob.
    pub(crate) fn check(&self) -> Result<(), BuildError> {
        let err = |field, problem: String| Err(BuildError::Settings { field, problem });
        if self.sweeps() == 0 {
            return err("sweeps", "must be at least 1".into());
        }
        if self.sweeps() as u64 > MAX_SWEEPS_PER_STEP {
            return err(
                "sweeps",
                format!(
                    "must be at most {MAX_SWEEPS_PER_STEP} (a convergence study takes 20,000; \
                     more would sweep for hours), got {}",
                    self.sweeps()
                ),
            );
        }
        let tolerance = self.tolerance();
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return err(
                "tolerance",
                format!("must be finite and ≥ 0, got {tolerance}"),
            );
        }
        let omega = self.omega();
        if !(omega > 0.0 && omega < 2.0) {
            return err("omega", format!("must lie in (0, 2), got {omega}"));
        }
        Ok(())
    }

    /// Checks that the GPU backend can run this solver as asked: it solves by projected Jacobi
    /// or APGD only and runs exactly `sweeps` sweeps.
    pub(crate) fn check_runs_on_gpu(&self) -> Result<(), BuildError> {
        let err = |field, problem: String| Err(BuildError::Settings { field, problem });
        let tolerance = self.tolerance();
        if self.kind() == SolverKind::GaussSeidel {
            return err(
                "solver",
                "is Gauss–Seidel (the presets' solver), but the GPU backend solves by projected \
                 Jacobi or APGD only: set solver = \"jacobi\" or \"apgd\", with omega at most \
                 about 0.4 on dense piles (Jacobi at omega = 1 diverges)"
                    .into(),
            );
        }
        if tolerance > 0.0 {
            return err(
                "tolerance",
                format!(
                    "is {tolerance}, but the GPU backend runs exactly `sweeps` sweeps; it \
                     cannot stop at a tolerance, which would need a read-back every sweep: \
                     set tolerance = 0"
                ),
            );
        }
        Ok(())
    }
}
