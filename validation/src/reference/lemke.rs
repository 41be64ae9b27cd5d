//! Lemke's complementary pivoting method for the linear complementarity problem
//!
//! ```text
//!     w = M z + q,   w ≥ 0,   z ≥ 0,   wᵀz = 0
//! ```
//!
//! for small dense systems in `f64` (the LCP of the slides' "Matrix Form of the Integration
//! Step" and of anitescu-2006 eq. 5.1, once the velocities are eliminated).
//!
//! The method works on the augmented system `w = M z + d z₀ + q` with the covering vector
//! d = (1, …, 1). It starts from the almost-complementary basis {w} with z₀ entering, then
//! alternates: the variable that left the basis has its complement enter, until z₀ leaves
//! (a solution) or an entering column has no blocking row (ray termination: the method can
//! go no further and gives no solution for this q; for a copositive-plus M that means the LCP
//! has none).
//!
//! **Anti-cycling: the lexicographic minimum ratio test.** When the entering variable rises, the
//! leaving row is the one whose row of the tableau `(B⁻¹q, B⁻¹) / (B⁻¹a)ᵢ` (the basic
//! value followed by that row of the basis inverse, divided by the entering column's entry) is
//! lexicographically smallest among the rows with a positive entry. Since the rows of B⁻¹ are
//! linearly independent, that minimum is unique, every row of `(B⁻¹q, B⁻¹)` stays
//! lexicographically positive, and no almost-complementary basis can repeat: the method
//! terminates even on degenerate problems (ties in the plain ratio `B⁻¹q / B⁻¹a`), where a
//! first-index or smallest-index rule may cycle. The first pivot (z₀ entering, all rows
//! blocking from below) uses the same rule on `(q, I) / d`.

use thiserror::Error;

/// Why Lemke's method gave no solution.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LcpError {
    /// M is not n × n for the n entries of q.
    #[error("LCP: M has {entries} entries but q has {n} (M must be {n} × {n}, row-major)")]
    Shape {
        /// Entries of M.
        entries: usize,
        /// Entries of q.
        n: usize,
    },
    /// An entry of M or q is NaN or infinite.
    #[error("LCP: {which} has a non-finite entry at index {index}")]
    NonFinite {
        /// "M" or "q".
        which: &'static str,
        /// Index (row-major for M).
        index: usize,
    },
    /// The entering column had no positive entry: Lemke's ray termination.
    #[error("LCP: ray termination after {pivots} pivots (entering {entering} is unblocked): no solution reached for this q")]
    Ray {
        /// Pivots made before the ray.
        pivots: usize,
        /// The entering variable, e.g. `z[3]` or `w[0]`.
        entering: String,
    },
    /// The method did not finish within the allowed pivots.
    #[error("LCP: no solution within the limit of {limit} pivots")]
    PivotLimit {
        /// The limit.
        limit: usize,
    },
}

/// A solution of the LCP w = M z + q, w ≥ 0, z ≥ 0, wᵀz = 0.
#[derive(Clone, Debug, PartialEq)]
pub struct LcpSolution {
    /// z.
    pub z: Vec<f64>,
    /// w = M z + q.
    pub w: Vec<f64>,
    /// Pivots made (0 when q ≥ 0 and z = 0 solves the problem at once).
    pub pivots: usize,
    /// Ratio tests whose plain ratio B⁻¹q / B⁻¹a tied between rows and was decided by the
    /// basis inverse (the lexicographic part of the rule).
    pub lexicographic_ties: usize,
}

/// Relative size below which a tableau entry counts as zero for the ratio test.
const PIVOT_TOLERANCE: f64 = 1e-12;
/// Relative difference below which two ratios count as tied.
const TIE_TOLERANCE: f64 = 1e-11;

/// The augmented tableau B⁻¹[I | −M | −d | q] with one basic variable per row. Variables are
/// numbered w₀…wₙ₋₁ = 0…n−1, z₀…zₙ₋₁ = n…2n−1 and the artificial z₀ = 2n; the last column
/// holds the basic values. Columns 0…n−1 (those of the w's) are B⁻¹.
struct Tableau {
    n: usize,
    cells: Vec<f64>,
    basis: Vec<usize>,
}

impl Tableau {
    fn new(m: &[f64], q: &[f64]) -> Self {
        let n = q.len();
        let width = 2 * n + 2;
        let mut cells = vec![0.0; n * width];
        for i in 0..n {
            let row = &mut cells[i * width..(i + 1) * width];
            row[i] = 1.0;
            for j in 0..n {
                row[n + j] = -m[i * n + j];
            }
            row[2 * n] = -1.0;
            row[2 * n + 1] = q[i];
        }
        Tableau {
            n,
            cells,
            basis: (0..n).collect(),
        }
    }

    fn width(&self) -> usize {
        2 * self.n + 2
    }

    fn at(&self, row: usize, col: usize) -> f64 {
        self.cells[row * self.width() + col]
    }

    fn value(&self, row: usize) -> f64 {
        self.at(row, 2 * self.n + 1)
    }

    /// The row's lexicographic key (basic value, then the row of B⁻¹) divided by `divisor`.
    fn key(&self, row: usize, divisor: f64) -> impl Iterator<Item = f64> + '_ {
        std::iter::once(self.value(row))
            .chain((0..self.n).map(move |j| self.at(row, j)))
            .map(move |x| x / divisor)
    }

    /// Lexicographic minimum ratio test over `(row, divisor)` candidates (divisors positive).
    /// Returns the row and whether another candidate had the same plain ratio (a tie that
    /// the basis inverse decided).
    fn lexicographic_min(&self, candidates: &[(usize, f64)]) -> Option<(usize, bool)> {
        let same =
            |x: f64, y: f64| (x - y).abs() <= TIE_TOLERANCE * 1.0f64.max(x.abs()).max(y.abs());
        let smaller = |a: (usize, f64), b: (usize, f64)| {
            self.key(a.0, a.1)
                .zip(self.key(b.0, b.1))
                .find(|&(x, y)| !same(x, y))
                .is_some_and(|(x, y)| x < y)
        };
        let best = candidates
            .iter()
            .copied()
            .reduce(|best, c| if smaller(c, best) { c } else { best })?;
        let ratio = |(row, divisor): (usize, f64)| self.value(row) / divisor;
        let tied = candidates
            .iter()
            .any(|&c| c.0 != best.0 && same(ratio(c), ratio(best)));
        Some((best.0, tied))
    }

    /// Makes `col` basic in `row` (Gauss–Jordan step); returns the variable that left.
    fn pivot(&mut self, row: usize, col: usize) -> usize {
        let width = self.width();
        let p = self.at(row, col);
        for x in &mut self.cells[row * width..(row + 1) * width] {
            *x /= p;
        }
        let pivot_row: Vec<f64> = self.cells[row * width..(row + 1) * width].to_vec();
        for i in (0..self.n).filter(|&i| i != row) {
            let f = self.at(i, col);
            if f != 0.0 {
                for (x, &y) in self.cells[i * width..(i + 1) * width]
                    .iter_mut()
                    .zip(&pivot_row)
                {
                    *x -= f * y;
                }
            }
        }
        std::mem::replace(&mut self.basis[row], col)
    }

    fn name(&self, var: usize) -> String {
        if var < self.n {
            format!("w[{var}]")
        } else if var < 2 * self.n {
            format!("z[{}]", var - self.n)
        } else {
            "the artificial z₀".into()
        }
    }
}

/// Solves w = M z + q, w ≥ 0, z ≥ 0, wᵀz = 0 by Lemke's method with the lexicographic minimum
/// ratio test; `m` is n × n row-major. Stops with [`LcpError::Ray`] on ray termination and
/// [`LcpError::PivotLimit`] after `max_pivots` pivots.
pub fn solve_lcp(m: &[f64], q: &[f64], max_pivots: usize) -> Result<LcpSolution, LcpError> {
    let n = q.len();
    if m.len() != n * n {
        return Err(LcpError::Shape {
            entries: m.len(),
            n,
        });
    }
    for (which, v) in [("M", m), ("q", q)] {
        if let Some(index) = v.iter().position(|x| !x.is_finite()) {
            return Err(LcpError::NonFinite { which, index });
        }
    }
    if q.iter().all(|&x| x >= 0.0) {
        return Ok(LcpSolution {
            z: vec![0.0; n],
            w: q.to_vec(),
            pivots: 0,
            lexicographic_ties: 0,
        });
    }
    let mut t = Tableau::new(m, q);
    let artificial = 2 * n;
    let (mut pivots, mut ties) = (0, 0);
    let mut entering = artificial;
    loop {
        let candidates: Vec<(usize, f64)> = if pivots == 0 {
            // z₀ rises until every w is ≥ 0: the row that reaches zero last (lexicographic
            // minimum of (q, I) / d, d = 1) leaves.
            (0..n).map(|i| (i, 1.0)).collect()
        } else {
            // Basic values fall at the rate of the entering column: its positive rows block.
            let scale = (0..n)
                .map(|i| t.at(i, entering).abs())
                .fold(1.0f64, f64::max);
            (0..n)
                .map(|i| (i, t.at(i, entering)))
                .filter(|&(_, a)| a > PIVOT_TOLERANCE * scale)
                .collect()
        };
        let Some((row, tied)) = t.lexicographic_min(&candidates) else {
            return Err(LcpError::Ray {
                pivots,
                entering: t.name(entering),
            });
        };
        if pivots >= max_pivots {
            return Err(LcpError::PivotLimit { limit: max_pivots });
        }
        ties += tied as usize;
        let leaving = t.pivot(row, entering);
        pivots += 1;
        if leaving == artificial {
            break;
        }
        // The complement of the variable that left enters.
        entering = if leaving < n {
            leaving + n
        } else {
            leaving - n
        };
    }
    let mut z = vec![0.0; n];
    let mut w = vec![0.0; n];
    for (row, &var) in t.basis.iter().enumerate() {
        let value = t.value(row).max(0.0);
        if var < n {
            w[var] = value;
        } else if var < 2 * n {
            z[var - n] = value;
        }
    }
    Ok(LcpSolution {
        z,
        w,
        pivots,
        lexicographic_ties: ties,
    })
}
