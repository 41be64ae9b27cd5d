//! Bodies tied together: V13 (the anitescu slides' stiff example: two blocks linked by a
//! spring–damper, explicit against linearly implicit, against a distance joint) and V14
//! (hart-anitescu §2: a joint's drift with and without the stabilising term Θ/h).

use crate::case::{About, Case, CaseError, Setup};
use crate::{load, G};
use grains::world::World;
use grains::{Check, StepError};
use grains_app::scene::SceneError;

/// One V13 run: how the link between the two bodies is modelled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Link {
    /// A spring–damper of damping δ (N s/m) and stiffness k (N/m, rest length 3 m).
    Spring {
        /// Damping δ.
        damping: f32,
        /// Stiffness k.
        stiffness: f32,
        /// Explicit (a force of stage 1) rather than linearly implicit.
        explicit: bool,
    },
    /// A distance joint between the centres (the rigid link the stiff ones should approach).
    Joint,
}

impl std::fmt::Display for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match *self {
            Link::Spring {
                damping,
                stiffness,
                explicit,
            } => {
                let how = if explicit { "explicit" } else { "implicit" };
                if stiffness > 0.0 {
                    write!(f, "{how} δ = {damping:e}, k = {stiffness:e}")
                } else {
                    write!(f, "{how} δ = {damping}")
                }
            }
            Link::Joint => write!(f, "distance joint"),
        }
    }
}

/// The V13 links of the slides' stiff example: the explicit damper at δ = 20 and 100, the
/// linearly implicit one at 100 and 10⁴, and a very stiff implicit link (k = 10⁶, δ = 10⁴).
pub const V13_LINKS: [Link; 5] = [
    Link::Spring {
        damping: 20.0,
        stiffness: 0.0,
        explicit: true,
    },
    Link::Spring {
        damping: 100.0,
        stiffness: 0.0,
        explicit: true,
    },
    Link::Spring {
        damping: 100.0,
        stiffness: 0.0,
        explicit: false,
    },
    Link::Spring {
        damping: 1e4,
        stiffness: 0.0,
        explicit: false,
    },
    Link::Spring {
        damping: 1e4,
        stiffness: 1e6,
        explicit: false,
    },
];

/// Speed (m/s) above which a V13 run counts as blown up and stops: 50 × the undamped response
/// F/(m ω) = 20 m/s of one body to 20 cos t.
pub const V13_BLOW_UP: f32 = 1000.0;

/// The bound a stable V13 run stays under: the velocity amplitude F/(m ω) = 20 m/s of a free unit
/// mass under 20 cos t (linked to the other body and slowed by friction, it moves less).
pub const V13_STABLE_SPEED: f32 = 20.0;

/// What one V13 run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct DamperRun {
    /// The link.
    pub link: Link,
    /// Largest speed of either body over the run (m/s), up to the blow-up.
    pub max_speed: f32,
    /// When the speed passed [`V13_BLOW_UP`] (s); `None`: the run reached its end.
    pub blown_up_at: Option<f64>,
    /// x of the left and right centres after every step (m).
    pub path: Vec<[f32; 2]>,
}

impl DamperRun {
    /// Stable: ran to the end with both speeds under [`V13_STABLE_SPEED`].
    pub fn stable(&self) -> bool {
        self.blown_up_at.is_none() && self.max_speed <= V13_STABLE_SPEED
    }

    /// Largest |x − x_ref| of the left body against `reference` over the common steps (m).
    pub fn distance_to(&self, reference: &DamperRun) -> f32 {
        self.path
            .iter()
            .zip(&reference.path)
            .map(|(a, b)| (a[0] - b[0]).abs())
            .fold(0.0, f32::max)
    }

    /// Largest change of the distance between the centres from its start (m).
    pub fn stretch(&self) -> f32 {
        let length = |p: &[f32; 2]| p[1] - p[0];
        let start = self.path.first().map_or(0.0, length);
        self.path
            .iter()
            .map(|p| (length(p) - start).abs())
            .fold(0.0, f32::max)
    }
}

/// V13's world from `scenes/v13_damper.toml` with its spring replaced by `link` (a variant,
/// [`Setup::variant`]).
pub fn v13_world(setup: &Setup, link: Link) -> Result<(World, u64), SceneError> {
    let scene = setup.variant("v13_damper", |t| match link {
        Link::Spring {
            damping,
            stiffness,
            explicit,
        } => {
            if let Some(toml::Value::Array(springs)) = t.get_mut("springs") {
                if let Some(toml::Value::Table(s)) = springs.first_mut() {
                    s.insert("damping".into(), toml::Value::Float(damping as f64));
                    s.insert("stiffness".into(), toml::Value::Float(stiffness as f64));
                    let how = if explicit { "explicit" } else { "implicit" };
                    s.insert("integration".into(), toml::Value::String(how.into()));
                }
            }
        }
        Link::Joint => {
            t.remove("springs");
            let mut joint = toml::Table::new();
            joint.insert("kind".into(), toml::Value::String("distance".into()));
            joint.insert("a".into(), toml::Value::String("left".into()));
            joint.insert("b".into(), toml::Value::String("right".into()));
            t.insert(
                "joints".into(),
                toml::Value::Array(vec![toml::Value::Table(joint)]),
            );
        }
    })?;
    let mut scene = scene;
    if let Link::Spring { explicit: true, .. } = link {
        // The explicit damper at δ = 100 is the case's blow-up: it must run until its speed
        // passes V13_BLOW_UP, which the energy check would stop three steps in.
        scene.settings_mut().health.energy = Check::Off;
    }
    Ok((scene.world(setup.threads)?, scene.total_steps()))
}

/// V13 (anitescu slides, stiff example): runs `steps` steps of a world from [`v13_world`]
/// (bodies 0 and 1), stopping early if a speed passes [`V13_BLOW_UP`].
pub fn v13(mut w: World, link: Link, steps: u64) -> Result<DamperRun, StepError> {
    let mut run = DamperRun {
        link,
        max_speed: 0.0,
        blown_up_at: None,
        path: Vec::with_capacity(steps as usize),
    };
    for _ in 0..steps {
        w.step()?;
        let speed = w.velocity(0).length().max(w.velocity(1).length());
        if speed.is_nan() || speed > V13_BLOW_UP {
            run.blown_up_at = Some(w.time());
            break;
        }
        run.max_speed = run.max_speed.max(speed);
        run.path.push([w.position(0).x, w.position(1).x]);
    }
    Ok(run)
}

/// The V13 runs of [`V13_LINKS`] and the distance-joint reference, last.
pub fn v13_runs(setup: &Setup) -> Result<Vec<DamperRun>, String> {
    V13_LINKS
        .iter()
        .chain(&[Link::Joint])
        .map(|&link| {
            let (w, n) = v13_world(setup, link).map_err(|e| e.to_string())?;
            v13(w, link, n).map_err(|e| e.to_string())
        })
        .collect()
}

/// How close a stiff link's left body stays to the joint's: 1 % of the 3 m between the bodies.
pub const V13_LIKE_A_JOINT: f32 = 0.03;

/// V13's verdict on the runs of [`v13_runs`]: the explicit damper stable at δ = 20 and blown
/// up at δ = 100; the linearly implicit one stable at 100 and 10⁴; the δ = 10⁴ and the k = 10⁶
/// links within [`V13_LIKE_A_JOINT`] of the distance joint's path.
pub fn v13_passes(runs: &[DamperRun]) -> bool {
    let [explicit_20, explicit_100, implicit_100, damper, stiff, joint] = runs else {
        return false;
    };
    explicit_20.stable()
        && explicit_100.blown_up_at.is_some()
        && implicit_100.stable()
        && damper.stable()
        && stiff.stable()
        && joint.stable()
        && damper.distance_to(joint) <= V13_LIKE_A_JOINT
        && stiff.distance_to(joint) <= V13_LIKE_A_JOINT
}

/// One line per V13 run.
pub fn v13_details(runs: &[DamperRun]) -> Vec<String> {
    let joint = runs.last();
    runs.iter()
        .map(|r| {
            let verdict = match r.blown_up_at {
                Some(t) => format!("blows up (|v| > {V13_BLOW_UP} m/s) at t = {t:.2} s"),
                None if r.stable() => format!("stable, max |v| {:.2} m/s", r.max_speed),
                None => format!("unstable, max |v| {:.2} m/s", r.max_speed),
            };
            let like = match joint {
                Some(j) if r.link != Link::Joint && r.blown_up_at.is_none() => format!(
                    "; left body within {:.1e} m of the joint's, link length ±{:.1e} m",
                    r.distance_to(j),
                    r.stretch()
                ),
                _ => format!("; link length ±{:.1e} m", r.stretch()),
            };
            format!("{:<26} {verdict}{like}", r.link.to_string())
        })
        .collect()
}

/// Steps of every V14 run.
pub const V14_STEPS: u64 = 10_000;

/// What one V14 run measured: the joints' positional violation ‖Θ‖ after each step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointDrift {
    /// Time step h (s).
    pub h: f32,
    /// Whether the joints carried the Θ/h term.
    pub stabilised: bool,
    /// Largest ‖Θ‖ of any joint over the first tenth of the steps (m).
    pub early: f32,
    /// Largest ‖Θ‖ over the last tenth (m).
    pub late: f32,
    /// Largest ‖Θ‖ over the run (m).
    pub max: f32,
    /// Largest angular speed of any body over the run (rad/s): a joint whose arm ℓ turns at ω
    /// drifts by about ½ h² ω² ℓ per step.
    pub max_spin: f32,
}

/// V14's world `name` (`v14_pendulum` or `v14_chain`) at step `h` (None: the file's), with or
/// without the Θ/h term on every joint (a variant, [`Setup::variant`]).
pub fn v14_world(
    setup: &Setup,
    name: &str,
    h: Option<f32>,
    stabilise: bool,
) -> Result<World, SceneError> {
    let scene = setup.variant(name, |t| {
        if let Some(toml::Value::Array(joints)) = t.get_mut("joints") {
            for j in joints {
                if let toml::Value::Table(j) = j {
                    j.insert("stabilise".into(), toml::Value::Boolean(stabilise));
                }
            }
        }
    })?;
    let mut scene = scene;
    if let Some(h) = h {
        scene.settings_mut().h = h;
    }
    scene.world(setup.threads)
}

/// V14 (hart-anitescu §2): steps `w` [`V14_STEPS`] times, tracking the largest positional
/// violation ‖Θ‖ of its joints.
pub fn v14(mut w: World, stabilised: bool) -> Result<JointDrift, StepError> {
    let tenth = V14_STEPS / 10;
    let mut d = JointDrift {
        h: w.settings().h,
        stabilised,
        early: 0.0,
        late: 0.0,
        max: 0.0,
        max_spin: 0.0,
    };
    for step in 1..=V14_STEPS {
        w.step()?;
        let theta = (0..w.joint_count())
            .map(|j| w.joint_violation(j).0)
            .fold(0.0f32, f32::max);
        d.max = d.max.max(theta);
        let spin = (0..w.len())
            .map(|i| w.angular_velocity(i).length())
            .fold(0.0f32, f32::max);
        d.max_spin = d.max_spin.max(spin);
        if step <= tenth {
            d.early = d.early.max(theta);
        }
        if step > V14_STEPS - tenth {
            d.late = d.late.max(theta);
        }
    }
    Ok(d)
}

/// The V14 runs: the pendulum with Θ/h at h and 2h and without it at h, then the chain with and
/// without it at h (h from the scene files).
pub fn v14_runs(setup: &Setup) -> Result<Vec<JointDrift>, String> {
    let h = load(&setup.scenes, "v14_pendulum")
        .map_err(|e| e.to_string())?
        .settings()
        .h;
    [
        ("v14_pendulum", h, true),
        ("v14_pendulum", 2.0 * h, true),
        ("v14_pendulum", h, false),
        ("v14_chain", h, true),
        ("v14_chain", h, false),
    ]
    .into_iter()
    .map(|(name, h, stabilise)| {
        let w = v14_world(setup, name, Some(h), stabilise).map_err(|e| e.to_string())?;
        v14(w, stabilise).map_err(|e| e.to_string())
    })
    .collect()
}

/// The pendulum's drift per step with Θ/h, ½ h² ω² L at most, and ω² L ≤ 2 g at the bottom of a
/// swing released from the horizontal: ‖Θ‖ ≤ g h² (m).
pub fn v14_pendulum_bound(h: f32) -> f32 {
    G * h * h
}

/// V14's verdict on the runs of [`v14_runs`]: with Θ/h the pendulum's drift stays under
/// [`v14_pendulum_bound`] (×1.2 for the bob's own spin) and is 3 to 5 times larger at 2h (O(h²)
/// per step), and no stabilised run's drift grows (last tenth ≤ 1.5 × first tenth); without Θ/h
/// both drifts grow (last tenth ≥ 5 × first tenth) to at least 10 times the stabilised largest.
pub fn v14_passes(runs: &[JointDrift]) -> bool {
    let [pendulum, coarse, pendulum_free, chain, chain_free] = runs else {
        return false;
    };
    let ratio = coarse.max / pendulum.max;
    let drifts = |free: &JointDrift, held: &JointDrift| {
        free.late >= 5.0 * free.early && free.late >= 10.0 * held.max
    };
    pendulum.max <= 1.2 * v14_pendulum_bound(pendulum.h)
        && (3.0..=5.0).contains(&ratio)
        && [pendulum, coarse, chain]
            .iter()
            .all(|r| r.late <= 1.5 * r.early)
        && drifts(pendulum_free, pendulum)
        && drifts(chain_free, chain)
}

/// One line per V14 run.
pub fn v14_details(runs: &[JointDrift]) -> Vec<String> {
    let names = [
        "pendulum, Θ/h",
        "pendulum, Θ/h, 2h",
        "pendulum, no Θ/h",
        "chain of 10, Θ/h",
        "chain of 10, no Θ/h",
    ];
    names
        .iter()
        .zip(runs)
        .map(|(name, r)| {
            format!(
                "{name:<20} h = {:.0e}: max ‖Θ‖ {:.2e} m = {:.2} g h²; first tenth {:.2e}, last tenth {:.2e}; fastest spin {:.0} rad/s",
                r.h,
                r.max,
                r.max / v14_pendulum_bound(r.h),
                r.early,
                r.late,
                r.max_spin
            )
        })
        .collect()
}

/// V13 (anitescu slides, stiff example), `scenes/v13_damper.toml` with each link of
/// [`V13_LINKS`] and a distance joint: see [`v13_runs`].
pub struct V13;

impl Case for V13 {
    type Measured = Vec<DamperRun>;

    const ABOUT: About = About {
        id: "V13",
        title: "damper: explicit vs implicit",
        scenes: &["v13_damper"],
    };

    fn expected(&self) -> String {
        "explicit damper stable at δ = 20, blown up at δ = 100; linearly implicit stable at \
         δ = 100 and 10⁴; a very stiff link moves like a joint"
            .into()
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        Ok(v13_runs(setup)?)
    }

    fn verdict(&self, runs: &Self::Measured) -> bool {
        v13_passes(runs)
    }

    fn key_figure(&self, runs: &Self::Measured) -> String {
        let [_, explicit_100, implicit_100, damper, _, _] = &runs[..] else {
            return format!("{} runs", runs.len());
        };
        format!(
            "explicit δ = 100 {}, implicit {}",
            blow_up(explicit_100),
            stable(implicit_100.stable() && damper.stable())
        )
    }

    fn measured(&self, runs: &Self::Measured) -> String {
        let [explicit_20, explicit_100, implicit_100, damper, stiff, joint] = &runs[..] else {
            return format!("{} runs", runs.len());
        };
        format!(
            "h = 0.05 s, 10 s: explicit δ = 20 {}, δ = 100 {}; implicit δ = 100 and 10⁴ {}; \
             δ = 10⁴ and k = 10⁶ links within {:.1e} and {:.1e} m of a distance joint",
            stable(explicit_20.stable()),
            blow_up(explicit_100),
            stable(implicit_100.stable() && damper.stable()),
            damper.distance_to(joint),
            stiff.distance_to(joint),
        )
    }

    fn details(&self, runs: &Self::Measured) -> Vec<String> {
        v13_details(runs)
    }
}

/// "stable" or "unstable".
fn stable(ok: bool) -> &'static str {
    if ok {
        "stable"
    } else {
        "unstable"
    }
}

/// When a V13 run blew up, or "stable".
fn blow_up(run: &DamperRun) -> String {
    run.blown_up_at
        .map_or("stable".into(), |t| format!("blown up at {t:.2} s"))
}

/// V14 (hart-anitescu §2), `scenes/v14_pendulum.toml` and `scenes/v14_chain.toml` with and
/// without Θ/h: see [`v14_runs`].
pub struct V14;

impl Case for V14 {
    type Measured = Vec<JointDrift>;

    const ABOUT: About = About {
        id: "V14",
        title: "joint drift with/without Θ/h",
        scenes: &["v14_pendulum", "v14_chain"],
    };

    fn expected(&self) -> String {
        "joint drift O(h²) per step, no growth over 10⁴ steps with Θ/h; without Θ/h it drifts"
            .into()
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        Ok(v14_runs(setup)?)
    }

    fn verdict(&self, runs: &Self::Measured) -> bool {
        v14_passes(runs)
    }

    fn key_figure(&self, runs: &Self::Measured) -> String {
        let [pendulum, coarse, pendulum_free, _, _] = &runs[..] else {
            return format!("{} runs", runs.len());
        };
        format!(
            "pendulum ‖Θ‖ {:.2e} m, ×{:.2} at 2h; no Θ/h: {:.2e} m",
            pendulum.max,
            coarse.max / pendulum.max,
            pendulum_free.late
        )
    }

    fn measured(&self, runs: &Self::Measured) -> String {
        let [pendulum, coarse, pendulum_free, chain, chain_free] = &runs[..] else {
            return format!("{} runs", runs.len());
        };
        format!(
            "10⁴ steps: pendulum max ‖Θ‖ {:.2e} m at h = {}, {:.2e} at 2h (×{:.2}), bound g h² = \
             {:.2e}; chain {:.2e} (links at up to {:.0} rad/s: ½h²ω²ℓ = {:.1e} for ℓ = 5 cm), \
             not growing; without Θ/h {:.2e} and {:.2e} m at the end, ×{:.1} and ×{:.1} the \
             first tenth",
            pendulum.max,
            pendulum.h,
            coarse.max,
            coarse.max / pendulum.max,
            v14_pendulum_bound(pendulum.h),
            chain.max,
            chain.max_spin,
            0.5 * chain.h * chain.h * chain.max_spin.powi(2) * 0.05,
            pendulum_free.late,
            chain_free.late,
            pendulum_free.late / pendulum_free.early,
            chain_free.late / chain_free.early,
        )
    }

    fn details(&self, runs: &Self::Measured) -> Vec<String> {
        v14_details(runs)
    }
}
