//! Distributed runs over MPI: [`World::distribute`] turns a world built the same way on every
//! rank of an MPI job into one rank of a domain-decomposed run (feature `mpi`).
//!
//! The bed is split into one box per rank by recursive bisection on body counts along its
//! longest axes ([`crate::decomposition`]), rebalanced every so many steps; bodies migrate to
//! the rank whose box their centre enters. Each rank steps the bodies it owns with ghost
//! copies of the bodies of other ranks within contact reach, solving each contact on exactly
//! one rank, and the ranks agree on the shared bodies' velocity changes in every gather of the
//! Jacobi or APGD solve ([`grains_kernels::interface`]): the distributed solve is the same
//! iteration as one process's, only split by contacts. The scheme, its convergence and its
//! cost are in `docs/distributed.md`.

/// The `mpi` crate this build uses, for a program that starts MPI (`mpi::initialize_with_threading`).
pub use mpi;

pub(crate) mod contacts;
pub(crate) mod coupling;
pub(crate) mod rank_pipeline;
pub(crate) mod ranks;
pub(crate) mod subdomain;
pub(crate) mod wire;

use crate::backend::distributed::DistributedBackend;
use crate::backend::StepBackend;
use crate::error::BuildError;
use crate::settings::{Backend, Integrator};
use crate::solver::Solver;
use crate::support::{Feature, Item, Present};
use crate::world::World;
use coupling::Coupling;
use mpi::topology::{Communicator, SimpleCommunicator};
use rank_pipeline::RankPipeline;
use ranks::Ranks;

/// The most ranks a run can use (a body's holders are a 64-bit mask).
pub const MAX_RANKS: usize = 64;

impl World {
    /// Makes this world one rank of a distributed run on the ranks of `comm`, rebalancing the
    /// subdomains every `rebalance_every` steps. Every rank must have built the same world
    /// (the same scene, the same settings) and call this at the same step (steps taken before
    /// carry on, warm start included); from then on the
    /// ranks step together, each its own subdomain. The host copy of every body
    /// ([`World::bodies`]) is gathered on every rank only by [`World::sync`] (and the calls
    /// that make it: [`World::sync_checked`], [`World::run`]'s end, a snapshot, a pass of the
    /// insertions and sinks); every [`Settings::sync_every`](crate::Settings::sync_every)
    /// steps the health checks read each rank's own bodies and the ranks agree on the verdict,
    /// nothing gathered, and [`World::own_bodies`] gives a rank its own bodies' state at any
    /// step. MPI must have been initialised with at least
    /// `mpi::Threading::Serialized` (the solve calls MPI from the pipeline's worker thread).
    /// A snapshot of a distributed run restored after this ([`World::restore`]) continues bit
    /// for bit on as many ranks: it carries the run's cuts ([`crate::Snapshot::cuts`]). A world
    /// built with [`crate::Backend::Gpu`] steps each rank's bodies on a GPU (the first adapter
    /// the rank finds), coupled to the other ranks exactly as on the CPU (docs/distributed.md).
    ///
    /// Refused, naming what, for what the coupled solve does not cover (the support table's
    /// rows of a distributed run, [`crate::support`]): the Gauss–Seidel solver (use Jacobi or
    /// APGD), the implicit integrator, joints, springs, applied forces, restitution, shapes
    /// other than spheres (built or inserted), bodies with principal moments, periodic
    /// boundaries (sheared or not); and more than [`MAX_RANKS`] ranks. Insertions
    /// and sinks work as in one process: their pass, between steps, runs on every rank on the
    /// host copy gathered for it, and the bodies are split among the ranks again after it. The
    /// contacts are never gathered: [`World::contacts`] holds those this rank solved, numbered
    /// by body id, once [`World::sync_contacts`] has copied them after a step; what reads them
    /// is reduced over the ranks in calls every rank makes together ([`World::wall_loads`] and
    /// [`World::mesh_loads`] the whole bed's, [`World::body_contact_forces`] the totals of
    /// this rank's bodies, [`World::sum_over_ranks`] for other sums).
    pub fn distribute(
        &mut self,
        comm: SimpleCommunicator,
        rebalance_every: u64,
    ) -> Result<(), BuildError> {
        let refuse = |what: &str| Err(BuildError::Distributed(what.to_string()));
        self.features().check()?;
        if comm.size() as usize > MAX_RANKS {
            return refuse(&format!(
                "{} ranks; at most {MAX_RANKS} are supported",
                comm.size()
            ));
        }
        if rebalance_every == 0 {
            return refuse("the rebalance interval must be at least 1 step");
        }
        // The steps taken so far carry on: their warm start goes to the ranks with the bodies.
        let (keys, impulses, moments) = self.backend.warm_start_state()?;
        let coupling = Coupling::new(Ranks::new(comm));
        let gpu = self.settings.backend == Backend::Gpu;
        let pipeline = RankPipeline::open(self.settings.threads, gpu)?;
        let mut backend = DistributedBackend::open(pipeline, coupling, rebalance_every, self.steps);
        backend.restore(self.steps, (&keys, &impulses, &moments), &[]);
        self.backend = Box::new(backend);
        Ok(())
    }

    /// The features of this world as a rank of a distributed run would step it, all at
    /// [`Item::Run`] (a distributed run's refusals name no item of the world): its settings',
    /// and its joints, springs, applied forces, servo walls, restitution, shapes, anisotropic bodies and
    /// shaped insertions.
    fn features(&self) -> Present {
        let (mut p, item) = (Present::default(), Item::Run);
        let s = &self.settings;
        p.add(true, Feature::Distributed, item);
        p.add(
            s.integrator != Integrator::Ccp,
            Feature::ImplicitIntegrator,
            item,
        );
        let gauss_seidel = matches!(s.solver, Solver::GaussSeidel { .. });
        p.add(gauss_seidel, Feature::GaussSeidel, item);
        p.add(s.periodic.is_sheared(), Feature::PeriodicShear, item);
        p.add(s.periodic.is_on(), Feature::Periodic, item);
        p.add(s.auto_step.is_some(), Feature::AdaptiveStep, item);
        let correction = s.position_correction > 0;
        p.add(correction, Feature::PositionCorrection, item);
        let joints = self.joint_rows > 0 || !self.joints.is_empty();
        p.add(joints, Feature::Joints, item);
        let springs = self
            .fingerprint
            .items()
            .any(|(n, v)| n == "springs" && v != "0");
        p.add(springs, Feature::Springs, item);
        p.add(!self.forces.is_empty(), Feature::AppliedForces, item);
        p.add(!self.servos.is_empty(), Feature::ServoWalls, item);
        p.add(self.friction.any_restitution(), Feature::Restitution, item);
        p.add(!self.shapes.is_empty(), Feature::NonSpheres, item);
        let b = &self.bodies;
        let unequal = (0..b.len()).any(|i| b.is_dynamic(i) && b.motion[i].inv_inertia == 0.0);
        p.add(unequal, Feature::PrincipalMoments, item);
        let shaped = self.insertions().iter().any(|i| i.template.is_some());
        p.add(shaped, Feature::ShapedInsertions, item);
        p
    }

    /// The ids of the bodies each rank owns now, by rank, each ascending, in a distributed
    /// world (`None` in a world that steps every body itself). Every rank must call it
    /// together: it gathers them.
    pub fn rank_ids(&self) -> Option<Vec<Vec<u64>>> {
        self.backend.owned_ids()
    }
}
