//! Full rigid-body inertia: the principal moments (I1, I2, I3) of the bodies whose inertia is
//! not the same about every axis, in the body frame (the frame of the body's orientation
//! quaternion, body → world), and their free rotation (stage 7).
//!
//! Isotropic bodies (spheres, disks, every body with I1 = I2 = I3) keep the scalar fast path:
//! [`crate::Motion::inv_inertia`] = 1/I, and the gyroscopic term ω × Iω vanishes for them. An
//! anisotropic body has `inv_inertia` = 0 in its [`crate::Motion`] and its moments here; its
//! world inverse inertia is I_w⁻¹ = R diag(1/I1, 1/I2, 1/I3) Rᵀ with R the rotation of its
//! orientation.
//!
//! Free rotation (Euler's equations I ω̇ = −ω × Iω in the body frame) is integrated by the
//! implicit midpoint rule on the body-frame angular momentum Π = I ω,
//!
//! ```text
//! Π⁺ − Π = −h ω̄ × I ω̄,   ω̄ = (ω + ω⁺)/2,
//! ```
//!
//! solved for ω̄ by Newton's method on I ω̄ + (h/2) ω̄ × I ω̄ = Π (in f64), with the orientation
//! turned by the same midpoint, q⁺ = normalise(q + ½ h ω̄_w ⊗ q), ω̄_w = R ω̄ (the engine's
//! quaternion update, which is the Cayley map: a turn by 2 atan(h|ω̄|/2) about ω̄). Then
//! Π⁺ = cay(h ω̄)ᵀ Π exactly, so the scheme keeps the kinetic energy ½ ωᵀ I ω, |Π| and the
//! world angular momentum R Π (R⁺ Π⁺ = R cay(h ω̄) cay(h ω̄)ᵀ Π) to rounding: the Lie–Poisson
//! midpoint scheme of a free rigid body.

use crate::contact_update::{lane, Lanes3, RowPack};
use crate::layout::{ContactRow, Motion, NO_BODY};
use crate::parallel::BLOCK;
use glam::{DMat3, DQuat, DVec3, Mat3, Quat, Vec3};
use rayon::prelude::*;

/// Newton iterations of the midpoint equation at most; it converges quadratically from ω̄ = ω
/// (the equation is a perturbation of size h|ω| of I ω̄ = Π), in 3 to 4 iterations at h|ω| ≲ 0.1.
const NEWTON_ITERATIONS: usize = 12;

/// The anisotropic bodies' principal moments, one entry per body in body order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrincipalInertia {
    /// (I1, I2, I3) about the body's local x, y and z axes (kg m²) of each anisotropic dynamic
    /// body; zero for every other body (isotropic, fixed or kinematic). Empty: no body is
    /// anisotropic.
    pub moments: Vec<Vec3>,
    /// The step's world inverse inertia I_w⁻¹ = R diag(1/I) Rᵀ of each body of `moments` (zero
    /// for the others), from the orientations at the step's start ([`Self::refresh`]).
    pub inv_world: Vec<Mat3>,
}

impl PrincipalInertia {
    /// The moments of the bodies, `moments[i]` for body i (zero: isotropic or not dynamic).
    pub fn new(moments: Vec<Vec3>) -> Self {
        if moments.iter().all(|m| *m == Vec3::ZERO) {
            PrincipalInertia::default()
        } else {
            PrincipalInertia {
                inv_world: vec![Mat3::ZERO; moments.len()],
                moments,
            }
        }
    }

    /// Recomputes the world inverse inertia of every anisotropic body at `orientation`.
    pub fn refresh(&mut self, orientation: &[Quat]) {
        (self.inv_world.par_iter_mut().zip(&self.moments))
            .zip(orientation)
            .with_min_len(BLOCK)
            .filter(|((_, m), _)| **m != Vec3::ZERO)
            .for_each(|((t, &m), &q)| *t = world_inverse_inertia(m, q));
    }

    /// ω ← ω + I_w⁻¹ L for body `i`'s share `m` of a moment impulse L if the body is
    /// anisotropic (its [`Motion::inv_inertia`] = 0 left ω as it was; isotropic bodies got
    /// L/I there already).
    #[inline(always)]
    pub fn turn(&self, i: usize, m: &mut Motion, l: Vec3) {
        if self.of(i).is_some() {
            m.angular = (m.w() + self.inv_world[i] * l).to_array();
        }
    }

    /// aᵀ I_w⁻¹ b for body `i` if it is anisotropic, else 0 (its scalar 1/I counts elsewhere):
    /// its share of the coupling J_i M⁻¹ J_jᵀ of two bilateral rows with angular parts a, b.
    #[inline(always)]
    pub fn angular_coupling(&self, i: usize, a: Vec3, b: Vec3) -> f64 {
        match self.of(i) {
            Some(_) => a.dot(self.inv_world[i] * b) as f64,
            None => 0.0,
        }
    }

    /// [`Self::turn`] for the bodies of a solver pack, a receiving the moments `la` and b the
    /// negated `lb`, lane by lane; `motion` is a body's motion to write.
    #[inline(always)]
    pub fn turn_pack<'m>(
        &self,
        pack: &RowPack,
        (la, lb): (&Lanes3, &Lanes3),
        mut motion: impl FnMut(usize) -> &'m mut Motion,
    ) {
        for k in 0..4 {
            let (a, b) = (pack.body_a[k], pack.body_b[k]);
            if a != NO_BODY {
                self.turn(a as usize, motion(a as usize), lane(la, k));
            }
            if b != NO_BODY {
                self.turn(b as usize, motion(b as usize), -lane(lb, k));
            }
        }
    }

    /// Adds the anisotropic bodies' rotational terms (r × e)ᵀ I_w⁻¹ (r × e) to the diagonal
    /// entries eᵀ M⁻¹ e of the contact `rows` they take part in (the narrow phase counted their
    /// 1/m only): w_n += (1 + ε/w_n) Σ (r × n)ᵀ I_w⁻¹ (r × n) with the contacts' compliance
    /// ratio `softness_ratio`, w_t += ½ Σ over t1 and t2, and mass_n, mass_t = 1/w_n, 1/w_t.
    pub fn add_rotational_weights(&self, rows: &mut [ContactRow], softness_ratio: f32) {
        rows.par_iter_mut().with_min_len(BLOCK).for_each(|row| {
            let sides = [(row.body_a, row.ra), (row.body_b, row.rb)];
            let weight = |e: [f32; 3]| -> f32 {
                let e = Vec3::from_array(e);
                sides
                    .iter()
                    .filter(|(b, _)| *b != NO_BODY && self.of(*b as usize).is_some())
                    .map(|&(b, r)| {
                        let c = Vec3::from_array(r).cross(e);
                        c.dot(self.inv_world[b as usize] * c)
                    })
                    .sum()
            };
            let anisotropic = |b: u32| b != NO_BODY && self.of(b as usize).is_some();
            if anisotropic(row.body_a) || anisotropic(row.body_b) {
                let wn = 1.0 / row.mass_n + (1.0 + softness_ratio) * weight(row.n);
                let wt = 1.0 / row.mass_t + 0.5 * (weight(row.t1) + weight(row.t2));
                (row.mass_n, row.mass_t) = (1.0 / wn, 1.0 / wt);
            }
        });
    }

    /// True when some body is anisotropic.
    #[inline(always)]
    pub fn any(&self) -> bool {
        !self.moments.is_empty()
    }

    /// Body `i`'s principal moments if it is anisotropic.
    #[inline(always)]
    pub fn of(&self, i: usize) -> Option<Vec3> {
        self.moments.get(i).copied().filter(|m| *m != Vec3::ZERO)
    }
}

/// World inverse inertia I_w⁻¹ = R diag(1/I1, 1/I2, 1/I3) Rᵀ of a body with principal moments
/// `moments` at orientation `q` (body → world).
#[inline]
pub fn world_inverse_inertia(moments: Vec3, q: Quat) -> Mat3 {
    let r = Mat3::from_quat(q);
    r * Mat3::from_diagonal(moments.recip()) * r.transpose()
}

/// Rotational kinetic energy ½ ω_bᵀ I ω_b (J) of a body with principal `moments` at orientation
/// `q` turning at world angular velocity `w` (ω_b = Rᵀ ω), in f64.
pub fn rotational_energy(moments: Vec3, q: Quat, w: Vec3) -> f64 {
    let wb = unit(q).inverse() * w.as_dvec3();
    0.5 * wb.dot(moments.as_dvec3() * wb)
}

/// `q` in f64, normalised.
fn unit(q: Quat) -> DQuat {
    DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize()
}

/// The skew matrix of a × (·).
fn skew(a: DVec3) -> DMat3 {
    DMat3::from_cols(
        DVec3::new(0.0, a.z, -a.y),
        DVec3::new(-a.z, 0.0, a.x),
        DVec3::new(a.y, -a.x, 0.0),
    )
}

/// The body-frame midpoint angular velocity ω̄ of one step `h` of free rotation from body-frame
/// angular velocity `wb`: the root of I ω̄ + (h/2) ω̄ × I ω̄ − I ω_b = 0 by Newton's method, with
/// the Jacobian I + (h/2)([ω̄]× I − [I ω̄]×).
pub fn midpoint_angular_velocity(moments: DVec3, wb: DVec3, h: f64) -> DVec3 {
    let inertia = DMat3::from_diagonal(moments);
    let momentum = moments * wb;
    let mut x = wb;
    for _ in 0..NEWTON_ITERATIONS {
        let ix = moments * x;
        let residual = ix + 0.5 * h * x.cross(ix) - momentum;
        let jacobian = inertia + 0.5 * h * (skew(x) * inertia - skew(ix));
        let dx = jacobian.inverse() * residual;
        x -= dx;
        if dx.length() <= 1e-15 * x.length() {
            break;
        }
    }
    x
}

/// One step `h` of free rotation of a body with principal `moments`: the implicit midpoint rule
/// on Euler's equations in the body frame and the Cayley turn of the orientation by the
/// midpoint (the module's scheme); updates the orientation `q` and the world angular velocity
/// of `m`.
pub fn rotate_freely(q: &mut Quat, m: &mut Motion, moments: Vec3, h: f32) {
    let (q0, h) = (unit(*q), h as f64);
    let wb = q0.inverse() * m.w().as_dvec3();
    let mid = midpoint_angular_velocity(moments.as_dvec3(), wb, h);
    let w_mid = q0 * mid;
    let turn = DQuat::from_xyzw(w_mid.x, w_mid.y, w_mid.z, 0.0) * q0;
    let q1 = (q0 + turn * (0.5 * h)).normalize();
    let w1 = q1 * (2.0 * mid - wb);
    *q = q1.as_quat();
    m.angular = w1.as_vec3().to_array();
}

/// The period (s) of the body-frame angular velocity of a free rigid body with principal moments
/// I1 < I2 < I3 (`moments`) starting at body-frame angular velocity `wb`: 4K(k)/s from the
/// Jacobi elliptic solution of Euler's equations (Landau–Lifshitz §37), with energy E = ½ ωᵀIω,
/// L² = |Iω|² and, for L² > 2E I2 (the motion about the I3 axis),
///
/// s² = (I3 − I2)(L² − 2E I1)/(I1 I2 I3),  k² = (I2 − I1)(2E I3 − L²)/((I3 − I2)(L² − 2E I1)),
///
/// the same with I1 and I3 swapped for L² < 2E I2; K(k) = π / (2 AGM(1, √(1 − k²))). The
/// intermediate-axis component ω2 = c·sn(s t + τ0) changes sign every half period 2K/s: the
/// tennis-racket flip. Infinite on the separatrix L² = 2E I2.
pub fn free_rotation_period(moments: DVec3, wb: DVec3) -> f64 {
    let energy2 = wb.dot(moments * wb);
    let l2 = (moments * wb).length_squared();
    let (i1, i2, i3) = if l2 > energy2 * moments.y {
        (moments.x, moments.y, moments.z)
    } else {
        (moments.z, moments.y, moments.x)
    };
    let s = ((i3 - i2) * (l2 - energy2 * i1) / (i1 * i2 * i3)).sqrt();
    let k2 = (i2 - i1) * (energy2 * i3 - l2) / ((i3 - i2) * (l2 - energy2 * i1));
    let (mut a, mut b) = (1.0f64, (1.0 - k2).sqrt());
    while (a - b).abs() > 1e-15 * a {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    let quarter = std::f64::consts::PI / (2.0 * a);
    4.0 * quarter / s
}
