//! Springs and dampers between two bodies' points: the explicit ones are forces of stage 1
//! (forces), the implicit ones soft rows built in stage 5 (prepare) and relaxed in stage 6 (solve)
//! beside the joints (anitescu slides, "Damping and elastic forces"): along the line between the
//! anchors, φ = ‖p_a − p_b‖ − L with gradient ∇φ = Jᵀ, J = (n, r_a × n, −n, −r_b × n), the
//! spring–damper force is
//!
//! ```text
//! k_s(q, v) = −k φ(q) ∇φ − δ ∇φ (∇φᵀ v)        (stiffness k, damping δ; ψ = φ for the damper)
//! ```
//!
//! Two discretisations:
//!
//! * **linearly implicit** (the slides' stiff method): the step solves
//!   M (v⁺ − v) = h k₁ − h k φ ∇φ − (h² k + h δ) ∇φ ∇φᵀ v⁺, i.e. M̂ v⁺ = M v + h k̂ with
//!   M̂ = M + h δ ∇ψ∇ψᵀ + h² k ∇φ∇φᵀ. Writing the spring's impulse as c = −h k φ − (h² k + h δ) J v⁺
//!   turns this into one soft bilateral row of the step's CCP,
//!
//!   ```text
//!   J v⁺ + k φ/(h k + δ) + ε c = 0,   ε = 1/(h² k + h δ),   v⁺ = v* + M⁻¹ Jᵀ c + M⁻¹ D γ
//!   ```
//!
//!   and eliminating c gives back M̂ exactly (the Schur complement of the row), so the row *is*
//!   the slides' scheme, solved in the same sweeps as the contacts and joints. It is stable for
//!   any k, δ, h; as k, δ → ∞, ε → 0 and the bias tends to φ/h: the row becomes the stabilised
//!   joint row of a distance joint (stiff links behave like joints);
//! * **explicit**: F = −(k φ + δ J v) ∇φ at q⁽ˡ⁾, v⁽ˡ⁾ is added in stage 1 with the other
//!   forces, v* = v + h M⁻¹ F; stable only while h δ (1/m_a + 1/m_b) < 2 and h² k (1/m_a + 1/m_b)
//!   < 4 for point masses.

use crate::bilateral_row::{apply_row_impulses, JointRow};
use crate::inertia::PrincipalInertia;
use crate::joints::{distance_gradient, Gradient, Pose};
use crate::layout::Bodies;
use crate::step::StepParams;
use glam::Vec3;

/// A spring–damper between a point of body a and a point of body b (or of the world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// Body a.
    pub body_a: u32,
    /// Body b, or [`crate::layout::NO_BODY`] for the world.
    pub body_b: u32,
    /// Anchor on a, from a's centre in a's frame (m).
    pub anchor_a: Vec3,
    /// Anchor on b, from b's centre in b's frame (world coordinates when b is the world).
    pub anchor_b: Vec3,
    /// Rest length L (m).
    pub length: f32,
    /// Stiffness k (N/m).
    pub stiffness: f32,
    /// Damping δ (N s/m).
    pub damping: f32,
    /// Linearly implicit (a soft row of the CCP) rather than an explicit force.
    pub implicit: bool,
}

impl Spring {
    /// A linearly implicit spring between the world points `anchor_a` on `body_a` and
    /// `anchor_b` on `body_b` at the bodies' present poses, with rest length their present
    /// distance and no stiffness or damping yet.
    pub fn new(body_a: u32, body_b: u32, anchor_a: Vec3, anchor_b: Vec3, bodies: &Bodies) -> Self {
        let (a, b) = (Pose::of(bodies, body_a), Pose::of(bodies, body_b));
        Spring {
            body_a,
            body_b,
            anchor_a: a.local(anchor_a),
            anchor_b: b.local(anchor_b),
            length: (anchor_a - anchor_b).length(),
            stiffness: 0.0,
            damping: 0.0,
            implicit: true,
        }
    }

    /// The stretch φ = ‖p_a − p_b‖ − L at the bodies' present poses (m): the spring holds the
    /// potential energy ½ k φ².
    pub fn stretch(&self, bodies: &Bodies) -> f32 {
        self.gradient(bodies).theta
    }

    /// φ = ‖p_a − p_b‖ − L and its gradient at the bodies' present poses.
    fn gradient(&self, bodies: &Bodies) -> Gradient {
        let (a, b) = (Pose::of(bodies, self.body_a), Pose::of(bodies, self.body_b));
        let (ra, rb) = (a.arm(self.anchor_a), b.arm(self.anchor_b));
        distance_gradient(a.centre + ra - b.centre - rb, ra, rb, self.length)
    }
}

/// The linearly implicit spring's soft row J v⁺ + k φ/(h k + δ) + ε c = 0, ε = 1/(h² k + h δ)
/// (the slides' M̂ = M + h δ ∇ψ∇ψᵀ + h² k ∇φ∇φᵀ, see the module notes).
pub(crate) fn soft_row(s: &Spring, bodies: &Bodies, p: &StepParams) -> JointRow {
    let h = p.h;
    let resistance = h * s.stiffness + s.damping;
    // Neither stiffness nor damping: a row that cannot act (zero gradient, dropped by the solve).
    let (g, bias, compliance) = match s.gradient(bodies) {
        g if resistance > 0.0 => (
            g,
            s.stiffness * g.theta / resistance,
            1.0 / (h * resistance),
        ),
        _ => (Gradient::default(), 0.0, 0.0),
    };
    let pair = (s.body_a, s.body_b);
    JointRow::new(g, pair, p.planar, (bias, compliance, f32::INFINITY))
}

/// The explicit springs' rows and impulses of a step, kept between steps.
#[derive(Default)]
pub struct SpringForceRows {
    rows: Vec<JointRow>,
    impulses: Vec<f32>,
}

/// Stage 1 for the explicit springs: v ← v + h M⁻¹ F with F = −(k φ + δ J v) ∇φ, every force
/// taken at q⁽ˡ⁾ and v⁽ˡ⁾ before any is applied (explicit Euler), the anisotropic bodies of
/// `inertia` turned by I_w⁻¹. `scratch` keeps the rows.
pub fn apply_spring_forces(
    springs: &[Spring],
    bodies: &mut Bodies,
    (p, inertia): (&StepParams, &PrincipalInertia),
    scratch: &mut SpringForceRows,
) {
    scratch.rows.clear();
    scratch.impulses.clear();
    for s in springs.iter().filter(|s| !s.implicit) {
        let g = s.gradient(bodies);
        let pair = (s.body_a, s.body_b);
        let row = JointRow::new(g, pair, p.planar, (0.0, 0.0, f32::INFINITY));
        let force = -(s.stiffness * g.theta + s.damping * row.rate(&bodies.motion));
        scratch.rows.push(row);
        scratch.impulses.push(p.h * force);
    }
    apply_row_impulses(
        &scratch.rows,
        &scratch.impulses,
        &mut bodies.motion,
        p.planar,
        inertia,
    );
}
