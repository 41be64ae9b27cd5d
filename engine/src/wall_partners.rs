//! Which body shapes meet which kinds of wall on the CPU, and the build's refusal of a world
//! with a pair the narrow phase does not detect.
//!
//! | shape | flat walls | cylinder, cone (grains inside) | cylinder, cone (outside) | mesh walls |
//! |---|---|---|---|---|
//! | sphere, clump | yes | yes | yes | yes |
//! | ellipsoid | yes | yes | no | yes |
//! | box, polyhedron | yes | yes | no | yes |
//! | capsule | yes | yes | no | no |
//! | ellipse | yes | no | no | no |
//!
//! A clump meets every wall as its member spheres. Inside a cylinder or cone the wall's depth
//! (R(s) − ρ)/√(1 + k²) is a linear function less a convex one, so a convex polytope's deepest
//! point there is a vertex (the narrow phase's point contacts are exact), a capsule's lies on
//! one of its end spheres (the clearance of the segment's points is least at an end; the
//! narrow phase tests both ends as spheres), and an ellipsoid's is a support point
//! (`grains_kernels::ellipsoid_frustum`); outside the mantle a face, an edge
//! or the smooth side of a body can touch it between those points, which the narrow phase
//! does not seek. Boxes and polyhedra meet mesh triangles by the separating-axis test
//! (`grains_kernels::polytope_triangle`); capsules (segment–triangle) and planar ellipses do
//! not.

use crate::body::{shape_name, Body, Shape};
use crate::error::BuildError;
use crate::geometry::{WallDesc, WallShape};

/// Refuses a body whose shape the narrow phase does not meet with one of the world's
/// cylinder or cone `walls` (from the side the grains are on) or, when `meshes` is true, with
/// its mesh walls (see the module's table), naming the body, its shape and the wall.
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
        let shape = shape_name(b.shape);
        let a_shape = with_article(shape);
        for (w, wall) in walls.iter().enumerate() {
            let Some(inside) = grains_inside(wall) else {
                continue;
            };
            let kind = wall.kind_name();
            let side = if inside { "inside" } else { "outside" };
            if !meets_curved_wall(b.shape, inside) {
                return refuse(format!(
                    "is {a_shape}, and wall {w} is a {kind} with the grains {side} it: {}",
                    curved_partners(b.shape, &a_shape)
                ));
            }
        }
        if meshes && !meets_mesh(b.shape) {
            return refuse(format!(
                "is {a_shape}, and this world has a mesh wall: only spheres, clumps, ellipsoids, boxes and polyhedra meet mesh walls ({a_shape}'s contacts with triangles are not implemented)"
            ));
        }
    }
    Ok(())
}

/// A shape's name with its indefinite article ("a box", "an ellipsoid").
fn with_article(name: &str) -> String {
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

/// Whether the grains are inside a cylinder or cone wall; `None` for the other walls.
fn grains_inside(wall: &WallDesc) -> Option<bool> {
    match wall.shape {
        WallShape::Cylinder { inside, .. } | WallShape::Cone { inside, .. } => Some(inside),
        WallShape::Flat | WallShape::Disk { .. } => None,
    }
}

/// True when the narrow phase meets `shape` with a cylinder or cone wall from the side
/// `inside` says.
fn meets_curved_wall(shape: Shape, inside: bool) -> bool {
    match shape {
        Shape::Sphere | Shape::Clump { .. } => true,
        Shape::Cuboid { .. }
        | Shape::Polyhedron { .. }
        | Shape::Ellipsoid { .. }
        | Shape::Capsule { .. } => inside,
        Shape::Ellipse { .. } => false,
    }
}

/// Where `shape` (named `a_shape`) meets cylinder and cone walls, for the refusal's message.
fn curved_partners(shape: Shape, a_shape: &str) -> String {
    match shape {
        Shape::Cuboid { .. }
        | Shape::Polyhedron { .. }
        | Shape::Ellipsoid { .. }
        | Shape::Capsule { .. } => format!(
            "{a_shape} meets cylinder and cone walls only from inside (outside, a side of it can touch the mantle between the points the narrow phase tests)"
        ),
        _ => format!("{a_shape}'s contacts with cylinder and cone walls are not implemented"),
    }
}

/// True when the narrow phase meets `shape` with mesh walls.
fn meets_mesh(shape: Shape) -> bool {
    !matches!(shape, Shape::Capsule { .. } | Shape::Ellipse { .. })
}
