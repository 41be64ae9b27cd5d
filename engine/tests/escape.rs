//! Grains that leave the world's domain (the box its walls enclose, open upwards, with its
//! sinks and insertion regions) are a fault by default: the step they leave it in stops with
//! one line naming the grain and the domain, and a grain placed outside it is refused at
//! build. `Health::escape` = off allows an open domain.

use grains::{
    Body, BoxContainer, BuildError, Check, Domain, Fault, Health, Material, MaterialId, Settings,
    Sink, SinkShape, StepError, Vec3, WallDesc, World,
};

/// A 0.2 m open box (floor at z = 0), its floor switched off from `gate` s on.
fn boxed(settings: Settings, gate: f64) -> grains::WorldBuilder {
    gated_box(settings, 0, gate)
}

/// A 0.2 m open box (floor at z = 0), its wall `k` (0 the floor, then the sides in
/// `BoxContainer::walls`' order) switched off from `gate` s on.
fn gated_box(settings: Settings, k: usize, gate: f64) -> grains::WorldBuilder {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    let walls = BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: 0.2,
        width_y: 0.2,
        height: 0.2,
        material: MaterialId(0),
        motion: None,
    }
    .walls();
    for (i, w) in walls.into_iter().enumerate() {
        b.wall(match i == k {
            true => w.active_between(f64::NEG_INFINITY, gate),
            false => w,
        });
    }
    b
}

fn escape(check: Check) -> Settings {
    Settings {
        health: Health {
            escape: check,
            ..Health::default()
        },
        ..Settings::default()
    }
}

/// One sphere shot at 1e4 m/s through the box's +x wall, a gate open from the start, leaves
/// the box in one step (before the check: it ended 1 m outside with nothing said); the step it
/// leaves in stops, naming it. (A closed wall now stops it: `fast_grains.rs`.)
#[test]
fn a_sphere_shot_through_the_wall_stops_the_step_it_leaves_in() {
    let mut b = gated_box(Settings::default(), 2, 0.0);
    b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.005, 0.001).with_velocity(Vec3::X * 1e4));
    let mut w = b.build().unwrap();
    let d = w.domain().expect("a box has a domain");
    assert_eq!(d.lo, Vec3::new(-0.1, -0.1, 0.0));
    assert_eq!((d.hi.x, d.hi.y), (0.1, 0.1));
    assert_eq!(d.hi.z, f32::INFINITY, "open upwards");
    let e = w.run(100).expect_err("the sphere leaves the box");
    let StepError::Health {
        step,
        fault: Fault::Escaped { body: 0, x, .. },
    } = e
    else {
        panic!("expected an escape, got {e}");
    };
    assert_eq!(step, w.steps());
    assert!(x > 0.105, "{e}");
    let line = e.to_string();
    assert!(
        line.contains("left the domain") && !line.contains('\n'),
        "{line}"
    );
}

/// A lattice placed beside the box would fall past it with every grain escaped: refused at
/// build, naming the body and its position.
#[test]
fn grains_placed_outside_the_walls_are_refused_at_build() {
    let mut b = boxed(Settings::default(), f64::INFINITY);
    b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.005, 0.001));
    b.body(Body::sphere(Vec3::new(0.5, 0.0, 0.05), 0.005, 0.001));
    match b.build() {
        Err(
            e @ BuildError::Body {
                body: 1,
                field: "position",
                ..
            },
        ) => assert!(
            e.to_string().contains("outside the box the walls enclose"),
            "{e}"
        ),
        r => panic!("expected a refusal of body 1, got {:?}", r.err()),
    }
    // Above the open top is inside; a fixed body outside is no grain.
    let mut b = boxed(Settings::default(), f64::INFINITY);
    b.body(Body::sphere(Vec3::new(0.0, 0.0, 5.0), 0.005, 0.001));
    b.body(Body::sphere(Vec3::new(0.5, 0.0, 0.05), 0.005, 0.001).fixed());
    b.build().unwrap();
}

/// With the check off (an open domain) the shot sphere flies on; set to warn, the step
/// succeeds and the fault is kept.
#[test]
fn an_open_domain_lets_grains_go() {
    for check in [Check::Off, Check::Warn] {
        let mut b = boxed(escape(check), f64::INFINITY);
        b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.005, 0.001).with_velocity(Vec3::X * 1e4));
        b.body(Body::sphere(Vec3::new(0.5, 0.0, 0.05), 0.005, 0.001));
        let mut w = b.build().unwrap();
        w.run(20).unwrap();
        let warned = w.take_warnings();
        match check {
            Check::Warn => assert!(
                matches!(warned.first(), Some((1, Fault::Escaped { .. }))),
                "{warned:?}"
            ),
            _ => assert!(warned.is_empty()),
        }
    }
}

/// Grains that fall out through a gate into a sink leave on purpose: the sink belongs to the
/// domain. Without the sink the same grains are a fault.
#[test]
fn a_sink_below_an_outlet_belongs_to_the_domain() {
    for with_sink in [true, false] {
        let mut b = boxed(Settings::default(), 0.01);
        for k in 0..4 {
            let p = Vec3::new(-0.05 + 0.03 * k as f32, 0.0, 0.02);
            b.body(Body::sphere(p, 0.005, 0.001));
        }
        if with_sink {
            b.sink(Sink::new(
                "below",
                SinkShape::Box {
                    min: Vec3::new(-0.1, -0.1, -1.0),
                    max: Vec3::new(0.1, 0.1, -0.1),
                },
            ));
        }
        let mut w = b.build().unwrap();
        let run = w.run(400);
        match with_sink {
            true => {
                run.unwrap();
                assert_eq!(w.len(), 0, "the sink took every grain");
            }
            false => assert!(
                matches!(
                    run,
                    Err(StepError::Health {
                        fault: Fault::Escaped { .. },
                        ..
                    })
                ),
                "{run:?}"
            ),
        }
    }
}

/// A grain thrown up out of the open box (the side gravity points away from) is inside the
/// domain; a floor alone bounds z from below only; no walls, or a tilted plane, give none; a
/// shaken box's domain is widened by its stroke.
#[test]
fn the_domain_is_the_walls_box_open_upwards() {
    let mut b = boxed(Settings::default(), f64::INFINITY);
    b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.005, 0.001).with_velocity(Vec3::Z * 30.0));
    b.build().unwrap().run(500).unwrap();

    let domain = |walls: &[WallDesc]| {
        let mut b = World::builder(Settings::default());
        b.material(Material::new(0.5));
        for w in walls {
            b.wall(*w);
        }
        b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.005, 0.001));
        b.build().unwrap().domain()
    };
    let floor = domain(&[WallDesc::plane(Vec3::ZERO, Vec3::Z)]).unwrap();
    assert_eq!(
        floor,
        Domain {
            lo: Vec3::new(f32::NEG_INFINITY, f32::NEG_INFINITY, 0.0),
            hi: Vec3::INFINITY,
        }
    );
    assert_eq!(domain(&[]), None);
    let tilted = WallDesc::plane(Vec3::ZERO, Vec3::new(0.3, 0.0, 1.0));
    assert_eq!(domain(&[tilted]), None);
    let shaken = BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: 0.2,
        width_y: 0.2,
        height: 0.2,
        material: MaterialId(0),
        motion: Some(grains::Prescribed::vertical_shake(0.01, 10.0)),
    }
    .walls();
    let d = domain(&shaken).unwrap();
    assert!((d.lo.z + 0.01).abs() < 1e-6 && d.lo.x == -0.1, "{d:?}");
}
