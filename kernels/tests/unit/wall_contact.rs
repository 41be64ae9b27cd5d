//! The unit tests of `src/wall_contact.rs`.

use glam::Vec3;
use grains_kernels::layout::Wall;
use grains_kernels::wall_contact::*;

const R: f32 = 0.05;

fn close(a: f32, b: f32) -> bool {
    // A few f32 roundings of lengths of order 1.
    (a - b).abs() < 1e-6
}

fn close3(a: Vec3, b: Vec3) -> bool {
    (a - b).length() < 1e-6
}

/// A hopper about ẑ through the origin: radius 0.1 at s = −0.5 to 0.6 at s = 0.5.
fn hopper() -> Wall {
    Wall::frustum(
        [0.0; 4],
        [0.0, 0.0, 1.0, 0.0],
        0.35,
        0.5,
        0.5,
        0.0,
        [0.0; 4],
    )
}

#[test]
fn a_sphere_inside_a_cone_meets_the_generator_at_its_signed_distance() {
    let norm = 1.25f32.sqrt();
    let t = sphere_frustum(&hopper(), Vec3::new(0.3, 0.0, 0.0), R, R).unwrap();
    assert!(close(t.phi, 0.05 / norm - R), "{t:?}");
    assert!(close3(t.n, Vec3::new(-1.0, 0.0, 0.5) / norm), "{t:?}");
    // Outside the same cone: the gap and normal change sign.
    let mut outside = hopper();
    outside.origin[3] = -0.35;
    let t = sphere_frustum(&outside, Vec3::new(0.0, 0.45, 0.0), R, R).unwrap();
    assert!(close(t.phi, 0.1 / norm - R), "{t:?}");
    assert!(close3(t.n, Vec3::new(0.0, 1.0, -0.5) / norm), "{t:?}");
    // Wholly beyond the mantle: none.
    assert!(sphere_frustum(&hopper(), Vec3::new(0.5, 0.0, 0.0), R, R).is_none());
}

#[test]
fn below_the_orifice_the_rim_circle_is_the_closest_point() {
    let t = sphere_frustum(&hopper(), Vec3::new(0.05, 0.0, -0.6), R, R).unwrap();
    // The rim point (0.1, 0, −0.5); the centre 0.05 in and 0.1 below it.
    let d = Vec3::new(-0.05, 0.0, -0.1);
    assert!(close(t.phi, d.length() - R), "{t:?}");
    assert!(close3(t.n, d.normalize()), "{t:?}");
}

#[test]
fn a_cylinder_is_the_cone_of_slope_zero() {
    let drum = Wall::cylinder([0.0; 4], [1.0, 0.0, 0.0, 0.0], 0.5, 1.0, 0.0, [0.0; 4]);
    let p = Vec3::new(0.2, 0.3, -0.1);
    let t = sphere_frustum(&drum, p, R, R).unwrap();
    let rho = Vec3::new(0.0, p.y, p.z);
    assert_eq!(t.phi, 0.5 - rho.length() - R);
    assert!(close3(t.n, -rho.normalize()));
}

#[test]
fn an_annulus_has_a_face_and_two_rims() {
    let plate = Wall::disk([0.0; 4], [0.0, 0.0, 1.0, 0.0], 0.5, 0.1, [0.0; 4]);
    let walls = [plate];
    let face = sphere_wall(&walls, 0, Vec3::new(0.3, 0.0, 0.04), R).unwrap();
    assert!(close(face.phi, -0.01) && face.n == Vec3::Z, "{face:?}");
    // Over the hole, 0.03 from the inner rim and 0.04 above it.
    let rim = sphere_wall(&walls, 0, Vec3::new(0.0, 0.07, 0.04), R).unwrap();
    assert!(close(rim.phi, 0.0), "{rim:?}");
    assert!(close3(rim.n, Vec3::new(0.0, -0.6, 0.8)), "{rim:?}");
    let outer = sphere_wall(&walls, 0, Vec3::new(0.53, 0.0, 0.04), R).unwrap();
    assert!(close3(outer.n, Vec3::new(0.6, 0.0, 0.8)), "{outer:?}");
    let off = [plate.with_flags(plate.flags() | WALL_OFF)];
    assert!(sphere_wall(&off, 0, Vec3::new(0.3, 0.0, 0.04), R).is_none());
}

/// The floor tile x ∈ [x0, x1], y ∈ [−1, 1] at z = 0, in plane group `group`.
fn tile(x0: f32, x1: f32, group: u32) -> Wall {
    Wall {
        origin: [0.5 * (x0 + x1), 0.0, 0.0, 0.0],
        normal: [0.0, 0.0, 1.0, 0.0],
        u: [1.0, 0.0, 0.0, 0.5 * (x1 - x0)],
        v: [0.0, 1.0, 0.0, 1.0],
        velocity: [0.0, 0.0, 0.0, (group * WALL_GROUP) as f32],
    }
}

#[test]
fn a_rectangle_has_edges_and_corners_but_not_where_a_coplanar_tile_continues_it() {
    let walls = [tile(-1.0, 0.0, 1), tile(0.0, 1.0, 1), tile(1.1, 2.0, 1)];
    // Over the joint of the first two tiles, just on the second: one contact, its face.
    let p = Vec3::new(0.01, 0.0, 0.05);
    assert!(sphere_wall(&walls, 0, p, R).is_none());
    assert_eq!(sphere_wall(&walls, 1, p, R).unwrap().n, Vec3::Z);
    // Over the hole between the second and third: both rims hold it.
    let p = Vec3::new(1.05, 0.0, 0.0);
    let a = sphere_wall(&walls, 1, p, R).unwrap();
    let b = sphere_wall(&walls, 2, p, R).unwrap();
    assert!(close(a.phi, 0.0) && close3(a.n, Vec3::X), "{a:?}");
    assert!(close(b.phi, 0.0) && close3(b.n, -Vec3::X), "{b:?}");
    // Beyond a corner: the normal from the corner.
    let p = Vec3::new(2.03, 1.04, 0.0);
    let c = sphere_wall(&walls, 2, p, R).unwrap();
    assert!(close3(c.n, Vec3::new(0.6, 0.8, 0.0)), "{c:?}");
    // With the second tile switched off its neighbour's edge is a rim again.
    let mut gate = walls;
    gate[1] = gate[1].with_flags(gate[1].flags() | WALL_OFF);
    let p = Vec3::new(0.03, 0.0, 0.04);
    let rim = sphere_wall(&gate, 0, p, R).unwrap();
    assert!(close3(rim.n, Vec3::new(0.6, 0.0, 0.8)), "{rim:?}");
}
