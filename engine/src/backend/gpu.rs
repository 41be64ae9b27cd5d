//! The GPU backend: `grains-gpu`'s pipeline holds the state on the device; the host keeps
//! copies of what it last read back.

use super::{Parts, StepBackend, StepInputs, WarmStart};
use crate::error::BuildError;
use crate::health::StepError;
use grains_gpu::GpuPipeline;
use grains_kernels::forces::Load;
use grains_kernels::inertia::PrincipalInertia;
use grains_kernels::narrow_phase::Contacts;
use grains_kernels::traffic::SweepTraffic;
use grains_kernels::{
    Bodies, FrictionTable, GpuError, SolverKind, StageTimes, StepStats, SweepRecord,
};

/// The GPU pipeline and the host copies of what it last read back.
pub(super) struct GpuBackend {
    device: GpuPipeline,
    /// Contacts of the step read back last (keys and rows; the private buffers stay empty).
    contacts: Contacts,
    /// Their impulses (γn, γt1, γt2, 0), in key order.
    impulses: Vec<[f32; 4]>,
    /// Their moment impulses (γ_s, γ_r1, γ_r2, 0), in key order (none without spinning and
    /// rolling friction).
    moment_impulses: Vec<[f32; 4]>,
    /// Step whose bodies and statistics the host copy holds.
    synced_at: u64,
    /// Step whose contacts the host copy holds.
    contacts_at: u64,
}

impl GpuBackend {
    /// Opens the first suitable adapter for a world with the anisotropic bodies, shapes and
    /// clump templates of `parts`; compiles the moment rows now when a material pair of
    /// `friction` has spinning or rolling friction.
    pub(super) fn open(friction: &FrictionTable, parts: Parts) -> Result<Self, BuildError> {
        let mut device = GpuPipeline::new()?;
        device.set_principal_inertia(parts.inertia);
        device.set_clumps(parts.clumps, parts.shapes.as_deref().unwrap_or_default())?;
        if friction.any_moment_friction() {
            device.prepare_moment_rows()?;
        }
        Ok(GpuBackend {
            device,
            contacts: Contacts::default(),
            impulses: Vec::new(),
            moment_impulses: Vec::new(),
            synced_at: 0,
            contacts_at: 0,
        })
    }
}

impl StepBackend for GpuBackend {
    fn set_loads(&mut self, loads: &[Load]) {
        self.device.set_loads(loads);
    }

    fn step(
        &mut self,
        bodies: &mut Bodies,
        inputs: &StepInputs,
        steps: u64,
        read_back: bool,
    ) -> Result<StepStats, StepError> {
        self.device.set_meshes(inputs.mesh)?;
        let stats = self.device.step(
            bodies,
            inputs.walls,
            inputs.drives,
            inputs.friction,
            inputs.params,
            read_back,
        )?;
        if read_back {
            self.synced_at = steps;
        }
        Ok(stats)
    }

    fn set_body_shapes(&mut self, shapes: Vec<grains_kernels::Shape>, inertia: PrincipalInertia) {
        self.device.set_body_shapes(&shapes);
        self.device.set_principal_inertia(inertia);
    }

    fn sync(&mut self, bodies: &mut Bodies, steps: u64) -> Result<Option<StepStats>, GpuError> {
        if self.synced_at == steps {
            return Ok(None);
        }
        let stats = self.device.read_back(bodies)?;
        self.synced_at = steps;
        Ok(Some(stats))
    }

    fn sync_contacts(&mut self, steps: u64) -> Result<(), GpuError> {
        if self.contacts_at != steps {
            let (keys, rows, impulses, moment_impulses) = self.device.contacts()?;
            self.contacts.keys = keys;
            self.contacts.rows = rows;
            self.impulses = impulses;
            self.moment_impulses = moment_impulses;
            self.contacts_at = steps;
        }
        Ok(())
    }

    fn synced_at(&self, _steps: u64) -> u64 {
        self.synced_at
    }

    fn adapter_name(&self) -> Option<&str> {
        Some(self.device.adapter_name())
    }

    fn joint_impulses(&self) -> &[f32] {
        &[]
    }

    fn stage_times(&self) -> Option<StageTimes> {
        self.device.stage_times()
    }

    fn step_seconds(&self) -> f64 {
        self.device.elapsed()
    }

    /// The GPU keeps no per-sweep residuals (that would need a read-back every sweep).
    fn sweep_trace(&self) -> &[SweepRecord] {
        &[]
    }

    fn sweep_traffic(&self, solver: SolverKind) -> SweepTraffic {
        grains_gpu::gpu_sweep_traffic(solver, self.device.solves_with_full_rows())
    }

    fn contacts(&self) -> &Contacts {
        &self.contacts
    }

    fn impulses(&self) -> &[[f32; 4]] {
        &self.impulses
    }

    fn moment_impulses(&self) -> &[[f32; 4]] {
        &self.moment_impulses
    }

    fn bodies_edited(&mut self) {
        self.device.invalidate(true);
    }

    fn warm_start_state(&mut self) -> Result<WarmStart, GpuError> {
        self.device.warm_start_state()
    }

    fn restore(
        &mut self,
        steps: u64,
        (keys, impulses, moments): (&[u64], &[[f32; 4]], &[[f32; 4]]),
        _joint_impulses: &[f32],
    ) {
        self.device.invalidate(false);
        self.device.restore_warm_start(keys, impulses, moments);
        self.contacts = Contacts::default();
        self.impulses.clear();
        self.moment_impulses.clear();
        self.synced_at = steps;
        self.contacts_at = steps;
    }
}
