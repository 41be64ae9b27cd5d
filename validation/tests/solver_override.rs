//! The solver override of `grains validate --solver`, [`Setup::solver`]: it reaches the world of
//! every way a case builds one (a scene file as it stands, a variant of one, a world built in
//! code) with the case's own sweeps, tolerance and ω; the GPU backend keeps its projected
//! Jacobi; and cheap cases pass under APGD with figures that show APGD solved them.

use grains::{Backend, Solver, SolverKind, World};
use grains_validation::cases::bar::v3_world;
use grains_validation::cases::ellipse::v4_world;
use grains_validation::cases::links::{v13_world, v14_world, Link};
use grains_validation::cases::restitution::v15_world;
use grains_validation::cases::stacks::cannonball;
use grains_validation::{run_case, Setup, Status};

fn with_solver(kind: SolverKind) -> Setup {
    Setup {
        solver: Some(kind),
        ..Setup::default()
    }
}

/// `overridden` is `own` with its iteration replaced by `kind`: the same sweeps, tolerance and ω.
fn assert_overridden(what: &str, own: Solver, overridden: Solver, kind: SolverKind) {
    assert_eq!(overridden.kind(), kind, "{what}: {overridden:?}");
    assert_eq!(overridden, own.with_kind(kind), "{what}: knobs changed");
}

#[test]
fn every_way_a_case_builds_its_world_takes_the_solver_override() {
    let own = Setup::default();
    let kind = SolverKind::Apgd;
    let apgd = with_solver(kind);
    let solver = |w: &World| w.settings().solver;
    // A scene file as it stands (V5, V8 … V12).
    let scene = |s: &Setup| s.scene("v5_cannonball").unwrap().settings().solver;
    assert_eq!(scene(&own).kind(), SolverKind::GaussSeidel);
    assert_overridden("Setup::scene", scene(&own), scene(&apgd), kind);
    let (w, _) = apgd.scene_run("v11_rolling_disk").unwrap();
    assert_eq!(solver(&w).kind(), kind, "Setup::scene_run");
    // Variants of a scene file (V6, V13, V14, V15, the repose study).
    let (w_own, _) = v15_world(&own, 0.5).unwrap();
    let (w, _) = v15_world(&apgd, 0.5).unwrap();
    assert_overridden("v15_world", solver(&w_own), solver(&w), kind);
    let (w_own, _) = v13_world(&own, Link::Joint).unwrap();
    let (w, _) = v13_world(&apgd, Link::Joint).unwrap();
    assert_overridden("v13_world", solver(&w_own), solver(&w), kind);
    let w_own = v14_world(&own, "v14_chain", None, true).unwrap();
    let w = v14_world(&apgd, "v14_chain", None, true).unwrap();
    assert_overridden("v14_world", solver(&w_own), solver(&w), kind);
    // Worlds built in code (V3, V4).
    let w_own = v3_world(&own, 0.01, 0.5, -1.0, 0.0).unwrap();
    let w = v3_world(&apgd, 0.01, 0.5, -1.0, 0.0).unwrap();
    assert_eq!(solver(&w_own).kind(), SolverKind::GaussSeidel);
    assert_overridden("v3_world", solver(&w_own), solver(&w), kind);
    let w_own = v4_world(&own, true).unwrap();
    let w = v4_world(&apgd, true).unwrap();
    assert_overridden("v4_world", solver(&w_own), solver(&w), kind);
    // The other named iteration reaches them too.
    let jacobi = with_solver(SolverKind::Jacobi);
    assert_overridden(
        "v4_world (Jacobi)",
        solver(&w_own),
        solver(&v4_world(&jacobi, true).unwrap()),
        SolverKind::Jacobi,
    );
}

/// The GPU has Jacobi and APGD: an APGD override runs APGD there, any other runs Jacobi; both
/// at tolerance 0 (the GPU runs exactly its sweeps).
#[test]
fn on_the_gpu_backend_the_cases_run_apgd_when_asked_else_projected_jacobi() {
    for (asked, runs) in [
        (Some(SolverKind::Apgd), SolverKind::Apgd),
        (Some(SolverKind::GaussSeidel), SolverKind::Jacobi),
        (None, SolverKind::Jacobi),
    ] {
        let gpu = Setup {
            backend: Some(Backend::Gpu),
            solver: asked,
            ..Setup::default()
        };
        let s = gpu.scene("v8_spinning_sphere").unwrap();
        assert_eq!(s.settings().backend, Backend::Gpu);
        assert_eq!(s.settings().solver.kind(), runs, "{asked:?}");
        assert_eq!(s.settings().solver.tolerance(), 0.0);
    }
}

/// V3 (the Painlevé bar, built in code), V5 (the 21-disk cannonball, a scene file) and V15
/// (restitution, variants of a scene file) pass under APGD, and APGD is what solved them: V5's
/// collapse with APGD takes other sweeps per step than with Gauss–Seidel (the two iterations
/// stop at the tolerance after different numbers of sweeps), and the V3 and V5 figures
/// `grains validate` prints differ from Gauss–Seidel's.
#[test]
fn cheap_cases_pass_under_apgd_and_apgd_is_what_solved_them() {
    let apgd = with_solver(SolverKind::Apgd);
    let own = Setup::default();
    for id in ["V3", "V5", "V15"] {
        let r = run_case(id, &apgd).expect("a registered case");
        println!("{id} with APGD: {}", r.measured);
        assert_eq!(r.status, Status::Pass, "{id} with APGD: {}", r.measured);
        if id != "V15" {
            let gs = run_case(id, &own).expect("a registered case");
            assert_ne!(
                r.measured, gs.measured,
                "{id}: the same figures with APGD as with Gauss–Seidel"
            );
        }
    }
    let collapse = |s: &Setup| {
        let (w, steps) = s.scene_run("v5_cannonball").unwrap();
        assert_eq!(
            w.settings().solver.kind(),
            s.solver_kind(SolverKind::GaussSeidel)
        );
        cannonball(w, steps).unwrap()
    };
    let (with_apgd, with_gs) = (collapse(&apgd), collapse(&own));
    println!(
        "V5 mean sweeps: APGD {:.2}, Gauss–Seidel {:.2}",
        with_apgd.mean_sweeps, with_gs.mean_sweeps
    );
    assert_ne!(with_apgd.mean_sweeps, with_gs.mean_sweeps);
}
