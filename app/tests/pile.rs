//! A settled pile of 1,000 spheres stays at rest, and both solvers converge on it.

use glam::Vec3;
use grains::{Settings, Snapshot, SolverKind, World};
use grains_app::output::Quality;
use grains_app::pour::{PourScene, RADIUS};
use std::sync::OnceLock;

/// The pour scene of 1,000 spheres after 2 s (1,000 steps of 2 ms) with the granular settings.
/// The pour is stepped once per test binary: the tests restore its snapshot into a freshly
/// built world, which continues bit-identically (tests/conservation.rs checks that).
fn settled_pile() -> (World, PourScene) {
    static SETTLED: OnceLock<Snapshot> = OnceLock::new();
    let scene = PourScene::new(1000);
    let settings = Settings {
        threads: 2,
        ..Settings::granular(2e-3)
    };
    let mut w = scene.world(settings).unwrap();
    let snapshot = SETTLED.get_or_init(|| {
        let mut pour = scene.world(settings).unwrap();
        pour.run(1000).unwrap();
        pour.snapshot().unwrap()
    });
    w.restore(snapshot).unwrap();
    assert_eq!(w.steps(), 1000);
    (w, scene)
}

fn mean_height(w: &World) -> f64 {
    (0..w.len()).map(|i| w.position(i).z as f64).sum::<f64>() / w.len() as f64
}

#[test]
fn settled_pile_stays_at_rest_for_2000_steps() {
    let (mut w, scene) = settled_pile();
    // Resting: each step solved to 1e-5 m/s (the 30 sweeps of the benchmark, cut off before
    // convergence, let the bed creep by slow compaction).
    let settings = Settings {
        solver: w.settings().solver.with_sweeps(1000).with_tolerance(1e-5),
        ..*w.settings()
    };
    w.set_settings(settings).unwrap();
    // Let the compliant contacts take the converged solve's compression before measuring.
    w.run(100).unwrap();
    let start: Vec<Vec3> = (0..w.len()).map(|i| w.position(i)).collect();
    let z0 = mean_height(&w);
    let mut max_pen: f64 = 0.0;
    let mut sweeps = 0u64;
    for k in 0..2000 {
        sweeps += w.step().unwrap().iterations as u64;
        if k % 50 == 0 {
            max_pen = max_pen
                .max(Quality::measure(&w, Some(&grains_app::pour::bounds(&scene))).max_pen_r);
        }
    }
    let mut drift: Vec<f32> = (0..w.len())
        .map(|i| (w.position(i) - start[i]).length() / RADIUS)
        .collect();
    drift.sort_by(f32::total_cmp);
    let q = Quality::measure(&w, Some(&grains_app::pour::bounds(&scene)));
    let sink = (z0 - mean_height(&w)) / RADIUS as f64;
    println!(
        "over 2000 steps ({:.0} sweeps a step) / r: mean height change {sink:.5}, displacement median {:.5}, 99th percentile {:.5}, max {:.5}; max penetration {max_pen:.4} r; KE/grain {:.2e} J",
        sweeps as f64 / 2000.0, drift[500], drift[990], drift[999], q.ke_mean_j
    );
    assert!(
        sink.abs() <= 0.005,
        "the bed's mean height changed by {sink} r"
    );
    assert!(drift[500] <= 0.005, "median grain moved {} r", drift[500]);
    // A few grains still creep: rattlers rolling on the floor (no rolling resistance in this
    // model) and loosely held grains of the top surface. They must stay a small minority.
    let movers = drift.iter().filter(|&&d| d > 0.05).count();
    assert!(
        movers <= 50,
        "{movers} of 1000 grains moved more than 0.05 r"
    );
    assert!(
        max_pen <= 0.02,
        "max penetration {max_pen} r exceeds the 0.02 r bound"
    );
    assert!(
        q.ke_mean_j <= 1e-9,
        "bed not at rest: {} J per grain",
        q.ke_mean_j
    );
    assert_eq!((q.escaped, q.non_finite), (0, 0));
}

#[test]
fn the_three_solvers_converge_on_the_pile_and_apgd_fastest() {
    let tol = 1e-5;
    let mut sweeps = Vec::new();
    for (solver, omega) in [
        (SolverKind::GaussSeidel, 1.0),
        (SolverKind::Jacobi, 0.3),
        (SolverKind::Apgd, 0.3),
    ] {
        let (mut w, _) = settled_pile();
        let base = *w.settings();
        w.set_settings(Settings {
            solver: base
                .solver
                .with_kind(solver)
                .with_omega(omega)
                .with_sweeps(5000)
                .with_tolerance(tol),
            ..base
        })
        .unwrap();
        let s = w.step().unwrap();
        println!(
            "{solver:?} (ω = {omega}): {} sweeps to residual {:.2e} m/s on {} contacts",
            s.iterations, s.residual, s.contacts
        );
        assert!(
            s.residual <= tol,
            "{solver:?} stopped at residual {} after {} sweeps",
            s.residual,
            s.iterations
        );
        assert!(s.iterations < 5000);
        sweeps.push(s.iterations);
    }
    // Nesterov's acceleration: sweeps to a tolerance grow like the square root of the plain
    // iteration's; on this pile APGD must at least halve Gauss–Seidel's and Jacobi's.
    let (gauss_seidel, jacobi, apgd) = (sweeps[0], sweeps[1], sweeps[2]);
    assert!(
        2 * apgd <= gauss_seidel && 2 * apgd <= jacobi,
        "APGD {apgd} sweeps, Gauss–Seidel {gauss_seidel}, Jacobi {jacobi}"
    );
}
