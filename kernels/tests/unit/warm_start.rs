//! The unit tests of `src/warm_start.rs`.

use glam::Vec3;
use grains_kernels::layout::pair_key;
use grains_kernels::layout::ContactRow;
use grains_kernels::warm_start::*;

/// A contact row with normal n and tangents t1, t2, friction μ = 0.5.
fn row(n: Vec3, t1: Vec3) -> ContactRow {
    ContactRow {
        n: n.to_array(),
        t1: t1.to_array(),
        t2: n.cross(t1).to_array(),
        mu: 0.5,
        ..ContactRow::default()
    }
}

fn assert_close(got: [f32; 4], want: [f32; 4]) {
    let apart = got.iter().zip(&want).map(|(a, b)| (a - b).abs());
    assert!(apart.fold(0.0, f32::max) < 1e-6, "{got:?} vs {want:?}");
}

/// Two contacts store their impulses; next step one of them persists (its frame turned 90°
/// about its normal) and a new one appears: the persisting pair starts from `warm_start` ×
/// its impulse in the new frame, the new one from zero; with weight 0 both start cold.
#[test]
fn persisting_pairs_start_from_their_scaled_impulse_and_new_ones_from_zero() {
    let up = row(Vec3::Z, Vec3::X);
    let mut cache = ImpulseCache::default();
    let (kept, gone, new) = (pair_key(0, 1), pair_key(0, 2), pair_key(1, 2));
    cache.store(
        &[kept, gone],
        &[up, up],
        &[[1.0, 0.2, -0.1, 0.0], [2.0, 0.5, 0.3, 0.0]],
    );
    let turned = row(Vec3::Z, Vec3::Y);
    let mut gamma = [[9.0; 4]; 2];
    cache.warm_start(&[kept, new], &[turned, up], &mut gamma, 0.5);
    // The stored impulse is (0.2, −0.1, 1) in world axes: on (n, y, −x) it reads (1, −0.1, −0.2).
    assert_close(gamma[0], [0.5, -0.05, -0.1, 0.0]);
    assert_eq!(gamma[1], [0.0; 4]);
    cache.warm_start(&[kept, new], &[turned, up], &mut gamma, 0.0);
    assert_eq!(gamma, [[0.0; 4]; 2]);
}

/// A stored impulse that no longer fits the cone of the new frame (the normal turned by
/// 90°, so the old normal impulse γ is now all tangential) is projected onto the cone's
/// surface: γn = μ γ/(1 + μ²) = 0.4, γt = μ γn = 0.2.
#[test]
fn a_turned_normal_reprojects_onto_the_cone() {
    let mut cache = ImpulseCache::default();
    let key = pair_key(3, 4);
    cache.store(&[key], &[row(Vec3::Z, Vec3::X)], &[[1.0, 0.0, 0.0, 0.0]]);
    let mut gamma = [[9.0; 4]];
    cache.warm_start(&[key], &[row(Vec3::X, Vec3::Z)], &mut gamma, 1.0);
    assert_close(gamma[0], [0.4, 0.2, 0.0, 0.0]);
}
