//! Capsules: the points within the body's radius of a segment along its local x axis; the
//! segment's end points and nearest points (also the edges' of boxes and polyhedra).

use glam::{Quat, Vec3};

/// The two end points of a capsule's segment, c ± R(q)·(L, 0, 0), in world coordinates.
#[inline(always)]
pub fn capsule_ends(centre: Vec3, q: Quat, half_length: f32) -> [Vec3; 2] {
    let axis = q * Vec3::X * half_length;
    [centre + axis, centre - axis]
}

/// The point of a capsule's segment closest to `p`: c + s R x̂ with s = clamp((p − c)·R x̂, ±L).
#[inline(always)]
pub fn closest_on_segment(centre: Vec3, q: Quat, half_length: f32, p: Vec3) -> Vec3 {
    let axis = q * Vec3::X;
    centre + axis * (p - centre).dot(axis).clamp(-half_length, half_length)
}

/// Parameters (s, t) of the nearest points c₁ + s u₁ and c₂ + t u₂ of two segments
/// (|s| ≤ l₁, |t| ≤ l₂, unit axes): the lines' minimiser s = (b e − d)/(1 − b²) with
/// b = u₁·u₂, d = u₁·(c₁ − c₂), e = u₂·(c₁ − c₂), clamped; then t = e + b s clamped, and s
/// again for that t when t was clamped. Parallel axes (1 − b² ≈ 0) take s at the start of the
/// overlap of the two segments along u₁.
pub fn closest_between_segments(
    c1: Vec3,
    u1: Vec3,
    l1: f32,
    c2: Vec3,
    u2: Vec3,
    l2: f32,
) -> (f32, f32) {
    let r = c1 - c2;
    let (b, d, e) = (u1.dot(u2), u1.dot(r), u2.dot(r));
    let denom = 1.0 - b * b;
    let s = if denom > PARALLEL_EPS {
        ((b * e - d) / denom).clamp(-l1, l1)
    } else {
        overlap_along(b, d, l1, l2).0.min(l1)
    };
    let t = e + b * s;
    if t.abs() > l2 {
        let t = t.clamp(-l2, l2);
        ((b * t - d).clamp(-l1, l1), t)
    } else {
        (s, t)
    }
}

/// 1 − (u₁·u₂)² below which two segments count as parallel.
const PARALLEL_EPS: f32 = 1e-6;

/// The interval [lo, hi] of s ∈ [−l₁, l₁] that segment 2's projection on segment 1's axis
/// covers, −d ± |b| l₂ (b = u₁·u₂, d = u₁·(c₁ − c₂)); empty when lo > hi.
#[inline(always)]
pub fn overlap_along(b: f32, d: f32, l1: f32, l2: f32) -> (f32, f32) {
    let half = b.abs() * l2;
    ((-d - half).max(-l1), (-d + half).min(l1))
}
