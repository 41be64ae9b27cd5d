//! Where generated bodies may go: random sequential placement in a region without overlap,
//! and the check that no two bodies overlap at the start.

use crate::pour::SplitMix64;
use glam::Vec3;
use grains::body::{Body, BodyKind};
use grains_kernels::shape::{contact_points, Placed};
use std::collections::HashMap;

/// Random sequential placement of up to `target` bodies with radii uniform in `radii` = [r0, r1],
/// centres in [lo, hi] (y = 0 in planar mode), whose bounding spheres (radius `bound(r)`) do not
/// overlap each other nor those of `existing`.
#[allow(clippy::too_many_arguments)]
pub(super) fn random_fill(
    rng: &mut SplitMix64,
    lo: Vec3,
    hi: Vec3,
    (r0, r1): (f32, f32),
    bound: impl Fn(f32) -> f32,
    target: usize,
    planar: bool,
    existing: &[Body],
) -> Vec<(Vec3, f32)> {
    // Cells of 2 bound(r1) hold every body no larger than the new ones, so a new body can only
    // touch those in the 27 cells around it; the few larger bodies (a Brazil nut) are checked
    // one by one rather than making every cell as large as they are.
    let cell = 2.0 * bound(r1);
    let mut grid: HashMap<(i32, i32, i32), Vec<(Vec3, f32)>> = HashMap::new();
    let key = |p: Vec3| {
        (
            (p.x / cell).floor() as i32,
            (p.y / cell).floor() as i32,
            (p.z / cell).floor() as i32,
        )
    };
    let mut large = Vec::new();
    for b in existing {
        let rb = b.shape.bounding_radius(b.radius);
        if rb > bound(r1) {
            large.push((b.position, rb));
        } else {
            grid.entry(key(b.position))
                .or_default()
                .push((b.position, rb));
        }
    }
    let mut placed = Vec::with_capacity(target);
    let mut failures = 0usize;
    let max_failures = 2000 + 200 * target;
    while placed.len() < target && failures < max_failures {
        let u = |rng: &mut SplitMix64, a: f32, b: f32| a + (b - a) * rng.next_f64() as f32;
        let r = if r1 > r0 { u(rng, r0, r1) } else { r0 };
        let p = Vec3::new(
            u(rng, lo.x, hi.x),
            if planar { 0.0 } else { u(rng, lo.y, hi.y) },
            u(rng, lo.z, hi.z),
        );
        let (k, rp) = (key(p), bound(r));
        let mut free = large.iter().all(|(q, rq)| (p - *q).length() >= rp + rq);
        'scan: for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    if let Some(v) = grid.get(&(k.0 + dx, k.1 + dy, k.2 + dz)) {
                        if v.iter().any(|(q, rq)| (p - *q).length() < rp + rq) {
                            free = false;
                            break 'scan;
                        }
                    }
                }
            }
        }
        if free {
            grid.entry(k).or_default().push((p, rp));
            placed.push((p, r));
        } else {
            failures += 1;
        }
    }
    placed
}

/// The pair of bodies overlapping most beyond `tol` × the smaller radius: (i, j, overlap in m),
/// the overlap being −Φ of their nearest points ([`contact_points`]; pairs the narrow phase does
/// not detect never overlap). Pairs of bodies that cannot move (fixed or kinematic) are skipped:
/// they never touch, so fixed spheres may intersect to make one rigid surface (V12's two
/// spheres).
pub(super) fn worst_overlap(bodies: &[Body], tol: f32) -> Option<(usize, usize, f32)> {
    let reach = |b: &Body| b.shape.bounding_radius(b.radius);
    let rmax = bodies.iter().map(reach).fold(0.0f32, f32::max);
    let cell = (2.0 * rmax).max(1e-9);
    let mut grid: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
    let key = |p: Vec3| {
        (
            (p.x / cell).floor() as i64,
            (p.y / cell).floor() as i64,
            (p.z / cell).floor() as i64,
        )
    };
    for (i, b) in bodies.iter().enumerate() {
        grid.entry(key(b.position)).or_default().push(i);
    }
    let placed = |b: &Body| Placed {
        centre: b.position,
        q: b.orientation,
        radius: b.radius,
        shape: b.shape,
    };
    let mut worst: Option<(usize, usize, f32)> = None;
    for (j, b) in bodies.iter().enumerate() {
        let k = key(b.position);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let Some(v) = grid.get(&(k.0 + dx, k.1 + dy, k.2 + dz)) else {
                        continue;
                    };
                    let moves = |b: &Body| b.kind == BodyKind::Dynamic;
                    for &i in v.iter().filter(|&&i| i < j) {
                        let a = &bodies[i];
                        if !(moves(a) || moves(b)) {
                            continue;
                        }
                        let overlap = contact_points(&placed(a), &placed(b))
                            .into_iter()
                            .flatten()
                            .map(|t| -t.phi)
                            .fold(f32::NEG_INFINITY, f32::max);
                        if overlap > tol * a.radius.min(b.radius)
                            && worst.is_none_or(|w| overlap > w.2)
                        {
                            worst = Some((i, j, overlap));
                        }
                    }
                }
            }
        }
    }
    worst
}
