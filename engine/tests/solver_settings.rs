//! The solver setting carries its knobs; each is checked, and a backend that cannot honour the
//! solver asked for refuses it at build (and in `set_settings`) rather than running another.

use grains::{Backend, Body, BuildError, Material, Settings, Solver, SolverKind, Vec3, World};

/// A one-sphere world with `settings`.
fn build(settings: Settings) -> Result<World, BuildError> {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::ZERO, 0.1, 1.0));
    b.build()
}

/// The field and message of a settings error.
fn settings_error(r: Result<World, BuildError>) -> (&'static str, String) {
    match r {
        Err(e @ BuildError::Settings { field, .. }) => (field, e.to_string()),
        Err(e) => panic!("expected a settings error, got {e}"),
        Ok(_) => panic!("expected a settings error, got a world"),
    }
}

/// A world on the GPU with `settings` (Jacobi at tolerance 0), or None, said, where this machine
/// has no GPU backend.
fn gpu_world(settings: Settings) -> Option<World> {
    match build(settings) {
        Ok(w) => Some(w),
        Err(BuildError::NoGpuAdapter(why)) => {
            eprintln!("skipped: no GPU adapter ({why})");
            None
        }
        Err(BuildError::Gpu(why)) => {
            eprintln!("skipped: no GPU backend ({why})");
            None
        }
        Err(e) => panic!("the GPU refused Jacobi at tolerance 0: {e}"),
    }
}

fn jacobi(tolerance: f32) -> Solver {
    Solver::Jacobi {
        sweeps: 50,
        tolerance,
        omega: 0.3,
    }
}

#[test]
fn defaults_are_unchanged() {
    assert_eq!(
        Settings::default().solver,
        Solver::GaussSeidel {
            sweeps: 100,
            tolerance: 1e-6,
            omega: 1.0
        }
    );
    assert_eq!(
        Settings::granular(2e-3).solver,
        Solver::GaussSeidel {
            sweeps: 30,
            tolerance: 1e-4,
            omega: 1.0
        }
    );
}

#[test]
fn each_knob_is_checked() {
    let base = Settings::default().solver;
    for (solver, field) in [
        (base.with_sweeps(0), "sweeps"),
        (base.with_tolerance(-1.0), "tolerance"),
        (base.with_tolerance(f32::NAN), "tolerance"),
        (base.with_omega(0.0), "omega"),
        (base.with_omega(2.0), "omega"),
        (jacobi(0.0).with_omega(f32::NAN), "omega"),
    ] {
        let r = build(Settings {
            solver,
            ..Settings::default()
        });
        assert_eq!(settings_error(r).0, field, "{solver:?}");
    }
}

/// The settings error of a GPU world built with `solver`.
fn gpu_settings_error(solver: Solver) -> (&'static str, String) {
    settings_error(build(Settings {
        backend: Backend::Gpu,
        solver,
        ..Settings::default()
    }))
}

#[test]
fn the_gpu_refuses_gauss_seidel() {
    let (field, msg) = gpu_settings_error(Settings::default().solver);
    assert_eq!(field, "solver");
    assert!(
        msg.contains("projected Jacobi or APGD only") && msg.contains("set solver = \"jacobi\""),
        "{msg}"
    );
}

#[test]
fn the_gpu_refuses_a_jacobi_tolerance() {
    let (field, msg) = gpu_settings_error(jacobi(1e-6));
    assert_eq!(field, "tolerance");
    assert!(
        msg.contains("exactly `sweeps` sweeps") && msg.contains("set tolerance = 0"),
        "{msg}"
    );
}

fn apgd(tolerance: f32) -> Solver {
    jacobi(tolerance).with_kind(SolverKind::Apgd)
}

/// The GPU runs APGD with exactly its sweeps: a tolerance is refused as for Jacobi, and a GPU
/// world switches from Jacobi to APGD between steps (its momentum's buffers made then).
#[test]
fn the_gpu_runs_apgd_at_tolerance_0_only() {
    let (field, msg) = gpu_settings_error(apgd(1e-6));
    assert_eq!(field, "tolerance");
    assert!(msg.contains("set tolerance = 0"), "{msg}");
    let gpu = Settings {
        backend: Backend::Gpu,
        solver: jacobi(0.0),
        ..Settings::default()
    };
    let Some(mut w) = gpu_world(gpu) else {
        return;
    };
    w.run(3).unwrap();
    w.set_settings(Settings {
        solver: apgd(0.0),
        ..gpu
    })
    .unwrap();
    let stats = w.run(3).unwrap();
    assert_eq!(w.settings().solver, apgd(0.0));
    assert_eq!(stats.iterations, 50);
}

#[test]
fn set_settings_refuses_what_the_backend_cannot_do() {
    let gpu = Settings {
        backend: Backend::Gpu,
        solver: jacobi(0.0),
        ..Settings::default()
    };
    let Some(mut w) = gpu_world(gpu) else {
        return;
    };
    let refused = w.set_settings(Settings {
        solver: jacobi(1e-4),
        ..gpu
    });
    assert!(
        matches!(
            refused,
            Err(BuildError::Settings {
                field: "tolerance",
                ..
            })
        ),
        "{refused:?}"
    );
    let refused = w.set_settings(Settings::default());
    assert!(
        matches!(
            refused,
            Err(BuildError::Settings {
                field: "solver",
                ..
            })
        ),
        "{refused:?}"
    );
    assert_eq!(
        w.settings().solver,
        jacobi(0.0),
        "a refused setting was kept"
    );
    w.set_settings(Settings {
        solver: jacobi(0.0).with_sweeps(20),
        ..gpu
    })
    .unwrap();
    assert_eq!(w.settings().solver.sweeps(), 20);
}

#[test]
fn set_settings_checks_the_knobs_and_keeps_the_backend() {
    let mut w = build(Settings::default()).unwrap();
    let bad = Settings {
        solver: Settings::default().solver.with_sweeps(0),
        ..Settings::default()
    };
    assert!(matches!(
        w.set_settings(bad),
        Err(BuildError::Settings {
            field: "sweeps",
            ..
        })
    ));
    // The backend stays as built: a CPU world keeps Gauss–Seidel even when handed Backend::Gpu.
    w.set_settings(Settings {
        backend: Backend::Gpu,
        ..Settings::default()
    })
    .unwrap();
    assert_eq!(w.backend(), Backend::Cpu);
}
