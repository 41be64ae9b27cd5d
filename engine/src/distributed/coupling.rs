//! The kernels' [`Interface`] over MPI: which local bodies this rank owns and shares, and the
//! exchange of the shared bodies' impulses in every gather of the solve (and, the same way, of
//! their contact forces for the outputs that read them, [`Coupling::total_owned`]).
//!
//! A rank's local bodies are its own (bodies `0..owned`, ascending id) followed by its ghosts
//! (ascending id). A body held by several ranks has a slot here; for every other rank q the
//! slots of the bodies q also holds are listed in id order, which is the order q lists them
//! too, so one exchange of plain arrays carries them. The sum of a shared body's impulses is
//! added in rank order, starting from zero, on every rank that holds it: the same bits there.

use super::ranks::Ranks;
use bytemuck::Pod;
use glam::DVec3;
use grains_kernels::interface::Interface;
use grains_kernels::{ContactRow, NO_BODY};
use mpi::Count;

/// Slot of a body no other rank holds.
const UNSHARED: u32 = u32::MAX;

/// One rank's side of the coupled solve.
pub(crate) struct Coupling {
    /// The run's ranks.
    pub(crate) ranks: Ranks,
    /// Local bodies `0..owned` are this rank's; the rest are ghosts.
    owned: usize,
    /// Each local body's id.
    ids: Vec<u64>,
    /// Each local body's slot among the shared ones, or [`UNSHARED`].
    slots: Vec<u32>,
    /// The shared local bodies by slot, in ascending id.
    shared: Vec<u32>,
    /// For every rank, the slots of the bodies it holds too, in ascending id (empty for this
    /// rank).
    lists: Vec<Vec<u32>>,
    /// This rank's impulse on each shared body, by slot.
    mine: Vec<[f32; 6]>,
    /// The impulses summed over the holding ranks, by slot.
    totals: Vec<[f32; 6]>,
    send: Vec<[f32; 6]>,
    recv: Vec<[f32; 6]>,
    counts: Vec<Count>,
    /// The ranks whose narrow phase failed in the last [`Interface::all_found`] (bit q for rank
    /// q).
    failed: u64,
}

impl Coupling {
    /// A coupling over `ranks` with no local body yet.
    pub(crate) fn new(ranks: Ranks) -> Coupling {
        Coupling {
            ranks,
            owned: 0,
            ids: Vec::new(),
            slots: Vec::new(),
            shared: Vec::new(),
            lists: Vec::new(),
            mine: Vec::new(),
            totals: Vec::new(),
            send: Vec::new(),
            recv: Vec::new(),
            counts: Vec::new(),
            failed: 0,
        }
    }

    /// Whether this rank solves a contact of local bodies `a` and `b` (`None`: a wall or a
    /// mesh triangle): when it owns the body of lower id (the body, for a wall contact). The
    /// GPU ranks' solver rows decide alike (`decided_here` in `solver_row.wgsl`).
    pub(crate) fn decides_pair(&self, a: u32, b: Option<u32>) -> bool {
        let lower = match b {
            Some(b) if self.ids[b as usize] < self.ids[a as usize] => b,
            _ => a,
        };
        self.owns(lower)
    }

    /// The ranks whose narrow phase failed in this step (bit q for rank q; 0 when none did).
    pub(crate) fn failed_ranks(&self) -> u64 {
        self.failed
    }

    /// Sets the local bodies: the first `owned` of `ids` are this rank's, and `holders[i]` has
    /// bit q set for every rank q holding local body i (this one included).
    pub(crate) fn set_layout(&mut self, owned: usize, ids: &[u64], holders: &[u64]) {
        let me = self.ranks.rank();
        let size = self.ranks.size();
        self.owned = owned;
        self.ids.clear();
        self.ids.extend_from_slice(ids);
        let mut shared: Vec<u32> = (0..ids.len() as u32)
            .filter(|&i| holders[i as usize] & !(1u64 << me) != 0)
            .collect();
        shared.sort_by_key(|&i| ids[i as usize]);
        self.slots.clear();
        self.slots.resize(ids.len(), UNSHARED);
        for (slot, &i) in shared.iter().enumerate() {
            self.slots[i as usize] = slot as u32;
        }
        self.lists = (0..size)
            .map(|q| {
                let mask = 1u64 << q;
                (0..shared.len() as u32)
                    .filter(|&s| q != me && holders[shared[s as usize] as usize] & mask != 0)
                    .collect()
            })
            .collect();
        self.shared = shared;
        self.mine.resize(self.shared.len(), [0.0; 6]);
        self.totals.resize(self.shared.len(), [0.0; 6]);
        self.counts = self
            .lists
            .iter()
            .map(|l| (l.len() * std::mem::size_of::<[f32; 6]>()) as Count)
            .collect();
        let exchanged: usize = self.lists.iter().map(Vec::len).sum();
        self.send.resize(exchanged, [0.0; 6]);
        self.recv.resize(exchanged, [0.0; 6]);
    }

    /// Turns `forces` (indexed by body id), the forces this rank's contacts of the last step
    /// put on its local bodies, into each of its own bodies' total: a body other ranks hold
    /// too gets the sum over its holders of their forces on it, added in rank order from zero
    /// as the impulses are ([`Interface::sum_shared`]: one exchange with the neighbour ranks,
    /// 24 bytes per body the two hold); its ghosts get zero, so that the ranks together hold
    /// each body's total once. A collective call of the ranks of the last step's layout.
    pub(crate) fn total_owned(&self, forces: &mut [DVec3]) {
        self.total_owned_at(forces, |b| self.ids[b] as usize);
    }

    /// [`Coupling::total_owned`] of `forces` indexed by the local bodies' indices (own, then
    /// ghosts): no list of every body.
    pub(crate) fn total_owned_local(&self, forces: &mut [DVec3]) {
        self.total_owned_at(forces, |b| b);
    }

    /// [`Coupling::total_owned`] of `forces` holding local body b's at `at(b)`.
    fn total_owned_at(&self, forces: &mut [DVec3], at: impl Fn(usize) -> usize) {
        let force = |b: u32| forces[at(b as usize)].to_array();
        let mine: Vec<[f64; 3]> = self.shared.iter().map(|&b| force(b)).collect();
        let mut totals = vec![[0.0; 3]; mine.len()];
        let exchanged = self.send.len();
        let (mut send, mut recv) = (vec![[0.0; 3]; exchanged], vec![[0.0; 3]; exchanged]);
        let counts: Vec<Count> = (self.lists.iter())
            .map(|l| (l.len() * std::mem::size_of::<[f64; 3]>()) as Count)
            .collect();
        let add = |t: &mut [f64; 3], x: &[f64; 3]| {
            for (t, x) in t.iter_mut().zip(x) {
                *t += x;
            }
        };
        let buffers = (&mut send[..], &mut recv[..]);
        let by_slot = (&mine[..], &mut totals[..]);
        sum_over_holders(&self.ranks, &self.lists, &counts, buffers, by_slot, add);
        for b in 0..self.ids.len() {
            forces[at(b)] = match (b < self.owned, self.slots[b]) {
                (false, _) => DVec3::ZERO,
                (true, UNSHARED) => forces[at(b)],
                (true, slot) => DVec3::from_array(totals[slot as usize]),
            };
        }
    }
}

/// Sums each shared body's value over the ranks that hold it: this rank's values by slot
/// (`mine`) go to every rank q that holds the body too, in the order of `lists[q]` (`counts[q]`
/// bytes, through `send`), theirs come back (through `recv`), and `totals` gets, by slot, the
/// values of the holders added by `add` in rank order from zero: the same bits on every
/// holder.
fn sum_over_holders<T: Pod>(
    ranks: &Ranks,
    lists: &[Vec<u32>],
    counts: &[Count],
    (send, recv): (&mut [T], &mut [T]),
    (mine, totals): (&[T], &mut [T]),
    add: impl Fn(&mut T, &T),
) {
    let mut at = 0;
    for list in lists {
        for &s in list {
            send[at] = mine[s as usize];
            at += 1;
        }
    }
    ranks.exchange_with_neighbours(
        bytemuck::cast_slice(send),
        bytemuck::cast_slice_mut(recv),
        counts,
    );
    totals.fill(T::zeroed());
    let mut at = 0;
    for (r, list) in lists.iter().enumerate() {
        if r == ranks.rank() {
            for (t, m) in totals.iter_mut().zip(mine) {
                add(t, m);
            }
        }
        for &s in list {
            add(&mut totals[s as usize], &recv[at]);
            at += 1;
        }
    }
}

impl Interface for Coupling {
    fn owns(&self, body: u32) -> bool {
        (body as usize) < self.owned
    }

    fn decides(&self, row: &ContactRow) -> bool {
        let b = (row.body_b != NO_BODY).then_some(row.body_b);
        self.decides_pair(row.body_a, b)
    }

    fn shared_slot(&self, body: u32) -> Option<usize> {
        match self.slots[body as usize] {
            UNSHARED => None,
            s => Some(s as usize),
        }
    }

    fn sum_shared(&mut self, local: &dyn Fn(u32) -> [f32; 6]) {
        for (m, &b) in self.mine.iter_mut().zip(&self.shared) {
            *m = local(b);
        }
        let add = |t: &mut [f32; 6], x: &[f32; 6]| {
            for (t, x) in t.iter_mut().zip(x) {
                *t += x;
            }
        };
        let buffers = (&mut self.send[..], &mut self.recv[..]);
        let by_slot = (&self.mine[..], &mut self.totals[..]);
        sum_over_holders(
            &self.ranks,
            &self.lists,
            &self.counts,
            buffers,
            by_slot,
            add,
        );
    }

    fn total(&self, slot: usize) -> [f32; 6] {
        self.totals[slot]
    }

    fn reduce(&mut self, max: f32, sums: [f64; 2]) -> (f32, [f64; 2]) {
        self.ranks.reduce(max, sums)
    }

    fn all_found(&mut self, found: bool) -> bool {
        self.failed = self.ranks.which_fail(!found);
        self.failed == 0
    }
}
