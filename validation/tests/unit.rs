//! The library's own unit tests, run in this binary so that the library is not compiled a
//! second time for them (`[lib] test = false` in Cargo.toml): one module per source file.

mod cases;
mod reference_bar;
mod reference_lemke;
mod reference_particle;
mod reference_polyhedral;
mod report;
