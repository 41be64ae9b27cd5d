//! The unit tests of `src/pair_algorithms/ellipsoid_triangle.rs`.

use crate::unit::SurfaceSamples;
use glam::Quat;
use glam::Vec3;
use grains_kernels::mesh::{closest_point_on_triangle, Feature, Triangle};
use grains_kernels::pair_algorithms::ellipsoid_triangle::*;
use grains_kernels::shapes::ellipsoid::{ellipsoid_support, PlacedEllipsoid};

fn ellipsoid(centre: Vec3, q: Quat) -> PlacedEllipsoid {
    PlacedEllipsoid {
        centre,
        q,
        semi_axes: Vec3::new(0.3, 0.2, 0.1),
    }
}

/// A large triangle under a turned ellipsoid: a face contact equal to the ellipsoid–plane
/// closed form Φ = z_c − √(nᵀ R A² Rᵀ n), n = ẑ, with the arm the support point.
#[test]
fn a_large_triangle_is_a_plane() {
    let tri = Triangle::new(
        [
            Vec3::new(-10.0, -10.0, 0.0),
            Vec3::new(10.0, -10.0, 0.0),
            Vec3::new(0.0, 10.0, 0.0),
        ],
        0,
        0,
    );
    for (z, q) in [
        (
            0.25,
            Quat::from_rotation_x(0.7) * Quat::from_rotation_z(0.3),
        ),
        (0.05, Quat::from_euler(glam::EulerRot::XYZ, 0.4, 1.1, -0.6)),
        (0.0, Quat::IDENTITY),
    ] {
        let body = ellipsoid(Vec3::new(0.3, -0.2, z), q);
        let c = ellipsoid_triangle_candidate(&body, &tri, 0, 1.0).unwrap();
        let m = glam::Mat3::from_quat(q);
        let a2 = body.semi_axes * body.semi_axes;
        let h = (m * glam::Mat3::from_diagonal(a2) * m.transpose() * Vec3::Z)
            .dot(Vec3::Z)
            .sqrt();
        assert_eq!(c.feature, Feature::Face);
        assert!((c.gap - (z - h)).abs() < 1e-6, "{} vs {}", c.gap, z - h);
        assert_eq!(c.normal, Vec3::Z);
        assert!(
            (c.arm - ellipsoid_support(q, body.semi_axes, -Vec3::Z)).length() < 1e-7,
            "{c:?}"
        );
    }
}

/// The least distance from a point set to the ellipsoid's surface over dense samples of
/// the triangle's boundary, each sample's distance by [`ellipsoid_nearest`] (itself checked
/// against sampling of the surface in `grains_kernels::shapes::ellipsoid`).
fn sampled_rim_gap(body: &PlacedEllipsoid, v: [Vec3; 3]) -> f32 {
    (0..3)
        .flat_map(|k| {
            (0..=20_000).map(move |i| v[k] + (i as f32 / 20_000.0) * (v[(k + 1) % 3] - v[k]))
        })
        .map(|y| body.signed_distance(y).0)
        .fold(f32::INFINITY, f32::min)
}

/// Beside an edge and beyond a vertex of a triangle, in general orientations: a rim contact
/// whose gap is the least over 60,000 samples of the rim (to their spacing's second-order
/// reach), whose normal is the ellipsoid's outward normal at its contact point reversed, and
/// whose triangle point is on the ellipsoid's normal line: q − e = −Φ n; where they are
/// apart, the gap is also the least distance of the sampled ellipsoid surface from the
/// triangle.
#[test]
fn edge_and_vertex_contacts_match_sampled_rim_points() {
    let v = [
        Vec3::ZERO,
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    let tri = Triangle::new(v, 0, 0);
    let cases = [
        // Beside the edge y = 0, below the plane's level of its centre.
        (Vec3::new(0.5, -0.25, 0.05), Quat::from_rotation_z(0.4)),
        // Beside the hypotenuse, tilted.
        (
            Vec3::new(0.75, 0.7, -0.05),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.5, 1.2),
        ),
        // Beyond the vertex at the origin.
        (
            Vec3::new(-0.2, -0.15, 0.1),
            Quat::from_rotation_y(0.9) * Quat::from_rotation_z(0.6),
        ),
        // Overlapping the edge x = 0.
        (Vec3::new(-0.15, 0.5, 0.02), Quat::from_rotation_x(0.3)),
    ];
    let mut separated = 0;
    for (centre, q) in cases {
        let body = ellipsoid(centre, q);
        let c = ellipsoid_triangle_candidate(&body, &tri, 3, 1.0).unwrap();
        assert_eq!((c.feature, c.triangle), (Feature::Rim, 3), "{centre}");
        let sampled = sampled_rim_gap(&body, v);
        assert!(
            c.gap <= sampled + 1e-6 && c.gap >= sampled - 1e-5,
            "{centre}: {} vs sampled {sampled}",
            c.gap
        );
        let e = centre + c.arm;
        assert!((c.point - e + c.gap * c.normal).length() < 1e-5, "{c:?}");
        let (_, _, n) = body.signed_distance(c.point);
        assert!((n + c.normal).length() < 1e-4, "{c:?}");
        if c.gap > 0.0 {
            separated += 1;
            let surface = sampled_surface_gap(&body, v);
            assert!(
                c.gap <= surface + 1e-6 && c.gap >= surface - 2e-5,
                "{centre}: {} vs the sampled surface's {surface}",
                c.gap
            );
        }
    }
    assert!(separated >= 2, "{separated} separated cases");
}

/// The least distance to the triangle `v` over 320,000 samples of the ellipsoid's surface
/// (θ, φ in 400 and 800 steps, at most 2.4·10⁻³ m apart on these semi-axes), each sample's
/// distance from [`closest_point_on_triangle`]: independent of the nearest-point solver. It
/// exceeds the true least by up to the spacing squared over twice the surface's radius of
/// curvature there (1.2·10⁻⁵ m measured in these cases; the test allows 2·10⁻⁵).
fn sampled_surface_gap(body: &PlacedEllipsoid, v: [Vec3; 3]) -> f32 {
    (body.surface_samples())
        .map(|x| (x - closest_point_on_triangle(x, v).0).length())
        .fold(f32::INFINITY, f32::min)
}

/// Far from the triangle: none, before any search.
#[test]
fn a_far_ellipsoid_has_no_candidate() {
    let tri = Triangle::new([Vec3::ZERO, Vec3::X, Vec3::Y], 0, 0);
    let body = ellipsoid(Vec3::new(0.2, 0.2, 0.5), Quat::IDENTITY);
    assert!(ellipsoid_triangle_candidate(&body, &tri, 0, 0.1).is_none());
    assert!(ellipsoid_triangle_candidate(&body, &tri, 0, 0.45).is_some());
}
