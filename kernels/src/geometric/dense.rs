//! Small dense linear algebra for the semismooth Newton solver: a row-major matrix, LU with
//! partial pivoting, and the regularised normal equations (JᵀJ + μI) d = −JᵀΦ of its fallback.

/// A dense row-major matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseMatrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl DenseMatrix {
    /// The zero matrix with `rows` rows and `cols` columns.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        DenseMatrix {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Entry (i, j).
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
    }

    /// Sets entry (i, j).
    pub fn set(&mut self, i: usize, j: usize, value: f64) {
        self.data[i * self.cols + j] = value;
    }

    /// Row `i` as a slice.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// Row `i` as a mutable slice.
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        &mut self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// Aᵀx.
    pub fn transpose_times(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.cols];
        for (i, &xi) in x.iter().enumerate() {
            for (o, a) in out.iter_mut().zip(self.row(i)) {
                *o += a * xi;
            }
        }
        out
    }

    /// AᵀA + μI (square, `cols` × `cols`).
    pub fn gram_plus(&self, mu: f64) -> DenseMatrix {
        let n = self.cols;
        let mut g = DenseMatrix::zeros(n, n);
        for k in 0..self.rows {
            let r = self.row(k);
            for i in 0..n {
                if r[i] == 0.0 {
                    continue;
                }
                let gi = g.row_mut(i);
                for j in 0..n {
                    gi[j] += r[i] * r[j];
                }
            }
        }
        for i in 0..n {
            g.data[i * n + i] += mu;
        }
        g
    }

    /// Solves A x = b by LU with partial pivoting; None when a pivot is below
    /// `1e-14 · max|A|` (numerically singular). A is consumed.
    pub fn solve(mut self, b: &[f64]) -> Option<Vec<f64>> {
        let n = self.rows;
        assert_eq!(n, self.cols, "LU needs a square matrix");
        let scale = self.data.iter().fold(0.0f64, |m, a| m.max(a.abs()));
        if scale == 0.0 || !scale.is_finite() {
            return None;
        }
        let mut x = b.to_vec();
        for k in 0..n {
            let (p, pivot) = (k..n)
                .map(|i| (i, self.get(i, k).abs()))
                .fold((k, -1.0), |best, c| if c.1 > best.1 { c } else { best });
            if pivot <= 1e-14 * scale {
                return None;
            }
            if p != k {
                for j in 0..n {
                    self.data.swap(k * n + j, p * n + j);
                }
                x.swap(k, p);
            }
            let akk = self.get(k, k);
            for i in k + 1..n {
                let factor = self.get(i, k) / akk;
                if factor == 0.0 {
                    continue;
                }
                for j in k..n {
                    let v = self.get(i, j) - factor * self.get(k, j);
                    self.set(i, j, v);
                }
                x[i] -= factor * x[k];
            }
        }
        for k in (0..n).rev() {
            let tail: f64 = (k + 1..n).map(|j| self.get(k, j) * x[j]).sum();
            x[k] = (x[k] - tail) / self.get(k, k);
        }
        x.iter().all(|v| v.is_finite()).then_some(x)
    }
}
