//! The world a user builds, steps and reads.

use crate::body::BodyKind;
use crate::builder::WorldBuilder;
use crate::error::BuildError;
use crate::geometry::WallDesc;
use crate::joint::AppliedForce;
use crate::motion::Prescribed;
#[cfg(feature = "gpu")]
use crate::settings::SolverKind;
use crate::settings::{Backend, Envelope, Settings};
use glam::{Quat, Vec3, Vec4};
#[cfg(feature = "gpu")]
use grains_gpu::GpuPipeline;
use grains_kernels::forces::{Actuation, Load, DRIVE};
use grains_kernels::joints::Joint;
use grains_kernels::narrow_phase::Contacts;
use grains_kernels::{Bodies, CpuPipeline, FrictionTable, GpuError, StageTimes, Wall};
use grains_kernels::{StepParams, StepStats};

/// Warm-start memory: pair keys (ascending), impulse vectors and moment impulse vectors (one
/// per key, or none).
pub(crate) type WarmStart = (Vec<u64>, Vec<[f32; 4]>, Vec<[f32; 4]>);

/// The backend a world steps on.
pub(crate) enum Pipeline {
    /// CPU threads; the host buffers are the state.
    Cpu(Box<CpuPipeline>),
    /// The device holds the state; the host keeps a copy as of the last read-back.
    #[cfg(feature = "gpu")]
    Gpu(Box<GpuState>),
}

/// The GPU pipeline and the host copies of what it last read back.
#[cfg(feature = "gpu")]
pub(crate) struct GpuState {
    pub(crate) device: GpuPipeline,
    /// Contacts of the step read back last (keys and rows; the private buffers stay empty).
    pub(crate) contacts: Contacts,
    /// Their impulses (γn, γt1, γt2, 0), in key order.
    pub(crate) impulses: Vec<[f32; 4]>,
    /// Their moment impulses (γ_s, γ_r1, γ_r2, 0), in key order (none without spinning and
    /// rolling friction).
    pub(crate) moment_impulses: Vec<[f32; 4]>,
    /// Step whose bodies and statistics the host copy holds.
    pub(crate) synced_at: u64,
    /// Step whose contacts the host copy holds.
    pub(crate) contacts_at: u64,
}

#[cfg(feature = "gpu")]
impl GpuState {
    /// Copies the last step's contacts and impulses from the device; the host copy now holds
    /// those of step `steps`.
    fn fetch_contacts(&mut self, steps: u64) -> Result<(), GpuError> {
        let (keys, rows, impulses, moment_impulses) = self.device.contacts()?;
        self.contacts.keys = keys;
        self.contacts.rows = rows;
        self.impulses = impulses;
        self.moment_impulses = moment_impulses;
        self.contacts_at = steps;
        Ok(())
    }
}

/// A world of grains stepped by the CCP scheme, on CPU threads or on a GPU
/// ([`Settings::backend`]).
///
/// On the GPU backend the body state lives on the device. The host copy that the accessors
/// ([`World::bodies`], [`World::position`], [`World::last_stats`], …) read is refreshed every
/// [`Settings::sync_every`] steps, at the end of [`World::run`] and by [`World::sync`]; in
/// between it holds the state of step [`World::synced_at`]. Contacts are copied only by
/// [`World::sync_contacts`]. On the CPU backend the host copy is always current.
pub struct World {
    pub(crate) settings: Settings,
    pub(crate) envelope: Envelope,
    pub(crate) bodies: Bodies,
    pub(crate) wall_descs: Vec<WallDesc>,
    pub(crate) walls: Vec<Wall>,
    pub(crate) drives: Vec<(u32, Prescribed)>,
    pub(crate) drive_buf: Vec<Actuation>,
    /// The joints as the kernels hold them (for [`World::joint_violation`]).
    pub(crate) joints: Vec<Joint>,
    pub(crate) forces: Vec<AppliedForce>,
    pub(crate) load_buf: Vec<Load>,
    pub(crate) friction: FrictionTable,
    pub(crate) pipeline: Pipeline,
    pub(crate) steps: u64,
    pub(crate) last: StepStats,
}

impl World {
    /// Starts describing a world.
    pub fn builder(settings: Settings) -> WorldBuilder {
        WorldBuilder::new(settings)
    }

    /// Advances the world by one step h and returns what the step did.
    ///
    /// On the GPU backend the step is queued on the device; the bodies and statistics are read
    /// back only when the step count reaches a multiple of [`Settings::sync_every`]; otherwise
    /// the statistics returned are those of the last read-back. The CPU backend never fails.
    /// A GPU error (device lost, a buffer overflow found at a read-back) leaves the world's
    /// state unspecified: build it again or [`World::restore`] a snapshot.
    pub fn step(&mut self) -> Result<StepStats, GpuError> {
        let t = self.time();
        let h = self.settings.h;
        self.place_walls(t);
        self.drive_buf.clear();
        for &(body, m) in &self.drives {
            let (linear, angular) = m.step_velocity(t, h);
            self.drive_buf.push(Actuation {
                body,
                linear: linear.to_array(),
                angular: angular.to_array(),
                kind: DRIVE,
            });
        }
        let s = &self.settings;
        let params = StepParams {
            h,
            gravity: s.gravity,
            envelope: self.envelope,
            solver: s.solver,
            max_iterations: s.max_iterations,
            tolerance: s.tolerance,
            omega: s.omega,
            warm_start: s.warm_start,
            planar: s.planar,
            contact_frequency: s.contact_frequency,
            coulomb_correction: s.coulomb_correction,
            stabilise_contacts: s.stabilise_contacts,
        };
        if !self.forces.is_empty() {
            self.load_buf.clear();
            self.load_buf.extend(self.forces.iter().map(|f| f.load(t)));
        }
        match &mut self.pipeline {
            Pipeline::Cpu(cpu) => {
                if !self.forces.is_empty() {
                    cpu.set_loads(&self.load_buf);
                }
                self.last = cpu.step(
                    &mut self.bodies,
                    &self.walls,
                    &self.drive_buf,
                    &self.friction,
                    &params,
                );
                self.steps += 1;
            }
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => {
                if !self.forces.is_empty() {
                    gpu.device.set_loads(&self.load_buf);
                }
                let params = StepParams {
                    solver: SolverKind::Jacobi,
                    ..params
                };
                let read_back = (self.steps + 1).is_multiple_of(s.sync_every as u64);
                self.last = gpu.device.step(
                    &mut self.bodies,
                    &self.walls,
                    &self.drive_buf,
                    &self.friction,
                    &params,
                    read_back,
                )?;
                self.steps += 1;
                if read_back {
                    gpu.synced_at = self.steps;
                }
            }
        }
        Ok(self.last)
    }

    /// Advances the world by `n` steps and (on the GPU) reads the state back at the end; returns
    /// the statistics of the last step.
    pub fn run(&mut self, n: u64) -> Result<StepStats, GpuError> {
        for _ in 0..n {
            self.step()?;
        }
        self.sync()?;
        Ok(self.last)
    }

    /// GPU backend: waits for the device and copies the bodies and the last step's statistics
    /// into the host copy, unless it already holds the current step. Does nothing on the CPU
    /// backend.
    pub fn sync(&mut self) -> Result<(), GpuError> {
        #[cfg(feature = "gpu")]
        if let Pipeline::Gpu(gpu) = &mut self.pipeline {
            if gpu.synced_at != self.steps {
                self.last = gpu.device.read_back(&mut self.bodies)?;
                gpu.synced_at = self.steps;
            }
        }
        Ok(())
    }

    /// [`World::sync`], and on the GPU also copies the last step's contact rows and impulses
    /// (for [`World::contacts`] and [`World::impulses`]; a large transfer, so not done by the
    /// periodic read-backs).
    pub fn sync_contacts(&mut self) -> Result<(), GpuError> {
        self.sync()?;
        #[cfg(feature = "gpu")]
        if let Pipeline::Gpu(gpu) = &mut self.pipeline {
            if gpu.contacts_at != self.steps {
                gpu.fetch_contacts(self.steps)?;
            }
        }
        Ok(())
    }

    /// The step whose state the host copy (bodies, statistics, contacts) holds: [`World::steps`]
    /// on the CPU backend and right after a read-back on the GPU.
    pub fn synced_at(&self) -> u64 {
        match &self.pipeline {
            Pipeline::Cpu(_) => self.steps,
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => gpu.synced_at,
        }
    }

    /// Writes each wall's current face position and its velocity over [t, t + h].
    fn place_walls(&mut self, t: f64) {
        let h = self.settings.h;
        self.walls.clear();
        for d in &self.wall_descs {
            let (offset, velocity) = match d.motion {
                Some(m) => (m.displacement(t), m.step_velocity(t, h).0),
                None => (Vec3::ZERO, Vec3::ZERO),
            };
            let v = d.normal.cross(d.u);
            self.walls.push(Wall {
                origin: (d.origin + offset).extend(0.0).to_array(),
                normal: d.normal.extend(d.material.0 as f32).to_array(),
                u: d.u.extend(d.half_u).to_array(),
                v: v.extend(d.half_v).to_array(),
                velocity: velocity.extend(0.0).to_array(),
            });
        }
    }

    /// Simulated time (s): steps taken × h.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.settings.h as f64
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The settings the world runs with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Replaces the settings from the next step on (the thread count, the backend and ε̂ stay as
    /// built). Every setting is passed to the backend at each step, so nothing cached on the GPU
    /// goes stale.
    pub fn set_settings(&mut self, settings: Settings) -> Result<(), BuildError> {
        settings.check()?;
        self.settings = Settings {
            threads: self.settings.threads,
            envelope: self.settings.envelope,
            backend: self.settings.backend,
            ..settings
        };
        Ok(())
    }

    /// The ε̂ rule in force (the default resolved against the smallest radius).
    pub fn envelope(&self) -> Envelope {
        self.envelope
    }

    /// The backend the world steps on.
    pub fn backend(&self) -> Backend {
        self.settings.backend
    }

    /// Name of the GPU adapter (e.g. "NVIDIA H100" or "llvmpipe"); `None` on the CPU backend.
    pub fn adapter_name(&self) -> Option<&str> {
        match &self.pipeline {
            Pipeline::Cpu(_) => None,
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => Some(gpu.device.adapter_name()),
        }
    }

    /// All body buffers (structure of arrays), as of step [`World::synced_at`].
    pub fn bodies(&self) -> &Bodies {
        &self.bodies
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// True when the world has no body.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// Centre of body `i` (m), as of step [`World::synced_at`].
    pub fn position(&self, i: usize) -> Vec3 {
        self.bodies.pos_radius[i].truncate()
    }

    /// Radius of body `i` (m).
    pub fn radius(&self, i: usize) -> f32 {
        self.bodies.pos_radius[i].w
    }

    /// Orientation of body `i`, as of step [`World::synced_at`].
    pub fn orientation(&self, i: usize) -> Quat {
        self.bodies.orientation[i]
    }

    /// Linear velocity of body `i` (m/s), as of step [`World::synced_at`].
    pub fn velocity(&self, i: usize) -> Vec3 {
        self.bodies.motion[i].v()
    }

    /// Angular velocity of body `i` (rad/s), as of step [`World::synced_at`].
    pub fn angular_velocity(&self, i: usize) -> Vec3 {
        self.bodies.motion[i].w()
    }

    /// Mass of dynamic body `i` (kg); infinite for fixed and kinematic bodies.
    pub fn mass(&self, i: usize) -> f32 {
        1.0 / self.bodies.motion[i].inv_mass
    }

    /// Number of joints.
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// How far joint `j` is from Θ(q) = 0 now: the norm of its positional constraints (m) and
    /// of its angular ones (rad).
    pub fn joint_violation(&self, j: usize) -> (f32, f32) {
        self.joints[j].violation(&self.bodies)
    }

    /// Impulses of the last step's joint rows (N s or N m s): each joint's rows in the order
    /// the joints were added (ball 3, hinge 5, distance 1, fixed 6, prismatic 5, plus 1 for a
    /// motor), then one row per linearly implicit spring. Empty on the GPU backend.
    pub fn joint_impulses(&self) -> &[f32] {
        match &self.pipeline {
            Pipeline::Cpu(cpu) => cpu.joint_impulses(),
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(_) => &[],
        }
    }

    /// The walls as placed for the last step.
    pub fn walls(&self) -> &[Wall] {
        &self.walls
    }

    /// The wall descriptions at rest.
    pub fn wall_descs(&self) -> &[WallDesc] {
        &self.wall_descs
    }

    /// Statistics of the last step (GPU: of step [`World::synced_at`]).
    pub fn last_stats(&self) -> StepStats {
        self.last
    }

    /// Seconds spent per stage of the step since the world was built. On the GPU they are the
    /// device's timestamps of the steps read back, scaled to all steps; `None` where the adapter
    /// has no timestamps or nothing was read back yet.
    pub fn stage_times(&self) -> Option<StageTimes> {
        match &self.pipeline {
            Pipeline::Cpu(cpu) => Some(cpu.times()),
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => gpu.device.stage_times(),
        }
    }

    /// Seconds spent stepping since the world was built: the sum of the stage times on the
    /// CPU; on the GPU the host wall time from submission to completion, as measured at the
    /// read-backs (so it includes the steps up to step [`World::synced_at`]).
    pub fn step_seconds(&self) -> f64 {
        match &self.pipeline {
            Pipeline::Cpu(cpu) => cpu.times().total(),
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => gpu.device.elapsed(),
        }
    }

    /// Contact rows of the last step (GPU: as of the last [`World::sync_contacts`]).
    pub fn contacts(&self) -> &Contacts {
        match &self.pipeline {
            Pipeline::Cpu(cpu) => cpu.contacts(),
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => &gpu.contacts,
        }
    }

    /// Impulses (γn, γt1, γt2) of the last step's contacts (N s), in the contacts' order (GPU:
    /// as of the last [`World::sync_contacts`]).
    pub fn impulses(&self) -> &[[f32; 4]] {
        match &self.pipeline {
            Pipeline::Cpu(cpu) => cpu.impulses(),
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => &gpu.impulses,
        }
    }

    /// Moment impulses (γ_s, γ_r1, γ_r2) of the last step's contacts about their normal and
    /// tangents (N m s), in the contacts' order; empty when no material pair has spinning or
    /// rolling friction (GPU: as of the last [`World::sync_contacts`]).
    pub fn moment_impulses(&self) -> &[[f32; 4]] {
        match &self.pipeline {
            Pipeline::Cpu(cpu) => cpu.moment_impulses(),
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => &gpu.moment_impulses,
        }
    }

    /// Total linear momentum Σ m v of the dynamic bodies (kg m/s), summed in f64, as of step
    /// [`World::synced_at`].
    pub fn momentum(&self) -> [f64; 3] {
        let mut p = [0.0f64; 3];
        for (m, &k) in self.bodies.motion.iter().zip(&self.bodies.kind) {
            if k == BodyKind::Dynamic as u32 {
                for (pk, vk) in p.iter_mut().zip(m.linear) {
                    *pk += vk as f64 / m.inv_mass as f64;
                }
            }
        }
        p
    }

    /// Sets the velocity of body `i` and forgets the warm start. On the GPU the current state
    /// is read back first and the edited bodies are uploaded at the next step.
    pub fn set_velocity(&mut self, i: usize, v: Vec3, w: Vec3) -> Result<(), GpuError> {
        self.sync()?;
        self.bodies.motion[i].linear = v.to_array();
        self.bodies.motion[i].angular = w.to_array();
        match &mut self.pipeline {
            Pipeline::Cpu(cpu) => cpu.reset_warm_start(),
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => gpu.device.invalidate(true),
        }
        Ok(())
    }

    /// The warm-start memory (pair keys ascending, impulse vectors, and moment impulse vectors
    /// one per key or none), read from the device on the GPU.
    pub(crate) fn warm_start_state(&mut self) -> Result<WarmStart, GpuError> {
        match &mut self.pipeline {
            Pipeline::Cpu(cpu) => {
                let (keys, impulses) = cpu.warm_start_state();
                let moments = cpu.warm_start_moments();
                Ok((keys.to_vec(), impulses.to_vec(), moments.to_vec()))
            }
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => gpu.device.warm_start_state(),
        }
    }

    /// Replaces the evolving state: step count, bodies and warm-start memory of the contacts
    /// (forces and moments) and the joints (the GPU uploads them at the next step; it has no
    /// joints).
    pub(crate) fn restore_parts(
        &mut self,
        steps: u64,
        bodies: &Bodies,
        keys: &[u64],
        impulses: &[[f32; 4]],
        moments: &[[f32; 4]],
        joint_impulses: &[f32],
    ) {
        self.steps = steps;
        self.bodies = bodies.clone();
        match &mut self.pipeline {
            Pipeline::Cpu(cpu) => {
                cpu.restore_warm_start(keys, impulses);
                cpu.restore_warm_start_moments(moments);
                cpu.restore_joint_impulses(joint_impulses);
            }
            #[cfg(feature = "gpu")]
            Pipeline::Gpu(gpu) => {
                gpu.device.invalidate(false);
                gpu.device.restore_warm_start(keys, impulses, moments);
                gpu.contacts = Contacts::default();
                gpu.impulses.clear();
                gpu.moment_impulses.clear();
                gpu.synced_at = steps;
                gpu.contacts_at = steps;
            }
        }
    }

    /// Centres of all bodies as (x, y, z, radius), as of step [`World::synced_at`].
    pub fn centres(&self) -> &[Vec4] {
        &self.bodies.pos_radius
    }
}
