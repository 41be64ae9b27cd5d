//! Kill -9 and resume, over and over: a `grains run` killed at random instants (before its
//! first checkpoint, in the middle, during a resume's first milliseconds) and resumed each time
//! with `--resume` ends with an output folder bit-identical to an uninterrupted run's: the
//! same files, byte for byte (frames, snapshots, plots, observables, the final checkpoint), and
//! the same summary figures apart from the wall-clock ones.
//!
//! A second test leaves, by hand, each state a kill can leave before the first checkpoint and
//! checks that `--resume` continues from it, so that those states are covered whatever the
//! timing of the random kills on a busy machine.

use grains::snapshot::Snapshot;
use grains_app::pour::SplitMix64;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_grains");

/// The most kills of the random test (each followed by a resume).
const KILLS: usize = 14;

pub(crate) fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-kill-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The pour benchmark with 300 grains for 0.6 s (300 steps): frames every 20 steps, a PNG of
/// every other frame, a checkpoint every 40 steps.
pub(crate) fn scene(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/pour_1k.toml"),
    )
    .unwrap()
    .replace("duration = 1.0", "duration = 0.6")
    .replace("n = 1000", "n = 300")
    .replace("count = 1000", "count = 300")
    .replace(
        "every = 25",
        "every = 20\npng_every = 2\ncheckpoint_every = 40",
    );
    let p = dir.join("pour.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// `grains run SCENE` into `out`, fresh or with `--resume`.
pub(crate) fn command(scene: &Path, out: &Path, resume: bool) -> Command {
    let mut c = Command::new(EXE);
    c.arg("run").arg(scene);
    if resume {
        c.arg("--resume").arg(out);
    } else {
        c.arg("--out").arg(out);
    }
    // One worker thread: the two tests run side by side on the test machine's 2 cores, and a
    // run's bits do not depend on its thread count.
    c.args(["--threads", "1"]).stdout(Stdio::null());
    c
}

pub(crate) fn run_to_end(scene: &Path, out: &Path, resume: bool) {
    let o = command(scene, out, resume).output().unwrap();
    assert!(
        o.status.success(),
        "{} failed: {}",
        if resume { "resume" } else { "run" },
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Every file under `dir`, by path relative to it.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

/// `summary.json` without the figures of the session's wall clock.
fn summary_figures(bytes: &[u8]) -> serde_json::Value {
    let mut j: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    let m = j.as_object_mut().unwrap();
    m.retain(|k, _| {
        !k.contains("wall")
            && !k.contains("per_s")
            && !k.starts_with("session")
            && k != "resumed_from_step"
            && k != "threads"
    });
    j
}

/// A checkpoint's state: the world's snapshot without the run's record of sessions and wall
/// clock (its `extra`).
fn state(bytes: &[u8]) -> Snapshot {
    let mut s = Snapshot::from_bytes(bytes).unwrap();
    s.extra.clear();
    s
}

/// The folders `a` and `b` hold the same files with the same bytes (the checkpoint: the same
/// state; summary.json: the same figures apart from the wall clock's).
pub(crate) fn assert_same_results(a: &Path, b: &Path) {
    let (fa, fb) = (files(a), files(b));
    let names = |f: &BTreeMap<PathBuf, Vec<u8>>| f.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&fa), names(&fb), "the folders hold different files");
    for (name, bytes) in &fa {
        if name == Path::new("checkpoint.bin") {
            assert_eq!(state(bytes), state(&fb[name]), "checkpoint.bin differs");
        } else if name == Path::new("summary.json") {
            assert_eq!(
                summary_figures(bytes),
                summary_figures(&fb[name]),
                "summary.json figures differ"
            );
        } else {
            assert!(bytes == &fb[name], "{} differs", name.display());
        }
    }
}

#[test]
fn random_kills_and_resumes_end_bit_identical() {
    let base = tmp("random");
    let scene = scene(&base);
    let (whole, cut) = (base.join("whole"), base.join("cut"));
    let t = Instant::now();
    run_to_end(&scene, &whole, false);
    let whole_ms = t.elapsed().as_millis() as usize;

    // The first kill comes within 10 ms of the start (before the first checkpoint), a third of
    // the others within 25 ms (a resume's first milliseconds), the rest anywhere in the first
    // half of a run, so that most kills cut a run short; the kills stop once a run finishes.
    let mut rng = SplitMix64(0xDEAD_BEEF);
    let (mut kills, mut before_first_checkpoint) = (0, 0);
    while kills < KILLS {
        let delay = if kills == 0 {
            rng.below(10)
        } else if rng.below(3) == 0 {
            rng.below(25)
        } else {
            rng.below((whole_ms / 2).max(1))
        };
        // Resume once the folder exists (a kill can come before the run creates it).
        let mut child = command(&scene, &cut, cut.exists())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay as u64));
        if child.try_wait().unwrap().is_some() {
            let o = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                o.status.success(),
                "after {kills} kills a run failed: {err}"
            );
            break;
        }
        before_first_checkpoint += usize::from(!cut.join("checkpoint.bin").exists());
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
    }
    run_to_end(&scene, &cut, cut.exists());
    println!(
        "{kills} kills of a running process ({before_first_checkpoint} before the first \
         checkpoint); an uninterrupted run takes {whole_ms} ms"
    );
    assert!(kills >= 2, "only {kills} kills cut a run short");
    assert_same_results(&whole, &cut);
    std::fs::remove_dir_all(&base).unwrap();
}

/// A file a kill left: its path in the output folder and its bytes.
type Entry<'a> = (&'a str, &'a [u8]);

/// The states a kill can leave before the first checkpoint is on disk: each resumes and ends
/// bit-identical to an uninterrupted run.
#[test]
fn every_state_before_the_first_checkpoint_resumes() {
    let base = tmp("early");
    let scene = scene(&base);
    let whole = base.join("whole");
    run_to_end(&scene, &whole, false);
    let scene_text = std::fs::read(&scene).unwrap();
    let frame0 = std::fs::read(whole.join("frames/frame_000000000.vtu")).unwrap();
    let csv = std::fs::read_to_string(whole.join("observables.csv")).unwrap();
    let header = format!("{}\n", csv.lines().next().unwrap());
    let states: [(&str, &[Entry]); 5] = [
        ("an empty folder", &[]),
        (
            "a half-written scene.toml",
            &[("scene.toml.tmp", &scene_text[..40])],
        ),
        ("only scene.toml", &[("scene.toml", &scene_text)]),
        (
            "scene.toml, a header-only CSV and a half-written checkpoint",
            &[
                ("scene.toml", &scene_text),
                ("observables.csv", header.as_bytes()),
                ("checkpoint.bin.tmp", b"GRAINS"),
            ],
        ),
        (
            "scene.toml, the first frame and a half-written second",
            &[
                ("scene.toml", &scene_text),
                ("frames/frame_000000000.vtu", &frame0),
                ("frames/frame_000000020.vtu.tmp", &frame0[..100]),
            ],
        ),
    ];
    for (k, (what, entries)) in states.iter().enumerate() {
        let cut = base.join(format!("cut{k}"));
        std::fs::create_dir_all(cut.join("frames")).unwrap();
        if !entries.iter().any(|(name, _)| name.starts_with("frames/")) {
            std::fs::remove_dir(cut.join("frames")).unwrap();
        }
        for (name, bytes) in entries.iter() {
            std::fs::write(cut.join(name), bytes).unwrap();
        }
        let o = command(&scene, &cut, true).output().unwrap();
        assert!(
            o.status.success(),
            "resume from {what} failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_same_results(&whole, &cut);
    }
    std::fs::remove_dir_all(&base).unwrap();
}
