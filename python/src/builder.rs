//! `grains.WorldBuilder` and `grains.Settings`: worlds built in code.

use pyo3::prelude::*;

/// Adds the builder's classes to the module.
pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
