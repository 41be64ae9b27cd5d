//! A deterministic mutation test of checkpoint restore: valid checkpoints of four small worlds
//! (spheres only; spheres in a shaken box; spinning and rolling friction; a jointed chain with a
//! spring), each carrying the cuts of a 3-rank run, with a fixed-seed series of edits. Edits
//! left unsealed (a byte flipped, the file cut short, bytes inserted) must all be found by
//! [`Snapshot::from_bytes`]; edits sealed again with a fresh checksum ([`seal`]: a byte or a word changed, a count set, bytes cut or inserted)
//! reach the field checks of [`World::restore`]. Whatever the edit, reading and restoring must
//! not panic and every error must be one line; a restore that succeeds is stepped once.
//!
//! `snapshot_mutations_ci` runs a fixed number of cases (seconds in release);
//! `snapshot_mutations_long` (ignored) runs `GRAINS_FUZZ_CASES` of them (default 100,000) and
//! prints the count and the rate:
//!
//! ```text
//! GRAINS_FUZZ_CASES=1000000 cargo test --release -p grains --test engine snapshot_fuzz:: -- --ignored --nocapture
//! ```

use grains::snapshot::seal;
use grains::{Snapshot, World};
use grains_kernels::random::SplitMix64;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use crate::common;

/// Values a sealed word edit writes (as f32 bits, or as an integer).
const WORDS: [u32; 12] = [
    0,
    1,
    0x7fc0_0000, // NaN
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x8000_0000, // -0
    0x3f80_0000, // 1.0
    0x7149_f2ca, // 1e30
    0x0000_0001, // the smallest subnormal
    u32::MAX,
    0xffff_fffe,
    0x4000_0000, // 2.0
];

/// One edit of `bytes`; returns whether it is sealed again (so the checksum cannot find it).
fn mutate(rng: &mut SplitMix64, bytes: &mut Vec<u8>) -> bool {
    let len = bytes.len();
    match rng.below(10) {
        0 | 1 => {
            let at = rng.below(len);
            bytes[at] ^= 1 + rng.below(255) as u8;
            false
        }
        2 => {
            bytes.truncate(rng.below(len));
            false
        }
        3 => {
            let at = rng.below(len + 1);
            for _ in 0..1 + rng.below(8) {
                bytes.insert(at, rng.next_u64() as u8);
            }
            false
        }
        4 | 5 => {
            // A 4-byte word of the content (any float or index of the state) set to a value.
            let at = 12 + 4 * rng.below((len - 12) / 4);
            let word = WORDS[rng.below(WORDS.len())].to_le_bytes();
            bytes[at..at + 4].copy_from_slice(&word);
            seal(bytes);
            true
        }
        6 => {
            let at = 12 + rng.below(len - 12);
            bytes[at] ^= 1 << rng.below(8);
            seal(bytes);
            true
        }
        7 => {
            // One of the seven counts: off by one, or huge.
            let k = rng.below(7);
            let at = 12 + 8 * k;
            let old = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
            let new = match rng.below(4) {
                0 => old.wrapping_add(1),
                1 => old.wrapping_sub(1),
                2 => u64::MAX - rng.below(3) as u64,
                _ => 1 << (20 + rng.below(44)),
            };
            bytes[at..at + 8].copy_from_slice(&new.to_le_bytes());
            seal(bytes);
            true
        }
        8 => {
            bytes.truncate(12 + rng.below(len - 12));
            seal(bytes);
            true
        }
        _ => {
            let at = 12 + rng.below(len - 11);
            for _ in 0..1 + rng.below(16) {
                bytes.insert(at, rng.next_u64() as u8);
            }
            seal(bytes);
            true
        }
    }
}

/// Figures of a series of cases.
#[derive(Debug, Default)]
struct Tally {
    cases: u64,
    unsealed: u64,
    sealed_read: u64,
    restored: u64,
}

/// Runs `cases` edits from `seed`; panics (naming the case) on a panic inside the engine, an
/// error of more than one line or an unsealed edit that was read as a checkpoint.
fn run_cases(seed: u64, cases: u64) -> Tally {
    let mut worlds: Vec<(World, Vec<u8>)> = (0..common::SCENES.len())
        .map(|k| {
            // With the cuts of a 3-rank run, so that the edits reach them too.
            let (world, bytes) = common::checkpoint(k, 40, b"taken=40\n");
            let snap = common::with_cuts(Snapshot::from_bytes(&bytes).unwrap(), 3);
            (world, snap.to_bytes())
        })
        .collect();
    for (w, bytes) in &mut worlds {
        // Each world is restored into from its own (intact) checkpoint first: it reads back.
        w.restore(&Snapshot::from_bytes(bytes).unwrap()).unwrap();
    }
    let mut rng = SplitMix64(seed);
    let mut tally = Tally::default();
    for case in 0..cases {
        let k = rng.below(worlds.len());
        let (world, original) = &mut worlds[k];
        let mut bytes = original.clone();
        let sealed = mutate(&mut rng, &mut bytes);
        let scene = common::SCENES[k];
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let snap = match Snapshot::from_bytes(&bytes) {
                Ok(s) => s,
                Err(e) => return (Some(e.to_string()), false, false),
            };
            match world.restore(&snap) {
                Err(e) => (Some(e.to_string()), true, false),
                Ok(()) => {
                    // The state is valid for the world: a step may fail a health check but
                    // must not panic.
                    let _ = world.step().map_err(|e| e.to_string());
                    (None, true, true)
                }
            }
        }));
        let Ok((error, read, restored)) = outcome else {
            panic!("case {case} ({scene}): the engine panicked");
        };
        if let Some(msg) = &error {
            assert!(!msg.contains('\n'), "case {case} ({scene}): {msg}");
        }
        if sealed {
            tally.sealed_read += read as u64;
            tally.restored += restored as u64;
        } else {
            assert!(
                !read || bytes == *original,
                "case {case} ({scene}): damage not found by the checksum"
            );
            tally.unsealed += 1;
        }
        tally.cases += 1;
    }
    tally
}

#[test]
fn snapshot_mutations_ci() {
    let t = run_cases(0x5EED_C4EC, 20_000);
    println!("{t:?}");
    assert!(t.unsealed > 5000, "{t:?}");
    assert!(t.sealed_read > 1000, "the field checks were reached: {t:?}");
    assert!(
        t.restored > 100,
        "some sealed edits are valid states: {t:?}"
    );
}

#[test]
#[ignore = "long: GRAINS_FUZZ_CASES cases (default 100,000)"]
fn snapshot_mutations_long() {
    let cases = std::env::var("GRAINS_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let start = Instant::now();
    let t = run_cases(0x10C4_F022, cases);
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} cases in {secs:.1} s ({:.0} cases/s): {t:?}",
        t.cases,
        t.cases as f64 / secs
    );
}
