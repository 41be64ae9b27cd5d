//! The check that no two bodies overlap at the start (generated bodies are placed by the
//! library's fills, [`grains::fill`]).

use glam::Vec3;
use grains::body::{Body, BodyKind};
use grains_kernels::narrow_phase::pair_touches;
use grains_kernels::pairs::pair_routine;
use grains_kernels::shapes::clump::ClumpTable;
use grains_kernels::shapes::polyhedron::Hull;
use grains_kernels::shapes::Placed;
use std::collections::{BTreeMap, HashMap};

/// The deepest overlap −Φ of two placed bodies over the contact points the narrow phase finds
/// for them (the routine of the pair table, [`pair_touches`]; clumps' templates from
/// `clumps`, polyhedra's hulls from `hulls`); −∞ for a pair the table refuses (the world's
/// build refuses it, naming both bodies) or one without a point.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn deepest_overlap(a: &Placed, b: &Placed, (clumps, hulls): (&ClumpTable, &[Hull])) -> f32 {
    let mut deepest = f32::NEG_INFINITY;
    if let Ok(routine) = pair_routine(a.shape.kind(), b.shape.kind()) {
        pair_touches(routine, a, b, (clumps, hulls), f32::INFINITY, |_, t| {
            deepest = deepest.max(-t.phi)
        });
    }
    deepest
}

/// The pair of bodies overlapping most beyond `tol` × the smaller radius: (i, j, overlap in m)
/// with i < j, the overlap being −Φ of their deepest contact point ([`deepest_overlap`]; pairs
/// the narrow phase does not detect never overlap); of pairs that overlap equally, the one with the
/// smallest j, then the smallest i. Pairs of bodies that cannot move (fixed or kinematic) are
/// skipped: they never touch, so fixed spheres may intersect to make one rigid surface (V12's
/// two spheres).
///
/// Linear in the number of bodies whatever the mix of sizes: the bodies are sorted into levels
/// by their bounding radius (level L: up to 2^(L+1) × the smallest), each level with a grid of
/// cells twice its largest radius, and each body looks for partners in the 27 cells around it
/// in the grids of its own level and of the larger ones, so one large rock among fine grains
/// costs no more than a grain. Bodies far larger than their spacing (many in one cell) still
/// meet every other: once [`PAIR_BUDGET_PER_BODY`] × the bodies (and [`PAIR_BUDGET_BASE`])
/// pairs have been tested and one overlapping pair found, the check ends with the worst pair
/// found so far, so that a scene refused for overlaps is refused in linear time.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn worst_overlap(
    bodies: &[Body],
    tol: f32,
    tables: (&ClumpTable, &[Hull]),
) -> Option<(usize, usize, f32)> {
    let reach = |b: &Body| b.shape.bounding_radius(b.radius);
    let rmin = bodies.iter().map(reach).fold(f32::INFINITY, f32::min);
    let level = |b: &Body| -> u32 {
        let ratio = (reach(b) as f64 / rmin as f64).log2();
        if ratio.is_finite() && ratio > 0.0 {
            (ratio.floor() as u32).min(MAX_LEVEL)
        } else {
            0
        }
    };
    let mut levels: BTreeMap<u32, Level> = BTreeMap::new();
    for b in bodies {
        let l = levels.entry(level(b)).or_default();
        l.cell = l.cell.max(2.0 * reach(b));
    }
    for (i, b) in bodies.iter().enumerate() {
        let l = levels
            .get_mut(&level(b))
            .expect("every level was made above");
        let k = l.key(b.position);
        l.grid.entry(k).or_default().push(i);
    }
    let placed = |b: &Body| Placed {
        centre: b.position,
        q: b.orientation,
        radius: b.radius,
        shape: b.shape,
    };
    let moves = |b: &Body| b.kind == BodyKind::Dynamic;
    let mut worst: Option<(usize, usize, f32)> = None;
    let budget = PAIR_BUDGET_PER_BODY.saturating_mul(bodies.len()) + PAIR_BUDGET_BASE;
    let mut tested = 0usize;
    for (j, b) in bodies.iter().enumerate() {
        if tested > budget && worst.is_some() {
            break;
        }
        let own = level(b);
        for (&l, grid) in levels.range(own..) {
            let k = grid.key(b.position);
            for dz in -1..=1 {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        let Some(v) = grid.grid.get(&(k.0 + dx, k.1 + dy, k.2 + dz)) else {
                            continue;
                        };
                        // A pair within one level is met from both bodies: once, from the later.
                        for &i in v.iter().filter(|&&i| l != own || i < j) {
                            // The earlier body first, as the narrow phase orders a pair.
                            let (lo, hi) = (i.min(j), i.max(j));
                            let (a, c) = (&bodies[lo], &bodies[hi]);
                            if !(moves(a) || moves(c)) {
                                continue;
                            }
                            tested += 1;
                            let overlap = deepest_overlap(&placed(a), &placed(c), tables);
                            let pair = (lo, hi, overlap);
                            let better = |w: (usize, usize, f32)| {
                                overlap > w.2 || (overlap == w.2 && (pair.1, pair.0) < (w.1, w.0))
                            };
                            if overlap > tol * a.radius.min(b.radius) && worst.is_none_or(better) {
                                worst = Some(pair);
                            }
                        }
                    }
                }
            }
        }
    }
    worst
}

/// The pairs per body [`worst_overlap`] tests before it settles for the worst overlapping pair
/// found so far (a dense bed of equal spheres tests about 16 per body; its levels' sizes up to
/// twice that of the smallest, a few times more).
const PAIR_BUDGET_PER_BODY: usize = 64;

/// The pairs [`worst_overlap`] tests in any case before it settles (see
/// [`PAIR_BUDGET_PER_BODY`]).
const PAIR_BUDGET_BASE: usize = 10_000;

/// The most levels of [`worst_overlap`]'s grids: bodies 2^64 times larger than the smallest
/// share the last one.
const MAX_LEVEL: u32 = 64;

/// One level of [`worst_overlap`]'s grids: the bodies of a range of sizes by cell.
#[derive(Default)]
struct Level {
    /// Side of a cell: twice the largest bounding radius of the level.
    cell: f32,
    /// The bodies' indices by the cell of their centre.
    grid: HashMap<(i64, i64, i64), Vec<usize>>,
}

impl Level {
    /// The cell of point `p`.
    fn key(&self, p: Vec3) -> (i64, i64, i64) {
        let cell = self.cell.max(1e-9);
        (
            (p.x / cell).floor() as i64,
            (p.y / cell).floor() as i64,
            (p.z / cell).floor() as i64,
        )
    }
}
