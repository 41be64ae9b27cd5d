//! Exact references the engine's CCP is checked against: Lemke's method for small dense linear
//! complementarity problems, one time step of a small system on polyhedral friction cones (the
//! Stewart–Trinkle / Anitescu–Potra LCP and the cone relaxation, each solved exactly), and the
//! systems of anitescu-2006 §10.1 stepped by it: the point particle (examples 1–2) and the
//! Painlevé bar (examples 3–4). Double precision throughout; meant for a few unknowns, not for
//! scenes.

pub mod bar;
pub mod lemke;
pub mod particle;
pub mod polyhedral;

pub use bar::{BarOnLine, BarState};
pub use lemke::{solve_lcp, LcpError, LcpSolution};
pub use particle::{ParticleOnLine, ParticleState};
pub use polyhedral::{polygon_directions, step_velocity, ContactRows, FrictionModel};

use thiserror::Error;

/// Why a reference computation stopped.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ReferenceError {
    /// A parameter is out of range.
    #[error("{name} {problem}")]
    Parameter {
        /// Parameter name.
        name: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// A step's LCP had no solution.
    #[error("step {step}: {source}")]
    Lcp {
        /// Index of the step (0 = the first).
        step: usize,
        /// Lemke's reason.
        source: LcpError,
    },
}

/// The states after each of `steps` applications of `step` from `start`; a step's LCP failure
/// becomes [`ReferenceError::Lcp`] naming the step.
fn iterate<S: Copy>(
    start: S,
    steps: usize,
    step: impl Fn(&S) -> Result<S, LcpError>,
) -> Result<Vec<S>, ReferenceError> {
    let mut out = Vec::with_capacity(steps);
    let mut s = start;
    for index in 0..steps {
        s = step(&s).map_err(|source| ReferenceError::Lcp {
            step: index,
            source,
        })?;
        out.push(s);
    }
    Ok(out)
}
