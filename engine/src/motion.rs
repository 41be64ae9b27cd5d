//! Prescribed motions of kinematic bodies and moving walls.

use glam::Vec3;

/// A displacement prescribed as a function of time, d(t).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Prescribed {
    /// Constant linear velocity (m/s) and angular velocity (rad/s).
    Constant {
        /// Linear velocity.
        linear: Vec3,
        /// Angular velocity.
        angular: Vec3,
    },
    /// Sinusoidal shaking d(t) = A sin(2π f t + φ) along a unit axis (no rotation).
    Shake {
        /// Unit direction of the shaking.
        axis: Vec3,
        /// Amplitude A (m).
        amplitude: f32,
        /// Frequency f (Hz).
        frequency: f32,
        /// Phase φ (rad).
        phase: f32,
    },
}

impl Prescribed {
    /// Vertical shaking z(t) = A sin 2πft.
    pub fn vertical_shake(amplitude: f32, frequency: f32) -> Self {
        Prescribed::Shake {
            axis: Vec3::Z,
            amplitude,
            frequency,
            phase: 0.0,
        }
    }

    /// Displacement from the rest position at time `t` (s).
    pub fn displacement(&self, t: f64) -> Vec3 {
        match *self {
            Prescribed::Constant { linear, .. } => linear * t as f32,
            Prescribed::Shake {
                axis,
                amplitude,
                frequency,
                phase,
            } => {
                let arg = std::f64::consts::TAU * frequency as f64 * t + phase as f64;
                axis * (amplitude as f64 * arg.sin()) as f32
            }
        }
    }

    /// Velocities over the step [t, t + h]: the mean velocity (d(t+h) − d(t))/h, so a position
    /// update q + h v lands exactly on the prescribed path; and the angular velocity.
    pub fn step_velocity(&self, t: f64, h: f32) -> (Vec3, Vec3) {
        match *self {
            Prescribed::Constant { linear, angular } => (linear, angular),
            Prescribed::Shake { .. } => {
                let d0 = self.displacement(t);
                let d1 = self.displacement(t + h as f64);
                ((d1 - d0) / h, Vec3::ZERO)
            }
        }
    }

    /// Every parameter is finite and the axis (of a shake) has unit length.
    pub(crate) fn problem(&self) -> Option<String> {
        match *self {
            Prescribed::Constant { linear, angular } => (!(linear.is_finite()
                && angular.is_finite()))
            .then(|| format!("velocities must be finite, got {linear} and {angular}")),
            Prescribed::Shake {
                axis,
                amplitude,
                frequency,
                phase,
            } => {
                if !(axis.is_finite() && (axis.length() - 1.0).abs() < 1e-4) {
                    Some(format!("shake axis must be a unit vector, got {axis}"))
                } else if !(amplitude.is_finite() && frequency.is_finite() && phase.is_finite()) {
                    Some("shake amplitude, frequency and phase must be finite".into())
                } else {
                    None
                }
            }
        }
    }
}
