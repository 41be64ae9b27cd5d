//! Stage 4: warm start. Contacts that persist from the last step (same body pair) start the
//! solve from last step's impulse, re-expressed in this step's frame.

use crate::cone::project_cone;
use crate::layout::ContactRow;
use crate::parallel::BLOCK;
use glam::Vec3;
use rayon::prelude::*;

/// Last step's impulses by pair key, as world-space vectors so a turned normal re-projects.
#[derive(Default)]
pub struct ImpulseCache {
    keys: Vec<u64>,
    impulse: Vec<[f32; 4]>,
}

impl ImpulseCache {
    /// Remembers this step's impulses γ (in each row's frame) under their pair keys.
    pub fn store(&mut self, keys: &[u64], rows: &[ContactRow], gamma: &[[f32; 4]]) {
        self.keys.clear();
        self.keys.extend_from_slice(keys);
        self.impulse.resize(rows.len(), [0.0; 4]);
        self.impulse
            .par_iter_mut()
            .zip(rows.par_iter().zip(gamma.par_iter()))
            .with_min_len(BLOCK)
            .for_each(|(p, (r, g))| {
                let v = Vec3::from_array(r.n) * g[0]
                    + Vec3::from_array(r.t1) * g[1]
                    + Vec3::from_array(r.t2) * g[2];
                *p = v.extend(0.0).to_array();
            });
    }

    /// The stored pair keys (ascending) and world-space impulse vectors.
    pub fn state(&self) -> (&[u64], &[[f32; 4]]) {
        (&self.keys, &self.impulse)
    }

    /// Replaces the stored impulses (keys ascending, one impulse per key), as from [`Self::state`].
    pub fn restore(&mut self, keys: &[u64], impulse: &[[f32; 4]]) {
        self.keys.clear();
        self.keys.extend_from_slice(keys);
        self.impulse.clear();
        self.impulse.extend_from_slice(impulse);
    }

    /// Forgets every stored impulse.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.impulse.clear();
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
        gamma
            .par_chunks_mut(BLOCK)
            .enumerate()
            .for_each(|(b, out)| {
                let first = b * BLOCK;
                let mut j = self.keys.partition_point(|&k| k < keys[first]);
                for (k, g) in out.iter_mut().enumerate() {
                    let i = first + k;
                    while j < self.keys.len() && self.keys[j] < keys[i] {
                        j += 1;
                    }
                    *g = if weight > 0.0 && j < self.keys.len() && self.keys[j] == keys[i] {
                        let p = Vec3::from_array([
                            self.impulse[j][0],
                            self.impulse[j][1],
                            self.impulse[j][2],
                        ]) * weight;
                        let r = &rows[i];
                        let [n, t1, t2] = project_cone(
                            p.dot(Vec3::from_array(r.n)),
                            p.dot(Vec3::from_array(r.t1)),
                            p.dot(Vec3::from_array(r.t2)),
                            r.mu,
                        );
                        [n, t1, t2, 0.0]
                    } else {
                        [0.0; 4]
                    };
                }
            });
    }
}
