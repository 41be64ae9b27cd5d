//! The plane groups of the flat rectangles: rectangles in one plane, facing one way and moving
//! together, so that the narrow phase gives a sphere over one of them no edge contact with the
//! others ([`grains_kernels::wall_contact::sphere_rectangle`]): a grain rolling across the
//! joint of two floor tiles has one contact, while the rim of a hole between tiles holds it.

use crate::geometry::{WallDesc, WallShape};

/// Two unit normals this close (1 − n₁·n₂) face the same way.
const SAME_NORMAL: f32 = 1e-6;
/// Two faces this close along the normal, relative to their distance from the origin (and at
/// least 1e-6 m), lie in one plane: a few f32 roundings of the coordinates.
const SAME_PLANE: f32 = 1e-6;

/// True when `a` and `b` are finite rectangles in one plane, facing one way, moving alike.
fn coplanar(a: &WallDesc, b: &WallDesc) -> bool {
    let rectangle = |w: &WallDesc| w.shape == WallShape::Flat && !w.is_plane();
    let scale = 1.0f32.max(a.origin.length()).max(b.origin.length());
    rectangle(a)
        && rectangle(b)
        && a.motion == b.motion
        && 1.0 - a.normal.dot(b.normal) <= SAME_NORMAL
        && (b.origin - a.origin).dot(a.normal).abs() <= SAME_PLANE * scale
}

/// Each wall's plane group (1, 2, …), 0 for a wall with no coplanar rectangle; the walls must
/// have unit normals (as built). O(walls²), once at build.
pub(crate) fn plane_groups(walls: &[WallDesc]) -> Vec<u32> {
    let mut groups = vec![0u32; walls.len()];
    let mut next = 1;
    for i in 0..walls.len() {
        for j in 0..i {
            if coplanar(&walls[j], &walls[i]) {
                if groups[j] == 0 {
                    groups[j] = next;
                    next += 1;
                }
                groups[i] = groups[j];
                break;
            }
        }
    }
    groups
}
