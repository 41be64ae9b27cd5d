//! Stage 1, forces (only with Di Felice's drag): the voidage ε each sphere sits in, from a coarse
//! grid of cubes of a set edge: ε = 1 − Σ V_i / V_cell over the spheres whose centres lie in the
//! cell, floored at [`LEAST_VOIDAGE`]. Along a periodic side the cells tile the period (its length
//! over the nearest whole number of cells), so a cell there has the same contents as its image.
//!
//! The sums run over each cell's spheres in body order, whatever the thread count: the bodies are
//! sorted by (cell, index) and each cell's volumes added in that order.

use crate::parallel::BLOCK;
use crate::periodic::Periodic;
use glam::Vec4;
use rayon::prelude::*;
use std::f32::consts::PI;

/// The least voidage a cell is given: cells of a few grains can hold more than their volume by
/// centres, and Di Felice's factor ε^−χ grows without bound as ε → 0; random close packing
/// leaves ε ≈ 0.36.
pub const LEAST_VOIDAGE: f32 = 0.2;

/// Cells along one axis: 2^21, the index offset by half that (far bodies share the last cell).
const AXIS_CELLS: i64 = 1 << 21;

/// The coarse grid's scratch, kept between steps.
#[derive(Default)]
pub struct Voidage {
    /// (cell key, body) of every body, sorted.
    order: Vec<(u64, u32)>,
}

impl Voidage {
    /// The voidage of each body's cell into `out`, for cells of edge `cell` (along a periodic
    /// side of `periodic`, the period over the nearest whole number of cells), from the centres
    /// and radii `pos_radius` of all bodies (every body counts as a sphere of its radius).
    pub fn of_bodies(
        &mut self,
        pos_radius: &[Vec4],
        cell: f32,
        periodic: &Periodic,
        out: &mut Vec<f32>,
    ) {
        let [ex, ey] = periodic
            .axes()
            .map(|axis| axis.map(|a| Tiling::of(a, cell)));
        let edges = [
            ex.map_or(cell, |t| t.edge),
            ey.map_or(cell, |t| t.edge),
            cell,
        ];
        let volume = edges[0] * edges[1] * edges[2];
        self.order.resize(pos_radius.len(), (0, 0));
        self.order
            .par_chunks_mut(BLOCK)
            .zip(pos_radius.par_chunks(BLOCK))
            .enumerate()
            .for_each(|(b, (keys, prs))| {
                for (k, (key, pr)) in keys.iter_mut().zip(prs).enumerate() {
                    let index = |x: f32, tiling: Option<Tiling>| match tiling {
                        Some(t) => t.index(x),
                        None => {
                            ((x / cell).floor() as i64).clamp(-AXIS_CELLS / 2, AXIS_CELLS / 2 - 1)
                                + AXIS_CELLS / 2
                        }
                    };
                    let (i, j, l) = (index(pr.x, ex), index(pr.y, ey), index(pr.z, None));
                    let cell_key = ((i as u64) << 42) | ((j as u64) << 21) | l as u64;
                    *key = (cell_key, (b * BLOCK + k) as u32);
                }
            });
        // (key, body) pairs are unique, so the unstable sort is deterministic.
        self.order.par_sort_unstable();
        out.resize(pos_radius.len(), 1.0);
        let mut run = 0;
        while run < self.order.len() {
            let key = self.order[run].0;
            let end = run + self.order[run..].partition_point(|o| o.0 == key);
            let held: f32 = self.order[run..end]
                .iter()
                .map(|&(_, i)| sphere_volume(pos_radius[i as usize].w))
                .sum();
            let voidage = (1.0 - held / volume).max(LEAST_VOIDAGE);
            for &(_, i) in &self.order[run..end] {
                out[i as usize] = voidage;
            }
            run = end;
        }
    }
}

/// The volume 4/3 π r³ of a sphere of radius `r`.
#[inline]
pub(crate) fn sphere_volume(r: f32) -> f32 {
    4.0 / 3.0 * PI * r * r * r
}

/// The cells along a periodic side [lo, hi): the nearest whole number of cells of the asked
/// edge (at least one), each of edge `edge`.
#[derive(Clone, Copy)]
struct Tiling {
    lo: f32,
    count: i64,
    edge: f32,
}

impl Tiling {
    fn of((lo, hi): (f32, f32), cell: f32) -> Tiling {
        let count = (((hi - lo) / cell).round() as i64).clamp(1, AXIS_CELLS);
        Tiling {
            lo,
            count,
            edge: (hi - lo) / count as f32,
        }
    }

    /// The cell of coordinate `x` (wrapped into the period).
    fn index(&self, x: f32) -> i64 {
        (((x - self.lo) / self.edge).floor() as i64).rem_euclid(self.count)
    }
}
