//! Recording one step: the WGSL stages in order, one compute pass per stage (timed
//! when the adapter has timestamps), no read-back; the Coulomb correction's passes run inside the
//! solve's pass. With spinning or rolling friction the contact stages are the variants that carry
//! the moment rows, with the moments bound as group 1.

use crate::buffers::{groups, ScanPlan};
use crate::profiler::{TimedPass, TIMED_PASSES};
use crate::programs::{ApgdPrograms, ContactPrograms, Programs};
use crate::GpuPipeline;
use grains_kernels::{SolverKind, StepParams};

impl GpuPipeline {
    /// Records and submits one step writing ping-pong set `cur`, one timed pass per stage: a
    /// solve of `p.max_iterations` Jacobi or APGD sweeps (APGD with the buffers of
    /// [`crate::apgd`], made before), then `p.coulomb_correction` Coulomb-correction
    /// passes, each a new normal bias and as many sweeps again from the last γ. `drives` counts
    /// the stage-1 inputs (drives and applied forces).
    pub(super) fn encode_step(&self, cur: usize, drives: usize, p: &StepParams) {
        let queries = self.profiler.as_ref().map(|p| &p.queries);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        self.encode_contacts(&mut encoder, cur, drives, queries, Gather::Plain);
        self.encode_solve(&mut encoder, p, queries);
        self.encode_finish(&mut encoder, cur, p.max_iterations, queries);
        if let Some(prof) = &self.profiler {
            encoder.resolve_query_set(&prof.queries, 0..2 * TIMED_PASSES, &prof.resolved, 0);
        }
        self.gpu.queue.submit([encoder.finish()]);
    }

    /// The contact stages of the solve (sliding rows only, or with the moment rows) and the
    /// moments' group 1 where the contacts have moment rows.
    fn contact_programs(&self) -> (&ContactPrograms, Option<&wgpu::BindGroup>) {
        let b = self.buffers.as_ref().expect("buffers exist");
        match &b.moments {
            Some(m) => (
                self.programs
                    .rolling
                    .as_ref()
                    .expect("loaded with the moment buffers"),
                Some(&m.group),
            ),
            None => (&self.programs.sliding, None),
        }
    }

    /// Records stages 1 to 5 of a step writing ping-pong set `cur` (the inertia refresh after an
    /// upload, forces, broad and narrow phases, the contact dispatch, the prepare pass ending
    /// with the warm start's gather, as `gather` says).
    pub(super) fn encode_contacts(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        cur: usize,
        drives: usize,
        queries: Option<&wgpu::QuerySet>,
        gather: Gather,
    ) {
        let b = self.buffers.as_ref().expect("buffers exist");
        let pr = &self.programs;
        let n = self.count;
        let step = &b.step_groups[cur];
        let contacts = &b.dispatch;
        let (solver, moments) = self.contact_programs();
        if self.refresh_inertia {
            let mut pass = Pass::new(encoder, &b.solve_group, None, None, TimedPass::Forces);
            pass.run(&pr.refresh_inertia, groups(n));
        }
        {
            let mut pass = Pass::new(encoder, step, None, queries, TimedPass::Forces);
            pass.run(&pr.clear_statistics, (1, 1));
            pass.run(&pr.apply_forces, groups(n));
            if drives > 0 {
                pass.run(&pr.apply_drives, groups(drives as u64));
            }
        }
        {
            let mut pass = Pass::new(encoder, step, None, queries, TimedPass::Broad);
            if let Some((_, clumps)) = &b.clumps {
                pass.pass.set_bind_group(1, clumps, &[]);
            }
            pass.run(&pr.body_reach, groups(n));
            pass.run(&pr.grid_bounds, groups(n));
            pass.run(&pr.size_grid, (1, 1));
            pass.run(&pr.count_cells, groups(n));
            pass.take_counts(pr, &b.cell_scan, b.sizes.cell_slots() + 1);
            pass.scan(pr, &b.cell_scan);
            pass.run(&pr.scatter_cells, groups(n));
            pass.run(&pr.sort_cells, groups(b.sizes.cell_slots()));
        }
        {
            let mut pass = Pass::new(encoder, step, None, queries, TimedPass::Narrow);
            let [find_pairs, build_rows] = match (&pr.meshes, &self.meshes) {
                (Some(with_meshes), Some(m)) => {
                    pass.pass.set_bind_group(1, &m.group, &[]);
                    [&with_meshes[0], &with_meshes[1]]
                }
                _ => {
                    if let Some((_, clumps)) = &b.clumps {
                        pass.pass.set_bind_group(1, clumps, &[]);
                    }
                    [&pr.find_pairs, &pr.build_rows]
                }
            };
            pass.run(find_pairs, groups(n + 1));
            pass.scan(pr, &b.row_scan[cur]);
            pass.run(build_rows, groups(n));
        }
        {
            let mut pass = Pass::new(encoder, step, None, queries, TimedPass::Dispatch);
            pass.pass.set_bind_group(1, &b.dispatch_group, &[]);
            pass.run(&pr.contact_dispatch, (1, 1));
        }
        {
            let mut pass = Pass::new(encoder, step, moments, queries, TimedPass::Prepare);
            pass.indirect(&solver.warm_start, contacts);
            pass.indirect(&pr.count_body_contacts, contacts);
            pass.take_counts(pr, &b.body_scan, n + 1);
            pass.scan(pr, &b.body_scan);
            pass.indirect(&pr.scatter_body_contacts, contacts);
            pass.run(&pr.sort_body_contacts, groups(n));
            pass.indirect(&pr.contact_impulse, contacts);
            // The solver rows' compaction and the gather bind the solve's group 0.
            pass.step = &b.solve_group;
            pass.indirect(&pr.compact_rows, contacts);
            if let (Some(weigh), true) = (&pr.weigh_anisotropic_moments, moments.is_some()) {
                if b.sizes.anisotropic {
                    pass.indirect(weigh, contacts);
                }
            }
            let share = (gather == Gather::Shared).then_some(&solver.share_impulses);
            pass.gather(share, &solver.body_gather, groups(n));
        }
    }

    /// Records the solve pass of one process: `p.max_iterations` Jacobi or APGD sweeps, then
    /// `p.coulomb_correction` Coulomb-correction passes.
    fn encode_solve(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        p: &StepParams,
        queries: Option<&wgpu::QuerySet>,
    ) {
        let (sweeps, corrections) = (p.max_iterations, p.coulomb_correction);
        let b = self.buffers.as_ref().expect("buffers exist");
        let pr = &self.programs;
        let n = self.count;
        let contacts = &b.dispatch;
        let (solver, moments) = self.contact_programs();
        // The solve binds its own group 0 (the solve's buffers); APGD's its group 2 too.
        let apgd = (p.solver == SolverKind::Apgd).then(|| {
            let buffers = self.apgd.as_ref().expect("made for an APGD step");
            let programs = pr.apgd[moments.is_some() as usize].as_ref();
            (buffers, programs.expect("loaded for an APGD step"))
        });
        let mut pass = Pass::new(encoder, &b.solve_group, moments, queries, TimedPass::Solve);
        pass.apgd = apgd.map(|(buffers, _)| &buffers.group);
        for solve in 0..=corrections {
            let reports = solve == corrections;
            match apgd {
                Some((_, a)) => {
                    if solve > 0 {
                        pass.indirect(&a.correct_normal_bias, contacts);
                    }
                    pass.apgd_solve(a, contacts, groups(n), sweeps, reports);
                }
                None => {
                    if solve > 0 {
                        pass.indirect(&pr.correct_normal_bias, contacts);
                    }
                    pass.jacobi_solve(solver, contacts, groups(n), sweeps, reports);
                }
            }
        }
    }

    /// Records `ops` of a distributed step's solve in one solve pass, with APGD's pipelines and
    /// group where `apgd`, else Jacobi's.
    pub(super) fn encode_rank_solve(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        apgd: bool,
        ops: &[RankOp],
    ) {
        let b = self.buffers.as_ref().expect("buffers exist");
        let pr = &self.programs;
        let contacts = &b.dispatch;
        let (solver, moments) = self.contact_programs();
        let n = groups(self.count);
        let mut pass = Pass::new(encoder, &b.solve_group, moments, None, TimedPass::Solve);
        let a = apgd.then(|| {
            let buffers = self.apgd.as_ref().expect("made for an APGD step");
            pass.apgd = Some(&buffers.group);
            let programs = pr.apgd[moments.is_some() as usize].as_ref();
            programs.expect("loaded for an APGD step")
        });
        // The pipelines both solvers have, from APGD's module or from Jacobi's.
        let (kick, correct, share, gather) = match a {
            Some(a) => (
                &a.kick_shared,
                &a.correct_normal_bias,
                &a.share_impulses,
                &a.body_gather,
            ),
            None => (
                &solver.kick_shared,
                &pr.correct_normal_bias,
                &solver.share_impulses,
                &solver.body_gather,
            ),
        };
        for op in ops {
            match (op, a) {
                (RankOp::KickShared, _) => pass.run(kick, n),
                (RankOp::CorrectNormalBias, _) => pass.indirect(correct, contacts),
                (RankOp::Sweep { reports }, a) => {
                    let sweep = match (a, reports) {
                        (None, true) => &solver.contact_sweep,
                        (None, false) => &solver.contact_sweep_quiet,
                        (Some(a), true) => &a.last_sweep,
                        (Some(a), false) => &a.last_sweep_quiet,
                    };
                    pass.indirect(sweep, contacts);
                }
                (RankOp::SharedGather, _) => pass.gather(Some(share), gather, n),
                (RankOp::StartSolve, Some(a)) => pass.run(&a.start_solve, (1, 1)),
                (RankOp::MomentumSweep, Some(a)) => {
                    pass.indirect(&a.sweep, contacts);
                    pass.run(&a.rank_sweep_sums, (1, 1));
                }
                (RankOp::SharedMove, Some(a)) => {
                    pass.run(&a.weigh_summed, (1, 1));
                    pass.gather(Some(&a.share_extrapolated), &a.gather, n);
                    pass.run(&a.rank_move_energy, (1, 1));
                }
                (RankOp::AdaptStep, Some(a)) => pass.run(&a.adapt_summed, (1, 1)),
                (RankOp::StartSolve | RankOp::MomentumSweep, None)
                | (RankOp::SharedMove | RankOp::AdaptStep, None) => {
                    unreachable!("APGD's operations are recorded with APGD's pipelines")
                }
            }
        }
    }

    /// Records stages 7 and 8 of a step writing ping-pong set `cur`: integrate, then the store
    /// of the impulses and, after `sweeps` > 0, the residual.
    pub(super) fn encode_finish(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        cur: usize,
        sweeps: u32,
        queries: Option<&wgpu::QuerySet>,
    ) {
        let b = self.buffers.as_ref().expect("buffers exist");
        let pr = &self.programs;
        let n = self.count;
        let (solver, moments) = self.contact_programs();
        {
            let mut pass = Pass::new(encoder, &b.solve_group, None, queries, TimedPass::Integrate);
            pass.run(&pr.integrate_positions, groups(n));
        }
        let step = &b.step_groups[cur];
        let mut pass = Pass::new(encoder, step, moments, queries, TimedPass::Observe);
        pass.indirect(&solver.store_impulses, &b.dispatch);
        if sweeps > 0 {
            pass.run(&pr.reduce_residual, (1, 1));
        }
    }
}

/// How a gather of the solve runs: as in one process, or with the record of the bodies other
/// ranks also hold (`shared_bodies.wgsl`) for the host's exchange, in a distributed step.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Gather {
    Plain,
    Shared,
}

/// One operation of a distributed step's solve ([`GpuPipeline::encode_rank_solve`]), between
/// the host's exchanges (`shaders/src/distributed.rs`).
#[derive(Clone, Copy)]
pub(super) enum RankOp {
    /// The shared bodies' kick by the impulses the host summed over the ranks
    /// (`kick_shared`).
    KickShared,
    /// The Coulomb correction's normal bias, before each solve after the first.
    CorrectNormalBias,
    /// A sweep without momentum records: Jacobi's, or APGD's last of a solve; reporting the
    /// residual where `reports`.
    Sweep { reports: bool },
    /// The shared bodies' record and the plain gather.
    SharedGather,
    /// APGD: θ = 1, β = 0 and ω at a solve's start.
    StartSolve,
    /// APGD: a sweep with the momentum's records, and this rank's sums of it for the host.
    MomentumSweep,
    /// APGD: β from the sums over the ranks, the shared bodies' record of the move, the
    /// gather of the move and this rank's share of its energy for the host.
    SharedMove,
    /// APGD: the step's adaptation from the move's energy over the ranks.
    AdaptStep,
}

/// A compute pass with the step's bind group (the solve's group in the solve pass and for the
/// end of the prepare pass), and the moments' group 1 and APGD's group 2 where given, restored
/// before every stage.
struct Pass<'a> {
    pass: wgpu::ComputePass<'a>,
    step: &'a wgpu::BindGroup,
    moments: Option<&'a wgpu::BindGroup>,
    apgd: Option<&'a wgpu::BindGroup>,
}

impl<'a> Pass<'a> {
    fn new(
        encoder: &'a mut wgpu::CommandEncoder,
        step: &'a wgpu::BindGroup,
        moments: Option<&'a wgpu::BindGroup>,
        queries: Option<&'a wgpu::QuerySet>,
        stage: TimedPass,
    ) -> Self {
        let timestamp_writes = queries.map(|query_set| wgpu::ComputePassTimestampWrites {
            query_set,
            beginning_of_pass_write_index: Some(2 * stage as u32),
            end_of_pass_write_index: Some(2 * stage as u32 + 1),
        });
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes,
            })
            .forget_lifetime();
        pass.set_bind_group(0, step, &[]);
        Pass {
            pass,
            step,
            moments,
            apgd: None,
        }
    }

    /// Sets `pipeline` with the step's groups.
    fn bind(&mut self, pipeline: &wgpu::ComputePipeline) {
        self.pass.set_pipeline(pipeline);
        self.pass.set_bind_group(0, self.step, &[]);
        if let Some(moments) = self.moments {
            self.pass.set_bind_group(1, moments, &[]);
        }
        if let Some(apgd) = self.apgd {
            self.pass.set_bind_group(2, apgd, &[]);
        }
    }

    /// One solve of `sweeps` projected Jacobi sweeps (kernels/src/jacobi.rs), each a contact
    /// sweep over the contacts (`contacts`: the indirect dispatch) and a gather over the bodies
    /// (`bodies` workgroups); with `reports`, the last sweep reports the residual.
    fn jacobi_solve(
        &mut self,
        solver: &ContactPrograms,
        contacts: &wgpu::Buffer,
        bodies: (u32, u32),
        sweeps: u32,
        reports: bool,
    ) {
        for k in 1..=sweeps {
            let sweep = if reports && k == sweeps {
                &solver.contact_sweep
            } else {
                &solver.contact_sweep_quiet
            };
            self.indirect(sweep, contacts);
            self.run(&solver.body_gather, bodies);
        }
    }

    /// One APGD solve of `sweeps` sweeps (kernels/src/jacobi.rs with `accelerate`, apgd.wgsl):
    /// the momentum starts (θ = 1, β = 0, ω); every sweep but the last is the sweep from the
    /// extrapolated point with its momentum records, the weight β (and the move's ‖Δy‖²_W), the
    /// gather of the move to the next extrapolated point with its kinetic energy, and the step's
    /// adaptation; the last sweep (β = 0 after it, so the solve ends on the projected iterate) is
    /// the sweep at the current step and the plain gather, reporting the residual with `reports`.
    fn apgd_solve(
        &mut self,
        apgd: &ApgdPrograms,
        contacts: &wgpu::Buffer,
        bodies: (u32, u32),
        sweeps: u32,
        reports: bool,
    ) {
        if sweeps == 0 {
            return;
        }
        self.run(&apgd.start_solve, (1, 1));
        for _ in 1..sweeps {
            self.indirect(&apgd.sweep, contacts);
            self.run(&apgd.weigh_momentum, (1, 1));
            self.run(&apgd.gather, bodies);
            self.run(&apgd.adapt_step, (1, 1));
        }
        let last = if reports {
            &apgd.last_sweep
        } else {
            &apgd.last_sweep_quiet
        };
        self.indirect(last, contacts);
        self.run(&apgd.body_gather, bodies);
    }

    /// A body gather `gather` (`bodies` workgroups), after the shared bodies' record `share`
    /// where given (a distributed step's).
    fn gather(
        &mut self,
        share: Option<&wgpu::ComputePipeline>,
        gather: &wgpu::ComputePipeline,
        bodies: (u32, u32),
    ) {
        if let Some(share) = share {
            self.run(share, bodies);
        }
        self.run(gather, bodies);
    }

    fn run(&mut self, pipeline: &wgpu::ComputePipeline, (x, y): (u32, u32)) {
        self.bind(pipeline);
        self.pass.dispatch_workgroups(x, y, 1);
    }

    fn indirect(&mut self, pipeline: &wgpu::ComputePipeline, args: &wgpu::Buffer) {
        self.bind(pipeline);
        self.pass.dispatch_workgroups_indirect(args, 0);
    }

    /// Empties the counters of `plan` into its `len` elements, ready for the prefix sum.
    fn take_counts(&mut self, programs: &Programs, plan: &ScanPlan, len: u64) {
        let (x, y) = groups(len);
        self.pass.set_pipeline(&programs.take_counts);
        self.pass.set_bind_group(0, &plan.levels[0].0, &[]);
        self.pass.dispatch_workgroups(x, y, 1);
    }

    /// Exclusive prefix sum: scan every level's blocks upwards, add the offsets downwards.
    fn scan(&mut self, programs: &Programs, plan: &ScanPlan) {
        let dims = |blocks: u32| {
            let x = blocks.min(65535);
            (x, blocks.div_ceil(x))
        };
        self.pass.set_pipeline(&programs.scan_blocks);
        for (group, blocks) in &plan.levels {
            let (x, y) = dims(*blocks);
            self.pass.set_bind_group(0, group, &[]);
            self.pass.dispatch_workgroups(x, y, 1);
        }
        self.pass.set_pipeline(&programs.add_block_offsets);
        for (group, blocks) in plan.levels.iter().rev().skip(1) {
            let (x, y) = dims(*blocks);
            self.pass.set_bind_group(0, group, &[]);
            self.pass.dispatch_workgroups(x, y, 1);
        }
    }
}
