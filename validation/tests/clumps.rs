//! Clumps of overlapping spheres: resting on a plane as statics says (V23 and a dumbbell),
//! meeting spheres and each other, the same bits on 1 and 2 threads, and the typed refusals.

use glam::{Quat, Vec3, Vec4};
use grains::{
    Backend, Body, BuildError, ClumpTemplate, Material, MeshDesc, Settings, Shape, Solver,
    Touching, WallDesc, World, WorldBuilder,
};
use grains_validation::cases::clumps::v23;
use grains_validation::cases::on_floor::tight;

const G: f32 = 9.81;

fn floor(settings: Settings) -> WorldBuilder {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b
}

/// V23: three overlapping spheres dropped tilted rest on all three members as statics says
/// (height r, level, each member's force its barycentric share of m g, no friction force,
/// each to 1e-4; see `ClumpAtRest::passes`).
#[test]
fn v23_a_tilted_clump_comes_to_rest_on_its_three_members() {
    let m = v23(None).unwrap();
    assert!(m.passes(), "{m:?}");
}

/// A dumbbell of two overlapping equal spheres (a rod of two) laid level just above the floor
/// settles on both members: its centre r above the floor, its axis level, one contact per
/// member each carrying m g/2 to 1e-4 (statics: the centre of mass lies midway between the
/// two contacts) and the friction forces adding up to zero, with the mass of the union (two
/// spheres less their lens) at ρ.
#[test]
fn a_dumbbell_lies_on_both_members_each_carrying_half_its_weight() {
    let (r, spacing, rho) = (0.05, 0.08, 1000.0);
    let mut b = floor(tight());
    let rod = b.clump_template(&ClumpTemplate::rod(2, r, spacing).unwrap());
    b.body(Body::clump(
        Vec3::new(0.0, 0.0, r + 0.01),
        Quat::from_rotation_z(0.4),
        &rod,
        rho,
    ));
    let mut w = b.build().unwrap();
    let lens = std::f32::consts::PI * (4.0 * r + spacing) * (2.0 * r - spacing).powi(2) / 12.0;
    let mass = (2.0 * 4.0 / 3.0 * std::f32::consts::PI * r.powi(3) - lens) * rho;
    assert!(
        (w.mass(0) - mass).abs() < 2e-5 * mass,
        "{} vs {mass}",
        w.mass(0)
    );
    for _ in 0..1500 {
        w.step().unwrap();
    }
    let p = w.position(0);
    assert!(
        (p.z - r).abs() < 1e-4 * r,
        "rests at its radius: z = {}",
        p.z
    );
    let axis = w.orientation(0) * Vec3::X;
    assert!(axis.z.abs() < 1e-4, "level: axis {axis}");
    assert!(w.velocity(0).length() < 1e-4 && w.angular_velocity(0).length() < 1e-3);
    let contacts: Vec<_> = w.contacts().collect();
    assert_eq!(contacts.len(), 2, "one contact per member: {contacts:?}");
    let weight = w.mass(0) * G;
    for c in &contacts {
        assert!(
            (c.force.z - 0.5 * weight).abs() < 1e-4 * weight,
            "each member carries half the weight {}: {}",
            0.5 * weight,
            c.force.z
        );
    }
    // Statics fixes only the sum of the friction forces (zero): the two members may squeeze
    // the floor between them with equal and opposite ones, as they land.
    let friction: Vec3 = contacts.iter().map(|c| c.force).sum();
    assert!(friction.truncate().length() < 1e-4 * weight, "{friction}");
}

/// A ball dropped on a fixed rod of three spheres lying on the floor comes to rest in the
/// saddle between two members, touching both: its centre at the distance r_m + r_b from each
/// member's centre (to 1e-4 of r), the two contacts' forces adding up to its weight.
#[test]
fn a_ball_rests_in_the_saddle_between_two_members() {
    let (rm, rb) = (0.05, 0.03);
    let mut b = floor(tight());
    let rod = b.clump_template(&ClumpTemplate::rod(3, rm, 0.09).unwrap());
    b.body(Body::clump(Vec3::new(0.0, 0.0, rm), Quat::IDENTITY, &rod, 1000.0).fixed());
    b.body(Body::sphere(
        Vec3::new(0.04, 0.0, 2.0 * rm + rb + 0.02),
        rb,
        0.1,
    ));
    let mut w = b.build().unwrap();
    for _ in 0..1500 {
        w.step().unwrap();
    }
    let p = w.position(1);
    for x in [0.0, 0.09] {
        let d = p.distance(Vec3::new(x, 0.0, rm));
        assert!(
            (d - rm - rb).abs() < 1e-4 * rb,
            "distance {d} to member at x = {x}"
        );
    }
    let force: f32 = w
        .contacts()
        .filter(|c| matches!(c.touching, Touching::Bodies { .. }))
        .map(|c| c.force.z.abs())
        .sum();
    assert!((force - 0.1 * G).abs() < 1e-4 * 0.1 * G, "{force}");
}

/// A pile of 24 clumps (rods of 2 and 3 and a bent one) dropped in a loose lattice: the same
/// bits on 1 and 2 threads, nothing through the floor.
#[test]
fn a_clump_pile_is_bit_identical_on_1_and_2_threads() {
    let run = |threads: usize| {
        let mut b = floor(Settings {
            threads,
            ..Settings::default()
        });
        let bent = ClumpTemplate::new(&[
            Vec4::new(0.0, 0.0, 0.0, 0.03),
            Vec4::new(0.04, 0.0, 0.0, 0.025),
            Vec4::new(0.0, 0.04, 0.01, 0.02),
            Vec4::new(-0.03, -0.02, 0.0, 0.02),
        ])
        .unwrap();
        let templates = [
            b.clump_template(&ClumpTemplate::rod(2, 0.03, 0.04).unwrap()),
            b.clump_template(&ClumpTemplate::rod(3, 0.025, 0.035).unwrap()),
            b.clump_template(&bent),
        ];
        for k in 0..24 {
            let (i, j, l) = (k % 3, (k / 3) % 2, k / 6);
            let p = Vec3::new(
                0.15 * i as f32 - 0.15,
                0.15 * j as f32 + 0.01 * l as f32,
                0.1 + 0.14 * l as f32,
            );
            let q = Quat::from_rotation_z(0.7 * k as f32) * Quat::from_rotation_x(0.3 * k as f32);
            b.body(Body::clump(p, q, &templates[k % 3], 2000.0));
        }
        let mut w = b.build().unwrap();
        for _ in 0..400 {
            w.step().unwrap();
        }
        (0..24)
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

/// Refused at build: clumps beside capsules and boxes, in planar mode, on the GPU beside mesh
/// walls, a clump naming a template the builder lacks or with a wrong
/// bound, and one without its principal moments; templates of no or too many spheres.
#[test]
fn unsupported_clumps_are_refused() {
    let problem = |settings: Settings, bodies: &dyn Fn(&mut WorldBuilder)| {
        let mut b = floor(settings);
        bodies(&mut b);
        match b.build() {
            Err(BuildError::Body { field, problem, .. }) => format!("{field}: {problem}"),
            Err(e) => e.to_string(),
            Ok(_) => panic!("built"),
        }
    };
    let rod = ClumpTemplate::rod(2, 0.05, 0.08).unwrap();
    let clump = |b: &mut WorldBuilder| {
        let c = b.clump_template(&rod);
        b.body(Body::clump(
            Vec3::new(0.0, 0.0, 0.5),
            Quat::IDENTITY,
            &c,
            1000.0,
        ));
    };
    let with = |other: Body| {
        move |b: &mut WorldBuilder| {
            clump(b);
            b.body(other);
        }
    };
    let capsule = Body::capsule(Vec3::new(1.0, 0.0, 0.5), 0.05, 0.2, 1.0);
    let cube = Body::cube(Vec3::new(1.0, 0.0, 0.5), 0.05, 1.0);
    assert!(problem(Settings::default(), &with(capsule)).contains("clumps meet spheres"));
    assert!(problem(Settings::default(), &with(cube)).contains("clumps meet spheres"));
    let planar = Settings {
        planar: true,
        ..Settings::default()
    };
    assert!(problem(planar, &clump).contains("planar mode"));
    let gpu = Settings {
        backend: Backend::Gpu,
        solver: Solver::Jacobi {
            sweeps: 50,
            tolerance: 0.0,
            omega: 0.3,
        },
        ..Settings::default()
    };
    // The GPU steps clumps, but not beside mesh walls.
    let with_mesh = |b: &mut WorldBuilder| {
        clump(b);
        let p = |x: f32, y: f32| Vec3::new(x, y, -0.1);
        b.mesh(MeshDesc::new(vec![[
            p(-1.0, -1.0),
            p(1.0, -1.0),
            p(0.0, 1.0),
        ]]));
    };
    assert!(problem(gpu, &with_mesh).contains("clumps beside mesh walls"));
    let unknown = |b: &mut WorldBuilder| {
        let mut body = Body::sphere(Vec3::new(0.0, 0.0, 0.5), 0.05, 1.0);
        body.shape = Shape::Clump {
            template: 3,
            bound: 0.1,
        };
        b.body(body.with_principal_moments(Vec3::splat(1e-3)));
    };
    assert!(problem(Settings::default(), &unknown).contains("clump template 3"));
    let wrong_bound = |b: &mut WorldBuilder| {
        let c = b.clump_template(&rod);
        let mut body = Body::clump(Vec3::new(0.0, 0.0, 0.5), Quat::IDENTITY, &c, 1000.0);
        body.shape = Shape::Clump {
            template: 0,
            bound: 1.0,
        };
        b.body(body);
    };
    assert!(problem(Settings::default(), &wrong_bound).contains("bound"));
    let scalar = |b: &mut WorldBuilder| {
        let c = b.clump_template(&rod);
        let mut body = Body::clump(Vec3::new(0.0, 0.0, 0.5), Quat::IDENTITY, &c, 1000.0);
        body.principal_moments = None;
        b.body(body);
    };
    assert!(problem(Settings::default(), &scalar).contains("principal moments"));
    assert!(ClumpTemplate::new(&[]).is_err());
    assert!(ClumpTemplate::rod(9, 0.1, 0.1).is_err());
}

/// The physics fingerprint names the clump templates: two worlds whose clumps differ only in a
/// member's radius (so that a checkpoint of one is refused by the other) differ in the
/// "clump templates" item, and a world without clumps has no such item.
#[test]
fn the_fingerprint_covers_the_clump_templates() {
    let world = |r: f32| {
        let mut b = floor(Settings::default());
        let spheres = [Vec4::new(0.0, 0.0, 0.0, 0.05), Vec4::new(0.06, 0.0, 0.0, r)];
        let c = b.clump_template(&ClumpTemplate::new(&spheres).unwrap());
        b.body(Body::clump(
            Vec3::new(0.0, 0.0, 0.3),
            Quat::IDENTITY,
            &c,
            1000.0,
        ));
        b.build().unwrap()
    };
    let (a, b) = (world(0.05), world(0.04));
    let changed = b.fingerprint().changes_since(a.fingerprint());
    assert!(
        changed.iter().any(|c| c.contains("clump templates")),
        "{changed:?}"
    );
    let plain = floor(Settings::default()).build().unwrap();
    assert!(plain
        .fingerprint()
        .items()
        .all(|(name, _)| name != "clump templates"));
}
