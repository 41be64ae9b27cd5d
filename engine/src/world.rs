//! The world a user builds, steps and reads.

use crate::auto_step::StepControl;
use crate::backend::{StepBackend, StepInputs, WarmStart};
use crate::body::{shape_half_extents, BodyKind};
use crate::contact::{self, Contact};
use crate::error::BuildError;
use crate::fingerprint::Fingerprint;
use crate::geometry::WallDesc;
use crate::health::{Fault, Monitor, StepError};
use crate::joint::AppliedForce;
use crate::motion::Prescribed;
use crate::settings::{AutoStep, Backend, Envelope, Settings};
use glam::{Quat, Vec3, Vec4};
use grains_kernels::forces::{Actuation, Load, DRIVE};
use grains_kernels::joints::Joint;
use grains_kernels::narrow_phase::Contacts;
use grains_kernels::shapes::shape_of;
use grains_kernels::traffic::SweepTraffic;
use grains_kernels::wall_contact::{WALL_GROUP, WALL_OFF};
use grains_kernels::{Bodies, FrictionTable, GpuError, Shape, StageTimes, Wall};
use grains_kernels::{StepParams, StepStats, SweepRecord};

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
    /// The settings as the kernels take them, with ε̂ resolved (from `settings`, at build and
    /// by [`World::set_settings`]).
    pub(crate) params: StepParams,
    pub(crate) bodies: Bodies,
    pub(crate) wall_descs: Vec<WallDesc>,
    pub(crate) walls: Vec<Wall>,
    /// The walls with a servo and their state, in wall order (empty: no wall has one).
    pub(crate) servos: Vec<crate::servo::ServoWall>,
    /// The triangle-mesh walls and their triangles placed for the step.
    pub(crate) meshes: crate::mesh::Meshes,
    /// Each wall's plane group (see `plane_groups.rs`).
    pub(crate) wall_groups: Vec<u32>,
    pub(crate) drives: Vec<(u32, Prescribed)>,
    pub(crate) drive_buf: Vec<Actuation>,
    /// The joints as the kernels hold them (for [`World::joint_violation`]).
    pub(crate) joints: Vec<Joint>,
    pub(crate) forces: Vec<AppliedForce>,
    /// The loads of [`World::set_external_loads`] (the bodies they act on only).
    pub(crate) external: Vec<Load>,
    pub(crate) load_buf: Vec<Load>,
    pub(crate) friction: FrictionTable,
    pub(crate) backend: Box<dyn StepBackend>,
    pub(crate) steps: u64,
    pub(crate) last: StepStats,
    /// The health checks' memory between steps.
    pub(crate) monitor: Monitor,
    /// What a restored snapshot must have been taken with (see [`World::fingerprint`]).
    pub(crate) fingerprint: Fingerprint,
    /// Rows of the joints and linearly implicit springs, one impulse each.
    pub(crate) joint_rows: usize,
    /// Insertions, sinks and the bodies' ids (see [`crate::lifecycle`]).
    pub(crate) lifecycle: crate::lifecycle::Lifecycle,
    /// Each body's shape, in body order (empty: every body is a sphere).
    pub(crate) shapes: Vec<Shape>,
    /// The clump templates the shapes name.
    pub(crate) clumps: grains_kernels::shapes::clump::ClumpTable,
    /// The convex hulls the shapes name.
    pub(crate) hulls: Vec<grains_kernels::shapes::polyhedron::Hull>,
    /// What a restored state is checked against ([`World::check_reach`]).
    pub(crate) reach: crate::reach::Reach,
    /// The adaptive step's state (`None` with a fixed step).
    pub(crate) control: Option<StepControl>,
}

impl World {
    /// Advances the world by one step h and returns what the step did.
    ///
    /// On the GPU backend the step is queued on the device; the bodies and statistics are read
    /// back only when the step count reaches a multiple of [`Settings::sync_every`]; otherwise
    /// the statistics returned are those of the last read-back.
    ///
    /// After the step the health checks of [`Settings::health`] run on the fresh state (every
    /// step on the CPU, at the read-backs on the GPU); a failed check set to stop returns
    /// [`StepError::Health`] naming the step and the fault, and the world holds that step's
    /// state for inspection. A GPU error (device lost, a buffer overflow found at a read-back)
    /// leaves the world's state unspecified: build it again or [`World::restore`] a snapshot.
    /// So does a step abandoned because its contacts exceeded the limit
    /// ([`Fault::TooManyContacts`], whatever the health
    /// settings); it is not counted in [`World::steps`].
    ///
    /// Before the step, when due, grains in sinks are removed and insertions place theirs
    /// (see [`crate::lifecycle`]).
    pub fn step(&mut self) -> Result<StepStats, StepError> {
        self.change_bodies()?;
        let t = self.time();
        let step = self.steps + 1;
        let floor = match self.settings.auto_step {
            None => {
                self.last = self.advance(t, step)?;
                None
            }
            Some(auto) => self.advance_auto(&auto, t, step)?,
        };
        self.steps += 1;
        if let Some(fault) = floor {
            let check = self.settings.health.step_floor;
            self.monitor.judge(check, self.steps, Some(fault))?;
        }
        // A distributed world sums every step's statistics but checks its bodies only every
        // `sync_every` steps: when the kinetic energy is not finite, it checks them now, so
        // that the checks below name the body (the same on every rank: the sum is).
        let unread =
            self.stats_at() == self.steps && self.backend.read_at(self.steps) != self.steps;
        if unread && !self.last.kinetic_energy.is_finite() {
            self.read()?;
        }
        self.monitor.pending = true;
        if self.backend.read_at(self.steps) == self.steps {
            self.check_health()?;
        }
        Ok(self.last)
    }

    /// One step of `self.params.h` from time `t`, the `step`th: the walls, meshes, kinematic
    /// drives and applied loads placed for it, then the backend's step.
    fn advance(&mut self, t: f64, step: u64) -> Result<StepStats, StepError> {
        let h = self.params.h;
        if self.settings.periodic.shear_rate != 0.0 {
            self.params.periodic.shear_offset = self.settings.periodic.offset_at(t);
        }
        self.place_walls(t);
        self.meshes.place(t, h, false);
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
        if !(self.forces.is_empty() && self.external.is_empty()) {
            self.load_buf.clear();
            self.load_buf.extend(self.forces.iter().map(|f| f.load(t)));
            self.load_buf.extend_from_slice(&self.external);
            self.backend.set_loads(&self.load_buf);
        }
        let inputs = StepInputs {
            walls: &self.walls,
            mesh: &self.meshes.placed,
            drives: &self.drive_buf,
            friction: &self.friction,
            params: &self.params,
        };
        let read_back = step.is_multiple_of(self.settings.sync_every as u64);
        let stats = self
            .backend
            .step(&mut self.bodies, &inputs, step, read_back)?;
        if !self.servos.is_empty() {
            self.move_servos(t);
        }
        self.break_bonds(h);
        Ok(stats)
    }

    /// After a step from time `t`: each servo wall moved by its step's velocity, then the
    /// load its contacts put on it measured for the next step's (see [`crate::servo`]). The
    /// loads are summed in `f64` in contact order, as [`World::wall_loads`] sums them, from the
    /// contacts the backend holds after every step: the CPU's (the GPU backend and distributed
    /// runs, which copy them out only on demand, are refused servo walls at build).
    fn move_servos(&mut self, t: f64) {
        let h = self.params.h;
        for s in &mut self.servos {
            if self.wall_descs[s.wall].active.contains(t) {
                s.state.advance -= s.servo.retreat_speed(s.state.load) * h as f64;
            }
        }
        let mut forces = vec![glam::DVec3::ZERO; self.servos.len()];
        let contacts = self.backend.contacts();
        let impulses = self.backend.impulses();
        let h = f64::from(h);
        for ((row, &key), gamma) in contacts.rows.iter().zip(&contacts.keys).zip(impulses) {
            if row.body_b != grains_kernels::NO_BODY {
                continue;
            }
            let wall = grains_kernels::key_wall(key);
            if let Ok(k) = self.servos.binary_search_by_key(&wall, |s| s.wall) {
                let impulse = gamma[0] * row.normal()
                    + gamma[1] * Vec3::from_array(row.t1)
                    + gamma[2] * Vec3::from_array(row.t2);
                forces[k] += -impulse.as_dvec3() / h;
            }
        }
        for (s, f) in self.servos.iter_mut().zip(forces) {
            s.state.load = -f.dot(self.wall_descs[s.wall].normal.as_dvec3());
        }
    }

    /// The state of wall `wall`'s servo: how far it has moved and the load it measured in
    /// the last step ([`crate::servo`]); `None` for a wall without a servo.
    pub fn servo_state(&self, wall: usize) -> Option<crate::servo::ServoState> {
        (self.servos.iter())
            .find(|s| s.wall == wall)
            .map(|s| s.state)
    }

    /// The displacement of wall `wall` at time `t` from where it was built, and its velocity
    /// over the step from `t`: its prescribed motion's, or its servo's (the state's advance
    /// along the normal, at the speed the last measured load sets, none outside the wall's
    /// window).
    pub(crate) fn wall_motion(&self, wall: usize, t: f64) -> (Vec3, Vec3) {
        let d = &self.wall_descs[wall];
        match (d.motion, d.servo) {
            (Some(m), _) => (m.displacement(t), m.step_velocity(t, self.params.h).0),
            (None, Some(_)) => {
                let Some(s) = self.servos.iter().find(|s| s.wall == wall) else {
                    return (Vec3::ZERO, Vec3::ZERO);
                };
                let speed = match d.active.contains(t) {
                    true => -s.servo.retreat_speed(s.state.load),
                    false => 0.0,
                };
                (d.normal * s.state.advance as f32, d.normal * speed as f32)
            }
            (None, None) => (Vec3::ZERO, Vec3::ZERO),
        }
    }

    /// The tick from time `t` (the `step`th) in steps the adaptive step `auto` chooses (see
    /// [`crate::auto_step`]): `self.last` gets the tick's statistics (the sweeps summed, the
    /// deepest overlap of its steps, the rest of the last step). Returns the step-floor fault
    /// when the controller wanted a step below h_min.
    fn advance_auto(
        &mut self,
        auto: &AutoStep,
        t: f64,
        step: u64,
    ) -> Result<Option<Fault>, StepError> {
        let tick = self.settings.h;
        let mut c = self.control.unwrap_or_else(|| StepControl::new(tick));
        let (r_min, tolerance) = (self.monitor.r_min, self.settings.solver.tolerance());
        let rigid = self.settings.contact_frequency.is_infinite();
        let (mut elapsed, mut sweeps, mut deepest) = (0.0f64, 0u32, 0.0f32);
        // The shortest h wanted below h_min, the steps floored, the speed and overlap at the last.
        let mut floored: Option<(f32, u32, f32, f32)> = None;
        c.tick_shortest = tick;
        loop {
            let choice = c.choose(auto, &self.bodies, r_min, tick as f64 - elapsed);
            self.params.h = choice.h;
            self.params.warm_start = self.settings.warm_start * (choice.h / c.last);
            let stats = self.advance(t + elapsed, step)?;
            c.record(auto, &choice, (&stats, r_min, tolerance, rigid), tick);
            c.tick_shortest = c.tick_shortest.min(choice.h);
            if choice.floored(auto) {
                let (wanted, steps, _, _) = floored.unwrap_or((f32::INFINITY, 0, 0.0, 0.0));
                let ratio = stats.max_penetration / r_min;
                floored = Some((wanted.min(choice.wanted), steps + 1, choice.speed, ratio));
            }
            elapsed += choice.h as f64;
            sweeps = sweeps.saturating_add(stats.iterations);
            deepest = deepest.max(stats.max_penetration);
            self.last = StepStats {
                iterations: sweeps,
                max_penetration: deepest,
                ..stats
            };
            if choice.lands {
                break;
            }
        }
        self.control = Some(c);
        Ok(
            floored.map(|(wanted, steps, speed, ratio)| Fault::StepFloor {
                wanted,
                h_min: auto.h_min,
                steps,
                speed,
                ratio,
                budget: auto.penetration,
            }),
        )
    }

    /// The adaptive step's state (see [`crate::auto_step`]): the h it wants next, the last
    /// step's, and the shortest, longest and mean step taken so far; `None` where every step
    /// is [`Settings::h`].
    pub fn step_control(&self) -> Option<StepControl> {
        self.control
    }

    /// Runs the health checks on the state of the last step: the host copy's, or in a
    /// distributed world each rank's own bodies', the ranks' findings combined (the same verdict
    /// on every rank).
    fn check_health(&mut self) -> Result<(), StepError> {
        self.monitor.pending = false;
        if self.monitor.checked_at == Some(self.steps) {
            return Ok(());
        }
        let health = &self.settings.health;
        let domain = self.monitor.escape_domain(health);
        let scanned = self.backend.scan(&self.bodies, (domain, health.escape));
        self.monitor.cohesive_push = self.backend.cohesive_push();
        self.monitor.check(
            health,
            self.steps,
            scanned,
            (&self.bodies, &self.walls, &self.joints, &self.last),
            self.settings.gravity,
            (
                self.settings.h,
                self.control.map_or(self.params.h, |c| c.tick_shortest),
            ),
        )
    }

    /// [`World::sync`], then the health checks of [`Settings::health`] on the state read back
    /// when no check has seen it yet (on the GPU, a read-back between the `sync_every` ones;
    /// on the CPU the host copy was checked by its step): what to call before writing or
    /// reading the state for an output, so that a state that fails a check is never handed
    /// out. A failed check set to stop returns [`StepError::Health`] as [`World::step`] would
    /// have.
    pub fn sync_checked(&mut self) -> Result<(), StepError> {
        self.sync()?;
        self.check_read()
    }

    /// The health checks of [`World::sync_checked`] without gathering the bodies of a
    /// distributed world: each rank checks its own bodies, and the ranks agree on the verdict
    /// (the same error on every rank, naming the body), while the host copy keeps the state of
    /// its last gather ([`World::synced_at`]). What to call before writing each rank's own part
    /// of an output ([`World::own_bodies`]); elsewhere it is [`World::sync_checked`]. In a
    /// distributed world, a call every rank makes together.
    pub fn read_checked(&mut self) -> Result<(), StepError> {
        self.read()?;
        self.check_read()
    }

    /// Brings what the health checks read to the current step (see [`World::read_checked`]).
    fn read(&mut self) -> Result<(), GpuError> {
        if let Some(stats) = self.backend.read(&mut self.bodies, self.steps)? {
            self.last = stats;
        }
        Ok(())
    }

    /// The health checks on the state read, when no check has seen it yet.
    fn check_read(&mut self) -> Result<(), StepError> {
        let read = self.backend.read_at(self.steps) == self.steps;
        if self.monitor.pending && read && self.stats_at() == self.steps {
            self.check_health()?;
        }
        Ok(())
    }

    /// The box the health check of escaped grains holds the dynamic bodies' centres to, with
    /// infinite bounds along its open axes; `None` for a world without one (see
    /// [`crate::domain`]).
    pub fn domain(&self) -> Option<crate::Domain> {
        self.monitor.domain
    }

    /// Where body `body` is with respect to the domain under the escape check of
    /// [`Settings::health`] ([`crate::domain::whereabouts`]): inside, escaped (the health
    /// check's fault) or discharged (left an open domain). A body that is not dynamic is
    /// always inside.
    pub fn whereabouts(&self, body: usize) -> crate::domain::Whereabouts {
        let p = self.bodies.pos_radius[body];
        match self.bodies.is_dynamic(body) {
            true => crate::domain::whereabouts(
                self.monitor.domain.as_ref(),
                self.settings.health.escape,
                p.truncate(),
                p.w,
            ),
            false => crate::domain::Whereabouts::Inside,
        }
    }

    /// The faults of health checks set to [`Check::Warn`](crate::health::Check::Warn) since the
    /// last call, each with its step, oldest first (at most 64; later ones are dropped).
    pub fn take_warnings(&mut self) -> Vec<(u64, Fault)> {
        std::mem::take(&mut self.monitor.warnings)
    }

    /// Advances the world by `n` steps and (on the GPU) reads the state back at the end, with
    /// the health checks on it ([`World::sync_checked`]); returns the statistics of the last
    /// step.
    pub fn run(&mut self, n: u64) -> Result<StepStats, StepError> {
        for _ in 0..n {
            self.step()?;
        }
        self.sync_checked()?;
        Ok(self.last)
    }

    /// GPU backend: waits for the device and copies the bodies and the last step's statistics
    /// into the host copy, unless it already holds the current step. Does nothing on the CPU
    /// backend. The health checks do not run on what it reads; [`World::sync_checked`] runs
    /// them (call that before writing the state out).
    pub fn sync(&mut self) -> Result<(), GpuError> {
        if let Some(stats) = self.backend.sync(&mut self.bodies, self.steps)? {
            self.last = stats;
        }
        Ok(())
    }

    /// [`World::sync`], and on the GPU also copies the last step's contact rows and impulses
    /// (for [`World::contacts`], [`World::contact_rows`] and [`World::impulses`]; a large
    /// transfer, so not done by the periodic read-backs). A rank of a distributed world
    /// (feature `mpi`) copies the contacts it solved, numbered by body id; nothing is gathered
    /// from the other ranks (a call every rank makes together, for the bodies' read-back).
    pub fn sync_contacts(&mut self) -> Result<(), GpuError> {
        self.sync()?;
        self.backend.sync_contacts(self.steps)
    }

    /// The step whose state the host copy (bodies, statistics, contacts) holds: [`World::steps`]
    /// on the CPU backend and right after a read-back on the GPU.
    pub fn synced_at(&self) -> u64 {
        self.backend.synced_at(self.steps)
    }

    /// The step whose statistics [`World::step`] and [`World::last_stats`] return: the last
    /// one, except on the GPU backend, where it is [`World::synced_at`]. (A distributed world
    /// sums every step's statistics over its ranks, while it gathers its bodies only when
    /// asked, [`World::sync`].)
    pub fn stats_at(&self) -> u64 {
        self.backend.stats_at(self.steps)
    }

    /// Writes each wall's current face position, its velocity over [t, t + h] and its flags
    /// (switched off outside its window, a disk, its plane group).
    pub(crate) fn place_walls(&mut self, t: f64) {
        let h = self.params.h;
        self.walls.clear();
        for (i, (d, &group)) in self.wall_descs.iter().zip(&self.wall_groups).enumerate() {
            let (offset, velocity) = match (d.motion, d.servo) {
                (Some(m), _) => (m.displacement(t), m.step_velocity(t, h).0),
                (None, None) => (Vec3::ZERO, Vec3::ZERO),
                (None, Some(_)) => self.wall_motion(i, t),
            };
            let wall = d.placed(offset, velocity);
            let off = if d.active.contains(t) { 0 } else { WALL_OFF };
            self.walls
                .push(wall.with_flags(wall.flags() | off | (group * WALL_GROUP)));
        }
    }

    /// Simulated time (s): steps taken × h (with the adaptive step, ticks of h_max). (In
    /// Python the property `world.time`, as every read of the state without arguments there.)
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.settings.h as f64
    }

    /// The periodic cell now ([`Settings::periodic`] with, in a sheared cell, the images'
    /// offset [`crate::Periodic::shear_offset`] at [`World::time`]): what measures a pair of
    /// the current centres by its minimum image.
    pub fn periodic_now(&self) -> crate::Periodic {
        self.settings.periodic.at_time(self.time())
    }

    /// The length of the last step (s): [`Settings::h`], or with the adaptive step the h of
    /// the last step it took (what contact forces and wall loads divide the impulses by).
    pub fn last_h(&self) -> f32 {
        self.params.h
    }

    /// Refuses `settings` that switch on what the world's parts cannot take (the support
    /// table's limits between a setting and the joints or a distributed run, which the
    /// settings' own check cannot see).
    fn check_switched_on(&self, settings: &Settings) -> Result<(), BuildError> {
        use crate::support::{Feature, Item, Present};
        let mut present = Present::default();
        let item = Item::Settings("position_correction");
        present.add(!self.joints.is_empty(), Feature::Joints, item);
        let distributed = self.backend.is_distributed();
        present.add(distributed, Feature::Distributed, item);
        let correction = settings.position_correction > 0;
        present.add(correction, Feature::PositionCorrection, item);
        present.check()
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The settings the world runs with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Replaces the settings from the next step on (the thread count, the backend, ε̂, the
    /// periodic ranges, the integrator and the adaptive step stay as built; with the adaptive
    /// step, `h` sets h_max); refuses settings out of range or that the backend cannot honour, as
    /// [`WorldBuilder::build`](crate::WorldBuilder::build) does. Every setting is passed to the backend at each step, so
    /// nothing cached on the GPU goes stale.
    pub fn set_settings(&mut self, settings: Settings) -> Result<(), BuildError> {
        let settings = Settings {
            threads: self.settings.threads,
            envelope: self.settings.envelope,
            backend: self.settings.backend,
            periodic: self.settings.periodic,
            integrator: self.settings.integrator,
            auto_step: self.settings.auto_step,
            ..settings
        };
        settings.check()?;
        self.check_switched_on(&settings)?;
        crate::inertia::check_planar_switch(&settings, &self.bodies)?;
        self.monitor.forget();
        let (max_give, slop) = (self.params.max_give, self.params.overlap_slop);
        self.params = settings.step_params(self.params.envelope, (max_give, slop));
        if let Some(c) = &mut self.control {
            // The last step's h stays what contact forces and wall loads divide by.
            c.next = c.next.min(settings.h);
            self.params.h = c.last;
        }
        self.fingerprint
            .set_settings(&settings, self.params.envelope);
        self.settings = settings;
        Ok(())
    }

    /// The physics fingerprint of the world as built: what a snapshot restored into it must
    /// have been taken with.
    pub fn fingerprint(&self) -> &Fingerprint {
        &self.fingerprint
    }

    /// The ε̂ rule in force (the default resolved against the smallest radius).
    pub fn envelope(&self) -> Envelope {
        self.params.envelope
    }

    /// The backend the world steps on.
    pub fn backend(&self) -> Backend {
        self.settings.backend
    }

    /// Name of the GPU adapter (e.g. "NVIDIA H100" or "llvmpipe"); `None` on the CPU backend.
    pub fn adapter_name(&self) -> Option<&str> {
        self.backend.adapter_name()
    }

    /// All body buffers (structure of arrays), as of step [`World::synced_at`].
    ///
    /// A rank of a distributed world (feature `mpi`) holds its own bodies and its ghosts, not a
    /// copy of every body: the host copy is filled by [`World::sync`], which gathers it from
    /// the ranks, and released by the next step. Reading it in between panics, naming the call
    /// to make: never a part of the bodies passed off as all of them. [`World::own_bodies`]
    /// gives a rank its own bodies at any step, nothing gathered.
    pub fn bodies(&self) -> &Bodies {
        if let Some(n) = self.backend.released() {
            panic!(
                "World::bodies: this rank of a distributed world holds its own bodies, not all \
                 {n}, since step {}; call World::sync (every rank together: it gathers them) \
                 first, or read World::own_bodies",
                self.backend.synced_at(self.steps)
            );
        }
        &self.bodies
    }

    /// The indices (in [`World::bodies`], the host copy) of the bodies this rank owns,
    /// ascending, in a distributed world (`World::distribute`, feature `mpi`; `None` in a world
    /// that steps every body itself), so that each rank can write its own part of the outputs.
    /// It is not a collective call: it sends nothing. Where the bed is to be split afresh at
    /// the next step (before the first step, after a restore or an edit) they are the bodies
    /// that split will give this rank, so the ranks' parts still hold every body once. The
    /// host copy holds their state as of its last gather ([`World::sync`]).
    pub fn owned_indices(&self) -> Option<Vec<usize>> {
        self.backend.owned_indices(&self.bodies, self.steps + 1)
    }

    /// The bodies this rank owns in a distributed world, as of the last step whatever the
    /// host copy holds: their indices in [`World::bodies`] ([`World::owned_indices`]) and
    /// their state, body k of the [`Bodies`] being index k of the indices; `None` in a world
    /// that steps every body itself. Not a collective call: nothing is gathered, so each rank
    /// can write its part of an output without the host copy (after
    /// [`World::read_checked`]).
    pub fn own_bodies(&self) -> Option<(Vec<usize>, Bodies)> {
        let (indices, bodies) = self.backend.own_bodies(&self.bodies, self.steps + 1)?;
        Some((indices.into_iter().map(|i| i as usize).collect(), bodies))
    }

    /// [`World::own_bodies`] and, after them, the current state of every body another rank
    /// owns that could overlap one of them (its centre within its radius, the largest radius
    /// and how far that rank's bodies moved out of its box of the bed's split): the bodies'
    /// indices in [`World::bodies`], their state (row k being index k) and how many of them,
    /// the first ones, this rank owns. So each rank finds every overlap of its own bodies,
    /// and the ranks together every overlap of the bed, without gathering it. `None` in a
    /// world that steps every body itself. In a distributed world a call every rank makes
    /// together (the bodies near the cuts are sent to the ranks beside them).
    pub fn own_and_near_bodies(&self) -> Option<(Vec<usize>, Bodies, usize)> {
        let (ids, bodies, owned) = self
            .backend
            .own_and_near_bodies(&self.bodies, self.steps + 1)?;
        Some((ids.into_iter().map(|i| i as usize).collect(), bodies, owned))
    }

    /// Whether [`World::bodies`] holds every body: always, but on a rank of a distributed world
    /// between a step and the next [`World::sync`] (the same on every rank of the world).
    pub fn holds_every_body(&self) -> bool {
        self.backend.released().is_none()
    }

    /// Number of bodies (of the whole world, on a rank of a distributed one).
    pub fn len(&self) -> usize {
        self.backend.released().unwrap_or(self.bodies.len())
    }

    /// True when the world has no body.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Centre of body `i` (m), as of step [`World::synced_at`].
    pub fn position(&self, i: usize) -> Vec3 {
        self.bodies.pos_radius[i].truncate()
    }

    /// Radius of body `i` (m).
    pub fn radius(&self, i: usize) -> f32 {
        self.bodies.pos_radius[i].w
    }

    /// Shape of body `i`, in its own axes ([`Shape::Sphere`] for a sphere or disk).
    pub fn shape(&self, i: usize) -> Shape {
        shape_of(&self.shapes, i)
    }

    /// True when some body is not a sphere (or disk).
    pub fn has_shapes(&self) -> bool {
        !self.shapes.is_empty()
    }

    /// Half-sizes of body `i` along its own x, y and z axes (m): the box about its centre, in
    /// its axes, that holds it ([`shape_half_extents`]; a clump's from its template's members, a
    /// polyhedron's from its hull's vertices).
    pub fn half_extents(&self, i: usize) -> Vec3 {
        match self.shape(i) {
            Shape::Clump { template, .. } => {
                grains_kernels::shapes::clump::clump_half_extents(self.clumps.members(template))
            }
            Shape::Polyhedron { hull, .. } => {
                (self.hulls[hull as usize].vertices.iter()).fold(Vec3::ZERO, |h, v| h.max(v.abs()))
            }
            shape => shape_half_extents(shape, self.radius(i)),
        }
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
        self.backend.joint_impulses()
    }

    /// The walls as placed for the last step (before any step: at time 0; after a restore: for
    /// the last step the snapshot took).
    pub fn walls(&self) -> &[Wall] {
        &self.walls
    }

    /// The wall descriptions at rest.
    pub fn wall_descs(&self) -> &[WallDesc] {
        &self.wall_descs
    }

    /// Statistics of the last step (GPU: of step [`World::synced_at`]; see [`World::stats_at`]).
    pub fn last_stats(&self) -> StepStats {
        self.last
    }

    /// Seconds spent per stage of the step since the world was built. On the GPU they are the
    /// device's timestamps of the steps read back, scaled to all steps; `None` where the adapter
    /// has no timestamps or nothing was read back yet.
    pub fn stage_times(&self) -> Option<StageTimes> {
        self.backend.stage_times()
    }

    /// Every sweep of the last step's solves (impact, CCP and Coulomb-correction passes, in
    /// order): its max-norm residual (m/s) and the seconds since the step's solving began. CPU
    /// only; empty on the GPU, which keeps no per-sweep residual (that would need a read-back
    /// every sweep; [`World::last_stats`] has the last sweep's).
    pub fn sweep_trace(&self) -> &[SweepRecord] {
        self.backend.sweep_trace()
    }

    /// The bytes one sweep of this world's solver moves per contact and per body on its
    /// backend, counted from the buffers' layout (every element a pass reads counts once and
    /// every element it writes once; moment and joint rows not counted), in the layout of the
    /// last step's solve (on the CPU, a large bed of spheres in compact packs): what `grains
    /// bench` turns into bytes per contact-sweep and the solve's achieved bandwidth.
    pub fn sweep_traffic(&self) -> SweepTraffic {
        self.backend.sweep_traffic(self.settings.solver.kind())
    }

    /// Seconds spent stepping since the world was built: the sum of the stage times on the
    /// CPU; on the GPU the host wall time from submission to completion, as measured at the
    /// read-backs (so it includes the steps up to step [`World::synced_at`]).
    pub fn step_seconds(&self) -> f64 {
        self.backend.step_seconds()
    }

    /// The contacts of the last step (GPU: as of the last [`World::sync_contacts`]): for each,
    /// the two bodies or the body and the wall, the point, the normal, and the impulse and
    /// force it carried. On a rank of a distributed world (feature `mpi`), those this rank
    /// solved (the contacts whose lower-id body it owns, and its bodies' wall and mesh
    /// contacts), numbered by body id, once [`World::sync_contacts`] has copied them after
    /// the step (none before): the ranks' together are the step's, each once.
    ///
    /// ```
    /// use grains::{Body, Material, Settings, Touching, Vec3, WallDesc, World};
    /// let mut b = World::builder(Settings::default());
    /// b.material(Material::new(0.5));
    /// b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    /// b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.05, 1.0));
    /// let mut world = b.build().unwrap();
    /// world.run(100).unwrap();
    /// for c in world.contacts() {
    ///     assert_eq!(c.touching, Touching::Wall { body: 0, wall: 0 });
    ///     println!("{:?} pushes with {} N", c.touching, c.force);
    /// }
    /// ```
    pub fn contacts(&self) -> impl ExactSizeIterator<Item = Contact> + '_ {
        // A rank's contacts' first bodies are its own: their centres as it stepped them,
        // whatever the host copy holds.
        let centre = |i: usize| match self.backend.held_centre(i as u64) {
            Some(c) => c,
            None => self.bodies.pos_radius[i].truncate(),
        };
        contact::view(
            self.backend.contacts(),
            self.backend.impulses(),
            self.params.h,
            (centre, &self.meshes.placed),
        )
    }

    /// The centre of body `i` as this rank of a distributed world holds it after its last step:
    /// a body it owns, or another rank's that its step held beside them (a ghost, whose state
    /// is its owner's bit for bit: the ranks that hold a body give it the same impulses), as
    /// the partner of each contact this rank solved is. `None` for a body the rank does not
    /// hold, before its first step, and in a world that steps every body itself. Not a
    /// collective call.
    pub fn held_centre(&self, i: usize) -> Option<Vec3> {
        self.backend.held_centre(i as u64)
    }

    /// [`World::sync_contacts`], but on a rank of a distributed world without gathering the
    /// bodies: each rank copies the contacts it solved, and its health checks read its own
    /// bodies ([`World::read_checked`]'s read-back); the host copy keeps the state of its last
    /// gather. What [`World::contacts`], the loads and the contact forces need, which read
    /// only the rank's own bodies and contacts. In a distributed world a call every rank makes
    /// together.
    pub fn read_contacts(&mut self) -> Result<(), GpuError> {
        if !self.backend.is_distributed() {
            return self.sync_contacts();
        }
        self.read()?;
        self.backend.sync_contacts(self.steps)
    }

    /// The raw contact rows of the last step, as the kernels hold them: pair keys (ascending)
    /// and rows (GPU: as of the last [`World::sync_contacts`]). [`World::contacts`] reads them.
    pub fn contact_rows(&self) -> &Contacts {
        self.backend.contacts()
    }

    /// Impulses (γn, γt1, γt2) of the last step's contacts (N s) in their frames (n, t1, t2),
    /// in the order of [`World::contact_rows`] (GPU: as of the last [`World::sync_contacts`]).
    pub fn impulses(&self) -> &[[f32; 4]] {
        self.backend.impulses()
    }

    /// Moment impulses (γ_s, γ_r1, γ_r2) of the last step's contacts about their normal and
    /// tangents (N m s), in the order of [`World::contact_rows`]; empty when no material pair
    /// has spinning or rolling friction (GPU: as of the last [`World::sync_contacts`]).
    pub fn moment_impulses(&self) -> &[[f32; 4]] {
        self.backend.moment_impulses()
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
        self.edit_bodies(|b| {
            b.motion[i].linear = v.to_array();
            b.motion[i].angular = w.to_array();
        })
    }

    /// Sets the linear velocities of all bodies and, if given, their angular velocities (one
    /// per body, in body order), and forgets the warm start; kinematic bodies take their
    /// prescribed motion again at the next step. On the GPU the current state is read back
    /// first and the bodies are uploaded at the next step.
    ///
    /// # Panics
    /// When a slice's length is not [`World::len`].
    pub fn set_velocities(
        &mut self,
        linear: &[Vec3],
        angular: Option<&[Vec3]>,
    ) -> Result<(), GpuError> {
        let n = self.len();
        assert!(
            linear.len() == n && angular.is_none_or(|w| w.len() == n),
            "one velocity per body"
        );
        self.edit_bodies(|b| {
            for (i, m) in b.motion.iter_mut().enumerate() {
                m.linear = linear[i].to_array();
                if let Some(w) = angular {
                    m.angular = w[i].to_array();
                }
            }
        })
    }

    /// Moves all bodies' centres to `centres` and, if given, turns them to `orientations` (one
    /// per body, in body order; unit quaternions), and forgets the warm start. On the GPU the
    /// current state is read back first and the bodies are uploaded at the next step.
    ///
    /// # Panics
    /// When a slice's length is not [`World::len`].
    pub fn set_positions(
        &mut self,
        centres: &[Vec3],
        orientations: Option<&[Quat]>,
    ) -> Result<(), GpuError> {
        let n = self.len();
        assert!(
            centres.len() == n && orientations.is_none_or(|q| q.len() == n),
            "one position per body"
        );
        self.edit_bodies(|b| {
            for (p, c) in b.pos_radius.iter_mut().zip(centres) {
                *p = c.extend(p.w);
            }
            if let Some(q) = orientations {
                b.orientation.copy_from_slice(q);
            }
        })
    }

    /// Brings the host copy up to date, lets `edit` change the bodies' state in place, and
    /// tells the health checks and the backend (which forgets the warm start and, on the GPU,
    /// uploads the bodies at the next step).
    fn edit_bodies(&mut self, edit: impl FnOnce(&mut Bodies)) -> Result<(), GpuError> {
        self.sync()?;
        edit(&mut self.bodies);
        self.monitor.forget();
        self.backend.bodies_edited();
        Ok(())
    }

    /// The warm-start memory (pair keys ascending, impulse vectors, and moment impulse vectors
    /// one per key or none), read from the device on the GPU.
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn warm_start_state(&mut self) -> Result<WarmStart, GpuError> {
        self.backend.warm_start_state()
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
        self.place_walls(steps.saturating_sub(1) as f64 * self.settings.h as f64);
        // In place: the buffers keep their allocation where the body count is unchanged, so
        // views of them (the Python package's) stay valid.
        self.bodies.clone_from(bodies);
        self.monitor.forget();
        self.backend
            .restore(steps, (keys, impulses, moments), joint_impulses);
    }

    /// Centres of all bodies as (x, y, z, radius), as of step [`World::synced_at`].
    pub fn centres(&self) -> &[Vec4] {
        &self.bodies().pos_radius
    }
}
