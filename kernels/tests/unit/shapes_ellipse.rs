//! The unit tests of `src/shapes/ellipse.rs`.

use glam::{Quat, Vec3};
use grains_kernels::shapes::ellipse::*;

#[test]
fn ellipse_support_reaches_the_semi_axes() {
    let q = Quat::from_rotation_y(0.3);
    let s = ellipse_support(q, 4.0, 2.0, q * Vec3::NEG_Z);
    assert!((s - q * Vec3::new(0.0, 0.0, -2.0)).length() < 1e-5, "{s}");
    let s = ellipse_support(q, 4.0, 2.0, q * Vec3::X);
    assert!((s - q * Vec3::new(4.0, 0.0, 0.0)).length() < 1e-5, "{s}");
}

#[test]
fn ellipse_support_lies_on_the_ellipse_and_maximises_the_direction() {
    let (a, b) = (4.0f32, 2.0f32);
    let d = Vec3::new(0.6, 0.0, -0.8);
    let s = ellipse_support(Quat::IDENTITY, a, b, d);
    assert!(((s.x / a).powi(2) + (s.z / b).powi(2) - 1.0).abs() < 1e-5);
    for k in 0..360 {
        let t = (k as f32).to_radians();
        let p = Vec3::new(a * t.cos(), 0.0, b * t.sin());
        assert!(p.dot(d) <= s.dot(d) + 1e-5);
    }
}

/// Distance from (px, pz) to the ellipse by sampling its boundary at `n` angles.
fn sampled_distance(a: f32, b: f32, px: f32, pz: f32, n: usize) -> f64 {
    (0..n)
        .map(|k| {
            let t = std::f64::consts::TAU * k as f64 / n as f64;
            let (x, z) = (a as f64 * t.cos(), b as f64 * t.sin());
            (x - px as f64).hypot(z - pz as f64)
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn closest_on_ellipse_matches_sampling_of_the_boundary() {
    for (a, b) in [
        (4.0f32, 2.0f32),
        (1.0, 3.0),
        (2.0, 1.99),
        (1.0, 1.0),
        (5.0, 0.2),
    ] {
        for i in -12..=12 {
            for k in -12..=12 {
                let (px, pz) = (0.61 * i as f32 * a / 6.0, 0.53 * k as f32 * b / 6.0);
                let (x, z) = closest_on_ellipse(a, b, px, pz);
                let on = (x / a).powi(2) + (z / b).powi(2) - 1.0;
                assert!(on.abs() < 1e-5, "({x}, {z}) off the ellipse by {on}");
                let d = ((x - px) as f64).hypot((z - pz) as f64);
                let sampled = sampled_distance(a, b, px, pz, 20_000);
                // Sampling only overestimates, by at most half a sample's arc.
                let step = std::f64::consts::TAU * a.max(b) as f64 / 20_000.0;
                assert!(
                    d <= sampled + 1e-5 && d >= sampled - 0.5 * step - 1e-5,
                    "a {a} b {b} p ({px}, {pz}): {d} vs sampled {sampled}"
                );
            }
        }
    }
}

#[test]
fn closest_on_ellipse_on_the_axes_is_in_closed_form() {
    let (a, b) = (4.0f32, 2.0f32);
    // Outside on either axis: the vertex.
    assert_eq!(closest_on_ellipse(a, b, 7.0, 0.0), (4.0, 0.0));
    assert_eq!(closest_on_ellipse(a, b, 0.0, -5.0), (0.0, -2.0));
    // Inside on the minor axis, and the centre: the minor vertex, at distance b − |p_z|.
    assert_eq!(closest_on_ellipse(a, b, 0.0, 0.5), (0.0, 2.0));
    assert_eq!(closest_on_ellipse(a, b, 0.0, 0.0).1.abs(), 2.0);
    // Inside on the major axis, nearer the centre than the centre of curvature
    // (a² − b²)/a = 3: the foot x = a² p_x/(a² − b²), z = b √(1 − (x/a)²).
    let (x, z) = closest_on_ellipse(a, b, -1.5, 0.0);
    assert!(
        (x + 2.0).abs() < 1e-6 && (z - 3.0f32.sqrt()).abs() < 1e-6,
        "({x}, {z})"
    );
    // Beyond the centre of curvature: the vertex.
    assert_eq!(closest_on_ellipse(a, b, 3.5, 0.0), (4.0, 0.0));
    // A circle: the radial point.
    let (x, z) = closest_on_ellipse(2.0, 2.0, 3.0, 4.0);
    assert!(
        (x - 1.2).abs() < 1e-6 && (z - 1.6).abs() < 1e-6,
        "({x}, {z})"
    );
}

#[test]
fn ellipse_nearest_gives_the_signed_distance_along_the_outward_normal() {
    let (a, b) = (4.0f32, 2.0f32);
    let q = Quat::from_rotation_y(0.4);
    let c = Vec3::new(1.0, 0.0, -2.0);
    for (p, distance) in [
        (Vec3::new(0.0, 0.0, 3.0), 1.0),
        (Vec3::new(0.0, 0.0, 1.5), -0.5),
    ] {
        let (e, n) = ellipse_nearest(c, q, a, b, c + q * p);
        assert!(
            (e - (c + q * Vec3::new(0.0, 0.0, 2.0))).length() < 1e-5,
            "{e}"
        );
        assert!((n - q * Vec3::Z).length() < 1e-6, "{n}");
        assert!(((c + q * p - e).dot(n) - distance).abs() < 1e-5);
    }
}
