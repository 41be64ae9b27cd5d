//! One test binary for the command-line program's tests.
//!
//! Each file beside this one is a module of it: `tests/NAME.rs` holds the tests `NAME::…`, run
//! alone with `cargo test --release -p grains-cli --test cli NAME::`. One binary links the engine
//! once, where a binary per file linked it once per file.
//!
//! `mpi_run.rs` (feature mpi) and `launcher.rs` (a build without it) stay binaries of their own.

mod auto_step;
mod bench_throughput;
mod common;
mod contact_frames;
mod convergence;
mod health;
mod interrupt;
mod isa;
mod kill_resume;
mod lifecycle;
mod outputs;
mod progress;
mod resume;
mod runner;
mod scene_errors;
mod support;
mod validate_solver;
