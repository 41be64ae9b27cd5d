//! The unit tests of `src/pair_algorithms/polytope_triangle.rs`.

use glam::{Quat, Vec3};
use grains_kernels::mesh::Triangle;
use grains_kernels::pair_algorithms::polytope_triangle::*;
use grains_kernels::shapes::polyhedron::Hull;
use grains_kernels::shapes::{Placed, Shape, Touch};

/// Every face's loop lies in its plane, turns counter-clockwise about its outward normal
/// and has the hull on its inner side; each edge joins two vertices of both its faces.
fn check_hull(h: &Hull) {
    for (f, face) in h.faces.iter().enumerate() {
        let ring = h.face_loop(f);
        for (i, &k) in ring.iter().enumerate() {
            let (u, v, w) = (
                h.vertices[k as usize],
                h.vertices[ring[(i + 1) % ring.len()] as usize],
                h.vertices[ring[(i + 2) % ring.len()] as usize],
            );
            assert!((u.dot(face.normal) - face.offset).abs() < 1e-6, "face {f}");
            let turn = (v - u).cross(w - v).dot(face.normal);
            assert!(turn >= 0.0, "face {f} turns clockwise");
        }
        for v in &h.vertices {
            assert!(v.dot(face.normal) <= face.offset + 1e-6, "face {f}");
        }
    }
    for (e, (&[a, b], &[f, g])) in h.edges.iter().zip(&h.edge_faces).enumerate() {
        for face in [f, g] {
            let ring = h.face_loop(face as usize);
            assert!(
                ring.contains(&a) && ring.contains(&b),
                "edge {e} on face {face}"
            );
        }
    }
}

#[test]
fn the_box_and_prism_hulls_are_closed_convex_polyhedra() {
    let mut h = Hull::default();
    cuboid_hull(Vec3::new(0.3, 0.2, 0.1), &mut h);
    assert_eq!((h.vertices.len(), h.faces.len(), h.edges.len()), (8, 6, 12));
    check_hull(&h);
    let v = [
        Vec3::ZERO,
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(1.0, 0.0, 0.2),
    ];
    for towards in [Vec3::new(0.2, 0.2, 1.0), Vec3::new(0.2, 0.2, -1.0)] {
        let c = triangle_prism(v, towards, &mut h);
        assert_eq!((h.vertices.len(), h.faces.len(), h.edges.len()), (6, 5, 9));
        check_hull(&h);
        // The top face is the triangle, facing the body.
        let top = h.faces[0];
        assert!(top.normal.dot(towards - c) > 0.0);
        for x in v {
            assert!(((x - c).dot(top.normal) - top.offset).abs() < 1e-6);
        }
    }
}

fn box_at(centre: Vec3, q: Quat, half: Vec3) -> Placed {
    Placed {
        centre,
        q,
        radius: half.min_element(),
        shape: Shape::Cuboid { half_extents: half },
    }
}

/// A level box over a large triangle: its four bottom corners, each at Φ = z − c (the
/// plane's closed form) along the triangle's normal.
#[test]
fn a_box_over_a_large_triangle_touches_at_its_bottom_corners() {
    let half = Vec3::new(0.3, 0.2, 0.1);
    let tri = Triangle::new(
        [
            Vec3::new(-10.0, -10.0, 0.0),
            Vec3::new(10.0, -10.0, 0.0),
            Vec3::new(0.0, 10.0, 0.0),
        ],
        0,
        0,
    );
    let mut hull = Hull::default();
    cuboid_hull(half, &mut hull);
    let body = box_at(
        Vec3::new(0.5, 0.2, 0.1005),
        Quat::from_rotation_z(0.4),
        half,
    );
    let points = polytope_triangle_points(&body, &hull, &tri, &mut Hull::default(), 0.01);
    let found: Vec<Touch> = points.iter().flatten().copied().collect();
    assert_eq!(found.len(), 4, "{found:?}");
    for t in found {
        assert!((t.phi - 0.0005).abs() < 1e-6, "{t:?}");
        assert!((t.n - Vec3::Z).length() < 1e-6, "{t:?}");
        assert!((t.pa.z - 0.0005).abs() < 1e-6, "{t:?}");
    }
}

/// A box lying across a ridge (two triangles of a roof rising at 30° to the line x = 0,
/// along y) turned 90° so that its bottom edge crosses the ridge: one edge–edge point on
/// the ridge, n = ẑ, Φ = the height of the box's bottom above the ridge.
#[test]
fn a_box_edge_across_a_mesh_ridge_touches_at_their_crossing() {
    let half = Vec3::new(0.1, 0.1, 0.1);
    let slope = 30f32.to_radians().tan();
    let roof = [
        Triangle::new(
            [
                Vec3::new(0.0, -1.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(-1.0, 0.0, -slope),
            ],
            0,
            0,
        ),
        Triangle::new(
            [
                Vec3::new(0.0, -1.0, 0.0),
                Vec3::new(1.0, 0.0, -slope),
                Vec3::new(0.0, 1.0, 0.0),
            ],
            0,
            0,
        ),
    ];
    let mut hull = Hull::default();
    cuboid_hull(half, &mut hull);
    // Turned 45° about y: a bottom edge along y under the centre, parallel to the ridge;
    // then 10° about z so that it crosses the ridge at the centre's foot.
    let q = Quat::from_rotation_z(0.17) * Quat::from_rotation_y(std::f32::consts::FRAC_PI_4);
    let lift = 0.1 * 2f32.sqrt() + 0.002;
    let body = box_at(Vec3::new(0.0, 0.0, lift), q, half);
    let mut found = Vec::new();
    for tri in &roof {
        let points = polytope_triangle_points(&body, &hull, tri, &mut Hull::default(), 0.01);
        found.extend(points.iter().flatten().copied());
    }
    assert!(!found.is_empty());
    for t in &found {
        assert!((t.phi - 0.002).abs() < 1e-5, "{t:?}");
        assert!(t.pa.x.abs() < 1e-5 && t.pa.y.abs() < 1e-4, "{t:?}");
    }
}
