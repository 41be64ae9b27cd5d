//! The moment cones of spinning and rolling friction.

use glam::Vec4;
use grains_kernels::rolling::{project_moment_cones, MomentPack};

fn lanes(v: [f32; 3]) -> [Vec4; 3] {
    v.map(Vec4::splat)
}

fn cones(e_r: f32, e_roll: f32) -> MomentPack {
    MomentPack {
        spin: Vec4::splat(e_r),
        roll: Vec4::splat(e_roll),
        ..Default::default()
    }
}

/// Spin: |γ_s| ≤ e_r ((μ γn)² − ‖γ_t‖²)^½, the ellipsoid's spin axis left by the sliding friction;
/// rolling: the disk ‖γ_r‖ ≤ e_roll γn, keeping the direction.
#[test]
fn moment_cones_follow_the_friction_ellipsoid_and_the_rolling_disk() {
    let m = cones(0.4, 0.1);
    let mu = Vec4::splat(0.5);
    let project = |g: [f32; 3], slide: [f32; 3]| {
        project_moment_cones(lanes(g), &m, &lanes(slide), mu).map(|l| l.x)
    };
    // No sliding friction: the full μ e_r γn = 0.5 · 0.4 · 2 = 0.4.
    assert_eq!(project([1.0, 0.0, 0.0], [2.0, 0.0, 0.0])[0], 0.4);
    assert_eq!(project([-1.0, 0.0, 0.0], [2.0, 0.0, 0.0])[0], -0.4);
    assert_eq!(project([0.3, 0.0, 0.0], [2.0, 0.0, 0.0])[0], 0.3);
    // Sliding friction 0.6 of μ γn = 1 leaves e_r · 0.8.
    let s = project([1.0, 0.0, 0.0], [2.0, 0.6, 0.0])[0];
    assert!((s - 0.32).abs() < 1e-6, "{s}");
    // Friction on the cone: no spin friction left.
    assert_eq!(project([1.0, 0.0, 0.0], [2.0, 0.0, 1.0])[0], 0.0);
    // Rolling: (0.3, 0.4) has length 0.5 > e_roll γn = 0.2, scaled to (0.12, 0.16).
    let r = project([0.0, 0.3, 0.4], [2.0, 0.0, 0.0]);
    assert!(
        (r[1] - 0.12).abs() < 1e-6 && (r[2] - 0.16).abs() < 1e-6,
        "{r:?}"
    );
    assert_eq!(project([0.0, 0.1, -0.1], [2.0, 0.0, 0.0]), [0.0, 0.1, -0.1]);
    // No normal impulse: no moment at all.
    assert_eq!(project([0.5, 0.5, 0.5], [0.0, 0.0, 0.0]), [0.0; 3]);
}
