//! Insertion regions and sinks added to a `WorldBuilder`: grains fed while the world steps and
//! grains taken out of it (the library's `Insertion` and `Sink`).

use crate::arrays::rows;
use crate::builder::PyWorldBuilder;
use grains::{
    capsule_mass, cube_mass, cuboid_mass, ellipsoid_mass, Body, ClumpTemplate, Insertion,
    Polyhedron, Quat, Rate, Region, Sink, SinkShape, SizeDistribution, SizeLaw, Vec3, Vec4,
};
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

impl PyWorldBuilder {
    /// The one grain a shaped insertion copies, of density `density`, from `grain`: ("capsule",
    /// radius, half_length), ("cube", half_edge), ("box", (a, b, c)), ("ellipsoid", (a, b, c)),
    /// ("clump", spheres) with rows [x, y, z, r] or ("polyhedron", vertices) with rows [x, y, z]
    /// (the template and the hull registered on the builder), made as `add_capsules`,
    /// `add_cubes`, `add_boxes`, `add_ellipsoids`, `add_clumps` and `add_polyhedra` make theirs.
    fn insertion_grain(&mut self, grain: &Bound<'_, PyAny>, density: f32) -> PyResult<Body> {
        let bad = || {
            PyTypeError::new_err(
                "grain: expected (\"capsule\", radius, half_length), (\"cube\", half_edge), \
                 (\"box\", (a, b, c)), (\"ellipsoid\", (a, b, c)), (\"clump\", spheres) or \
                 (\"polyhedron\", vertices)",
            )
        };
        let t = grain.cast::<PyTuple>().map_err(|_| bad())?;
        let kind: String = t.get_item(0).and_then(|k| k.extract()).map_err(|_| bad())?;
        let arg = |k: usize| t.get_item(k).map_err(|_| bad());
        let args = |n: usize| if t.len() == n + 1 { Ok(()) } else { Err(bad()) };
        let planar = self.builder.settings().planar;
        Ok(match kind.as_str() {
            "capsule" => {
                args(2)?;
                let (r, l): (f32, f32) = (arg(1)?.extract()?, arg(2)?.extract()?);
                let m = capsule_mass(r, l, density, planar);
                Body::uniform_capsule(Vec3::ZERO, r, l, m, planar)
            }
            "cube" => {
                args(1)?;
                let r: f32 = arg(1)?.extract()?;
                Body::cube(Vec3::ZERO, r, cube_mass(r, density))
            }
            "box" => {
                args(1)?;
                let half = Vec3::from(arg(1)?.extract::<V3>()?);
                Body::cuboid(Vec3::ZERO, half, cuboid_mass(half, density))
            }
            "ellipsoid" => {
                args(1)?;
                let semi = Vec3::from(arg(1)?.extract::<V3>()?);
                Body::ellipsoid(Vec3::ZERO, semi, ellipsoid_mass(semi, density))
            }
            "clump" => {
                args(1)?;
                let members: Vec<Vec4> = rows::<4>("grain", &arg(1)?)?
                    .into_iter()
                    .map(Vec4::from_array)
                    .collect();
                let template = ClumpTemplate::new(&members)
                    .map_err(|e| PyValueError::new_err(format!("grain: {e}")))?;
                let clump = self.builder.clump_template(&template);
                Body::clump(Vec3::ZERO, Quat::IDENTITY, &clump, density)
            }
            "polyhedron" => {
                args(1)?;
                let points: Vec<Vec3> = rows::<3>("grain", &arg(1)?)?
                    .into_iter()
                    .map(Vec3::from_array)
                    .collect();
                let hull = Polyhedron::from_points(&points)
                    .map_err(|e| PyValueError::new_err(format!("grain: {e}")))?;
                let id = self.builder.hull(&hull);
                Body::polyhedron(Vec3::ZERO, id, hull.mass(density))
            }
            _ => return Err(bad()),
        })
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
    /// `batch_steps` (steps between batches; default one layer per batch). Instead of
    /// `radius`, `grain` feeds copies of one shaped grain, each turned uniformly at random:
    /// ("capsule", radius, half_length), ("cube", half_edge), ("box", (a, b, c)),
    /// ("ellipsoid", (a, b, c)), ("clump", spheres) with rows [x, y, z, r], or ("polyhedron",
    /// vertices), of `density` (the library's `Insertion::shaped`: placed clear of other
    /// bodies by bounding spheres; 3-D, CPU only). Checked at build.
    #[pyo3(signature = (*, r#box = None, cylinder = None, disk = None, count_per_second = None, kg_per_second = None, radius = None, radius_range = None, grain = None, density = 2500.0, material = None, velocity = (0.0, 0.0, 0.0), start = 0.0, stop = f64::INFINITY, seed = 0, batch_steps = None), text_signature = "($self, /, *, box=None, cylinder=None, disk=None, count_per_second=None, kg_per_second=None, radius=None, radius_range=None, grain=None, density=2500.0, material=None, velocity=(0.0, 0.0, 0.0), start=0.0, stop=1e309, seed=0, batch_steps=None)")]
    #[allow(clippy::too_many_arguments)]
    fn insert(
        &mut self,
        r#box: Option<(V3, V3)>,
        cylinder: Option<(V3, f32, f32)>,
        disk: Option<(V3, f32)>,
        count_per_second: Option<f64>,
        kg_per_second: Option<f64>,
        radius: Option<&Bound<'_, PyAny>>,
        radius_range: Option<(f32, f32)>,
        grain: Option<&Bound<'_, PyAny>>,
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
        let mut ins = match (radius, grain) {
            (Some(radius), None) => {
                let mut sizes = size_distribution(radius)?;
                if let Some((min, max)) = radius_range {
                    if let SizeLaw::Fixed(_) = sizes.law {
                        return Err(PyValueError::new_err(
                            "radius_range: only a distribution of radii is truncated, not one radius",
                        ));
                    }
                    sizes = SizeDistribution::truncated(sizes.law, min, max);
                }
                Insertion::new(region, rate, sizes, density)
            }
            (None, Some(grain)) if radius_range.is_none() => {
                let template = self.insertion_grain(grain, density)?;
                Insertion::shaped(region, rate, template)
            }
            (None, Some(_)) => {
                return Err(PyValueError::new_err(
                    "radius_range: a shaped grain has one size (give radius for a sphere feed)",
                ))
            }
            _ => {
                return Err(PyValueError::new_err(
                    "insert: give exactly one of radius (spheres) and grain (a shaped grain)",
                ))
            }
        };
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
