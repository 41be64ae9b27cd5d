//! One rank's subdomain between and within steps: the bodies it owns and the warm-start
//! impulses of the contacts it solves, their migration to the rank whose box their centre
//! entered, the ghosts it sends and receives, and the local bodies (own, then ghosts) it
//! steps.

use super::ranks::Ranks;
use super::wire::{BodyRecord, KeyedImpulse, WarmRecord};
use crate::decomposition::Bisection;
use glam::Vec3;
use grains_kernels::broad_phase::Envelope;
use grains_kernels::forces::Actuation;
use grains_kernels::Bodies;

/// The bodies a rank owns and the warm start of the contacts it solves.
#[derive(Default)]
pub(crate) struct Subdomain {
    /// Owned bodies' state, ascending id.
    pub(crate) owned: Vec<BodyRecord>,
    /// Last step's impulses of the contacts this rank solved, ascending (a, b); a is the lower
    /// id of the pair, which this rank owns.
    pub(crate) warm: Vec<WarmRecord>,
}

/// The local bodies of one step: own (ascending id), then ghosts (ascending id).
#[derive(Default)]
pub(crate) struct Local {
    /// Their state, as the kernels step it.
    pub(crate) bodies: Bodies,
    /// Each local body's id.
    pub(crate) ids: Vec<u64>,
    /// Each local body's holders (bit q: rank q).
    pub(crate) holders: Vec<u64>,
    /// Number of own bodies (the first ones).
    pub(crate) owned: usize,
}

impl Local {
    /// The local index of body `id`, if this rank holds it.
    pub(crate) fn index_of(&self, id: u64) -> Option<u32> {
        let (own, ghosts) = self.ids.split_at(self.owned);
        match own.binary_search(&id) {
            Ok(i) => Some(i as u32),
            Err(_) => ghosts
                .binary_search(&id)
                .ok()
                .map(|g| (self.owned + g) as u32),
        }
    }
}

impl Subdomain {
    /// The bodies of `world` (index = id) whose centres lie in this rank's box of `cuts`, with
    /// the warm-start records of `warm` that this rank decides.
    pub(crate) fn seed(world: &Bodies, cuts: &Bisection, me: usize, warm: &[WarmRecord]) -> Self {
        let owned: Vec<BodyRecord> = (0..world.len())
            .filter(|&i| cuts.owner(world.pos_radius[i].truncate()) == me)
            .map(|i| BodyRecord::of(world, i, i as u64))
            .collect();
        let mine = |id: u64| owned.binary_search_by_key(&id, |r| r.id).is_ok();
        let warm = warm.iter().filter(|w| mine(w.a)).copied().collect();
        Subdomain { owned, warm }
    }

    /// Sends every owned body whose centre left this rank's box of `cuts` to the rank whose
    /// box it entered, with the warm start of the contacts it decides, and takes in those
    /// sent here.
    pub(crate) fn migrate(&mut self, cuts: &Bisection, ranks: &Ranks) {
        let me = ranks.rank();
        // In place: only the leavers are copied out, and the arrivals appended to the kept
        // lists (the owned records and the warm start are a rank's largest lists; a copy of
        // them all each step stood beside the pipeline's buffers at a rank's peak). The
        // outgoing lists are sized exactly (counted first).
        let to: Vec<u8> = (self.owned.iter())
            .map(|r| cuts.owner(r.centre()) as u8)
            .collect();
        let warm_to: Vec<u8> = (self.warm.iter())
            .map(|w| {
                let at = self.owned.partition_point(|r| r.id < w.a);
                let own = self.owned.get(at).is_some_and(|r| r.id == w.a);
                if own {
                    to[at]
                } else {
                    DROPPED
                }
            })
            .collect();
        let bodies = leavers(&mut self.owned, &to, me, ranks.size());
        let warm = leavers(&mut self.warm, &warm_to, me, ranks.size());
        drop((to, warm_to));
        let (in_bodies, in_warm) = (ranks.exchange(&bodies), ranks.exchange(&warm));
        drop((bodies, warm));
        append(&mut self.owned, in_bodies);
        append(&mut self.warm, in_warm);
        // The ids are unique: an unstable sort gives the stable one's order, without its
        // scratch buffer.
        self.owned.sort_unstable_by_key(|r| r.id);
        self.warm.sort_by_key(|w| (w.a, w.b));
    }

    /// The local bodies of the next step: the owned ones, then the ghosts other ranks send,
    /// each owned body going to every rank whose box lies within its reach plus the largest
    /// reach of any body (radius plus envelope margin at the fastest it can move in the step:
    /// its speed after a step of gravity, or its prescribed speed among `drives`, index = id):
    /// the ranks where a contact of it can be solved. Each body's record carries all of it
    /// (mass properties, material and kind with its state).
    pub(crate) fn layout(
        &mut self,
        cuts: &Bisection,
        ranks: &Ranks,
        (envelope, h, gravity): (Envelope, f32, Vec3),
        drives: &[Actuation],
        local: &mut Local,
    ) {
        let me = ranks.rank();
        let mut driven: Vec<(u64, f32)> = drives
            .iter()
            .map(|d| (d.body as u64, Vec3::from_array(d.linear).length()))
            .collect();
        driven.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let reach = |r: &BodyRecord| {
            let falling = r.motion.v().length() + gravity.length() * h;
            let at = driven.partition_point(|d| d.0 < r.id);
            let prescribed = driven.get(at).filter(|d| d.0 == r.id).map_or(0.0, |d| d.1);
            r.pos_radius[3] + envelope.body_margin(falling.max(prescribed), h)
        };
        let widest = ranks.max(self.owned.iter().map(reach).fold(0.0, f32::max));
        let mut ghosts: Vec<Vec<BodyRecord>> = vec![Vec::new(); ranks.size()];
        for r in &mut self.owned {
            let c = r.centre();
            let halo = reach(r) + widest;
            r.holders = (0..ranks.size())
                .filter(|&q| q == me || cuts.distance(q, c) <= halo)
                .fold(0, |mask, q| mask | 1u64 << q);
            for (q, out) in ghosts.iter_mut().enumerate() {
                if q != me && r.holders & 1u64 << q != 0 {
                    out.push(*r);
                }
            }
        }
        let mut received: Vec<BodyRecord> = ranks.exchange(&ghosts).concat();
        received.sort_by_key(|r| r.id);
        let n = self.owned.len() + received.len();
        let b = &mut local.bodies;
        b.pos_radius.resize(n, Default::default());
        b.orientation.resize(n, Default::default());
        b.motion.resize(n, Default::default());
        b.material.resize(n, 0);
        b.kind.resize(n, 0);
        local.ids.clear();
        local.holders.clear();
        for (i, r) in self.owned.iter().chain(&received).enumerate() {
            r.write(b, i);
            local.ids.push(r.id);
            local.holders.push(r.holders);
        }
        local.owned = self.owned.len();
    }

    /// The warm start of the local step: keys of local pairs (ascending, lower index first)
    /// with their impulse and moment vectors on the key's first body. Contacts whose partner
    /// is no longer held here are dropped (they cannot be active).
    pub(crate) fn local_warm_start(&self, local: &Local) -> Vec<KeyedImpulse> {
        // Room for every record at once: collected through the filter, the list grew by
        // doubling, up to twice its size (about 30 MB of a 1M-grain pour's rank on 4 ranks, at
        // its peak).
        let mut out = Vec::with_capacity(self.warm.len());
        out.extend((self.warm.iter()).filter_map(|w| w.keyed(|id| local.index_of(id))));
        out.sort_by_key(|e| e.0);
        out
    }

    /// Takes the step's results: the owned bodies' new state from `local`, and the warm start
    /// of the contacts this rank solved from the local `keys` with their `impulses` and
    /// `moments` (one per key, or none).
    pub(crate) fn take_step(
        &mut self,
        local: &Local,
        keys: &[u64],
        impulses: &[[f32; 4]],
        moments: &[[f32; 4]],
    ) {
        for (i, r) in self.owned.iter_mut().enumerate() {
            let holders = r.holders;
            *r = BodyRecord::of(&local.bodies, i, r.id);
            r.holders = holders;
        }
        // Refilled in place: a new list beside the old one stood beside the pipeline's buffers.
        self.warm.clear();
        self.warm.reserve_exact(keys.len());
        let n = local.ids.len();
        for (k, (&key, &impulse)) in keys.iter().zip(impulses).enumerate() {
            let moment = moments.get(k).copied().unwrap_or_default();
            let entry = (key, impulse, moment);
            let record = WarmRecord::from_key(entry, n, |i| local.ids[i as usize]);
            self.warm.push(record);
        }
        self.warm.sort_by_key(|w| (w.a, w.b));
    }
}

/// The destination of a warm-start record whose first body this rank does not own: none, it
/// is dropped.
const DROPPED: u8 = u8::MAX;

/// Takes out of `items` those whose rank in `to` (item by item) is not `me`, into one list
/// per rank sized exactly, keeping the rest in order; an item bound for [`DROPPED`] goes
/// nowhere.
fn leavers<T: Copy>(items: &mut Vec<T>, to: &[u8], me: usize, ranks: usize) -> Vec<Vec<T>> {
    let mut counts = vec![0usize; ranks];
    for &q in to.iter().filter(|&&q| q != DROPPED && q as usize != me) {
        counts[q as usize] += 1;
    }
    let mut out: Vec<Vec<T>> = counts.into_iter().map(Vec::with_capacity).collect();
    let mut k = 0;
    items.retain(|item| {
        let q = to[k];
        k += 1;
        if q != DROPPED && q as usize != me {
            out[q as usize].push(*item);
        }
        q as usize == me
    });
    out
}

/// `items` with every list of `received` appended in order, grown once to the exact size.
fn append<T: Copy>(items: &mut Vec<T>, received: Vec<Vec<T>>) {
    items.reserve_exact(received.iter().map(Vec::len).sum());
    for r in received {
        items.extend_from_slice(&r);
    }
}
