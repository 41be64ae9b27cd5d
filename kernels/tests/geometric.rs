//! The geometrically implicit stepper (Chakraborty et al.) against the paper's three examples
//! and their closed forms, and the end-of-step penetration of two ellipsoids against a
//! linearised-gap step of the same bodies.

use glam::{DQuat, DVec3};
use grains_kernels::geometric::{
    ContactPair, Friction, GapModel, ImplicitError, ImplicitSurface, ImplicitSystem, Pose,
    RigidBody, StepReport, MAX_BODIES, MAX_CONTACTS,
};

fn at(position: DVec3) -> Pose {
    Pose {
        position,
        orientation: DQuat::IDENTITY,
    }
}

fn floor(normal: DVec3) -> RigidBody {
    RigidBody::fixed(ImplicitSurface::HalfSpace { normal }, at(DVec3::ZERO))
}

fn friction(mu: f64, e_r: f64) -> Friction {
    Friction {
        mu,
        e_t: 1.0,
        e_o: 1.0,
        e_r,
    }
}

/// Steps `system` `steps` times, handing every report to `each`; the most Newton iterations
/// any step took.
fn run(system: &mut ImplicitSystem, steps: usize, mut each: impl FnMut(&ImplicitSystem, &StepReport)) -> usize {
    let mut most = 0;
    for _ in 0..steps {
        let report = system.step().unwrap_or_else(|e| panic!("{e}"));
        most = most.max(report.newton.iterations);
        each(system, &report);
    }
    most
}

/// Example 2 (V8's parameters): a unit sphere (m = 1, I = 0.4) spinning at ω_z = 1.962 on a
/// plane, μ = 0.2, e_r = 0.4, h = 0.07. The spin torque is e_r μ m g = 0.7848, so ω_z falls
/// at 1.962 per second and stops at t = 1; all other velocities stay 0.
#[test]
fn example_2_spinning_sphere_stops_at_the_analytic_time() {
    let h = 0.07;
    let mut system = ImplicitSystem::new(h, DVec3::new(0.0, 0.0, -9.81)).unwrap();
    let plane = system.add_body(floor(DVec3::Z)).unwrap();
    let ball = system
        .add_body(
            RigidBody::sphere(1.0, 1.0, DVec3::new(0.0, 0.0, 1.0))
                .with_velocity(DVec3::ZERO, DVec3::new(0.0, 0.0, 1.962)),
        )
        .unwrap();
    system
        .add_contact(ContactPair {
            a: plane,
            b: ball,
            friction: friction(0.2, 0.4),
        })
        .unwrap();
    let mut stop = None;
    let most = run(&mut system, 25, |s, report| {
        let body = s.bodies()[ball];
        let t = s.time();
        // The decay is exact up to the solver tolerance (10⁻¹⁰ on the residual) while sliding.
        let expected = (1.962 * (1.0 - t)).max(0.0);
        assert!(
            (body.angular_velocity.z - expected).abs() < 1e-8,
            "t = {t}: ω_z = {} vs {expected}",
            body.angular_velocity.z
        );
        let others = body.velocity.length() + body.angular_velocity.truncate().length();
        assert!(others < 1e-8, "t = {t}: other velocities {others:e}");
        assert!(report.contacts[0].gap.abs() < 1e-9, "gap {:e}", report.contacts[0].gap);
        if stop.is_none() && body.angular_velocity.z.abs() < 1e-9 {
            stop = Some(t);
        }
    });
    let stop = stop.expect("the sphere stops spinning");
    println!("example 2: spin stops at t = {stop:.4} (analytic 1.0, h = {h}); at most {most} Newton iterations a step");
    // With a fixed step the stop lands on the first step end at or after t = 1 (the paper: 1.05).
    assert!((stop - 1.0).abs() <= h + 1e-9, "stop at {stop}");
}
