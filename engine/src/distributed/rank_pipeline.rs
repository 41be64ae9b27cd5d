//! The pipeline one rank steps its subdomain on: its CPU threads, or its GPU (feature `gpu`;
//! projected Jacobi only, see `shaders/src/distributed.rs`). Both take the same coupled step:
//! each solves the contacts it decides, and sums the shared bodies' impulses over the ranks in
//! every gather of the solve.

use super::contacts::SolvedContacts;
use super::coupling::Coupling;
use super::subdomain::Local;
use super::wire::KeyedImpulse;
#[cfg(feature = "gpu")]
use crate::backend::WarmStart;
use crate::health::{Fault, StepError};
use grains_kernels::forces::Actuation;
#[cfg(feature = "gpu")]
use grains_kernels::interface::Interface;
use grains_kernels::mesh::MeshWalls;
#[cfg(feature = "gpu")]
use grains_kernels::narrow_phase::Contacts;
use grains_kernels::narrow_phase::TooManyContacts;
use grains_kernels::traffic::{cpu_sweep_traffic, SweepTraffic};
use grains_kernels::{
    CpuPipeline, FrictionTable, SolverKind, StageTimes, StepParams, StepStats, SweepRecord, Wall,
};

/// What a rank's step reads besides its bodies: the walls, the mesh walls, the local drives,
/// the friction table and the parameters.
pub(crate) type RankInputs<'a> = (
    &'a [Wall],
    &'a MeshWalls,
    &'a [Actuation],
    &'a FrictionTable,
    &'a StepParams,
);

/// A rank's pipeline.
pub(crate) enum RankPipeline {
    Cpu(Box<CpuPipeline>),
    #[cfg(feature = "gpu")]
    Gpu(Box<GpuRank>),
}

/// A rank's GPU and the host copies of its last step's contacts, read back when asked.
#[cfg(feature = "gpu")]
pub(crate) struct GpuRank {
    device: grains_gpu::GpuPipeline,
    contacts: Contacts,
    impulses: Vec<[f32; 4]>,
    moments: Vec<[f32; 4]>,
    /// The warm start of the contacts this rank solved in its last step.
    warm: WarmStart,
}

impl RankPipeline {
    /// The pipeline of a rank: `threads` CPU workers, or the first GPU adapter where `gpu`.
    pub(crate) fn open(threads: usize, gpu: bool) -> Result<Self, crate::BuildError> {
        if gpu {
            #[cfg(feature = "gpu")]
            return Ok(RankPipeline::Gpu(Box::new(GpuRank {
                device: grains_gpu::GpuPipeline::new()?,
                contacts: Contacts::default(),
                impulses: Vec::new(),
                moments: Vec::new(),
                warm: WarmStart::default(),
            })));
            #[cfg(not(feature = "gpu"))]
            return Err(crate::BuildError::Gpu(
                "this build of grains has no GPU backend (built without the `gpu` feature)".into(),
            ));
        }
        let cpu = CpuPipeline::new(threads).map_err(|e| crate::BuildError::Threads {
            threads,
            reason: e.to_string(),
        })?;
        Ok(RankPipeline::Cpu(Box::new(cpu)))
    }

    /// Steps the local bodies of `local` (this rank's first, then its ghosts; the layout is
    /// `coupling`'s too) from the warm start `warm` (local keys, ascending, with moment impulses
    /// where `moments`; freed once the pipeline holds it, before the step's buffers grow),
    /// coupled to the other ranks; step `step` of the run. Returns the statistics;
    /// [`Self::warm_start`] then gives the warm start of the contacts this rank solved. Every
    /// rank fails together when one's narrow phase could not hold its contacts.
    pub(crate) fn step(
        &mut self,
        local: &mut Local,
        inputs: RankInputs,
        (warm, moments): (Vec<KeyedImpulse>, bool),
        coupling: &mut Coupling,
        step: u64,
    ) -> Result<StepStats, StepError> {
        let (walls, mesh, drives, friction, p) = inputs;
        match self {
            RankPipeline::Cpu(cpu) => {
                let bodies = &mut local.bodies;
                cpu.restore_warm_start_entries(&warm, moments);
                drop(warm);
                let stats =
                    cpu.step_distributed(bodies, walls, mesh, drives, friction, p, coupling)
                        .map_err(|TooManyContacts| {
                            let fault = Fault::too_many_contacts(bodies, p.h);
                            stopped_by_a_rank(coupling, step, fault.to_string(), || {
                                StepError::Health { step, fault }
                            })
                        })?;
                Ok(stats)
            }
            #[cfg(feature = "gpu")]
            RankPipeline::Gpu(gpu) => gpu.step(local, inputs, (&warm, moments), coupling, step),
        }
    }

    /// The warm start of the contacts this rank solved in its last step: local keys,
    /// ascending, their impulses and moment impulses (one per key or none).
    pub(crate) fn warm_start(&self) -> (&[u64], &[[f32; 4]], &[[f32; 4]]) {
        match self {
            RankPipeline::Cpu(cpu) => {
                let (keys, impulses) = cpu.warm_start_state();
                (keys, impulses, cpu.warm_start_moments())
            }
            #[cfg(feature = "gpu")]
            RankPipeline::Gpu(gpu) => (&gpu.warm.0, &gpu.warm.1, &gpu.warm.2),
        }
    }

    /// The contacts this rank solved in its last step (keys local), their impulses and moment
    /// impulses.
    #[cfg_attr(not(feature = "gpu"), allow(unused_variables))]
    pub(crate) fn contacts(
        &mut self,
        coupling: &Coupling,
    ) -> Result<SolvedContacts<'_>, grains_kernels::GpuError> {
        match self {
            RankPipeline::Cpu(cpu) => Ok((cpu.contacts(), cpu.impulses(), cpu.moment_impulses())),
            #[cfg(feature = "gpu")]
            RankPipeline::Gpu(gpu) => {
                let (keys, rows, impulses, moments) = gpu.device.contacts()?;
                let keep: Vec<bool> = rows.iter().map(|r| coupling.decides(r)).collect();
                gpu.contacts.keys = kept(keys, &keep);
                gpu.contacts.rows = kept(rows, &keep);
                gpu.impulses = kept(impulses, &keep);
                gpu.moments = kept(moments, &keep);
                Ok((&gpu.contacts, &gpu.impulses, &gpu.moments))
            }
        }
    }

    /// Seconds per stage of the steps taken (the CPU's; none on a GPU rank, whose solve is
    /// split around the exchanges).
    pub(crate) fn times(&self) -> Option<StageTimes> {
        match self {
            RankPipeline::Cpu(cpu) => Some(cpu.times()),
            #[cfg(feature = "gpu")]
            RankPipeline::Gpu(_) => None,
        }
    }

    /// The GPU adapter's name on a GPU rank (none on the CPU).
    pub(crate) fn adapter_name(&self) -> Option<&str> {
        match self {
            RankPipeline::Cpu(_) => None,
            #[cfg(feature = "gpu")]
            RankPipeline::Gpu(gpu) => Some(gpu.device.adapter_name()),
        }
    }

    /// Host seconds spent stepping.
    pub(crate) fn step_seconds(&self) -> f64 {
        match self {
            RankPipeline::Cpu(cpu) => cpu.times().total(),
            #[cfg(feature = "gpu")]
            RankPipeline::Gpu(gpu) => gpu.device.elapsed(),
        }
    }

    /// The residual of every sweep of the last step (none on a GPU rank).
    pub(crate) fn sweep_trace(&self) -> &[SweepRecord] {
        match self {
            RankPipeline::Cpu(cpu) => cpu.sweep_trace(),
            #[cfg(feature = "gpu")]
            RankPipeline::Gpu(_) => &[],
        }
    }

    /// Bytes one sweep moves per contact and per body.
    pub(crate) fn sweep_traffic(&self, solver: SolverKind) -> SweepTraffic {
        match self {
            RankPipeline::Cpu(pipeline) => {
                cpu_sweep_traffic(solver, pipeline.solved_compact_rows())
            }
            #[cfg(feature = "gpu")]
            RankPipeline::Gpu(_) => grains_gpu::gpu_sweep_traffic(solver, false),
        }
    }
}

#[cfg(feature = "gpu")]
impl GpuRank {
    /// [`RankPipeline::step`] on the rank's GPU.
    fn step(
        &mut self,
        local: &mut Local,
        (walls, mesh, drives, friction, p): RankInputs,
        (warm, moments): (&[KeyedImpulse], bool),
        coupling: &mut Coupling,
        step: u64,
    ) -> Result<StepStats, StepError> {
        use grains_gpu::RankStepError;
        // Only the contacts this rank solves start warm: the others stay at γ = 0.
        let n = local.bodies.len();
        let solved: Vec<&KeyedImpulse> = warm
            .iter()
            .filter(|w| decides_key(coupling, w.0, n))
            .collect();
        let keys: Vec<u64> = solved.iter().map(|w| w.0).collect();
        let impulses: Vec<[f32; 4]> = solved.iter().map(|w| w.1).collect();
        let m: Vec<[f32; 4]> = match moments {
            true => solved.iter().map(|w| w.2).collect(),
            false => Vec::new(),
        };
        self.device.restore_warm_start(&keys, &impulses, &m);
        self.device.set_meshes(mesh)?;
        let stepped = self.device.step_distributed(
            &mut local.bodies,
            (&local.ids, local.owned),
            walls,
            drives,
            friction,
            p,
            coupling,
        );
        match stepped {
            Ok(stats) => {
                let (keys, impulses, moments) = self.device.warm_start_state()?;
                let keep: Vec<bool> = keys.iter().map(|&k| decides_key(coupling, k, n)).collect();
                let stats = StepStats {
                    contacts: keep.iter().filter(|&&k| k).count(),
                    ..stats
                };
                self.warm = (
                    kept(keys, &keep),
                    kept(impulses, &keep),
                    kept(moments, &keep),
                );
                Ok(stats)
            }
            Err(RankStepError::Device(e)) => Err(e.into()),
            Err(RankStepError::NotFound(own)) => {
                // A step error like the other ranks', not a device's: every rank ends alike.
                let message = own.map(|e| e.to_string()).unwrap_or_default();
                let problem = message.clone();
                Err(stopped_by_a_rank(coupling, step, message, || {
                    StepError::Distributed { step, problem }
                }))
            }
        }
    }
}

/// Whether this rank solves the contact of local pair key `key` among `n` local bodies (a
/// second half at or past `n` is a wall or a mesh triangle).
#[cfg(feature = "gpu")]
fn decides_key(coupling: &Coupling, key: u64, n: usize) -> bool {
    let (a, b) = ((key >> 32) as u32, key as u32);
    coupling.decides_pair(a, ((b as usize) < n).then_some(b))
}

/// The entries of `v` whose `keep` is true (`v` empty stays empty: no moment rows).
#[cfg(feature = "gpu")]
fn kept<T>(v: Vec<T>, keep: &[bool]) -> Vec<T> {
    v.into_iter()
        .zip(keep)
        .filter_map(|(x, &k)| k.then_some(x))
        .collect()
}

/// The error every rank returns from step `step` when the narrow phase of one or more ranks
/// could not hold its contacts (a collective call): the lowest such rank returns its own
/// (`own`), the others say that rank stopped the step, with its `message`. No rank entered
/// the solve.
fn stopped_by_a_rank(
    coupling: &Coupling,
    step: u64,
    message: String,
    own: impl FnOnce() -> StepError,
) -> StepError {
    let ranks = &coupling.ranks;
    let here = coupling.failed_ranks() & (1 << ranks.rank()) != 0;
    let message = here.then_some(message);
    match ranks.first_message(message.as_deref()) {
        Some((q, text)) if q != ranks.rank() => StepError::Distributed {
            step,
            problem: format!("rank {q} could not take the step: {text}"),
        },
        _ => own(),
    }
}
