//! The regions a random fill places centres in: a box, or a cylinder or cone frustum in which
//! every body lies wholly inside, as a drum or hopper of the same shape would hold it.

use super::{finite, positive, FillError};
use glam::Vec3;

/// Where a [`super::RandomFill`] places bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FillRegion {
    /// The box of the centres, corners `min` and `max` (m); in planar mode y = 0 for both.
    /// A body's centre lies in it; the body may reach past it by its radius.
    Box {
        /// The lower corner.
        min: Vec3,
        /// The upper corner, above `min` in every axis (but y in planar mode).
        max: Vec3,
    },
    /// A frustum in which every body lies wholly inside (its bounding sphere clear of the
    /// mantle and the ends): radius `small` at `centre − half · axis`, `large` at
    /// `centre + half · axis` (equal for a cylinder). 3-D only.
    Frustum {
        /// The middle of the axis (m).
        centre: Vec3,
        /// The unit axis, from the small end to the large end.
        axis: Vec3,
        /// The radius at the small end (m).
        small: f32,
        /// The radius at the large end (m).
        large: f32,
        /// Half the length along the axis (m).
        half: f32,
    },
}

impl FillRegion {
    /// The box of corners `min` and `max` (checked with the fill, [`super::RandomFill::check`]).
    pub fn boxed(min: Vec3, max: Vec3) -> Self {
        FillRegion::Box { min, max }
    }

    /// The cylinder of radius `radius` and length `length` about `axis` (any length, not zero)
    /// through `centre`.
    pub fn cylinder(centre: Vec3, axis: Vec3, radius: f32, length: f32) -> Result<Self, FillError> {
        positive("region_radius", radius)?;
        FillRegion::frustum(centre, axis, (radius, radius), length)
    }

    /// The cone frustum of radius `small_radius` at `centre − length/2 · axis` and
    /// `large_radius` (larger) at the other end.
    pub fn cone(
        centre: Vec3,
        axis: Vec3,
        small_radius: f32,
        large_radius: f32,
        length: f32,
    ) -> Result<Self, FillError> {
        if small_radius.is_nan() || small_radius < 0.0 {
            return Err(FillError::new(
                "region_small_radius",
                format!("must be at least 0, got {small_radius}"),
            ));
        }
        positive("region_large_radius", large_radius)?;
        if large_radius <= small_radius {
            return Err(FillError::new(
                "region_large_radius",
                format!("must exceed region_small_radius = {small_radius}, got {large_radius}"),
            ));
        }
        FillRegion::frustum(centre, axis, (small_radius, large_radius), length)
    }

    /// The frustum of radii `(small, large)` (checked) about `axis` through `centre`.
    fn frustum(
        centre: Vec3,
        axis: Vec3,
        (small, large): (f32, f32),
        length: f32,
    ) -> Result<Self, FillError> {
        finite("region_centre", centre)?;
        finite("region_axis", axis)?;
        if axis.length() == 0.0 {
            return Err(FillError::new("region_axis", "must not be zero"));
        }
        positive("region_length", length)?;
        Ok(FillRegion::Frustum {
            centre,
            axis: axis.normalize(),
            small,
            large,
            half: 0.5 * length,
        })
    }

    /// The corners of the axis-aligned box the centres are drawn in.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        match *self {
            FillRegion::Box { min, max } => (min, max),
            FillRegion::Frustum {
                centre,
                axis,
                small,
                large,
                half,
            } => {
                let ends = [(centre - half * axis, small), (centre + half * axis, large)];
                // A circle of radius R about axis e reaches R √(1 − e_i²) along axis i.
                let reach = |r: f32| r * (Vec3::ONE - axis * axis).max(Vec3::ZERO).powf(0.5);
                let lo = ends[0].0.min(ends[1].0) - reach(large);
                let hi = ends[0].0.max(ends[1].0) + reach(large);
                (lo, hi)
            }
        }
    }

    /// True when a body of bounding radius `b` centred at `p` (within [`FillRegion::bounds`])
    /// may go there: always in a box; in a frustum, its centre at least b from both ends and
    /// from the mantle's generator line ρ = R(s), (R(s) − ρ)/√(1 + k²) ≥ b with k = dR/ds.
    pub fn holds(&self, p: Vec3, b: f32) -> bool {
        match *self {
            FillRegion::Box { .. } => true,
            FillRegion::Frustum {
                centre,
                axis,
                small,
                large,
                half,
            } => {
                let rel = p - centre;
                let s = rel.dot(axis);
                let rho = (rel - s * axis).length();
                let k = (large - small) / (2.0 * half);
                let radius = 0.5 * (small + large) + k * s;
                s.abs() <= half - b && radius - rho >= b * (1.0 + k * k).sqrt()
            }
        }
    }

    /// How many bodies of mean radius `rm` fill it at packing fraction `phi`: φ V / (4/3 π rm³)
    /// with a frustum's volume V = π (2L/3)(R₁² + R₁R₂ + R₂²) or a box's Δx Δy Δz, or in
    /// planar mode (disks) φ Δx Δz / (π rm²), rounded.
    pub(crate) fn bodies_at(&self, phi: f64, rm: f64, planar: bool) -> usize {
        let ball = 4.0 / 3.0 * std::f64::consts::PI * rm.powi(3);
        match *self {
            FillRegion::Box { min, max } => {
                let e = (max - min).as_dvec3();
                if planar {
                    (phi * e.x * e.z / (std::f64::consts::PI * rm * rm)).round() as usize
                } else {
                    (phi * e.x * e.y * e.z / ball).round() as usize
                }
            }
            FillRegion::Frustum {
                small, large, half, ..
            } => {
                let (a, b) = (f64::from(small), f64::from(large));
                let volume =
                    std::f64::consts::PI * 2.0 * f64::from(half) / 3.0 * (a * a + a * b + b * b);
                (phi * volume / ball).round() as usize
            }
        }
    }
}
