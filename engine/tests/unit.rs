//! The library's own unit tests, run in this binary so that the library is not compiled a
//! second time for them (`[lib] test = false` in Cargo.toml): one module per source file,
//! named after its path (`decomposition` for `src/decomposition.rs`). What they reach inside
//! the library is `pub` and `#[doc(hidden)]`, marked "pub for the unit tests".

mod auto_step;
mod builder;
mod clump;
mod decomposition;
mod insertion;
mod lifecycle;
mod support;
