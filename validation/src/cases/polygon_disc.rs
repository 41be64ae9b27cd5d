//! V20, the chakraborty paper's figure 1(a): a disc approximated by a regular N-gon rolling on
//! a line with linearised vertex–line contacts (the geometrically explicit Stewart–Trinkle LCP
//! the paper runs in dVC) loses energy to vertex impacts, slip and the linearised gap, less as N
//! grows; the implicit disc of V17 loses none.
//!
//! Each step solves the Stewart–Trinkle LCP ([`crate::reference::step_velocity`], exact by
//! Lemke's method, with the Φ/h term) in the coordinates (x, y, θ) for the vertices that may reach
//! the line within the step (gap ψ_k ≤ 2h times the vertex's approach speed at the free velocity,
//! or ψ_k ≤ 10⁻⁹), each with its normal row (0, 1, r_x) and the friction directions
//! ±(1, 0, −r_y) (exact in 2-D), r the vertex's lever arm; then q ← q + h ν.

use crate::case::{About, Case, CaseError, Setup};
use crate::cases::geometric::v17;
use crate::reference::{step_velocity, ContactRows, FrictionModel, LcpError};
use std::f64::consts::{FRAC_PI_2, TAU};

/// Gravity (m/s²).
const G: f64 = 9.81;
/// V20's time step (s), the paper's figure 1(a).
pub const V20_H: f64 = 0.01;
/// V20's duration (s).
pub const V20_T: f64 = 3.0;
/// V20's vertex counts.
pub const V20_EDGES: [usize; 5] = [10, 20, 40, 100, 1000];
/// Lemke's pivot limit per step.
const MAX_PIVOTS: usize = 2000;

/// The relative mechanical energy ½ m v² + ½ I ω² + m g (y − 1) lost by an N-gon (unit
/// circumradius, m = 1, I = ½, μ = 0.4) started on a vertex at ν = (−3, 0, 3) after
/// [`V20_T`] s at h = [`V20_H`].
pub fn polygon_energy_loss(edges: usize) -> Result<f64, LcpError> {
    let (mut q, mut nu) = ([0.0, 1.0, 0.0f64], [-3.0, 0.0, 3.0f64]);
    let energy = |q: &[f64; 3], nu: &[f64; 3]| {
        0.5 * (nu[0] * nu[0] + nu[1] * nu[1]) + 0.25 * nu[2] * nu[2] + G * (q[1] - 1.0)
    };
    let start = energy(&q, &nu);
    for _ in 0..(V20_T / V20_H).round() as usize {
        let v_free = [nu[0], nu[1] - V20_H * G, nu[2]];
        let contacts: Vec<ContactRows> = (0..edges)
            .filter_map(|k| {
                let angle = q[2] - FRAC_PI_2 + TAU * k as f64 / edges as f64;
                let r = [angle.cos(), angle.sin()];
                let gap = q[1] + r[1];
                let approach = -(v_free[1] + v_free[2] * r[0]);
                (gap <= 2.0 * V20_H * approach.max(0.0) || gap <= 1e-9).then(|| ContactRows {
                    normal: vec![0.0, 1.0, r[0]],
                    directions: vec![vec![1.0, 0.0, -r[1]], vec![-1.0, 0.0, r[1]]],
                    gap,
                    mu: 0.4,
                })
            })
            .collect();
        let v = step_velocity(
            FrictionModel::Coulomb,
            &[1.0, 1.0, 2.0],
            &v_free,
            &contacts,
            V20_H,
            MAX_PIVOTS,
        )?;
        nu.copy_from_slice(&v[..3]);
        for (qi, vi) in q.iter_mut().zip(&nu) {
            *qi += V20_H * vi;
        }
    }
    Ok((start - energy(&q, &nu)) / start)
}

/// What V20 measured.
#[derive(Clone, Debug, PartialEq)]
pub struct PolygonLosses {
    /// (N, relative energy lost after [`V20_T`] s) per N of [`V20_EDGES`].
    pub polygons: Vec<(usize, f64)>,
    /// The implicit disc's largest relative kinetic-energy drift (V17).
    pub implicit: f64,
}

impl PolygonLosses {
    /// Every polygon loses more than 1000× the implicit disc's drift, and the loss falls with
    /// every step up in N (the paper's figure 1(a): less loss with more edges, down to a limit
    /// set by h).
    pub fn passes(&self) -> bool {
        let losses: Vec<f64> = self.polygons.iter().map(|p| p.1).collect();
        self.polygons.len() == V20_EDGES.len()
            && losses.iter().all(|&l| l > 1000.0 * self.implicit)
            && losses.windows(2).all(|w| w[1] < w[0])
    }
}

/// V20: polygonal discs against the implicit disc.
pub struct V20;

impl Case for V20 {
    type Measured = PolygonLosses;

    const ABOUT: About = About {
        id: "V20",
        title: "N-gon discs lose energy",
        scenes: &[],
    };

    fn expected(&self) -> String {
        "N-gons (N = 10…1000, h = 0.01, Stewart–Trinkle LCP on the vertices) lose energy, less with more edges; the implicit disc (V17) none".into()
    }

    fn run(&self, _setup: &Setup) -> Result<Self::Measured, CaseError> {
        let polygons = V20_EDGES
            .iter()
            .map(|&n| Ok((n, polygon_energy_loss(n)?)))
            .collect::<Result<Vec<_>, LcpError>>()?;
        Ok(PolygonLosses {
            polygons,
            implicit: v17()?.drift,
        })
    }

    fn verdict(&self, m: &Self::Measured) -> bool {
        m.passes()
    }

    fn key_figure(&self, m: &Self::Measured) -> String {
        let last = m.polygons.last().map_or(f64::NAN, |p| p.1);
        format!(
            "N = 1000 loses {:.2} %, implicit {:.0e}",
            100.0 * last,
            m.implicit
        )
    }

    fn measured(&self, m: &Self::Measured) -> String {
        format!(
            "energy lost after {V20_T} s: {}; implicit disc {:.1e}",
            m.polygons
                .iter()
                .map(|(n, l)| format!("N = {n}: {:.2} %", 100.0 * l))
                .collect::<Vec<_>>()
                .join(", "),
            m.implicit
        )
    }
}
