//! The per-step mixed NCP of the geometrically implicit stepper (Chakraborty et al., equations
//! (4), (5), (9)–(11)) as the nonsmooth equations Φ(z) = 0 that
//! [`crate::geometric::semismooth`] solves.
//!
//! Unknowns z: per body ν = (v, ω) at the end of the step; per contact the closest points
//! a₁, a₂ (world, end of step), the normal impulse p_n and the friction impulses (p_t, p_o,
//! p_r). The end-of-step pose is q^{ℓ+1} = q^ℓ + h G ν (the rotation by the exponential map).
//!
//! Equations Φ(z):
//! * momentum, per body: M(ν − ν^ℓ) − h(λ_app + λ_vp) − Σ W p = 0, with W built from the
//!   end-of-step frame (n, t, o) at the unknown closest points and lever arms from the
//!   end-of-step centres; λ_vp = −ω^ℓ × I ω^ℓ (the gyroscopic term, explicit) and I = R^ℓ
//!   I_body R^ℓᵀ. A locked or fixed degree of freedom has ν_k − ν_k^ℓ = 0 instead.
//! * closest points, per contact: the six conditions of
//!   [`crate::geometric::ContactGeometry::closest_point_conditions`] at the end-of-step poses.
//! * normal contact: φ_FB(p_n, κ ψ) = 0 with the gap ψ = n·(a₂ − a₁) (the signed distance of
//!   the closest points along the common normal; the paper writes f(a₂), which has the same
//!   sign and zero set under (9)) and κ = m_eff/h, which only scales ψ to an impulse.
//! * friction: with the scaled impulse β = (p_t/e_t, p_o/e_o, p_r/e_r) and the scaled slip
//!   s = (e_t t·v_rel, e_o o·v_rel, e_r n·ω_rel), β − P_{‖·‖ ≤ μ p_n}(β − m_eff s) = 0. With
//!   e_r = 0 (no spin friction) β_r is p_r itself and the argument's spin component is 0, so
//!   the spin row reads p_r = 0 and the ball is the disc of the tangent impulses. This
//!   projection form is the same maximal-dissipation law on the ellipsoid as the paper's
//!   Fritz-John form (5) (β = −μ p_n s/‖s‖ when sliding, ‖β‖ ≤ μ p_n when s = 0); its
//!   multiplier σ is eliminated and equals ‖s‖ at a solution (reported as the slip). Unlike
//!   (5), it stays regular at p_n = 0 (then β = 0), where (5) leaves σ undetermined and
//!   Newton's matrix singular.
//!
//! The generalized Jacobian: Φ = outer(inner(z)) with a smooth inner map (momentum and
//! closest-point rows, p_n, κψ, β, the projection's argument β − m_eff s and radius μ p_n) whose
//! Jacobian is taken by central differences ([`crate::geometric::semismooth::central_differences`]),
//! times the analytic derivative of the nonsmooth outer map (Fischer–Burmeister and the ball
//! projection, [`crate::geometric::semismooth`]).

use super::body::RigidBody;
use super::contact::{contact_frame, ContactGeometry, ContactPair, GapModel};
use super::dense::DenseMatrix;
use super::semismooth::{
    ball_projection, central_differences, fischer_burmeister, fischer_burmeister_gradient,
    SemismoothSystem,
};
use super::surface::Pose;
use glam::DVec3;

/// Unknowns per body (v, ω).
pub const BODY_UNKNOWNS: usize = 6;
/// Unknowns per contact (a₁, a₂, p_n, p_t, p_o, p_r).
pub const CONTACT_UNKNOWNS: usize = 10;
/// Inner rows per contact (6 closest-point, p_n, κψ, β, projection argument, radius).
const CONTACT_INNER: usize = 15;

/// A contact's state at the start of the step: closest points, normal, the reference axis of
/// its tangents and the gap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactStart {
    /// Closest point on body a.
    pub a1: DVec3,
    /// Closest point on body b.
    pub a2: DVec3,
    /// Outward unit normal of body a at a₁.
    pub normal: DVec3,
    /// Reference axis of the tangents, kept for the step.
    pub axis: DVec3,
    /// Gap n·(a₂ − a₁).
    pub gap: f64,
}

/// One step's nonsmooth system.
pub struct StepProblem<'a> {
    /// The bodies at the start of the step.
    pub bodies: &'a [RigidBody],
    /// The contacts.
    pub contacts: &'a [ContactPair],
    /// Each contact's start state.
    pub starts: &'a [ContactStart],
    /// Time step h.
    pub h: f64,
    /// Gravity (acceleration).
    pub gravity: DVec3,
    /// Which gap the step uses.
    pub model: GapModel,
}

/// The end-of-step kinematics one contact sees: its frame, lever arms and relative velocity.
struct ContactKinematics {
    n: DVec3,
    t: DVec3,
    o: DVec3,
    r_a: DVec3,
    r_b: DVec3,
    gap: f64,
}

fn vec_at(z: &[f64], i: usize) -> DVec3 {
    DVec3::new(z[i], z[i + 1], z[i + 2])
}

impl StepProblem<'_> {
    fn contacts_offset(&self) -> usize {
        BODY_UNKNOWNS * self.bodies.len()
    }

    /// The reduced mass of a contact, 1/(1/m_a + 1/m_b) (a fixed body's 1/m is 0).
    pub fn effective_mass(&self, contact: &ContactPair) -> f64 {
        let inv = |b: &RigidBody| if b.fixed { 0.0 } else { 1.0 / b.mass };
        1.0 / (inv(&self.bodies[contact.a]) + inv(&self.bodies[contact.b]))
    }

    /// (v, ω) of body `b` in `z`.
    pub fn body_velocity(z: &[f64], b: usize) -> (DVec3, DVec3) {
        (
            vec_at(z, BODY_UNKNOWNS * b),
            vec_at(z, BODY_UNKNOWNS * b + 3),
        )
    }

    /// The end-of-step poses q^ℓ + h G ν.
    pub fn end_poses(&self, z: &[f64]) -> Vec<Pose> {
        self.bodies
            .iter()
            .enumerate()
            .map(|(b, body)| {
                let (v, w) = Self::body_velocity(z, b);
                body.pose.advanced(self.h, v, w)
            })
            .collect()
    }

    /// Unknowns of contact `c` in `z`: a₁, a₂, p_n and (p_t, p_o, p_r).
    pub fn contact_unknowns(&self, z: &[f64], c: usize) -> (DVec3, DVec3, f64, DVec3) {
        let i = self.contacts_offset() + CONTACT_UNKNOWNS * c;
        (vec_at(z, i), vec_at(z, i + 3), z[i + 6], vec_at(z, i + 7))
    }

    /// The smooth inner map (see the module documentation).
    fn inner(&self, z: &[f64]) -> Vec<f64> {
        let nb = self.bodies.len();
        let poses = self.end_poses(z);
        let mut out = vec![0.0; BODY_UNKNOWNS * nb + CONTACT_INNER * self.contacts.len()];
        for (b, body) in self.bodies.iter().enumerate() {
            if body.fixed {
                continue;
            }
            let (v, w) = Self::body_velocity(z, b);
            let inertia = body.world_inertia();
            let w0 = body.angular_velocity;
            let linear = body.mass * (v - body.velocity)
                - self.h * (body.mass * self.gravity + body.applied_force);
            let angular =
                inertia * (w - w0) + self.h * w0.cross(inertia * w0) - self.h * body.applied_torque;
            out[6 * b..6 * b + 3].copy_from_slice(&linear.to_array());
            out[6 * b + 3..6 * b + 6].copy_from_slice(&angular.to_array());
        }
        for (c, contact) in self.contacts.iter().enumerate() {
            let (a1, a2, p_n, p_f) = self.contact_unknowns(z, c);
            let row = BODY_UNKNOWNS * nb + CONTACT_INNER * c;
            let (va, wa) = Self::body_velocity(z, contact.a);
            let (vb, wb) = Self::body_velocity(z, contact.b);
            let start = &self.starts[c];
            let kin = match self.model {
                GapModel::GeometricallyImplicit => {
                    let geometry = ContactGeometry {
                        surface_a: &self.bodies[contact.a].surface,
                        pose_a: poses[contact.a],
                        surface_b: &self.bodies[contact.b].surface,
                        pose_b: poses[contact.b],
                    };
                    let (conditions, n) = geometry.closest_point_conditions(a1, a2, start.axis);
                    out[row..row + 6].copy_from_slice(&conditions);
                    let (t, o) = contact_frame(n, start.axis);
                    ContactKinematics {
                        n,
                        t,
                        o,
                        r_a: a1 - poses[contact.a].position,
                        r_b: a2 - poses[contact.b].position,
                        gap: n.dot(a2 - a1),
                    }
                }
                GapModel::Linearised => {
                    out[row..row + 3].copy_from_slice(&(a1 - start.a1).to_array());
                    out[row + 3..row + 6].copy_from_slice(&(a2 - start.a2).to_array());
                    let n = start.normal;
                    let (t, o) = contact_frame(n, start.axis);
                    ContactKinematics {
                        n,
                        t,
                        o,
                        r_a: start.a1 - self.bodies[contact.a].pose.position,
                        r_b: start.a2 - self.bodies[contact.b].pose.position,
                        gap: start.gap,
                    }
                }
            };
            let v_rel = vb + wb.cross(kin.r_b) - va - wa.cross(kin.r_a);
            let gap = match self.model {
                GapModel::GeometricallyImplicit => kin.gap,
                GapModel::Linearised => kin.gap + self.h * kin.n.dot(v_rel),
            };
            let f = contact.friction;
            let slip = DVec3::new(
                f.e_t * kin.t.dot(v_rel),
                f.e_o * kin.o.dot(v_rel),
                f.e_r * kin.n.dot(wb - wa),
            );
            let m_eff = self.effective_mass(contact);
            // e_r = 0 (no spin friction): β_r = p_r and the projection's argument has no spin
            // component, so the row reads p_r = 0 and the ball is the tangent disc.
            let (beta, argument) = if f.e_r > 0.0 {
                let beta = p_f / DVec3::new(f.e_t, f.e_o, f.e_r);
                (beta, beta - m_eff * slip)
            } else {
                let beta = DVec3::new(p_f.x / f.e_t, p_f.y / f.e_o, p_f.z);
                let argument = beta - m_eff * slip;
                (beta, DVec3::new(argument.x, argument.y, 0.0))
            };
            out[row + 6] = p_n;
            out[row + 7] = m_eff / self.h * gap;
            out[row + 8..row + 11].copy_from_slice(&beta.to_array());
            out[row + 11..row + 14].copy_from_slice(&argument.to_array());
            out[row + 14] = f.mu * p_n;
            // The wrench on b is (F, r_b × F + p_r n); on a its opposite at a's lever arm.
            let force = p_n * kin.n + p_f.x * kin.t + p_f.y * kin.o;
            let spin = p_f.z * kin.n;
            let on_b = [force, kin.r_b.cross(force) + spin];
            let on_a = [force, kin.r_a.cross(force) + spin];
            for k in 0..2 {
                for i in 0..3 {
                    out[6 * contact.b + 3 * k + i] -= on_b[k][i];
                    out[6 * contact.a + 3 * k + i] += on_a[k][i];
                }
            }
        }
        for (b, body) in self.bodies.iter().enumerate() {
            let start = [body.velocity.to_array(), body.angular_velocity.to_array()].concat();
            for k in 0..BODY_UNKNOWNS {
                if body.fixed || body.locked[k] {
                    let held = if body.fixed { 0.0 } else { start[k] };
                    out[6 * b + k] = z[6 * b + k] - held;
                }
            }
        }
        out
    }

    /// Φ from the inner values, and with `jac_inner` also an element of Φ's generalized
    /// Jacobian (the outer map's analytic derivative times the inner Jacobian).
    fn outer(&self, inner: &[f64], jac_inner: Option<&DenseMatrix>) -> (Vec<f64>, DenseMatrix) {
        let nb6 = BODY_UNKNOWNS * self.bodies.len();
        let n = self.dim();
        let mut phi = vec![0.0; n];
        let mut jac = DenseMatrix::zeros(if jac_inner.is_some() { n } else { 0 }, n);
        // Row `dst` of the Jacobian = Σ weight · row `src` of the inner Jacobian.
        let mut combine = |dst: usize, terms: &[(usize, f64)]| {
            if let Some(ji) = jac_inner {
                let out = jac.row_mut(dst);
                for &(src, weight) in terms {
                    for (o, a) in out.iter_mut().zip(ji.row(src)) {
                        *o += weight * a;
                    }
                }
            }
        };
        for i in 0..nb6 {
            phi[i] = inner[i];
            combine(i, &[(i, 1.0)]);
        }
        for c in 0..self.contacts.len() {
            let src = nb6 + CONTACT_INNER * c;
            let dst = nb6 + CONTACT_UNKNOWNS * c;
            for k in 0..6 {
                phi[dst + k] = inner[src + k];
                combine(dst + k, &[(src + k, 1.0)]);
            }
            let (p_n, scaled_gap) = (inner[src + 6], inner[src + 7]);
            phi[dst + 6] = fischer_burmeister(p_n, scaled_gap);
            let (ga, gb) = fischer_burmeister_gradient(p_n, scaled_gap);
            combine(dst + 6, &[(src + 6, ga), (src + 7, gb)]);
            let argument = [inner[src + 11], inner[src + 12], inner[src + 13]];
            let (proj, d_arg, d_radius) = ball_projection(argument, inner[src + 14]);
            for i in 0..3 {
                phi[dst + 7 + i] = inner[src + 8 + i] - proj[i];
                combine(
                    dst + 7 + i,
                    &[
                        (src + 8 + i, 1.0),
                        (src + 11, -d_arg[i][0]),
                        (src + 12, -d_arg[i][1]),
                        (src + 13, -d_arg[i][2]),
                        (src + 14, -d_radius[i]),
                    ],
                );
            }
        }
        (phi, jac)
    }

    /// The scaled slip ‖s‖ of contact `c` at the solution `z`: the paper's multiplier σ.
    pub fn slip(&self, z: &[f64], c: usize) -> f64 {
        let inner = self.inner(z);
        let src = BODY_UNKNOWNS * self.bodies.len() + CONTACT_INNER * c;
        let m_eff = self.effective_mass(&self.contacts[c]);
        let beta = vec_at(&inner, src + 8);
        let argument = vec_at(&inner, src + 11);
        (beta - argument).length() / m_eff
    }

    /// The contact normal n of contact `c` at `z` (end of step; frozen for the linearised gap).
    pub fn contact_normal(&self, z: &[f64], c: usize) -> DVec3 {
        match self.model {
            GapModel::GeometricallyImplicit => {
                let poses = self.end_poses(z);
                let contact = &self.contacts[c];
                let (a1, _, _, _) = self.contact_unknowns(z, c);
                self.bodies[contact.a]
                    .surface
                    .unit_normal(&poses[contact.a], a1)
            }
            GapModel::Linearised => self.starts[c].normal,
        }
    }
}

impl SemismoothSystem for StepProblem<'_> {
    fn dim(&self) -> usize {
        BODY_UNKNOWNS * self.bodies.len() + CONTACT_UNKNOWNS * self.contacts.len()
    }

    fn residual(&self, z: &[f64]) -> Vec<f64> {
        self.outer(&self.inner(z), None).0
    }

    fn residual_and_jacobian(&self, z: &[f64]) -> (Vec<f64>, DenseMatrix) {
        let inner = self.inner(z);
        let jac_inner = central_differences(z, |p| self.inner(p));
        self.outer(&inner, Some(&jac_inner))
    }
}
