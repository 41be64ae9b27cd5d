//! The world a user builds, steps and reads.

use crate::body::{Body, BodyKind, Shape};
use crate::error::{finite3, BuildError};
use crate::geometry::{BoxContainer, WallDesc};
use crate::joint::{AppliedForce, JointDesc, SpringDesc};
use crate::material::{Material, MaterialId, Materials};
use crate::motion::Prescribed;
#[cfg(feature = "gpu")]
use crate::settings::SolverKind;
use crate::settings::{Backend, Envelope, Settings};
use glam::{Quat, Vec3, Vec4};
#[cfg(feature = "gpu")]
use grains_gpu::GpuPipeline;
use grains_kernels::forces::{Drive, Load, DRIVE};
use grains_kernels::joints::Joint;
use grains_kernels::narrow_phase::Contacts;
use grains_kernels::{Bodies, CpuPipeline, FrictionTable, GpuError, Motion, StageTimes, Wall};
use grains_kernels::{StepParams, StepStats};

/// Collects materials, bodies, walls, joints, springs and applied forces, then checks them all
/// in [`WorldBuilder::build`].
#[derive(Clone, Debug, Default)]
pub struct WorldBuilder {
    settings: Settings,
    materials: Materials,
    bodies: Vec<Body>,
    walls: Vec<WallDesc>,
    joints: Vec<JointDesc>,
    springs: Vec<SpringDesc>,
    forces: Vec<AppliedForce>,
}

impl WorldBuilder {
    /// An empty world with the given settings.
    pub fn new(settings: Settings) -> Self {
        WorldBuilder {
            settings,
            ..Default::default()
        }
    }

    /// Adds a material and returns its id (the first material is id 0, the default of bodies
    /// and walls).
    pub fn material(&mut self, m: Material) -> MaterialId {
        self.materials.list.push(m);
        MaterialId(self.materials.list.len() as u32 - 1)
    }

    /// Sets the friction coefficient of the pair (a, b), replacing the min rule for it.
    pub fn pair_friction(&mut self, a: MaterialId, b: MaterialId, mu: f32) -> &mut Self {
        self.materials.overrides.push((a, b, mu));
        self
    }

    /// Adds a body and returns its index.
    pub fn body(&mut self, b: Body) -> usize {
        self.bodies.push(b);
        self.bodies.len() - 1
    }

    /// Adds a wall and returns its index.
    pub fn wall(&mut self, w: WallDesc) -> usize {
        self.walls.push(w);
        self.walls.len() - 1
    }

    /// Adds a joint between bodies added before or after it (checked at build) and returns its
    /// index.
    pub fn joint(&mut self, j: JointDesc) -> usize {
        self.joints.push(j);
        self.joints.len() - 1
    }

    /// Adds a spring–damper and returns its index.
    pub fn spring(&mut self, s: SpringDesc) -> usize {
        self.springs.push(s);
        self.springs.len() - 1
    }

    /// Adds an applied force and returns its index.
    pub fn force(&mut self, f: AppliedForce) -> usize {
        self.forces.push(f);
        self.forces.len() - 1
    }

    /// Adds the five walls of an open box.
    pub fn container(&mut self, c: &BoxContainer) -> &mut Self {
        for w in c.walls() {
            self.wall(w);
        }
        self
    }

    /// Number of bodies added so far.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Checks everything and builds the world.
    pub fn build(&self) -> Result<World, BuildError> {
        self.settings.check()?;
        let mut materials = self.materials.clone();
        if materials.list.is_empty() {
            return Err(BuildError::Material {
                material: 0,
                field: "friction",
                problem: "is undefined: the world has no material (add one before building)".into(),
            });
        }
        let friction = materials.table()?;
        if self.settings.backend == Backend::Gpu && friction.any_restitution() {
            return Err(GpuError::Unsupported("restitution (a material with e > 0)").into());
        }
        if self.settings.backend == Backend::Gpu && self.bodies.iter().any(|b| !b.shape.is_sphere())
        {
            return Err(GpuError::Unsupported("non-sphere shapes (capsules, ellipses)").into());
        }
        materials.list.shrink_to_fit();
        let mut bodies = Bodies::default();
        let mut drives = Vec::new();
        for (i, b) in self.bodies.iter().enumerate() {
            check_body(i, b, materials.list.len())?;
            check_shape(i, b, self.settings.planar)?;
            push_body(&mut bodies, b);
            if let Some(m) = b.prescribed {
                drives.push((i as u32, m));
            }
        }
        let walls = self
            .walls
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let w = w.normalised(i)?;
                if w.material.0 as usize >= materials.list.len() {
                    return Err(BuildError::Wall {
                        wall: i,
                        field: "material",
                        problem: format!(
                            "is {} but only {} materials exist",
                            w.material.0,
                            materials.list.len()
                        ),
                    });
                }
                Ok(w)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let joints = self
            .joints
            .iter()
            .enumerate()
            .map(|(i, j)| j.to_kernel(i, &bodies))
            .collect::<Result<Vec<_>, _>>()?;
        let springs = self
            .springs
            .iter()
            .enumerate()
            .map(|(i, s)| s.to_kernel(i, &bodies))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, f) in self.forces.iter().enumerate() {
            f.check(i, &bodies)?;
        }
        let pipeline = match self.settings.backend {
            Backend::Cpu => {
                let mut cpu =
                    CpuPipeline::new(self.settings.threads).map_err(|e| BuildError::Threads {
                        threads: self.settings.threads,
                        reason: e.to_string(),
                    })?;
                cpu.set_links(joints.clone(), springs);
                if self.bodies.iter().any(|b| !b.shape.is_sphere()) {
                    cpu.set_shapes(self.bodies.iter().map(|b| b.shape).collect());
                }
                Pipeline::Cpu(Box::new(cpu))
            }
            Backend::Gpu if !joints.is_empty() => {
                return Err(GpuError::Unsupported("joints").into())
            }
            Backend::Gpu if !springs.is_empty() => {
                return Err(GpuError::Unsupported("springs and dampers").into())
            }
            #[cfg(feature = "gpu")]
            Backend::Gpu => {
                let mut device = GpuPipeline::new()?;
                if friction.any_moment_friction() {
                    device.prepare_moment_rows()?;
                }
                Pipeline::Gpu(Box::new(GpuState {
                    device,
                    contacts: Contacts::default(),
                    impulses: Vec::new(),
                    moment_impulses: Vec::new(),
                    synced_at: 0,
                    contacts_at: 0,
                }))
            }
            #[cfg(not(feature = "gpu"))]
            Backend::Gpu => {
                return Err(BuildError::Gpu(
                    "this build of grains has no GPU backend (built without the `gpu` feature)"
                        .into(),
                ))
            }
        };
        let r_min = bodies
            .pos_radius
            .iter()
            .map(|p| p.w)
            .fold(f32::INFINITY, f32::min);
        let envelope = self.settings.envelope.unwrap_or(Envelope::PerPair {
            floor: if r_min.is_finite() { 0.05 * r_min } else { 0.0 },
            speed_factor: 1.5,
        });
        Ok(World {
            settings: self.settings,
            envelope,
            bodies,
            wall_descs: walls,
            walls: Vec::new(),
            drives,
            drive_buf: Vec::new(),
            joints,
            forces: self.forces.clone(),
            load_buf: Vec::new(),
            friction,
            pipeline,
            steps: 0,
            last: StepStats::default(),
        })
    }
}

fn check_body(i: usize, b: &Body, materials: usize) -> Result<(), BuildError> {
    let err = |field, problem: String| {
        Err(BuildError::Body {
            body: i,
            field,
            problem,
        })
    };
    if !finite3(b.position.to_array()) {
        return err("position", format!("must be finite, got {}", b.position));
    }
    if !(b.radius.is_finite() && b.radius > 0.0) {
        return err(
            "radius",
            format!("must be positive and finite, got {}", b.radius),
        );
    }
    if !(b.mass.is_finite() && b.mass > 0.0) {
        return err(
            "mass",
            format!("must be positive and finite, got {}", b.mass),
        );
    }
    if !(b.inertia.is_finite() && b.inertia > 0.0) {
        return err(
            "inertia",
            format!("must be positive and finite, got {}", b.inertia),
        );
    }
    let q = b.orientation;
    if !(q.is_finite() && (q.length() - 1.0).abs() <= 1e-4) {
        return err(
            "orientation",
            format!("must be a unit quaternion, got {q} (length {})", q.length()),
        );
    }
    if !finite3(b.velocity.to_array()) {
        return err("velocity", format!("must be finite, got {}", b.velocity));
    }
    if !finite3(b.angular_velocity.to_array()) {
        return err(
            "angular_velocity",
            format!("must be finite, got {}", b.angular_velocity),
        );
    }
    if b.material.0 as usize >= materials {
        return err(
            "material",
            format!("is {} but only {materials} materials exist", b.material.0),
        );
    }
    match (b.kind, &b.prescribed) {
        (BodyKind::Kinematic, None) => err("prescribed", "is required for a kinematic body".into()),
        (BodyKind::Kinematic, Some(m)) => match m.problem() {
            Some(p) => err("prescribed", p),
            None => Ok(()),
        },
        (_, Some(_)) => err("prescribed", "is only allowed for kinematic bodies".into()),
        _ => Ok(()),
    }
}

/// Checks a body's shape: positive finite dimensions, ellipses in planar mode only.
fn check_shape(i: usize, b: &Body, planar: bool) -> Result<(), BuildError> {
    let bad = |problem: String| {
        Err(BuildError::Body {
            body: i,
            field: "shape",
            problem,
        })
    };
    let positive = |x: f32| x.is_finite() && x > 0.0;
    match b.shape {
        Shape::Sphere => Ok(()),
        Shape::Capsule { half_length } if !positive(half_length) => bad(format!(
            "capsule half_length must be positive and finite, got {half_length}"
        )),
        Shape::Ellipse { a, b: bb } if !(positive(a) && positive(bb)) => bad(format!(
            "ellipse semi-axes must be positive and finite, got a = {a}, b = {bb}"
        )),
        Shape::Ellipse { .. } if !planar => {
            bad("ellipse needs planar mode (settings.planar = true)".into())
        }
        _ => Ok(()),
    }
}

fn push_body(bodies: &mut Bodies, b: &Body) {
    let dynamic = b.kind == BodyKind::Dynamic;
    bodies.pos_radius.push(b.position.extend(b.radius));
    bodies.orientation.push(b.orientation);
    bodies.motion.push(Motion {
        linear: if b.kind == BodyKind::Fixed {
            [0.0; 3]
        } else {
            b.velocity.to_array()
        },
        inv_mass: if dynamic { 1.0 / b.mass } else { 0.0 },
        angular: if b.kind == BodyKind::Fixed {
            [0.0; 3]
        } else {
            b.angular_velocity.to_array()
        },
        inv_inertia: if dynamic { 1.0 / b.inertia } else { 0.0 },
    });
    bodies.material.push(b.material.0);
    bodies.kind.push(b.kind as u32);
}

/// Warm-start memory: pair keys (ascending), impulse vectors and moment impulse vectors (one
/// per key, or none).
pub(crate) type WarmStart = (Vec<u64>, Vec<[f32; 4]>, Vec<[f32; 4]>);

/// The backend a world steps on.
enum Pipeline {
    /// CPU threads; the host buffers are the state.
    Cpu(Box<CpuPipeline>),
    /// The device holds the state; the host keeps a copy as of the last read-back.
    #[cfg(feature = "gpu")]
    Gpu(Box<GpuState>),
}

/// The GPU pipeline and the host copies of what it last read back.
#[cfg(feature = "gpu")]
struct GpuState {
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
    settings: Settings,
    envelope: Envelope,
    bodies: Bodies,
    wall_descs: Vec<WallDesc>,
    walls: Vec<Wall>,
    drives: Vec<(u32, Prescribed)>,
    drive_buf: Vec<Drive>,
    /// The joints as the kernels hold them (for [`World::joint_violation`]).
    joints: Vec<Joint>,
    forces: Vec<AppliedForce>,
    load_buf: Vec<Load>,
    friction: FrictionTable,
    pipeline: Pipeline,
    steps: u64,
    last: StepStats,
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
            self.drive_buf.push(Drive {
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
