//! `grains`: the command-line program of the granular engine — run a scene headless, check the
//! validation cases, benchmark a scene.

use clap::{Parser, Subcommand};
use grains::{Settings, SolverKind, Stage};
use grains_app::convergence::{convergence_study, StudyOptions};
use grains_app::output::progress::STATUS_EVERY;
use grains_app::output::{Quality, Rest};
use grains_app::runner::{run_distributed, RunOptions};
use grains_app::scene::{Scene, MAX_THREADS};
use grains_validation::case::Registered;
use grains_validation::cases::find;
use grains_validation::cases::CASES;
use grains_validation::report::{full_lines, markdown, short_line, total_line};
use grains_validation::{scenes_dir, Setup, Status};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[cfg(feature = "mpi")]
mod distributed;
mod interrupt;
mod launcher;

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

/// The projected iteration of the CPU backend, named as in scene files' `solver` key.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Solver {
    /// Coloured projected Gauss–Seidel.
    #[value(name = "gauss_seidel", alias = "gauss-seidel")]
    GaussSeidel,
    /// Projected Jacobi.
    Jacobi,
    /// Accelerated projected gradient (Nesterov's momentum on the Jacobi step, with restart).
    Apgd,
}

impl From<Solver> for SolverKind {
    fn from(s: Solver) -> Self {
        match s {
            Solver::GaussSeidel => SolverKind::GaussSeidel,
            Solver::Jacobi => SolverKind::Jacobi,
            Solver::Apgd => SolverKind::Apgd,
        }
    }
}

/// The computing backend.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Backend {
    /// CPU threads (rayon); results are bit-identical for any thread count.
    Cpu,
    /// A GPU, or Mesa's software Vulkan device, through wgpu: projected Jacobi or APGD, with the
    /// scene's ω and exactly max_iterations sweeps per solve, one solve per step plus one per
    /// Coulomb-correction pass; a scene asking for Gauss–Seidel or a tolerance above 0 is
    /// refused.
    Gpu,
}

impl From<Backend> for grains::Backend {
    fn from(b: Backend) -> Self {
        match b {
            Backend::Cpu => grains::Backend::Cpu,
            Backend::Gpu => grains::Backend::Gpu,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Runs a scene for its duration, writing ParaView frames, a CSV of the observables, PNG
    /// snapshots and plots, checkpoints and summary.json into the output folder.
    Run(RunArgs),
    /// Runs the validation cases of the source papers and prints one line per case (id, title,
    /// key figure, PASS / FAIL) and the total `validate: N passed, M failed`. The exit status is
    /// non-zero if any case fails.
    Validate {
        /// Case ids to run (e.g. V5 V9); all when none are given.
        ids: Vec<String>,
        /// Print each case in full: expected, everything measured, and its table.
        #[arg(long, conflicts_with_all = ["json", "markdown"])]
        verbose: bool,
        /// Print the results as the Markdown page docs/validation.md.
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
        /// Print the results as one JSON array.
        #[arg(long)]
        json: bool,
        /// Folder with the validation scene files [default: this source tree's scenes/].
        #[arg(long)]
        scenes: Option<PathBuf>,
        /// Worker threads, 1 to 1024.
        #[arg(long, value_parser = threads, allow_negative_numbers = true)]
        threads: Option<usize>,
        /// Computing backend [default: each scene's `backend`, else cpu].
        #[arg(long, value_enum)]
        backend: Option<Backend>,
        /// Solver of every case that runs the engine's CCP, in place of the case's own (each
        /// keeps its sweeps, tolerance and ω); V2's Coulomb-correction check still runs all three
        /// by name; the GPU backend runs APGD when asked, else projected Jacobi [default: each
        /// case's own, Gauss–Seidel in all of them].
        #[arg(long, value_enum)]
        solver: Option<Solver>,
    },
    /// Steps a scene without writing output and prints the backend (and GPU adapter), bodies,
    /// steps, seconds, ms/step, body-steps/s, mean contacts, mean iterations, the end-state
    /// quality figures of the pour benchmark (docs/benchmark.md) and the time spent in each stage of the step (GPU: from its
    /// timestamps, where the adapter has them).
    Bench {
        /// The scene file.
        scene: PathBuf,
        #[command(flatten)]
        opts: BenchOptions,
    },
    /// Prints what combines with what: the pairs of features the engine refuses together and
    /// why, which shapes meet which, and which shapes meet which walls.
    Support {
        /// Print the table as the Markdown page docs/support.md (the only layout).
        #[arg(long, required = true)]
        markdown: bool,
    },
}

/// Parses `--threads`: a whole number from 1 to [`MAX_THREADS`], the bound of a scene's
/// `threads`.
fn threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!(
            "must be a whole number from 1 to {MAX_THREADS} (the most worker threads)"
        )),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Without the feature every rank would run the whole scene, all writing one folder.
    #[cfg(not(feature = "mpi"))]
    if let Some(ranks) = launcher::launched_ranks().filter(|&k| k > 1) {
        eprintln!(
            "error: started by mpirun as one of {ranks} processes, but this grains was built \
             without MPI, so each would run the whole scene alone: build it with \
             `cargo build --release -p grains-cli --features mpi` (docs/distributed.md), or \
             start it without mpirun"
        );
        return ExitCode::FAILURE;
    }
    match cli.command {
        Command::Run(args) => cmd_run(args),
        Command::Validate {
            ids,
            verbose,
            markdown,
            json,
            scenes,
            threads,
            backend,
            solver,
        } => {
            // The cases are single-process worlds: under mpirun each rank would run them all.
            #[cfg(feature = "mpi")]
            if launcher::launched_by_mpi() {
                eprintln!("error: `grains validate` runs in one process; start it without mpirun");
                return ExitCode::FAILURE;
            }
            let layout = if json {
                Layout::Json
            } else if markdown {
                Layout::Markdown
            } else if verbose {
                Layout::Verbose
            } else {
                Layout::Short
            };
            let setup = Setup {
                scenes: scenes.unwrap_or_else(scenes_dir),
                threads,
                backend: backend.map(Into::into),
                solver: solver.map(Into::into),
            };
            cmd_validate(&ids, layout, &setup)
        }
        Command::Bench { scene, opts } => cmd_bench(scene, opts),
        Command::Support { markdown: _ } => {
            print!("{}", grains::support::markdown());
            ExitCode::SUCCESS
        }
    }
}

/// The line that says how the GPU backend solves, for the settings `s`.
fn gpu_note(s: &Settings) -> String {
    let jacobi = s.solver.kind() == SolverKind::Jacobi;
    let caution = if jacobi && s.solver.omega() > 0.4 {
        "; ω above about 0.4 can make Jacobi diverge on dense piles: set `omega` in [settings]"
    } else {
        ""
    };
    let corrected = match s.coulomb_correction {
        0 => String::new(),
        1 => ", then a Coulomb-correction pass of as many sweeps".into(),
        k => format!(", then {k} Coulomb-correction passes of as many sweeps each"),
    };
    format!(
        "GPU backend: {}, ω = {}, exactly {} sweeps per step{corrected} (tolerance 0), state read back every {} steps and whenever output needs it{caution}",
        if jacobi { "projected Jacobi" } else { "APGD (ω its starting step)" },
        s.solver.omega(), s.solver.sweeps(), s.sync_every
    )
}

/// `message` on one line: control characters (newlines, escapes) of user-supplied text in it
/// (scene paths, the output folder's name, values quoted from a file) written as escapes
/// (`\n`, `\u{1b}`), so that an error is the one line the run's contract promises.
fn one_line(message: &dyn std::fmt::Display) -> String {
    let mut out = String::new();
    for c in message.to_string().chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The error line of rank `rank` of `size` under mpirun: rank 0's as in one process, another
/// rank's naming it.
#[cfg(feature = "mpi")]
fn rank_error(rank: usize, size: usize, e: &dyn std::fmt::Display) -> String {
    match rank {
        0 => format!("error: {}", one_line(e)),
        r => format!("error (rank {r} of {size}): {}", one_line(e)),
    }
}

fn cmd_run(args: RunArgs) -> ExitCode {
    let RunArgs {
        scene: path,
        out,
        threads,
        backend,
        resume,
        steps,
        until,
        stop_after,
        status_every,
    } = args;
    let mut scene = match Scene::load(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            return ExitCode::FAILURE;
        }
    };
    if let Some(n) = steps {
        if let Err(why) = scene.run_for_steps(n) {
            eprintln!("error: --steps {n}: {}", one_line(&why));
            return ExitCode::FAILURE;
        }
    }
    if let Some(t) = until {
        if let Err(why) = scene.run_until(t) {
            eprintln!("error: --until {t:?}: {}", one_line(&why));
            return ExitCode::FAILURE;
        }
    }
    if let Some(b) = backend {
        scene.settings_mut().backend = b.into();
    }
    // How the GPU will solve, said before the run; a solver it cannot run is refused when the
    // world is built, with the key to change, so nothing is said of it here.
    let s = scene.settings();
    if s.backend == grains::Backend::Gpu
        && matches!(s.solver.kind(), SolverKind::Jacobi | SolverKind::Apgd)
        && s.solver.tolerance() == 0.0
    {
        println!("{}", gpu_note(s));
    }
    #[cfg(feature = "mpi")]
    let job = match distributed::start_or_say() {
        Ok(job) => job,
        Err(code) => return code,
    };
    #[cfg(feature = "mpi")]
    if let Some(j) = &job {
        j.warn_if_bound(threads.unwrap_or(scene.settings().threads));
    }
    #[cfg(feature = "mpi")]
    let (distribute, leader) = (
        job.as_ref().map(distributed::Job::distribute),
        job.as_ref().is_none_or(|j| j.rank == 0),
    );
    #[cfg(not(feature = "mpi"))]
    let (distribute, leader) = (None, true);
    let opts = RunOptions {
        out: resume
            .clone()
            .or(out)
            .unwrap_or_else(|| PathBuf::from("results").join(&scene.name)),
        threads,
        backend: None,
        resume: resume.is_some(),
        progress: leader,
        status_every: status_every.map_or(STATUS_EVERY, Duration::from_secs_f64),
        stop_after,
        // Ctrl-C stops a run on one process; the ranks of a distributed run would have to
        // agree on the step to stop at, so there mpirun's signal ends the job.
        interrupt: distribute
            .is_none()
            .then_some(interrupt::asked as fn() -> bool),
    };
    if distribute.is_none() {
        interrupt::install();
    }
    let result = run_distributed(scene, &opts, distribute);
    // A failed step fails on every rank alike (the ranks agree on a step), so rank 0 says it
    // and each ends; so does a failed setup or write of the outputs, which the ranks agree
    // on, said by the rank that failed. Any other error (a rank's GPU failing mid-run) is
    // one rank's alone, met while the others step: that rank ends the whole job lest the
    // others wait for it.
    #[cfg(feature = "mpi")]
    if let (Err(e), Some(j)) = (&result, &job) {
        use grains_app::runner::RunError;
        match e {
            RunError::Health { .. } => {}
            RunError::OnRank { rank, error } => {
                if let Some(e) = error {
                    eprintln!("{}", rank_error(*rank, j.size, e));
                }
                return ExitCode::FAILURE;
            }
            _ => {
                eprintln!("{}", rank_error(j.rank, j.size, e));
                j.abort(1);
            }
        }
    }
    if !leader {
        return match result {
            Ok(_) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        };
    }
    #[cfg(feature = "mpi")]
    if let Some(j) = &job {
        println!("distributed run: {} MPI ranks", j.size);
    }
    match result {
        Ok(s) => {
            let on = grains_app::runner::backend_phrase(s.adapter.as_deref(), s.threads);
            let on = match s.sessions {
                0 | 1 => on,
                n => format!("{on}; stepping time of all {n} sessions"),
            };
            println!(
                "{}: {} bodies, {} steps ({:.3} s simulated) in {:.1} s wall ({:.0} steps/s, {:.3e} body-steps/s, {on})",
                s.scene, s.bodies, s.steps, s.simulated_time_s, s.wall_seconds, s.steps_per_s, s.body_steps_per_s
            );
            println!(
                "  mean contacts {:.1}, mean sweeps {:.1}; end state: max overlap {:.4} r, bed z95 {:.2} r, {} escaped, {} discharged, {} non-finite",
                s.contacts_mean, s.iterations_mean, s.quality.max_pen_r, s.quality.bed_z95_r, s.quality.escaped, s.quality.discharged, s.quality.non_finite
            );
            if let Some(z) = &s.step_sizes {
                println!(
                    "  adaptive step: {} steps, h min {:.3e} s, mean {:.3e} s, max {:.3e} s ({} at the floor h_min); deepest overlap {:.4} r (budget {} r)",
                    z.steps, z.h_min_s, z.h_mean_s, z.h_max_s, z.floored, z.max_overlap_r, z.budget_r
                );
            }
            for (k, v) in &s.observables_final {
                match s.observables_mean_second_half.get(k) {
                    Some(m) => println!("  {k} = {v:.6} (mean over the second half {m:.6})"),
                    None => println!("  {k} = {v:.6}"),
                }
            }
            if s.grains_inserted + s.grains_missed + s.grains_removed > 0 {
                println!(
                    "  grains: {} inserted ({:.4} kg), {} missed (no place found), {} removed by sinks ({:.4} kg)",
                    s.grains_inserted, s.grains_inserted_kg, s.grains_missed, s.grains_removed, s.grains_removed_kg
                );
            }
            if s.bonds_broken > 0 {
                println!("  bonds broken: {}", s.bonds_broken);
            }
            if let Some(t) = &s.traffic {
                let kb = |b: f64| b / 1e3;
                println!(
                    "  sent a step by a rank (mean, most of {} ranks): {:.1}, {:.1} kB in exchanges and {:.2}, {:.2} kB into collectives, holding {:.0}, {:.0} ghosts and owning {:.0} bodies on average; the largest exchange to one rank {:.1} kB, contribution {:.1} kB",
                    t.ranks,
                    kb(t.exchanged_bytes_per_step[0]),
                    kb(t.exchanged_bytes_per_step[1]),
                    kb(t.collective_bytes_per_step[0]),
                    kb(t.collective_bytes_per_step[1]),
                    t.ghosts_per_step[0],
                    t.ghosts_per_step[1],
                    t.bodies_per_rank,
                    kb(t.largest_exchange_bytes),
                    kb(t.largest_contribution_bytes)
                );
            }
            if s.grains_missed > 0 {
                eprintln!(
                    "warning: {} of the {} grains due from the [[insert]] tables found no place in their regions (a region the bed has grown into, or a rate too high for it): lower the rate, or enlarge or raise the region",
                    s.grains_missed,
                    s.grains_inserted + s.grains_missed
                );
            }
            for (k, t) in &s.top_reached_s {
                match s.top_reached_shakes.get(k) {
                    Some(n) => println!(
                        "  {k} first reached the top (≥ 1) at t = {t:.3} s = {n:.1} shakes"
                    ),
                    None => println!("  {k} first reached the top (≥ 1) at t = {t:.3} s"),
                }
            }
            let resume = format!(
                "grains run {} --resume {}",
                path.display(),
                opts.out.display()
            );
            match (s.stopped_early, interrupt::signal()) {
                (true, Some(signal)) => {
                    eprintln!(
                        "interrupted by {} at step {}: the checkpoint and the outputs up to it are written; continue with: {resume}",
                        interrupt::name(signal),
                        s.steps,
                    );
                    return ExitCode::from(128 + signal as u8);
                }
                (true, None) => {
                    println!(
                        "  stopped early at step {}; continue with: {resume}",
                        s.steps
                    )
                }
                (false, _) => println!(
                    "  results in {} (open grains.pvd in ParaView; summary.json, observables.csv, images/)",
                    opts.out.display()
                ),
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// How `grains validate` prints its results.
#[derive(Clone, Copy)]
enum Layout {
    /// One line per case and the total.
    Short,
    /// Each case in full and the total.
    Verbose,
    /// The Markdown page of docs/validation.md.
    Markdown,
    /// One JSON array (the total on stderr).
    Json,
}

/// Runs the cases `ids` (all when empty) in `setup` and prints them in `layout`.
fn cmd_validate(ids: &[String], layout: Layout, setup: &Setup) -> ExitCode {
    let cases: Vec<&dyn Registered> = if ids.is_empty() {
        CASES.to_vec()
    } else {
        match ids
            .iter()
            .map(|id| find(id).ok_or(id))
            .collect::<Result<_, _>>()
        {
            Ok(cases) => cases,
            Err(id) => {
                let known: Vec<&str> = CASES.iter().map(|c| c.about().id).collect();
                eprintln!("error: unknown case `{id}` (known: {})", known.join(", "));
                return ExitCode::FAILURE;
            }
        }
    };
    if matches!(setup.backend, Some(grains::Backend::Gpu)) {
        let solver = if setup.solver == Some(SolverKind::Apgd) {
            "APGD"
        } else {
            "projected Jacobi"
        };
        eprintln!("GPU backend: each case runs with {solver} at tolerance 0, with its scene's ω and exactly its max_iterations sweeps (the validation scenes are set up for Gauss–Seidel with ω = 1, which Jacobi may not survive on stacks and piles)");
    }
    let mut results = Vec::new();
    for case in cases {
        let r = case.evaluate(setup);
        match layout {
            Layout::Short => println!("{}", short_line(&r)),
            Layout::Verbose => full_lines(&r).iter().for_each(|l| println!("{l}")),
            Layout::Markdown | Layout::Json => {}
        }
        results.push(r);
    }
    match layout {
        Layout::Short | Layout::Verbose => println!("{}", total_line(&results)),
        Layout::Markdown => print!("{}", markdown(&results)),
        Layout::Json => {
            println!(
                "{}",
                serde_json::to_string_pretty(&results).unwrap_or_default()
            );
            eprintln!("{}", total_line(&results));
        }
    }
    if results.iter().any(|r| r.status == Status::Fail) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Arguments of `grains run`.
#[derive(clap::Args)]
struct RunArgs {
    /// The scene file (TOML, see scenes/README.md).
    scene: PathBuf,
    /// Output folder; must not exist or be empty [default: results/<scene name>].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads, 1 to 1024 (overrides the scene's `threads`).
    #[arg(long, value_parser = threads, allow_negative_numbers = true)]
    threads: Option<usize>,
    /// Computing backend [default: the scene's `backend`, else cpu].
    #[arg(long, value_enum)]
    backend: Option<Backend>,
    /// Continue a cut-short run from the checkpoint in this folder (written by an earlier
    /// `grains run` of the same scene file); the result is bit-identical to an uninterrupted run.
    /// A run ended early by --steps or --until continues to the scene's duration.
    #[arg(long, conflicts_with = "out")]
    resume: Option<PathBuf>,
    /// Run this many steps in all instead of the scene's duration / h, for a quick trial (the
    /// folder is a complete run of that length; --resume without it continues to the duration).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "until")]
    steps: Option<u64>,
    /// Run until this simulated time (s) instead of the scene's duration.
    #[arg(long, value_parser = positive_time)]
    until: Option<f64>,
    /// Stop after this many steps in total, as if the run had been killed (for testing resume).
    #[arg(long, hide = true)]
    stop_after: Option<u64>,
    /// Most seconds between two status lines when stderr is not a terminal [default: 30] (for
    /// testing the status lines).
    #[arg(long, hide = true, value_parser = positive_time)]
    status_every: Option<f64>,
}

/// A time for `--until` (simulated) or `--status-every` (wall): positive and finite seconds.
fn positive_time(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 => Ok(t),
        _ => Err("must be a positive number of seconds".into()),
    }
}

/// Options of `grains bench`.
#[derive(clap::Args)]
struct BenchOptions {
    /// Steps to take [default: the scene's duration / h].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    steps: Option<u64>,
    /// Worker threads, 1 to 1024 [default: the scene's].
    #[arg(long, value_parser = threads, allow_negative_numbers = true)]
    threads: Option<usize>,
    /// Computing backend [default: the scene's `backend`, else cpu].
    #[arg(long, value_enum)]
    backend: Option<Backend>,
    /// Solver sweeps per step (overrides the scene's `max_iterations`; the GPU runs exactly
    /// this many per solve).
    #[arg(long)]
    iterations: Option<u32>,
    /// GPU: steps between read-backs of the state (overrides the scene's `sync_every`).
    #[arg(long)]
    sync_every: Option<u32>,
    /// Solver (overrides the scene's `solver`; the GPU runs Jacobi and APGD).
    #[arg(long, value_enum)]
    solver: Option<Solver>,
    /// Residual (m/s) at which a solve stops (overrides the scene's `tolerance`; the GPU
    /// needs 0).
    #[arg(long)]
    tolerance: Option<f32>,
    /// Relaxation ω (overrides the scene's `omega`; Jacobi needs at most about 0.4 on piles).
    #[arg(long)]
    omega: Option<f32>,
    /// After the timed steps, this many more: how still the bed stays (median and largest
    /// displacement per own radius, mean kinetic energy at their end; JSON key `rest`).
    #[arg(long, value_name = "STEPS", value_parser = clap::value_parser!(u64).range(1..))]
    rest_steps: Option<u64>,
    /// Rigid contact: set the scene's `contact_frequency` to infinity.
    #[arg(long)]
    rigid: bool,
    /// Instead of timing the run: the solvers' convergence study (docs/solvers.md), written
    /// into this folder (convergence.csv, convergence.md, two PNG plots). The scene settles as
    /// written (on the CPU); `--iterations` caps each curve's sweeps [default 5000],
    /// `--tolerance` is the target [default 1e-5 m/s], `--threads` applies; the other options
    /// are refused with it.
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with_all = ["backend", "solver", "omega", "sync_every", "steps", "rigid", "rest_steps", "json"]
    )]
    convergence: Option<PathBuf>,
    /// Print one JSON object with the keys docs/benchmark.md lists, plus
    /// `adapter` (the GPU's name; null on the CPU) and `ms_per_step`.
    #[arg(long)]
    json: bool,
}

/// `grains bench SCENE --convergence DIR`: runs the study, writes its files, prints its table.
fn convergence(scene: &Scene, dir: &Path, opts: &BenchOptions) -> ExitCode {
    let options = StudyOptions {
        threads: opts.threads,
        max_sweeps: opts.iterations.unwrap_or(5000),
        target: opts.tolerance.unwrap_or(1e-5),
    };
    if !(options.target > 0.0 && options.target.is_finite()) {
        eprintln!("error: --tolerance: the study's target must be a positive residual (m/s)");
        return ExitCode::FAILURE;
    }
    // The folder is made first, so that a bad path fails before minutes of solving.
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: making {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let study = convergence_study(scene, options, &mut |phase| {
        eprintln!("convergence: {phase}")
    });
    let study = match study {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = study.write(dir) {
        eprintln!("error: writing the study into {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    print!("{}", study.table());
    println!(
        "\nwritten: {}/convergence.{{csv,md}}, convergence_sweeps.png, convergence_time.png",
        dir.display()
    );
    ExitCode::SUCCESS
}

/// The statistics summed over the steps whose figures are fresh (every step on the CPU, the steps
/// read back on the GPU): sweeps, contacts, residuals, and the solve's contact-sweeps with the
/// bytes the layout of each step says they moved (`World::sweep_traffic`).
struct StepTally {
    bodies: f64,
    iterations: u64,
    contacts: u64,
    contact_sweeps: f64,
    bytes: f64,
    residuals: f64,
    counted: u64,
}

/// The bench's figures of the counted steps.
struct StepFigures {
    /// Sweeps per step.
    iterations_mean: f64,
    /// Active contacts per step.
    contacts_mean: f64,
    /// Contact-sweeps per second of the whole step's wall time.
    contact_sweeps_per_s: f64,
    /// Bytes per contact-sweep, from the layout.
    bytes_per_contact_sweep: f64,
    /// Those bytes over the solve stage's time (GB/s), where the stage is timed.
    solve_gb_per_s: Option<f64>,
    /// The residual averaged over the counted steps (m/s).
    residual_mean: f64,
}

impl StepTally {
    fn new(world: &grains::World) -> Self {
        StepTally {
            bodies: world.len() as f64,
            iterations: 0,
            contacts: 0,
            contact_sweeps: 0.0,
            bytes: 0.0,
            residuals: 0.0,
            counted: 0,
        }
    }

    /// Adds one step's statistics, its solve laid out as `traffic` counts.
    fn add(&mut self, s: &grains::StepStats, traffic: grains::SweepTraffic) {
        self.iterations += s.iterations as u64;
        self.contacts += s.contacts as u64;
        let (sweeps, contacts) = (s.iterations as f64, s.contacts as f64);
        self.contact_sweeps += sweeps * contacts;
        self.bytes += sweeps * contacts * traffic.per_contact_sweep(contacts, self.bodies);
        self.residuals += s.residual as f64;
        self.counted += 1;
    }

    /// The figures for `steps` steps in `seconds`, the counted steps standing for all of them,
    /// with `solve_seconds` the solve stage's time over all steps.
    fn figures(&self, steps: u64, seconds: f64, solve_seconds: Option<f64>) -> StepFigures {
        let counted = self.counted.max(1) as f64;
        let scale = steps as f64 / counted;
        StepFigures {
            iterations_mean: self.iterations as f64 / counted,
            contacts_mean: self.contacts as f64 / counted,
            contact_sweeps_per_s: self.contact_sweeps * scale / seconds,
            bytes_per_contact_sweep: self.bytes / self.contact_sweeps.max(1.0),
            solve_gb_per_s: solve_seconds
                .filter(|&t| t > 0.0)
                .map(|t| self.bytes * scale / t / 1e9),
            residual_mean: self.residuals / counted,
        }
    }
}

fn cmd_bench(path: PathBuf, opts: BenchOptions) -> ExitCode {
    let mut scene = match Scene::load(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The study settles the scene as written; its own options are the sweep cap and target.
    if let Some(dir) = &opts.convergence {
        #[cfg(feature = "mpi")]
        if launcher::launched_by_mpi() {
            eprintln!("error: --convergence runs in one process; start it without mpirun");
            return ExitCode::FAILURE;
        }
        return convergence(&scene, dir, &opts);
    }
    let st = scene.settings_mut();
    if let Some(b) = opts.backend {
        st.backend = b.into();
    }
    if let Some(n) = opts.iterations {
        st.solver = st.solver.with_sweeps(n);
    }
    if let Some(n) = opts.sync_every {
        st.sync_every = n;
    }
    if let Some(s) = opts.solver {
        st.solver = st.solver.with_kind(s.into());
    }
    if let Some(t) = opts.tolerance {
        st.solver = st.solver.with_tolerance(t);
    }
    if let Some(w) = opts.omega {
        st.solver = st.solver.with_omega(w);
    }
    if opts.rigid {
        st.contact_frequency = f32::INFINITY;
    }
    let mut world = match scene.world(opts.threads) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Under mpirun: every rank steps its share; rank 0 prints (its own stage times, the
    // gathered end state), an error on any rank ends them all.
    #[cfg(feature = "mpi")]
    let job = match distributed::start_or_say() {
        Ok(job) => job,
        Err(code) => return code,
    };
    #[cfg(feature = "mpi")]
    if let Some(j) = &job {
        j.warn_if_bound(world.settings().threads);
        // The ranks agree on a refusal before stepping (one rank may be refused alone: a GPU
        // it cannot open); the lowest refused rank says why.
        let split = distributed::split(&mut world);
        if let Some(first) = distributed::first_failed(split.is_err()) {
            if let (true, Err(e)) = (first == j.rank, &split) {
                eprintln!("{}", rank_error(first, j.size, e));
            }
            return ExitCode::FAILURE;
        }
    }
    // Every failure below is a step's, which every rank meets alike: rank 0 says it.
    #[cfg(feature = "mpi")]
    let fail = |e: String| -> ExitCode {
        if job.as_ref().is_none_or(|j| j.rank == 0) {
            eprintln!("error: {e}");
        }
        ExitCode::FAILURE
    };
    #[cfg(not(feature = "mpi"))]
    let fail = |e: String| -> ExitCode {
        eprintln!("error: {e}");
        ExitCode::FAILURE
    };
    let planned = opts.steps.unwrap_or_else(|| scene.total_steps());
    // Ctrl-C or SIGTERM stops a bench in one process after the step in progress, with the
    // figures of the steps taken; the ranks of a distributed bench would have to agree on the
    // step to stop at, so there mpirun's signal ends the job.
    #[cfg(feature = "mpi")]
    let (alone, leader) = (job.is_none(), job.as_ref().is_none_or(|j| j.rank == 0));
    #[cfg(not(feature = "mpi"))]
    let (alone, leader) = (true, true);
    if alone {
        interrupt::install();
    }
    if leader && !opts.json {
        println!(
            "bench: {}, {} bodies, {planned} steps{}",
            scene.name,
            world.len(),
            match alone {
                true => "; Ctrl-C stops after the step in progress and prints the figures so far",
                false => "",
            }
        );
    }
    let mut tally = StepTally::new(&world);
    let start = Instant::now();
    let mut steps = 0;
    while steps < planned {
        match world.step() {
            Ok(s) if world.stats_at() == world.steps() => tally.add(&s, world.sweep_traffic()),
            Ok(_) => {}
            Err(grains::StepError::Gpu(e)) => {
                return fail(format!("GPU backend failed at step {}: {e}", world.steps()));
            }
            Err(e) => return fail(e.to_string()),
        }
        steps += 1;
        if interrupt::asked() {
            break;
        }
    }
    let interrupted = interrupt::signal();
    // The time includes reading the end state back (GPU), so that every step has completed;
    // that read-back gives the last step's figures too.
    let last_counted = world.stats_at() == world.steps();
    if let Err(e) = world.sync() {
        eprintln!("error: GPU backend failed at step {}: {e}", world.steps());
        return ExitCode::FAILURE;
    }
    if !last_counted {
        tally.add(&world.last_stats(), world.sweep_traffic());
    }
    let seconds = start.elapsed().as_secs_f64();
    let q = Quality::measure_boxes(&world, &scene.boxes);
    let n = world.len();
    let settings = *world.settings();
    let backend = settings.backend.name();
    let solver = settings.solver.kind().name();
    let ms_per_step = 1e3 * seconds / steps.max(1) as f64;
    let stages = world.stage_times();
    let residual = world.last_stats().residual;
    let counted = tally.counted;
    let figures = tally.figures(steps, seconds, stages.map(|t| t.seconds(Stage::Solve)));
    let rest = match (opts.rest_steps.filter(|_| interrupted.is_none()))
        .map(|k| Rest::measure(&mut world, k))
        .transpose()
    {
        Ok(r) => r,
        Err(e) => return fail(format!("in the rest steps after the timed run: {e}")),
    };
    #[cfg(feature = "mpi")]
    if job.as_ref().is_some_and(|j| j.rank != 0) {
        return ExitCode::SUCCESS;
    }
    #[cfg(feature = "mpi")]
    let ranks = job.as_ref().map_or(1, |j| j.size);
    #[cfg(not(feature = "mpi"))]
    let ranks = 1;
    let v = serde_json::json!({
        "engine": "grains",
        "ranks": ranks,
        "backend": backend,
        "adapter": world.adapter_name(),
        "scene": scene.name,
        "threads": settings.threads,
        "N": n,
        "steps": steps,
        // h is f32: print it as written (0.002), not as its f64 widening.
        "dt": scene.settings().h.to_string().parse::<f64>().unwrap_or(scene.settings().h as f64),
        "solver": solver,
        "max_iterations": settings.solver.sweeps(),
        "sync_every": (backend == "gpu").then_some(settings.sync_every),
        "seconds": seconds,
        "ms_per_step": ms_per_step,
        "body_steps_per_s": n as f64 * steps as f64 / seconds,
        "iterations_mean": figures.iterations_mean,
        "residual": residual,
        "residual_mean": figures.residual_mean,
        "contact_sweeps_per_s": figures.contact_sweeps_per_s,
        "bytes_per_contact_sweep": figures.bytes_per_contact_sweep,
        "solve_gb_per_s": figures.solve_gb_per_s,
        "contacts_mean": figures.contacts_mean,
        "stats_steps": counted,
        "max_pen_r": q.max_pen_r,
        "mean_pen_r": q.mean_pen_r,
        "wall_max_pen_r": q.wall_max_pen_r,
        "bed_z95_r": q.bed_z95_r,
        "ke_mean_J": q.ke_mean_j,
        "escaped": q.escaped,
        "discharged": q.discharged,
        "non_finite": q.non_finite,
        "rest": rest,
        "barrier_waits_per_step": stages.map(|t| t.barrier_waits as f64 / steps.max(1) as f64),
        "stage_seconds": stages.map(|t| Stage::ALL
            .iter()
            .map(|&s| (s.name().to_string(), serde_json::json!(t.seconds(s))))
            .collect::<serde_json::Map<_, _>>()),
    });
    if opts.json {
        println!("{v}");
    } else {
        match world.adapter_name() {
            Some(a) => {
                println!(
                    "scene {} ({}), backend gpu, adapter {a}",
                    scene.name,
                    path.display()
                );
                println!("  {}", gpu_note(&settings));
            }
            None => println!(
                "scene {} ({}), backend cpu, {} threads{}",
                scene.name,
                path.display(),
                settings.threads,
                match ranks {
                    1 => String::new(),
                    k => format!(" on each of {k} MPI ranks (stage seconds: rank 0's)"),
                }
            ),
        }
        println!(
            "  bodies {n}, steps {steps} (h = {} s), {seconds:.3} s, {ms_per_step:.3} ms/step, {:.4e} body-steps/s",
            scene.settings().h,
            n as f64 * steps as f64 / seconds
        );
        println!(
            "  mean active contacts {:.1}, mean sweeps {:.2} (over {counted} steps), last residual {residual:.2e} m/s (mean {:.2e})",
            figures.contacts_mean,
            figures.iterations_mean,
            figures.residual_mean
        );
        println!(
            "  solve: {:.4e} contact-sweeps/s, {:.0} bytes per contact-sweep (from the layout), {}",
            figures.contact_sweeps_per_s,
            figures.bytes_per_contact_sweep,
            match figures.solve_gb_per_s {
                Some(g) => format!("{g:.1} GB/s achieved in the solve stage"),
                None => "no stage times for the solve's bandwidth".to_string(),
            }
        );
        println!("  end state: max pen {:.4} r, mean pen {:.4} r, wall max pen {:.4} r, bed z95 {:.2} r, KE/body {:.3e} J, escaped {}, discharged {}, non-finite {}", q.max_pen_r, q.mean_pen_r, q.wall_max_pen_r, q.bed_z95_r, q.ke_mean_j, q.escaped, q.discharged, q.non_finite);
        if let Some(r) = rest {
            println!(
                "  rest: over {} more steps median displacement {:.2e} r, largest {:.2e} r, then KE/body {:.3e} J",
                r.steps, r.median_disp_r, r.max_disp_r, r.ke_mean_j
            );
        }
        match stages {
            Some(t) => {
                let each: Vec<String> = Stage::ALL
                    .iter()
                    .map(|&s| format!("{} {:.3}", s.name(), t.seconds(s)))
                    .collect();
                println!("  stage seconds: {}", each.join(", "));
                if t.barrier_waits > 0 {
                    println!(
                        "  solve: {:.1} barrier waits per step (Gauss-Seidel colour classes and sweeps)",
                        t.barrier_waits as f64 / steps.max(1) as f64
                    );
                }
            }
            None => println!(
                "  device seconds (submission to completion, all stages): {:.3}",
                world.step_seconds()
            ),
        }
    }
    match interrupted {
        Some(signal) => {
            eprintln!(
                "interrupted by {} after {steps} of {planned} steps: the figures are of those steps{}",
                interrupt::name(signal),
                match opts.rest_steps {
                    Some(_) => " (the rest steps were not taken)",
                    None => "",
                }
            );
            ExitCode::from(128 + signal as u8)
        }
        None => ExitCode::SUCCESS,
    }
}
