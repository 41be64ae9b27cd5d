//! Joints, springs and applied forces as a user describes them: in world coordinates at the
//! bodies' starting poses, checked and fixed in the bodies' frames by `WorldBuilder::build`.
//!
//! A joint is a bilateral constraint Θ(q) = 0 solved in the same sweeps as the contacts, with
//! the stabilising term Θ/h (hart-anitescu §2), so its drift stays O(h²) and never accumulates.
//! A spring–damper is linearly implicit by default (the anitescu slides' stiff method, stable at
//! any stiffness and step) or explicit (a force of the step's first stage). Bodies joined by a
//! joint or a spring still collide with each other: place them so that they do not overlap.

use crate::body::BodyKind;
use crate::error::{finite3, BuildError};
use glam::Vec3;
use grains_kernels::forces::Load;
pub use grains_kernels::joints::{BondLoad, BondStiffness, BondStrength};
use grains_kernels::joints::{Joint, JointConstraint as Kind};
use grains_kernels::springs::Spring;
use grains_kernels::{Bodies, NO_BODY};

pub use grains_kernels::joints::Motor;

/// What a joint holds fixed between its bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Point to point: the anchor stays a common point of both bodies (3 rows).
    Ball,
    /// Ball joint that also keeps the axis aligned in both bodies: free rotation about it (5
    /// rows); takes a motor.
    Hinge,
    /// The two anchors keep their starting distance (1 row).
    Distance,
    /// The bodies move as one: ball joint and relative orientation fixed (6 rows).
    Fixed,
    /// Relative orientation fixed; a's anchor slides on b's line through the anchor along the
    /// axis (5 rows); takes a motor.
    Prismatic,
}

impl JointKind {
    /// Every kind with its name, as scene files and the Python package spell it.
    pub const NAMES: [(&'static str, JointKind); 5] = [
        ("ball", JointKind::Ball),
        ("hinge", JointKind::Hinge),
        ("distance", JointKind::Distance),
        ("fixed", JointKind::Fixed),
        ("prismatic", JointKind::Prismatic),
    ];

    /// The kind called `name` ("ball", "hinge", "distance", "fixed" or "prismatic").
    pub fn from_name(name: &str) -> Option<JointKind> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, k)| k)
    }

    /// The names, quoted and listed for an error message: "ball", "hinge", … or "prismatic".
    pub fn names_listed() -> String {
        let quoted: Vec<String> = Self::NAMES.iter().map(|(n, _)| format!("{n:?}")).collect();
        format!("{} or {}", quoted[..4].join(", "), quoted[4])
    }
}

/// A joint between body `a` and body `b` or the world (`b = None`), described at the bodies'
/// starting poses.
#[derive(Clone, Copy, PartialEq)]
pub struct JointDesc {
    /// What it holds fixed.
    pub kind: JointKind,
    /// Index of body a.
    pub a: usize,
    /// Index of body b; `None`: the world.
    pub b: Option<usize>,
    /// The world point where the bodies are joined (for a distance joint: the anchor on a).
    pub anchor: Vec3,
    /// Distance joint: the anchor on b (world point); unused by the other kinds.
    pub anchor_b: Vec3,
    /// Hinge or prismatic axis (world direction, any non-zero length); unused by the others.
    pub axis: Vec3,
    /// Hinge or prismatic motor: relative speed of a with respect to b about (along) the axis.
    pub motor: Option<Motor>,
    /// The Θ/h stabilisation (default on; off only to show the drift without it, V14).
    pub stabilise: bool,
    /// Whether a and b still collide with each other (default true; false drops their
    /// contacts, for bodies built to overlap at the joint). Needs a body b.
    pub collide: bool,
    /// A fixed joint made elastic: a bond between two grains ([`JointDesc::bond`]); `None`:
    /// a hard joint.
    pub bond: Option<BondStiffness>,
    /// A bond's strength ([`JointDesc::breaking_at`]); `None`: it never breaks.
    pub strength: Option<BondStrength>,
}

/// As derived, with the strength listed only when set, so that a world without breakable
/// bonds keeps the fingerprint (and the checkpoints) it had before bonds could break.
impl std::fmt::Debug for JointDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("JointDesc");
        d.field("kind", &self.kind)
            .field("a", &self.a)
            .field("b", &self.b)
            .field("anchor", &self.anchor)
            .field("anchor_b", &self.anchor_b)
            .field("axis", &self.axis)
            .field("motor", &self.motor)
            .field("stabilise", &self.stabilise)
            .field("collide", &self.collide)
            .field("bond", &self.bond);
        if let Some(strength) = &self.strength {
            d.field("strength", strength);
        }
        d.finish()
    }
}

impl JointDesc {
    fn new(kind: JointKind, a: usize, b: Option<usize>, anchor: Vec3) -> Self {
        JointDesc {
            kind,
            a,
            b,
            anchor,
            anchor_b: anchor,
            axis: Vec3::Z,
            motor: None,
            stabilise: true,
            collide: true,
            bond: None,
            strength: None,
        }
    }

    /// A ball joint at the world point `anchor`.
    pub fn ball(a: usize, b: Option<usize>, anchor: Vec3) -> Self {
        Self::new(JointKind::Ball, a, b, anchor)
    }

    /// A hinge at `anchor` about `axis`.
    pub fn hinge(a: usize, b: Option<usize>, anchor: Vec3, axis: Vec3) -> Self {
        JointDesc {
            axis,
            ..Self::new(JointKind::Hinge, a, b, anchor)
        }
    }

    /// A distance joint keeping the points `anchor_a` of a and `anchor_b` of b at their
    /// starting distance.
    pub fn distance(a: usize, b: Option<usize>, anchor_a: Vec3, anchor_b: Vec3) -> Self {
        JointDesc {
            anchor_b,
            ..Self::new(JointKind::Distance, a, b, anchor_a)
        }
    }

    /// A fixed joint at `anchor` (any point; the midpoint of the centres balances the arms).
    pub fn fixed(a: usize, b: Option<usize>, anchor: Vec3) -> Self {
        Self::new(JointKind::Fixed, a, b, anchor)
    }

    /// A bond between grains a and b (or a and the world) at the world point `anchor`: a
    /// fixed joint whose rows are springs of `stiffness` (a force F moves the anchors apart by
    /// F/k, a moment M turns the bodies by M/k_r; see
    /// [`grains_kernels::joints::BondStiffness`]). The two grains do not collide while bonded.
    /// A chain of grains of spacing ℓ bonded with angular stiffness k_r bends as an
    /// Euler–Bernoulli beam of E I = k_r ℓ.
    pub fn bond(a: usize, b: Option<usize>, anchor: Vec3, stiffness: BondStiffness) -> Self {
        JointDesc {
            bond: Some(stiffness),
            collide: b.is_none(),
            ..Self::new(JointKind::Fixed, a, b, anchor)
        }
    }

    /// A prismatic joint: a's point `anchor` slides on b's line through it along `axis`.
    pub fn prismatic(a: usize, b: Option<usize>, anchor: Vec3, axis: Vec3) -> Self {
        JointDesc {
            axis,
            ..Self::new(JointKind::Prismatic, a, b, anchor)
        }
    }

    /// This hinge (prismatic joint) driven at the relative angular speed (speed) `speed` rad/s
    /// (m/s) about (along) its axis, with at most `max_force` N m (N); infinity for no bound.
    pub fn with_motor(mut self, speed: f32, max_force: f32) -> Self {
        self.motor = Some(Motor { speed, max_force });
        self
    }

    /// This bond breaking at `strength`: after the first step whose load at its anchor exceeds
    /// one of the strengths it adds no rows, and its grains collide again (see
    /// [`grains_kernels::joints::BondStrength`], [`crate::World::broken_bonds`]).
    pub fn breaking_at(mut self, strength: BondStrength) -> Self {
        self.strength = Some(strength);
        self
    }

    /// This joint without the Θ/h term: only ∇Θᵀ v⁺ = 0, so its drift accumulates.
    pub fn without_stabilisation(mut self) -> Self {
        self.stabilise = false;
        self
    }

    /// This joint's two bodies no longer collide with each other: their contacts are dropped
    /// and the joint alone holds them (for bodies built to overlap at the joint).
    pub fn without_collision(mut self) -> Self {
        self.collide = false;
        self
    }

    /// The first thing wrong with this joint among bodies of which `dynamic[i]` tells whether
    /// body i moves: (field, problem).
    pub fn problem(&self, dynamic: &[bool]) -> Option<(&'static str, String)> {
        if let Some(p) = pair_problem(self.a, self.b, dynamic) {
            return Some(p);
        }
        if !finite3(self.anchor.to_array()) {
            return Some(("anchor", format!("must be finite, got {}", self.anchor)));
        }
        let has_axis = matches!(self.kind, JointKind::Hinge | JointKind::Prismatic);
        if has_axis && !(finite3(self.axis.to_array()) && self.axis.length() > 0.0) {
            return Some((
                "axis",
                format!("must be finite and non-zero, got {}", self.axis),
            ));
        }
        if self.kind == JointKind::Distance {
            if !finite3(self.anchor_b.to_array()) {
                return Some(("anchor_b", format!("must be finite, got {}", self.anchor_b)));
            }
            if self.anchor == self.anchor_b {
                return Some((
                    "anchor_b",
                    "coincides with the anchor on a: a distance joint needs two distinct points (use a ball joint)".into(),
                ));
            }
        }
        if !self.collide && self.b.is_none() {
            return Some((
                "collide",
                "false needs a body b: a joint to the world has no partner to stop colliding with"
                    .into(),
            ));
        }
        if let Some(bond) = self.bond {
            if self.kind != JointKind::Fixed {
                return Some((
                    "bond",
                    format!(
                        "only a fixed joint can be a bond, not a {:?} joint",
                        self.kind
                    ),
                ));
            }
            let stiff = |k: f32| k.is_finite() && k > 0.0;
            let damp = |c: f32| c.is_finite() && c >= 0.0;
            let values = [
                (
                    "stiffness",
                    bond.linear,
                    stiff(bond.linear),
                    "positive (N/m)",
                ),
                (
                    "shear_stiffness",
                    bond.shear,
                    stiff(bond.shear),
                    "positive (N/m)",
                ),
                (
                    "angular_stiffness",
                    bond.angular,
                    stiff(bond.angular),
                    "positive (N m/rad)",
                ),
                (
                    "twisting_stiffness",
                    bond.twisting,
                    stiff(bond.twisting),
                    "positive (N m/rad)",
                ),
                (
                    "damping",
                    bond.linear_damping,
                    damp(bond.linear_damping),
                    "≥ 0 (N s/m)",
                ),
                (
                    "angular_damping",
                    bond.angular_damping,
                    damp(bond.angular_damping),
                    "≥ 0 (N m s/rad)",
                ),
            ];
            if let Some((field, value, _, what)) = values.into_iter().find(|v| !v.2) {
                return Some((field, format!("must be finite and {what}, got {value}")));
            }
        }
        if let Some(s) = self.strength {
            if self.bond.is_none() {
                return Some((
                    "strength",
                    format!("only a bond can break, not a hard {:?} joint", self.kind),
                ));
            }
            let values = [
                ("tensile_strength", s.tensile),
                ("shear_strength", s.shear),
                ("bending_strength", s.bending),
                ("twisting_strength", s.twisting),
            ];
            if let Some((field, value)) = values.into_iter().find(|v| v.1.is_nan() || v.1 <= 0.0) {
                return Some((
                    field,
                    format!("must be positive (N or N m; infinity: never), got {value}"),
                ));
            }
        }
        match self.motor {
            Some(_) if !has_axis => Some((
                "motor",
                format!(
                    "only a hinge or a prismatic joint takes a motor, not a {:?} joint",
                    self.kind
                ),
            )),
            Some(m) if !m.speed.is_finite() || m.max_force.is_nan() || m.max_force <= 0.0 => {
                Some((
                    "motor",
                    format!(
                        "needs a finite speed and a positive force bound (infinity: none), got speed {} and bound {}",
                        m.speed, m.max_force
                    ),
                ))
            }
            _ => None,
        }
    }

    /// Checks joint `i` against the built `bodies` and fixes it in their frames.
    pub(crate) fn to_kernel(self, i: usize, bodies: &Bodies) -> Result<Joint, BuildError> {
        if let Some((field, problem)) = self.problem(&dynamic_flags(bodies)) {
            return Err(BuildError::Joint {
                joint: i,
                field,
                problem,
            });
        }
        let kind = match self.kind {
            JointKind::Ball => Kind::Ball,
            JointKind::Hinge => Kind::Hinge,
            JointKind::Fixed => Kind::Fixed,
            JointKind::Prismatic => Kind::Prismatic,
            JointKind::Distance => Kind::Distance {
                length: (self.anchor - self.anchor_b).length(),
            },
        };
        let anchor_b = match self.kind {
            JointKind::Distance => self.anchor_b,
            _ => self.anchor,
        };
        // A bond's axis runs from a's centre to b's (to the anchor for a bond to the world).
        let centre = |i: usize| bodies.pos_radius[i].truncate();
        let axis = match (self.bond, self.b) {
            (None, _) => self.axis,
            (Some(_), Some(b)) => centre(b) - centre(self.a),
            (Some(_), None) => self.anchor - centre(self.a),
        }
        .normalize_or(Vec3::Z);
        let b = kernel_index(self.b);
        let mut j = Joint::new(kind, self.a as u32, b, self.anchor, anchor_b, axis, bodies);
        j.motor = self.motor;
        j.stabilise = self.stabilise;
        j.collide = self.collide;
        j.bond = self.bond;
        j.strength = self.strength;
        Ok(j)
    }
}

/// Whether each body of `bodies` is dynamic.
fn dynamic_flags(bodies: &Bodies) -> Vec<bool> {
    bodies
        .kind
        .iter()
        .map(|&k| k == BodyKind::Dynamic as u32)
        .collect()
}

/// Body `b` as a kernel index: [`NO_BODY`] for the world.
fn kernel_index(b: Option<usize>) -> u32 {
    b.map_or(NO_BODY, |b| b as u32)
}

/// What is wrong with the bodies `a` and `b` (`None`: the world) of a joint or spring, if
/// anything: both must exist, differ, and one of them must move.
fn pair_problem(a: usize, b: Option<usize>, dynamic: &[bool]) -> Option<(&'static str, String)> {
    let n = dynamic.len();
    match b {
        _ if a >= n => Some(("a", format!("is body {a} but only {n} bodies exist"))),
        Some(b) if b >= n => Some(("b", format!("is body {b} but only {n} bodies exist"))),
        Some(b) if b == a => Some(("b", format!("is body {a}, the same body as a"))),
        _ if !dynamic[a] && !b.is_some_and(|b| dynamic[b]) => Some((
            "a",
            "and b are both fixed, kinematic or the world: nothing can move".into(),
        )),
        _ => None,
    }
}

/// How a spring–damper enters the step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpringIntegration {
    /// The anitescu slides' linearly implicit scheme (M̂ = M + h δ ∇ψ∇ψᵀ + h² k ∇φ∇φᵀ) as a
    /// soft row of the step's CCP: stable for any stiffness, damping and step.
    #[default]
    LinearlyImplicit,
    /// The force −(k φ + δ φ̇) ∇φ at the step's start, added with gravity: unstable once
    /// h δ (1/m_a + 1/m_b) > 2 (or h² k (1/m_a + 1/m_b) > 4).
    Explicit,
}

/// A spring–damper between the point `anchor_a` of body `a` and `anchor_b` of body `b` or of
/// the world (`b = None`): the force −(k (‖p_a − p_b‖ − L) + δ d‖p_a − p_b‖/dt) along the line
/// between them (on a; its opposite on b).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringDesc {
    /// Index of body a.
    pub a: usize,
    /// Index of body b; `None`: the world.
    pub b: Option<usize>,
    /// Anchor on a (world point at the start).
    pub anchor_a: Vec3,
    /// Anchor on b (world point at the start).
    pub anchor_b: Vec3,
    /// Stiffness k ≥ 0 (N/m).
    pub stiffness: f32,
    /// Damping δ ≥ 0 (N s/m).
    pub damping: f32,
    /// Rest length L (m); `None`: the anchors' starting distance.
    pub rest_length: Option<f32>,
    /// Linearly implicit (default) or explicit.
    pub integration: SpringIntegration,
}

impl SpringDesc {
    /// A linearly implicit spring–damper between the anchors, with no stiffness or damping
    /// yet and rest length their starting distance.
    pub fn new(a: usize, b: Option<usize>, anchor_a: Vec3, anchor_b: Vec3) -> Self {
        SpringDesc {
            a,
            b,
            anchor_a,
            anchor_b,
            stiffness: 0.0,
            damping: 0.0,
            rest_length: None,
            integration: SpringIntegration::LinearlyImplicit,
        }
    }

    /// This spring with stiffness `k` (N/m).
    pub fn with_stiffness(mut self, k: f32) -> Self {
        self.stiffness = k;
        self
    }

    /// This spring with damping `delta` (N s/m).
    pub fn with_damping(mut self, delta: f32) -> Self {
        self.damping = delta;
        self
    }

    /// This spring with rest length `length` (m).
    pub fn with_rest_length(mut self, length: f32) -> Self {
        self.rest_length = Some(length);
        self
    }

    /// This spring integrated explicitly (a force of the step's first stage).
    pub fn explicit(mut self) -> Self {
        self.integration = SpringIntegration::Explicit;
        self
    }

    /// The first thing wrong with this spring among bodies of which `dynamic[i]` tells whether
    /// body i moves: (field, problem).
    pub fn problem(&self, dynamic: &[bool]) -> Option<(&'static str, String)> {
        if let Some(p) = pair_problem(self.a, self.b, dynamic) {
            return Some(p);
        }
        for (field, p) in [("anchor_a", self.anchor_a), ("anchor_b", self.anchor_b)] {
            if !finite3(p.to_array()) {
                return Some((field, format!("must be finite, got {p}")));
            }
        }
        if self.anchor_a == self.anchor_b {
            return Some((
                "anchor_b",
                "coincides with anchor_a: the spring's direction is undefined".into(),
            ));
        }
        for (field, x) in [("stiffness", self.stiffness), ("damping", self.damping)] {
            if !(x.is_finite() && x >= 0.0) {
                return Some((field, format!("must be finite and ≥ 0, got {x}")));
            }
        }
        if self.stiffness == 0.0 && self.damping == 0.0 {
            return Some((
                "stiffness",
                "and damping are both 0: the spring does nothing".into(),
            ));
        }
        match self.rest_length {
            Some(l) if !(l.is_finite() && l >= 0.0) => {
                Some(("rest_length", format!("must be finite and ≥ 0, got {l}")))
            }
            _ => None,
        }
    }

    /// Checks spring `i` against the built `bodies` and fixes it in their frames.
    pub(crate) fn to_kernel(self, i: usize, bodies: &Bodies) -> Result<Spring, BuildError> {
        if let Some((field, problem)) = self.problem(&dynamic_flags(bodies)) {
            return Err(BuildError::Spring {
                spring: i,
                field,
                problem,
            });
        }
        let b = kernel_index(self.b);
        let mut s = Spring::new(self.a as u32, b, self.anchor_a, self.anchor_b, bodies);
        if let Some(l) = self.rest_length {
            s.length = l;
        }
        s.stiffness = self.stiffness;
        s.damping = self.damping;
        s.implicit = self.integration == SpringIntegration::LinearlyImplicit;
        Ok(s)
    }
}

/// A force on a body's centre of mass, f(t) = `force` · cos(ω t + φ) (constant for ω = φ = 0),
/// taken at the start of each step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AppliedForce {
    /// Index of the (dynamic) body.
    pub body: usize,
    /// Amplitude (N).
    pub force: Vec3,
    /// Angular frequency ω (rad/s).
    pub angular_frequency: f32,
    /// Phase φ (rad).
    pub phase: f32,
}

impl AppliedForce {
    /// A constant force.
    pub fn constant(body: usize, force: Vec3) -> Self {
        Self::harmonic(body, force, 0.0, 0.0)
    }

    /// The force `force` · cos(ω t + φ).
    pub fn harmonic(body: usize, force: Vec3, angular_frequency: f32, phase: f32) -> Self {
        AppliedForce {
            body,
            force,
            angular_frequency,
            phase,
        }
    }

    /// The force at time `t` (s) as the step's stage 1 applies it.
    pub(crate) fn load(&self, t: f64) -> Load {
        let arg = self.angular_frequency as f64 * t + self.phase as f64;
        Load {
            body: self.body as u32,
            force: self.force * arg.cos() as f32,
            torque: glam::Vec3::ZERO,
        }
    }

    /// The first thing wrong with this force among bodies of which `dynamic[i]` tells whether
    /// body i moves: (field, problem).
    pub fn problem(&self, dynamic: &[bool]) -> Option<(&'static str, String)> {
        match dynamic.get(self.body) {
            None => {
                return Some((
                    "body",
                    format!(
                        "is body {} but only {} bodies exist",
                        self.body,
                        dynamic.len()
                    ),
                ))
            }
            Some(false) => {
                return Some((
                    "body",
                    format!("is body {}, which is not dynamic", self.body),
                ))
            }
            Some(true) => {}
        }
        if !finite3(self.force.to_array()) {
            return Some(("force", format!("must be finite, got {}", self.force)));
        }
        if !(self.angular_frequency.is_finite() && self.phase.is_finite()) {
            return Some((
                "angular_frequency",
                format!(
                    "and phase must be finite, got {} and {}",
                    self.angular_frequency, self.phase
                ),
            ));
        }
        None
    }

    /// Checks force `i` against the built `bodies`.
    pub(crate) fn check(&self, i: usize, bodies: &Bodies) -> Result<(), BuildError> {
        match self.problem(&dynamic_flags(bodies)) {
            Some((field, problem)) => Err(BuildError::Force {
                force: i,
                field,
                problem,
            }),
            None => Ok(()),
        }
    }
}
