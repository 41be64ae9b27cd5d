//! A robust semismooth Newton method for nonsmooth equations Φ(z) = 0, the reformulation of the
//! stepper's mixed NCP: Fischer–Burmeister for the normal complementarity, a ball projection
//! for the friction ellipsoid (see [`crate::geometric::step_ncp`]).
//!
//! Each iteration takes an element J of the generalized Jacobian of Φ (the system supplies it)
//! and solves J d = −Φ by LU with partial pivoting. When J is singular or d is not a descent
//! direction of the merit function θ = ½‖Φ‖² (∇θ·d > −ρ‖d‖^2.1, the test of De Luca, Facchinei
//! and Kanzow), it falls back to the regularised (Levenberg–Marquardt) direction
//! d = −(JᵀJ + μI)⁻¹ JᵀΦ with μ = min(1, ‖Φ‖), always a descent direction. An Armijo
//! backtracking line search on θ (θ(z + t d) ≤ θ(z) + 10⁻⁴ t ∇θ·d, t halved up to 40 times)
//! globalises either step. Non-convergence is an error value, never a panic.

use super::dense::DenseMatrix;

/// Fischer–Burmeister's φ(a, b) = a + b − √(a² + b²): zero exactly when a ≥ 0, b ≥ 0, ab = 0.
pub fn fischer_burmeister(a: f64, b: f64) -> f64 {
    a + b - a.hypot(b)
}

/// An element (∂φ/∂a, ∂φ/∂b) of the generalized gradient of [`fischer_burmeister`]:
/// (1 − a/r, 1 − b/r) with r = √(a² + b²), and (1 − 1/√2, 1 − 1/√2) at the kink a = b = 0.
pub fn fischer_burmeister_gradient(a: f64, b: f64) -> (f64, f64) {
    let r = a.hypot(b);
    if r == 0.0 {
        let g = 1.0 - std::f64::consts::FRAC_1_SQRT_2;
        (g, g)
    } else {
        (1.0 - a / r, 1.0 - b / r)
    }
}

/// The projection of `y` onto the ball ‖x‖ ≤ max(R, 0), with an element of its generalized
/// Jacobian: (P(y), ∂P/∂y, ∂P/∂R). Inside: (y, I, 0); outside: (R ŷ, R(I − ŷŷᵀ)/‖y‖, ŷ)
/// (∂P/∂R = 0 for R < 0, where the radius is clamped).
pub fn ball_projection(y: [f64; 3], radius: f64) -> ([f64; 3], [[f64; 3]; 3], [f64; 3]) {
    let r = radius.max(0.0);
    let norm = (y[0] * y[0] + y[1] * y[1] + y[2] * y[2]).sqrt();
    let mut dy = [[0.0; 3]; 3];
    if norm <= r {
        for (i, row) in dy.iter_mut().enumerate() {
            row[i] = 1.0;
        }
        return (y, dy, [0.0; 3]);
    }
    let u = y.map(|v| v / norm);
    for i in 0..3 {
        for j in 0..3 {
            let delta = if i == j { 1.0 } else { 0.0 };
            dy[i][j] = r * (delta - u[i] * u[j]) / norm;
        }
    }
    let dr = if radius >= 0.0 { u } else { [0.0; 3] };
    (u.map(|v| r * v), dy, dr)
}

/// A square nonsmooth system Φ(z) = 0 that [`solve_semismooth`] solves.
pub trait SemismoothSystem {
    /// Number of unknowns (and of equations).
    fn dim(&self) -> usize;
    /// Φ(z).
    fn residual(&self, z: &[f64]) -> Vec<f64>;
    /// Φ(z) and an element of its generalized Jacobian at z.
    fn residual_and_jacobian(&self, z: &[f64]) -> (Vec<f64>, DenseMatrix);
}

/// Stopping rule of [`solve_semismooth`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonSettings {
    /// Converged when ‖Φ‖∞ ≤ tolerance.
    pub tolerance: f64,
    /// Iterations before giving up with [`NewtonFailure`].
    pub max_iterations: usize,
}

impl Default for NewtonSettings {
    /// ‖Φ‖∞ ≤ 10⁻¹⁰ within 100 iterations.
    fn default() -> Self {
        NewtonSettings {
            tolerance: 1e-10,
            max_iterations: 100,
        }
    }
}

/// How a converged solve went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NewtonReport {
    /// Newton iterations taken.
    pub iterations: usize,
    /// Of those, the ones that took the regularised fallback direction.
    pub fallbacks: usize,
    /// ‖Φ‖∞ at the solution.
    pub residual: f64,
}

/// Why [`solve_semismooth`] stopped without a solution.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum NewtonFailure {
    /// The iteration limit was reached.
    #[error("semismooth Newton did not converge in {iterations} iterations (‖Φ‖∞ = {residual:e})")]
    IterationLimit {
        /// Iterations taken.
        iterations: usize,
        /// ‖Φ‖∞ reached.
        residual: f64,
    },
    /// Neither the Newton nor the fallback direction gave an Armijo decrease.
    #[error("semismooth Newton stalled after {iterations} iterations: no step decreases ½‖Φ‖² (‖Φ‖∞ = {residual:e})")]
    Stalled {
        /// Iterations taken.
        iterations: usize,
        /// ‖Φ‖∞ reached.
        residual: f64,
    },
    /// Φ became NaN or infinite.
    #[error("semismooth Newton met a non-finite residual after {iterations} iterations")]
    NonFinite {
        /// Iterations taken.
        iterations: usize,
    },
}

fn max_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

fn merit(phi: &[f64]) -> f64 {
    0.5 * phi.iter().map(|x| x * x).sum::<f64>()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Armijo backtracking along `d` from `z`: the accepted point and its residual, or None.
fn armijo(
    system: &impl SemismoothSystem,
    z: &[f64],
    theta: f64,
    slope: f64,
    d: &[f64],
) -> Option<(Vec<f64>, Vec<f64>)> {
    let mut t = 1.0;
    for _ in 0..40 {
        let trial: Vec<f64> = z.iter().zip(d).map(|(a, b)| a + t * b).collect();
        let phi = system.residual(&trial);
        if phi.iter().all(|v| v.is_finite()) && merit(&phi) <= theta + 1e-4 * t * slope {
            return Some((trial, phi));
        }
        t *= 0.5;
    }
    None
}

/// Solves Φ(z) = 0 from `z0` by the globalised semismooth Newton method of this module.
pub fn solve_semismooth(
    system: &impl SemismoothSystem,
    z0: Vec<f64>,
    settings: NewtonSettings,
) -> Result<(Vec<f64>, NewtonReport), NewtonFailure> {
    let mut z = z0;
    let mut report = NewtonReport::default();
    for iteration in 0..=settings.max_iterations {
        let (phi, jac) = system.residual_and_jacobian(&z);
        report.iterations = iteration;
        report.residual = max_norm(&phi);
        if !report.residual.is_finite() {
            return Err(NewtonFailure::NonFinite {
                iterations: iteration,
            });
        }
        if report.residual <= settings.tolerance {
            return Ok((z, report));
        }
        if iteration == settings.max_iterations {
            break;
        }
        let theta = merit(&phi);
        let grad = jac.transpose_times(&phi);
        let minus_phi: Vec<f64> = phi.iter().map(|v| -v).collect();
        let newton = jac.clone().solve(&minus_phi).filter(|d| {
            let dd = dot(d, d);
            dot(&grad, d) <= -1e-10 * dd.powf(1.05)
        });
        let step = newton.and_then(|d| armijo(system, &z, theta, dot(&grad, &d), &d));
        let step = match step {
            Some(s) => s,
            None => {
                report.fallbacks += 1;
                let mu = report.residual.min(1.0);
                let minus_grad: Vec<f64> = grad.iter().map(|v| -v).collect();
                let d = jac
                    .gram_plus(mu)
                    .solve(&minus_grad)
                    .ok_or(NewtonFailure::Stalled {
                        iterations: iteration,
                        residual: report.residual,
                    })?;
                armijo(system, &z, theta, dot(&grad, &d), &d).ok_or(NewtonFailure::Stalled {
                    iterations: iteration,
                    residual: report.residual,
                })?
            }
        };
        z = step.0;
    }
    Err(NewtonFailure::IterationLimit {
        iterations: settings.max_iterations,
        residual: report.residual,
    })
}

/// The Jacobian of a smooth vector function `f` at `z` by central differences, column j from
/// the step δ_j = 10⁻⁶ (1 + |z_j|) (truncation O(δ²), rounding O(ε/δ): both near 10⁻¹¹
/// relative).
pub fn central_differences(z: &[f64], f: impl Fn(&[f64]) -> Vec<f64>) -> DenseMatrix {
    let mut probe = z.to_vec();
    let mut columns = Vec::with_capacity(z.len());
    for j in 0..z.len() {
        let step = 1e-6 * (1.0 + z[j].abs());
        probe[j] = z[j] + step;
        let plus = f(&probe);
        probe[j] = z[j] - step;
        let minus = f(&probe);
        probe[j] = z[j];
        columns.push(
            plus.iter()
                .zip(&minus)
                .map(|(p, m)| (p - m) / (2.0 * step))
                .collect::<Vec<f64>>(),
        );
    }
    let rows = columns.first().map_or(0, Vec::len);
    let mut jac = DenseMatrix::zeros(rows, z.len());
    for (j, column) in columns.iter().enumerate() {
        for (i, v) in column.iter().enumerate() {
            jac.set(i, j, *v);
        }
    }
    jac
}
