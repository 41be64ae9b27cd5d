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
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub body: Vec<u32>,
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
