//! Cell coordinates of points, shared by the grids of stages 2 and 3 (the broad phase's, the
//! large bodies' and the meshes').

use glam::{IVec3, Vec3};

/// Largest cell coordinate magnitude [`floor_cell`] returns, so that the cells around a far
/// grain (c ± 1) never overflow.
const FAR: f32 = (1 << 30) as f32;

/// ⌊x⌋ of a point's coordinates in cells, each within ±2³⁰ (clamped there first; NaN goes to
/// −2³⁰): truncation, then one down where that rounded up. The same as `x.floor()` there, without
/// the library call `floor` is on a target without SSE4.1 (three per body in each grid).
#[inline(always)]
pub fn floor_cell(x: Vec3) -> IVec3 {
    let x = x.clamp(Vec3::splat(-FAR), Vec3::splat(FAR));
    let t = x.as_ivec3();
    t - IVec3::select(x.cmplt(t.as_vec3()), IVec3::ONE, IVec3::ZERO)
}
