//! `grains bench --json`'s throughput figures: contact-sweeps per second, bytes per
//! contact-sweep from the solver's layout, and the solve's achieved bandwidth, consistent with
//! one another and with the layout's count for each solver.

use grains::{SolverKind, SweepTraffic};
use grains_app::scene::Scene;
use std::path::Path;
use std::process::Command;

/// The layout's count for `solver` on the CPU, from a world of the benchmark's scene.
fn cpu_sweep_traffic(solver: SolverKind) -> SweepTraffic {
    let mut scene = Scene::load(scene_path()).unwrap();
    let st = scene.settings_mut();
    st.solver = st.solver.with_kind(solver);
    scene.world(Some(1)).unwrap().sweep_traffic()
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
