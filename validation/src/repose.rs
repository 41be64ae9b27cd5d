//! The angle of repose of a poured pile against the grains' rolling-resistance length: a study
//! on `scenes/repose_pile.toml` (grains poured from a lifted tube heap up on the floor), not a
//! validation case.

use crate::Setup;
use glam::Vec2;
use grains::world::World;

/// The rolling lengths of the repose study, as fractions of the grain radius.
pub const REPOSE_ROLLING: [f32; 3] = [0.0, 0.05, 0.1];

/// The shape of a settled heap on the floor z = 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Heap {
    /// Rolling length of the grains, e_roll / r.
    pub rolling: f32,
    /// Height of the highest grain top above the floor, in radii.
    pub height: f32,
    /// Slope angle of the flank (degrees): the least-squares line through the surface profile
    /// where it lies between 20 % and 80 % of the way from one layer (2 r) to the top; 0 when
    /// fewer than three rings lie there (a flat bed, no flank).
    pub angle: f64,
    /// The surface profile: (distance from the heap's axis, height of the highest grain top in
    /// that ring), both in radii, one ring per 2 r.
    pub profile: Vec<(f32, f32)>,
    /// Kinetic energy per grain at the end (J): how settled the heap is.
    pub kinetic_energy: f64,
}

/// The surface of the heap formed by the dynamic bodies of `w` (all of radius r) on the floor
/// z = 0 around the vertical axis through their mean centre: the highest grain top per ring of
/// width 2 r, and the flank's slope fitted where the profile lies between 20 % and 80 % of the
/// way from one layer on the floor (2 r) to the top, outwards from the axis up to the first ring
/// below that band.
pub fn heap_shape(w: &World, rolling: f32) -> Heap {
    let r = w.radius(0);
    let centres = w.centres();
    let axis = centres
        .iter()
        .map(|c| c.truncate().truncate())
        .sum::<Vec2>()
        / centres.len() as f32;
    let mut top: Vec<f32> = Vec::new();
    for c in centres {
        let ring = ((c.truncate().truncate() - axis).length() / (2.0 * r)) as usize;
        if top.len() <= ring {
            top.resize(ring + 1, 0.0);
        }
        top[ring] = top[ring].max((c.z + c.w) / r);
    }
    let profile: Vec<(f32, f32)> = top
        .iter()
        .enumerate()
        .map(|(k, &z)| (2.0 * k as f32 + 1.0, z))
        .collect();
    let height = top.iter().copied().fold(0.0, f32::max);
    // The band of the flank: 20 % to 80 % of the way from one layer on the floor (2 r, the
    // carpet of grains that rolled away) to the top.
    let band = |f: f32| 2.0 + f * (height - 2.0);
    let flank: Vec<(f64, f64)> = profile
        .iter()
        .skip_while(|&&(_, z)| z > band(0.8))
        .take_while(|&&(_, z)| z >= band(0.2))
        .map(|&(x, z)| (x as f64, z as f64))
        .collect();
    // Fewer than three rings in the band: no flank, the grains spread into a flat bed.
    if flank.len() < 3 {
        return Heap {
            rolling,
            height,
            angle: 0.0,
            profile,
            kinetic_energy: w.last_stats().kinetic_energy / centres.len() as f64,
        };
    }
    let n = flank.len() as f64;
    let (mx, mz) = flank
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, z)| (a + x / n, b + z / n));
    let (sxz, sxx) = flank.iter().fold((0.0, 0.0), |(a, b), &(x, z)| {
        (a + (x - mx) * (z - mz), b + (x - mx) * (x - mx))
    });
    let kinetic_energy = w.last_stats().kinetic_energy / centres.len() as f64;
    Heap {
        rolling,
        height,
        angle: (-sxz / sxx).atan().to_degrees(),
        profile,
        kinetic_energy,
    }
}

/// Tube lift speed of `scenes/repose_pile.toml` (m/s): fast enough for a test.
pub const REPOSE_LIFT: f32 = 0.25;

/// A slower lift (m/s) for the study: a gentler pour, closer to the quasi-static angle.
pub const REPOSE_LIFT_SLOW: f32 = 0.08;

/// Layers of the 8 × 8 lattice of grains in the tube of `scenes/repose_pile.toml`: 32, filled
/// to 2016 grains (63 a layer on average; the last layer half full).
pub const REPOSE_LAYERS: u32 = 32;

/// Heaps the grains of `scenes/repose_pile.toml` in `setup` with their rolling length set to
/// `rolling` × their radius and the tube lifted at `lift` m/s: runs 0.36 m / `lift` (the tube's
/// bottom clears the column) plus 0.5 s to settle and measures the heap ([`heap_shape`]).
pub fn repose(setup: &Setup, rolling: f32, lift: f32) -> Result<Heap, String> {
    repose_of(setup, rolling, lift, REPOSE_LAYERS)
}

/// [`repose`] with a column of `layers` layers of the scene's 8 × 8 lattice instead of its 32,
/// filled to 63 × `layers` grains as the scene's is: the tube is lifted by 0.36 m × `layers` /
/// 32 (its bottom clears the column), then 0.5 s to settle.
pub fn repose_of(setup: &Setup, rolling: f32, lift: f32, layers: u32) -> Result<Heap, String> {
    let scene = setup
        .variant("repose_pile", |t| {
            let radius = t
                .get("bodies")
                .and_then(|b| b.get(0))
                .and_then(|g| g.get("radius"))
                .and_then(toml::Value::as_float);
            if let (Some(r), Some(toml::Value::Array(m))) = (radius, t.get_mut("materials")) {
                if let Some(toml::Value::Table(g)) = m.first_mut() {
                    g.insert("rolling".into(), toml::Value::Float(rolling as f64 * r));
                }
            }
            if let Some(toml::Value::Array(s)) = t.get_mut("shakers") {
                if let Some(toml::Value::Table(g)) = s.first_mut() {
                    let up = [0.0, 0.0, lift as f64].map(toml::Value::Float);
                    g.insert("linear".into(), toml::Value::Array(up.to_vec()));
                }
            }
            if layers != REPOSE_LAYERS {
                if let Some(toml::Value::Array(b)) = t.get_mut("bodies") {
                    if let Some(toml::Value::Table(g)) = b.first_mut() {
                        let counts = [8, 8, i64::from(layers)].map(toml::Value::Integer);
                        g.insert("counts".into(), toml::Value::Array(counts.to_vec()));
                        g.insert("count".into(), toml::Value::Integer(63 * i64::from(layers)));
                    }
                }
            }
            if let Some(toml::Value::Table(m)) = t.get_mut("scene") {
                let rise = 0.36 * f64::from(layers) / f64::from(REPOSE_LAYERS);
                let duration = rise / lift as f64 + 0.5;
                m.insert("duration".into(), toml::Value::Float(duration));
            }
        })
        .map_err(|e| e.to_string())?;
    let mut w = scene.world(setup.threads).map_err(|e| e.to_string())?;
    w.run(scene.total_steps()).map_err(|e| e.to_string())?;
    Ok(heap_shape(&w, rolling))
}
