//! The unit tests of `src/periodic.rs`.

use glam::{IVec2, Vec3};
use grains_kernels::periodic::*;

const CELL: Periodic = Periodic {
    x: Some((-1.0, 3.0)),
    y: None,
};

/// Wrapping lands in [lo, hi) and moves by whole periods only.
#[test]
fn wrap_lands_in_range_by_whole_periods() {
    for x in [-1.0f32, -1.5, 3.0, 7.25, -9.0, 2.999_999_8, -1.000_000_1] {
        let w = CELL.wrap(Vec3::new(x, 5.0, 6.0));
        assert!((-1.0..3.0).contains(&w.x), "{x} → {}", w.x);
        assert_eq!((w.y, w.z), (5.0, 6.0));
        let periods = (x - w.x) / 4.0;
        assert!((periods - periods.round()).abs() < 1e-5, "{x} → {}", w.x);
    }
}

/// The minimum image is at most half a period and differs from d by whole periods; image
/// indices are antisymmetric and consistent with it.
#[test]
fn minimum_image_is_nearest_copy() {
    let a = Vec3::new(-0.9, 0.0, 0.0);
    let b = Vec3::new(2.8, 1.0, 0.0);
    let d = CELL.minimum_image(a - b);
    assert!((d.x - 0.3).abs() < 1e-6, "{d}");
    assert_eq!(d.y, -1.0);
    assert_eq!(CELL.image_index(a, b), IVec2::new(1, 0));
    assert_eq!(CELL.image_index(b, a), IVec2::new(-1, 0));
    let via_offset = a - (b - CELL.offset(CELL.image_index(a, b)));
    assert!((via_offset - d).length() < 1e-6);
}

/// A centre near the lower side queries its image +1, near both sides of both axes all 9.
#[test]
fn image_shifts_follow_the_sides_within_reach() {
    let (k, n) = CELL.image_shifts(Vec3::new(-0.9, 0.0, 0.0), 0.2);
    assert_eq!(&k[..n], &[IVec2::ZERO, IVec2::X]);
    let (_, n) = CELL.image_shifts(Vec3::new(1.0, 0.0, 0.0), 0.2);
    assert_eq!(n, 1);
    let tiny = Periodic {
        x: Some((0.0, 1.0)),
        y: Some((0.0, 1.0)),
    };
    let (k, n) = tiny.image_shifts(Vec3::splat(0.5), 0.6);
    assert_eq!(n, 9);
    let mut k = k.map(|k| (k.x, k.y));
    k.sort_unstable();
    k.windows(2).for_each(|w| assert_ne!(w[0], w[1]));
}
