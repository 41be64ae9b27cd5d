//! Cones, disks, rectangle edges and walls switched in time against closed-form statics and
//! kinematics: a grain over a hole rests on its rims, a grain rolling across two coplanar tiles
//! moves as on one, a bed in a capped hopper presses its weight on it, a sphere in a turning
//! drum with rolling resistance rides at tan θ = e_roll / r, a gate holds a grain and opens, and
//! a checkpoint taken before the gate opens resumes bit for bit.

use grains::glam::DVec3;
use grains::{sphere_mass, Body, Material, Settings, Touching, Vec3, WallDesc, World};

const G: f32 = 9.81;
const RADIUS: f32 = 0.05;
const MASS: f32 = 2.0;

/// Rigid contact, Gauss–Seidel to 1e-9 m/s, h = 1 ms.
fn tight() -> Settings {
    let s = Settings::default();
    Settings {
        solver: s.solver.with_tolerance(1e-9),
        ..s
    }
}

/// A world of `walls` (friction `material`) and `bodies`.
fn world(walls: &[WallDesc], material: Material, bodies: &[Body]) -> World {
    let mut b = World::builder(tight());
    b.material(material);
    for w in walls {
        b.wall(*w);
    }
    for body in bodies {
        b.body(*body);
    }
    b.build().unwrap()
}

/// The floor tile x ∈ [x0, x1], y ∈ [−1, 1] at z = 0.
fn tile(x0: f32, x1: f32) -> WallDesc {
    WallDesc::rectangle(
        Vec3::new(0.5 * (x0 + x1), 0.0, 0.0),
        Vec3::Z,
        Vec3::X,
        0.5 * (x1 - x0),
        1.0,
    )
}

#[test]
fn a_grain_over_a_hole_between_floor_tiles_rests_on_both_rims() {
    // A hole 0.06 m wide under a sphere of radius 0.05: it rests with its centre
    // z = √(r² − 0.03²) = 0.04 above the rims, each normal (∓0.6, 0, 0.8) from its rim to the
    // centre, each rim carrying half the weight: N = m g / (2 · 0.8).
    let walls = [tile(-1.0, 0.0), tile(0.06, 1.0)];
    let start = Vec3::new(0.03, 0.0, 0.04);
    let mut w = world(
        &walls,
        Material::new(0.0),
        &[Body::sphere(start, RADIUS, MASS)],
    );
    w.run(500).unwrap();
    assert!(
        (w.position(0) - start).length() < 1e-6,
        "fell to {}",
        w.position(0)
    );
    let mut normals: Vec<(usize, Vec3)> = w
        .contacts()
        .map(|c| match c.touching {
            Touching::Wall { wall, .. } => (wall, c.normal),
            other => panic!("unexpected contact {other:?}"),
        })
        .collect();
    normals.sort_by_key(|c| c.0);
    assert_eq!(normals.len(), 2, "{normals:?}");
    assert!((normals[0].1 - Vec3::new(0.6, 0.0, 0.8)).length() < 1e-5);
    assert!((normals[1].1 - Vec3::new(-0.6, 0.0, 0.8)).length() < 1e-5);
    let n = f64::from(MASS * G) / 1.6;
    let loads = w.wall_loads(Vec3::ZERO);
    for (load, side) in loads.iter().zip([-1.0, 1.0]) {
        let expected = DVec3::new(0.6 * n * side, 0.0, -0.8 * n);
        assert!(
            (load.force - expected).length() < 1e-5 * n,
            "rim load {} expected {expected}",
            load.force
        );
    }
}

#[test]
fn a_grain_rolling_across_two_coplanar_tiles_moves_as_on_one() {
    // Rolling at 1 m/s over the joint at x = 0.1: one contact at every step (the joint's edge
    // is no rim), and the same path as on a single tile. The warm start of the new tile's
    // contact starts from zero, so the two agree to the solver's tolerance, not bit for bit.
    let ball = Body::sphere(Vec3::new(0.0, 0.0, RADIUS), RADIUS, MASS)
        .with_velocity(Vec3::X)
        .with_angular_velocity(Vec3::new(0.0, 1.0 / RADIUS, 0.0));
    let material = Material::new(0.5);
    let mut one = world(&[tile(-1.0, 1.0)], material, &[ball]);
    let mut two = world(&[tile(-1.0, 0.1), tile(0.1, 1.0)], material, &[ball]);
    for step in 0..300 {
        one.step().unwrap();
        two.step().unwrap();
        assert_eq!(two.contacts().len(), 1, "step {step}");
        let dp = (one.position(0) - two.position(0)).length();
        let dv = (one.velocity(0) - two.velocity(0)).length();
        assert!(
            dp < 1e-6 && dv < 1e-5,
            "step {step}: apart by {dp} m, {dv} m/s"
        );
    }
    assert!(
        two.position(0).x > 0.25,
        "did not cross: {}",
        two.position(0)
    );
}

/// A hopper about ẑ: radius 0.06 m at z = 0 (closed by a floor disk) to 0.2 m at z = 0.3.
fn hopper() -> [WallDesc; 2] {
    let cone = WallDesc::cone(Vec3::new(0.0, 0.0, 0.15), Vec3::Z, 0.06, 0.2, 0.15, true);
    [cone, cone.end_cap(false, 0.0).unwrap()]
}

/// Grains of radius 1.5 cm on a square lattice inside the hopper, clear of its mantle.
fn hopper_fill() -> Vec<Body> {
    let r = 0.015;
    let mut bodies = Vec::new();
    for k in 0..8 {
        let z = r + 0.001 + k as f32 * 2.2 * r;
        // The mantle's radius at the grain's lowest point, less a grain and a margin.
        let room = 0.06 + (z - r) * (0.14 / 0.3) - 1.5 * r;
        let steps = (room / (2.2 * r)) as i32;
        for i in -steps..=steps {
            for j in -steps..=steps {
                let p = Vec3::new(i as f32, j as f32, 0.0) * 2.2 * r;
                if p.length() <= room {
                    bodies.push(Body::sphere(p + Vec3::Z * z, r, sphere_mass(r, 2500.0)));
                }
            }
        }
    }
    bodies
}

#[test]
fn a_bed_resting_in_a_capped_hopper_presses_its_weight_on_it() {
    let bodies = hopper_fill();
    let mut w = world(&hopper(), Material::new(0.5), &bodies);
    w.run(2500).unwrap();
    // Over the last 100 steps the mean wall force is the weight less the bed's momentum
    // change / time; at rest that is a rounding of the solver's tolerance.
    let point = Vec3::new(0.5, 0.0, 0.0);
    let (mut force, mut torque) = (DVec3::ZERO, DVec3::ZERO);
    let steps = 100;
    for _ in 0..steps {
        w.step().unwrap();
        let loads = w.wall_loads(point);
        assert!(loads[0].contacts > 0 && loads[1].contacts > 0);
        force += loads[0].force + loads[1].force;
        torque += loads[0].torque + loads[1].torque;
    }
    force /= steps as f64;
    torque /= steps as f64;
    let g = DVec3::new(0.0, 0.0, -f64::from(G));
    let weight: DVec3 = bodies.iter().map(|b| f64::from(b.mass) * g).sum();
    // At rest the walls carry the weight and its moment about the point: Σ m (x − P) × g.
    let moment: DVec3 = (0..w.len())
        .map(|i| {
            (w.position(i) - point)
                .as_dvec3()
                .cross(f64::from(bodies[i].mass) * g)
        })
        .sum();
    assert!(
        (force - weight).length() <= 1e-3 * weight.length(),
        "hopper and floor carry {force}, the bed weighs {weight}"
    );
    assert!(
        (torque - moment).length() <= 1e-3 * moment.length(),
        "wall torque {torque}, the weight's moment {moment}"
    );
    assert!(w.len() > 100, "{} grains", w.len());
}

#[test]
fn a_sphere_in_a_turning_drum_with_rolling_resistance_rides_at_tan_theta_e_roll_over_r() {
    // Steady state: the centre at rest at angle θ from the bottom, the sphere spinning so that
    // its contact point moves with the shell (ω R / r). Its spin relative to the shell is
    // resisted by the saturated rolling moment e_roll N; friction F balances it, F r =
    // e_roll N, and the weight along the shell, F = m g sin θ, N = m g cos θ: tan θ = e_roll / r.
    // Started there, it stays within the small swing the first steps' build-up of the contact
    // impulses leaves (a swing about the equilibrium is not damped: the rolling moment is
    // constant), here under 2 % of θ.
    let (drum_radius, omega, e_roll) = (0.5, 2.0, 0.01);
    let theta = (e_roll / RADIUS).atan();
    let arm = drum_radius - RADIUS;
    let start = Vec3::new(0.0, arm * theta.sin(), -arm * theta.cos());
    let ball = Body::sphere(start, RADIUS, MASS).with_angular_velocity(Vec3::new(
        omega * drum_radius / RADIUS,
        0.0,
        0.0,
    ));
    let drum = WallDesc::cylinder(Vec3::ZERO, Vec3::X, drum_radius, 1.0, true).rotating(omega);
    let mut w = world(&[drum], Material::new(0.5).with_rolling(e_roll), &[ball]);
    for step in 0..3000 {
        w.step().unwrap();
        let p = w.position(0);
        let angle = p.y.atan2(-p.z);
        assert!(
            (angle - theta).abs() < 0.02 * theta,
            "step {step}: at {:.4}°, expected {:.4}°",
            angle.to_degrees(),
            theta.to_degrees()
        );
    }
}

/// A grain on a gate (a tile at z = 0 switched off at 0.2 s) above a floor plane at z = −1.
fn gated(until: f64) -> World {
    let gate = tile(-1.0, 1.0).active_between(f64::NEG_INFINITY, until);
    let floor = WallDesc::plane(Vec3::new(0.0, 0.0, -1.0), Vec3::Z);
    let bodies = [
        Body::sphere(Vec3::new(0.0, 0.0, RADIUS), RADIUS, MASS),
        Body::sphere(Vec3::new(0.3, 0.0, RADIUS), RADIUS, MASS),
    ];
    world(&[gate, floor], Material::new(0.5), &bodies)
}

#[test]
fn a_gate_holds_the_grains_until_it_opens_and_they_fall_freely() {
    let mut w = gated(0.2);
    w.run(200).unwrap();
    assert!((w.position(0).z - RADIUS).abs() < 1e-6, "{}", w.position(0));
    assert_eq!(w.contacts().len(), 2);
    // From t = 0.2 s the gate has no contacts; the walls keep their indices.
    let steps = 200;
    w.run(steps).unwrap();
    assert_eq!(w.contacts().len(), 0);
    assert_eq!(w.walls().len(), 2);
    let t = steps as f32 * tight().h;
    let drop = RADIUS - w.position(0).z;
    // Semi-implicit Euler falls g h² n(n+1)/2, within 0.5 % of g t²/2 at n = 200.
    assert!(
        (drop - 0.5 * G * t * t).abs() < 0.01 * drop,
        "fell {drop} m in {t} s"
    );
}

#[test]
fn a_checkpoint_taken_before_the_gate_opens_resumes_bit_for_bit() {
    let mut w = gated(0.05);
    w.run(30).unwrap();
    let snap = w.snapshot().unwrap();
    w.run(100).unwrap();
    let mut again = gated(0.05);
    again.restore(&snap).unwrap();
    again.run(100).unwrap();
    for i in 0..w.len() {
        assert_eq!(w.position(i), again.position(i));
        assert_eq!(w.velocity(i), again.velocity(i));
    }
    // Opened at 0.05 s, the grains have fallen g (0.08 s)²/2 ≈ 3 cm by 0.13 s.
    assert!(w.position(0).z < RADIUS - 0.02, "the gate did not open");
    // The window is physics: a world whose gate opens at another time refuses the snapshot.
    assert!(gated(0.06).restore(&snap).is_err());
}

#[test]
fn the_builder_refuses_bad_cones_disks_and_windows() {
    let bad = [
        (
            WallDesc::cone(Vec3::ZERO, Vec3::Z, 0.3, 0.1, 0.5, true),
            "large_radius",
        ),
        (
            WallDesc::cone(Vec3::ZERO, Vec3::Z, -0.1, 0.3, 0.5, true),
            "small_radius",
        ),
        (
            WallDesc::cone(Vec3::ZERO, Vec3::Z, 0.1, 0.3, 0.0, true),
            "half_length",
        ),
        (WallDesc::disk(Vec3::ZERO, Vec3::Z, 0.3, 0.3), "inner"),
        (WallDesc::disk(Vec3::ZERO, Vec3::Z, -1.0, 0.0), "outer"),
        (
            WallDesc::plane(Vec3::ZERO, Vec3::Z).active_between(1.0, 0.5),
            "active",
        ),
    ];
    for (wall, field) in bad {
        let mut b = World::builder(tight());
        b.material(Material::new(0.5));
        b.wall(wall);
        match b.build() {
            Err(grains::BuildError::Wall { field: f, .. }) => assert_eq!(f, field),
            r => panic!("expected a wall error on {field}, got {:?}", r.err()),
        }
    }
}
