//! Ctrl-C and resume, over and over: a `grains run` sent SIGINT at random instants stops after
//! the step in progress with exit status 130, says the step it stopped at and how to resume,
//! and leaves a checkpoint of exactly that step (no step lost but the one in progress); resumed
//! each time with `--resume`, it ends with an output folder bit-identical to an uninterrupted
//! run's.

use crate::kill_resume::{assert_same_results, command, run_to_end, scene, tmp};
use grains::snapshot::Snapshot;
use grains_app::pour::SplitMix64;
use std::process::Stdio;
use std::time::{Duration, Instant};

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
