//! Helpers for deterministic data parallelism: fixed work blocks and disjoint writes.
//!
//! Work is split into blocks of a fixed size that does not depend on the thread count, and every
//! reduction combines block results in block order, so the bits of a step never depend on how
//! many threads ran it.

use std::marker::PhantomData;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize};
use std::sync::{Condvar, Mutex};

/// Items per block of parallel work (fixed, so results never depend on the thread count).
pub const BLOCK: usize = 1024;

/// A slice that several threads write at once, each at indices no other thread touches.
///
/// Used where the disjointness is guaranteed by construction (a colour class of the contact
/// graph, a scatter into prefix-summed ranges) but cannot be shown to the borrow checker.
pub struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    _life: PhantomData<&'a mut [T]>,
}

unsafe impl<T: Send> Send for Disjoint<'_, T> {}
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}

impl<'a, T> Disjoint<'a, T> {
    /// Wraps `slice` for disjoint writes.
    pub fn new(slice: &'a mut [T]) -> Self {
        Disjoint {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _life: PhantomData,
        }
    }

    /// Mutable access to element `i`.
    ///
    /// # Safety
    /// No other thread may access element `i` while the returned reference lives.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self, i: usize) -> &mut T {
        debug_assert!(i < self.len);
        &mut *self.ptr.add(i)
    }

    /// A shared reference to element `i`.
    ///
    /// # Safety
    /// No other thread may write element `i` while the returned reference lives.
    #[inline(always)]
    pub unsafe fn shared(&self, i: usize) -> &T {
        debug_assert!(i < self.len);
        &*self.ptr.add(i)
    }

    /// A copy of element `i`.
    ///
    /// # Safety
    /// No other thread may write element `i` meanwhile.
    #[inline(always)]
    pub unsafe fn read(&self, i: usize) -> T
    where
        T: Copy,
    {
        debug_assert!(i < self.len);
        *self.ptr.add(i)
    }

    /// The first element's address, for a kernel that indexes the elements itself (a loop that
    /// reads this once keeps the address in a register rather than reloading it past its own
    /// stores).
    #[inline(always)]
    pub fn base(&self) -> *mut T {
        self.ptr
    }

    /// Mutable access to the sub-slice `start..start + len`.
    ///
    /// # Safety
    /// No other thread may access that range while the returned slice lives.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn range(&self, start: usize, len: usize) -> &mut [T] {
        debug_assert!(start + len <= self.len);
        std::slice::from_raw_parts_mut(self.ptr.add(start), len)
    }
}

/// Exclusive prefix sum of `counts` into `offsets` (length `counts.len() + 1`); returns the total.
pub fn exclusive_scan(counts: &[u32], offsets: &mut Vec<u32>) -> u32 {
    offsets.clear();
    offsets.reserve(counts.len() + 1);
    let mut total = 0u32;
    for &c in counts {
        offsets.push(total);
        total += c;
    }
    offsets.push(total);
    total
}

/// A barrier for the workers of one pool that spins, then parks: cheap when every worker has a
/// core (the partners arrive within its 20,000 spins), and when they must share
/// cores with other work a waiting worker sleeps instead of taking the core its descheduled
/// partner needs.
pub struct SpinBarrier {
    arrived: AtomicUsize,
    generation: AtomicUsize,
    /// Workers parked (or about to park) on `wake`.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    team: usize,
}

/// Spins a waiting worker makes before it parks (tens of microseconds or more, by the
/// processor's pause). Measured on the main job (a 2-core Xeon, 2 threads, about 400 waits a
/// step): 500 spins parked so often that the solve took 1.7 times as long as with 20,000;
/// spins that yield the core instead (`yield_now`) took 15 times as long beside two CPU
/// burners, while these pure spins kept 2 threads as fast as 1 there.
const SPINS_BEFORE_PARKING: u32 = 20_000;

impl SpinBarrier {
    /// A barrier for `team` workers.
    pub fn new(team: usize) -> Self {
        SpinBarrier {
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            team,
        }
    }

    /// Waits until all `team` workers have called `wait` in this round.
    pub fn wait(&self) {
        if self.team == 1 {
            return;
        }
        let generation = self.generation.load(Acquire);
        if self.arrived.fetch_add(1, AcqRel) + 1 == self.team {
            self.arrived.store(0, Relaxed);
            // The round ends under the lock, so a worker that checks the generation under it
            // either sees the new one or is already waiting when `notify_all` comes.
            let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.generation.fetch_add(1, Release);
            drop(guard);
            if self.sleepers.load(SeqCst) > 0 {
                self.wake.notify_all();
            }
            return;
        }
        for _ in 0..SPINS_BEFORE_PARKING {
            if self.generation.load(Acquire) != generation {
                return;
            }
            std::hint::spin_loop();
        }
        self.sleepers.fetch_add(1, SeqCst);
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.generation.load(Acquire) == generation {
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        drop(guard);
        self.sleepers.fetch_sub(1, SeqCst);
    }
}

/// Completion stamps of work items that workers wait on instead of meeting at a barrier: item
/// i is done for round r once [`Self::finish`] has stamped it with r or a later round. A
/// waiting worker spins, then parks, as at a [`SpinBarrier`]; only the workers that need an
/// item wait for it, and only while it is still being worked on.
pub struct Stamps {
    stamp: Vec<AtomicU32>,
    /// Workers parked (or about to park) on `wake`.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

impl Stamps {
    /// `items` items, none done for any round from 1 on.
    pub fn new(items: usize) -> Self {
        Stamps {
            stamp: (0..items).map(|_| AtomicU32::new(0)).collect(),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Marks `item` done for `round`: what its worker wrote before is seen by every worker
    /// whose [`Self::wait_for`] it ends.
    pub fn finish(&self, item: usize, round: u32) {
        // Sequentially consistent with the sleepers' count, so that a worker about to park
        // either sees this stamp or is counted and woken below.
        self.stamp[item].store(round, SeqCst);
        if self.sleepers.load(SeqCst) > 0 {
            let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            drop(guard);
            self.wake.notify_all();
        }
    }

    /// Waits until every item of `items` is done for `round`.
    pub fn wait_for(&self, items: impl Iterator<Item = usize> + Clone, round: u32) {
        let done = || items.clone().all(|i| self.stamp[i].load(SeqCst) >= round);
        for _ in 0..SPINS_BEFORE_PARKING {
            if done() {
                return;
            }
            std::hint::spin_loop();
        }
        self.sleepers.fetch_add(1, SeqCst);
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while !done() {
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        drop(guard);
        self.sleepers.fetch_sub(1, SeqCst);
    }
}

/// A range of work items that workers take one at a time from either end: the first worker
/// from the front, the others from the back, until the ends meet. Each item is taken exactly
/// once, by whichever worker is free, so a worker slowed by a larger item or by a descheduling
/// leaves more of the range to the others; with two workers each keeps to its own end of the
/// range (and of memory) from one round to the next, as a fixed split would.
pub struct TwoEnded {
    /// The range left, front in the low 32 bits and end in the high ones.
    left: AtomicU64,
}

impl TwoEnded {
    /// The range `front..end`.
    pub fn new(range: std::ops::Range<usize>) -> Self {
        let queue = TwoEnded {
            left: AtomicU64::new(0),
        };
        queue.reset(range);
        queue
    }

    /// Refills the queue with `front..end`. Only while no worker takes from it (between the
    /// rounds that use it, ordered by a barrier).
    pub fn reset(&self, range: std::ops::Range<usize>) {
        let packed = (range.end as u64) << 32 | range.start as u64;
        self.left.store(packed, Relaxed);
    }

    /// The next item for worker `me`: from the front for worker 0, from the back for the
    /// others; `None` when the range is used up.
    pub fn take(&self, me: usize) -> Option<usize> {
        let mut left = self.left.load(Relaxed);
        loop {
            let (front, end) = (left & 0xffff_ffff, left >> 32);
            if front >= end {
                return None;
            }
            let (next, item) = match me {
                0 => ((end << 32) | (front + 1), front),
                _ => (((end - 1) << 32) | front, end - 1),
            };
            match self
                .left
                .compare_exchange_weak(left, next, Relaxed, Relaxed)
            {
                Ok(_) => return Some(item as usize),
                Err(now) => left = now,
            }
        }
    }
}

/// Runs of a loop whose workers meet at barriers after which the team's share of time spent
/// waiting at them is considered high: one run in [`PROBE_EVERY`] then goes alone.
const HIGH_WAITING: f64 = 1.0 / 3.0;

/// How often (in runs) the choice that is not in use is measured again.
const PROBE_EVERY: u32 = 16;

/// How many workers a loop whose workers meet at barriers (the Gauss–Seidel sweeps) runs on:
/// the whole pool, or one worker alone when the pool's cores are taken by other work, so that
/// a waiting worker's partner is descheduled at every meeting. The results are the same bits
/// either way, so the measured time alone decides. With the team, the share of the workers'
/// time spent waiting is watched; while it is above a third, one run in sixteen goes alone,
/// and the loop stays alone while that costs less per unit of work. Alone, one run in sixteen
/// goes with the team again.
#[derive(Default)]
pub struct TeamChoice {
    alone: bool,
    /// Seconds per unit of work of the last run with the team and of the last run alone.
    cost: [Option<f64>; 2],
    /// The share of the team's time spent waiting in its last run.
    waiting: f64,
    runs: u32,
}

impl TeamChoice {
    /// The workers of the next run, for a pool of `pool` workers.
    pub fn team(&mut self, pool: usize) -> usize {
        if pool <= 1 {
            return 1;
        }
        self.runs = self.runs.wrapping_add(1);
        let probe = self.runs.is_multiple_of(PROBE_EVERY);
        let alone = match self.alone {
            false => probe && self.waiting > HIGH_WAITING,
            true => !probe,
        };
        if alone {
            1
        } else {
            pool
        }
    }

    /// Records a run on `team` workers: its `seconds`, its `work` (any measure proportional to
    /// it) and the seconds all its workers spent `waiting`.
    pub fn record(&mut self, team: usize, seconds: f64, work: f64, waiting: f64) {
        if seconds <= 0.0 || work <= 0.0 {
            return;
        }
        let alone = team == 1;
        self.cost[usize::from(alone)] = Some(seconds / work);
        if !alone {
            self.waiting = waiting / (seconds * team as f64);
        }
        if let [Some(with), Some(without)] = self.cost {
            self.alone = without < with;
        }
    }
}
