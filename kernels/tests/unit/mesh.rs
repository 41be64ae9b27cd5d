//! The unit tests of `src/mesh.rs`.

use glam::Vec3;
use grains_kernels::mesh::*;

/// Two triangles making the unit square z = 0, sharing the edge (1,0,0)–(0,1,0).
fn square() -> Vec<Triangle> {
    vec![
        Triangle::new([Vec3::ZERO, Vec3::X, Vec3::Y], 0, 0),
        Triangle::new([Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y], 0, 0),
    ]
}

fn candidates(p: Vec3, tris: &[Triangle]) -> Vec<Candidate> {
    let mut c: Vec<Candidate> = tris
        .iter()
        .enumerate()
        .map(|(i, t)| sphere_triangle_candidate(p, 0.05, t, i as u32))
        .collect();
    drop_shared_rim_contacts(&mut c, &mut Vec::new(), tris, 1e-6);
    c
}

#[test]
fn closest_point_finds_face_edge_and_vertex() {
    let t = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let (q, f) = closest_point_on_triangle(Vec3::new(0.2, 0.2, 1.0), t);
    assert_eq!(f, Feature::Face);
    assert!((q - Vec3::new(0.2, 0.2, 0.0)).length() < 1e-6, "{q}");
    let (q, f) = closest_point_on_triangle(Vec3::new(0.5, -1.0, 0.3), t);
    assert_eq!((q, f), (Vec3::new(0.5, 0.0, 0.0), Feature::Rim));
    let (q, f) = closest_point_on_triangle(Vec3::new(-1.0, -1.0, 0.0), t);
    assert_eq!((q, f), (Vec3::ZERO, Feature::Rim));
}

#[test]
fn shared_edge_gives_one_contact() {
    // On the shared edge: both triangles find the same rim point; the lower index stays.
    let c = candidates(Vec3::new(0.5, 0.5, 0.1), &square());
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].triangle, 0);
    // Over triangle 1's face: triangle 0's edge point lies on triangle 1 and is farther.
    let c = candidates(Vec3::new(0.6, 0.6, 0.1), &square());
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].triangle, c[0].feature), (1, Feature::Face));
}

#[test]
fn concave_crease_keeps_both_faces() {
    // A V-shaped valley along y: each face touches the sphere at its own point.
    let s = 1.0f32 / 2f32.sqrt();
    let left = Triangle::new(
        [
            Vec3::ZERO,
            Vec3::new(-1.0, 0.0, 1.0),
            Vec3::new(0.0, 5.0, 0.0),
        ],
        0,
        0,
    );
    let right = Triangle::new(
        [
            Vec3::ZERO,
            Vec3::new(0.0, 5.0, 0.0),
            Vec3::new(1.0, 0.0, 1.0),
        ],
        0,
        0,
    );
    let c = candidates(Vec3::new(0.0, 1.0, 0.3 / s), &[left, right]);
    assert_eq!(c.len(), 2);
    assert!(c.iter().all(|c| c.feature == Feature::Face));
}

#[test]
fn grid_lists_each_triangle_once_near_a_point() {
    // Ten unit squares along x, two triangles each: cells of 1 m.
    let tris: Vec<Triangle> = (0..10)
        .flat_map(|k| {
            let p = |x: f32, y: f32| Vec3::new(k as f32 + x, y, 0.0);
            [
                Triangle::new([p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0)], 0, 0),
                Triangle::new([p(0.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)], 0, 0),
            ]
        })
        .collect();
    let g = TriangleGrid::build(&tris, 1.0);
    let mut out = Vec::new();
    g.triangles_near(
        Vec3::new(3.2, 0.2, -0.1),
        Vec3::new(4.8, 0.8, 0.1),
        &mut out,
    );
    assert!(
        out.windows(2).all(|w| w[0] < w[1]),
        "sorted, each once: {out:?}"
    );
    for t in [6, 7, 8, 9] {
        assert!(out.contains(&t), "{t} in {out:?}");
    }
    for t in [0, 1, 18, 19] {
        assert!(!out.contains(&t), "{t} not in {out:?}");
    }
    g.triangles_near(Vec3::splat(50.0), Vec3::splat(60.0), &mut out);
    assert!(out.is_empty());
}
