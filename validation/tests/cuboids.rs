//! Cubes (cuboids with equal half-extents): resting on a face on the floor and on each other,
//! against spheres, and the typed refusals.

use glam::{Quat, Vec3};
use grains::{Backend, Body, BuildError, Material, Settings, Shape, Touching, WallDesc, World};

const G: f32 = 9.81;

fn floor_world(settings: Settings, bodies: &[Body]) -> Result<World, BuildError> {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for &body in bodies {
        b.body(body);
    }
    b.build()
}

/// Rigid contacts, converged tightly, so that a resting body's contact forces are its weight.
fn tight() -> Settings {
    Settings {
        solver: grains::Solver::GaussSeidel {
            sweeps: 500,
            tolerance: 1e-9,
            omega: 1.0,
        },
        ..Settings::default()
    }
}

/// A cube dropped tilted about two axes lands on an edge or a corner, tips over and comes to rest
/// flat on a face: at its half-edge above the floor (to 1e-4 of it), level (every face normal
/// along a world axis to 1e-4), still, held at its four lower corners, whose normal forces add
/// up to its weight m g to 1e-4 (statics of a body on a plane; friction carries nothing at
/// rest on a level floor, so the tangential forces vanish to the same tolerance).
#[test]
fn a_tilted_cube_dropped_on_the_floor_comes_to_rest_flat_on_a_face() {
    let (half, mass) = (0.05, 2.0);
    let tilt = Quat::from_rotation_x(0.5) * Quat::from_rotation_y(0.3);
    let cube = Body::cube(Vec3::new(0.0, 0.0, 0.2), half, mass).with_orientation(tilt);
    let mut w = floor_world(tight(), &[cube]).unwrap();
    for _ in 0..3000 {
        w.step().unwrap();
    }
    let p = w.position(0);
    assert!(
        (p.z - half).abs() < 1e-4 * half,
        "rests at its half-edge: z = {}",
        p.z
    );
    let q = w.orientation(0);
    let level = [Vec3::X, Vec3::Y, Vec3::Z]
        .map(|axis| (q * axis).z.abs())
        .into_iter()
        .fold(0.0f32, f32::max);
    assert!(1.0 - level < 1e-4, "no face normal is vertical: {level}");
    assert!(w.velocity(0).length() < 1e-4 && w.angular_velocity(0).length() < 1e-3);
    let contacts: Vec<_> = w.contacts().collect();
    assert_eq!(
        contacts.len(),
        4,
        "one contact per lower corner: {contacts:?}"
    );
    let force: Vec3 = contacts.iter().map(|c| c.force).sum();
    let weight = mass * G;
    assert!(
        (force.z - weight).abs() < 1e-4 * weight,
        "normal forces {} against the weight {weight}",
        force.z
    );
    assert!(
        force.truncate().length() < 1e-4 * weight,
        "tangential {force}"
    );
}

/// Three cubes stacked with their faces turned against each other (0.3 and 0.6 rad about z)
/// settle into a still tower: each at its height 2 k half above the floor (the sum of the
/// half-edges below), the floor carrying the weight of all three and the top cube's contacts
/// its own weight (forces to 1e-4 of the weights).
#[test]
fn a_tower_of_turned_cubes_stands_still() {
    let (half, mass) = (0.05, 1.0);
    let cubes: Vec<Body> = (0..3)
        .map(|k| {
            let z = half + 2.0 * half * k as f32 + 0.002 * k as f32;
            Body::cube(Vec3::new(0.0, 0.0, z), half, mass)
                .with_orientation(Quat::from_rotation_z(0.3 * k as f32))
        })
        .collect();
    let mut w = floor_world(tight(), &cubes).unwrap();
    for _ in 0..2000 {
        w.step().unwrap();
    }
    for k in 0..3 {
        let z = w.position(k).z;
        let want = half * (1.0 + 2.0 * k as f32);
        assert!(
            (z - want).abs() < 1e-4 * half * 3.0,
            "cube {k} at z = {z}, want {want}"
        );
        assert!(w.velocity(k).length() < 1e-4, "cube {k} moves");
    }
    let contacts: Vec<_> = w.contacts().collect();
    let weight = mass * G;
    let on_floor: f32 = contacts
        .iter()
        .filter(|c| matches!(c.touching, Touching::Wall { .. }))
        .map(|c| c.force.z)
        .sum();
    assert!(
        (on_floor - 3.0 * weight).abs() < 1e-4 * 3.0 * weight,
        "floor carries {on_floor}, want {}",
        3.0 * weight
    );
    let on_top: f32 = contacts
        .iter()
        .filter(|c| matches!(c.touching, Touching::Bodies { a, b } if a == 2 || b == 2))
        .map(|c| c.force.z.abs())
        .sum();
    assert!(
        (on_top - weight).abs() < 1e-4 * weight,
        "the top cube's contacts carry {on_top}, want {weight}"
    );
}

/// A ball dropped on the middle of a fixed cube's top face comes to rest on it, its centre its
/// radius above the face; one dropped past the top face's edge rolls off it without falling
/// into the cube (its centre never nearer the cube than its radius, less the solver's overlap).
#[test]
fn balls_rest_on_a_cube_and_roll_off_its_edge() {
    let (half, r) = (0.1, 0.02);
    let cube = Body::cube(Vec3::new(0.0, 0.0, half), half, 1.0).fixed();
    let on_top = Body::sphere(Vec3::new(0.01, -0.02, 2.0 * half + r + 0.03), r, 0.05);
    let on_edge = Body::sphere(
        Vec3::new(half + 0.3 * r, 0.0, 2.0 * half + r + 0.01),
        r,
        0.05,
    );
    let mut w = floor_world(tight(), &[cube, on_top, on_edge]).unwrap();
    let mut nearest = f32::INFINITY;
    for _ in 0..1500 {
        w.step().unwrap();
        let local = w.position(2) - Vec3::new(0.0, 0.0, half);
        let outside = (local.abs() - Vec3::splat(half)).max(Vec3::ZERO).length();
        nearest = nearest.min(outside);
    }
    let z = w.position(1).z;
    assert!((z - 2.0 * half - r).abs() < 1e-4, "resting ball at z = {z}");
    assert!(
        nearest > r - 1e-3,
        "the rolling ball came within {nearest} of the cube"
    );
    assert!(
        w.position(2).x > half + r - 1e-3,
        "rolled off the edge: x = {}",
        w.position(2).x
    );
}

/// The same cube pile on 1 and 2 threads gives the same bits.
#[test]
fn a_cube_pile_is_bit_identical_on_1_and_2_threads() {
    let run = |threads: usize| {
        let cubes: Vec<Body> = (0..12)
            .map(|k| {
                let (i, j) = (k % 3, k / 3);
                let p = Vec3::new(
                    0.16 * i as f32 - 0.16,
                    0.013 * j as f32,
                    0.08 + 0.16 * j as f32,
                );
                Body::cube(p, 0.05, 1.0).with_orientation(Quat::from_rotation_z(0.4 * k as f32))
            })
            .collect();
        let settings = Settings {
            threads,
            ..Settings::default()
        };
        let mut w = floor_world(settings, &cubes).unwrap();
        for _ in 0..400 {
            w.step().unwrap();
        }
        (0..12)
            .map(|k| (w.position(k), w.orientation(k), w.velocity(k)))
            .collect::<Vec<_>>()
    };
    let one = run(1);
    assert!(
        one.iter().all(|(p, _, _)| p.is_finite() && p.z > 0.0),
        "{one:?}"
    );
    assert_eq!(one, run(2));
}

/// Refused at build: a cuboid with unequal half-extents (the inertia is one scalar), one in
/// planar mode, a non-positive half-extent, cuboids beside capsules, and the GPU backend.
#[test]
fn unsupported_cuboids_are_refused() {
    let cube = Body::cube(Vec3::new(0.0, 0.0, 0.5), 0.1, 1.0);
    let slab = Body {
        shape: Shape::Cuboid {
            half_extents: Vec3::new(0.2, 0.1, 0.05),
        },
        ..cube
    };
    let problem = |settings: Settings, bodies: &[Body]| match floor_world(settings, bodies) {
        Err(BuildError::Body { field, problem, .. }) => format!("{field}: {problem}"),
        Err(e) => e.to_string(),
        Ok(_) => panic!("built"),
    };
    assert!(problem(Settings::default(), &[slab]).contains("must be equal"));
    let planar = Settings {
        planar: true,
        ..Settings::default()
    };
    assert!(problem(planar, &[cube]).contains("planar mode"));
    let flat = Body {
        shape: Shape::Cuboid {
            half_extents: Vec3::new(0.1, 0.1, 0.0),
        },
        ..cube
    };
    assert!(problem(Settings::default(), &[flat]).contains("positive"));
    let capsule = Body::capsule(Vec3::new(1.0, 0.0, 0.5), 0.05, 0.2, 1.0);
    assert!(problem(Settings::default(), &[cube, capsule]).contains("cuboids meet"));
    let gpu = Settings {
        backend: Backend::Gpu,
        solver: grains::Solver::Jacobi {
            sweeps: 50,
            tolerance: 0.0,
            omega: 0.3,
        },
        ..Settings::default()
    };
    assert!(problem(gpu, &[cube]).contains("cuboids"));
}
