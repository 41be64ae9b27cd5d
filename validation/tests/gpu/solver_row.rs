//! The GPU's compact solver row (`shaders/src/solver_row.wgsl`: 48 bytes per contact, its frame,
//! lever arms and masses rebuilt in the solve) against the CPU's full rows, the two pipelines
//! stepped directly where the rebuilt parts matter most: planar mode (the tangents t1 = e_y × n,
//! t2 = e_y), a floor sliding under the grains (the bias's tangential parts −t·v_wall), spheres of
//! different radii and a large one (the two lever arms' lengths) and rough friction with moment
//! rows (the arms' signs turn the moment rows and the gather).

use super::pipelines::{bed, lockstep, push};
use glam::Vec3;
use grains_kernels::{Bodies, FrictionTable};

/// 48 spheres of radius 0.05–0.1 m (by a fixed pattern) on an 8 × 6 lattice in the x–z plane
/// (y = 0), moving in it, and a large sphere (0.3 m) falling onto them.
fn planar_spheres() -> Bodies {
    let mut b = Bodies::default();
    for k in 0..48 {
        let (i, j) = (k % 8, k / 8);
        let r = 0.05 + 0.01 * (k % 6) as f32;
        let p = Vec3::new((i as f32 - 3.5) * 0.21, 0.0, 0.12 + 0.21 * j as f32);
        let v = Vec3::new(0.3 * ((k % 5) as f32 - 2.0), 0.0, -0.5 * (k % 3) as f32);
        push(&mut b, p, r, v);
    }
    push(
        &mut b,
        Vec3::new(0.1, 0.0, 1.6),
        0.3,
        Vec3::new(0.0, 0.0, -2.0),
    );
    b
}

/// Planar mode, a floor sliding along x at 0.8 m/s under spheres of several radii and a large
/// one, with spinning and rolling friction: one step on the GPU, which solves from the compact
/// rows, moves the bodies as the CPU's step from its full rows within lockstep's tolerances
/// (1e-5 r, 1e-4 rad, moment impulses within 1e-3 of the largest: the GPU's float rounding, as
/// the other lockstep cases). A solver row that lost the planar tangents, the floor's velocity
/// in the bias or an arm's sign or length would move the sliding, spinning grains by far more.
#[test]
fn planar_grains_on_a_sliding_floor_step_like_cpu_jacobi() {
    let mut s = bed(0, false);
    s.bodies = planar_spheres();
    s.params.planar = true;
    s.walls[0].velocity = [0.8, 0.0, 0.0, 0.0];
    s.friction = FrictionTable {
        count: 1,
        mu: vec![0.5],
        restitution: vec![0.0],
        spinning: vec![0.02],
        rolling: vec![0.01],
        ..FrictionTable::default()
    };
    let most = lockstep(&s, "planar grains on a sliding floor", 150);
    // The grains pile on the floor, against the side walls and under the large one.
    assert!(most.is_none_or(|m| m >= 50), "{most:?} contacts");
}
