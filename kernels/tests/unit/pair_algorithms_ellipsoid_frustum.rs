//! The unit tests of `src/pair_algorithms/ellipsoid_frustum.rs`.

use crate::unit::SurfaceSamples;
use glam::Quat;
use glam::Vec3;
use grains_kernels::layout::Wall;
use grains_kernels::pair_algorithms::ellipsoid_frustum::*;
use grains_kernels::shapes::ellipsoid::PlacedEllipsoid;
use std::f32::consts::TAU;

fn drum(radius: f32) -> Wall {
    Wall::cylinder([0.0; 4], [1.0, 0.0, 0.0, 0.0], radius, 1.0, 0.0, [0.0; 4])
}

/// The least clearance of the ellipsoid's surface inside the wall, by sampling the surface
/// at about 320,000 points (`PlacedEllipsoid::surface_samples`), each point's clearance f(x).
fn sampled_clearance(wall: &Wall, body: &PlacedEllipsoid) -> f32 {
    let (o, e, k) = (wall.o(), wall.n(), wall.slope());
    let norm = (1.0 + k * k).sqrt();
    let r0 = wall.cylinder_radius();
    (body.surface_samples())
        .map(|x| {
            let (s, radial) = axial_and_radial(x - o, e);
            (r0 + k * s - radial.length()) / norm
        })
        .fold(f32::INFINITY, f32::min)
}

/// A lying ellipsoid at the bottom of a horizontal drum: Φ = R − (ρ_c + its semi-axis
/// along the radius) in closed form, the normal up, the arm that semi-axis down.
#[test]
fn an_ellipsoid_at_the_bottom_of_a_drum_has_the_closed_form_gap() {
    let semi = Vec3::new(0.3, 0.2, 0.1);
    let body = PlacedEllipsoid {
        centre: Vec3::new(0.2, 0.0, -0.85),
        q: Quat::IDENTITY,
        semi_axes: semi,
    };
    let t = ellipsoid_in_frustum(&drum(1.0), &body).unwrap();
    assert!((t.phi - (1.0 - 0.85 - 0.1)).abs() < 1e-6, "{t:?}");
    assert!((t.n - Vec3::Z).length() < 1e-6, "{t:?}");
    assert!((t.arm + 0.1 * Vec3::Z).length() < 1e-6, "{t:?}");
}

/// Turned ellipsoids off the bottom of a drum and in a cone: the gap is the least clearance
/// over the sampled surface, to the samples' second-order reach (their spacing 8·10⁻⁴ m on
/// a body of 0.3 m: (spacing)²/(2 × the curvature radius) ≈ 10⁻⁵ m).
#[test]
fn turned_ellipsoids_match_the_sampled_clearance() {
    let semi = Vec3::new(0.3, 0.2, 0.1);
    let hopper = Wall::frustum([0.0; 4], [0.0, 0.0, 1.0, 0.0], 0.8, 0.5, 1.0, 0.0, [0.0; 4]);
    let cases = [
        (
            drum(1.0),
            Vec3::new(0.1, 0.5, -0.6),
            Quat::from_rotation_x(0.7),
        ),
        (
            drum(0.8),
            Vec3::new(-0.3, -0.1, 0.5),
            Quat::from_euler(glam::EulerRot::XYZ, 0.4, -1.2, 0.9),
        ),
        (hopper, Vec3::new(0.4, 0.3, 0.2), Quat::from_rotation_y(0.5)),
    ];
    for (wall, centre, q) in cases {
        let body = PlacedEllipsoid {
            centre,
            q,
            semi_axes: semi,
        };
        let t = ellipsoid_in_frustum(&wall, &body).unwrap();
        let sampled = sampled_clearance(&wall, &body);
        assert!(
            t.phi <= sampled + 1e-6 && t.phi >= sampled - 2e-5,
            "{centre}: {} vs sampled {sampled}",
            t.phi
        );
        // The contact point's own clearance is Φ.
        let (o, e, k) = (wall.o(), wall.n(), wall.slope());
        let (s, radial) = axial_and_radial(centre + t.arm - o, e);
        let f = (wall.cylinder_radius() + k * s - radial.length()) / (1.0 + k * k).sqrt();
        assert!((f - t.phi).abs() < 1e-5, "{f} vs {}", t.phi);
    }
}

/// Below a hopper's orifice the rim circle holds the body: the gap is the least signed
/// distance of the sampled rim points to the ellipsoid.
#[test]
fn below_the_orifice_the_rim_circle_holds_the_ellipsoid() {
    let hopper = Wall::frustum(
        [0.0; 4],
        [0.0, 0.0, 1.0, 0.0],
        0.35,
        0.5,
        0.5,
        0.0,
        [0.0; 4],
    );
    let body = PlacedEllipsoid {
        centre: Vec3::new(0.05, 0.02, -0.56),
        q: Quat::from_rotation_x(0.3),
        semi_axes: Vec3::new(0.12, 0.08, 0.06),
    };
    let t = ellipsoid_in_frustum(&hopper, &body).unwrap();
    let sampled = (0..100_000)
        .map(|i| {
            let a = TAU * i as f32 / 100_000.0;
            let y = Vec3::new(0.1 * a.cos(), 0.1 * a.sin(), -0.5);
            body.signed_distance(y).0
        })
        .fold(f32::INFINITY, f32::min);
    assert!(
        t.phi <= sampled + 1e-6 && t.phi >= sampled - 1e-6,
        "{} vs sampled {sampled}",
        t.phi
    );
}
