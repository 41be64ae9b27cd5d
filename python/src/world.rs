//! `grains.World`: step with the GIL released, read the state through NumPy views of the
//! engine's buffers, write velocities and positions, read contacts, loads and statistics, save
//! and restore snapshots.

use crate::arrays::{flow_field, rows_per_body, view};
use crate::errors::{
    build_error, checkpoint_error, gpu_error, snapshot_error, step_error, warn_placement,
};
use grains::{Backend, Quat, StepStats, Touching, Vec3};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::time::{Duration, Instant};

/// How often a long `step(n)` takes the GIL back to look for Ctrl-C (and other signals).
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// A world of grains, built from a scene file (`grains.load_scene`) or in code
/// (`grains.WorldBuilder`), stepped by `step(n)` and read through NumPy arrays.
///
/// The state properties (`positions`, `velocities`, …) are read-only NumPy views of the
/// engine's own buffers: no copy is made, and a view taken once shows the state after every
/// later `step`. In a world with insertions or sinks the number of grains changes, so there
/// they are copies taken when read. On the GPU backend they show the host copy, brought up to
/// date at the end of every `step(n)` call.
#[pyclass(name = "World", module = "grains")]
pub struct PyWorld {
    pub(crate) world: grains::World,
    /// Named groups of bodies (a scene's `[[bodies]]` tables): name and index range.
    pub(crate) groups: Vec<(String, std::ops::Range<usize>)>,
    /// The materials' names in the order of their indices (empty where none were given).
    pub(crate) material_names: Vec<String>,
}

impl PyWorld {
    /// Wraps a built world.
    pub fn new(world: grains::World) -> PyWorld {
        PyWorld {
            world,
            groups: Vec::new(),
            material_names: Vec::new(),
        }
    }

    /// Whether the number of bodies can change while stepping (insertions or sinks): the
    /// buffers may then move, so the state properties copy.
    fn resizable(&self) -> bool {
        !self.world.insertions().is_empty() || !self.world.sinks().is_empty()
    }

    /// A view (or, in a resizable world, a copy) of `width` values of each body, `stride`
    /// values apart from the first, which `first` finds in the world.
    fn body_view<'py, T: numpy::Element>(
        slf: &Bound<'py, Self>,
        first: impl FnOnce(&grains::World) -> *const T,
        width: usize,
        stride: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let this = slf.try_borrow().map_err(|_| {
            PyRuntimeError::new_err(
                "the world is stepping in another thread: read its state when step() returns",
            )
        })?;
        let n = this.world.len();
        // Safety: the body buffers of a world whose body count cannot change are never
        // reallocated (steps, read-backs, edits and restores write into them in place), and
        // the view keeps the world alive.
        let v = unsafe { view(slf.as_any(), first(&this.world), n, width, stride)? };
        if this.resizable() {
            v.call_method0("copy")
        } else {
            Ok(v)
        }
    }
}

/// The statistics of a step as a dict.
fn stats_dict<'py>(
    py: Python<'py>,
    world: &grains::World,
    s: StepStats,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("step", world.synced_at())?;
    d.set_item("time", world.synced_at() as f64 * world.settings().h as f64)?;
    d.set_item("contacts", s.contacts)?;
    d.set_item("sweeps", s.iterations)?;
    d.set_item("residual", s.residual)?;
    d.set_item("max_penetration", s.max_penetration)?;
    d.set_item("kinetic_energy", s.kinetic_energy)?;
    d.set_item("bodies", world.len())?;
    Ok(d)
}

#[pymethods]
impl PyWorld {
    /// Advances the world by `n` steps (default 1) and returns the statistics of the last one
    /// (a dict: step, time, contacts, sweeps, residual, max_penetration, kinetic_energy,
    /// bodies).
    ///
    /// The GIL is released for the whole call, so other Python threads run meanwhile. Ctrl-C
    /// (any signal whose handler raises) stops it between two steps: the world then holds the
    /// state of the last whole step and the exception propagates. A failed health check raises
    /// `StepError` naming the step and the fault (the world holds that step's state); health
    /// checks set to warn become `RuntimeWarning`s, and grains due from an insertion that found
    /// no place in its region during the call a `PlacementWarning` with the counts.
    #[pyo3(signature = (n = 1))]
    fn step<'py>(&mut self, py: Python<'py>, n: u64) -> PyResult<Bound<'py, PyDict>> {
        let missed_before = self.world.lifecycle_state().totals().missed;
        let world = &mut self.world;
        let stepped: PyResult<()> = py.detach(|| {
            let mut checked = Instant::now();
            let mut result = Ok(());
            for _ in 0..n {
                if let Err(e) = world.step() {
                    result = Err(step_error(e));
                    break;
                }
                if checked.elapsed() >= SIGNAL_CHECK {
                    checked = Instant::now();
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        result = Err(e);
                        break;
                    }
                }
            }
            // The host copy is brought up to date (GPU), even after an interruption, with the
            // health checks on it when no read-back checked it yet.
            match world.sync_checked() {
                Err(e) if result.is_ok() => Err(step_error(e)),
                _ => result,
            }
        });
        for (step, fault) in self.world.take_warnings() {
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyRuntimeWarning>(),
                &std::ffi::CString::new(format!("step {step}: {fault}")).unwrap_or_default(),
                1,
            )?;
        }
        let t = self.world.lifecycle_state().totals();
        if t.missed > missed_before {
            warn_placement(
                py,
                &format!(
                    "{} grains due from the insertions found no place in their regions by step {} ({} placed, {} missed since the start; World.lifecycle_counts() has them per insertion): the bed has grown into a region or its rate is too high for it; lower the rate, or enlarge or raise the region",
                    t.missed - missed_before,
                    self.world.steps(),
                    t.inserted,
                    t.missed
                ),
            )?;
        }
        stepped?;
        stats_dict(py, &self.world, self.world.last_stats())
    }

    /// What the insertions and sinks counted since the world was built, as a dict: the totals
    /// `inserted` (grains placed), `missed` (grains due that found no place), `removed`,
    /// `inserted_mass` and `removed_mass` (kg), and `insertions` (one dict per insertion, in
    /// the order added: `placed`, `missed`, `mass`) and `sinks` (one per sink: `name`,
    /// `removed`, `mass`). All zero, and empty lists, in a world without either.
    fn lifecycle_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = self.world.lifecycle_state();
        let t = state.totals();
        let d = PyDict::new(py);
        d.set_item("inserted", t.inserted)?;
        d.set_item("missed", t.missed)?;
        d.set_item("removed", t.removed)?;
        d.set_item("inserted_mass", t.inserted_mass)?;
        d.set_item("removed_mass", t.removed_mass)?;
        let insertions = pyo3::types::PyList::empty(py);
        for c in &state.insertions {
            let e = PyDict::new(py);
            e.set_item("placed", c.placed)?;
            e.set_item("missed", c.missed)?;
            e.set_item("mass", c.mass)?;
            insertions.append(e)?;
        }
        d.set_item("insertions", insertions)?;
        let sinks = pyo3::types::PyList::empty(py);
        for (sink, c) in self.world.sinks().iter().zip(&state.sinks) {
            let e = PyDict::new(py);
            e.set_item("name", &sink.name)?;
            e.set_item("removed", c.removed)?;
            e.set_item("mass", c.mass)?;
            sinks.append(e)?;
        }
        d.set_item("sinks", sinks)?;
        Ok(d)
    }

    /// The statistics of the last step, as `step` returns them.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats_dict(py, &self.world, self.world.last_stats())
    }

    /// Seconds each stage of the step took since the world was built (a dict by stage name),
    /// or None where they are not measured (a GPU without timestamps).
    fn stage_times<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(t) = self.world.stage_times() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        for stage in grains::Stage::ALL {
            d.set_item(stage.name(), t.seconds(stage))?;
        }
        Ok(Some(d))
    }

    /// Every sweep of the last step's solves: a dict of arrays `residual` (m/s) and `seconds`
    /// (since the step's solving began). CPU only; empty arrays on the GPU.
    fn sweep_trace<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let trace = self.world.sweep_trace();
        let d = PyDict::new(py);
        let residual = trace.iter().map(|s| s.residual as f64);
        d.set_item("residual", PyArray1::from_iter(py, residual))?;
        let seconds = trace.iter().map(|s| s.seconds);
        d.set_item("seconds", PyArray1::from_iter(py, seconds))?;
        Ok(d)
    }

    /// Simulated time (s): steps × h. A property, as every read of the state without
    /// arguments in Python (`steps`, `h`, `positions`, …); the Rust library's `World::time()`
    /// is a method, as Rust has no properties.
    #[getter]
    fn time(&self) -> f64 {
        self.world.time()
    }

    /// Steps taken.
    #[getter]
    fn steps(&self) -> u64 {
        self.world.steps()
    }

    /// The time step h (s) (with `Settings.auto_step`, h_max: the tick each step advances).
    #[getter]
    fn h(&self) -> f32 {
        self.world.settings().h
    }

    /// The adaptive step's figures (`Settings.auto_step`): a dict of `steps` taken, `h_min`,
    /// `h_mean`, `h_max` (s) of the steps taken, `floored` (steps taken at h_min where less
    /// was wanted), `next` (s, the h wanted next) and `last` (s, the last step's h); None with
    /// a fixed step.
    #[getter]
    fn step_sizes<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(c) = self.world.step_control() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("steps", c.taken)?;
        d.set_item("h_min", if c.taken == 0 { 0.0 } else { c.shortest })?;
        d.set_item("h_mean", c.mean())?;
        d.set_item("h_max", c.longest)?;
        d.set_item("floored", c.floored)?;
        d.set_item("next", c.next)?;
        d.set_item("last", c.last)?;
        Ok(Some(d))
    }

    /// `"cpu"` or `"gpu"`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.world.backend().name()
    }

    /// Name of the GPU adapter, None on the CPU backend.
    #[getter]
    fn adapter(&self) -> Option<String> {
        self.world.adapter_name().map(str::to_string)
    }

    /// Number of bodies.
    fn __len__(&self) -> usize {
        self.world.len()
    }

    /// The named groups of bodies: [(name, (start, stop))], index ranges (a scene's
    /// `[[bodies]]` tables, or the groups given to the builder).
    #[getter]
    fn groups(&self) -> Vec<(String, (usize, usize))> {
        crate::builder::group_ranges(&self.groups)
    }

    /// The materials' names, in the order of their indices.
    #[getter]
    fn material_names(&self) -> Vec<String> {
        self.material_names.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<grains.World: {} bodies, {} steps (t = {} s), {} backend>",
            self.world.len(),
            self.world.steps(),
            self.world.time(),
            self.backend()
        )
    }

    /// Centres (m), shape (N, 3), float32; a read-only view.
    #[getter]
    fn positions<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::body_view(slf, |w| w.bodies().pos_radius.as_ptr() as *const f32, 3, 4)
    }

    /// Radii (m), shape (N,), float32; a read-only view.
    #[getter]
    fn radii<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::body_view(
            slf,
            |w| (w.bodies().pos_radius.as_ptr() as *const f32).wrapping_add(3),
            1,
            4,
        )
    }

    /// Linear velocities (m/s), shape (N, 3), float32; a read-only view.
    #[getter]
    fn velocities<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::body_view(slf, |w| w.bodies().motion.as_ptr() as *const f32, 3, 8)
    }

    /// Angular velocities (rad/s, world axes), shape (N, 3), float32; a read-only view.
    #[getter]
    fn angular_velocities<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::body_view(
            slf,
            |w| (w.bodies().motion.as_ptr() as *const f32).wrapping_add(4),
            3,
            8,
        )
    }

    /// Orientations as unit quaternions (x, y, z, w), body to world, shape (N, 4), float32; a
    /// read-only view.
    #[getter]
    fn orientations<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::body_view(slf, |w| w.bodies().orientation.as_ptr() as *const f32, 4, 4)
    }

    /// Each body's shape as a number, shape (N,), int32 (0 sphere or disk, 1 capsule,
    /// 2 ellipse, 3 box or cube, 4 ellipsoid, 5 clump, 6 polyhedron, as in the `.vtu` frames); a copy.
    #[getter]
    fn shape_codes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        let w = &self.world;
        let codes: Vec<i32> = (0..w.len())
            .map(|i| grains::shape_code(w.shape(i)))
            .collect();
        PyArray1::from_vec(py, codes)
    }

    /// Half-sizes of each body along its own x, y and z axes (m), shape (N, 3), float64: the
    /// box about its centre, in its axes, that holds it (a sphere's radius thrice, a capsule's
    /// L + r, r, r, a box's half-extents); a copy.
    #[getter]
    fn half_extents<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let w = &self.world;
        let rows: Vec<[f64; 3]> = (0..w.len())
            .map(|i| w.half_extents(i).as_dvec3().to_array())
            .collect();
        matrix(py, &rows)
    }

    /// Stable ids (0..N in build order, then increasing for inserted grains), shape (N,),
    /// uint64; a read-only view.
    #[getter]
    fn ids<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::body_view(slf, |w| w.ids().as_ptr(), 1, 1)
    }

    /// Material index of each body, shape (N,), uint32; a read-only view.
    #[getter]
    fn materials<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::body_view(slf, |w| w.bodies().material.as_ptr(), 1, 1)
    }

    /// Kind of each body (0 dynamic, 1 fixed, 2 kinematic), shape (N,), uint32; a read-only
    /// view.
    #[getter]
    fn kinds<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::body_view(slf, |w| w.bodies().kind.as_ptr(), 1, 1)
    }

    /// Masses (kg), shape (N,), float64; infinite for fixed and kinematic bodies. A copy (the
    /// engine stores 1/m).
    #[getter]
    fn masses<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let m: Vec<f64> = self
            .world
            .bodies()
            .motion
            .iter()
            .map(|m| 1.0 / m.inv_mass as f64)
            .collect();
        PyArray1::from_vec(py, m)
    }

    /// Sets the linear velocities (m/s, shape (N, 3)) and, if given, the angular ones
    /// (rad/s, shape (N, 3)) of every body. Kinematic bodies keep their prescribed motion at
    /// the next step. The warm start is forgotten.
    #[pyo3(signature = (velocities, angular_velocities = None))]
    fn set_velocities(
        &mut self,
        velocities: &Bound<'_, PyAny>,
        angular_velocities: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let n = self.world.len();
        let v = rows_per_body::<3>("velocities", velocities, n)?;
        let w = angular_velocities
            .map(|w| rows_per_body::<3>("angular_velocities", w, n))
            .transpose()?;
        let v: Vec<Vec3> = v.into_iter().map(Vec3::from_array).collect();
        let w: Option<Vec<Vec3>> = w.map(|w| w.into_iter().map(Vec3::from_array).collect());
        self.world
            .set_velocities(&v, w.as_deref())
            .map_err(gpu_error)
    }

    /// Sets the force (N, shape (N, 3)) on every body's centre and, if given, the moment (N m,
    /// shape (N, 3)) about it, for every following step until the next call (a coupled code's
    /// drag, say): added to gravity and the applied forces. Empty arrays remove them. Refused
    /// with insertions or sinks, distributed, and moments on the GPU (`BuildError`).
    #[pyo3(signature = (forces, torques = None))]
    fn set_external_loads(
        &mut self,
        forces: &Bound<'_, PyAny>,
        torques: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let n = self.world.len();
        let empty = |a: &Bound<'_, PyAny>| a.len().is_ok_and(|len| len == 0);
        let rows = |name, a: &Bound<'_, PyAny>| -> PyResult<Vec<Vec3>> {
            if empty(a) {
                return Ok(Vec::new());
            }
            let r = rows_per_body::<3>(name, a, n)?;
            Ok(r.into_iter().map(Vec3::from_array).collect())
        };
        let f = rows("forces", forces)?;
        let t = torques
            .map(|t| rows("torques", t))
            .transpose()?
            .unwrap_or_default();
        self.world.set_external_loads(&f, &t).map_err(build_error)
    }

    /// Sets the fluid's velocity (m/s) on a grid of nodes for every following step until the
    /// next call: `velocities` of shape (nx, ny, nz, 3), node [i, j, k] at `origin` + (i, j, k)
    /// times `spacing` (m, along x, y and z), interpolated trilinearly at each grain's centre
    /// and clamped to the grid beyond it. `None` returns to the fluid's uniform velocity.
    /// Refused without a fluid (`BuildError`). Not kept in checkpoints: set it again on resume.
    #[pyo3(signature = (velocities, origin = (0.0, 0.0, 0.0), spacing = None), text_signature = "($self, /, velocities, origin=(0.0, 0.0, 0.0), spacing=None)")]
    fn set_flow_field(
        &mut self,
        velocities: Option<&Bound<'_, PyAny>>,
        origin: (f32, f32, f32),
        spacing: Option<(f32, f32, f32)>,
    ) -> PyResult<()> {
        let field = velocities
            .map(|v| flow_field(v, origin, spacing))
            .transpose()?;
        self.world.set_flow_field(field).map_err(build_error)
    }

    /// Moves every body's centre to `positions` (m, shape (N, 3)) and, if given, sets the
    /// orientations (unit quaternions x, y, z, w, shape (N, 4); normalised here). The warm
    /// start is forgotten; overlaps this makes are pushed apart by the next steps.
    #[pyo3(signature = (positions, orientations = None))]
    fn set_positions(
        &mut self,
        positions: &Bound<'_, PyAny>,
        orientations: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let n = self.world.len();
        let p = rows_per_body::<3>("positions", positions, n)?;
        let q = orientations
            .map(|q| rows_per_body::<4>("orientations", q, n))
            .transpose()?;
        let q: Option<Vec<Quat>> = q
            .map(|q| {
                q.into_iter()
                    .enumerate()
                    .map(|(i, q)| {
                        let q = Quat::from_array(q);
                        let len = q.length();
                        if len > 1e-6 {
                            Ok(q / len)
                        } else {
                            Err(PyValueError::new_err(format!(
                                "orientations[{i}] has length {len}: not a rotation"
                            )))
                        }
                    })
                    .collect::<PyResult<_>>()
            })
            .transpose()?;
        let p: Vec<Vec3> = p.into_iter().map(Vec3::from_array).collect();
        self.world
            .set_positions(&p, q.as_deref())
            .map_err(gpu_error)
    }

    /// The contacts of the last step as a dict of arrays, one row per contact: `body_a` (int64),
    /// `body_b` (int64, -1 for a wall or mesh contact), `wall` (int64, the wall's index, -1
    /// otherwise), `mesh` and `triangle` (int64, -1 unless a mesh contact), `point` (N, 3),
    /// `normal` (N, 3, from the second side towards body_a), `gap` (N,), `impulse` (N, 3, on
    /// body_a over the step, N s), `normal_impulse` (N,), `tangential_impulse` (N, 3), `force`
    /// (N, 3, impulse / h, N), `normal_force` (N,) and `tangential_force` (N, 3). On the GPU
    /// the contacts are read back by this call.
    fn contacts<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if self.world.backend() == Backend::Gpu {
            self.world.sync_contacts().map_err(gpu_error)?;
        }
        let h = self.world.last_h() as f64;
        let n = self.world.contacts().len();
        let mut ids = [
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        ];
        let (mut point, mut normal, mut impulse, mut tangential) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut gap, mut normal_impulse) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for c in self.world.contacts() {
            let (a, b, wall, mesh, tri) = match c.touching {
                Touching::Bodies { a, b } => (a as i64, b as i64, -1, -1, -1),
                Touching::Wall { body, wall } => (body as i64, -1, wall as i64, -1, -1),
                Touching::Mesh {
                    body,
                    mesh,
                    triangle,
                } => (body as i64, -1, -1, mesh as i64, triangle as i64),
            };
            for (col, v) in ids.iter_mut().zip([a, b, wall, mesh, tri]) {
                col.push(v);
            }
            let gn = c.impulse.dot(c.normal) as f64;
            let t = c.impulse - c.normal * c.impulse.dot(c.normal);
            point.push(c.point.to_array().map(f64::from));
            normal.push(c.normal.to_array().map(f64::from));
            impulse.push(c.impulse.to_array().map(f64::from));
            tangential.push(t.to_array().map(f64::from));
            gap.push(c.gap as f64);
            normal_impulse.push(gn);
        }
        let d = PyDict::new(py);
        for (name, col) in ["body_a", "body_b", "wall", "mesh", "triangle"]
            .into_iter()
            .zip(ids)
        {
            d.set_item(name, PyArray1::from_vec(py, col))?;
        }
        let per_h = |rows: &[[f64; 3]]| -> Vec<[f64; 3]> {
            rows.iter().map(|r| r.map(|x| x / h)).collect()
        };
        d.set_item("force", matrix(py, &per_h(&impulse)))?;
        d.set_item("tangential_force", matrix(py, &per_h(&tangential)))?;
        d.set_item(
            "normal_force",
            PyArray1::from_iter(py, normal_impulse.iter().map(|g| g / h)),
        )?;
        d.set_item("point", matrix(py, &point))?;
        d.set_item("normal", matrix(py, &normal))?;
        d.set_item("impulse", matrix(py, &impulse))?;
        d.set_item("tangential_impulse", matrix(py, &tangential))?;
        d.set_item("normal_impulse", PyArray1::from_vec(py, normal_impulse))?;
        d.set_item("gap", PyArray1::from_vec(py, gap))?;
        Ok(d)
    }

    /// The force (N) and torque (N m, about `point`) each wall took over the last step, and its
    /// contact count: a dict of arrays `force` (W, 3), `torque` (W, 3), `contacts` (W,), one
    /// row per wall in the order they were added.
    #[pyo3(signature = (point = (0.0, 0.0, 0.0)), text_signature = "($self, /, point=(0.0, 0.0, 0.0))")]
    fn wall_loads<'py>(
        &mut self,
        py: Python<'py>,
        point: (f32, f32, f32),
    ) -> PyResult<Bound<'py, PyDict>> {
        if self.world.backend() == Backend::Gpu {
            self.world.sync_contacts().map_err(gpu_error)?;
        }
        loads_dict(py, &self.world.wall_loads(Vec3::from(point)))
    }

    /// The indices of the bonds that have broken (joints in the order they were added).
    fn broken_bonds(&self) -> Vec<usize> {
        self.world.broken_bonds()
    }

    /// What bond `joint` carried in the last step at its anchor: a dict of `tension`, `shear`
    /// (N), `bending` and `twisting` (N m); `None` for a joint that is not an intact bond.
    fn bond_load<'py>(
        &self,
        py: Python<'py>,
        joint: usize,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(load) = self.world.bond_load(joint) else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("tension", load.tension)?;
        d.set_item("shear", load.shear)?;
        d.set_item("bending", load.bending)?;
        d.set_item("twisting", load.twisting)?;
        Ok(Some(d))
    }

    /// The state of wall `wall`'s servo (a plane built with `servo=`): a dict of `advance`,
    /// how far it has moved along its normal towards the grains since it was built (m), and
    /// `load`, the normal force the grains pushed on it with in the last step (N); `None` for
    /// a wall without a servo.
    fn servo_state<'py>(
        &self,
        py: Python<'py>,
        wall: usize,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = self.world.servo_state(wall) else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("advance", s.advance)?;
        d.set_item("load", s.load)?;
        Ok(Some(d))
    }

    /// The same sums as `wall_loads`, one row per triangle-mesh wall.
    #[pyo3(signature = (point = (0.0, 0.0, 0.0)), text_signature = "($self, /, point=(0.0, 0.0, 0.0))")]
    fn mesh_loads<'py>(
        &mut self,
        py: Python<'py>,
        point: (f32, f32, f32),
    ) -> PyResult<Bound<'py, PyDict>> {
        if self.world.backend() == Backend::Gpu {
            self.world.sync_contacts().map_err(gpu_error)?;
        }
        loads_dict(py, &self.world.mesh_loads(Vec3::from(point)))
    }

    /// The load on each mesh triangle over the last step, in the order of the meshes'
    /// triangles: `force` (T, 3) on the triangle (N), `normal_force` (T,) against its normal
    /// (b − a) × (c − a) (N, positive where grains press on its front), `shear_force` (T,) in
    /// its plane (N), `pressure` (T,) the normal force over its area (Pa), `contacts` (T,),
    /// and `sliding_power` (T,) Σ normal force × slip speed over its contacts (W): Archard's
    /// wear rate before the material's factor K/H; summed over a run's steps × h, the normal
    /// load times the distance slid under it (N m).
    fn triangle_loads<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if self.world.backend() == Backend::Gpu {
            self.world.sync().map_err(gpu_error)?;
            self.world.sync_contacts().map_err(gpu_error)?;
        }
        let loads = self.world.triangle_loads();
        let d = PyDict::new(py);
        let force: Vec<[f64; 3]> = loads.iter().map(|l| l.force.to_array()).collect();
        d.set_item("force", matrix(py, &force))?;
        let column =
            |f: fn(&grains::TriangleLoad) -> f64| PyArray1::from_iter(py, loads.iter().map(f));
        d.set_item("normal_force", column(|l| l.normal_force))?;
        d.set_item("shear_force", column(|l| l.shear_force))?;
        d.set_item("pressure", column(|l| l.pressure))?;
        d.set_item("sliding_power", column(|l| l.sliding_power))?;
        d.set_item(
            "contacts",
            PyArray1::from_iter(py, loads.iter().map(|l| l.contacts as i64)),
        )?;
        Ok(d)
    }

    /// The total contact force on each body over the last step (N), shape (N, 3), float64:
    /// gravity, springs, joints and applied forces not included.
    fn body_contact_forces<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        if self.world.backend() == Backend::Gpu {
            self.world.sync_contacts().map_err(gpu_error)?;
        }
        let f: Vec<[f64; 3]> = self
            .world
            .body_contact_forces()
            .iter()
            .map(|f| f.to_array())
            .collect();
        Ok(matrix(py, &f))
    }

    /// Total linear momentum of the dynamic bodies (kg m/s), summed in float64.
    fn momentum(&self) -> (f64, f64, f64) {
        let [x, y, z] = self.world.momentum();
        (x, y, z)
    }

    /// The world's state as a `Snapshot` (bit-identical continuation by `restore`).
    fn snapshot(&mut self) -> PyResult<Snapshot> {
        let snap = self.world.snapshot().map_err(gpu_error)?;
        Ok(Snapshot { inner: snap })
    }

    /// Puts the world back in the state of `snapshot` (a `Snapshot` or its bytes), which must
    /// come from a world built the same way; `SnapshotError` names what differs otherwise.
    fn restore(&mut self, snapshot: &Bound<'_, PyAny>) -> PyResult<()> {
        let snap = if let Ok(s) = snapshot.cast::<Snapshot>() {
            s.borrow().inner.clone()
        } else if let Ok(b) = snapshot.extract::<&[u8]>() {
            grains::Snapshot::from_bytes(b).map_err(snapshot_error)?
        } else {
            return Err(PyTypeError::new_err(
                "restore takes a grains.Snapshot or the bytes of one",
            ));
        };
        // A world whose body count cannot change refuses a snapshot of another count, so the
        // restore writes into the buffers the views show without moving them.
        self.world.restore(&snap).map_err(snapshot_error)
    }
}

/// Rows of float64 as an (N, W) array.
pub(crate) fn matrix<'py, const W: usize>(
    py: Python<'py>,
    rows: &[[f64; W]],
) -> Bound<'py, PyArray2<f64>> {
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    PyArray1::from_vec(py, flat)
        .reshape([rows.len(), W])
        .expect("N × W values reshape to (N, W)")
}

fn loads_dict<'py>(py: Python<'py>, loads: &[grains::WallLoad]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let force: Vec<[f64; 3]> = loads.iter().map(|l| l.force.to_array()).collect();
    let torque: Vec<[f64; 3]> = loads.iter().map(|l| l.torque.to_array()).collect();
    d.set_item("force", matrix(py, &force))?;
    d.set_item("torque", matrix(py, &torque))?;
    d.set_item(
        "contacts",
        PyArray1::from_iter(py, loads.iter().map(|l| l.contacts as i64)),
    )?;
    Ok(d)
}

/// A saved world state: `bytes(snapshot)` or `to_bytes()` gives the checkpoint bytes
/// (with a checksum and the world's physics fingerprint), `Snapshot.from_bytes` reads them
/// back; snapshots pickle.
#[pyclass(module = "grains", frozen)]
pub struct Snapshot {
    pub(crate) inner: grains::Snapshot,
}

#[pymethods]
impl Snapshot {
    /// The snapshot's bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    /// Reads a snapshot from its bytes, checking the checksum and format.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Snapshot> {
        grains::Snapshot::from_bytes(data)
            .map(|inner| Snapshot { inner })
            .map_err(snapshot_error)
    }

    /// Reads the checkpoint of the run folder `folder`: its `checkpoint.bin`, or, for a
    /// distributed run, that file's index and the ranks' pieces beside it, each checked (name,
    /// size, CRC-32, step, rank) and joined into one snapshot, as `grains run --resume` reads
    /// it on any rank count. SnapshotError names the file and what is wrong with it.
    #[staticmethod]
    fn load(folder: std::path::PathBuf) -> PyResult<Snapshot> {
        grains_app::output::checkpoint::load(&folder)
            .map(|inner| Snapshot { inner })
            .map_err(|e| checkpoint_error(format!("{}: {e}", folder.display())))
    }

    /// Steps taken when the snapshot was made.
    #[getter]
    fn steps(&self) -> u64 {
        self.inner.steps
    }

    /// Number of bodies.
    fn __len__(&self) -> usize {
        self.inner.bodies.len()
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let py = slf.py();
        let from = py.get_type::<Snapshot>().getattr("from_bytes")?;
        Ok((from, (slf.get().to_bytes(py),)))
    }

    fn __repr__(&self) -> String {
        format!(
            "<grains.Snapshot: {} bodies at step {}>",
            self.inner.bodies.len(),
            self.inner.steps
        )
    }
}

/// Adds `World` and `Snapshot` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyWorld>()?;
    m.add_class::<Snapshot>()?;
    Ok(())
}
