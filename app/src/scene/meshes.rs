//! `[[meshes]]`: triangle-mesh walls read from STL files, placed (scaled, turned, moved), fixed
//! or moved by a shaker or turning about an axis.

use super::loads::NamedWalls;
use super::materials::MaterialNames;
use super::origin::{Origin, Origins};
use super::spec::MeshSpec;
use super::values::{finite3, number, positive, Ctx};
use super::walls::{check_unique_name, Shakers};
use super::SceneError;
use crate::stl::read_stl;
use glam::{Quat, Vec3};
use grains::{MeshDesc, WorldBuilder};

/// Adds the meshes to `world`, each named one to `named` (whose names it must not repeat).
pub(super) fn meshes(
    cx: &Ctx,
    specs: &[MeshSpec],
    (materials, shakers): (&MaterialNames, &Shakers),
    world: &mut WorldBuilder,
    origins: &mut Origins,
    named: &mut Vec<NamedWalls>,
) -> Result<(), SceneError> {
    for (i, m) in specs.iter().enumerate() {
        let desc = mesh(cx, m, materials, shakers)?;
        let index = world.mesh(desc);
        debug_assert_eq!(index, i);
        if let Some(n) = &m.name {
            check_unique_name(cx, n, named)?;
            named.push(NamedWalls {
                name: n.get_ref().clone(),
                walls: 0..0,
                is_box: false,
                meshes: index..index + 1,
            });
        }
        origins.meshes.push(
            Origin::new(cx, m.file.span())
                .key_at(cx, "triangles", "file", Some(m.file.span()))
                .key_at(cx, "vertices", "file", Some(m.file.span()))
                .key(cx, "material", "material", &m.material)
                .key(cx, "motion", "shaker", &m.shaker)
                .key(cx, "rotation", "axis", &m.axis)
                .key(cx, "rotation", "angular_speed", &m.angular_speed),
        );
    }
    Ok(())
}

/// One mesh: its STL file's triangles placed x ↦ translate + R (scale · x), with its material
/// and motions.
fn mesh(
    cx: &Ctx,
    m: &MeshSpec,
    materials: &MaterialNames,
    shakers: &Shakers,
) -> Result<MeshDesc, SceneError> {
    let scale = m
        .scale
        .as_ref()
        .map_or(Ok(1.0), |s| positive(cx, s, "scale"))?;
    let turn = match (&m.rotate_axis, &m.rotate_degrees) {
        (None, None) => Quat::IDENTITY,
        (Some(a), Some(d)) => {
            let axis = unit(cx, a, "rotate_axis")?;
            Quat::from_axis_angle(axis, number(cx, d, "rotate_degrees")?.to_radians())
        }
        (Some(a), None) => {
            return Err(cx.err(a.span(), "rotate_axis", "needs `rotate_degrees`, the angle"))
        }
        (None, Some(d)) => {
            return Err(cx.err(d.span(), "rotate_degrees", "needs `rotate_axis`, the axis"))
        }
    };
    let translate = m
        .translate
        .as_ref()
        .map_or(Ok(Vec3::ZERO), |t| finite3(cx, t, "translate"))?;
    let file = cx.beside(m.file.get_ref());
    let mut triangles =
        read_stl(&file).map_err(|e| cx.err(m.file.span(), "file", e.to_string()))?;
    for p in triangles.iter_mut().flatten() {
        *p = translate + turn * (scale * *p);
    }
    let mut desc = MeshDesc::new(triangles).with_material(materials.id(cx, &m.material)?);
    if let Some(motion) = shakers.motion(cx, &m.shaker)? {
        desc = desc.moving(motion);
    }
    match (&m.angular_speed, &m.axis, &m.axis_point) {
        (Some(w), axis, point) => {
            let omega = number(cx, w, "angular_speed")?;
            let missing = |key| cx.err(w.span(), key, "missing: required with `angular_speed`");
            let axis = unit(cx, axis.as_ref().ok_or_else(|| missing("axis"))?, "axis")?;
            let point = point.as_ref().ok_or_else(|| missing("axis_point"))?;
            let point = finite3(cx, point, "axis_point")?;
            desc = desc.rotating(point, axis, omega);
        }
        (None, Some(a), _) => {
            return Err(cx.err(
                a.span(),
                "axis",
                "has no effect without `angular_speed`: remove it or give the rate",
            ))
        }
        (None, None, Some(p)) => {
            return Err(cx.err(
                p.span(),
                "axis_point",
                "has no effect without `angular_speed`: remove it or give the rate",
            ))
        }
        (None, None, None) => {}
    }
    Ok(desc)
}

/// The non-zero vector `v` made a unit vector.
fn unit(cx: &Ctx, v: &super::spec::S<super::spec::V3>, key: &str) -> Result<Vec3, SceneError> {
    let x = finite3(cx, v, key)?;
    if x.length() == 0.0 {
        return Err(cx.err(v.span(), key, "must not be zero"));
    }
    Ok(x.normalize())
}
