//! Bodies added to a `WorldBuilder` in bulk from NumPy arrays: spheres, disks, capsules, cubes, boxes,
//! ellipses, ellipsoids, clumps and convex polyhedra, one row per body, never a Python
//! object per grain.

use crate::arrays::{column, rows, rows_per_body};
use crate::builder::PyWorldBuilder;
use crate::motion::PyMotion;
use grains::ellipsoid_mass;
use grains::{
    capsule_mass, cube_mass, cuboid_mass, disk_mass, ellipse_mass, sphere_mass, Body, BodyKind,
    ClumpTemplate, MaterialId, Polyhedron, Quat, Shape, Vec3, Vec4,
};
use numpy::{PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The density (kg/m³; kg/m² for disks and ellipses) of bodies given neither masses nor a
/// density: about that of glass beads and sand grains.
const DEFAULT_DENSITY: f32 = 2500.0;

/// What every bulk add takes besides the shape: the arguments common to `add_spheres`,
/// `add_disks`, `add_capsules` and `add_ellipses` (velocities, and the keyword options).
struct Common<'py> {
    velocities: Option<Bound<'py, PyAny>>,
    angular_velocities: Option<Bound<'py, PyAny>>,
    orientations: Option<Bound<'py, PyAny>>,
    masses: Option<Bound<'py, PyAny>>,
    density: Option<Bound<'py, PyAny>>,
    inertias: Option<Bound<'py, PyAny>>,
    principal_moments: Option<Bound<'py, PyAny>>,
    material: Option<Bound<'py, PyAny>>,
    kind: String,
    motion: Option<PyMotion>,
    group: Option<String>,
}

/// The keyword options of the bulk adds, in the order their docs give them.
const OPTIONS: [&str; 9] = [
    "orientations",
    "masses",
    "density",
    "inertias",
    "principal_moments",
    "material",
    "kind",
    "motion",
    "group",
];

impl<'py> Common<'py> {
    /// The velocities given and the keyword `options` of a bulk add; an unknown keyword is a
    /// `TypeError` naming it and the known ones.
    fn new(
        velocities: Option<Bound<'py, PyAny>>,
        angular_velocities: Option<Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Common<'py>> {
        let given = |key: &str| -> PyResult<Option<Bound<'py, PyAny>>> {
            Ok(match options {
                Some(o) => o.get_item(key)?.filter(|v| !v.is_none()),
                None => None,
            })
        };
        if let Some(o) = options {
            for key in o.keys() {
                let key: String = key.extract()?;
                if !OPTIONS.contains(&key.as_str()) {
                    return Err(PyTypeError::new_err(format!(
                        "unexpected keyword argument {key:?}; the options are {}",
                        OPTIONS.join(", ")
                    )));
                }
            }
        }
        Ok(Common {
            velocities: velocities.filter(|v| !v.is_none()),
            angular_velocities: angular_velocities.filter(|v| !v.is_none()),
            orientations: given("orientations")?,
            masses: given("masses")?,
            density: given("density")?,
            inertias: given("inertias")?,
            principal_moments: given("principal_moments")?,
            material: given("material")?,
            kind: given("kind")?
                .map(|k| k.extract::<String>())
                .transpose()
                .map_err(|_| PyTypeError::new_err("kind: expected a string"))?
                .unwrap_or_else(|| "dynamic".into()),
            motion: given("motion")?
                .map(|m| m.extract::<PyMotion>().map_err(PyErr::from))
                .transpose()?,
            group: given("group")?.map(|g| g.extract()).transpose()?,
        })
    }
}

/// The body kind named `name`.
fn body_kind(name: &str) -> PyResult<BodyKind> {
    match name {
        "dynamic" => Ok(BodyKind::Dynamic),
        "fixed" => Ok(BodyKind::Fixed),
        "kinematic" => Ok(BodyKind::Kinematic),
        other => Err(PyValueError::new_err(format!(
            "kind {other:?}: expected \"dynamic\", \"fixed\" or \"kinematic\""
        ))),
    }
}

/// Rows of width W, one per body of `n`, or None when not given.
fn per_body<const W: usize>(
    name: &str,
    obj: Option<&Bound<'_, PyAny>>,
    n: usize,
) -> PyResult<Option<Vec<[f32; W]>>> {
    obj.filter(|o| !o.is_none())
        .map(|o| rows_per_body::<W>(name, o, n))
        .transpose()
}

/// One value per body of `n` (a scalar broadcast), or None when not given.
pub(crate) fn per_body_value(
    name: &str,
    obj: Option<&Bound<'_, PyAny>>,
    n: usize,
) -> PyResult<Option<Vec<f32>>> {
    obj.filter(|o| !o.is_none())
        .map(|o| column(name, o, Some(n)))
        .transpose()
}

impl PyWorldBuilder {
    /// Each body's material: one for all (an index or a name) or an integer array of indices,
    /// one per body.
    fn materials_of(&self, obj: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<Vec<MaterialId>> {
        let array = match obj {
            Some(o)
                if !(o.is_none()
                    || o.extract::<String>().is_ok()
                    || o.extract::<i64>().is_ok()) =>
            {
                o
            }
            _ => return Ok(vec![self.material_id("material", obj)?; n]),
        };
        let np = array.py().import("numpy")?;
        let a = np.call_method1("asarray", (array,)).map_err(|e| {
            PyTypeError::new_err(format!(
                "material: expected an index, a name or an integer array ({e})"
            ))
        })?;
        let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
        if kind != "i" && kind != "u" {
            return Err(PyTypeError::new_err(format!(
                "material: an array of material indices must hold integers, got dtype {}",
                a.getattr("dtype")?.str()?
            )));
        }
        let a = a.call_method1("astype", ("int64",))?;
        let a = a.cast::<PyArrayDyn<i64>>()?;
        if a.shape() != [n] {
            return Err(PyValueError::new_err(format!(
                "material: expected {n} indices (one per body), got shape {:?}",
                a.shape()
            )));
        }
        a.to_owned_array()
            .iter()
            .map(|&i| self.material_index("material", i))
            .collect()
    }

    /// Adds one body per centre of `p`: `make(i, centre, mass)` makes body i of the shape,
    /// `mass_of(i, density)` gives its mass from a density; `common` sets the rest. Returns the
    /// index range added.
    fn add_bodies(
        &mut self,
        p: Vec<[f32; 3]>,
        common: Common<'_>,
        mass_of: impl Fn(usize, f32) -> f32,
        make: impl Fn(usize, Vec3, f32) -> Body,
    ) -> PyResult<(usize, usize)> {
        let n = p.len();
        let kind = body_kind(&common.kind)?;
        let motion = common.motion.map(|m| m.inner);
        match (kind, motion.is_some()) {
            (BodyKind::Kinematic, false) => {
                return Err(PyValueError::new_err(
                    "motion: kind \"kinematic\" needs a motion (grains.Motion)",
                ))
            }
            (BodyKind::Dynamic | BodyKind::Fixed, true) => {
                return Err(PyValueError::new_err(format!(
                    "motion: only kind \"kinematic\" takes a motion, these bodies are {:?}",
                    common.kind
                )))
            }
            _ => {}
        }
        if kind != BodyKind::Dynamic {
            for (name, given) in [
                ("velocities", &common.velocities),
                ("angular_velocities", &common.angular_velocities),
            ] {
                if given.is_some() {
                    return Err(PyValueError::new_err(format!(
                        "{name}: {:?} bodies take none (fixed bodies stay at rest, kinematic ones follow their motion)",
                        common.kind
                    )));
                }
            }
        }
        if let Some(g) = &common.group {
            if self.groups.iter().any(|(name, _)| name == g) {
                return Err(PyValueError::new_err(format!(
                    "group: a group is already named {g:?}"
                )));
            }
        }
        let v = per_body::<3>("velocities", common.velocities.as_ref(), n)?;
        let w = per_body::<3>("angular_velocities", common.angular_velocities.as_ref(), n)?;
        let q = per_body::<4>("orientations", common.orientations.as_ref(), n)?;
        let inertias = per_body_value("inertias", common.inertias.as_ref(), n)?;
        let moments = per_body::<3>("principal_moments", common.principal_moments.as_ref(), n)?;
        if inertias.is_some() && moments.is_some() {
            return Err(PyValueError::new_err(
                "inertias and principal_moments: give one of them, not both",
            ));
        }
        let masses = match (
            per_body_value("masses", common.masses.as_ref(), n)?,
            per_body_value("density", common.density.as_ref(), n)?,
        ) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "masses and density: give one of them, not both",
                ))
            }
            (Some(m), None) => m,
            (None, Some(rho)) => rho
                .iter()
                .enumerate()
                .map(|(i, &r)| mass_of(i, r))
                .collect(),
            (None, None) => (0..n).map(|i| mass_of(i, DEFAULT_DENSITY)).collect(),
        };
        let materials = self.materials_of(common.material.as_ref(), n)?;
        let start = self.builder.body_count();
        for i in 0..n {
            let mut b = make(i, Vec3::from_array(p[i]), masses[i]);
            if let Some(q) = &q {
                b.orientation = match b.shape {
                    // A clump's orientation is its principal frame in the template's axes.
                    Shape::Clump { .. } => (Quat::from_array(q[i]) * b.orientation).normalize(),
                    _ => Quat::from_array(q[i]),
                };
            }
            if let Some(v) = &v {
                b.velocity = Vec3::from_array(v[i]);
            }
            if let Some(w) = &w {
                b.angular_velocity = Vec3::from_array(w[i]);
            }
            if let Some(inertias) = &inertias {
                // One moment about every axis, in place of the shape's own (a box's moments).
                b.inertia = inertias[i];
                b.principal_moments = None;
            }
            if let Some(moments) = &moments {
                b.principal_moments = Some(Vec3::from_array(moments[i]));
            }
            b.material = materials[i];
            b.kind = kind;
            b.prescribed = motion;
            self.builder.body(b);
        }
        let stop = self.builder.body_count();
        if let Some(g) = common.group {
            self.groups.push((g, start..stop));
        }
        Ok((start, stop))
    }
}

#[pymethods]
impl PyWorldBuilder {
    /// Adds N solid spheres in bulk and returns the index range (start, stop) they got.
    ///
    /// `positions`: centres (m), shape (N, 3); `radii` (m): shape (N,) or one number for all;
    /// `velocities`, `angular_velocities` (m/s, rad/s): shape (N, 3), default at rest;
    /// `orientations`: unit quaternions (x, y, z, w), shape (N, 4). Give `masses` (kg) or
    /// `density` (kg/m³; m = ρ 4/3 π r³), each per body or one number, not both; with neither
    /// the density is 2500 kg/m³. `inertias` (kg m², default 2/5 m r²) per body or one
    /// number, or instead `principal_moments` (kg m², shape (N, 3)): each body's (I1, I2, I3)
    /// about its local x, y and z axes, the full inertia tensor turning with the body (3-D and
    /// the CPU backend; not with spinning or rolling friction). `material`: an index, a name, or an integer array of indices (one per body).
    /// `kind`: "dynamic", "fixed" (at rest forever) or "kinematic" (moving along `motion`, a
    /// `grains.Motion`, from its position). `group` names the range (`World.groups`). Arrays
    /// are float64, float32 or integers; shapes, dtypes and finiteness are checked here, radii, masses
    /// and overlaps with walls at `build()`. The keyword options are `orientations`, `masses`,
    /// `density`, `inertias`, `principal_moments`, `material`, `kind` (default "dynamic"),
    /// `motion` and `group`; any other keyword is a `TypeError`.
    #[pyo3(signature = (positions, radii, velocities = None, angular_velocities = None, **options))]
    fn add_spheres<'py>(
        &mut self,
        positions: &Bound<'py, PyAny>,
        radii: &Bound<'_, PyAny>,
        velocities: Option<Bound<'py, PyAny>>,
        angular_velocities: Option<Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(usize, usize)> {
        let common = Common::new(velocities, angular_velocities, options)?;
        let p = rows::<3>("positions", positions)?;
        let n = p.len();
        let r = column("radii", radii, Some(n))?;
        self.add_bodies(
            p,
            common,
            |i, rho| sphere_mass(r[i], rho),
            |i, p, m| Body::sphere(p, r[i], m),
        )
    }

    /// Adds N uniform disks (planar mode: `Settings.planar = True`) in bulk and returns the
    /// index range (start, stop). As `add_spheres`, but `density` is per area (kg/m²;
    /// m = ρ π r², default 2500) and the default inertia 1/2 m r².
    #[pyo3(signature = (positions, radii, velocities = None, angular_velocities = None, **options))]
    fn add_disks<'py>(
        &mut self,
        positions: &Bound<'py, PyAny>,
        radii: &Bound<'_, PyAny>,
        velocities: Option<Bound<'py, PyAny>>,
        angular_velocities: Option<Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(usize, usize)> {
        let common = Common::new(velocities, angular_velocities, options)?;
        let p = rows::<3>("positions", positions)?;
        let n = p.len();
        let r = column("radii", radii, Some(n))?;
        self.add_bodies(
            p,
            common,
            |i, rho| disk_mass(r[i], rho),
            |i, p, m| Body::disk(p, r[i], m),
        )
    }

    /// Adds N capsules in bulk (the points within `radii` of a segment of half-length
    /// `half_lengths` along each body's local x axis, turned by `orientations`) and returns
    /// the index range (start, stop). As `add_spheres`; the mass from `density` (kg/m³) is
    /// ρ (2π r² L + 4/3 π r³) in 3-D and ρ (4 r L + π r²) (kg/m²) in planar mode (as the
    /// builder's settings are when they are added; the scene files' formulas); the default
    /// inertia is the solid capsule's, its principal moments in 3-D and the flat stadium's
    /// moment about y in planar mode (`Body::uniform_capsule`).
    #[pyo3(signature = (positions, radii, half_lengths, velocities = None, angular_velocities = None, **options))]
    fn add_capsules<'py>(
        &mut self,
        positions: &Bound<'py, PyAny>,
        radii: &Bound<'_, PyAny>,
        half_lengths: &Bound<'_, PyAny>,
        velocities: Option<Bound<'py, PyAny>>,
        angular_velocities: Option<Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(usize, usize)> {
        let common = Common::new(velocities, angular_velocities, options)?;
        let p = rows::<3>("positions", positions)?;
        let n = p.len();
        let r = column("radii", radii, Some(n))?;
        let l = column("half_lengths", half_lengths, Some(n))?;
        let planar = self.builder.settings().planar;
        self.add_bodies(
            p,
            common,
            |i, rho| capsule_mass(r[i], l[i], rho, planar),
            |i, p, m| Body::uniform_capsule(p, r[i], l[i], m, planar),
        )
    }

    /// Adds N solid cubes of half-edge `half_edges` (the body's radius; edges along each
    /// body's local axes, turned by `orientations`) in bulk, and returns the index range
    /// (start, stop). As `add_spheres`; the mass from `density` (kg/m³) is ρ (2r)³, the
    /// default inertia 2/3 m r² (exact, the same about every axis). 3-D only; CPU only.
    #[pyo3(signature = (positions, half_edges, velocities = None, angular_velocities = None, **options))]
    fn add_cubes<'py>(
        &mut self,
        positions: &Bound<'py, PyAny>,
        half_edges: &Bound<'_, PyAny>,
        velocities: Option<Bound<'py, PyAny>>,
        angular_velocities: Option<Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(usize, usize)> {
        let common = Common::new(velocities, angular_velocities, options)?;
        let p = rows::<3>("positions", positions)?;
        let n = p.len();
        let r = column("half_edges", half_edges, Some(n))?;
        self.add_bodies(
            p,
            common,
            |i, rho| cube_mass(r[i], rho),
            |i, p, m| Body::cube(p, r[i], m),
        )
    }

    /// Adds N solid boxes with half-extents `half_extents` (shape (N, 3): along each body's
    /// local x, y and z, turned by `orientations`) in bulk, and returns the index range
    /// (start, stop). As `add_spheres`; the mass from `density` (kg/m³) is ρ 8abc, the inertia
    /// the box's principal moments m (b² + c²)/3, m (a² + c²)/3, m (a² + b²)/3 (`inertias`
    /// replaces them by one moment, which only a cube may have). 3-D only; CPU only.
    #[pyo3(signature = (positions, half_extents, velocities = None, angular_velocities = None, **options))]
    fn add_boxes<'py>(
        &mut self,
        positions: &Bound<'py, PyAny>,
        half_extents: &Bound<'_, PyAny>,
        velocities: Option<Bound<'py, PyAny>>,
        angular_velocities: Option<Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(usize, usize)> {
        let common = Common::new(velocities, angular_velocities, options)?;
        let p = rows::<3>("positions", positions)?;
        let n = p.len();
        let half = rows_per_body::<3>("half_extents", half_extents, n)?;
        let half = |i: usize| Vec3::from_array(half[i]);
        self.add_bodies(
            p,
            common,
            |i, rho| cuboid_mass(half(i), rho),
            |i, p, m| Body::cuboid(p, half(i), m),
        )
    }

    /// Adds N uniform ellipses (planar mode only) with semi-axes `a` along each body's local x
    /// and `b` along its local z, in bulk, and returns the index range (start, stop). As
    /// `add_spheres`; the mass from `density` (kg/m²) is ρ π a b, the default inertia
    /// m (a² + b²)/4.
    #[pyo3(signature = (positions, a, b, velocities = None, angular_velocities = None, **options))]
    fn add_ellipses<'py>(
        &mut self,
        positions: &Bound<'py, PyAny>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        velocities: Option<Bound<'py, PyAny>>,
        angular_velocities: Option<Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(usize, usize)> {
        let common = Common::new(velocities, angular_velocities, options)?;
        let p = rows::<3>("positions", positions)?;
        let n = p.len();
        let a = column("a", a, Some(n))?;
        let b = column("b", b, Some(n))?;
        self.add_bodies(
            p,
            common,
            |i, rho| ellipse_mass(a[i], b[i], rho),
            |i, p, m| Body::ellipse(p, a[i], b[i], m),
        )
    }

    /// Adds N solid ellipsoids with semi-axes `semi_axes` (shape (N, 3): along each body's
    /// local x, y and z, turned by `orientations`) in bulk, and returns the index range
    /// (start, stop). As `add_spheres`; the mass from `density` (kg/m³) is ρ 4/3 π abc, the
    /// inertia the ellipsoid's principal moments m (b² + c²)/5, m (a² + c²)/5, m (a² + b²)/5
    /// (`inertias` replaces them by one moment, which only a sphere may have). 3-D only; CPU
    /// only.
    #[pyo3(signature = (positions, semi_axes, velocities = None, angular_velocities = None, **options))]
    fn add_ellipsoids<'py>(
        &mut self,
        positions: &Bound<'py, PyAny>,
        semi_axes: &Bound<'_, PyAny>,
        velocities: Option<Bound<'py, PyAny>>,
        angular_velocities: Option<Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(usize, usize)> {
        let common = Common::new(velocities, angular_velocities, options)?;
        let p = rows::<3>("positions", positions)?;
        let n = p.len();
        let semi = rows_per_body::<3>("semi_axes", semi_axes, n)?;
        let semi = |i: usize| Vec3::from_array(semi[i]);
        self.add_bodies(
            p,
            common,
            |i, rho| ellipsoid_mass(semi(i), rho),
            |i, p, m| Body::ellipsoid(p, semi(i), m),
        )
    }

    /// Adds N clumps of one template in bulk, and returns the index range (start, stop): rigid
    /// bodies made of the overlapping member spheres `spheres` (shape (K, 4), rows [x, y, z, r]
    /// in the template's axes, 1 to 8 of them). `positions` are the centres of mass,
    /// `orientations` turn the template's axes. As `add_spheres`; the mass from `density`
    /// (kg/m³) is ρ V of the spheres' union, the inertia its principal moments
    /// (`grains::clump`). 3-D only; CPU only.
    #[pyo3(signature = (positions, spheres, velocities = None, angular_velocities = None, **options))]
    fn add_clumps<'py>(
        &mut self,
        positions: &Bound<'py, PyAny>,
        spheres: &Bound<'_, PyAny>,
        velocities: Option<Bound<'py, PyAny>>,
        angular_velocities: Option<Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(usize, usize)> {
        let common = Common::new(velocities, angular_velocities, options)?;
        let p = rows::<3>("positions", positions)?;
        let members: Vec<Vec4> = rows::<4>("spheres", spheres)?
            .into_iter()
            .map(Vec4::from_array)
            .collect();
        let template = ClumpTemplate::new(&members)
            .map_err(|e| PyValueError::new_err(format!("spheres: {e}")))?;
        let clump = self.builder.clump_template(&template);
        self.add_bodies(
            p,
            common,
            |_, rho| clump.volume * rho,
            |_, p, m| Body::clump(p - clump.centre, Quat::IDENTITY, &clump, m / clump.volume),
        )
    }

    /// Adds N uniform convex polyhedra of one shape, the convex hull of the points `vertices`
    /// (V, 3) in bulk, and returns the index range (start, stop). As `add_spheres`; the hull is
    /// registered once (`WorldBuilder::hull`), each body's centre of mass at its position and
    /// its principal axes turned by `orientations`; the mass from `density` (kg/m³) is ρ V, the
    /// inertia the hull's principal moments times the mass. A cloud of fewer than 4 points, a
    /// flat one or one whose hull has more than 16 vertices is a `ValueError`. 3-D only; CPU
    /// only.
    #[pyo3(signature = (positions, vertices, velocities = None, angular_velocities = None, **options))]
    fn add_polyhedra<'py>(
        &mut self,
        positions: &Bound<'py, PyAny>,
        vertices: &Bound<'_, PyAny>,
        velocities: Option<Bound<'py, PyAny>>,
        angular_velocities: Option<Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(usize, usize)> {
        let common = Common::new(velocities, angular_velocities, options)?;
        let p = rows::<3>("positions", positions)?;
        let points: Vec<Vec3> = rows::<3>("vertices", vertices)?
            .into_iter()
            .map(Vec3::from_array)
            .collect();
        let hull = Polyhedron::from_points(&points)
            .map_err(|e| PyValueError::new_err(format!("vertices: {e}")))?;
        let id = self.builder.hull(&hull);
        self.add_bodies(
            p,
            common,
            |_, rho| hull.mass(rho),
            |_, p, m| Body::polyhedron(p, id, m),
        )
    }
}
