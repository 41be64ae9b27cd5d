//! The health check after every step: non-finite state, overlap beyond a multiple of the
//! smallest radius, and kinetic energy that nothing in the world could have supplied.
//!
//! Each check is cheap: the overlap and the kinetic energy are figures the step already
//! computes ([`StepStats`]), and the finite check is one pass over the bodies. On the GPU
//! backend the checks run at the read-backs (every [`Settings::sync_every`](crate::Settings)
//! steps), where the host copy is fresh.

use glam::Vec3;
use grains_kernels::narrow_phase::MAX_CONTACTS_PER_BODY;
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
    /// The kinetic energy grew by more than `energy_growth` × its value before the step plus
    /// what gravity, moving walls and kinematic bodies can supply in one step (see
    /// [`Fault::Energy`]). Not run in worlds with applied forces or joints.
    pub energy: Check,
    /// The factor of the energy check (default 2, at least 1).
    pub energy_growth: f32,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            non_finite: Check::Stop,
            penetration: Check::Stop,
            max_penetration: 1.0,
            energy: Check::Stop,
            energy_growth: 2.0,
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
    /// The kinetic energy grew by more than the world could supply in one step:
    /// `after > growth · before + |a| h √(2 M max(before, after)) + ½ M a² h² + 2 M V² + M a r`, with M
    /// the dynamic mass, a gravity, h the time since the last check V the fastest wall or kinematic body surface and r the smallest radius (overlaps
    /// released).
    #[error("kinetic energy jumped from {before:.3e} J to {after:.3e} J, more than gravity and moving walls can supply ({allowed:.3e} J); the solver diverged (Jacobi: lower omega) or h is too large")]
    Energy {
        /// Kinetic energy before the step (J).
        before: f64,
        /// Kinetic energy after the step (J).
        after: f64,
        /// The most the check allowed (J).
        allowed: f64,
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

/// The world's side of the checks: what they compare against between steps.
#[derive(Clone, Debug, Default)]
pub(crate) struct Monitor {
    /// The smallest body radius (m).
    pub r_min: f32,
    /// Σ m of the dynamic bodies (kg).
    pub mass: f64,
    /// False where applied forces, joints or springs make the energy check unbounded.
    pub energy_bounded: bool,
    /// The fastest any point of a mesh wall moves (m/s).
    pub mesh_speed: f32,
    /// The step and kinetic energy the next check starts from (on the GPU the last read-back,
    /// possibly several steps back); `None` after an edit of the state.
    pub before: Option<(u64, f64)>,
    /// Faults of checks set to [`Check::Warn`], oldest first, at most [`WARNINGS_KEPT`].
    pub warnings: Vec<(u64, Fault)>,
}

/// Warnings kept until [`World::take_warnings`](crate::World::take_warnings) (later ones are dropped).
pub(crate) const WARNINGS_KEPT: usize = 64;

impl Monitor {
    /// The monitor of a world with these bodies.
    pub fn new(bodies: &Bodies, energy_bounded: bool) -> Self {
        let r_min = bodies.smallest_radius();
        let mass = bodies
            .motion
            .iter()
            .zip(&bodies.kind)
            .filter(|(_, &k)| k == BodyKind::Dynamic as u32)
            .map(|(m, _)| 1.0 / m.inv_mass as f64)
            .sum();
        Monitor {
            r_min,
            mass,
            energy_bounded,
            ..Default::default()
        }
    }

    /// Runs the checks on the state after step `step`, taken at step h with gravity `gravity`.
    /// Returns the first fault of a check set to [`Check::Stop`]; keeps those of checks set
    /// to [`Check::Warn`].
    pub fn check(
        &mut self,
        health: &Health,
        step: u64,
        (bodies, walls, stats): (&Bodies, &[Wall], &StepStats),
        gravity: Vec3,
        h: f32,
    ) -> Result<(), StepError> {
        let (fault, surface) = scan(bodies, health.non_finite != Check::Off);
        self.judge(health.non_finite, step, fault)?;
        let depth = stats.max_penetration;
        let ratio = depth / self.r_min;
        let fault = (ratio > health.max_penetration).then_some(Fault::Penetration {
            depth,
            ratio,
            limit: health.max_penetration,
        });
        self.judge(health.penetration, step, fault)?;
        let after = stats.kinetic_energy;
        if let (true, Some((since, before))) =
            (self.energy_bounded, self.before.replace((step, after)))
        {
            // Gravity's work over the steps since the energy `before`.
            let h = h * step.saturating_sub(since).max(1) as f32;
            let v = walls
                .iter()
                .map(|w| Vec3::from_slice(&w.velocity[..3]).length() + w.surface_speed())
                .fold(surface.max(self.mesh_speed), f32::max) as f64;
            let (a, h, m) = (gravity.length() as f64, h as f64, self.mass);
            let allowed = health.energy_growth as f64 * before
                + a * h * (2.0 * m * before.max(after)).sqrt()
                + 0.5 * m * (a * h).powi(2)
                + 2.0 * m * v * v
                + m * a * self.r_min as f64;
            let fault = (after > allowed).then_some(Fault::Energy {
                before,
                after,
                allowed,
            });
            self.judge(health.energy, step, fault)?;
        }
        Ok(())
    }

    /// Applies `check` to a fault found (or not) at `step`.
    fn judge(&mut self, check: Check, step: u64, fault: Option<Fault>) -> Result<(), StepError> {
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

/// One pass over the bodies: the first non-finite position or velocity (when `finite`), and
/// the fastest surface speed |v| + |ω| r of the fixed and kinematic bodies.
fn scan(bodies: &Bodies, finite: bool) -> (Option<Fault>, f32) {
    let mut surface = 0.0f32;
    for (i, ((p, m), &k)) in bodies
        .pos_radius
        .iter()
        .zip(&bodies.motion)
        .zip(&bodies.kind)
        .enumerate()
    {
        let quantity = if !p.truncate().is_finite() {
            "position"
        } else if !m.v().is_finite() {
            "velocity"
        } else if !m.w().is_finite() {
            "angular velocity"
        } else {
            if k != BodyKind::Dynamic as u32 {
                surface = surface.max(m.v().length() + m.w().length() * p.w);
            }
            continue;
        };
        if finite {
            return (Some(Fault::NonFinite { body: i, quantity }), surface);
        }
    }
    (None, surface)
}
