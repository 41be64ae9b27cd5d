//! V15: Poisson restitution (the anitescu slides' impact model). A sphere dropped on a plane
//! rebounds to e²H.

use crate::case::{About, Case, CaseError, Setup};
use grains::world::World;
use grains::StepError;
use grains_app::scene::SceneError;

/// What V15 measured: a sphere dropped on a plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rebound {
    /// Restitution coefficient e of the sphere–plane pair.
    pub restitution: f32,
    /// Time step h (s).
    pub h: f32,
    /// Height H of the sphere's lowest point above the plane at the release (m).
    pub drop_height: f64,
    /// Time of the impact (s): the first step that ends with the sphere no longer falling.
    pub impact_time: f64,
    /// Largest height of the lowest point above the plane after the impact (m).
    pub rebound_height: f64,
}

impl Rebound {
    /// rebound height / (e² H): 1 for Poisson's rebound (NaN for e = 0).
    pub fn ratio(&self) -> f64 {
        let e = self.restitution as f64;
        self.rebound_height / (e * e * self.drop_height)
    }
}

/// V15 (anitescu slides, impact model), world from `scenes/v15_restitution.toml` (body 0 a
/// sphere released at rest above the plane z = 0, material 0 with restitution e): runs `steps`
/// steps and measures the height of the sphere's lowest point after it first stops falling.
pub fn v15(mut w: World, restitution: f32, steps: u64) -> Result<Rebound, StepError> {
    let height = |w: &World| (w.position(0).z - w.radius(0)) as f64;
    let drop_height = height(&w);
    let mut impact_time = f64::NAN;
    let mut rebound_height = f64::NAN;
    let mut fell = false;
    for _ in 0..steps {
        w.step()?;
        let vz = w.velocity(0).z;
        fell |= vz < 0.0;
        if impact_time.is_nan() && fell && vz >= 0.0 {
            impact_time = w.time();
            rebound_height = height(&w);
        }
        if !impact_time.is_nan() {
            rebound_height = rebound_height.max(height(&w));
        }
    }
    Ok(Rebound {
        restitution,
        h: w.settings().h,
        drop_height,
        impact_time,
        rebound_height,
    })
}

/// The restitution coefficients V15 runs.
pub const V15_RESTITUTION: [f32; 3] = [0.0, 0.5, 0.9];

/// V15's verdict: each run hit the plane; with e > 0 it rebounds to e²H within 1 %, with e = 0
/// its lowest point stays within 1e-6 H of the plane.
pub fn v15_passes(runs: &[Rebound]) -> bool {
    !runs.is_empty()
        && runs.iter().all(|r| {
            r.impact_time.is_finite()
                && if r.restitution > 0.0 {
                    (r.ratio() - 1.0).abs() <= 0.01
                } else {
                    r.rebound_height.abs() <= 1e-6 * r.drop_height
                }
        })
}

/// V15's world with the sphere–plane restitution `e` (the scene's material 0; a variant,
/// [`Setup::variant`]).
pub fn v15_world(setup: &Setup, e: f32) -> Result<(World, u64), SceneError> {
    let scene = setup.variant("v15_restitution", |t| {
        if let Some(toml::Value::Array(m)) = t.get_mut("materials") {
            if let Some(toml::Value::Table(g)) = m.first_mut() {
                g.insert("restitution".into(), toml::Value::Float(e as f64));
            }
        }
    })?;
    Ok((scene.world(setup.threads)?, scene.total_steps()))
}

/// V15 (anitescu slides, impact model), `scenes/v15_restitution.toml` with each restitution of
/// [`V15_RESTITUTION`]: see [`v15`].
pub struct V15;

impl Case for V15 {
    type Measured = Vec<Rebound>;

    const ABOUT: About = About {
        id: "V15",
        title: "restitution: rebound to e²H",
        scenes: &["v15_restitution"],
    };

    fn expected(&self) -> String {
        "rebound height e²H within 1 % (e = 0.5, 0.9); e = 0: no rebound".into()
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        V15_RESTITUTION
            .iter()
            .map(|&e| {
                let (w, steps) = v15_world(setup, e)?;
                Ok(v15(w, e, steps)?)
            })
            .collect()
    }

    fn verdict(&self, runs: &Self::Measured) -> bool {
        v15_passes(runs)
    }

    fn key_figure(&self, runs: &Self::Measured) -> String {
        runs.iter()
            .map(|r| {
                if r.restitution > 0.0 {
                    format!("e = {}: {:.4} e²H", r.restitution, r.ratio())
                } else {
                    format!("e = 0: {:.1e} m", r.rebound_height)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn measured(&self, runs: &Self::Measured) -> String {
        let Some(first) = runs.first() else {
            return "no runs".into();
        };
        format!(
            "H = {:.3} m, h = {} s: {}",
            first.drop_height,
            first.h,
            runs.iter()
                .map(|r| if r.restitution > 0.0 {
                    format!(
                        "e = {}: rebound {:.5} m = {:.4} e²H",
                        r.restitution,
                        r.rebound_height,
                        r.ratio()
                    )
                } else {
                    format!("e = 0: rebound {:.1e} m", r.rebound_height)
                })
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}
