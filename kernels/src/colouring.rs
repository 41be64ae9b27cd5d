//! Stage 5, prepare (Gauss–Seidel): greedy colouring of the contact graph: no two contacts of one
//! colour share a dynamic body, so a colour's contacts can be relaxed in parallel by Gauss–Seidel.
//!
//! With the bodies in space order ([`crate::space_order`]), the bed is first cut into blocks:
//! consecutive ranges of slots (slabs of the grid's cells) holding about as many contacts each.
//! A contact belongs to the block of its lower dynamic body's slot when its other dynamic body
//! lies in the same block or the next one. The blocks of even index then touch pairwise
//! different bodies (block k only bodies of blocks k and k + 1), as do the odd ones, so a sweep
//! relaxes all even blocks at once, each by one worker in its own colour order, then all odd
//! blocks, then the contacts of no block (those reaching further, and a block's contacts beyond
//! its 64 colours) in shared colour classes split among the workers. The order of the updates
//! that can touch a common body is fixed by the bed alone, never by the team, so the bits are
//! the same for any number of threads; a sweep costs one or two meetings of the team where
//! the shared classes alone cost one per colour (an odd block waits only for its two even
//! neighbours, [`Blocks::even_neighbours`]). The colouring itself runs block by block at once (each
//! block's contacts in contact order, in masks of the slots no other block of its pass reads),
//! then the rest in contact order. The grouping into classes runs block by block at once too:
//! each block sorts the contacts of its lower slots by slot and puts them at their places, its
//! own classes and its share of the shared ones; only sums over blocks and colours are serial.

use crate::layout::{BodyKind, ContactRow, NO_BODY};
use crate::parallel::{exclusive_scan, Disjoint, BLOCK};
use rayon::prelude::*;

/// Colours used before contacts go to the serial overflow class.
pub const COLOURS: usize = 64;

/// The most blocks a bed is cut into.
const MAX_BLOCKS: usize = 64;

/// The fewest contacts a block holds on average (smaller beds are cut into fewer blocks, or
/// none below four).
const BLOCK_CONTACTS: usize = 1024;

/// The class of a contact not yet coloured (of no block, or beyond its block's colours).
const UNCLASSED: u32 = u32::MAX;

/// The largest share of a bed's contacts that may reach beyond the next block (1/16): a
/// cut that leaves more (blocks thinner than a layer of cells) is redone with half the blocks.
const FAR_SHARE: usize = 16;

/// Contacts grouped by class: class c is `order[start[c]..start[c + 1]]`. The classes of the
/// blocks come first, block after block ([`Blocks`]), then the [`COLOURS`] shared colour
/// classes and the overflow (the last class), relaxed one contact at a time.
#[derive(Default)]
pub struct Colouring {
    /// Contact indices grouped by class (ascending within a class in body order; by the slot of
    /// their lower body, then index, in space order).
    pub order: Vec<u32>,
    /// Offsets of the classes (the blocks' classes, then `COLOURS + 1` shared ones).
    pub start: Vec<u32>,
    /// The blocks' classes.
    pub blocks: Blocks,
    /// Class of each contact: block b's colour c is `64 b + c`, shared colour c is
    /// `64 × blocks + c` (before the empty classes of the blocks are dropped).
    class: Vec<u32>,
    /// Colours used at each body, one mask array per pass (even blocks, odd blocks, shared).
    used: [Vec<u64>; 3],
    /// Contacts of each class key (block b's colour c at `64 b + c`, then the shared ones).
    counts: Vec<u32>,
    cursor: Vec<u32>,
    /// Each contact's slot range: its lower and upper dynamic body's slots (the one slot twice
    /// for a contact of one dynamic body; `[0, NO_DYNAMIC]` for one of none).
    span: Vec<[u32; 2]>,
    /// The block of each slot.
    block_of: Vec<u32>,
    /// The first slot of each block (and the slots' number after the last).
    block_slots: Vec<u32>,
    /// Contacts whose lower slot is below each slot (then the next free place of each slot).
    per_slot: Vec<u32>,
    /// The contacts of each block in contact order: first those it colours (the block's near
    /// contacts), block after block, then those of its lower slots that reach further (its far
    /// contacts), block after block; and where each of the `2 × blocks` lists begins.
    in_block: Vec<u32>,
    block_start: Vec<u32>,
    /// Each chunk's contacts in each list of `in_block` (then the chunk's next free places).
    chunk_counts: Vec<u32>,
    /// The contacts of each block's lower slots in `by_slot` (where each block's begin).
    block_from: Vec<u32>,
    /// Contacts of each block's lower slots in each shared class (then their next free places
    /// in `order`), block-major.
    shared_counts: Vec<u32>,
    /// The contacts sorted by their lower slot.
    by_slot: Vec<u32>,
    /// The class keys in the order a sweep runs them, each key's class, and the classes' sizes.
    runs: Vec<usize>,
    index: Vec<u32>,
    sizes: Vec<u32>,
}

/// The blocks of a [`Colouring`], as ranges of its classes: block b (in the order even blocks
/// first, then odd) is classes `class[b]..class[b + 1]`, and blocks `0..odd` are the even ones.
/// No blocks (`class` empty): every contact is in the shared classes.
#[derive(Default, Clone, Debug, PartialEq)]
pub struct Blocks {
    /// Class offsets of the blocks (length blocks + 1, or 0).
    pub class: Vec<u32>,
    /// Number of even blocks.
    pub odd: usize,
}

impl Blocks {
    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.class.len().saturating_sub(1)
    }

    /// Whether the bed was not cut.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first shared class (the blocks' classes come before it).
    pub fn shared(&self) -> usize {
        self.class.last().map_or(0, |&c| c as usize)
    }

    /// The blocks of the even pass that share dynamic bodies with block `b` of the odd pass
    /// (`b` ≥ [`Self::odd`]): the bed's block 2j + 1 touches the slots of its blocks 2j + 1 and
    /// 2j + 2, which blocks 2j and 2j + 2 touch too, and no other even block does.
    pub fn even_neighbours(&self, b: usize) -> std::ops::Range<usize> {
        let j = b - self.odd;
        j..(j + 2).min(self.odd)
    }
}

impl Colouring {
    /// Colours the contacts in order, each with the lowest colour free at both its bodies, in
    /// the shared classes only (bodies in the order given; each class in contact order).
    pub fn build(&mut self, rows: &[ContactRow], kind: &[u32]) {
        self.colour(rows, kind, None);
    }

    /// Cuts the bed into blocks by the bodies' `slot` (a permutation of `0..kind.len()` in
    /// space order) and colours each block's contacts and the rest, each contact with the
    /// lowest colour free at both its bodies among those of its pass; each class is sorted by
    /// the slot of its lower body (then contact index).
    pub fn build_in_blocks(&mut self, rows: &[ContactRow], kind: &[u32], slot: &[u32]) {
        self.colour(rows, kind, Some(slot));
    }

    fn colour(&mut self, rows: &[ContactRow], kind: &[u32], slot: Option<&[u32]>) {
        let dynamic = |b: u32| b != NO_BODY && kind[b as usize] == BodyKind::Dynamic as u32;
        let blocks = match slot {
            Some(slot) => self.cut(rows, kind, slot),
            None => 0,
        };
        for used in &mut self.used {
            used.clear();
            used.resize(kind.len(), 0);
        }
        self.class.clear();
        self.class.resize(rows.len(), UNCLASSED);
        self.counts.clear();
        self.counts.resize(COLOURS * blocks + COLOURS + 1, 0);
        if blocks > 0 {
            self.colour_blocks(blocks);
        }
        self.colour_shared(rows, blocks, &dynamic);
        self.group(blocks, slot.is_some());
    }

    /// Colours each block's near contacts (each in contact order) in the colours of its pass,
    /// all blocks at once: block k touches the slots of blocks k and k + 1 only, so no two
    /// blocks of one pass share a slot's colours (the masks are the slots', the same colours
    /// as the bodies' would give), and the two passes keep theirs apart. A contact past its
    /// block's [`COLOURS`] stays [`UNCLASSED`], as do the far ones. Meanwhile each block sorts
    /// its lower slots' contacts (near and far) by lower slot, then index, into `by_slot`.
    fn colour_blocks(&mut self, blocks: usize) {
        let (span, block_of) = (&self.span, &self.block_of);
        // Each contact's list, for now, in its class: the block of its lower slot (k), near
        // when its upper slot lies in block k or k + 1, far (blocks + k) otherwise.
        self.class
            .par_iter_mut()
            .zip(span.par_iter())
            .with_min_len(BLOCK)
            .for_each(|(class, &[lo, hi])| {
                let (a, b) = (block_of[lo as usize], block_of[upper(hi) as usize]);
                *class = if b - a <= 1 { a } else { blocks as u32 + a };
            });
        self.sort_into_lists(2 * blocks);
        let span = &self.span;
        // Where each block's lower slots begin in `by_slot`.
        self.block_from.clear();
        let below = &self.per_slot;
        let firsts = self.block_slots.iter().map(|&s| below[s as usize]);
        self.block_from.extend(firsts);
        self.by_slot.resize(self.class.len(), 0);
        let (in_block, start) = (&self.in_block, &self.block_start);
        let class = Disjoint::new(&mut self.class);
        let counts = Disjoint::new(&mut self.counts);
        let next = Disjoint::new(&mut self.per_slot);
        let by_slot = Disjoint::new(&mut self.by_slot);
        let [even, odd, _] = &mut self.used;
        let used = [Disjoint::new(even), Disjoint::new(odd)];
        let list = |l: usize| &in_block[start[l] as usize..start[l + 1] as usize];
        (0..blocks).into_par_iter().for_each(|k| {
            let (near, far) = (list(k), list(blocks + k));
            // SAFETY: the masks of block k's near contacts' slots in its pass are its own (see
            // above), each contact is in one list, the counts of block k's colours and the
            // places of its lower slots in `per_slot` and `by_slot` are block k's alone.
            unsafe {
                let counts = counts.range(COLOURS * k, COLOURS);
                for &i in near {
                    let c = pick_slots(span[i as usize], &used[k % 2]);
                    *class.get(i as usize) = match c < COLOURS {
                        true => {
                            counts[c] += 1;
                            (COLOURS * k + c) as u32
                        }
                        false => UNCLASSED,
                    };
                }
                for &i in far {
                    *class.get(i as usize) = UNCLASSED;
                }
                // Both lists in contact order, merged: a stable sort by lower slot.
                let (mut n, mut f) = (near.iter().peekable(), far.iter().peekable());
                while let Some(&i) = match (n.peek(), f.peek()) {
                    (Some(&&a), Some(&&b)) if b < a => f.next(),
                    (Some(_), _) => n.next(),
                    (None, _) => f.next(),
                } {
                    let at = next.get(span[i as usize][0] as usize);
                    *by_slot.get(*at as usize) = i;
                    *at += 1;
                }
            }
        });
    }

    /// A stable sort of the contacts by their list number (`class`, below `lists`) into
    /// `in_block` and `block_start`, in chunks of [`BLOCK`] contacts at once: each chunk counts
    /// its contacts of each list, the counts are summed list by list in chunk order, and each
    /// chunk puts its contacts at its places.
    fn sort_into_lists(&mut self, lists: usize) {
        let chunks = self.class.len().div_ceil(BLOCK);
        let chunk_counts = &mut self.chunk_counts;
        chunk_counts.clear();
        chunk_counts.resize(chunks * lists, 0);
        chunk_counts
            .par_chunks_mut(lists)
            .zip(self.class.par_chunks(BLOCK))
            .for_each(|(counts, classes)| classes.iter().for_each(|&l| counts[l as usize] += 1));
        let start = &mut self.block_start;
        start.clear();
        let mut at = 0;
        for l in 0..lists {
            start.push(at);
            for j in 0..chunks {
                let count = std::mem::replace(&mut chunk_counts[j * lists + l], at);
                at += count;
            }
        }
        start.push(at);
        self.in_block.resize(self.class.len(), 0);
        let in_block = Disjoint::new(&mut self.in_block);
        chunk_counts
            .par_chunks_mut(lists)
            .zip(self.class.par_chunks(BLOCK))
            .enumerate()
            .for_each(|(j, (next, classes))| {
                for (i, &l) in classes.iter().enumerate() {
                    // SAFETY: each chunk's places of each list are its own.
                    unsafe { *in_block.get(next[l as usize] as usize) = (j * BLOCK + i) as u32 };
                    next[l as usize] += 1;
                }
            });
    }

    /// Colours the contacts of no block and those beyond their block's colours in the shared
    /// classes, in contact order, and counts them (by block, with blocks).
    fn colour_shared(
        &mut self,
        rows: &[ContactRow],
        blocks: usize,
        dynamic: &(impl Fn(u32) -> bool + Sync),
    ) {
        let shared = COLOURS * blocks;
        let by_block = &mut self.shared_counts;
        by_block.clear();
        by_block.resize(blocks * (COLOURS + 1), 0);
        let used = Disjoint::new(&mut self.used[2]);
        for (i, (r, class)) in rows.iter().zip(&mut self.class).enumerate() {
            if *class == UNCLASSED {
                // SAFETY: one thread.
                let c = unsafe { pick(r, &used, dynamic) }.min(COLOURS);
                *class = (shared + c) as u32;
                self.counts[shared + c] += 1;
                if blocks > 0 {
                    let k = self.block_of[self.span[i][0] as usize] as usize;
                    by_block[k * (COLOURS + 1) + c] += 1;
                }
            }
        }
    }

    /// Chooses the blocks for `rows` (fills `span`, `per_slot`, `block_of` and `block_slots`):
    /// up to [`MAX_BLOCKS`] of about [`BLOCK_CONTACTS`] contacts or more, halved while more
    /// than 1/[`FAR_SHARE`] of the contacts reach beyond the next block; returns their number
    /// (0: fewer than four fit).
    fn cut(&mut self, rows: &[ContactRow], kind: &[u32], slot: &[u32]) -> usize {
        let slots = kind.len();
        self.span.resize(rows.len(), [0; 2]);
        self.span
            .par_iter_mut()
            .zip(rows.par_iter())
            .with_min_len(BLOCK)
            .for_each(|(span, r)| *span = slot_range(r, kind, slot));
        // Contacts up to each lower slot: the cuts fall where the sum crosses a share.
        let below = &mut self.per_slot;
        below.clear();
        below.resize(slots + 1, 0);
        for &[lo, _] in &self.span {
            below[lo as usize + 1] += 1;
        }
        for s in 1..=slots {
            below[s] += below[s - 1];
        }
        let total = rows.len();
        // A power of two, so that each pass's blocks split evenly between 2, 4, … workers.
        let mut blocks = MAX_BLOCKS;
        while blocks * BLOCK_CONTACTS > total {
            blocks /= 2;
        }
        while blocks >= 4 {
            // The cuts, as each slot's block and each block's first slot.
            let (block_of, firsts) = (&mut self.block_of, &mut self.block_slots);
            block_of.clear();
            firsts.clear();
            for k in 0..blocks {
                let share = (total * (k + 1) / blocks) as u32;
                let end = match k + 1 {
                    b if b == blocks => slots,
                    _ => below.partition_point(|&c| c <= share).saturating_sub(1),
                };
                firsts.push(block_of.len() as u32);
                block_of.resize(end.max(block_of.len()), k as u32);
            }
            firsts.push(slots as u32);
            let far = self
                .span
                .par_iter()
                .with_min_len(BLOCK)
                .filter(|&&[lo, hi]| block_of[upper(hi) as usize] - block_of[lo as usize] > 1)
                .count();
            if far * FAR_SHARE <= total {
                return blocks;
            }
            blocks /= 2;
        }
        0
    }

    /// Groups the contacts by `class` into `order`, `start` and `blocks`, dropping the blocks'
    /// empty classes; within a class by lower slot, then index (`by_slot`), or by index. With
    /// blocks, each block places its lower slots' contacts (from `by_slot`) all at once.
    fn group(&mut self, blocks: usize, by_slot: bool) {
        let keys = COLOURS * blocks + COLOURS + 1;
        let counts = &self.counts;
        // The classes in the order a sweep runs them: even blocks, odd blocks, shared.
        let runs = &mut self.runs;
        runs.clear();
        let (block_class, odd) = (&mut self.blocks.class, &mut self.blocks.odd);
        block_class.clear();
        *odd = blocks.div_ceil(2);
        for k in (0..blocks).step_by(2).chain((1..blocks).step_by(2)) {
            block_class.push(runs.len() as u32);
            runs.extend((COLOURS * k..COLOURS * (k + 1)).filter(|&c| counts[c] > 0));
        }
        if blocks > 0 {
            block_class.push(runs.len() as u32);
        }
        runs.extend(COLOURS * blocks..keys);
        // Each key's class (keys of empty block classes are never looked up).
        let index = &mut self.index;
        index.resize(keys, 0);
        for (i, &key) in runs.iter().enumerate() {
            index[key] = i as u32;
        }
        let sizes = &mut self.sizes;
        sizes.clear();
        sizes.extend(runs.iter().map(|&key| counts[key]));
        exclusive_scan(sizes, &mut self.start);
        let cursor = &mut self.cursor;
        cursor.clear();
        cursor.extend_from_slice(&self.start);
        let contacts = self.class.len();
        self.order.resize(contacts, 0);
        if blocks > 0 {
            self.place_by_blocks(blocks);
            return;
        }
        let by_lower_slot = &mut self.by_slot;
        by_lower_slot.clear();
        if by_slot {
            // A counting sort by lower slot: `per_slot` holds the contacts below each slot.
            by_lower_slot.resize(contacts, 0);
            let next = &mut self.per_slot;
            for (c, &[lo, _]) in self.span.iter().enumerate() {
                by_lower_slot[next[lo as usize] as usize] = c as u32;
                next[lo as usize] += 1;
            }
        } else {
            by_lower_slot.extend(0..contacts as u32);
        }
        for &c in by_lower_slot.iter() {
            let k = index[self.class[c as usize] as usize] as usize;
            self.order[cursor[k] as usize] = c;
            cursor[k] += 1;
        }
    }

    /// Puts each contact at its place in `order`, all blocks at once, each block its lower
    /// slots' contacts in `by_slot` order: its own classes from their starts, and each shared
    /// class after the blocks before it (`shared_counts` becomes those places).
    fn place_by_blocks(&mut self, blocks: usize) {
        let shared = COLOURS * blocks;
        let places = &mut self.shared_counts;
        for c in 0..=COLOURS {
            let mut at = self.start[self.index[shared + c] as usize];
            for k in 0..blocks {
                at += std::mem::replace(&mut places[k * (COLOURS + 1) + c], at);
            }
        }
        let (class, index, by_slot, from) =
            (&self.class, &self.index, &self.by_slot, &self.block_from);
        let cursor = Disjoint::new(&mut self.cursor);
        let places = Disjoint::new(&mut self.shared_counts);
        let order = Disjoint::new(&mut self.order);
        (0..blocks).into_par_iter().for_each(|k| {
            for &c in &by_slot[from[k] as usize..from[k + 1] as usize] {
                let key = class[c as usize] as usize;
                // SAFETY: block k's classes and its places in the shared ones are its own,
                // and every contact has one place.
                unsafe {
                    let at = match key < shared {
                        true => cursor.get(index[key] as usize),
                        false => places.get(k * (COLOURS + 1) + key - shared),
                    };
                    *order.get(*at as usize) = c;
                    *at += 1;
                }
            }
        });
    }
}

/// The mark of a contact of no dynamic body in its slot range's upper slot.
const NO_DYNAMIC: u32 = 1 << 31;

/// The slots of the dynamic bodies of `r`, lower first: the one slot twice for a contact of one
/// dynamic body, `[0, NO_DYNAMIC]` for a contact of none (which constrains nothing). Read
/// without a branch on which of its sides are bodies (an index past the bodies, a wall's, is
/// clamped into the arrays and its answers not chosen), which no predictor could learn.
#[inline(always)]
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn slot_range(r: &ContactRow, kind: &[u32], slot: &[u32]) -> [u32; 2] {
    let last = kind.len() - 1;
    let side = |b: u32| {
        let i = (b as usize).min(last);
        let dynamic = (b != NO_BODY) & (kind[i] == BodyKind::Dynamic as u32);
        (dynamic, slot[i])
    };
    let ((da, sa), (db, sb)) = (side(r.body_a), side(r.body_b));
    let (x, y) = (if da { sa } else { sb }, if db { sb } else { sa });
    match da | db {
        true => [x.min(y), x.max(y)],
        false => [0, NO_DYNAMIC],
    }
}

/// The upper slot of a slot range (slot 0 for a contact of no dynamic body).
#[inline(always)]
fn upper(hi: u32) -> u32 {
    hi & !NO_DYNAMIC
}

/// The lowest colour free at the slots `[lo, hi]` of a contact's dynamic bodies in the masks
/// `used` (none for a contact of no dynamic body), taken there when below [`COLOURS`].
///
/// # Safety
/// No other thread may touch the masks of slots `lo` and `hi` meanwhile.
#[inline(always)]
unsafe fn pick_slots([lo, hi]: [u32; 2], used: &Disjoint<u64>) -> usize {
    if hi & NO_DYNAMIC != 0 {
        return 0;
    }
    let (lo, hi) = (lo as usize, hi as usize);
    let c = (!(used.read(lo) | used.read(hi))).trailing_zeros() as usize;
    if c < COLOURS {
        *used.get(lo) |= 1 << c;
        *used.get(hi) |= 1 << c;
    }
    c
}

/// The lowest colour free at the dynamic bodies of `r` in the masks `used`, taken there when
/// below [`COLOURS`].
///
/// # Safety
/// No other thread may touch the masks of `r`'s dynamic bodies meanwhile.
unsafe fn pick(
    r: &ContactRow,
    used: &Disjoint<u64>,
    dynamic: &(impl Fn(u32) -> bool + Sync),
) -> usize {
    let bodies = [r.body_a, r.body_b].map(|b| dynamic(b).then_some(b as usize));
    let taken = bodies.iter().flatten().fold(0, |t, &b| t | used.read(b));
    let c = (!taken).trailing_zeros() as usize;
    if c < COLOURS {
        bodies
            .iter()
            .flatten()
            .for_each(|&b| *used.get(b) |= 1 << c);
    }
    c
}
