//! The step contract both backends share: what a step takes besides the bodies and walls
//! ([`StepParams`]), what it reports ([`StepStats`], [`StageTimes`]) and how a device backend
//! fails ([`GpuError`]). The CPU backend ([`crate::pipeline::CpuPipeline`]) and the GPU backend
//! (crate `grains-gpu`) implement it; the library's `World` drives either through it.

use crate::broad_phase::Envelope;
use crate::periodic::Periodic;
use glam::Vec3;

/// Which projected iteration solves the CCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverKind {
    /// Projected Jacobi: all contacts at once, then a per-body gather.
    Jacobi,
    /// Projected Gauss–Seidel over the colour classes of the contact graph.
    GaussSeidel,
    /// Accelerated projected gradient (APGD, Mazhar et al. 2015): the Jacobi step as a
    /// preconditioned projected gradient step with Nesterov's momentum and gradient restart.
    Apgd,
}

impl SolverKind {
    /// The name scene files, `grains bench` and the Python package give it.
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Jacobi => "jacobi",
            SolverKind::GaussSeidel => "gauss_seidel",
            SolverKind::Apgd => "apgd",
        }
    }

    /// Every iteration, in the order error messages list them.
    pub const ALL: [SolverKind; 3] = [
        SolverKind::GaussSeidel,
        SolverKind::Jacobi,
        SolverKind::Apgd,
    ];

    /// The names, quoted and listed for an error message: "gauss_seidel", "jacobi" or "apgd".
    pub fn names_listed() -> String {
        let quoted: Vec<String> = Self::ALL
            .iter()
            .map(|k| format!("{:?}", k.name()))
            .collect();
        format!("{} or {}", quoted[..2].join(", "), quoted[2])
    }

    /// The iteration called `name` ("gauss_seidel", "jacobi" or "apgd").
    pub fn from_name(name: &str) -> Option<SolverKind> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Everything a step needs besides the bodies and walls.
#[derive(Clone, Copy, Debug)]
pub struct StepParams {
    /// Time step h (s).
    pub h: f32,
    /// Gravitational acceleration (m/s²).
    pub gravity: Vec3,
    /// ε̂ rule for the active set.
    pub envelope: Envelope,
    /// Solver.
    pub solver: SolverKind,
    /// Most sweeps per step.
    pub max_iterations: u32,
    /// Stop when the max-norm residual falls to this (m/s).
    pub tolerance: f32,
    /// Over-relaxation ω (Jacobi needs ≤ about 0.4 on dense piles; Gauss–Seidel takes 1).
    pub omega: f32,
    /// Fraction of last step's impulse a persisting contact starts from (0 = cold start).
    pub warm_start: f32,
    /// Motion restricted to the x–z plane.
    pub planar: bool,
    /// Natural frequency f (Hz) of the compliant contact, Φ⁺ ≥ −F/(m_eff (2πf)²) as an implicit
    /// spring; infinity for rigid contact.
    pub contact_frequency: f32,
    /// δ (m), the most a compliant contact's spring may give within a step: its normal row is
    /// n·v⁺ + Φ/h + min(ε γn, δ/h) ≥ 0, so Φ⁺ ≥ −δ whatever the approach speed (no effect on
    /// rigid contact).
    pub max_give: f32,
    /// Coulomb-correction passes after each solve (0 = the plain cone relaxation): each moves
    /// μ‖u_T‖ of the last iterate into the normal rows' bias and solves again from the last γ.
    pub coulomb_correction: u32,
    /// Keep the stabilising term Φ/h in the contacts' normal rows (hart-anitescu eq. 2.9);
    /// false gives their unstabilised comparison, n·v⁺ ≥ 0.
    pub stabilise_contacts: bool,
    /// Sweeps of the position correction after each solve (0 = off): with rigid contact, an
    /// overlap is then removed by moving the bodies rather than by a separation speed
    /// ([`crate::position_correction`]).
    pub position_correction: u32,
    /// The overlap (m) the position correction leaves: it moves bodies only where the step
    /// would leave a deeper one, and back to this depth.
    pub overlap_slop: f32,
    /// Periodic boundaries along x and/or y (minimum-image pairs, wrapped centres).
    pub periodic: Periodic,
}

impl StepParams {
    /// ε/w_n = 1/(2π f h)²: the compliance added to a contact's normal diagonal.
    pub fn softness_ratio(&self) -> f32 {
        let wh = std::f32::consts::TAU * self.contact_frequency * self.h;
        1.0 / (wh * wh)
    }

    /// δ/h: the largest normal velocity a compliant contact's spring lets through (m/s).
    pub fn give_speed(&self) -> f32 {
        self.max_give / self.h
    }
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// ε̂-active contacts.
    pub contacts: usize,
    /// Solver sweeps run, over every solve of the step (impact, Coulomb-correction passes).
    pub iterations: u32,
    /// Max-norm residual after the last sweep (m/s).
    pub residual: f32,
    /// Deepest overlap at the start of the step (m).
    pub max_penetration: f32,
    /// Kinetic energy after the step (J).
    pub kinetic_energy: f64,
}

/// The stages of one step, in the order both backends run them (the CPU's
/// [`crate::pipeline::CpuPipeline::step`], the GPU's timed passes); the crate documentation
/// lists each stage's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// 1. Forces: explicit springs, applied loads, gravity, kinematic drives; v* = v + h M⁻¹ f.
    Forces,
    /// 2. Broad phase: the uniform grid.
    Broad,
    /// 3. Narrow phase: contact rows, the collision filter, the moment rows.
    Narrow,
    /// 4. Impact (only when some material pair restitutes; CPU only): Poisson's impact.
    Impact,
    /// 5. Prepare: warm start, the solver's layout (colouring or body index, packs), joint rows.
    Prepare,
    /// 6. Solve: the CCP sweeps with the joint rows, and the Coulomb-correction passes.
    Solve,
    /// 7. Integrate: positions and orientations follow the new velocities.
    Integrate,
    /// 8. Observe: statistics and the warm-start memory.
    Observe,
}

impl Stage {
    /// Every stage in step order.
    pub const ALL: [Stage; 8] = [
        Stage::Forces,
        Stage::Broad,
        Stage::Narrow,
        Stage::Impact,
        Stage::Prepare,
        Stage::Solve,
        Stage::Integrate,
        Stage::Observe,
    ];

    /// The stage's name, as `StageTimes`' field and `grains bench` print it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Forces => "forces",
            Stage::Broad => "broad",
            Stage::Narrow => "narrow",
            Stage::Impact => "impact",
            Stage::Prepare => "prepare",
            Stage::Solve => "solve",
            Stage::Integrate => "integrate",
            Stage::Observe => "observe",
        }
    }
}

/// Seconds spent in each [`Stage`], summed over steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    /// 1. Forces and kinematic drives.
    pub forces: f64,
    /// 2. Grid build.
    pub broad: f64,
    /// 3. Contact generation.
    pub narrow: f64,
    /// 4. Poisson impact (zero without restitution).
    pub impact: f64,
    /// 5. Warm start and the solver's layout.
    pub prepare: f64,
    /// 6. CCP sweeps.
    pub solve: f64,
    /// 7. Position update.
    pub integrate: f64,
    /// 8. Statistics and impulse cache.
    pub observe: f64,
    /// Not a stage: how often one worker of the CPU's Gauss–Seidel solve waited at a barrier
    /// (between colour classes and at each sweep's end), summed over steps; the same count for
    /// any thread count (0 on the GPU and for the other solvers).
    pub barrier_waits: u64,
}

impl StageTimes {
    /// The seconds slot of `stage`.
    pub fn slot(&mut self, stage: Stage) -> &mut f64 {
        match stage {
            Stage::Forces => &mut self.forces,
            Stage::Broad => &mut self.broad,
            Stage::Narrow => &mut self.narrow,
            Stage::Impact => &mut self.impact,
            Stage::Prepare => &mut self.prepare,
            Stage::Solve => &mut self.solve,
            Stage::Integrate => &mut self.integrate,
            Stage::Observe => &mut self.observe,
        }
    }

    /// The seconds spent in `stage`.
    pub fn seconds(mut self, stage: Stage) -> f64 {
        *self.slot(stage)
    }

    /// Sum of all stages (s).
    pub fn total(&self) -> f64 {
        Stage::ALL.iter().map(|&s| self.seconds(s)).sum()
    }
}

/// Why the GPU backend cannot run.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No GPU adapter (nor software device) was found.
    #[error("no GPU adapter found ({0}); install a Vulkan driver (for a software device: apt-get install mesa-vulkan-drivers) or use --backend cpu")]
    NoAdapter(String),
    /// The device lacks a limit the backend needs.
    #[error("GPU adapter '{adapter}' lacks a needed limit: {limit} is {available}, the backend needs {needed}")]
    MissingLimit {
        /// Adapter name.
        adapter: String,
        /// Name of the limit.
        limit: &'static str,
        /// What the adapter offers.
        available: u64,
        /// What the backend needs.
        needed: u64,
    },
    /// The scene does not fit in the device's memory or buffer limits.
    #[error("GPU adapter '{adapter}' is out of memory for {bodies} bodies: the {buffer} buffer needs {needed} bytes ({limit})")]
    OutOfMemory {
        /// Adapter name.
        adapter: String,
        /// Bodies requested.
        bodies: usize,
        /// Which buffer did not fit.
        buffer: &'static str,
        /// Bytes it needed.
        needed: u64,
        /// The limit or failure met.
        limit: String,
    },
    /// A fixed-capacity buffer overflowed during the steps since the last read-back.
    #[error("GPU {what} overflowed: {needed} needed, capacity {capacity}; the steps since the last read-back are wrong (the usual cause is a step h too large for the grains' speeds, whose envelope ε̂ ≈ v·h then spans many neighbours: use a smaller h)")]
    Overflow {
        /// Which capacity.
        what: &'static str,
        /// Entries needed.
        needed: u64,
        /// Entries available.
        capacity: u64,
    },
    /// A setting the GPU backend does not implement yet.
    #[error("the GPU backend does not support {0} yet; use the CPU backend")]
    Unsupported(&'static str),
    /// Any other device failure.
    #[error("GPU device error: {0}")]
    Device(String),
    /// Not the GPU's: a distributed run's read-back, the gather of the ranks' bodies, found a
    /// body lost or held twice (the message names the step and the body).
    #[error("{0}")]
    Distributed(String),
}
