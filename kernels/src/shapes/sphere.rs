//! Spheres (disks in planar mode): the gap of two spheres about two points.

use super::Touch;
use glam::Vec3;

/// Two spheres of radii `ra`, `rb` about the points `pa`, `pb`: n = (pa − pb)/‖·‖,
/// Φ = ‖pa − pb‖ − r_a − r_b.
#[inline(always)]
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn spheres_touch(pa: Vec3, ra: f32, pb: Vec3, rb: f32) -> Touch {
    let d = pa - pb;
    let dist = d.length();
    let n = if dist > 0.0 { d / dist } else { Vec3::Z };
    Touch {
        n,
        phi: dist - ra - rb,
        pa: pa - ra * n,
        pb: pb + rb * n,
    }
}
