//! Stage 2, broad phase: the uniform grid, built by count → prefix sum → scatter in O(N).
//!
//! The cell edge fits the largest *small* grain with its envelope margin, so the 27 cells around
//! a grain hold every partner it can touch. Bodies more than twice as large as the smallest one
//! (a Brazil nut, a fixed boulder) stay out of the grid and query the range of cells their box
//! covers instead, so one big body never inflates the cells of thousands of small ones. So do
//! grains moving so fast that their reach (radius plus envelope margin) exceeds 4 times the
//! mean.
//!
//! The grid keeps copies of its grains' centres and reaches in cell order
//! ([`Grid::sorted_centre_reach`]), so that the narrow phase reads the candidates of a grain's
//! 27 cells from sequential memory rather than from the bodies' arrays in index order.
//!
//! The grid holds about 4 cells per body. Where the bodies' extent needs more cells than that
//! along an axis (a sparse cloud, or one grain escaped far from the bed), the grid repeats
//! periodically along that axis (cell coordinates taken modulo its cell count, at least 3, so the
//! 3 cells around a grain stay distinct): the cell edge stays at its minimum, a far grain shares
//! cells with grains it cannot touch (the narrow phase's distance test rejects them), and no
//! outlier inflates the cells of the bed.

use crate::cell_coords::floor_cell;
use crate::large_cells::LargeCells;
use crate::layout::Motion;
use crate::parallel::{exclusive_scan, Disjoint, BLOCK};
use crate::shapes::{shape_of, Shape};
use glam::{BVec3, IVec3, Vec3, Vec4};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// Marks a body that is not stored in the grid (a large body).
pub const NOT_IN_GRID: u32 = u32::MAX;

/// A small sphere whose reach (radius plus envelope margin) is more than this many times the
/// small spheres' mean stays out of the grid like a large body: one fast grain (a projectile, a
/// grain falling away from the bed) must not set the cell edge for all.
const FAST_REACH: f32 = 4.0;

/// Below this many bodies the grid's counting sort runs on one worker: its passes take less
/// than the team's meetings, and the shared counters' cache lines would pass between cores.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub const SERIAL_GRID: usize = 1 << 16;

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

    /// This envelope with its smallest ε̂ raised to at least `reach` (m).
    pub fn reaching(self, reach: f32) -> Envelope {
        match self {
            Envelope::PerPair {
                floor,
                speed_factor,
            } => Envelope::PerPair {
                floor: floor.max(reach),
                speed_factor,
            },
            Envelope::Fixed(e) => Envelope::Fixed(e.max(reach)),
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
    /// The axes along which the grid's cells repeat (see the module's notes): a hashed wrap
    /// that bounds the grid's size, not the world's periodic boundaries
    /// ([`crate::periodic::Periodic`]), which wrap centres and offset pairs.
    pub periodic: BVec3,
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
    /// The bodies of [`Self::large`] in a coarse grid of their own, for their pairs among
    /// themselves ([`Self::large_near`]).
    large_cells: LargeCells,
    /// Centre (x, y, z) and reach (w) of each grid body, in the order of [`Self::bodies`]
    /// (copies, so that a scan of a cell's bodies reads sequential memory).
    pub sorted_centre_reach: Vec<Vec4>,
    counts: Vec<AtomicU32>,
    count_snapshot: Vec<u32>,
}

impl Grid {
    /// Cell coordinates of a point: clamped into the grid along its bounded axes, unwrapped
    /// (within ±2³⁰) along its periodic ones.
    #[inline(always)]
    pub fn coords(&self, p: Vec3) -> IVec3 {
        let c = floor_cell((p - self.origin) / self.cell);
        if !self.periodic.any() {
            return c.clamp(IVec3::ZERO, self.dims - IVec3::ONE);
        }
        IVec3::select(
            self.periodic,
            c,
            c.clamp(IVec3::ZERO, self.dims - IVec3::ONE),
        )
    }

    /// Linear index of cell coordinates (taken modulo the cell counts, which only changes
    /// those along periodic axes).
    #[inline(always)]
    pub fn index(&self, c: IVec3) -> usize {
        let c = if self.periodic.any() {
            c.rem_euclid(self.dims)
        } else {
            c
        };
        (c.x + self.dims.x * (c.y + self.dims.y * c.z)) as usize
    }

    /// The cell coordinates from `lo` to `hi` along `axis` to visit, each cell once: clamped
    /// along a bounded axis, the whole axis along a periodic one that the range covers.
    #[inline(always)]
    fn span(&self, lo: IVec3, hi: IVec3, axis: usize) -> (i32, i32) {
        let d = self.dims[axis];
        if !self.periodic.test(axis) {
            (lo[axis].max(0), hi[axis].min(d - 1))
        } else if hi[axis] as i64 - lo[axis] as i64 + 1 >= d as i64 {
            (0, d - 1)
        } else {
            (lo[axis], hi[axis])
        }
    }

    /// Coordinate `c` along `axis` taken modulo the cell count on a periodic axis (a bounded
    /// axis's coordinates are already in range).
    #[inline(always)]
    fn wrap(&self, c: i32, axis: usize) -> i32 {
        if self.periodic.test(axis) {
            c.rem_euclid(self.dims[axis])
        } else {
            c
        }
    }

    /// Calls `run(first, last)` for each contiguous run of cells `first..=last` (linear
    /// indices) covering the cells from `lo` to `hi` (inclusive; clamped along bounded axes,
    /// wrapped along periodic ones), each cell once: one run per row of x, two where a periodic
    /// row wraps.
    #[inline(always)]
    fn for_each_run(&self, lo: IVec3, hi: IVec3, mut run: impl FnMut(usize, usize)) {
        if !self.periodic.any() {
            // Every axis bounded: the same runs, without the per-row wrap tests.
            let (lo, hi) = (lo.max(IVec3::ZERO), hi.min(self.dims - IVec3::ONE));
            for z in lo.z..=hi.z {
                for y in lo.y..=hi.y {
                    let row = (self.dims.x * (y + self.dims.y * z)) as usize;
                    run(row + lo.x as usize, row + hi.x as usize);
                }
            }
            return;
        }
        let (x0, x1) = self.span(lo, hi, 0);
        let (y0, y1) = self.span(lo, hi, 1);
        let (z0, z1) = self.span(lo, hi, 2);
        let (first_x, last_x) = (self.wrap(x0, 0), self.wrap(x1, 0));
        for z in z0..=z1 {
            let plane = self.dims.y * self.wrap(z, 2);
            for y in y0..=y1 {
                let row = (self.dims.x * (self.wrap(y, 1) + plane)) as usize;
                if first_x <= last_x {
                    run(row + first_x as usize, row + last_x as usize);
                } else {
                    run(row + first_x as usize, row + self.dims.x as usize - 1);
                    run(row, row + last_x as usize);
                }
            }
        }
    }

    /// Calls `f` for every grid body in the cells from `lo` to `hi` (inclusive; clamped along
    /// bounded axes, wrapped along periodic ones), each cell once.
    #[inline(always)]
    pub fn for_each_in_box(&self, lo: IVec3, hi: IVec3, mut f: impl FnMut(u32)) {
        self.for_each_run(lo, hi, |first, last| {
            for &j in &self.bodies[self.start[first] as usize..self.start[last + 1] as usize] {
                f(j);
            }
        });
    }

    /// The ranges `start..end` of [`Self::bodies`] that hold the 27 cells around cell `c`
    /// (fewer at a bounded edge), each cell once: at most two per row of x, so at most 18.
    /// Returned rather than visited so that the caller's loop over them inlines its pair test.
    #[inline(always)]
    pub fn neighbour_ranges(&self, c: IVec3) -> ([(u32, u32); 18], usize) {
        let mut out = [(0, 0); 18];
        let mut n = 0;
        self.for_each_run(c - IVec3::ONE, c + IVec3::ONE, |first, last| {
            out[n] = (self.start[first], self.start[last + 1]);
            n += 1;
        });
        (out, n)
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
        let large_limit = large_limit(pos_radius, shapes);
        let small = |i: usize| pos_radius[i].w <= large_limit && shape_of(shapes, i).is_sphere();
        // Each body's reach, and the small spheres' sum and count of them, in one pass.
        let (reach_sum, small_count) = self
            .reach
            .par_chunks_mut(BLOCK)
            .enumerate()
            .map(|(b, out)| {
                let mut sum = (0.0f64, 0usize);
                for (k, r) in out.iter_mut().enumerate() {
                    let i = b * BLOCK + k;
                    *r = shape_of(shapes, i).bounding_radius(pos_radius[i].w)
                        + envelope.body_margin(motion[i].v().length(), h);
                    if small(i) {
                        sum = (sum.0 + *r as f64, sum.1 + 1);
                    }
                }
                sum
            })
            .reduce(|| (0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        let reach = std::mem::take(&mut self.reach);
        let fast_limit = FAST_REACH * (reach_sum / small_count.max(1) as f64) as f32;
        let is_large = |i: usize| !small(i) || reach[i] > fast_limit;
        let (lo, hi, reach_max) = pos_radius
            .par_iter()
            .zip(reach.par_iter())
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
            self.periodic = BVec3::FALSE;
            self.origin = Vec3::ZERO;
            self.cell = 1.0;
        } else {
            self.size_cells(lo, hi, 2.0 * reach_max, n);
        }
        self.count_and_scatter(pos_radius, is_large, n < SERIAL_GRID);
        self.copy_in_cell_order(pos_radius, &reach);
        self.large_cells.build(&self.large, pos_radius, &reach);
        self.reach = reach;
    }

    /// The large bodies in the cells of their own grid around p ([`LargeCells::near`]): every
    /// large body whose bounding sphere (with its margin) can meet one of reach `reach` centred
    /// at p, and a few more.
    pub fn large_near(&self, p: Vec3, reach: f32) -> impl Iterator<Item = u32> + '_ {
        self.large_cells.near(p, reach)
    }

    /// Fills [`Self::sorted_centre_reach`] from the bodies' data and the sorted
    /// [`Self::bodies`].
    fn copy_in_cell_order(&mut self, pos_radius: &[Vec4], reach: &[f32]) {
        self.sorted_centre_reach
            .resize(self.bodies.len(), Vec4::ZERO);
        self.sorted_centre_reach
            .par_iter_mut()
            .zip(self.bodies.par_iter())
            .with_min_len(BLOCK)
            .for_each(|(c, &i)| *c = pos_radius[i as usize].truncate().extend(reach[i as usize]));
    }

    /// Chooses cell edge and counts: the edge `min_cell`, enough cells to cover the extent
    /// from `lo` to `hi` where at most about 4 cells per body do, and otherwise the longest
    /// axes cut to fit that budget (at least 3 cells each) and made periodic.
    fn size_cells(&mut self, lo: Vec3, hi: Vec3, min_cell: f32, n: usize) {
        let extent = (hi - lo).max(Vec3::ZERO);
        let budget = (4 * n).max(4096) as f64;
        let cell = min_cell.max(1e-12);
        let needed = [0, 1, 2].map(|a| (extent[a] as f64 / cell as f64).floor() + 1.0);
        let mut dims = needed;
        loop {
            let total = dims[0] * dims[1] * dims[2];
            if total <= budget {
                break;
            }
            let a = (0..3).fold(0, |m, a| if dims[a] > dims[m] { a } else { m });
            // 27 ≤ budget, so cutting the longest axis always makes progress.
            dims[a] = (budget / (total / dims[a])).floor().max(3.0);
        }
        self.periodic = BVec3::new(
            dims[0] < needed[0],
            dims[1] < needed[1],
            dims[2] < needed[2],
        );
        self.dims = IVec3::new(dims[0] as i32, dims[1] as i32, dims[2] as i32);
        self.cell = cell;
        self.origin = lo;
    }

    /// [`Self::count_and_scatter`] on the calling worker: a counting sort in body order, which
    /// leaves each cell's bodies ascending without the sort.
    fn count_and_scatter_alone(
        &mut self,
        pos_radius: &[Vec4],
        is_large: impl Fn(usize) -> bool,
        cells: usize,
    ) {
        let mut cell_of = std::mem::take(&mut self.cell_of);
        let mut counts = std::mem::take(&mut self.count_snapshot);
        counts.clear();
        counts.resize(cells, 0);
        for (i, (c, p)) in cell_of.iter_mut().zip(pos_radius).enumerate() {
            *c = match is_large(i) {
                true => NOT_IN_GRID,
                false => self.index(self.coords(p.truncate())) as u32,
            };
            if *c != NOT_IN_GRID {
                counts[*c as usize] += 1;
            }
        }
        let total = exclusive_scan(&counts, &mut self.start) as usize;
        counts.copy_from_slice(&self.start[..cells]);
        self.bodies.resize(total, 0);
        for (i, &c) in cell_of.iter().enumerate() {
            if c != NOT_IN_GRID {
                self.bodies[counts[c as usize] as usize] = i as u32;
                counts[c as usize] += 1;
            }
        }
        self.cell_of = cell_of;
        self.count_snapshot = counts;
    }

    /// Sorts the bodies not `is_large` by cell into [`Self::bodies`] (ascending within a cell)
    /// with [`Self::start`] and [`Self::cell_of`]: on the calling worker `alone`, else on the
    /// pool (shared counters, then each cell sorted).
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn count_and_scatter(
        &mut self,
        pos_radius: &[Vec4],
        is_large: impl Fn(usize) -> bool + Sync,
        alone: bool,
    ) {
        let cells = (self.dims.x * self.dims.y * self.dims.z) as usize;
        if alone {
            return self.count_and_scatter_alone(pos_radius, is_large, cells);
        }
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
