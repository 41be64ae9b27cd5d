//! End-state quality figures of docs/benchmark.md, generalised to any scene: overlaps are
//! measured pair by pair with each body's own radius and given in units of the smallest dynamic
//! radius r. The floor and side walls are those of the scene's first box, if it has one; else
//! the floor is the lowest of the horizontal walls that face up (a `floor`, planes and
//! rectangles with normal +z), which may leave openings between its rectangles. The grains that
//! left (escaped, discharged) are those the health check's definition finds
//! ([`World::whereabouts`]), not measured against the box.

use crate::scene::Bounds;
use glam::{IVec3, Vec3, Vec4};
use grains::domain::whereabouts;
use grains::geometry::WallShape;
use grains::world::World;
use grains::Whereabouts;
use grains_kernels::broad_phase::{Envelope, Grid};
use grains_kernels::{Bodies, Motion};

/// Quality of a state, lengths in units of the smallest dynamic radius r.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Quality {
    /// Deepest sphere–sphere or sphere–floor overlap / r. The floor counts only for bodies in
    /// its reach: centre over a face of the floor and not more than its radius below it (a body
    /// that left the box, fell beside it or went through the floor touches no floor).
    pub max_pen_r: f64,
    /// Mean overlap / r over the overlapping pairs.
    pub mean_pen_r: f64,
    /// Deepest side-wall overlap / r, over the bodies whose centre is inside the box and level
    /// with its walls (between the floor and the walls' top), as the engine's contacts with a
    /// wall are.
    pub wall_max_pen_r: f64,
    /// 95th percentile of dynamic centre heights above the floor / r.
    pub bed_z95_r: f64,
    /// Mean kinetic energy per body, translational + rotational (J).
    #[serde(rename = "ke_mean_J")]
    pub ke_mean_j: f64,
    /// Dynamic bodies that left the world's domain while its escape check is on, a failure:
    /// the bodies the health check finds escaped ([`grains::domain::whereabouts`]: a centre
    /// more than its radius outside the box the walls, sinks and insertion regions enclose;
    /// through a wall, over a box's rim and beside it, or out of an outlet with no sink).
    pub escaped: usize,
    /// Dynamic bodies that left the world's domain while its escape check is off (an open
    /// domain, where grains are meant to leave), by the same definition.
    pub discharged: usize,
    /// Bodies with a non-finite position or velocity.
    pub non_finite: usize,
}

/// A horizontal face of the floor, seen from above.
#[derive(Clone, Copy)]
struct Face {
    /// Its centre (x, y) (m).
    centre: [f64; 2],
    /// Its in-face axis u, horizontal and of unit length; v = z × u.
    u: [f64; 2],
    /// Half extents along u and v (m), infinite for a plane.
    half: [f64; 2],
    /// A box's side walls' height above its floor (m); 0 for a face that is not a box's floor.
    height: f64,
}

impl Face {
    /// True when the point (x, y) is over (or under) the face.
    fn covers(&self, x: f64, y: f64) -> bool {
        let (dx, dy) = (x - self.centre[0], y - self.centre[1]);
        let (s, t) = (
            dx * self.u[0] + dy * self.u[1],
            dy * self.u[0] - dx * self.u[1],
        );
        s.abs() <= self.half[0] && t.abs() <= self.half[1]
    }
}

/// Where the floor is now: its height and its faces.
struct Floor {
    /// Height of the floor (m).
    z: f64,
    /// Its faces: the floors of the boxes level with the first box's, or the faces at the
    /// floor's height.
    faces: Vec<Face>,
    /// True for the box's floor, whose footprint is closed by side walls.
    boxed: bool,
}

impl Floor {
    /// The floor of `world` at its current time: the box's when there is one (moved by its
    /// shaker), else the faces at the lowest height of the horizontal walls facing up (within
    /// `tol` of it); None without such a wall.
    fn of(world: &World, boxes: &[Bounds], tol: f64) -> Option<Floor> {
        let t = world.time();
        if let Some(first) = boxes.first() {
            let at = |bd: &Bounds| {
                bd.floor_centre + bd.motion.map(|m| m.displacement(t)).unwrap_or_default()
            };
            let z = at(first).z as f64;
            let faces = boxes
                .iter()
                .filter(|bd| (at(bd).z as f64 - z).abs() <= tol)
                .map(|bd| {
                    let c = at(bd);
                    Face {
                        centre: [c.x as f64, c.y as f64],
                        u: [1.0, 0.0],
                        half: [bd.half_x as f64, bd.half_y as f64],
                        height: bd.height as f64,
                    }
                })
                .collect();
            return Some(Floor {
                z,
                faces,
                boxed: true,
            });
        }
        let up: Vec<(f64, Face)> = world
            .wall_descs()
            .iter()
            .filter(|w| w.shape == WallShape::Flat && w.normal.normalize_or_zero().z >= 1.0 - 1e-6)
            .map(|w| {
                let o = w.origin + w.motion.map(|m| m.displacement(t)).unwrap_or_default();
                let u = Vec3::new(w.u.x, w.u.y, 0.0).normalize_or(Vec3::X);
                let face = Face {
                    centre: [o.x as f64, o.y as f64],
                    u: [u.x as f64, u.y as f64],
                    half: [w.half_u as f64, w.half_v as f64],
                    height: 0.0,
                };
                (o.z as f64, face)
            })
            .collect();
        let z = up.iter().map(|f| f.0).fold(f64::INFINITY, f64::min);
        z.is_finite().then(|| Floor {
            z,
            faces: up
                .into_iter()
                .filter(|f| f.0 <= z + tol)
                .map(|f| f.1)
                .collect(),
            boxed: false,
        })
    }

    /// True when the point (x, y) is over (or under) a face of the floor.
    fn covers(&self, x: f64, y: f64) -> bool {
        self.faces.iter().any(|f| f.covers(x, y))
    }
}

impl Quality {
    /// Measures `world` now: its overlaps and heights against the box `bounds`, or, without
    /// one, against the floor of its walls; the grains that left against its domain (see
    /// [`Quality::escaped`] and [`Quality::discharged`]).
    pub fn measure(world: &World, bounds: Option<&Bounds>) -> Quality {
        Quality::measure_boxes(world, bounds.map(std::slice::from_ref).unwrap_or_default())
    }

    /// [`Quality::measure`] with the boxes `boxes` (the floor and side walls of any of those
    /// whose floor is level with the first's count), or, without any, the floor of its walls.
    ///
    /// In a distributed world a call every rank makes together, which gathers nothing: each
    /// rank measures its own bodies and the overlaps of pairs whose lower-id body it owns (with
    /// the bodies of other ranks near its own, [`World::own_and_near_bodies`]), and the figures
    /// are reduced over the ranks. They are the figures of the gathered bed: the same numbers,
    /// but for the mean overlap, whose sum is added in another order.
    pub fn measure_boxes(world: &World, boxes: &[Bounds]) -> Quality {
        match world.own_and_near_bodies() {
            Some((ids, bodies, owned)) => measure_part(world, boxes, (&bodies, &ids, owned)),
            None => {
                let b = world.bodies();
                let ids: Vec<usize> = (0..b.len()).collect();
                measure_part(world, boxes, (b, &ids, b.len()))
            }
        }
    }
}

/// [`Quality::measure_boxes`] of a part of the bed: the bodies `b`, row k being body `ids[k]`
/// of the world, of which the first `owned` are this part's own (the rest, other parts' bodies
/// that may overlap them, count only in the pairs whose lower-id body is own), reduced over the
/// world's ranks.
fn measure_part(
    world: &World,
    boxes: &[Bounds],
    (b, ids, owned): (&Bodies, &[usize], usize),
) -> Quality {
    let mut smallest = [-((0..owned).filter(|&i| b.is_dynamic(i)))
        .map(|i| b.pos_radius[i].w)
        .fold(f32::INFINITY, f32::min) as f64];
    world.max_over_ranks(&mut smallest);
    let r = -smallest[0];
    let r = if r.is_finite() && r > 0.0 { r } else { 1.0 };
    let finite = |i: usize| {
        let (p, m) = (b.pos_radius[i], &b.motion[i]);
        p.is_finite() && m.v().is_finite() && m.w().is_finite()
    };
    let ok: Vec<usize> = (0..b.len()).filter(|&i| finite(i)).collect();
    let non_finite = (0..owned).filter(|&i| !finite(i)).count();
    let floor = Floor::of(world, boxes, r);
    let (mut max_pen, mut sum_pen, mut count) = (0.0f64, 0.0f64, 0usize);
    let mut record = |pen: f64| {
        if pen > 0.0 {
            max_pen = max_pen.max(pen);
            sum_pen += pen;
            count += 1;
        }
    };
    for_each_close_pair(b, &ok, |i, j| {
        let lower = if ids[i] < ids[j] { i } else { j };
        if lower < owned && (b.is_dynamic(i) || b.is_dynamic(j)) {
            let (pi, pj) = (b.pos_radius[i], b.pos_radius[j]);
            record((pi.w + pj.w) as f64 - (pi.truncate() - pj.truncate()).length() as f64);
        }
    });
    let mut wall_max: f64 = 0.0;
    let (mut escaped, mut discharged) = (0, 0);
    let mut z = Vec::with_capacity(ok.len());
    let escape = world.settings().health.escape;
    let domain = world.domain();
    for &i in ok.iter().filter(|&&i| i < owned && b.is_dynamic(i)) {
        let p = b.pos_radius[i];
        let (px, py, ri) = (p.x as f64, p.y as f64, p.w as f64);
        // Whether it left the domain, and how that counts: the health check's definition.
        let left = match whereabouts(domain.as_ref(), escape, p.truncate(), p.w) {
            Whereabouts::Inside => false,
            Whereabouts::Escaped { .. } => {
                escaped += 1;
                true
            }
            Whereabouts::Discharged => {
                discharged += 1;
                true
            }
        };
        let Some(fl) = &floor else {
            z.push(p.z as f64);
            continue;
        };
        let height = p.z as f64 - fl.z;
        z.push(height);
        let over = fl.covers(px, py);
        // Out of the floor's reach: left the domain, more than its radius below the floor,
        // or beside the box (whose floor's footprint its side walls close).
        if left || height < -ri || (fl.boxed && !over) {
            continue;
        }
        if over {
            record(ri - height);
        }
        // Here a box's body is inside it: its side walls count while it is level with them.
        if let Some(face) = fl.faces.iter().find(|f| fl.boxed && f.covers(px, py)) {
            if (0.0..=face.height).contains(&height) {
                let c = face.centre;
                for (x, half) in [(px - c[0], face.half[0]), (py - c[1], face.half[1])] {
                    if half.is_finite() {
                        wall_max = wall_max.max(ri - (half - x.abs()));
                    }
                }
            }
        }
    }
    let mut sums = [
        sum_pen,
        count as f64,
        non_finite as f64,
        escaped as f64,
        discharged as f64,
    ];
    world.sum_over_ranks(&mut sums);
    let [sum_pen, count, non_finite, escaped, discharged] = sums;
    let mut largest = [max_pen, wall_max];
    world.max_over_ranks(&mut largest);
    let [max_pen, wall_max] = largest;
    let z95 = percentile_95(world, &mut z).unwrap_or(0.0);
    Quality {
        max_pen_r: max_pen / r,
        mean_pen_r: if count > 0.0 {
            sum_pen / count / r
        } else {
            0.0
        },
        wall_max_pen_r: wall_max.max(0.0) / r,
        bed_z95_r: z95 / r,
        ke_mean_j: kinetic_energy_per_body(world),
        escaped: escaped as usize,
        discharged: discharged as usize,
        non_finite: non_finite as usize,
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

/// The 95th percentile of the values every rank of `world` gives together (each rank its own
/// `values`; in a world that steps every body itself, of `values` alone): the ⌈0.95 n⌉-th
/// smallest of the n values, the value 95 % of them do not exceed, found without gathering
/// them ([`World::select_over_ranks`]); `None` when there are none. A call every rank of a
/// distributed world makes together.
pub fn percentile_95(world: &World, values: &mut [f64]) -> Option<f64> {
    let mut n = [values.len() as f64];
    world.sum_over_ranks(&mut n);
    let k = ((n[0] * 0.95).ceil() as u64).saturating_sub(1);
    world.select_over_ranks(values, k)
}

/// Mean kinetic energy per body after the last step (J), from the step's statistics.
fn kinetic_energy_per_body(world: &World) -> f64 {
    world.last_stats().kinetic_energy / world.len().max(1) as f64
}

/// How still a bed stays: the displacement of every dynamic body over some more steps, in
/// units of its own radius, and the kinetic energy at their end.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Rest {
    /// Steps taken.
    pub steps: u64,
    /// Median displacement / own radius.
    pub median_disp_r: f64,
    /// Largest displacement / own radius.
    pub max_disp_r: f64,
    /// Mean kinetic energy per body at the end (J).
    #[serde(rename = "ke_mean_J")]
    pub ke_mean_j: f64,
}

impl Rest {
    /// Steps `world` `steps` more times and measures how far its dynamic bodies moved.
    pub fn measure(world: &mut World, steps: u64) -> Result<Rest, grains::StepError> {
        let dynamic = |w: &World| -> Vec<Vec4> {
            let b = w.bodies();
            b.pos_radius
                .iter()
                .zip(&b.kind)
                .filter(|(_, &k)| k == grains_kernels::BodyKind::Dynamic as u32)
                .map(|(p, _)| *p)
                .collect()
        };
        world.sync().map_err(grains::StepError::Gpu)?;
        let before = dynamic(world);
        for _ in 0..steps {
            world.step()?;
        }
        world.sync().map_err(grains::StepError::Gpu)?;
        let after = dynamic(world);
        let mut sorted: Vec<f64> = before
            .iter()
            .zip(&after)
            .map(|(a, b)| ((b.truncate() - a.truncate()).length() / a.w) as f64)
            .collect();
        sorted.sort_by(f64::total_cmp);
        let median = if sorted.is_empty() {
            0.0
        } else {
            sorted[sorted.len() / 2]
        };
        Ok(Rest {
            steps,
            median_disp_r: median,
            max_disp_r: sorted.last().copied().unwrap_or(0.0),
            ke_mean_j: kinetic_energy_per_body(world),
        })
    }
}
