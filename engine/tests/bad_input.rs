//! Building a world from bad input gives a typed error naming the item and the field.

use glam::{Quat, Vec3};
use grains::{
    AppliedForce, Backend, Body, BuildError, JointDesc, Material, Settings, Solver, SpringDesc,
    WallDesc, World,
};

/// The solver the GPU backend runs (the only one it takes).
const JACOBI_ON_GPU: Solver = Solver::Jacobi {
    sweeps: 100,
    tolerance: 0.0,
    omega: 1.0,
};

fn world_with(body: Body, mu: f32, settings: Settings) -> Result<World, BuildError> {
    let mut b = World::builder(settings);
    b.material(Material::new(mu));
    b.body(Body::sphere(Vec3::ZERO, 1.0, 1.0));
    b.body(body);
    b.build()
}

fn body_field(r: Result<World, BuildError>) -> (usize, &'static str) {
    match r {
        Err(BuildError::Body { body, field, .. }) => (body, field),
        Err(e) => panic!("expected a body error, got {e}"),
        Ok(_) => panic!("expected a body error, got a world"),
    }
}

fn good() -> Body {
    Body::sphere(Vec3::new(5.0, 0.0, 0.0), 1.0, 1.0)
}

#[test]
fn negative_radius_names_body_and_field() {
    let b = Body {
        radius: -1.0,
        ..good()
    };
    assert_eq!(
        body_field(world_with(b, 0.5, Settings::default())),
        (1, "radius")
    );
}

#[test]
fn zero_or_negative_mass_is_refused() {
    for m in [0.0, -2.0] {
        let b = Body { mass: m, ..good() };
        assert_eq!(
            body_field(world_with(b, 0.5, Settings::default())),
            (1, "mass")
        );
    }
}

#[test]
fn non_unit_quaternion_is_refused() {
    let b = Body {
        orientation: Quat::from_xyzw(0.0, 0.0, 0.0, 2.0),
        ..good()
    };
    assert_eq!(
        body_field(world_with(b, 0.5, Settings::default())),
        (1, "orientation")
    );
}

#[test]
fn nan_anywhere_in_a_body_is_refused() {
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    assert_eq!(
        body_field(world_with(
            Body {
                position: nan,
                ..good()
            },
            0.5,
            Settings::default()
        )),
        (1, "position")
    );
    assert_eq!(
        body_field(world_with(
            good().with_velocity(nan),
            0.5,
            Settings::default()
        )),
        (1, "velocity")
    );
    assert_eq!(
        body_field(world_with(
            good().with_angular_velocity(nan),
            0.5,
            Settings::default()
        )),
        (1, "angular_velocity")
    );
    assert_eq!(
        body_field(world_with(
            Body {
                radius: f32::NAN,
                ..good()
            },
            0.5,
            Settings::default()
        )),
        (1, "radius")
    );
}

#[test]
fn negative_friction_is_refused() {
    let r = world_with(good(), -0.1, Settings::default());
    assert!(
        matches!(
            r,
            Err(BuildError::Material {
                material: 0,
                field: "friction",
                ..
            })
        ),
        "{:?}",
        r.err()
    );
}

#[test]
fn restitution_outside_zero_one_is_refused() {
    for e in [-0.1, 1.5, f32::NAN] {
        let mut b = World::builder(Settings::default());
        b.material(Material::new(0.5));
        b.material(Material::new(0.5).with_restitution(e));
        b.body(good());
        let r = b.build();
        match r {
            Err(BuildError::Material {
                material: 1,
                field: "restitution",
                ref problem,
            }) => assert!(problem.contains(&e.to_string()), "e = {e}: {problem}"),
            _ => panic!("e = {e}: expected a restitution error, got {:?}", r.err()),
        }
    }
}

#[test]
fn negative_or_non_finite_spinning_and_rolling_lengths_are_refused() {
    for length in [-0.1, f32::NAN, f32::INFINITY] {
        for field in ["spinning", "rolling"] {
            let material = match field {
                "spinning" => Material::new(0.5).with_spinning(length),
                _ => Material::new(0.5).with_rolling(length),
            };
            let mut b = World::builder(Settings::default());
            b.material(Material::new(0.5));
            b.material(material);
            b.body(good());
            let r = b.build();
            match r {
                Err(BuildError::Material {
                    material: 1,
                    field: f,
                    ref problem,
                }) if f == field => assert!(
                    problem.contains(&length.to_string()),
                    "{field} = {length}: {problem}"
                ),
                _ => panic!(
                    "{field} = {length}: expected a {field} error, got {:?}",
                    r.err()
                ),
            }
        }
    }
}

#[test]
fn the_gpu_backend_takes_spinning_and_rolling_friction() {
    for material in [
        Material::new(0.5).with_spinning(0.01),
        Material::new(0.5).with_rolling(0.01),
    ] {
        let mut b = World::builder(Settings {
            backend: Backend::Gpu,
            solver: JACOBI_ON_GPU,
            ..Settings::default()
        });
        b.material(material);
        b.body(good());
        match b.build() {
            Ok(_) => {}
            Err(BuildError::NoGpuAdapter(why)) => eprintln!("skipped: no GPU adapter ({why})"),
            Err(e) => panic!("the GPU refused spinning or rolling friction: {e}"),
        }
    }
}

#[test]
fn non_positive_or_nan_step_is_refused() {
    for h in [0.0, -1e-3, f32::NAN, f32::INFINITY] {
        let r = world_with(
            good(),
            0.5,
            Settings {
                h,
                ..Settings::default()
            },
        );
        assert!(
            matches!(r, Err(BuildError::Settings { field: "h", .. })),
            "h = {h}: {:?}",
            r.err()
        );
    }
}

#[test]
fn a_zero_wall_normal_is_refused() {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.3));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::ZERO));
    assert!(matches!(
        b.build(),
        Err(BuildError::Wall {
            wall: 0,
            field: "normal",
            ..
        })
    ));
}

#[test]
fn the_message_names_body_field_and_value() {
    let b = Body {
        radius: -1.0,
        ..good()
    };
    let msg = world_with(b, 0.5, Settings::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        msg.contains("body 1") && msg.contains("radius") && msg.contains("-1"),
        "{msg}"
    );
}

#[test]
fn zero_sync_every_is_refused() {
    let r = world_with(
        good(),
        0.5,
        Settings {
            sync_every: 0,
            ..Settings::default()
        },
    );
    match r {
        Err(
            e @ BuildError::Settings {
                field: "sync_every",
                ..
            },
        ) => assert!(e.to_string().contains("sync_every"), "{e}"),
        Err(e) => panic!("expected a sync_every error, got {e}"),
        Ok(_) => panic!("sync_every = 0 was accepted"),
    }
}

/// Two dynamic spheres and a fixed one (body 2), with `add` adding joints, springs or forces.
fn linked(
    settings: Settings,
    add: impl FnOnce(&mut grains::WorldBuilder),
) -> Result<World, BuildError> {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::ZERO, 0.1, 1.0));
    b.body(Body::sphere(Vec3::new(1.0, 0.0, 0.0), 0.1, 1.0));
    b.body(Body::sphere(Vec3::new(2.0, 0.0, 0.0), 0.1, 1.0).fixed());
    add(&mut b);
    b.build()
}

fn joint_field(r: Result<World, BuildError>) -> (usize, &'static str) {
    match r {
        Err(BuildError::Joint { joint, field, .. }) => (joint, field),
        Err(e) => panic!("expected a joint error, got {e}"),
        Ok(_) => panic!("expected a joint error, got a world"),
    }
}

#[test]
fn bad_joints_name_the_joint_and_the_field() {
    let ok = JointDesc::ball(0, Some(1), Vec3::new(0.5, 0.0, 0.0));
    let cases: [(JointDesc, &str); 9] = [
        (JointDesc { b: Some(0), ..ok }, "b"),
        (JointDesc { a: 7, ..ok }, "a"),
        (JointDesc { b: Some(3), ..ok }, "b"),
        (
            JointDesc {
                a: 2,
                b: None,
                ..ok
            },
            "a",
        ),
        (
            JointDesc::ball(0, Some(1), Vec3::new(f32::NAN, 0.0, 0.0)),
            "anchor",
        ),
        (JointDesc::hinge(0, Some(1), Vec3::ZERO, Vec3::ZERO), "axis"),
        (
            JointDesc::prismatic(0, None, Vec3::ZERO, Vec3::new(0.0, f32::INFINITY, 0.0)),
            "axis",
        ),
        (
            JointDesc::distance(0, Some(1), Vec3::ZERO, Vec3::ZERO),
            "anchor_b",
        ),
        (ok.with_motor(1.0, 5.0), "motor"),
    ];
    for (j, field) in cases {
        // The bad joint comes second: the error names its index.
        let r = linked(Settings::default(), |b| {
            b.joint(ok);
            b.joint(j);
        });
        assert_eq!(joint_field(r), (1, field), "{j:?}");
    }
    let bad_bound = JointDesc::hinge(0, None, Vec3::ZERO, Vec3::Z).with_motor(1.0, -2.0);
    assert_eq!(
        joint_field(linked(Settings::default(), |b| {
            b.joint(bad_bound);
        })),
        (0, "motor")
    );
    let r = linked(Settings::default(), |b| {
        b.joint(JointDesc::fixed(1, Some(0), Vec3::new(0.5, 0.0, 0.0)));
    });
    assert!(r.is_ok());
}

#[test]
fn bad_springs_and_forces_name_the_item_and_the_field() {
    let spring = SpringDesc::new(0, Some(1), Vec3::ZERO, Vec3::X).with_damping(1.0);
    let cases: [(SpringDesc, &str); 5] = [
        (
            SpringDesc {
                damping: 0.0,
                ..spring
            },
            "stiffness",
        ),
        (spring.with_stiffness(-1.0), "stiffness"),
        (spring.with_damping(f32::NAN), "damping"),
        (spring.with_rest_length(-0.5), "rest_length"),
        (
            SpringDesc {
                anchor_b: Vec3::ZERO,
                ..spring
            },
            "anchor_b",
        ),
    ];
    for (s, field) in cases {
        match linked(Settings::default(), |b| {
            b.spring(s);
        }) {
            Err(BuildError::Spring {
                spring: 0,
                field: f,
                ..
            }) => assert_eq!(f, field, "{s:?}"),
            Err(e) => panic!("{s:?}: expected a spring error, got {e}"),
            Ok(_) => panic!("{s:?} was accepted"),
        }
    }
    let force = AppliedForce::constant(0, Vec3::X);
    let cases: [(AppliedForce, &str); 3] = [
        (AppliedForce { body: 2, ..force }, "body"),
        (AppliedForce { body: 9, ..force }, "body"),
        (
            AppliedForce {
                force: Vec3::new(0.0, f32::NAN, 0.0),
                ..force
            },
            "force",
        ),
    ];
    for (f, field) in cases {
        match linked(Settings::default(), |b| {
            b.force(f);
        }) {
            Err(BuildError::Force {
                force: 0,
                field: got,
                ..
            }) => assert_eq!(got, field, "{f:?}"),
            Err(e) => panic!("{f:?}: expected a force error, got {e}"),
            Ok(_) => panic!("{f:?} was accepted"),
        }
    }
}

/// Adds something to a world being built.
type Adds = fn(&mut grains::WorldBuilder);

#[test]
fn the_gpu_backend_refuses_joints_and_springs_with_a_typed_error() {
    let gpu = Settings {
        backend: Backend::Gpu,
        solver: JACOBI_ON_GPU,
        ..Settings::default()
    };
    let attempts: [(&str, Adds); 2] = [
        ("joints", |b| {
            b.joint(JointDesc::ball(0, Some(1), Vec3::X));
        }),
        ("springs", |b| {
            b.spring(SpringDesc::new(0, Some(1), Vec3::ZERO, Vec3::X).with_stiffness(1.0));
        }),
    ];
    for (what, add) in attempts {
        match linked(gpu, add) {
            Err(e @ (BuildError::Joint { .. } | BuildError::Spring { .. })) => {
                let msg = e.to_string();
                assert!(
                    msg.contains(what) && msg.contains("the GPU backend") && msg.contains("CPU"),
                    "{what}: {msg}"
                )
            }
            Err(e) => panic!("{what}: expected the joint's or spring's refusal, got {e}"),
            Ok(_) => panic!("{what}: the GPU backend accepted it"),
        }
    }
}

/// A world of one sphere of radius 0.05 m at `centre` and the wall `wall`, rigid contact,
/// h = 1 ms.
fn sphere_by_wall(centre: Vec3, wall: WallDesc, fixed: bool) -> Result<World, BuildError> {
    // The start check of bodies inside walls, not the domain's: a sphere under a shelf would
    // be outside the box the walls enclose (see `escape.rs`).
    let mut b = World::builder(Settings {
        health: grains::Health {
            escape: grains::Check::Off,
            ..Default::default()
        },
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::new(0.0, 0.0, 10.0), -Vec3::Z));
    b.wall(wall);
    b.body(Body::sphere(Vec3::new(5.0, 0.0, 5.0), 1.0, 1.0));
    let s = Body::sphere(centre, 0.05, 1.0);
    b.body(if fixed { s.fixed() } else { s });
    b.build()
}

#[test]
fn a_sphere_starting_inside_a_floor_names_the_body_the_wall_and_the_depth() {
    let floor = WallDesc::plane(Vec3::ZERO, Vec3::Z);
    let Err(e) = sphere_by_wall(Vec3::new(0.0, 0.0, 0.01), floor, false) else {
        panic!("a sphere 4 cm inside the floor was accepted");
    };
    assert_eq!(
        e.to_string(),
        "body 1: position is 4.000e-2 m inside wall 1 (a plane) at the start, more than 1 % of its radius 0.05 m: the first step would shoot it out at 4.000e1 m/s"
    );
}

#[test]
fn a_sphere_behind_a_plane_is_inside_it_but_one_behind_a_rectangle_is_clear() {
    let below = Vec3::new(0.0, 0.0, -1.0);
    let plane = WallDesc::plane(Vec3::ZERO, Vec3::Z);
    assert_eq!(
        body_field(sphere_by_wall(below, plane, false)),
        (1, "position")
    );
    let shelf = WallDesc::rectangle(Vec3::ZERO, Vec3::Z, Vec3::X, 1.0, 1.0);
    assert!(sphere_by_wall(below, shelf, false).is_ok());
    let beside = Vec3::new(2.0, 0.0, 0.0);
    assert!(
        sphere_by_wall(beside, shelf, false).is_ok(),
        "off the shelf's face"
    );
}

#[test]
fn spheres_on_a_wall_or_within_tolerance_or_fixed_in_it_are_accepted() {
    let floor = WallDesc::plane(Vec3::ZERO, Vec3::Z);
    for z in [0.05, 0.0496] {
        assert!(
            sphere_by_wall(Vec3::new(0.0, 0.0, z), floor, false).is_ok(),
            "z = {z}"
        );
    }
    assert_eq!(
        body_field(sphere_by_wall(Vec3::new(0.0, 0.0, 0.0494), floor, false)),
        (1, "position")
    );
    assert!(sphere_by_wall(Vec3::new(0.0, 0.0, 0.01), floor, true).is_ok());
}

#[test]
fn a_capsule_with_one_end_in_a_side_wall_is_refused() {
    // Axis along x, ends at x = ±0.2; the wall x = 0.22 facing −x: the +x end's surface
    // (r = 0.05) reaches 0.25, 3 cm into it. Moved 4 cm back it only touches and is accepted.
    let build = |x: f32| {
        let mut b = World::builder(Settings::default());
        b.material(Material::new(0.5));
        b.wall(WallDesc::plane(Vec3::new(0.22, 0.0, 0.0), -Vec3::X));
        b.body(Body::capsule(Vec3::new(x, 0.0, 0.0), 0.05, 0.2, 1.0));
        b.build()
    };
    let Err(e) = build(0.0) else {
        panic!("a capsule 3 cm into a wall was accepted");
    };
    assert!(
        e.to_string()
            .starts_with("body 0: position is 3.000e-2 m inside wall 0 (a plane)"),
        "{e}"
    );
    assert!(build(-0.04).is_ok());
}
