//! One step of a scene timed many times from the same state: the scene is built, stepped
//! `SETTLE` steps (or restored from a checkpoint), saved, and then the next step is taken
//! `REPEATS` times, each from the saved state. Every repeat does the same work on the same
//! data, so the spread of its stage times is the machine's noise alone, and the minimum of each
//! stage is a steady figure to compare two builds with (docs/benchmark.md).
//!
//!     cargo run --release -p grains-benches --example step_repeat -- SCENE [SETTLE] [REPEATS] [THREADS] [CHECKPOINT]
//!
//! Defaults: 300 settle steps, 40 repeats, the scene's threads. With CHECKPOINT (a
//! `checkpoint.bin` of `grains run` on the same scene) the settle steps are skipped. Prints
//! each stage's minimum and median milliseconds and the step's sweeps.

use grains::snapshot::Snapshot;
use grains::Stage;
use grains_app::scene::Scene;
use std::process::exit;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: step_repeat SCENE [SETTLE] [REPEATS] [THREADS] [CHECKPOINT]";
    let Some(path) = args.first() else {
        eprintln!("{usage}");
        exit(2)
    };
    let number = |i: usize, default: usize, what: &str| -> usize {
        match args.get(i) {
            None => default,
            Some(s) => s.parse().unwrap_or_else(|_| {
                eprintln!("error: {what} must be a non-negative integer, got {s:?} ({usage})");
                exit(2)
            }),
        }
    };
    let (settle, repeats) = (number(1, 300, "SETTLE"), number(2, 40, "REPEATS").max(1));
    let threads = args.get(3).map(|_| number(3, 0, "THREADS"));
    let scene = Scene::load(path).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        exit(1)
    });
    let mut world = scene.world(threads).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        exit(1)
    });
    let fail = |what: &str, e: &dyn std::fmt::Display| -> ! {
        eprintln!("error: {what}: {e}");
        exit(1)
    };
    match args.get(4) {
        Some(file) => {
            let bytes = std::fs::read(file).unwrap_or_else(|e| fail(file, &e));
            let snap = Snapshot::from_bytes(&bytes).unwrap_or_else(|e| fail(file, &e));
            world.restore(&snap).unwrap_or_else(|e| fail(file, &e));
        }
        None => {
            if let Err(e) = world.run(settle as u64) {
                fail("settling", &e)
            }
        }
    }
    let saved = world.snapshot().unwrap_or_else(|e| fail("snapshot", &e));
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); Stage::ALL.len() + 1];
    let mut sweeps = 0;
    for _ in 0..repeats {
        world
            .restore(&saved)
            .unwrap_or_else(|e| fail("restore", &e));
        let mut before = world.stage_times().unwrap_or_default();
        let stats = world.step().unwrap_or_else(|e| fail("step", &e));
        let mut after = world.stage_times().unwrap_or_default();
        sweeps = stats.iterations;
        let mut step = 0.0;
        for (s, stage) in samples.iter_mut().zip(Stage::ALL) {
            let ms = (*after.slot(stage) - *before.slot(stage)) * 1e3;
            s.push(ms);
            step += ms;
        }
        samples[Stage::ALL.len()].push(step);
    }
    println!(
        "{path}: {} bodies, {} contacts, {sweeps} sweeps, {repeats} repeats of step {}",
        world.len(),
        world.contact_rows().rows.len(),
        world.steps()
    );
    let names = Stage::ALL.map(Stage::name);
    for (name, s) in names.iter().chain(&["step"]).zip(&mut samples) {
        s.sort_by(f64::total_cmp);
        println!(
            "  {name:<9} min {:8.3} ms  median {:8.3} ms",
            s[0],
            s[s.len() / 2]
        );
    }
}
