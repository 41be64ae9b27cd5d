//! The backends a world steps on, behind one trait: [`StepBackend`]. [`open`] picks one from
//! [`Settings::backend`]; the world then calls through the trait without knowing which it holds.

mod cpu;
#[cfg(feature = "mpi")]
pub(crate) mod distributed;
#[cfg(feature = "gpu")]
mod gpu;
mod implicit;

use crate::decomposition::Bisection;
use crate::domain::Domain;
use crate::error::BuildError;
use crate::health::{self, Check, Scan, StepError};
use crate::settings::{Backend, Integrator, Settings};
use grains_kernels::forces::{Actuation, Load};
use grains_kernels::joints::Joint;
use grains_kernels::narrow_phase::Contacts;
use grains_kernels::springs::Spring;
use grains_kernels::traffic::SweepTraffic;
use grains_kernels::{
    Bodies, FrictionTable, GpuError, Shape, SolverKind, StageTimes, StepParams, StepStats,
    SweepRecord, Wall,
};

/// Warm-start memory: pair keys (ascending), impulse vectors and moment impulse vectors (one
/// per key, or none).
pub(crate) type WarmStart = (Vec<u64>, Vec<[f32; 4]>, Vec<[f32; 4]>);

/// One rank's own part of a distributed world's state ([`StepBackend::own_part`]).
pub(crate) struct OwnPart {
    /// This rank.
    pub(crate) rank: usize,
    /// The run's ranks.
    pub(crate) ranks: usize,
    /// The host copy's indices of the bodies it owns, ascending.
    pub(crate) indices: Vec<u64>,
    /// Their state.
    pub(crate) bodies: Bodies,
    /// The warm start of the contacts it decides, keyed by the host copy's indices.
    pub(crate) warm: WarmStart,
}

/// What one step reads besides the bodies.
pub(crate) struct StepInputs<'a> {
    /// The walls placed for this step.
    pub(crate) walls: &'a [Wall],
    /// The mesh walls placed for this step.
    pub(crate) mesh: &'a grains_kernels::mesh::MeshWalls,
    /// The kinematic bodies' velocities over this step.
    pub(crate) drives: &'a [Actuation],
    /// Friction (and restitution) of each material pair.
    pub(crate) friction: &'a FrictionTable,
    /// The settings as the kernels take them.
    pub(crate) params: &'a StepParams,
}

/// A rank's own bodies and the nearby bodies of other ranks: each one's id (the host copy's
/// index), their state, and how many of them (the first ones, ascending id) the rank owns;
/// the others follow in ascending id.
pub(crate) type NearBodies = (Vec<u64>, Bodies, usize);

/// What the world needs of a backend: step, bring the host copy up to date, and hand over the
/// contacts, timings and warm-start memory.
///
/// The host's [`Bodies`] are the world's; a backend that keeps the state elsewhere (a device)
/// copies it into them when told to read back. `steps` arguments are the world's step count.
pub(crate) trait StepBackend: Send + Sync {
    /// Replaces the applied forces of the following steps.
    fn set_loads(&mut self, loads: &[Load]);

    /// Takes one step, which brings the world to step `steps`. With `read_back`, the host copy
    /// of `bodies` and the statistics returned are those of this step; otherwise a backend
    /// that keeps the state elsewhere may return those of its last read-back. Fails on a device
    /// error, or when the step cannot be completed ([`crate::Fault::TooManyContacts`]).
    fn step(
        &mut self,
        bodies: &mut Bodies,
        inputs: &StepInputs,
        steps: u64,
        read_back: bool,
    ) -> Result<StepStats, StepError>;

    /// Copies the state of step `steps` into `bodies` unless the host already holds it, and
    /// returns the statistics then read (`None` when nothing was read). A backend that steps
    /// the host's own bodies (the CPU ones) has nothing to copy.
    fn sync(&mut self, _bodies: &mut Bodies, _steps: u64) -> Result<Option<StepStats>, GpuError> {
        Ok(None)
    }

    /// Copies the contacts of step `steps` to the host unless it already holds them (always,
    /// by default).
    fn sync_contacts(&mut self, _steps: u64) -> Result<(), GpuError> {
        Ok(())
    }

    /// Sums each of `values` over the ranks of a distributed run, in rank order, in place (a
    /// call every rank makes together); a backend that steps every body itself has nothing to
    /// add.
    fn sum_over_ranks(&self, _values: &mut [f64]) {}

    /// Turns `forces` (one per body of the host copy), the forces of the contacts the host
    /// holds on each body, into the totals a distributed rank keeps: each of its own bodies'
    /// force summed over the ranks that hold it, zero for the others (a call every rank makes
    /// together). A backend that steps every body itself holds every contact: the forces are
    /// the totals already.
    fn total_contact_forces(&self, _forces: &mut [glam::DVec3]) {}

    /// The total contact force on each body a rank of a distributed run owns (in ascending id,
    /// its own bodies of the last step), from its contacts' `(first body, second body or none,
    /// force)`, summed over the ranks that hold a body as [`Self::total_contact_forces`] does,
    /// without a list of every body (a call every rank makes together). `None`, by default, and
    /// where the rank has not stepped since its bodies were split.
    fn own_contact_forces(
        &self,
        _forces: &mut dyn Iterator<Item = (usize, Option<usize>, glam::DVec3)>,
    ) -> Option<Vec<glam::DVec3>> {
        None
    }

    /// The step whose bodies and statistics the host copy holds, out of `steps` taken (the
    /// last one, by default).
    fn synced_at(&self, steps: u64) -> u64 {
        steps
    }

    /// The step whose state the health checks read ([`StepBackend::scan`]), out of `steps`
    /// taken: the host copy's ([`StepBackend::synced_at`]) by default; a distributed rank's own
    /// bodies', as of its last read-back.
    fn read_at(&self, steps: u64) -> u64 {
        self.synced_at(steps)
    }

    /// Brings what the health checks read to step `steps`: the host copy by default
    /// ([`StepBackend::sync`], returning what it returns); a distributed rank's own bodies are
    /// current, and nothing is gathered.
    fn read(&mut self, bodies: &mut Bodies, steps: u64) -> Result<Option<StepStats>, GpuError> {
        self.sync(bodies, steps)
    }

    /// The health checks' pass over every body ([`health::scan`]) with the escape check
    /// `escape`: over the host copy `bodies` by default; a distributed rank scans its own bodies
    /// and combines the ranks' passes (a call every rank makes together).
    fn scan(&self, bodies: &Bodies, escape: (Option<Domain>, Check)) -> Scan {
        health::scan(health::rows(bodies), escape)
    }

    /// Each of `values` the largest over the ranks of a distributed run, in place (a call every
    /// rank makes together); a backend that steps every body itself has nothing to compare.
    fn max_over_ranks(&self, _values: &mut [f64]) {}

    /// Each of `values` the largest over the ranks of a distributed run, in place, by one
    /// reduction whose traffic does not grow with the rank count (a call every rank makes
    /// together); a backend that steps every body itself has nothing to compare.
    fn max_keys_over_ranks(&self, _values: &mut [u64]) {}

    /// The `k`th smallest (from 0, in [`f64::total_cmp`]'s order) of the ranks' `values`
    /// together, `None` where they are no more than `k` (a call every rank makes together); by
    /// default, of `values` alone (which it reorders).
    fn select_over_ranks(&self, values: &mut [f64], k: u64) -> Option<f64> {
        let k = usize::try_from(k).ok().filter(|&k| k < values.len())?;
        Some(*values.select_nth_unstable_by(k, f64::total_cmp).1)
    }

    /// The step whose statistics the last step returned, out of `steps` taken: the host copy's
    /// ([`StepBackend::synced_at`]) by default.
    fn stats_at(&self, steps: u64) -> u64 {
        self.synced_at(steps)
    }

    /// The ids of the bodies each rank owns, by rank, each ascending, in a distributed run (a
    /// call every rank makes together); `None` for a backend that steps every body itself.
    #[cfg(feature = "mpi")]
    fn owned_ids(&self) -> Option<Vec<Vec<u64>>> {
        None
    }

    /// The number of bodies of the world when the backend has released the host copy (a rank
    /// of a distributed run between its steps and the next gather, which holds no copy of the
    /// bodies other ranks own); `None` while the host copy holds every body, as it always does
    /// for a backend that steps every body itself.
    fn released(&self) -> Option<usize> {
        None
    }

    /// What this rank sent the other ranks and the ghosts it held ([`crate::RankTraffic`]);
    /// `None` for a backend that steps every body itself.
    fn rank_traffic(&self) -> Option<crate::RankTraffic> {
        None
    }

    /// A distributed rank's side of the insertions' and sinks' pass while the host copy is
    /// released ([`crate::lifecycle::OnRanks`]); `None` where the host copy holds every body
    /// (the pass edits it), as it always does for a backend that steps every body itself.
    fn on_ranks(&mut self) -> Option<&mut dyn crate::lifecycle::OnRanks> {
        None
    }

    /// The indices in the host copy `bodies` of the bodies this rank owns, ascending, in a
    /// distributed run (not a collective call; where the bed is to be split afresh at step
    /// `next`, the bodies that split gives this rank); `None` for a backend that steps every
    /// body itself.
    fn owned_indices(&self, _bodies: &Bodies, _next: u64) -> Option<Vec<usize>> {
        None
    }

    /// Name of the GPU adapter; `None` on the CPU.
    fn adapter_name(&self) -> Option<&str> {
        None
    }

    /// Replaces each body's shape (empty: every body a sphere) and the anisotropic bodies'
    /// principal moments after grains came or went ([`crate::lifecycle`]). The CPU and GPU
    /// backends hold both (the GPU refuses shapes other than spheres and clumps at build); the
    /// implicit stepper keeps the default, which does nothing.
    fn set_body_shapes(
        &mut self,
        _shapes: Vec<grains_kernels::Shape>,
        _inertia: grains_kernels::inertia::PrincipalInertia,
    ) {
    }

    /// Impulses of the last step's joint rows (empty where the backend has no joints).
    fn joint_impulses(&self) -> &[f32];

    /// What the last step's cohesive pull may have supplied (N/√kg, as the energy check counts
    /// an applied force; 0 where the backend has no cohesion).
    fn cohesive_push(&self) -> f64 {
        0.0
    }

    /// Replaces the joints (some bonds broke, or a snapshot says which) and their rows'
    /// impulses, the next step's warm start. Only the CPU backend holds joints; the others
    /// refuse them at build and ignore this.
    fn set_joints(&mut self, _joints: Vec<grains_kernels::joints::Joint>, _impulses: &[f32]) {}

    /// Sets the fluid's velocity on a grid (`None`: its uniform velocity). False, the field
    /// dropped, where the backend moves no fluid (only the CPU backend takes one).
    fn set_flow_field(&mut self, _field: Option<grains_kernels::fluid::FlowField>) -> bool {
        false
    }

    /// Seconds spent per stage (`None` where they are not measured).
    fn stage_times(&self) -> Option<StageTimes>;

    /// Seconds spent stepping since the backend was opened.
    fn step_seconds(&self) -> f64;

    /// Every sweep of the last step's solves: residual and time (empty where not recorded).
    fn sweep_trace(&self) -> &[SweepRecord];

    /// The bytes one sweep of `solver` moves per contact and per body, from the layout.
    fn sweep_traffic(&self, solver: SolverKind) -> SweepTraffic;

    /// Contact rows of the last step the host holds, in key order.
    fn contacts(&self) -> &Contacts;

    /// Their impulses (γn, γt1, γt2, 0).
    fn impulses(&self) -> &[[f32; 4]];

    /// Their moment impulses (γ_s, γ_r1, γ_r2, 0), or none.
    fn moment_impulses(&self) -> &[[f32; 4]];

    /// Forgets the warm start after the host changed the bodies' velocities (which the next
    /// step takes from the host).
    fn bodies_edited(&mut self);

    /// The warm-start memory.
    fn warm_start_state(&mut self) -> Result<WarmStart, GpuError>;

    /// What this rank of a distributed run owns of the state (where the bed is to be split
    /// afresh at step `next`, what that split gives it of the host copy `bodies`), for its
    /// piece of a checkpoint: not a collective call, nothing is sent. `None`, by default: a
    /// backend that steps every body itself has no part.
    fn own_part(&self, _bodies: &Bodies, _next: u64) -> Option<OwnPart> {
        None
    }

    /// The host copy's indices (ascending) and the state of the bodies this rank of a
    /// distributed run owns, as of the last step (where the bed is to be split afresh at step
    /// `next`, what that split gives it of the host copy `bodies`): not a collective call.
    /// `None`, by default: a backend that steps every body itself has no part.
    fn own_bodies(&self, _bodies: &Bodies, _next: u64) -> Option<(Vec<u64>, Bodies)> {
        None
    }

    /// [`Self::own_bodies`] followed by the current state of every body another rank owns
    /// that could overlap one of them (see [`crate::World::own_and_near_bodies`]): the ids,
    /// the state and the number of own bodies (the first ones). A collective call in a
    /// distributed run; `None`, by default.
    fn own_and_near_bodies(&self, _bodies: &Bodies, _next: u64) -> Option<NearBodies> {
        None
    }

    /// The centre of body `id` as a rank of a distributed run stepped it in its last step
    /// (its own bodies and their ghosts); `None`, by default.
    fn held_centre(&self, _id: u64) -> Option<glam::Vec3> {
        None
    }

    /// The cuts of a distributed run's subdomains, which a snapshot carries (`None`, by
    /// default: a backend that steps every body itself has none).
    fn cuts(&self) -> Option<Bisection> {
        None
    }

    /// True for a rank of a distributed run.
    fn is_distributed(&self) -> bool {
        false
    }

    /// Continues, after [`Self::restore`], with the snapshot's cuts `cuts` (`None` where it
    /// has none): a distributed backend on as many ranks splits the bed with them until its
    /// next rebalance. Ignored by default.
    fn restore_cuts(&mut self, _cuts: Option<&Bisection>) {}

    /// Continues from a snapshot of step `steps`: its warm-start memory of the contacts and
    /// joints (the bodies are already in the host copy).
    fn restore(
        &mut self,
        steps: u64,
        warm: (&[u64], &[[f32; 4]], &[[f32; 4]]),
        joint_impulses: &[f32],
    );
}

/// What a backend is opened with, checked by the builder.
pub(crate) struct Parts {
    /// The joints, as the kernels take them.
    pub(crate) joints: Vec<Joint>,
    /// The springs, as the kernels take them.
    pub(crate) springs: Vec<Spring>,
    /// Each body's shape, when any is not a sphere.
    pub(crate) shapes: Option<Vec<Shape>>,
    /// The hull table of the polyhedra (empty when there is none).
    pub(crate) hulls: Vec<grains_kernels::shapes::polyhedron::Hull>,
    /// The anisotropic bodies' principal moments (empty when there is none).
    pub(crate) inertia: grains_kernels::inertia::PrincipalInertia,
    /// The clump templates the clump bodies name (empty when there is none).
    pub(crate) clumps: grains_kernels::shapes::clump::ClumpTable,
    /// The fluid the bodies move in (CPU backend only).
    pub(crate) fluid: Option<grains_kernels::fluid::Fluid>,
}

/// Opens the backend `settings` ask for (the geometrically implicit stepper when they ask
/// for that integrator), or says why it cannot run this world of `parts` and
/// material pairs `friction`.
#[cfg_attr(not(feature = "gpu"), allow(unused_variables))]
pub(crate) fn open(
    settings: &Settings,
    parts: Parts,
    friction: &FrictionTable,
) -> Result<Box<dyn StepBackend>, BuildError> {
    if settings.integrator == Integrator::GeometricallyImplicit {
        // The support table (`crate::support`) and `crate::implicit` refused what it cannot step.
        return Ok(Box::new(implicit::ImplicitBackend::default()));
    }
    match settings.backend {
        Backend::Cpu => Ok(Box::new(cpu::CpuBackend::open(settings.threads, parts)?)),
        #[cfg(feature = "gpu")]
        Backend::Gpu => Ok(Box::new(gpu::GpuBackend::open(friction, parts)?)),
        #[cfg(not(feature = "gpu"))]
        Backend::Gpu => Err(BuildError::Gpu(
            "this build of grains has no GPU backend (built without the `gpu` feature)".into(),
        )),
    }
}
