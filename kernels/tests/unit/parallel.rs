//! The unit tests of `src/parallel.rs`.

use grains_kernels::parallel::*;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU32, AtomicUsize};

/// Three workers empty one queue: every item is taken once, none twice or never.
#[test]
fn a_two_ended_queue_hands_out_every_item_once() {
    let queue = TwoEnded::new(5..1005);
    let taken: Vec<AtomicUsize> = (0..1005).map(|_| AtomicUsize::new(0)).collect();
    std::thread::scope(|s| {
        for me in 0..3 {
            let (queue, taken) = (&queue, &taken);
            s.spawn(move || {
                while let Some(i) = queue.take(me) {
                    taken[i].fetch_add(1, Relaxed);
                }
            });
        }
    });
    let counts: Vec<usize> = taken.iter().map(|t| t.load(Relaxed)).collect();
    assert!(
        counts[..5].iter().all(|&c| c == 0),
        "items before the range"
    );
    assert!(counts[5..].iter().all(|&c| c == 1), "{counts:?}");
    queue.reset(0..2);
    assert_eq!(
        (queue.take(1), queue.take(1), queue.take(0)),
        (Some(1), Some(0), None)
    );
}

/// A chain of items, each round's item i finished by worker i % 4 after it waited for item
/// i − 1 of the round, with more workers than cores (so some park): each waiter sees the
/// value its predecessor wrote, and every wait ends (a lost wake-up would hang the test).
#[test]
fn stamps_order_a_chain_of_items_across_parking_workers() {
    let (items, rounds, team) = (8, 300u32, 4);
    let stamps = Stamps::new(items);
    let value: Vec<AtomicU32> = (0..items).map(|_| AtomicU32::new(0)).collect();
    std::thread::scope(|s| {
        for me in 0..team {
            let (stamps, value) = (&stamps, &value);
            s.spawn(move || {
                for round in 1..=rounds {
                    for i in (me..items).step_by(team) {
                        let before = match i {
                            0 if round == 1 => 0,
                            0 => {
                                stamps.wait_for(std::iter::once(items - 1), round - 1);
                                value[items - 1].load(Relaxed)
                            }
                            _ => {
                                stamps.wait_for(std::iter::once(i - 1), round);
                                value[i - 1].load(Relaxed)
                            }
                        };
                        if i > 0 || round > 1 {
                            assert_eq!(before, (round - 1) * items as u32 + i as u32);
                        }
                        value[i].store(before + 1, Relaxed);
                        stamps.finish(i, round);
                    }
                }
            });
        }
    });
    assert_eq!(value[items - 1].load(Relaxed), rounds * items as u32);
}

/// Every worker sees every other worker's writes of a round once the barrier lets it go,
/// over many rounds, with more workers than cores (so some park).
#[test]
fn the_barrier_orders_rounds_with_more_workers_than_cores() {
    let team = 8;
    let rounds = 2000;
    let barrier = SpinBarrier::new(team);
    let counts: Vec<AtomicUsize> = (0..team).map(|_| AtomicUsize::new(0)).collect();
    std::thread::scope(|s| {
        for w in 0..team {
            let (barrier, counts) = (&barrier, &counts);
            s.spawn(move || {
                for round in 0..rounds {
                    counts[w].store(round + 1, Relaxed);
                    barrier.wait();
                    for c in counts {
                        assert!(
                            c.load(Relaxed) > round,
                            "a worker passed round {round} early"
                        );
                    }
                    barrier.wait();
                }
            });
        }
    });
    assert!(counts.iter().all(|c| c.load(Relaxed) == rounds));
}

/// A team that waits most of its time (its partner's core taken) is tried alone once in
/// sixteen runs and kept alone while that is cheaper; alone, it tries the team again once in
/// sixteen and returns when the team is cheaper again. A team that barely waits is never
/// tried alone, and a pool of one is always alone.
#[test]
fn the_team_is_dropped_while_going_alone_is_cheaper() {
    let mut choice = TeamChoice::default();
    assert_eq!(choice.team(1), 1);
    // Runs with a team of two taking `team_seconds` (`waiting` of them spent waiting) and
    // one worker alone 1 s, for the same work; the teams chosen.
    let runs = |choice: &mut TeamChoice, n: usize, team_seconds: f64, waiting: f64| {
        (0..n)
            .map(|_| {
                let team = choice.team(2);
                match team {
                    1 => choice.record(1, 1.0, 1.0, 0.0),
                    _ => choice.record(2, team_seconds, 1.0, waiting),
                }
                team
            })
            .collect::<Vec<_>>()
    };
    // A busy machine: the team takes twice as long as one worker and mostly waits.
    let teams = runs(&mut choice, 64, 2.0, 3.0);
    assert_eq!(teams[..15], [2; 15], "the team until the first probe");
    assert_eq!(teams[15], 1, "the probe alone");
    let later = &teams[16..];
    assert_eq!(later.iter().filter(|&&t| t == 2).count(), 3, "{teams:?}");
    // The machine is quiet again: the next team probe is cheaper, and the team stays.
    let back = runs(&mut choice, 40, 0.6, 0.1);
    let first_team = back.iter().position(|&t| t == 2).unwrap();
    assert!(first_team < 16, "{back:?}");
    assert!(back[first_team..].iter().all(|&t| t == 2), "{back:?}");
}
