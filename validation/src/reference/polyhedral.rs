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

#[cfg(test)]
mod tests {
    use super::*;

    const G: f64 = 9.81;

    /// A point mass sliding on the plane z = 0 in 3-D: its positions after each step of h from
    /// the origin at velocity (vx, vy, 0), with the polyhedral cone of m directions about x̂.
    fn slide(model: FrictionModel, m: usize, v0: [f64; 2], mu: f64, h: f64) -> Vec<[f64; 3]> {
        let directions: Vec<Vec<f64>> = polygon_directions([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], m)
            .into_iter()
            .map(|d| d.to_vec())
            .collect();
        let (mut q, mut v) = ([0.0; 3], [v0[0], v0[1], 0.0]);
        let mut path = Vec::new();
        for _ in 0..100_000 {
            let v_free = [v[0], v[1], v[2] - h * G];
            let contact = ContactRows {
                normal: vec![0.0, 0.0, 1.0],
                directions: directions.clone(),
                gap: q[2],
                mu,
            };
            let next = step_velocity(model, &[1.0; 3], &v_free, &[contact], h, 200).unwrap();
            v = [next[0], next[1], next[2]];
            q = [0, 1, 2].map(|k| q[k] + h * v[k]);
            path.push(q);
            if v[0].hypot(v[1]) < 1e-12 {
                break;
            }
        }
        path
    }

    /// Where the slide stops, and the closed form for Coulomb friction of constant deceleration
    /// a along the start direction: v₀² / (2a) plus the step's O(h v₀) (forward Euler on the
    /// position puts each step's stop at the end of the step).
    fn stop(path: &[[f64; 3]]) -> [f64; 3] {
        *path.last().unwrap()
    }

    #[test]
    fn polygon_directions_are_unit_and_balanced() {
        for m in [2, 4, 6, 8] {
            let d = polygon_directions([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], m);
            assert_eq!(d.len(), m);
            for (j, dj) in d.iter().enumerate() {
                assert!((dot(dj, dj) - 1.0).abs() < 1e-15);
                let opposite = if m % 2 == 0 {
                    d[(j + m / 2) % m]
                } else {
                    continue;
                };
                assert!((0..3).all(|k| (dj[k] + opposite[k]).abs() < 1e-15));
            }
        }
    }

    /// Along one of the m directions the polyhedral Coulomb cone decelerates at μ g exactly,
    /// and midway between two at μ g cos(π/m), the polygon's edge: the stop distances are
    /// v₀²/(2μg) and v₀²/(2μg cos(π/m)) (up to one step's travel), and a slide that starts on
    /// either keeps its direction.
    #[test]
    fn polyhedral_coulomb_decelerates_at_the_polygon_support() {
        let (mu, h, speed) = (0.3, 1e-3, 2.0);
        for m in [4, 6, 8, 16] {
            let half = std::f64::consts::PI / m as f64;
            for (angle, deceleration) in [(0.0, mu * G), (half, mu * G * half.cos())] {
                let v0 = [speed * angle.cos(), speed * angle.sin()];
                let end = stop(&slide(FrictionModel::Coulomb, m, v0, mu, h));
                let distance = end[0].hypot(end[1]);
                let expected = speed * speed / (2.0 * deceleration);
                assert!(
                    (distance - expected).abs() <= h * speed,
                    "m = {m}, angle {angle}: stopped at {distance}, closed form {expected}"
                );
                let heading = end[1].atan2(end[0]);
                assert!((heading - angle).abs() < 1e-9, "m = {m}: heading {heading}");
                assert!(
                    end[2].abs() < 1e-12,
                    "Coulomb stays on the plane: {}",
                    end[2]
                );
            }
        }
    }

    /// From a generic heading the polyhedral cone's stop point tends to the circular cone's,
    /// D₀ = v₀²/(2μg) along the start heading α, as m grows. The friction acts along the
    /// direction nearest −v (or along a polygon edge), so the heading only drifts towards the
    /// nearest direction or edge midpoint, within π/m of α, and the deceleration along v lies
    /// in [μg cos(π/m), μg]: the path length is in [D₀, D₀/cos(π/m)] and the stop point's
    /// projection on α in [D₀ cos(π/m), D₀/cos(π/m)], its offset across α at most D₀ tan(π/m).
    /// The miss is bounded by D₀ (1/cos(π/m) − cos(π/m) + tan(π/m)) ~ D₀ π/m, plus two steps'
    /// travel.
    #[test]
    fn polyhedral_coulomb_tends_to_the_circular_cone() {
        let (mu, h, speed, angle) = (0.3, 1e-3, 2.0, 0.3f64);
        let exact = speed * speed / (2.0 * mu * G);
        let target = [exact * angle.cos(), exact * angle.sin()];
        let ms = [4usize, 8, 16, 32, 64];
        let misses = ms.map(|m| {
            let end = stop(&slide(
                FrictionModel::Coulomb,
                m,
                [speed * angle.cos(), speed * angle.sin()],
                mu,
                h,
            ));
            (end[0] - target[0]).hypot(end[1] - target[1])
        });
        for (m, miss) in ms.iter().zip(misses) {
            let a = std::f64::consts::PI / *m as f64;
            let bound = exact * (1.0 / a.cos() - a.cos() + a.tan()) + 2.0 * h * speed;
            assert!(miss <= bound, "m = {m}: miss {miss} > bound {bound}");
        }
        assert!(misses[4] < misses[0] / 20.0, "{misses:?}");
    }

    /// The relaxation on the same polygon: while sliding it lifts the mass off the plane at
    /// μ‖v_T‖ per unit normal speed (anitescu-2006 §5): the first step of a slide along a
    /// direction from rest on the plane leaves at v_z = μ v_T, v_T = (v₀ − μ h g)/(1 + μ²), the
    /// projection of v* onto the cone's generator n + μ d in the unit-mass metric.
    #[test]
    fn the_relaxation_lifts_a_sliding_mass_as_the_ccp_does() {
        let (mu, h, speed) = (0.3, 1e-3, 2.0);
        for m in [4, 8] {
            let path = slide(FrictionModel::ConeRelaxation, m, [speed, 0.0], mu, h);
            let vz = path[0][2] / h;
            let vt = (speed - mu * h * G) / (1.0 + mu * mu);
            assert!(
                (vz - mu * vt).abs() < 1e-9,
                "m = {m}: v_z {vz}, model {}",
                mu * vt
            );
            assert!((path[0][0] / h - vt).abs() < 1e-9);
        }
    }
}
