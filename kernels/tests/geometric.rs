//! The geometrically implicit stepper (Chakraborty et al.) against the paper's three examples
//! and their closed forms, and the end-of-step penetration of two ellipsoids against a
//! linearised-gap step of the same bodies.

use glam::{DQuat, DVec3};
use grains_kernels::geometric::{
    ContactPair, Friction, GapModel, ImplicitError, ImplicitSurface, ImplicitSystem,
    NewtonSettings, Pose, RigidBody, StepReport, MAX_BODIES, MAX_CONTACTS,
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
fn run(
    system: &mut ImplicitSystem,
    steps: usize,
    mut each: impl FnMut(&ImplicitSystem, &StepReport),
) -> usize {
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
        assert!(
            report.contacts[0].gap.abs() < 1e-9,
            "gap {:e}",
            report.contacts[0].gap
        );
        if stop.is_none() && body.angular_velocity.z.abs() < 1e-9 {
            stop = Some(t);
        }
    });
    let stop = stop.expect("the sphere stops spinning");
    println!("example 2: spin stops at t = {stop:.4} (analytic 1.0, h = {h}); at most {most} Newton iterations a step");
    // With a fixed step the stop lands on the first step end at or after t = 1 (the paper: 1.05).
    assert!((stop - 1.0).abs() <= h + 1e-9, "stop at {stop}");
}

/// Example 1 (V11): the unit disc (m = 1, I = ½) rolling without slip on a line at
/// ν = (−3, 0, 3), μ = 0.4, h = 0.01, for 10 s. A smooth disc rolling on a line loses nothing:
/// its kinetic energy 6.75 stays constant. The only error of the implicit step is the solver's
/// (‖Φ‖∞ ≤ 10⁻¹⁰ per step, so ≤ 10⁻⁷ accumulated over 1000 steps), hence 10⁻⁶ relative.
#[test]
fn example_1_disc_rolls_without_energy_loss() {
    let h = 0.01;
    let mut system = ImplicitSystem::new(h, DVec3::new(0.0, -9.81, 0.0)).unwrap();
    let line = system.add_body(floor(DVec3::Y)).unwrap();
    let disc = system
        .add_body(
            RigidBody::planar_disc(1.0, 1.0, DVec3::new(0.0, 1.0, 0.0))
                .with_velocity(DVec3::new(-3.0, 0.0, 0.0), DVec3::new(0.0, 0.0, 3.0)),
        )
        .unwrap();
    system
        .add_contact(ContactPair {
            a: line,
            b: disc,
            friction: friction(0.4, 1.0),
        })
        .unwrap();
    let start = system.kinetic_energy();
    assert!((start - 6.75).abs() < 1e-12);
    let mut worst: f64 = 0.0;
    let most = run(&mut system, 1000, |s, report| {
        worst = worst.max((s.kinetic_energy() - start).abs() / start);
        assert!(
            report.contacts[0].slip < 1e-8,
            "slip {:e}",
            report.contacts[0].slip
        );
    });
    let disc = system.bodies()[disc];
    println!(
        "example 1: 10 s at h = {h}: worst kinetic-energy drift {worst:.2e} relative, x = {:.6} (rolling: −30), at most {most} Newton iterations a step",
        disc.pose.position.x
    );
    assert!(worst < 1e-6, "energy drift {worst:e}");
    assert!((disc.pose.position.x + 30.0).abs() < 1e-6);
}

/// Example 3 (V12): a unit sphere (m = 1, I = 0.4) on two fixed spheres (radius 10 at the
/// origin, radius 9 at (0, 11.4, 0)) under the force (1, 2.6, −9.81), from rest,
/// μ = 0.2, e_r = 0.3, h = 0.01. The paper (figures 7 and 8): contact 1 slides from the start,
/// its friction at μ λ_n, and separates at about 3.2 s; contact 2 rolls until about 3 s, then
/// slides, and separates at about 3.6 s.
#[test]
fn example_3_sphere_on_two_spheres_matches_the_paper_transitions() {
    let h = 0.01;
    let mut system = ImplicitSystem::new(h, DVec3::ZERO).unwrap();
    let big = system
        .add_body(RigidBody::fixed(
            ImplicitSurface::sphere(10.0),
            at(DVec3::ZERO),
        ))
        .unwrap();
    let other = system
        .add_body(RigidBody::fixed(
            ImplicitSurface::sphere(9.0),
            at(DVec3::new(0.0, 11.4, 0.0)),
        ))
        .unwrap();
    let mut ball = RigidBody::sphere(
        1.0,
        1.0,
        DVec3::new(0.0, 6.62105263157895, 8.78417110772903),
    );
    ball.applied_force = DVec3::new(1.0, 2.6, -9.81);
    let ball = system.add_body(ball).unwrap();
    for support in [big, other] {
        system
            .add_contact(ContactPair {
                a: support,
                b: ball,
                friction: friction(0.2, 0.3),
            })
            .unwrap();
    }
    // Per contact: time of separation, and (contact 2) of the start of sliding.
    let mut separated = [None, None];
    let mut slides = None;
    let mut first = None;
    let most = run(&mut system, 450, |s, report| {
        let t = s.time();
        for (c, state) in report.contacts.iter().enumerate() {
            let touching = state.normal_impulse > 1e-12;
            if touching {
                // The ellipsoid's norm ‖(p_t/e_t, p_o/e_o, p_r/e_r)‖ (e_t = e_o = 1).
                let p = state.friction_impulse;
                let friction = DVec3::new(p.x, p.y, p.z / 0.3).length();
                let bound = 0.2 * state.normal_impulse;
                // Inside the cone always; on its edge while sliding (to the solver tolerance).
                assert!(
                    friction <= bound + 1e-9,
                    "t = {t}: contact {c} outside the cone"
                );
                if state.slip > 1e-6 {
                    assert!(
                        (friction - bound).abs() < 1e-8,
                        "t = {t}: contact {c} slides inside the cone ({friction} < {bound})"
                    );
                }
            } else if separated[c].is_none() && t > 0.1 {
                separated[c] = Some(t);
            }
        }
        if first.is_none() {
            first = Some((report.contacts[0].slip, report.contacts[1].slip));
        }
        if slides.is_none() && report.contacts[1].slip > 1e-6 {
            slides = Some(t);
        }
    });
    let (slip_1, slip_2) = first.unwrap();
    let sep = separated.map(|t| t.expect("both contacts separate by t = 4.5"));
    let slides = slides.expect("contact 2 starts to slide");
    println!(
        "example 3: contact 1 slides from the start (slip {slip_1:.2e}), separates at t = {:.2}; contact 2 rolls (slip {slip_2:.1e}) until t = {slides:.2}, separates at t = {:.2}; at most {most} Newton iterations a step",
        sep[0], sep[1]
    );
    assert!(slip_1 > 1e-4 && slip_2 < 1e-8);
    // The paper reads its times off figures 7 and 8 ("approximately"): ±0.2 s.
    assert!(
        (sep[0] - 3.2).abs() < 0.2,
        "contact 1 separates at {}",
        sep[0]
    );
    assert!((slides - 3.0).abs() < 0.2, "contact 2 slides from {slides}");
    assert!(
        (sep[1] - 3.6).abs() < 0.2,
        "contact 2 separates at {}",
        sep[1]
    );
}

/// The deepest end-of-step penetration (−gap, measured exactly by the closest points after
/// each step) of an ellipsoid (0.6, 0.3, 0.3), m = 1, spinning at ω = (0, 5, 0) about a
/// horizontal axis on a fixed ellipsoid (4, 4, 1), frictionless, under gravity, for 1 s at step
/// `h` with the gap `model`; with the most Newton iterations a step and the share of steps that
/// end with a normal impulse.
fn ellipsoid_penetration(h: f64, model: GapModel) -> (f64, usize, f64) {
    let mut system = ImplicitSystem::new(h, DVec3::new(0.0, 0.0, -9.81))
        .unwrap()
        .with_gap_model(model);
    let ground = system
        .add_body(RigidBody::fixed(
            ImplicitSurface::Ellipsoid {
                semi_axes: DVec3::new(4.0, 4.0, 1.0),
            },
            at(DVec3::ZERO),
        ))
        .unwrap();
    let spinner = system
        .add_body(
            RigidBody::ellipsoid(
                DVec3::new(0.6, 0.3, 0.3),
                1.0,
                at(DVec3::new(0.0, 0.0, 1.3)),
            )
            .with_velocity(DVec3::ZERO, DVec3::new(0.0, 5.0, 0.0)),
        )
        .unwrap();
    system
        .add_contact(ContactPair {
            a: ground,
            b: spinner,
            friction: friction(0.0, 1.0),
        })
        .unwrap();
    let steps = (1.0 / h).round() as usize;
    let mut deepest: f64 = 0.0;
    let mut touching = 0;
    let most = run(&mut system, steps, |s, report| {
        let gap = s.closest_points(0).unwrap_or_else(|e| panic!("{e}")).gap;
        deepest = deepest.max(-gap);
        touching += usize::from(report.contacts[0].normal_impulse > 1e-12);
    });
    (deepest, most, touching as f64 / steps as f64)
}

/// Two ellipsoids in contact at h = 0.01 … 0.1: the implicit step ends each step with the
/// contact conditions at the end-of-step poses, so its penetration is at the solver tolerance
/// (10⁻¹⁰ on the residual; 10⁻⁹ allowed for the exact gap found afterwards); the linearised
/// gap misses the curvature of both surfaces over the step, so its penetration grows with h
/// (O(h²) per step for a rotating contact).
#[test]
fn ellipsoids_end_steps_without_penetration_where_the_linearised_gap_penetrates() {
    println!("| h | implicit: deepest penetration | steps in contact | most Newton its | linearised gap: deepest penetration | steps in contact |");
    println!("|---|---|---|---|---|---|");
    let mut previous = 0.0;
    for h in [0.01, 0.02, 0.05, 0.1] {
        let (implicit, its, share) = ellipsoid_penetration(h, GapModel::GeometricallyImplicit);
        let (linearised, _, linearised_share) = ellipsoid_penetration(h, GapModel::Linearised);
        println!(
            "| {h} | {implicit:.1e} | {:.0} % | {its} | {linearised:.2e} | {:.0} % |",
            100.0 * share,
            100.0 * linearised_share
        );
        assert!(
            implicit < 1e-9,
            "h = {h}: implicit penetration {implicit:e}"
        );
        // The spinner must be pressed on the ground for the check to mean anything.
        assert!(
            share > 0.5,
            "h = {h}: implicit in contact in only {share} of the steps"
        );
        assert!(
            linearised > previous,
            "h = {h}: linearised penetration {linearised:e} did not grow"
        );
        previous = linearised;
    }
    assert!(
        previous > 1e-3,
        "linearised penetration at h = 0.1: {previous:e}"
    );
}

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
                friction: friction(0.2, 0.1),
            })
            .unwrap();
    }
    let extra = system.add_contact(ContactPair {
        a: 0,
        b: 5,
        friction: friction(0.2, 0.1),
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
    let plane = small.add_body(floor(DVec3::Z)).unwrap();
    let ball = small
        .add_body(
            RigidBody::sphere(1.0, 1.0, DVec3::new(0.0, 0.0, 1.0))
                .with_velocity(DVec3::ZERO, DVec3::new(0.0, 0.0, 1.962)),
        )
        .unwrap();
    let bad = small.add_contact(ContactPair {
        a: plane,
        b: ball,
        friction: friction(0.2, 0.0),
    });
    assert!(matches!(bad, Err(ImplicitError::BadParameter(_))));
    assert!(matches!(
        small.add_contact(ContactPair {
            a: plane,
            b: plane,
            friction: friction(0.2, 0.4)
        }),
        Err(ImplicitError::BadParameter(_))
    ));
    small
        .add_contact(ContactPair {
            a: plane,
            b: ball,
            friction: friction(0.2, 0.4),
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
