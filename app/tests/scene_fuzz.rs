//! A deterministic mutation test of the scene parser: every small scene of `scenes/` with a
//! fixed-seed series of edits (a line deleted, duplicated or swapped, a number made 0, −1,
//! 1e39, nan, huge or tiny, a string changed, a character flipped, the text cut short). Whatever
//! the edit, [`Scene::parse`] must not panic and each error must be one line; a scene that
//! parses and is small must build its world on one thread without a panic.
//!
//! `scene_mutations_ci` and `scene_mutations_ci_second_half` run a fixed number of cases between
//! them (seconds in release, side by side);
//! `scene_mutations_long` (ignored) runs `GRAINS_FUZZ_CASES` of them (default 100,000) from
//! case `GRAINS_FUZZ_FROM` (default 0; each case has its own seed, so a long run can be split
//! into ranges run side by side or one after another) and prints the count and the rate:
//!
//! ```text
//! GRAINS_FUZZ_CASES=1000000 cargo test --release -p grains-app --test app scene_fuzz:: -- --ignored --nocapture
//! GRAINS_FUZZ_FROM=500000 GRAINS_FUZZ_CASES=500000 cargo test … (the second half alone)
//! ```

use grains_app::scene::Scene;
use grains_kernels::random::SplitMix64;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Scenes whose `count` or `n` is above this are left out (they take seconds to generate).
const MAX_SCENE_COUNT: i64 = 10_000;

/// A mutated scene with more bodies than this is parsed but its world is not built.
const MAX_BUILT_BODIES: usize = 10_000;

/// The numbers a number of the file may become.
const NUMBERS: [&str; 12] = [
    "0",
    "-1",
    "1e39",
    "-1e39",
    "nan",
    "inf",
    "1e300",
    "1e-300",
    "9223372036854775807",
    "99999999999",
    "-0.0",
    "1.5",
];

/// The strings a string of the file may become.
const STRINGS: [&str; 9] = [
    "",
    "x",
    "../../x",
    "/abs",
    "a\\nb",
    "\\u001b[31m",
    "dynamic",
    "random",
    "sphere",
];

/// The small scenes of `scenes/`, by name, with their text.
fn small_scenes() -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes");
    let mut scenes: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .filter(|(_, text)| {
            let table: toml::Table = text.parse().unwrap();
            let counts = |t: &toml::Value| {
                ["count", "n"]
                    .iter()
                    .filter_map(|k| t.get(k).and_then(toml::Value::as_integer))
                    .max()
                    .unwrap_or(0)
            };
            ["bodies", "containers"]
                .iter()
                .filter_map(|k| table.get(*k).and_then(toml::Value::as_array))
                .flatten()
                .all(|t| counts(t) <= MAX_SCENE_COUNT)
        })
        .collect();
    scenes.sort();
    scenes
}

/// Byte ranges of the numbers of `text` (a digit, or a sign before one, not inside a word).
fn numbers(text: &str) -> Vec<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts =
            b[i].is_ascii_digit() || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        let after_word = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if starts && !after_word {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b"._+-".contains(&b[j])) {
                j += 1;
            }
            out.push(i..j);
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of the contents of the one-line `"…"` strings of `text`.
fn strings(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let quotes: Vec<usize> = line.match_indices('"').map(|(i, _)| start + i).collect();
        out.extend(quotes.chunks_exact(2).map(|q| q[0] + 1..q[1]));
        start += line.len();
    }
    out
}

/// `text` (not empty) with one edit drawn from `rng`.
fn mutate(text: &str, rng: &mut SplitMix64) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let with_lines = |rng: &mut SplitMix64, f: &dyn Fn(&mut Vec<&str>, &mut SplitMix64)| {
        let mut ls = lines.clone();
        f(&mut ls, rng);
        ls.join("\n")
    };
    let replace = |range: std::ops::Range<usize>, by: &str| {
        format!("{}{by}{}", &text[..range.start], &text[range.end..])
    };
    match rng.below(8) {
        0 => with_lines(rng, &|ls, rng| {
            ls.remove(rng.below(ls.len()));
        }),
        1 => with_lines(rng, &|ls, rng| {
            let i = rng.below(ls.len());
            ls.insert(i, ls[i]);
        }),
        2 => with_lines(rng, &|ls, rng| {
            let (i, j) = (rng.below(ls.len()), rng.below(ls.len()));
            ls.swap(i, j);
        }),
        3 | 4 => {
            let ns = numbers(text);
            if ns.is_empty() {
                return text.to_string();
            }
            let r = ns[rng.below(ns.len())].clone();
            replace(r, NUMBERS[rng.below(NUMBERS.len())])
        }
        5 => {
            let ss = strings(text);
            if ss.is_empty() {
                return text.to_string();
            }
            let r = ss[rng.below(ss.len())].clone();
            let long = "é".repeat(300);
            let choice = rng.below(STRINGS.len() + 1);
            replace(r, STRINGS.get(choice).copied().unwrap_or(&long))
        }
        6 => {
            let mut chars: Vec<char> = text.chars().collect();
            let i = rng.below(chars.len());
            let flips = b"0123456789.-=[]{}\",#\n ae_";
            chars[i] = flips[rng.below(flips.len())] as char;
            chars.into_iter().collect()
        }
        _ => {
            let mut cut = rng.below(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text[..cut].to_string()
        }
    }
}

/// Parses `text` (and builds its world on one thread if it is small); panics with the case if
/// anything panics or an error is not one line. Returns whether the scene was accepted.
fn check(name: &Path, case: u64, text: &str) -> bool {
    let outcome = catch_unwind(AssertUnwindSafe(|| match Scene::parse(name, text) {
        Ok(scene) if scene.builder().bodies().len() <= MAX_BUILT_BODIES => {
            scene.world(Some(1)).map(|_| ()).map_err(|e| e.to_string())
        }
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }));
    match outcome {
        Err(_) => panic!("case {case} of {}: panicked on:\n{text}", name.display()),
        Ok(Err(msg)) => {
            assert!(
                msg.lines().count() == 1 && !msg.contains('\r'),
                "case {case} of {}: not one line: {msg:?}",
                name.display()
            );
            false
        }
        Ok(Ok(())) => true,
    }
}

/// Runs the mutations `cases` (one to three edits each, case `k` drawn from its own seed, so
/// that any range of cases can be run alone), spread over the small scenes; prints a line
/// every `report` cases (0: none); returns how many were accepted.
fn run(cases: std::ops::Range<u64>, report: u64) -> u64 {
    let scenes = small_scenes();
    assert!(scenes.len() >= 10, "only {} small scenes", scenes.len());
    for (path, text) in &scenes {
        assert!(check(path, 0, text), "{} does not parse", path.display());
    }
    let mut accepted = 0;
    let t = Instant::now();
    for case in cases.clone() {
        if report > 0 && case > cases.start && (case - cases.start).is_multiple_of(report) {
            println!(
                "{} cases up to {case} ({accepted} accepted) in {:.0} s",
                case - cases.start,
                t.elapsed().as_secs_f64()
            );
        }
        let mut rng = SplitMix64(0x5CE_4E5 ^ case.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let (path, text) = &scenes[rng.below(scenes.len())];
        let mut t = text.clone();
        for _ in 0..1 + rng.below(3) {
            t = mutate(&t, &mut rng);
            if t.is_empty() {
                break;
            }
        }
        accepted += u64::from(check(path, case, &t));
    }
    accepted
}

/// The cases CI runs: [`scene_mutations_ci`] runs the first half of them and
/// [`scene_mutations_ci_second_half`] the rest: two tests that libtest can run side by side, on
/// both cores (the 3,000 cases as one test took 20 CPU s on one thread).
const CI_CASES: u64 = 3000;

#[test]
fn scene_mutations_ci() {
    run(0..CI_CASES / 2, 0);
}

#[test]
fn scene_mutations_ci_second_half() {
    run(CI_CASES / 2..CI_CASES, 0);
}

/// A whole number from the environment variable `name`, else `default`.
fn env_count(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore = "long: GRAINS_FUZZ_CASES cases (default 100,000) from case GRAINS_FUZZ_FROM (default 0)"]
fn scene_mutations_long() {
    let cases = env_count("GRAINS_FUZZ_CASES", 100_000);
    let from = env_count("GRAINS_FUZZ_FROM", 0);
    let t = Instant::now();
    let accepted = run(from..from + cases, 10_000);
    let s = t.elapsed().as_secs_f64();
    println!(
        "{cases} mutated scenes, cases {from}..{} ({accepted} accepted) in {s:.1} s: {:.0} per second",
        from + cases,
        cases as f64 / s
    );
}
