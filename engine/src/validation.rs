//! The seed validation cases of `VALIDATION.md`. Each case's world comes from its scene file in
//! `scenes/` (so the program, the tests and a user all run the same thing); the functions here
//! step that world and return the measured figures. [`run_case`] adds the expected values and
//! the verdict that `grains validate` prints.

use crate::motion::Prescribed;
use crate::output::Quality;
use crate::runner::{floor_height, rank_from_top};
use crate::scene::{Scene, SceneError};
use crate::settings::{Backend, Envelope};
use crate::world::World;
use grains_kernels::gpu::GpuError;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Gravity of the papers' examples (m/s²).
pub const G: f32 = 9.81;

/// The `scenes/` folder of this source tree.
pub fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("scenes")
}

/// Loads `scenes/<name>.toml` from `dir`.
pub fn load(dir: &Path, name: &str) -> Result<Scene, SceneError> {
    Scene::load(dir.join(format!("{name}.toml")))
}

/// Loads `scenes/<name>.toml` from `dir` after `edit` changes its TOML table (a variant of a
/// case: another friction, another stack size), checked like any scene file.
pub fn load_variant(
    dir: &Path,
    name: &str,
    edit: impl FnOnce(&mut toml::Table),
) -> Result<Scene, SceneError> {
    let path = dir.join(format!("{name}.toml"));
    let src = std::fs::read_to_string(&path).map_err(|e| SceneError::Read {
        file: path.clone(),
        reason: e.to_string(),
    })?;
    let mut table: toml::Table = src
        .parse()
        .map_err(|e: toml::de::Error| SceneError::Invalid {
            file: path.clone(),
            line: 0,
            key: String::new(),
            problem: e.to_string(),
        })?;
    edit(&mut table);
    Scene::parse(&path, &toml::to_string(&table).unwrap_or_default())
}

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
pub fn v9(mut w: World) -> Result<SlideToRoll, GpuError> {
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
pub fn v11(mut w: World, steps: u64) -> Result<RollingDisk, GpuError> {
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

/// What V5 (and each V6 run) measured at the end of a cannonball collapse.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cannonball {
    /// Smallest gap between two disks at the end (m); positive when all are separated.
    pub min_gap: f32,
    /// Largest height of a disk's lowest point above the tabletop at the end (m).
    pub max_lift: f32,
    /// Disks whose lowest point is within `touch` of the tabletop.
    pub on_table: usize,
    /// Disks in the stack.
    pub disks: usize,
    /// Tolerance used for "touches the tabletop" (m): the envelope ε̂ if fixed, else 5 % of r.
    pub touch: f32,
    /// Disks with a non-finite position or velocity.
    pub non_finite: usize,
    /// Wall-clock seconds of the stepping.
    pub seconds: f64,
}

/// V5 (hart-anitescu §3), world from `scenes/v5_cannonball.toml` (a cannonball stack on a
/// tabletop z = 0 between two slanted walls): runs `steps` steps and measures the separation of
/// the disks and their distance to the tabletop.
pub fn cannonball(mut w: World, steps: u64) -> Result<Cannonball, GpuError> {
    let clock = Instant::now();
    w.run(steps)?;
    let seconds = clock.elapsed().as_secs_f64();
    let n = w.len();
    let mut min_gap = f32::INFINITY;
    for i in 0..n {
        for j in i + 1..n {
            min_gap =
                min_gap.min((w.position(i) - w.position(j)).length() - w.radius(i) - w.radius(j));
        }
    }
    let touch = match w.envelope() {
        Envelope::Fixed(e) => e,
        _ => 0.05 * w.radius(0),
    };
    let lift: Vec<f32> = (0..n).map(|i| w.position(i).z - w.radius(i)).collect();
    let non_finite = (0..n)
        .filter(|&i| !(w.position(i).is_finite() && w.velocity(i).is_finite()))
        .count();
    Ok(Cannonball {
        min_gap,
        max_lift: lift.iter().copied().fold(f32::MIN, f32::max),
        on_table: lift.iter().filter(|&&l| l.abs() <= touch).count(),
        disks: n,
        touch,
        non_finite,
        seconds,
    })
}

/// What V7 / the 3-D Brazil nut measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrazilNut {
    /// Shakes (t · f) until the nut's centre first reached the top of the bed, if it did.
    pub shakes_to_top: Option<f64>,
    /// Nut rank at the start: its height above the floor / the bed's z95 above the floor.
    pub rank_start: f64,
    /// Highest rank reached.
    pub rank_max: f64,
    /// Shakes simulated.
    pub shakes: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Quality of the end state (escaped grains, overlaps).
    pub quality: Quality,
}

impl BrazilNut {
    /// The V7 verdict: the nut reached the top within 50 shakes, no grain escaped and every
    /// state stayed finite.
    pub fn passes_v7(&self) -> bool {
        self.shakes_to_top.is_some_and(|k| k <= 50.0)
            && self.quality.escaped == 0
            && self.quality.non_finite == 0
    }
}

/// Runs a Brazil-nut scene to its end on the scene's backend: the nut is the group named `nut`;
/// the box's shaker gives the frequency. "At the top" means the nut's centre is at least as high
/// as the 95th percentile of the other grains' centres (rank ≥ 1); it is checked every step (on
/// the GPU backend the state is read back every step).
pub fn brazil_nut(scene: &Scene, threads: Option<usize>) -> Result<BrazilNut, String> {
    let nut = scene
        .group("nut")
        .ok_or("the scene has no body group named \"nut\"")?;
    let bounds = scene.bounds.ok_or("the scene has no box")?;
    let f = match bounds.motion {
        Some(Prescribed::Shake { frequency, .. }) => frequency as f64,
        _ => return Err("the box is not shaken".into()),
    };
    let mut w = scene.world(threads).map_err(|e| e.to_string())?;
    let rank = |w: &World| rank_from_top(w, floor_height(Some(&bounds), w), &nut);
    let rank_start = rank(&w);
    let mut rank_max = rank_start;
    let mut shakes_to_top = None;
    let total = scene.total_steps();
    let clock = Instant::now();
    while w.steps() < total {
        w.step().map_err(|e| e.to_string())?;
        w.sync().map_err(|e| e.to_string())?;
        let r = rank(&w);
        rank_max = rank_max.max(r);
        if shakes_to_top.is_none() && r >= 1.0 {
            shakes_to_top = Some(w.time() * f);
        }
    }
    Ok(BrazilNut {
        shakes_to_top,
        rank_start,
        rank_max,
        shakes: w.time() * f,
        seconds: clock.elapsed().as_secs_f64(),
        quality: Quality::measure(&w, Some(&bounds)),
    })
}

/// Verdict of a case.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Status {
    /// The measurement meets the expectation.
    Pass,
    /// It does not.
    Fail,
    /// The case needs a feature the engine lacks (named).
    Todo(String),
}

/// One line of `grains validate`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CaseResult {
    /// Case id (V1 … V15).
    pub id: String,
    /// What VALIDATION.md expects.
    pub expected: String,
    /// What was measured.
    pub measured: String,
    /// Verdict.
    pub status: Status,
}

/// Every case id of VALIDATION.md.
pub const IDS: [&str; 15] = [
    "V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8", "V9", "V10", "V11", "V12", "V13", "V14", "V15",
];

fn todo(id: &str, expected: &str, missing: &str) -> CaseResult {
    CaseResult {
        id: id.into(),
        expected: expected.into(),
        measured: "-".into(),
        status: Status::Todo(missing.into()),
    }
}

fn verdict(ok: bool) -> Status {
    if ok {
        Status::Pass
    } else {
        Status::Fail
    }
}

/// Runs case `id` with the scene files in `dir` (None for an unknown id), on `backend` (None:
/// each scene's own).
pub fn run_case(
    id: &str,
    dir: &Path,
    threads: Option<usize>,
    backend: Option<Backend>,
) -> Option<CaseResult> {
    let id = id.to_ascii_uppercase();
    let on = |mut s: Scene| {
        if let Some(b) = backend {
            s.settings.backend = b;
        }
        s
    };
    let fail = |expected: &str, e: String| CaseResult {
        id: id.clone(),
        expected: expected.into(),
        measured: format!("error: {e}"),
        status: Status::Fail,
    };
    Some(match id.as_str() {
        "V1" => todo(
            &id,
            "‖y_CCP − y_LCP‖ → 0 as h → 0",
            "exact-Coulomb LCP reference solver; point particles",
        ),
        "V2" => todo(
            &id,
            "small non-vanishing CCP/LCP lift",
            "exact-Coulomb LCP reference solver; point particles",
        ),
        "V3" => todo(
            &id,
            "Painlevé bar: solvable, energy never increases",
            "bars/capsules and an LCP reference",
        ),
        "V4" => todo(
            &id,
            "ellipse: penetration ≥ 100× smaller with Φ/h",
            "ellipse shapes; switching off Φ/h",
        ),
        "V8" => todo(
            &id,
            "ω_z falls at −1.962 rad/s², stops at t = 1.0",
            "torsional (spinning) friction",
        ),
        "V10" => todo(
            &id,
            "bowling ball hooks, rolls after 7.5–7.9 s",
            "rolling/torsional friction e_r",
        ),
        "V12" => todo(
            &id,
            "separations near 3.2 s and 3.6 s",
            "torsional friction e_r; applied forces",
        ),
        "V13" => todo(
            &id,
            "implicit damper stable at δ = 100, 10⁴",
            "springs/dampers between bodies",
        ),
        "V14" => todo(&id, "joint drift bounded with Θ/h", "joints"),
        "V15" => todo(
            &id,
            "rebound height e²H within 1 %",
            "restitution (Poisson impact model)",
        ),
        "V5" => {
            let exp = "all 21 disks separated and on the table";
            match load(dir, "v5_cannonball").map(on) {
                Err(e) => fail(exp, e.to_string()),
                Ok(s) => match s
                    .world(threads)
                    .map_err(|e| e.to_string())
                    .and_then(|w| cannonball(w, s.total_steps()).map_err(|e| e.to_string()))
                {
                    Err(e) => fail(exp, e),
                    Ok(r) => CaseResult {
                        id: id.clone(),
                        expected: exp.into(),
                        measured: format!(
                            "{}/{} on table (max lift {:.2e}), min gap {:.4}",
                            r.on_table, r.disks, r.max_lift, r.min_gap
                        ),
                        status: verdict(r.on_table == r.disks && r.disks == 21 && r.min_gap > 0.0),
                    },
                },
            }
        }
        "V6" => {
            let exp = "every run of 10, 21, 36, 55, 210 disks × μ 0, 0.2, 0.8 completes";
            let mut parts = Vec::new();
            let mut ok = true;
            for rows in [4i64, 6, 8, 10, 20] {
                for mu in [0.0f64, 0.2, 0.8] {
                    let scene = load_variant(dir, "v6_cannonball", |t| {
                        if let Some(toml::Value::Array(b)) = t.get_mut("bodies") {
                            if let Some(toml::Value::Table(g)) = b.first_mut() {
                                g.insert("rows".into(), toml::Value::Integer(rows));
                            }
                        }
                        if let Some(toml::Value::Array(m)) = t.get_mut("materials") {
                            if let Some(toml::Value::Table(g)) = m.first_mut() {
                                g.insert("friction".into(), toml::Value::Float(mu));
                            }
                        }
                    })
                    .map(on);
                    let r = scene.map_err(|e| e.to_string()).and_then(|s| {
                        let w = s.world(threads).map_err(|e| e.to_string())?;
                        cannonball(w, s.total_steps()).map_err(|e| e.to_string())
                    });
                    match r {
                        Ok(r) => {
                            let done = r.non_finite == 0;
                            ok &= done;
                            parts.push(format!(
                                "{}@{mu}:{:.2}s{}",
                                r.disks,
                                r.seconds,
                                if done { "" } else { "(NaN)" }
                            ));
                        }
                        Err(e) => return Some(fail(exp, e)),
                    }
                }
            }
            CaseResult {
                id: id.clone(),
                expected: exp.into(),
                measured: format!("wall time per run (disks@μ): {}", parts.join(" ")),
                status: verdict(ok),
            }
        }
        "V7" => {
            let exp = "nut at the top of the bed within 30–50 shakes";
            match load(dir, "v7_brazil_nut_2d")
                .map(on)
                .map_err(|e| e.to_string())
                .and_then(|s| brazil_nut(&s, threads))
            {
                Err(e) => fail(exp, e),
                Ok(r) => CaseResult {
                    id: id.clone(),
                    expected: exp.into(),
                    measured: format!(
                        "{}; {} escaped, {} non-finite, end max overlap {:.2} r; {:.1} s wall",
                        match r.shakes_to_top {
                            Some(k) => format!(
                                "top after {k:.1} shakes (rank {:.2} → max {:.2})",
                                r.rank_start, r.rank_max
                            ),
                            None => format!(
                                "not at the top after {:.1} shakes (rank {:.2} → max {:.2})",
                                r.shakes, r.rank_start, r.rank_max
                            ),
                        },
                        r.quality.escaped,
                        r.quality.non_finite,
                        r.quality.max_pen_r,
                        r.seconds
                    ),
                    status: verdict(r.passes_v7()),
                },
            }
        }
        "V9" => {
            let exp = format!(
                "rolling from t* = {V9_T_STAR:.3} s (within one step), v = ω r = {V9_V_ROLL:.4}"
            );
            let mut parts = Vec::new();
            let mut ok = true;
            for h in [0.12f32, 0.012] {
                let r = load(dir, "v9_slide_to_roll").map(on).and_then(|mut s| {
                    s.settings.h = h;
                    s.world(threads)
                });
                match r {
                    Err(e) => return Some(fail(&exp, e.to_string())),
                    Ok(w) => {
                        let r = match v9(w) {
                            Ok(r) => r,
                            Err(e) => return Some(fail(&exp, e.to_string())),
                        };
                        ok &= r.passes(h);
                        parts.push(format!(
                            "h={h}: t_roll {:.3} s, v {:.7}, ωr {:.7}",
                            r.t_roll, r.v_end, r.omega_r_end
                        ));
                    }
                }
            }
            CaseResult {
                id: id.clone(),
                expected: exp,
                measured: parts.join("; "),
                status: verdict(ok),
            }
        }
        "V11" => {
            let exp = "kinetic energy constant to 1e-5 relative over 10 s";
            match load(dir, "v11_rolling_disk")
                .map(on)
                .and_then(|s| Ok((s.world(threads)?, s.total_steps())))
            {
                Err(e) => fail(exp, e.to_string()),
                Ok((w, n)) => match v11(w, n) {
                    Err(e) => fail(exp, e.to_string()),
                    Ok(r) => CaseResult {
                        id: id.clone(),
                        expected: exp.into(),
                        measured: format!(
                            "KE₀ = {} J, max relative drift {:.2e}",
                            r.ke_start, r.max_relative_drift
                        ),
                        status: verdict(r.max_relative_drift <= 1e-5),
                    },
                },
            }
        }
        _ => return None,
    })
}
