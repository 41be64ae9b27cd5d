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
fn slot_range(r: &ContactRow, kind: &[u32], slot: &[u32]) -> [u32; 2] {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Lcg;

    /// A contact between `a` and `b` (`NO_BODY`: a wall).
    fn contact(a: u32, b: u32) -> ContactRow {
        ContactRow {
            body_a: a,
            body_b: b,
            ..ContactRow::default()
        }
    }

    /// Checks the colouring of `rows`: every contact in exactly one class; no two contacts of a
    /// class (the overflow, the last, apart) sharing a dynamic body; no two blocks of one pass
    /// sharing a dynamic body; `COLOURS + 1` shared classes after the blocks' classes.
    fn assert_valid(c: &Colouring, rows: &[ContactRow], kind: &[u32]) {
        let classes = c.start.len() - 1;
        assert_eq!(classes - c.blocks.shared(), COLOURS + 1);
        assert_eq!(c.start[classes] as usize, rows.len());
        let mut seen = c.order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..rows.len() as u32).collect::<Vec<_>>());
        let dynamic = |b: u32| b != NO_BODY && kind[b as usize] == BodyKind::Dynamic as u32;
        let class = |k: usize| &c.order[c.start[k] as usize..c.start[k + 1] as usize];
        let bodies = |k: usize| {
            let pairs = class(k)
                .iter()
                .map(|&i| [rows[i as usize].body_a, rows[i as usize].body_b]);
            pairs.flatten().filter(|&b| dynamic(b)).collect::<Vec<_>>()
        };
        for k in 0..classes - 1 {
            let mut touched = std::collections::HashSet::new();
            for b in bodies(k) {
                assert!(touched.insert(b), "class {k}: body {b} in two contacts");
            }
        }
        let b = &c.blocks;
        for pass in [0..b.odd, b.odd..b.len()] {
            let mut owner = std::collections::HashMap::new();
            for block in pass {
                for k in b.class[block] as usize..b.class[block + 1] as usize {
                    for body in bodies(k) {
                        let first = *owner.entry(body).or_insert(block);
                        assert_eq!(first, block, "body {body} in two blocks of a pass");
                    }
                }
            }
        }
    }

    /// A random contact graph of 200 bodies (every tenth fixed, every tenth kinematic) with
    /// body–body and wall contacts, in body order: a valid colouring in few shared colours,
    /// ascending within each, with no blocks and no overflow.
    #[test]
    fn no_colour_shares_a_dynamic_body() {
        let mut random = Lcg::new(3);
        let kind: Vec<u32> = (0..200)
            .map(|i| match i % 10 {
                0 => BodyKind::Fixed as u32,
                5 => BodyKind::Kinematic as u32,
                _ => BodyKind::Dynamic as u32,
            })
            .collect();
        let mut pick = || (random.unit() * 200.0) as u32;
        let rows: Vec<ContactRow> = (0..1000)
            .map(|k| match k % 5 {
                0 => contact(pick(), NO_BODY),
                _ => {
                    let (a, b) = (pick(), pick());
                    contact(a.min(b), a.max(b) + u32::from(a == b))
                }
            })
            .filter(|r| r.body_b == NO_BODY || r.body_b < 200)
            .collect();
        let mut c = Colouring::default();
        c.build(&rows, &kind);
        assert_valid(&c, &rows, &kind);
        assert!(c.blocks.is_empty());
        assert_eq!(c.start[COLOURS], c.start[COLOURS + 1], "no overflow");
        for k in 0..COLOURS {
            let class = &c.order[c.start[k] as usize..c.start[k + 1] as usize];
            assert!(class.windows(2).all(|w| w[0] < w[1]), "colour {k}");
        }
    }

    /// Shuffles `items` in place (Fisher–Yates).
    fn shuffle<T>(items: &mut [T], random: &mut Lcg) {
        for i in (1..items.len()).rev() {
            items.swap(i, (random.unit() * (i + 1) as f32) as usize % (i + 1));
        }
    }

    /// `rows` coloured in blocks by a team of `threads` workers, checked valid.
    fn coloured_by_team(
        threads: usize,
        rows: &[ContactRow],
        kind: &[u32],
        slot: &[u32],
    ) -> Colouring {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut c = Colouring::default();
        pool.install(|| c.build_in_blocks(rows, kind, slot));
        assert_valid(&c, rows, kind);
        c
    }

    /// The contacts of a cubic lattice of n × n × n bodies numbered along x, then y, then z:
    /// each body with its neighbours of higher index, every bottom body with the floor.
    fn lattice(n: u32) -> Vec<ContactRow> {
        let at = |x: u32, y: u32, z: u32| x + n * (y + n * z);
        let mut rows = Vec::new();
        for (x, y, z) in (0..n * n * n).map(|b| (b % n, b / n % n, b / (n * n))) {
            let b = at(x, y, z);
            for (near, there) in [(x + 1, at(x + 1, y, z)), (y + 1, at(x, y + 1, z))] {
                if near < n {
                    rows.push(contact(b, there));
                }
            }
            if z + 1 < n {
                rows.push(contact(b, at(x, y, z + 1)));
            }
            if z == 0 {
                rows.push(contact(b, NO_BODY));
            }
        }
        rows
    }

    /// The blocks are coloured all at once, the rest in contact order: the same classes from
    /// teams of 1, 2 and 5 workers (each run six times), for a lattice whose contacts come in a random order (so
    /// that each block's greedy colours depend on the order its contacts are taken in).
    #[test]
    fn the_colours_do_not_depend_on_the_team() {
        let mut rows = lattice(20);
        let mut random = Lcg::new(9);
        shuffle(&mut rows, &mut random);
        let kind = vec![BodyKind::Dynamic as u32; 20 * 20 * 20];
        let identity: Vec<u32> = (0..20 * 20 * 20).collect();
        let coloured = |threads: usize| {
            let c = coloured_by_team(threads, &rows, &kind, &identity);
            assert!(c.blocks.len() >= 4, "{} blocks", c.blocks.len());
            (c.order, c.start, c.blocks)
        };
        let one = coloured(1);
        // Repeated, so that a race between blocks would show in some run.
        for _ in 0..6 {
            assert_eq!(coloured(2), one);
            assert_eq!(coloured(5), one);
        }
    }

    /// The contacts of a cubic lattice of 24 × 24 × 24 bodies (each with its six neighbours and
    /// every bottom body with the floor), numbered along x, then y, then z as the grid's cells
    /// are: cut into 16 blocks of slabs (whose contacts reach at most the next slab), every
    /// contact in a block, each class sorted by the slot of its lower body. Numbered at random
    /// instead, the contacts reach everywhere: no blocks, all in the shared colours.
    #[test]
    fn a_lattice_in_space_order_is_cut_into_slabs() {
        let n = 24u32;
        let rows = lattice(n);
        let kind = vec![BodyKind::Dynamic as u32; (n * n * n) as usize];
        let mut c = Colouring::default();
        let identity: Vec<u32> = (0..n * n * n).collect();
        c.build_in_blocks(&rows, &kind, &identity);
        assert_valid(&c, &rows, &kind);
        assert_eq!(c.blocks.len(), 16);
        assert_eq!(c.blocks.shared(), c.start.len() - 1 - (COLOURS + 1));
        assert_eq!(
            c.start[c.blocks.shared()] as usize,
            rows.len(),
            "all in blocks"
        );
        let lower = |i: u32| rows[i as usize].body_a;
        for k in 0..c.start.len() - 1 {
            let class = &c.order[c.start[k] as usize..c.start[k + 1] as usize];
            let key = |&i: &u32| (lower(i), i);
            assert!(
                class.windows(2).all(|w| key(&w[0]) < key(&w[1])),
                "class {k}"
            );
        }

        let mut random = Lcg::new(5);
        let mut slot: Vec<u32> = (0..n * n * n).collect();
        shuffle(&mut slot, &mut random);
        c.build_in_blocks(&rows, &kind, &slot);
        assert_valid(&c, &rows, &kind);
        assert!(c.blocks.is_empty());
        assert_eq!(c.start.len() - 1, COLOURS + 1);
    }

    /// A lattice in space order, with contacts reaching across the bed (far), one contact of
    /// no dynamic body and a hub body with 140 wall contacts and 20 far ones, all in random
    /// order: the same classes for teams of 1 and 3; every class, the shared ones and the
    /// overflow (where the hub's near and far contacts meet) too, sorted by lower slot, then
    /// index; the far contacts all shared.
    #[test]
    fn far_contacts_are_shared_and_every_class_is_in_slot_order() {
        let n = 16u32;
        let bodies = (n * n * n) as usize;
        let mut rows = lattice(n);
        let mut kind = vec![BodyKind::Dynamic as u32; bodies];
        kind[5] = BodyKind::Fixed as u32;
        kind[6] = BodyKind::Kinematic as u32;
        rows.push(contact(5, 6));
        let mut random = Lcg::new(11);
        let mut far_body = || 2000 + (random.unit() * 2000.0) as u32;
        let far: Vec<ContactRow> = (0..100).map(|k| contact(k * 7, far_body())).collect();
        rows.extend(far.iter().copied());
        rows.extend((0..140).map(|_| contact(0, NO_BODY)));
        rows.extend((0..20).map(|_| contact(0, far_body())));
        shuffle(&mut rows, &mut random);
        let identity: Vec<u32> = (0..bodies as u32).collect();
        let c = coloured_by_team(1, &rows, &kind, &identity);
        let three = coloured_by_team(3, &rows, &kind, &identity);
        assert_eq!((&three.order, &three.start), (&c.order, &c.start));
        assert!(c.blocks.len() >= 4, "{} blocks", c.blocks.len());
        let lower = |i: u32| slot_range(&rows[i as usize], &kind, &identity)[0];
        let classes = c.start.len() - 1;
        for k in 0..classes {
            let class = &c.order[c.start[k] as usize..c.start[k + 1] as usize];
            let key = |&i: &u32| (lower(i), i);
            assert!(
                class.windows(2).all(|w| key(&w[0]) < key(&w[1])),
                "class {k}"
            );
        }
        let shared = &c.order[c.start[c.blocks.shared()] as usize..];
        let reaching = |i: &&u32| {
            let r = &rows[**i as usize];
            r.body_b != NO_BODY && r.body_b >= 2000
        };
        assert_eq!(shared.iter().filter(reaching).count(), 120);
        let overflow = &c.order[c.start[classes - 1] as usize..];
        let hub_walls = overflow
            .iter()
            .filter(|&&i| rows[i as usize].body_b == NO_BODY);
        assert!(hub_walls.count() > 0 && overflow.iter().filter(reaching).count() > 0);
    }

    /// Contacts with fixed or kinematic bodies only do not constrain the colour: 100 contacts
    /// of one fixed body with as many dynamic ones all take colour 0; 70 contacts of one dynamic
    /// body take the 64 colours, then the overflow.
    #[test]
    fn only_dynamic_bodies_constrain_and_extra_contacts_overflow() {
        let mut kind = vec![BodyKind::Dynamic as u32; 101];
        kind[0] = BodyKind::Fixed as u32;
        let fan: Vec<ContactRow> = (1..101).map(|b| contact(0, b)).collect();
        let mut c = Colouring::default();
        c.build(&fan, &kind);
        assert_valid(&c, &fan, &kind);
        assert_eq!(c.start[1], 100, "all in colour 0");

        let hub: Vec<ContactRow> = (0..70).map(|_| contact(1, NO_BODY)).collect();
        c.build(&hub, &kind);
        assert_valid(&c, &hub, &kind);
        for colour in 0..COLOURS {
            assert_eq!(c.start[colour + 1] - c.start[colour], 1, "colour {colour}");
        }
        let overflow = &c.order[c.start[COLOURS] as usize..];
        assert_eq!(overflow, (64..70).collect::<Vec<_>>());
    }
}
