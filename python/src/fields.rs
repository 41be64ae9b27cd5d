//! `World.coarse_grain` and `World.grain_stress`: the library's coarse-grained continuum fields
//! and Love–Weber grain stresses (`grains::fields`) as NumPy arrays; `FieldsAverage`, their time
//! average over samples.

use crate::errors::gpu_error;
use crate::world::{matrix, PyWorld};
use grains::fields::{
    coarse_grain, grain_stress, Fields, FieldsAverage, FieldsError, Kernel, Sampling, Tensor,
};
use grains::{Backend, Vec3};
use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A grid: its first node, the spacing along each axis and the nodes along each (m, m, count).
type GridArgs = ((f32, f32, f32), (f32, f32, f32), (usize, usize, usize));
/// A profile: axis (0, 1, 2 or "x", "y", "z"), first point, spacing, count, area.
type ProfileArgs<'py> = (Bound<'py, PyAny>, f32, f32, usize, f32);

fn fields_error(e: FieldsError) -> PyErr {
    match e {
        FieldsError::Sampling(_) | FieldsError::NotSphere(_) => {
            PyValueError::new_err(e.to_string())
        }
        FieldsError::Distributed => PyRuntimeError::new_err(e.to_string()),
    }
}

/// (K, 3, 3) float64 from K row-major tensors.
fn tensors<'py>(py: Python<'py>, values: &[Tensor]) -> Bound<'py, PyArray3<f64>> {
    let flat: Vec<f64> = values.iter().flatten().flatten().copied().collect();
    PyArray1::from_vec(py, flat)
        .reshape([values.len(), 3, 3])
        .expect("K × 9 values reshape to (K, 3, 3)")
}

fn axis_of(axis: &Bound<'_, PyAny>) -> PyResult<usize> {
    if let Ok(k) = axis.extract::<usize>() {
        return Ok(k);
    }
    match axis.extract::<String>().as_deref() {
        Ok("x") => Ok(0),
        Ok("y") => Ok(1),
        Ok("z") => Ok(2),
        _ => Err(PyValueError::new_err(format!(
            "profile axis must be 0, 1, 2 or \"x\", \"y\", \"z\", got {axis}"
        ))),
    }
}

#[pymethods]
impl PyWorld {
    /// Coarse-grained fields of the dynamic grains and the last step's contacts (Goldhirsch;
    /// Weinhart et al. 2012), smoothed by a kernel of size `width` (m): `kernel="lucy"` (its
    /// support's radius) or `"gaussian"` (its standard deviation, cut at 3 width). Sampled on
    /// `grid=(origin, spacing, count)` (nodes x fastest: reshape to (nz, ny, nx)) or along
    /// `profile=(axis, start, spacing, count, area)`, averaged over planes of `area` (m²)
    /// normal to the axis. Returns a dict: `points` (K, 3), `density` (K,) kg/m³,
    /// `volume_fraction` (K,) or None when some grain is not a sphere, `velocity` (K, 3),
    /// `kinetic_stress`, `contact_stress` and `fabric` (K, 3, 3; stresses in Pa,
    /// compression-positive, [a, b] = Σ f_a b_b). With `average` (a `FieldsAverage`), the
    /// sample is also added to it. ValueError names a bad value.
    #[pyo3(
        signature = (width, kernel = "lucy", grid = None, profile = None, average = None),
        text_signature = "($self, width, kernel='lucy', grid=None, profile=None, average=None)"
    )]
    fn coarse_grain<'py>(
        &mut self,
        py: Python<'py>,
        width: f32,
        kernel: &str,
        grid: Option<GridArgs>,
        profile: Option<ProfileArgs<'py>>,
        average: Option<PyRefMut<'py, PyFieldsAverage>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let kernel = match kernel {
            "lucy" => Kernel::Lucy { cutoff: width },
            "gaussian" => Kernel::Gaussian { width },
            other => {
                return Err(PyValueError::new_err(format!(
                    "kernel must be \"lucy\" or \"gaussian\", got {other:?}"
                )))
            }
        };
        let sampling = match (grid, profile) {
            (Some((origin, spacing, (nx, ny, nz))), None) => Sampling::Grid {
                origin: Vec3::from(origin),
                spacing: Vec3::from(spacing),
                count: [nx, ny, nz],
            },
            (None, Some((axis, from, spacing, count, area))) => Sampling::Profile {
                axis: axis_of(&axis)?,
                from,
                spacing,
                count,
                area,
            },
            _ => {
                return Err(PyValueError::new_err(
                    "give one of grid=(origin, spacing, count) or profile=(axis, start, spacing, count, area)",
                ))
            }
        };
        self.sync_for_fields()?;
        let f = coarse_grain(&self.world, &sampling, kernel).map_err(fields_error)?;
        if let Some(mut average) = average {
            average.inner.add(&f).map_err(fields_error)?;
        }
        fields_dict(py, &f)
    }

    /// Each body's Love–Weber stress from the last step's contacts (Pa, compression-positive),
    /// (N, 3, 3) float64: (1/V) Σ f ⊗ (centre − contact point); zero for a body that does not
    /// move by contact. ValueError when a dynamic body is not a sphere (only a sphere's volume
    /// is known).
    fn grain_stress<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<f64>>> {
        self.sync_for_fields()?;
        let s = grain_stress(&self.world).map_err(fields_error)?;
        Ok(tensors(py, &s))
    }
}

/// The fields as `World.coarse_grain` returns them: a dict of NumPy arrays.
fn fields_dict<'py>(py: Python<'py>, f: &Fields) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let points: Vec<[f64; 3]> = f.points.iter().map(|p| p.as_dvec3().to_array()).collect();
    d.set_item("points", matrix(py, &points))?;
    d.set_item("density", PyArray1::from_slice(py, &f.density))?;
    match &f.volume_fraction {
        Some(v) => d.set_item("volume_fraction", PyArray1::from_slice(py, v))?,
        None => d.set_item("volume_fraction", py.None())?,
    }
    d.set_item("velocity", matrix(py, &f.velocity))?;
    d.set_item("kinetic_stress", tensors(py, &f.kinetic_stress))?;
    d.set_item("contact_stress", tensors(py, &f.contact_stress))?;
    d.set_item("fabric", tensors(py, &f.fabric))?;
    Ok(d)
}

/// The time average of fields sampled at the same points (`grains::fields::FieldsAverage`):
/// pass it as `World.coarse_grain(..., average=a)` at each sample, then `a.mean()` gives the
/// averaged fields in the same dict: density, volume fraction, stresses and fabric averaged
/// sample by sample, the velocity the mean momentum over the mean density, and the kinetic
/// stress about that mean velocity (it holds the velocity's fluctuations between samples).
#[pyclass(name = "FieldsAverage", module = "grains._grains")]
#[derive(Default)]
pub struct PyFieldsAverage {
    inner: FieldsAverage,
}

#[pymethods]
impl PyFieldsAverage {
    #[new]
    fn new() -> Self {
        PyFieldsAverage::default()
    }

    /// Samples added.
    #[getter]
    fn samples(&self) -> u32 {
        self.inner.samples
    }

    /// The averaged fields (the dict of `World.coarse_grain`), or None before any sample.
    fn mean<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.inner.mean().map(|f| fields_dict(py, &f)).transpose()
    }
}

/// Adds `FieldsAverage` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFieldsAverage>()
}

impl PyWorld {
    /// On the GPU, copies the bodies and the contacts back first.
    fn sync_for_fields(&mut self) -> PyResult<()> {
        if self.world.backend() == Backend::Gpu {
            self.world.sync().map_err(gpu_error)?;
            self.world.sync_contacts().map_err(gpu_error)?;
        }
        Ok(())
    }
}
