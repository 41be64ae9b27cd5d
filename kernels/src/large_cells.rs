//! Stage 2, broad phase: the bodies kept out of the uniform grid (large, shaped or fast ones,
//! see [`crate::broad_phase`]) in a coarse grid of their own, for their pairs among themselves.
//!
//! The cell edge is twice the largest reach R of such a body, so every large body that can meet
//! one of reach r ≤ R centred at p has its centre within r + R ≤ 2R of p along each axis: in the
//! cells the box p ± (r + R) covers, at most 3 along each axis. A bed of shaped grains then
//! pairs each grain with its neighbours' cells instead of a slab of the whole bed. The cells
//! cover the large bodies' centres; a bed spread thin (a few bodies far apart) gets a coarser
//! edge, so that there are at most about [`CELLS_PER_BODY`] cells per body.

use crate::cell_coords::floor_cell;
use glam::{IVec3, Vec3, Vec4};

/// The most cells per large body (the cell edge grows to keep to it).
pub const CELLS_PER_BODY: usize = 4;

/// The large bodies sorted by cell of their own coarse grid.
#[derive(Default)]
pub struct LargeCells {
    /// Lower corner of cell (0, 0, 0) (m).
    origin: Vec3,
    /// Cell edge (m).
    cell: f32,
    /// Cells along x, y, z (at least 1 each).
    dims: IVec3,
    /// The largest reach of a large body (m).
    reach_max: f32,
    /// Bodies of cell c are `bodies[start[c]..start[c + 1]]`, in increasing index.
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub start: Vec<u32>,
    /// The large bodies sorted by cell.
    bodies: Vec<u32>,
    /// Cell of each body of the `large` list given to [`Self::build`], in its order.
    cell_of: Vec<u32>,
    /// The next free slot of each cell while the bodies are scattered.
    fill: Vec<u32>,
}

impl LargeCells {
    /// Sorts the bodies `large` (increasing index) by cell, for centres `pos_radius` and
    /// reaches `reach` (indexed by body).
    pub fn build(&mut self, large: &[u32], pos_radius: &[Vec4], reach: &[f32]) {
        self.bodies.clear();
        self.start.clear();
        self.cell_of.clear();
        if large.is_empty() {
            return;
        }
        let centre = |l: u32| pos_radius[l as usize].truncate();
        let (lo, hi, reach_max) = large.iter().fold(
            (Vec3::INFINITY, Vec3::NEG_INFINITY, 0.0f32),
            |(lo, hi, r), &l| {
                let p = centre(l);
                (lo.min(p), hi.max(p), r.max(reach[l as usize]))
            },
        );
        self.reach_max = reach_max;
        self.origin = lo;
        // Non-finite centres (a run gone wrong, stopped by the health check after the step)
        // fall into one cell rather than sizing the grid.
        let extent = (hi - lo).max(Vec3::ZERO);
        let extent = Vec3::select(extent.is_finite_mask(), extent, Vec3::ZERO);
        let budget = (CELLS_PER_BODY * large.len()) as f64;
        let mut cell = (2.0 * reach_max).max(f32::MIN_POSITIVE);
        loop {
            let dims = (extent / cell).floor().as_dvec3() + 1.0;
            if dims.x * dims.y * dims.z <= budget.max(1.0) || !cell.is_finite() {
                break;
            }
            cell *= ((dims.x * dims.y * dims.z / budget).cbrt() as f32).max(1.01);
        }
        self.cell = cell;
        self.dims = ((extent / cell).floor().as_ivec3() + IVec3::ONE).max(IVec3::ONE);
        let cells = (self.dims.x * self.dims.y * self.dims.z) as usize;
        self.start.resize(cells + 1, 0);
        for &l in large {
            let c = self.index(self.coords(centre(l)));
            self.cell_of.push(c);
            self.start[c as usize + 1] += 1;
        }
        for c in 0..cells {
            self.start[c + 1] += self.start[c];
        }
        self.bodies.resize(large.len(), 0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.start[..cells]);
        for (&l, &c) in large.iter().zip(&self.cell_of) {
            self.bodies[self.fill[c as usize] as usize] = l;
            self.fill[c as usize] += 1;
        }
    }

    /// The large bodies in the cells the box p ± (`reach` + the largest large body's reach)
    /// covers: every large body whose bounding sphere (with its margin) can meet one of reach
    /// `reach` centred at p, and a few more.
    pub fn near(&self, p: Vec3, reach: f32) -> impl Iterator<Item = u32> + '_ {
        let span = Vec3::splat(reach + self.reach_max);
        let (lo, hi) = match self.bodies.is_empty() {
            true => (IVec3::ONE, IVec3::ZERO),
            false => (self.coords(p - span), self.coords(p + span)),
        };
        (lo.z..=hi.z).flat_map(move |z| {
            (lo.y..=hi.y).flat_map(move |y| {
                let row = self.index(IVec3::new(lo.x, y, z)) as usize;
                let end = self.index(IVec3::new(hi.x, y, z)) as usize + 1;
                self.bodies[self.start[row] as usize..self.start[end] as usize]
                    .iter()
                    .copied()
            })
        })
    }

    /// Cell coordinates of a point, clamped into the grid.
    fn coords(&self, p: Vec3) -> IVec3 {
        floor_cell((p - self.origin) / self.cell).clamp(IVec3::ZERO, self.dims - IVec3::ONE)
    }

    /// Linear index of cell `c` (x fastest).
    fn index(&self, c: IVec3) -> u32 {
        (c.x + self.dims.x * (c.y + self.dims.y * c.z)) as u32
    }
}
