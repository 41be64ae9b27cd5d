//! The rigid bodies of the geometrically implicit stepper: a convex implicit surface, a pose,
//! velocities, mass and the full 3×3 inertia tensor (these are the stepper's own bodies, not
//! the engine's `Bodies`).

use super::surface::{ImplicitSurface, Pose};
use glam::{DMat3, DQuat, DVec3};

/// One rigid body of an [`crate::geometric::ImplicitSystem`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidBody {
    /// Its shape, f ≤ 0 in the body frame.
    pub surface: ImplicitSurface,
    /// Centre of mass and orientation.
    pub pose: Pose,
    /// Linear velocity (world).
    pub velocity: DVec3,
    /// Angular velocity (world).
    pub angular_velocity: DVec3,
    /// Mass (unused for a fixed body).
    pub mass: f64,
    /// Inertia tensor about the centre of mass in the body frame (unused for a fixed body).
    pub inertia: DMat3,
    /// A fixed body never moves: its six velocities are held at zero.
    pub fixed: bool,
    /// Degrees of freedom (v_x, v_y, v_z, ω_x, ω_y, ω_z, world axes) held at their start
    /// value: the planar disc locks v_z, ω_x and ω_y.
    pub locked: [bool; 6],
    /// Constant applied force (added to the system's gravity times the mass).
    pub applied_force: DVec3,
    /// Constant applied torque.
    pub applied_torque: DVec3,
}

impl RigidBody {
    /// A free body of `surface` with `mass` and body-frame `inertia`, at rest at `pose`.
    pub fn dynamic(surface: ImplicitSurface, mass: f64, inertia: DMat3, pose: Pose) -> Self {
        RigidBody {
            surface,
            pose,
            velocity: DVec3::ZERO,
            angular_velocity: DVec3::ZERO,
            mass,
            inertia,
            fixed: false,
            locked: [false; 6],
            applied_force: DVec3::ZERO,
            applied_torque: DVec3::ZERO,
        }
    }

    /// A fixed body of `surface` at `pose` (a floor, a support).
    pub fn fixed(surface: ImplicitSurface, pose: Pose) -> Self {
        RigidBody {
            fixed: true,
            ..RigidBody::dynamic(surface, 0.0, DMat3::ZERO, pose)
        }
    }

    /// The fixed floor through the origin whose outward normal is `normal` (unit).
    pub fn floor(normal: DVec3) -> Self {
        RigidBody::fixed(ImplicitSurface::HalfSpace { normal }, Pose::at(DVec3::ZERO))
    }

    /// A uniform solid sphere of `radius` and `mass` (I = 2/5 m r²) at `position`.
    pub fn sphere(radius: f64, mass: f64, position: DVec3) -> Self {
        RigidBody::dynamic(
            ImplicitSurface::sphere(radius),
            mass,
            DMat3::from_diagonal(DVec3::splat(0.4 * mass * radius * radius)),
            Pose {
                position,
                orientation: DQuat::IDENTITY,
            },
        )
    }

    /// A uniform solid ellipsoid of `semi_axes` (a, b, c) and `mass` at `pose`: I = m/5
    /// diag(b² + c², a² + c², a² + b²).
    pub fn ellipsoid(semi_axes: DVec3, mass: f64, pose: Pose) -> Self {
        let s = semi_axes * semi_axes;
        RigidBody::dynamic(
            ImplicitSurface::Ellipsoid { semi_axes },
            mass,
            DMat3::from_diagonal(0.2 * mass * DVec3::new(s.y + s.z, s.x + s.z, s.x + s.y)),
            pose,
        )
    }

    /// The uniform disc of the paper's example 1, moving in the plane z = `position.z`: the
    /// sphere of `radius` with v_z, ω_x and ω_y locked and the disc's polar moment
    /// I_z = ½ m r² (its in-plane moments ¼ m r² never act, their rates being locked). In its
    /// plane the contact geometry is the circle's.
    pub fn planar_disc(radius: f64, mass: f64, position: DVec3) -> Self {
        let quarter = 0.25 * mass * radius * radius;
        RigidBody {
            locked: [false, false, true, true, true, false],
            ..RigidBody::dynamic(
                ImplicitSurface::sphere(radius),
                mass,
                DMat3::from_diagonal(DVec3::new(quarter, quarter, 2.0 * quarter)),
                Pose {
                    position,
                    orientation: DQuat::IDENTITY,
                },
            )
        }
    }

    /// The body with velocity `v` and angular velocity `omega`.
    pub fn with_velocity(self, v: DVec3, omega: DVec3) -> Self {
        RigidBody {
            velocity: v,
            angular_velocity: omega,
            ..self
        }
    }

    /// The inertia tensor in world axes at the current pose, R I Rᵀ.
    pub fn world_inertia(&self) -> DMat3 {
        let r = DMat3::from_quat(self.pose.orientation);
        r * self.inertia * r.transpose()
    }

    /// Kinetic energy ½ m v² + ½ ωᵀ I ω (zero for a fixed body).
    pub fn kinetic_energy(&self) -> f64 {
        if self.fixed {
            return 0.0;
        }
        0.5 * self.mass * self.velocity.length_squared()
            + 0.5
                * self
                    .angular_velocity
                    .dot(self.world_inertia() * self.angular_velocity)
    }
}
