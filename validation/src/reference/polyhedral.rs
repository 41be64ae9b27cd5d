//! One velocity-level step of a small rigid system with unilateral contacts, in generalized
//! coordinates with a diagonal mass matrix M, each contact's friction cone approximated by the
//! polyhedral cone of m tangent directions d₁…d_m (the LCP models of the papers: Stewart–Trinkle
//! and Anitescu–Potra, the slides' "Matrix Form of the Integration Step"). With the free
//! velocity v* = v + h M⁻¹ f, the step solves one LCP for the impulses and sets
//! v⁺ = v* + M⁻¹ Σ impulse · generalized direction:
//!
//! * **Coulomb** (Stewart–Trinkle / Anitescu–Potra, with the Φ/h term of anitescu-2006 eq. 5.1):
//!   per contact the normal impulse c_n, the friction impulses β_j ≥ 0 along d_j and λ, the
//!   sliding speed:
//!   `0 ≤ nᵀv⁺ + Φ/h ⊥ c_n ≥ 0`, `0 ≤ λ + d_jᵀv⁺ ⊥ β_j ≥ 0`, `0 ≤ μ c_n − Σ_j β_j ⊥ λ ≥ 0`.
//!   The directions must be balanced (the negative of each one is among them, or their span is
//!   covered positively), as the models require; with ±t in 2-D this is the exact Coulomb cone,
//!   in 3-D it tends to the circular cone as m grows.
//! * **Cone relaxation** (the CCP, anitescu-2006 eq. 5.1 with the generators n + μ d_j):
//!   `0 ≤ (n + μ d_j)ᵀv⁺ + Φ/h ⊥ β_j ≥ 0`, c_n = Σ_j β_j. With ±t in 2-D this is the circular
//!   cone of eq. 5.5 exactly.
//!
//! Both LCPs are solved exactly by Lemke's method ([`super::lemke`]). Every contact given is in
//! the active set (an unbounded envelope ε̂): with the Φ/h term a contact at a positive gap only
//! acts when the step would otherwise cross it.

use super::lemke::{solve_lcp, LcpError};

/// Which friction model a step uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrictionModel {
    /// Coulomb friction on the polyhedral cone: the Stewart–Trinkle / Anitescu–Potra LCP.
    Coulomb,
    /// Anitescu's convex relaxation (the CCP) of anitescu-2006 eq. 5.1.
    ConeRelaxation,
}

/// One contact in generalized coordinates: Φ's gradient n (the normal row), the tangent
/// directions d_j (rows of the same length), the gap Φ and the friction coefficient μ.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactRows {
    /// ∇Φ: the generalized normal direction.
    pub normal: Vec<f64>,
    /// The friction directions d₁…d_m, generalized.
    pub directions: Vec<Vec<f64>>,
    /// Gap Φ (m; negative when penetrating).
    pub gap: f64,
    /// Coulomb friction coefficient μ.
    pub mu: f64,
}

/// The m unit directions cos(2πj/m) t₁ + sin(2πj/m) t₂, j = 0…m−1, that span the polyhedral
/// friction cone of a contact with the orthonormal tangents t₁, t₂.
pub fn polygon_directions(t1: [f64; 3], t2: [f64; 3], m: usize) -> Vec<[f64; 3]> {
    (0..m)
        .map(|j| {
            let a = std::f64::consts::TAU * j as f64 / m as f64;
            let (s, c) = a.sin_cos();
            [0, 1, 2].map(|k| c * t1[k] + s * t2[k])
        })
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// One step's LCP: the generalized impulse directions G (one per impulse unknown, in the order
/// of the unknowns; the λ unknowns have none) and w = M z + q.
struct StepLcp {
    /// (index of the unknown, its direction) for each impulse unknown.
    impulses: Vec<(usize, Vec<f64>)>,
    /// Row-major n × n.
    m: Vec<f64>,
    q: Vec<f64>,
}

/// Assembles the step's LCP: M = Gᵀ M⁻¹ G (plus the λ coupling of the Coulomb model) and
/// q = Gᵀ v* + Φ/h on the velocity rows.
fn step_lcp(
    model: FrictionModel,
    inverse_mass: &[f64],
    v_free: &[f64],
    contacts: &[ContactRows],
    h: f64,
) -> StepLcp {
    // Each unknown: its direction (None for λ) and the constant of its row.
    let mut directions: Vec<Option<Vec<f64>>> = Vec::new();
    let mut shift: Vec<f64> = Vec::new();
    // For the Coulomb model: (index of c_n, indices of β_j, index of λ, μ) per contact.
    let mut cones: Vec<(usize, Vec<usize>, usize, f64)> = Vec::new();
    for c in contacts {
        let bias = c.gap / h;
        match model {
            FrictionModel::Coulomb => {
                let normal = directions.len();
                directions.push(Some(c.normal.clone()));
                shift.push(bias);
                let betas: Vec<usize> = c
                    .directions
                    .iter()
                    .map(|d| {
                        directions.push(Some(d.clone()));
                        shift.push(0.0);
                        directions.len() - 1
                    })
                    .collect();
                directions.push(None);
                shift.push(0.0);
                cones.push((normal, betas, directions.len() - 1, c.mu));
            }
            FrictionModel::ConeRelaxation => {
                for d in &c.directions {
                    let g = c.normal.iter().zip(d).map(|(n, t)| n + c.mu * t).collect();
                    directions.push(Some(g));
                    shift.push(bias);
                }
            }
        }
    }
    let n = directions.len();
    let mut m = vec![0.0; n * n];
    let mut q = vec![0.0; n];
    let weighted =
        |g: &Vec<f64>| -> Vec<f64> { g.iter().zip(inverse_mass).map(|(a, w)| a * w).collect() };
    for (i, gi) in directions.iter().enumerate() {
        let Some(gi) = gi else { continue };
        let wi = weighted(gi);
        for (j, gj) in directions.iter().enumerate() {
            if let Some(gj) = gj {
                m[i * n + j] = dot(&wi, gj);
            }
        }
        q[i] = dot(gi, v_free) + shift[i];
    }
    for (normal, betas, lambda, mu) in cones {
        m[lambda * n + normal] = mu;
        for b in betas {
            m[b * n + lambda] = 1.0;
            m[lambda * n + b] = -1.0;
        }
    }
    let impulses = directions
        .into_iter()
        .enumerate()
        .filter_map(|(i, g)| g.map(|g| (i, g)))
        .collect();
    StepLcp { impulses, m, q }
}

/// The velocity after one step h of `model` from the free velocity `v_free`:
/// v⁺ = v* + M⁻¹ G z with z the exact solution of the step's LCP (the Stewart–Trinkle LCP on the
/// polyhedral cones, or anitescu-2006 eq. 5.1). `inverse_mass` is M⁻¹'s diagonal; at most
/// `max_pivots` pivots.
pub fn step_velocity(
    model: FrictionModel,
    inverse_mass: &[f64],
    v_free: &[f64],
    contacts: &[ContactRows],
    h: f64,
    max_pivots: usize,
) -> Result<Vec<f64>, LcpError> {
    let lcp = step_lcp(model, inverse_mass, v_free, contacts, h);
    let solution = solve_lcp(&lcp.m, &lcp.q, max_pivots)?;
    let mut v = v_free.to_vec();
    for (i, g) in &lcp.impulses {
        for ((vk, gk), wk) in v.iter_mut().zip(g).zip(inverse_mass) {
            *vk += solution.z[*i] * wk * gk;
        }
    }
    Ok(v)
}
