//! The world the rest-on-a-plane cases (V22, V23, V25) drop their body into: a plane z = 0,
//! one material of friction 0.5, gravity, and projected Gauss–Seidel with ω = 1.

use grains::{Material, Settings, Solver, Vec3, WallDesc, World, WorldBuilder};

/// A builder of that world with step `h` on `threads` threads (None: one), `sweeps` sweeps per
/// solve and stopping tolerance `tolerance` (m/s).
pub fn floor_world(h: f32, threads: Option<usize>, sweeps: u32, tolerance: f32) -> WorldBuilder {
    let mut b = World::builder(Settings {
        h,
        threads: threads.unwrap_or(1),
        solver: Solver::GaussSeidel {
            sweeps,
            tolerance,
            omega: 1.0,
        },
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b
}

/// Rigid contacts converged tightly (500 Gauss–Seidel sweeps to 1e-9 m/s, ω = 1), so that a
/// resting body's contact forces are its weight: the settings of the shaped grains' rest tests.
pub fn tight() -> Settings {
    Settings {
        solver: Solver::GaussSeidel {
            sweeps: 500,
            tolerance: 1e-9,
            omega: 1.0,
        },
        ..Settings::default()
    }
}
