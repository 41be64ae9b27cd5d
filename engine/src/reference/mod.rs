//! Exact references the engine's CCP is checked against: Lemke's method for small dense linear
//! complementarity problems, and the point particle of anitescu-2006 §10.1 (examples 1–2)
//! stepped by the exact-Coulomb LCP and by the cone relaxation (CCP), each solved exactly.
//! Double precision throughout; meant for a few unknowns, not for scenes.

pub mod lemke;
pub mod particle;

pub use lemke::{solve_lcp, LcpError, LcpSolution};
pub use particle::{FrictionModel, ParticleOnLine, ParticleState};

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
