//! `grains`: the command-line program of the granular engine.

use clap::{Parser, Subcommand};
use grains::pour::{PourQuality, PourScene};
use grains::Settings;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "grains",
    version,
    about = "Granular matter by CCP time stepping"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Steps the `pour` benchmark scene of POUR.md and prints its figures as JSON.
    Pour {
        /// Number of grains.
        #[arg(long, default_value_t = 1000)]
        n: usize,
        /// Steps of h = 2 ms.
        #[arg(long, default_value_t = 500)]
        steps: u64,
        /// Worker threads.
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Pour { n, steps, threads } => {
            let scene = PourScene::new(n);
            let settings = Settings {
                threads,
                ..Settings::granular(2e-3)
            };
            let mut world = match scene.world(settings) {
                Ok(w) => w,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let (mut iters, mut contacts) = (0u64, 0u64);
            let start = Instant::now();
            for _ in 0..steps {
                let s = world.step();
                iters += s.iterations as u64;
                contacts += s.contacts as u64;
            }
            let seconds = start.elapsed().as_secs_f64();
            let q = PourQuality::measure(&world, &scene);
            let t = world.stage_times();
            println!(
                "{{\"engine\": \"grains\", \"backend\": \"cpu\", \"threads\": {threads}, \"N\": {n}, \"steps\": {steps}, \"dt\": 0.002, \"seconds\": {seconds:.3}, \"body_steps_per_s\": {:.4e}, \"iterations_mean\": {:.2}, \"contacts_mean\": {:.1}, \"max_pen_r\": {:.4}, \"mean_pen_r\": {:.4}, \"wall_max_pen_r\": {:.4}, \"bed_z95_r\": {:.2}, \"ke_mean_J\": {:.3e}, \"escaped\": {}, \"non_finite\": {}, \"stage_seconds\": {{\"forces\": {:.3}, \"broad\": {:.3}, \"narrow\": {:.3}, \"prepare\": {:.3}, \"solve\": {:.3}, \"integrate\": {:.3}, \"observe\": {:.3}}}}}",
                n as f64 * steps as f64 / seconds,
                iters as f64 / steps as f64,
                contacts as f64 / steps as f64,
                q.max_pen_r, q.mean_pen_r, q.wall_max_pen_r, q.bed_z95_r, q.ke_mean_j, q.escaped, q.non_finite,
                t.forces, t.broad, t.narrow, t.prepare, t.solve, t.integrate, t.observe,
            );
            ExitCode::SUCCESS
        }
    }
}
