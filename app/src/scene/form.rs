//! A body generator's shape keys, `shape`, `half_length`, `a`, `b` and `axis`: which bodies it
//! makes, their mass from a density, and how they are turned. An `[[insert]]` table of shaped
//! grains reads the same keys (but `axis`: its grains are turned at random) through
//! [`ShapeKeys`].

use super::clumps::ClumpNames;
use super::spec::{BodySpec, ListBodySpec, S, V3};
use super::values::{need, positive, Ctx};
use super::SceneError;
use crate::pour::SplitMix64;
use glam::{Quat, Vec3};
use grains::body::{
    aspect, capsule_mass, cube_mass, cuboid_mass, disk_mass, ellipse_mass, sphere_mass, Body,
    MAX_ASPECT,
};
use grains::clump::Clump;
use grains::ellipsoid_mass;
use grains::HullId;

/// The shape keys of a `[[bodies]]` generator or an `[[insert]]` table, as written (a key
/// the table does not have is `None`).
pub(super) struct ShapeKeys<'a> {
    /// `shape`.
    pub shape: &'a Option<S<String>>,
    /// Capsules: `half_length`.
    pub half_length: &'a Option<S<f64>>,
    /// Ellipses: `a`.
    pub a: &'a Option<S<f64>>,
    /// Ellipses: `b`.
    pub b: &'a Option<S<f64>>,
    /// Boxes: `half_extents`.
    pub half_extents: &'a Option<S<V3>>,
    /// Ellipsoids: `semi_axes`.
    pub semi_axes: &'a Option<S<V3>>,
    /// Clumps: `clump`, a template's name.
    pub clump: &'a Option<S<String>>,
    /// Polyhedra: `vertices`.
    pub vertices: &'a Option<S<Vec<V3>>>,
    /// `radius` as one number.
    pub radius: &'a Option<S<f64>>,
    /// `radius_max`.
    pub radius_max: &'a Option<S<f64>>,
    /// `inertia`.
    pub inertia: &'a Option<S<f64>>,
}

impl BodySpec {
    /// The generator's shape keys.
    pub(super) fn shape_keys(&self) -> ShapeKeys<'_> {
        ShapeKeys {
            shape: &self.shape,
            half_length: &self.half_length,
            a: &self.a,
            b: &self.b,
            half_extents: &self.half_extents,
            semi_axes: &self.semi_axes,
            clump: &self.clump,
            vertices: &self.vertices,
            radius: &self.radius,
            radius_max: &self.radius_max,
            inertia: &self.inertia,
        }
    }
}

/// What a generator makes, from its `shape` key and the dimensions that go with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Form {
    /// A solid sphere.
    Sphere,
    /// A uniform disk (planar mode).
    Disk,
    /// A capsule of the body's radius about a segment of half-length `half_length`; a flat
    /// stadium in planar mode (`planar`).
    Capsule { half_length: f32, planar: bool },
    /// An ellipse with semi-axes `a` and `b` (planar mode only).
    Ellipse { a: f32, b: f32 },
    /// A cube whose half-edge is the body's radius (3-D only).
    Cube,
    /// A box with half-extents `half` along the body's x, y and z axes (3-D only), with its
    /// principal moments.
    Box { half: Vec3 },
    /// An ellipsoid with semi-axes `semi` along the body's x, y and z axes (3-D only), with
    /// its principal moments.
    Ellipsoid { semi: Vec3 },
    /// A clump of a `[clumps.NAME]` template (3-D only), with its principal moments; its
    /// `position` is its centre of mass.
    Clump { clump: Clump },
    /// A convex polyhedron: a hull the group registered (3-D only), with its principal moments.
    Polyhedron { hull: HullId },
}

impl Form {
    /// Reads `shape`, `half_length`, `a` and `b`, refusing the dimensions the shape does not use
    /// and, for ellipses, `radius` and `radius_max` (their size is `a` and `b`).
    /// `hull` is the group's hull when its shape is `"polyhedron"` (see `super::polyhedra`).
    pub(super) fn read(
        cx: &Ctx,
        g: &ShapeKeys,
        planar: bool,
        (clumps, hull): (&ClumpNames, Option<HullId>),
    ) -> Result<Form, SceneError> {
        let form = match g.shape {
            None if planar => Form::Disk,
            None => Form::Sphere,
            Some(s) => match (s.get_ref().as_str(), planar) {
                ("sphere", _) => Form::Sphere,
                ("disk", true) => Form::Disk,
                ("capsule", _) => Form::Capsule {
                    half_length: positive(
                        cx,
                        need(cx, g.half_length, "half_length", s)?,
                        "half_length",
                    )?,
                    planar,
                },
                ("cube", false) => Form::Cube,
                ("box", false) => Form::Box {
                    half: half_extents(cx, need(cx, g.half_extents, "half_extents", s)?)?,
                },
                (solid @ ("cube" | "box"), true) => {
                    return Err(cx.err(
                        s.span(),
                        "shape",
                        format!("{solid}es are 3-D bodies: planar mode has none"),
                    ))
                }
                ("ellipsoid", false) => Form::Ellipsoid {
                    semi: positive_vec3(cx, need(cx, g.semi_axes, "semi_axes", s)?, "semi_axes")?,
                },
                ("ellipsoid", true) => {
                    return Err(cx.err(
                        s.span(),
                        "shape",
                        "ellipsoids are 3-D bodies: planar mode has none (use shape = \"ellipse\")",
                    ))
                }
                ("clump", false) => Form::Clump {
                    clump: clumps.of(cx, g.clump, s)?,
                },
                ("clump", true) => {
                    return Err(cx.err(
                        s.span(),
                        "shape",
                        "clumps are 3-D bodies: planar mode has none",
                    ))
                }
                ("polyhedron", false) => Form::Polyhedron {
                    hull: hull.expect("a polyhedron group's hull is read before its form"),
                },
                ("polyhedron", true) => {
                    return Err(cx.err(
                        s.span(),
                        "shape",
                        "polyhedra are 3-D bodies: planar mode has none",
                    ))
                }
                ("ellipse", true) => Form::Ellipse {
                    a: positive(cx, need(cx, g.a, "a", s)?, "a")?,
                    b: positive(cx, need(cx, g.b, "b", s)?, "b")?,
                },
                (flat @ ("disk" | "ellipse"), false) => {
                    return Err(cx.err(
                        s.span(),
                        "shape",
                        format!("{flat}s need `planar = true` in [settings]"),
                    ))
                }
                (other, _) => {
                    return Err(cx.err(
                        s.span(),
                        "shape",
                        format!(
                        "must be \"sphere\", \"disk\", \"capsule\", \"ellipse\", \"cube\", \"box\", \"ellipsoid\", \"clump\" or \"polyhedron\", got \"{other}\""
                    ),
                    ))
                }
            },
        };
        let capsule = matches!(form, Form::Capsule { .. });
        let ellipse = matches!(form, Form::Ellipse { .. });
        let boxed = matches!(form, Form::Box { .. });
        let ellipsoid = matches!(form, Form::Ellipsoid { .. });
        let clumped = matches!(form, Form::Clump { .. });
        let hulled = matches!(form, Form::Polyhedron { .. });
        let sized = ellipse || boxed || ellipsoid || clumped || hulled;
        let unused = [
            ("half_length", g.half_length, !capsule, "shape = \"capsule\""),
            ("a", g.a, !ellipse, "shape = \"ellipse\""),
            ("b", g.b, !ellipse, "shape = \"ellipse\""),
            ("radius", g.radius, sized, "spheres, disks, capsules and cubes"),
            (
                "radius_max",
                g.radius_max,
                sized,
                "spheres, disks, capsules and cubes",
            ),
            (
                "inertia",
                g.inertia,
                boxed || ellipsoid || clumped || hulled,
                "one-moment shapes (boxes, ellipsoids, clumps and polyhedra have their principal moments)",
            ),
        ];
        for (key, value, refused, users) in unused {
            if let Some(v) = value.as_ref().filter(|_| refused) {
                return Err(cx.err(v.span(), key, format!("used only by {users}")));
            }
        }
        if let Some(v) = g.half_extents.as_ref().filter(|_| !boxed) {
            return Err(cx.err(v.span(), "half_extents", "used only by shape = \"box\""));
        }
        if let Some(v) = g.semi_axes.as_ref().filter(|_| !ellipsoid) {
            return Err(cx.err(v.span(), "semi_axes", "used only by shape = \"ellipsoid\""));
        }
        if let Some(v) = g.clump.as_ref().filter(|_| !clumped) {
            return Err(cx.err(v.span(), "clump", "used only by shape = \"clump\""));
        }
        Ok(form)
    }

    /// The form of one `list` entry: this one with the entry's own `half_length` (capsules) or
    /// `a` and `b` (ellipses) or `half_extents` (boxes), refusing those the shape does not use
    /// and a `radius` on an ellipse or a box.
    pub(super) fn entry(self, cx: &Ctx, e: &ListBodySpec) -> Result<Form, SceneError> {
        let or = |v: &Option<S<f64>>, key: &str, default: f32| match v {
            Some(v) => positive(cx, v, key),
            None => Ok(default),
        };
        let (used, form): (&[&str], Form) = match self {
            Form::Capsule {
                half_length,
                planar,
            } => (
                &["half_length"],
                Form::Capsule {
                    half_length: or(&e.half_length, "half_length", half_length)?,
                    planar,
                },
            ),
            Form::Ellipse { a, b } => (
                &["a", "b"],
                Form::Ellipse {
                    a: or(&e.a, "a", a)?,
                    b: or(&e.b, "b", b)?,
                },
            ),
            Form::Box { half } => (
                &["half_extents"],
                Form::Box {
                    half: match &e.half_extents {
                        Some(v) => half_extents(cx, v)?,
                        None => half,
                    },
                },
            ),
            Form::Ellipsoid { semi } => (
                &["semi_axes"],
                Form::Ellipsoid {
                    semi: match &e.semi_axes {
                        Some(v) => positive_vec3(cx, v, "semi_axes")?,
                        None => semi,
                    },
                },
            ),
            Form::Sphere
            | Form::Disk
            | Form::Cube
            | Form::Clump { .. }
            | Form::Polyhedron { .. } => (&[], self),
        };
        let given = [
            ("half_length", &e.half_length, "shape = \"capsule\""),
            ("a", &e.a, "shape = \"ellipse\""),
            ("b", &e.b, "shape = \"ellipse\""),
        ];
        for (key, value, users) in given {
            if let Some(v) = value.as_ref().filter(|_| !used.contains(&key)) {
                return Err(cx.err(v.span(), key, format!("used only by {users}")));
            }
        }
        if let Some(v) = e
            .half_extents
            .as_ref()
            .filter(|_| !used.contains(&"half_extents"))
        {
            return Err(cx.err(v.span(), "half_extents", "used only by shape = \"box\""));
        }
        if let Some(v) = e
            .semi_axes
            .as_ref()
            .filter(|_| !used.contains(&"semi_axes"))
        {
            return Err(cx.err(v.span(), "semi_axes", "used only by shape = \"ellipsoid\""));
        }
        if let (Form::Ellipsoid { .. }, Some(r)) = (form, &e.radius) {
            return Err(cx.err(
                r.span(),
                "radius",
                "used only by spheres, disks, capsules and cubes (an ellipsoid's size is `semi_axes`)",
            ));
        }
        if let (
            Form::Ellipse { .. } | Form::Box { .. } | Form::Clump { .. } | Form::Polyhedron { .. },
            Some(r),
        ) = (form, &e.radius)
        {
            return Err(cx.err(
                r.span(),
                "radius",
                "used only by spheres, disks, capsules and cubes (an ellipse's size is `a` and `b`, a box's `half_extents`)",
            ));
        }
        Ok(form)
    }

    /// True for spheres and disks, the forms without an axis.
    pub(super) fn is_round(self) -> bool {
        matches!(self, Form::Sphere | Form::Disk)
    }

    /// The radius of a body from a `radius` key (`given`, required but for ellipses, whose
    /// radius is their larger semi-axis).
    pub(super) fn radius(
        self,
        cx: &Ctx,
        given: &Option<S<f64>>,
        owner: &S<String>,
    ) -> Result<f32, SceneError> {
        match self {
            Form::Ellipse { a, b } => Ok(a.max(b)),
            Form::Box { half } => Ok(half.min_element()),
            Form::Ellipsoid { semi } => Ok(semi.min_element()),
            Form::Clump { clump } => Ok(clump.radius),
            Form::Polyhedron { hull } => Ok(hull.inner_radius),
            _ => positive(cx, need(cx, given, "radius", owner)?, "radius"),
        }
    }

    /// Radius of the smallest sphere about the centre that holds a body of radius `r`.
    pub(super) fn bounding_radius(self, r: f32) -> f32 {
        match self {
            Form::Capsule { half_length, .. } => r + half_length,
            Form::Cube => 3.0f32.sqrt() * r,
            Form::Box { half } => half.length(),
            Form::Ellipsoid { semi } => semi.max_element(),
            Form::Clump { clump } => clump.shape.bounding_radius(r),
            Form::Polyhedron { hull } => hull.outer_radius,
            _ => r,
        }
    }

    /// Mass of a body of radius `r` and density `rho` (kg/m³, kg/m² in planar mode): sphere
    /// 4/3 π r³, disk π r², capsule π r² 2L + 4/3 π r³ (planar 4 r L + π r²), ellipse π a b,
    /// cube (2 r)³, box 8 a b c, clump ρ V of its spheres' union.
    pub(super) fn mass(self, r: f32, rho: f32) -> f32 {
        match self {
            Form::Sphere => sphere_mass(r, rho),
            Form::Disk => disk_mass(r, rho),
            Form::Capsule {
                half_length,
                planar,
            } => capsule_mass(r, half_length, rho, planar),
            Form::Ellipse { a, b } => ellipse_mass(a, b, rho),
            Form::Cube => cube_mass(r, rho),
            Form::Box { half } => cuboid_mass(half, rho),
            Form::Ellipsoid { semi } => ellipsoid_mass(semi, rho),
            Form::Clump { clump } => clump.volume * rho,
            Form::Polyhedron { hull } => hull.volume * rho,
        }
    }

    /// A dynamic body of this form at `p` with radius `r`, mass `m` and the form's inertia (a
    /// clump's centre of mass at `p`, its orientation its principal frame in the template's
    /// axes).
    pub(super) fn body(self, p: Vec3, r: f32, m: f32) -> Body {
        match self {
            Form::Sphere => Body::sphere(p, r, m),
            Form::Disk => Body::disk(p, r, m),
            Form::Capsule {
                half_length,
                planar,
            } => Body::uniform_capsule(p, r, half_length, m, planar),
            Form::Ellipse { a, b } => Body::ellipse(p, a, b, m),
            Form::Cube => Body::cube(p, r, m),
            Form::Box { half } => Body::cuboid(p, half, m),
            Form::Ellipsoid { semi } => Body::ellipsoid(p, semi, m),
            Form::Clump { clump } => {
                Body::clump(p - clump.centre, Quat::IDENTITY, &clump, m / clump.volume)
            }
            Form::Polyhedron { hull } => Body::polyhedron(p, hull, m),
        }
    }
}

/// Offset of the random stream of `axis = "random"` from the generator's seed, so that the
/// axes do not repeat the positions' random numbers.
const AXIS_STREAM: u64 = 0xA715_A715_A715_A715;

/// How a generator turns its bodies: one orientation, or a random one per body.
pub(super) enum Axis {
    /// Every body turned by this rotation.
    Fixed(Quat),
    /// Axes uniform on the sphere (on the circle of the x–z plane in planar mode).
    Random { rng: SplitMix64, planar: bool },
}

impl Axis {
    /// Reads the generator's `axis`: `[x, y, z]` or `"random"` (from `seed`); none: the body's
    /// axes are the world's.
    pub(super) fn read(
        cx: &Ctx,
        g: &BodySpec,
        form: Form,
        planar: bool,
        seed: u64,
    ) -> Result<Axis, SceneError> {
        let Some(v) = &g.axis else {
            return Ok(Axis::Fixed(Quat::IDENTITY));
        };
        refuse_round(cx, v.span(), form)?;
        let numbers: Option<Vec<f64>> = match v.get_ref() {
            toml::Value::String(s) if s == "random" => {
                return Ok(Axis::Random {
                    rng: SplitMix64(seed ^ AXIS_STREAM),
                    planar,
                })
            }
            toml::Value::Array(xs) if xs.len() == 3 => xs
                .iter()
                .map(|x| x.as_float().or_else(|| x.as_integer().map(|i| i as f64)))
                .collect(),
            _ => None,
        };
        match numbers {
            Some(d) => Ok(Axis::Fixed(turn_towards(
                cx,
                v.span(),
                &[d[0], d[1], d[2]],
                planar,
            )?)),
            None => Err(cx.err(
                v.span(),
                "axis",
                format!("must be [x, y, z] or \"random\", got {}", v.get_ref()),
            )),
        }
    }

    /// The orientation of the next body, or `entry`'s own `axis` (a `list` entry's).
    pub(super) fn next(
        &mut self,
        cx: &Ctx,
        entry: &Option<S<V3>>,
        form: Form,
        planar: bool,
    ) -> Result<Quat, SceneError> {
        if let Some(v) = entry {
            refuse_round(cx, v.span(), form)?;
            return turn_towards(cx, v.span(), v.get_ref(), planar);
        }
        Ok(match self {
            Axis::Fixed(q) => *q,
            Axis::Random { rng, planar: true } => {
                Quat::from_rotation_y(std::f64::consts::TAU as f32 * rng.next_f64() as f32)
            }
            Axis::Random { rng, planar: false } => {
                let z = 2.0 * rng.next_f64() - 1.0;
                let phi = std::f64::consts::TAU * rng.next_f64();
                let s = (1.0 - z * z).sqrt();
                Quat::from_rotation_arc(
                    Vec3::X,
                    Vec3::new((s * phi.cos()) as f32, (s * phi.sin()) as f32, z as f32),
                )
            }
        })
    }
}

/// Fails for `axis` on spheres and disks, which have none.
fn refuse_round(cx: &Ctx, span: std::ops::Range<usize>, form: Form) -> Result<(), SceneError> {
    if form.is_round() {
        return Err(cx.err(span, "axis", "used only by capsules and ellipses"));
    }
    Ok(())
}

/// The rotation that turns the body's x axis onto the direction `d` (non-zero, finite; in the
/// x–z plane in planar mode, where it is a rotation about y).
fn turn_towards(
    cx: &Ctx,
    span: std::ops::Range<usize>,
    d: &V3,
    planar: bool,
) -> Result<Quat, SceneError> {
    let v = Vec3::new(d[0] as f32, d[1] as f32, d[2] as f32);
    if !(v.is_finite() && v.length() > 0.0) {
        return Err(cx.err(
            span,
            "axis",
            format!("must be finite and non-zero, got {d:?}"),
        ));
    }
    if planar {
        if v.y != 0.0 {
            return Err(cx.err(
                span,
                "axis",
                format!("must lie in the x–z plane (y = 0) in planar mode, got {d:?}"),
            ));
        }
        // R_y(θ) x̂ = (cos θ, 0, −sin θ).
        return Ok(Quat::from_rotation_y((-v.z).atan2(v.x)));
    }
    Ok(Quat::from_rotation_arc(Vec3::X, v.normalize()))
}

/// A box's `half_extents`: three positive, finite numbers (m).
fn half_extents(cx: &Ctx, v: &S<V3>) -> Result<Vec3, SceneError> {
    positive_vec3(cx, v, "half_extents")
}

/// Three positive, finite numbers (m) under `key` (a box's `half_extents`, an ellipsoid's
/// `semi_axes`).
fn positive_vec3(cx: &Ctx, v: &S<V3>, key: &str) -> Result<Vec3, SceneError> {
    let h = *v.get_ref();
    if h.iter()
        .all(|&x| x.is_finite() && x > 0.0 && x <= f32::MAX as f64)
    {
        let sizes = Vec3::new(h[0] as f32, h[1] as f32, h[2] as f32);
        // Refused here, before the start's overlap check meets such bodies.
        if aspect(sizes).is_nan() || aspect(sizes) > MAX_ASPECT {
            return Err(cx.err(
                v.span(),
                key,
                format!(
                    "the largest is {:.3e} × the smallest, beyond {MAX_ASPECT}: single precision cannot place the contacts of so long a needle or so thin a plate",
                    aspect(sizes)
                ),
            ));
        }
        Ok(sizes)
    } else {
        Err(cx.err(
            v.span(),
            key,
            format!("must be three positive, finite numbers, got {h:?}"),
        ))
    }
}
