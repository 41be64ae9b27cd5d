//! Stage 7, integrate (optional, rigid contact): the position correction of overlaps. With
//! `position_correction` sweeps set, a contact's normal row in the step's CCP keeps only the
//! gap's share of the stabilising term, n·v⁺ + max(Φ, 0)/h ≥ 0 (hart-anitescu eq. 2.9 with
//! Φ clamped at 0): an overlapping contact stops closing but is not pushed apart by a velocity,
//! which the bed would keep as a separation speed |Φ|/h and spend as creep. After the solve a
//! second, frictionless CCP in pseudo-velocities v_c, started from rest,
//!
//! n·v_c + (Φ⁺ + s)/h ≥ 0 ⊥ γ_c ≥ 0,  Φ⁺ = Φ + h u_n(v⁺)  (the gap the step's velocities leave),
//!
//! is solved on the same contacts by the same iteration, and the positions move by h v_c on top
//! of h v⁺ while the velocities stay v⁺: an overlap deeper than the slop s is brought back to s
//! and no speed is left behind (the post-stabilisation of Cline and Pai, the split impulse of
//! rigid-body engines). Its sweeps count with the step's and its time with the solve stage's.
//! The slop (`StepParams::overlap_slop`, 1e-3 of the smallest radius in a
//! world) is a dead band: a bed at rest is not nudged every step by the overlaps the solve's
//! last residual leaves, a push out that gravity takes back, which ratchets the bed (on
//! `python/examples/rest_creep.py`, 100 sweeps: an exact correction, then with friction, crept
//! 0.047 r median over 10 s, this one 0.0009 r; docs/solvers.md). The correction has no
//! friction: on the 8,000-grain pour an exact one crept twice as far with it (the relaxed cone
//! opens gaps that the next step closes as a speed).

use crate::joint_rows::JointRows;
use crate::layout::{ContactRow, Motion, NO_BODY};
use crate::narrow_phase::point_velocity;
use crate::parallel::BLOCK;
use glam::Vec3;
use rayon::prelude::*;

/// The correction's buffers, kept between steps.
#[derive(Default)]
pub struct PositionCorrection {
    /// The contacts' rows, frictionless, with the normal bias Φ⁺/h.
    pub rows: Vec<ContactRow>,
    /// The starting impulses (zero: every correction starts from rest).
    pub gamma: Vec<[f32; 4]>,
    /// The pseudo-velocities v_c of every body, in body order (zero where none acts).
    pub motion: Vec<Motion>,
    /// The same in the solver's space order, when the Gauss–Seidel solve runs in it.
    pub space_motion: Vec<Motion>,
    /// No bilateral rows: the correction moves the contacts' bodies only.
    pub joints: JointRows,
}

impl PositionCorrection {
    /// Lays out the correction of the step's contact `rows` after its velocities `motion` (v⁺)
    /// over a step `h`, leaving overlaps up to `slop` (m): each row frictionless, its normal
    /// bias (Φ⁺ + s)/h with Φ⁺/h = u_n(v⁺) + min(Φ, 0)/h (the row's own bias held
    /// max(Φ, 0)/h and the walls' velocities); every body's pseudo-velocity zero, its inverse
    /// mass and inertia kept.
    pub fn build(&mut self, rows: &[ContactRow], motion: &[Motion], (h, slop): (f32, f32)) {
        self.rows.clear();
        self.rows.par_extend(
            rows.par_iter()
                .with_min_len(BLOCK)
                .map(|r| corrected_row(r, motion, (h, slop))),
        );
        self.gamma.clear();
        self.gamma.resize(rows.len(), [0.0; 4]);
        self.motion.clear();
        self.motion.par_extend(motion.par_iter().map(|m| Motion {
            linear: [0.0; 3],
            angular: [0.0; 3],
            ..*m
        }));
    }
}

/// The correction's row of contact `r`: frictionless, with the normal bias (Φ⁺ + s)/h of the
/// gap that the velocities `motion` leave after a step h, Φ⁺/h = n·(v_a + ω_a × r_a − v_b −
/// ω_b × r_b) + b_n + min(Φ, 0)/h (b_n = max(Φ, 0)/h − n·v_wall, the row's own normal bias),
/// less the overlap `slop` s it may keep.
fn corrected_row(r: &ContactRow, motion: &[Motion], (h, slop): (f32, f32)) -> ContactRow {
    let at = |body: u32, arm: [f32; 3]| match body {
        NO_BODY => Vec3::ZERO,
        b => point_velocity(&motion[b as usize], Vec3::from_array(arm)),
    };
    let closing = r.normal().dot(at(r.body_a, r.ra) - at(r.body_b, r.rb));
    let gap_left = closing + r.bias[0] + r.phi.min(0.0) / h;
    ContactRow {
        mu: 0.0,
        bias: [gap_left + slop / h, 0.0, 0.0],
        ..*r
    }
}

/// The normal bias of a contact's row in the step's CCP at gap `phi` with step `h`: Φ/h
/// (hart-anitescu eq. 2.9) when `stabilise`, only the gap's max(Φ, 0)/h when the overlap is
/// left to the position correction (`corrected`), none otherwise.
#[inline(always)]
pub fn stabilising_bias(phi: f32, h: f32, stabilise: bool, corrected: bool) -> f32 {
    match (stabilise, corrected) {
        (false, _) => 0.0,
        (true, false) => phi / h,
        (true, true) => phi.max(0.0) / h,
    }
}
