//! Stage 5, prepare: the warm start. Contacts that persist from the last step (same body pair)
//! start the solve from last step's impulse, re-expressed in this step's frame; with spinning or
//! rolling friction, from last step's moment impulse too. Stage 8 (observe) stores the step's
//! impulses for the next one.

use crate::cone::project_cone;
use crate::contact_update::impulse_vectors;
use crate::layout::ContactRow;
use crate::parallel::BLOCK;
use crate::rolling::{project_moment_cones, MomentPack, MomentRow};
use glam::{Vec3, Vec4};
use rayon::prelude::*;

/// Last step's impulses by pair key, as world-space vectors so a turned normal re-projects, and
/// (only with spinning or rolling friction) the moment impulses likewise. An impulse's fourth
/// lane is 1 where the contact's liquid bridge stood ([`crate::cohesion`]), 0 elsewhere.
#[derive(Default)]
pub struct ImpulseCache {
    keys: Vec<u64>,
    impulse: Vec<[f32; 4]>,
    /// Moment impulse vectors, one per key, or empty when the last step had no moment rows.
    moment: Vec<[f32; 4]>,
}

impl ImpulseCache {
    /// Remembers this step's impulses γ (in each row's frame) under their pair keys, and forgets
    /// the moments (see [`Self::store_moments`]).
    pub fn store(&mut self, keys: &[u64], rows: &[ContactRow], gamma: &[[f32; 4]]) {
        self.keys.clear();
        self.keys.extend_from_slice(keys);
        impulse_vectors(rows, gamma, &mut self.impulse);
        self.moment.clear();
    }

    /// Marks the stored contacts whose liquid bridge stands (`standing`, one per contact last
    /// stored), in the fourth lane of their impulses.
    pub fn mark_bridges(&mut self, standing: &[bool]) {
        for (i, &s) in self.impulse.iter_mut().zip(standing) {
            i[3] = if s { 1.0 } else { 0.0 };
        }
    }

    /// Remembers this step's moment impulses (γ_s, γ_r1, γ_r2) of the contacts last stored.
    pub fn store_moments(&mut self, rows: &[ContactRow], gamma: &[[f32; 4]]) {
        impulse_vectors(rows, gamma, &mut self.moment);
    }

    /// The stored pair keys (ascending) and world-space impulse vectors.
    pub fn state(&self) -> (&[u64], &[[f32; 4]]) {
        (&self.keys, &self.impulse)
    }

    /// The stored world-space moment impulse vectors, one per key (empty without moment rows).
    pub fn moment_state(&self) -> &[[f32; 4]] {
        &self.moment
    }

    /// Replaces the stored impulses (keys ascending, one impulse per key), as from [`Self::state`],
    /// and forgets the moments.
    pub fn restore(&mut self, keys: &[u64], impulse: &[[f32; 4]]) {
        self.keys.clear();
        self.keys.extend_from_slice(keys);
        self.impulse.clear();
        self.impulse.extend_from_slice(impulse);
        self.moment.clear();
    }

    /// Replaces the stored moment impulses (one per stored key, or none), as from
    /// [`Self::moment_state`].
    pub fn restore_moments(&mut self, moment: &[[f32; 4]]) {
        self.moment.clear();
        self.moment.extend_from_slice(moment);
    }

    /// Replaces the stored impulses with `entries` (pair key, ascending; impulse and moment
    /// impulse vectors), keeping the moments only where `moments`: [`Self::restore`] then
    /// [`Self::restore_moments`] from one list, without a copy of each field first.
    pub fn restore_entries(&mut self, entries: &[(u64, [f32; 4], [f32; 4])], moments: bool) {
        self.keys.clear();
        self.keys.extend(entries.iter().map(|e| e.0));
        self.impulse.clear();
        self.impulse.extend(entries.iter().map(|e| e.1));
        self.moment.clear();
        if moments {
            self.moment.extend(entries.iter().map(|e| e.2));
        }
    }

    /// Forgets every stored impulse.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.impulse.clear();
        self.moment.clear();
    }

    /// Sets `out[i] = f(i, j)` for every contact i of this step (keys ascending), with j the
    /// stored slot of the same pair key, if any.
    fn match_keys<T: Send>(
        &self,
        keys: &[u64],
        out: &mut [T],
        f: impl Fn(usize, Option<usize>) -> T + Sync,
    ) {
        out.par_chunks_mut(BLOCK).enumerate().for_each(|(b, out)| {
            let first = b * BLOCK;
            let mut j = self.keys.partition_point(|&k| k < keys[first]);
            for (k, o) in out.iter_mut().enumerate() {
                let i = first + k;
                while j < self.keys.len() && self.keys[j] < keys[i] {
                    j += 1;
                }
                let same = j < self.keys.len() && self.keys[j] == keys[i];
                *o = f(i, same.then_some(j));
            }
        });
    }

    /// Initial moment impulses for every contact: `weight` × last step's moment vector on the
    /// new frame, projected onto the spinning and rolling cones of the contact's starting
    /// normal impulse `gamma[i][0]`; zero for new contacts and when none were stored.
    pub fn warm_start_moments(
        &self,
        keys: &[u64],
        rows: &[ContactRow],
        bounds: &[MomentRow],
        gamma: &[[f32; 4]],
        moments: &mut [[f32; 4]],
        weight: f32,
    ) {
        let stored = weight > 0.0 && self.moment.len() == self.keys.len();
        self.match_keys(keys, moments, |i, j| match j {
            Some(j) if stored => {
                let m = Vec4::from_array(self.moment[j]).truncate() * weight;
                let r = &rows[i];
                let cone = MomentPack {
                    spin: Vec4::splat(bounds[i].spin),
                    roll: Vec4::splat(bounds[i].roll),
                    ..Default::default()
                };
                let g = project_moment_cones(
                    [
                        Vec4::splat(m.dot(Vec3::from_array(r.n))),
                        Vec4::splat(m.dot(Vec3::from_array(r.t1))),
                        Vec4::splat(m.dot(Vec3::from_array(r.t2))),
                    ],
                    &cone,
                    &gamma[i].map(Vec4::splat)[..3].try_into().unwrap(),
                    Vec4::splat(r.mu),
                );
                [g[0].x, g[1].x, g[2].x, 0.0]
            }
            _ => [0.0; 4],
        });
    }

    /// Initial γ for every contact: `weight` × last step's impulse projected on the new frame
    /// and onto the friction cone; zero for new contacts.
    pub fn warm_start(
        &self,
        keys: &[u64],
        rows: &[ContactRow],
        gamma: &mut [[f32; 4]],
        weight: f32,
    ) {
        self.match_keys(keys, gamma, |i, j| match j {
            Some(j) if weight > 0.0 => {
                let p = Vec4::from_array(self.impulse[j]).truncate() * weight;
                let r = &rows[i];
                let [n, t1, t2] = project_cone(
                    p.dot(Vec3::from_array(r.n)),
                    p.dot(Vec3::from_array(r.t1)),
                    p.dot(Vec3::from_array(r.t2)),
                    r.mu,
                );
                [n, t1, t2, 0.0]
            }
            _ => [0.0; 4],
        });
    }
}
