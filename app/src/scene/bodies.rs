//! `[[bodies]]`: the generators (`single`, `list`, `lattice`, `random_fill`, `pour_lattice`,
//! `cannonball`), each making one named group of bodies. The generators' shape keys are read
//! by `form`; where the bodies may go by `placement`.

use super::form::{Axis, Form};
use super::materials::MaterialNames;
use super::origin::{Origin, Origins};
use super::placement::{random_fill, worst_overlap};
use super::spec::{BodySpec, S, V3};
use super::values::{count, finite3, need, non_negative, only, positive, sp, Ctx};
use super::walls::Shakers;
use super::{Group, SceneError};
use crate::pour::{PourScene, SplitMix64};
use glam::{Quat, Vec3};
use grains::body::{sphere_mass, Body};

/// Makes the bodies of every generator, in order, and names their groups; refuses a scene
/// without bodies and one whose bodies overlap by more than `tol` × the smaller radius.
pub(super) fn bodies(
    cx: &Ctx,
    generators: &[BodySpec],
    planar: bool,
    tol: f32,
    materials: &MaterialNames,
    shakers: &Shakers,
    origins: &mut Origins,
) -> Result<(Vec<Body>, Vec<Group>), SceneError> {
    let mut bodies: Vec<Body> = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    for (gi, g) in generators.iter().enumerate() {
        let start = bodies.len();
        generate(cx, g, planar, materials, shakers, &mut bodies)?;
        let name = match &g.name {
            Some(n) => {
                if groups.iter().any(|x| &x.name == n.get_ref()) {
                    return Err(cx.err(n.span(), "name", "two body groups share this name"));
                }
                n.get_ref().clone()
            }
            None => format!("bodies[{gi}]"),
        };
        groups.push(Group {
            name,
            range: start..bodies.len(),
        });
        origins.bodies.push((start..bodies.len(), origin(cx, g)));
    }
    if bodies.is_empty() {
        return Err(SceneError::Invalid {
            file: cx.file.to_path_buf(),
            line: 1,
            key: "bodies".into(),
            problem: "the scene has no bodies: add at least one [[bodies]] generator".into(),
        });
    }
    if let Some((i, j, overlap)) = worst_overlap(&bodies, tol) {
        let generator_of = |b: usize| {
            let gi = groups
                .iter()
                .position(|g| g.range.contains(&b))
                .unwrap_or(0);
            &generators[gi].generator
        };
        return Err(cx.err(
            generator_of(j).span(),
            "bodies",
            format!(
                "bodies {i} and {j} overlap by {overlap:.3e} m at the start (more than {tol} of the smaller radius); body {j} comes from this generator, body {i} from the one on line {}",
                cx.line(generator_of(i).span().start)
            ),
        ));
    }
    Ok((bodies, groups))
}

/// The keys of generator `g` that set each field of its bodies.
fn origin(cx: &Ctx, g: &BodySpec) -> Origin {
    Origin::new(cx, g.generator.span())
        .key(cx, "position", "position", &g.position)
        .key(cx, "radius", "radius", &g.radius)
        .key(cx, "mass", "mass", &g.mass)
        .key(cx, "mass", "density", &g.density)
        .key(cx, "inertia", "inertia", &g.inertia)
        .key(cx, "inertia", "density", &g.density)
        .key(cx, "orientation", "axis", &g.axis)
        .key(cx, "velocity", "velocity", &g.velocity)
        .key(
            cx,
            "angular_velocity",
            "angular_velocity",
            &g.angular_velocity,
        )
        .key(cx, "material", "material", &g.material)
        .key(cx, "prescribed", "shaker", &g.shaker)
        .key(cx, "prescribed", "kind", &g.kind)
        .key(cx, "shape", "shape", &g.shape)
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

/// Appends the bodies of generator `g` to `out` (which holds those of the generators before it).
fn generate(
    cx: &Ctx,
    g: &BodySpec,
    planar: bool,
    materials: &MaterialNames,
    shakers: &Shakers,
    out: &mut Vec<Body>,
) -> Result<(), SceneError> {
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
    fn allow<'a>(extra: &[&'a str]) -> Vec<&'a str> {
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
    let form = Form::read(cx, g, planar)?;
    let mut axis = Axis::read(cx, g, form, planar, seed(g))?;
    let mat = materials.id(cx, &g.material)?;
    let motion = shakers.motion(cx, &g.shaker)?;
    let velocity = match &g.velocity {
        Some(v) => finite3(cx, v, "velocity")?,
        None => Vec3::ZERO,
    };
    let omega = match &g.angular_velocity {
        Some(v) => finite3(cx, v, "angular_velocity")?,
        None => Vec3::ZERO,
    };
    let inertia = match &g.inertia {
        Some(v) => Some(positive(cx, v, "inertia")?),
        None => None,
    };
    let body_kind = g
        .kind
        .as_ref()
        .map(|k| k.get_ref().as_str())
        .unwrap_or("dynamic");
    let make = |p: Vec3, r: f32, m: f32, v: Vec3, w: Vec3, q: Quat| -> Result<Body, SceneError> {
        let b = form.body(p, r, m);
        let b = Body {
            inertia: inertia.unwrap_or(b.inertia),
            ..b
        }
        .with_orientation(q)
        .with_material(mat)
        .with_velocity(v)
        .with_angular_velocity(w);
        match body_kind {
            "dynamic" => Ok(b),
            "fixed" => Ok(b.fixed()),
            "kinematic" => match motion {
                Some(m) => Ok(b.kinematic(m)),
                None => Err(cx.err(
                    kind.span(),
                    "shaker",
                    "missing: a kinematic body needs a `shaker`",
                )),
            },
            other => Err(cx.err(
                g.kind.as_ref().map(|k| k.span()).unwrap_or(kind.span()),
                "kind",
                format!("must be \"dynamic\", \"fixed\" or \"kinematic\", got \"{other}\""),
            )),
        }
    };
    let radius = |key_owner: &S<String>| form.radius(cx, &g.radius, key_owner);
    let mut turn = |entry: &Option<S<V3>>| axis.next(cx, entry, form, planar);
    // A body of radius r at p with the generator's mass, velocities and axis.
    let mut each = |p: Vec3, r: f32| -> Result<Body, SceneError> {
        make(
            p,
            r,
            mass_of(cx, g, r, form)?,
            velocity,
            omega,
            turn(&None)?,
        )
    };
    match kind.get_ref().as_str() {
        "single" => {
            let r = radius(kind)?;
            let p = finite3(cx, need(cx, &g.position, "position", kind)?, "position")?;
            out.push(each(p, r)?);
        }
        "list" => {
            let list = g
                .list
                .as_ref()
                .ok_or_else(|| cx.err(kind.span(), "list", "missing: required for `list`"))?;
            for e in list {
                let r = match &e.radius {
                    Some(_) => form.radius(cx, &e.radius, kind)?,
                    None => radius(kind)?,
                };
                let p = finite3(cx, &e.position, "position")?;
                let v = match &e.velocity {
                    Some(v) => finite3(cx, v, "velocity")?,
                    None => velocity,
                };
                let w = match &e.angular_velocity {
                    Some(v) => finite3(cx, v, "angular_velocity")?,
                    None => omega,
                };
                out.push(make(p, r, mass_of(cx, g, r, form)?, v, w, turn(&e.axis)?)?);
            }
        }
        "pour_lattice" => {
            if form == Form::Disk {
                return Err(cx.err(kind.span(), "generator", "the pour lattice is 3-D"));
            }
            let n = count(cx, need(cx, &g.count, "count", kind)?, "count", 1)? as usize;
            let mass = sphere_mass(crate::pour::RADIUS, crate::pour::DENSITY);
            for c in PourScene::new(n).centres() {
                out.push(make(
                    c,
                    crate::pour::RADIUS,
                    mass,
                    velocity,
                    omega,
                    Quat::IDENTITY,
                )?);
            }
        }
        "lattice" => {
            let r = radius(kind)?;
            let o = finite3(cx, need(cx, &g.origin, "origin", kind)?, "origin")?;
            let d = positive(cx, need(cx, &g.spacing, "spacing", kind)?, "spacing")? as f64;
            let cs = need(cx, &g.counts, "counts", kind)?;
            let [nx, ny, nz] = *cs.get_ref();
            if nx < 1 || ny < 1 || nz < 1 || (planar && ny != 1) {
                return Err(cx.err(
                    cs.span(),
                    "counts",
                    format!(
                        "must be ≥ 1 each (y count 1 in planar mode), got {:?}",
                        cs.get_ref()
                    ),
                ));
            }
            let (nx, ny, nz) = (nx as usize, ny as usize, nz as usize);
            let limit = match &g.count {
                Some(c) => count(cx, c, "count", 1)? as usize,
                None => nx * ny * nz,
            };
            let jitter = match &g.jitter {
                Some(j) => non_negative(cx, j, "jitter")? as f64,
                None => 0.0,
            };
            let mut rng = SplitMix64(seed(g));
            let m = mass_of(cx, g, r, form)?;
            for idx in 0..limit.min(nx * ny * nz) {
                let (i, j, k) = (idx % nx, (idx / nx) % ny, idx / (nx * ny));
                let mut jx = 0.0;
                let mut jy = 0.0;
                if jitter > 0.0 {
                    jx = jitter * r as f64 * (2.0 * rng.next_f64() - 1.0);
                    jy = jitter * r as f64 * (2.0 * rng.next_f64() - 1.0);
                }
                let p = Vec3::new(
                    (o.x as f64 + d * i as f64 + jx) as f32,
                    if planar {
                        0.0
                    } else {
                        (o.y as f64 + d * j as f64 + jy) as f32
                    },
                    (o.z as f64 + d * k as f64) as f32,
                );
                out.push(make(p, r, m, velocity, omega, turn(&None)?)?);
            }
        }
        "random_fill" => {
            let r0 = radius(kind)?;
            let r1 = match &g.radius_max {
                Some(v) => {
                    let r1 = positive(cx, v, "radius_max")?;
                    if r1 < r0 {
                        return Err(cx.err(v.span(), "radius_max", "must be ≥ radius"));
                    }
                    r1
                }
                None => r0,
            };
            let lo = finite3(
                cx,
                need(cx, &g.region_min, "region_min", kind)?,
                "region_min",
            )?;
            let hi_s = need(cx, &g.region_max, "region_max", kind)?;
            let hi = finite3(cx, hi_s, "region_max")?;
            if hi.x <= lo.x || hi.z <= lo.z || (!planar && hi.y <= lo.y) {
                return Err(cx.err(
                    hi_s.span(),
                    "region_max",
                    "must exceed region_min in every axis",
                ));
            }
            let target = match (&g.count, &g.packing_fraction) {
                (Some(c), None) => count(cx, c, "count", 1)? as usize,
                (None, Some(f)) if !form.is_round() => {
                    return Err(cx.err(
                        f.span(),
                        "packing_fraction",
                        "used only by spheres and disks: give `count`",
                    ))
                }
                (None, Some(f)) => {
                    let phi = positive(cx, f, "packing_fraction")? as f64;
                    if phi > 0.6 {
                        return Err(cx.err(
                            f.span(),
                            "packing_fraction",
                            format!("at most 0.6 can be reached by random placement, got {phi}"),
                        ));
                    }
                    let rm = 0.5 * (r0 + r1) as f64;
                    let e = (hi - lo).as_dvec3();
                    if planar {
                        (phi * e.x * e.z / (std::f64::consts::PI * rm * rm)).round() as usize
                    } else {
                        (phi * e.x * e.y * e.z / (4.0 / 3.0 * std::f64::consts::PI * rm.powi(3)))
                            .round() as usize
                    }
                }
                _ => {
                    return Err(cx.err(
                        kind.span(),
                        "count",
                        "give exactly one of `count` and `packing_fraction`",
                    ))
                }
            };
            let mut rng = SplitMix64(seed(g));
            let bound = |r: f32| form.bounding_radius(r);
            let placed = random_fill(&mut rng, lo, hi, (r0, r1), bound, target, planar, out);
            if placed.len() < target {
                return Err(cx.err(
                    kind.span(),
                    "count",
                    format!("only {} of {target} bodies fit in the region without overlap; enlarge the region or ask for fewer", placed.len()),
                ));
            }
            for (p, r) in placed {
                out.push(each(p, r)?);
            }
        }
        "cannonball" => {
            if !form.is_round() {
                return Err(cx.err(
                    g.shape.as_ref().map_or(kind.span(), |s| s.span()),
                    "shape",
                    "`cannonball` stacks spheres or disks",
                ));
            }
            let r = radius(kind)?;
            let rows = count(cx, need(cx, &g.rows, "rows", kind)?, "rows", 1)? as usize;
            let cxo = g
                .centre_x
                .as_ref()
                .map(|c| *c.get_ref() as f32)
                .unwrap_or(0.0);
            let m = mass_of(cx, g, r, form)?;
            let x0 = cxo - (rows as f32 - 1.0) * r;
            for row in 0..rows {
                for k in 0..rows - row {
                    let x = x0 + 2.0 * r * k as f32 + r * row as f32;
                    let z = r + row as f32 * 2.0 * r * (3.0f32).sqrt() / 2.0;
                    out.push(make(
                        Vec3::new(x, 0.0, z),
                        r,
                        m,
                        velocity,
                        omega,
                        Quat::IDENTITY,
                    )?);
                }
            }
        }
        _ => unreachable!("the generator's name was checked with its keys"),
    }
    Ok(())
}

/// The generator's `seed` (1 if none).
fn seed(g: &BodySpec) -> u64 {
    g.seed.as_ref().map(|s| *s.get_ref() as u64).unwrap_or(1)
}
