//! The unit tests of `src/geometric/dense.rs`.

use grains_kernels::geometric::dense::*;

#[test]
fn lu_solves_a_system_that_needs_pivoting() {
    // [[0, 2, 1], [1, 1, 0], [3, 0, 1]] x = b with x = (1, −2, 3); a zero first pivot.
    let mut a = DenseMatrix::zeros(3, 3);
    for (i, row) in [[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]]
        .iter()
        .enumerate()
    {
        for (j, v) in row.iter().enumerate() {
            a.set(i, j, *v);
        }
    }
    let x = a.solve(&[-1.0, -1.0, 6.0]).expect("regular");
    for (got, want) in x.iter().zip([1.0, -2.0, 3.0]) {
        assert!((got - want).abs() < 1e-14, "{got} vs {want}");
    }
}

#[test]
fn lu_reports_a_singular_matrix() {
    let mut a = DenseMatrix::zeros(2, 2);
    a.set(0, 0, 1.0);
    a.set(0, 1, 2.0);
    a.set(1, 0, 2.0);
    a.set(1, 1, 4.0);
    assert!(a.solve(&[1.0, 2.0]).is_none());
}
