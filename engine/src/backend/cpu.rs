//! The CPU backend: the kernels' pipeline on worker threads; the host's bodies are the state.

use super::{Parts, StepBackend, StepInputs, WarmStart};
use crate::error::BuildError;
use crate::health::{Fault, StepError};
use grains_kernels::fluid::FlowField;
use grains_kernels::forces::Load;
use grains_kernels::narrow_phase::{Contacts, TooManyContacts};
use grains_kernels::traffic::{cpu_sweep_traffic, SweepTraffic};
use grains_kernels::{
    Bodies, CpuPipeline, GpuError, SolverKind, StageTimes, StepStats, SweepRecord,
};

/// The CPU pipeline of `grains-kernels`.
pub(super) struct CpuBackend(CpuPipeline);

impl CpuBackend {
    /// Starts `threads` worker threads and hands the pipeline the joints, springs, shapes and
    /// principal moments.
    pub(super) fn open(threads: usize, parts: Parts) -> Result<Self, BuildError> {
        let mut cpu = CpuPipeline::new(threads).map_err(|e| BuildError::Threads {
            threads,
            reason: e.to_string(),
        })?;
        cpu.set_links(parts.joints, parts.springs);
        if let Some(shapes) = parts.shapes {
            cpu.set_shapes(shapes);
        }
        cpu.set_hulls(parts.hulls);
        cpu.set_inertia(parts.inertia);
        cpu.set_clumps(parts.clumps);
        cpu.set_fluid(parts.fluid);
        Ok(CpuBackend(cpu))
    }
}

impl StepBackend for CpuBackend {
    fn set_loads(&mut self, loads: &[Load]) {
        self.0.set_loads(loads);
    }

    fn set_body_shapes(
        &mut self,
        shapes: Vec<grains_kernels::Shape>,
        inertia: grains_kernels::inertia::PrincipalInertia,
    ) {
        self.0.set_shapes(shapes);
        self.0.set_inertia(inertia);
    }

    fn step(
        &mut self,
        bodies: &mut Bodies,
        inputs: &StepInputs,
        steps: u64,
        _read_back: bool,
    ) -> Result<StepStats, StepError> {
        let p = inputs.params;
        self.0
            .step(
                bodies,
                inputs.walls,
                inputs.mesh,
                inputs.drives,
                inputs.friction,
                p,
            )
            .map_err(|TooManyContacts| StepError::Health {
                step: steps,
                fault: Fault::too_many_contacts(bodies, p.h),
            })
    }

    fn joint_impulses(&self) -> &[f32] {
        self.0.joint_impulses()
    }

    fn cohesive_push(&self) -> f64 {
        self.0.cohesive_push()
    }

    fn set_joints(&mut self, joints: Vec<grains_kernels::joints::Joint>, impulses: &[f32]) {
        self.0.set_joints(joints, impulses);
    }

    fn set_flow_field(&mut self, field: Option<FlowField>) -> bool {
        self.0.set_flow_field(field)
    }

    fn stage_times(&self) -> Option<StageTimes> {
        Some(self.0.times())
    }

    fn step_seconds(&self) -> f64 {
        self.0.times().total()
    }

    fn sweep_trace(&self) -> &[SweepRecord] {
        self.0.sweep_trace()
    }

    fn sweep_traffic(&self, solver: SolverKind) -> SweepTraffic {
        cpu_sweep_traffic(solver, self.0.solved_compact_rows())
    }

    fn contacts(&self) -> &Contacts {
        self.0.contacts()
    }

    fn impulses(&self) -> &[[f32; 4]] {
        self.0.impulses()
    }

    fn moment_impulses(&self) -> &[[f32; 4]] {
        self.0.moment_impulses()
    }

    fn bodies_edited(&mut self) {
        self.0.reset_warm_start();
    }

    fn warm_start_state(&mut self) -> Result<WarmStart, GpuError> {
        let (keys, impulses) = self.0.warm_start_state();
        let moments = self.0.warm_start_moments();
        Ok((keys.to_vec(), impulses.to_vec(), moments.to_vec()))
    }

    fn restore(
        &mut self,
        _steps: u64,
        (keys, impulses, moments): (&[u64], &[[f32; 4]], &[[f32; 4]]),
        joint_impulses: &[f32],
    ) {
        self.0.restore_warm_start(keys, impulses);
        self.0.restore_warm_start_moments(moments);
        self.0.restore_joint_impulses(joint_impulses);
    }
}
