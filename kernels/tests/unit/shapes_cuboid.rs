//! The unit tests of `src/shapes/cuboid.rs`.

use glam::{Quat, Vec3};
use grains_kernels::shapes::cuboid::*;
use grains_kernels::shapes::{Placed, Shape};

fn cuboid(centre: Vec3, q: Quat, half: Vec3) -> Placed {
    Placed {
        centre,
        q,
        radius: half.min_element(),
        shape: Shape::Cuboid { half_extents: half },
    }
}

/// A point outside a face, outside an edge and inside the box: the gap is the distance to
/// the face, to the edge, and minus the depth below the nearest face, in closed form.
#[test]
fn point_gaps_are_the_distances_to_the_box() {
    let (c, q, half) = (
        Vec3::new(1.0, 2.0, 3.0),
        Quat::from_rotation_z(0.4),
        Vec3::new(0.5, 0.3, 0.2),
    );
    let world = |l: Vec3| c + q * l;
    let face = point_cuboid(world(Vec3::new(0.1, 0.0, 0.5)), 0.05, c, q, half);
    assert!((face.phi - (0.3 - 0.05)).abs() < 1e-6, "{face:?}");
    assert!((face.n - q * Vec3::Z).length() < 1e-6);
    let edge = point_cuboid(world(Vec3::new(0.8, 0.7, 0.0)), 0.0, c, q, half);
    assert!((edge.phi - 0.5).abs() < 1e-6, "{edge:?}");
    assert!((edge.pb - world(Vec3::new(0.5, 0.3, 0.0))).length() < 1e-6);
    let inside = point_cuboid(world(Vec3::new(0.45, 0.0, 0.0)), 0.0, c, q, half);
    assert!((inside.phi + 0.05).abs() < 1e-6, "{inside:?}");
    assert!((inside.n - q * Vec3::X).length() < 1e-6);
    assert!((inside.pb - world(Vec3::new(0.5, 0.0, 0.0))).length() < 1e-6);
}

/// A box resting square on a larger one: a's four lower corners touch b's top face at
/// Φ = 0 with n = +z, b's corners are all below or beside a, and the edges are parallel,
/// so no edge pair is taken.
#[test]
fn a_box_on_a_box_touches_at_its_four_lower_corners() {
    let b = cuboid(Vec3::ZERO, Quat::IDENTITY, Vec3::new(1.0, 1.0, 0.5));
    let a = cuboid(
        Vec3::new(0.1, -0.2, 0.5 + 0.25),
        Quat::IDENTITY,
        Vec3::new(0.3, 0.4, 0.25),
    );
    let (ha, hb) = (Vec3::new(0.3, 0.4, 0.25), Vec3::new(1.0, 1.0, 0.5));
    let touches = cuboids_touch(&a, ha, &b, hb, f32::INFINITY);
    let resting: Vec<_> = touches
        .iter()
        .flatten()
        .filter(|t| t.phi.abs() < 1e-6)
        .collect();
    assert_eq!(resting.len(), 4, "{touches:?}");
    for t in resting {
        assert!((t.n - Vec3::Z).length() < 1e-6, "{t:?}");
        assert!((t.pa.z - 0.5).abs() < 1e-6);
    }
    assert!(touches[16..].iter().all(Option::is_none));
}

/// Two unit cubes edge across edge: a above b, turned 45° about x and then about z so that
/// its lowest edge runs along y above b's top edge, which runs along x, with a gap g. Only
/// the edge pair meets at Φ = g (every corner is farther), with n = +z.
#[test]
fn crossing_edges_give_the_gap_between_them() {
    let half = Vec3::splat(0.5);
    let b = cuboid(
        Vec3::ZERO,
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_4),
        half,
    );
    let g = 0.01;
    let lift = 0.5 * std::f32::consts::SQRT_2;
    let q = Quat::from_rotation_x(std::f32::consts::FRAC_PI_4);
    let a = cuboid(Vec3::new(0.0, 0.0, 2.0 * lift + g), q, half);
    let touches = cuboids_touch(&a, half, &b, half, f32::INFINITY);
    assert!(cuboids_touch(&a, half, &b, half, 0.5 * g)
        .iter()
        .all(Option::is_none));
    assert!(touches[17..].iter().all(Option::is_none), "one crossing");
    let edge = touches[16].expect("the crossing edges");
    assert!((edge.phi - g).abs() < 1e-5, "{edge:?}");
    assert!((edge.n - Vec3::Z).length() < 1e-5, "{edge:?}");
    for t in touches[..16].iter().flatten() {
        assert!(t.phi > g + 0.1, "corner {t:?}");
    }
}
