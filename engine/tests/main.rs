//! One test binary for the library's integration tests.
//!
//! Each file beside this one is a module of it: `tests/NAME.rs` holds the tests `NAME::…`, run
//! alone with `cargo test --release -p grains --test engine NAME::`. One binary links the engine
//! once, where a binary per file linked it once per file.
//!
//! `mpi.rs` (launched under mpirun, feature mpi) and `cpu_only.rs` (run again by `.ci/run` without
//! the gpu feature) stay binaries of their own.
//!
//! `unit/` holds the library's own unit tests, one module per source file (`[lib] test = false`:
//! the library is not compiled a second time for them).

mod analytic_walls;
mod auto_step;
mod bad_input;
mod bond_breakage;
mod bonds;
mod broad_phase;
mod checkpoint;
mod cohesion;
mod common;
mod contacts;
mod cylinders;
mod escape;
mod fast_grains;
mod fields;
mod fill;
mod fluid;
mod health;
mod implicit_integrator;
mod inertia;
mod kinematics;
mod lees_edwards;
mod lifecycle;
mod loads;
mod meshes;
mod pair_table;
mod periodic;
mod position_correction;
mod restitution;
mod servo;
mod shaped_insertion;
mod snapshot_fuzz;
mod solver_settings;
mod unit;
