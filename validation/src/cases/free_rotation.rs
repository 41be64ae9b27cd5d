//! V21, the free rotation of an asymmetric rigid body (issue 16): a box-like inertia
//! I = (1, 2, 3) kg m² spun about its intermediate axis with a small push about the others flips
//! over and back (the tennis-racket, or Dzhanibekov, effect), the spin about the middle axis
//! reversing every half period 2K(k)/s of the Jacobi elliptic solution of Euler's equations
//! ([`free_rotation_period`]), while the kinetic energy and the world angular momentum stay
//! constant. The engine integrates it by the body-frame implicit midpoint rule with the Cayley
//! turn (`grains_kernels::inertia`), which keeps both but for f32 rounding.

use crate::case::{About, Case, CaseError, Setup};
use grains::glam::DVec3;
use grains::{Body, BuildError, Material, Settings, Vec3, World};
use grains_kernels::inertia::free_rotation_period;

/// V21's principal moments (kg m²).
pub const V21_MOMENTS: Vec3 = Vec3::new(1.0, 2.0, 3.0);
/// V21's starting angular velocity in the body frame (rad/s): 3 about the intermediate axis y.
pub const V21_SPIN: Vec3 = Vec3::new(0.2, 3.0, 0.2);
/// V21's time step (s).
pub const V21_H: f32 = 1e-3;
/// V21's duration (s).
pub const V21_T: f64 = 10.0;

/// What V21 measured.
#[derive(Clone, Debug, PartialEq)]
pub struct FreeRotation {
    /// Times (s) at which the body-frame spin about y changed sign (linearly interpolated).
    pub reversals: Vec<f64>,
    /// The closed form's half period 2K(k)/s (s).
    pub half_period: f64,
    /// Largest relative change of ½ ωᵀIω over the run.
    pub energy_drift: f64,
    /// Largest relative change of the world angular momentum R I ω over the run.
    pub momentum_drift: f64,
}

impl FreeRotation {
    /// The largest relative difference between the times between reversals and the half period.
    pub fn period_error(&self) -> f64 {
        (self.reversals.windows(2))
            .map(|w| ((w[1] - w[0]) - self.half_period).abs() / self.half_period)
            .fold(0.0, f64::max)
    }

    /// At least two reversals (one whole flip and back), each gap within 1e-3 of the half
    /// period (the midpoint rule's phase error is O((h s)²) per unit time, far below it), and
    /// the energy drift ≤ 1e-4 and the momentum drift ≤ 1e-4 relative (issue 16's bound; the
    /// scheme keeps both to the f32 rounding of the state, a random walk of about 1e-7 a step).
    pub fn passes(&self) -> bool {
        self.reversals.len() >= 2
            && self.period_error() <= 1e-3
            && self.energy_drift <= 1e-4
            && self.momentum_drift <= 1e-4
    }
}

/// Runs V21 on `threads` threads (None: one).
pub fn v21(threads: Option<usize>) -> Result<FreeRotation, CaseError> {
    let settings = Settings {
        threads: threads.unwrap_or(1),
        ..Settings::default()
    };
    v21_run(v21_world(settings)?)
}

/// V21's world on `settings` (their gravity and step replaced by V21's): the body alone,
/// spinning at [`V21_SPIN`].
pub fn v21_world(settings: Settings) -> Result<World, BuildError> {
    v21_world_at(settings, V21_H)
}

/// [`v21_world`] stepped at `h` (s) instead of [`V21_H`].
pub fn v21_world_at(settings: Settings, h: f32) -> Result<World, BuildError> {
    let mut b = World::builder(Settings {
        gravity: Vec3::ZERO,
        h,
        ..settings
    });
    b.material(Material::new(0.5));
    b.body(
        Body::sphere(Vec3::ZERO, 0.1, 1.0)
            .with_principal_moments(V21_MOMENTS)
            .with_angular_velocity(V21_SPIN),
    );
    b.build()
}

/// Steps V21's world `w` for [`V21_T`] and measures the flips and drifts (the world is read
/// after every step: give a GPU world `sync_every` = 1).
pub fn v21_run(w: World) -> Result<FreeRotation, CaseError> {
    v21_run_for(w, V21_T)
}

/// [`v21_run`] for `seconds` instead of [`V21_T`]: [`FreeRotation::passes`] asks for two
/// reversals, which the closed form puts at 2.54 and 6.85 s. The world steps at its own h
/// ([`V21_H`] for [`v21_world`]).
pub fn v21_run_for(mut w: World, seconds: f64) -> Result<FreeRotation, CaseError> {
    let h = f64::from(w.settings().h);
    let moments = V21_MOMENTS.as_dvec3();
    let body_spin = |w: &World| (w.orientation(0).inverse() * w.angular_velocity(0)).as_dvec3();
    let state = |w: &World| -> (f64, DVec3) {
        let wb = body_spin(w);
        let l = w.orientation(0).as_dquat() * (moments * wb);
        (0.5 * wb.dot(moments * wb), l)
    };
    let (e0, l0) = state(&w);
    let mut out = FreeRotation {
        reversals: Vec::new(),
        half_period: 0.5 * free_rotation_period(moments, V21_SPIN.as_dvec3()),
        energy_drift: 0.0,
        momentum_drift: 0.0,
    };
    let mut last = body_spin(&w).y;
    for _ in 0..(seconds / h).round() as u64 {
        w.step()?;
        let y = body_spin(&w).y;
        if y.signum() != last.signum() {
            out.reversals.push(w.time() - h * y / (y - last));
        }
        last = y;
        let (e, l) = state(&w);
        out.energy_drift = out.energy_drift.max((e - e0).abs() / e0);
        out.momentum_drift = out.momentum_drift.max((l - l0).length() / l0.length());
    }
    Ok(out)
}

/// V21: the intermediate-axis flip.
pub struct V21;

impl Case for V21 {
    type Measured = FreeRotation;

    const ABOUT: About = About {
        id: "V21",
        title: "box flips about middle axis",
        scenes: &[],
    };

    fn expected(&self) -> String {
        format!(
            "I = (1, 2, 3), ω₀ = (0.2, 3, 0.2) rad/s: the spin about the middle axis reverses every elliptic half period 2K(k)/s (±1e-3); over {V21_T} s at h = {V21_H} energy and angular momentum drift ≤ 1e-4 relative"
        )
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        v21(setup.threads)
    }

    fn verdict(&self, m: &Self::Measured) -> bool {
        m.passes()
    }

    fn key_figure(&self, m: &Self::Measured) -> String {
        format!(
            "{} flips, period err {:.0e}, dE {:.0e}",
            m.reversals.len(),
            m.period_error(),
            m.energy_drift
        )
    }

    fn measured(&self, m: &Self::Measured) -> String {
        format!(
            "reversals at {} s, half period {:.5} s (largest gap error {:.1e} relative); energy drift {:.1e}, angular momentum drift {:.1e}",
            m.reversals
                .iter()
                .map(|t| format!("{t:.4}"))
                .collect::<Vec<_>>()
                .join(", "),
            m.half_period,
            m.period_error(),
            m.energy_drift,
            m.momentum_drift
        )
    }
}
