//! Projected Jacobi CCP sweeps (Tasora–Anitescu): every contact updates from the same velocities
//! in parallel, then every body gathers M⁻¹ D Δγ of its own contacts (no float atomics).

use crate::contact_update::{impulse_vector, projected_update, relative_velocity, SweepParams};
use crate::forces::planar_mask;
use crate::layout::{BodyKind, ContactRow, Motion, NO_BODY};
use crate::parallel::{exclusive_scan, BLOCK};
use glam::Vec3;
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

/// Runs projected Jacobi sweeps until the max-norm residual is below `tol` or `max_iter` sweeps
/// have run; returns (sweeps, residual in m/s). `delta` is scratch of the contacts' length.
#[allow(clippy::too_many_arguments)]
pub fn solve_jacobi(
    rows: &[ContactRow],
    gamma: &mut [[f32; 4]],
    delta: &mut Vec<[f32; 4]>,
    motion: &mut [Motion],
    index: &BodyContacts,
    p: &SweepParams,
    max_iter: u32,
    tol: f32,
) -> (u32, f32) {
    delta.resize(rows.len(), [0.0; 4]);
    let mut residual = 0.0;
    for it in 1..=max_iter {
        residual = contact_sweep(rows, gamma, delta, motion, p);
        body_gather(rows, delta, motion, index, p.planar);
        if residual <= tol {
            return (it, residual);
        }
    }
    (max_iter, residual)
}

/// Every contact: γ⁺ = Π_K(γ − ω W⁻¹ u) from the current velocities; Δγ kept for the gather.
fn contact_sweep(
    rows: &[ContactRow],
    gamma: &mut [[f32; 4]],
    delta: &mut [[f32; 4]],
    motion: &[Motion],
    p: &SweepParams,
) -> f32 {
    rows.par_chunks(BLOCK)
        .zip(gamma.par_chunks_mut(BLOCK).zip(delta.par_chunks_mut(BLOCK)))
        .map(|(rs, (gs, ds))| {
            let mut res = 0.0f32;
            for ((row, g), d) in rs.iter().zip(gs.iter_mut()).zip(ds.iter_mut()) {
                let mb = (row.body_b != NO_BODY).then(|| &motion[row.body_b as usize]);
                let u = relative_velocity(
                    row,
                    &motion[row.body_a as usize],
                    mb,
                    Vec3::from_array(row.bias),
                );
                let (next, r) = projected_update(row, *g, u, p);
                *d = [next[0] - g[0], next[1] - g[1], next[2] - g[2], 0.0];
                *g = next;
                res = res.max(r);
            }
            res
        })
        .reduce(|| 0.0, f32::max)
}

/// Every dynamic body: v ← v + Σ M⁻¹ D_i Δγ_i over its contacts, in contact order.
pub(crate) fn body_gather(
    rows: &[ContactRow],
    delta: &[[f32; 4]],
    motion: &mut [Motion],
    index: &BodyContacts,
    planar: bool,
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
                    let row = &rows[(e >> 1) as usize];
                    let pv = impulse_vector(row, delta[(e >> 1) as usize]);
                    let (sign, arm) = if e & 1 == 0 {
                        (1.0, Vec3::from_array(row.ra))
                    } else {
                        (-1.0, Vec3::from_array(row.rb))
                    };
                    dp += sign * pv;
                    dl += arm.cross(sign * pv);
                }
                m.linear = (m.v() + dp * m.inv_mass).to_array();
                m.angular = (m.w() + dl * m.inv_inertia).to_array();
                if planar {
                    planar_mask(m);
                }
            }
        });
}
