//! `grains.Motion`: a prescribed motion (the engine's `Prescribed`) for moving walls, box
//! containers, meshes and kinematic bodies.

use grains::{Prescribed, Vec3};
use pyo3::prelude::*;

/// A prescribed motion d(t): a sinusoidal shake `Motion.shake(...)` or a constant velocity
/// `Motion.constant(...)`. Pass it as `motion=` to a wall, a box container, a mesh or
/// kinematic bodies. Checked when the world is built (a shake axis must have unit length).
#[pyclass(name = "Motion", module = "grains", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyMotion {
    pub(crate) inner: Prescribed,
}

#[pymethods]
impl PyMotion {
    /// The shake d(t) = amplitude · sin(2π frequency t + phase) along the unit `axis`
    /// (amplitude in m, frequency in Hz, phase in rad); the peak acceleration ratio is
    /// Γ = A (2πf)² / g.
    #[staticmethod]
    #[pyo3(signature = (amplitude, frequency, *, axis = (0.0, 0.0, 1.0), phase = 0.0), text_signature = "(amplitude, frequency, *, axis=(0.0, 0.0, 1.0), phase=0.0)")]
    fn shake(amplitude: f32, frequency: f32, axis: (f32, f32, f32), phase: f32) -> Self {
        PyMotion {
            inner: Prescribed::Shake {
                axis: Vec3::from(axis),
                amplitude,
                frequency,
                phase,
            },
        }
    }

    /// A constant linear velocity (m/s) and angular velocity (rad/s). Walls and meshes only
    /// translate: they refuse a non-zero `angular` at build (a turning cylinder, cone or mesh
    /// takes `angular_speed`).
    #[staticmethod]
    #[pyo3(signature = (linear = (0.0, 0.0, 0.0), angular = (0.0, 0.0, 0.0)), text_signature = "(linear=(0.0, 0.0, 0.0), angular=(0.0, 0.0, 0.0))")]
    fn constant(linear: (f32, f32, f32), angular: (f32, f32, f32)) -> Self {
        PyMotion {
            inner: Prescribed::Constant {
                linear: Vec3::from(linear),
                angular: Vec3::from(angular),
            },
        }
    }

    /// The displacement (m) from the rest position at time `t` (s).
    fn displacement(&self, t: f64) -> (f32, f32, f32) {
        self.inner.displacement(t).into()
    }

    fn __repr__(&self) -> String {
        match self.inner {
            Prescribed::Shake {
                axis,
                amplitude,
                frequency,
                phase,
            } => format!(
                "grains.Motion.shake({amplitude}, {frequency}, axis=({}, {}, {}), phase={phase})",
                axis.x, axis.y, axis.z
            ),
            Prescribed::Constant { linear, angular } => format!(
                "grains.Motion.constant(linear=({}, {}, {}), angular=({}, {}, {}))",
                linear.x, linear.y, linear.z, angular.x, angular.y, angular.z
            ),
        }
    }
}
