//! The package's exceptions: every error of the engine and the app becomes a Python exception
//! carrying the same message (file, line and key for scene errors), never a crash.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeWarning};
use pyo3::prelude::*;

create_exception!(
    grains,
    GrainsError,
    PyException,
    "The base of every error the engine raises."
);
create_exception!(
    grains,
    SceneError,
    GrainsError,
    "A scene file is unreadable or invalid; `file`, `line` and `key` say where."
);
create_exception!(
    grains,
    BuildError,
    GrainsError,
    "The engine refused to build a world: the message names the item and field."
);
create_exception!(
    grains,
    StepError,
    GrainsError,
    "A step failed: a health check (the world holds the failed state) or the GPU."
);
create_exception!(
    grains,
    SnapshotError,
    GrainsError,
    "A snapshot is damaged or belongs to another world; the message says what differs."
);
create_exception!(
    grains,
    RunError,
    GrainsError,
    "A run (`grains.run`) failed: its output folder, its resume, a health check or the GPU."
);

create_exception!(
    grains,
    PlacementWarning,
    PyRuntimeWarning,
    "Grains due from an insertion found no place in its region (the bed has grown into it, or the rate is too high for it): `World.step` and `grains.run` warn with the counts."
);

/// Warns with a [`PlacementWarning`] saying `message`.
pub fn warn_placement(py: Python<'_>, message: &str) -> PyResult<()> {
    let text = std::ffi::CString::new(message).unwrap_or_default();
    PyErr::warn(py, &py.get_type::<PlacementWarning>(), &text, 1)
}

/// A scene error as [`SceneError`], with `file`, `line` (None where the error has no line) and
/// `key` (None where it names no key) set on the exception.
pub fn scene_error(py: Python<'_>, e: &grains_app::scene::SceneError) -> PyErr {
    let err = SceneError::new_err(e.to_string());
    let (file, line, key) = match e {
        grains_app::scene::SceneError::Read { file, .. }
        | grains_app::scene::SceneError::Build { file, .. } => (file, None, None),
        grains_app::scene::SceneError::Invalid {
            file, line, key, ..
        } => (file, Some(*line), Some(key.clone())),
    };
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail.
    let _ = value.setattr("file", file.display().to_string());
    let _ = value.setattr("line", line);
    let _ = value.setattr("key", key);
    err
}

/// The engine's refusal to build as [`BuildError`].
pub fn build_error(e: grains::BuildError) -> PyErr {
    BuildError::new_err(e.to_string())
}

/// A failed step as [`StepError`].
pub fn step_error(e: grains::StepError) -> PyErr {
    StepError::new_err(e.to_string())
}

/// A GPU failure outside a step (a read-back) as [`StepError`].
pub fn gpu_error(e: grains::GpuError) -> PyErr {
    StepError::new_err(e.to_string())
}

/// A refused snapshot as [`SnapshotError`].
pub fn snapshot_error(e: grains::SnapshotError) -> PyErr {
    SnapshotError::new_err(e.to_string())
}

/// A checkpoint that cannot be read, its message naming the file, as [`SnapshotError`].
pub fn checkpoint_error(message: String) -> PyErr {
    SnapshotError::new_err(message)
}

/// A failed run as [`RunError`] (a scene error as [`SceneError`]).
pub fn run_error(py: Python<'_>, e: grains_app::runner::RunError) -> PyErr {
    match e {
        grains_app::runner::RunError::Scene(s) => scene_error(py, &s),
        other => RunError::new_err(other.to_string()),
    }
}

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("GrainsError", py.get_type::<GrainsError>())?;
    m.add("SceneError", py.get_type::<SceneError>())?;
    m.add("BuildError", py.get_type::<BuildError>())?;
    m.add("StepError", py.get_type::<StepError>())?;
    m.add("SnapshotError", py.get_type::<SnapshotError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    m.add("PlacementWarning", py.get_type::<PlacementWarning>())?;
    Ok(())
}
