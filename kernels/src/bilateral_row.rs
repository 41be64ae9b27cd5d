//! One bilateral row J v⁺ + bias + ε c = 0 between two bodies (or a body and the world): what
//! a joint's scalar constraint, a motor and an implicit spring's soft row (stages 5 and 6,
//! [`crate::joint_rows`]) and an explicit spring's force (stage 1, [`crate::springs`]) have in
//! common: the Jacobian, its rate J v and the impulse Jᵀ c on the bodies.

use crate::contact_update::apply_impulse;
use crate::inertia::PrincipalInertia;
use crate::joints::Gradient;
use crate::layout::{Motion, NO_BODY};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

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
    pub(crate) fn bounded(&self) -> bool {
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

    /// J_i M⁻¹ J_jᵀ of this row i and row `other` j: the sum over the bodies both act on (the
    /// angular part through I_w⁻¹ for the anisotropic bodies of `inertia`).
    pub(crate) fn coupling(
        &self,
        other: &JointRow,
        motion: &[Motion],
        inertia: &PrincipalInertia,
    ) -> f64 {
        [self.body_a, self.body_b]
            .into_iter()
            .filter(|&b| b != NO_BODY)
            .filter_map(|b| {
                let (li, ai) = self.jacobian_on(b)?;
                let (lj, aj) = other.jacobian_on(b)?;
                let m = motion[b as usize];
                Some(
                    m.inv_mass as f64 * li.dot(lj) as f64
                        + m.inv_inertia as f64 * ai.dot(aj) as f64
                        + inertia.angular_coupling(b as usize, ai, aj),
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

    /// v ← v + M⁻¹ Jᵀ c: the impulse `c` of the row on its movable bodies (the anisotropic ones
    /// of `inertia` turned by I_w⁻¹).
    #[inline(always)]
    pub(crate) fn apply(
        &self,
        c: f32,
        motion: &mut [Motion],
        planar: bool,
        inertia: &PrincipalInertia,
    ) {
        let lin = Vec3::from_array(self.lin) * c;
        for (body, p, l) in [
            (self.body_a, lin, Vec3::from_array(self.ang_a) * c),
            (self.body_b, -lin, Vec3::from_array(self.ang_b) * c),
        ] {
            if body != NO_BODY && motion[body as usize].inv_mass > 0.0 {
                apply_impulse(&mut motion[body as usize], p, l, planar);
                inertia.turn(body as usize, &mut motion[body as usize], l);
            }
        }
    }
}

/// Applies the impulse `c` of each row of `rows` at once: v ← v + M⁻¹ Σ Jᵀ c (the explicit
/// springs' forces of stage 1 and the joints' warm start).
pub(crate) fn apply_row_impulses(
    rows: &[JointRow],
    c: &[f32],
    motion: &mut [Motion],
    planar: bool,
    inertia: &PrincipalInertia,
) {
    for (r, &c) in rows.iter().zip(c) {
        r.apply(c, motion, planar, inertia);
    }
}
