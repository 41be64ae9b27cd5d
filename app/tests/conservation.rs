//! Free flight conserves momentum exactly; collisions conserve it to rounding; results are
//! bit-identical for any thread count.

use glam::Vec3;
use grains::{Body, Check, Health, Material, Settings, SolverKind, World};
use grains_app::pour::PourScene;

/// A 10³ lattice of spheres at `spacing` with random velocities; at spacing 0.3 neighbours start
/// overlapping by up to 0.6 r (a test of momentum, not of the start), so the overlap check is off.
fn cloud(threads: usize, gravity: Vec3, spacing: f32) -> World {
    let mut b = World::builder(Settings {
        gravity,
        threads,
        h: 1e-3,
        health: Health {
            penetration: Check::Off,
            ..Health::default()
        },
        ..Settings::default()
    });
    b.material(Material::new(0.3));
    let mut k = 0u32;
    for i in 0..10 {
        for j in 0..10 {
            for l in 0..10 {
                k = k.wrapping_mul(1664525).wrapping_add(1013904223);
                let v = Vec3::new(
                    (k >> 8) as f32 / 1.6e7 - 0.5,
                    ((k >> 4) % 1000) as f32 / 1000.0 - 0.5,
                    (k % 777) as f32 / 777.0 - 0.5,
                );
                let p = Vec3::new(i as f32, j as f32, l as f32) * spacing;
                b.body(
                    Body::sphere(p, 0.1 + 0.02 * (k % 5) as f32, 1.0 + (k % 3) as f32)
                        .with_velocity(v),
                );
            }
        }
    }
    b.build().unwrap()
}

#[test]
fn free_flight_keeps_every_velocity_and_the_momentum_exactly() {
    let mut w = cloud(2, Vec3::ZERO, 1.0);
    let v0: Vec<Vec3> = (0..w.len()).map(|i| w.velocity(i)).collect();
    let p0 = w.momentum();
    for _ in 0..100 {
        let s = w.step().unwrap();
        assert_eq!(s.contacts, 0, "the cloud is sparse: no contact expected");
    }
    assert_eq!(w.momentum(), p0);
    for (i, v) in v0.iter().enumerate() {
        assert_eq!(w.velocity(i), *v);
    }
}

#[test]
fn collisions_conserve_momentum_to_rounding() {
    let mut w = cloud(2, Vec3::ZERO, 0.3);
    let p0 = w.momentum();
    let mut contacts = 0;
    for _ in 0..300 {
        contacts += w.step().unwrap().contacts;
    }
    assert!(
        contacts > 100,
        "the dense cloud must collide, saw {contacts} contacts"
    );
    let p1 = w.momentum();
    let scale: f64 = (0..w.len())
        .map(|i| w.mass(i) as f64 * w.velocity(i).length() as f64)
        .sum();
    for k in 0..3 {
        assert!(
            (p1[k] - p0[k]).abs() <= 1e-5 * scale,
            "axis {k}: {} → {} (scale {scale})",
            p0[k],
            p1[k]
        );
    }
}

/// The pour of 3,000 grains after 120 steps (0.24 s: the lattice has landed, in thousands of
/// contacts) with `solver` on `threads` threads: every body's bytes, and the step's contacts.
fn pour_state(threads: usize, solver: SolverKind) -> (Vec<u8>, usize) {
    let scene = PourScene::new(3000);
    let mut settings = Settings::granular(2e-3);
    settings.threads = threads;
    settings.solver = settings.solver.with_kind(solver);
    if solver != SolverKind::GaussSeidel {
        settings.solver = settings.solver.with_omega(0.3);
    }
    let mut w = scene.world(settings).unwrap();
    w.run(120).unwrap();
    let b = w.bodies();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(bytemuck::cast_slice(&b.pos_radius));
    bytes.extend_from_slice(bytemuck::cast_slice(&b.orientation));
    bytes.extend_from_slice(bytemuck::cast_slice(&b.motion));
    (bytes, w.last_stats().contacts)
}

/// The pour after 120 steps with `solver` on 1, 2 and 4 threads: the same bytes. The bodies
/// span three work blocks of `grains_kernels::parallel::BLOCK` and the contacts more than
/// four, so that 4 threads each take a share of the contacts. (It stepped 5,000 grains 200
/// steps before; a difference in any step's bits carries on to the end state either way.)
fn bit_identical_on_1_2_and_4_threads(solver: SolverKind) {
    let (one, contacts) = pour_state(1, solver);
    println!("{solver:?}: {contacts} contacts at step 120");
    assert!(contacts > 4 * grains_kernels::parallel::BLOCK);
    assert_eq!(one, pour_state(2, solver).0, "2 threads differ from 1");
    assert_eq!(one, pour_state(4, solver).0, "4 threads differ from 1");
}

#[test]
fn gauss_seidel_is_bit_identical_on_1_2_and_4_threads() {
    bit_identical_on_1_2_and_4_threads(SolverKind::GaussSeidel);
}

#[test]
fn jacobi_is_bit_identical_on_1_2_and_4_threads() {
    bit_identical_on_1_2_and_4_threads(SolverKind::Jacobi);
}

/// APGD's restart and step sums are taken over fixed blocks in order: the same bits too.
#[test]
fn apgd_is_bit_identical_on_1_2_and_4_threads() {
    bit_identical_on_1_2_and_4_threads(SolverKind::Apgd);
}

#[test]
fn a_restored_snapshot_continues_bit_identically() {
    let scene = PourScene::new(2000);
    let settings = Settings {
        threads: 2,
        ..Settings::granular(2e-3)
    };
    let mut straight = scene.world(settings).unwrap();
    straight.run(150).unwrap();
    let mut first = scene.world(settings).unwrap();
    first.run(60).unwrap();
    let bytes = first.snapshot().unwrap().to_bytes();
    let mut resumed = scene.world(settings).unwrap();
    resumed
        .restore(&grains::Snapshot::from_bytes(&bytes).unwrap())
        .unwrap();
    resumed.run(90).unwrap();
    assert_eq!(resumed.steps(), 150);
    assert_eq!(
        resumed.bodies(),
        straight.bodies(),
        "resumed run differs from the uninterrupted one"
    );
    assert!(grains::Snapshot::from_bytes(&bytes[..bytes.len() - 3]).is_err());
}
