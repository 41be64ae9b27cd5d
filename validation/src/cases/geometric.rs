//! The chakraborty paper's examples on its own geometrically implicit stepper
//! ([`grains::geometric`]): V16 (example 2, the spinning sphere), V17 (example 1, the rolling
//! disc), V18 (example 3, the sphere on two spheres) and V19 (two ellipsoids in contact: the
//! end-of-step penetration against a linearised-gap step of the same bodies). V8, V11 and V12
//! run the same examples on the engine's linearised CCP.
//!
//! The systems are built in code (double precision, the stepper's own bodies); the stepper's
//! Newton tolerance is ‖Φ‖∞ ≤ 10⁻¹⁰, which sets the tolerances of the verdicts below.

use crate::case::{About, Case, CaseError, Setup};
use glam::DVec3;
use grains::geometric::{
    ContactPair, Friction, GapModel, ImplicitError, ImplicitSurface, ImplicitSystem, Pose,
    RigidBody, StepReport,
};

/// Gravity of the examples (m/s²), in double precision (`crate::G` is the f32 9.81, which
/// differs from 9.81 by 4·10⁻⁸ relative, above the stepper's tolerance).
const G: f64 = 9.81;

/// Steps `system` `steps` times, handing every report to `each`; the most Newton iterations
/// a step took and their mean.
fn run(
    system: &mut ImplicitSystem,
    steps: usize,
    mut each: impl FnMut(&ImplicitSystem, &StepReport),
) -> Result<(usize, f64), ImplicitError> {
    let (mut most, mut total) = (0, 0);
    for _ in 0..steps {
        let report = system.step()?;
        most = most.max(report.newton.iterations);
        total += report.newton.iterations;
        each(system, &report);
    }
    Ok((most, total as f64 / steps as f64))
}

/// V16's time step (s).
pub const V16_H: f64 = 0.07;

/// What V16 measured: example 2's sphere spinning in place on a plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImplicitSpin {
    /// First step end (s) with |ω_z| ≤ 10⁻⁹.
    pub t_stop: f64,
    /// Largest |ω_z(t) − 1.962 (1 − t)⁺| over the run (rad/s).
    pub max_deviation: f64,
    /// Largest ‖v‖ + ‖(ω_x, ω_y)‖ over the run.
    pub off_axis: f64,
    /// Largest |gap| at a step's end.
    pub max_gap: f64,
    /// Most and mean Newton iterations a step.
    pub iterations: (usize, f64),
}

impl ImplicitSpin {
    /// ω_z stops in the step that contains t = 1 s; it follows the line to 10⁻⁸ (the solver's
    /// tolerance 10⁻¹⁰ on impulses of order 0.1); the other components stay 0 to 10⁻⁸ and the
    /// gap to 10⁻⁹.
    pub fn passes(&self) -> bool {
        self.t_stop >= 1.0 - 1e-9
            && self.t_stop <= 1.0 + V16_H + 1e-9
            && self.max_deviation <= 1e-8
            && self.off_axis <= 1e-8
            && self.max_gap <= 1e-9
    }
}

/// Example 2 (V8's parameters): a unit sphere (m = 1, I = 0.4) spinning at ω_z = 1.962 on a
/// plane, μ = 0.2, e_r = 0.4, h = 0.07, for 25 steps. The spin torque is e_r μ m g = 0.7848,
/// so ω_z falls at 1.962 per second and stops at t = 1; all other velocities stay 0.
pub fn v16() -> Result<ImplicitSpin, ImplicitError> {
    let mut system = ImplicitSystem::new(V16_H, DVec3::new(0.0, 0.0, -G))?;
    let plane = system.add_body(RigidBody::floor(DVec3::Z))?;
    let ball = system.add_body(
        RigidBody::sphere(1.0, 1.0, DVec3::new(0.0, 0.0, 1.0))
            .with_velocity(DVec3::ZERO, DVec3::new(0.0, 0.0, 1.962)),
    )?;
    system.add_contact(ContactPair {
        a: plane,
        b: ball,
        friction: Friction::isotropic(0.2, 0.4),
    })?;
    let (mut t_stop, mut max_deviation, mut off_axis, mut max_gap) =
        (f64::INFINITY, 0.0f64, 0.0f64, 0.0f64);
    let iterations = run(&mut system, 25, |s, report| {
        let body = s.bodies()[ball];
        let t = s.time();
        let line = (1.962 * (1.0 - t)).max(0.0);
        max_deviation = max_deviation.max((body.angular_velocity.z - line).abs());
        off_axis = off_axis.max(body.velocity.length() + body.angular_velocity.truncate().length());
        max_gap = max_gap.max(report.contacts[0].gap.abs());
        if t_stop.is_infinite() && body.angular_velocity.z.abs() <= 1e-9 {
            t_stop = t;
        }
    })?;
    Ok(ImplicitSpin {
        t_stop,
        max_deviation,
        off_axis,
        max_gap,
        iterations,
    })
}

/// V16: example 2 on the geometrically implicit stepper.
pub struct V16;

impl Case for V16 {
    type Measured = ImplicitSpin;

    const ABOUT: About = About {
        id: "V16",
        title: "implicit: spinning sphere",
        scenes: &[],
    };

    fn expected(&self) -> String {
        "ω_z falls at −1.962 rad/s² and stops at t = 1.0 (the step containing it; the paper: 1.05); all else 0".into()
    }

    fn run(&self, _setup: &Setup) -> Result<Self::Measured, CaseError> {
        Ok(v16()?)
    }

    fn verdict(&self, m: &Self::Measured) -> bool {
        m.passes()
    }

    fn key_figure(&self, m: &Self::Measured) -> String {
        format!("stop at t = {:.2} s", m.t_stop)
    }

    fn measured(&self, m: &Self::Measured) -> String {
        format!(
            "h = {V16_H}: stop at t = {:.2} s, |ω_z − line| ≤ {:.1e}, off-axis ≤ {:.1e}, |gap| ≤ {:.1e}, Newton its ≤ {} (mean {:.1})",
            m.t_stop, m.max_deviation, m.off_axis, m.max_gap, m.iterations.0, m.iterations.1
        )
    }
}

/// What V17 measured: example 1's disc rolling on a line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImplicitRolling {
    /// Largest |KE(t) − KE(0)| / KE(0) over the run.
    pub drift: f64,
    /// Largest slip ‖(v_t, v_o, e_r ω_n)‖ at the contact.
    pub max_slip: f64,
    /// Centre x at t = 10 s (rolling: −30).
    pub x_end: f64,
    /// Most and mean Newton iterations a step.
    pub iterations: (usize, f64),
}

impl ImplicitRolling {
    /// Kinetic energy constant to 10⁻⁶ relative (the solver's 10⁻¹⁰ per step over 1000 steps
    /// gives 10⁻⁷), no slip beyond 10⁻⁸, the centre at −30 to 10⁻⁶.
    pub fn passes(&self) -> bool {
        self.drift <= 1e-6 && self.max_slip <= 1e-8 && (self.x_end + 30.0).abs() <= 1e-6
    }
}

/// Example 1 (V11's parameters): the unit disc (m = 1, I = ½) rolling without slip on a line at
/// ν = (−3, 0, 3), μ = 0.4, h = 0.01, for 10 s; kinetic energy 6.75.
pub fn v17() -> Result<ImplicitRolling, ImplicitError> {
    let mut system = ImplicitSystem::new(0.01, DVec3::new(0.0, -G, 0.0))?;
    let line = system.add_body(RigidBody::floor(DVec3::Y))?;
    let disc = system.add_body(
        RigidBody::planar_disc(1.0, 1.0, DVec3::new(0.0, 1.0, 0.0))
            .with_velocity(DVec3::new(-3.0, 0.0, 0.0), DVec3::new(0.0, 0.0, 3.0)),
    )?;
    system.add_contact(ContactPair {
        a: line,
        b: disc,
        friction: Friction::isotropic(0.4, 1.0),
    })?;
    let start = system.kinetic_energy();
    let (mut drift, mut max_slip) = (0.0f64, 0.0f64);
    let iterations = run(&mut system, 1000, |s, report| {
        drift = drift.max((s.kinetic_energy() - start).abs() / start);
        max_slip = max_slip.max(report.contacts[0].slip);
    })?;
    Ok(ImplicitRolling {
        drift,
        max_slip,
        x_end: system.bodies()[disc].pose.position.x,
        iterations,
    })
}

/// V17: example 1 on the geometrically implicit stepper.
pub struct V17;

impl Case for V17 {
    type Measured = ImplicitRolling;

    const ABOUT: About = About {
        id: "V17",
        title: "implicit: disc rolls, no loss",
        scenes: &[],
    };

    fn expected(&self) -> String {
        "kinetic energy constant to 1e-6 relative over 10 s at h = 0.01 (the paper: to its 1e-6 tolerance)".into()
    }

    fn run(&self, _setup: &Setup) -> Result<Self::Measured, CaseError> {
        Ok(v17()?)
    }

    fn verdict(&self, m: &Self::Measured) -> bool {
        m.passes()
    }

    fn key_figure(&self, m: &Self::Measured) -> String {
        format!("KE drift {:.1e}", m.drift)
    }

    fn measured(&self, m: &Self::Measured) -> String {
        format!(
            "KE drift ≤ {:.1e} relative, slip ≤ {:.1e}, x(10 s) = {:.6}, Newton its ≤ {} (mean {:.1})",
            m.drift, m.max_slip, m.x_end, m.iterations.0, m.iterations.1
        )
    }
}

/// What V18 measured: example 3's sphere on two fixed spheres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImplicitTwoSpheres {
    /// Time (s) each contact separates (its normal impulse 0).
    pub separation: [f64; 2],
    /// Time (s) contact 2 starts to slide (slip > 10⁻⁶).
    pub slides: f64,
    /// Slip of contacts 1 and 2 after the first step.
    pub first_slip: [f64; 2],
    /// Largest violation of the friction ellipsoid, and largest distance of a sliding
    /// contact's friction from the ellipsoid's boundary (both relative to μ p_n).
    pub cone_error: f64,
    /// Most and mean Newton iterations a step.
    pub iterations: (usize, f64),
}

impl ImplicitTwoSpheres {
    /// Contact 1 slides from the start and separates at 3.2 ± 0.2 s; contact 2 rolls from the
    /// start, slides from 3.0 ± 0.2 s and separates at 3.6 ± 0.2 s (the paper reads its times
    /// off its figures 7 and 8 as "approximately"); friction on the ellipsoid's boundary while
    /// sliding and inside it while rolling, to 10⁻⁷.
    pub fn passes(&self) -> bool {
        self.first_slip[0] > 1e-4
            && self.first_slip[1] < 1e-8
            && (self.separation[0] - 3.2).abs() <= 0.2
            && (self.slides - 3.0).abs() <= 0.2
            && (self.separation[1] - 3.6).abs() <= 0.2
            && self.cone_error <= 1e-7
    }
}

/// Example 3 (V12's parameters): a unit sphere (m = 1, I = 0.4) on two fixed spheres (radius 10
/// at the origin, radius 9 at (0, 11.4, 0)) under the force (1, 2.6, −9.81), from rest at
/// (0, 6.62105263157895, 8.78417110772903), μ = 0.2, e_r = 0.3, h = 0.01, for 4.5 s.
pub fn v18() -> Result<ImplicitTwoSpheres, ImplicitError> {
    let (mu, e_r) = (0.2, 0.3);
    let mut system = ImplicitSystem::new(0.01, DVec3::ZERO)?;
    let big = system.add_body(RigidBody::fixed(
        ImplicitSurface::sphere(10.0),
        Pose::at(DVec3::ZERO),
    ))?;
    let other = system.add_body(RigidBody::fixed(
        ImplicitSurface::sphere(9.0),
        Pose::at(DVec3::new(0.0, 11.4, 0.0)),
    ))?;
    let mut ball = RigidBody::sphere(
        1.0,
        1.0,
        DVec3::new(0.0, 6.62105263157895, 8.78417110772903),
    );
    ball.applied_force = DVec3::new(1.0, 2.6, -G);
    let ball = system.add_body(ball)?;
    for support in [big, other] {
        system.add_contact(ContactPair {
            a: support,
            b: ball,
            friction: Friction::isotropic(mu, e_r),
        })?;
    }
    let mut separation = [f64::INFINITY; 2];
    let (mut slides, mut first_slip, mut cone_error) = (f64::INFINITY, None, 0.0f64);
    let iterations = run(&mut system, 450, |s, report| {
        let t = s.time();
        for (c, state) in report.contacts.iter().enumerate() {
            if state.normal_impulse > 1e-12 {
                // The ellipsoid's norm ‖(p_t/e_t, p_o/e_o, p_r/e_r)‖ against μ p_n.
                let p = state.friction_impulse;
                let friction = DVec3::new(p.x, p.y, p.z / e_r).length();
                let bound = mu * state.normal_impulse;
                let error = if state.slip > 1e-6 {
                    (friction - bound).abs()
                } else {
                    (friction - bound).max(0.0)
                };
                cone_error = cone_error.max(error / bound);
            } else if separation[c].is_infinite() {
                separation[c] = t;
            }
        }
        first_slip.get_or_insert([report.contacts[0].slip, report.contacts[1].slip]);
        if slides.is_infinite() && report.contacts[1].slip > 1e-6 {
            slides = t;
        }
    })?;
    Ok(ImplicitTwoSpheres {
        separation,
        slides,
        first_slip: first_slip.unwrap_or([0.0; 2]),
        cone_error,
        iterations,
    })
}

/// V18: example 3 on the geometrically implicit stepper.
pub struct V18;

impl Case for V18 {
    type Measured = ImplicitTwoSpheres;

    const ABOUT: About = About {
        id: "V18",
        title: "implicit: sphere on 2 spheres",
        scenes: &[],
    };

    fn expected(&self) -> String {
        "contact 1 slides, separates ≈ 3.2 s; contact 2 rolls, slides from ≈ 3.0 s, separates ≈ 3.6 s (±0.2 s)".into()
    }

    fn run(&self, _setup: &Setup) -> Result<Self::Measured, CaseError> {
        Ok(v18()?)
    }

    fn verdict(&self, m: &Self::Measured) -> bool {
        m.passes()
    }

    fn key_figure(&self, m: &Self::Measured) -> String {
        format!(
            "separations {:.2} s, {:.2} s",
            m.separation[0], m.separation[1]
        )
    }

    fn measured(&self, m: &Self::Measured) -> String {
        format!(
            "contact 1 slides (slip {:.1e}), separates at {:.2} s; contact 2 rolls (slip {:.0e}), slides from {:.2} s, separates at {:.2} s; friction off the ellipsoid ≤ {:.0e} μ p_n; Newton its ≤ {} (mean {:.1})",
            m.first_slip[0], m.separation[0], m.first_slip[1], m.slides, m.separation[1], m.cone_error, m.iterations.0, m.iterations.1
        )
    }
}

/// V19's time steps (s).
pub const V19_STEPS: [f64; 4] = [0.01, 0.02, 0.05, 0.1];

/// One run of V19: an ellipsoid spinning on an ellipsoid with one gap model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penetration {
    /// Time step (s).
    pub h: f64,
    /// The gap model.
    pub model: GapModel,
    /// Deepest end-of-step penetration −gap (the exact closest points after each step).
    pub deepest: f64,
    /// Share of the steps that end with a normal impulse.
    pub in_contact: f64,
    /// Most Newton iterations a step.
    pub most_iterations: usize,
}

/// An ellipsoid (0.6, 0.3, 0.3), m = 1, spinning at ω = (0, 5, 0) about a horizontal axis on a
/// fixed ellipsoid (4, 4, 1), frictionless, under gravity, for 1 s at step `h` with the gap
/// `model`: its deepest end-of-step penetration, measured by the exact closest points after
/// each step.
pub fn v19_run(h: f64, model: GapModel) -> Result<Penetration, ImplicitError> {
    let mut system = ImplicitSystem::new(h, DVec3::new(0.0, 0.0, -G))?.with_gap_model(model);
    let ground = system.add_body(RigidBody::fixed(
        ImplicitSurface::Ellipsoid {
            semi_axes: DVec3::new(4.0, 4.0, 1.0),
        },
        Pose::at(DVec3::ZERO),
    ))?;
    let spinner = system.add_body(
        RigidBody::ellipsoid(
            DVec3::new(0.6, 0.3, 0.3),
            1.0,
            Pose::at(DVec3::new(0.0, 0.0, 1.3)),
        )
        .with_velocity(DVec3::ZERO, DVec3::new(0.0, 5.0, 0.0)),
    )?;
    system.add_contact(ContactPair {
        a: ground,
        b: spinner,
        friction: Friction::isotropic(0.0, 1.0),
    })?;
    let steps = (1.0 / h).round() as usize;
    let (mut deepest, mut touching, mut exact) = (0.0f64, 0, Ok(()));
    let (most_iterations, _) = run(&mut system, steps, |s, report| {
        match s.closest_points(0) {
            Ok(start) => deepest = deepest.max(-start.gap),
            Err(e) => exact = Err(e),
        }
        touching += usize::from(report.contacts[0].normal_impulse > 1e-12);
    })?;
    exact?;
    Ok(Penetration {
        h,
        model,
        deepest,
        in_contact: touching as f64 / steps as f64,
        most_iterations,
    })
}

/// V19's verdict on its runs (implicit and linearised at each h of [`V19_STEPS`]): the implicit
/// step ends every step at the solver's tolerance (penetration ≤ 10⁻⁹) while pressed on the
/// ground (a normal impulse in more than half the steps); the linearised gap's penetration
/// grows with h and passes 10⁻³ at h = 0.1.
pub fn v19_passes(runs: &[Penetration]) -> bool {
    let of = |model| runs.iter().filter(move |r| r.model == model);
    let implicit_ok =
        of(GapModel::GeometricallyImplicit).all(|r| r.deepest <= 1e-9 && r.in_contact > 0.5);
    let linearised: Vec<f64> = of(GapModel::Linearised).map(|r| r.deepest).collect();
    implicit_ok
        && runs.len() == 2 * V19_STEPS.len()
        && linearised.windows(2).all(|w| w[1] > w[0])
        && linearised.last().is_some_and(|&d| d > 1e-3)
}

/// V19: two ellipsoids in contact, implicit against linearised gap.
pub struct V19;

impl Case for V19 {
    type Measured = Vec<Penetration>;

    const ABOUT: About = About {
        id: "V19",
        title: "implicit: no ellipsoid overlap",
        scenes: &[],
    };

    fn expected(&self) -> String {
        "h = 0.01–0.1: end-of-step penetration at the solver tolerance (≤ 1e-9); a linearised gap's grows with h".into()
    }

    fn run(&self, _setup: &Setup) -> Result<Self::Measured, CaseError> {
        let mut runs = Vec::new();
        for h in V19_STEPS {
            for model in [GapModel::GeometricallyImplicit, GapModel::Linearised] {
                runs.push(v19_run(h, model)?);
            }
        }
        Ok(runs)
    }

    fn verdict(&self, runs: &Self::Measured) -> bool {
        v19_passes(runs)
    }

    fn key_figure(&self, runs: &Self::Measured) -> String {
        let deepest = |model| {
            runs.iter()
                .filter(|r| r.model == model)
                .fold(0.0f64, |m, r| m.max(r.deepest))
        };
        format!(
            "implicit ≤ {:.0e}, linearised ≤ {:.1e}",
            deepest(GapModel::GeometricallyImplicit),
            deepest(GapModel::Linearised)
        )
    }

    fn measured(&self, runs: &Self::Measured) -> String {
        format!(
            "{} runs: deepest end-of-step penetration per h below",
            runs.len()
        )
    }

    fn details(&self, runs: &Self::Measured) -> Vec<String> {
        let mut lines = vec![
            "| h (s) | implicit: penetration | in contact | Newton its ≤ | linearised: penetration | in contact |".to_string(),
            "|---|---|---|---|---|---|".to_string(),
        ];
        for pair in runs.chunks(2) {
            if let [implicit, linearised] = pair {
                lines.push(format!(
                    "| {} | {:.1e} | {:.0} % | {} | {:.2e} | {:.0} % |",
                    implicit.h,
                    implicit.deepest,
                    100.0 * implicit.in_contact,
                    implicit.most_iterations,
                    linearised.deepest,
                    100.0 * linearised.in_contact
                ));
            }
        }
        lines
    }
}
