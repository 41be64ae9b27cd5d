//! The unit tests of `src/periodic.rs`.

use glam::{IVec2, Vec3};
use grains_kernels::periodic::*;

const CELL: Periodic = Periodic {
    x: Some((-1.0, 3.0)),
    ..Periodic::NONE
};

/// A sheared cell 4 × 2 m with its images across y offset by 1.3 m.
const SHEARED: Periodic = Periodic {
    x: Some((-1.0, 3.0)),
    y: Some((0.0, 2.0)),
    shear_rate: 0.5,
    shear_offset: 1.3,
};

/// A pseudo-random point of the sheared cell (z in [0, 1)).
fn point(seed: u32) -> Vec3 {
    let u = |k: u32| {
        let x = (seed
            .wrapping_mul(2_654_435_761)
            .wrapping_add(k.wrapping_mul(40_503)))
        .rotate_left(13)
        .wrapping_mul(2_246_822_519);
        (x >> 8) as f32 / (1u32 << 24) as f32
    };
    Vec3::new(-1.0 + 4.0 * u(1), 2.0 * u(2), u(3))
}

/// In a sheared cell the minimum image of a pair within reach is a − the nearest of b's
/// copies (x_b + m Δ + j L_x, y_b + m L_y), m its index across y; the image index names the
/// copy the minimum image measures; the queries of a centre find every partner within
/// reach around its index, once.
#[test]
fn sheared_minimum_image_is_nearest_copy() {
    let (reach, delta) = (0.6f32, SHEARED.shear_offset);
    let mut near = 0;
    for seed in 0..4000 {
        let (a, b) = (point(2 * seed), point(2 * seed + 1));
        let mut best = (f32::INFINITY, Vec3::ZERO, 0, 0);
        for m in -1..=1 {
            for j in -2..=2 {
                let copy = b + Vec3::new(m as f32 * delta + j as f32 * 4.0, m as f32 * 2.0, 0.0);
                let d = a - copy;
                if d.length() < best.0 {
                    best = (d.length(), d, m, j);
                }
            }
        }
        // Only a copy within half a period along y is certain to be the one of least
        // |d_y|: the pairs within reach (less than half of either period) are.
        let (d, m) = SHEARED.minimum_image_sheared(a - b);
        let k = SHEARED.image_index_sheared(a, b);
        if best.0 <= reach {
            assert!(
                (d - best.1).length() < 1e-5,
                "{a} {b}: {d} against {}",
                best.1
            );
            assert_eq!(m as i32, best.2);
            assert_eq!(k, IVec2::new(-best.3, -best.2), "{a} {b}");
        }
        // The image index always names the copy the minimum image measures.
        let copy = b - Vec3::new(k.y as f32 * delta + k.x as f32 * 4.0, k.y as f32 * 2.0, 0.0);
        assert!((a - copy - d).length() < 1e-5, "{a} {b} {k}: {d}");
        let (queries, n) = SHEARED.image_queries(a, reach);
        let found: Vec<_> = queries[..n].iter().filter(|q| q.1 == k).collect();
        if best.0 <= reach {
            near += 1;
            assert_eq!(found.len(), 1, "{a} {b} {k}: {:?}", &queries[..n]);
            let q = found[0].0;
            assert!(
                (b - q).truncate().length() <= reach + 1e-4,
                "{a} {b} around {q}"
            );
        }
        assert!(found.len() <= 1);
        let mut ks: Vec<_> = queries[..n].iter().map(|q| (q.1.x, q.1.y)).collect();
        ks.sort_unstable();
        ks.windows(2).for_each(|w| assert_ne!(w[0], w[1]));
    }
    assert!(near > 200, "{near} pairs within reach");
}

/// Leaving through y = hi a grain re-enters at lo shifted by −Δ⁺ along x and slowed by
/// γ̇ L_y; through lo the opposite; inside the cell only x is wrapped.
#[test]
fn sheared_wrap_shifts_and_slows() {
    let h = 0.01;
    let end = SHEARED.shear_offset + 0.5 * 2.0 * h;
    let v = Vec3::new(0.2, 0.3, 0.0);
    let (p, w) = SHEARED.wrap_sheared(Vec3::new(0.5, 2.1, 0.2), v, h);
    assert!((p - Vec3::new(0.5 - end, 0.1, 0.2)).length() < 1e-6, "{p}");
    assert_eq!(w, Vec3::new(0.2 - 1.0, 0.3, 0.0));
    let (p, w) = SHEARED.wrap_sheared(Vec3::new(2.5, -0.1, 0.2), v, h);
    assert!(
        (p - Vec3::new(2.5 + end - 4.0, 1.9, 0.2)).length() < 1e-6,
        "{p}"
    );
    assert_eq!(w, Vec3::new(1.2, 0.3, 0.0));
    let (p, w) = SHEARED.wrap_sheared(Vec3::new(3.5, 1.0, 0.2), v, h);
    assert_eq!((p, w), (Vec3::new(-0.5, 1.0, 0.2), v));
}

/// A grain leaving through y = lo by less than an ulp of hi lands at y + L_y, which rounds to
/// hi: it is the next period's lo, shifted along x by the offset and slowed as one that left
/// through hi (not set to lo with its x unchanged, a jump of Δ⁺ along x that put a grain
/// inside its neighbour in a sheared bed).
#[test]
fn sheared_wrap_of_a_y_rounding_to_hi_keeps_the_shift() {
    let h = 0.01;
    let v = Vec3::new(0.2, 0.3, 0.0);
    let below = -1e-9f32;
    assert_eq!(below + 2.0, 2.0, "y + L_y rounds to hi");
    let (p, w) = SHEARED.wrap_sheared(Vec3::new(0.5, below, 0.2), v, h);
    // The true point (0.5, 2 − 1e-9) one period up: x + Δ⁺ at y ≈ L_y, the same place as x at
    // y ≈ 0 (one period up and back down).
    assert!((p - Vec3::new(0.5, 0.0, 0.2)).length() < 1e-6, "{p}");
    assert_eq!(w, v);
    // A y a hair below hi stays in its period or moves to the next with the shift: the point
    // is the same either way.
    let (p, w) = SHEARED.wrap_sheared(Vec3::new(0.5, 2.0 - 1e-9, 0.2), v, h);
    let end = SHEARED.shear_offset + 0.5 * 2.0 * h;
    let same = (p - Vec3::new(0.5, 2.0 - 1e-9, 0.2)).length() < 1e-6
        || (p - Vec3::new(0.5 - end, 0.0, 0.2)).length() < 1e-6 && w == v - Vec3::X;
    assert!(same, "{p} {w}");
}

/// The offset at time t is γ̇ L_y t mod L_x, without drift at a large t.
#[test]
fn offset_at_time_wraps_without_drift() {
    assert!((SHEARED.offset_at(1.5) - 1.5).abs() < 1e-6);
    assert!((SHEARED.offset_at(5.0) - 1.0).abs() < 1e-6);
    let t = 1e7 + 0.25; // 10⁷ m of shift, 2.5·10⁶ periods
    assert!((SHEARED.offset_at(t) - 0.25).abs() < 1e-6);
    assert_eq!(CELL.offset_at(3.0), 0.0);
}

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
        ..Periodic::NONE
    };
    let (k, n) = tiny.image_shifts(Vec3::splat(0.5), 0.6);
    assert_eq!(n, 9);
    let mut k = k.map(|k| (k.x, k.y));
    k.sort_unstable();
    k.windows(2).for_each(|w| assert_ne!(w[0], w[1]));
}
