//! Stage 6, solve (optional passes after each solve): the Coulomb correction of the cone
//! relaxation. The CCP's velocity condition at a contact is u_n ≥ μ‖u_T‖ (the dual cone of
//! anitescu-2006 eq. 5.5), so a sliding contact separates at μ‖u_T‖. One pass moves that speed,
//! taken from the last iterate, into the normal row's right-hand side; the solve that follows then
//! meets u_n + μ‖u_T^prev‖ ≥ μ‖u_T‖, and at the fixed point u_T = u_T^prev the normal condition is
//! Coulomb's u_n ≥ 0 (the fixed-point approach of Anitescu and Hart that the CCP was derived from).

use crate::contact_update::{relative_velocity, PackVelocities};
use crate::layout::{ContactRow, Motion};
use crate::packing::{Packs, PADDING};
use crate::parallel::BLOCK;
use glam::Vec4;
use rayon::prelude::*;

/// Sets every packed contact's normal bias to b_n = Φ/h − n·v_wall + μ‖u_T‖, with u_T the
/// tangential relative velocity of the current velocities `motion` and the row's own bias taken
/// from `rows` (the contacts the packs were built from).
pub fn correct_normal_bias(packs: &mut Packs, rows: &[ContactRow], motion: &[Motion]) {
    let lanes = &packs.lanes;
    packs
        .rows
        .par_iter_mut()
        .enumerate()
        .with_min_len(BLOCK / 4)
        .for_each(|(p, pack)| {
            let vel = PackVelocities::gather(pack, |i| &motion[i]);
            let [_, u1, u2] = relative_velocity(pack, &vel);
            let slip = (u1 * u1 + u2 * u2).to_array().map(f32::sqrt);
            let lift = pack.mu * Vec4::from_array(slip);
            for (k, &c) in lanes[4 * p..4 * p + 4].iter().enumerate() {
                if c != PADDING {
                    pack.bias[0][k] = rows[c as usize].bias[0] + lift[k];
                }
            }
        });
}
