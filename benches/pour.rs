//! Criterion benchmark `pour`: the scene of `docs/benchmark.md` at N = 1,000, 8,000 and 27,000,
//! 2 threads, h = 2 ms, 500 steps. Throughput is in body-steps (elements); after each size the
//! end-state quality figures of docs/benchmark.md are printed.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use grains::Settings;
use grains_app::output::Quality;
use grains_app::pour::{bounds, PourScene};
use std::time::{Duration, Instant};

const STEPS: u64 = 500;

fn pour(c: &mut Criterion) {
    let mut group = c.benchmark_group("pour");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for n in [1_000usize, 8_000, 27_000] {
        let scene = PourScene::new(n);
        let settings = Settings {
            threads: 2,
            ..Settings::granular(2e-3)
        };
        let mut last = None;
        group.throughput(Throughput::Elements(n as u64 * STEPS));
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut world = scene.world(settings).expect("pour scene is valid");
                    let start = Instant::now();
                    let mut iterations = 0u64;
                    for _ in 0..STEPS {
                        iterations += world
                            .step()
                            .expect("the pour steps without a health fault")
                            .iterations as u64;
                    }
                    total += start.elapsed();
                    last = Some((
                        Quality::measure(&world, Some(&bounds(&scene))),
                        iterations as f64 / STEPS as f64,
                    ));
                }
                total
            })
        });
        if let Some((q, it)) = last {
            println!(
                "pour N={n}: iterations/step {it:.1}, max pen {:.4} r, mean pen {:.4} r, wall pen {:.4} r, bed z95 {:.2} r, KE/grain {:.2e} J, escaped {}, non-finite {}",
                q.max_pen_r, q.mean_pen_r, q.wall_max_pen_r, q.bed_z95_r, q.ke_mean_j, q.escaped, q.non_finite
            );
        }
    }
    group.finish();
}

criterion_group!(benches, pour);
criterion_main!(benches);
