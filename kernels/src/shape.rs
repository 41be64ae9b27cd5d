//! Body shapes other than spheres, kept beside [`crate::Bodies`] as one more per-body array.
//!
//! A body's `pos_radius.w` stays its radius: the sphere's radius, the capsule's radius about its
//! segment. Non-sphere bodies never enter the uniform grid: like the large bodies they query the
//! cells their bounding sphere covers (see [`crate::broad_phase`]).

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

/// The two end points of a capsule's segment, c ± R(q)·(L, 0, 0), in world coordinates.
#[inline(always)]
pub fn capsule_ends(centre: Vec3, q: Quat, half_length: f32) -> [Vec3; 2] {
    let axis = q * Vec3::X * half_length;
    [centre + axis, centre - axis]
}

/// The point of a capsule's segment closest to `p`: c + s R x̂ with s = clamp((p − c)·R x̂, ±L).
#[inline(always)]
pub fn closest_on_segment(centre: Vec3, q: Quat, half_length: f32, p: Vec3) -> Vec3 {
    let axis = q * Vec3::X;
    centre + axis * (p - centre).dot(axis).clamp(-half_length, half_length)
}

/// Support point of the ellipse (x/a)² + (z/b)² ≤ 1 (body axes, orientation `q`) in world
/// direction `d`, relative to the centre: s = R (a² d_x, 0, b² d_z) / √(a² d_x² + b² d_z²) with
/// d in body axes. The point of an ellipse nearest a plane of normal n is its support point in
/// −n, in closed form, so the ellipse–plane gap needs no iteration.
#[inline(always)]
pub fn ellipse_support(q: Quat, a: f32, b: f32, d: Vec3) -> Vec3 {
    let local = q.inverse() * d;
    let (ax, bz) = (a * a * local.x, b * b * local.z);
    let norm = (ax * local.x + bz * local.z).sqrt();
    if norm > 0.0 {
        q * Vec3::new(ax / norm, 0.0, bz / norm)
    } else {
        Vec3::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ellipse_support_reaches_the_semi_axes() {
        let q = Quat::from_rotation_y(0.3);
        let s = ellipse_support(q, 4.0, 2.0, q * Vec3::NEG_Z);
        assert!((s - q * Vec3::new(0.0, 0.0, -2.0)).length() < 1e-5, "{s}");
        let s = ellipse_support(q, 4.0, 2.0, q * Vec3::X);
        assert!((s - q * Vec3::new(4.0, 0.0, 0.0)).length() < 1e-5, "{s}");
    }

    #[test]
    fn ellipse_support_lies_on_the_ellipse_and_maximises_the_direction() {
        let (a, b) = (4.0f32, 2.0f32);
        let d = Vec3::new(0.6, 0.0, -0.8);
        let s = ellipse_support(Quat::IDENTITY, a, b, d);
        assert!(((s.x / a).powi(2) + (s.z / b).powi(2) - 1.0).abs() < 1e-5);
        for k in 0..360 {
            let t = (k as f32).to_radians();
            let p = Vec3::new(a * t.cos(), 0.0, b * t.sin());
            assert!(p.dot(d) <= s.dot(d) + 1e-5);
        }
    }

    #[test]
    fn closest_point_clamps_to_the_segment() {
        let c = Vec3::new(1.0, 0.0, 0.0);
        let p = closest_on_segment(c, Quat::IDENTITY, 0.5, Vec3::new(5.0, 0.0, 3.0));
        assert_eq!(p, Vec3::new(1.5, 0.0, 0.0));
        let p = closest_on_segment(c, Quat::IDENTITY, 0.5, Vec3::new(1.2, 0.0, 3.0));
        assert!((p - Vec3::new(1.2, 0.0, 0.0)).length() < 1e-6);
    }
}
