//! Insertion regions and sinks added to a `WorldBuilder`: grains fed while the world steps and
//! grains taken out of it (the library's `Insertion` and `Sink`).

use crate::builder::PyWorldBuilder;
use grains::{Insertion, Rate, Region, Sink, SinkShape, SizeDistribution, SizeLaw, Vec3};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A 3-tuple as a vector.
type V3 = (f32, f32, f32);

/// The one region among the keywords given, `what` naming the call in errors.
fn one_of<T>(what: &str, names: &str, given: Vec<Option<T>>) -> PyResult<T> {
    let count = given.iter().filter(|g| g.is_some()).count();
    if count != 1 {
        return Err(PyValueError::new_err(format!(
            "{what}: give exactly one of {names}, got {count}"
        )));
    }
    Ok(given.into_iter().flatten().next().expect("one is given"))
}

/// The size distribution `sizes` names: a radius (m) for all grains, or a tuple
/// ("uniform", a, b), ("normal", mean, sd), ("lognormal", median, sigma) or
/// ("table", [(radius, fraction), ...]).
fn size_distribution(sizes: &Bound<'_, PyAny>) -> PyResult<SizeDistribution> {
    if let Ok(r) = sizes.extract::<f32>() {
        return Ok(SizeDistribution::fixed(r));
    }
    let bad = || {
        PyTypeError::new_err(
            "radius: expected a radius (m) or a tuple (\"uniform\", a, b), (\"normal\", mean, sd), \
             (\"lognormal\", median, sigma) or (\"table\", [(radius, fraction), ...])",
        )
    };
    let t = sizes.cast::<PyTuple>().map_err(|_| bad())?;
    let law: String = t.get_item(0).and_then(|l| l.extract()).map_err(|_| bad())?;
    let two = || -> PyResult<(f32, f32)> {
        if t.len() != 3 {
            return Err(bad());
        }
        Ok((t.get_item(1)?.extract()?, t.get_item(2)?.extract()?))
    };
    match law.as_str() {
        "uniform" => two().map(|(a, b)| SizeDistribution::uniform(a, b)),
        "normal" => two().map(|(m, s)| SizeDistribution::normal(m, s)),
        "lognormal" => two().map(|(m, s)| SizeDistribution::lognormal(m, s)),
        "table" if t.len() == 2 => Ok(SizeDistribution::table(t.get_item(1)?.extract()?)),
        _ => Err(bad()),
    }
}

#[pymethods]
impl PyWorldBuilder {
    /// Adds an insertion region feeding dynamic spheres while the world steps, and returns its
    /// index. The region is one of `box=(min, max)` (corners, m), `cylinder=(centre, radius,
    /// half_height)` (vertical axis) or `disk=(centre, radius)` (horizontal; grains centred on
    /// its plane); grains lie wholly inside it and are placed without overlap. The rate is one
    /// of `count_per_second` or `kg_per_second`. `radius`: one radius (m) or a distribution
    /// ("uniform", a, b), ("normal", mean, sd), ("lognormal", median, sigma) or ("table",
    /// [(radius, fraction), ...]), truncated to `radius_range=(min, max)` if given (default:
    /// the law's own bounds, e.g. mean ± 3 sd). `density` (kg/m³), `material`, `velocity`
    /// when placed (m/s), the feed's `start` and `stop` times (s), the random `seed` and
    /// `batch_steps` (steps between batches; default one layer per batch). Checked at build.
    #[pyo3(signature = (*, r#box = None, cylinder = None, disk = None, count_per_second = None, kg_per_second = None, radius, radius_range = None, density = 2500.0, material = None, velocity = (0.0, 0.0, 0.0), start = 0.0, stop = f64::INFINITY, seed = 0, batch_steps = None))]
    #[allow(clippy::too_many_arguments)]
    fn insert(
        &mut self,
        r#box: Option<(V3, V3)>,
        cylinder: Option<(V3, f32, f32)>,
        disk: Option<(V3, f32)>,
        count_per_second: Option<f64>,
        kg_per_second: Option<f64>,
        radius: &Bound<'_, PyAny>,
        radius_range: Option<(f32, f32)>,
        density: f32,
        material: Option<&Bound<'_, PyAny>>,
        velocity: V3,
        start: f64,
        stop: f64,
        seed: u64,
        batch_steps: Option<u64>,
    ) -> PyResult<usize> {
        let region = one_of(
            "insert",
            "box, cylinder and disk",
            vec![
                r#box.map(|(min, max)| Region::Box {
                    min: Vec3::from(min),
                    max: Vec3::from(max),
                }),
                cylinder.map(|(c, radius, half_height)| Region::Cylinder {
                    centre: Vec3::from(c),
                    radius,
                    half_height,
                }),
                disk.map(|(c, radius)| Region::Disk {
                    centre: Vec3::from(c),
                    radius,
                }),
            ],
        )?;
        let rate = one_of(
            "insert",
            "count_per_second and kg_per_second",
            vec![
                count_per_second.map(Rate::CountPerSecond),
                kg_per_second.map(Rate::KgPerSecond),
            ],
        )?;
        let mut sizes = size_distribution(radius)?;
        if let Some((min, max)) = radius_range {
            if let SizeLaw::Fixed(_) = sizes.law {
                return Err(PyValueError::new_err(
                    "radius_range: only a distribution of radii is truncated, not one radius",
                ));
            }
            sizes = SizeDistribution::truncated(sizes.law, min, max);
        }
        let mut ins = Insertion::new(region, rate, sizes, density);
        ins.material = self.material_id("material", material)?;
        ins.velocity = Vec3::from(velocity);
        ins.start = start;
        ins.stop = stop;
        ins.seed = seed;
        ins.batch_steps = batch_steps;
        Ok(self.builder.insert(ins))
    }

    /// Adds a sink named `name` that removes the dynamic grains whose centres enter it, and
    /// returns its index: one of `box=(min, max)` (corners, m) or `half_space=(point, normal)`
    /// (the side `normal` points to from the plane through `point`). Checked at build.
    #[pyo3(signature = (name, *, r#box = None, half_space = None))]
    fn sink(
        &mut self,
        name: String,
        r#box: Option<(V3, V3)>,
        half_space: Option<(V3, V3)>,
    ) -> PyResult<usize> {
        let shape = one_of(
            "sink",
            "box and half_space",
            vec![
                r#box.map(|(min, max)| SinkShape::Box {
                    min: Vec3::from(min),
                    max: Vec3::from(max),
                }),
                half_space.map(|(point, normal)| SinkShape::HalfSpace {
                    point: Vec3::from(point),
                    normal: Vec3::from(normal),
                }),
            ],
        )?;
        Ok(self.builder.sink(Sink::new(name, shape)))
    }
}
