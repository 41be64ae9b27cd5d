//! `grains.Settings`: every option of the engine's `Settings` as a Python attribute, and
//! `World.settings` / `World.set_settings`.
//!
//! Each setter checks its value alone, by the engine's own rule: the value is put into the
//! library default settings and `Settings::check` runs, so a bad value raises `ValueError`
//! with the engine's message at once. Rules that join two options (the GPU runs only Jacobi
//! with tolerance 0) are checked when the world is built (`BuildError`).

use crate::errors::build_error;
use crate::world::PyWorld;
use grains::health::Check;
use grains::{AutoStep, Envelope, Integrator, Settings, SolverKind, Vec3};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// How a world is stepped: the time step, gravity, the solver and its knobs, the contact
/// model, the backend, the health checks, the periodic boundaries and the integrator.
///
/// `Settings()` is the library default (the papers' scheme: Gauss–Seidel, 100 sweeps,
/// tolerance 1e-6, rigid contact, h = 1 ms); `Settings.granular(h)` is the preset for deep
/// granular beds. Every attribute can be read and set; a value out of range raises
/// `ValueError` with the engine's message.
#[pyclass(name = "Settings", module = "grains", from_py_object)]
#[derive(Clone)]
pub struct PySettings {
    pub(crate) inner: Settings,
}

/// Runs the engine's check on the default settings changed by `set`: the value alone is
/// checked, with the engine's message.
fn checked(set: impl FnOnce(&mut Settings)) -> PyResult<()> {
    let mut s = Settings::default();
    set(&mut s);
    s.check().map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A health check's action from its name.
fn check_action(field: &str, name: &str) -> PyResult<Check> {
    match name {
        "stop" => Ok(Check::Stop),
        "warn" => Ok(Check::Warn),
        "off" => Ok(Check::Off),
        other => Err(PyValueError::new_err(format!(
            "{field} {other:?}: expected \"stop\", \"warn\" or \"off\""
        ))),
    }
}

/// A health check's action as its name.
fn action_name(c: Check) -> &'static str {
    match c {
        Check::Stop => "stop",
        Check::Warn => "warn",
        Check::Off => "off",
    }
}

/// A periodic range from Python: None or (lo, hi).
fn periodic_range(
    field: &str,
    range: Option<(f32, f32)>,
    set: impl FnOnce(&mut Settings, Option<(f32, f32)>),
) -> PyResult<Option<(f32, f32)>> {
    checked(|s| set(s, range)).map_err(|e| PyValueError::new_err(format!("{field}: {e}")))?;
    Ok(range)
}

#[pymethods]
impl PySettings {
    /// The library default settings (the papers' plain scheme).
    #[new]
    fn new() -> Self {
        PySettings {
            inner: Settings::default(),
        }
    }

    /// The preset for deep piles and pours at step `h` (s): 30 warm-started Gauss–Seidel sweeps,
    /// tolerance 1e-4 and a compliant contact at f = 1.2/h.
    #[staticmethod]
    fn granular(h: f32) -> PyResult<Self> {
        checked(|s| s.h = h)?;
        Ok(PySettings {
            inner: Settings::granular(h),
        })
    }

    /// Time step h (s), positive; with `auto_step`, the largest step h_max.
    #[getter]
    fn h(&self) -> f32 {
        self.inner.h
    }
    #[setter]
    fn set_h(&mut self, h: f32) -> PyResult<()> {
        let auto = self.inner.auto_step;
        checked(|s| (s.h, s.auto_step) = (h, auto))?;
        self.inner.h = h;
        Ok(())
    }

    /// The adaptive step (`h = "auto"` in a scene): None (default, every step is `h`) or a
    /// dict `{"h_min": s, "reach": r, "penetration_budget": p}`, with which each step's h is
    /// chosen within [h_min, h] (`h` is then h_max, the tick `World.step` advances). Set it
    /// to a dict with any of those keys (the others take their defaults: h_min = h × 1e-4,
    /// reach 0.5, penetration_budget 0.02) or to None. CPU backend, one process.
    #[getter]
    fn auto_step<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(a) = self.inner.auto_step else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("h_min", a.h_min)?;
        d.set_item("reach", a.reach)?;
        d.set_item("penetration_budget", a.penetration)?;
        Ok(Some(d))
    }
    #[setter]
    fn set_auto_step(&mut self, a: Option<Bound<'_, PyDict>>) -> PyResult<()> {
        let auto = match a {
            None => None,
            Some(d) => {
                let mut auto = AutoStep::new(self.inner.h);
                for (k, v) in d.iter() {
                    let x: f32 = v.extract()?;
                    match k.extract::<String>()?.as_str() {
                        "h_min" => auto.h_min = x,
                        "reach" => auto.reach = x,
                        "penetration_budget" => auto.penetration = x,
                        other => {
                            return Err(PyValueError::new_err(format!(
                            "auto_step: unknown key {other:?} (h_min, reach, penetration_budget)"
                        )))
                        }
                    }
                }
                Some(auto)
            }
        };
        let h = self.inner.h;
        checked(|s| (s.h, s.auto_step) = (h, auto))
            .map_err(|e| PyValueError::new_err(format!("auto_step: {e}")))?;
        self.inner.auto_step = auto;
        Ok(())
    }

    /// Gravitational acceleration (m/s²) as a 3-tuple, default (0, 0, -9.81).
    #[getter]
    fn gravity(&self) -> (f32, f32, f32) {
        self.inner.gravity.into()
    }
    #[setter]
    fn set_gravity(&mut self, g: (f32, f32, f32)) -> PyResult<()> {
        let g = Vec3::from(g);
        checked(|s| s.gravity = g)?;
        self.inner.gravity = g;
        Ok(())
    }

    /// The collision envelope ε̂: None (the default rule: per pair, floor 5 % of the smallest
    /// radius, speed factor 1.5), a number (one fixed ε̂ in m for every pair) or a dict
    /// `{"floor": F, "speed_factor": K}` (ε̂ = F + K·h·closing speed). Read back as None, a
    /// float or that dict.
    #[getter]
    fn envelope<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(match self.inner.envelope {
            None => None,
            Some(Envelope::Fixed(e)) => Some(e.into_pyobject(py)?.into_any()),
            Some(Envelope::PerPair {
                floor,
                speed_factor,
            }) => {
                let d = PyDict::new(py);
                d.set_item("floor", floor)?;
                d.set_item("speed_factor", speed_factor)?;
                Some(d.into_any())
            }
        })
    }
    #[setter]
    fn set_envelope(&mut self, e: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let envelope = match e {
            None => None,
            Some(e) if e.is_none() => None,
            Some(e) => {
                if let Ok(d) = e.cast::<PyDict>() {
                    let get = |k: &str| -> PyResult<f32> {
                        d.get_item(k)?
                            .ok_or_else(|| {
                                PyValueError::new_err(format!(
                                    "envelope: the dict needs \"floor\" and \"speed_factor\", \"{k}\" is missing"
                                ))
                            })?
                            .extract()
                    };
                    if d.len() != 2 {
                        return Err(PyValueError::new_err(format!(
                            "envelope: the dict takes exactly \"floor\" and \"speed_factor\", got keys {}",
                            d.keys().repr()?
                        )));
                    }
                    Some(Envelope::PerPair {
                        floor: get("floor")?,
                        speed_factor: get("speed_factor")?,
                    })
                } else if let Ok(v) = e.extract::<f32>() {
                    Some(Envelope::Fixed(v))
                } else {
                    return Err(PyTypeError::new_err(
                        "envelope: expected None, a number (m) or a dict {\"floor\": F, \"speed_factor\": K}",
                    ));
                }
            }
        };
        checked(|s| s.envelope = envelope)?;
        self.inner.envelope = envelope;
        Ok(())
    }

    /// The projected iteration: `"gauss_seidel"` (CPU only), `"jacobi"` or `"apgd"`
    /// (accelerated projected gradient; both run on the CPU and the GPU).
    #[getter]
    fn solver(&self) -> &'static str {
        self.inner.solver.kind().name()
    }
    #[setter]
    fn set_solver(&mut self, name: &str) -> PyResult<()> {
        let kind = SolverKind::from_name(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "solver {name:?}: expected {}",
                SolverKind::names_listed()
            ))
        })?;
        self.inner.solver = self.inner.solver.with_kind(kind);
        Ok(())
    }

    /// Most sweeps of the solver per solve (exactly this many on the GPU), at least 1.
    #[getter]
    fn sweeps(&self) -> u32 {
        self.inner.solver.sweeps()
    }
    #[setter]
    fn set_sweeps(&mut self, n: u32) -> PyResult<()> {
        checked(|s| s.solver = s.solver.with_sweeps(n))?;
        self.inner.solver = self.inner.solver.with_sweeps(n);
        Ok(())
    }

    /// The solver stops when the max-norm residual falls to this (m/s), ≥ 0 (0: always run
    /// every sweep; the GPU needs 0).
    #[getter]
    fn tolerance(&self) -> f32 {
        self.inner.solver.tolerance()
    }
    #[setter]
    fn set_tolerance(&mut self, t: f32) -> PyResult<()> {
        checked(|s| s.solver = s.solver.with_tolerance(t))?;
        self.inner.solver = self.inner.solver.with_tolerance(t);
        Ok(())
    }

    /// Over-relaxation ω in (0, 2) (Gauss–Seidel: 1; Jacobi: at most about 0.4 on dense piles).
    #[getter]
    fn omega(&self) -> f32 {
        self.inner.solver.omega()
    }
    #[setter]
    fn set_omega(&mut self, w: f32) -> PyResult<()> {
        checked(|s| s.solver = s.solver.with_omega(w))?;
        self.inner.solver = self.inner.solver.with_omega(w);
        Ok(())
    }

    /// Fraction of last step's impulse a persisting contact starts from, in [0, 1].
    #[getter]
    fn warm_start(&self) -> f32 {
        self.inner.warm_start
    }
    #[setter]
    fn set_warm_start(&mut self, w: f32) -> PyResult<()> {
        checked(|s| s.warm_start = w)?;
        self.inner.warm_start = w;
        Ok(())
    }

    /// Natural frequency f (Hz) of the compliant contact; `math.inf` for the rigid contact of
    /// the papers.
    #[getter]
    fn contact_frequency(&self) -> f32 {
        self.inner.contact_frequency
    }
    #[setter]
    fn set_contact_frequency(&mut self, f: f32) -> PyResult<()> {
        checked(|s| s.contact_frequency = f)?;
        self.inner.contact_frequency = f;
        Ok(())
    }

    /// Coulomb-correction passes per solve (0: the papers' cone relaxation); each pass costs
    /// one more solve.
    #[getter]
    fn coulomb_correction(&self) -> u32 {
        self.inner.coulomb_correction
    }
    #[setter]
    fn set_coulomb_correction(&mut self, n: u32) {
        self.inner.coulomb_correction = n;
    }

    /// Sweeps of the position correction of overlaps after each solve (0: off). With rigid
    /// contact, overlaps are then removed by moving the grains rather than by a separation
    /// speed, so a bed at rest stays at rest; costs up to that many sweeps more a step.
    #[getter]
    fn position_correction(&self) -> u32 {
        self.inner.position_correction
    }
    #[setter]
    fn set_position_correction(&mut self, n: u32) {
        self.inner.position_correction = n;
    }

    /// Motion in the x–z plane only (disks and ellipses; v_y = 0, rotation about y).
    #[getter]
    fn planar(&self) -> bool {
        self.inner.planar
    }
    #[setter]
    fn set_planar(&mut self, p: bool) {
        self.inner.planar = p;
    }

    /// Keep the stabilising term Φ/h in the contacts' normal rows (default True).
    #[getter]
    fn stabilise_contacts(&self) -> bool {
        self.inner.stabilise_contacts
    }
    #[setter]
    fn set_stabilise_contacts(&mut self, on: bool) {
        self.inner.stabilise_contacts = on;
    }

    /// Worker threads of the CPU backend, at least 1 (results are bit-identical for any count).
    #[getter]
    fn threads(&self) -> usize {
        self.inner.threads
    }
    #[setter]
    fn set_threads(&mut self, n: usize) -> PyResult<()> {
        checked(|s| s.threads = n)?;
        self.inner.threads = n;
        Ok(())
    }

    /// Where the step runs: `"cpu"` or `"gpu"` (which needs solver "jacobi" and tolerance 0,
    /// checked at build).
    #[getter]
    fn backend(&self) -> &'static str {
        self.inner.backend.name()
    }
    #[setter]
    fn set_backend(&mut self, name: &str) -> PyResult<()> {
        self.inner.backend = crate::scene::backend(name)?;
        Ok(())
    }

    /// How each step is taken: `"ccp"` (the default, the CCP step) or `"geometrically_implicit"`
    /// (the stepper of Chakraborty et al. for small worlds: at most 16 spheres and plane walls,
    /// rigid contact, CPU; what it cannot represent raises `BuildError` at build).
    #[getter]
    fn integrator(&self) -> &'static str {
        self.inner.integrator.name()
    }
    #[setter]
    fn set_integrator(&mut self, name: &str) -> PyResult<()> {
        self.inner.integrator = Integrator::from_name(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "integrator {name:?}: expected \"ccp\" or \"geometrically_implicit\""
            ))
        })?;
        Ok(())
    }

    /// GPU: steps between read-backs of the bodies to the host, at least 1 (unused on the CPU).
    #[getter]
    fn sync_every(&self) -> u32 {
        self.inner.sync_every
    }
    #[setter]
    fn set_sync_every(&mut self, n: u32) -> PyResult<()> {
        checked(|s| s.sync_every = n)?;
        self.inner.sync_every = n;
        Ok(())
    }

    /// Health check on non-finite state: `"stop"` (raise StepError), `"warn"` (a
    /// RuntimeWarning) or `"off"`.
    #[getter]
    fn health_non_finite(&self) -> &'static str {
        action_name(self.inner.health.non_finite)
    }
    #[setter]
    fn set_health_non_finite(&mut self, a: &str) -> PyResult<()> {
        self.inner.health.non_finite = check_action("health_non_finite", a)?;
        Ok(())
    }

    /// Health check on overlaps deeper than `health_max_penetration` × the smallest radius:
    /// `"stop"`, `"warn"` or `"off"`.
    #[getter]
    fn health_penetration(&self) -> &'static str {
        action_name(self.inner.health.penetration)
    }
    #[setter]
    fn set_health_penetration(&mut self, a: &str) -> PyResult<()> {
        self.inner.health.penetration = check_action("health_penetration", a)?;
        Ok(())
    }

    /// Health check on grains that leave the world's domain (the box its walls enclose, open
    /// upwards; sinks and insertion regions belong to it): `"stop"` (the builder also refuses
    /// grains placed outside it), `"warn"` or `"off"` (an open domain).
    #[getter]
    fn health_escape(&self) -> &'static str {
        action_name(self.inner.health.escape)
    }
    #[setter]
    fn set_health_escape(&mut self, a: &str) -> PyResult<()> {
        self.inner.health.escape = check_action("health_escape", a)?;
        Ok(())
    }

    /// Health check on the adaptive step wanting a step below its h_min (it takes h_min):
    /// `"stop"`, `"warn"` or `"off"`.
    #[getter]
    fn health_step_floor(&self) -> &'static str {
        action_name(self.inner.health.step_floor)
    }
    #[setter]
    fn set_health_step_floor(&mut self, a: &str) -> PyResult<()> {
        self.inner.health.step_floor = check_action("health_step_floor", a)?;
        Ok(())
    }

    /// Health check on energy (kinetic, plus the springs' potential) nothing in the world
    /// could supply (gravity, forces, motors, the joints' stabilising pull, moving walls):
    /// `"stop"`, `"warn"` or `"off"`.
    #[getter]
    fn health_energy(&self) -> &'static str {
        action_name(self.inner.health.energy)
    }
    #[setter]
    fn set_health_energy(&mut self, a: &str) -> PyResult<()> {
        self.inner.health.energy = check_action("health_energy", a)?;
        Ok(())
    }

    /// The deepest overlap the penetration check allows, as a multiple of the smallest radius
    /// (default 1; `math.inf`: no limit).
    #[getter]
    fn health_max_penetration(&self) -> f32 {
        self.inner.health.max_penetration
    }
    #[setter]
    fn set_health_max_penetration(&mut self, x: f32) -> PyResult<()> {
        checked(|s| s.health.max_penetration = x)?;
        self.inner.health.max_penetration = x;
        Ok(())
    }

    /// The factor of the energy check, at least 1 (default 2; `math.inf`: no limit).
    #[getter]
    fn health_energy_growth(&self) -> f32 {
        self.inner.health.energy_growth
    }
    #[setter]
    fn set_health_energy_growth(&mut self, x: f32) -> PyResult<()> {
        checked(|s| s.health.energy_growth = x)?;
        self.inner.health.energy_growth = x;
        Ok(())
    }

    /// Periodic range (lo, hi) along x (m), or None (bounded, the default).
    #[getter]
    fn periodic_x(&self) -> Option<(f32, f32)> {
        self.inner.periodic.x
    }
    #[setter]
    fn set_periodic_x(&mut self, range: Option<(f32, f32)>) -> PyResult<()> {
        self.inner.periodic.x = periodic_range("periodic_x", range, |s, r| s.periodic.x = r)?;
        Ok(())
    }

    /// Periodic range (lo, hi) along y (m), or None (bounded, the default).
    #[getter]
    fn periodic_y(&self) -> Option<(f32, f32)> {
        self.inner.periodic.y
    }
    #[setter]
    fn set_periodic_y(&mut self, range: Option<(f32, f32)>) -> PyResult<()> {
        self.inner.periodic.y = periodic_range("periodic_y", range, |s, r| s.periodic.y = r)?;
        Ok(())
    }

    /// Lees–Edwards shear rate γ̇ (1/s) of a cell periodic along x and y (0, the default: none):
    /// the cell is sheared along x with its gradient along y. Finite; both periodic ranges are
    /// checked when the world is built.
    #[getter]
    fn periodic_shear_rate(&self) -> f32 {
        self.inner.periodic.shear_rate
    }
    #[setter]
    fn set_periodic_shear_rate(&mut self, rate: f32) -> PyResult<()> {
        if !rate.is_finite() {
            return Err(PyValueError::new_err(format!(
                "periodic_shear_rate: must be finite, got {rate}"
            )));
        }
        self.inner.periodic.shear_rate = rate;
        Ok(())
    }

    /// A copy of these settings.
    fn copy(&self) -> Self {
        self.clone()
    }

    fn __eq__(&self, other: PyRef<'_, PySettings>) -> bool {
        self.inner == other.inner
    }

    fn __repr__(&self) -> String {
        let s = &self.inner;
        let envelope = match s.envelope {
            None => "None".to_string(),
            Some(Envelope::Fixed(e)) => format!("{e}"),
            Some(Envelope::PerPair {
                floor,
                speed_factor,
            }) => format!("{{'floor': {floor}, 'speed_factor': {speed_factor}}}"),
        };
        let solver = s.solver.kind().name();
        format!(
            "grains.Settings(h={}, gravity=({}, {}, {}), solver='{solver}', sweeps={}, tolerance={}, \
             omega={}, warm_start={}, contact_frequency={}, coulomb_correction={}, \
             position_correction={}, planar={}, stabilise_contacts={}, threads={}, backend='{}', integrator='{}', \
             sync_every={}, envelope={envelope}, health=(non_finite='{}', penetration='{}', energy='{}', \
             escape='{}', step_floor='{}', max_penetration={}, energy_growth={}), periodic_x={}, periodic_y={}, \
             auto_step={})",
            s.h,
            s.gravity.x,
            s.gravity.y,
            s.gravity.z,
            s.solver.sweeps(),
            s.solver.tolerance(),
            s.solver.omega(),
            s.warm_start,
            s.contact_frequency,
            s.coulomb_correction,
            s.position_correction,
            py_bool(s.planar),
            py_bool(s.stabilise_contacts),
            s.threads,
            self.backend(),
            self.integrator(),
            s.sync_every,
            action_name(s.health.non_finite),
            action_name(s.health.penetration),
            action_name(s.health.energy),
            action_name(s.health.escape),
            action_name(s.health.step_floor),
            s.health.max_penetration,
            s.health.energy_growth,
            py_range(s.periodic.x),
            py_range(s.periodic.y),
            s.auto_step.map_or("None".into(), |a| format!(
                "{{'h_min': {}, 'reach': {}, 'penetration_budget': {}}}",
                a.h_min, a.reach, a.penetration
            )),
        )
    }
}

/// A periodic range as Python writes it.
fn py_range(r: Option<(f32, f32)>) -> String {
    r.map_or("None".into(), |(lo, hi)| format!("({lo}, {hi})"))
}

/// A bool as Python writes it.
fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

#[pymethods]
impl PyWorld {
    /// A copy of the settings the world steps with (change it and pass it to `set_settings`).
    #[getter]
    fn settings(&self) -> PySettings {
        PySettings {
            inner: *self.world.settings(),
        }
    }

    /// Replaces the settings from the next step on. The thread count, the backend, the
    /// envelope, the periodic ranges and the integrator are fixed when the world is built: settings that change
    /// one of them raise `ValueError` naming it (build a new world instead). Settings the backend
    /// cannot honour raise `BuildError` with the engine's message.
    fn set_settings(&mut self, settings: PyRef<'_, PySettings>) -> PyResult<()> {
        let (new, built) = (&settings.inner, self.world.settings());
        let fixed = [
            ("threads", new.threads != built.threads),
            ("backend", new.backend != built.backend),
            ("envelope", new.envelope != built.envelope),
            ("periodic_x/periodic_y", new.periodic != built.periodic),
            ("integrator", new.integrator != built.integrator),
        ];
        if let Some((name, _)) = fixed.iter().find(|(_, changed)| *changed) {
            return Err(PyValueError::new_err(format!(
                "set_settings cannot change {name}: it is fixed when the world is built (build a new world with it)"
            )));
        }
        self.world.set_settings(settings.inner).map_err(build_error)
    }
}
