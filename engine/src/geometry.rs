//! Fixed and moving walls: planes, rectangles, open cylinders and box containers built from
//! flat walls.

use crate::error::{finite3, BuildError};
use crate::material::MaterialId;
use crate::motion::Prescribed;
use glam::Vec3;

/// A flat wall as a user describes it: the rectangle `origin + s·u + t·(n × u)`,
/// |s| ≤ `half_u`, |t| ≤ `half_v`, pushing spheres along `normal`. Infinite half-extents make it
/// a plane bounding a half-space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallDesc {
    /// A point of the face at rest (m).
    pub origin: Vec3,
    /// Normal pointing to where the grains are (normalised on build; must not be zero).
    pub normal: Vec3,
    /// First in-face axis (made orthogonal to the normal and normalised on build).
    pub u: Vec3,
    /// Half extent along `u` (m), may be infinite.
    pub half_u: f32,
    /// Half extent along n × u (m), may be infinite.
    pub half_v: f32,
    /// Surface material.
    pub material: MaterialId,
    /// Motion of the wall, if it moves (a shaker).
    pub motion: Option<Prescribed>,
    /// Flat (the rectangle above) or curved (an open cylinder about `normal`).
    pub shape: WallShape,
}

/// The surface of a wall.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WallShape {
    /// The rectangle of [`WallDesc`]'s origin, normal, axes and half extents.
    Flat,
    /// The mantle of a finite cylinder with open ends: the points at distance `radius` from the
    /// axis through `origin` along `normal`, within `half_length` of `origin` along it (`u`,
    /// `half_u` and `half_v` are unused). Grains stay `inside` it (a drum) or outside it.
    Cylinder {
        /// Radius of the mantle (m).
        radius: f32,
        /// Half the length of the mantle along the axis (m), may be infinite.
        half_length: f32,
        /// True when the grains are inside the cylinder (a drum), false when outside.
        inside: bool,
        /// Rate of rotation about the axis `normal` (rad/s, right-handed); the surface at `c`
        /// moves at ω normal × (c − origin) on top of the wall's motion.
        angular_speed: f32,
    },
}

impl WallDesc {
    /// The infinite plane through `point` with normal `normal`.
    pub fn plane(point: Vec3, normal: Vec3) -> Self {
        WallDesc {
            origin: point,
            normal,
            u: normal.any_orthonormal_vector(),
            half_u: f32::INFINITY,
            half_v: f32::INFINITY,
            material: MaterialId(0),
            motion: None,
            shape: WallShape::Flat,
        }
    }

    /// A rectangle centred at `centre` with normal `normal`, first axis `u` and half extents.
    pub fn rectangle(centre: Vec3, normal: Vec3, u: Vec3, half_u: f32, half_v: f32) -> Self {
        WallDesc {
            origin: centre,
            normal,
            u,
            half_u,
            half_v,
            material: MaterialId(0),
            motion: None,
            shape: WallShape::Flat,
        }
    }

    /// The open cylinder of radius `radius` about the axis through `centre` along `axis`,
    /// reaching `half_length` either side of `centre`, holding grains `inside` it (a drum) or
    /// outside it. It does not rotate (see [`WallDesc::rotating`]).
    pub fn cylinder(centre: Vec3, axis: Vec3, radius: f32, half_length: f32, inside: bool) -> Self {
        WallDesc {
            shape: WallShape::Cylinder {
                radius,
                half_length,
                inside,
                angular_speed: 0.0,
            },
            ..WallDesc::plane(centre, axis)
        }
    }

    /// This cylinder turning about its axis at `angular_speed` (rad/s, right-handed about the
    /// axis); a flat wall is returned unchanged.
    pub fn rotating(mut self, angular_speed: f32) -> Self {
        if let WallShape::Cylinder {
            angular_speed: w, ..
        } = &mut self.shape
        {
            *w = angular_speed;
        }
        self
    }

    /// True for a cylinder wall.
    pub fn is_cylinder(&self) -> bool {
        matches!(self.shape, WallShape::Cylinder { .. })
    }

    /// This wall with material `m`.
    pub fn with_material(mut self, m: MaterialId) -> Self {
        self.material = m;
        self
    }

    /// This wall moving along `motion`.
    pub fn moving(mut self, motion: Prescribed) -> Self {
        self.motion = Some(motion);
        self
    }

    /// True for an infinite plane (both half extents infinite), which bounds a solid half-space.
    pub fn is_plane(&self) -> bool {
        self.shape == WallShape::Flat && self.half_u.is_infinite() && self.half_v.is_infinite()
    }

    /// True when the offset `rel` from the origin projects into the face (|s| ≤ half_u,
    /// |t| ≤ half_v), for a wall with unit axes (as built).
    pub(crate) fn covers(&self, rel: Vec3) -> bool {
        rel.dot(self.u).abs() <= self.half_u
            && rel.dot(self.normal.cross(self.u)).abs() <= self.half_v
    }

    /// Checks the wall and returns it with unit, orthogonal axes.
    pub(crate) fn normalised(&self, wall: usize) -> Result<WallDesc, BuildError> {
        let err = |field, problem: String| BuildError::Wall {
            wall,
            field,
            problem,
        };
        if !finite3(self.origin.to_array()) {
            return Err(err(
                "origin",
                format!("must be finite, got {}", self.origin),
            ));
        }
        if !(finite3(self.normal.to_array()) && self.normal.length() > 0.0) {
            return Err(err(
                "normal",
                format!("must be a finite non-zero vector, got {}", self.normal),
            ));
        }
        let n = self.normal.normalize();
        let u = self.u - n * self.u.dot(n);
        if !(finite3(u.to_array()) && u.length() > 1e-6) {
            return Err(err(
                "u",
                format!(
                    "must be finite and not parallel to the normal, got {}",
                    self.u
                ),
            ));
        }
        for (field, h) in [("half_u", self.half_u), ("half_v", self.half_v)] {
            if h.is_nan() || h <= 0.0 {
                return Err(err(field, format!("must be positive, got {h}")));
            }
        }
        if let Some(problem) = self.motion.as_ref().and_then(Prescribed::problem) {
            return Err(err("motion", problem));
        }
        if let WallShape::Cylinder {
            radius,
            half_length,
            angular_speed,
            ..
        } = self.shape
        {
            if !(radius.is_finite() && radius > 0.0) {
                return Err(err(
                    "radius",
                    format!("must be positive and finite, got {radius}"),
                ));
            }
            if half_length.is_nan() || half_length <= 0.0 {
                return Err(err(
                    "half_length",
                    format!("must be positive, got {half_length}"),
                ));
            }
            if !angular_speed.is_finite() {
                return Err(err(
                    "angular_speed",
                    format!("must be finite, got {angular_speed}"),
                ));
            }
        }
        Ok(WallDesc {
            normal: n,
            u: u.normalize(),
            ..*self
        })
    }
}

/// An open-top rectangular box: a floor and four side walls, all moving together if shaken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxContainer {
    /// Centre of the floor's top face (m).
    pub floor_centre: Vec3,
    /// Inner width along x (m).
    pub width_x: f32,
    /// Inner width along y (m).
    pub width_y: f32,
    /// Height of the side walls above the floor (m).
    pub height: f32,
    /// Surface material of all five walls.
    pub material: MaterialId,
    /// Motion shared by the whole box (e.g. vertical shaking), if any.
    pub motion: Option<Prescribed>,
}

impl BoxContainer {
    /// The five walls of the box (floor first, then −x, +x, −y, +y).
    pub fn walls(&self) -> [WallDesc; 5] {
        let c = self.floor_centre;
        let (hx, hy, hz) = (0.5 * self.width_x, 0.5 * self.width_y, 0.5 * self.height);
        let side = |offset: Vec3, normal: Vec3, u: Vec3, half_u: f32| {
            WallDesc::rectangle(c + offset + Vec3::Z * hz, normal, u, half_u, hz)
        };
        [
            WallDesc::rectangle(c, Vec3::Z, Vec3::X, hx, hy),
            side(Vec3::new(-hx, 0.0, 0.0), Vec3::X, Vec3::Y, hy),
            side(Vec3::new(hx, 0.0, 0.0), Vec3::NEG_X, Vec3::Y, hy),
            side(Vec3::new(0.0, -hy, 0.0), Vec3::Y, Vec3::X, hx),
            side(Vec3::new(0.0, hy, 0.0), Vec3::NEG_Y, Vec3::X, hx),
        ]
        .map(|w| WallDesc {
            material: self.material,
            motion: self.motion,
            ..w
        })
    }
}
