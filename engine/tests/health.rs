//! The health check after every step: a non-finite state, an overlap beyond the limit or a
//! kinetic energy nothing could supply stops `World::step` with a typed error naming the step
//! and the cause; valid worlds never trip it; a check set to warn lets the step through.

use grains::{
    BoxContainer, Check, Fault, Health, JointDesc, Material, MaterialId, Settings, Solver,
    StepError, Vec3, WallDesc, World,
};

/// A sphere resting on a floor.
fn resting(settings: Settings) -> World {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(grains::Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.05, 1.0));
    b.build().unwrap()
}

/// A dense bed: `n`³ spheres of radius 5 mm stacked touching in an open box.
fn pile(settings: Settings, n: usize) -> World {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    let r = 0.005;
    let side = 2.0 * r * n as f32;
    b.container(&BoxContainer {
        floor_centre: Vec3::new(0.5 * side, 0.5 * side, 0.0),
        width_x: side * 1.001,
        width_y: side * 1.001,
        height: 2.0 * side,
        material: MaterialId(0),
        motion: None,
    });
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let c = Vec3::new(
                    r + 2.0 * r * i as f32,
                    r + 2.0 * r * j as f32,
                    r + 2.0 * r * k as f32,
                );
                b.body(grains::Body::sphere(c, r, 0.001));
            }
        }
    }
    b.build().unwrap()
}

#[test]
fn a_nan_velocity_stops_the_next_step_naming_the_body() {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for k in 0..3 {
        b.body(grains::Body::sphere(
            Vec3::new(0.2 * k as f32, 0.0, 0.05),
            0.05,
            1.0,
        ));
    }
    let mut w = b.build().unwrap();
    w.run(5).unwrap();
    w.set_velocity(2, Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ZERO)
        .unwrap();
    match w.step() {
        Err(StepError::Health { step, fault }) => {
            assert_eq!(step, 6);
            assert_eq!(w.steps(), 6, "the world holds the failed step");
            match fault {
                Fault::NonFinite { body, .. } => assert_eq!(body, 2),
                f => panic!("expected a non-finite body, got {f}"),
            }
            let line = StepError::Health { step, fault }.to_string();
            assert!(line.starts_with("step 6: body 2: "), "{line}");
            assert!(!line.contains('\n'), "{line}");
        }
        r => panic!("expected a health error, got {r:?}"),
    }
}

#[test]
fn a_joint_anchor_far_away_stops_the_run_instead_of_going_nan() {
    // The V14 chain (10 links r = 2 cm, ball joints at the midpoints) with the first joint's
    // anchor typed as z = -1e12.
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    for k in 0..10 {
        let c = Vec3::new(0.05 + 0.1 * k as f32, 0.0, 1.0);
        b.body(grains::Body::sphere(c, 0.02, 0.1));
    }
    b.joint(JointDesc::ball(0, None, Vec3::new(0.8, 0.0, -1e12)));
    for k in 1..10 {
        b.joint(JointDesc::ball(
            k,
            Some(k - 1),
            Vec3::new(0.1 * k as f32, 0.0, 1.0),
        ));
    }
    let mut w = b.build().unwrap();
    let mut failed = None;
    for _ in 0..10_000 {
        if let Err(e) = w.step() {
            failed = Some(e);
            break;
        }
        let finite = (0..w.len()).all(|i| w.position(i).is_finite() && w.velocity(i).is_finite());
        assert!(finite, "a NaN state went unreported at step {}", w.steps());
    }
    let e = failed.expect("the run must stop");
    assert!(matches!(e, StepError::Health { .. }), "{e}");
}

#[test]
fn jacobi_without_relaxation_on_a_dense_pile_stops() {
    let settings = Settings {
        solver: Solver::Jacobi {
            sweeps: 30,
            tolerance: 0.0,
            omega: 1.0,
        },
        threads: 2,
        ..Settings::granular(2e-3)
    };
    let mut w = pile(settings, 8);
    let e = w.run(500).expect_err("ω = 1 diverges on a pile");
    assert!(matches!(e, StepError::Health { .. }), "{e}");
}

/// h = 0.5 s on a bed of 8,000 grains of radius 5 mm: after one step of gravity every grain
/// may move 2.5 m, so its envelope spans the whole bed. The step stops at once, naming the
/// cause and a step that fits, instead of filling the memory with 32 million contact rows.
#[test]
fn a_step_far_too_large_stops_on_its_contacts_and_suggests_a_step() {
    let settings = Settings {
        threads: 2,
        ..Settings::granular(0.5)
    };
    let e = pile(settings, 20).step().expect_err("h = 0.5 s must stop");
    let StepError::Health {
        step: 1,
        fault: Fault::TooManyContacts {
            ratio, suggested_h, ..
        },
    } = e
    else {
        panic!("{e}");
    };
    assert!(ratio > 100.0, "{e}");
    assert!(suggested_h < 1e-3 && suggested_h > 1e-4, "{e}");
    assert!(e.to_string().contains("use a smaller step"), "{e}");
}

#[test]
fn a_relaxed_pile_and_a_resting_sphere_never_trip_it() {
    let settings = Settings {
        threads: 2,
        ..Settings::granular(2e-3)
    };
    pile(settings, 8).run(500).unwrap();
    resting(Settings::default()).run(2000).unwrap();
}

#[test]
fn a_check_set_to_warn_lets_the_step_through_and_keeps_the_fault() {
    let settings = Settings {
        health: Health {
            non_finite: Check::Warn,
            ..Health::default()
        },
        ..Settings::default()
    };
    let mut w = resting(settings);
    w.set_velocity(0, Vec3::ZERO, Vec3::new(0.0, f32::INFINITY, 0.0))
        .unwrap();
    w.step().unwrap();
    let warnings = w.take_warnings();
    assert!(
        matches!(warnings[..], [(1, Fault::NonFinite { body: 0, .. })]),
        "{warnings:?}"
    );
    let mut off = resting(Settings {
        health: Health::OFF,
        ..Settings::default()
    });
    off.set_velocity(0, Vec3::splat(f32::NAN), Vec3::ZERO)
        .unwrap();
    off.step().unwrap();
    assert!(off.take_warnings().is_empty());
}

#[test]
fn an_overlap_beyond_the_limit_stops_naming_the_depth() {
    // The sphere starts 6 cm (1.2 r) inside a fixed one (the builder refuses one inside a wall).
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    b.body(grains::Body::sphere(Vec3::new(0.0, 0.0, -0.1), 0.05, 1.0).fixed());
    b.body(grains::Body::sphere(Vec3::new(0.0, 0.0, -0.06), 0.05, 1.0));
    let mut w = b.build().unwrap();
    match w.step() {
        Err(StepError::Health {
            step: 1,
            fault: Fault::Penetration { ratio, .. },
        }) => assert!((ratio - 1.2).abs() < 1e-3, "{ratio}"),
        r => panic!("expected an overlap error, got {r:?}"),
    }
}

#[test]
fn settings_out_of_range_are_refused() {
    for health in [
        Health {
            max_penetration: 0.0,
            ..Health::default()
        },
        Health {
            energy_growth: 0.5,
            ..Health::default()
        },
    ] {
        let mut b = World::builder(Settings {
            health,
            ..Settings::default()
        });
        b.material(Material::new(0.5));
        assert!(b.build().is_err());
    }
}

/// The V14 chain of 10 links with the first joint's anchor at `anchor` (the world), and the
/// force `push` on its last link.
fn chain(anchor: Vec3, push: Vec3) -> World {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    for k in 0..10 {
        let c = Vec3::new(0.05 + 0.1 * k as f32, 0.0, 1.0);
        b.body(grains::Body::sphere(c, 0.02, 0.1));
    }
    b.joint(JointDesc::ball(0, None, anchor));
    for k in 1..10 {
        b.joint(JointDesc::ball(
            k,
            Some(k - 1),
            Vec3::new(0.1 * k as f32, 0.0, 1.0),
        ));
    }
    if push != Vec3::ZERO {
        b.force(grains::AppliedForce::constant(9, push));
    }
    b.build().unwrap()
}

/// With the anchor typed as z = -1e12 the chain runs sanely (under 10 J) for about 700 steps,
/// then its f32 lever arm of 1e12 m breaks it and the energy jumps by orders of magnitude: the
/// energy check, on in jointed worlds, stops it in that step (before: 150 steps later, on an
/// overlap of 1e30 J bodies). So it does with a force pushing the last link sideways, which
/// breaks it after 70 steps (the check was off in worlds with forces too).
#[test]
fn a_diverging_jointed_chain_stops_in_the_step_its_energy_jumps() {
    for push in [Vec3::ZERO, Vec3::new(0.0, 0.2, 0.1)] {
        diverging_chain_stops(push);
    }
}

fn diverging_chain_stops(push: Vec3) {
    let mut w = chain(Vec3::new(0.8, 0.0, -1e12), push);
    let mut last = 0.0;
    let e = loop {
        match w.step() {
            Ok(s) => {
                assert!(
                    s.kinetic_energy < 10.0,
                    "step {}: {} J went unreported",
                    w.steps(),
                    s.kinetic_energy
                );
                last = s.kinetic_energy;
            }
            Err(e) => break e,
        }
        assert!(w.steps() < 2000, "the chain must diverge and stop");
    };
    let StepError::Health {
        step,
        fault: Fault::Energy { before, after, .. },
    } = e
    else {
        panic!("expected an energy fault, got {e}");
    };
    assert_eq!(step, w.steps());
    assert!(before == last && after > 10.0 * before, "{e}");
}

/// The same chain anchored where it should be swings for 2 s (its links up to 170 rad/s)
/// without tripping the energy check; its joints' stabilising pull is a supply it allows.
#[test]
fn a_swinging_chain_never_trips_the_energy_check() {
    chain(Vec3::new(0.0, 0.0, 1.0), Vec3::ZERO)
        .run(2000)
        .unwrap();
    chain(Vec3::new(0.0, 0.0, 1.0), Vec3::new(0.0, 0.2, 0.1))
        .run(2000)
        .unwrap();
}

/// A force pushing a sphere from rest in free space supplies exactly ½ (F h)²/m in the first
/// step and F·v h after: the check allows it (a harmonic force too).
#[test]
fn a_pushed_sphere_never_trips_the_energy_check() {
    let mut b = World::builder(Settings {
        gravity: Vec3::ZERO,
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.body(grains::Body::sphere(Vec3::ZERO, 0.05, 2.0));
    b.body(grains::Body::sphere(Vec3::new(1.0, 0.0, 0.0), 0.05, 2.0));
    b.force(grains::AppliedForce::constant(0, Vec3::new(0.0, 30.0, 0.0)));
    b.force(grains::AppliedForce::harmonic(
        1,
        Vec3::new(0.0, 0.0, 50.0),
        20.0,
        0.0,
    ));
    let mut w = b.build().unwrap();
    w.run(3000).unwrap();
    assert!(w.velocity(0).y > 44.0, "{}", w.velocity(0));
}
