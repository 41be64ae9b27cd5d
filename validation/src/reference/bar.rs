//! A thin rigid bar of mass m, inertia I about its centre and half length L in the vertical
//! plane above the line y = 0, under gravity, with Coulomb friction μ where its ends touch the
//! line (anitescu-2006 §10.1, examples 3 and 4: the Painlevé bar), stepped with a fixed h by the
//! two schemes of [`super::polyhedral`] in the generalized coordinates q = (x, y, θ) of its
//! centre and angle, M = diag(m, m, I). Its ends are e± = (x ± L cos θ, y ± L sin θ); each is
//! one contact with the line, gap Φ± = y ± L sin θ, normal row ∇Φ± = (0, 1, ±L cos θ) and the
//! friction directions ±(1, 0, ∓L sin θ) (the ends' horizontal velocity), exact in 2-D. Each
//! step solves one LCP for both ends' impulses and sets q⁺ = q + h v⁺.

use super::polyhedral::{step_velocity, ContactRows, FrictionModel};
use super::{iterate, LcpError, ReferenceError};

/// Most pivots Lemke's method may make on one step's LCP (8 unknowns at most).
const MAX_PIVOTS: usize = 200;

/// Position, angle and velocities of the bar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BarState {
    /// Horizontal position of the centre (m).
    pub x: f64,
    /// Height of the centre above the line (m).
    pub y: f64,
    /// Angle of the bar to the line, counter-clockwise (rad).
    pub theta: f64,
    /// Horizontal velocity of the centre (m/s).
    pub vx: f64,
    /// Vertical velocity of the centre (m/s).
    pub vy: f64,
    /// Angular velocity θ̇ (rad/s).
    pub omega: f64,
}

impl BarState {
    /// Height of the lower end above the line (m): min(Φ₊, Φ₋) = y − L |sin θ|.
    pub fn lower_end_height(&self, half_length: f64) -> f64 {
        self.y - half_length * self.theta.sin().abs()
    }
}

/// The bar and its line: mass, inertia, half length, gravity and friction coefficient.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BarOnLine {
    /// Mass m (kg).
    pub mass: f64,
    /// Moment of inertia about the centre, I (kg m²).
    pub inertia: f64,
    /// Half length L (m).
    pub half_length: f64,
    /// Gravitational acceleration g (m/s², pointing to −y).
    pub gravity: f64,
    /// Coulomb friction coefficient μ.
    pub mu: f64,
}

impl BarOnLine {
    /// Total mechanical energy ½m‖v‖² + ½Iθ̇² + m g y (J).
    pub fn energy(&self, s: &BarState) -> f64 {
        0.5 * self.mass * (s.vx * s.vx + s.vy * s.vy)
            + 0.5 * self.inertia * s.omega * s.omega
            + self.mass * self.gravity * s.y
    }

    /// Checks the parameters, a step h and a state.
    fn check(&self, h: f64, s: &BarState) -> Result<(), ReferenceError> {
        let bad = |name, problem: String| Err(ReferenceError::Parameter { name, problem });
        for (name, value) in [
            ("mass", self.mass),
            ("inertia", self.inertia),
            ("half_length", self.half_length),
            ("h", h),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return bad(name, format!("must be positive and finite, got {value}"));
            }
        }
        if !self.gravity.is_finite() {
            return bad("gravity", format!("must be finite, got {}", self.gravity));
        }
        if !(self.mu.is_finite() && self.mu >= 0.0) {
            return bad("mu", format!("must be finite and ≥ 0, got {}", self.mu));
        }
        if ![s.x, s.y, s.theta, s.vx, s.vy, s.omega]
            .iter()
            .all(|x| x.is_finite())
        {
            return bad("state", format!("must be finite, got {s:?}"));
        }
        Ok(())
    }

    /// The contact of the end e± (`side` = ±1) with the line, in (x, y, θ).
    fn end_contact(&self, s: &BarState, side: f64) -> ContactRows {
        let (sin, cos) = s.theta.sin_cos();
        let l = side * self.half_length;
        let slide = vec![1.0, 0.0, -l * sin];
        ContactRows {
            normal: vec![0.0, 1.0, l * cos],
            directions: vec![slide.clone(), slide.iter().map(|a| -a).collect()],
            gap: s.y + l * sin,
            mu: self.mu,
        }
    }

    /// One step h from `s` with `model` (the Stewart–Trinkle LCP or anitescu-2006 eq. 5.1 on
    /// both ends, solved exactly), then q⁺ = q + h v⁺.
    fn step(&self, model: FrictionModel, s: &BarState, h: f64) -> Result<BarState, LcpError> {
        let ends = [self.end_contact(s, 1.0), self.end_contact(s, -1.0)];
        let inverse_mass = [1.0 / self.mass, 1.0 / self.mass, 1.0 / self.inertia];
        let v_free = [s.vx, s.vy - h * self.gravity, s.omega];
        let v = step_velocity(model, &inverse_mass, &v_free, &ends, h, MAX_PIVOTS)?;
        Ok(BarState {
            x: s.x + h * v[0],
            y: s.y + h * v[1],
            theta: s.theta + h * v[2],
            vx: v[0],
            vy: v[1],
            omega: v[2],
        })
    }

    /// The states after each of `steps` steps of length h from `start` with `model`
    /// (the Coulomb LCP or the CCP of anitescu-2006 eq. 5.1).
    pub fn trajectory(
        &self,
        model: FrictionModel,
        start: BarState,
        h: f64,
        steps: usize,
    ) -> Result<Vec<BarState>, ReferenceError> {
        self.check(h, &start)?;
        iterate(start, steps, |s| self.step(model, s, h))
    }
}
