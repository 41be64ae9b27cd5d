//! How deep a body starts inside a wall: the points of each shape that the narrow phase tests
//! against a wall, placed at t = 0, for the builder's check that no body starts inside a wall
//! and the insertions' check that a fed grain is placed clear of the walls.

use crate::body::{Body, Shape};
use crate::geometry::WallDesc;
use glam::Vec3;
use grains_kernels::pair_algorithms::ellipsoid_frustum::ellipsoid_in_frustum;
use grains_kernels::pairs::wall_support;
use grains_kernels::shapes::capsule::capsule_ends;
use grains_kernels::shapes::clump::{clump_members, ClumpTable};
use grains_kernels::shapes::cuboid::cuboid_corners;
use grains_kernels::shapes::ellipsoid::{smooth_support, PlacedEllipsoid};
use grains_kernels::shapes::polyhedron::{hull_vertices, Hull};
use grains_kernels::wall_contact::point_wall;

/// The deepest overlap −Φ (m) of body `b`'s wall-facing points with `wall` (negative when the
/// body is clear of it; −∞ when no point meets it, or the pair table does not meet its shape
/// with the wall's kind, [`wall_support`], which the build refuses): a sphere's centre or a capsule's end points
/// as spheres against the wall as the narrow phase meets it ([`point_wall`]: face, edge, rim;
/// alone, without its plane group), an ellipse's support point where it lies within a flat
/// face, an ellipsoid's deepest point inside a cylinder or cone ([`ellipsoid_in_frustum`]); a
/// clump's members as spheres (template from `clumps`), a polyhedron's vertices (its
/// hull in `hulls`) as points.
pub(crate) fn depth_in_wall(
    b: &Body,
    wall: &WallDesc,
    (clumps, hulls): (&ClumpTable, &[Hull]),
) -> f32 {
    if wall_support(b.shape.kind(), wall.contact_kind()).is_err() {
        return f32::NEG_INFINITY;
    }
    let placed = [wall.placed(
        wall.motion.map_or(Vec3::ZERO, |m| m.displacement(0.0)),
        Vec3::ZERO,
    )];
    let w = &placed[0];
    let (points, radius, behind) = match b.shape {
        Shape::Sphere => (vec![b.position], b.radius, b.radius),
        Shape::Capsule { half_length } => (
            capsule_ends(b.position, b.orientation, half_length).to_vec(),
            b.radius,
            b.radius,
        ),
        Shape::Cuboid { half_extents } => (
            cuboid_corners(b.position, b.orientation, half_extents).to_vec(),
            0.0,
            half_extents.min_element(),
        ),
        Shape::Polyhedron { hull, .. } => {
            let h = &hulls[hull as usize];
            let vertices = hull_vertices(h, b.position, b.orientation);
            (vertices[..h.vertices.len()].to_vec(), 0.0, h.inner_radius)
        }
        Shape::Clump { template, .. } => {
            return clump_depth_in_wall(b, template, clumps, wall);
        }
        Shape::Ellipsoid { semi_axes } if wall.is_curved() => {
            let body = PlacedEllipsoid {
                centre: b.position,
                q: b.orientation,
                semi_axes,
            };
            return ellipsoid_in_frustum(w, &body).map_or(f32::NEG_INFINITY, |t| -t.phi);
        }
        Shape::Ellipse { .. } | Shape::Ellipsoid { .. } => {
            let n = wall.normal;
            let s = smooth_support(b.shape, b.orientation, -n).unwrap_or_default();
            let covered = wall.is_plane()
                || (b.position - w.o()).dot(n) >= -b.shape.bounding_radius(b.radius);
            return if covered && w.covers(b.position + s) {
                -(b.position + s - w.o()).dot(n)
            } else {
                f32::NEG_INFINITY
            };
        }
    };
    if wall.is_plane() {
        // A plane bounds a solid half-space: behind it is inside it, however far.
        return points
            .into_iter()
            .map(|p| radius - (p - w.o()).dot(wall.normal))
            .fold(f32::NEG_INFINITY, f32::max);
    }
    points
        .into_iter()
        .filter_map(|p| point_wall(&placed, 0, p, radius, behind))
        .map(|t| -t.phi)
        .fold(f32::NEG_INFINITY, f32::max)
}

/// The deepest overlap of clump `b`'s members (template `template` of `table`) with `wall`,
/// each member as a sphere ([`depth_in_wall`]).
fn clump_depth_in_wall(b: &Body, template: u32, table: &ClumpTable, wall: &WallDesc) -> f32 {
    clump_members(b.position, b.orientation, template, table)
        .map(|(c, r)| depth_in_wall(&Body::sphere(c, r, b.mass), wall, (table, &[])))
        .fold(f32::NEG_INFINITY, f32::max)
}

impl crate::World {
    /// The deepest overlap (m) of `body` with wall `wall` of this world, as the insertions
    /// check it: `depth_in_wall` with this world's clump templates and hulls.
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn depth_in_wall(&self, body: &Body, wall: usize) -> f32 {
        depth_in_wall(body, &self.wall_descs[wall], (&self.clumps, &self.hulls))
    }

    /// This world's clump templates.
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn clump_table(&self) -> &ClumpTable {
        &self.clumps
    }
}
