//! A build of the library without its `gpu` feature (`default-features = false`) refuses the GPU
//! backend when the world is built, with an error that says why, and runs on the CPU as usual.
//! `.ci/run` runs this file with `--no-default-features`; with the feature on it would check
//! nothing more than the other tests do, so there it compiles empty (as `cli/tests/launcher.rs`
//! does with mpi) and the workspace's test build neither compiles its code nor links the engine
//! into it.
#![cfg(not(feature = "gpu"))]

use grains::{Backend, Body, BuildError, Material, Settings, Solver, Vec3, WallDesc, World};

fn sphere_on_a_floor(backend: Backend) -> Result<World, BuildError> {
    let mut b = World::builder(Settings {
        backend,
        solver: Solver::Jacobi {
            sweeps: 30,
            tolerance: 0.0,
            omega: 0.3,
        },
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.1), 0.05, 1.0));
    b.build()
}

#[test]
fn without_the_gpu_feature_the_gpu_backend_is_refused_at_build() {
    match sphere_on_a_floor(Backend::Gpu) {
        Err(BuildError::Gpu(why)) => assert!(why.contains("`gpu` feature"), "{why}"),
        Err(e) => panic!("expected the missing feature to be named, got {e}"),
        Ok(_) => panic!("a build without the gpu feature opened a GPU world"),
    }
}

#[test]
fn the_cpu_backend_runs_in_any_build() {
    let mut w = sphere_on_a_floor(Backend::Cpu).unwrap();
    w.run(500).unwrap();
    assert!((w.position(0).z - 0.05).abs() < 1e-3, "{}", w.position(0));
}
