//! `grains.load_scene` and `grains.run`: worlds and runs from scene files.

use crate::errors::{run_error, scene_error, warn_placement};
use crate::world::PyWorld;
use grains::Backend;
use grains_app::output::progress::STATUS_EVERY;
use grains_app::output::FrameEncoding;
use grains_app::runner::{run as run_scene, RunOptions};
use grains_app::scene::Scene;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The backend named `name` (`"cpu"` or `"gpu"`).
pub fn backend(name: &str) -> PyResult<Backend> {
    Backend::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!("backend {name:?}: expected \"cpu\" or \"gpu\""))
    })
}

/// Reads the scene file at `path` and builds its world: with `threads` worker threads and
/// on `backend` (`"cpu"` or `"gpu"`) where given, else as the file says. Errors raise
/// `SceneError` with the file, line and key of the value at fault.
#[pyfunction]
#[pyo3(signature = (path, threads = None, backend = None))]
fn load_scene(
    py: Python<'_>,
    path: PathBuf,
    threads: Option<usize>,
    backend: Option<&str>,
) -> PyResult<PyWorld> {
    let b = backend.map(self::backend).transpose()?;
    let scene = Scene::load(&path).map_err(|e| scene_error(py, &e))?;
    let world = py
        .detach(|| scene.world_with(threads, b))
        .map_err(|e| scene_error(py, &e))?;
    let mut w = PyWorld::new(world);
    w.groups = scene
        .groups
        .iter()
        .map(|g| (g.name.clone(), g.range.clone()))
        .collect();
    w.material_names = scene.material_names.clone();
    Ok(w)
}

/// The signal a run's interrupt hook found (Ctrl-C), handed back to the caller of `run`.
static INTERRUPTED: Mutex<Option<PyErr>> = Mutex::new(None);

/// The runner's interrupt hook, asked after every step: at most every 50 ms it takes the GIL
/// and looks for a pending signal.
fn signal_pending() -> bool {
    static LAST_LOOK: Mutex<Option<Instant>> = Mutex::new(None);
    let mut last = LAST_LOOK.lock().unwrap_or_else(|p| p.into_inner());
    if last.is_some_and(|t| t.elapsed() < Duration::from_millis(50)) {
        return false;
    }
    *last = Some(Instant::now());
    match Python::attach(|py| py.check_signals()) {
        Ok(()) => false,
        Err(e) => {
            *INTERRUPTED.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            true
        }
    }
}

/// Runs the scene file at `path` as `grains run` does: progress as it shows it, ParaView frames,
/// CSV observables, pictures, checkpoints and `summary.json` in `out` (default
/// `results/<scene name>`), and returns the summary as a dict.
///
/// `steps` or `until` (s) cut the run short of the scene's duration (a later call with
/// `resume=True` continues it); `threads`, `backend` and `frame_encoding` (how the ParaView
/// frames store their arrays: `"binary"`, `"zlib"` or `"ascii"`) override the file's. Ctrl-C stops the
/// run between steps after writing a checkpoint, so `resume=True` continues it bit-identically,
/// and raises `KeyboardInterrupt`. The GIL is released while the run goes.
#[pyfunction]
#[pyo3(signature = (path, out = None, *, threads = None, backend = None, resume = false, steps = None, until = None, progress = true, frame_encoding = None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    path: PathBuf,
    out: Option<PathBuf>,
    threads: Option<usize>,
    backend: Option<&str>,
    resume: bool,
    steps: Option<u64>,
    until: Option<f64>,
    progress: bool,
    frame_encoding: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut scene = Scene::load(&path).map_err(|e| scene_error(py, &e))?;
    if let Some(b) = backend {
        scene.settings_mut().backend = self::backend(b)?;
    }
    if let Some(name) = frame_encoding {
        scene.output.frame_encoding = FrameEncoding::from_name(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "frame_encoding {name:?}: expected \"binary\", \"zlib\" or \"ascii\""
            ))
        })?;
    }
    match (steps, until) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err("give steps or until, not both"));
        }
        (Some(n), None) => scene
            .run_for_steps(n)
            .map_err(|why| PyValueError::new_err(format!("steps = {n}: {why}")))?,
        (None, Some(t)) => {
            if !(t.is_finite() && t > 0.0) {
                return Err(PyValueError::new_err(format!(
                    "until = {t}: expected a positive number of seconds"
                )));
            }
            scene
                .run_until(t)
                .map_err(|why| PyValueError::new_err(format!("until = {t:?}: {why}")))?;
        }
        (None, None) => {}
    }
    let opts = RunOptions {
        out: out.unwrap_or_else(|| PathBuf::from("results").join(&scene.name)),
        threads,
        backend: None,
        resume,
        progress,
        status_every: STATUS_EVERY,
        stop_after: None,
        interrupt: Some(signal_pending),
    };
    *INTERRUPTED.lock().unwrap_or_else(|p| p.into_inner()) = None;
    let summary = py
        .detach(|| run_scene(&scene, &opts))
        .map_err(|e| run_error(py, e))?;
    if let Some(e) = INTERRUPTED.lock().unwrap_or_else(|p| p.into_inner()).take() {
        if e.is_instance_of::<PyKeyboardInterrupt>(py) {
            return Err(PyKeyboardInterrupt::new_err(format!(
                "run interrupted at step {}; its checkpoint is in {}: continue with grains.run({:?}, {:?}, resume=True)",
                summary.steps,
                opts.out.display(),
                path.display().to_string(),
                opts.out.display().to_string()
            )));
        }
        return Err(e);
    }
    if summary.grains_missed > 0 {
        warn_placement(
            py,
            &format!(
                "{} of the {} grains due from the [[insert]] tables found no place in their regions (summary[\"grains_missed\"]): the bed has grown into a region or its rate is too high for it; lower the rate, or enlarge or raise the region",
                summary.grains_missed,
                summary.grains_inserted + summary.grains_missed
            ),
        )?;
    }
    let json = serde_json::to_string(&summary)
        .map_err(|e| PyValueError::new_err(format!("summary: {e}")))?;
    py.import("json")?.call_method1("loads", (json,))
}

/// Adds `load_scene` and `run` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load_scene, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    Ok(())
}
