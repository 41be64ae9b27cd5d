//! The unit tests of `src/geometric/semismooth.rs`.

use grains_kernels::geometric::dense::DenseMatrix;
use grains_kernels::geometric::semismooth::*;

/// The scalar NCP 0 ≤ x ⊥ x − c ≥ 0 as FB(x, x − c) = 0: solution max(c, 0).
struct ScalarNcp(f64);

impl SemismoothSystem for ScalarNcp {
    fn dim(&self) -> usize {
        1
    }
    fn residual(&self, z: &[f64]) -> Vec<f64> {
        vec![fischer_burmeister(z[0], z[0] - self.0)]
    }
    fn residual_and_jacobian(&self, z: &[f64]) -> (Vec<f64>, DenseMatrix) {
        let (ga, gb) = fischer_burmeister_gradient(z[0], z[0] - self.0);
        let mut j = DenseMatrix::zeros(1, 1);
        j.set(0, 0, ga + gb);
        (self.residual(z), j)
    }
}

#[test]
fn newton_solves_both_branches_of_a_scalar_ncp() {
    for c in [2.0, -3.0] {
        let (z, report) =
            solve_semismooth(&ScalarNcp(c), vec![0.5], NewtonSettings::default()).unwrap();
        assert!(
            (z[0] - c.max(0.0)).abs() < 1e-9,
            "c = {c}: {z:?} {report:?}"
        );
    }
}

#[test]
fn projection_jacobian_matches_central_differences() {
    let y = [0.3, -1.2, 0.5];
    let radius = 0.7;
    let (_, dy, dr) = ball_projection(y, radius);
    let eps = 1e-6;
    for j in 0..3 {
        let mut plus = y;
        let mut minus = y;
        plus[j] += eps;
        minus[j] -= eps;
        let (p, _, _) = ball_projection(plus, radius);
        let (m, _, _) = ball_projection(minus, radius);
        for i in 0..3 {
            assert!(((p[i] - m[i]) / (2.0 * eps) - dy[i][j]).abs() < 1e-8);
        }
    }
    let (p, _, _) = ball_projection(y, radius + eps);
    let (m, _, _) = ball_projection(y, radius - eps);
    for i in 0..3 {
        assert!(((p[i] - m[i]) / (2.0 * eps) - dr[i]).abs() < 1e-8);
    }
}
