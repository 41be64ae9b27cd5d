//! The geometrically implicit stepper of Chakraborty et al. ([`crate::geometric`]) as a
//! backend ([`crate::Integrator::GeometricallyImplicit`]): each step mirrors the world's
//! spheres and plane walls into a fresh [`ImplicitSystem`], steps it, and copies positions,
//! orientations and velocities back, so outputs, observables, health checks and checkpoints see
//! the world as after any other step.
//!
//! The system is built anew every step from the world's state alone (no memory of the last
//! step's closest points or impulses; Newton starts from the start-of-step velocities, the
//! closest points of the start poses and zero impulses), so a resumed run continues bit for
//! bit. Its contacts are chosen at the start of the step: every pair of spheres (one of them
//! dynamic) and every sphere–plane pair whose gap Φ is at most the world's ε̂ for that pair
//! ([`Envelope::pair`]) at the closing speed |v_a| + |v_b| + h(|a_a| + |a_b|), a bound of how
//! fast the two can close within the step (a: the acceleration by gravity and applied forces);
//! more than [`MAX_CONTACTS`] such pairs is an error of the step. Wall bodies (fixed
//! half-spaces) join the system only when some contact needs them. The `build` checks of
//! `crate::implicit` refused everything else.

use super::{StepBackend, StepInputs, WarmStart};
use crate::health::StepError;
use glam::{DMat3, DVec3, Vec3};
use grains_kernels::broad_phase::Envelope;
use grains_kernels::forces::Load;
use grains_kernels::geometric::{
    ContactPair, Friction, ImplicitError, ImplicitSurface, ImplicitSystem, Pose, RigidBody,
    MAX_CONTACTS,
};
use grains_kernels::narrow_phase::{tangent_frame, Contacts};
use grains_kernels::traffic::SweepTraffic;
use grains_kernels::{
    pair_key, wall_key, Bodies, BodyKind, ContactRow, GpuError, SolverKind, StageTimes, StepStats,
    SweepRecord, Wall, NO_BODY,
};
use std::time::Instant;

/// The stepper's state between steps: only what the world reads back (the last step's
/// contacts and impulses) and the applied forces; the physics state is the world's bodies.
#[derive(Default)]
pub(super) struct ImplicitBackend {
    /// Applied forces of the following steps.
    loads: Vec<Load>,
    /// The last step's contacts as contact rows, in key order.
    contacts: Contacts,
    /// Their impulses (γn, γt1, γt2, 0) in the rows' frames.
    impulses: Vec<[f32; 4]>,
    /// Their spin impulses (p_r, 0, 0, 0), when some material pair has spinning friction.
    moments: Vec<[f32; 4]>,
    /// Seconds spent stepping.
    seconds: f64,
}

/// One side of a candidate contact: a body or a wall.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Body(usize),
    Wall(usize),
}

/// A contact chosen at the start of a step: body `a` (the engine row's first body, the
/// stepper's b), its partner, the gap Φ at the start and the pair key.
struct Chosen {
    body: usize,
    other: Side,
    gap: f64,
    key: u64,
}

/// Inertia (kg m², about any axis) of dynamic body `i`: the engine's spheres are isotropic.
fn inertia(bodies: &Bodies, i: usize) -> f64 {
    1.0 / bodies.motion[i].inv_inertia as f64
}

/// The stepper's body for engine body `i` with the applied force `force` (N).
fn rigid_body(bodies: &Bodies, i: usize, force: DVec3) -> RigidBody {
    let p = bodies.pos_radius[i];
    let pose = Pose {
        position: p.truncate().as_dvec3(),
        orientation: bodies.orientation[i].as_dquat().normalize(),
    };
    let surface = ImplicitSurface::sphere(p.w as f64);
    if bodies.kind[i] != BodyKind::Dynamic as u32 {
        return RigidBody::fixed(surface, pose);
    }
    let m = &bodies.motion[i];
    RigidBody {
        applied_force: force,
        ..RigidBody::dynamic(
            surface,
            1.0 / m.inv_mass as f64,
            DMat3::from_diagonal(DVec3::splat(inertia(bodies, i))),
            pose,
        )
        .with_velocity(m.v().as_dvec3(), m.w().as_dvec3())
    }
}

/// The fixed half-space of plane wall `w`, its outward normal made unit in f64.
fn wall_body(w: &Wall) -> RigidBody {
    RigidBody::fixed(
        ImplicitSurface::HalfSpace {
            normal: w.n().as_dvec3().normalize(),
        },
        Pose::at(w.o().as_dvec3()),
    )
}

/// The contacts of the step: the pairs whose start gap is within ε̂ (see the module
/// documentation), in ascending key order.
fn choose_contacts(
    bodies: &Bodies,
    walls: &[Wall],
    accel: &[f64],
    envelope: Envelope,
    h: f32,
) -> Vec<Chosen> {
    let dynamic = |i: usize| bodies.kind[i] == BodyKind::Dynamic as u32;
    let reach = |i: usize| {
        if dynamic(i) {
            bodies.motion[i].v().length() as f64 + h as f64 * accel[i]
        } else {
            0.0
        }
    };
    let within = |gap: f64, closing: f64| gap <= envelope.pair(closing as f32, h) as f64;
    let mut chosen = Vec::new();
    for i in 0..bodies.len() {
        let ci = bodies.pos_radius[i].truncate().as_dvec3();
        let ri = bodies.pos_radius[i].w as f64;
        for j in i + 1..bodies.len() {
            if !(dynamic(i) || dynamic(j)) {
                continue;
            }
            let cj = bodies.pos_radius[j].truncate().as_dvec3();
            let gap = (ci - cj).length() - ri - bodies.pos_radius[j].w as f64;
            if within(gap, reach(i) + reach(j)) {
                chosen.push(Chosen {
                    body: i,
                    other: Side::Body(j),
                    gap,
                    key: pair_key(i as u32, j as u32),
                });
            }
        }
        if !dynamic(i) {
            continue;
        }
        for (w, wall) in walls.iter().enumerate() {
            let n = wall.n().as_dvec3().normalize();
            let gap = (ci - wall.o().as_dvec3()).dot(n) - ri;
            if within(gap, reach(i)) {
                chosen.push(Chosen {
                    body: i,
                    other: Side::Wall(w),
                    gap,
                    key: wall_key(i as u32, w as u32),
                });
            }
        }
    }
    chosen.sort_by_key(|c| c.key);
    chosen
}

impl ImplicitBackend {
    /// Builds the step's system from `bodies` and the chosen `contacts` (and the wall bodies
    /// they need), or says why it cannot.
    fn system(
        &self,
        bodies: &Bodies,
        inputs: &StepInputs,
        contacts: &[Chosen],
    ) -> Result<ImplicitSystem, ImplicitError> {
        let p = inputs.params;
        let mut system = ImplicitSystem::new(p.h as f64, p.gravity.as_dvec3())?;
        let mut force = vec![DVec3::ZERO; bodies.len()];
        for l in &self.loads {
            force[l.body as usize] += l.force.as_dvec3();
        }
        for (i, &f) in force.iter().enumerate() {
            system.add_body(rigid_body(bodies, i, f))?;
        }
        let mut wall_index = vec![None; inputs.walls.len()];
        for c in contacts {
            let a = match c.other {
                Side::Body(j) => j,
                Side::Wall(w) => match wall_index[w] {
                    Some(k) => k,
                    None => {
                        let k = system.add_body(wall_body(&inputs.walls[w]))?;
                        wall_index[w] = Some(k);
                        k
                    }
                },
            };
            let materials = match c.other {
                Side::Body(j) => (bodies.material[c.body], bodies.material[j]),
                Side::Wall(w) => (bodies.material[c.body], inputs.walls[w].material()),
            };
            let friction = Friction::isotropic(
                inputs.friction.mu(materials.0, materials.1) as f64,
                inputs.friction.spinning(materials.0, materials.1) as f64,
            );
            system.add_contact(ContactPair {
                a,
                b: c.body,
                friction,
            })?;
        }
        Ok(system)
    }
}

/// The step's failure as the world reports it.
fn failed(steps: u64, problem: impl ToString) -> StepError {
    StepError::Implicit {
        step: steps,
        problem: problem.to_string(),
    }
}

impl StepBackend for ImplicitBackend {
    fn set_loads(&mut self, loads: &[Load]) {
        self.loads.clear();
        self.loads.extend_from_slice(loads);
    }

    fn step(
        &mut self,
        bodies: &mut Bodies,
        inputs: &StepInputs,
        steps: u64,
        _read_back: bool,
    ) -> Result<StepStats, StepError> {
        let start = Instant::now();
        let p = inputs.params;
        let g = p.gravity.as_dvec3().length();
        let mut accel = vec![g; bodies.len()];
        for l in &self.loads {
            let i = l.body as usize;
            accel[i] += (l.force.length() * bodies.motion[i].inv_mass) as f64;
        }
        let chosen = choose_contacts(bodies, inputs.walls, &accel, p.envelope, p.h);
        if chosen.len() > MAX_CONTACTS {
            return Err(failed(
                steps,
                format!(
                    "{} contacts are within ε̂, but the geometrically implicit integrator takes at most {MAX_CONTACTS} per step (its Newton matrix is dense); use fewer bodies or a smaller envelope",
                    chosen.len()
                ),
            ));
        }
        let mut system = self
            .system(bodies, inputs, &chosen)
            .map_err(|e| failed(steps, e))?;
        let report = system.step().map_err(|e| failed(steps, e))?;
        for (i, b) in system.bodies().iter().enumerate().take(bodies.len()) {
            if b.fixed {
                continue;
            }
            bodies.pos_radius[i] = b.pose.position.as_vec3().extend(bodies.pos_radius[i].w);
            bodies.orientation[i] = b.pose.orientation.as_quat().normalize();
            bodies.motion[i].linear = b.velocity.as_vec3().to_array();
            bodies.motion[i].angular = b.angular_velocity.as_vec3().to_array();
        }
        self.contacts.rows.clear();
        self.contacts.keys.clear();
        self.impulses.clear();
        self.moments.clear();
        let spin = !inputs.friction.spinning.is_empty();
        for (c, state) in chosen.iter().zip(&report.contacts) {
            let n = state.normal.as_vec3();
            let (t1, t2) = tangent_frame(n, false);
            let impulse = state.impulse.as_vec3();
            let centre = |i: usize| bodies.pos_radius[i].truncate();
            let (body_b, rb) = match c.other {
                Side::Body(j) => (j as u32, state.a1.as_vec3() - centre(j)),
                Side::Wall(_) => (NO_BODY, Vec3::ZERO),
            };
            self.contacts.rows.push(ContactRow {
                n: n.to_array(),
                phi: c.gap as f32,
                t1: t1.to_array(),
                mu: inputs.friction.mu(
                    bodies.material[c.body],
                    match c.other {
                        Side::Body(j) => bodies.material[j],
                        Side::Wall(w) => inputs.walls[w].material(),
                    },
                ),
                t2: t2.to_array(),
                ra: (state.a2.as_vec3() - centre(c.body)).to_array(),
                rb: rb.to_array(),
                body_a: c.body as u32,
                body_b,
                ..ContactRow::default()
            });
            self.contacts.keys.push(c.key);
            self.impulses.push([
                state.normal_impulse as f32,
                impulse.dot(t1),
                impulse.dot(t2),
                0.0,
            ]);
            if spin {
                self.moments
                    .push([state.friction_impulse.z as f32, 0.0, 0.0, 0.0]);
            }
        }
        let kinetic_energy = (0..bodies.len())
            .filter(|&i| bodies.kind[i] == BodyKind::Dynamic as u32)
            .map(|i| {
                let m = &bodies.motion[i];
                0.5 * m.v().length_squared() as f64 / m.inv_mass as f64
                    + 0.5 * m.w().length_squared() as f64 * inertia(bodies, i)
            })
            .sum();
        self.seconds += start.elapsed().as_secs_f64();
        Ok(StepStats {
            contacts: chosen.len(),
            iterations: report.newton.iterations as u32,
            residual: report.newton.residual as f32,
            max_penetration: chosen.iter().map(|c| -c.gap as f32).fold(0.0, f32::max),
            kinetic_energy,
        })
    }

    fn joint_impulses(&self) -> &[f32] {
        &[]
    }

    fn stage_times(&self) -> Option<StageTimes> {
        None
    }

    fn step_seconds(&self) -> f64 {
        self.seconds
    }

    fn sweep_trace(&self) -> &[SweepRecord] {
        &[]
    }

    fn sweep_traffic(&self, _solver: SolverKind) -> SweepTraffic {
        // No projected sweeps: the step is one dense Newton solve.
        SweepTraffic {
            per_contact: 0,
            per_body: 0,
        }
    }

    fn contacts(&self) -> &Contacts {
        &self.contacts
    }

    fn impulses(&self) -> &[[f32; 4]] {
        &self.impulses
    }

    fn moment_impulses(&self) -> &[[f32; 4]] {
        &self.moments
    }

    fn bodies_edited(&mut self) {}

    fn warm_start_state(&mut self) -> Result<WarmStart, GpuError> {
        // Nothing carries over between steps but the bodies.
        Ok((Vec::new(), Vec::new(), Vec::new()))
    }

    fn restore(
        &mut self,
        _steps: u64,
        _warm: (&[u64], &[[f32; 4]], &[[f32; 4]]),
        _joint_impulses: &[f32],
    ) {
        self.contacts.rows.clear();
        self.contacts.keys.clear();
        self.impulses.clear();
        self.moments.clear();
    }
}
