//! The `pour` benchmark scene of `docs/benchmark.md`: the library's [`PourScene`] and the box
//! its quality figures hold the grains to.

use crate::bounds::Bounds;
use glam::Vec3;
pub use grains::fill::pour::{PourScene, DENSITY, FRICTION, RADIUS};

/// SplitMix64, the jitter generator the benchmark specifies (docs/benchmark.md).
pub use grains_kernels::random::SplitMix64;

/// The box the grains of `scene` must stay in, for the quality figures of
/// [`crate::output::Quality`].
pub fn bounds(scene: &PourScene) -> Bounds {
    Bounds {
        floor_centre: Vec3::ZERO,
        half_x: (scene.width / 2.0) as f32,
        half_y: (scene.width / 2.0) as f32,
        height: scene.wall_height as f32,
        motion: None,
    }
}
