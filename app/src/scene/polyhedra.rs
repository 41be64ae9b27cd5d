//! A body group's or an insertion's `vertices` key (`shape = "polyhedron"`): the points whose
//! convex hull is the group's shape, read into the scene's hull table in group order (then the
//! insertions').

use super::form::ShapeKeys;
use super::values::Ctx;
use super::SceneError;
use glam::Vec3;
use grains::{HullId, Polyhedron};

/// The hull of group `g` when its shape is `"polyhedron"`: the convex hull of its `vertices`
/// (required), appended to `hulls` (the scene's table, registered with the builder in this
/// order), with its id; `None` for other shapes, which may not have `vertices`. A cloud with
/// too few points, a flat one or one with non-finite coordinates is refused at the key.
pub(super) fn group_hull(
    cx: &Ctx,
    g: &ShapeKeys,
    hulls: &mut Vec<Polyhedron>,
) -> Result<Option<HullId>, SceneError> {
    let polyhedral = g
        .shape
        .as_ref()
        .is_some_and(|s| s.get_ref() == "polyhedron");
    let Some(v) = g.vertices else {
        return match g.shape {
            Some(s) if polyhedral => Err(cx.err(
                s.span(),
                "vertices",
                "is required for shape = \"polyhedron\" (the points [[x, y, z], ...] whose convex hull is the body)",
            )),
            _ => Ok(None),
        };
    };
    if !polyhedral {
        return Err(cx.err(v.span(), "vertices", "used only by shape = \"polyhedron\""));
    }
    let points: Vec<Vec3> = v
        .get_ref()
        .iter()
        .map(|p| Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32))
        .collect();
    let hull = Polyhedron::from_points(&points)
        .map_err(|e| cx.err(v.span(), "vertices", e.to_string()))?;
    let id = HullId::new(hulls.len() as u32, &hull);
    hulls.push(hull);
    Ok(Some(id))
}
