//! A point particle of mass m in the vertical plane above the line y = 0, under gravity, with
//! Coulomb friction μ at the line (anitescu-2006 §10.1, examples 1 and 2), stepped with a fixed h
//! by the two schemes of [`super::polyhedral`]: with n = (0, 1), the directions ±t, t = (1, 0)
//! (exact in 2-D), gap Φ = y and v* = v + h (0, −g), each step solves one LCP for the impulses
//! and sets q⁺ = q + h v⁺.
//!
//! * **Coulomb** (Stewart–Trinkle / Anitescu–Potra): slides on the line at deceleration μ g.
//! * **Cone relaxation** (the CCP): while sliding it gives the particle the normal velocity
//!   μ‖v_T‖.
use super::polyhedral::{step_velocity, ContactRows, FrictionModel};
use super::{iterate, LcpError, ReferenceError};

/// Most pivots Lemke's method may make on one step's LCP (4 unknowns at most).
const MAX_PIVOTS: usize = 64;

/// Position (m) and velocity (m/s) of the particle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParticleState {
    /// Horizontal position.
    pub x: f64,
    /// Height above the line (the gap Φ).
    pub y: f64,
    /// Horizontal velocity.
    pub vx: f64,
    /// Vertical velocity.
    pub vy: f64,
}

/// The particle and its line: mass, gravity and friction coefficient.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParticleOnLine {
    /// Mass m (kg).
    pub mass: f64,
    /// Gravitational acceleration g (m/s², pointing to −y).
    pub gravity: f64,
    /// Coulomb friction coefficient μ.
    pub mu: f64,
}

impl ParticleOnLine {
    /// Checks the parameters, a step h and a state.
    fn check(&self, h: f64, s: &ParticleState) -> Result<(), ReferenceError> {
        let bad = |name, problem: String| Err(ReferenceError::Parameter { name, problem });
        if !(self.mass.is_finite() && self.mass > 0.0) {
            return bad(
                "mass",
                format!("must be positive and finite, got {}", self.mass),
            );
        }
        if !self.gravity.is_finite() {
            return bad("gravity", format!("must be finite, got {}", self.gravity));
        }
        if !(self.mu.is_finite() && self.mu >= 0.0) {
            return bad("mu", format!("must be finite and ≥ 0, got {}", self.mu));
        }
        if !(h.is_finite() && h > 0.0) {
            return bad("h", format!("must be positive and finite, got {h}"));
        }
        if ![s.x, s.y, s.vx, s.vy].iter().all(|x| x.is_finite()) {
            return bad("state", format!("must be finite, got {s:?}"));
        }
        Ok(())
    }

    /// One step h from `s` with `model` (the Stewart–Trinkle LCP or anitescu-2006 eq. 5.1,
    /// solved exactly), then q⁺ = q + h v⁺. `index` names the step in errors.
    fn step(
        &self,
        model: FrictionModel,
        s: &ParticleState,
        h: f64,
    ) -> Result<ParticleState, LcpError> {
        let line = ContactRows {
            normal: vec![0.0, 1.0],
            directions: vec![vec![1.0, 0.0], vec![-1.0, 0.0]],
            gap: s.y,
            mu: self.mu,
        };
        let inverse_mass = [1.0 / self.mass; 2];
        let v_free = [s.vx, s.vy - h * self.gravity];
        let v = step_velocity(model, &inverse_mass, &v_free, &[line], h, MAX_PIVOTS)?;
        Ok(ParticleState {
            x: s.x + h * v[0],
            y: s.y + h * v[1],
            vx: v[0],
            vy: v[1],
        })
    }

    /// The states after each of `steps` steps of length h from `start` with `model`
    /// (the Coulomb LCP or the CCP of anitescu-2006 eq. 5.1).
    pub fn trajectory(
        &self,
        model: FrictionModel,
        start: ParticleState,
        h: f64,
        steps: usize,
    ) -> Result<Vec<ParticleState>, ReferenceError> {
        self.check(h, &start)?;
        iterate(start, steps, |s| self.step(model, s, h))
    }
}
