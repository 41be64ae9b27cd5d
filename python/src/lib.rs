//! # grains-python: the native half of the `grains` Python package
//!
//! Built by maturin into `grains._grains` (stable ABI, CPython ≥ 3.9); `python/grains/` is the
//! Python half that re-exports it. The package wraps the `grains` library: worlds built from a
//! scene file (`scene.rs`) or in code (`builder.rs` and the files it uses), stepped with the GIL released and read
//! through NumPy views of the engine's own buffers (`world.rs`), with the library's fill
//! generators for the bodies' start (`fill.rs`).

mod arrays;
mod bodies;
mod builder;
mod errors;
mod fields;
mod fill;
mod lifecycle;
mod links;
mod motion;
mod scene;
mod settings;
mod walls;
mod world;

use pyo3::prelude::*;

/// The native module `grains._grains`.
#[pymodule]
fn _grains(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    world::register(m)?;
    scene::register(m)?;
    builder::register(m)?;
    fill::register(m)?;
    fields::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
