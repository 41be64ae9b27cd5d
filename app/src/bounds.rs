//! The box a scene's grains are meant to stay in, for the "escaped" and wall-penetration
//! figures of the outputs.

use glam::Vec3;
use grains::motion::Prescribed;

/// The box the grains are meant to stay in: used for "escaped" and wall penetration figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Centre of the floor at rest (m).
    pub floor_centre: Vec3,
    /// Inner half width along x (m).
    pub half_x: f32,
    /// Inner half width along y (m); infinite in planar mode.
    pub half_y: f32,
    /// Height of the side walls above the floor (m).
    pub height: f32,
    /// Motion of the box, if it is shaken.
    pub motion: Option<Prescribed>,
}
