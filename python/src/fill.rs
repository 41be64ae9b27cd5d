//! `grains.lattice`, `grains.random_fill` and `grains.pour_lattice`: the library's fill
//! generators (`grains::fill`, those of the scene files' `[[bodies]]` tables), giving centres
//! (and radii) as NumPy arrays for `WorldBuilder.add_spheres` and the other `add_*` calls.

use crate::arrays::{column, rows};
use crate::world::matrix;
use grains::fill::{FillError, FillRegion, Lattice, PourScene, RandomFill};
use grains::Vec3;
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A 3-tuple as a vector.
type V3 = (f32, f32, f32);

/// Positions (N, 3) and radii (N,).
type Placed<'py> = (Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<f64>>);

/// A fill's refusal as a `ValueError` naming the argument (the scene key it is named after).
fn value_error(e: FillError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Centres as an (N, 3) float64 array (the f32 values exactly).
fn centres<'py>(py: Python<'py>, c: &[Vec3]) -> Bound<'py, PyArray2<f64>> {
    let rows: Vec<[f64; 3]> = c.iter().map(|p| p.as_dvec3().to_array()).collect();
    matrix(py, &rows)
}

/// The centres of a cubic lattice: `counts` = (nx, ny, nz) sites `spacing` (m) apart from
/// `origin`, x fastest, then y, then z, as an (N, 3) float64 array; `count` stops after that
/// many sites. `jitter` moves each site by up to jitter × `radius` in x and y, uniformly at
/// random from `seed` (at most spacing / (2 radius), so each grain keeps its cell); `planar`
/// puts the sites in the plane y = 0 (ny = 1). The scene files' `lattice`, to the bit.
#[pyfunction]
#[pyo3(signature = (origin, spacing, counts, *, count = None, jitter = 0.0, radius = None, seed = 1, planar = false))]
#[allow(clippy::too_many_arguments)]
fn lattice<'py>(
    py: Python<'py>,
    origin: V3,
    spacing: f32,
    counts: (usize, usize, usize),
    count: Option<usize>,
    jitter: f32,
    radius: Option<f32>,
    seed: u64,
    planar: bool,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let l = Lattice {
        origin: Vec3::from(origin),
        spacing,
        counts: [counts.0, counts.1, counts.2],
        count,
        jitter,
        seed,
        planar,
    };
    // The radius only scales the jitter: without one, the half spacing (any size keeps a
    // lattice without jitter as it is).
    let radius = match radius {
        Some(r) => r,
        None if jitter == 0.0 => 0.5 * spacing,
        None => {
            return Err(PyValueError::new_err(
                "radius: the jitter is a fraction of the grains' radius: give radius",
            ))
        }
    };
    let c = l.centres(radius).map_err(value_error)?;
    Ok(centres(py, &c))
}

/// Places grains at random without overlap, as the scene files' `random_fill` does, and returns
/// `(positions, radii)`: an (N, 3) and an (N,) float64 array. The region is one of
/// `box=(min, max)` (the centres' box, m), `cylinder=(centre, axis, radius, length)` or
/// `cone=(centre, axis, small_radius, large_radius, length)` (small end at
/// centre − length/2 · axis), in which every grain lies wholly inside. Give `count` or
/// `packing_fraction` (at most 0.6 of the region's volume). Radii are uniform in
/// [`radius`, `radius_max`]; `seed` draws them; `avoid=(positions, radii)` are spheres already
/// there (a bed, earlier fills) that the grains keep clear of; `planar` fills the plane y = 0
/// of a box. Raises `ValueError` when fewer than `count` fit, naming how many did.
#[pyfunction]
#[pyo3(signature = (count = None, *, radius, radius_max = None, r#box = None, cylinder = None, cone = None, packing_fraction = None, seed = 1, avoid = None, planar = false))]
#[allow(clippy::too_many_arguments)]
fn random_fill<'py>(
    py: Python<'py>,
    count: Option<usize>,
    radius: f32,
    radius_max: Option<f32>,
    r#box: Option<(V3, V3)>,
    cylinder: Option<(V3, V3, f32, f32)>,
    cone: Option<(V3, V3, f32, f32, f32)>,
    packing_fraction: Option<f64>,
    seed: u64,
    avoid: Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    planar: bool,
) -> PyResult<Placed<'py>> {
    let v = Vec3::from;
    let region = match (r#box, cylinder, cone) {
        (Some((min, max)), None, None) => FillRegion::boxed(v(min), v(max)),
        (None, Some((c, axis, r, length)), None) => {
            FillRegion::cylinder(v(c), v(axis), r, length).map_err(value_error)?
        }
        (None, None, Some((c, axis, small, large, length))) => {
            FillRegion::cone(v(c), v(axis), small, large, length).map_err(value_error)?
        }
        _ => {
            return Err(PyValueError::new_err(
                "random_fill: give exactly one of box, cylinder and cone",
            ))
        }
    };
    let fill = RandomFill {
        region,
        radius,
        radius_max: radius_max.unwrap_or(radius),
        seed,
        planar,
    };
    let n = match (count, packing_fraction) {
        (Some(n), None) => n,
        (None, Some(phi)) => fill.count_for(phi).map_err(value_error)?,
        _ => {
            return Err(PyValueError::new_err(
                "random_fill: give exactly one of count and packing_fraction",
            ))
        }
    };
    let existing: Vec<(Vec3, f32)> = match avoid {
        Some((p, r)) => {
            let p = rows::<3>("avoid[0] (positions)", &p)?;
            let r = column("avoid[1] (radii)", &r, Some(p.len()))?;
            p.into_iter().map(Vec3::from).zip(r).collect()
        }
        None => Vec::new(),
    };
    let placed = fill.place(n, |r| r, existing).map_err(value_error)?;
    let c: Vec<Vec3> = placed.iter().map(|(p, _)| *p).collect();
    let radii = PyArray1::from_iter(py, placed.iter().map(|(_, r)| *r as f64));
    Ok((centres(py, &c), radii))
}

/// The `pour` benchmark's lattice of `count` spheres (r = 5 mm, 2500 kg/m³, 2.2 r apart,
/// jittered by SplitMix64 seed 12345) as an (N, 3) float64 array: the scene files'
/// `pour_lattice`, to the bit. Its box is `box_container(w, w, h)` with
/// `(w, h) = grains.pour_box(count)`.
#[pyfunction]
fn pour_lattice(py: Python<'_>, count: usize) -> Bound<'_, PyArray2<f64>> {
    centres(py, &PourScene::new(count).centres())
}

/// The inner width and wall height (m) of the `pour` benchmark's open box for `count` grains
/// (the scene files' `pour_box`).
#[pyfunction]
fn pour_box(count: usize) -> (f64, f64) {
    let s = PourScene::new(count);
    (s.width, s.wall_height)
}

/// Adds the fill functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lattice, m)?)?;
    m.add_function(wrap_pyfunction!(random_fill, m)?)?;
    m.add_function(wrap_pyfunction!(pour_lattice, m)?)?;
    m.add_function(wrap_pyfunction!(pour_box, m)?)?;
    Ok(())
}
