//! Stress-controlled walls: a plane wall with a [`Servo`] moves along its normal so that the
//! normal force the grains put on it approaches a target (LIGGGHTS' servo walls, Yade's stress
//! controllers), instead of following a [`Prescribed`](crate::Prescribed) motion.
//!
//! The law. Let F be the force the grains push on the wall along its normal (N, ≥ 0: the
//! total force of its contacts on the wall, [`crate::World::wall_loads`], dotted with minus
//! the normal, which points towards the grains) and F* the target. Each step the wall
//! *retreats* from the grains (moves along −normal) at
//!
//! v = clamp(gain · (F − F*), −v_max, v_max)
//!
//! so too much force (F > F*) backs it away and too little (F < F*, as before it touches
//! anything) brings it towards the grains, never faster than v_max. The wall moves by −v h
//! normal over the step and meets the grains with that velocity (a moving wall's contacts take
//! it, as a shaker's do). F is the load *measured in the previous step* (the step's contacts'
//! mean force, as `wall_loads` gives it), so the law is explicit: the velocity of a step is
//! fixed before its solve. The first step, having no measured load, takes F = 0 and so
//! approaches at min(gain F*, v_max). Outside the wall's active window
//! ([`crate::WallDesc::active_between`]) it does not move.
//!
//! Choosing the gain. Near the target a bed answers the wall's displacement with a stiffness
//! k_eff (N/m), so the error e = F − F* goes from step to step as e ← (1 − gain · k_eff · h) e:
//! the wall settles without overshoot when gain · k_eff · h < 1 and oscillates, growing, past
//! 2. With a compliant contact (`Settings::contact_frequency` f, the granular preset's
//! f = 1.2/h) a contact under load has the stiffness m (2π f)² of the mass m it carries, about
//! 57 m / h² with the preset; k_eff is that of the contacts under the wall, in series down the
//! bed (a 2 kg sphere pinned between a floor and a servo lid measured 1.9e7 N/m at h = 1 ms, so
//! gain < 5e-5 m/s per N; the 288-grain bed of `engine/tests/servo.rs` settles at gain 1e-2).
//! With rigid contact (f = ∞) the response is immediate: a wall pressed into a jammed bed
//! meets no finite stiffness, its load jumps between 0 and whatever the solve's stabilisation
//! gives, and the wall chatters by about v_max h each step; there the servo only holds a bed
//! that can flow, and a compliant contact is the way to hold a jammed one. Start from a
//! tolerated speed: a wall off its target by F* should move at v_tol (a small fraction of a
//! grain's radius per step, r / (100 h) say), so gain ≈ v_tol / F*, v_max a few times v_tol,
//! then lower the gain below 1 / (k_eff h) if the load oscillates. The gain also sets how fast
//! a wall that touches nothing comes to the grains (gain · F*, at most v_max): start it close
//! to them.
//!
//! The wall's displacement and the last measured load are state: a [`crate::Snapshot`] holds
//! them ([`ServoState`]), so a restored run continues bit for bit, and they are summed in
//! `f64` in contact order, the same bits for any thread count.

/// What a servo-controlled wall holds: its target normal force, gain and speed limit (see the
/// module's documentation for the law and the choice of the gain).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Servo {
    /// The target F* (N): the normal force the grains should push on the wall with; finite and
    /// not negative.
    pub force: f64,
    /// The gain (m/s per N): the wall retreats at gain · (F − F*); finite and positive.
    pub gain: f64,
    /// The largest speed v_max (m/s) the wall moves at either way; finite and positive.
    pub max_speed: f64,
}

impl Servo {
    /// A servo holding `force` (N) with `gain` (m/s per N), moving at most at `max_speed`
    /// (m/s).
    pub fn new(force: f64, gain: f64, max_speed: f64) -> Self {
        Servo {
            force,
            gain,
            max_speed,
        }
    }

    /// The speed (m/s) at which the wall retreats from the grains (along −normal; negative:
    /// towards them) when the grains push on it with `load` (N):
    /// clamp(gain · (load − force), −max_speed, max_speed).
    pub fn retreat_speed(&self, load: f64) -> f64 {
        (self.gain * (load - self.force)).clamp(-self.max_speed, self.max_speed)
    }

    /// The field and the problem of a bad value, if one is.
    pub(crate) fn problem(&self) -> Option<(&'static str, String)> {
        if !(self.force.is_finite() && self.force >= 0.0) {
            return Some((
                "servo.force",
                format!(
                    "must be finite and not negative (the grains can only push), got {}",
                    self.force
                ),
            ));
        }
        for (field, x) in [
            ("servo.gain", self.gain),
            ("servo.max_speed", self.max_speed),
        ] {
            if !(x.is_finite() && x > 0.0) {
                return Some((field, format!("must be finite and positive, got {x}")));
            }
        }
        None
    }
}

/// A servo-controlled wall's state: how far it has moved and the load it last measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ServoState {
    /// How far the wall has moved along its normal (towards the grains) since it was built
    /// (m); its face lies at `origin + advance · normal`.
    pub advance: f64,
    /// The normal force the grains pushed on the wall with in the last step (N), which sets
    /// the next step's velocity (0 before the first step).
    pub load: f64,
}

impl ServoState {
    /// Both values finite.
    pub(crate) fn is_finite(&self) -> bool {
        self.advance.is_finite() && self.load.is_finite()
    }
}

/// A wall with a servo, as the world keeps it: the wall's index, its servo and its state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ServoWall {
    /// The wall's index.
    pub wall: usize,
    /// Its servo.
    pub servo: Servo,
    /// Its state.
    pub state: ServoState,
}

/// The walls of `walls` that have a servo, in wall order, each at rest.
pub(crate) fn servo_walls(walls: &[crate::geometry::WallDesc]) -> Vec<ServoWall> {
    (walls.iter().enumerate())
        .filter_map(|(wall, w)| {
            w.servo.map(|servo| ServoWall {
                wall,
                servo,
                state: ServoState::default(),
            })
        })
        .collect()
}
