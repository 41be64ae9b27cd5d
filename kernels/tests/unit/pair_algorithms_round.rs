//! The unit tests of `src/pair_algorithms/round.rs`.

use glam::Quat;
use glam::Vec3;
use grains_kernels::pair_algorithms::round::*;
use grains_kernels::shapes::{Placed, Shape};

fn assert_close(got: Vec3, want: Vec3) {
    assert!((got - want).length() < 1e-6, "{got} vs {want}");
}

/// A capsule of half-length 0.5 and radius 0.1.
fn rod(centre: Vec3, q: Quat) -> Placed {
    capsule(centre, q, 0.5, 0.1)
}

fn capsule(centre: Vec3, q: Quat, half_length: f32, radius: f32) -> Placed {
    Placed {
        centre,
        q,
        radius,
        shape: Shape::Capsule { half_length },
    }
}

#[test]
fn crossing_capsules_touch_at_their_axes_nearest_points() {
    // Along x at z = 0 and along y at z = 0.5, crossing above (0.2, −0.3).
    let a = capsule(Vec3::new(0.0, 0.0, 0.0), Quat::IDENTITY, 1.0, 0.1);
    let b = capsule(
        Vec3::new(0.2, 0.4, 0.5),
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        1.0,
        0.15,
    );
    let [t, lo, hi] = contact_points(&a, &b);
    let t = t.unwrap();
    assert!(
        lo.is_none() && hi.is_none(),
        "crossing at right angles: one point"
    );
    assert!(
        (t.phi - 0.25).abs() < 1e-6,
        "Φ = 0.5 − 0.1 − 0.15: {}",
        t.phi
    );
    assert!((t.n - Vec3::NEG_Z).length() < 1e-6, "{}", t.n);
    assert_close(t.pa, Vec3::new(0.2, 0.0, 0.1));
    assert_close(t.pb, Vec3::new(0.2, 0.0, 0.35));
}

#[test]
fn end_to_end_capsules_touch_at_their_ends() {
    // Collinear along x, the gap between the ends 0.3: Φ = 0.3 − 2r.
    let a = rod(Vec3::ZERO, Quat::IDENTITY);
    let b = rod(Vec3::new(1.3, 0.0, 0.0), Quat::from_rotation_z(0.0));
    let [t, lo, hi] = contact_points(&a, &b);
    let t = t.unwrap();
    assert!(
        lo.is_none() && hi.is_none(),
        "no overlap along the axes: one contact"
    );
    assert!((t.phi - 0.1).abs() < 1e-6, "{}", t.phi);
    assert!((t.n - Vec3::NEG_X).length() < 1e-6);
    // T-shape: b's end against the middle of a's side.
    let b = rod(
        Vec3::new(0.2, 0.0, 0.8),
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
    );
    let t = contact_points(&a, &b)[0].unwrap();
    assert!((t.phi - 0.1).abs() < 1e-6, "{}", t.phi);
    assert_close(t.pa, Vec3::new(0.2, 0.0, 0.1));
}

/// The x of a's contact points with b, ascending.
fn points_along_x(a: &Placed, b: &Placed) -> Vec<f32> {
    let mut xs: Vec<f32> = contact_points(a, b)
        .iter()
        .flatten()
        .map(|t| t.pa.x)
        .collect();
    xs.sort_by(f32::total_cmp);
    xs
}

#[test]
fn parallel_capsules_side_by_side_touch_at_both_ends_of_their_overlap() {
    // Along x, b shifted by 0.4 along x and 0.25 along y: the overlap is s ∈ [−0.1, 0.5].
    let a = rod(Vec3::ZERO, Quat::IDENTITY);
    let b = rod(Vec3::new(0.4, 0.25, 0.0), Quat::IDENTITY);
    let xs = points_along_x(&a, &b);
    assert_eq!(xs.len(), 2, "{xs:?}");
    assert!(
        (xs[0] + 0.1).abs() < 1e-6 && (xs[1] - 0.5).abs() < 1e-6,
        "{xs:?}"
    );
    for t in contact_points(&a, &b).iter().flatten() {
        assert!((t.phi - 0.05).abs() < 1e-6, "Φ = 0.25 − 0.2: {}", t.phi);
        assert_close(t.n, Vec3::NEG_Y);
    }
    // Antiparallel axes give the same two points.
    let flipped = rod(b.centre, Quat::from_rotation_z(std::f32::consts::PI));
    let fx = points_along_x(&a, &flipped);
    assert_eq!(fx.len(), 2, "{fx:?}");
    assert!(
        (fx[0] - xs[0]).abs() < 1e-5 && (fx[1] - xs[1]).abs() < 1e-5,
        "{fx:?}"
    );
}

#[test]
fn capsules_crossing_at_a_small_angle_touch_in_the_middle_and_at_both_ends() {
    // b lies 0.25 above a, turned by 0.1 rad about z: nearest at the centres (Φ = 0.05); b
    // covers s ∈ ±0.5 cos 0.1 of a's axis, whose ends lie 0.5 cos 0.1 sin 0.1 aside from
    // b's axis: Φ = √(0.25² + (0.5 cos 0.1 sin 0.1)²) − 0.2.
    let a = rod(Vec3::ZERO, Quat::IDENTITY);
    let b = rod(Vec3::new(0.0, 0.0, 0.25), Quat::from_rotation_z(0.1));
    let [mid, lo, hi] = contact_points(&a, &b);
    let mid = mid.unwrap();
    assert!(
        (mid.phi - 0.05).abs() < 1e-6 && mid.pa.x.abs() < 1e-6,
        "{mid:?}"
    );
    let far = (0.25f32.powi(2) + (0.5 * 0.1f32.cos() * 0.1f32.sin()).powi(2)).sqrt() - 0.2;
    let x = 0.5 * 0.1f32.cos();
    for (end, x) in [(lo.unwrap(), -x), (hi.unwrap(), x)] {
        let core = end.pa + 0.1 * end.n;
        assert!((core.x - x).abs() < 1e-6 && core.y.abs() < 1e-6, "{end:?}");
        assert!((end.phi - far).abs() < 1e-5, "{} vs {far}", end.phi);
    }
}

#[test]
fn sphere_against_an_ellipse_from_either_side() {
    let ellipse = Placed {
        centre: Vec3::ZERO,
        q: Quat::IDENTITY,
        radius: 4.0,
        shape: Shape::Ellipse { a: 4.0, b: 2.0 },
    };
    let ball = Placed {
        centre: Vec3::new(0.0, 0.0, 2.5),
        q: Quat::IDENTITY,
        radius: 1.0,
        shape: Shape::Sphere,
    };
    let t = contact_points(&ellipse, &ball)[0].unwrap();
    assert!((t.phi + 0.5).abs() < 1e-6, "overlap 0.5: {}", t.phi);
    assert!(
        (t.n - Vec3::NEG_Z).length() < 1e-6,
        "from the ball to the ellipse"
    );
    let u = contact_points(&ball, &ellipse)[0].unwrap();
    assert_eq!((u.n, u.phi, u.pa, u.pb), (-t.n, t.phi, t.pb, t.pa));
    // Centre inside the ellipse: still the outward normal, Φ = −(b − z) − r.
    let inside = Placed {
        centre: Vec3::new(0.0, 0.0, 1.5),
        ..ball
    };
    let t = contact_points(&inside, &ellipse)[0].unwrap();
    assert!((t.phi + 1.5).abs() < 1e-6, "{}", t.phi);
    assert!((t.n - Vec3::Z).length() < 1e-6, "{}", t.n);
}
