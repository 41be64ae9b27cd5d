//! Non-sphere bodies: V3 (the Painlevé bar of anitescu-2006 §10.1 ex. 3–4 and the slides) and
//! V4 (the ellipse on a tabletop of hart-anitescu §3), both in planar mode on the line z = 0.

use super::{distance, EngineAgreement, G};
use crate::reference::{BarOnLine, BarState, FrictionModel};
use glam::{Quat, Vec3};
use grains::body::Body;
use grains::error::BuildError;
use grains::geometry::WallDesc;
use grains::material::Material;
use grains::settings::{Envelope, Settings};
use grains::solver::Solver;
use grains::world::World;
use grains::GpuError;
use grains_kernels::shape::{capsule_ends, ellipse_support};

/// V4's ellipse: semi-axes a = 4, b = 2 (m; axes 8 and 4).
pub const V4_AXES: (f32, f32) = (4.0, 2.0);
/// V4's areal density (kg/m²).
pub const V4_DENSITY: f32 = 10.0;
/// V4's step h (s), duration (s) and envelope ε̂ (m).
pub const V4_H: f32 = 0.05;
/// V4's duration (s).
pub const V4_DURATION: f32 = 20.0;
/// V4's envelope ε̂ (m).
pub const V4_ENVELOPE: f32 = 0.3;

/// The V4 world: the ellipse of [`V4_AXES`] and mass ρπab, centre dropped from height 8 with
/// ω = 3 rad/s onto the line z = 0, μ = 0.3, h = 0.05, ε̂ = 0.3 (fixed), rigid contact, with or
/// without the Φ/h term.
pub fn v4_world(stabilise: bool, threads: Option<usize>) -> Result<World, BuildError> {
    let (a, b) = V4_AXES;
    let mass = V4_DENSITY * std::f32::consts::PI * a * b;
    let mut w = World::builder(Settings {
        h: V4_H,
        gravity: Vec3::new(0.0, 0.0, -G),
        envelope: Some(Envelope::Fixed(V4_ENVELOPE)),
        planar: true,
        stabilise_contacts: stabilise,
        solver: Solver::GaussSeidel {
            sweeps: 200,
            tolerance: 1e-7,
            omega: 1.0,
        },
        threads: threads.unwrap_or(1),
        ..Settings::default()
    });
    w.material(Material::new(0.3));
    w.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    w.body(
        Body::ellipse(Vec3::new(0.0, 0.0, 8.0), a, b, mass)
            .with_angular_velocity(Vec3::new(0.0, 3.0, 0.0)),
    );
    w.build()
}

/// The ellipse's gap to the line z = 0: the height of its lowest point, Φ = z_c + s_z with s
/// its support point in −ẑ.
pub fn ellipse_gap(w: &World, i: usize) -> f32 {
    let (a, b) = V4_AXES;
    w.position(i).z + ellipse_support(w.orientation(i), a, b, Vec3::NEG_Z).z
}

/// What one V4 run measured: the penetration max(0, −Φ) of the ellipse into the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EllipseDrop {
    /// Whether the Φ/h term was on.
    pub stabilised: bool,
    /// Penetration at the end (m).
    pub end: f32,
    /// Largest penetration over the run (m).
    pub max: f32,
    /// Smallest and largest penetration over the second half of the run (m).
    pub late_band: (f32, f32),
    /// Time of the first contact (Φ ≤ ε̂) (s).
    pub first_contact: f32,
}

/// V4 (hart-anitescu §3, their Fig. 2): steps the ellipse world for 20 s, tracking the
/// penetration into the table after every step.
pub fn v4(mut w: World, stabilised: bool) -> Result<EllipseDrop, GpuError> {
    let steps = (V4_DURATION / V4_H).round() as u64;
    let mut r = EllipseDrop {
        stabilised,
        end: 0.0,
        max: 0.0,
        late_band: (f32::INFINITY, 0.0),
        first_contact: f32::NAN,
    };
    for step in 1..=steps {
        let s = w.step()?;
        if s.contacts > 0 && r.first_contact.is_nan() {
            r.first_contact = w.time() as f32;
        }
        let pen = (-ellipse_gap(&w, 0)).max(0.0);
        r.max = r.max.max(pen);
        if step > steps / 2 {
            r.late_band = (r.late_band.0.min(pen), r.late_band.1.max(pen));
        }
        r.end = pen;
    }
    Ok(r)
}

/// V4 passes when the stabilised run ends at least 100× less deep than the unstabilised one and
/// its late penetration stays within a narrow band (below 1 % of the short semi-axis).
pub fn v4_passes(with: &EllipseDrop, without: &EllipseDrop) -> bool {
    with.stabilised
        && !without.stabilised
        && without.end >= 100.0 * with.end
        && without.end > 0.0
        && with.late_band.1 <= 0.01 * V4_AXES.1
}

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
/// the envelope [`V3_ENVELOPE`].
pub fn v3_world(
    h: f32,
    drop: f32,
    v0: f32,
    vz0: f32,
    threads: Option<usize>,
) -> Result<World, BuildError> {
    let theta = V3_THETA_DEG.to_radians();
    let (m, inertia) = V3_MASS_INERTIA;
    let centre = Vec3::new(0.0, 0.0, V3_HALF_LENGTH * theta.sin() + V3_RADIUS + drop);
    let mut w = World::builder(Settings {
        h,
        gravity: Vec3::new(0.0, 0.0, -G),
        envelope: Some(Envelope::Fixed(V3_ENVELOPE)),
        planar: true,
        solver: Solver::GaussSeidel {
            sweeps: 200,
            tolerance: 1e-7,
            omega: 1.0,
        },
        threads: threads.unwrap_or(1),
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
pub fn v3(mut w: World, duration: f32) -> Result<BarDrop, GpuError> {
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
/// method) and the engine (the capsule of [`v3_world`], heights less its radius).
pub fn v3_reference_row(
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
    let mut w = v3_world(h as f32, drop as f32, v0 as f32, 0.0, None).map_err(|e| e.to_string())?;
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
