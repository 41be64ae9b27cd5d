//! Stage 6, solve (Jacobi; its body index is built in stage 5, prepare): projected Jacobi CCP
//! sweeps (Tasora–Anitescu): every contact updates from the same velocities
//! in parallel, then every body gathers M⁻¹ D Δγ of its own contacts (no float atomics). With
//! spinning or rolling friction every contact's moment rows update from the same velocities
//! too, and the gather adds their moment impulses. The joint rows ([`crate::joint_rows`]) follow
//! each gather, relaxed in order on the calling thread.

use crate::apgd::{Momentum, PACKS_PER_BLOCK};
use crate::contact_update::{
    apply_impulse, lane, update_pack, Lanes3, PackVelocities, SweepParams,
};
use crate::interface::Interface;
use crate::joint_rows::JointRows;
use crate::layout::{BodyKind, ContactRow, Motion, NO_BODY};
use crate::packing::Packs;
use crate::parallel::{exclusive_scan, BLOCK};
use crate::rolling::{update_moment_pack, MomentPacks};
use crate::trace::Trace;
use glam::{Vec3, Vec4};
use rayon::prelude::*;

/// Body → contacts index (CSR): entries of body i are `entries[start[i]..start[i + 1]]`, each
/// `contact << 1 | side` (side 0: the body is a, 1: it is b), in increasing contact order.
#[derive(Default)]
pub struct BodyContacts {
    /// Offsets per body.
    pub start: Vec<u32>,
    /// Contact index and side.
    pub entries: Vec<u32>,
    /// The lever arm of each entry: its contact's arm from the body's centre (r_a or r_b).
    pub arms: Vec<[f32; 3]>,
    counts: Vec<u32>,
    cursor: Vec<u32>,
}

impl BodyContacts {
    /// Rebuilds the index of the dynamic bodies' contacts.
    pub fn build(&mut self, rows: &[ContactRow], kind: &[u32]) {
        let dynamic = |b: u32| b != NO_BODY && kind[b as usize] == BodyKind::Dynamic as u32;
        self.counts.clear();
        self.counts.resize(kind.len(), 0);
        for r in rows {
            for b in [r.body_a, r.body_b] {
                if dynamic(b) {
                    self.counts[b as usize] += 1;
                }
            }
        }
        let total = exclusive_scan(&self.counts, &mut self.start) as usize;
        self.entries.resize(total, 0);
        self.arms.resize(total, [0.0; 3]);
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.start[..kind.len()]);
        for (c, r) in rows.iter().enumerate() {
            for (side, b) in [r.body_a, r.body_b].into_iter().enumerate() {
                if dynamic(b) {
                    let slot = &mut self.cursor[b as usize];
                    self.entries[*slot as usize] = (c as u32) << 1 | side as u32;
                    self.arms[*slot as usize] = if side == 0 { r.ra } else { r.rb };
                    *slot += 1;
                }
            }
        }
    }
}

/// The Jacobi solvers' scratch: the sweep's world impulses per contact (moment impulses live
/// in the moment packs), the per-block maxima and restart sums of a sweep, and APGD's momentum.
#[derive(Default)]
pub struct JacobiScratch {
    /// D Δγ of each contact's sweep (on body a), indexed like the packs' lanes.
    pub impulse: Vec<[f32; 4]>,
    blocks: Vec<(f32, f64)>,
    sums: Vec<f64>,
    momentum: Momentum,
}

/// Runs projected Jacobi sweeps over the contacts, each followed by a Gauss–Seidel pass over the
/// rows of `joints`, until the max-norm residual is below `p.tolerance` or `p.max_iterations`
/// sweeps have run; returns (sweeps, residual in m/s). With `accelerate`, each sweep is APGD's
/// ([`crate::apgd`]): taken from the extrapolated point, with Nesterov's momentum and gradient
/// restart. `packs` holds the contacts in index order (one class); `moments`, built on the same
/// packs, adds the spinning and rolling rows of [`crate::rolling`]. `trace` receives every
/// sweep's residual.
#[allow(clippy::too_many_arguments)]
pub fn solve_jacobi(
    packs: &mut Packs,
    joints: &mut JointRows,
    mut moments: Option<&mut MomentPacks>,
    scratch: &mut JacobiScratch,
    motion: &mut [Motion],
    index: &BodyContacts,
    accelerate: bool,
    trace: &mut Trace,
    p: &SweepParams,
    mut interface: Option<&mut (dyn Interface + 'static)>,
) -> (u32, f32) {
    let (max_iter, tol) = (p.max_iterations, p.tolerance);
    let JacobiScratch {
        impulse,
        blocks,
        sums,
        momentum,
    } = scratch;
    impulse.resize(packs.lanes.len(), [0.0; 4]);
    if let Some(m) = moments.as_deref_mut() {
        m.impulse.resize(packs.lanes.len(), [0.0; 4]);
    }
    if accelerate {
        momentum.start(&packs.gamma, moments.as_deref().map(|m| m.gamma.as_slice()));
    }
    let (joint_system, joint_gamma) = joints.split();
    let mut residual = 0.0;
    let mut q = *p;
    for it in 1..=max_iter {
        let last = accelerate.then(|| momentum.last());
        let mut sweep = contact_sweep(packs, impulse, motion, last, blocks, &q);
        if let Some(m) = moments.as_deref_mut() {
            let last_moment = accelerate.then(|| momentum.last_moment());
            sweep = sweep.and(moment_sweep(packs, m, motion, last_moment, blocks, q.omega));
        }
        if let Some(f) = interface.as_deref_mut() {
            (sweep.residual, [sweep.uphill, _]) = f.reduce(sweep.residual, [sweep.uphill, 0.0]);
        }
        residual = sweep.residual;
        let moves = if accelerate {
            let coast = residual > tol && it < max_iter;
            let beta = momentum.weight(sweep.uphill, coast);
            Some(momentum.extrapolate(packs, impulse, moments.as_deref_mut(), beta, sums))
        } else {
            None
        };
        let moment_impulse = moments.as_deref().map(|m| m.impulse.as_slice());
        let energy = moves.is_some().then_some(&mut *sums);
        let shared = interface.as_deref_mut();
        let energy = body_gather(impulse, moment_impulse, motion, index, energy, &q, shared);
        if let Some(length) = moves {
            // In a distributed step the move's energy and length are summed over the ranks.
            let (energy, length) = match interface.as_deref_mut() {
                Some(f) => {
                    let (_, [energy, length]) = f.reduce(0.0, [energy, length]);
                    (energy, length)
                }
                None => (energy, length),
            };
            q.omega = momentum.adapt_step(q.omega, energy, length);
        }
        if !joint_system.is_empty() {
            residual = residual.max(joint_system.relax(joint_gamma, motion));
        }
        trace.record(residual);
        if residual <= tol {
            return (it, residual);
        }
    }
    (max_iter, residual)
}

/// What one pass over the rows found: the max-norm residual (m/s) and APGD's restart sum
/// ⟨W (y − γ⁺), γ⁺ − γ_k⟩ (0 without acceleration).
#[derive(Clone, Copy)]
struct SweepSums {
    residual: f32,
    uphill: f64,
}

impl SweepSums {
    /// The blocks' results combined in block order (the same bits for any thread count).
    fn of_blocks(blocks: &[(f32, f64)]) -> Self {
        blocks.iter().fold(
            SweepSums {
                residual: 0.0,
                uphill: 0.0,
            },
            |s, &(r, u)| SweepSums {
                residual: s.residual.max(r),
                uphill: s.uphill + u,
            },
        )
    }

    fn and(self, other: SweepSums) -> Self {
        SweepSums {
            residual: self.residual.max(other.residual),
            uphill: self.uphill + other.uphill,
        }
    }
}

/// Every contact: γ⁺ = Π_K(y − ω W⁻¹ u(y)) from the current velocities (at y, the packs' γ);
/// the impulse change D (γ⁺ − y) is kept per contact for the gather. With `last` (APGD's γ_k),
/// also the restart sum.
fn contact_sweep(
    packs: &mut Packs,
    impulse: &mut [[f32; 4]],
    motion: &[Motion],
    last: Option<&[Lanes3]>,
    blocks: &mut Vec<(f32, f64)>,
    p: &SweepParams,
) -> SweepSums {
    packs
        .rows
        .par_chunks(PACKS_PER_BLOCK)
        .zip(packs.gamma.par_chunks_mut(PACKS_PER_BLOCK))
        .zip(impulse.par_chunks_mut(4 * PACKS_PER_BLOCK))
        .enumerate()
        .map(|(blk, ((rows, gamma), out))| {
            let (mut residual, mut uphill) = (0.0f32, 0.0f64);
            for (j, (pack, g)) in rows.iter().zip(gamma.iter_mut()).enumerate() {
                let y = *g;
                let vel = PackVelocities::gather(pack, |i| &motion[i]);
                let (dp, r) = update_pack(pack, g, &vel, p);
                for (k, o) in out[4 * j..4 * j + 4].iter_mut().enumerate() {
                    *o = lane(&dp, k).extend(0.0).to_array();
                }
                residual = residual.max(r.max_element());
                if let Some(last) = last {
                    let masses = [pack.mass_n, pack.mass_t, pack.mass_t];
                    let k = blk * PACKS_PER_BLOCK + j;
                    uphill += crate::apgd::uphill(&y, g, &last[k], masses) as f64;
                }
            }
            (residual, uphill)
        })
        .collect_into_vec(blocks);
    SweepSums::of_blocks(blocks)
}

/// Every contact's moment rows: γ_m⁺ = Π(y_m − ω w_m⁻¹ u_m) from the same velocities as the
/// contact sweep and the contact's new γn; the moment change is kept per contact for the gather.
/// With `last` (APGD's γ_m,k), also the restart sum.
fn moment_sweep(
    packs: &Packs,
    moments: &mut MomentPacks,
    motion: &[Motion],
    last: Option<&[Lanes3]>,
    blocks: &mut Vec<(f32, f64)>,
    omega: f32,
) -> SweepSums {
    packs
        .rows
        .par_chunks(PACKS_PER_BLOCK)
        .zip(packs.gamma.par_chunks(PACKS_PER_BLOCK))
        .zip(moments.rows.par_chunks(PACKS_PER_BLOCK))
        .zip(moments.gamma.par_chunks_mut(PACKS_PER_BLOCK))
        .zip(moments.impulse.par_chunks_mut(4 * PACKS_PER_BLOCK))
        .enumerate()
        .map(|(blk, ((((rows, gamma), ms), gms), out))| {
            let (mut residual, mut uphill) = (0.0f32, 0.0f64);
            let packs = rows.iter().zip(gamma).zip(ms).zip(gms.iter_mut());
            for (j, (((pack, g), m), gm)) in packs.enumerate() {
                let y = *gm;
                let vel = PackVelocities::gather(pack, |i| &motion[i]);
                let (dl, r) = update_moment_pack(pack, m, gm, g, &vel, omega);
                for (k, o) in out[4 * j..4 * j + 4].iter_mut().enumerate() {
                    *o = lane(&dl, k).extend(0.0).to_array();
                }
                residual = residual.max(r.max_element());
                if let Some(last) = last {
                    let k = blk * PACKS_PER_BLOCK + j;
                    uphill += crate::apgd::uphill(&y, gm, &last[k], [m.mass; 3]) as f64;
                }
            }
            (residual, uphill)
        })
        .collect_into_vec(blocks);
    SweepSums::of_blocks(blocks)
}

/// Every dynamic body: v ← v + M⁻¹ Σ (±P_i, r_i × ±P_i ± L_i) over its contacts, in contact
/// order, for the world-space impulses P_i of `impulse` and moment impulses L_i of `moment`
/// (none without spinning and rolling friction). With `energy`, returns the kinetic energy of
/// the velocity change, Σ Δvᵀ M Δv = Σ (P·Δv + L·Δω) over the bodies, summed over fixed blocks
/// in order (0 without). In a distributed step (`interface`), a body other ranks also hold
/// takes the impulse summed over every holding rank's contacts, and the energy counts this
/// rank's own bodies (the caller sums it over the ranks).
#[allow(clippy::too_many_arguments)]
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn body_gather(
    impulse: &[[f32; 4]],
    moment: Option<&[[f32; 4]]>,
    motion: &mut [Motion],
    index: &BodyContacts,
    energy: Option<&mut Vec<f64>>,
    p: &SweepParams,
    mut interface: Option<&mut (dyn Interface + 'static)>,
) -> f64 {
    // This rank's impulse (Δp, ΔL) on body i, or none when no contact here touches it.
    let local = |i: usize| -> Option<(Vec3, Vec3)> {
        let range = index.start[i] as usize..index.start[i + 1] as usize;
        if range.is_empty() {
            return None;
        }
        let (mut dp, mut dl) = (Vec3::ZERO, Vec3::ZERO);
        for (&e, arm) in index.entries[range.clone()].iter().zip(&index.arms[range]) {
            let c = (e >> 1) as usize;
            let pv = Vec4::from_array(impulse[c]).truncate();
            let arm = Vec3::from_array(*arm);
            let (pv, sign) = if e & 1 == 0 { (pv, 1.0) } else { (-pv, -1.0) };
            dp += pv;
            dl += arm.cross(pv);
            if let Some(moment) = moment {
                dl += Vec4::from_array(moment[c]).truncate() * sign;
            }
        }
        Some((dp, dl))
    };
    if let Some(shared) = interface.as_deref_mut() {
        shared.sum_shared(&|b| {
            local(b as usize).map_or([0.0; 6], |(dp, dl)| [dp.x, dp.y, dp.z, dl.x, dl.y, dl.z])
        });
    }
    let view = interface.as_deref();
    let blocks = motion.par_chunks_mut(BLOCK).enumerate();
    let gather = |(blk, ms): (usize, &mut [Motion])| {
        let mut energy = 0.0f64;
        for (k, m) in ms.iter_mut().enumerate() {
            let i = blk * BLOCK + k;
            let shared = view.and_then(|f| f.shared_slot(i as u32).map(|s| f.total(s)));
            let (dp, dl) = match shared {
                Some([0.0, 0.0, 0.0, 0.0, 0.0, 0.0]) => continue,
                Some(t) => (Vec3::new(t[0], t[1], t[2]), Vec3::new(t[3], t[4], t[5])),
                None => match local(i) {
                    Some(sums) => sums,
                    None => continue,
                },
            };
            let (v, w) = (m.v(), m.w());
            apply_impulse(m, dp, dl, p.planar);
            p.inertia.turn(i, m, dl);
            if view.is_none_or(|f| f.owns(i as u32)) {
                energy += (dp.dot(m.v() - v) + dl.dot(m.w() - w)) as f64;
            }
        }
        energy
    };
    match energy {
        Some(sums) => {
            blocks.map(gather).collect_into_vec(sums);
            sums.iter().sum()
        }
        None => {
            blocks.for_each(|b| {
                gather(b);
            });
            0.0
        }
    }
}
