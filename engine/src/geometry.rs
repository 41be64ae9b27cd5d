//! Fixed and moving walls: planes, rectangles, disks and annuli, open cylinders and cone
//! frustums, and box containers built from flat walls; each may be switched on for a window of
//! time ([`ActiveWindow`]).

use crate::error::{finite3, BuildError};
use crate::material::MaterialId;
use crate::motion::Prescribed;
use crate::servo::Servo;
use glam::Vec3;
use grains_kernels::pairs::WallKind;
use grains_kernels::Wall;

/// A flat wall as a user describes it: the rectangle `origin + s·u + t·(n × u)`,
/// |s| ≤ `half_u`, |t| ≤ `half_v`, pushing spheres along `normal`. Infinite half-extents make it
/// a plane bounding a half-space.
#[derive(Clone, Copy, PartialEq)]
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
    /// The servo that moves the wall to hold a normal force ([`WallDesc::with_servo`]; an
    /// infinite plane without a `motion` only).
    pub servo: Option<Servo>,
    /// Flat (the rectangle above, or a disk) or curved (an open cylinder or cone about
    /// `normal`).
    pub shape: WallShape,
    /// When the wall exists (always, unless set by [`WallDesc::active_between`]).
    pub active: ActiveWindow,
}

/// The stretch of simulated time a wall exists: a step starting at t (= steps × h) meets it
/// when `from` ≤ t < `until`; outside it the wall has no contacts (its index stays, so the
/// other walls' contacts keep their warm start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActiveWindow {
    /// Time the wall appears (s); −∞: from the start.
    pub from: f64,
    /// Time the wall disappears (s); ∞: never.
    pub until: f64,
}

impl ActiveWindow {
    /// A wall that is always there.
    pub const ALWAYS: ActiveWindow = ActiveWindow {
        from: f64::NEG_INFINITY,
        until: f64::INFINITY,
    };

    /// True when a step starting at time `t` (s) meets the wall.
    pub fn contains(&self, t: f64) -> bool {
        self.from <= t && t < self.until
    }

    /// Why the window is malformed (NaN ends, or `until` not after `from`), if it is.
    pub fn problem(&self) -> Option<String> {
        if self.from.is_nan() || self.until.is_nan() || self.until <= self.from {
            Some(format!(
                "must have from < until, got from {} until {}",
                self.from, self.until
            ))
        } else {
            None
        }
    }
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
    /// The mantle of a cone frustum with open ends about the axis through `origin` along
    /// `normal`: its radius grows linearly from `small_radius` at `origin − half_length normal`
    /// to `large_radius` at `origin + half_length normal` (`u`, `half_u` and `half_v` are
    /// unused). Grains stay `inside` it (a hopper) or outside it.
    Cone {
        /// Radius at the small end (m), ≥ 0 (0: a full cone with its apex there).
        small_radius: f32,
        /// Radius at the large end (m), > the small one.
        large_radius: f32,
        /// Half the length of the frustum along the axis (m), finite.
        half_length: f32,
        /// True when the grains are inside the cone (a hopper), false when outside.
        inside: bool,
        /// Rate of rotation about the axis `normal` (rad/s, right-handed).
        angular_speed: f32,
    },
    /// A flat annulus centred at `origin` in the plane normal to `normal`: the points at
    /// distance `inner` ≤ ρ ≤ `outer` from the centre (a disk when `inner` is 0), pushing spheres
    /// along `normal`; its rims are edges spheres can rest on (`u`, `half_u`, `half_v` unused).
    Disk {
        /// Outer radius (m).
        outer: f32,
        /// Inner radius (m), 0 ≤ inner < outer: the hole of an orifice plate.
        inner: f32,
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
            servo: None,
            shape: WallShape::Flat,
            active: ActiveWindow::ALWAYS,
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
            servo: None,
            shape: WallShape::Flat,
            active: ActiveWindow::ALWAYS,
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

    /// The open cone frustum about the axis through `centre` along `axis`, of radius
    /// `small_radius` at `centre − half_length axis` growing to `large_radius` at
    /// `centre + half_length axis`, holding grains `inside` it (a hopper: axis up, the orifice
    /// at the small end) or outside it. It does not rotate (see [`WallDesc::rotating`]).
    pub fn cone(
        centre: Vec3,
        axis: Vec3,
        small_radius: f32,
        large_radius: f32,
        half_length: f32,
        inside: bool,
    ) -> Self {
        WallDesc {
            shape: WallShape::Cone {
                small_radius,
                large_radius,
                half_length,
                inside,
                angular_speed: 0.0,
            },
            ..WallDesc::plane(centre, axis)
        }
    }

    /// The flat annulus about `centre` with normal `normal`, radii `inner` ≤ ρ ≤ `outer` (a
    /// disk when `inner` is 0).
    pub fn disk(centre: Vec3, normal: Vec3, outer: f32, inner: f32) -> Self {
        WallDesc {
            shape: WallShape::Disk { outer, inner },
            ..WallDesc::plane(centre, normal)
        }
    }

    /// The flat cap closing the end of this cylinder or cone at `+half_length` along the axis
    /// (`large_end`) or at `−half_length`, with a central hole of radius `hole` (0: none),
    /// facing the grains (into a drum or hopper, away from a pillar), of the same material,
    /// motion and window; `None` for a flat wall. A turning mantle's cap does not turn.
    pub fn end_cap(&self, large_end: bool, hole: f32) -> Option<WallDesc> {
        let (radius, half_length, inside) = match self.shape {
            WallShape::Cylinder {
                radius,
                half_length,
                inside,
                ..
            } => (radius, half_length, inside),
            WallShape::Cone {
                small_radius,
                large_radius,
                half_length,
                inside,
                ..
            } => (
                if large_end {
                    large_radius
                } else {
                    small_radius
                },
                half_length,
                inside,
            ),
            _ => return None,
        };
        let out = if large_end { self.normal } else { -self.normal };
        Some(WallDesc {
            shape: WallShape::Disk {
                outer: radius,
                inner: hole,
            },
            origin: self.origin + half_length * out,
            normal: if inside { -out } else { out },
            ..*self
        })
    }

    /// This cylinder or cone turning about its axis at `angular_speed` (rad/s, right-handed
    /// about the axis); a flat wall is returned unchanged.
    pub fn rotating(mut self, angular_speed: f32) -> Self {
        if let WallShape::Cylinder {
            angular_speed: w, ..
        }
        | WallShape::Cone {
            angular_speed: w, ..
        } = &mut self.shape
        {
            *w = angular_speed;
        }
        self
    }

    /// This wall existing only from time `from` until time `until` (s; ±∞ for no bound): a
    /// gate that holds a fill and opens at `until`, a lid that closes at `from`.
    pub fn active_between(mut self, from: f64, until: f64) -> Self {
        self.active = ActiveWindow { from, until };
        self
    }

    /// What the wall is, in a word: "plane", "rectangle", "disk", "cylinder" or "cone".
    pub fn kind_name(&self) -> &'static str {
        match self.shape {
            WallShape::Flat if self.is_plane() => "plane",
            WallShape::Flat => "rectangle",
            WallShape::Disk { .. } => "disk",
            WallShape::Cylinder { .. } => "cylinder",
            WallShape::Cone { .. } => "cone",
        }
    }

    /// The wall's kind in the pair table ([`grains_kernels::pairs::wall_support`]): flat, or
    /// a cylinder or cone with the grains inside or outside it.
    pub fn contact_kind(&self) -> WallKind {
        match self.shape {
            WallShape::Flat | WallShape::Disk { .. } => WallKind::Flat,
            WallShape::Cylinder { inside: true, .. } | WallShape::Cone { inside: true, .. } => {
                WallKind::CurvedInside
            }
            WallShape::Cylinder { .. } | WallShape::Cone { .. } => WallKind::CurvedOutside,
        }
    }

    /// True for a cylinder wall.
    pub fn is_cylinder(&self) -> bool {
        matches!(self.shape, WallShape::Cylinder { .. })
    }

    /// True for a curved wall (a cylinder or a cone), which only some shapes meet
    /// (`crate::wall_partners`).
    pub fn is_curved(&self) -> bool {
        matches!(
            self.shape,
            WallShape::Cylinder { .. } | WallShape::Cone { .. }
        )
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

    /// This plane moved by `servo` along its normal to hold the normal force the grains push
    /// on it at the servo's target ([`crate::servo`]: the law, its state, the gain's choice).
    /// Only an infinite plane without a prescribed motion takes one; the build refuses
    /// anything else.
    pub fn with_servo(mut self, servo: Servo) -> Self {
        self.servo = Some(servo);
        self
    }

    /// The motion that bounds where the wall can go and how fast: its prescribed motion, or
    /// for a servo wall a constant velocity of the servo's largest speed along its normal (the
    /// servo goes either way along it, as far as the loads take it).
    pub(crate) fn travel(&self) -> Option<Prescribed> {
        self.motion.or_else(|| {
            self.servo.map(|s| Prescribed::Constant {
                linear: self.normal.normalize_or_zero() * s.max_speed as f32,
                angular: Vec3::ZERO,
            })
        })
    }

    /// True for an infinite plane (both half extents infinite), which bounds a solid half-space.
    pub fn is_plane(&self) -> bool {
        self.shape == WallShape::Flat && self.half_u.is_infinite() && self.half_v.is_infinite()
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
        if let Some(servo) = &self.servo {
            if let Some((field, problem)) = servo.problem() {
                return Err(err(field, problem));
            }
            if !self.is_plane() {
                return Err(err(
                    "servo",
                    format!(
                        "is for an infinite plane only, and this wall is a {}",
                        self.kind_name()
                    ),
                ));
            }
            if self.motion.is_some() {
                return Err(err(
                    "servo",
                    "cannot be combined with a prescribed motion: the servo sets the wall's motion"
                        .into(),
                ));
            }
        }
        if let Some(problem) = self.active.problem() {
            return Err(err("active", problem));
        }
        if let Some((field, problem)) = self.shape_problem() {
            return Err(err(field, problem));
        }
        Ok(WallDesc {
            normal: n,
            u: u.normalize(),
            ..*self
        })
    }
}

/// As derived, with `servo` shown only where the wall has one: the fingerprint of a wall
/// without a servo reads as it did before servos existed, so older checkpoints still match.
impl std::fmt::Debug for WallDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("WallDesc");
        d.field("origin", &self.origin)
            .field("normal", &self.normal)
            .field("u", &self.u)
            .field("half_u", &self.half_u)
            .field("half_v", &self.half_v)
            .field("material", &self.material)
            .field("motion", &self.motion);
        if let Some(servo) = &self.servo {
            d.field("servo", servo);
        }
        d.field("shape", &self.shape)
            .field("active", &self.active)
            .finish()
    }
}

impl WallDesc {
    /// The kernels' wall of this one displaced by `offset` and moving at `velocity`, without
    /// flags (switch, plane group).
    pub(crate) fn placed(&self, offset: Vec3, velocity: Vec3) -> Wall {
        let origin = (self.origin + offset).extend(0.0).to_array();
        let normal = self.normal.extend(self.material.0 as f32).to_array();
        let velocity = velocity.extend(0.0).to_array();
        match self.shape {
            WallShape::Flat => Wall {
                origin,
                normal,
                u: self.u.extend(self.half_u).to_array(),
                v: self.normal.cross(self.u).extend(self.half_v).to_array(),
                velocity,
            },
            WallShape::Cylinder {
                radius,
                half_length,
                inside,
                angular_speed,
            } => Wall::cylinder(
                origin,
                normal,
                if inside { radius } else { -radius },
                half_length,
                angular_speed,
                velocity,
            ),
            WallShape::Cone {
                small_radius,
                large_radius,
                half_length,
                inside,
                angular_speed,
            } => {
                let mid = 0.5 * (small_radius + large_radius);
                Wall::frustum(
                    origin,
                    normal,
                    if inside { mid } else { -mid },
                    (large_radius - small_radius) / (2.0 * half_length),
                    half_length,
                    angular_speed,
                    velocity,
                )
            }
            WallShape::Disk { outer, inner } => Wall::disk(origin, normal, outer, inner, velocity),
        }
    }

    /// The field and the problem of a bad cylinder, cone or disk, if it is one.
    fn shape_problem(&self) -> Option<(&'static str, String)> {
        let positive = |field, x: f32| {
            (!(x.is_finite() && x > 0.0))
                .then(|| (field, format!("must be positive and finite, got {x}")))
        };
        let half_length = |h: f32| {
            (h.is_nan() || h <= 0.0).then(|| ("half_length", format!("must be positive, got {h}")))
        };
        let spin = |w: f32| {
            (!w.is_finite()).then(|| ("angular_speed", format!("must be finite, got {w}")))
        };
        match self.shape {
            WallShape::Flat => None,
            WallShape::Cylinder {
                radius,
                half_length: h,
                angular_speed,
                ..
            } => positive("radius", radius)
                .or_else(|| half_length(h))
                .or_else(|| spin(angular_speed)),
            WallShape::Cone {
                small_radius,
                large_radius,
                half_length: h,
                angular_speed,
                ..
            } => {
                if !(small_radius.is_finite() && small_radius >= 0.0) {
                    return Some((
                        "small_radius",
                        format!("must be finite and not negative, got {small_radius}"),
                    ));
                }
                positive("large_radius", large_radius)
                    .or_else(|| {
                        (large_radius <= small_radius).then(|| {
                            (
                                "large_radius",
                                format!("must exceed the small radius {small_radius} (flip the axis for a cone widening the other way; equal radii make a cylinder), got {large_radius}"),
                            )
                        })
                    })
                    .or_else(|| positive("half_length", h))
                    .or_else(|| spin(angular_speed))
            }
            WallShape::Disk { outer, inner } => positive("outer", outer).or_else(|| {
                (!(inner.is_finite() && inner >= 0.0 && inner < outer)).then(|| {
                    (
                        "inner",
                        format!(
                            "must be at least 0 and below the outer radius {outer}, got {inner}"
                        ),
                    )
                })
            }),
        }
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
    /// The five walls of the box (floor first, then −x, +x, −y, +y); for a box that exists only
    /// for a while, add each with [`WallDesc::active_between`].
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
