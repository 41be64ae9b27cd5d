//! Time-stepping and solver settings of a world.

pub use crate::auto_step::AutoStep;
use crate::error::BuildError;
use crate::health::Health;
pub use crate::implicit::Integrator;
use crate::periodic::{check_ranges, Periodic};
use crate::solver::{Solver, MAX_SWEEPS_PER_STEP};
use glam::Vec3;
use grains_kernels::StepParams;

pub use grains_kernels::broad_phase::Envelope;

/// The most CPU worker threads a world may ask for ([`Settings::threads`]): far above any
/// machine's cores, and low enough that a typo does not start a million threads.
pub const MAX_THREADS: usize = 1024;

/// Where the step runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// CPU worker threads (rayon); results are bit-identical for any thread count.
    #[default]
    Cpu,
    /// A GPU (or Mesa's software Vulkan device) through wgpu. It solves by projected Jacobi or
    /// APGD only, with exactly `sweeps` sweeps per solve (a step takes 1 + `coulomb_correction`
    /// solves): a world asking for [`Solver::GaussSeidel`] or a tolerance above 0 is refused at
    /// build (stopping at a tolerance would need a read-back each sweep).
    Gpu,
}

impl Backend {
    /// The name scene files, the `grains` program and the Python package give it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
        }
    }

    /// The backend called `name` ("cpu" or "gpu").
    pub fn from_name(name: &str) -> Option<Backend> {
        [Backend::Cpu, Backend::Gpu]
            .into_iter()
            .find(|b| b.name() == name)
    }
}

/// How the step is taken. `Settings::default()` is the plain scheme of the papers with a
/// Gauss–Seidel solver; [`Settings::granular`] is the tuning for deep granular beds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Time step h (s); with [`Settings::auto_step`], the largest step h_max and the tick
    /// that [`crate::World::step`] advances.
    pub h: f32,
    /// `None` (default): every step is h. `Some`: the adaptive step (`h = "auto"` in a
    /// scene), which chooses each step's h, between `AutoStep::h_min` and h, from the fastest
    /// grain's reach and a penetration and residual budget (see [`crate::auto_step`]); CPU
    /// backend, one process. Kept as built by [`crate::World::set_settings`].
    pub auto_step: Option<AutoStep>,
    /// Gravitational acceleration (m/s²).
    pub gravity: Vec3,
    /// ε̂ rule; `None` = per pair, floor 5 % of the smallest radius, 1.5 · h · approach speed.
    pub envelope: Option<Envelope>,
    /// The projected iteration and its knobs: sweeps, tolerance and over-relaxation ω
    /// (Gauss–Seidel: ω = 1; Jacobi: ω at most about 0.4 on dense piles).
    pub solver: Solver,
    /// Fraction of last step's impulse a persisting contact starts from, in [0, 1].
    pub warm_start: f32,
    /// Natural frequency f (Hz) of a compliant contact (an implicit spring in the CCP's normal
    /// rows, ε = 1/(m_eff (2πf h)²)); infinity for the rigid contact of the papers.
    pub contact_frequency: f32,
    /// Coulomb-correction passes per solve (0 = off: the papers' cone relaxation, which lets a
    /// sliding contact separate at μ‖v_T‖). Each pass adds μ‖u_T‖ of the last iterate to the
    /// normal rows' bias and solves again from the last impulses; the passes converge to
    /// Coulomb's u_n ≥ 0 (at a single sliding contact each pass multiplies the lift by
    /// μ²/(1 + μ²) for a body that cannot roll, by 3.5μ²/(1 + 3.5μ²) for a free solid sphere).
    /// Both backends; each pass costs one more solve.
    pub coulomb_correction: u32,
    /// Restrict motion to the x–z plane (disks): v_y = 0, rotation about y only.
    pub planar: bool,
    /// Keep the stabilising term Φ/h in the contacts' normal rows, n·v⁺ + Φ/h ≥ 0
    /// (hart-anitescu eq. 2.9; default true). False drops it (their Δ = 0, n·v⁺ ≥ 0 for every
    /// ε̂-active contact), the unstabilised scheme that V4 compares against.
    pub stabilise_contacts: bool,
    /// Sweeps of the position correction of overlaps after each step's solve (default 0: off,
    /// the overlap's Φ/h stays in the normal rows as a separation speed). With rigid contact
    /// and n > 0 the normal rows keep only max(Φ, 0)/h, and a second, frictionless solve of n
    /// sweeps (the step's iteration and tolerance) finds pseudo-velocities that move the
    /// bodies out of their overlaps without leaving a speed in the bed: a rigid bed at rest
    /// then stays at rest at any h (see `kernels/src/position_correction.rs` and
    /// docs/solvers.md). CPU backend, one process; refused with compliant contact, joints, a
    /// sheared cell and the implicit integrator. Costs up to n more sweeps a step.
    pub position_correction: u32,
    /// Worker threads of the CPU backend, 1 to [`MAX_THREADS`]. The library defaults to one
    /// thread; results are bit-identical for any count, so raise it (e.g. to the machine's
    /// cores) for speed.
    pub threads: usize,
    /// Where the step runs. [`Backend::Gpu`] runs only [`Solver::Jacobi`] with tolerance 0
    /// (exactly `sweeps` sweeps per solve) and refuses any other solver setting at build; set
    /// `omega` for Jacobi (at most about 0.4 on dense piles).
    pub backend: Backend,
    /// GPU backend: steps between read-backs of the bodies and statistics to the host (at least
    /// 1; contacts only by `World::sync_contacts`). Between read-backs the host copy is stale.
    /// A distributed run (feature `mpi`) runs its health checks every `sync_every` steps, on
    /// each rank's own bodies, without gathering them. Not used otherwise on the CPU.
    pub sync_every: u32,
    /// The health checks after every step and what each does when it fails (default: all
    /// stop the run; [`Health::OFF`] turns them off).
    pub health: Health,
    /// Periodic boundaries along x and/or y (default none): the range [lo, hi) of each periodic
    /// axis. Pairs are measured by their minimum image and centres wrapped into the ranges
    /// after each step. Checked at build (see `engine/src/periodic.rs`): a period at least twice
    /// the largest pair reach, every centre inside the ranges (not wrapped on build), spheres
    /// only, walls facing no periodic axis and unbounded along them, no joints or springs, CPU
    /// backend only. Kept as built by [`crate::World::set_settings`].
    ///
    /// With both x and y periodic, [`Periodic::shear_rate`] γ̇ (1/s) shears the cell along x
    /// with its gradient along y (Lees–Edwards boundaries, simple shear without walls): the
    /// images across y are offset along x by Δ(t) = γ̇ L_y t mod L_x and move at ±γ̇ L_y, and a
    /// grain crossing y = hi re-enters at lo shifted by −Δ and slowed by γ̇ L_y (see
    /// `kernels/src/periodic.rs` and docs/method.md, "Periodic boundaries"). Refused with one
    /// axis only, not finite, on the GPU backend, distributed, with the implicit integrator and
    /// with restitution. [`Periodic::shear_offset`] is the world's to set at each step.
    pub periodic: Periodic,
    /// How each step is taken (default [`Integrator::Ccp`]); [`Integrator::GeometricallyImplicit`]
    /// steps small worlds of spheres and planes by the stepper of [`crate::geometric`] and
    /// refuses at build what it cannot represent (see `engine/src/implicit.rs`). Kept as built
    /// by [`crate::World::set_settings`].
    pub integrator: Integrator,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            h: 1e-3,
            auto_step: None,
            gravity: Vec3::new(0.0, 0.0, -9.81),
            envelope: None,
            solver: Solver::GaussSeidel {
                sweeps: 100,
                tolerance: 1e-6,
                omega: 1.0,
            },
            warm_start: 1.0,
            contact_frequency: f32::INFINITY,
            coulomb_correction: 0,
            planar: false,
            stabilise_contacts: true,
            position_correction: 0,
            threads: 1,
            backend: Backend::Cpu,
            sync_every: 50,
            health: Health::default(),
            periodic: Periodic::NONE,
            integrator: Integrator::Ccp,
        }
    }
}

impl Settings {
    /// Settings for deep piles and pours at step `h`: 30 warm-started Gauss–Seidel sweeps and a
    /// compliant contact at f = 1.2/h (2πfh ≈ 7.5: overlap under load stays ~1/56 of what
    /// the load's velocity h·F/m_eff would be). A rigid contact cut off at 30 sweeps keeps a deep
    /// bed breathing; this stiffness is the stiffest such a solve still brings to rest.
    pub fn granular(h: f32) -> Self {
        Settings {
            h,
            solver: Solver::GaussSeidel {
                sweeps: 30,
                tolerance: 1e-4,
                omega: 1.0,
            },
            contact_frequency: 1.2 / h,
            ..Settings::default()
        }
    }

    /// Checks every field, and that [`Settings::backend`] can honour the solver asked for.
    pub fn check(&self) -> Result<(), BuildError> {
        let err = |field, problem: String| Err(BuildError::Settings { field, problem });
        if !(self.h.is_finite() && self.h > 0.0) {
            return err("h", format!("must be positive and finite, got {}", self.h));
        }
        if let Some(auto) = &self.auto_step {
            auto.check(self.h)?;
        }
        if !self.gravity.is_finite() {
            return err("gravity", format!("must be finite, got {}", self.gravity));
        }
        match self.envelope {
            Some(Envelope::Fixed(e)) if !(e.is_finite() && e >= 0.0) => {
                return err("envelope", format!("must be finite and ≥ 0, got {e}"));
            }
            Some(Envelope::PerPair {
                floor,
                speed_factor,
            }) if !(floor.is_finite()
                && floor >= 0.0
                && speed_factor.is_finite()
                && speed_factor >= 0.0) =>
            {
                return err("envelope", format!("floor and speed factor must be finite and ≥ 0, got {floor} and {speed_factor}"));
            }
            _ => {}
        }
        crate::support::Present::of_settings(self).check()?;
        self.solver.check()?;
        let solves = 1 + self.coulomb_correction as u64;
        let solve_sweeps = self.solver.sweeps() as u64 * solves;
        if solve_sweeps > MAX_SWEEPS_PER_STEP {
            return err(
                "coulomb_correction",
                format!(
                    "is {}: {} solves of {} sweeps each make {} sweeps a step, beyond the bound \
                     of {MAX_SWEEPS_PER_STEP} (more would sweep for hours)",
                    self.coulomb_correction,
                    solves,
                    self.solver.sweeps(),
                    solve_sweeps
                ),
            );
        }
        let sweeps = solve_sweeps + self.position_correction as u64;
        if sweeps > MAX_SWEEPS_PER_STEP {
            return err(
                "position_correction",
                format!(
                    "is {}: with the step's {} sweeps it makes {sweeps} sweeps a step, beyond \
                     the bound of {MAX_SWEEPS_PER_STEP} (more would sweep for hours)",
                    self.position_correction, solve_sweeps,
                ),
            );
        }
        if self.position_correction > 0 && !self.stabilise_contacts {
            return err(
                "position_correction",
                format!(
                    "is {}, but stabilise_contacts is false: the correction removes the \
                     overlaps that the stabilising term would, so it needs that term on",
                    self.position_correction
                ),
            );
        }
        if self.backend == Backend::Gpu {
            self.solver.check_runs_on_gpu()?;
        }
        if !(0.0..=1.0).contains(&self.warm_start) {
            return err(
                "warm_start",
                format!("must lie in [0, 1], got {}", self.warm_start),
            );
        }
        if self.contact_frequency.is_nan() || self.contact_frequency <= 0.0 {
            return err(
                "contact_frequency",
                format!(
                    "must be positive (infinity = rigid), got {}",
                    self.contact_frequency
                ),
            );
        }
        check_ranges(&self.periodic)?;
        if self.threads == 0 {
            return err("threads", "must be at least 1".into());
        }
        if self.threads > MAX_THREADS {
            return err(
                "threads",
                format!("must be at most {MAX_THREADS}, got {}", self.threads),
            );
        }
        if self.sync_every == 0 {
            return err("sync_every", "must be at least 1".into());
        }
        let Health {
            max_penetration,
            energy_growth,
            ..
        } = self.health;
        if max_penetration.is_nan() || max_penetration <= 0.0 {
            return err(
                "health.max_penetration",
                format!("must be positive (infinity = no limit), got {max_penetration}"),
            );
        }
        if energy_growth.is_nan() || energy_growth < 1.0 {
            return err(
                "health.energy_growth",
                format!("must be at least 1 (infinity = no limit), got {energy_growth}"),
            );
        }
        Ok(())
    }

    /// What the kernels take for each step: these settings with the ε̂ rule `envelope` resolved
    /// (see [`crate::World::envelope`]).
    pub(crate) fn step_params(
        &self,
        envelope: Envelope,
        (max_give, overlap_slop): (f32, f32),
    ) -> StepParams {
        StepParams {
            h: self.h,
            gravity: self.gravity,
            envelope,
            solver: self.solver.kind(),
            max_iterations: self.solver.sweeps(),
            tolerance: self.solver.tolerance(),
            omega: self.solver.omega(),
            warm_start: self.warm_start,
            planar: self.planar,
            contact_frequency: self.contact_frequency,
            max_give,
            coulomb_correction: self.coulomb_correction,
            stabilise_contacts: self.stabilise_contacts,
            position_correction: self.position_correction,
            overlap_slop,
            periodic: self.periodic,
        }
    }
}
