//! The build's refusal of a body whose shape the narrow phase does not meet with one of the
//! world's walls: the pair table's body–wall half ([`grains_kernels::pairs::wall_support`])
//! decides, for each body against each cylinder or cone wall (from the side the grains are
//! on) and against the mesh walls.

use crate::body::Body;
use crate::error::BuildError;
use crate::geometry::WallDesc;
use grains_kernels::pairs::{wall_support, WallKind};

/// Refuses a body whose shape the pair table does not meet with one of the world's `walls`
/// or, when `meshes` is true, with its mesh walls, naming the body, its shape, the wall and
/// why.
pub(crate) fn check_wall_partners(
    bodies: &[Body],
    walls: &[WallDesc],
    meshes: bool,
) -> Result<(), BuildError> {
    for (i, b) in bodies.iter().enumerate() {
        let refuse = |problem: String| {
            Err(BuildError::Body {
                body: i,
                field: "shape",
                problem,
            })
        };
        let kind = b.shape.kind();
        let a_shape = kind.with_article();
        for (w, wall) in walls.iter().enumerate() {
            let side = match wall.contact_kind() {
                WallKind::CurvedInside => "inside",
                WallKind::CurvedOutside => "outside",
                WallKind::Flat | WallKind::Mesh => "beside",
            };
            if let Err(e) = wall_support(kind, wall.contact_kind()) {
                return refuse(format!(
                    "is {a_shape}, and wall {w} is a {} with the grains {side} it: {e}",
                    wall.kind_name()
                ));
            }
        }
        if let (true, Err(e)) = (meshes, wall_support(kind, WallKind::Mesh)) {
            return refuse(format!("is {a_shape}, and this world has a mesh wall: {e}"));
        }
    }
    Ok(())
}
