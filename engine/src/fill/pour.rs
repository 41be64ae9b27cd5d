//! The `pour` benchmark's scene of `docs/benchmark.md`, defined to the bit: N spheres on a
//! jittered cubic lattice in an open box sized for them (the scene files' `pour_lattice`
//! generator and `pour_box` container).

use crate::body::{sphere_mass, Body};
use crate::error::BuildError;
use crate::geometry::BoxContainer;
use crate::material::Material;
use crate::settings::Settings;
use crate::world::World;
use glam::Vec3;
use grains_kernels::random::SplitMix64;

/// Grain radius r (m).
pub const RADIUS: f32 = 0.005;
/// Grain density (kg/m³).
pub const DENSITY: f32 = 2500.0;
/// Friction coefficient of every pair.
pub const FRICTION: f32 = 0.5;

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
