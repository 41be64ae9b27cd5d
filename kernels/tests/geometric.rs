//! The geometrically implicit stepper's limits and errors (its physics, the paper's examples,
//! is checked as validation cases V16–V19 in `validation/src/cases/geometric.rs`).

use glam::DVec3;
use grains_kernels::geometric::{
    ContactPair, Friction, ImplicitError, ImplicitSystem, NewtonSettings, RigidBody, MAX_BODIES,
    MAX_CONTACTS,
};

/// Systems above the dense solver's limits are refused with an error naming the limit; bad
/// friction parameters are refused; a step the solver cannot finish is an error value that
/// leaves the system where it was.
#[test]
fn limits_bad_input_and_non_convergence_are_errors() {
    let mut system = ImplicitSystem::new(0.01, DVec3::ZERO).unwrap();
    for i in 0..MAX_BODIES {
        system
            .add_body(RigidBody::sphere(0.4, 1.0, DVec3::new(i as f64, 0.0, 0.0)))
            .unwrap();
    }
    let extra = system.add_body(RigidBody::sphere(0.4, 1.0, DVec3::new(-1.0, 0.0, 0.0)));
    assert_eq!(
        extra,
        Err(ImplicitError::TooManyBodies {
            count: MAX_BODIES + 1,
            limit: MAX_BODIES
        })
    );
    assert!(extra.unwrap_err().to_string().contains("at most 16 bodies"));
    for i in 0..MAX_CONTACTS {
        let (a, b) = (i % MAX_BODIES, (i + 1 + i / MAX_BODIES) % MAX_BODIES);
        system
            .add_contact(ContactPair {
                a,
                b,
                friction: Friction::isotropic(0.2, 0.1),
            })
            .unwrap();
    }
    let extra = system.add_contact(ContactPair {
        a: 0,
        b: 5,
        friction: Friction::isotropic(0.2, 0.1),
    });
    assert!(matches!(
        extra,
        Err(ImplicitError::TooManyContacts {
            limit: MAX_CONTACTS,
            ..
        })
    ));
    assert!(extra
        .unwrap_err()
        .to_string()
        .contains("at most 32 contacts"));

    let mut small = ImplicitSystem::new(0.07, DVec3::new(0.0, 0.0, -9.81)).unwrap();
    let plane = small.add_body(RigidBody::floor(DVec3::Z)).unwrap();
    let ball = small
        .add_body(
            RigidBody::sphere(1.0, 1.0, DVec3::new(0.0, 0.0, 1.0))
                .with_velocity(DVec3::ZERO, DVec3::new(0.0, 0.0, 1.962)),
        )
        .unwrap();
    for body in [
        RigidBody::sphere(1.0, 1.0, DVec3::new(f64::NAN, 0.0, 1.0)),
        RigidBody::sphere(1.0, 1.0, DVec3::Z).with_velocity(DVec3::X * f64::INFINITY, DVec3::ZERO),
        RigidBody::sphere(0.0, 1.0, DVec3::Z),
        RigidBody::floor(DVec3::new(0.0, 0.0, 2.0)),
    ] {
        let refused = small.add_body(body);
        assert!(
            matches!(&refused, Err(ImplicitError::BadParameter(why)) if why.contains("finite")),
            "{refused:?}"
        );
    }
    let bad = small.add_contact(ContactPair {
        a: plane,
        b: ball,
        friction: Friction::isotropic(0.2, -0.1),
    });
    assert!(matches!(bad, Err(ImplicitError::BadParameter(_))));
    assert!(matches!(
        small.add_contact(ContactPair {
            a: plane,
            b: plane,
            friction: Friction::isotropic(0.2, 0.4)
        }),
        Err(ImplicitError::BadParameter(_))
    ));
    small
        .add_contact(ContactPair {
            a: plane,
            b: ball,
            friction: Friction::isotropic(0.2, 0.4),
        })
        .unwrap();
    let mut starved = small.clone().with_newton_settings(NewtonSettings {
        tolerance: 1e-10,
        max_iterations: 1,
    });
    let before = starved.bodies()[ball];
    assert!(matches!(starved.step(), Err(ImplicitError::Step { .. })));
    assert_eq!(starved.bodies()[ball], before);
    assert_eq!(starved.time(), 0.0);
    assert!(small.step().is_ok());
}

/// e_r = 0 drops the spin term of the friction ellipsoid: a sphere spinning about the normal
/// of a plane keeps its spin (the spin impulse is 0 to the Newton tolerance) while sliding
/// friction still acts on it (a sliding sphere slows at μ g until it rolls).
#[test]
fn zero_spin_length_leaves_the_spin_alone() {
    let mut s = ImplicitSystem::new(0.01, DVec3::new(0.0, 0.0, -9.81)).unwrap();
    let plane = s.add_body(RigidBody::floor(DVec3::Z)).unwrap();
    let ball = s
        .add_body(
            RigidBody::sphere(1.0, 1.0, DVec3::new(0.0, 0.0, 1.0))
                .with_velocity(DVec3::X, DVec3::new(0.0, 0.0, 2.0)),
        )
        .unwrap();
    s.add_contact(ContactPair {
        a: plane,
        b: ball,
        friction: Friction::isotropic(0.2, 0.0),
    })
    .unwrap();
    let report = s.step().unwrap();
    let b = s.bodies()[ball];
    // ω_z is untouched to the Newton tolerance (1e-10 on impulses of order 0.1, I = 0.4).
    assert!(
        (b.angular_velocity.z - 2.0).abs() < 1e-9,
        "{}",
        b.angular_velocity
    );
    assert!(report.contacts[0].friction_impulse.z.abs() < 1e-10);
    // Sliding: v_x drops by μ g h = 0.01962 in the step (to the tolerance).
    assert!(
        (b.velocity.x - (1.0 - 0.2 * 9.81 * 0.01)).abs() < 1e-9,
        "{}",
        b.velocity
    );
}

/// An ellipsoid and a sphere dropped at 6 m/s onto a plane, at h = 0.01, 0.05 and 0.1: every
/// step converges and ends with every gap ≥ −1e-9 (the Newton tolerance, 1e-10, on gaps of
/// order 0.1 m). At h = 0.1 the guess (start velocities) carries the bodies 0.6 m in one step,
/// through the plane; closest points started at the start poses then let Newton meet the
/// bodies' far sides, where the normals agree and the closest-point conditions hold too (a
/// stall, or a body through the plane); started where the bodies carry them, they stay on the
/// near side.
#[test]
fn fast_impacts_at_large_steps_land_on_the_plane() {
    use glam::DQuat;
    use grains_kernels::geometric::Pose;
    for h in [0.01, 0.05, 0.1] {
        let mut s = ImplicitSystem::new(h, DVec3::new(0.0, 0.0, -9.81)).unwrap();
        let plane = s.add_body(RigidBody::floor(DVec3::Z)).unwrap();
        let tilt = DQuat::from_axis_angle(DVec3::Y, 0.3);
        let ellipsoid = s
            .add_body(
                RigidBody::ellipsoid(
                    DVec3::new(0.2, 0.1, 0.1),
                    1.0,
                    Pose {
                        position: DVec3::new(0.0, 0.0, 0.4),
                        orientation: tilt,
                    },
                )
                .with_velocity(DVec3::new(0.0, 0.0, -6.0), DVec3::ZERO),
            )
            .unwrap();
        let sphere = s
            .add_body(
                RigidBody::sphere(0.1, 1.0, DVec3::new(0.5, 0.0, 0.4))
                    .with_velocity(DVec3::new(0.0, 0.0, -6.0), DVec3::ZERO),
            )
            .unwrap();
        for (a, b) in [(plane, ellipsoid), (plane, sphere), (ellipsoid, sphere)] {
            s.add_contact(ContactPair {
                a,
                b,
                friction: Friction::isotropic(0.3, 0.0),
            })
            .unwrap();
        }
        for step in 0..10 {
            let report = s
                .step()
                .unwrap_or_else(|e| panic!("h = {h}, step {step}: {e}"));
            for (c, contact) in report.contacts.iter().enumerate() {
                assert!(
                    contact.gap >= -1e-9,
                    "h = {h}, step {step}, contact {c}: gap {:e}",
                    contact.gap
                );
            }
        }
        let rest = s.bodies()[sphere].pose.position.z;
        assert!(
            (rest - 0.1).abs() < 1e-9,
            "h = {h}: the sphere rests at z = {rest}"
        );
    }
}
