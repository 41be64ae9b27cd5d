//! Projected Gauss–Seidel CCP sweeps made parallel by colouring: the contacts of one colour
//! share no dynamic body, so each updates γ and both bodies' velocities at once.
//!
//! Every worker of the pool stays inside one call for all sweeps and takes a fixed share of each
//! colour, with a spin barrier between colours, so a sweep costs no task spawns.

use crate::colouring::COLOURS;
use crate::contact_update::{
    apply_to_body, impulse_vector, projected_update, relative_velocity, SweepParams,
};
use crate::layout::{ContactRow, Motion, NO_BODY};
use crate::parallel::{Disjoint, SpinBarrier};
use glam::Vec3;
use std::sync::atomic::{AtomicU32, Ordering};

/// Colour classes smaller than this run on one worker (splitting them costs more than it saves).
const SPLIT_MIN: usize = 128;

/// Runs coloured projected Gauss–Seidel sweeps until the max-norm residual is below `tol` or
/// `max_iter` sweeps have run; returns (sweeps, residual in m/s).
///
/// `rows` and `gamma` are in colour order: colour c is `start[c]..start[c + 1]`, the class
/// `COLOURS` is the overflow, relaxed by one worker. Sweeps alternate the colour order.
pub fn solve_gauss_seidel(
    rows: &[ContactRow],
    gamma: &mut [[f32; 4]],
    motion: &mut [Motion],
    start: &[u32],
    p: &SweepParams,
    max_iter: u32,
    tol: f32,
) -> (u32, f32) {
    let gamma = Disjoint::new(gamma);
    let motion = Disjoint::new(motion);
    let workers = rayon::current_num_threads();
    let barrier = SpinBarrier::new(workers);
    let residual_slots = [AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)];
    let outcome = [AtomicU32::new(max_iter), AtomicU32::new(0)];
    rayon::broadcast(|ctx| {
        let (me, team) = (ctx.index(), ctx.num_threads());
        for it in 1..=max_iter {
            if me == 0 {
                residual_slots[(it as usize + 1) % 3].store(0, Ordering::Relaxed);
            }
            let mut local = 0.0f32;
            for k in 0..=COLOURS {
                let c = match k {
                    COLOURS => COLOURS,
                    _ if it % 2 == 1 => k,
                    _ => COLOURS - 1 - k,
                };
                let (s, e) = (start[c] as usize, start[c + 1] as usize);
                if s == e {
                    continue;
                }
                let (lo, hi) = if c == COLOURS || e - s < SPLIT_MIN {
                    if me == 0 {
                        (s, e)
                    } else {
                        (s, s)
                    }
                } else {
                    (s + (e - s) * me / team, s + (e - s) * (me + 1) / team)
                };
                for (i, row) in rows.iter().enumerate().take(hi).skip(lo) {
                    // SAFETY: contacts of one colour touch pairwise different dynamic bodies,
                    // each worker owns its own range, and the barrier orders the colours.
                    local = local.max(unsafe { relax_contact(row, &gamma, &motion, p, i) });
                }
                barrier.wait();
            }
            let slot = &residual_slots[it as usize % 3];
            slot.fetch_max(local.to_bits(), Ordering::Relaxed);
            barrier.wait();
            let residual = f32::from_bits(slot.load(Ordering::Relaxed));
            if residual <= tol || it == max_iter {
                if me == 0 {
                    outcome[0].store(it, Ordering::Relaxed);
                    outcome[1].store(residual.to_bits(), Ordering::Relaxed);
                }
                break;
            }
        }
    });
    (
        outcome[0].load(Ordering::Relaxed),
        f32::from_bits(outcome[1].load(Ordering::Relaxed)),
    )
}

/// One Gauss–Seidel update of contact `i`: γ⁺ = Π_K(γ − ω W⁻¹ u), velocities follow at once.
///
/// # Safety
/// No other thread may touch contact `i` or its dynamic bodies meanwhile.
#[inline(always)]
unsafe fn relax_contact(
    row: &ContactRow,
    gamma: &Disjoint<[f32; 4]>,
    motion: &Disjoint<Motion>,
    p: &SweepParams,
    i: usize,
) -> f32 {
    let g = gamma.get(i);
    let (a, b) = (row.body_a as usize, row.body_b as usize);
    let ma = motion.read(a);
    let mb = (row.body_b != NO_BODY).then(|| motion.read(b));
    let u = relative_velocity(row, &ma, mb.as_ref(), Vec3::from_array(row.bias));
    let (next, res) = projected_update(row, *g, u, p);
    let pv = impulse_vector(row, [next[0] - g[0], next[1] - g[1], next[2] - g[2], 0.0]);
    *g = next;
    if ma.inv_mass > 0.0 {
        apply_to_body(motion.get(a), Vec3::from_array(row.ra), pv, p.planar);
    }
    if mb.is_some_and(|m| m.inv_mass > 0.0) {
        apply_to_body(motion.get(b), Vec3::from_array(row.rb), -pv, p.planar);
    }
    res
}
