//! Helpers for deterministic data parallelism: fixed work blocks and disjoint writes.
//!
//! Work is split into blocks of a fixed size that does not depend on the thread count, and every
//! reduction combines block results in block order, so the bits of a step never depend on how
//! many threads ran it.

use std::marker::PhantomData;

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

/// A barrier for the workers of one pool that spins briefly, then yields (so it stays cheap
/// when every worker has a core and correct when they must share one).
pub struct SpinBarrier {
    arrived: std::sync::atomic::AtomicUsize,
    generation: std::sync::atomic::AtomicUsize,
    team: usize,
}

impl SpinBarrier {
    /// A barrier for `team` workers.
    pub fn new(team: usize) -> Self {
        SpinBarrier {
            arrived: Default::default(),
            generation: Default::default(),
            team,
        }
    }

    /// Waits until all `team` workers have called `wait` in this round.
    pub fn wait(&self) {
        use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
        let generation = self.generation.load(Acquire);
        if self.arrived.fetch_add(1, AcqRel) + 1 == self.team {
            self.arrived.store(0, Relaxed);
            self.generation.fetch_add(1, Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Acquire) == generation {
            if spins < 2000 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}
