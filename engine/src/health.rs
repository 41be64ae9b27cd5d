//! The health check after every step: non-finite state, overlap beyond a multiple of the
//! smallest radius, energy that nothing in the world could have supplied, and grains that left
//! the domain.
//!
//! Each check is cheap: the overlap and the kinetic energy are figures the step already
//! computes ([`StepStats`]), and the finite and domain checks are one pass over the bodies
//! (the joints' and springs' terms of the energy check one pass over those). On the GPU
//! backend the checks run at every read-back (every [`Settings::sync_every`](crate::Settings)
//! steps, and whenever [`World::sync_checked`](crate::World::sync_checked) brings the host
//! copy up to date for an output), before anything reads the fresh state.

use crate::domain::{whereabouts, Domain, Whereabouts};
use glam::Vec3;
use grains_kernels::joints::Joint;
use grains_kernels::narrow_phase::MAX_CONTACTS_PER_BODY;
use grains_kernels::springs::Spring;
use grains_kernels::{Bodies, BodyKind, GpuError, StepStats, Wall};
use thiserror::Error;

/// What a failed health check does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Check {
    /// [`World::step`](crate::World::step) returns [`StepError::Health`].
    #[default]
    Stop,
    /// The step succeeds and the fault is kept for [`World::take_warnings`](crate::World::take_warnings).
    Warn,
    /// The check is not run.
    Off,
}

/// The health checks run after every step (a field of [`Settings`](crate::Settings)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Health {
    /// A body's position, velocity or angular velocity is not finite.
    pub non_finite: Check,
    /// The deepest overlap exceeds `max_penetration` × the smallest radius.
    pub penetration: Check,
    /// The deepest overlap allowed, as a multiple of the smallest body radius (default 1;
    /// poured piles and shaken beds stay well below 0.5).
    pub max_penetration: f32,
    /// The energy (kinetic, plus the springs' potential) grew by more than `energy_growth` ×
    /// its value before the step plus what gravity, applied forces, motors, the joints'
    /// stabilising pull, moving walls, kinematic bodies and a sheared cell's seam can supply in one step (see
    /// [`Fault::Energy`]).
    pub energy: Check,
    /// The factor of the energy check (default 2, at least 1).
    pub energy_growth: f32,
    /// A dynamic body's centre lies outside the world's domain by more than its radius (see
    /// [`crate::domain`]; [`crate::World::domain`]): it went through a wall or was placed
    /// outside the walls. Sinks and insertion regions belong to the domain; a world with no
    /// bounding walls has none. With [`Check::Stop`] the builder also refuses bodies that start
    /// outside it. [`Check::Off`] allows an open domain. Which bodies have escaped is
    /// [`crate::domain::whereabouts`], the definition the app's quality figures share.
    pub escape: Check,
    /// The adaptive step ([`crate::Settings::auto_step`]) wanted a step below its h_min and
    /// took h_min (see [`Fault::StepFloor`]).
    pub step_floor: Check,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            non_finite: Check::Stop,
            penetration: Check::Stop,
            max_penetration: 1.0,
            energy: Check::Stop,
            energy_growth: 2.0,
            escape: Check::Stop,
            step_floor: Check::Stop,
        }
    }
}

impl Health {
    /// Every check turned off.
    pub const OFF: Health = Health {
        non_finite: Check::Off,
        penetration: Check::Off,
        max_penetration: f32::INFINITY,
        energy: Check::Off,
        energy_growth: f32::INFINITY,
        escape: Check::Off,
        step_floor: Check::Off,
    };
}

/// What a health check found wrong after a step.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum Fault {
    /// A body's state is not finite (the first such body in index order).
    #[error("body {body}: {quantity} is not finite; the solver diverged (Jacobi: lower omega) or an input is out of scale")]
    NonFinite {
        /// Index of the body.
        body: usize,
        /// `"position"`, `"velocity"` or `"angular velocity"`.
        quantity: &'static str,
    },
    /// The deepest overlap at the start of the step exceeds the limit.
    #[error("overlap {depth:.3e} m = {ratio:.2} × the smallest radius, beyond the limit {limit} (health.max_penetration); use a smaller step h or more solver sweeps")]
    Penetration {
        /// The deepest overlap (m).
        depth: f32,
        /// `depth` over the smallest radius.
        ratio: f32,
        /// The limit, as a multiple of the smallest radius.
        limit: f32,
    },
    /// The energy (kinetic, plus the springs' potential ½ k φ²) grew by more than the world
    /// could supply in one step:
    /// `after > growth · before + D √(2 max(before, after)) + ½ D² + 2 M V² + M a r`, with M
    /// the dynamic mass, a gravity, V the fastest wall or kinematic body surface (or unbounded
    /// motor, or the fluid's flow), r the smallest radius (overlaps released), and D the largest velocity change
    /// (as the norm √(Σ m Δv²)) the step's pushes can give:
    /// `D = H (a √M + √(Σ F²/m + Σ τ²/I)) + √(2 Σ (m Φ² + I θ²)) / h` over the time H since
    /// the last check, with F and τ the applied forces' amplitudes, the external loads and the motors' bounds on
    /// the bodies they push (m, I: the body's mass and smallest moment), and Φ, θ each
    /// stabilised joint's violation at the last check (counted up to the smallest radius and
    /// 1 rad: a joint pulled further apart is broken, not a supply), m and I the smaller of
    /// its bodies'.
    #[error("energy jumped from {before:.3e} J to {after:.3e} J, more than gravity, forces, cohesion, motors, joints and moving walls can supply ({allowed:.3e} J); the solver diverged (Jacobi: lower omega), h is too large or an input is out of scale")]
    Energy {
        /// Energy before the step (J): kinetic, plus the springs' potential.
        before: f64,
        /// Energy after the step (J).
        after: f64,
        /// The most the check allowed (J).
        allowed: f64,
    },
    /// A dynamic body left the world's domain (see [`Health::escape`]).
    #[error("body {body} left the domain: its centre ({x:.4}, {y:.4}, {z:.4}) m lies {distance:.3e} m beyond its radius outside the box the walls enclose, from ({lo}) to ({hi}) m (a grain shot through a wall, or placed outside the walls); add a sink where grains should leave, or set health escape = \"off\" for an open domain")]
    Escaped {
        /// Index of the body (the first in index order).
        body: usize,
        /// Its centre (m).
        x: f32,
        /// Its centre (m).
        y: f32,
        /// Its centre (m).
        z: f32,
        /// How far beyond its radius it lies outside the domain (m).
        distance: f32,
        /// The domain's lower corner (m), as text (−inf where open).
        lo: String,
        /// The domain's upper corner (m), as text (inf where open).
        hi: String,
    },
    /// The adaptive step wanted a step below its h_min, for the fastest grain's reach or for
    /// the penetration and residual budget (see [`crate::auto_step`]), and took h_min: the
    /// budget may be exceeded.
    #[error("the adaptive step wanted h = {wanted:.3e} s, below h_min = {h_min:.3e} s, in {steps} of this tick's steps (the fastest grain moves {speed:.3e} m/s; the deepest overlap is {ratio:.3} × the smallest radius, the budget {budget}), and took h_min: lower h_min, or raise reach or penetration_budget")]
    StepFloor {
        /// The shortest h the controller wanted in the tick (s).
        wanted: f32,
        /// The floor it took instead (s).
        h_min: f32,
        /// The steps of the tick taken at the floor.
        steps: u32,
        /// The fastest dynamic body's speed at the last of them (m/s).
        speed: f32,
        /// The deepest overlap at the start of the last of them over the smallest radius.
        ratio: f32,
        /// The penetration budget, as a fraction of the smallest radius.
        budget: f32,
    },
    /// The contacts exceeded [`MAX_CONTACTS_PER_BODY`] per body (CPU backend): the step was
    /// abandoned before its contact rows could fill the memory. Always stops the run: no
    /// setting of [`Health`] turns it off, since the step cannot be completed.
    #[error("more than {limit} ε̂-active contacts per body (a resting bed has about 6): the fastest grain moves {reach:.3e} m = {ratio:.1} × the smallest radius in one step of h = {h} s, so its envelope ε̂ ≈ v·h spans dozens of neighbours; use a smaller step, about {suggested_h:.1e} s or less (no grain moving more than half the smallest radius per step)")]
    TooManyContacts {
        /// Contacts allowed per body.
        limit: usize,
        /// The fastest dynamic body's speed × h (m).
        reach: f32,
        /// `reach` / the smallest radius.
        ratio: f32,
        /// The step h (s).
        h: f32,
        /// The step at which the fastest grain would move half the smallest radius (s).
        suggested_h: f32,
    },
}

impl Fault {
    /// The fault of a step whose contacts exceeded [`MAX_CONTACTS_PER_BODY`] per body, with
    /// the reach of the fastest dynamic body in `bodies` over a step `h` and the step that
    /// would bring it to half the smallest radius.
    pub(crate) fn too_many_contacts(bodies: &Bodies, h: f32) -> Fault {
        let r_min = bodies.smallest_radius();
        let v_max = (0..bodies.len())
            .filter(|&i| bodies.is_dynamic(i))
            .map(|i| bodies.motion[i].v().length())
            .fold(0.0, f32::max);
        Fault::TooManyContacts {
            limit: MAX_CONTACTS_PER_BODY,
            reach: v_max * h,
            ratio: v_max * h / r_min,
            h,
            suggested_h: (0.5 * r_min / v_max).min(h),
        }
    }
}

/// Why a step failed.
#[derive(Debug, Error)]
pub enum StepError {
    /// The GPU failed (device lost, a buffer overflow found at a read-back); the world's state
    /// is unspecified.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A health check failed; the world holds the state of the failed step for inspection.
    #[error("step {step}: {fault}")]
    Health {
        /// The step whose state failed the check.
        step: u64,
        /// What was wrong.
        fault: Fault,
    },
    /// The geometrically implicit integrator ([`crate::Integrator::GeometricallyImplicit`])
    /// could not take the step: more contacts within ε̂ than it takes, or its Newton solve did
    /// not converge. The world keeps the state at the step's start (not counted in
    /// [`World::steps`](crate::World::steps)).
    #[error("step {step}: {problem}")]
    Implicit {
        /// The step that failed.
        step: u64,
        /// What went wrong.
        problem: String,
    },
    /// A distributed run could not take the step: the ranks' bodies do not add up to the
    /// world's (a grain lost or held twice) or a setting changed to one the coupled solve does
    /// not cover.
    #[error("step {step}: distributed run: {problem}")]
    Distributed {
        /// The step that failed.
        step: u64,
        /// What went wrong.
        problem: String,
    },
}

/// What the energy check allows the links of a world to supply or store: the applied
/// forces' and bounded motors' pushes, the springs' potential energy, the joints' stabilising
/// pull and the unbounded motors' speeds (fixed at build; see [`Fault::Energy`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    /// √(Σ F²/m + Σ τ²/I) over the applied forces' amplitudes and the bounded motors' force or
    /// torque on each dynamic body they push (N/√kg).
    pub push: f64,
    /// The same norm over the external loads of `World::set_external_loads` (N/√kg).
    pub external_push: f64,
    /// The springs, whose potential energy ½ k φ² counts with the kinetic energy.
    pub springs: Vec<Spring>,
    /// Per joint: the smaller mass and smallest moment of its dynamic bodies (kg, kg m²), for
    /// the stabilising pull Θ/h; `None` for a joint without it.
    pub joints: Vec<Option<(f64, f64)>>,
    /// Per unbounded motor: its joint, its speed and whether it turns (a hinge) rather than
    /// slides.
    pub free_motors: Vec<(usize, f32, bool)>,
}

impl Links {
    /// The springs' potential energy Σ ½ k φ² in the state `bodies` (J).
    fn potential(&self, bodies: &Bodies) -> f64 {
        self.springs
            .iter()
            .map(|s| 0.5 * s.stiffness as f64 * (s.stretch(bodies) as f64).powi(2))
            .sum()
    }

    /// Σ (m Φ² + I θ²) over the stabilised joints in the state `bodies`, counting only Φ up to
    /// `cap` and θ up to 1 rad (kg m²): a joint pulled further apart is broken, and its pull
    /// Θ/h is the divergence, not a supply.
    fn pull(&self, joints: &[Joint], bodies: &Bodies, cap: f32) -> f64 {
        joints
            .iter()
            .zip(&self.joints)
            .filter_map(|(j, m)| m.map(|m| (j, m)))
            .map(|(j, (m, i))| {
                let (p, a) = j.violation(bodies);
                let p = if p <= cap { p as f64 } else { 0.0 };
                let a = if a <= 1.0 { a as f64 } else { 0.0 };
                m * p * p + i * a * a
            })
            .sum()
    }

    /// The fastest an unbounded motor can drive a body: a slider's speed, or a hinge's
    /// angular speed times the farthest any dynamic body's surface lies from its anchor (m/s).
    fn motor_speed(&self, joints: &[Joint], bodies: &Bodies) -> f32 {
        let mut v = 0.0f32;
        for &(j, speed, turns) in &self.free_motors {
            if !turns {
                v = v.max(speed.abs());
                continue;
            }
            let joint = &joints[j];
            let a = joint.body_a as usize;
            let anchor = bodies.pos_radius[a].truncate() + bodies.orientation[a] * joint.anchor_a;
            let reach = (0..bodies.len())
                .filter(|&i| bodies.is_dynamic(i))
                .map(|i| {
                    (bodies.pos_radius[i].truncate() - anchor).length() + bodies.pos_radius[i].w
                })
                .fold(0.0, f32::max);
            v = v.max(speed.abs() * reach);
        }
        v
    }
}

/// The world's side of the checks: what they compare against between steps.
#[derive(Clone, Debug, Default)]
pub(crate) struct Monitor {
    /// The smallest body radius (m).
    pub r_min: f32,
    /// Σ m of the dynamic bodies (kg).
    pub mass: f64,
    /// What the forces, motors, joints and springs may supply or store.
    pub links: Links,
    /// The box the dynamic bodies' centres must stay in (see [`crate::domain`]).
    pub domain: Option<Domain>,
    /// The fastest any point of a mesh wall moves (m/s).
    pub mesh_speed: f32,
    /// The speed γ̇ L_y of a sheared periodic cell's images across y (m/s; 0 without shear):
    /// they supply energy as a wall moving at that speed would.
    pub seam_speed: f32,
    /// The speed of the fluid the grains move in (m/s; 0 without one): its drag can bring them
    /// up to it, as a wall moving at that speed would.
    pub flow_speed: f32,
    /// The fastest node of the fluid's velocity field (m/s; 0 without one,
    /// [`crate::World::set_flow_field`]).
    pub field_speed: f32,
    /// The last step's cohesive pull (N/√kg, as `Links::push`): cohesion and liquid bridges
    /// supply energy as an applied force would.
    pub cohesive_push: f64,
    /// The step, energy and joints' pull Σ (m Φ² + I θ²) the next check starts from (on the
    /// GPU the last read-back, possibly several steps back); `None` after an edit of the state.
    pub before: Option<(u64, f64, f64)>,
    /// The last step checked (the checks of a read-back run once).
    pub checked_at: Option<u64>,
    /// Whether a step was taken whose state no check has seen yet (GPU: since the last
    /// read-back).
    pub pending: bool,
    /// Faults of checks set to [`Check::Warn`], oldest first, at most [`WARNINGS_KEPT`].
    pub warnings: Vec<(u64, Fault)>,
}

/// Warnings kept until [`World::take_warnings`](crate::World::take_warnings) (later ones are dropped).
pub(crate) const WARNINGS_KEPT: usize = 64;

impl Monitor {
    /// The monitor of a world with these bodies and links.
    pub fn new(bodies: &Bodies, links: Links) -> Self {
        let mut m = Monitor {
            links,
            ..Default::default()
        };
        m.fit(bodies);
        m
    }

    /// Fits the smallest radius and the dynamic mass to `bodies` (after grains came or went)
    /// and forgets the state the next check would start from.
    pub fn fit(&mut self, bodies: &Bodies) {
        let mass = bodies
            .motion
            .iter()
            .zip(&bodies.kind)
            .filter(|(_, &k)| k == BodyKind::Dynamic as u32)
            .map(|(m, _)| 1.0 / m.inv_mass as f64)
            .sum();
        self.fit_to(bodies.smallest_radius(), mass);
    }

    /// Fits the smallest radius `r_min` (m) and the dynamic mass `mass` (kg), as found over a
    /// distributed world's ranks, and forgets the state the next check would start from.
    pub(crate) fn fit_to(&mut self, r_min: f32, mass: f64) {
        self.r_min = r_min;
        self.mass = mass;
        self.forget();
    }

    /// Forgets the state the next check would start from (after an edit of the state).
    pub fn forget(&mut self) {
        self.before = None;
        self.checked_at = None;
        self.pending = false;
    }

    /// The domain the escape check holds the dynamic bodies to under `health` (none with the
    /// check off).
    pub fn escape_domain(&self, health: &Health) -> Option<Domain> {
        self.domain.filter(|_| health.escape != Check::Off)
    }

    /// Runs the checks on the state after step `step`, of length `tick` (the time a step of
    /// [`crate::World::step`] advances) and taken in steps of at least h, with gravity
    /// `gravity` (the caller skips a step they already ran on): on the bodies' pass `scanned` ([`scan`], over
    /// the whole bed) and, for the springs and joints, the host copy `bodies`. Returns the
    /// first fault of a check set to [`Check::Stop`]; keeps those of checks set to
    /// [`Check::Warn`].
    pub fn check(
        &mut self,
        health: &Health,
        step: u64,
        scanned: Scan,
        (bodies, walls, joints, stats): (&Bodies, &[Wall], &[Joint], &StepStats),
        gravity: Vec3,
        (tick, h): (f32, f32),
    ) -> Result<(), StepError> {
        self.checked_at = Some(step);
        let domain = self.escape_domain(health);
        let Scan {
            non_finite,
            surface,
            escaped,
        } = scanned;
        let fault = non_finite
            .filter(|_| health.non_finite != Check::Off)
            .map(|(body, q)| Fault::NonFinite {
                body,
                quantity: QUANTITIES[q],
            });
        self.judge(health.non_finite, step, fault)?;
        let depth = stats.max_penetration;
        let ratio = depth / self.r_min;
        let fault = (ratio > health.max_penetration).then_some(Fault::Penetration {
            depth,
            ratio,
            limit: health.max_penetration,
        });
        self.judge(health.penetration, step, fault)?;
        let links = &self.links;
        let energy_on = health.energy != Check::Off;
        let after = match energy_on && !links.springs.is_empty() {
            true => stats.kinetic_energy + links.potential(bodies),
            false => stats.kinetic_energy,
        };
        let pull = match energy_on && !links.joints.is_empty() {
            true => links.pull(joints, bodies, self.r_min),
            false => 0.0,
        };
        if let (true, Some((since, before, pull_before))) =
            (energy_on, self.before.replace((step, after, pull)))
        {
            // The time since the energy `before`.
            let big_h = tick as f64 * step.saturating_sub(since).max(1) as f64;
            let mut v = walls
                .iter()
                .map(|w| Vec3::from_slice(&w.velocity[..3]).length() + w.surface_speed())
                .fold(
                    (surface.max(self.mesh_speed))
                        .max(self.seam_speed)
                        .max(self.flow_speed)
                        .max(self.field_speed),
                    f32::max,
                );
            if !links.free_motors.is_empty() {
                v = v.max(links.motor_speed(joints, bodies));
            }
            let (a, m, v) = (gravity.length() as f64, self.mass, v as f64);
            let push = links.push + links.external_push + self.cohesive_push;
            let d = big_h * (a * m.sqrt() + push) + (2.0 * pull_before).sqrt() / h as f64;
            let allowed = health.energy_growth as f64 * before
                + d * (2.0 * before.max(after)).sqrt()
                + 0.5 * d * d
                + 2.0 * m * v * v
                + m * a * self.r_min as f64;
            let fault = (after > allowed).then_some(Fault::Energy {
                before,
                after,
                allowed,
            });
            self.judge(health.energy, step, fault)?;
        }
        if let (Some(d), Some((body, p, distance))) = (domain, escaped) {
            let fault = Fault::Escaped {
                body,
                x: p.x,
                y: p.y,
                z: p.z,
                distance,
                lo: corner(d.lo),
                hi: corner(d.hi),
            };
            self.judge(health.escape, step, Some(fault))?;
        }
        Ok(())
    }

    /// Applies `check` to a fault found (or not) at `step`.
    pub(crate) fn judge(
        &mut self,
        check: Check,
        step: u64,
        fault: Option<Fault>,
    ) -> Result<(), StepError> {
        match (check, fault) {
            (Check::Stop, Some(fault)) => Err(StepError::Health { step, fault }),
            (Check::Warn, Some(fault)) if self.warnings.len() < WARNINGS_KEPT => {
                self.warnings.push((step, fault));
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// A corner of the domain as text: `x, y, z` with `inf` where open.
pub(crate) fn corner(c: Vec3) -> String {
    let f = |x: f32| match x {
        x if x == f32::INFINITY => "inf".to_string(),
        x if x == f32::NEG_INFINITY => "-inf".to_string(),
        x => format!("{x}"),
    };
    format!("{}, {}, {}", f(c.x), f(c.y), f(c.z))
}

/// What the checks read of the state in one pass over the bodies ([`scan`]): the first body
/// (by index) whose state is not finite, with the index in [`QUANTITIES`] of what is not; the
/// fastest surface speed |v| + |ω| r of the fixed and kinematic bodies (m/s); and the first
/// dynamic body escaped from the domain, with its centre and how far beyond its radius it
/// lies outside (m).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Scan {
    pub non_finite: Option<(usize, usize)>,
    pub surface: f32,
    pub escaped: Option<(usize, Vec3, f32)>,
}

/// What [`Fault::NonFinite`] names, by [`Scan::non_finite`]'s index.
pub(crate) const QUANTITIES: [&str; 3] = ["position", "velocity", "angular velocity"];

/// One body as [`scan`] reads it: its index, centre and radius, linear and angular velocity
/// and kind.
pub(crate) type Scanned = (usize, glam::Vec4, Vec3, Vec3, u32);

/// The bodies of `bodies` as [`scan`] reads them, in index order.
pub(crate) fn rows(bodies: &Bodies) -> impl Iterator<Item = Scanned> + '_ {
    (bodies
        .pos_radius
        .iter()
        .zip(&bodies.motion)
        .zip(&bodies.kind))
    .enumerate()
    .map(|(i, ((p, m), &k))| (i, *p, m.v(), m.w(), k))
}

/// One pass over `bodies` (ascending index): the first whose state is not finite, the fastest
/// surface of the fixed and kinematic bodies and the first dynamic body escaped from `domain`
/// under the escape check `escape` ([`whereabouts`]), among the finite ones.
pub(crate) fn scan(
    bodies: impl Iterator<Item = Scanned>,
    (domain, escape): (Option<Domain>, Check),
) -> Scan {
    let mut found = Scan::default();
    for (i, p, v, w, k) in bodies {
        let quantity = [p.truncate().is_finite(), v.is_finite(), w.is_finite()]
            .iter()
            .position(|finite| !finite);
        if let Some(q) = quantity {
            found.non_finite = found.non_finite.or(Some((i, q)));
        } else if k != BodyKind::Dynamic as u32 {
            found.surface = found.surface.max(v.length() + w.length() * p.w);
        } else if let (Some(d), None) = (&domain, found.escaped) {
            if let Whereabouts::Escaped { distance } =
                whereabouts(Some(d), escape, p.truncate(), p.w)
            {
                found.escaped = Some((i, p.truncate(), distance));
            }
        }
    }
    found
}
