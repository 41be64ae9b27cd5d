//! The `pour` benchmark scene of `benchmarks/POUR.md`, defined to the bit, and its end-state
//! quality figures.

use crate::body::{sphere_mass, Body};
use crate::error::BuildError;
use crate::geometry::BoxContainer;
use crate::material::Material;
use crate::settings::{Envelope, Settings};
use crate::world::World;
use glam::{Vec3, Vec4};
use grains_kernels::broad_phase::Grid;
use grains_kernels::Motion;

/// Grain radius r (m).
pub const RADIUS: f32 = 0.005;
/// Grain density (kg/m³).
pub const DENSITY: f32 = 2500.0;
/// Friction coefficient of every pair.
pub const FRICTION: f32 = 0.5;

/// SplitMix64, the jitter generator POUR.md specifies.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Geometry of the pour scene for N grains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PourScene {
    /// Number of grains N.
    pub n: usize,
    /// Lattice side s (smallest s with s³ ≥ N).
    pub side: usize,
    /// Inner width W of the box (m).
    pub width: f64,
    /// Height of the side walls above the floor (m).
    pub wall_height: f64,
}

impl PourScene {
    /// The scene for `n` grains.
    pub fn new(n: usize) -> Self {
        let side = (1..).find(|s: &usize| s * s * s >= n).unwrap_or(1);
        let r = RADIUS as f64;
        let width = (side as f64 - 1.0) * 2.2 * r + 4.0 * r;
        let top_layer = n.saturating_sub(1) / (side * side);
        let wall_height = 2.0 * r + 2.2 * r * top_layer as f64 + 4.0 * r;
        PourScene {
            n,
            side,
            width,
            wall_height,
        }
    }

    /// Centres of the grains in fill order (x fastest, then y, then z), with the seeded jitter.
    pub fn centres(&self) -> Vec<Vec3> {
        let r = RADIUS as f64;
        let x0 = -self.width / 2.0 + 2.0 * r;
        let mut rng = SplitMix64(12345);
        (0..self.n)
            .map(|idx| {
                let (i, j, k) = (
                    idx % self.side,
                    (idx / self.side) % self.side,
                    idx / (self.side * self.side),
                );
                let jx = 0.05 * r * (2.0 * rng.next_f64() - 1.0);
                let jy = 0.05 * r * (2.0 * rng.next_f64() - 1.0);
                Vec3::new(
                    (x0 + 2.2 * r * i as f64 + jx) as f32,
                    (x0 + 2.2 * r * j as f64 + jy) as f32,
                    (2.0 * r + 2.2 * r * k as f64) as f32,
                )
            })
            .collect()
    }

    /// The world: grains in the lattice at rest, the fixed open box, one material μ = 0.5.
    pub fn world(&self, settings: Settings) -> Result<World, BuildError> {
        let mut b = World::builder(settings);
        let m = b.material(Material::new(FRICTION));
        b.container(&BoxContainer {
            floor_centre: Vec3::ZERO,
            width_x: self.width as f32,
            width_y: self.width as f32,
            height: self.wall_height as f32,
            material: m,
            motion: None,
        });
        let mass = sphere_mass(RADIUS, DENSITY);
        for c in self.centres() {
            b.body(Body::sphere(c, RADIUS, mass).with_material(m));
        }
        b.build()
    }
}

/// The end-state quality figures POUR.md asks for, lengths in units of r.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PourQuality {
    /// Deepest sphere–sphere or sphere–floor overlap / r.
    pub max_pen_r: f64,
    /// Mean overlap / r over the overlapping pairs.
    pub mean_pen_r: f64,
    /// Deepest side-wall overlap / r.
    pub wall_max_pen_r: f64,
    /// 95th percentile of centre heights / r.
    pub bed_z95_r: f64,
    /// Mean kinetic energy per body, translational + rotational (J).
    pub ke_mean_j: f64,
    /// Spheres outside the box.
    pub escaped: usize,
    /// Spheres with a non-finite position or velocity.
    pub non_finite: usize,
}

impl PourQuality {
    /// Measures the world's current state against the box of `scene`.
    pub fn measure(world: &World, scene: &PourScene) -> PourQuality {
        let r = RADIUS as f64;
        let half = scene.width / 2.0;
        let b = world.bodies();
        let finite: Vec<Vec4> = b
            .pos_radius
            .iter()
            .copied()
            .filter(|p| p.is_finite())
            .collect();
        let non_finite = b.len() - finite.len()
            + b.motion
                .iter()
                .filter(|m| !(m.v().is_finite() && m.w().is_finite()))
                .count();
        let (mut max_pen, mut sum_pen, mut count) = (0.0f64, 0.0f64, 0usize);
        let mut record = |pen: f64| {
            if pen > 0.0 {
                max_pen = max_pen.max(pen);
                sum_pen += pen;
                count += 1;
            }
        };
        for_each_close_pair(&finite, |i, j| {
            let d = (finite[i].truncate() - finite[j].truncate()).length() as f64;
            record(2.0 * r - d);
        });
        let mut wall_max: f64 = 0.0;
        let mut escaped = 0;
        for p in &finite {
            record(r - p.z as f64);
            for c in [p.x as f64, p.y as f64] {
                wall_max = wall_max.max(r - (half - c.abs()));
            }
            if p.x.abs() as f64 > half || p.y.abs() as f64 > half || (p.z as f64) < -r {
                escaped += 1;
            }
        }
        let mut z: Vec<f64> = finite.iter().map(|p| p.z as f64).collect();
        z.sort_by(f64::total_cmp);
        let z95 = z
            .get(((z.len() as f64 * 0.95).ceil() as usize).saturating_sub(1))
            .copied()
            .unwrap_or(0.0);
        PourQuality {
            max_pen_r: max_pen / r,
            mean_pen_r: if count > 0 {
                sum_pen / count as f64 / r
            } else {
                0.0
            },
            wall_max_pen_r: wall_max.max(0.0) / r,
            bed_z95_r: z95 / r,
            ke_mean_j: world.last_stats().kinetic_energy / b.len().max(1) as f64,
            escaped,
            non_finite,
        }
    }
}

/// Calls `f(i, j)` once for every pair i < j of spheres whose centres are within one diameter.
fn for_each_close_pair(centres: &[Vec4], mut f: impl FnMut(usize, usize)) {
    let mut grid = Grid::default();
    let still = vec![Motion::default(); centres.len()];
    grid.build(centres, &still, Envelope::Fixed(0.0), 1.0);
    for (i, p) in centres.iter().enumerate() {
        let c = grid.coords(p.truncate());
        grid.for_each_in_box(c - glam::IVec3::ONE, c + glam::IVec3::ONE, |j| {
            if (j as usize) > i {
                f(i, j as usize);
            }
        });
    }
}
