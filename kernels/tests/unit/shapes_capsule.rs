//! The unit tests of `src/shapes/capsule.rs`.

use glam::{Quat, Vec3};
use grains_kernels::shapes::capsule::*;

#[test]
fn closest_point_clamps_to_the_segment() {
    let c = Vec3::new(1.0, 0.0, 0.0);
    let p = closest_on_segment(c, Quat::IDENTITY, 0.5, Vec3::new(5.0, 0.0, 3.0));
    assert_eq!(p, Vec3::new(1.5, 0.0, 0.0));
    let p = closest_on_segment(c, Quat::IDENTITY, 0.5, Vec3::new(1.2, 0.0, 3.0));
    assert!((p - Vec3::new(1.2, 0.0, 0.0)).length() < 1e-6);
}

#[test]
fn skew_segments_in_3d_match_sampling() {
    let (c1, u1, l1) = (
        Vec3::new(0.1, -0.2, 0.3),
        Vec3::new(1.0, 2.0, -0.5).normalize(),
        0.7,
    );
    let (c2, u2, l2) = (
        Vec3::new(0.4, 0.5, -0.6),
        Vec3::new(-0.3, 0.2, 1.0).normalize(),
        0.4,
    );
    let (s, t) = closest_between_segments(c1, u1, l1, c2, u2, l2);
    let d = (c1 + u1 * s - c2 - u2 * t).length();
    let mut best = f32::INFINITY;
    for i in 0..=400 {
        for k in 0..=400 {
            let (si, tk) = (l1 * (i as f32 / 200.0 - 1.0), l2 * (k as f32 / 200.0 - 1.0));
            best = best.min((c1 + u1 * si - c2 - u2 * tk).length());
        }
    }
    assert!(d <= best + 1e-6 && d > best - 1e-3, "{d} vs sampled {best}");
}
