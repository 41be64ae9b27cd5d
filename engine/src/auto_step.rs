//! The adaptive step (`h = "auto"` in a scene, [`Settings::auto_step`](crate::Settings) in the
//! library): each step's h is chosen from the fastest grain's reach and from a penetration and
//! residual budget, from `AutoStep::h_min` to `Settings::h`.
//!
//! Time advances in *ticks* of `Settings::h` (h_max): [`crate::World::step`] takes one tick,
//! as one or more steps whose lengths add up to it, so that the step count, the simulated time
//! (ticks × h_max), the outputs scheduled in steps, the insertions and sinks and the
//! checkpoints keep their meaning, and every output lands on its set time. Within a tick, before
//! each step the controller caps h so that the fastest dynamic body's centre moves at most
//! `reach` × the smallest radius; a step is shortened to land on the tick's end (to the
//! rest of the tick when that is at most h, to half of it when it is under 2 h). After each
//! step it adapts the h it wants next:
//!
//! * **shrink** (× [`SHRINK`] of the h just taken) when, with rigid contact, the deepest
//!   overlap grew beyond `penetration` × the smallest radius, or when the solve stopped above
//!   its tolerance with a residual that, times h, moves a body more than that same budget (the
//!   velocity error the unconverged solve leaves, as a distance per step). An overlap that is
//!   not growing does not shrink h, nor does a compliant contact's: its overlap is its
//!   spring's (F/k under a load, up to its give δ in an impact), which no step size changes,
//!   and it recovers at the spring's pace;
//! * **grow** (× [`GROW`]) when both are within half the budget (an overlap not growing
//!   counts as none);
//! * otherwise keep it.
//!
//! It never chooses below `h_min`: where the reach or the budget asks for less, the step is
//! taken at `h_min` and the health check [`Health::step_floor`](crate::Health) reports it
//! ([`Fault::StepFloor`](crate::Fault)). No step is taken again: the overlap a step reports
//! is the one at its start (what the step before left), so the controller answers one step
//! late, as the penetration health check does.
//!
//! What changes with h stays consistent: the warm start scales the stored impulses (of forces
//! and joints) by h_new/h_old, since an impulse of a force is proportional to the step; the
//! compliant contact keeps its frequency (a physical stiffness), so its ε = 1/(m_eff (2πfh)²)
//! follows each step's h, as do the Φ/h stabilisation, the envelope ε̂ (1.5 h v), the swept
//! rows of fast grains (`SWEPT_STEP`), the compliant give δ/h, the moving walls' and
//! kinematic bodies' step velocities and the contact forces and wall loads (impulse / the last
//! step's h). The controller's state ([`StepControl`]) is saved in checkpoints, so a resumed run
//! continues bit for bit; like every CPU step it does not depend on the thread count.

use crate::error::BuildError;
use grains_kernels::{Bodies, StepStats};

/// The factor the wanted h grows by after a step well within the budget.
pub const GROW: f32 = 1.2;
/// The factor of the h just taken that the wanted h shrinks to after a step over the budget.
pub const SHRINK: f32 = 0.5;

/// How the adaptive step chooses h (see the module's documentation); `Settings::h` is then
/// the largest step, h_max, and the tick that [`crate::World::step`] advances.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AutoStep {
    /// The smallest step the controller takes (s), above 0 and at most h_max.
    pub h_min: f32,
    /// The farthest the fastest dynamic body's centre may move in one step, as a fraction of
    /// the smallest radius (default [`AutoStep::REACH`]).
    pub reach: f32,
    /// The penetration and residual budget: the deepest overlap, and the residual × h, as a
    /// fraction of the smallest radius (default [`AutoStep::PENETRATION`]).
    pub penetration: f32,
}

impl AutoStep {
    /// The default reach: half the smallest radius per step.
    pub const REACH: f32 = 0.5;
    /// The default budget: 2 % of the smallest radius.
    pub const PENETRATION: f32 = 0.02;
    /// The default h_min as a fraction of h_max.
    pub const H_MIN_RATIO: f32 = 1e-4;

    /// The defaults for a largest step `h_max`: h_min = h_max × [`AutoStep::H_MIN_RATIO`],
    /// the default reach and budget.
    pub fn new(h_max: f32) -> AutoStep {
        AutoStep {
            h_min: h_max * Self::H_MIN_RATIO,
            reach: Self::REACH,
            penetration: Self::PENETRATION,
        }
    }

    /// Checks the fields against the largest step `h_max`.
    pub(crate) fn check(&self, h_max: f32) -> Result<(), BuildError> {
        let err = |field, problem: String| Err(BuildError::Settings { field, problem });
        if !(self.h_min.is_finite() && self.h_min > 0.0) {
            return err(
                "h_min",
                format!("must be positive and finite, got {}", self.h_min),
            );
        }
        if self.h_min > h_max {
            return err(
                "h_min",
                format!(
                    "is {} s, above h_max = {h_max} s: the adaptive step chooses h in [h_min, h_max]",
                    self.h_min
                ),
            );
        }
        if !(self.reach.is_finite() && self.reach > 0.0) {
            return err(
                "reach",
                format!("must be positive and finite, got {}", self.reach),
            );
        }
        if !(self.penetration.is_finite() && self.penetration > 0.0) {
            return err(
                "penetration_budget",
                format!("must be positive and finite, got {}", self.penetration),
            );
        }
        Ok(())
    }
}

/// The adaptive step's state: the h it wants next, the last step's h (which the warm start
/// scales from), and the steps it took so far (saved in checkpoints).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepControl {
    /// The h the controller wants for the next step (s), before the reach cap.
    pub next: f32,
    /// The h of the last step taken (s).
    pub last: f32,
    /// The shortest step of the last tick (s), which the energy check's joint pull reads.
    pub tick_shortest: f32,
    /// Steps taken since the world was built.
    pub taken: u64,
    /// Steps whose h the controller wanted below h_min and took at h_min.
    pub floored: u64,
    /// The shortest step taken (s); infinity before the first.
    pub shortest: f32,
    /// The longest step taken (s); 0 before the first.
    pub longest: f32,
    /// The sum of the steps taken (s), for the mean.
    pub sum: f64,
    /// The deepest overlap any step started from (m).
    pub deepest: f32,
    /// The deepest overlap the last step started from (m).
    pub overlap: f32,
}

/// The bytes [`StepControl::to_bytes`] writes.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub const CONTROL_BYTES: usize = 52;

impl StepControl {
    /// A controller that starts at the largest step `h_max`.
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn new(h_max: f32) -> StepControl {
        StepControl {
            next: h_max,
            last: h_max,
            tick_shortest: h_max,
            taken: 0,
            floored: 0,
            shortest: f32::INFINITY,
            longest: 0.0,
            sum: 0.0,
            deepest: 0.0,
            overlap: 0.0,
        }
    }

    /// The mean step taken (s); 0 before the first.
    pub fn mean(&self) -> f64 {
        if self.taken == 0 {
            0.0
        } else {
            self.sum / self.taken as f64
        }
    }

    /// The state as little-endian bytes, [`CONTROL_BYTES`] of them (the checkpoint's).
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn to_bytes(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(CONTROL_BYTES);
        for x in [self.next, self.last, self.tick_shortest] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&self.taken.to_le_bytes());
        out.extend_from_slice(&self.floored.to_le_bytes());
        out.extend_from_slice(&self.shortest.to_le_bytes());
        out.extend_from_slice(&self.longest.to_le_bytes());
        out.extend_from_slice(&self.sum.to_le_bytes());
        out.extend_from_slice(&self.deepest.to_le_bytes());
        out.extend_from_slice(&self.overlap.to_le_bytes());
        out
    }

    /// Reads what [`StepControl::to_bytes`] wrote; `None` for another length.
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn from_bytes(b: &[u8]) -> Option<StepControl> {
        if b.len() != CONTROL_BYTES {
            return None;
        }
        let f = |i: usize| f32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let u = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        Some(StepControl {
            next: f(0),
            last: f(4),
            tick_shortest: f(8),
            taken: u(12),
            floored: u(20),
            shortest: f(28),
            longest: f(32),
            sum: f64::from_bits(u(36)),
            deepest: f(44),
            overlap: f(48),
        })
    }

    /// Whether the state is one a world with these settings can continue from: positive,
    /// finite steps within [h_min, h_max] (a step shortened to land on a tick may be shorter
    /// than h_min, never longer than h_max).
    pub(crate) fn is_valid(&self, auto: &AutoStep, h_max: f32) -> bool {
        let step = |h: f32| h.is_finite() && h > 0.0 && h <= h_max;
        step(self.next)
            && self.next >= auto.h_min
            && step(self.last)
            && step(self.tick_shortest)
            && self.sum.is_finite()
            && self.sum >= 0.0
            && self.deepest.is_finite()
            && self.deepest >= 0.0
            && self.overlap.is_finite()
            && self.overlap >= 0.0
            && self.floored <= self.taken
    }

    /// The step to take with `remaining` seconds left in the tick: the wanted h capped by the
    /// reach of the fastest dynamic body in `bodies` (smallest radius `r_min`), at least
    /// h_min, then shortened to land on the tick's end.
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn choose(&self, auto: &AutoStep, bodies: &Bodies, r_min: f32, remaining: f64) -> Choice {
        let speed = (0..bodies.len())
            .filter(|&i| bodies.is_dynamic(i))
            .map(|i| bodies.motion[i].v().length())
            .fold(0.0, f32::max);
        let wanted = self.next.min(auto.reach * r_min / speed);
        let chosen = wanted.max(auto.h_min);
        let lands = remaining <= chosen as f64;
        let h = if lands {
            remaining as f32
        } else if remaining < 2.0 * chosen as f64 {
            (remaining / 2.0) as f32
        } else {
            chosen
        };
        Choice {
            h,
            lands,
            chosen,
            wanted,
            speed,
        }
    }

    /// Records the step `c` taken, with statistics `stats`, in a world with smallest radius
    /// `r_min`, solver tolerance `tolerance` and rigid contact or not, and adapts the h wanted
    /// next within [h_min, `h_max`].
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn record(
        &mut self,
        auto: &AutoStep,
        c: &Choice,
        (stats, r_min, tolerance, rigid): (&StepStats, f32, f32, bool),
        h_max: f32,
    ) {
        let (h, chosen) = (c.h, c.chosen);
        self.taken += 1;
        self.floored += c.floored(auto) as u64;
        self.shortest = self.shortest.min(h);
        self.longest = self.longest.max(h);
        self.sum += h as f64;
        self.deepest = self.deepest.max(stats.max_penetration);
        self.last = h;
        let budget = auto.penetration * r_min;
        let drift = match stats.residual > tolerance {
            true => stats.residual * h,
            false => 0.0,
        };
        let deepening = match rigid && stats.max_penetration > self.overlap {
            true => stats.max_penetration,
            false => 0.0,
        };
        self.overlap = stats.max_penetration;
        let worst = deepening.max(drift);
        self.next = if worst > budget {
            h * SHRINK
        } else if worst < 0.5 * budget {
            chosen * GROW
        } else {
            chosen
        }
        .clamp(auto.h_min, h_max);
    }
}

/// One step's h as [`StepControl::choose`] chose it.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The step taken (s).
    pub h: f32,
    /// Whether it ends the tick (the rest of it, at most `chosen`).
    pub lands: bool,
    /// The controller's h before landing on the tick: `wanted`, at least h_min (s).
    pub chosen: f32,
    /// The h the controller wanted: the wanted h capped by the reach (s).
    pub wanted: f32,
    /// The fastest dynamic body's speed (m/s).
    pub speed: f32,
}

impl Choice {
    /// Whether the controller wanted less than h_min.
    pub fn floored(&self, auto: &AutoStep) -> bool {
        self.wanted < auto.h_min
    }
}
