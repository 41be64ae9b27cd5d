//! Stage 5, prepare: the solver's layout, contact rows regrouped into packs of four lanes
//! ([`RowPack`]), class by class (the colours for Gauss–Seidel, one class in contact order for
//! Jacobi); a Gauss–Seidel solve of rows that all have their arms along the normal (spheres
//! against spheres and planes) gets them as [`SpherePack`]s.

use crate::contact_update::{transpose, Lanes3, RowPack, PADDING_ROW};
use crate::layout::{ContactRow, NO_BODY};
use crate::parallel::{Disjoint, BLOCK};
use crate::sphere_pack::SpherePack;
use glam::Vec4;
use rayon::prelude::*;
use std::borrow::Borrow;
use std::sync::atomic::{AtomicBool, Ordering};

/// Contacts from which a Gauss–Seidel solve tries compact packs ([`SpherePack`]), about 32,768
/// packs (12 MiB of full ones). Below it the full packs stay in the caches and rebuilding the
/// tangents and arms costs more than the bytes save: on the 27k pour (about 70,000 contacts) the
/// solve ran 11 % more instructions with compact packs, while on the 100k pour (about 275,000)
/// it took about 14 % less time on a 2-core EPYC with a 32 MiB L3 (docs/benchmark.md).
pub const COMPACT_FROM: usize = 131_072;

/// Builds after a failed try at compact packs that lay out the full ones without trying.
const COMPACT_RETRY: u32 = 64;

/// The packs' rows, full or compact ([`Packs::rows`]).
#[derive(Clone, Copy)]
pub enum PackRows<'a> {
    /// Full packs.
    Full(&'a [RowPack]),
    /// Compact sphere packs.
    Compact(&'a [SpherePack]),
}

impl<'a> PackRows<'a> {
    /// The `compact` packs' or the `full` ones.
    fn of(compact: bool, full: &'a [RowPack], spheres: &'a [SpherePack]) -> Self {
        match compact {
            true => PackRows::Compact(spheres),
            false => PackRows::Full(full),
        }
    }
}

/// A pack the sweeps read rows from: in place ([`RowPack`]) or rebuilt ([`SpherePack`]).
pub trait ReadRows: Sync {
    /// The rows: a reference, or the rebuilt pack.
    type Rows<'a>: Borrow<RowPack>
    where
        Self: 'a;
    /// The pack's rows in full.
    fn rows(&self) -> Self::Rows<'_>;
}

impl ReadRows for RowPack {
    type Rows<'a> = &'a RowPack;
    #[inline(always)]
    fn rows(&self) -> &RowPack {
        self
    }
}

impl ReadRows for SpherePack {
    type Rows<'a> = RowPack;
    #[inline(always)]
    fn rows(&self) -> RowPack {
        self.expand()
    }
}

/// Lane marker for padding.
pub const PADDING: u32 = u32::MAX;

/// Contacts in packs of four, grouped in classes: class c is packs `start[c]..start[c + 1]`.
#[derive(Default)]
pub struct Packs {
    /// Row data of each pack (empty when [`Self::compact`]).
    pub rows: Vec<RowPack>,
    /// The packs in compact form, when [`Self::compact`].
    pub spheres: Vec<SpherePack>,
    /// Whether the packs are `spheres` rather than `rows`.
    pub compact: bool,
    /// Builds left before compact packs are tried again.
    compact_wait: u32,
    /// Impulses (γn, γt1, γt2) of each pack.
    pub gamma: Vec<Lanes3>,
    /// Contact index of lane k of pack p at `4 p + k` ([`PADDING`] for padding lanes).
    pub lanes: Vec<u32>,
    /// Pack offsets of the classes.
    pub start: Vec<u32>,
}

impl Packs {
    /// Packs the contacts of each class. Class c holds contacts `order[class[c]..class[c + 1]]`
    /// (`order = None`: contacts in index order); a class listed in `one_per_pack` puts each
    /// contact in a pack of its own (its contacts may share bodies). The packs name each body
    /// `b` of the rows as `body(b)` (the identity, or its slot in the solver's own order).
    /// With `spheres` (the bodies' centres and radii ρ, indexed as `body` names them), the
    /// packs are made [`SpherePack`]s when every one of them rebuilds its rows exactly from
    /// arms −ρ_a n and ρ_b n.
    pub fn build(
        &mut self,
        rows: &[ContactRow],
        gamma: &[[f32; 4]],
        (order, class): (Option<&[u32]>, &[u32]),
        one_per_pack: Option<usize>,
        body: impl Fn(u32) -> u32 + Sync,
        spheres: Option<&[Vec4]>,
    ) {
        self.lanes.clear();
        self.start.clear();
        for c in 0..class.len() - 1 {
            self.start.push((self.lanes.len() / 4) as u32);
            let (s, e) = (class[c] as usize, class[c + 1] as usize);
            for i in s..e {
                self.lanes.push(order.map_or(i as u32, |o| o[i]));
                if one_per_pack == Some(c) {
                    self.lanes.extend([PADDING; 3]);
                }
            }
            while !self.lanes.len().is_multiple_of(4) {
                self.lanes.push(PADDING);
            }
        }
        self.start.push((self.lanes.len() / 4) as u32);
        let packs = self.lanes.len() / 4;
        self.gamma.resize(packs, [Vec4::ZERO; 3]);
        let lanes = &self.lanes;
        let renumber = |pack: (&mut [u32; 4], &mut [u32; 4]), p: usize| {
            for (k, &c) in lanes[4 * p..4 * p + 4].iter().enumerate() {
                if c != PADDING {
                    pack.0[k] = body(pack.0[k]);
                    pack.1[k] = body(pack.1[k]);
                }
            }
        };
        self.compact = false;
        if let Some(radii) = spheres.filter(|_| self.compact_wait == 0) {
            let failed = AtomicBool::new(false);
            self.spheres.resize(packs, SpherePack::default());
            self.spheres
                .par_iter_mut()
                .zip(self.gamma.par_iter_mut())
                .enumerate()
                .with_min_len(BLOCK / 4)
                .for_each(|(p, (pack, g))| {
                    let mut full = full_pack(lanes, rows, p);
                    renumber((&mut full.body_a, &mut full.body_b), p);
                    let arm = |b: u32, sign: f32| match b {
                        NO_BODY => 0.0,
                        b => sign * radii[b as usize].w,
                    };
                    let arms = [
                        Vec4::from_array(full.body_a.map(|b| arm(b, -1.0))),
                        Vec4::from_array(full.body_b.map(|b| arm(b, 1.0))),
                    ];
                    match SpherePack::of(&full, arms) {
                        Some(compact) => *pack = compact,
                        None => failed.store(true, Ordering::Relaxed),
                    }
                    *g = pack_lanes(lanes, p, gamma);
                });
            self.compact = !failed.into_inner();
            if self.compact {
                self.rows.clear();
                return;
            }
            self.compact_wait = COMPACT_RETRY;
        }
        self.compact_wait = self.compact_wait.saturating_sub(1);
        self.spheres.clear();
        self.rows.resize(packs, RowPack::default());
        self.rows
            .par_iter_mut()
            .zip(self.gamma.par_iter_mut())
            .enumerate()
            .with_min_len(BLOCK / 4)
            .for_each(|(p, (pack, g))| {
                *pack = full_pack(lanes, rows, p);
                renumber((&mut pack.body_a, &mut pack.body_b), p);
                *g = pack_lanes(lanes, p, gamma);
            });
    }

    /// The packs' rows, in whichever form they are.
    pub fn rows(&self) -> PackRows<'_> {
        PackRows::of(self.compact, &self.rows, &self.spheres)
    }

    /// The packs' rows and class offsets beside their impulses, to update.
    pub fn split(&mut self) -> (PackRows<'_>, &[u32], &mut [Lanes3]) {
        let rows = PackRows::of(self.compact, &self.rows, &self.spheres);
        (rows, &self.start, &mut self.gamma)
    }

    /// How many packs there are.
    pub fn len(&self) -> usize {
        self.gamma.len()
    }

    /// Whether there are no packs.
    pub fn is_empty(&self) -> bool {
        self.gamma.is_empty()
    }

    /// Copies the packed impulses back to contact order.
    pub fn unpack_gamma(&self, gamma: &mut [[f32; 4]]) {
        unpack_lanes(&self.lanes, &self.gamma, gamma);
    }
}

/// Pack `p`'s rows in full, lane k holding contact `lanes[4 p + k]`'s row.
#[inline(always)]
fn full_pack(lanes: &[u32], rows: &[ContactRow], p: usize) -> RowPack {
    let four = &lanes[4 * p..4 * p + 4];
    let row = |k: usize| match four[k] {
        PADDING => &PADDING_ROW,
        c => &rows[c as usize],
    };
    RowPack::from_rows([row(0), row(1), row(2), row(3)])
}

/// The three components of the per-contact vectors `values` of pack `p`'s lanes (zero in
/// padding lanes).
#[inline(always)]
pub fn pack_lanes(lanes: &[u32], p: usize, values: &[[f32; 4]]) -> Lanes3 {
    let value = |c: u32| match c {
        PADDING => Vec4::ZERO,
        c => Vec4::from_array(values[c as usize]),
    };
    let [x, y, z, _] = transpose(std::array::from_fn(|k| value(lanes[4 * p + k])));
    [x, y, z]
}

/// Copies packed 3-vectors back to contact order, (x, y, z, 0) per contact: the inverse of
/// [`pack_lanes`].
pub fn unpack_lanes(lanes: &[u32], packed: &[Lanes3], out: &mut [[f32; 4]]) {
    let out = Disjoint::new(out);
    packed
        .par_iter()
        .enumerate()
        .with_min_len(BLOCK / 4)
        .for_each(|(p, g)| {
            let values = transpose([g[0], g[1], g[2], Vec4::ZERO]);
            for (&c, v) in lanes[4 * p..4 * p + 4].iter().zip(values) {
                if c != PADDING {
                    // SAFETY: each contact sits in one lane of one pack.
                    unsafe { *out.get(c as usize) = v.to_array() };
                }
            }
        });
}
