//! One rank's step of a distributed run on the GPU (the engine's `distributed` module splits
//! the bed and owns the MPI side; this file only calls [`Interface`]).
//!
//! The step is the one-process step with projected Jacobi or APGD, split around the solve's
//! gathers: the contacts another rank solves are marked by the solver rows' compaction
//! (`solver_row.wgsl`, by the bodies' ids) and left at γ = 0, and after every gather (the warm
//! start's and each sweep's) the impulses on the bodies other ranks also hold are read back,
//! summed over the ranks in rank order ([`Interface::sum_shared`]) and written back for
//! `kick_shared` (`shared_bodies.wgsl`), so every copy of a shared body has the same velocity,
//! bit for bit, as in the CPU ranks' coupled solve (kernels/src/interface.rs). APGD's sweep
//! sums (its restart test and the move's length) and the move's kinetic energy (its step) are
//! likewise summed over the ranks by the host ([`Interface::reduce`]) and written back for
//! `weigh_momentum` and `adapt_step` (`Momentum::ranks` in `apgd.wgsl`). That is one host
//! round trip per Jacobi sweep, two per APGD sweep. The ranks agree, in one exchange before
//! the solve, that every narrow phase fit its buffers ([`Interface::all_found`]).

use crate::apgd::RANK_SUMS;
use crate::buffers::SHARED_BODY_BYTES;
use crate::step::{Gather, RankOp};
use crate::GpuPipeline;
use bytemuck::{Pod, Zeroable};
use grains_kernels::forces::Actuation;
use grains_kernels::interface::Interface;
use grains_kernels::layout::{Bodies, FrictionTable, Motion, Wall};
use grains_kernels::support::{device_refusal, Feature};
use grains_kernels::{GpuError, SolverKind, StepParams, StepStats};
use std::time::Instant;

/// A shared body's record (`SharedBody` in `shared_bodies.wgsl`): its velocity before the
/// gather, this rank's impulse on it and the impulse summed over the ranks.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct SharedBody {
    motion: Motion,
    local: [[f32; 4]; 2],
    total: [[f32; 4]; 2],
}

const _: () = assert!(std::mem::size_of::<SharedBody>() as u64 == SHARED_BODY_BYTES);

/// Why a rank's distributed step stopped.
#[derive(Debug)]
pub enum RankStepError {
    /// Some rank's narrow phase did not fit its buffers: every rank stops before the solve.
    /// Holds this rank's own overflow, where it was one of them.
    NotFound(Option<GpuError>),
    /// This rank's device failed (the other ranks are not told).
    Device(GpuError),
}

impl From<GpuError> for RankStepError {
    fn from(e: GpuError) -> Self {
        RankStepError::Device(e)
    }
}

/// Where the slot of each local body's among the shared ones is (none: no other rank holds
/// it).
const UNSHARED: u32 = u32::MAX;

impl GpuPipeline {
    /// [`GpuPipeline::step`] for one rank of a distributed run with projected Jacobi or APGD:
    /// `bodies` are the rank's local bodies, its own (the first `owned`) then its ghosts, with
    /// their ids `ids` in the whole bed; the solve is coupled to the other ranks through
    /// `interface` (see the module). Always reads the bodies back. The statistics are this
    /// rank's, but for the residual (the largest over the ranks). The warm start given by
    /// [`GpuPipeline::restore_warm_start`] before must hold only the contacts this rank solves.
    #[allow(clippy::too_many_arguments)]
    pub fn step_distributed(
        &mut self,
        bodies: &mut Bodies,
        (ids, owned): (&[u64], usize),
        walls: &[Wall],
        drives: &[Actuation],
        friction: &FrictionTable,
        p: &StepParams,
        interface: &mut dyn Interface,
    ) -> Result<StepStats, RankStepError> {
        let clock = Instant::now();
        let apgd = match p.solver {
            SolverKind::Jacobi => false,
            SolverKind::Apgd => true,
            SolverKind::GaussSeidel => {
                return Err(device_refusal(Feature::Distributed, Feature::GaussSeidel)
                    .expect_err("the support table refuses Gauss–Seidel in a distributed run")
                    .into())
            }
        };
        // The local bodies are new every step.
        self.upload = true;
        self.ready_buffers(bodies, walls, drives, friction, p, true)?;
        let shared = SharedLayout::of(bodies.len(), owned, interface);
        let ids32: Vec<u32> = ids.iter().map(|&id| id as u32).collect();
        {
            let b = self.buffers.as_ref().expect("buffers exist");
            let q = &self.gpu.queue;
            q.write_buffer(&b.body_ids, 0, bytemuck::cast_slice(&ids32));
            q.write_buffer(&b.body_slot, 0, bytemuck::cast_slice(&shared.slots));
            if !shared.list.is_empty() {
                q.write_buffer(&b.shared_list, 0, bytemuck::cast_slice(&shared.list));
            }
        }
        let cur = 1 - self.parity;
        let rank = (owned as u32, shared.list.len() as u32);
        self.write_step_inputs(walls, drives, friction, p, Some(rank));
        let device = &self.gpu.device;
        let mut encoder = device.create_command_encoder(&Default::default());
        let inputs = drives.len() + self.loads.len();
        self.encode_contacts(&mut encoder, cur, inputs, None, Gather::Shared);
        self.gpu.queue.submit([encoder.finish()]);
        self.refresh_inertia = false;
        let found = {
            let b = self.buffers.as_ref().expect("buffers exist");
            let stats = self.gpu.read(&[(&b.stats, 32)])?;
            self.check_capacity(&bytemuck::pod_collect_to_vec(&stats[0]))
        };
        if !interface.all_found(found.is_ok()) {
            return Err(RankStepError::NotFound(found.err()));
        }
        self.exchange_impulses(&shared, interface, None)?;
        let (sweeps, corrections) = (p.max_iterations, p.coulomb_correction);
        let mut ops = vec![RankOp::KickShared];
        for solve in 0..=corrections {
            if solve > 0 {
                ops.push(RankOp::CorrectNormalBias);
            }
            if sweeps == 0 {
                continue;
            }
            if apgd {
                ops.push(RankOp::StartSolve);
                for _ in 1..sweeps {
                    ops.push(RankOp::MomentumSweep);
                    self.record(apgd, &mut ops);
                    self.sum_sweep_over_ranks(interface)?;
                    ops.push(RankOp::SharedMove);
                    self.record(apgd, &mut ops);
                    self.exchange_impulses(&shared, interface, Some(p.planar))?;
                    ops.extend([RankOp::KickShared, RankOp::AdaptStep]);
                }
            }
            // Jacobi's every sweep, APGD's last of the solve: no momentum records.
            let plain = if apgd { 1 } else { sweeps };
            for k in 1..=plain {
                let reports = solve == corrections && k == plain;
                ops.extend([RankOp::Sweep { reports }, RankOp::SharedGather]);
                self.record(apgd, &mut ops);
                self.exchange_impulses(&shared, interface, None)?;
                ops.push(RankOp::KickShared);
            }
        }
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        self.encode_rank_solve(&mut encoder, false, &ops);
        self.encode_finish(&mut encoder, cur, sweeps, None);
        self.gpu.queue.submit([encoder.finish()]);
        self.last.iterations = sweeps * (1 + corrections);
        self.steps += 1;
        self.parity = cur;
        self.warm_valid = true;
        let mut stats = self.read_back(bodies)?;
        (stats.residual, _) = interface.reduce(stats.residual, [0.0; 2]);
        self.elapsed += clock.elapsed().as_secs_f64();
        Ok(stats)
    }

    /// Records and submits the solve's operations `ops` (APGD's where `apgd`), emptying them.
    fn record(&self, apgd: bool, ops: &mut Vec<RankOp>) {
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        self.encode_rank_solve(&mut encoder, apgd, ops);
        self.gpu.queue.submit([encoder.finish()]);
        ops.clear();
    }

    /// APGD: reads this rank's sums of the last sweep (⟨d1, d2⟩_W, ‖d1‖²_W, ‖d2‖²_W), sums
    /// them over the ranks in rank order and writes them back for `weigh_momentum`.
    fn sum_sweep_over_ranks(&self, interface: &mut dyn Interface) -> Result<(), GpuError> {
        let momentum = &self.apgd.as_ref().expect("an APGD step").momentum;
        let head = self.gpu.read(&[(momentum, RANK_SUMS + 16)])?;
        let [x, y, z, w]: [f32; 4] = bytemuck::pod_read_unaligned(&head[0][RANK_SUMS as usize..]);
        let (_, [x, y]) = interface.reduce(0.0, [x as f64, y as f64]);
        let (_, [z, _]) = interface.reduce(0.0, [z as f64, 0.0]);
        let sums = [x as f32, y as f32, z as f32, w];
        self.gpu
            .queue
            .write_buffer(momentum, RANK_SUMS, bytemuck::cast_slice(&sums));
        Ok(())
    }

    /// Reads back the shared bodies' records of the last gather, sums this rank's impulses on
    /// them over the ranks through `interface` and writes the sums back for `kick_shared`.
    /// After APGD's gather of a move (`planar`: the run's planar mode), also sums the move's
    /// kinetic energy over the ranks (this rank's: the device's share of its unshared bodies
    /// plus its own shared bodies' under the summed impulses) and writes it back for
    /// `adapt_step`.
    fn exchange_impulses(
        &self,
        shared: &SharedLayout,
        interface: &mut dyn Interface,
        planar: Option<bool>,
    ) -> Result<(), GpuError> {
        let b = self.buffers.as_ref().expect("buffers exist");
        let records = shared.list.len() as u64 * SHARED_BODY_BYTES;
        let mut parts = vec![(&b.shared_bodies, records)];
        let momentum = planar.map(|_| &self.apgd.as_ref().expect("an APGD step").momentum);
        parts.extend(momentum.map(|m| (m, RANK_SUMS + 16)));
        let bytes = self.gpu.read(&parts)?;
        let mut records: Vec<SharedBody> = bytemuck::pod_collect_to_vec(&bytes[0]);
        let slots = &shared.slots;
        interface.sum_shared(&|body| {
            let r = &records[slots[body as usize] as usize];
            let [p, l] = r.local;
            [p[0], p[1], p[2], l[0], l[1], l[2]]
        });
        for (s, r) in records.iter_mut().enumerate() {
            let t = interface.total(s);
            r.total = [[t[0], t[1], t[2], 0.0], [t[3], t[4], t[5], 0.0]];
        }
        let q = &self.gpu.queue;
        if !records.is_empty() {
            q.write_buffer(&b.shared_bodies, 0, bytemuck::cast_slice(&records));
        }
        if let (Some(planar), Some(momentum)) = (planar, momentum) {
            let mut sums: [f32; 4] = bytemuck::pod_read_unaligned(&bytes[1][RANK_SUMS as usize..]);
            let own = records
                .iter()
                .zip(&shared.list)
                .filter(|(_, &i)| (i as usize) < shared.owned)
                .map(|(r, _)| r.move_energy(planar))
                .sum::<f64>();
            let (_, [energy, _]) = interface.reduce(0.0, [sums[3] as f64 + own, 0.0]);
            sums[3] = energy as f32;
            q.write_buffer(momentum, RANK_SUMS, bytemuck::cast_slice(&sums));
        }
        Ok(())
    }
}

/// Which local bodies other ranks also hold: each body's slot (or [`UNSHARED`]), the body of
/// each slot, and how many of the local bodies are this rank's own.
struct SharedLayout {
    slots: Vec<u32>,
    list: Vec<u32>,
    owned: usize,
}

impl SharedLayout {
    /// The layout of `n` local bodies, the first `owned` this rank's, as `interface` shares
    /// them.
    fn of(n: usize, owned: usize, interface: &dyn Interface) -> Self {
        let mut slots = vec![UNSHARED; n];
        let mut list = Vec::new();
        for b in 0..n as u32 {
            if let Some(s) = interface.shared_slot(b) {
                slots[b as usize] = s as u32;
                list.push((s, b));
            }
        }
        list.sort_unstable();
        SharedLayout {
            slots,
            list: list.into_iter().map(|(_, b)| b).collect(),
            owned,
        }
    }
}

impl SharedBody {
    /// The kinetic energy of the velocity change the summed impulse (P, L) gives this body,
    /// Δvᵀ M Δv = P·Δv + L·Δω with Δv = P/m, Δω = L/I after the planar mask (`kick`; a
    /// distributed world has spheres only).
    fn move_energy(&self, planar: bool) -> f64 {
        let [p, l] = self.total;
        let (m, i) = (self.motion.inv_mass as f64, self.motion.inv_inertia as f64);
        let sq = |v: f32| (v as f64) * (v as f64);
        let linear = match planar {
            true => sq(p[0]) + sq(p[2]),
            false => sq(p[0]) + sq(p[1]) + sq(p[2]),
        };
        let angular = match planar {
            true => sq(l[1]),
            false => sq(l[0]) + sq(l[1]) + sq(l[2]),
        };
        linear * m + angular * i
    }
}
