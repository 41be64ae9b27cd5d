//! `[[shakers]]` (named prescribed motions shared by walls and kinematic bodies) and
//! `[[containers]]` (the walls: boxes, floors, planes, rectangles, cylinders, and the cones,
//! disks, caps and active windows of `round_walls.rs`).

use super::loads::NamedWalls;
use super::materials::MaterialNames;
use super::origin::{Origin, Origins};
use super::spec::{ContainerSpec, ShakerSpec, S};
use super::values::{count, finite3, need, non_negative, number_or, only, positive, sp, Ctx};
use super::{round_walls, SceneError, MAX_BODIES};
use crate::bounds::Bounds;
use crate::pour::PourScene;
use glam::Vec3;
use grains::geometry::{BoxContainer, WallDesc};
use grains::motion::Prescribed;
use grains::servo::Servo;
use grains::WorldBuilder;

/// The shakers by name.
pub(super) struct Shakers(Vec<(String, Prescribed)>);

impl Shakers {
    /// The motion of the shaker called `name`; none given: no motion.
    pub(super) fn motion(
        &self,
        cx: &Ctx,
        name: &Option<S<String>>,
    ) -> Result<Option<Prescribed>, SceneError> {
        match name {
            None => Ok(None),
            Some(n) => self
                .0
                .iter()
                .find(|(s, _)| s == n.get_ref())
                .map(|(_, p)| Some(*p))
                .ok_or_else(|| {
                    cx.err(
                        n.span(),
                        "shaker",
                        format!("no shaker named \"{}\"", n.get_ref()),
                    )
                }),
        }
    }
}

/// Reads the shakers: `kind = "shake"` (a sine along an axis) or `"constant"` (velocities).
pub(super) fn shakers(cx: &Ctx, shakers: &[ShakerSpec]) -> Result<Shakers, SceneError> {
    let mut named = Vec::new();
    for sh in shakers {
        named.push((sh.name.get_ref().clone(), shaker(cx, sh)?));
    }
    Ok(Shakers(named))
}

fn shaker(cx: &Ctx, sh: &ShakerSpec) -> Result<Prescribed, SceneError> {
    let given = [
        ("axis", sp(&sh.axis)),
        ("amplitude", sp(&sh.amplitude)),
        ("frequency", sp(&sh.frequency)),
        ("phase", sp(&sh.phase)),
        ("linear", sp(&sh.linear)),
        ("angular", sp(&sh.angular)),
    ];
    match sh.kind.get_ref().as_str() {
        "shake" => {
            only(
                cx,
                &sh.kind,
                &given,
                &["axis", "amplitude", "frequency", "phase"],
            )?;
            let axis = match &sh.axis {
                Some(a) => {
                    let v = finite3(cx, a, "axis")?;
                    if v.length() == 0.0 {
                        return Err(cx.err(a.span(), "axis", "must not be zero"));
                    }
                    v.normalize()
                }
                None => Vec3::Z,
            };
            Ok(Prescribed::Shake {
                axis,
                amplitude: non_negative(
                    cx,
                    need(cx, &sh.amplitude, "amplitude", &sh.kind)?,
                    "amplitude",
                )?,
                frequency: positive(
                    cx,
                    need(cx, &sh.frequency, "frequency", &sh.kind)?,
                    "frequency",
                )?,
                phase: number_or(cx, &sh.phase, "phase", 0.0)?,
            })
        }
        "constant" => {
            only(cx, &sh.kind, &given, &["linear", "angular"])?;
            Ok(Prescribed::Constant {
                linear: match &sh.linear {
                    Some(v) => finite3(cx, v, "linear")?,
                    None => Vec3::ZERO,
                },
                angular: match &sh.angular {
                    Some(v) => finite3(cx, v, "angular")?,
                    None => Vec3::ZERO,
                },
            })
        }
        other => Err(cx.err(
            sh.kind.span(),
            "kind",
            format!("shaker kind must be \"shake\" or \"constant\", got \"{other}\""),
        )),
    }
}

/// Fails when `name` is empty or names a container or mesh of `named` already.
pub(super) fn check_unique_name(
    cx: &Ctx,
    name: &S<String>,
    named: &[NamedWalls],
) -> Result<(), SceneError> {
    if name.get_ref().is_empty() {
        return Err(cx.err(name.span(), "name", "must not be empty"));
    }
    if named.iter().any(|w| &w.name == name.get_ref()) {
        return Err(cx.err(
            name.span(),
            "name",
            format!("another container or mesh is named \"{}\"", name.get_ref()),
        ));
    }
    Ok(())
}

/// Adds the containers' walls to `world`; returns the box containers in order (the first is
/// the grains' bounds), and the walls of each container with a `name`.
pub(super) fn containers(
    cx: &Ctx,
    containers: &[ContainerSpec],
    materials: &MaterialNames,
    shakers: &Shakers,
    world: &mut WorldBuilder,
    origins: &mut Origins,
) -> Result<(Vec<Bounds>, Vec<NamedWalls>), SceneError> {
    let planar = world.settings().planar;
    let mut boxes = Vec::new();
    let mut named: Vec<NamedWalls> = Vec::new();
    for c in containers {
        let first = world.walls().len();
        let bx = container(cx, c, planar, materials, shakers, world)?;
        if let Some(n) = &c.name {
            check_unique_name(cx, n, &named)?;
            named.push(NamedWalls {
                name: n.get_ref().clone(),
                walls: first..world.walls().len(),
                is_box: bx.is_some(),
                meshes: 0..0,
            });
        }
        if let Some(bx) = bx {
            boxes.push(Bounds {
                floor_centre: bx.floor_centre,
                half_x: 0.5 * bx.width_x,
                half_y: 0.5 * bx.width_y,
                height: bx.height,
                motion: bx.motion,
            });
        }
        let origin = Origin::new(cx, c.kind.span())
            .key(cx, "origin", "floor_centre", &c.floor_centre)
            .key(cx, "origin", "z", &c.z)
            .key(cx, "origin", "point", &c.point)
            .key(cx, "origin", "centre", &c.centre)
            .key(cx, "normal", "normal", &c.normal)
            .key(cx, "u", "u", &c.u)
            .key(cx, "half_u", "half_u", &c.half_u)
            .key(cx, "half_v", "half_v", &c.half_v)
            .key(cx, "normal", "axis", &c.axis)
            .key(cx, "radius", "radius", &c.radius)
            .key(cx, "half_length", "length", &c.length)
            .key(cx, "angular_speed", "angular_velocity", &c.angular_velocity)
            .key(cx, "material", "material", &c.material)
            .key(cx, "motion", "shaker", &c.shaker)
            .key(cx, "servo", "servo", &c.servo)
            .key(cx, "small_radius", "small_radius", &c.small_radius)
            .key(cx, "large_radius", "large_radius", &c.large_radius)
            .key(cx, "outer", "radius", &c.radius)
            .key(cx, "inner", "inner_radius", &c.inner_radius)
            .key(cx, "inner", "cap_hole", &c.cap_hole)
            .key(cx, "active", "active_until", &c.active_until)
            .key_at(cx, "shape", "kind", Some(c.kind.span()));
        origins.walls.push((first..world.walls().len(), origin));
    }
    Ok((boxes, named))
}

/// Adds one container's walls to `world`; returns its box, if it is one.
fn container(
    cx: &Ctx,
    c: &ContainerSpec,
    planar: bool,
    materials: &MaterialNames,
    shakers: &Shakers,
    world: &mut WorldBuilder,
) -> Result<Option<BoxContainer>, SceneError> {
    let given = [
        ("floor_centre", sp(&c.floor_centre)),
        ("width_x", sp(&c.width_x)),
        ("width_y", sp(&c.width_y)),
        ("height", sp(&c.height)),
        ("n", sp(&c.n)),
        ("z", sp(&c.z)),
        ("point", sp(&c.point)),
        ("normal", sp(&c.normal)),
        ("centre", sp(&c.centre)),
        ("u", sp(&c.u)),
        ("half_u", sp(&c.half_u)),
        ("half_v", sp(&c.half_v)),
        ("axis", sp(&c.axis)),
        ("radius", sp(&c.radius)),
        ("length", sp(&c.length)),
        ("inside", sp(&c.inside)),
        ("angular_velocity", sp(&c.angular_velocity)),
        ("small_radius", sp(&c.small_radius)),
        ("large_radius", sp(&c.large_radius)),
        ("inner_radius", sp(&c.inner_radius)),
        ("caps", sp(&c.caps)),
        ("cap_hole", sp(&c.cap_hole)),
        ("servo", sp(&c.servo)),
    ];
    let material = materials.id(cx, &c.material)?;
    let motion = shakers.motion(cx, &c.shaker)?;
    if let (Some(Prescribed::Constant { angular, .. }), Some(s)) = (motion, &c.shaker) {
        if angular != Vec3::ZERO {
            return Err(cx.err(
                s.span(),
                "shaker",
                format!(
                    "shaker \"{}\" turns (angular = {angular}), but walls only translate: give a container a shaker without `angular`",
                    s.get_ref()
                ),
            ));
        }
    }
    let (from, until) = round_walls::window(cx, c)?;
    let servo = servo(cx, c, motion.is_some())?;
    let with = |w: WallDesc| {
        WallDesc {
            material,
            motion,
            servo,
            ..w
        }
        .active_between(from, until)
    };
    let wall = match c.kind.get_ref().as_str() {
        "box" | "pour_box" => {
            let bx = if c.kind.get_ref() == "box" {
                only(
                    cx,
                    &c.kind,
                    &given,
                    &["floor_centre", "width_x", "width_y", "height"],
                )?;
                BoxContainer {
                    floor_centre: box_floor_centre(cx, c, planar)?,
                    width_x: positive(cx, need(cx, &c.width_x, "width_x", &c.kind)?, "width_x")?,
                    width_y: box_width_y(cx, c, planar)?,
                    height: positive(cx, need(cx, &c.height, "height", &c.kind)?, "height")?,
                    material,
                    motion,
                }
            } else {
                only(cx, &c.kind, &given, &["n"])?;
                let n_s = need(cx, &c.n, "n", &c.kind)?;
                let n = count(cx, n_s, "n", 1)? as usize;
                if n > MAX_BODIES {
                    return Err(cx.err(
                        n_s.span(),
                        "n",
                        format!("must be at most {MAX_BODIES} (the most bodies a scene may have), got {n}"),
                    ));
                }
                let ps = PourScene::new(n);
                BoxContainer {
                    floor_centre: Vec3::ZERO,
                    width_x: ps.width as f32,
                    width_y: if planar {
                        f32::INFINITY
                    } else {
                        ps.width as f32
                    },
                    height: ps.wall_height as f32,
                    material,
                    motion,
                }
            };
            // In the x–z plane the ±y walls would only touch disks at y = 0 edge-on; the floor
            // and the x walls span every y.
            let walls = if planar { 3 } else { 5 };
            for w in &bx.walls()[..walls] {
                world.wall(w.active_between(from, until));
            }
            return Ok(Some(bx));
        }
        "floor" => {
            only(cx, &c.kind, &given, &["z", "servo"])?;
            let z = number_or(cx, &c.z, "z", 0.0)?;
            WallDesc::plane(Vec3::new(0.0, 0.0, z), Vec3::Z)
        }
        "plane" => {
            only(cx, &c.kind, &given, &["point", "normal", "servo"])?;
            let p = finite3(cx, need(cx, &c.point, "point", &c.kind)?, "point")?;
            WallDesc::plane(p, unit_normal(cx, c)?)
        }
        "rectangle" => {
            only(
                cx,
                &c.kind,
                &given,
                &["centre", "normal", "u", "half_u", "half_v"],
            )?;
            let p = finite3(cx, need(cx, &c.centre, "centre", &c.kind)?, "centre")?;
            let n = unit_normal(cx, c)?;
            let u = finite3(cx, need(cx, &c.u, "u", &c.kind)?, "u")?;
            let hu = positive(cx, need(cx, &c.half_u, "half_u", &c.kind)?, "half_u")?;
            let hv = positive(cx, need(cx, &c.half_v, "half_v", &c.kind)?, "half_v")?;
            WallDesc::rectangle(p, n, u, hu, hv)
        }
        "cylinder" => {
            only(
                cx,
                &c.kind,
                &given,
                &[
                    "centre",
                    "axis",
                    "radius",
                    "length",
                    "inside",
                    "angular_velocity",
                    "caps",
                    "cap_hole",
                ],
            )?;
            let p = finite3(cx, need(cx, &c.centre, "centre", &c.kind)?, "centre")?;
            let axis_s = need(cx, &c.axis, "axis", &c.kind)?;
            let axis = finite3(cx, axis_s, "axis")?;
            if axis.length() == 0.0 {
                return Err(cx.err(axis_s.span(), "axis", "must not be zero"));
            }
            let radius = positive(cx, need(cx, &c.radius, "radius", &c.kind)?, "radius")?;
            let length = positive(cx, need(cx, &c.length, "length", &c.kind)?, "length")?;
            let inside = c.inside.as_ref().is_none_or(|b| *b.get_ref());
            let omega = number_or(cx, &c.angular_velocity, "angular_velocity", 0.0)?;
            WallDesc::cylinder(p, axis.normalize(), radius, 0.5 * length, inside).rotating(omega)
        }
        "cone" => {
            only(
                cx,
                &c.kind,
                &given,
                &[
                    "centre",
                    "axis",
                    "small_radius",
                    "large_radius",
                    "length",
                    "inside",
                    "angular_velocity",
                    "caps",
                    "cap_hole",
                ],
            )?;
            round_walls::cone(cx, c)?
        }
        "disk" | "annulus" => {
            only(
                cx,
                &c.kind,
                &given,
                &["centre", "normal", "radius", "inner_radius"],
            )?;
            round_walls::disk(cx, c)?
        }
        other => {
            return Err(cx.err(
                c.kind.span(),
                "kind",
                format!(
                    "container kind must be \"box\", \"pour_box\", \"floor\", \"plane\", \"rectangle\", \"cylinder\", \"cone\", \"disk\" or \"annulus\", got \"{other}\""
                ),
            ))
        }
    };
    let wall = with(wall);
    world.wall(wall);
    if wall.is_curved() {
        for cap in round_walls::caps(cx, c, &wall)? {
            world.wall(cap);
        }
    }
    Ok(None)
}

/// The container's `normal`, made a unit vector (a zero one has no direction).
fn unit_normal(cx: &Ctx, c: &ContainerSpec) -> Result<Vec3, SceneError> {
    let nn = need(cx, &c.normal, "normal", &c.kind)?;
    let n = finite3(cx, nn, "normal")?;
    if n.length() == 0.0 {
        return Err(cx.err(nn.span(), "normal", "must not be zero"));
    }
    Ok(n.normalize())
}

/// A box's `floor_centre` (default the origin). In planar mode the box spans every y, so a
/// y other than 0 would have no effect and is refused.
fn box_floor_centre(cx: &Ctx, c: &ContainerSpec, planar: bool) -> Result<Vec3, SceneError> {
    let Some(v) = &c.floor_centre else {
        return Ok(Vec3::ZERO);
    };
    let p = finite3(cx, v, "floor_centre")?;
    if planar && p.y != 0.0 {
        return Err(cx.err(
            v.span(),
            "floor_centre",
            format!(
                "y = {} has no effect in planar mode (the box spans every y): give 0",
                p.y
            ),
        ));
    }
    Ok(p)
}

/// A box's `width_y`: required in 3-D; in planar mode it would have no effect (the floor and
/// the x walls span every y, and there are no y walls), so it is refused and the width is
/// infinite.
fn box_width_y(cx: &Ctx, c: &ContainerSpec, planar: bool) -> Result<f32, SceneError> {
    match (&c.width_y, planar) {
        (Some(w), true) => Err(cx.err(
            w.span(),
            "width_y",
            "has no effect in planar mode (the box has no y walls and spans every y): remove it",
        )),
        (None, true) => Ok(f32::INFINITY),
        (w, false) => positive(cx, need(cx, w, "width_y", &c.kind)?, "width_y"),
    }
}

/// The container's `servo` (a plane's or a floor's; `only` refuses it on the other kinds),
/// its values checked here so that a bad one names its own key and line; refused beside a
/// `shaker` (`moving` says whether the container has one).
fn servo(cx: &Ctx, c: &ContainerSpec, moving: bool) -> Result<Option<Servo>, SceneError> {
    let Some(spec) = &c.servo else {
        return Ok(None);
    };
    if moving {
        return Err(cx.err(
            spec.span(),
            "servo",
            "cannot be combined with `shaker`: the servo sets the wall's motion",
        ));
    }
    let s = spec.get_ref();
    let force = s.force.get_ref();
    if !(force.is_finite() && *force >= 0.0) {
        return Err(cx.err(
            s.force.span(),
            "servo.force",
            format!("must be finite and not negative (the grains can only push), got {force}"),
        ));
    }
    let positive = |v: &S<f64>, key: &str| {
        let x = *v.get_ref();
        match x.is_finite() && x > 0.0 {
            true => Ok(x),
            false => Err(cx.err(
                v.span(),
                key,
                format!("must be finite and positive, got {x}"),
            )),
        }
    };
    let gain = positive(&s.gain, "servo.gain")?;
    let max_speed = positive(&s.max_speed, "servo.max_speed")?;
    Ok(Some(Servo::new(*force, gain, max_speed)))
}
