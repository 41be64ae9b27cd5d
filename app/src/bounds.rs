//! The box a scene's grains are meant to stay in, for the floor and wall overlaps and the
//! heights of the outputs' quality figures (the grains that left are the world's domain's).

use glam::Vec3;
use grains::motion::Prescribed;

/// The box the grains are meant to stay in: used for the floor, wall penetration and height
/// figures.
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
