//! Stage 5, prepare (Gauss–Seidel): the solver's own copy of the bodies' motion in space order.
//!
//! The bodies' arrays are in the order the user gave them, which for a random fill or a poured
//! stream says nothing of where they are. The Gauss–Seidel solve therefore works on a copy of
//! the motion laid out in the broad phase's cell order (the grid's bodies cell by cell, then the
//! bodies kept out of the grid), with the packs' bodies numbered by their slots. Consecutive
//! slots are slabs of cells, which [`crate::colouring`] cuts into blocks, each relaxed by one
//! worker, and each class's contacts are sorted by the slot of their lower body: a body stays in
//! the cache of the worker that updates it, and a sweep walks memory in order.

use crate::broad_phase::Grid;
use crate::layout::{Motion, NO_BODY};
use crate::parallel::{Disjoint, BLOCK};
use rayon::prelude::*;

/// A permutation of the bodies into space order: each body's slot in the solver's copy.
#[derive(Default)]
pub struct SpaceOrder {
    /// The body in each slot (slot → body).
    body: Vec<u32>,
    /// The slot of each body (body → slot).
    slot: Vec<u32>,
}

impl SpaceOrder {
    /// Orders the bodies as the broad phase's `grid` holds them (every body is a grid body or a
    /// large one).
    pub fn build(&mut self, grid: &Grid) {
        self.body.clear();
        self.body.extend_from_slice(&grid.bodies);
        self.body.extend_from_slice(&grid.large);
        self.slot.resize(self.body.len(), NO_BODY);
        let slot = Disjoint::new(&mut self.slot);
        self.body
            .par_iter()
            .enumerate()
            .with_min_len(BLOCK)
            .for_each(|(s, &b)| {
                // SAFETY: `body` is a permutation, so every body's slot is written once.
                unsafe { *slot.get(b as usize) = s as u32 };
            });
    }

    /// Copies the bodies' `values` (their motion, their centres and radii) into slot order,
    /// into `local`.
    pub fn gather<T: Copy + Default + Send + Sync>(&self, values: &[T], local: &mut Vec<T>) {
        debug_assert_eq!(self.body.len(), values.len());
        local.resize(self.body.len(), T::default());
        local
            .par_iter_mut()
            .zip(self.body.par_iter())
            .with_min_len(BLOCK)
            .for_each(|(m, &b)| *m = values[b as usize]);
    }

    /// The slot of `body` ([`NO_BODY`] stays [`NO_BODY`]).
    #[inline(always)]
    pub fn slot(&self, body: u32) -> u32 {
        if body == NO_BODY {
            NO_BODY
        } else {
            self.slot[body as usize]
        }
    }

    /// The slot of each body.
    pub fn slots(&self) -> &[u32] {
        &self.slot
    }

    /// Copies the motion `local` (in slot order) back to the bodies' order, into `motion`.
    pub fn scatter(&self, local: &[Motion], motion: &mut [Motion]) {
        let out = Disjoint::new(motion);
        local
            .par_iter()
            .zip(self.body.par_iter())
            .with_min_len(BLOCK)
            .for_each(|(m, &b)| {
                // SAFETY: `body` is a permutation, so every body is written once.
                unsafe { *out.get(b as usize) = *m };
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad_phase::Envelope;
    use crate::random::Lcg;
    use glam::Vec4;

    /// A random cloud of spheres with one large sphere: the order is a permutation, slots and
    /// bodies are inverse, the motion round-trips bit for bit, and consecutive slots of the
    /// grid's bodies lie in the same or a later cell.
    #[test]
    fn the_space_order_is_a_permutation_in_cell_order() {
        let mut random = Lcg::new(7);
        let mut pos: Vec<Vec4> = (0..500)
            .map(|_| Vec4::new(random.unit(), random.unit(), random.unit(), 0.01))
            .collect();
        pos[17].w = 0.1;
        let motion: Vec<Motion> = (0..500)
            .map(|i| Motion {
                linear: [i as f32, random.unit(), -1.0],
                inv_mass: 1.0,
                ..Motion::default()
            })
            .collect();
        let mut grid = Grid::default();
        grid.build(&pos, &[], &motion, Envelope::Fixed(1e-3), 1e-3);
        let mut order = SpaceOrder::default();
        order.build(&grid);
        let mut local = Vec::new();
        order.gather(&motion, &mut local);
        let mut seen: Vec<u32> = order.body.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..500).collect::<Vec<_>>());
        for (s, &b) in order.body.iter().enumerate() {
            assert_eq!(order.slot(b), s as u32);
            assert_eq!(local[s], motion[b as usize]);
        }
        assert_eq!(*order.body.last().unwrap(), 17, "the large body comes last");
        let cells: Vec<u32> = grid
            .bodies
            .iter()
            .map(|&b| grid.cell_of[b as usize])
            .collect();
        assert!(cells.windows(2).all(|w| w[0] <= w[1]));
        let mut back = vec![Motion::default(); 500];
        order.scatter(&local, &mut back);
        assert_eq!(back, motion);
        assert_eq!(order.slot(NO_BODY), NO_BODY);
    }
}
