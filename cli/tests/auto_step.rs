//! `h = "auto"` in a scene: the run's samples land at their set times (ticks of h_max), its
//! summary gives the steps the controller chose, and a run stopped and resumed from its
//! checkpoint ends with the same bits as one that was not.

use grains::Snapshot;
use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;
use std::path::{Path, PathBuf};

use crate::common;

/// A fresh folder for the test `name`.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-auto-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The checkpoint in `dir` without the runner's record (which holds wall-clock times).
fn state(dir: &Path) -> Snapshot {
    let mut s = Snapshot::from_bytes(&std::fs::read(dir.join("checkpoint.bin")).unwrap()).unwrap();
    s.extra.clear();
    s
}

#[test]
fn an_auto_run_samples_at_its_set_times_and_resumes_bit_for_bit() {
    let base = tmp("corner");
    let path = base.join("auto_corner.toml");
    std::fs::write(&path, common::fixture("auto_corner.toml")).unwrap();
    let scene = Scene::load(&path).unwrap();
    let opts = |out: &Path, threads| RunOptions {
        threads: Some(threads),
        ..RunOptions::new(out)
    };
    let whole = base.join("whole");
    let s = run(&scene, &opts(&whole, 1)).unwrap();
    assert_eq!((s.steps, s.simulated_time_s), (25, 0.1));
    let z = s
        .step_sizes
        .as_ref()
        .expect("the summary gives the steps chosen");
    assert!(
        z.steps > 25 && z.h_min_s < 1e-6 && z.h_max_s == 0.004,
        "{z:?}"
    );
    assert!(z.max_overlap_r <= z.budget_r && z.floored == 0, "{z:?}");
    assert_eq!(s.quality.escaped, 0);
    // A sample every 5 ticks of 4 ms, at exactly those times.
    let csv = std::fs::read_to_string(whole.join("observables.csv")).unwrap();
    let times: Vec<String> = (csv.lines().skip(1))
        .map(|l| l.split(',').nth(1).unwrap().to_string())
        .collect();
    assert_eq!(times, ["0", "0.02", "0.04", "0.06", "0.08", "0.1"], "{csv}");
    // Stopped after tick 13 (the checkpoint of tick 10 on disk) and resumed on 2 threads.
    let cut = base.join("cut");
    let stopped = RunOptions {
        stop_after: Some(13),
        ..opts(&cut, 1)
    };
    assert!(run(&scene, &stopped).unwrap().stopped_early);
    let resumed = RunOptions {
        resume: true,
        ..opts(&cut, 2)
    };
    let r = run(&scene, &resumed).unwrap();
    assert_eq!(r.resumed_from_step, 10);
    assert_eq!(
        state(&whole),
        state(&cut),
        "the resumed run's end state differs"
    );
    assert_eq!(
        std::fs::read(whole.join("observables.csv")).unwrap(),
        std::fs::read(cut.join("observables.csv")).unwrap()
    );
    std::fs::remove_dir_all(&base).unwrap();
}
