//! Joints: bilateral constraints Θ(q) = 0 between two bodies or a body and the world, enforced
//! at velocity level with the stabilising term Θ/h (hart-anitescu eq. 2.8):
//!
//! ```text
//! Θ(q⁽ˡ⁾)/h + ∇Θ(q⁽ˡ⁾)ᵀ v⁺ = 0,     v⁺ = v* + M⁻¹ ∇Θ c_ν + M⁻¹ D γ   (c_ν free: no projection)
//! ```
//!
//! so a joint's drift after a step is the O(h²) of the linearisation and never accumulates.
//! This file holds what a joint is and the gradients ∇Θ of its scalar constraints; stage 5
//! (prepare) turns them into the rows of [`crate::joint_rows`], which stage 6 (solve) relaxes
//! with the contacts.
//!
//! Every gradient has the form J = (l, a, −l, b) on (v_a, ω_a, v_b, ω_b): a linear part that
//! acts on the two bodies with opposite signs and an angular part per body.

use crate::layout::{Bodies, NO_BODY};
use glam::{Quat, Vec3};

/// What a joint holds fixed between its bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointConstraint {
    /// Point to point: the anchors coincide, Θ = p_a − p_b (3 rows).
    Ball,
    /// Ball joint whose bodies keep an axis aligned: u_a ⊥ the two normals n₁, n₂ of b's axis
    /// (3 + 2 rows); free rotation about the axis.
    Hinge,
    /// The anchors keep their distance: Θ = ‖p_a − p_b‖ − `length` (1 row).
    Distance {
        /// Distance L to keep (m).
        length: f32,
    },
    /// Ball joint with the relative orientation fixed: the bodies move as one (3 + 3 rows).
    Fixed,
    /// Relative orientation fixed and a's anchor on b's line along the axis: Θ = (p_a − p_b)·n₁,
    /// (p_a − p_b)·n₂ (2 + 3 rows); free sliding along the axis.
    Prismatic,
}

/// A prescribed relative speed along a hinge's axis (rad/s) or a prismatic joint's axis (m/s),
/// as one more bilateral row ∇ψᵀ v⁺ = s whose impulse is bounded by ±`max_force`·h.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motor {
    /// Relative speed s of a with respect to b about (along) the axis.
    pub speed: f32,
    /// Largest torque (N m) or force (N) the motor exerts; infinity for no bound.
    pub max_force: f32,
}

/// The elasticity of a bond: a fixed joint whose six rows are the linearly implicit springs of
/// [`crate::springs`] instead of hard constraints, in the bond's own frame (its axis n, from
/// a's centre to b's when built and turning with b, and two directions across it): the
/// positional row along n with stiffness `linear` (N/m), the two across it with `shear`, each
/// with damping `linear_damping` (N s/m); the orientation row about n with `twisting` (N m/rad),
/// the two across it with `angular` (bending), each with `angular_damping` (N m s/rad). A pull
/// F displaces the anchors by F/k_n, a force across the bond by F/k_s, a bending moment M turns
/// the bodies by M/k_b and a twisting one by M/k_t.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BondStiffness {
    /// Stiffness k_n of the positional row along the bond (N/m).
    pub linear: f32,
    /// Stiffness k_s of each positional row across the bond (N/m).
    pub shear: f32,
    /// Damping of each positional row (N s/m).
    pub linear_damping: f32,
    /// Stiffness k_b of each orientation row across the bond: bending (N m/rad).
    pub angular: f32,
    /// Stiffness k_t of the orientation row about the bond: twisting (N m/rad).
    pub twisting: f32,
    /// Damping of each orientation row (N m s/rad).
    pub angular_damping: f32,
}

impl BondStiffness {
    /// The same stiffness `linear` along and across the bond and `angular` in bending and
    /// twisting, with the dampings `linear_damping` and `angular_damping`.
    pub fn isotropic(linear: f32, linear_damping: f32, angular: f32, angular_damping: f32) -> Self {
        BondStiffness {
            linear,
            shear: linear,
            linear_damping,
            angular,
            twisting: angular,
            angular_damping,
        }
    }

    /// The stiffness and damping of the bond's row `k`: along, across, across, about, across,
    /// across the axis (the order of [`Joint::constraints`] for a bond).
    pub(crate) fn row(&self, k: usize) -> (f32, f32) {
        match k {
            0 => (self.linear, self.linear_damping),
            1 | 2 => (self.shear, self.linear_damping),
            3 => (self.twisting, self.angular_damping),
            _ => (self.angular, self.angular_damping),
        }
    }
}

/// The strength of a bond: the loads at its anchor beyond which it breaks for good, at the end
/// of the step that carried them (infinity: never on that account). Only a pull breaks a bond
/// along its axis; a push is carried whatever its size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BondStrength {
    /// Largest tension along the bond's axis (N).
    pub tensile: f32,
    /// Largest force across the axis (N).
    pub shear: f32,
    /// Largest moment about an axis across the bond's (N m).
    pub bending: f32,
    /// Largest moment about the bond's axis (N m).
    pub twisting: f32,
}

impl BondStrength {
    /// Whether `load` exceeds any of the four strengths.
    pub fn broken_by(&self, load: &BondLoad) -> bool {
        load.tension > self.tensile
            || load.shear > self.shear
            || load.bending > self.bending
            || load.twisting > self.twisting
    }
}

/// What a bond carried in a step, at its anchor, split along and across its axis n (the line
/// from a's centre to b's when built, turning with b; to the anchor for a bond to the world):
/// the force F = c/h its three positional rows put on a and the moment M = c/h of its three
/// orientation rows, each row's impulse c being one component in the bond's frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BondLoad {
    /// F·n (N): positive when the bond pulls the grains together (it is stretched).
    pub tension: f32,
    /// ‖F − (F·n) n‖ (N).
    pub shear: f32,
    /// ‖M − (M·n) n‖ (N m).
    pub bending: f32,
    /// |M·n| (N m).
    pub twisting: f32,
}

/// A joint as the kernels store it: anchors and axes in the bodies' own frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joint {
    /// What it constrains.
    pub kind: JointConstraint,
    /// Body a.
    pub body_a: u32,
    /// Body b, or [`NO_BODY`] for the world (a fixed frame at the origin).
    pub body_b: u32,
    /// Anchor on a, from a's centre in a's frame (m).
    pub anchor_a: Vec3,
    /// Anchor on b, from b's centre in b's frame (world coordinates when b is the world).
    pub anchor_b: Vec3,
    /// Unit axis in a's frame (hinge).
    pub axis_a: Vec3,
    /// Unit axis in b's frame (hinge, prismatic).
    pub axis_b: Vec3,
    /// A unit normal n₁ of the axis in b's frame; n₂ = axis × n₁.
    pub normal_b: Vec3,
    /// Relative orientation q_b⁻¹ q_a that fixed and prismatic joints keep.
    pub orientation: Quat,
    /// Motor along the axis (hinge, prismatic), if any.
    pub motor: Option<Motor>,
    /// The elasticity of a bond (fixed joints only; `None`: a hard joint).
    pub bond: Option<BondStiffness>,
    /// Whether the rows carry the stabilising term Θ/h (off only to show the drift without it).
    pub stabilise: bool,
    /// Whether the two bodies still collide with each other (default); when false their
    /// contacts are dropped ([`crate::collision_filter`]) while the joint holds.
    pub collide: bool,
    /// A bond's strength (`None`: it never breaks).
    pub strength: Option<BondStrength>,
    /// Whether the bond has broken: it then adds no rows, and its grains collide.
    pub broken: bool,
}

/// Position and orientation of a joint's or spring's body, or of the world.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pose {
    pub(crate) centre: Vec3,
    rotation: Quat,
}

impl Pose {
    /// The pose of `body`; the world (origin, no rotation) for [`NO_BODY`].
    pub(crate) fn of(bodies: &Bodies, body: u32) -> Pose {
        if body == NO_BODY {
            Pose {
                centre: Vec3::ZERO,
                rotation: Quat::IDENTITY,
            }
        } else {
            Pose {
                centre: bodies.pos_radius[body as usize].truncate(),
                rotation: bodies.orientation[body as usize],
            }
        }
    }

    /// The world point `p` in the body's frame, from its centre.
    pub(crate) fn local(&self, p: Vec3) -> Vec3 {
        self.rotation.conjugate() * (p - self.centre)
    }

    /// The world arm from the centre to the body-frame point `local`.
    pub(crate) fn arm(&self, local: Vec3) -> Vec3 {
        self.rotation * local
    }
}

impl Joint {
    /// A joint of `kind` between `body_a` and `body_b` ([`NO_BODY`]: the world) at the bodies'
    /// present poses: the world points `anchor_a` and `anchor_b` become fixed in their bodies
    /// and the world direction `axis` (unit) in both; the present relative orientation is the
    /// one fixed and prismatic joints keep. Stabilised, no motor.
    pub fn new(
        kind: JointConstraint,
        body_a: u32,
        body_b: u32,
        anchor_a: Vec3,
        anchor_b: Vec3,
        axis: Vec3,
        bodies: &Bodies,
    ) -> Joint {
        let (a, b) = (Pose::of(bodies, body_a), Pose::of(bodies, body_b));
        let ib = b.rotation.conjugate();
        let axis_b = ib * axis;
        Joint {
            kind,
            body_a,
            body_b,
            anchor_a: a.local(anchor_a),
            anchor_b: b.local(anchor_b),
            axis_a: a.rotation.conjugate() * axis,
            axis_b,
            normal_b: axis_b.any_orthonormal_vector(),
            orientation: ib * a.rotation,
            motor: None,
            bond: None,
            stabilise: true,
            collide: true,
            strength: None,
            broken: false,
        }
    }

    /// Rows the joint adds to a step (its constraints and its motor; none once broken).
    pub fn row_count(&self) -> usize {
        if self.broken {
            return 0;
        }
        let constraints = match self.kind {
            JointConstraint::Ball => 3,
            JointConstraint::Hinge | JointConstraint::Prismatic => 5,
            JointConstraint::Distance { .. } => 1,
            JointConstraint::Fixed => 6,
        };
        constraints + usize::from(self.motor.is_some())
    }

    /// The constraint gradients ∇Θ and values Θ(q) at the bodies' present poses (at most six;
    /// none once broken).
    pub(crate) fn constraints(&self, bodies: &Bodies, out: &mut [Gradient; 6]) -> usize {
        if self.broken {
            return 0;
        }
        let (a, b) = (Pose::of(bodies, self.body_a), Pose::of(bodies, self.body_b));
        let (ra, rb) = (a.arm(self.anchor_a), b.arm(self.anchor_b));
        let (pa, pb) = (a.centre + ra, b.centre + rb);
        let normals = || {
            let n1 = b.rotation * self.normal_b;
            (n1, (b.rotation * self.axis_b).cross(n1))
        };
        match self.kind {
            JointConstraint::Ball => {
                point_gradients(pa - pb, ra, rb, &mut out[..3]);
                3
            }
            JointConstraint::Hinge => {
                point_gradients(pa - pb, ra, rb, &mut out[..3]);
                let (n1, n2) = normals();
                let ua = a.rotation * self.axis_a;
                out[3] = alignment_gradient(ua, n1);
                out[4] = alignment_gradient(ua, n2);
                5
            }
            JointConstraint::Distance { length } => {
                out[0] = distance_gradient(pa - pb, ra, rb, length);
                1
            }
            JointConstraint::Fixed if self.bond.is_some() => {
                // The bond's frame: its axis and a direction across it, fixed in b.
                let (n, t1) = (b.rotation * self.axis_b, b.rotation * self.normal_b);
                let frame = [n, t1, n.cross(t1)];
                framed_point_gradients(pa - pb, ra, rb, frame, &mut out[..3]);
                let turn = rotation_vector(a.rotation, b.rotation * self.orientation);
                for (g, e) in out[3..].iter_mut().zip(frame) {
                    *g = Gradient {
                        lin: Vec3::ZERO,
                        ang_a: e,
                        ang_b: -e,
                        theta: turn.dot(e),
                    };
                }
                6
            }
            JointConstraint::Fixed => {
                point_gradients(pa - pb, ra, rb, &mut out[..3]);
                orientation_gradients(a.rotation, b.rotation * self.orientation, &mut out[3..]);
                6
            }
            JointConstraint::Prismatic => {
                // b's arm to a's anchor: the exact gradient of (p_a − p_b)·n on b's side.
                let rb_at_pa = pa - b.centre;
                let (n1, n2) = normals();
                out[0] = line_gradient(pa - pb, ra, rb_at_pa, n1);
                out[1] = line_gradient(pa - pb, ra, rb_at_pa, n2);
                orientation_gradients(a.rotation, b.rotation * self.orientation, &mut out[2..5]);
                5
            }
        }
    }

    /// The motor row's gradient: the relative angular velocity about a's axis (hinge) or the
    /// relative velocity of a's anchor along b's axis (prismatic).
    pub(crate) fn motor_gradient(&self, bodies: &Bodies) -> Gradient {
        let (a, b) = (Pose::of(bodies, self.body_a), Pose::of(bodies, self.body_b));
        match self.kind {
            JointConstraint::Prismatic => {
                let pa = a.centre + a.arm(self.anchor_a);
                let u = b.rotation * self.axis_b;
                line_gradient(Vec3::ZERO, pa - a.centre, pa - b.centre, u)
            }
            _ => {
                let u = a.rotation * self.axis_a;
                Gradient {
                    lin: Vec3::ZERO,
                    ang_a: u,
                    ang_b: -u,
                    theta: 0.0,
                }
            }
        }
    }

    /// What a bond carried in a step of length `h` whose impulses on its six rows (in the
    /// bond's frame: along, across, across, about, across, across its axis) were `gamma` (N s,
    /// then N m s) ([`BondLoad`]).
    pub fn bond_load(gamma: &[f32; 6], h: f32) -> BondLoad {
        BondLoad {
            tension: gamma[0] / h,
            shear: gamma[1].hypot(gamma[2]) / h,
            twisting: gamma[3].abs() / h,
            bending: gamma[4].hypot(gamma[5]) / h,
        }
    }

    /// How far the joint is from Θ(q) = 0 at the bodies' present poses: (‖Θ‖ of the
    /// positional rows in m, ‖Θ‖ of the angular rows in rad).
    pub fn violation(&self, bodies: &Bodies) -> (f32, f32) {
        let mut g = [Gradient::default(); 6];
        let n = self.constraints(bodies, &mut g);
        let (mut position, mut angle) = (0.0f32, 0.0f32);
        for r in &g[..n] {
            if r.lin == Vec3::ZERO {
                angle += r.theta * r.theta;
            } else {
                position += r.theta * r.theta;
            }
        }
        (position.sqrt(), angle.sqrt())
    }
}

/// One scalar constraint: its gradient J = (lin, ang_a, −lin, ang_b) and its value Θ(q).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Gradient {
    pub(crate) lin: Vec3,
    pub(crate) ang_a: Vec3,
    pub(crate) ang_b: Vec3,
    pub(crate) theta: f32,
}

/// Ball joint, Θ = p_a − p_b along the world axes: d/dt (p·e) = e·v + (r × e)·ω.
fn point_gradients(gap: Vec3, ra: Vec3, rb: Vec3, out: &mut [Gradient]) {
    for (k, g) in out.iter_mut().enumerate() {
        let e = Vec3::AXES[k];
        *g = Gradient {
            lin: e,
            ang_a: ra.cross(e),
            ang_b: -rb.cross(e),
            theta: gap[k],
        };
    }
}

/// Hinge alignment, Θ = u_a·n (n a normal of b's axis): dΘ/dt = (ω_a − ω_b)·(u_a × n).
fn alignment_gradient(ua: Vec3, n: Vec3) -> Gradient {
    let c = ua.cross(n);
    Gradient {
        lin: Vec3::ZERO,
        ang_a: c,
        ang_b: -c,
        theta: ua.dot(n),
    }
}

/// Distance between the anchors, Θ = ‖p_a − p_b‖ − L along n = (p_a − p_b)/‖p_a − p_b‖; a zero
/// gradient (the row is skipped) when the anchors meet and n is undefined.
pub(crate) fn distance_gradient(gap: Vec3, ra: Vec3, rb: Vec3, length: f32) -> Gradient {
    let d = gap.length();
    if d == 0.0 {
        return Gradient::default();
    }
    let n = gap / d;
    Gradient {
        lin: n,
        ang_a: ra.cross(n),
        ang_b: -rb.cross(n),
        theta: d - length,
    }
}

/// Prismatic line, Θ = (p_a − p_b)·n with n fixed in b: dΘ/dt = n·(v_a + ω_a × r_a − v_b −
/// ω_b × (p_a − x_b)), so b's arm reaches a's anchor.
fn line_gradient(gap: Vec3, ra: Vec3, rb_at_pa: Vec3, n: Vec3) -> Gradient {
    Gradient {
        lin: n,
        ang_a: ra.cross(n),
        ang_b: -rb_at_pa.cross(n),
        theta: gap.dot(n),
    }
}

/// Ball joint along the directions `frame` (a bond's axis and two across it): the point
/// gradients of [`point_gradients`] with each e of the frame in place of the world axes.
fn framed_point_gradients(gap: Vec3, ra: Vec3, rb: Vec3, frame: [Vec3; 3], out: &mut [Gradient]) {
    for (g, e) in out.iter_mut().zip(frame) {
        *g = Gradient {
            lin: e,
            ang_a: ra.cross(e),
            ang_b: -rb.cross(e),
            theta: gap.dot(e),
        };
    }
}

/// The rotation vector θ ≈ 2 vec(q_a q_target⁻¹) that takes a's target orientation to its
/// actual one (world coordinates), with dθ/dt ≈ ω_a − ω_b.
fn rotation_vector(qa: Quat, target: Quat) -> Vec3 {
    let mut e = qa * target.conjugate();
    if e.w < 0.0 {
        e = -e;
    }
    2.0 * e.xyz()
}

/// Fixed relative orientation along the world axes ([`rotation_vector`]).
fn orientation_gradients(qa: Quat, target: Quat, out: &mut [Gradient]) {
    let theta = rotation_vector(qa, target);
    for (k, g) in out.iter_mut().enumerate() {
        let axis = Vec3::AXES[k];
        *g = Gradient {
            lin: Vec3::ZERO,
            ang_a: axis,
            ang_b: -axis,
            theta: theta[k],
        };
    }
}
