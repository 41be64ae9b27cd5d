//! The unit tests of `src/shapes/ellipsoid.rs`.

use glam::{DVec3, Quat, Vec3};
use grains_kernels::shapes::ellipsoid::*;
use grains_kernels::shapes::{Placed, Shape};

/// The surface point of `semi` at polar angle θ and azimuth φ (x along a).
fn surface(semi: Vec3, theta: f64, phi: f64) -> DVec3 {
    let s = semi.as_dvec3();
    DVec3::new(
        s.x * theta.sin() * phi.cos(),
        s.y * theta.sin() * phi.sin(),
        s.z * theta.cos(),
    )
}

/// The surface of `semi` sampled at about `n`² points, with the largest distance between
/// neighbouring samples (an upper bound on how far any surface point is from a sample).
fn samples(semi: Vec3, n: usize) -> (Vec<DVec3>, f64) {
    let pi = std::f64::consts::PI;
    let pts = (0..=n)
        .flat_map(|i| {
            (0..2 * n)
                .map(move |k| surface(semi, pi * i as f64 / n as f64, pi * k as f64 / n as f64))
        })
        .collect();
    (pts, semi.max_element() as f64 * pi / n as f64 * 2f64.sqrt())
}

fn on_surface(semi: Vec3, x: Vec3) -> f32 {
    (x / semi).length_squared() - 1.0
}

#[test]
fn support_reaches_the_semi_axes_and_maximises_the_direction() {
    let semi = Vec3::new(0.3, 0.2, 0.1);
    let q = Quat::from_rotation_x(0.4) * Quat::from_rotation_z(1.1);
    for (axis, len) in [(Vec3::X, 0.3), (Vec3::NEG_Y, 0.2), (Vec3::Z, 0.1)] {
        let s = ellipsoid_support(q, semi, q * axis);
        assert!((s - q * axis * len).length() < 1e-6, "{s}");
    }
    let (pts, _) = samples(semi, 200);
    let d = Vec3::new(0.3, -0.5, 0.8).normalize();
    let s = ellipsoid_support(Quat::IDENTITY, semi, d);
    assert!(on_surface(semi, s).abs() < 1e-5);
    let best = pts
        .iter()
        .map(|p| p.dot(d.as_dvec3()))
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(s.dot(d) as f64 >= best - 1e-6, "{} < {best}", s.dot(d));
}

/// The nearest point lies on the surface and is no farther than any of 80,000 samples of
/// it, nor nearer than the nearest sample less the samples' spacing; for points inside
/// and outside, on the axes and the symmetry planes, and ellipsoids with equal axes.
#[test]
fn closest_on_ellipsoid_matches_sampling_of_the_surface() {
    for semi in [
        Vec3::new(0.4, 0.3, 0.2),
        Vec3::new(0.2, 0.3, 0.4),
        Vec3::new(0.3, 0.3, 0.1),
        Vec3::new(0.1, 0.3, 0.3),
        Vec3::splat(0.25),
    ] {
        let (pts, spacing) = samples(semi, 200);
        for i in -3..=3 {
            for j in -2..=2 {
                for k in -2..=2 {
                    let p = Vec3::new(0.13 * i as f32, 0.11 * j as f32, 0.09 * k as f32);
                    let x = closest_on_ellipsoid(semi, p);
                    assert!(on_surface(semi, x).abs() < 1e-5, "{semi} {p}: {x}");
                    let d = (x - p).length() as f64;
                    let sampled = pts
                        .iter()
                        .map(|s| (*s - p.as_dvec3()).length())
                        .fold(f64::INFINITY, f64::min);
                    assert!(
                        d <= sampled + 1e-5 && d >= sampled - spacing,
                        "{semi} {p}: {d} vs sampled {sampled}"
                    );
                }
            }
        }
    }
}

#[test]
fn closest_on_ellipsoid_inside_on_the_long_axis_leaves_the_plane() {
    // Semi-axes (4, 3, 2), p = (1, 0, 0): inside the evolute x = a² p/(a² − c²) = 4/3,
    // z = c √(1 − (x/a)²) = 2 √(8/9).
    let x = closest_on_ellipsoid(Vec3::new(4.0, 3.0, 2.0), Vec3::new(1.0, 0.0, 0.0));
    let want = Vec3::new(4.0 / 3.0, 0.0, 2.0 * (8.0f32 / 9.0).sqrt());
    assert!((x.x - want.x).abs() < 1e-6 && x.y == 0.0 && (x.z.abs() - want.z).abs() < 1e-6);
}

fn placed(centre: Vec3, q: Quat, semi: Vec3) -> Placed {
    Placed {
        centre,
        q,
        radius: semi.min_element(),
        shape: Shape::Ellipsoid { semi_axes: semi },
    }
}

#[test]
fn equal_axes_touch_as_spheres() {
    let a = placed(
        Vec3::new(0.1, 0.2, 0.3),
        Quat::from_rotation_y(0.7),
        Vec3::splat(0.2),
    );
    for (offset, rb) in [
        (Vec3::new(0.3, 0.2, -0.1), 0.1),
        (Vec3::new(0.1, -0.1, 0.2), 0.15),
    ] {
        let b = placed(
            a.centre + offset,
            Quat::from_rotation_x(1.3),
            Vec3::splat(rb),
        );
        let t = ellipsoids_touch(&a, Vec3::splat(0.2), &b, Vec3::splat(rb));
        let want = offset.length() - 0.2 - rb;
        assert!((t.phi - want).abs() < 1e-6, "{} vs {want}", t.phi);
        assert!((t.n + offset.normalize()).length() < 1e-5, "{}", t.n);
        assert!((t.pa - t.pb - t.phi * t.n).length() < 1e-6);
    }
}

/// Separated ellipsoids in general orientation: Φ is the least distance between their
/// surfaces, found independently as the least over 80,000 samples of a's surface of the
/// distance to b's nearest point ([`closest_on_ellipsoid`], checked against sampling
/// above), so within a's sample spacing of it.
#[test]
fn separated_ellipsoids_gap_matches_the_sampled_distance() {
    let (sa, sb) = (Vec3::new(0.3, 0.15, 0.08), Vec3::new(0.2, 0.2, 0.05));
    let cases = [
        (
            Vec3::new(0.45, 0.1, 0.2),
            Quat::from_rotation_z(0.8),
            Quat::from_rotation_x(0.5),
        ),
        (
            Vec3::new(0.0, 0.15, 0.4),
            Quat::from_rotation_y(1.2),
            Quat::from_rotation_z(-0.4),
        ),
        (
            Vec3::new(0.5, -0.2, 0.0),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.9, 1.7),
            Quat::IDENTITY,
        ),
    ];
    let (pa, spa) = samples(sa, 200);
    for (offset, qa, qb) in cases {
        let a = placed(Vec3::ZERO, qa, sa);
        let b = placed(offset, qb, sb);
        let t = ellipsoids_touch(&a, sa, &b, sb);
        let sampled = pa
            .iter()
            .map(|p| {
                let w = qa * p.as_vec3();
                let local = qb.inverse() * (w - offset);
                let inside = (local / sb).length_squared() < 1.0;
                assert!(!inside, "{offset}: the bodies overlap");
                (closest_on_ellipsoid(sb, local) - local).length() as f64
            })
            .fold(f64::INFINITY, f64::min);
        let phi = t.phi as f64;
        assert!(
            phi <= sampled + 1e-6 && phi >= sampled - spa,
            "{offset}: {phi} vs sampled {sampled}"
        );
        assert!((t.pa - t.pb - t.phi * t.n).length() < 1e-5, "{t:?}");
        assert!(on_surface(sa, qa.inverse() * (t.pa - a.centre)).abs() < 1e-5);
    }
}

/// Two equal ellipsoids (0.05, 0.1, 0.2) side by side along their shortest axis x, 0.09
/// apart: the least separating translation is 0.1 − 0.09 along x (every other direction
/// n has h_a(n) + h_b(n) ≥ 2·0.05 ≥ the overlap of centres n·d ≤ 0.09).
#[test]
fn overlapping_ellipsoids_depth_along_their_shortest_axis() {
    let semi = Vec3::new(0.05, 0.1, 0.2);
    let q = Quat::from_rotation_z(0.3);
    let a = placed(q * Vec3::new(0.09, 0.0, 0.0), q, semi);
    let b = placed(Vec3::ZERO, q, semi);
    let t = ellipsoids_touch(&a, semi, &b, semi);
    assert!((t.phi + 0.01).abs() < 1e-6, "{}", t.phi);
    assert!((t.n - q * Vec3::X).length() < 1e-5, "{}", t.n);
}

/// Overlapping and separated pairs in scattered orientations: Φ is the maximum over unit n
/// of g(n) (the definition), so it is no less than g at any of 80,000 sampled directions,
/// and no more than their best plus the sampling's reach (g is smooth at its maximum, so
/// the nearest sample falls short by O(spacing²) of the pair's size).
#[test]
fn the_gap_is_the_global_maximum_of_the_separation_over_sampled_normals() {
    let (sa, sb) = (Vec3::new(0.3, 0.15, 0.08), Vec3::new(0.2, 0.12, 0.05));
    let mut seed = 7u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let pi = std::f64::consts::PI;
    let normals: Vec<DVec3> = (0..=200)
        .flat_map(|i| {
            (0..400).map(move |k| {
                let (t, p) = (pi * i as f64 / 200.0, pi * k as f64 / 200.0);
                DVec3::new(t.sin() * p.cos(), t.sin() * p.sin(), t.cos())
            })
        })
        .collect();
    let mut overlapping = 0;
    for case in 0..12 {
        let mut quat = || {
            Quat::from_euler(
                glam::EulerRot::XYZ,
                (6.0 * next()) as f32,
                (6.0 * next()) as f32,
                (6.0 * next()) as f32,
            )
        };
        let (qa, qb) = (quat(), quat());
        // Centres 0.15 to 0.5 apart: from deep overlap to separated.
        let dir = DVec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize();
        let offset = (dir * (0.15 + 0.35 * next())).as_vec3();
        let (a, b) = (placed(offset, qa, sa), placed(Vec3::ZERO, qb, sb));
        let t = ellipsoids_touch(&a, sa, &b, sb);
        let (ma, mb) = (Metric::of(qa, sa), Metric::of(qb, sb));
        let d = offset.as_dvec3();
        let sampled = normals
            .iter()
            .map(|&n| separation(d, &ma, &mb, n))
            .fold(f64::NEG_INFINITY, f64::max);
        let phi = t.phi as f64;
        overlapping += usize::from(phi < 0.0);
        assert!(
            phi >= sampled - 1e-6 && phi <= sampled + 2e-3,
            "case {case}: Φ {phi} vs sampled max {sampled}"
        );
    }
    assert!(
        (3..=9).contains(&overlapping),
        "{overlapping} of 12 overlap"
    );
}
