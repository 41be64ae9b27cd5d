//! Stage 6, solve (Jacobi; its body index is built in stage 5, prepare): projected Jacobi CCP
//! sweeps (Tasora–Anitescu): every contact updates from the same velocities
//! in parallel, then every body gathers M⁻¹ D Δγ of its own contacts (no float atomics). With
//! spinning or rolling friction every contact's moment rows update from the same velocities
//! too, and the gather adds their moment impulses. The joint rows ([`crate::joint_rows`]) follow
//! each gather, relaxed in order on the calling thread.

use crate::contact_update::{apply_impulse, lane, update_pack, PackVelocities, SweepParams};
use crate::joint_rows::JointRows;
use crate::layout::{BodyKind, ContactRow, Motion, NO_BODY};
use crate::packing::Packs;
use crate::parallel::{exclusive_scan, BLOCK};
use crate::rolling::{update_moment_pack, MomentPacks};
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
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.start[..kind.len()]);
        for (c, r) in rows.iter().enumerate() {
            for (side, b) in [r.body_a, r.body_b].into_iter().enumerate() {
                if dynamic(b) {
                    let slot = &mut self.cursor[b as usize];
                    self.entries[*slot as usize] = (c as u32) << 1 | side as u32;
                    *slot += 1;
                }
            }
        }
    }
}

/// Runs projected Jacobi sweeps over the contacts, each followed by a Gauss–Seidel pass over the
/// rows of `joints`, until the max-norm residual is below `p.tolerance` or `p.max_iterations`
/// sweeps have run; returns (sweeps, residual in m/s). `packs` holds the contacts in index order (one class);
/// `impulse` is scratch of the contacts' length; `moments`, built on the same packs, adds the
/// spinning and rolling rows of [`crate::rolling`].
#[allow(clippy::too_many_arguments)]
pub fn solve_jacobi(
    rows: &[ContactRow],
    packs: &mut Packs,
    joints: &mut JointRows,
    mut moments: Option<&mut MomentPacks>,
    impulse: &mut Vec<[f32; 4]>,
    motion: &mut [Motion],
    index: &BodyContacts,
    p: &SweepParams,
) -> (u32, f32) {
    let (max_iter, tol) = (p.max_iterations, p.tolerance);
    impulse.resize(packs.lanes.len(), [0.0; 4]);
    if let Some(m) = moments.as_deref_mut() {
        m.impulse.resize(packs.lanes.len(), [0.0; 4]);
    }
    let (joint_system, joint_gamma) = joints.split();
    let mut residual = 0.0;
    for it in 1..=max_iter {
        residual = contact_sweep(packs, impulse, motion, p);
        if let Some(m) = moments.as_deref_mut() {
            residual = residual.max(moment_sweep(packs, m, motion, p.omega));
        }
        let moment_impulse = moments.as_deref().map(|m| m.impulse.as_slice());
        body_gather(rows, impulse, moment_impulse, motion, index, p);
        if !joint_system.is_empty() {
            residual = residual.max(joint_system.relax(joint_gamma, motion));
        }
        if residual <= tol {
            return (it, residual);
        }
    }
    (max_iter, residual)
}

/// Every contact: γ⁺ = Π_K(γ − ω W⁻¹ u) from the current velocities; the impulse change D Δγ
/// is kept per contact for the gather.
fn contact_sweep(
    packs: &mut Packs,
    impulse: &mut [[f32; 4]],
    motion: &[Motion],
    p: &SweepParams,
) -> f32 {
    packs
        .rows
        .par_iter()
        .zip(packs.gamma.par_iter_mut())
        .zip(impulse.par_chunks_mut(4))
        .with_min_len(BLOCK / 4)
        .map(|((pack, g), out)| {
            let vel = PackVelocities::gather(pack, |i| motion[i]);
            let (dp, residual) = update_pack(pack, g, &vel, p);
            for (k, o) in out.iter_mut().enumerate() {
                *o = lane(&dp, k).extend(0.0).to_array();
            }
            residual.max_element()
        })
        .reduce(|| 0.0, f32::max)
}

/// Every contact's moment rows: γ_m⁺ = Π(γ_m − ω w_m⁻¹ u_m) from the same velocities as the
/// contact sweep and the contact's new γn; the moment change is kept per contact for the gather.
fn moment_sweep(packs: &Packs, moments: &mut MomentPacks, motion: &[Motion], omega: f32) -> f32 {
    packs
        .rows
        .par_iter()
        .zip(packs.gamma.par_iter())
        .zip(moments.rows.par_iter())
        .zip(moments.gamma.par_iter_mut())
        .zip(moments.impulse.par_chunks_mut(4))
        .with_min_len(BLOCK / 4)
        .map(|((((pack, g), m), gm), out)| {
            let vel = PackVelocities::gather(pack, |i| motion[i]);
            let (dl, residual) = update_moment_pack(pack, m, gm, g, &vel, omega);
            for (k, o) in out.iter_mut().enumerate() {
                *o = lane(&dl, k).extend(0.0).to_array();
            }
            residual.max_element()
        })
        .reduce(|| 0.0, f32::max)
}

/// Every dynamic body: v ← v + M⁻¹ Σ (±P_i, r_i × ±P_i ± L_i) over its contacts, in contact
/// order, for the world-space impulses P_i of `impulse` and moment impulses L_i of `moment`
/// (none without spinning and rolling friction).
pub(crate) fn body_gather(
    rows: &[ContactRow],
    impulse: &[[f32; 4]],
    moment: Option<&[[f32; 4]]>,
    motion: &mut [Motion],
    index: &BodyContacts,
    p: &SweepParams,
) {
    motion
        .par_chunks_mut(BLOCK)
        .enumerate()
        .for_each(|(blk, ms)| {
            for (k, m) in ms.iter_mut().enumerate() {
                let i = blk * BLOCK + k;
                let entries = &index.entries[index.start[i] as usize..index.start[i + 1] as usize];
                if entries.is_empty() {
                    continue;
                }
                let (mut dp, mut dl) = (Vec3::ZERO, Vec3::ZERO);
                for &e in entries {
                    let c = (e >> 1) as usize;
                    let row = &rows[c];
                    let pv = Vec4::from_array(impulse[c]).truncate();
                    let (pv, arm, sign) = if e & 1 == 0 {
                        (pv, Vec3::from_array(row.ra), 1.0)
                    } else {
                        (-pv, Vec3::from_array(row.rb), -1.0)
                    };
                    dp += pv;
                    dl += arm.cross(pv);
                    if let Some(moment) = moment {
                        dl += Vec4::from_array(moment[c]).truncate() * sign;
                    }
                }
                apply_impulse(m, dp, dl, p.planar);
            }
        });
}
