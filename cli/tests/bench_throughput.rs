//! `grains bench --json`'s throughput figures: contact-sweeps per second, bytes per
//! contact-sweep from the solver's layout, and the solve's achieved bandwidth, consistent with
//! one another and with the layout's count for each solver; and its split of the step time
//! into stages, consistent with the step time.

use grains::{SolverKind, Stage, SweepTraffic};
use grains_app::scene::Scene;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The layout's count for `solver` on the CPU, from a world of the benchmark's scene after a
/// step (whose rows, spheres against spheres and walls, Gauss–Seidel gets as compact packs).
fn cpu_sweep_traffic(solver: SolverKind) -> SweepTraffic {
    let mut scene = Scene::load(scene_path()).unwrap();
    let st = scene.settings_mut();
    st.solver = st.solver.with_kind(solver);
    let mut world = scene.world(Some(1)).unwrap();
    world.step().unwrap();
    world.sweep_traffic()
}

fn scene_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/pour_1k.toml")
}

/// Runs `grains bench pour_1k --json` for 30 steps with `solver` (ω = 0.3 for the Jacobi
/// iterations, which diverge at the scene's ω = 1) and returns its JSON.
fn bench(solver: SolverKind) -> serde_json::Value {
    let scene = scene_path();
    let omega = if solver == SolverKind::GaussSeidel {
        "1"
    } else {
        "0.3"
    };
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args(["bench", scene.to_str().unwrap(), "--steps", "30", "--json"])
        .args(["--solver", solver.name(), "--omega", omega])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn number(v: &serde_json::Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

#[test]
fn throughput_figures_agree_with_the_layout_and_each_other() {
    for solver in SolverKind::ALL {
        let v = bench(solver);
        let traffic = cpu_sweep_traffic(solver);
        let bytes = number(&v, "bytes_per_contact_sweep");
        let (n, contacts) = (number(&v, "N"), number(&v, "contacts_mean"));
        // The per-body bytes spread over each step's contacts: between none of them and their
        // share at the step with the fewest contacts (at least a third of the mean here).
        assert!(bytes >= traffic.per_contact as f64, "{solver:?}: {bytes}");
        let most = traffic.per_contact_sweep(contacts / 3.0, n);
        assert!(bytes <= most, "{solver:?}: {bytes} > {most}");
        if traffic.per_body == 0 {
            assert_eq!(bytes, traffic.per_contact as f64, "{solver:?}");
        }
        // Contact-sweeps per second times the run's seconds is the work; the bandwidth is its
        // bytes over the solve stage's seconds (both from the same sums, so to rounding).
        let work = number(&v, "contact_sweeps_per_s") * number(&v, "seconds");
        let lower = 0.5 * contacts * number(&v, "iterations_mean") * number(&v, "steps");
        assert!(
            work >= lower,
            "{solver:?}: {work} contact-sweeps, expected about {lower}"
        );
        // The mean residual lies between zero and the largest a step can report; the last
        // step's is one of the averaged ones.
        let mean = number(&v, "residual_mean");
        assert!(mean > 0.0 && mean.is_finite(), "{solver:?}: {mean}");
        let solve = number(&v["stage_seconds"], "solve");
        let gb = number(&v, "solve_gb_per_s");
        let expected = bytes * work / solve / 1e9;
        assert!(
            (gb - expected).abs() <= 1e-9 * expected,
            "{solver:?}: {gb} GB/s, expected {expected}"
        );
    }
}

/// The split of the step time into stages (`stage_seconds` of `grains bench`, from
/// `World::stage_times`) agrees with the step time: in the bench's JSON every stage of
/// `Stage::ALL` is there, finite and non-negative, and the stages sum to no more than the
/// timed `seconds`; step by step (60 steps of the pour once its grains touch), each stage's
/// time grows by a non-negative amount, the stages' growth is at most the step's wall time,
/// and at least 90 % of it at the 90th percentile of the steps (the rest: the health check,
/// the lifecycle and the hand-off to the worker pool, tens of µs a step outside the stages).
/// A percentile, not every step, since on a busy machine a step's hand-off may wait a
/// scheduler tick for a core, outside every stage (in most steps, with the tests running
/// side by side on two cores): that only lowers some steps' shares, while a stage left
/// untimed lowers every step's.
#[test]
fn stage_seconds_sum_to_the_step_time() {
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args(["bench", scene_path().to_str().unwrap()])
        .args(["--steps", "30", "--threads", "1", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let seconds = number(&v, "seconds");
    let stages = v["stage_seconds"].as_object().expect("stage_seconds");
    assert_eq!(stages.len(), Stage::ALL.len(), "{stages:?}");
    let mut sum = 0.0;
    for s in Stage::ALL {
        let t = number(&v["stage_seconds"], s.name());
        assert!(t.is_finite() && t >= 0.0, "{}: {t} s", s.name());
        sum += t;
    }
    assert!(
        sum <= seconds,
        "stages {sum} s > step time {seconds} s: {stages:?}"
    );

    let mut world = Scene::load(scene_path()).unwrap().world(Some(1)).unwrap();
    world.run(100).unwrap();
    let mut shares = Vec::new();
    for step in 1..=60 {
        let before = world.stage_times().expect("CPU stage times");
        let clock = Instant::now();
        world.step().unwrap();
        let wall = clock.elapsed().as_secs_f64();
        let after = world.stage_times().expect("CPU stage times");
        for s in Stage::ALL {
            let grew = after.seconds(s) - before.seconds(s);
            assert!(grew >= 0.0, "step {step}: {} grew by {grew} s", s.name());
        }
        let grew = after.total() - before.total();
        assert!(
            grew <= wall * (1.0 + 1e-9),
            "step {step}: stages {grew} s > wall {wall} s"
        );
        shares.push(grew / wall);
    }
    shares.sort_by(f64::total_cmp);
    let p90 = shares[shares.len() * 9 / 10];
    assert!(
        p90 >= 0.9,
        "the stages hold {:.1} % of the 90th percentile step's wall time: {shares:?}",
        100.0 * p90
    );
}
