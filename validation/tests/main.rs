//! One test binary for the validation cases and the CPU-vs-GPU lockstep suite (`gpu.rs`, with its
//! modules in `gpu/`).
//!
//! Each file beside this one is a module of it: `tests/NAME.rs` holds the tests `NAME::…`, run
//! alone with `cargo test --release -p grains-validation --test validation NAME::`. One binary
//! links the engine once, where a binary per file linked it once per file. A filter matches
//! anywhere in a name: `clumps::` also runs `gpu::clumps::`, which `-- --skip gpu::` leaves out.

mod clumps;
mod ellipsoids;
mod geometric;
mod gpu;
mod joints;
mod mixer;
mod polyhedra;
mod scenes;
mod shaped_walls;
mod shapes;
mod solver_override;
mod spin_and_roll;
mod unit;
mod validation;
