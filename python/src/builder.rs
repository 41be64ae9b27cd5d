//! `grains.WorldBuilder`: worlds built in code. This file holds the builder itself, its
//! materials and `build`; the bodies are added in `bodies.rs`, walls and meshes in `walls.rs`,
//! joints, springs and forces in `links.rs`, insertions and sinks in `lifecycle.rs` (each a
//! `#[pymethods]` block of the same class).

use crate::errors::build_error;
use crate::motion::PyMotion;
use crate::settings::PySettings;
use crate::world::PyWorld;
use grains::{Material, MaterialId};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::ops::Range;

/// Describes a world in code, then builds it (`build()`): settings, materials, walls and
/// containers, meshes, bodies added in bulk from NumPy arrays (no Python object per grain),
/// joints, springs, applied forces, insertion regions and sinks.
///
/// Materials are referred to by index (the int `material()` returns) or by name
/// (`material="glass"`); bodies by index (`add_spheres` returns the index range it added).
/// Parts are checked when they are added where the check needs nothing else (array shapes,
/// names, choices) and by the engine at `build()`, which raises `BuildError` with the
/// engine's message naming the item and the field.
#[pyclass(name = "WorldBuilder", module = "grains")]
pub struct PyWorldBuilder {
    pub(crate) builder: grains::WorldBuilder,
    /// Each material's name, if it was given one.
    pub(crate) material_names: Vec<Option<String>>,
    /// The named groups of bodies.
    pub(crate) groups: Vec<(String, Range<usize>)>,
}

/// Named groups as Python takes them: [(name, (start, stop))].
pub(crate) fn group_ranges(groups: &[(String, Range<usize>)]) -> Vec<(String, (usize, usize))> {
    groups
        .iter()
        .map(|(n, r)| (n.clone(), (r.start, r.end)))
        .collect()
}

impl PyWorldBuilder {
    /// The known materials, for error messages: `0 ("glass"), 1, ...`.
    fn known_materials(&self) -> String {
        if self.material_names.is_empty() {
            return "none is defined yet (add one with material())".into();
        }
        self.material_names
            .iter()
            .enumerate()
            .map(|(i, n)| match n {
                Some(n) => format!("{i} ({n:?})"),
                None => i.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The material `obj` names (`argument` in messages): an index of a material added
    /// before, or its name. None is material 0.
    pub(crate) fn material_id(
        &self,
        argument: &str,
        obj: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<MaterialId> {
        let Some(obj) = obj.filter(|o| !o.is_none()) else {
            return Ok(MaterialId(0));
        };
        if let Ok(name) = obj.extract::<String>() {
            return self
                .material_names
                .iter()
                .position(|n| n.as_deref() == Some(name.as_str()))
                .map(|i| MaterialId(i as u32))
                .ok_or_else(|| {
                    PyKeyError::new_err(format!(
                        "{argument}: unknown material {name:?}; known materials: {}",
                        self.known_materials()
                    ))
                });
        }
        match obj.extract::<i64>() {
            Ok(i) => self.material_index(argument, i),
            Err(_) => Err(PyTypeError::new_err(format!(
                "{argument}: expected a material's index (int) or name (str), got {}",
                obj.get_type().name()?
            ))),
        }
    }

    /// Material index `i`, checked against the materials added so far.
    pub(crate) fn material_index(&self, argument: &str, i: i64) -> PyResult<MaterialId> {
        if i < 0 || i as usize >= self.material_names.len() {
            return Err(PyValueError::new_err(format!(
                "{argument}: no material {i}; known materials: {}",
                self.known_materials()
            )));
        }
        Ok(MaterialId(i as u32))
    }
}

#[pymethods]
impl PyWorldBuilder {
    /// A builder with `settings` (a `Settings`; default: `Settings()`, the library default).
    #[new]
    #[pyo3(signature = (settings = None))]
    fn new(settings: Option<PyRef<'_, PySettings>>) -> Self {
        let s = settings.map(|s| s.inner).unwrap_or_default();
        PyWorldBuilder {
            builder: grains::WorldBuilder::new(s),
            material_names: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// A copy of the settings the world will be built with; assign a `Settings` to replace
    /// them.
    #[getter]
    fn settings(&self) -> PySettings {
        PySettings {
            inner: *self.builder.settings(),
        }
    }
    #[setter]
    fn set_settings(&mut self, settings: PyRef<'_, PySettings>) {
        *self.builder.settings_mut() = settings.inner;
    }

    /// Adds a material and returns its index (the first is 0, the default of every part).
    /// `friction` is Coulomb's μ ≥ 0 (a pair takes the smaller μ unless `pair_friction` sets
    /// it); `restitution` e in [0, 1] (a pair takes the smaller; 0: perfectly plastic);
    /// `spinning` the torsional length e_r (m, ≥ 0) and `rolling` the rolling-resistance length
    /// e_roll (m, ≥ 0), 0 for none; `cohesion` the pull-off force c (N, ≥ 0) of a touching
    /// contact and `surface_energy` γ (J/m², ≥ 0, spheres: JKR pull-off 3π γ R*), 0 for none;
    /// `bridge_volume` the liquid volume V (m³) of a capillary bridge at each contact (0: dry)
    /// of a liquid of `surface_tension` (N/m, default water's 0.072) and `contact_angle` (rad).
    /// `name` lets parts refer to it as `material="name"`. The values are checked at build.
    #[pyo3(signature = (friction, *, restitution = 0.0, spinning = 0.0, rolling = 0.0, cohesion = 0.0, surface_energy = 0.0, bridge_volume = 0.0, surface_tension = 0.072, contact_angle = 0.0, name = None))]
    #[allow(clippy::too_many_arguments)]
    fn material(
        &mut self,
        friction: f32,
        restitution: f32,
        spinning: f32,
        rolling: f32,
        cohesion: f32,
        surface_energy: f32,
        bridge_volume: f32,
        surface_tension: f32,
        contact_angle: f32,
        name: Option<String>,
    ) -> PyResult<u32> {
        if let Some(n) = &name {
            if self.material_names.iter().any(|m| m.as_ref() == Some(n)) {
                return Err(PyValueError::new_err(format!(
                    "name: a material is already named {n:?}"
                )));
            }
        }
        let id = self.builder.material(
            Material::new(friction)
                .with_restitution(restitution)
                .with_spinning(spinning)
                .with_rolling(rolling)
                .with_cohesion(cohesion)
                .with_surface_energy(surface_energy)
                .with_bridge(bridge_volume, surface_tension, contact_angle),
        );
        self.material_names.push(name);
        Ok(id.0)
    }

    /// Sets the friction coefficient μ of the pair of materials `a` and `b` (indices or
    /// names), replacing the smaller-μ rule for that pair.
    fn pair_friction(
        &mut self,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        mu: f32,
    ) -> PyResult<()> {
        let a = self.material_id("a", Some(a))?;
        let b = self.material_id("b", Some(b))?;
        self.builder.pair_friction(a, b, mu);
        Ok(())
    }

    /// The materials' names in index order (None for an unnamed one).
    #[getter]
    fn material_names(&self) -> Vec<Option<String>> {
        self.material_names.clone()
    }

    /// The named groups of bodies added so far: [(name, (start, stop))].
    #[getter]
    fn groups(&self) -> Vec<(String, (usize, usize))> {
        group_ranges(&self.groups)
    }

    /// Number of bodies added so far.
    fn __len__(&self) -> usize {
        self.builder.body_count()
    }

    /// Checks everything and builds the `World` (the GIL is released meanwhile). Raises
    /// `BuildError` with the engine's message (naming the body, wall, joint... and the field)
    /// when something is refused. The builder is left as it was, so it can build again.
    fn build(&self, py: Python<'_>) -> PyResult<PyWorld> {
        let builder = &self.builder;
        let world = py.detach(|| builder.build()).map_err(build_error)?;
        let mut w = PyWorld::new(world);
        w.groups = self.groups.clone();
        w.material_names = self
            .material_names
            .iter()
            .map(|n| n.clone().unwrap_or_default())
            .collect();
        Ok(w)
    }

    fn __repr__(&self) -> String {
        format!(
            "<grains.WorldBuilder: {} materials, {} bodies, {} walls, {} joints>",
            self.material_names.len(),
            self.builder.body_count(),
            self.builder.walls().len(),
            self.builder.joints().len()
        )
    }
}

/// Adds the builder's classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyWorldBuilder>()?;
    m.add_class::<PySettings>()?;
    m.add_class::<PyMotion>()?;
    Ok(())
}
