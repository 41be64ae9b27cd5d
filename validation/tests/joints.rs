//! Joints, motors, spring–dampers and applied forces through the library: each kind holds what
//! it should, motors drive at their speed or at their torque bound, springs oscillate at their
//! frequency (and the implicit ones stay stable where the explicit ones blow up), and results do
//! not depend on the thread count or on a snapshot in between.

use glam::{Quat, Vec3};
use grains::{
    AppliedForce, Body, JointDesc, Material, Settings, Snapshot, SolverKind, SpringDesc, World,
};
use grains_validation::{load, scenes_dir};

/// Rigid settings at step `h` without gravity.
fn weightless(h: f32) -> Settings {
    Settings {
        h,
        gravity: Vec3::ZERO,
        ..Settings::default()
    }
}

fn world(settings: Settings, bodies: &[Body], joints: &[JointDesc]) -> World {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    for body in bodies {
        b.body(*body);
    }
    for j in joints {
        b.joint(*j);
    }
    b.build().unwrap()
}

/// Largest positional violation of any joint of `w` (m).
fn drift(w: &World) -> f32 {
    (0..w.joint_count())
        .map(|j| w.joint_violation(j).0)
        .fold(0.0, f32::max)
}

#[test]
fn a_hinge_motor_carries_its_body_round_the_axis_at_the_motor_speed() {
    let h = 1e-3;
    let arm = 0.1;
    let bob = Body::sphere(Vec3::new(arm, 0.0, 0.0), 0.02, 1.0);
    let hinge = JointDesc::hinge(0, None, Vec3::ZERO, Vec3::Z).with_motor(3.0, f32::INFINITY);
    let mut w = world(weightless(h), &[bob], &[hinge]);
    let mut angle = 0.0f32;
    let mut last = 0.0f32;
    for _ in 0..1000 {
        w.step().unwrap();
        let p = w.position(0);
        let a = p.y.atan2(p.x);
        angle += (a - last + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
            - std::f32::consts::PI;
        last = a;
        assert!((w.angular_velocity(0) - Vec3::new(0.0, 0.0, 3.0)).length() < 1e-4);
        // The drift of the anchor is the O(h²) of one step, ½ h² ω² r.
        assert!(
            drift(&w) < 0.5 * h * h * 9.0 * arm * 1.5,
            "drift {}",
            drift(&w)
        );
    }
    assert!((angle - 3.0).abs() < 1e-3, "turned {angle} rad in 1 s");
    assert!((w.position(0).truncate().length() - arm).abs() < 1e-5);
    assert!(w.position(0).z.abs() < 1e-6);
}

#[test]
fn a_bounded_motor_accelerates_at_its_torque_limit() {
    let h = 1e-3;
    let disk = Body::sphere(Vec3::ZERO, 0.1, 1.0);
    let inertia = disk.inertia;
    let torque = 0.01;
    let hinge = JointDesc::hinge(0, None, Vec3::ZERO, Vec3::Z).with_motor(10.0, torque);
    let mut w = world(weightless(h), &[disk], &[hinge]);
    let alpha = torque / inertia;
    for step in 1..=6000 {
        w.step().unwrap();
        let t = step as f32 * h;
        let expected = (alpha * t).min(10.0);
        let omega = w.angular_velocity(0).z;
        assert!(
            (omega - expected).abs() <= 1e-4 * expected.max(1.0),
            "t = {t}: ω = {omega}, expected {expected}"
        );
    }
}

#[test]
fn a_prismatic_joint_keeps_its_body_on_the_line_and_unturned() {
    let h = 1e-3;
    let body = Body::sphere(Vec3::new(0.0, 0.0, 1.0), 0.05, 1.0)
        .with_angular_velocity(Vec3::new(1.0, 2.0, 5.0))
        .with_velocity(Vec3::new(0.0, 3.0, 1.0));
    let slide = JointDesc::prismatic(0, None, Vec3::new(0.0, 0.0, 1.0), Vec3::X)
        .with_motor(0.5, f32::INFINITY);
    let settings = Settings {
        h,
        ..Settings::default()
    };
    let mut w = world(settings, &[body], &[slide]);
    w.run(2000).unwrap();
    let p = w.position(0);
    assert!((p.x - 0.5 * 2.0).abs() < 1e-4, "x = {}", p.x);
    assert!(
        p.y.abs() < 1e-5 && (p.z - 1.0).abs() < 1e-5,
        "off the line: {p}"
    );
    assert!(w.angular_velocity(0).length() < 1e-5);
    assert!(w.orientation(0).angle_between(Quat::IDENTITY) < 1e-4);
}

#[test]
fn fixed_bodies_move_as_one_rigid_body() {
    let a = Body::sphere(Vec3::ZERO, 0.05, 1.0)
        .with_velocity(Vec3::new(1.0, 0.0, 0.0))
        .with_angular_velocity(Vec3::new(0.0, 0.0, 4.0));
    let b = Body::sphere(Vec3::new(0.2, 0.0, 0.0), 0.05, 2.0);
    let j = JointDesc::fixed(0, Some(1), Vec3::new(0.1, 0.0, 0.0));
    let mut w = world(weightless(1e-3), &[a, b], &[j]);
    let momentum = w.momentum();
    for _ in 0..1000 {
        w.step().unwrap();
        let (position, angle) = w.joint_violation(0);
        assert!(position < 1e-4 && angle < 1e-3, "{position} m, {angle} rad");
    }
    for (p, q) in w.momentum().iter().zip(momentum) {
        assert!(
            (p - q).abs() < 1e-4,
            "momentum {:?} vs {momentum:?}",
            w.momentum()
        );
    }
    assert!(((w.position(1) - w.position(0)).length() - 0.2).abs() < 1e-4);
    let (wa, wb) = (w.angular_velocity(0), w.angular_velocity(1));
    assert!(
        (wa - wb).length() < 1e-4 && wa.z.abs() > 0.1,
        "{wa} vs {wb}"
    );
    let relative = w.orientation(1).conjugate() * w.orientation(0);
    assert!(relative.angle_between(Quat::IDENTITY) < 1e-3);
}

/// Two spheres built to overlap by 0.04 m (a dumbbell with a fat waist) and fixed to each other:
/// by default their contact (Φ < 0, which its Φ/h term would open) is in every step; with
/// `without_collision` it is dropped, the joint alone holds them and the pair moves as one rigid
/// body. Dropped onto a floor, the pair keeps its wall contacts.
#[test]
fn a_joint_without_collision_drops_the_contact_between_its_bodies() {
    let a = Body::sphere(Vec3::new(0.0, 0.0, 0.3), 0.05, 1.0)
        .with_velocity(Vec3::new(1.0, 0.0, 0.0))
        .with_angular_velocity(Vec3::new(0.0, 0.0, 4.0));
    let b = Body::sphere(Vec3::new(0.06, 0.0, 0.3), 0.05, 1.0);
    let j = JointDesc::fixed(0, Some(1), Vec3::new(0.03, 0.0, 0.3));
    let mut colliding = world(weightless(1e-3), &[a, b], &[j]);
    colliding.step().unwrap();
    assert_eq!(
        colliding.contact_rows().keys,
        vec![1u64],
        "the overlap is a contact by default"
    );
    let mut held = world(weightless(1e-3), &[a, b], &[j.without_collision()]);
    let momentum = held.momentum();
    for _ in 0..500 {
        held.step().unwrap();
        assert!(held.contact_rows().keys.is_empty());
        let (position, angle) = held.joint_violation(0);
        assert!(position < 1e-5 && angle < 1e-4, "{position} m, {angle} rad");
    }
    for (p, q) in held.momentum().iter().zip(momentum) {
        assert!(
            (p - q).abs() < 1e-4,
            "momentum {:?} vs {momentum:?}",
            held.momentum()
        );
    }
    let mut builder = World::builder(Settings {
        h: 1e-3,
        ..Settings::default()
    });
    builder.material(Material::new(0.5));
    builder.wall(grains::WallDesc::plane(Vec3::ZERO, Vec3::Z));
    builder.body(
        a.with_velocity(Vec3::ZERO)
            .with_angular_velocity(Vec3::ZERO),
    );
    builder.body(b);
    builder.joint(j.without_collision());
    let mut w = builder.build().unwrap();
    for _ in 0..400 {
        w.step().unwrap();
    }
    let keys = &w.contact_rows().keys;
    assert!(
        keys.len() == 2 && keys.iter().all(|k| (*k as u32) > 1),
        "wall contacts only: {keys:?}"
    );
    assert!(
        (w.position(0).z - 0.05).abs() < 1e-3,
        "resting on the floor: {}",
        w.position(0)
    );
}

#[test]
fn a_distance_joint_keeps_its_length_while_the_pair_spins() {
    let h = 1e-3;
    let a = Body::sphere(Vec3::ZERO, 0.05, 1.0).with_velocity(Vec3::new(0.0, 1.0, 0.0));
    let b =
        Body::sphere(Vec3::new(0.5, 0.0, 0.0), 0.05, 1.0).with_velocity(Vec3::new(0.0, -1.0, 0.0));
    let j = JointDesc::distance(0, Some(1), Vec3::ZERO, Vec3::new(0.5, 0.0, 0.0));
    let mut w = world(weightless(h), &[a, b], &[j]);
    for _ in 0..3000 {
        w.step().unwrap();
        // Each body turns at ω = 2 v / L = 4 rad/s on a circle of 0.25 m: ½ h² ω² L per step.
        assert!(
            drift(&w) <= 0.5 * h * h * 16.0 * 0.5 * 1.5,
            "drift {}",
            drift(&w)
        );
    }
    assert!(
        w.velocity(0).length() > 0.9,
        "the joint must not brake the spin"
    );
}

#[test]
fn the_pendulum_is_held_by_jacobi_as_by_gauss_seidel() {
    for solver in [SolverKind::GaussSeidel, SolverKind::Jacobi] {
        let mut s = load(&scenes_dir(), "v14_pendulum").unwrap();
        s.settings_mut().solver =
            s.settings()
                .solver
                .with_kind(solver)
                .with_omega(if solver == SolverKind::Jacobi {
                    0.3
                } else {
                    1.0
                });
        let mut w = s.world(None).unwrap();
        let mut worst = 0.0f32;
        for _ in 0..2000 {
            w.step().unwrap();
            worst = worst.max(drift(&w));
        }
        let h = s.settings().h;
        assert!(worst <= 1.2 * 9.81 * h * h, "{solver:?}: drift {worst}");
        assert!(
            w.position(0).z < 0.5,
            "{solver:?}: the bob did not swing down"
        );
    }
}

#[test]
fn a_planar_hinge_swings_in_the_plane() {
    let h = 1e-3;
    let settings = Settings {
        h,
        planar: true,
        ..Settings::default()
    };
    let bob = Body::disk(Vec3::new(0.5, 0.0, 1.0), 0.05, 1.0);
    let hinge = JointDesc::hinge(0, None, Vec3::new(0.0, 0.0, 1.0), Vec3::Y);
    let mut w = world(settings, &[bob], &[hinge]);
    for _ in 0..2000 {
        w.step().unwrap();
        assert!(drift(&w) < 1.2 * 9.81 * h * h, "drift {}", drift(&w));
    }
    assert_eq!(w.position(0).y, 0.0);
    assert!(w.velocity(0).length() > 0.5, "the disk does not swing");
}

/// A unit mass on a spring of stiffness `k` to the world, released 0.1 m from rest: the times
/// of its first two passes through the rest point (downward crossings of x = 0).
fn spring_crossings(k: f32, h: f32, explicit: bool, steps: usize) -> (Vec<f32>, f32) {
    let mut b = World::builder(weightless(h));
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::new(1.1, 0.0, 0.0), 0.05, 1.0));
    let spring = SpringDesc::new(0, None, Vec3::new(1.1, 0.0, 0.0), Vec3::ZERO)
        .with_stiffness(k)
        .with_rest_length(1.0);
    b.spring(if explicit { spring.explicit() } else { spring });
    let mut w = b.build().unwrap();
    let mut crossings = Vec::new();
    let mut biggest = 0.0f32;
    let mut last = 0.1f32;
    for step in 1..=steps {
        match w.step() {
            Ok(_) => {}
            // The energy check stops an explicit spring that blows up (ever larger swings).
            Err(grains::StepError::Health {
                fault: grains::Fault::Energy { .. },
                ..
            }) => return (crossings, f32::INFINITY),
            Err(e) => panic!("{e}"),
        }
        let x = w.position(0).x - 1.0;
        if !x.is_finite() || x.abs() > 1e3 {
            return (crossings, f32::INFINITY);
        }
        biggest = biggest.max(x.abs());
        if last > 0.0 && x <= 0.0 {
            crossings.push(step as f32 * h);
        }
        last = x;
    }
    (crossings, biggest)
}

#[test]
fn springs_oscillate_at_their_natural_frequency() {
    // k = 100, m = 1: ω₀ = 10 rad/s, period 2π/10.
    let period = std::f32::consts::TAU / 10.0;
    for explicit in [false, true] {
        let (c, biggest) = spring_crossings(100.0, 1e-4, explicit, 20_000);
        assert!(c.len() >= 2, "explicit = {explicit}: {c:?}");
        let measured = c[1] - c[0];
        assert!(
            (measured - period).abs() < 2e-3 * period,
            "explicit = {explicit}: period {measured} vs {period}"
        );
        assert!(
            biggest <= 0.1 + 1e-4,
            "explicit = {explicit}: amplitude grew to {biggest}"
        );
    }
}

#[test]
fn a_stiff_implicit_spring_is_stable_where_the_explicit_one_blows_up() {
    // h² k / m = 10⁴ ≫ 4: far past the explicit scheme's limit.
    let (_, explicit) = spring_crossings(1e8, 0.01, true, 100);
    assert!(explicit.is_infinite(), "explicit stayed at {explicit}");
    let (_, implicit) = spring_crossings(1e8, 0.01, false, 100);
    assert!(implicit <= 0.1, "implicit grew to {implicit}");
}

#[test]
fn an_applied_harmonic_force_moves_a_free_body_as_it_should() {
    // x'' = F cos(ω t) / m from rest: x(t) = F (1 − cos ω t) / (m ω²).
    let h = 1e-4;
    let mut b = World::builder(weightless(h));
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::ZERO, 0.05, 2.0));
    b.force(AppliedForce::harmonic(
        0,
        Vec3::new(4.0, 0.0, 0.0),
        3.0,
        0.0,
    ));
    let mut w = b.build().unwrap();
    w.run(10_000).unwrap();
    let t = 1.0f32;
    let expected = 4.0 * (1.0 - (3.0 * t).cos()) / (2.0 * 9.0);
    assert!(
        (w.position(0).x - expected).abs() < 1e-3,
        "x = {} vs {expected}",
        w.position(0).x
    );
}

#[test]
fn jointed_runs_do_not_depend_on_threads_or_snapshots() {
    let s = load(&scenes_dir(), "v14_chain").unwrap();
    let run = |threads: usize, steps: u64| {
        let mut w = s.world(Some(threads)).unwrap();
        w.run(steps).unwrap();
        w
    };
    let mut one = run(1, 200);
    let two = run(2, 200);
    assert_eq!(one.bodies(), two.bodies());
    // Halfway snapshot, through bytes, into a fresh world.
    let snap = Snapshot::from_bytes(&one.snapshot().unwrap().to_bytes()).unwrap();
    assert!(!snap.joint_impulses.is_empty());
    one.run(200).unwrap();
    let mut resumed = s.world(Some(1)).unwrap();
    resumed.restore(&snap).unwrap();
    resumed.run(200).unwrap();
    assert_eq!(one.bodies(), resumed.bodies());
    assert_eq!(one.joint_impulses(), resumed.joint_impulses());
}
