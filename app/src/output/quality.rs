//! End-state quality figures of docs/benchmark.md, generalised to any scene: overlaps are measured pair by
//! pair with each body's own radius and given in units of the smallest dynamic radius r; the
//! floor and side walls are those of the scene's first box (if it has one).

use crate::scene::Bounds;
use glam::{IVec3, Vec3, Vec4};
use grains::world::World;
use grains_kernels::broad_phase::{Envelope, Grid};
use grains_kernels::{Bodies, Motion};

/// Quality of a state, lengths in units of the smallest dynamic radius r.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Quality {
    /// Deepest sphere–sphere or sphere–floor overlap / r; the floor counts only for bodies
    /// whose centre is over it (a body that left the box and fell beside it touches no floor).
    pub max_pen_r: f64,
    /// Mean overlap / r over the overlapping pairs.
    pub mean_pen_r: f64,
    /// Deepest side-wall overlap / r.
    pub wall_max_pen_r: f64,
    /// 95th percentile of dynamic centre heights above the floor / r.
    pub bed_z95_r: f64,
    /// Mean kinetic energy per body, translational + rotational (J).
    #[serde(rename = "ke_mean_J")]
    pub ke_mean_j: f64,
    /// Dynamic bodies outside the box (or below the floor).
    pub escaped: usize,
    /// Bodies with a non-finite position or velocity.
    pub non_finite: usize,
}

impl Quality {
    /// Measures `world` now against the box `bounds` (floor at z = 0 when there is none).
    pub fn measure(world: &World, bounds: Option<&Bounds>) -> Quality {
        let b = world.bodies();
        let n = b.len();
        let dynamic: Vec<usize> = (0..n).filter(|&i| b.is_dynamic(i)).collect();
        let r = dynamic
            .iter()
            .map(|&i| b.pos_radius[i].w)
            .fold(f32::INFINITY, f32::min) as f64;
        let r = if r.is_finite() && r > 0.0 { r } else { 1.0 };
        let mut non_finite = 0;
        let mut ok = Vec::with_capacity(n);
        for i in 0..n {
            let p = b.pos_radius[i];
            let m = &b.motion[i];
            if p.is_finite() && m.v().is_finite() && m.w().is_finite() {
                ok.push(i);
            } else {
                non_finite += 1;
            }
        }
        let (floor, hx, hy, cx, cy) = match bounds {
            Some(bd) => {
                let d = bd
                    .motion
                    .map(|m| m.displacement(world.time()))
                    .unwrap_or_default();
                (
                    bd.floor_centre.z + d.z,
                    bd.half_x as f64,
                    bd.half_y as f64,
                    (bd.floor_centre.x + d.x) as f64,
                    (bd.floor_centre.y + d.y) as f64,
                )
            }
            None => (0.0, f64::INFINITY, f64::INFINITY, 0.0, 0.0),
        };
        let floor = floor as f64;
        let (mut max_pen, mut sum_pen, mut count) = (0.0f64, 0.0f64, 0usize);
        let mut record = |pen: f64| {
            if pen > 0.0 {
                max_pen = max_pen.max(pen);
                sum_pen += pen;
                count += 1;
            }
        };
        for_each_close_pair(b, &ok, |i, j| {
            if b.is_dynamic(i) || b.is_dynamic(j) {
                let (pi, pj) = (b.pos_radius[i], b.pos_radius[j]);
                record((pi.w + pj.w) as f64 - (pi.truncate() - pj.truncate()).length() as f64);
            }
        });
        let mut wall_max: f64 = 0.0;
        let mut escaped = 0;
        let mut z = Vec::with_capacity(ok.len());
        for &i in ok.iter().filter(|&&i| b.is_dynamic(i)) {
            let p = b.pos_radius[i];
            let ri = p.w as f64;
            let (x, y) = (p.x as f64 - cx, p.y as f64 - cy);
            if bounds.is_some() && x.abs() <= hx && y.abs() <= hy {
                record(ri - (p.z as f64 - floor));
            }
            for (c, half) in [(x, hx), (y, hy)] {
                if half.is_finite() {
                    wall_max = wall_max.max(ri - (half - c.abs()));
                }
            }
            if x.abs() > hx || y.abs() > hy || (p.z as f64 - floor) < -ri {
                escaped += 1;
            }
            z.push(p.z as f64 - floor);
        }
        let z95 = percentile_95(z);
        Quality {
            max_pen_r: max_pen / r,
            mean_pen_r: if count > 0 {
                sum_pen / count as f64 / r
            } else {
                0.0
            },
            wall_max_pen_r: wall_max.max(0.0) / r,
            bed_z95_r: z95 / r,
            ke_mean_j: world.last_stats().kinetic_energy / n.max(1) as f64,
            escaped,
            non_finite,
        }
    }
}

/// Calls `f(i, j)` once for every pair of the bodies `ids` whose spheres touch or overlap, found
/// with the uniform grid of the broad phase (large bodies query the cells their box covers).
fn for_each_close_pair(b: &Bodies, ids: &[usize], mut f: impl FnMut(usize, usize)) {
    let centres: Vec<Vec4> = ids.iter().map(|&i| b.pos_radius[i]).collect();
    let still = vec![Motion::default(); centres.len()];
    let mut grid = Grid::default();
    grid.build(&centres, &[], &still, Envelope::Fixed(0.0), 1.0);
    let mut visit = |k: usize, l: usize| f(ids[k.min(l)], ids[k.max(l)]);
    for (k, p) in centres.iter().enumerate() {
        if grid.cell_of[k] == grains_kernels::broad_phase::NOT_IN_GRID {
            let reach = Vec3::splat(p.w + 0.5 * grid.cell);
            let (lo, hi) = (
                grid.coords(p.truncate() - reach),
                grid.coords(p.truncate() + reach),
            );
            grid.for_each_in_box(lo, hi, |l| visit(k, l as usize));
            for &l in grid.large.iter().filter(|&&l| l as usize > k) {
                visit(k, l as usize);
            }
        } else {
            let c = grid.coords(p.truncate());
            grid.for_each_in_box(c - IVec3::ONE, c + IVec3::ONE, |l| {
                if l as usize > k {
                    visit(k, l as usize);
                }
            });
        }
    }
}

/// The 95th percentile of `values` (the value 95 % of them do not exceed); 0 when empty.
pub fn percentile_95(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values
        .get(((values.len() as f64 * 0.95).ceil() as usize).saturating_sub(1))
        .copied()
        .unwrap_or(0.0)
}
