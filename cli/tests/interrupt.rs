//! Ctrl-C and resume, over and over: a `grains run` sent SIGINT at random instants stops after
//! the step in progress with exit status 130, says the step it stopped at and how to resume,
//! and leaves a checkpoint of exactly that step (no step lost but the one in progress); resumed
//! each time with `--resume`, it ends with an output folder bit-identical to an uninterrupted
//! run's. A second SIGINT ends a run at once, in the middle of a step; `grains bench` stops
//! at a step and prints the figures of the steps taken.

use crate::common;
use crate::kill_resume::{assert_same_results, command, run_to_end, scene, tmp};
use grains::snapshot::Snapshot;
use grains_app::pour::SplitMix64;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_grains");

/// The most interruptions (each followed by a resume).
const STOPS: usize = 5;

/// The step an interrupted run said it stopped at (`… at step N: …`).
fn said_step(stderr: &str) -> u64 {
    let after = stderr
        .split("at step ")
        .nth(1)
        .unwrap_or_else(|| panic!("no step in: {stderr}"));
    after[..after.find(':').unwrap()].parse().unwrap()
}

#[test]
fn ctrl_c_stops_at_a_step_and_resumes_bit_identical() {
    let base = tmp("ctrl-c");
    // The kill test's pour for 1,000 steps with fewer outputs, so that stepping, not writing
    // pictures, takes most of a run.
    let scene = scene(&base);
    let text = std::fs::read_to_string(&scene).unwrap();
    let text = text
        .replace("duration = 0.6", "duration = 2.0")
        .replace("every = 20\n", "every = 100\n")
        .replace("checkpoint_every = 40", "checkpoint_every = 200");
    std::fs::write(&scene, text).unwrap();
    let (whole, cut) = (base.join("whole"), base.join("cut"));
    let t = Instant::now();
    run_to_end(&scene, &whole, false);
    let whole_ms = t.elapsed().as_millis() as u64;

    let mut rng = SplitMix64(0xC0FFEE);
    let (mut stops, mut last_step) = (0, 0u64);
    while stops < STOPS {
        // After the handler is in place (the scene is read first, in a few milliseconds).
        let delay = 100 + rng.below((whole_ms / 8).max(1) as usize) as u64;
        let child = command(&scene, &cut, cut.exists())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        // SAFETY: a signal to our own child, which has not been waited for (so its pid is
        // not reused).
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        if o.status.success() {
            // It finished before the signal was looked at.
            break;
        }
        assert_eq!(o.status.code(), Some(130), "interrupt {stops}: {err}");
        assert!(err.contains("--resume"), "no way to resume said: {err}");
        let step = said_step(&err);
        let checkpoint = Snapshot::from_bytes(&std::fs::read(cut.join("checkpoint.bin")).unwrap());
        assert_eq!(
            checkpoint.unwrap().steps,
            step,
            "the checkpoint is not of step {step}"
        );
        assert!(
            step > last_step,
            "no progress: stopped at {step} after {last_step}"
        );
        last_step = step;
        stops += 1;
    }
    run_to_end(&scene, &cut, cut.exists());
    println!("{stops} interruptions; an uninterrupted run takes {whole_ms} ms");
    assert!(stops >= 2, "only {stops} interruptions cut a run short");
    assert_same_results(&whole, &cut);
    std::fs::remove_dir_all(&base).unwrap();
}

/// The resting lattice of the fixtures with `sweeps` sweeps per step, written into a new
/// folder `name` of the temporary directory; returns the folder and the scene.
fn resting_lattice(name: &str, sweeps: u32) -> (PathBuf, PathBuf) {
    let base = tmp(name);
    let scene = base.join("lattice.toml");
    let text = common::fixture("resting_lattice.toml").replace(
        "max_iterations = 20000",
        &format!("max_iterations = {sweeps}"),
    );
    std::fs::write(&scene, text).unwrap();
    (base, scene)
}

/// `child` sent `signal`.
fn send(child: &Child, signal: libc::c_int) {
    // SAFETY: a signal to our own child, not yet waited for (its pid is not reused).
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
}

/// Reads `child`'s stdout until a line starting with `prefix` (its handler is then in place),
/// and returns the reader, to be read to the end after.
fn wait_for_line(child: &mut Child, prefix: &str) -> BufReader<ChildStdout> {
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.starts_with(prefix) {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "ended before a line starting `{prefix}`"
        );
    }
    out
}

#[test]
fn a_second_ctrl_c_ends_the_run_at_once() {
    // Steps of 20,000 sweeps each (about half a second): both signals come during the first.
    let (base, scene) = resting_lattice("twice", 20_000);
    let out = base.join("out");
    let mut child = command(&scene, &out, false)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = wait_for_line(&mut child, "resting_lattice:");
    send(&child, libc::SIGINT);
    std::thread::sleep(Duration::from_millis(20));
    let second = Instant::now();
    send(&child, libc::SIGINT);
    let mut rest = String::new();
    said.read_to_string(&mut rest).unwrap();
    let o = child.wait_with_output().unwrap();
    let ended = second.elapsed();
    rest.push_str(&String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(130), "{rest}");
    // Not after the step in progress, with its checkpoint and message: at once.
    assert!(
        !rest.contains("interrupted"),
        "the run stopped as after one signal: {rest}"
    );
    // No checkpoint after step 0's (which the writer thread may not have written yet).
    if let Ok(bytes) = std::fs::read(out.join("checkpoint.bin")) {
        let steps = Snapshot::from_bytes(&bytes).unwrap().steps;
        assert_eq!(steps, 0, "a step was finished and checkpointed");
    }
    println!("ended {ended:?} after the second signal");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn ctrl_c_stops_a_bench_with_the_figures_so_far() {
    // Quick steps, far more of them than the test waits for.
    let (base, scene) = resting_lattice("bench", 20);
    let mut child = Command::new(EXE)
        .arg("bench")
        .arg(&scene)
        .args(["--threads", "1", "--steps", "1000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = wait_for_line(&mut child, "bench:");
    std::thread::sleep(Duration::from_millis(300));
    send(&child, libc::SIGINT);
    let mut figures = String::new();
    said.read_to_string(&mut figures).unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{figures}{err}");
    // `  bodies 1000, steps N (h = 0.01 s), S s, M ms/step, R body-steps/s`
    let line = (figures.lines())
        .find(|l| l.trim_start().starts_with("bodies 1000, steps "))
        .unwrap_or_else(|| panic!("no figures: {figures}"));
    let field = |before: &str, after: &str| -> f64 {
        let rest = &line[line.find(before).unwrap() + before.len()..];
        rest[..rest.find(after).unwrap()].trim().parse().unwrap()
    };
    let steps = field("steps ", " (") as u64;
    assert!(steps > 0 && steps < 1_000_000, "{steps} steps");
    assert_eq!(
        err.trim_end(),
        format!("interrupted by Ctrl-C (SIGINT) after {steps} of 1000000 steps: the figures are of those steps"),
    );
    let (seconds, ms_per_step) = (field("s), ", " s,"), field("s, ", " ms/step"));
    assert!(
        (ms_per_step - 1e3 * seconds / steps as f64).abs() <= 0.01 * ms_per_step,
        "{ms_per_step} ms/step are not those of {steps} steps in {seconds} s: {line}"
    );
    std::fs::remove_dir_all(&base).unwrap();
}
