//! The library's own unit tests, run in this binary so that the library is not compiled a
//! second time for them (`[lib] test = false` in Cargo.toml): one module per source file,
//! named after its path (`output_image` for `src/output/image.rs`). What they reach inside the
//! library is `pub` and `#[doc(hidden)]`, marked "pub for the unit tests".

mod output_checkpoint;
mod output_image;
mod output_outline;
mod output_progress;
mod output_quality;
mod runner;
mod scene_placement;
