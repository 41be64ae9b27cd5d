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
/// (only with spinning or rolling friction) the moment impulses likewise.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::pair_key;

    /// A contact row with normal n and tangents t1, t2, friction μ = 0.5.
    fn row(n: Vec3, t1: Vec3) -> ContactRow {
        ContactRow {
            n: n.to_array(),
            t1: t1.to_array(),
            t2: n.cross(t1).to_array(),
            mu: 0.5,
            ..ContactRow::default()
        }
    }

    fn assert_close(got: [f32; 4], want: [f32; 4]) {
        let apart = got.iter().zip(&want).map(|(a, b)| (a - b).abs());
        assert!(apart.fold(0.0, f32::max) < 1e-6, "{got:?} vs {want:?}");
    }

    /// Two contacts store their impulses; next step one of them persists (its frame turned 90°
    /// about its normal) and a new one appears: the persisting pair starts from `warm_start` ×
    /// its impulse in the new frame, the new one from zero; with weight 0 both start cold.
    #[test]
    fn persisting_pairs_start_from_their_scaled_impulse_and_new_ones_from_zero() {
        let up = row(Vec3::Z, Vec3::X);
        let mut cache = ImpulseCache::default();
        let (kept, gone, new) = (pair_key(0, 1), pair_key(0, 2), pair_key(1, 2));
        cache.store(
            &[kept, gone],
            &[up, up],
            &[[1.0, 0.2, -0.1, 0.0], [2.0, 0.5, 0.3, 0.0]],
        );
        let turned = row(Vec3::Z, Vec3::Y);
        let mut gamma = [[9.0; 4]; 2];
        cache.warm_start(&[kept, new], &[turned, up], &mut gamma, 0.5);
        // The stored impulse is (0.2, −0.1, 1) in world axes: on (n, y, −x) it reads (1, −0.1, −0.2).
        assert_close(gamma[0], [0.5, -0.05, -0.1, 0.0]);
        assert_eq!(gamma[1], [0.0; 4]);
        cache.warm_start(&[kept, new], &[turned, up], &mut gamma, 0.0);
        assert_eq!(gamma, [[0.0; 4]; 2]);
    }

    /// A stored impulse that no longer fits the cone of the new frame (the normal turned by
    /// 90°, so the old normal impulse γ is now all tangential) is projected onto the cone's
    /// surface: γn = μ γ/(1 + μ²) = 0.4, γt = μ γn = 0.2.
    #[test]
    fn a_turned_normal_reprojects_onto_the_cone() {
        let mut cache = ImpulseCache::default();
        let key = pair_key(3, 4);
        cache.store(&[key], &[row(Vec3::Z, Vec3::X)], &[[1.0, 0.0, 0.0, 0.0]]);
        let mut gamma = [[9.0; 4]];
        cache.warm_start(&[key], &[row(Vec3::X, Vec3::Z)], &mut gamma, 1.0);
        assert_close(gamma[0], [0.4, 0.2, 0.0, 0.0]);
    }
}
