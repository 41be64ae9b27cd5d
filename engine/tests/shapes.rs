//! Capsules and ellipses: contacts, V3 and V4, and the typed refusals.

use glam::{Quat, Vec3};
use grains::validation::{shapes, v3_passes, V3_DURATION};
use grains::{Backend, Body, BuildError, Material, Settings, Shape, WallDesc, World};

fn floor_world(settings: Settings, bodies: &[Body]) -> Result<World, BuildError> {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for &body in bodies {
        b.body(body);
    }
    b.build()
}

#[test]
fn capsule_lying_on_the_floor_rests_on_both_ends() {
    let (r, l) = (0.1, 0.5);
    let cap = Body::capsule(Vec3::new(0.0, 0.0, r + 0.05), r, l, 1.0);
    let mut w = floor_world(Settings::default(), &[cap]).unwrap();
    for _ in 0..1000 {
        w.step().unwrap();
    }
    assert_eq!(w.contacts().len(), 2, "one contact per end");
    let p = w.position(0);
    assert!((p.z - r).abs() < 1e-4, "rests at its radius: z = {}", p.z);
    let tilt = (w.orientation(0) * Vec3::X).z.abs();
    assert!(tilt < 1e-4, "stays level: axis z = {tilt}");
    assert!(w.velocity(0).length() < 1e-4);
}

#[test]
fn sphere_comes_to_rest_on_a_lying_capsule() {
    let (rc, rs) = (0.1, 0.05);
    let cap = Body::capsule(Vec3::new(0.0, 0.0, rc), rc, 0.5, 1.0)
        .with_orientation(Quat::from_rotation_z(0.7))
        .fixed();
    let over = Quat::from_rotation_z(0.7) * Vec3::new(0.3, 0.0, 0.0);
    let ball = Body::sphere(over + Vec3::Z * (2.0 * rc + rs + 0.05), rs, 0.1);
    let mut w = floor_world(Settings::default(), &[cap, ball]).unwrap();
    for _ in 0..1500 {
        w.step().unwrap();
    }
    let p = w.position(1);
    let axis = w.orientation(0) * Vec3::X;
    let across = p - axis * p.dot(axis) - Vec3::new(0.0, 0.0, rc);
    assert!(
        (across.length() - rc - rs).abs() < 1e-3,
        "touches the segment's surface: distance {}",
        across.length()
    );
    assert!(
        (p.z - 2.0 * rc - rs).abs() < 1e-3,
        "on top of the capsule, not fallen through: z = {}",
        p.z
    );
}

#[test]
fn ellipse_at_rest_on_its_flat_side_touches_the_floor_at_b() {
    let settings = Settings {
        planar: true,
        ..Settings::default()
    };
    let e = Body::ellipse(Vec3::new(0.0, 0.0, 2.05), 4.0, 2.0, 10.0);
    let mut w = floor_world(settings, &[e]).unwrap();
    for _ in 0..1000 {
        w.step().unwrap();
    }
    assert!(
        (w.position(0).z - 2.0).abs() < 1e-4,
        "z = {}",
        w.position(0).z
    );
}

#[test]
fn v4_stabilisation_keeps_the_ellipse_out_of_the_table() {
    let with = shapes::v4(shapes::v4_world(true, None).unwrap(), true).unwrap();
    let without = shapes::v4(shapes::v4_world(false, None).unwrap(), false).unwrap();
    assert!(
        shapes::v4_passes(&with, &without),
        "with {with:?}, without {without:?}"
    );
}

#[test]
fn v3_bar_steps_stay_solvable_and_lose_energy() {
    let runs: Vec<_> = [(0.5, -1.0), (0.0, -1.0)]
        .into_iter()
        .map(|(drop, v0)| {
            let w = shapes::v3_world(0.01, drop, v0, 0.0, None).unwrap();
            shapes::v3(w, V3_DURATION).unwrap()
        })
        .collect();
    assert!(v3_passes(&runs), "{runs:?}");
    for r in &runs {
        assert!(
            r.tip.1 > -1e-3,
            "the tip stays on the line: lowest {}",
            r.tip.1
        );
        assert!(r.energy.1 < r.energy.0, "energy lost: {:?}", r.energy);
    }
}

#[test]
fn ellipse_outside_planar_mode_is_refused() {
    let e = Body::ellipse(Vec3::new(0.0, 0.0, 3.0), 4.0, 2.0, 10.0);
    match floor_world(Settings::default(), &[e]) {
        Err(BuildError::Body { body, field, .. }) => assert_eq!((body, field), (0, "shape")),
        other => panic!("expected a shape error, got {:?}", other.err()),
    }
}

#[test]
fn bad_capsule_length_is_refused() {
    let mut c = Body::capsule(Vec3::new(0.0, 0.0, 3.0), 0.1, 1.0, 1.0);
    c.shape = Shape::Capsule { half_length: -1.0 };
    match floor_world(Settings::default(), &[c]) {
        Err(BuildError::Body { body, field, .. }) => assert_eq!((body, field), (0, "shape")),
        other => panic!("expected a shape error, got {:?}", other.err()),
    }
}

#[test]
fn gpu_refuses_non_sphere_shapes_but_takes_unstabilised_contacts() {
    let gpu = Settings {
        backend: Backend::Gpu,
        ..Settings::default()
    };
    let c = Body::capsule(Vec3::new(0.0, 0.0, 3.0), 0.1, 1.0, 1.0);
    assert!(matches!(floor_world(gpu, &[c]), Err(BuildError::Gpu(_))));
    let s = Body::sphere(Vec3::new(0.0, 0.0, 3.0), 0.1, 1.0);
    let unstabilised = Settings {
        stabilise_contacts: false,
        ..gpu
    };
    match floor_world(unstabilised, &[s]) {
        Ok(_) => {}
        Err(BuildError::NoGpuAdapter(why)) => {
            eprintln!("skipped the build: no GPU adapter ({why})")
        }
        Err(e) => panic!("the GPU refused unstabilised contacts: {e}"),
    }
}
