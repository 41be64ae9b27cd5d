//! `[[insert]]` and `[[sink]]`: grains fed into the world and taken out of it while the run
//! goes (the engine's `Insertion` and `Sink`), and the sinks' names that the `grain_count`,
//! `outflow_mass` and `outflow_rate` observables refer to. An insertion of shaped grains
//! (`shape` other than `"sphere"`) reads the shape keys of a `[[bodies]]` generator
//! (`super::form`) and feeds copies of the one grain they describe.

use super::clumps::ClumpNames;
use super::form::{Form, ShapeKeys};
use super::materials::MaterialNames;
use super::origin::{Origin, Origins};
use super::polyhedra::group_hull;
use super::spec::{InsertSpec, SinkSpec, S, V3};
use super::values::{count, finite3, need, number, only, positive, sp, Ctx};
use super::SceneError;
use glam::Vec3;
use grains::{Body, Insertion, Rate, Region, Sink, SinkShape, SizeDistribution, WorldBuilder};

/// Reads the `[[insert]]` and `[[sink]]` tables into `world`, noting where each was written;
/// returns the sinks' names in order.
pub(super) fn lifecycle(
    cx: &Ctx,
    (inserts, sinks): (&[InsertSpec], &[SinkSpec]),
    (materials, clumps): (&MaterialNames, &ClumpNames),
    world: &mut WorldBuilder,
    origins: &mut Origins,
) -> Result<Vec<String>, SceneError> {
    for ins in inserts {
        let (insertion, origin) = insertion(cx, ins, (materials, clumps), world)?;
        world.insert(insertion);
        origins.inserts.push(origin);
    }
    let mut names: Vec<String> = Vec::new();
    for s in sinks {
        let name = s.name.get_ref();
        if names.contains(name) {
            return Err(cx.err(
                s.name.span(),
                "name",
                format!("a sink named \"{name}\" exists already"),
            ));
        }
        names.push(name.clone());
        let given = [
            ("min", sp(&s.min)),
            ("max", sp(&s.max)),
            ("point", sp(&s.point)),
            ("normal", sp(&s.normal)),
        ];
        let shape = match s.shape.get_ref().as_str() {
            "box" => {
                only(cx, &s.shape, &given, &["min", "max"])?;
                SinkShape::Box {
                    min: finite3(cx, need(cx, &s.min, "min", &s.shape)?, "min")?,
                    max: finite3(cx, need(cx, &s.max, "max", &s.shape)?, "max")?,
                }
            }
            "half_space" => {
                only(cx, &s.shape, &given, &["point", "normal"])?;
                SinkShape::HalfSpace {
                    point: finite3(cx, need(cx, &s.point, "point", &s.shape)?, "point")?,
                    normal: finite3(cx, need(cx, &s.normal, "normal", &s.shape)?, "normal")?,
                }
            }
            other => {
                return Err(cx.err(
                    s.shape.span(),
                    "shape",
                    format!("sink shape must be \"box\" or \"half_space\", got \"{other}\""),
                ))
            }
        };
        world.sink(Sink::new(name.clone(), shape));
        let key = |o: Origin, k: &'static str, v: &Option<S<V3>>| o.key(cx, "shape", k, v);
        let origin = Origin::new(cx, s.name.span());
        let origin = key(
            key(
                key(key(origin, "min", &s.min), "max", &s.max),
                "point",
                &s.point,
            ),
            "normal",
            &s.normal,
        );
        origins.sinks.push(origin);
    }
    Ok(names)
}

/// One `[[insert]]` table and where its keys were written (a polyhedron's hull registered on
/// `world`).
fn insertion(
    cx: &Ctx,
    ins: &InsertSpec,
    (materials, clumps): (&MaterialNames, &ClumpNames),
    world: &mut WorldBuilder,
) -> Result<(Insertion, Origin), SceneError> {
    let given = [
        ("min", sp(&ins.min)),
        ("max", sp(&ins.max)),
        ("centre", sp(&ins.centre)),
        ("region_radius", sp(&ins.region_radius)),
        ("half_height", sp(&ins.half_height)),
    ];
    let kind = &ins.region;
    let region = match kind.get_ref().as_str() {
        "box" => {
            only(cx, kind, &given, &["min", "max"])?;
            Region::Box {
                min: finite3(cx, need(cx, &ins.min, "min", kind)?, "min")?,
                max: finite3(cx, need(cx, &ins.max, "max", kind)?, "max")?,
            }
        }
        "cylinder" => {
            only(
                cx,
                kind,
                &given,
                &["centre", "region_radius", "half_height"],
            )?;
            Region::Cylinder {
                centre: finite3(cx, need(cx, &ins.centre, "centre", kind)?, "centre")?,
                radius: positive(
                    cx,
                    need(cx, &ins.region_radius, "region_radius", kind)?,
                    "region_radius",
                )?,
                half_height: positive(
                    cx,
                    need(cx, &ins.half_height, "half_height", kind)?,
                    "half_height",
                )?,
            }
        }
        "disk" => {
            only(cx, kind, &given, &["centre", "region_radius"])?;
            Region::Disk {
                centre: finite3(cx, need(cx, &ins.centre, "centre", kind)?, "centre")?,
                radius: positive(
                    cx,
                    need(cx, &ins.region_radius, "region_radius", kind)?,
                    "region_radius",
                )?,
            }
        }
        other => {
            return Err(cx.err(
                kind.span(),
                "region",
                format!(
                    "insertion region must be \"box\", \"cylinder\" or \"disk\", got \"{other}\""
                ),
            ))
        }
    };
    let rate = match (&ins.count_per_second, &ins.kg_per_second) {
        (Some(n), None) => Rate::CountPerSecond(rate(cx, n, "count_per_second")?),
        (None, Some(kg)) => Rate::KgPerSecond(rate(cx, kg, "kg_per_second")?),
        (Some(_), Some(kg)) => {
            return Err(cx.err(
                kg.span(),
                "kg_per_second",
                "give either count_per_second or kg_per_second, not both",
            ))
        }
        (None, None) => {
            return Err(cx.err(
                kind.span(),
                "count_per_second",
                "missing: an insertion needs count_per_second or kg_per_second",
            ))
        }
    };
    let density = positive(cx, &ins.density, "density")?;
    let mut insertion = match ins.shape.as_ref().filter(|s| s.get_ref() != "sphere") {
        None => Insertion::new(region, rate, sizes(cx, ins)?, density),
        Some(shape) => {
            Insertion::shaped(region, rate, grain(cx, ins, shape, density, clumps, world)?)
        }
    };
    insertion.material = materials.id(cx, &ins.material)?;
    if let Some(v) = &ins.velocity {
        insertion.velocity = finite3(cx, v, "velocity")?;
    }
    let time = |v: &S<f64>, key: &str| {
        let t = *v.get_ref();
        if t.is_finite() && t >= 0.0 {
            Ok(t)
        } else {
            Err(cx.err(v.span(), key, format!("must be finite and ≥ 0, got {t}")))
        }
    };
    if let Some(s) = &ins.start {
        insertion.start = time(s, "start")?;
    }
    if let Some(s) = &ins.stop {
        insertion.stop = time(s, "stop")?;
        if insertion.stop <= insertion.start {
            return Err(cx.err(
                s.span(),
                "stop",
                format!(
                    "must be after start ({} s), got {} s",
                    insertion.start, insertion.stop
                ),
            ));
        }
    }
    if let Some(s) = &ins.seed {
        insertion.seed = count(cx, s, "seed", 0)?;
    }
    if let Some(k) = &ins.batch_steps {
        insertion.batch_steps = Some(count(cx, k, "batch_steps", 1)?);
    }
    let origin = Origin::new(cx, kind.span())
        .key(cx, "region", "region", &Some(kind.clone()))
        .key(cx, "rate", "count_per_second", &ins.count_per_second)
        .key(cx, "rate", "kg_per_second", &ins.kg_per_second)
        .key(cx, "radius", "radius", &ins.radius)
        .key(cx, "shape", "shape", &ins.shape)
        .key(cx, "min", "min_radius", &ins.min_radius)
        .key(cx, "velocity", "velocity", &ins.velocity)
        .key(cx, "batch_steps", "batch_steps", &ins.batch_steps)
        .key(cx, "material", "material", &ins.material);
    Ok((insertion, origin))
}

/// A rate: positive and finite.
fn rate(cx: &Ctx, v: &S<f64>, key: &str) -> Result<f64, SceneError> {
    let x = *v.get_ref();
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(cx.err(
            v.span(),
            key,
            format!("must be positive and finite, got {x}"),
        ))
    }
}

/// The grain a shaped insertion copies: the form its shape keys describe (as a `[[bodies]]`
/// generator reads them, `radius` one number), of density `density`; `min_radius` and
/// `max_radius` are refused (its size is fixed). A polyhedron's hull is registered on `world`.
fn grain(
    cx: &Ctx,
    ins: &InsertSpec,
    shape: &S<String>,
    density: f32,
    clumps: &ClumpNames,
    world: &mut WorldBuilder,
) -> Result<Body, SceneError> {
    for (key, v) in [
        ("min_radius", &ins.min_radius),
        ("max_radius", &ins.max_radius),
    ] {
        if let Some(v) = v {
            let why = "used only by sphere feeds (a shaped grain has one size)";
            return Err(cx.err(v.span(), key, why));
        }
    }
    let radius = match &ins.radius {
        Some(r) => match r.get_ref() {
            toml::Value::Float(x) => Some(S::new(r.span(), *x)),
            toml::Value::Integer(x) => Some(S::new(r.span(), *x as f64)),
            _ => {
                let why = "must be one number for shaped grains (a capsule's or a cube's)";
                return Err(cx.err(r.span(), "radius", why));
            }
        },
        None => None,
    };
    let keys = ShapeKeys {
        shape: &ins.shape,
        half_length: &ins.half_length,
        a: &None,
        b: &None,
        half_extents: &ins.half_extents,
        semi_axes: &ins.semi_axes,
        clump: &ins.clump,
        vertices: &ins.vertices,
        radius: &radius,
        radius_max: &None,
        inertia: &None,
    };
    let mut hulls = world.hulls().to_vec();
    let hull = group_hull(cx, &keys, &mut hulls)?;
    if hull.is_some() {
        world.hull(&hulls[hulls.len() - 1]);
    }
    let form = Form::read(cx, &keys, world.settings().planar, (clumps, hull))?;
    let r = form.radius(cx, &radius, shape)?;
    Ok(form.body(Vec3::ZERO, r, form.mass(r, density)))
}

/// The radius law of `radius` (required) with its truncation `min_radius`, `max_radius`.
fn sizes(cx: &Ctx, ins: &InsertSpec) -> Result<SizeDistribution, SceneError> {
    let Some(radius) = &ins.radius else {
        return Err(cx.err(
            ins.region.span(),
            "radius",
            "missing: a sphere feed needs `radius` (a number or a law)",
        ));
    };
    let span = radius.span();
    let bad = |problem: String| cx.err(span.clone(), "radius", problem);
    let pair = |v: &toml::Value, what: &str| -> Result<(f32, f32), SceneError> {
        let nums: Option<Vec<f64>> = v.as_array().map(|a| {
            a.iter()
                .filter_map(|x| x.as_float().or_else(|| x.as_integer().map(|i| i as f64)))
                .collect()
        });
        match nums {
            Some(n) if n.len() == 2 && v.as_array().is_some_and(|a| a.len() == 2) => {
                Ok((n[0] as f32, n[1] as f32))
            }
            _ => Err(bad(format!("`{what}` takes two numbers [a, b]"))),
        }
    };
    let dist = match radius.get_ref() {
        toml::Value::Float(r) => SizeDistribution::fixed(*r as f32),
        toml::Value::Integer(r) => SizeDistribution::fixed(*r as f32),
        toml::Value::Table(t) if t.len() == 1 => {
            let (law, v) = t.iter().next().expect("one entry");
            match law.as_str() {
                "uniform" => {
                    let (a, b) = pair(v, "uniform")?;
                    SizeDistribution::uniform(a, b)
                }
                "normal" => {
                    let (m, s) = pair(v, "normal")?;
                    SizeDistribution::normal(m, s)
                }
                "lognormal" => {
                    let (m, s) = pair(v, "lognormal")?;
                    SizeDistribution::lognormal(m, s)
                }
                "table" => {
                    let rows = v.as_array().ok_or_else(|| {
                        bad("`table` takes a list of [radius, fraction] pairs".into())
                    })?;
                    let entries = rows
                        .iter()
                        .map(|row| pair(row, "table"))
                        .collect::<Result<Vec<_>, _>>()?;
                    SizeDistribution::table(entries)
                }
                other => {
                    return Err(bad(format!(
                        "unknown law \"{other}\" (uniform, normal, lognormal or table)"
                    )))
                }
            }
        }
        _ => {
            return Err(bad(
                "must be a number or one of { uniform = [a, b] }, { normal = [mean, sd] }, { lognormal = [median, sigma] }, { table = [[r, fraction], …] }".into(),
            ))
        }
    };
    let min = match &ins.min_radius {
        Some(v) => number(cx, v, "min_radius")?,
        None => dist.min,
    };
    let max = match &ins.max_radius {
        Some(v) => number(cx, v, "max_radius")?,
        None => dist.max,
    };
    Ok(SizeDistribution::truncated(dist.law, min, max))
}

/// The index of the sink `name` among `sinks`, or an error at `v`.
pub(super) fn sink_index(cx: &Ctx, sinks: &[String], v: &S<String>) -> Result<usize, SceneError> {
    sinks.iter().position(|s| s == v.get_ref()).ok_or_else(|| {
        cx.err(
            v.span(),
            "sink",
            format!("no sink named \"{}\"", v.get_ref()),
        )
    })
}
