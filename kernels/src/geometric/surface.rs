//! Convex implicit surfaces f(x) ≤ 0 of the geometrically implicit stepper (Chakraborty et al.,
//! section IV): value, gradient and Hessian in world coordinates as functions of the body's pose.
//!
//! Each surface is written in its body frame, y = Rᵀ(x − c) for a body at centre c with rotation
//! R; then f(x) = f_b(y), ∇f(x) = R ∇f_b(y) and ∇²f(x) = R ∇²f_b(y) Rᵀ.

use glam::{DMat3, DQuat, DVec3};

/// Where a rigid body is: centre of mass and orientation (a unit quaternion, body → world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Centre of mass in world coordinates.
    pub position: DVec3,
    /// Rotation body → world.
    pub orientation: DQuat,
}

impl Pose {
    /// Unrotated, with the centre at `position`.
    pub fn at(position: DVec3) -> Self {
        Pose {
            position,
            orientation: DQuat::IDENTITY,
        }
    }

    /// The body-frame coordinates y = Rᵀ(x − c) of the world point `x`.
    pub fn to_body(&self, x: DVec3) -> DVec3 {
        self.orientation.inverse() * (x - self.position)
    }

    /// The world point of the body-frame point `y`: x = c + R y.
    pub fn to_world(&self, y: DVec3) -> DVec3 {
        self.position + self.orientation * y
    }

    /// The pose after a step h with velocity v and angular velocity ω (the kinematic map
    /// q^{ℓ+1} = q^ℓ + h G ν of equation (4), its rotation integrated exactly by the exponential
    /// map so the quaternion stays a unit one): c + h v, exp(h ω) R.
    pub fn advanced(&self, h: f64, v: DVec3, omega: DVec3) -> Pose {
        Pose {
            position: self.position + h * v,
            orientation: (rotation_of(h * omega) * self.orientation).normalize(),
        }
    }
}

/// The unit quaternion of the rotation vector `theta` (axis θ/|θ|, angle |θ|), smooth at θ = 0
/// (sin(|θ|/2)/|θ| by its Taylor series there).
pub fn rotation_of(theta: DVec3) -> DQuat {
    let angle = theta.length();
    let half_sinc = if angle < 1e-4 {
        0.5 - angle * angle / 48.0
    } else {
        (0.5 * angle).sin() / angle
    };
    let v = theta * half_sinc;
    DQuat::from_xyzw(v.x, v.y, v.z, (0.5 * angle).cos())
}

/// A convex body given by one implicit inequality f ≤ 0 in its body frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ImplicitSurface {
    /// The ellipsoid (y₁/a)² + (y₂/b)² + (y₃/c)² − 1 ≤ 0 with semi-axes (a, b, c) along the
    /// body axes; a sphere of radius r is the ellipsoid (r, r, r). The planar disc of the paper's
    /// example 1 is the sphere of its radius on a body whose out-of-plane motion is locked (see
    /// [`crate::geometric::RigidBody::planar_disc`]): in its plane the two are the same circle
    /// f(x, y) = (x − q_x)² + (y − q_y)² − r² (scaled by 1/r²).
    Ellipsoid {
        /// Semi-axes (a, b, c) along the body's x, y and z axes.
        semi_axes: DVec3,
    },
    /// The half-space n·y ≤ 0 below the plane through the body's origin with outward unit
    /// normal n (body frame): a floor or a wall.
    HalfSpace {
        /// Outward unit normal in the body frame.
        normal: DVec3,
    },
}

impl ImplicitSurface {
    /// The sphere of radius `r`: the ellipsoid (r, r, r).
    pub fn sphere(r: f64) -> Self {
        ImplicitSurface::Ellipsoid {
            semi_axes: DVec3::splat(r),
        }
    }

    /// f_b(y) in the body frame.
    fn body_value(&self, y: DVec3) -> f64 {
        match *self {
            ImplicitSurface::Ellipsoid { semi_axes } => (y / semi_axes).length_squared() - 1.0,
            ImplicitSurface::HalfSpace { normal } => normal.dot(y),
        }
    }

    /// ∇f_b(y) in the body frame.
    fn body_gradient(&self, y: DVec3) -> DVec3 {
        match *self {
            ImplicitSurface::Ellipsoid { semi_axes } => 2.0 * y / (semi_axes * semi_axes),
            ImplicitSurface::HalfSpace { normal } => normal,
        }
    }

    /// ∇²f_b in the body frame (constant for both surfaces).
    fn body_hessian(&self) -> DMat3 {
        match *self {
            ImplicitSurface::Ellipsoid { semi_axes } => {
                DMat3::from_diagonal(2.0 / (semi_axes * semi_axes))
            }
            ImplicitSurface::HalfSpace { .. } => DMat3::ZERO,
        }
    }

    /// f(x) of the body at `pose`: negative inside, zero on the surface, positive outside.
    pub fn value(&self, pose: &Pose, x: DVec3) -> f64 {
        self.body_value(pose.to_body(x))
    }

    /// ∇f(x) in world coordinates, R ∇f_b(y).
    pub fn gradient(&self, pose: &Pose, x: DVec3) -> DVec3 {
        pose.orientation * self.body_gradient(pose.to_body(x))
    }

    /// ∇²f(x) in world coordinates, R ∇²f_b Rᵀ.
    pub fn hessian(&self, pose: &Pose, _x: DVec3) -> DMat3 {
        let r = DMat3::from_quat(pose.orientation);
        r * self.body_hessian() * r.transpose()
    }

    /// The unit outward normal ∇f/‖∇f‖ at `x`.
    pub fn unit_normal(&self, pose: &Pose, x: DVec3) -> DVec3 {
        self.gradient(pose, x).normalize()
    }

    /// A point of the surface that lies farthest along the world direction `d` (the support
    /// point; for a half-space, the foot of `towards` on its plane): the starting guess of the
    /// closest-point search.
    pub fn support_point(&self, pose: &Pose, d: DVec3, towards: DVec3) -> DVec3 {
        match *self {
            ImplicitSurface::Ellipsoid { semi_axes } => {
                let db = pose.orientation.inverse() * d;
                let scaled = semi_axes * db;
                let len = scaled.length();
                let y = if len > 0.0 {
                    semi_axes * scaled / len
                } else {
                    DVec3::ZERO
                };
                pose.to_world(y)
            }
            ImplicitSurface::HalfSpace { normal } => {
                let y = pose.to_body(towards);
                pose.to_world(y - normal * normal.dot(y))
            }
        }
    }
}
