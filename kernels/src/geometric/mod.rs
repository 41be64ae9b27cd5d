//! The geometrically implicit time-stepper of Chakraborty, Berard, Akella and Trinkle ("An
//! implicit time-stepping method for multibody systems with intermittent contact", sections
//! III–V), for small systems of smooth convex bodies given as implicit surfaces f ≤ 0.
//!
//! Each step solves one mixed NCP whose unknowns are the end-of-step velocities, the contact
//! impulses (normal, two friction, spin) and the closest points a₁, a₂ of every contact on the
//! end-of-step bodies, so the contact conditions hold at the end of the step rather than on a
//! gap linearised at its start; friction is the quadratic ellipsoid with spin (e_t, e_o, e_r).
//! It is solved by a globalised semismooth Newton method ([`semismooth`]) in place of the
//! paper's PATH.
//!
//! Files: [`surface`] (implicit surfaces), [`body`] (rigid bodies, full inertia), [`contact`]
//! (contact pairs, friction, closest-point conditions), [`closest_points`] (the
//! minimum-distance problem at fixed poses), [`step_ncp`] (the step's equations), [`semismooth`]
//! (the solver), [`dense`] (LU), [`system`] (the API, [`ImplicitSystem`]).
//!
//! Limits: at most [`MAX_BODIES`] bodies and [`MAX_CONTACTS`] contacts (dense linear algebra);
//! contacts are listed by the caller (every listed pair is in the NCP at every step, touching
//! or not); each body is a single convex implicit surface (ellipsoid, sphere, half-space; the
//! planar disc of example 1 as a sphere with locked out-of-plane motion); the gyroscopic term
//! is explicit; no restitution (the step is fully inelastic, as in the paper).

pub mod body;
pub mod closest_points;
pub mod contact;
pub mod dense;
pub mod semismooth;
pub mod step_ncp;
pub mod surface;
pub mod system;

pub use body::RigidBody;
pub use contact::{ContactGeometry, ContactPair, Friction, GapModel};
pub use semismooth::{NewtonFailure, NewtonReport, NewtonSettings};
pub use surface::{ImplicitSurface, Pose};
pub use system::{
    ContactState, ImplicitError, ImplicitSystem, StepReport, MAX_BODIES, MAX_CONTACTS,
};
