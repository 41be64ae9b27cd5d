//! Joints (rows built in stage 5, prepare; relaxed in stage 6, solve): bilateral constraints
//! Θ(q) = 0 between two bodies or a body and the world, enforced at velocity level with the stabilising term Θ/h (hart-anitescu eq. 2.8):
//!
//! ```text
//! Θ(q⁽ˡ⁾)/h + ∇Θ(q⁽ˡ⁾)ᵀ v⁺ = 0,     v⁺ = v* + M⁻¹ ∇Θ c_ν + M⁻¹ D γ   (c_ν free: no projection)
//! ```
//!
//! so a joint's drift after a step is the O(h²) of the linearisation and never accumulates.
//! Each step builds one [`JointRow`] per scalar constraint at q⁽ˡ⁾: every joint's rows in joint
//! order (a motor's row after its joint's), then the soft rows of the implicit springs of
//! [`crate::springs`]. The unbounded rows of each set of joints and springs connected through
//! dynamic bodies are solved as one block, exactly, through the Cholesky factor of their
//! K = J M⁻¹ Jᵀ (+ diag ε), factored once per step in f64; a motor's bounded row is relaxed on
//! its own with its effective mass *through* that block, so that the block solve which follows
//! leaves it exact too. Relaxing joints one by one instead converges far too slowly whenever a
//! light body carries heavy ones on long arms (a paddle's hub sphere holding eight arm spheres by
//! fixed joints needs thousands of block Gauss–Seidel sweeps; a pendulum bob on a 1 m arm gives
//! even a single joint's 3 rows a K of condition 1000). A set of more than
//! [`MAX_GROUP_ROWS`] rows (a long chain) is solved joint by joint instead, to bound the cost.
//!
//! The sweeps relax the joint rows together with the contacts: Gauss–Seidel once after each
//! sweep's colour classes, Jacobi after each per-body gather, always serially in order on one
//! thread. Joints are few next to contacts, so the serial pass costs little, needs no colouring
//! of the joint graph, and keeps the result independent of the thread count. The impulses are
//! warm-started by row index (a joint's rows keep their place while the joint list is fixed).
//!
//! Every row's Jacobian has the form J = (l, a, −l, b) on (v_a, ω_a, v_b, ω_b): a linear part
//! that acts on the two bodies with opposite signs and an angular part per body.

use crate::contact_update::apply_impulse;
use crate::layout::{Bodies, Motion, NO_BODY};
use crate::springs::{soft_row, Spring};
use crate::step::StepParams;
use bytemuck::{Pod, Zeroable};
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
    /// Whether the rows carry the stabilising term Θ/h (off only to show the drift without it).
    pub stabilise: bool,
    /// Whether the two bodies still collide with each other (default); when false their
    /// contacts are dropped ([`crate::collision_filter`]).
    pub collide: bool,
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
            stabilise: true,
            collide: true,
        }
    }

    /// Rows the joint adds to a step (its constraints and its motor).
    pub fn row_count(&self) -> usize {
        let constraints = match self.kind {
            JointConstraint::Ball => 3,
            JointConstraint::Hinge | JointConstraint::Prismatic => 5,
            JointConstraint::Distance { .. } => 1,
            JointConstraint::Fixed => 6,
        };
        constraints + usize::from(self.motor.is_some())
    }

    /// The constraint gradients ∇Θ and values Θ(q) at the bodies' present poses (at most six).
    fn constraints(&self, bodies: &Bodies, out: &mut [Gradient; 6]) -> usize {
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
    fn motor_gradient(&self, bodies: &Bodies) -> Gradient {
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

/// Fixed relative orientation: the rotation vector θ ≈ 2 vec(q_a q_target⁻¹) that takes a's
/// target orientation to its actual one, with dθ/dt ≈ ω_a − ω_b.
fn orientation_gradients(qa: Quat, target: Quat, out: &mut [Gradient]) {
    let mut e = qa * target.conjugate();
    if e.w < 0.0 {
        e = -e;
    }
    let theta = 2.0 * e.xyz();
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

/// One bilateral row of a step, J v⁺ + bias + ε c = 0 with c ∈ [lower, upper]; 60 bytes.
///
/// J = (lin, ang_a, −lin, ang_b). A joint row has bias Θ/h, ε = 0 and unbounded c; a motor row
/// bias −s and bounds ±F_max h; a spring's soft row the ε and bias of [`crate::springs`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct JointRow {
    /// Linear part of J on a (b gets its negative).
    pub lin: [f32; 3],
    /// Velocity-level bias: Θ/h, −s for a motor, the spring's kφ/(hk + δ).
    pub bias: f32,
    /// Angular part of J on a.
    pub ang_a: [f32; 3],
    /// Compliance ε (0 for a hard row).
    pub compliance: f32,
    /// Angular part of J on b.
    pub ang_b: [f32; 3],
    /// Smallest impulse (N s); −∞ for a bilateral row.
    pub lower: f32,
    /// Largest impulse (N s); +∞ for a bilateral row.
    pub upper: f32,
    /// Body a.
    pub body_a: u32,
    /// Body b, or [`NO_BODY`] for the world.
    pub body_b: u32,
}

fn motion_of(motion: &[Motion], body: u32) -> Motion {
    if body == NO_BODY {
        Motion::default()
    } else {
        motion[body as usize]
    }
}

impl JointRow {
    /// The row of gradient `g` between `body_a` and `body_b` with its bias, compliance ε and
    /// impulse bound; in planar mode J keeps only its x–z linear and y angular parts.
    pub(crate) fn new(
        g: Gradient,
        (body_a, body_b): (u32, u32),
        planar: bool,
        (bias, compliance, bound): (f32, f32, f32),
    ) -> JointRow {
        let (lin, ang_a, ang_b) = if planar {
            let (xz, y) = (Vec3::new(1.0, 0.0, 1.0), Vec3::Y);
            (g.lin * xz, g.ang_a * y, g.ang_b * y)
        } else {
            (g.lin, g.ang_a, g.ang_b)
        };
        JointRow {
            lin: lin.to_array(),
            bias,
            ang_a: ang_a.to_array(),
            compliance,
            ang_b: ang_b.to_array(),
            lower: -bound,
            upper: bound,
            body_a,
            body_b,
        }
    }

    /// Whether the impulse is bounded (a motor with a force limit).
    fn bounded(&self) -> bool {
        self.lower > f32::NEG_INFINITY || self.upper < f32::INFINITY
    }

    /// J's linear and angular parts on `body`, if the row acts on it.
    #[inline(always)]
    fn jacobian_on(&self, body: u32) -> Option<(Vec3, Vec3)> {
        let lin = Vec3::from_array(self.lin);
        if body == self.body_a {
            Some((lin, Vec3::from_array(self.ang_a)))
        } else if body == self.body_b {
            Some((-lin, Vec3::from_array(self.ang_b)))
        } else {
            None
        }
    }

    /// J_i M⁻¹ J_jᵀ of this row i and row `other` j: the sum over the bodies both act on.
    fn coupling(&self, other: &JointRow, motion: &[Motion]) -> f64 {
        [self.body_a, self.body_b]
            .into_iter()
            .filter(|&b| b != NO_BODY)
            .filter_map(|b| {
                let (li, ai) = self.jacobian_on(b)?;
                let (lj, aj) = other.jacobian_on(b)?;
                let m = motion[b as usize];
                Some(
                    m.inv_mass as f64 * li.dot(lj) as f64
                        + m.inv_inertia as f64 * ai.dot(aj) as f64,
                )
            })
            .sum()
    }

    /// J v: the rate of the row's constraint at velocities `motion`.
    #[inline(always)]
    pub(crate) fn rate(&self, motion: &[Motion]) -> f32 {
        let (ma, mb) = (
            motion_of(motion, self.body_a),
            motion_of(motion, self.body_b),
        );
        Vec3::from_array(self.lin).dot(ma.v() - mb.v())
            + Vec3::from_array(self.ang_a).dot(ma.w())
            + Vec3::from_array(self.ang_b).dot(mb.w())
    }

    /// v ← v + M⁻¹ Jᵀ c: the impulse `c` of the row on its movable bodies.
    #[inline(always)]
    fn apply(&self, c: f32, motion: &mut [Motion], planar: bool) {
        let lin = Vec3::from_array(self.lin) * c;
        for (body, p, l) in [
            (self.body_a, lin, Vec3::from_array(self.ang_a) * c),
            (self.body_b, -lin, Vec3::from_array(self.ang_b) * c),
        ] {
            if body != NO_BODY && motion[body as usize].inv_mass > 0.0 {
                apply_impulse(&mut motion[body as usize], p, l, planar);
            }
        }
    }
}

/// Most unbounded rows solved as one dense block: a connected set of joints with more rows is
/// solved joint by joint instead (each joint's rows exactly, the joints by block Gauss–Seidel).
pub const MAX_GROUP_ROWS: usize = 192;

/// Rows solved together: the unbounded rows `members` of a connected set of joints and
/// springs, exactly through the Cholesky factor of their K = J M⁻¹ Jᵀ + diag(ε), and the bounded
/// rows attached to them, relaxed one by one with their effective mass through the group.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Group {
    /// Range of the group's unbounded rows in `JointRows::members`.
    members: (u32, u32),
    /// Range of its bounded rows in `JointRows::bounded`.
    bounded: (u32, u32),
    /// Offset of its packed lower factor L (L_ij at i(i+1)/2 + j) in `JointRows::factors`.
    factor: u32,
}

/// A bounded row and its effective mass 1/(J M̃⁻¹ Jᵀ) through its group's constraints.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Bounded {
    row: u32,
    mass: f32,
}

/// Packed index of L_ij, j ≤ i.
#[inline(always)]
fn tri(i: usize, j: usize) -> usize {
    i * (i + 1) / 2 + j
}

/// Solves L Lᵀ x = b in place for the packed factor `l` of order b.len(); rows with a zero
/// pivot (dependent on earlier ones, or unable to act) get x = 0.
fn cholesky_solve(l: &[f64], b: &mut [f64]) {
    let n = b.len();
    for i in 0..n {
        let d = l[tri(i, i)];
        b[i] = if d > 0.0 {
            (b[i] - (0..i).map(|m| l[tri(i, m)] * b[m]).sum::<f64>()) / d
        } else {
            0.0
        };
    }
    for i in (0..n).rev() {
        let d = l[tri(i, i)];
        b[i] = if d > 0.0 {
            (b[i] - (i + 1..n).map(|m| l[tri(m, i)] * b[m]).sum::<f64>()) / d
        } else {
            0.0
        };
    }
}

/// A step's bilateral rows and their impulses c (N s), kept between steps for the warm start,
/// with the grouping the sweeps solve them in (fixed while the joints are) and its factors.
#[derive(Clone, Debug, Default)]
pub struct JointRows {
    /// Every joint's rows in joint order, then one soft row per implicit spring.
    pub rows: Vec<JointRow>,
    /// Impulse of each row.
    pub gamma: Vec<f32>,
    groups: Vec<Group>,
    members: Vec<u32>,
    bounded: Vec<Bounded>,
    factors: Vec<f64>,
    /// Whether the rows were built for planar motion (their impulses then keep it).
    planar: bool,
}

/// The part of [`JointRows`] a sweep reads (the impulses are written apart).
#[derive(Clone, Copy, Debug)]
pub struct JointSystem<'a> {
    planar: bool,
    rows: &'a [JointRow],
    groups: &'a [Group],
    members: &'a [u32],
    bounded: &'a [Bounded],
    factors: &'a [f64],
}

impl JointRows {
    /// Rebuilds the rows at the bodies' present poses q⁽ˡ⁾ for the step `p`, factors each
    /// group's K (inverse masses from `bodies`) and starts each impulse from `p.warm_start` ×
    /// last step's (zero when the row layout changed).
    pub fn build(&mut self, joints: &[Joint], springs: &[Spring], bodies: &Bodies, p: &StepParams) {
        self.push_joint_rows(joints, bodies, p, false);
        for s in springs.iter().filter(|s| s.implicit) {
            self.rows.push(soft_row(s, bodies, p));
        }
        self.prepare(joints, bodies, p.warm_start);
    }

    /// Rebuilds the rows of an impact, which takes no time (the slides' Poisson impact): the
    /// joints' velocity constraints J v⁺ = 0 without Θ/h (positions do not move), each motor's
    /// J v⁺ = s with the impulse a force bound gives in no time (none; an unbounded motor
    /// holds), no springs (a finite force gives no impulse); impulses from zero.
    pub fn build_impact(&mut self, joints: &[Joint], bodies: &Bodies, p: &StepParams) {
        self.push_joint_rows(joints, bodies, p, true);
        self.prepare(joints, bodies, 0.0);
    }

    /// Replaces the rows by the joints' constraint and motor rows for the step `p`, or for an
    /// impact (which takes no time).
    fn push_joint_rows(&mut self, joints: &[Joint], bodies: &Bodies, p: &StepParams, impact: bool) {
        let (h, planar) = ((!impact).then_some(p.h), p.planar);
        self.planar = planar;
        self.rows.clear();
        let mut g = [Gradient::default(); 6];
        for j in joints {
            let pair = (j.body_a, j.body_b);
            let n = j.constraints(bodies, &mut g);
            for r in &g[..n] {
                let bias = match h {
                    Some(h) if j.stabilise => r.theta / h,
                    _ => 0.0,
                };
                let row = JointRow::new(*r, pair, planar, (bias, 0.0, f32::INFINITY));
                self.rows.push(row);
            }
            if let Some(m) = j.motor {
                let g = j.motor_gradient(bodies);
                let bound = match h {
                    Some(h) => m.max_force * h,
                    None if m.max_force == f32::INFINITY => f32::INFINITY,
                    None => 0.0,
                };
                let row = JointRow::new(g, pair, planar, (-m.speed, 0.0, bound));
                self.rows.push(row);
            }
        }
    }

    /// Starts each impulse from `warm_start` × the last one (zero when the row layout
    /// changed), groups the rows when their layout changed and factors each group.
    fn prepare(&mut self, joints: &[Joint], bodies: &Bodies, warm_start: f32) {
        if self.gamma.len() == self.rows.len() {
            self.gamma.iter_mut().for_each(|g| *g *= warm_start);
        } else {
            self.gamma.clear();
            self.gamma.resize(self.rows.len(), 0.0);
        }
        for (g, r) in self.gamma.iter_mut().zip(&self.rows) {
            *g = g.clamp(r.lower, r.upper);
        }
        if self.members.len() + self.bounded.len() != self.rows.len() {
            self.group(joints, &bodies.motion);
        }
        self.factor(&bodies.motion);
    }

    /// Groups the rows (once: the grouping lasts while the joints do): the unbounded rows of
    /// each set of joints and springs connected through dynamic bodies form one group, or one
    /// group per joint (per spring) when the set has more than [`MAX_GROUP_ROWS`] rows; each
    /// bounded row joins the group of its joint's first row.
    fn group(&mut self, joints: &[Joint], motion: &[Motion]) {
        let movable = |b: u32| b != NO_BODY && motion[b as usize].inv_mass > 0.0;
        let mut parent: Vec<u32> = (0..motion.len() as u32).collect();
        fn root(parent: &mut [u32], mut b: u32) -> u32 {
            while parent[b as usize] != b {
                parent[b as usize] = parent[parent[b as usize] as usize];
                b = parent[b as usize];
            }
            b
        }
        for r in &self.rows {
            if movable(r.body_a) && movable(r.body_b) {
                let (x, y) = (root(&mut parent, r.body_a), root(&mut parent, r.body_b));
                parent[x.max(y) as usize] = x.min(y);
            }
        }
        // The joint (or, after the joints, the spring) each row belongs to.
        let owner: Vec<usize> = joints
            .iter()
            .enumerate()
            .flat_map(|(j, joint)| std::iter::repeat_n(j, joint.row_count()))
            .chain(joints.len()..)
            .take(self.rows.len())
            .collect();
        let mut sets: Vec<(u32, Vec<u32>)> = Vec::new();
        for (i, r) in self.rows.iter().enumerate() {
            let body = if movable(r.body_a) {
                r.body_a
            } else {
                r.body_b
            };
            let key = if movable(body) {
                root(&mut parent, body)
            } else {
                NO_BODY
            };
            match sets.iter_mut().find(|(k, _)| *k == key && key != NO_BODY) {
                Some((_, rows)) => rows.push(i as u32),
                None => sets.push((key, vec![i as u32])),
            }
        }
        self.groups.clear();
        self.members.clear();
        self.bounded.clear();
        let mut parts: Vec<Vec<u32>> = Vec::new();
        for (_, rows) in sets {
            let unbounded = rows
                .iter()
                .filter(|&&i| !self.rows[i as usize].bounded())
                .count();
            if unbounded <= MAX_GROUP_ROWS {
                parts.push(rows);
            } else {
                for r in rows {
                    match parts.last_mut() {
                        Some(p) if owner[p[0] as usize] == owner[r as usize] => p.push(r),
                        _ => parts.push(vec![r]),
                    }
                }
            }
        }
        let mut factor = 0;
        for rows in parts {
            let start = (self.members.len() as u32, self.bounded.len() as u32);
            for &i in &rows {
                if self.rows[i as usize].bounded() {
                    self.bounded.push(Bounded { row: i, mass: 0.0 });
                } else {
                    self.members.push(i);
                }
            }
            let n = self.members.len() - start.0 as usize;
            self.groups.push(Group {
                members: (start.0, self.members.len() as u32),
                bounded: (start.1, self.bounded.len() as u32),
                factor,
            });
            factor += (n * (n + 1) / 2) as u32;
        }
        self.factors.resize(factor as usize, 0.0);
    }

    /// Factors every group's K = J M⁻¹ Jᵀ + diag(ε) (f64 Cholesky; a pivot below 1e-9 of its
    /// diagonal marks a dependent row) and gives each bounded row its effective mass through
    /// its group, 1/(J_b M⁻¹ J_bᵀ − yᵀ K⁻¹ y) with y = J M⁻¹ J_bᵀ.
    fn factor(&mut self, motion: &[Motion]) {
        let rows = &self.rows;
        for g in &self.groups {
            let members = &self.members[g.members.0 as usize..g.members.1 as usize];
            let n = members.len();
            let l = &mut self.factors[g.factor as usize..g.factor as usize + n * (n + 1) / 2];
            for (i, &ri) in members.iter().enumerate() {
                let ri = &rows[ri as usize];
                for (j, &rj) in members[..=i].iter().enumerate() {
                    let k = ri.coupling(&rows[rj as usize], motion)
                        + if i == j { ri.compliance as f64 } else { 0.0 };
                    let s = k - (0..j).map(|m| l[tri(i, m)] * l[tri(j, m)]).sum::<f64>();
                    l[tri(i, j)] = if i != j {
                        if l[tri(j, j)] > 0.0 {
                            s / l[tri(j, j)]
                        } else {
                            0.0
                        }
                    } else if s > 1e-9 * k {
                        s.sqrt()
                    } else {
                        0.0
                    };
                }
            }
            let mut y = [0.0f64; MAX_GROUP_ROWS];
            for b in &mut self.bounded[g.bounded.0 as usize..g.bounded.1 as usize] {
                let rb = &rows[b.row as usize];
                for (yi, &ri) in y.iter_mut().zip(members) {
                    *yi = rows[ri as usize].coupling(rb, motion);
                }
                let mut x = y;
                cholesky_solve(l, &mut x[..n]);
                let through: f64 = y[..n].iter().zip(&x[..n]).map(|(a, b)| a * b).sum();
                let w = rb.coupling(rb, motion) + rb.compliance as f64 - through;
                b.mass = if w > 0.0 { (1.0 / w) as f32 } else { 0.0 };
            }
        }
    }

    /// The rows and their grouping for the sweeps, and the impulses they update.
    pub fn split(&mut self) -> (JointSystem<'_>, &mut [f32]) {
        (
            JointSystem {
                planar: self.planar,
                rows: &self.rows,
                groups: &self.groups,
                members: &self.members,
                bounded: &self.bounded,
                factors: &self.factors,
            },
            &mut self.gamma,
        )
    }

    /// Applies the starting impulses, v ← v + M⁻¹ Jᵀ c.
    pub fn apply_warm_start(&self, motion: &mut [Motion]) {
        apply_row_impulses(&self.rows, &self.gamma, motion, self.planar);
    }

    /// Forgets the impulses (the next step starts cold).
    pub fn clear(&mut self) {
        self.gamma.clear();
    }
}

impl JointSystem<'_> {
    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// One pass over the groups in order, the velocities updated at once: each bounded row
    /// c ← clamp(c − m̃ (J v + bias + ε c), lower, upper) with its effective mass m̃ through the
    /// group, then the group's unbounded rows exactly, Δc = −K⁻¹ (J v + bias + ε c); returns the
    /// residual, the largest |J v + bias + ε c| before the update (m/s, rad/s).
    pub fn relax(&self, gamma: &mut [f32], motion: &mut [Motion]) -> f32 {
        let planar = self.planar;
        let mut residual = 0.0f32;
        let mut u = [0.0f64; MAX_GROUP_ROWS];
        for g in self.groups {
            for b in &self.bounded[g.bounded.0 as usize..g.bounded.1 as usize] {
                let (r, c) = (&self.rows[b.row as usize], &mut gamma[b.row as usize]);
                if b.mass == 0.0 {
                    continue;
                }
                let next = (*c - b.mass * (r.rate(motion) + r.bias + r.compliance * *c))
                    .clamp(r.lower, r.upper);
                let delta = next - *c;
                *c = next;
                r.apply(delta, motion, planar);
                residual = residual.max(delta.abs() / b.mass);
            }
            let members = &self.members[g.members.0 as usize..g.members.1 as usize];
            let n = members.len();
            if n == 0 {
                continue;
            }
            for (ui, &i) in u.iter_mut().zip(members) {
                let r = &self.rows[i as usize];
                let error = r.rate(motion) + r.bias + r.compliance * gamma[i as usize];
                residual = residual.max(error.abs());
                *ui = -error as f64;
            }
            let l = &self.factors[g.factor as usize..g.factor as usize + n * (n + 1) / 2];
            cholesky_solve(l, &mut u[..n]);
            for (&du, &i) in u.iter().zip(members) {
                gamma[i as usize] += du as f32;
                self.rows[i as usize].apply(du as f32, motion, planar);
            }
        }
        residual
    }
}

/// Applies the impulse `c` of each row of `rows` at once: v ← v + M⁻¹ Σ Jᵀ c (the explicit
/// springs' forces of stage 1 and the joints' warm start).
pub(crate) fn apply_row_impulses(
    rows: &[JointRow],
    c: &[f32],
    motion: &mut [Motion],
    planar: bool,
) {
    for (r, &c) in rows.iter().zip(c) {
        r.apply(c, motion, planar);
    }
}
