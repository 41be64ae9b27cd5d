//! The observables of the contact forces: `wall_force` and `wall_torque` (a container's `name`
//! names its walls, a box's `part` picks some of them, and the observable sums the forces or
//! torques the contacts of the last step put on them) and `contact_force` (the same on a group
//! of bodies).

use super::output::ObservableKind;
use super::spec::ObservableSpec;
use super::values::{finite3, need, only, sp, Ctx};
use super::SceneError;
use glam::{DVec3, Vec3};
use std::ops::Range;

/// The walls of one named container, as indices in the order walls were added.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct NamedWalls {
    /// The container's `name`.
    pub name: String,
    /// Its walls: one, or a box's floor and then its −x, +x, −y, +y side walls (no y walls in
    /// planar mode).
    pub walls: Range<usize>,
    /// Whether it is a box (`box` or `pour_box`), whose walls `part` picks.
    pub is_box: bool,
    /// The mesh walls it names (`[[meshes]]`), as indices in the order meshes were added.
    pub meshes: Range<usize>,
}

/// The component of a force an observable reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    /// Along x.
    X,
    /// Along y.
    Y,
    /// Along z (the vertical with the default gravity).
    Z,
    /// The length of the vector.
    Magnitude,
}

impl Component {
    /// This component of `v`.
    pub fn of(self, v: DVec3) -> f64 {
        match self {
            Component::X => v.x,
            Component::Y => v.y,
            Component::Z => v.z,
            Component::Magnitude => v.length(),
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Component::X => "x",
            Component::Y => "y",
            Component::Z => "z",
            Component::Magnitude => "magnitude",
        }
    }
}

/// The keys only the wall observables take, with their spans in `ob`.
fn wall_keys(ob: &ObservableSpec) -> [(&'static str, Option<Range<usize>>); 5] {
    [
        ("wall", sp(&ob.wall)),
        ("part", sp(&ob.part)),
        ("component", sp(&ob.component)),
        ("point", sp(&ob.point)),
        ("axis", sp(&ob.axis)),
    ]
}

/// Fails when an observable that is not a force observable has one of their keys.
pub(super) fn refuse_wall_keys(cx: &Ctx, ob: &ObservableSpec) -> Result<(), SceneError> {
    for (key, span) in wall_keys(ob) {
        if let Some(span) = span {
            return Err(cx.err(
                span,
                key,
                format!(
                    "not used by `{}` (only `wall_force`, `wall_torque`, `contact_force`, `surface_angle` and, for `component`, `mean_velocity` take it)",
                    ob.kind.get_ref()
                ),
            ));
        }
    }
    Ok(())
}

/// Reads a `contact_force` observable of the body group `name` (indices `bodies`); returns its
/// default column name and what it measures.
pub(super) fn contact_force_observable(
    cx: &Ctx,
    ob: &ObservableSpec,
    name: &str,
    bodies: Range<usize>,
) -> Result<(String, ObservableKind), SceneError> {
    let component = group_component(cx, ob)?;
    Ok((
        format!("contact_force_{name}_{}_N", component.suffix()),
        ObservableKind::ContactForce { bodies, component },
    ))
}

/// The `component` of a group observable that takes no other key of the wall observables.
fn group_component(cx: &Ctx, ob: &ObservableSpec) -> Result<Component, SceneError> {
    only(cx, &ob.kind, &wall_keys(ob), &["component"])?;
    component(cx, ob)
}

/// Reads a `surface_angle` observable of the body group `name` (indices `bodies`) in the drum
/// whose axis runs through `point` along `axis`; returns its default column name and what it
/// measures.
pub(super) fn surface_angle_observable(
    cx: &Ctx,
    ob: &ObservableSpec,
    name: &str,
    bodies: Range<usize>,
) -> Result<(String, ObservableKind), SceneError> {
    only(cx, &ob.kind, &wall_keys(ob), &["point", "axis"])?;
    let (point, axis) = point_and_axis(cx, ob)?;
    Ok((
        format!("surface_angle_{name}_deg"),
        ObservableKind::SurfaceAngle {
            bodies,
            point,
            axis,
        },
    ))
}

/// The `point` and unit `axis` of a `wall_torque` or `surface_angle` observable.
fn point_and_axis(cx: &Ctx, ob: &ObservableSpec) -> Result<(Vec3, Vec3), SceneError> {
    let point = finite3(cx, need(cx, &ob.point, "point", &ob.kind)?, "point")?;
    let axis_s = need(cx, &ob.axis, "axis", &ob.kind)?;
    let axis = finite3(cx, axis_s, "axis")?;
    if axis.length() == 0.0 {
        return Err(cx.err(axis_s.span(), "axis", "must not be zero"));
    }
    Ok((point, axis.normalize()))
}

/// Reads a `mean_velocity` observable of the body group `name` (indices `bodies`), its
/// `component` as for `contact_force`; returns its default column name and what it measures.
pub(super) fn mean_velocity_observable(
    cx: &Ctx,
    ob: &ObservableSpec,
    name: &str,
    bodies: Range<usize>,
) -> Result<(String, ObservableKind), SceneError> {
    let component = group_component(cx, ob)?;
    Ok((
        format!("mean_velocity_{name}_{}_m_per_s", component.suffix()),
        ObservableKind::MeanVelocity { bodies, component },
    ))
}

/// Reads a `wall_force` or `wall_torque` observable naming a container of `named`; returns its
/// default column name and what it measures.
pub(super) fn wall_observable(
    cx: &Ctx,
    ob: &ObservableSpec,
    named: &[NamedWalls],
) -> Result<(String, ObservableKind), SceneError> {
    let force = ob.kind.get_ref() == "wall_force";
    let allowed: &[&str] = if force {
        &["wall", "part", "component"]
    } else {
        &["wall", "part", "point", "axis"]
    };
    only(cx, &ob.kind, &wall_keys(ob), allowed)?;
    let (label, (walls, meshes)) = walls_of(cx, ob, named)?;
    if force {
        let component = component(cx, ob)?;
        Ok((
            format!("wall_force_{label}_{}_N", component.suffix()),
            ObservableKind::WallForce {
                walls,
                meshes,
                component,
            },
        ))
    } else {
        let (point, axis) = point_and_axis(cx, ob)?;
        Ok((
            format!("wall_torque_{label}_N_m"),
            ObservableKind::WallTorque {
                walls,
                meshes,
                point,
                axis,
            },
        ))
    }
}

/// Index ranges of walls and of mesh walls.
type WallsAndMeshes = (Range<usize>, Range<usize>);

/// The walls and meshes `wall` and `part` name, and a label for the column: the container's
/// or mesh's name, with the part when one is given.
fn walls_of(
    cx: &Ctx,
    ob: &ObservableSpec,
    named: &[NamedWalls],
) -> Result<(String, WallsAndMeshes), SceneError> {
    let w = need(cx, &ob.wall, "wall", &ob.kind)?;
    let Some(c) = named.iter().find(|c| &c.name == w.get_ref()) else {
        let names: Vec<String> = named.iter().map(|c| format!("\"{}\"", c.name)).collect();
        return Err(cx.err(
            w.span(),
            "wall",
            format!(
                "no container or mesh named \"{}\" (named containers and meshes: {})",
                w.get_ref(),
                if names.is_empty() {
                    "none; give a container or mesh a `name`".to_string()
                } else {
                    names.join(", ")
                }
            ),
        ));
    };
    let Some(p) = &ob.part else {
        return Ok((c.name.clone(), (c.walls.clone(), c.meshes.clone())));
    };
    if !c.is_box {
        return Err(cx.err(
            p.span(),
            "part",
            format!(
                "container or mesh \"{}\" is not a box; `part` picks walls of a box",
                c.name
            ),
        ));
    }
    let first = c.walls.start;
    let sides = c.walls.len() - 1;
    let walls = match p.get_ref().as_str() {
        "all" => c.walls.clone(),
        "floor" => first..first + 1,
        "sides" => first + 1..c.walls.end,
        "x_min" => first + 1..first + 2,
        "x_max" => first + 2..first + 3,
        "y_min" if sides == 4 => first + 3..first + 4,
        "y_max" if sides == 4 => first + 4..first + 5,
        "y_min" | "y_max" => {
            return Err(cx.err(
                p.span(),
                "part",
                "a planar box has no y walls (use \"all\", \"floor\", \"sides\", \"x_min\" or \"x_max\")",
            ))
        }
        other => {
            return Err(cx.err(
                p.span(),
                "part",
                format!("must be \"all\", \"floor\", \"sides\", \"x_min\", \"x_max\", \"y_min\" or \"y_max\", got \"{other}\""),
            ))
        }
    };
    Ok((format!("{}_{}", c.name, p.get_ref()), (walls, 0..0)))
}

/// The `component` of a `wall_force` or `contact_force` (default z).
fn component(cx: &Ctx, ob: &ObservableSpec) -> Result<Component, SceneError> {
    let Some(c) = &ob.component else {
        return Ok(Component::Z);
    };
    match c.get_ref().as_str() {
        "x" => Ok(Component::X),
        "y" => Ok(Component::Y),
        "z" => Ok(Component::Z),
        "magnitude" => Ok(Component::Magnitude),
        other => Err(cx.err(
            c.span(),
            "component",
            format!("must be \"x\", \"y\", \"z\" or \"magnitude\", got \"{other}\""),
        )),
    }
}
