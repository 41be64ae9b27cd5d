//! Data-parallel compute of the granular engine: the CPU step, one file per stage.
//!
//! The stages of one step, in the order [`CpuPipeline::step`] runs them; [`Stage`],
//! [`StageTimes`] and the GPU backend's timed passes use the same list, and each WGSL file of the
//! GPU backend (crate `grains-gpu`) names the file here that it mirrors.
//!
//! 1. **forces**: [`forces`] (gravity, applied loads, the kinematic bodies' drives) and the
//!    explicit [`springs`], v* = v + h M⁻¹ f.
//! 2. **broad**: [`broad_phase`], the uniform grid.
//! 3. **narrow**: [`narrow_phase`] (with the shapes of [`shapes`], the pair routines that the
//!    table of [`pairs`] names, in the shapes' files and in [`pair_algorithms`], and the walls
//!    of [`wall_contact`]) finds the contact rows; [`collision_filter`] drops those of jointed bodies that do not collide; [`rolling`] builds
//!    the moment rows of spinning and rolling friction; [`mesh`] the contacts with
//!    triangle-mesh walls.
//! 4. **impact** (only when some pair restitutes): [`restitution`], Poisson's impact.
//! 5. **prepare**: [`warm_start`]; the solver's layout, [`colouring`] and [`packing`] for
//!    Gauss–Seidel or [`jacobi`]'s body index; the bilateral rows ([`joint_rows`]) of the
//!    [`joints`] and the implicit [`springs`].
//! 6. **solve**: [`jacobi`] (with [`apgd`]'s acceleration) or [`gauss_seidel`], both built on
//!    [`contact_update`] and [`cone`], with the moment rows of [`rolling`], the joint rows, and
//!    the optional passes of [`coulomb_correction`]; [`trace`] keeps every sweep's residual.
//! 7. **integrate**: [`integrate`], with the free rotation of the anisotropic bodies of
//!    [`inertia`], and (rigid contact, when asked) the [`position_correction`] of overlaps.
//! 8. **observe**: [`observe`], and [`warm_start`]'s memory of the step's impulses.
//!
//! What works with what is two tables: [`pairs`] (which shapes meet which shapes and walls) and
//! [`support`] (the features refused together), read by the engine's build and the GPU backend.
//!
//! [`periodic`] holds the periodic boundaries' wrap (stage 7) and minimum image (stages 2–3).
//!
//! [`pipeline`] strings the stages together on a private thread pool; [`step`] is the contract
//! both backends share; [`parallel`] holds the deterministic data-parallel helpers; [`random`]
//! the seeded sequences that test scenes, the pour's jitter and the fuzz tests draw from.
//!
//! Kernels know nothing of scene files, output formats or the command line; they work on the
//! plain `Pod` buffers of [`layout`], the same bytes a GPU backend uploads.

#![warn(missing_docs)]

pub mod apgd;
pub mod bilateral_row;
pub mod broad_phase;
pub mod cell_coords;
pub mod cohesion;
pub mod collision_filter;
pub mod colouring;
pub mod cone;
pub mod contact_update;
pub mod coulomb_correction;
pub mod fluid;
pub mod forces;
pub mod gauss_seidel;
pub mod geometric;
pub mod inertia;
pub mod integrate;
pub mod interface;
pub mod isa;
pub mod jacobi;
pub mod joint_rows;
pub mod joints;
pub mod large_cells;
pub mod layout;
pub mod mesh;
pub mod narrow_phase;
pub mod observe;
pub mod packing;
pub mod pair_algorithms;
pub mod pairs;
pub mod parallel;
pub mod periodic;
pub mod pipeline;
pub mod position_correction;
pub mod random;
pub mod restitution;
pub mod rolling;
pub mod shapes;
pub mod space_order;
pub mod sphere_pack;
pub mod springs;
pub mod step;
pub mod support;
pub mod trace;
pub mod traffic;
pub mod voidage;
pub mod wall_contact;
pub mod warm_start;

pub use layout::*;
pub use pipeline::CpuPipeline;
pub use shapes::Shape;
pub use step::{GpuError, SolverKind, Stage, StageTimes, StepParams, StepStats};
pub use trace::SweepRecord;
