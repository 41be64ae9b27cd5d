//! One test binary for the kernels' stage tests.
//!
//! Each file beside this one is a module of it: `tests/NAME.rs` holds the tests `NAME::…`, run
//! alone with `cargo test --release -p grains-kernels --test kernels NAME::`. One binary links the
//! engine once, where a binary per file linked it once per file.
//!
//! `unit/` holds the library's own unit tests, one module per source file (`[lib] test = false`:
//! the library is not compiled a second time for them).

mod common;
mod cone;
mod geometric;
mod narrow_exact;
mod narrow_phase;
mod rolling;
mod solvers;
mod unit;
