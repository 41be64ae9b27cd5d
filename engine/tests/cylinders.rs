//! Open cylinder walls against closed-form statics and kinematics: a sphere resting in a drum
//! or on a cylinder presses with m g, a released one swings about the bottom inside the mantle,
//! a turning drum's surface moves at ω R under the contact, a grain beyond an open end falls
//! through, and the builder refuses what it cannot simulate.

use grains::glam::DVec3;
use grains::{Body, BuildError, Material, Settings, Vec3, WallDesc, World};

const G: f32 = 9.81;
/// The drum: radius R about the x axis through the origin, 2 m long.
const R: f32 = 0.5;
const HALF_LENGTH: f32 = 1.0;
/// The sphere: radius r, mass m.
const RADIUS: f32 = 0.05;
const MASS: f32 = 2.0;

/// Rigid contact, Gauss–Seidel to 1e-9 m/s, h = 1 ms.
fn tight() -> Settings {
    let s = Settings::default();
    Settings {
        solver: s.solver.with_tolerance(1e-9),
        // The mantle's geometry, on both sides and past the open ends: spheres outside a drum
        // (which would be out of its domain, see `escape.rs`) are meant here.
        health: grains::Health {
            escape: grains::Check::Off,
            ..s.health
        },
        ..s
    }
}

/// A world of the cylinder `wall` (friction `mu`) and one sphere at `centre`.
fn world(wall: WallDesc, mu: f32, centre: Vec3) -> Result<World, BuildError> {
    let mut b = World::builder(tight());
    b.material(Material::new(mu));
    b.wall(wall);
    b.body(Body::sphere(centre, RADIUS, MASS));
    b.build()
}

fn drum() -> WallDesc {
    WallDesc::cylinder(Vec3::ZERO, Vec3::X, R, HALF_LENGTH, true)
}

/// Distance of `p` from the drum's axis (the x axis).
fn off_axis(p: Vec3) -> f32 {
    Vec3::new(0.0, p.y, p.z).length()
}

#[test]
fn a_sphere_at_the_bottom_of_a_drum_rests_and_presses_with_its_weight() {
    let start = Vec3::new(0.2, 0.0, -R + RADIUS);
    let mut w = world(drum(), 0.5, start).unwrap();
    w.run(500).unwrap();
    let loads = w.wall_loads(Vec3::ZERO);
    let weight = DVec3::new(0.0, 0.0, -f64::from(MASS * G));
    assert_eq!(loads[0].contacts, 1);
    assert!(
        (loads[0].force - weight).length() <= 1e-5 * weight.length(),
        "drum load {} expected {weight}",
        loads[0].force
    );
    assert!(
        // f32 positions near |z| = 0.45 m round to 3e-8 m, 3e-5 m/s over h = 1 ms.
        (w.position(0) - start).length() < 1e-6 && w.velocity(0).length() < 1e-4,
        "moved to {} at {}",
        w.position(0),
        w.velocity(0)
    );
}

#[test]
fn a_sphere_released_off_centre_in_a_drum_swings_through_the_bottom_inside_the_mantle() {
    // Frictionless: the centre slides on the circle of radius R − r; from 30° off the bottom
    // it swings to the other side and never climbs above its start nor leaves the mantle.
    let theta = 30f32.to_radians();
    let arm = R - RADIUS;
    let start = Vec3::new(0.0, arm * theta.sin(), -arm * theta.cos());
    let mut w = world(drum(), 0.0, start).unwrap();
    let mut min_y = start.y;
    for _ in 0..2000 {
        w.step().unwrap();
        let p = w.position(0);
        assert!(off_axis(p) <= arm + 1e-4, "left the mantle: {p}");
        assert!(p.z <= start.z + 1e-4, "climbed above its start: {p}");
        assert!(p.x.abs() < 1e-6, "moved along the axis: {p}");
        min_y = min_y.min(p.y);
    }
    assert!(
        min_y < -0.9 * start.y,
        "did not swing to the other side: y ≥ {min_y}"
    );
}

#[test]
fn a_turning_drum_moves_at_omega_r_under_the_contact_and_drags_the_sphere_into_rolling() {
    let omega = 2.0;
    let start = Vec3::new(0.0, 0.0, -R + RADIUS);
    let mut w = world(drum().rotating(omega), 1.0, start).unwrap();
    w.step().unwrap();
    let rows = w.contact_rows();
    assert_eq!(rows.rows.len(), 1);
    let bias = rows.rows[0].bias;
    // bias = (Φ/h − n·v_wall, −t1·v_wall, −t2·v_wall): the surface slides along the tangent
    // at ω R.
    let tangential = bias[1].hypot(bias[2]);
    assert!(
        (tangential - omega * R).abs() < 1e-5,
        "tangential wall speed {tangential}, expected ω R = {}",
        omega * R
    );
    // Dragged along +y (ω x̂ × (−R ẑ) = ω R ŷ), the sphere ends up rolling on the surface:
    // its contact point moves with the wall's.
    assert!(w.velocity(0).y > 0.0, "not dragged: {}", w.velocity(0));
    w.run(999).unwrap();
    let p = w.position(0);
    let n = -Vec3::new(0.0, p.y, p.z).normalize();
    let c = p - RADIUS * n;
    let sphere = w.velocity(0) + w.angular_velocity(0).cross(c - p);
    let wall = omega * Vec3::X.cross(c);
    assert!(
        (sphere - wall).length() < 1e-3 * omega * R,
        "slips: contact point at {sphere}, wall at {wall}"
    );
    assert!(off_axis(p) <= R - RADIUS + 1e-4, "left the mantle: {p}");
}

#[test]
fn a_sphere_on_top_of_a_cylinder_rests_and_presses_with_its_weight() {
    let outside = WallDesc::cylinder(Vec3::ZERO, Vec3::X, R, HALF_LENGTH, false);
    let start = Vec3::new(-0.3, 0.0, R + RADIUS);
    let mut w = world(outside, 0.5, start).unwrap();
    w.run(300).unwrap();
    let load = w.wall_loads(Vec3::ZERO)[0];
    let weight = DVec3::new(0.0, 0.0, -f64::from(MASS * G));
    assert!(
        (load.force - weight).length() <= 1e-5 * weight.length(),
        "cylinder load {} expected {weight}",
        load.force
    );
    assert!((w.position(0) - start).length() < 1e-6, "{}", w.position(0));
}

#[test]
fn a_sphere_beyond_an_open_end_falls_through() {
    let start = Vec3::new(HALF_LENGTH + 2.0 * RADIUS, 0.0, -R + RADIUS);
    let mut w = world(drum(), 0.5, start).unwrap();
    let steps = 300;
    w.run(steps).unwrap();
    let t = steps as f32 * tight().h;
    let drop = start.z - w.position(0).z;
    assert!(
        (drop - 0.5 * G * t * t).abs() < 0.01 * drop,
        "fell {drop} m in {t} s"
    );
    assert_eq!(w.contacts().len(), 0);
}

#[test]
fn the_builder_refuses_spheres_in_the_mantle_capsules_and_bad_cylinders() {
    // Half a radius into the mantle from inside.
    match world(drum(), 0.5, Vec3::new(0.0, 0.0, -R + 0.5 * RADIUS)) {
        Err(BuildError::Body { field, problem, .. }) => {
            assert_eq!(field, "position");
            assert!(problem.contains("cylinder"), "{problem}");
        }
        r => panic!("expected a body error, got {:?}", r.err()),
    }
    // A grain wholly beyond a drum's mantle is clear of it.
    assert!(world(drum(), 0.5, Vec3::new(0.0, 0.0, -R - 2.0 * RADIUS)).is_ok());
    let mut b = World::builder(tight());
    b.material(Material::new(0.5));
    b.wall(WallDesc::cylinder(Vec3::ZERO, Vec3::X, R, 1.0, false));
    b.body(Body::capsule(
        Vec3::new(0.0, 0.0, R + 0.5),
        RADIUS,
        0.1,
        MASS,
    ));
    match b.build() {
        Err(BuildError::Body { field, problem, .. }) => {
            assert_eq!(field, "shape");
            assert!(
                problem.contains("cylinder") && problem.contains("outside"),
                "{problem}"
            );
        }
        r => panic!("expected a shape error, got {:?}", r.err()),
    }
    for (bad, field) in [
        (
            WallDesc::cylinder(Vec3::ZERO, Vec3::X, -1.0, 1.0, true),
            "radius",
        ),
        (
            WallDesc::cylinder(Vec3::ZERO, Vec3::X, 1.0, 0.0, true),
            "half_length",
        ),
        (drum().rotating(f32::NAN), "angular_speed"),
    ] {
        match world(bad, 0.5, Vec3::new(0.0, 0.0, -R + RADIUS)) {
            Err(BuildError::Wall { field: f, .. }) => assert_eq!(f, field),
            r => panic!("expected a wall error on {field}, got {:?}", r.err()),
        }
    }
}
