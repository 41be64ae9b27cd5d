//! V3: the Painlevé bar of anitescu-2006 §10.1 ex. 3–4 and the slides, a capsule in planar mode
//! on the line z = 0. Dropped and starting in contact it is stepped without failure and without
//! gaining energy; without initial contact the exact CCP's path tends to the exact LCP's as
//! h → 0, and the engine follows the exact CCP.

use crate::agreement::{distance, EngineAgreement};
use crate::case::{About, Case, CaseError, Setup};
use crate::reference::{BarOnLine, BarState, FrictionModel};
use crate::G;
use glam::{Quat, Vec3};
use grains::body::Body;
use grains::error::BuildError;
use grains::geometry::WallDesc;
use grains::material::Material;
use grains::settings::{Envelope, Settings};
use grains::world::World;
use grains::Solver;
use grains::StepError;
use grains_kernels::shapes::capsule::capsule_ends;

/// The Painlevé bar of the slides: length l = 2, mass 1, I = m/16 (so that
/// 16 (cos²θ − μ cosθ sinθ) = −2: no classical solution while the tip slides), θ = 72°,
/// μ = 0.75, ω = 0.
pub const V3_THETA_DEG: f32 = 72.0;
/// The bar's friction coefficient μ.
pub const V3_MU: f32 = 0.75;
/// The bar's half length (m).
pub const V3_HALF_LENGTH: f32 = 1.0;
/// The bar's mass (kg) and inertia about its centre (kg m²), I = m/16.
pub const V3_MASS_INERTIA: (f32, f32) = (1.0, 1.0 / 16.0);
/// Radius of the capsule that stands for the bar (m): small beside its length.
pub const V3_RADIUS: f32 = 1e-4;

/// V3's envelope ε̂ (m): longer than the bar, so that both ends' contacts are active at every
/// step, as in the exact references (with the Φ/h term a contact at a positive gap only acts
/// when the step would otherwise cross the line).
pub const V3_ENVELOPE: f32 = 10.0;

/// The V3 world at step `h`: the bar at θ = 72° to the line z = 0, its lower tip `drop` above
/// the line (0: in contact), its centre moving at `v0` (m/s) along x and falling at `vz0`, with
/// the envelope [`V3_ENVELOPE`], solved by Gauss–Seidel to 1e-7 m/s (or the iteration of
/// [`Setup::solver`]) on one thread (or `setup`'s).
pub fn v3_world(setup: &Setup, h: f32, drop: f32, v0: f32, vz0: f32) -> Result<World, BuildError> {
    let theta = V3_THETA_DEG.to_radians();
    let (m, inertia) = V3_MASS_INERTIA;
    let centre = Vec3::new(0.0, 0.0, V3_HALF_LENGTH * theta.sin() + V3_RADIUS + drop);
    let mut w = World::builder(Settings {
        h,
        gravity: Vec3::new(0.0, 0.0, -G),
        envelope: Some(Envelope::Fixed(V3_ENVELOPE)),
        planar: true,
        solver: setup.solver_for(Solver::GaussSeidel {
            sweeps: 200,
            tolerance: 1e-7,
            omega: 1.0,
        }),
        threads: setup.threads.unwrap_or(1),
        ..Settings::default()
    });
    w.material(Material::new(V3_MU));
    w.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    w.body(Body {
        inertia,
        ..Body::capsule(centre, V3_RADIUS, V3_HALF_LENGTH, m)
            .with_orientation(Quat::from_rotation_y(-theta))
            .with_velocity(Vec3::new(v0, 0.0, vz0))
    });
    w.build()
}

/// What one V3 run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BarDrop {
    /// Step h (s).
    pub h: f32,
    /// Steps taken.
    pub steps: u64,
    /// True when every position and velocity stayed finite.
    pub finite: bool,
    /// Largest solver residual of any step (m/s): every step's CCP solved to it.
    pub max_residual: f32,
    /// Largest rise of the total energy E = ½mv² + ½Iω² + m g z over one step (J; ≤ 0 when the
    /// energy never increases).
    pub max_energy_rise: f64,
    /// Energy at the start and at the end (J).
    pub energy: (f64, f64),
    /// Height of the lower tip above the line at the end, and its lowest value (m).
    pub tip: (f32, f32),
    /// Heights of the lower tip after each step (m).
    pub tip_path: Vec<f32>,
}

/// Total mechanical energy of body 0 of a V3 world (J).
fn bar_energy(w: &World) -> f64 {
    let (m, inertia) = V3_MASS_INERTIA;
    let (v, om, z) = (w.velocity(0), w.angular_velocity(0), w.position(0).z);
    0.5 * m as f64 * v.length_squared() as f64
        + 0.5 * inertia as f64 * om.length_squared() as f64
        + (m * G) as f64 * z as f64
}

/// Height of the bar's lower tip (the surface point nearest the line) above z = 0 (m).
pub fn bar_tip(w: &World) -> f32 {
    let [e0, e1] = capsule_ends(w.position(0), w.orientation(0), V3_HALF_LENGTH);
    e0.z.min(e1.z) - V3_RADIUS
}

/// V3: steps the bar world for `duration` s, checking finiteness, the residual and the energy.
pub fn v3(mut w: World, duration: f32) -> Result<BarDrop, StepError> {
    let h = w.settings().h;
    let steps = (duration / h).round() as u64;
    let mut r = BarDrop {
        h,
        steps,
        finite: true,
        max_residual: 0.0,
        max_energy_rise: f64::NEG_INFINITY,
        energy: (bar_energy(&w), 0.0),
        tip: (0.0, f32::INFINITY),
        tip_path: Vec::with_capacity(steps as usize),
    };
    let mut e = r.energy.0;
    for _ in 0..steps {
        let s = w.step()?;
        let e_next = bar_energy(&w);
        r.finite &= e_next.is_finite() && w.orientation(0).is_finite();
        r.max_residual = r.max_residual.max(s.residual);
        r.max_energy_rise = r.max_energy_rise.max(e_next - e);
        e = e_next;
        let tip = bar_tip(&w);
        r.tip_path.push(tip);
        r.tip.1 = r.tip.1.min(tip);
    }
    r.energy.1 = e;
    r.tip.0 = r.tip_path.last().copied().unwrap_or(0.0);
    Ok(r)
}

/// The Painlevé bar of [`v3_world`] for the exact references: point ends (the capsule's
/// segment, r below its surface), I = m/16, μ = 0.75, g = 9.81.
pub const V3_BAR: BarOnLine = BarOnLine {
    mass: V3_MASS_INERTIA.0 as f64,
    inertia: V3_MASS_INERTIA.1 as f64,
    half_length: V3_HALF_LENGTH as f64,
    gravity: G as f64,
    mu: V3_MU as f64,
};

/// The start of [`v3_world`]`(h, drop, v0, 0)` for the exact references: the bar at θ = 72°,
/// its lower end `drop` above the line, its centre moving at (v0, 0), no spin.
pub fn v3_reference_start(drop: f64, v0: f64) -> BarState {
    let theta = (V3_THETA_DEG as f64).to_radians();
    BarState {
        x: 0.0,
        y: V3_BAR.half_length * theta.sin() + drop,
        theta,
        vx: v0,
        vy: 0.0,
        omega: 0.0,
    }
}

/// What V3's comparison with the exact references measured at one step h = 0.1 / 2^k.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BarConvergence {
    /// k.
    pub k: u32,
    /// h = 0.1 / 2^k (s).
    pub h: f64,
    /// ‖y_CCP − y_LCP‖₂ / 2^k over the centre's heights after each step (the quantity of
    /// anitescu-2006 Table 10.2).
    pub centre: f64,
    /// The same over the lower end's heights.
    pub lower_end: f64,
    /// ‖y_engine − y_LCP‖₂ / 2^k over the centre's heights: the table with the engine in place
    /// of the exact CCP.
    pub engine_centre: f64,
    /// The engine's centre heights against the exact CCP's.
    pub engine: EngineAgreement,
}

/// One row of V3's comparison: the bar of [`V3_BAR`] from [`v3_reference_start`]`(drop, v0)`
/// for `duration` at h = 0.1 / 2^k, stepped by the Coulomb LCP, the CCP (both exact, by Lemke's
/// method) and the engine (the capsule of [`v3_world`] in `setup`, heights less its radius).
pub fn v3_reference_row(
    setup: &Setup,
    k: u32,
    drop: f64,
    v0: f64,
    duration: f64,
) -> Result<BarConvergence, String> {
    let scale = f64::from(1u32 << k);
    let h = 0.1 / scale;
    let steps = (duration / h).round() as usize;
    let start = v3_reference_start(drop, v0);
    let run = |model| {
        V3_BAR
            .trajectory(model, start, h, steps)
            .map_err(|e| format!("exact {model:?} at h = {h}: {e}"))
    };
    let (lcp, ccp) = (
        run(FrictionModel::Coulomb)?,
        run(FrictionModel::ConeRelaxation)?,
    );
    let mut w =
        v3_world(setup, h as f32, drop as f32, v0 as f32, 0.0).map_err(|e| e.to_string())?;
    let mut engine = Vec::with_capacity(steps);
    for _ in 0..steps {
        w.step().map_err(|e| e.to_string())?;
        engine.push((w.position(0).z - V3_RADIUS) as f64);
    }
    let heights = |path: &[BarState], f: fn(&BarState) -> f64| path.iter().map(f).collect();
    let centre = |s: &BarState| s.y;
    let end = |s: &BarState| s.lower_end_height(V3_BAR.half_length);
    let (lcp_y, ccp_y): (Vec<f64>, Vec<f64>) = (heights(&lcp, centre), heights(&ccp, centre));
    let (lcp_end, ccp_end): (Vec<f64>, Vec<f64>) = (heights(&lcp, end), heights(&ccp, end));
    let engine = EngineAgreement::measure(&engine, &ccp_y, &lcp_y);
    Ok(BarConvergence {
        k,
        h,
        centre: distance(&ccp_y, &lcp_y) / scale,
        lower_end: distance(&ccp_end, &lcp_end) / scale,
        engine_centre: engine.lcp_distance / scale,
        engine,
    })
}

/// V3's runs (h, drop of the lower tip above the line, centre's horizontal speed): dropped from
/// 0.5 m and starting in contact, both sliding, at two steps.
pub const V3_RUNS: [(f32, f32, f32); 4] = [
    (0.01, 0.5, -1.0),
    (0.001, 0.5, -1.0),
    (0.01, 0.0, -1.0),
    (0.001, 0.0, -1.0),
];
/// V3's duration (s).
pub const V3_DURATION: f32 = 2.0;
/// Largest one-step energy rise V3 tolerates (J): f32 round-off of E ≈ 10 J.
pub const V3_ENERGY_SLACK: f64 = 1e-4;

/// V3 passes when every run stayed finite, solved every step to 1e-3 m/s and never gained more
/// than [`V3_ENERGY_SLACK`] in a step.
pub fn v3_passes(runs: &[BarDrop]) -> bool {
    runs.iter()
        .all(|r| r.finite && r.max_residual <= 1e-3 && r.max_energy_rise <= V3_ENERGY_SLACK)
}

/// V3's comparison with the exact references (anitescu-2006 ex. 3, Table 10.2): the bar
/// dropped with its lower end 0.5 m above the line and its centre moving at −1 m/s (the
/// Painlevé direction), for [`V3_DURATION`], at h = 0.1 / 2^k, k = 0…7.
pub const V3_TABLE: (f64, f64) = (0.5, -1.0);

/// Table 10.2 of anitescu-2006: ‖y_QP − y_LCP‖₂ / 2^k for the bar without initial contact,
/// h = 0.1 / 2^k, k = 0…7 (their drop height and speed are not given).
pub const V3_PAPER: [f64; 8] = [
    1.5736018,
    7.2176724e-1,
    1.4580267e-1,
    9.2969637e-2,
    5.5543025e-3,
    4.3982975e-3,
    3.7537593e-3,
    3.7007014e-4,
];

/// The rows of V3's comparison, k = 0…7, starting at `(drop, v0)`.
pub fn v3_reference_rows(setup: &Setup, drop: f64, v0: f64) -> Result<Vec<BarConvergence>, String> {
    (0..V3_PAPER.len() as u32)
        .map(|k| v3_reference_row(setup, k, drop, v0, V3_DURATION as f64))
        .collect()
}

/// V3's comparison verdict: without initial contact the CCP's path tends to the LCP's as
/// h → 0. The lower end's heights, which move smoothly, differ by ‖Δ‖₂ / 2^k falling by 2 to
/// 4.5 at every halving (the sliding lift's h^{3/2}, as V1); the centre's, which also carry the
/// toppling's sensitivity to the impact's timing inside a step (as the paper's own table,
/// whose ratios range from 1.01 to 15), fall at least 100× from k = 0 to every k ≥ 4. The
/// engine follows the exact CCP to 1e-3 relative (its capsule's ends are spheres of radius
/// r = 1e-4 m, the references' are points: the gap is O(r)).
pub fn v3_reference_passes(rows: &[BarConvergence]) -> bool {
    let band = |ratio: f64| (2.0..=4.5).contains(&ratio);
    rows.len() == V3_PAPER.len()
        && rows
            .windows(2)
            .all(|w| band(w[0].lower_end / w[1].lower_end))
        && rows[4..].iter().all(|r| r.centre <= rows[0].centre / 100.0)
        && rows.iter().all(|r| r.engine.relative_error <= 1e-3)
}

/// One line per row of V3's comparison.
pub fn v3_reference_details(title: &str, rows: &[BarConvergence]) -> Vec<String> {
    let mut out = vec![title.to_string()];
    out.extend(rows.iter().map(|r| {
        format!(
            "k = {}, h = {:.3e}: centre {:.2e} (paper {:.2e}), lower end {:.2e}; engine vs exact \
             CCP {:.1e} relative, engine vs LCP {:.2e}",
            r.k,
            r.h,
            r.centre,
            V3_PAPER[r.k as usize],
            r.lower_end,
            r.engine.relative_error,
            r.engine_centre
        )
    }));
    out
}

/// One line per V3 run.
pub fn v3_details(runs: &[BarDrop]) -> Vec<String> {
    runs.iter()
        .zip(V3_RUNS)
        .map(|(r, (_, drop, v0))| {
            format!(
                "h = {}, tip {} m above, v_x = {v0}: {} steps, finite {}, max residual {:.1e}, \
                 max energy rise {:.1e} J, E {:.4} → {:.4} J, tip end {:.2e} m (lowest {:.2e})",
                r.h,
                drop,
                r.steps,
                r.finite,
                r.max_residual,
                r.max_energy_rise,
                r.energy.0,
                r.energy.1,
                r.tip.0,
                r.tip.1
            )
        })
        .collect()
}

/// What V3 measured: the engine's runs of [`V3_RUNS`], and the comparison with the exact
/// references without and with initial contact.
#[derive(Clone, Debug, PartialEq)]
pub struct PainleveBar {
    /// The engine's runs of [`V3_RUNS`].
    pub runs: Vec<BarDrop>,
    /// The comparison from [`V3_TABLE`]: no initial contact.
    pub free: Vec<BarConvergence>,
    /// The same comparison starting in contact.
    pub touching: Vec<BarConvergence>,
}

/// V3 (anitescu-2006 §10.1 ex. 3–4, Table 10.2, and the slides): the Painlevé bar of
/// [`v3_world`], whose sliding tip has no classical solution.
pub struct V3;

impl Case for V3 {
    type Measured = PainleveBar;

    const ABOUT: About = About {
        id: "V3",
        title: "Painlevé bar",
        scenes: &[],
    };

    fn expected(&self) -> String {
        "Painlevé bar (l = 2, I = m/16, θ = 72°, μ = 0.75), dropped and in contact: every step \
         solved, no NaN, energy never increases; without initial contact CCP and LCP agree as \
         h → 0"
            .into()
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        let runs = V3_RUNS
            .iter()
            .map(|&(h, drop, v0)| {
                let w = v3_world(setup, h, drop, v0, 0.0)?;
                Ok(v3(w, V3_DURATION)?)
            })
            .collect::<Result<Vec<_>, CaseError>>()?;
        let (drop, v0) = V3_TABLE;
        Ok(PainleveBar {
            runs,
            free: v3_reference_rows(setup, drop, v0)?,
            touching: v3_reference_rows(setup, 0.0, v0)?,
        })
    }

    fn verdict(&self, m: &Self::Measured) -> bool {
        v3_passes(&m.runs) && v3_reference_passes(&m.free)
    }

    fn key_figure(&self, m: &Self::Measured) -> String {
        match (m.free.first(), m.free.last()) {
            (Some(first), Some(last)) => format!(
                "energy rise ≤ {:.1e} J; lower end {:.2e} → {:.2e}",
                largest_energy_rise(&m.runs),
                first.lower_end,
                last.lower_end
            ),
            _ => format!("{} rows", m.free.len()),
        }
    }

    fn measured(&self, m: &Self::Measured) -> String {
        let (free, last) = match (m.free.first(), m.free.last()) {
            (Some(first), Some(last)) => (first, last),
            _ => return format!("{} rows", m.free.len()),
        };
        format!(
            "{} engine runs: max residual {:.1e} m/s, largest one-step energy rise {:.1e} J; \
             exact LCP vs CCP without initial contact, k = 0 → 7: centre {:.2e} → {:.2e} \
             (paper {:.2e} → {:.2e}), lower end {:.2e} → {:.2e}; engine vs exact CCP ≤ {:.1e} \
             relative",
            m.runs.len(),
            m.runs.iter().map(|r| r.max_residual).fold(0.0f32, f32::max),
            largest_energy_rise(&m.runs),
            free.centre,
            last.centre,
            V3_PAPER[0],
            V3_PAPER[V3_PAPER.len() - 1],
            free.lower_end,
            last.lower_end,
            m.free
                .iter()
                .chain(&m.touching)
                .map(|r| r.engine.relative_error)
                .fold(0.0, f64::max),
        )
    }

    fn details(&self, m: &Self::Measured) -> Vec<String> {
        let (drop, v0) = V3_TABLE;
        let mut lines = v3_details(&m.runs);
        lines.extend(v3_reference_details(
            &format!(
                "no initial contact (lower end {drop} m above, v_x = {v0}), ‖Δy‖₂ / 2^k of the \
                 centre and the lower end:"
            ),
            &m.free,
        ));
        lines.extend(v3_reference_details(
            &format!(
                "initial contact (v_x = {v0}; the paper's ex. 4 reports close but different \
                 paths), the same norms:"
            ),
            &m.touching,
        ));
        lines
    }
}

/// The largest one-step energy rise over the runs (J).
fn largest_energy_rise(runs: &[BarDrop]) -> f64 {
    runs.iter()
        .map(|r| r.max_energy_rise)
        .fold(f64::NEG_INFINITY, f64::max)
}
