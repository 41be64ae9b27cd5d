//! Data-parallel compute of the granular engine.
//!
//! One file per stage of the time step of `DESIGN.md`:
//! [`forces`] (with the explicit [`springs`]) → [`broad_phase`] → [`narrow_phase`] →
//! ([`restitution`]: Poisson impacts) → [`warm_start`] and the bilateral rows of [`joints`] (and
//! the implicit [`springs`]) → solve ([`jacobi`] or [`gauss_seidel`], both built on
//! [`contact_update`], with the optional [`coulomb_correction`] and the optional spinning and
//! rolling friction of [`rolling`]) → [`integrate`] → [`observe`]. [`pipeline`] strings them
//! together on a private thread pool.
//!
//! Kernels know nothing of scene files, output formats or the command line; they work on the
//! plain `Pod` buffers of [`layout`], the same bytes a GPU backend uploads.

#![warn(missing_docs)]

pub mod broad_phase;
pub mod collision_filter;
pub mod colouring;
pub mod cone;
pub mod contact_update;
pub mod coulomb_correction;
pub mod forces;
pub mod gauss_seidel;
pub mod integrate;
pub mod jacobi;
pub mod joints;
pub mod layout;
pub mod narrow_phase;
pub mod observe;
pub mod packing;
pub mod parallel;
pub mod pipeline;
pub mod restitution;
pub mod rolling;
pub mod shape;
pub mod springs;
pub mod step;
pub mod warm_start;

pub use layout::*;
pub use pipeline::CpuPipeline;
pub use shape::Shape;
pub use step::{GpuError, SolverKind, StageTimes, StepParams, StepStats};
