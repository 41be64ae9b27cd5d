//! The shapes a body can take, one file each: the [`Shape`] every body carries (kept beside
//! [`crate::Bodies`] as one more per-body array) with its bounding radius, and the placed form
//! ([`Placed`]) and surface gap ([`Touch`]) that every routine of the narrow phase works on.
//! Each shape's file holds its geometry: support points, nearest points, its own pairs.
//! Which pairs of shapes meet, and by which routine, is the pair table's ([`crate::pairs`]);
//! the routines of a shape against a wall or mesh are in [`crate::pair_algorithms`].
//!
//! A body's `pos_radius.w` stays its radius: the sphere's radius, the capsule's radius about its
//! segment. Non-sphere bodies never enter the uniform grid: like the large bodies they query the
//! cells their bounding sphere covers (see [`crate::broad_phase`]).

pub mod capsule;
pub mod clump;
pub mod cuboid;
pub mod ellipse;
pub mod ellipsoid;
pub mod polyhedron;
pub mod sphere;

use glam::{Quat, Vec3};

/// The shape of one body, in the body's own axes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Shape {
    /// A sphere (a disk in planar mode) of the body's radius.
    #[default]
    Sphere,
    /// The points within the body's radius of the segment from −`half_length` to +`half_length`
    /// along the body's local x axis (a bar when the radius is small).
    Capsule {
        /// Half the length of the segment (m).
        half_length: f32,
    },
    /// Planar mode only: the ellipse (x/a)² + (z/b)² ≤ 1 in the body's local x–z plane.
    Ellipse {
        /// Semi-axis along the body's local x (m).
        a: f32,
        /// Semi-axis along the body's local z (m).
        b: f32,
    },
    /// A box with sharp edges, |x| ≤ a, |y| ≤ b, |z| ≤ c in the body's axes (see
    /// [`crate::shapes::cuboid`]); the body's radius is not part of its surface.
    Cuboid {
        /// Half-extents (a, b, c) along the body's local x, y and z (m).
        half_extents: Vec3,
    },
    /// A 3-D ellipsoid x²/a² + y²/b² + z²/c² ≤ 1 in the body's axes (see
    /// [`crate::shapes::ellipsoid`]); the body's radius is not part of its surface.
    Ellipsoid {
        /// Semi-axes (a, b, c) along the body's local x, y and z (m).
        semi_axes: Vec3,
    },
    /// A clump of overlapping spheres: template `template` of the world's
    /// [`crate::shapes::clump::ClumpTable`] (see [`crate::shapes::clump`]); the body's radius is its smallest
    /// member's.
    Clump {
        /// The template's number in the world's clump table.
        template: u32,
        /// Radius of the smallest sphere about the centre that holds every member (m), the
        /// template's [`crate::shapes::clump::clump_bound`].
        bound: f32,
    },
    /// A convex polyhedron with sharp edges: hull `hull` of the world's hull table (see
    /// [`crate::shapes::polyhedron`]), in the body's axes; the body's radius is not part of its
    /// surface.
    Polyhedron {
        /// Index into the hull table.
        hull: u32,
        /// The distance from the centre to the hull's farthest vertex (m).
        bounding_radius: f32,
    },
}

impl Shape {
    /// Radius of the smallest sphere about the centre that holds the shape, for a body of
    /// radius `r`.
    #[inline(always)]
    pub fn bounding_radius(&self, r: f32) -> f32 {
        match *self {
            Shape::Sphere => r,
            Shape::Capsule { half_length } => r + half_length,
            Shape::Ellipse { a, b } => a.max(b),
            Shape::Cuboid { half_extents } => half_extents.length(),
            Shape::Ellipsoid { semi_axes } => semi_axes.max_element(),
            Shape::Clump { bound, .. } => bound,
            Shape::Polyhedron {
                bounding_radius, ..
            } => bounding_radius,
        }
    }

    /// True for [`Shape::Sphere`].
    #[inline(always)]
    pub fn is_sphere(&self) -> bool {
        matches!(self, Shape::Sphere)
    }
}

/// The shape of body `i` of `shapes` (an empty slice means every body is a sphere).
#[inline(always)]
pub fn shape_of(shapes: &[Shape], i: usize) -> Shape {
    shapes.get(i).copied().unwrap_or_default()
}

/// One body's shape where it stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    /// Centre (m).
    pub centre: Vec3,
    /// Orientation (body → world).
    pub q: Quat,
    /// The body's radius: the sphere's, the capsule's about its segment (unused by ellipses).
    pub radius: f32,
    /// Shape in the body's axes.
    pub shape: Shape,
}

/// The nearest points of two bodies' surfaces, a and b.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    /// Unit normal from b towards a.
    pub n: Vec3,
    /// Gap Φ along n (m), negative when the bodies overlap.
    pub phi: f32,
    /// The point of a's surface.
    pub pa: Vec3,
    /// The point of b's surface.
    pub pb: Vec3,
}

impl Touch {
    /// The same touch seen from b: n → −n, the points swapped.
    #[inline(always)]
    pub(crate) fn swapped(self) -> Touch {
        Touch {
            n: -self.n,
            phi: self.phi,
            pa: self.pb,
            pb: self.pa,
        }
    }
}
