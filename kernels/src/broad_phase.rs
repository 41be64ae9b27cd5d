//! Stage 2: uniform-grid broad phase, built by count → prefix sum → scatter in O(N).
//!
//! The cell edge fits the largest *small* grain with its envelope margin, so the 27 cells around
//! a grain hold every partner it can touch. Bodies more than twice as large as the smallest one
//! (a Brazil nut, a fixed boulder) stay out of the grid and query the range of cells their box
//! covers instead, so one big body never inflates the cells of thousands of small ones.

use crate::layout::Motion;
use crate::parallel::{exclusive_scan, Disjoint, BLOCK};
use crate::shape::{shape_of, Shape};
use glam::{IVec3, Vec3, Vec4};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// Marks a body that is not stored in the grid (a large body).
pub const NOT_IN_GRID: u32 = u32::MAX;

/// How far beyond touching a pair becomes an ε̂-active contact (hart-anitescu eq. 2.13).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Envelope {
    /// ε̂ = `floor` + `speed_factor` · h · (closing speed of the pair): the papers' ε̂ ≈ v·h,
    /// taken per pair so that one fast grain does not enlarge every pair's envelope. The
    /// closing speed is the larger of the pair's approach speed and either body's speed, since a
    /// partner stopped within the step lets the other close at its full speed.
    PerPair {
        /// Smallest ε̂ (m).
        floor: f32,
        /// Multiplier on h times the closing speed.
        speed_factor: f32,
    },
    /// One ε̂ (m) for every pair.
    Fixed(f32),
}

impl Envelope {
    /// ε̂ of a pair that may close at `closing` m/s over a step `h`.
    #[inline(always)]
    pub fn pair(&self, closing: f32, h: f32) -> f32 {
        match *self {
            Envelope::PerPair {
                floor,
                speed_factor,
            } => floor + speed_factor * h * closing.max(0.0),
            Envelope::Fixed(e) => e,
        }
    }

    /// Half of the largest ε̂ any pair containing a body moving at `speed` can have.
    #[inline(always)]
    pub fn body_margin(&self, speed: f32, h: f32) -> f32 {
        match *self {
            Envelope::PerPair {
                floor,
                speed_factor,
            } => 0.5 * floor + speed_factor * h * speed,
            Envelope::Fixed(e) => 0.5 * e,
        }
    }
}

/// The radius above which a sphere stays out of the grid: twice the smallest sphere's (bodies
/// of other shapes always stay out).
pub fn large_limit(pos_radius: &[Vec4], shapes: &[Shape]) -> f32 {
    let r_min = pos_radius
        .par_iter()
        .enumerate()
        .filter(|&(i, _)| shape_of(shapes, i).is_sphere())
        .map(|(_, p)| p.w)
        .reduce(|| f32::INFINITY, f32::min);
    2.0 * r_min
}

/// The uniform grid of one step, with its reusable buffers.
#[derive(Default)]
pub struct Grid {
    /// Lower corner of cell (0, 0, 0).
    pub origin: Vec3,
    /// Cell edge (m).
    pub cell: f32,
    /// Cells along x, y, z.
    pub dims: IVec3,
    /// Cell of each body, or [`NOT_IN_GRID`].
    pub cell_of: Vec<u32>,
    /// Radius plus envelope margin of each body (m).
    pub reach: Vec<f32>,
    /// Bodies of cell c are `bodies[start[c]..start[c + 1]]`, in increasing index.
    pub start: Vec<u32>,
    /// Grid bodies sorted by cell.
    pub bodies: Vec<u32>,
    /// Bodies kept out of the grid, in increasing index.
    pub large: Vec<u32>,
    counts: Vec<AtomicU32>,
    count_snapshot: Vec<u32>,
}

impl Grid {
    /// Cell coordinates of a point (clamped into the grid).
    #[inline(always)]
    pub fn coords(&self, p: Vec3) -> IVec3 {
        let c = ((p - self.origin) / self.cell).floor().as_ivec3();
        c.clamp(IVec3::ZERO, self.dims - IVec3::ONE)
    }

    /// Linear index of cell coordinates.
    #[inline(always)]
    pub fn index(&self, c: IVec3) -> usize {
        (c.x + self.dims.x * (c.y + self.dims.y * c.z)) as usize
    }

    /// Calls `f` for every grid body in the cells from `lo` to `hi` (inclusive, clamped), one
    /// contiguous run of cells per row of x.
    #[inline(always)]
    pub fn for_each_in_box(&self, lo: IVec3, hi: IVec3, mut f: impl FnMut(u32)) {
        let (lo, hi) = (lo.max(IVec3::ZERO), hi.min(self.dims - IVec3::ONE));
        for z in lo.z..=hi.z {
            for y in lo.y..=hi.y {
                let first = self.index(IVec3::new(lo.x, y, z));
                let last = self.index(IVec3::new(hi.x, y, z));
                for &j in &self.bodies[self.start[first] as usize..self.start[last + 1] as usize] {
                    f(j);
                }
            }
        }
    }

    /// Rebuilds the grid for the bodies' current centres, radii, `shapes` (empty: all spheres)
    /// and speeds. Non-sphere bodies stay out of the grid, with their bounding radius as reach.
    pub fn build(
        &mut self,
        pos_radius: &[Vec4],
        shapes: &[Shape],
        motion: &[Motion],
        envelope: Envelope,
        h: f32,
    ) {
        let n = pos_radius.len();
        self.reach.resize(n, 0.0);
        self.cell_of.resize(n, NOT_IN_GRID);
        self.reach
            .par_chunks_mut(BLOCK)
            .enumerate()
            .for_each(|(b, out)| {
                for (k, r) in out.iter_mut().enumerate() {
                    let i = b * BLOCK + k;
                    *r = shape_of(shapes, i).bounding_radius(pos_radius[i].w)
                        + envelope.body_margin(motion[i].v().length(), h);
                }
            });
        let large_limit = large_limit(pos_radius, shapes);
        let is_large = |i: usize| pos_radius[i].w > large_limit || !shape_of(shapes, i).is_sphere();
        let (lo, hi, reach_max) = pos_radius
            .par_iter()
            .zip(self.reach.par_iter())
            .enumerate()
            .filter(|&(i, _)| !is_large(i))
            .map(|(_, (p, &r))| (p.truncate(), p.truncate(), r))
            .reduce(
                || (Vec3::INFINITY, Vec3::NEG_INFINITY, 0.0f32),
                |a, b| (a.0.min(b.0), a.1.max(b.1), a.2.max(b.2)),
            );
        self.large.clear();
        self.large
            .extend((0..n as u32).filter(|&i| is_large(i as usize)));
        if n == self.large.len() {
            self.dims = IVec3::ONE;
            self.origin = Vec3::ZERO;
            self.cell = 1.0;
        } else {
            self.size_cells(lo, hi, 2.0 * reach_max, n);
        }
        self.count_and_scatter(pos_radius, is_large);
    }

    /// Chooses cell edge and counts: edge ≥ `min_cell`, at most about 4 cells per body.
    fn size_cells(&mut self, lo: Vec3, hi: Vec3, min_cell: f32, n: usize) {
        let extent = (hi - lo).max(Vec3::ZERO);
        let budget = (4 * n).max(4096) as f64;
        let mut cell = min_cell.max(1e-12);
        loop {
            let dims = (extent / cell).floor().as_ivec3() + IVec3::ONE;
            let total = dims.x as f64 * dims.y as f64 * dims.z as f64;
            if total <= budget {
                self.dims = dims;
                break;
            }
            cell *= (total / budget).cbrt() as f32 * 1.01;
        }
        self.cell = cell;
        self.origin = lo;
    }

    fn count_and_scatter(&mut self, pos_radius: &[Vec4], is_large: impl Fn(usize) -> bool + Sync) {
        let cells = (self.dims.x * self.dims.y * self.dims.z) as usize;
        if self.counts.len() < cells {
            self.counts.resize_with(cells, || AtomicU32::new(0));
        }
        self.counts[..cells]
            .par_iter()
            .for_each(|c| c.store(0, Ordering::Relaxed));
        let mut cell_of = std::mem::take(&mut self.cell_of);
        let grid = &*self;
        cell_of
            .par_chunks_mut(BLOCK)
            .enumerate()
            .for_each(|(b, out)| {
                for (k, c) in out.iter_mut().enumerate() {
                    let p = pos_radius[b * BLOCK + k];
                    *c = if is_large(b * BLOCK + k) {
                        NOT_IN_GRID
                    } else {
                        let idx = grid.index(grid.coords(p.truncate())) as u32;
                        grid.counts[idx as usize].fetch_add(1, Ordering::Relaxed);
                        idx
                    };
                }
            });
        self.cell_of = cell_of;
        self.count_snapshot.clear();
        self.count_snapshot.extend(
            self.counts[..cells]
                .iter()
                .map(|c| c.load(Ordering::Relaxed)),
        );
        let total = exclusive_scan(&self.count_snapshot, &mut self.start) as usize;
        self.counts[..cells]
            .par_iter()
            .zip(self.start.par_iter())
            .for_each(|(c, &s)| c.store(s, Ordering::Relaxed));
        self.bodies.resize(total, 0);
        {
            let out = Disjoint::new(&mut self.bodies);
            let counts = &self.counts;
            self.cell_of
                .par_iter()
                .enumerate()
                .filter(|(_, &c)| c != NOT_IN_GRID)
                .for_each(|(i, &c)| {
                    let slot = counts[c as usize].fetch_add(1, Ordering::Relaxed);
                    // SAFETY: each fetch_add hands out a distinct slot.
                    unsafe { *out.get(slot as usize) = i as u32 };
                });
        }
        // The scatter's order within a cell depends on thread timing: sort each cell.
        let start = &self.start;
        let out = Disjoint::new(&mut self.bodies);
        (0..cells).into_par_iter().with_min_len(256).for_each(|c| {
            let (s, e) = (start[c] as usize, start[c + 1] as usize);
            if e - s > 1 {
                // SAFETY: cell ranges are disjoint.
                unsafe { out.range(s, e - s) }.sort_unstable();
            }
        });
    }
}
