//! Resuming a run: the physics fingerprint decides (a longer duration is fine, a changed
//! physics item is refused by name, as is a changed output cadence), every started run can be
//! resumed (a checkpoint at step 0; a folder killed before it starts again), `summary.json`
//! covers every session and is left alone by resuming a finished run, a failed run still leaves
//! one, and times are printed without float noise.

use grains::Snapshot;
use grains_app::runner::{run, RunOptions, RunSummary};
use grains_app::scene::Scene;
use std::path::{Path, PathBuf};

use crate::common;

/// A fresh folder for the test `name`.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-resume-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The tiny shaker scene (h = 0.01 s, 120 steps, frames every 10, checkpoints every 25),
/// edited by `edit`, written to `dir/file` and loaded.
fn scene(dir: &Path, file: &str, edit: impl Fn(String) -> String) -> Scene {
    let p = dir.join(file);
    std::fs::write(&p, edit(common::fixture("tiny_shaker.toml"))).unwrap();
    Scene::load(&p).unwrap()
}

fn opts(out: &Path) -> RunOptions {
    RunOptions {
        threads: Some(1),
        ..RunOptions::new(out)
    }
}

fn resume(scene: &Scene, out: &Path) -> Result<RunSummary, String> {
    run(
        scene,
        &RunOptions {
            resume: true,
            ..opts(out)
        },
    )
    .map_err(|e| {
        let msg = e.to_string();
        assert!(!msg.contains('\n'), "one line: {msg}");
        msg
    })
}

/// A run of `scene` in `out` stopped after `steps` steps (as if killed).
fn cut(scene: &Scene, out: &Path, steps: u64) {
    let s = run(
        scene,
        &RunOptions {
            stop_after: Some(steps),
            ..opts(out)
        },
    )
    .unwrap();
    assert!(s.stopped_early);
}

/// The checkpoint in `dir` without the runner's record (which holds wall-clock times).
fn state(dir: &Path) -> Snapshot {
    let mut s = Snapshot::from_bytes(&std::fs::read(dir.join("checkpoint.bin")).unwrap()).unwrap();
    s.extra.clear();
    s
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The bytes of `file` in `dir` (frames are binary).
fn bytes(dir: &Path, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&read(dir, "summary.json")).unwrap()
}

#[test]
fn a_changed_physics_item_is_refused_by_name() {
    let base = tmp("physics");
    let sc = scene(&base, "a.toml", |t| t);
    let out = base.join("out");
    cut(&sc, &out, 40);
    let slower = scene(&base, "b.toml", |t| {
        t.replace("h = 0.01", "h = 0.005")
            .replace("friction = 0.5", "friction = 0.4")
    });
    let msg = resume(&slower, &out).unwrap_err();
    assert!(
        msg.contains("the scene's physics changed since the checkpoint"),
        "{msg}"
    );
    assert!(msg.contains("h (0.01 → 0.005)"), "{msg}");
    assert!(msg.contains("material 0 friction (0.5 → 0.4)"), "{msg}");
    assert!(
        msg.contains("resume with the scene the run was started with, or start a new run"),
        "{msg}"
    );
    // Another seed moves the grains' start but not their radii: the checkpoint's state decides.
    let reseeded = scene(&base, "c.toml", |t| t.replace("seed = 3", "seed = 4"));
    resume(&reseeded, &out).unwrap();
    assert_eq!(read(&out, "scene.toml"), read(&base, "c.toml"));
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_changed_output_cadence_is_refused_by_name() {
    let base = tmp("cadence");
    let sc = scene(&base, "a.toml", |t| t);
    let out = base.join("out");
    cut(&sc, &out, 40);
    let sparser = scene(&base, "b.toml", |t| t.replace("every = 10", "every = 20"));
    let msg = resume(&sparser, &out).unwrap_err();
    assert!(
        msg.contains("outputs changed since the checkpoint: every (10 → 20)"),
        "{msg}"
    );
    // The checkpoint interval and the PNG interval may change.
    let other = scene(&base, "c.toml", |t| {
        t.replace("checkpoint_every = 25", "checkpoint_every = 30")
            .replace("png_every = 3", "png_every = 2")
    });
    resume(&other, &out).unwrap();
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_longer_duration_continues_a_finished_run() {
    let base = tmp("longer");
    let short = scene(&base, "short.toml", |t| t);
    let long = scene(&base, "long.toml", |t| {
        t.replace("duration = 1.2", "duration = 2.4")
    });
    let (grown, whole) = (base.join("grown"), base.join("whole"));
    run(&short, &opts(&grown)).unwrap();
    let s = resume(&long, &grown).unwrap();
    assert_eq!((s.resumed_from_step, s.steps), (120, 240));
    run(&long, &opts(&whole)).unwrap();
    assert_eq!(state(&grown), state(&whole), "final state differs");
    assert_eq!(
        read(&grown, "observables.csv"),
        read(&whole, "observables.csv")
    );
    assert_eq!(read(&grown, "grains.pvd"), read(&whole, "grains.pvd"));
    assert_eq!(read(&grown, "scene.toml"), read(&base, "long.toml"));
    let (g, w) = (summary(&grown), summary(&whole));
    assert_eq!(g["sessions"], 2);
    assert_eq!(g["simulated_time_s"], 2.4);
    for key in ["iterations_mean", "contacts_mean", "steps", "frames"] {
        assert_eq!(g[key], w[key], "{key}");
    }
    // A duration that ends before the checkpoint is refused.
    let shorter = scene(&base, "shorter.toml", |t| {
        t.replace("duration = 1.2", "duration = 0.5")
    });
    let msg = resume(&shorter, &grown).unwrap_err();
    assert!(msg.contains("past the scene's end at step 50"), "{msg}");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn every_started_run_has_a_checkpoint_at_step_0() {
    let base = tmp("step0");
    let sc = scene(&base, "a.toml", |t| t);
    let (out, whole) = (base.join("out"), base.join("whole"));
    cut(&sc, &out, 5);
    assert_eq!(state(&out).steps, 0);
    let s = resume(&sc, &out).unwrap();
    assert_eq!(s.resumed_from_step, 0);
    run(&sc, &opts(&whole)).unwrap();
    assert_eq!(state(&out), state(&whole));
    assert_eq!(
        read(&out, "observables.csv"),
        read(&whole, "observables.csv")
    );
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_folder_killed_before_its_first_checkpoint_starts_again() {
    let base = tmp("no-checkpoint");
    let sc = scene(&base, "a.toml", |t| t);
    let (out, whole) = (base.join("out"), base.join("whole"));
    run(&sc, &opts(&whole)).unwrap();
    // What a kill right after the start can leave: the scene, a frame, part of the CSV, a
    // frame of a later step and temporary files.
    std::fs::create_dir_all(out.join("frames")).unwrap();
    std::fs::copy(base.join("a.toml"), out.join("scene.toml")).unwrap();
    std::fs::write(out.join("frames/frame_000000000.vtu"), "<VTKFile").unwrap();
    std::fs::write(out.join("frames/frame_000000090.vtu"), "stale").unwrap();
    std::fs::write(
        out.join("observables.csv"),
        "step,time_s,height_nut_m\n0,0,0.1",
    )
    .unwrap();
    std::fs::write(out.join("checkpoint.bin.tmp"), "partial").unwrap();
    std::fs::write(out.join("observables.csv.tmp"), "partial").unwrap();
    let s = resume(&sc, &out).unwrap();
    assert_eq!((s.resumed_from_step, s.steps), (0, 120));
    assert_eq!(state(&out), state(&whole));
    for f in [
        "observables.csv",
        "grains.pvd",
        "frames/frame_000000000.vtu",
    ] {
        assert!(bytes(&out, f) == bytes(&whole, f), "{f} differs");
    }
    assert!(
        !out.join("frames/frame_000000090.vtu").exists() || {
            bytes(&out, "frames/frame_000000090.vtu") == bytes(&whole, "frames/frame_000000090.vtu")
        }
    );
    assert!(!out.join("checkpoint.bin.tmp").exists());
    // Killed before its scene.toml was in place: an empty folder, or one holding only the
    // temporary file of that write, starts at step 0.
    let empty = base.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("scene.toml.tmp"), "[sce").unwrap();
    let s = resume(&sc, &empty).unwrap();
    assert_eq!((s.resumed_from_step, s.steps), (0, 120));
    assert_eq!(state(&empty), state(&whole));
    // A folder that is no run's (other files, no scene.toml) is refused.
    let other = base.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let msg = resume(&sc, &other).unwrap_err();
    assert!(msg.contains("no scene.toml"), "{msg}");
    assert_eq!(std::fs::read(other.join("notes.txt")).unwrap(), b"mine");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn the_summary_covers_every_session_and_a_finished_run_keeps_it() {
    let base = tmp("summary");
    let sc = scene(&base, "a.toml", |t| t);
    let (out, whole) = (base.join("out"), base.join("whole"));
    run(&sc, &opts(&whole)).unwrap();
    cut(&sc, &out, 62);
    resume(&sc, &out).unwrap();
    let (w, c) = (summary(&whole), summary(&out));
    for key in [
        "iterations_mean",
        "contacts_mean",
        "steps",
        "frames",
        "simulated_time_s",
    ] {
        assert_eq!(w[key], c[key], "{key}");
    }
    assert_eq!(
        (w["sessions"].as_u64(), c["sessions"].as_u64()),
        (Some(1), Some(2))
    );
    assert!(c["steps_per_s"].as_f64().unwrap() > 0.0);
    assert!(c["session_steps_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(c["resumed_from_step"], 50);
    assert_eq!(c["failed"], false);
    // Resuming the finished run steps nothing and leaves its summary as it was.
    let before = read(&out, "summary.json");
    let again = resume(&sc, &out).unwrap();
    assert_eq!(again.steps, 120);
    assert_eq!(read(&out, "summary.json"), before);
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn times_are_exact_decimals_of_steps_times_h() {
    let base = tmp("times");
    let sc = scene(&base, "a.toml", |t| t);
    let out = base.join("out");
    run(&sc, &opts(&out)).unwrap();
    let csv = read(&out, "observables.csv");
    for line in csv.lines().skip(1) {
        let mut cols = line.split(',');
        let step: u64 = cols.next().unwrap().parse().unwrap();
        let time = cols.next().unwrap();
        assert_eq!(time, format!("{}", step as f64 / 100.0), "{line}");
    }
    assert!(csv.contains("\n30,0.3,"), "{csv}");
    let text = read(&out, "summary.json");
    assert!(text.contains("\"simulated_time_s\": 1.2,"), "{text}");
    assert!(text.contains("\"dt\": 0.01,"), "{text}");
    assert!(read(&out, "grains.pvd").contains("timestep=\"0.3\""));
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn an_older_or_damaged_checkpoint_is_refused_in_one_line() {
    let base = tmp("old");
    let sc = scene(&base, "a.toml", |t| t);
    let out = base.join("out");
    cut(&sc, &out, 40);
    let path = out.join("checkpoint.bin");
    let good = std::fs::read(&path).unwrap();
    let mut old = good.clone();
    old[7] = b'2';
    std::fs::write(&path, &old).unwrap();
    let msg = resume(&sc, &out).unwrap_err();
    assert!(
        msg.contains("written by an older grains, format 2; this version reads formats 4 to 9"),
        "{msg}"
    );
    let mut damaged = good.clone();
    let at = damaged.len() / 2;
    damaged[at] ^= 1;
    std::fs::write(&path, &damaged).unwrap();
    let msg = resume(&sc, &out).unwrap_err();
    assert!(msg.contains("checksum"), "{msg}");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_failed_run_leaves_a_summary_saying_so() {
    let base = tmp("failed");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/v14_chain.toml"),
    )
    .unwrap();
    let bad = text.replacen(
        "anchor = [0.0, 0.0, 1.0]",
        "anchor = [0.8, 0.0, -1000000000000.0]",
        1,
    );
    assert_ne!(bad, text);
    let path = base.join("chain.toml");
    std::fs::write(&path, bad).unwrap();
    let sc = Scene::load(&path).unwrap();
    let out = base.join("out");
    let err = run(&sc, &opts(&out)).unwrap_err().to_string();
    assert!(err.starts_with("step "), "{err}");
    let j = summary(&out);
    assert_eq!(j["failed"], true);
    assert_eq!(j["error"], err.as_str());
    let step = j["steps"].as_u64().unwrap();
    assert!(
        err.starts_with(&format!("step {step}:")),
        "{err} vs step {step}"
    );
    assert!(j["iterations_mean"].as_f64().unwrap() > 0.0);
    assert_eq!(j["sessions"], 1);
    std::fs::remove_dir_all(&base).unwrap();
}

/// A forgery of a checkpoint: what it is, the edit, words its refusal must hold.
type Forgery<'a> = (&'a str, &'a dyn Fn(&mut Snapshot), &'a str);

#[test]
fn a_forged_or_misplaced_checkpoint_is_refused_by_its_files_and_its_reach() {
    let base = tmp("forged");
    let sc = scene(&base, "a.toml", |t| t);
    let out = base.join("out");
    cut(&sc, &out, 40); // its checkpoint at step 25, frames and rows to step 40
    let path = out.join("checkpoint.bin");
    let good = std::fs::read(&path).unwrap();
    let snap = Snapshot::from_bytes(&good).unwrap();
    assert_eq!(snap.steps, 25);
    assert!(
        !snap.warm_impulses.is_empty(),
        "grains rest on the floor at step 25"
    );
    // Each forgery is written with a valid checksum; the folder stays as the cut run left it.
    let forged = |edit: &dyn Fn(&mut Snapshot)| {
        let mut s = snap.clone();
        edit(&mut s);
        std::fs::write(&path, s.to_bytes()).unwrap();
        resume(&sc, &out).unwrap_err()
    };
    let cases: [Forgery; 5] = [
        (
            "step counter 20",
            &|s| s.steps = 20,
            "disagrees with its run record",
        ),
        (
            "a body 1e6 m under the floor",
            &|s| s.bodies.pos_radius[3].z = -1e6,
            "body 3 at (",
        ),
        (
            "a velocity of 1e30",
            &|s| s.bodies.motion[3].linear[2] = 1e30,
            "faster than light",
        ),
        (
            "a velocity of 1e4 m/s",
            &|s| s.bodies.motion[3].linear[0] = 1e4,
            "body 3 moves at 1.000e4 m/s, beyond",
        ),
        (
            "a warm-start impulse of 1e30",
            &|s| s.warm_impulses[0][0] = 1e30,
            "warm-start impulse 0 is 1.000e30",
        ),
    ];
    for (what, edit, words) in cases {
        let msg = forged(edit);
        assert!(msg.contains(words), "{what}: {msg}");
    }
    // The checkpoint at the end of a whole run copied over the cut run's: the folder lacks the
    // frames and rows from step 40 to the end, which resuming it would never write.
    let whole = base.join("whole");
    run(&sc, &opts(&whole)).unwrap();
    std::fs::copy(whole.join("checkpoint.bin"), &path).unwrap();
    let msg = resume(&sc, &out).unwrap_err();
    assert!(
        msg.contains("the checkpoint is at step 120, but frames/frame_000000120.vtu"),
        "{msg}"
    );
    // The good checkpoint still resumes, to the end, as before.
    std::fs::write(&path, &good).unwrap();
    resume(&sc, &out).unwrap();
    assert_eq!(
        read(&out, "observables.csv"),
        read(&whole, "observables.csv")
    );
    std::fs::remove_dir_all(&base).unwrap();
}
