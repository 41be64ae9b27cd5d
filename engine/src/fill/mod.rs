//! Where a batch of bodies starts: the fill generators the scene files' `[[bodies]]` tables
//! name (`lattice`, `random_fill`, `pour_lattice`), for programs that build their worlds in
//! code. Each gives centres (and, for a random fill, radii); the caller makes the bodies, so
//! any shape and material may fill them.
//!
//! ```
//! use grains::fill::{FillRegion, Lattice, RandomFill};
//! use grains::{Body, Vec3};
//!
//! // 4 × 4 × 2 sites 11 mm apart, each moved at random by up to 0.1 r in x and y.
//! let lattice = Lattice::new(Vec3::new(0.0, 0.0, 0.006), 0.011, [4, 4, 2]).with_jitter(0.1, 7);
//! let mut bodies: Vec<Body> = (lattice.centres(0.005).unwrap().into_iter())
//!     .map(|c| Body::sphere_of_density(c, 0.005, 2500.0))
//!     .collect();
//! assert_eq!(bodies.len(), 32);
//!
//! // 50 more, radii 3–4 mm, anywhere in a cylinder above them without overlapping any body.
//! let region = FillRegion::cylinder(Vec3::new(0.02, 0.02, 0.1), Vec3::Z, 0.03, 0.08).unwrap();
//! let fill = RandomFill::new(region, 0.003).with_radius_max(0.004).with_seed(3);
//! let existing = bodies.iter().map(|b| (b.position, b.radius));
//! for (c, r) in fill.place(50, |r| r, existing).unwrap() {
//!     bodies.push(Body::sphere_of_density(c, r, 2500.0));
//! }
//! assert_eq!(bodies.len(), 82);
//! ```

mod lattice;
pub mod pour;
mod random;
mod region;

pub use lattice::Lattice;
pub use pour::PourScene;
pub use random::RandomFill;
pub use region::FillRegion;

use glam::Vec3;
use thiserror::Error;

/// Why a fill cannot be made: the parameter (by its scene-file key) and what is wrong with it.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("{key}: {problem}")]
pub struct FillError {
    /// The parameter, named as the scene files' key (`spacing`, `jitter`, `region_axis`, …).
    pub key: &'static str,
    /// What is wrong, with the value.
    pub problem: String,
}

impl FillError {
    /// The error of parameter `key`.
    pub(crate) fn new(key: &'static str, problem: impl Into<String>) -> Self {
        FillError {
            key,
            problem: problem.into(),
        }
    }
}

/// The error unless `x` is finite and above zero.
fn positive(key: &'static str, x: f32) -> Result<(), FillError> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(FillError::new(
            key,
            format!("must be positive and finite, got {x}"),
        ))
    }
}

/// The error unless every component of `v` is finite.
fn finite(key: &'static str, v: Vec3) -> Result<(), FillError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(FillError::new(key, format!("must be finite, got {v}")))
    }
}
