//! The `[[bodies]]` generators: `single`, `list`, `lattice`, `random_fill`, `pour_lattice` and
//! `cannonball`, each a method of [`Generator`], which reads once what all the bodies of a
//! generator share (shape, material, motion, velocities, axis).

use super::clumps::ClumpNames;
use super::form::{Axis, Form};
use super::materials::MaterialNames;
use super::round_fill::round_region;
use super::spec::{BodySpec, S, V3};
use super::values::{count, finite3, need, non_negative, number_or, only, positive, sp, Ctx};
use super::walls::Shakers;
use super::{SceneError, MAX_BODIES};
use glam::{Quat, Vec3};
use grains::body::{sphere_mass, Body, Shape};
use grains::fill::{pour, FillError, FillRegion, Lattice, PourScene, RandomFill};
use grains::material::MaterialId;
use grains::motion::Prescribed;
use grains::HullId;
use std::ops::Range;

/// Appends the bodies of generator `g` to `out` (which holds those of the generators before it).
pub(super) fn generate(
    cx: &Ctx,
    g: &BodySpec,
    planar: bool,
    (materials, clumps): (&MaterialNames, &ClumpNames),
    shakers: &Shakers,
    hull: Option<HullId>,
    out: &mut Vec<Body>,
) -> Result<(), SceneError> {
    let mut generator = Generator::read(cx, g, planar, (materials, clumps), shakers, hull)?;
    match g.generator.get_ref().as_str() {
        "single" => generator.single(out),
        "list" => generator.list(out),
        "pour_lattice" => generator.pour_lattice(out),
        "lattice" => generator.lattice(out),
        "random_fill" => generator.random_fill(out),
        "cannonball" => generator.cannonball(out),
        _ => unreachable!("the generator's name was checked with its keys"),
    }
}

/// One generator's table, with what all its bodies share.
struct Generator<'a> {
    cx: &'a Ctx<'a>,
    g: &'a BodySpec,
    planar: bool,
    form: Form,
    axis: Axis,
    material: MaterialId,
    motion: Option<Prescribed>,
    /// `dynamic`, `fixed` or `kinematic` (checked as each body is made).
    body_kind: &'a str,
    velocity: Vec3,
    omega: Vec3,
    inertia: Option<f32>,
}

impl<'a> Generator<'a> {
    /// Checks the generator's name and that it takes each key given; reads the shared keys.
    fn read(
        cx: &'a Ctx<'a>,
        g: &'a BodySpec,
        planar: bool,
        (materials, clumps): (&MaterialNames, &ClumpNames),
        shakers: &Shakers,
        hull: Option<HullId>,
    ) -> Result<Generator<'a>, SceneError> {
        let kind = &g.generator;
        let given = [
            ("shape", sp(&g.shape)),
            ("radius", sp(&g.radius)),
            ("radius_max", sp(&g.radius_max)),
            ("density", sp(&g.density)),
            ("mass", sp(&g.mass)),
            ("inertia", sp(&g.inertia)),
            ("kind", sp(&g.kind)),
            ("shaker", sp(&g.shaker)),
            ("count", sp(&g.count)),
            ("packing_fraction", sp(&g.packing_fraction)),
            ("seed", sp(&g.seed)),
            ("position", sp(&g.position)),
            ("velocity", sp(&g.velocity)),
            ("angular_velocity", sp(&g.angular_velocity)),
            ("origin", sp(&g.origin)),
            ("spacing", sp(&g.spacing)),
            ("counts", sp(&g.counts)),
            ("jitter", sp(&g.jitter)),
            ("region_min", sp(&g.region_min)),
            ("region_max", sp(&g.region_max)),
            ("region", sp(&g.region)),
            ("region_centre", sp(&g.region_centre)),
            ("region_axis", sp(&g.region_axis)),
            ("region_radius", sp(&g.region_radius)),
            ("region_small_radius", sp(&g.region_small_radius)),
            ("region_large_radius", sp(&g.region_large_radius)),
            ("region_length", sp(&g.region_length)),
            ("rows", sp(&g.rows)),
            ("centre_x", sp(&g.centre_x)),
            ("list", g.list.as_ref().map(|_| kind.span())),
            ("half_length", sp(&g.half_length)),
            ("a", sp(&g.a)),
            ("b", sp(&g.b)),
            ("axis", sp(&g.axis)),
        ];
        const COMMON: [&str; 12] = [
            "shape",
            "half_length",
            "a",
            "b",
            "axis",
            "density",
            "mass",
            "kind",
            "shaker",
            "velocity",
            "angular_velocity",
            "radius",
        ];
        fn allow<'k>(extra: &[&'k str]) -> Vec<&'k str> {
            COMMON
                .iter()
                .copied()
                .chain(extra.iter().copied())
                .collect()
        }
        let allowed = match kind.get_ref().as_str() {
            "single" => allow(&["position", "inertia"]),
            "list" => allow(&["list", "inertia"]),
            "pour_lattice" => vec!["count", "velocity", "angular_velocity", "kind", "shaker"],
            "lattice" => allow(&["origin", "spacing", "counts", "count", "jitter", "seed"]),
            "random_fill" => allow(&[
                "region_min",
                "region_max",
                "region",
                "region_centre",
                "region_axis",
                "region_radius",
                "region_small_radius",
                "region_large_radius",
                "region_length",
                "count",
                "packing_fraction",
                "seed",
                "radius_max",
            ]),
            "cannonball" => allow(&["rows", "centre_x"]),
            other => {
                return Err(cx.err(
                    kind.span(),
                    "generator",
                    format!("must be \"single\", \"list\", \"lattice\", \"random_fill\", \"pour_lattice\" or \"cannonball\", got \"{other}\""),
                ))
            }
        };
        only(cx, kind, &given, &allowed)?;
        let body_kind = g
            .kind
            .as_ref()
            .map(|k| k.get_ref().as_str())
            .unwrap_or("dynamic");
        refuse_unmoved(
            cx,
            body_kind,
            g,
            &[
                ("velocity", sp(&g.velocity)),
                ("angular_velocity", sp(&g.angular_velocity)),
            ],
        )?;
        let form = Form::read(cx, &g.shape_keys(), planar, (clumps, hull))?;
        Ok(Generator {
            cx,
            g,
            planar,
            form,
            axis: Axis::read(cx, g, form, planar, seed(g))?,
            material: materials.id(cx, &g.material)?,
            motion: shakers.motion(cx, &g.shaker)?,
            velocity: match &g.velocity {
                Some(v) => linear_velocity(cx, v, planar)?,
                None => Vec3::ZERO,
            },
            omega: match &g.angular_velocity {
                Some(v) => angular_velocity(cx, v, planar)?,
                None => Vec3::ZERO,
            },
            inertia: match &g.inertia {
                Some(v) => Some(positive(cx, v, "inertia")?),
                None => None,
            },
            body_kind,
        })
    }

    /// A body of the generator's form, material and kind at `p` with radius `r`, mass `m`,
    /// velocities `v` and `w` and orientation `q`.
    fn body(&self, p: Vec3, r: f32, m: f32, v: Vec3, w: Vec3, q: Quat) -> Result<Body, SceneError> {
        self.finish(self.form.body(p, r, m), v, w, q)
    }

    /// Body `b` (shaped, placed and weighed) with the generator's inertia, material and kind,
    /// velocities `v` and `w` and orientation `q` (a clump's principal frame turned by q).
    fn finish(&self, b: Body, v: Vec3, w: Vec3, q: Quat) -> Result<Body, SceneError> {
        let (cx, g) = (self.cx, self.g);
        let q = match b.shape {
            Shape::Clump { .. } => (q * b.orientation).normalize(),
            _ => q,
        };
        // A given inertia is one moment about every axis, in place of the shape's own (a
        // capsule's principal moments).
        let b = match self.inertia {
            Some(inertia) => Body {
                inertia,
                principal_moments: None,
                ..b
            },
            None => b,
        }
        .with_orientation(q)
        .with_material(self.material)
        .with_velocity(v)
        .with_angular_velocity(w);
        match self.body_kind {
            "dynamic" => Ok(b),
            "fixed" => Ok(b.fixed()),
            "kinematic" => match self.motion {
                Some(m) => Ok(b.kinematic(m)),
                None => Err(cx.err(
                    g.generator.span(),
                    "shaker",
                    "missing: a kinematic body needs a `shaker`",
                )),
            },
            other => Err(cx.err(
                g.kind
                    .as_ref()
                    .map(|k| k.span())
                    .unwrap_or(g.generator.span()),
                "kind",
                format!("must be \"dynamic\", \"fixed\" or \"kinematic\", got \"{other}\""),
            )),
        }
    }

    /// The generator's `radius` (for ellipses, the larger semi-axis).
    fn radius(&self) -> Result<f32, SceneError> {
        self.form.radius(self.cx, &self.g.radius, &self.g.generator)
    }

    /// The orientation of the next body, or `entry`'s own `axis` (a `list` entry's).
    fn turn(&mut self, entry: &Option<S<V3>>) -> Result<Quat, SceneError> {
        self.axis.next(self.cx, entry, self.form, self.planar)
    }

    /// A body of radius `r` at `p` with the generator's mass, velocities and axis.
    fn each(&mut self, p: Vec3, r: f32) -> Result<Body, SceneError> {
        let m = mass_of(self.cx, self.g, r, self.form)?;
        let q = self.turn(&None)?;
        self.body(p, r, m, self.velocity, self.omega, q)
    }

    /// `single`: one body at `position`.
    fn single(&mut self, out: &mut Vec<Body>) -> Result<(), SceneError> {
        let (cx, g) = (self.cx, self.g);
        let kind = &g.generator;
        let r = self.radius()?;
        let p = finite3(cx, need(cx, &g.position, "position", kind)?, "position")?;
        room(cx, out, 1, kind.span(), "generator")?;
        out.push(self.each(p, r)?);
        Ok(())
    }

    /// `list`: one body per entry, each with its own position and, if given, radius, velocities,
    /// axis and shape dimensions (`half_length`, `a`, `b`).
    fn list(&mut self, out: &mut Vec<Body>) -> Result<(), SceneError> {
        let (cx, g) = (self.cx, self.g);
        let kind = &g.generator;
        let (velocity, omega) = (self.velocity, self.omega);
        let list = g
            .list
            .as_ref()
            .ok_or_else(|| cx.err(kind.span(), "list", "missing: required for `list`"))?;
        room(cx, out, list.len(), kind.span(), "list")?;
        for e in list {
            refuse_unmoved(
                cx,
                self.body_kind,
                g,
                &[
                    ("velocity", sp(&e.velocity)),
                    ("angular_velocity", sp(&e.angular_velocity)),
                ],
            )?;
            let form = self.form.entry(cx, e)?;
            let r = match &e.radius {
                Some(_) => form.radius(cx, &e.radius, kind)?,
                None => form.radius(cx, &g.radius, kind)?,
            };
            let p = finite3(cx, &e.position, "position")?;
            let v = match &e.velocity {
                Some(v) => linear_velocity(cx, v, self.planar)?,
                None => velocity,
            };
            let w = match &e.angular_velocity {
                Some(v) => angular_velocity(cx, v, self.planar)?,
                None => omega,
            };
            let m = mass_of(cx, g, r, form)?;
            let q = self.turn(&e.axis)?;
            out.push(self.finish(form.body(p, r, m), v, w, q)?);
        }
        Ok(())
    }

    /// `pour_lattice`: the pour benchmark's spheres (radius, density and lattice fixed by it).
    fn pour_lattice(&mut self, out: &mut Vec<Body>) -> Result<(), SceneError> {
        let (cx, g, form) = (self.cx, self.g, self.form);
        let kind = &g.generator;
        let (velocity, omega) = (self.velocity, self.omega);
        if form == Form::Disk {
            return Err(cx.err(kind.span(), "generator", "the pour lattice is 3-D"));
        }
        let n_s = need(cx, &g.count, "count", kind)?;
        let n = count(cx, n_s, "count", 1)?.try_into().unwrap_or(usize::MAX);
        room(cx, out, n, n_s.span(), "count")?;
        let mass = sphere_mass(pour::RADIUS, pour::DENSITY);
        for c in PourScene::new(n).centres() {
            out.push(self.body(c, pour::RADIUS, mass, velocity, omega, Quat::IDENTITY)?);
        }
        Ok(())
    }

    /// `lattice`: bodies on a cubic lattice from `origin`, x fastest, with optional jitter in x
    /// and y.
    fn lattice(&mut self, out: &mut Vec<Body>) -> Result<(), SceneError> {
        let (cx, g, form, planar) = (self.cx, self.g, self.form, self.planar);
        let kind = &g.generator;
        let (velocity, omega) = (self.velocity, self.omega);
        let r = self.radius()?;
        let o = finite3(cx, need(cx, &g.origin, "origin", kind)?, "origin")?;
        let d = positive(cx, need(cx, &g.spacing, "spacing", kind)?, "spacing")?;
        let cs = need(cx, &g.counts, "counts", kind)?;
        let counts = cs.get_ref().map(|n| usize::try_from(n).unwrap_or(0));
        let mut lattice = Lattice::new(o, d, counts);
        lattice.planar = planar;
        if let Some(c) = &g.count {
            lattice.count = Some(count(cx, c, "count", 1)?.try_into().unwrap_or(usize::MAX));
        }
        if let Some(j) = &g.jitter {
            lattice.jitter = non_negative(cx, j, "jitter")?;
        }
        lattice.seed = seed(g);
        lattice.check(r).map_err(|e| fill_error(cx, g, e))?;
        let (limit_span, limit_key) = match &g.count {
            Some(c) => (c.span(), "count"),
            None => (cs.span(), "counts"),
        };
        room(cx, out, lattice.len(), limit_span, limit_key)?;
        let random_axis = matches!(
            g.axis.as_ref().map(|a| a.get_ref()),
            Some(toml::Value::String(a)) if a == "random"
        );
        if let Some(s) = g
            .seed
            .as_ref()
            .filter(|_| lattice.jitter == 0.0 && !random_axis)
        {
            return Err(cx.err(
                s.span(),
                "seed",
                "has no effect on a lattice without `jitter` or `axis = \"random\"` (its sites are not random): remove it",
            ));
        }
        let m = mass_of(cx, g, r, form)?;
        for p in lattice.centres(r).map_err(|e| fill_error(cx, g, e))? {
            let q = self.turn(&None)?;
            out.push(self.body(p, r, m, velocity, omega, q)?);
        }
        Ok(())
    }

    /// `random_fill`: bodies placed at random in a region without overlapping any body made
    /// so far.
    fn random_fill(&mut self, out: &mut Vec<Body>) -> Result<(), SceneError> {
        let (cx, g, form, planar) = (self.cx, self.g, self.form, self.planar);
        let kind = &g.generator;
        let r0 = self.radius()?;
        let region = match round_region(cx, g)? {
            Some(region) => region,
            None => FillRegion::boxed(
                finite3(
                    cx,
                    need(cx, &g.region_min, "region_min", kind)?,
                    "region_min",
                )?,
                finite3(
                    cx,
                    need(cx, &g.region_max, "region_max", kind)?,
                    "region_max",
                )?,
            ),
        };
        let mut fill = RandomFill::new(region, r0).with_seed(seed(g));
        fill.planar = planar;
        if let Some(v) = &g.radius_max {
            fill.radius_max = positive(cx, v, "radius_max")?;
        }
        fill.check().map_err(|e| fill_error(cx, g, e))?;
        let target = match (&g.count, &g.packing_fraction) {
            (Some(c), None) => count(cx, c, "count", 1)?.try_into().unwrap_or(usize::MAX),
            (None, Some(f)) if !form.is_round() => {
                return Err(cx.err(
                    f.span(),
                    "packing_fraction",
                    "used only by spheres and disks: give `count`",
                ))
            }
            (None, Some(f)) => fill
                .count_for(positive(cx, f, "packing_fraction")? as f64)
                .map_err(|e| fill_error(cx, g, e))?,
            _ => {
                return Err(cx.err(
                    kind.span(),
                    "count",
                    "give exactly one of `count` and `packing_fraction`",
                ))
            }
        };
        let target_span = match (&g.count, &g.packing_fraction) {
            (Some(c), _) => (c.span(), "count"),
            (_, Some(f)) => (f.span(), "packing_fraction"),
            _ => (kind.span(), "count"),
        };
        room(cx, out, target, target_span.0, target_span.1)?;
        let existing = out
            .iter()
            .map(|b| (b.position, b.shape.bounding_radius(b.radius)));
        let placed = fill
            .place(target, |r| form.bounding_radius(r), existing)
            .map_err(|e| cx.err(kind.span(), e.key, e.problem))?;
        for (p, r) in placed {
            out.push(self.each(p, r)?);
        }
        Ok(())
    }

    /// `cannonball`: a triangle of touching spheres or disks in the x–z plane.
    fn cannonball(&mut self, out: &mut Vec<Body>) -> Result<(), SceneError> {
        let (cx, g, form) = (self.cx, self.g, self.form);
        let kind = &g.generator;
        let (velocity, omega) = (self.velocity, self.omega);
        if !form.is_round() {
            return Err(cx.err(
                g.shape.as_ref().map_or(kind.span(), |s| s.span()),
                "shape",
                "`cannonball` stacks spheres or disks",
            ));
        }
        let r = self.radius()?;
        let rows_s = need(cx, &g.rows, "rows", kind)?;
        let rows: usize = count(cx, rows_s, "rows", 1)?
            .try_into()
            .unwrap_or(usize::MAX);
        room(
            cx,
            out,
            rows.saturating_mul(rows.saturating_add(1)) / 2,
            rows_s.span(),
            "rows",
        )?;
        let cxo = number_or(cx, &g.centre_x, "centre_x", 0.0)?;
        let m = mass_of(cx, g, r, form)?;
        let x0 = cxo - (rows as f32 - 1.0) * r;
        for row in 0..rows {
            for k in 0..rows - row {
                let x = x0 + 2.0 * r * k as f32 + r * row as f32;
                let z = r + row as f32 * 2.0 * r * (3.0f32).sqrt() / 2.0;
                out.push(self.body(Vec3::new(x, 0.0, z), r, m, velocity, omega, Quat::IDENTITY)?);
            }
        }
        Ok(())
    }
}

/// Fails for the keys that have no effect on a body of kind `body_kind`: `shaker` but on a
/// kinematic body, and on a fixed or kinematic one `inertia` and the velocities in `given`
/// (a fixed body stays at rest, a kinematic one moves as its shaker says).
fn refuse_unmoved(
    cx: &Ctx,
    body_kind: &str,
    g: &BodySpec,
    given: &[(&str, Option<Range<usize>>)],
) -> Result<(), SceneError> {
    if let Some(s) = g.shaker.as_ref().filter(|_| body_kind != "kinematic") {
        return Err(cx.err(
            s.span(),
            "shaker",
            "used only by kinematic bodies: add `kind = \"kinematic\"` or remove it",
        ));
    }
    let why = match body_kind {
        "fixed" => "a fixed body stays at rest",
        "kinematic" => "a kinematic body moves as its shaker says",
        _ => return Ok(()),
    };
    let inertia = ("inertia", sp(&g.inertia));
    for (key, span) in given.iter().chain([&inertia]) {
        if let Some(span) = span {
            return Err(cx.err(
                span.clone(),
                key,
                format!("has no effect on `kind = \"{body_kind}\"` bodies: {why}"),
            ));
        }
    }
    Ok(())
}

/// A `velocity` (m/s); in planar mode its y, which the plane's motion drops, must be 0.
fn linear_velocity(cx: &Ctx, v: &S<V3>, planar: bool) -> Result<Vec3, SceneError> {
    let x = finite3(cx, v, "velocity")?;
    if planar && x.y != 0.0 {
        return Err(cx.err(
            v.span(),
            "velocity",
            format!(
                "y = {} has no effect in planar mode (bodies move in the x–z plane): give 0",
                x.y
            ),
        ));
    }
    Ok(x)
}

/// An `angular_velocity` (rad/s); in planar mode its x and z, which the plane's motion drops,
/// must be 0.
fn angular_velocity(cx: &Ctx, v: &S<V3>, planar: bool) -> Result<Vec3, SceneError> {
    let w = finite3(cx, v, "angular_velocity")?;
    if planar && (w.x != 0.0 || w.z != 0.0) {
        return Err(cx.err(
            v.span(),
            "angular_velocity",
            format!(
                "x and z ({}, {}) have no effect in planar mode (bodies turn about y only): give 0",
                w.x, w.z
            ),
        ));
    }
    Ok(w)
}

/// The error unless `n` more bodies after the `made` so far stay within [`MAX_BODIES`] and can
/// be allocated; reported at `span`, `key`.
fn room(
    cx: &Ctx,
    out: &mut Vec<Body>,
    n: usize,
    span: Range<usize>,
    key: &str,
) -> Result<(), SceneError> {
    if n > MAX_BODIES - out.len().min(MAX_BODIES) {
        return Err(cx.err(
            span,
            key,
            format!(
                "makes {n} bodies after {} already made: a scene may have at most {MAX_BODIES}",
                out.len()
            ),
        ));
    }
    out.try_reserve(n)
        .map_err(|_| cx.err(span, key, format!("not enough memory for {n} more bodies")))
}

/// Mass of a body of `form` and radius `r` from the generator's `mass` or `density`.
fn mass_of(cx: &Ctx, g: &BodySpec, r: f32, form: Form) -> Result<f32, SceneError> {
    match (&g.mass, &g.density) {
        (Some(m), None) => positive(cx, m, "mass"),
        (None, Some(d)) => Ok(form.mass(r, positive(cx, d, "density")?)),
        (Some(m), Some(_)) => {
            Err(cx.err(m.span(), "mass", "give either mass or density, not both"))
        }
        (None, None) => Err(cx.err(
            g.generator.span(),
            "density",
            "missing: give `density` (kg/m³, kg/m² for disks) or `mass` (kg)",
        )),
    }
}

/// The scene error of `e`, at the key of generator `g` it names (the generator's name when
/// that key is not given).
pub(super) fn fill_error(cx: &Ctx, g: &BodySpec, e: FillError) -> SceneError {
    let span = match e.key {
        "origin" => sp(&g.origin),
        "spacing" => sp(&g.spacing),
        "counts" => sp(&g.counts),
        "count" => sp(&g.count),
        "jitter" => sp(&g.jitter),
        "radius" => sp(&g.radius),
        "radius_max" => sp(&g.radius_max),
        "packing_fraction" => sp(&g.packing_fraction),
        "region" => sp(&g.region),
        "region_min" => sp(&g.region_min),
        "region_max" => sp(&g.region_max),
        "region_centre" => sp(&g.region_centre),
        "region_axis" => sp(&g.region_axis),
        "region_radius" => sp(&g.region_radius),
        "region_small_radius" => sp(&g.region_small_radius),
        "region_large_radius" => sp(&g.region_large_radius),
        "region_length" => sp(&g.region_length),
        _ => None,
    };
    cx.err(span.unwrap_or(g.generator.span()), e.key, e.problem)
}

/// The generator's `seed` (1 if none).
fn seed(g: &BodySpec) -> u64 {
    g.seed.as_ref().map(|s| *s.get_ref() as u64).unwrap_or(1)
}
