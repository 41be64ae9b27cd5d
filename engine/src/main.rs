//! `grains`: the command-line program of the granular engine — run a scene headless, check the
//! validation cases, benchmark a scene.

use clap::{Parser, Subcommand};
use grains::output::Quality;
use grains::runner::{run, RunOptions};
use grains::scene::Scene;
use grains::validation::{run_case, scenes_dir, Status, IDS};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "grains",
    version,
    about = "Granular matter by CCP time stepping: rigid spheres, hard contact, Coulomb friction",
    long_about = "Granular matter by CCP time stepping: rigid spheres (disks in planar mode), hard contact and Coulomb friction.\n\nScene files are TOML; their format is documented in scenes/README.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The computing backend.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Backend {
    /// CPU threads (rayon); results are bit-identical for any thread count.
    Cpu,
}

#[derive(Subcommand)]
enum Command {
    /// Runs a scene for its duration, writing ParaView frames, a CSV of the observables, PNG
    /// snapshots and plots, checkpoints and summary.json into the output folder.
    Run {
        /// The scene file (TOML, see scenes/README.md).
        scene: PathBuf,
        /// Output folder; must not exist or be empty [default: results/<scene name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads (overrides the scene's `threads`).
        #[arg(long)]
        threads: Option<usize>,
        /// Computing backend.
        #[arg(long, value_enum, default_value = "cpu")]
        backend: Backend,
        /// Continue a cut-short run from the checkpoint in this folder (written by an earlier
        /// `grains run` of the same scene file); the result is bit-identical to an uninterrupted run.
        #[arg(long, conflicts_with = "out")]
        resume: Option<PathBuf>,
        /// Stop after this many steps in total, as if the run had been killed (for testing resume).
        #[arg(long, hide = true)]
        stop_after: Option<u64>,
    },
    /// Runs the validation cases of VALIDATION.md the engine can do so far and prints one line
    /// per case: id, expected, measured, PASS / FAIL / TODO (with the missing feature). The exit
    /// status is non-zero if any case fails.
    Validate {
        /// Case ids to run (e.g. V5 V9); all when none are given.
        ids: Vec<String>,
        /// Print the results as one JSON array.
        #[arg(long)]
        json: bool,
        /// Folder with the validation scene files [default: this source tree's scenes/].
        #[arg(long)]
        scenes: Option<PathBuf>,
        /// Worker threads.
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Steps a scene without writing output and prints bodies, steps, seconds, body-steps/s,
    /// mean contacts, mean iterations, the end-state quality figures of POUR.md and the time
    /// spent in each stage of the step.
    Bench {
        /// The scene file.
        scene: PathBuf,
        /// Steps to take [default: the scene's duration / h].
        #[arg(long)]
        steps: Option<u64>,
        /// Worker threads [default: the scene's].
        #[arg(long)]
        threads: Option<usize>,
        /// Computing backend.
        #[arg(long, value_enum, default_value = "cpu")]
        backend: Backend,
        /// Print one JSON object with the keys of POUR.md "Machine-readable output".
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Run {
            scene,
            out,
            threads,
            backend: Backend::Cpu,
            resume,
            stop_after,
        } => cmd_run(scene, out, threads, resume, stop_after),
        Command::Validate {
            ids,
            json,
            scenes,
            threads,
        } => cmd_validate(ids, json, scenes.unwrap_or_else(scenes_dir), threads),
        Command::Bench {
            scene,
            steps,
            threads,
            backend: Backend::Cpu,
            json,
        } => cmd_bench(scene, steps, threads, json),
    }
}

fn cmd_run(
    path: PathBuf,
    out: Option<PathBuf>,
    threads: Option<usize>,
    resume: Option<PathBuf>,
    stop_after: Option<u64>,
) -> ExitCode {
    let scene = match Scene::load(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let opts = RunOptions {
        out: resume
            .clone()
            .or(out)
            .unwrap_or_else(|| PathBuf::from("results").join(&scene.name)),
        threads,
        resume: resume.is_some(),
        progress: true,
        stop_after,
    };
    match run(&scene, &opts) {
        Ok(s) => {
            println!(
                "{}: {} bodies, {} steps ({:.3} s simulated) in {:.1} s wall ({:.0} steps/s, {:.3e} body-steps/s, {} threads)",
                s.scene, s.bodies, s.steps, s.simulated_time_s, s.wall_seconds, s.steps_per_s, s.body_steps_per_s, s.threads
            );
            println!(
                "  mean contacts {:.1}, mean sweeps {:.1}; end state: max overlap {:.4} r, bed z95 {:.2} r, {} escaped, {} non-finite",
                s.contacts_mean, s.iterations_mean, s.quality.max_pen_r, s.quality.bed_z95_r, s.quality.escaped, s.quality.non_finite
            );
            for (k, v) in &s.observables_final {
                println!("  {k} = {v:.6}");
            }
            for (k, t) in &s.top_reached_s {
                match s.top_reached_shakes.get(k) {
                    Some(n) => println!(
                        "  {k} first reached the top (≥ 1) at t = {t:.3} s = {n:.1} shakes"
                    ),
                    None => println!("  {k} first reached the top (≥ 1) at t = {t:.3} s"),
                }
            }
            if s.stopped_early {
                println!(
                    "  stopped early at step {}; continue with: grains run {} --resume {}",
                    s.steps,
                    path.display(),
                    opts.out.display()
                );
            } else {
                println!(
                    "  results in {} (open grains.pvd in ParaView; summary.json, observables.csv, images/)",
                    opts.out.display()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn cmd_validate(ids: Vec<String>, json: bool, dir: PathBuf, threads: Option<usize>) -> ExitCode {
    let ids: Vec<String> = if ids.is_empty() {
        IDS.iter().map(|s| s.to_string()).collect()
    } else {
        ids
    };
    let mut results = Vec::new();
    for id in &ids {
        match run_case(id, &dir, threads) {
            Some(r) => {
                if !json {
                    let status = match &r.status {
                        Status::Pass => "PASS".to_string(),
                        Status::Fail => "FAIL".to_string(),
                        Status::Todo(m) => format!("TODO (needs {m})"),
                    };
                    println!(
                        "{:<4} expected: {} | measured: {} | {status}",
                        r.id, r.expected, r.measured
                    );
                    for line in &r.details {
                        println!("     {line}");
                    }
                }
                results.push(r);
            }
            None => {
                eprintln!("error: unknown case `{id}` (known: {})", IDS.join(", "));
                return ExitCode::FAILURE;
            }
        }
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&results).unwrap_or_default()
        );
    }
    if results.iter().any(|r| r.status == Status::Fail) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn cmd_bench(path: PathBuf, steps: Option<u64>, threads: Option<usize>, json: bool) -> ExitCode {
    let scene = match Scene::load(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut world = match scene.world(threads) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let steps = steps.unwrap_or_else(|| scene.total_steps());
    let (mut iters, mut contacts) = (0u64, 0u64);
    let start = Instant::now();
    for _ in 0..steps {
        let s = world.step();
        iters += s.iterations as u64;
        contacts += s.contacts as u64;
    }
    let seconds = start.elapsed().as_secs_f64();
    let q = Quality::measure(&world, scene.bounds.as_ref());
    let t = world.stage_times();
    let n = world.len();
    let v = serde_json::json!({
        "engine": "grains",
        "backend": "cpu",
        "scene": scene.name,
        "threads": world.settings().threads,
        "N": n,
        "steps": steps,
        // h is f32: print it as written (0.002), not as its f64 widening.
        "dt": scene.settings.h.to_string().parse::<f64>().unwrap_or(scene.settings.h as f64),
        "seconds": seconds,
        "body_steps_per_s": n as f64 * steps as f64 / seconds,
        "iterations_mean": iters as f64 / steps.max(1) as f64,
        "contacts_mean": contacts as f64 / steps.max(1) as f64,
        "max_pen_r": q.max_pen_r,
        "mean_pen_r": q.mean_pen_r,
        "wall_max_pen_r": q.wall_max_pen_r,
        "bed_z95_r": q.bed_z95_r,
        "ke_mean_J": q.ke_mean_j,
        "escaped": q.escaped,
        "non_finite": q.non_finite,
        "stage_seconds": {
            "forces": t.forces, "broad": t.broad, "narrow": t.narrow, "prepare": t.prepare,
            "solve": t.solve, "integrate": t.integrate, "observe": t.observe,
        },
    });
    if json {
        println!("{v}");
    } else {
        println!(
            "scene {} ({}), backend cpu, {} threads",
            scene.name,
            path.display(),
            world.settings().threads
        );
        println!(
            "  bodies {n}, steps {steps} (h = {} s), {seconds:.3} s, {:.4e} body-steps/s",
            scene.settings.h,
            n as f64 * steps as f64 / seconds
        );
        println!(
            "  mean active contacts {:.1}, mean sweeps {:.2}",
            contacts as f64 / steps.max(1) as f64,
            iters as f64 / steps.max(1) as f64
        );
        println!("  end state: max pen {:.4} r, mean pen {:.4} r, wall max pen {:.4} r, bed z95 {:.2} r, KE/body {:.3e} J, escaped {}, non-finite {}", q.max_pen_r, q.mean_pen_r, q.wall_max_pen_r, q.bed_z95_r, q.ke_mean_j, q.escaped, q.non_finite);
        println!("  stage seconds: forces {:.3}, broad {:.3}, narrow {:.3}, prepare {:.3}, solve {:.3}, integrate {:.3}, observe {:.3}", t.forces, t.broad, t.narrow, t.prepare, t.solve, t.integrate, t.observe);
    }
    ExitCode::SUCCESS
}
