//! Stage 6, solve (Gauss–Seidel): projected Gauss–Seidel CCP sweeps made parallel by colouring: the
//! contacts of one colour share no dynamic body, so each updates γ and both bodies' velocities at
//! once, four lanes at a time (with spinning or rolling friction, each contact's moment rows right
//! after its sliding update, in the same colour class).
//!
//! Every worker of the pool stays inside one call for all sweeps, with a spin barrier between
//! passes, so a sweep costs no task spawns. The blocks of a pass are taken from a two-ended
//! queue ([`TwoEnded`]): a worker that falls behind (a larger block, or its core taken by other
//! work) leaves more blocks to the others instead of holding the whole team at the barrier.
//! Between the even and the odd blocks there is no barrier: an odd block waits for its two
//! even neighbours alone ([`Stamps`]), so a worker that has no even block left starts on the
//! odd ones while the other finishes. A shared class is split into fixed shares. The joint rows
//! ([`crate::joint_rows`]) follow the colour classes of every sweep, relaxed in order by the first
//! worker while the others wait at the barrier.

use crate::colouring::Blocks;
use crate::contact_update::{
    impulse_moments, pack_impulse, update_pack, Lanes3, PackVelocities, RowPack, SweepParams,
};
use crate::isa;
use crate::joint_rows::JointRows;
use crate::layout::Motion;
use crate::packing::{PackRows, Packs, ReadRows};
use crate::parallel::{Disjoint, SpinBarrier, Stamps, TwoEnded};
use crate::rolling::{update_moment_pack, MomentPack, MomentPacks};
use crate::trace::Trace;
use glam::Vec4;
use rayon::prelude::*;
use std::borrow::Borrow;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Colour classes of fewer packs than this run on one worker (splitting costs more than it saves).
const SPLIT_MIN: usize = 32;

/// Runs coloured projected Gauss–Seidel sweeps over the contacts of `packs` and the rows of
/// `joints` until the max-norm residual is below `p.tolerance` or `p.max_iterations` sweeps have
/// run, on `team` workers: the pool's (all of them) or, with `team` 1, the calling thread alone
/// (the same bits); `trace` receives every sweep's residual.
///
/// A sweep runs the classes of the even `blocks` (each block by one worker, its classes in
/// order), then those of the odd blocks (each once the even blocks it shares bodies with are
/// done), then the shared classes ([`crate::colouring`]).
/// Each class of `packs` must touch every dynamic body at most once, except the last class
/// (the colouring's overflow), which has one contact per pack and runs on one worker. Sweeps
/// alternate the order of the classes within each block and of the shared classes but the
/// overflow. A shared class of fewer than `SPLIT_MIN` packs, like the overflow, is relaxed by
/// the first worker alone, and a run of such classes costs one barrier at its end: the order of
/// the updates, hence the bits, do not depend on the team. `moments`, built on the same packs,
/// adds the spinning and rolling rows of [`crate::rolling`].
#[allow(clippy::too_many_arguments)]
pub fn solve_gauss_seidel(
    packs: &mut Packs,
    blocks: &Blocks,
    joints: &mut JointRows,
    moments: Option<&mut MomentPacks>,
    motion: &mut [Motion],
    trace: &mut Trace,
    p: &SweepParams,
    team: usize,
) -> SweepOutcome {
    let trace = Mutex::new(trace);
    let (max_iter, tol) = (p.max_iterations, p.tolerance);
    let classes = packs.start.len() - 1;
    let (rows, start, gamma) = packs.split();
    let gamma = Disjoint::new(gamma);
    let bodies = motion.len();
    let moments = moments.map(|m| (m.rows.as_slice(), Disjoint::new(&mut m.gamma)));
    let moments = moments.as_ref();
    let motion = Disjoint::new(motion);
    let (joint_system, joint_gamma) = joints.split();
    let joint_gamma_len = joint_gamma.len();
    let joint_gamma = Disjoint::new(joint_gamma);
    // Without anisotropic bodies, a colour's packs are relaxed two at a time.
    let paired_classes = !p.inertia.any();
    // The first pack of block `b`'s classes (of the shared classes for `b` = blocks).
    let class_pack = |b: usize| {
        blocks
            .class
            .get(b)
            .map_or(0, |&c| start[c as usize] as usize)
    };
    let barrier = SpinBarrier::new(team);
    let waited = AtomicU64::new(0);
    let residual_slots = [AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)];
    let outcome = [
        AtomicU32::new(max_iter),
        AtomicU32::new(0),
        AtomicU32::new(0),
    ];
    // The overflow's packs may share bodies, so each waits for the one before.
    let pairs = |c: usize| paired_classes && c != classes - 1;
    // Relaxes packs `lo..hi` of class `c`.
    // SAFETY (for callers): no other worker may touch those packs or their dynamic bodies
    // meanwhile.
    let avx2 = isa::avx2();
    let relax = |c: usize, lo: usize, hi: usize| {
        let packs = (lo, hi, pairs(c));
        let shared = (&gamma, moments, &motion, p);
        // SAFETY: the caller's.
        unsafe {
            match rows {
                PackRows::Full(rows) => relax_packs_on(avx2, rows, packs, shared),
                PackRows::Compact(rows) => relax_packs_on(avx2, rows, packs, shared),
            }
        }
    };
    let shared = blocks.shared();
    // The blocks of each pass, as queues the workers take them from, one pair per sweep in
    // rotation like the residual's slots.
    let passes = [0..blocks.odd, blocks.odd..blocks.len()];
    let queues = [(); 3].map(|_| passes.clone().map(TwoEnded::new));
    // The sweeps each block is done for: a block of the odd pass waits for its two even
    // neighbours only, not for the whole team.
    let done = Stamps::new(blocks.len());
    let worker = |me: usize, team: usize| {
        let (mut waits, mut wait_time) = (0u32, Duration::ZERO);
        let mut wait = || {
            let start = Instant::now();
            barrier.wait();
            waits += 1;
            wait_time += start.elapsed();
        };
        for it in 1..=max_iter {
            if me == 0 {
                residual_slots[(it as usize + 1) % 3].store(0, Ordering::Relaxed);
                for (queue, pass) in queues[(it as usize + 1) % 3].iter().zip(&passes) {
                    queue.reset(pass.clone());
                }
            }
            let forward = it % 2 == 1;
            let mut local = 0.0f32;
            // Whether the last work was done by worker 0 alone (`None`: none yet this sweep).
            // Consecutive such classes form one serial segment: worker 0 relaxes them in order
            // and the team meets once, at the segment's end.
            let mut last_alone: Option<bool> = None;
            // The even blocks, then the odd ones: each worker takes blocks from the pass's
            // queue and relaxes each, class by class, until none is left. An odd block starts
            // once its two even neighbours are done (a worker that finds the even pass taken
            // goes on with the odd one while the other finishes its block).
            if class_pack(0) != class_pack(blocks.len()) {
                last_alone = Some(false);
                for (pass, queue) in passes.iter().zip(&queues[it as usize % 3]) {
                    while let Some(b) = queue.take(me) {
                        if pass.start > 0 {
                            done.wait_for(blocks.even_neighbours(b), it);
                        }
                        let (c0, c1) = (blocks.class[b] as usize, blocks.class[b + 1] as usize);
                        for k in c0..c1 {
                            let c = if forward { k } else { c0 + c1 - 1 - k };
                            // SAFETY: the blocks of a pass touch pairwise different dynamic
                            // bodies, each relaxed by one worker; an odd block's bodies are
                            // touched by its even neighbours only, which are done (the
                            // stamps order their writes before its reads), and the last
                            // sweep's work ended at the barrier.
                            let range = (start[c] as usize, start[c + 1] as usize);
                            local = local.max(relax(c, range.0, range.1));
                        }
                        done.finish(b, it);
                    }
                }
            }
            for k in shared..classes {
                let c = match k {
                    _ if k == classes - 1 || forward => k,
                    _ => shared + classes - 2 - k,
                };
                let (s, e) = (start[c] as usize, start[c + 1] as usize);
                if s == e {
                    continue;
                }
                let alone = c == classes - 1 || e - s < SPLIT_MIN;
                if last_alone.is_some_and(|was| !(was && alone)) {
                    wait();
                }
                last_alone = Some(alone);
                let (lo, hi) = match (alone, me) {
                    (true, 0) => (s, e),
                    (true, _) => (s, s),
                    (false, _) => (s + (e - s) * me / team, s + (e - s) * (me + 1) / team),
                };
                // SAFETY: the packs of one class touch pairwise different dynamic bodies, each
                // worker owns its own range, and the barrier orders the classes (a serial
                // segment's classes run in order on worker 0).
                local = local.max(relax(c, lo, hi));
            }
            if !joint_system.is_empty() {
                if last_alone == Some(false) {
                    wait();
                }
                if me == 0 {
                    // SAFETY: the other workers are past their classes and wait at the next
                    // barrier, touching nothing.
                    let (g, m) = unsafe {
                        (
                            joint_gamma.range(0, joint_gamma_len),
                            motion.range(0, bodies),
                        )
                    };
                    local = local.max(joint_system.relax(g, m));
                }
            }
            let slot = &residual_slots[it as usize % 3];
            slot.fetch_max(local.to_bits(), Ordering::Relaxed);
            wait();
            let residual = f32::from_bits(slot.load(Ordering::Relaxed));
            if me == 0 {
                if let Ok(mut trace) = trace.lock() {
                    trace.record(residual);
                }
            }
            if residual <= tol || it == max_iter {
                if me == 0 {
                    outcome[0].store(it, Ordering::Relaxed);
                    outcome[1].store(residual.to_bits(), Ordering::Relaxed);
                }
                break;
            }
        }
        if me == 0 {
            outcome[2].store(waits, Ordering::Relaxed);
        }
        waited.fetch_add(wait_time.as_nanos() as u64, Ordering::Relaxed);
    };
    match team {
        1 => worker(0, 1),
        _ => drop(rayon::broadcast(|ctx| {
            worker(ctx.index(), ctx.num_threads())
        })),
    }
    SweepOutcome {
        sweeps: outcome[0].load(Ordering::Relaxed),
        residual: f32::from_bits(outcome[1].load(Ordering::Relaxed)),
        barrier_waits: outcome[2].load(Ordering::Relaxed),
        waiting: waited.into_inner() as f64 * 1e-9,
    }
}

/// What [`solve_gauss_seidel`] did: its sweeps, the last sweep's residual (m/s), the barrier
/// waits of one worker and the seconds all workers spent waiting at barriers.
pub struct SweepOutcome {
    /// Sweeps run.
    pub sweeps: u32,
    /// The last sweep's residual (m/s).
    pub residual: f32,
    /// Barrier waits of one worker.
    pub barrier_waits: u32,
    /// Seconds all workers spent waiting at barriers.
    pub waiting: f64,
}

/// What every pack update reads and writes besides its rows: the impulses, the moment rows,
/// the bodies and the sweep's parameters.
type Shared<'s> = (
    &'s Disjoint<'s, Lanes3>,
    Option<&'s MomentRows<'s>>,
    &'s Disjoint<'s, Motion>,
    &'s SweepParams<'s>,
);

/// [`relax_packs`] in its AVX2 build where `avx2` ([`isa::avx2`]), else in the SSE2 one (the
/// same bits).
///
/// # Safety
/// [`relax_packs`]'s; `avx2` only where the processor has the features [`isa::avx2`] checks.
#[inline(always)]
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub unsafe fn relax_packs_on<R: ReadRows>(
    avx2: bool,
    rows: &[R],
    packs: (usize, usize, bool),
    (gamma, moments, motion, p): Shared,
) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        return relax_packs_avx2(rows, packs, (gamma, moments, motion, p));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = avx2;
    relax_packs(rows, packs, gamma, moments, motion, p)
}

/// [`relax_packs`] built with AVX2.
///
/// # Safety
/// [`relax_packs`]'s, on a processor with the features [`isa::avx2`] checks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn relax_packs_avx2<R: ReadRows>(
    rows: &[R],
    packs: (usize, usize, bool),
    (gamma, moments, motion, p): Shared,
) -> f32 {
    relax_packs(rows, packs, gamma, moments, motion, p)
}

/// Relaxes packs `lo..hi` of `rows` (one class's, `paired`: two at a time where they may be):
/// full packs read in place, compact ones rebuilt pack by pack. Returns the largest residual.
///
/// # Safety
/// No other thread may touch those packs or their dynamic bodies meanwhile.
#[inline(always)]
unsafe fn relax_packs<R: ReadRows>(
    rows: &[R],
    (lo, hi, paired): (usize, usize, bool),
    gamma: &Disjoint<Lanes3>,
    moments: Option<&MomentRows>,
    motion: &Disjoint<Motion>,
    p: &SweepParams,
) -> f32 {
    let end = if paired { lo + (hi - lo) / 2 * 2 } else { lo };
    let mut local = 0.0f32;
    for pk in (lo..end).step_by(2) {
        let (r0, r1) = (rows[pk].rows(), rows[pk + 1].rows());
        let two = [r0.borrow(), r1.borrow()];
        // The caller's safety, for two packs of one class (no common dynamic body).
        local = local.max(match (moments, p.planar) {
            (None, false) => relax_pair::<false>(pk, two, gamma, motion, p),
            (None, true) => relax_pair::<true>(pk, two, gamma, motion, p),
            (Some(m), false) => relax_pair_moments::<false>(pk, two, gamma, m, motion, p),
            (Some(m), true) => relax_pair_moments::<true>(pk, two, gamma, m, motion, p),
        });
    }
    for (pk, pack) in rows.iter().enumerate().take(hi).skip(end) {
        let pack = pack.rows();
        local = local.max(relax_pack(pk, pack.borrow(), gamma, moments, motion, p));
    }
    local
}

/// One Gauss–Seidel update of packs `pk` and `pk + 1` of one colour class, which share no
/// dynamic body, for contacts without moment rows between isotropic bodies: the same
/// arithmetic as two calls of [`relax_pack`], interleaved, so that the processor overlaps the
/// two chains of dependent operations (one pack's chain, from the gather through the cone to
/// the write-back, is longer than the instruction window lets it look ahead). Returns the larger
/// residual. `PLANAR` is `p.planar`, decided once per class rather than per pack.
///
/// # Safety
/// No other thread may touch the two packs or their dynamic bodies meanwhile.
#[inline(always)]
unsafe fn relax_pair<const PLANAR: bool>(
    pk: usize,
    rows: [&RowPack; 2],
    gamma: &Disjoint<Lanes3>,
    motion: &Disjoint<Motion>,
    p: &SweepParams,
) -> f32 {
    let base = motion.base();
    let ([p0, p1], _, [s0, s1], [r0, r1]) = slide_pair::<PLANAR>(pk, rows, gamma, base, p);
    s0.scatter(p0, |i, m| *base.add(i) = m);
    s1.scatter(p1, |i, m| *base.add(i) = m);
    r0.max_element().max(r1.max_element())
}

/// The sliding updates of packs `pk` and `pk + 1` (no common dynamic body) from the bodies
/// at `base`, interleaved: the packs, the velocities gathered before, those after the
/// impulses (not yet written) and the residuals.
///
/// # Safety
/// No other thread may touch the two packs or their dynamic bodies meanwhile.
#[inline(always)]
unsafe fn slide_pair<'r, const PLANAR: bool>(
    pk: usize,
    [p0, p1]: [&'r RowPack; 2],
    gamma: &Disjoint<Lanes3>,
    // The bodies' address read once, not again after each write through it.
    base: *mut Motion,
    p: &SweepParams,
) -> (
    [&'r RowPack; 2],
    [PackVelocities; 2],
    [PackVelocities; 2],
    [Vec4; 2],
) {
    let v0 = PackVelocities::gather(p0, |i| &*base.add(i));
    let v1 = PackVelocities::gather(p1, |i| &*base.add(i));
    let (i0, r0) = update_pack(p0, gamma.get(pk), &v0, p);
    let (i1, r1) = update_pack(p1, gamma.get(pk + 1), &v1, p);
    let (la0, lb0) = impulse_moments(p0, &i0);
    let (la1, lb1) = impulse_moments(p1, &i1);
    let s0 = v0.after_impulse(&i0, &la0, &lb0, PLANAR);
    let s1 = v1.after_impulse(&i1, &la1, &lb1, PLANAR);
    ([p0, p1], [v0, v1], [s0, s1], [r0, r1])
}

/// One Gauss–Seidel update of packs `pk` and `pk + 1` of one colour class, which share no
/// dynamic body, for contacts with moment rows between isotropic bodies: the same arithmetic
/// as two calls of [`relax_pack`] (each pack's sliding update, then its moment rows from the
/// velocities that leaves), interleaved as in [`relax_pair`]. Returns the larger residual.
///
/// # Safety
/// No other thread may touch the two packs or their dynamic bodies meanwhile.
#[inline(always)]
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub unsafe fn relax_pair_moments<const PLANAR: bool>(
    pk: usize,
    rows: [&RowPack; 2],
    gamma: &Disjoint<Lanes3>,
    (moment_rows, moment_gamma): &MomentRows,
    motion: &Disjoint<Motion>,
    p: &SweepParams,
) -> f32 {
    let base = motion.base();
    let ([p0, p1], [v0, v1], [s0, s1], [r0, r1]) = slide_pair::<PLANAR>(pk, rows, gamma, base, p);
    let (s0, s1) = (s0.spin_as_stored(&v0), s1.spin_as_stored(&v1));
    let (slide0, slide1) = (gamma.read(pk), gamma.read(pk + 1));
    let (m0, q0) = update_moment_pack(
        p0,
        &moment_rows[pk],
        moment_gamma.get(pk),
        &slide0,
        &s0,
        p.omega,
    );
    let (m1, q1) = update_moment_pack(
        p1,
        &moment_rows[pk + 1],
        moment_gamma.get(pk + 1),
        &slide1,
        &s1,
        p.omega,
    );
    s0.after_moment(&m0, PLANAR)
        .scatter(p0, |i, m| *base.add(i) = m);
    s1.after_moment(&m1, PLANAR)
        .scatter(p1, |i, m| *base.add(i) = m);
    r0.max(q0).max_element().max(r1.max(q1).max_element())
}

/// The moment rows of the packs and their impulses, shared by the workers.
type MomentRows<'a> = (&'a [MomentPack], Disjoint<'a, Lanes3>);

/// One Gauss–Seidel update of the four contacts of pack `pk`, then of their moment rows if
/// any; velocities follow each at once.
///
/// # Safety
/// No other thread may touch pack `pk` or its dynamic bodies meanwhile.
#[inline(always)]
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub unsafe fn relax_pack(
    pk: usize,
    pack: &RowPack,
    gamma: &Disjoint<Lanes3>,
    moments: Option<&MomentRows>,
    motion: &Disjoint<Motion>,
    p: &SweepParams,
) -> f32 {
    let vel = PackVelocities::gather(pack, |i| motion.shared(i));
    let (impulse, mut residual) = update_pack(pack, gamma.get(pk), &vel, p);
    let Some((moment_rows, moment_gamma)) = moments else {
        apply_pack_impulse(pack, &vel, &impulse, motion, p);
        return residual.max_element();
    };
    let slide = gamma.read(pk);
    let moment_update = |vel: &PackVelocities| {
        let m = &moment_rows[pk];
        update_moment_pack(pack, m, moment_gamma.get(pk), &slide, vel, p.omega)
    };
    if p.inertia.any() {
        // Anisotropic bodies turn through memory: write, then read again.
        apply_pack_impulse(pack, &vel, &impulse, motion, p);
        let vel = PackVelocities::gather(pack, |i| motion.shared(i));
        let (moment, r) = moment_update(&vel);
        apply_pack_moment(pack, &vel, &moment, motion, p);
        residual = residual.max(r);
    } else {
        // The moment rows start from the velocities the sliding update leaves, kept in
        // registers: one write of the bodies instead of two, and one read.
        let (la, lb) = impulse_moments(pack, &impulse);
        let vel = vel
            .after_impulse(&impulse, &la, &lb, p.planar)
            .spin_as_stored(&vel);
        let (moment, r) = moment_update(&vel);
        let base = motion.base();
        vel.after_moment(&moment, p.planar)
            .scatter(pack, |i, m| *base.add(i) = m);
        residual = residual.max(r);
    }
    residual.max_element()
}

/// Applies the impulses D γ of one pack to its dynamic bodies (a gets +P, b gets −P), whose
/// velocities before are `vel`.
///
/// # Safety
/// No other thread may touch the pack's dynamic bodies meanwhile.
#[inline(always)]
unsafe fn apply_pack_impulse(
    pack: &RowPack,
    vel: &PackVelocities,
    impulse: &Lanes3,
    motion: &Disjoint<Motion>,
    p: &SweepParams,
) {
    let (la, lb) = impulse_moments(pack, impulse);
    apply_pack(pack, vel, impulse, &la, &lb, motion, p);
}

/// Applies the moment impulses L of one pack to its dynamic bodies (a gets +L, b gets −L), whose
/// velocities before are `vel`.
///
/// # Safety
/// No other thread may touch the pack's dynamic bodies meanwhile.
#[inline(always)]
unsafe fn apply_pack_moment(
    pack: &RowPack,
    vel: &PackVelocities,
    moment: &Lanes3,
    motion: &Disjoint<Motion>,
    p: &SweepParams,
) {
    apply_pack(pack, vel, &[Vec4::ZERO; 3], moment, moment, motion, p);
}

/// v ← v + M⁻¹ (±P, ±L) for the lanes' dynamic bodies, whose velocities before are `vel`:
/// a gets (P, la), b gets (−P, −lb); anisotropic bodies turn by I_w⁻¹ L.
///
/// # Safety
/// No other thread may touch the pack's dynamic bodies meanwhile.
#[inline(always)]
unsafe fn apply_pack(
    pack: &RowPack,
    vel: &PackVelocities,
    impulse: &Lanes3,
    la: &Lanes3,
    lb: &Lanes3,
    motion: &Disjoint<Motion>,
    p: &SweepParams,
) {
    vel.after_impulse(impulse, la, lb, p.planar)
        .scatter(pack, |i, m| *motion.get(i) = m);
    if p.inertia.any() {
        // SAFETY: as the caller's, for the pack's own bodies.
        p.inertia
            .turn_pack(pack, (la, lb), |i| unsafe { motion.get(i) });
    }
}

/// Applies the warm-start impulses v ← v + M⁻¹ D γ (and the moment impulses of `moments`)
/// class by class: the even `blocks` in parallel, then the odd ones, each block's classes in
/// order, then each shared class in parallel (its packs share no dynamic body; the last,
/// overflow class on one thread). The updates of each body come in class order whatever the
/// team, as in the sweeps.
pub fn apply_warm_start(
    packs: &Packs,
    blocks: &Blocks,
    moments: Option<&MomentPacks>,
    motion: &mut [Motion],
    p: &SweepParams,
) {
    let motion = Disjoint::new(motion);
    let apply_rows = |pk: usize, pack: &RowPack| {
        // SAFETY: no two packs of a class, nor of two blocks of one pass, share a dynamic body;
        // the overflow class runs serially below.
        unsafe {
            let vel = PackVelocities::gather(pack, |i| motion.shared(i));
            let impulse = pack_impulse(pack, &packs.gamma[pk]);
            apply_pack_impulse(pack, &vel, &impulse, &motion, p);
            if let Some(m) = moments {
                let vel = PackVelocities::gather(pack, |i| motion.shared(i));
                let moment = pack_impulse(pack, &m.gamma[pk]);
                apply_pack_moment(pack, &vel, &moment, &motion, p);
            }
        }
    };
    let apply = |pk: usize| match packs.rows() {
        PackRows::Full(rows) => apply_rows(pk, &rows[pk]),
        PackRows::Compact(rows) => apply_rows(pk, &rows[pk].expand()),
    };
    let class_packs = |c: usize| packs.start[c] as usize..packs.start[c + 1] as usize;
    for pass in [0..blocks.odd, blocks.odd..blocks.len()] {
        pass.into_par_iter().for_each(|b| {
            let classes = blocks.class[b] as usize..blocks.class[b + 1] as usize;
            classes.flat_map(class_packs).for_each(apply);
        });
    }
    let classes = packs.start.len() - 1;
    for c in blocks.shared()..classes {
        let packs = class_packs(c);
        if c == classes - 1 || packs.len() < SMALL_CLASS_PACKS {
            packs.for_each(apply);
        } else {
            packs.into_par_iter().with_min_len(64).for_each(apply);
        }
    }
}

/// Packs of a shared class below which [`apply_warm_start`] applies it on the calling worker:
/// handing a class to the team costs about as much as applying this many packs (a worker woken
/// for it takes 10–20 µs on this kind of machine, a pack some tens of nanoseconds). The order
/// within a class does not change the bits (its packs share no dynamic body).
const SMALL_CLASS_PACKS: usize = 256;
