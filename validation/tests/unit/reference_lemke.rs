//! The unit tests of `src/reference/lemke.rs`.

use grains_kernels::random::SplitMix64;
use grains_validation::reference::lemke::*;

/// SplitMix64 in [−1, 1): a reproducible stream for random problems.
struct Stream(SplitMix64);

impl Stream {
    fn next(&mut self) -> f64 {
        self.0.next_f64() * 2.0 - 1.0
    }
}

/// Largest violation of w = Mz + q, w ≥ 0, z ≥ 0 and |wᵢ zᵢ|.
fn violation(m: &[f64], q: &[f64], s: &LcpSolution) -> f64 {
    let n = q.len();
    let mut worst: f64 = 0.0;
    for i in 0..n {
        let wi: f64 = (0..n).map(|j| m[i * n + j] * s.z[j]).sum::<f64>() + q[i];
        worst = worst
            .max((wi - s.w[i]).abs())
            .max(-s.w[i])
            .max(-s.z[i])
            .max((s.w[i] * s.z[i]).abs());
    }
    worst
}

#[test]
fn random_positive_definite_problems_are_solved_to_1e_10() {
    let mut rng = Stream(SplitMix64(2006));
    for trial in 0..200 {
        let n = 1 + trial % 8;
        // M = AᵀA + 0.1 I + S with S skew: positive definite, not symmetric.
        let a: Vec<f64> = (0..n * n).map(|_| rng.next()).collect();
        let s: Vec<f64> = (0..n * n).map(|_| rng.next()).collect();
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                let ata: f64 = (0..n).map(|k| a[k * n + i] * a[k * n + j]).sum();
                let skew = s[i * n + j] - s[j * n + i];
                m[i * n + j] = ata + skew + if i == j { 0.1 } else { 0.0 };
            }
        }
        let q: Vec<f64> = (0..n).map(|_| 3.0 * rng.next()).collect();
        let sol = solve_lcp(&m, &q, 1000).unwrap();
        let v = violation(&m, &q, &sol);
        assert!(v <= 1e-10, "trial {trial} (n = {n}): violation {v:e}");
    }
}

#[test]
fn two_by_two_with_both_unknowns_positive_matches_the_inverse() {
    // M z + q = 0 with z > 0: z = −M⁻¹q = (1/3)[[2, −1], [−1, 2]] (5, 6) = (4/3, 7/3).
    let m = [2.0, 1.0, 1.0, 2.0];
    let sol = solve_lcp(&m, &[-5.0, -6.0], 10).unwrap();
    assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-14, "{sol:?}");
    assert!((sol.z[1] - 7.0 / 3.0).abs() < 1e-14, "{sol:?}");
    assert!(sol.w.iter().all(|w| w.abs() < 1e-14));
    // With M = I the solution is z = max(−q, 0), w = max(q, 0).
    let q = [1.5, -2.0, 0.0, -0.25];
    let mut eye = [0.0; 16];
    for i in 0..4 {
        eye[i * 5] = 1.0;
    }
    let sol = solve_lcp(&eye, &q, 10).unwrap();
    for ((z, w), qi) in sol.z.iter().zip(&sol.w).zip(q) {
        assert_eq!(*z, (-qi).max(0.0));
        assert_eq!(*w, qi.max(0.0));
    }
}

#[test]
fn degenerate_ties_are_decided_lexicographically() {
    // Every plain ratio ties: q = −(1, 1, 1) and a cyclic M. The solution is
    // z = (1/3, 1/3, 1/3), w = 0 (M z = e). Breaking the ties by the first row instead of
    // lexicographically cycles here until the pivot limit.
    let m = [1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0];
    let q = [-1.0, -1.0, -1.0];
    let sol = solve_lcp(&m, &q, 100).unwrap();
    assert!(sol.lexicographic_ties > 0, "{sol:?}");
    assert!(violation(&m, &q, &sol) <= 1e-12, "{sol:?}");
    for z in &sol.z {
        assert!((z - 1.0 / 3.0).abs() < 1e-12, "{sol:?}");
    }
    // A P-matrix whose unique solution z = (1, 0, 0) is degenerate (w = 0 too).
    let m = [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0];
    let q = [-1.0, -1.0, -1.0];
    let sol = solve_lcp(&m, &q, 100).unwrap();
    assert!(sol.lexicographic_ties > 0, "{sol:?}");
    assert!(violation(&m, &q, &sol) <= 1e-12, "{sol:?}");
    for (z, want) in sol.z.iter().zip([1.0, 0.0, 0.0]) {
        assert!((z - want).abs() < 1e-12, "{sol:?}");
    }
}

#[test]
fn an_lcp_without_solution_ends_on_a_ray() {
    // w = −z − 1 ≥ 0 has no solution with z ≥ 0.
    match solve_lcp(&[-1.0], &[-1.0], 10) {
        Err(LcpError::Ray { pivots, entering }) => {
            assert_eq!(pivots, 1);
            assert_eq!(entering, "z[0]");
        }
        other => panic!("expected a ray, got {other:?}"),
    }
}

#[test]
fn bad_input_and_the_pivot_limit_are_typed_errors() {
    assert_eq!(
        solve_lcp(&[1.0, 0.0], &[1.0], 10),
        Err(LcpError::Shape { entries: 2, n: 1 })
    );
    assert_eq!(
        solve_lcp(&[1.0, f64::NAN, 0.0, 1.0], &[1.0, -1.0], 10),
        Err(LcpError::NonFinite {
            which: "M",
            index: 1
        })
    );
    // Needs two pivots (z₀ in, then z₁ in and z₀ out).
    assert_eq!(
        solve_lcp(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0], 1),
        Err(LcpError::PivotLimit { limit: 1 })
    );
}
