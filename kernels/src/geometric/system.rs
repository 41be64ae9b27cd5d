//! The library API of the geometrically implicit stepper: set up a small system of rigid
//! convex bodies and contacts ([`ImplicitSystem`]) and step it.
//!
//! ```
//! use grains_kernels::geometric::{ContactPair, Friction, ImplicitSurface, ImplicitSystem, Pose, RigidBody};
//! use glam::{DQuat, DVec3};
//! let mut system = ImplicitSystem::new(0.01, DVec3::new(0.0, 0.0, -9.81)).unwrap();
//! let floor = system.add_body(RigidBody::fixed(
//!     ImplicitSurface::HalfSpace { normal: DVec3::Z },
//!     Pose { position: DVec3::ZERO, orientation: DQuat::IDENTITY },
//! )).unwrap();
//! let ball = system.add_body(RigidBody::sphere(1.0, 1.0, DVec3::new(0.0, 0.0, 1.0))).unwrap();
//! let friction = Friction { mu: 0.2, e_t: 1.0, e_o: 1.0, e_r: 0.4 };
//! system.add_contact(ContactPair { a: floor, b: ball, friction }).unwrap();
//! let report = system.step().unwrap();
//! assert!(report.contacts[0].gap.abs() < 1e-9);
//! ```

use super::body::RigidBody;
use super::closest_points::closest_points;
use super::contact::{contact_frame, ContactGeometry, ContactPair, GapModel};
use super::semismooth::{solve_semismooth, NewtonFailure, NewtonReport, NewtonSettings};
use super::step_ncp::{ContactStart, StepProblem, BODY_UNKNOWNS, CONTACT_UNKNOWNS};
use super::surface::ImplicitSurface;
use glam::DVec3;

/// The most bodies an [`ImplicitSystem`] takes (its Newton matrix is dense).
pub const MAX_BODIES: usize = 16;
/// The most contacts an [`ImplicitSystem`] takes.
pub const MAX_CONTACTS: usize = 32;

/// Why a system could not be built or stepped.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ImplicitError {
    /// More than [`MAX_BODIES`] bodies.
    #[error("the geometrically implicit stepper takes at most {limit} bodies (its Newton matrix is dense); this system would have {count}")]
    TooManyBodies {
        /// Bodies asked for.
        count: usize,
        /// [`MAX_BODIES`].
        limit: usize,
    },
    /// More than [`MAX_CONTACTS`] contacts.
    #[error("the geometrically implicit stepper takes at most {limit} contacts (its Newton matrix is dense); this system would have {count}")]
    TooManyContacts {
        /// Contacts asked for.
        count: usize,
        /// [`MAX_CONTACTS`].
        limit: usize,
    },
    /// A parameter out of its range.
    #[error("{0}")]
    BadParameter(String),
    /// The closest points of a contact could not be found at the start of a step.
    #[error("contact {contact}: closest points not found ({failure})")]
    ClosestPoints {
        /// Index of the contact.
        contact: usize,
        /// The solver's failure.
        failure: NewtonFailure,
    },
    /// The step's solution met a contact's second body on its far side (the normals at the
    /// two closest points agree instead of opposing, which the closest-point conditions also
    /// allow): a body passed through another within the step. The system is left at the start
    /// of the step.
    #[error("step at t = {time}: contact {contact}: the solution meets a body on its far side (a body would pass through another); use a smaller step h")]
    FarSide {
        /// Time at the start of the failed step.
        time: f64,
        /// Index of the contact.
        contact: usize,
    },
    /// The step's NCP was not solved; the system is left at the start of the step.
    #[error("step at t = {time}: {failure}")]
    Step {
        /// Time at the start of the failed step.
        time: f64,
        /// The solver's failure.
        failure: NewtonFailure,
    },
}

/// One contact after a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactState {
    /// Closest point on body a (end of step).
    pub a1: DVec3,
    /// Closest point on body b (end of step).
    pub a2: DVec3,
    /// Outward unit normal of body a at a₁.
    pub normal: DVec3,
    /// The step's gap: n·(a₂ − a₁) for the implicit model, the linearised prediction for the
    /// linearised one.
    pub gap: f64,
    /// Normal impulse p_n = h λ_n.
    pub normal_impulse: f64,
    /// Friction impulses (p_t, p_o) and spin impulse p_r.
    pub friction_impulse: DVec3,
    /// The contact's impulse on body b in world axes, p_n n + p_t t + p_o o (N s; body a
    /// takes its opposite), with (t, o) the step's tangents.
    pub impulse: DVec3,
    /// The scaled slip ‖(e_t v_t, e_o v_o, e_r ω_n)‖ (the paper's σ); 0 when sticking.
    pub slip: f64,
}

/// A converged step.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport {
    /// How the Newton solve went.
    pub newton: NewtonReport,
    /// Each contact's state.
    pub contacts: Vec<ContactState>,
}

/// A small system of rigid convex bodies stepped by the geometrically implicit scheme of
/// Chakraborty et al. (see [`crate::geometric`]).
#[derive(Clone, Debug)]
pub struct ImplicitSystem {
    bodies: Vec<RigidBody>,
    contacts: Vec<ContactPair>,
    h: f64,
    gravity: DVec3,
    model: GapModel,
    settings: NewtonSettings,
    time: f64,
    /// Per contact, the last step's closest points (body frames of a and b) and impulses.
    memory: Vec<Option<(DVec3, DVec3, f64, DVec3)>>,
}

impl ImplicitSystem {
    /// An empty system with time step `h` > 0 and `gravity` (acceleration).
    pub fn new(h: f64, gravity: DVec3) -> Result<Self, ImplicitError> {
        if !(h > 0.0 && h.is_finite() && gravity.is_finite()) {
            return Err(ImplicitError::BadParameter(format!(
                "time step must be positive and finite and gravity finite (h = {h}, gravity = {gravity})"
            )));
        }
        Ok(ImplicitSystem {
            bodies: Vec::new(),
            contacts: Vec::new(),
            h,
            gravity,
            model: GapModel::GeometricallyImplicit,
            settings: NewtonSettings::default(),
            time: 0.0,
            memory: Vec::new(),
        })
    }

    /// The system with `model` for its gap (the default is the geometrically implicit one).
    pub fn with_gap_model(self, model: GapModel) -> Self {
        ImplicitSystem { model, ..self }
    }

    /// The system with the Newton solver's stopping rule `settings`.
    pub fn with_newton_settings(self, settings: NewtonSettings) -> Self {
        ImplicitSystem { settings, ..self }
    }

    /// Adds a body and returns its index; refuses a [`MAX_BODIES`]+1-th body and a free body
    /// without positive mass and inertia.
    pub fn add_body(&mut self, body: RigidBody) -> Result<usize, ImplicitError> {
        if self.bodies.len() >= MAX_BODIES {
            return Err(ImplicitError::TooManyBodies {
                count: self.bodies.len() + 1,
                limit: MAX_BODIES,
            });
        }
        let inertia_ok = body.inertia.determinant() > 0.0 && body.inertia.is_finite();
        let massive = body.mass > 0.0 && body.mass.is_finite() && inertia_ok;
        if !(body.fixed || massive) {
            return Err(ImplicitError::BadParameter(format!(
                "body {}: a free body needs a positive mass and a positive-definite inertia",
                self.bodies.len()
            )));
        }
        let state_finite = body.pose.position.is_finite()
            && body.pose.orientation.is_finite()
            && body.velocity.is_finite()
            && body.angular_velocity.is_finite()
            && body.applied_force.is_finite()
            && body.applied_torque.is_finite();
        let shape_ok = match body.surface {
            ImplicitSurface::Ellipsoid { semi_axes } => {
                semi_axes.is_finite() && semi_axes.min_element() > 0.0
            }
            ImplicitSurface::HalfSpace { normal } => {
                normal.is_finite() && (normal.length() - 1.0).abs() < 1e-9
            }
        };
        if !(state_finite && shape_ok) {
            return Err(ImplicitError::BadParameter(format!(
                "body {}: its pose, velocities and applied loads must be finite, an ellipsoid's \
                 semi-axes positive and a half-space's normal a unit vector",
                self.bodies.len()
            )));
        }
        self.bodies.push(body);
        Ok(self.bodies.len() - 1)
    }

    /// Adds a contact and returns its index; refuses a [`MAX_CONTACTS`]+1-th contact, unknown
    /// or equal bodies, two fixed bodies and friction parameters out of range (μ ≥ 0,
    /// e_t, e_o > 0, e_r ≥ 0).
    pub fn add_contact(&mut self, contact: ContactPair) -> Result<usize, ImplicitError> {
        if self.contacts.len() >= MAX_CONTACTS {
            return Err(ImplicitError::TooManyContacts {
                count: self.contacts.len() + 1,
                limit: MAX_CONTACTS,
            });
        }
        let n = self.bodies.len();
        let bad = |why: String| Err(ImplicitError::BadParameter(format!("contact: {why}")));
        if contact.a >= n || contact.b >= n || contact.a == contact.b {
            return bad(format!(
                "bodies {} and {} must be two different bodies of the {n} added",
                contact.a, contact.b
            ));
        }
        if self.bodies[contact.a].fixed && self.bodies[contact.b].fixed {
            return bad("both bodies are fixed".into());
        }
        let f = contact.friction;
        let finite = [f.mu, f.e_t, f.e_o, f.e_r].iter().all(|v| v.is_finite());
        if !(finite && f.mu >= 0.0 && f.e_t > 0.0 && f.e_o > 0.0 && f.e_r >= 0.0) {
            return bad(format!(
                "friction needs μ ≥ 0, e_t, e_o > 0 and e_r ≥ 0 (got {f:?})"
            ));
        }
        self.contacts.push(contact);
        self.memory.push(None);
        Ok(self.contacts.len() - 1)
    }

    /// The bodies.
    pub fn bodies(&self) -> &[RigidBody] {
        &self.bodies
    }

    /// Time simulated so far.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Time step h.
    pub fn time_step(&self) -> f64 {
        self.h
    }

    /// Total kinetic energy of the bodies.
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies.iter().map(RigidBody::kinetic_energy).sum()
    }

    fn geometry(&self, contact: &ContactPair) -> ContactGeometry<'_> {
        let (a, b) = (&self.bodies[contact.a], &self.bodies[contact.b]);
        ContactGeometry {
            surface_a: &a.surface,
            pose_a: a.pose,
            surface_b: &b.surface,
            pose_b: b.pose,
        }
    }

    /// The exact closest points and gap of contact `c` at the current poses (for a
    /// linearised step, its true end-of-step penetration).
    pub fn closest_points(&self, c: usize) -> Result<ContactStart, ImplicitError> {
        let contact = self.contacts.get(c).ok_or_else(|| {
            ImplicitError::BadParameter(format!("no contact {c} ({} added)", self.contacts.len()))
        })?;
        let guess = self.memory[c].map(|(y1, y2, _, _)| {
            (
                self.bodies[contact.a].pose.to_world(y1),
                self.bodies[contact.b].pose.to_world(y2),
            )
        });
        closest_points(&self.geometry(contact), guess, self.settings)
            .or_else(|_| closest_points(&self.geometry(contact), None, self.settings))
            .map_err(|failure| ImplicitError::ClosestPoints {
                contact: c,
                failure,
            })
    }

    /// Advances the system by one step h: solves the step's mixed NCP (see
    /// [`crate::geometric::step_ncp`]) and moves the bodies to q^{ℓ+1} = q^ℓ + h G ν^{ℓ+1}. On
    /// failure the system is left unchanged.
    pub fn step(&mut self) -> Result<StepReport, ImplicitError> {
        let starts = (0..self.contacts.len())
            .map(|c| self.closest_points(c))
            .collect::<Result<Vec<_>, _>>()?;
        let problem = StepProblem {
            bodies: &self.bodies,
            contacts: &self.contacts,
            starts: &starts,
            h: self.h,
            gravity: self.gravity,
            model: self.model,
        };
        let mut z0 = Vec::with_capacity(
            BODY_UNKNOWNS * self.bodies.len() + CONTACT_UNKNOWNS * self.contacts.len(),
        );
        for body in &self.bodies {
            z0.extend(body.velocity.to_array());
            z0.extend(body.angular_velocity.to_array());
        }
        // The closest points start where the bodies carry them at the start velocities, so
        // that they satisfy the closest-point conditions at the guessed end poses: Newton then
        // stays on the branch of opposed normals (from the start points themselves, a fast
        // body that ends the guess deep in another can be met at its far side instead, where
        // the normals agree and the conditions hold too).
        let carried = |body: usize, point: DVec3| match self.model {
            GapModel::GeometricallyImplicit => {
                let b = &self.bodies[body];
                let end = b.pose.advanced(self.h, b.velocity, b.angular_velocity);
                end.to_world(b.pose.to_body(point))
            }
            GapModel::Linearised => point,
        };
        for ((start, memory), contact) in starts.iter().zip(&self.memory).zip(&self.contacts) {
            let (p_n, p_f) = memory.map_or((0.0, DVec3::ZERO), |m| (m.2, m.3));
            z0.extend(carried(contact.a, start.a1).to_array());
            z0.extend(carried(contact.b, start.a2).to_array());
            z0.push(p_n);
            z0.extend(p_f.to_array());
        }
        let (z, newton) = solve_semismooth(&problem, z0, self.settings).map_err(|failure| {
            ImplicitError::Step {
                time: self.time,
                failure,
            }
        })?;
        let poses = problem.end_poses(&z);
        if self.model == GapModel::GeometricallyImplicit {
            for (c, contact) in self.contacts.iter().enumerate() {
                let (a1, a2, _, _) = problem.contact_unknowns(&z, c);
                let n1 = self.bodies[contact.a]
                    .surface
                    .unit_normal(&poses[contact.a], a1);
                let n2 = self.bodies[contact.b]
                    .surface
                    .unit_normal(&poses[contact.b], a2);
                if n1.dot(n2) > 0.0 {
                    return Err(ImplicitError::FarSide {
                        time: self.time,
                        contact: c,
                    });
                }
            }
        }
        let contacts: Vec<ContactState> = (0..self.contacts.len())
            .map(|c| {
                let (a1, a2, p_n, p_f) = problem.contact_unknowns(&z, c);
                let normal = problem.contact_normal(&z, c);
                let (t, o) = contact_frame(normal, starts[c].axis);
                let gap = match self.model {
                    GapModel::GeometricallyImplicit => normal.dot(a2 - a1),
                    GapModel::Linearised => {
                        let contact = &self.contacts[c];
                        let (va, wa) = StepProblem::body_velocity(&z, contact.a);
                        let (vb, wb) = StepProblem::body_velocity(&z, contact.b);
                        let r_a = a1 - self.bodies[contact.a].pose.position;
                        let r_b = a2 - self.bodies[contact.b].pose.position;
                        starts[c].gap + self.h * normal.dot(vb + wb.cross(r_b) - va - wa.cross(r_a))
                    }
                };
                ContactState {
                    a1,
                    a2,
                    normal,
                    gap,
                    normal_impulse: p_n,
                    friction_impulse: p_f,
                    impulse: p_n * normal + p_f.x * t + p_f.y * o,
                    slip: problem.slip(&z, c),
                }
            })
            .collect();
        for (b, body) in self.bodies.iter_mut().enumerate() {
            let (v, w) = StepProblem::body_velocity(&z, b);
            body.velocity = v;
            body.angular_velocity = w;
            body.pose = poses[b];
        }
        for (c, state) in contacts.iter().enumerate() {
            let contact = &self.contacts[c];
            self.memory[c] = Some((
                self.bodies[contact.a].pose.to_body(state.a1),
                self.bodies[contact.b].pose.to_body(state.a2),
                state.normal_impulse,
                state.friction_impulse,
            ));
        }
        self.time += self.h;
        Ok(StepReport { newton, contacts })
    }
}
