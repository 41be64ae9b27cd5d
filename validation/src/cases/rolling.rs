//! Rolling without slip: V9 (a sphere released sliding on a plane starts rolling at the time and
//! speed of the closed form) and V11 (a disk rolling on a line keeps its kinetic energy).

use crate::case::{About, Case, CaseError, Setup};
use crate::G;
use grains::world::World;
use grains::StepError;

/// What V9 measured: a sphere released sliding on a plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideToRoll {
    /// First time (s) the contact point's slip |v_x − ω_y r| is below 1e-4 m/s.
    pub t_roll: f64,
    /// v_x at the end (m/s).
    pub v_end: f32,
    /// ω_y r at the end (m/s).
    pub omega_r_end: f32,
    /// Largest |v_y|, |ω_x|, |ω_z| seen (all should stay 0).
    pub off_axis: f32,
}

/// Rolling starts at t* = 2 v₀ / (7 μ g) for v₀ = 2, μ = 0.2 (s).
pub const V9_T_STAR: f64 = 2.0 * 2.0 / (7.0 * 0.2 * G as f64);
/// Rolling speed v = ω r = 5 v₀ / 7 for v₀ = 2 (m/s).
pub const V9_V_ROLL: f32 = 5.0 * 2.0 / 7.0;

impl SlideToRoll {
    /// The V9 verdict at step `h`: rolling from the step that contains t*, v and ω r at 5v₀/7 to
    /// 2e-6 m/s, no motion off the x–z plane.
    pub fn passes(&self, h: f32) -> bool {
        self.t_roll >= V9_T_STAR - 1e-6
            && self.t_roll <= V9_T_STAR + h as f64 + 1e-6
            && (self.v_end - V9_V_ROLL).abs() <= 2e-6
            && (self.omega_r_end - V9_V_ROLL).abs() <= 2e-6
            && self.off_axis == 0.0
    }
}

/// V9 (trinkle §4.1.3), world from `scenes/v9_slide_to_roll.toml`: unit sphere, m = 1,
/// I = 0.4, on a plane, v_x = 2, ω = 0, μ = 0.2; run for 1 s. Expected: rolling from
/// t* = 2v₀/(7μg) = 0.291 s with v = ω r = 5v₀/7. The state is read every step (on the GPU
/// backend: read back every step).
pub fn v9(mut w: World) -> Result<SlideToRoll, StepError> {
    let r = w.radius(0);
    let mut t_roll = f64::INFINITY;
    let mut off_axis = 0.0f32;
    while w.time() < 1.0 {
        w.step()?;
        w.sync()?;
        let (v, om) = (w.velocity(0), w.angular_velocity(0));
        off_axis = off_axis.max(v.y.abs()).max(om.x.abs()).max(om.z.abs());
        if t_roll.is_infinite() && (v.x - om.y * r).abs() < 1e-4 {
            t_roll = w.time();
        }
    }
    Ok(SlideToRoll {
        t_roll,
        v_end: w.velocity(0).x,
        omega_r_end: w.angular_velocity(0).y * r,
        off_axis,
    })
}

/// The steps h V9 runs its scene at (s).
pub const V9_STEPS: [f32; 2] = [0.12, 0.012];

/// V9 (trinkle §4.1.3), `scenes/v9_slide_to_roll.toml` at each of [`V9_STEPS`]: see [`v9`].
pub struct V9;

impl Case for V9 {
    /// Each step h with what V9 measured at it.
    type Measured = Vec<(f32, SlideToRoll)>;

    const ABOUT: About = About {
        id: "V9",
        title: "sphere sliding, then rolling",
        scenes: &["v9_slide_to_roll"],
    };

    fn expected(&self) -> String {
        format!("rolling from t* = {V9_T_STAR:.3} s (within one step), v = ω r = {V9_V_ROLL:.4}")
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        V9_STEPS
            .into_iter()
            .map(|h| {
                let mut scene = setup.scene("v9_slide_to_roll")?;
                scene.settings_mut().h = h;
                Ok((h, v9(scene.world(setup.threads)?)?))
            })
            .collect()
    }

    fn verdict(&self, runs: &Self::Measured) -> bool {
        runs.iter().all(|(h, r)| r.passes(*h))
    }

    fn key_figure(&self, runs: &Self::Measured) -> String {
        runs.iter()
            .map(|(h, r)| format!("t_roll {:.3} s at h={h}", r.t_roll))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn measured(&self, runs: &Self::Measured) -> String {
        runs.iter()
            .map(|(h, r)| {
                format!(
                    "h={h}: t_roll {:.3} s, v {:.7}, ωr {:.7}",
                    r.t_roll, r.v_end, r.omega_r_end
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// What V11 measured: a disk rolling on a line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RollingDisk {
    /// Kinetic energy at the start (J).
    pub ke_start: f64,
    /// Largest |KE(t) − KE(0)| / KE(0) over the run.
    pub max_relative_drift: f64,
}

/// V11 (chakraborty ex. 1), world from `scenes/v11_rolling_disk.toml`: disk r = 1, m = 1
/// (I = ½ m r²) rolling without slip on a line; runs `steps` steps and tracks the kinetic
/// energy ½ m v² + ½ I ω² (read back every step on the GPU backend).
pub fn v11(mut w: World, steps: u64) -> Result<RollingDisk, StepError> {
    let (m, r) = (w.mass(0) as f64, w.radius(0) as f64);
    let inertia = 0.5 * m * r * r;
    let ke = |w: &World| {
        let (v, om) = (w.velocity(0), w.angular_velocity(0));
        0.5 * m * v.length_squared() as f64 + 0.5 * inertia * om.length_squared() as f64
    };
    let ke_start = ke(&w);
    let mut max_relative_drift: f64 = 0.0;
    for _ in 0..steps {
        w.step()?;
        w.sync()?;
        max_relative_drift = max_relative_drift.max((ke(&w) - ke_start).abs() / ke_start);
    }
    Ok(RollingDisk {
        ke_start,
        max_relative_drift,
    })
}

/// V11 (chakraborty ex. 1), `scenes/v11_rolling_disk.toml`: see [`v11`].
pub struct V11;

impl Case for V11 {
    type Measured = RollingDisk;

    const ABOUT: About = About {
        id: "V11",
        title: "disk rolling on a line: energy",
        scenes: &["v11_rolling_disk"],
    };

    fn expected(&self) -> String {
        "kinetic energy constant to 1e-5 relative over 10 s".into()
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        let (w, steps) = setup.scene_run("v11_rolling_disk")?;
        Ok(v11(w, steps)?)
    }

    fn verdict(&self, r: &Self::Measured) -> bool {
        r.max_relative_drift <= 1e-5
    }

    fn key_figure(&self, r: &Self::Measured) -> String {
        format!("max relative energy drift {:.2e}", r.max_relative_drift)
    }

    fn measured(&self, r: &Self::Measured) -> String {
        format!(
            "KE₀ = {} J, max relative drift {:.2e}",
            r.ke_start, r.max_relative_drift
        )
    }
}
