//! Stage 1, forces (only in a fluid): the buoyancy and drag of a fluid at rest or in uniform
//! flow on every dynamic sphere, after gravity and the applied forces.
//!
//! A sphere of radius r (diameter d, volume V = 4/3 π r³) in a fluid of density ρ_f, viscosity
//! μ_f and velocity u feels the buoyancy −ρ_f V g and the drag β (u − v), with
//!
//! ```text
//! Stokes              β = 3π μ_f d
//! Schiller–Naumann    β = 3π μ_f d (1 + 0.15 Re^0.687)      Re < 1000
//!                     β = ½ ρ_f (π d²/4) 0.44 |u − v|      Re ≥ 1000 (C_d = 0.44)
//!                     Re = ρ_f d |u − v| / μ_f
//! Di Felice           β = ½ ρ_f C_d (π d²/4) ε^(1−χ) |u − v|
//!                     C_d = (0.63 + 4.8/√Re)²,  χ = 3.7 − 0.65 exp(−(1.5 − log₁₀ Re)²/2)
//!                     Re = ρ_f ε d |u − v| / μ_f
//! ```
//!
//! (Schiller and Naumann 1933: C_d = 24/Re (1 + 0.15 Re^0.687); Di Felice 1994, "The voidage
//! function for fluid–particle interaction systems", Int. J. Multiphase Flow 20). In Di Felice's
//! law u is the fluid's interstitial velocity and ε the voidage of the grain's cell
//! ([`crate::voidage`]); his drag F_d = ½ ρ_f C_d (π d²/4) ε² |u − v| (u − v) ε^−χ is the force of
//! the flow alone, and a grain of a uniform suspension also feels the mean pressure gradient that
//! the others' drag raises, ε⁻¹ − 1 times its own: the grain here takes the sum F_d/ε. A
//! suspension settling in fluid at rest then falls at v_t ε^(χ+1) at low Re, Richardson and Zaki's
//! law with the exponent n = 4.7 (they measured 4.65). The drag is taken implicitly,
//! with β at the velocity v the step starts from ([`Fluid::drag_rates`], before stage 1's
//! other forces) and v₁ the velocity after them and the buoyancy,
//!
//! ```text
//! v* = (v₁ + (h β/m) u) / (1 + h β/m)
//! ```
//!
//! stable at any h however small the grain's relaxation time m/β, and exact at a steady state:
//! a grain settling at its terminal velocity v_t has β(v_t) (v_t − u) = m g − ρ_f V g to the
//! rounding. The fluid exerts no torque.
//!
//! The fluid's velocity is uniform, or given on a grid of nodes ([`FlowField`], set by a caller
//! such as a fluid solver between steps) and interpolated trilinearly at each grain's centre.

use crate::forces::planar_mask;
use crate::layout::{BodyKind, Motion};
use crate::parallel::BLOCK;
use crate::step::StepParams;
use crate::voidage::sphere_volume;
use glam::{Vec3, Vec4};
use rayon::prelude::*;
use std::f32::consts::PI;

/// The drag law of [`Fluid`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Drag {
    /// β = 3π μ_f d: creeping flow (Re ≪ 1).
    Stokes,
    /// β = 3π μ_f d (1 + 0.15 Re^0.687) below Re = 1000, C_d = 0.44 above.
    SchillerNaumann,
    /// Di Felice's drag in a suspension of voidage ε, with the suspension's mean pressure
    /// gradient: β = ½ ρ_f C_d (π d²/4) ε^(1−χ) |u − v|, ε from cubes of edge `cell` (m).
    DiFelice {
        /// The edge of the voidage's cells (m): several grains wide.
        cell: f32,
    },
}

impl Drag {
    /// The edge of the voidage's cells, for the laws that need a voidage.
    pub fn voidage_cell(&self) -> Option<f32> {
        match *self {
            Drag::DiFelice { cell } => Some(cell),
            Drag::Stokes | Drag::SchillerNaumann => None,
        }
    }
}

/// A fluid filling the world: its density, viscosity, uniform velocity and drag law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fluid {
    /// Density ρ_f (kg/m³).
    pub density: f32,
    /// Dynamic viscosity μ_f (Pa s).
    pub viscosity: f32,
    /// Velocity u of the fluid (m/s), the same everywhere.
    pub velocity: Vec3,
    /// The drag law.
    pub drag: Drag,
}

/// A fluid velocity given on a regular grid of nodes: node (i, j, k) at origin + (i, j, k) ∘
/// spacing, its velocity at `velocity[i + nx (j + ny k)]`. Between nodes the velocity is
/// interpolated trilinearly; beyond the grid it is the nearest face's (each coordinate clamped
/// to the grid). An axis of one node holds the velocity constant along it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowField {
    /// The position of node (0, 0, 0) (m).
    pub origin: Vec3,
    /// The distance between nodes along x, y and z (m).
    pub spacing: Vec3,
    /// The number of nodes along x, y and z.
    pub counts: [usize; 3],
    /// The velocity at each node (m/s), x fastest.
    pub velocity: Vec<Vec3>,
}

impl FlowField {
    /// The fluid's velocity at `p`: the trilinear interpolation of the eight nodes around it.
    #[inline]
    pub fn at(&self, p: Vec3) -> Vec3 {
        let [nx, ny, _] = self.counts;
        // Per axis: the lower node and the weight of the upper one.
        let axis = |a: usize| {
            let n = self.counts[a];
            let t = ((p[a] - self.origin[a]) / self.spacing[a]).clamp(0.0, (n - 1) as f32);
            let lo = (t.floor() as usize).min(n.saturating_sub(2));
            (lo, (lo + 1).min(n - 1), t - lo as f32)
        };
        let ((i0, i1, fx), (j0, j1, fy), (k0, k1, fz)) = (axis(0), axis(1), axis(2));
        let node = |i: usize, j: usize, k: usize| self.velocity[i + nx * (j + ny * k)];
        let along_x = |j, k| node(i0, j, k).lerp(node(i1, j, k), fx);
        let along_y = |k| along_x(j0, k).lerp(along_x(j1, k), fy);
        along_y(k0).lerp(along_y(k1), fz)
    }

    /// The largest speed at a node (m/s).
    pub fn max_speed(&self) -> f32 {
        self.velocity.iter().map(|v| v.length()).fold(0.0, f32::max)
    }

    /// Why the field cannot be used, if it cannot: a count of 0 or a number of velocities other
    /// than the nodes', a spacing that is not finite and > 0, a value that is not finite.
    pub fn check(&self) -> Result<(), String> {
        let nodes = self.counts.iter().product::<usize>();
        if nodes == 0 || nodes != self.velocity.len() {
            return Err(format!(
                "{} velocities for {:?} nodes: give one per node, at least one node along each axis",
                self.velocity.len(),
                self.counts
            ));
        }
        if !(self.spacing.is_finite() && self.spacing.min_element() > 0.0) {
            return Err(format!(
                "the spacing must be finite and > 0 along each axis (m), got {}",
                self.spacing
            ));
        }
        if !self.origin.is_finite() {
            return Err(format!(
                "the origin must be finite (m), got {}",
                self.origin
            ));
        }
        match self.velocity.iter().position(|v| !v.is_finite()) {
            Some(i) => Err(format!(
                "the velocity at node {i} must be finite (m/s), got {}",
                self.velocity[i]
            )),
            None => Ok(()),
        }
    }
}

impl Fluid {
    /// The fluid's velocity at `p`: `field`'s where there is one, else the uniform one.
    #[inline]
    pub fn velocity_at(&self, field: Option<&FlowField>, p: Vec3) -> Vec3 {
        field.map_or(self.velocity, |f| f.at(p))
    }

    /// The drag coefficient β (kg/s) of a sphere of radius `r` moving at `slip` = |u − v| (m/s)
    /// in a cell of voidage `voidage` (read by Di Felice's law only).
    #[inline]
    pub fn drag_coefficient(&self, r: f32, slip: f32, voidage: f32) -> f32 {
        let d = 2.0 * r;
        let stokes = 3.0 * PI * self.viscosity * d;
        match self.drag {
            Drag::Stokes => stokes,
            Drag::SchillerNaumann => {
                let re = self.density * d * slip / self.viscosity;
                if re < 1000.0 {
                    stokes * (1.0 + 0.15 * re.powf(0.687))
                } else {
                    0.5 * self.density * 0.25 * PI * d * d * 0.44 * slip
                }
            }
            Drag::DiFelice { .. } => {
                let re = self.density * voidage * d * slip / self.viscosity;
                let chi = 3.7 - 0.65 * (-0.5 * (1.5 - re.log10()).powi(2)).exp();
                // ½ ρ_f C_d (π d²/4) |u − v| with C_d = (0.63 √Re + 4.8)² / Re and
                // |u − v| / Re = μ_f / (ρ_f ε d): finite as Re → 0 (χ → 3.7 there).
                let root = 0.63 * re.sqrt() + 4.8;
                PI / 8.0 * self.viscosity * d * root * root * voidage.powf(-chi)
            }
        }
    }

    /// Each body's drag rate h β/m at its velocity in `motion` (the step's start), into
    /// `rates` (0 for bodies that are not dynamic), in fixed blocks; `voidage` holds each body's
    /// ([`crate::voidage`]) where the law reads one, else it is empty; the fluid moves as
    /// `field` gives where there is one ([`Self::velocity_at`]).
    #[allow(clippy::too_many_arguments)]
    pub fn drag_rates(
        &self,
        field: Option<&FlowField>,
        motion: &[Motion],
        (kind, pos_radius): (&[u32], &[Vec4]),
        voidage: &[f32],
        h: f32,
        rates: &mut Vec<f32>,
    ) {
        rates.resize(motion.len(), 0.0);
        rates
            .par_chunks_mut(BLOCK)
            .zip(motion.par_chunks(BLOCK))
            .zip(kind.par_chunks(BLOCK).zip(pos_radius.par_chunks(BLOCK)))
            .enumerate()
            .for_each(|(b, ((rs, ms), (ks, prs)))| {
                for (k, (((rate, m), &kind), pr)) in
                    rs.iter_mut().zip(ms).zip(ks).zip(prs).enumerate()
                {
                    let voidage = voidage.get(b * BLOCK + k).copied().unwrap_or(1.0);
                    *rate = match kind == BodyKind::Dynamic as u32 {
                        true => {
                            let u = self.velocity_at(field, pr.truncate());
                            let beta = self.drag_coefficient(pr.w, (u - m.v()).length(), voidage);
                            h * beta * m.inv_mass
                        }
                        false => 0.0,
                    };
                }
            });
    }

    /// Adds the buoyancy and the implicit drag of `rates` ([`Self::drag_rates`]) to the free
    /// velocities `motion` of the dynamic bodies (radii in `pos_radius`), in fixed blocks (the
    /// same bits for any thread count), the fluid moving as `field` gives where there is one.
    pub fn apply(
        &self,
        field: Option<&FlowField>,
        motion: &mut [Motion],
        (kind, pos_radius): (&[u32], &[Vec4]),
        rates: &[f32],
        p: &StepParams,
    ) {
        let planar = p.planar;
        let lift = -self.density * p.gravity * p.h;
        motion
            .par_chunks_mut(BLOCK)
            .zip(rates.par_chunks(BLOCK))
            .zip(kind.par_chunks(BLOCK).zip(pos_radius.par_chunks(BLOCK)))
            .for_each(|((ms, rs), (ks, prs))| {
                for (((m, &rate), &k), pr) in ms.iter_mut().zip(rs).zip(ks).zip(prs) {
                    if k != BodyKind::Dynamic as u32 {
                        continue;
                    }
                    let u = self.velocity_at(field, pr.truncate());
                    let v1 = m.v() + lift * (sphere_volume(pr.w) * m.inv_mass);
                    m.linear = ((v1 + rate * u) / (1.0 + rate)).to_array();
                    if planar {
                        planar_mask(m);
                    }
                }
            });
    }
}
