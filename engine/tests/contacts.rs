//! The contact view: each contact of the last step names its two sides and gives its point,
//! normal, impulse and force in world terms.

use grains::{Body, Material, Settings, Touching, Vec3, WallDesc, World};

const G: f32 = 9.81;
const R: f32 = 0.05;

/// Spheres of `masses` stacked on a floor (wall 1; wall 0 is a side wall far away), each
/// touching the one below, run until they rest. Each step is solved to 1e-9 m/s: at the default
/// 1e-6 the upper contact of a stack settles about 0.15 % short of its load.
fn stack(masses: &[f32]) -> World {
    let settings = Settings::default();
    let mut b = World::builder(Settings {
        solver: settings.solver.with_tolerance(1e-9),
        ..settings
    });
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::new(10.0, 0.0, 0.0), -Vec3::X));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for (i, &m) in masses.iter().enumerate() {
        b.body(Body::sphere(
            Vec3::new(0.0, 0.0, R + 2.0 * R * i as f32),
            R,
            m,
        ));
    }
    let mut w = b.build().unwrap();
    w.run(1000).unwrap();
    w
}

/// True when `a` and `b` agree to `rel` of |b|.
fn close(a: Vec3, b: Vec3, rel: f32) -> bool {
    (a - b).length() <= rel * b.length()
}

#[test]
fn a_sphere_on_a_floor_has_one_wall_contact_carrying_its_weight() {
    let m = 2.0;
    let w = stack(&[m]);
    let contacts: Vec<_> = w.contacts().collect();
    assert_eq!(contacts.len(), 1, "{contacts:?}");
    assert_eq!(
        w.contact_rows().len(),
        1,
        "the raw rows are the same contacts"
    );
    let c = contacts[0];
    assert_eq!(c.touching, Touching::Wall { body: 0, wall: 1 });
    assert_eq!(c.touching.first_body(), 0);
    assert!(close(c.normal, Vec3::Z, 1e-6), "normal {}", c.normal);
    assert!(close(c.force, Vec3::Z * m * G, 1e-3), "force {}", c.force);
    assert!(
        close(c.impulse, c.force * Settings::default().h, 1e-6),
        "impulse {} is not force × h",
        c.impulse
    );
    assert!(
        c.point.length() < 1e-4,
        "point {} is not under the sphere",
        c.point
    );
    assert!(c.gap.abs() < 1e-4, "gap {}", c.gap);
}

#[test]
fn two_stacked_spheres_have_a_body_pair_and_a_wall_contact() {
    let (lower, upper) = (2.0, 1.0);
    let w = stack(&[lower, upper]);
    let contacts: Vec<_> = w.contacts().collect();
    assert_eq!(contacts.len(), 2, "{contacts:?}");
    let pair = contacts
        .iter()
        .find(|c| matches!(c.touching, Touching::Bodies { .. }))
        .expect("a contact between the two spheres");
    assert_eq!(pair.touching, Touching::Bodies { a: 0, b: 1 });
    // The normal points from the second body (above) to the first: down; the impulse acts on
    // the first body, which carries the upper sphere's weight.
    assert!(close(pair.normal, -Vec3::Z, 1e-6), "normal {}", pair.normal);
    assert!(
        close(pair.force, -Vec3::Z * upper * G, 1e-3),
        "force {}",
        pair.force
    );
    assert!(
        close(pair.point, Vec3::new(0.0, 0.0, 2.0 * R), 1e-3),
        "point {}",
        pair.point
    );
    let floor = contacts
        .iter()
        .find(|c| matches!(c.touching, Touching::Wall { .. }))
        .expect("a contact with the floor");
    assert_eq!(floor.touching, Touching::Wall { body: 0, wall: 1 });
    assert!(
        close(floor.force, Vec3::Z * (lower + upper) * G, 1e-3),
        "force {}",
        floor.force
    );
}
