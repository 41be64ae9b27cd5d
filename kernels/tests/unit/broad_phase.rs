//! The unit tests of `src/broad_phase.rs`.

use glam::{BVec3, IVec3, Vec3, Vec4};
use grains_kernels::broad_phase::*;
use grains_kernels::cell_coords::floor_cell;
use grains_kernels::layout::Motion;

/// Every pair of grid bodies within `reach_i + reach_j`, by brute force.
fn brute_force(pos_radius: &[Vec4], reach: &[f32]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    for i in 0..pos_radius.len() {
        for j in i + 1..pos_radius.len() {
            let d = (pos_radius[i] - pos_radius[j]).truncate().length();
            if d <= reach[i] + reach[j] {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    pairs
}

/// The pairs within reach that the 27 cells around each body yield, each visit counted:
/// through [`Grid::neighbour_ranges`] (the narrow phase's path) and through
/// [`Grid::for_each_in_box`], which must agree.
fn grid_pairs(grid: &Grid, pos_radius: &[Vec4]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    for (i, p) in pos_radius.iter().enumerate() {
        let c = grid.coords(p.truncate());
        let near = |j: u32| {
            let d = (*p - pos_radius[j as usize]).truncate().length();
            j as usize > i && d <= grid.reach[i] + grid.reach[j as usize]
        };
        let (ranges, n) = grid.neighbour_ranges(c);
        let mut from_ranges = Vec::new();
        for &(start, end) in &ranges[..n] {
            let range = start as usize..end as usize;
            from_ranges.extend(grid.bodies[range.clone()].iter().copied());
            for (&j, copy) in grid.bodies[range.clone()]
                .iter()
                .zip(&grid.sorted_centre_reach[range])
            {
                assert_eq!(copy.truncate(), pos_radius[j as usize].truncate());
                assert_eq!(copy.w, grid.reach[j as usize]);
            }
        }
        let mut from_box = Vec::new();
        grid.for_each_in_box(c - IVec3::ONE, c + IVec3::ONE, |j| from_box.push(j));
        assert_eq!(from_ranges, from_box, "body {i}");
        pairs.extend(
            from_ranges
                .into_iter()
                .filter(|&j| near(j))
                .map(|j| (i as u32, j)),
        );
    }
    pairs.sort_unstable();
    pairs
}

/// A bed of 2,000 touching-size grains in a 1 m cube, plus grains escaped far away (two of
/// them touching each other 10 km out, one at 10¹² m) and one shot through the bed at
/// 200 m/s: the cells stay at the bed's size, the far axes become periodic, the fast grain
/// leaves the grid, and the grid yields exactly the brute-force pairs of its bodies, each
/// once.
#[test]
fn far_and_fast_grains_neither_inflate_the_cells_nor_lose_or_repeat_pairs() {
    let mut random = grains_kernels::random::Lcg::new(7);
    let mut next = || random.unit();
    let mut pos_radius: Vec<Vec4> = (0..2000)
        .map(|_| Vec4::new(next(), next(), next(), 0.03 + 0.02 * next()))
        .collect();
    let bed_only = pos_radius.len();
    pos_radius.extend([
        Vec4::new(1e4, 0.5, 0.5, 0.04),
        Vec4::new(1e4 + 0.07, 0.5, 0.5, 0.04),
        Vec4::new(-3e3, 2e3, 0.5, 0.04),
        Vec4::new(0.5, 0.5, 1e12, 0.04),
        Vec4::new(0.5, 0.5, 0.5, 0.04),
    ]);
    let fast = pos_radius.len() - 1;
    let mut motion = vec![Motion::default(); pos_radius.len()];
    motion[fast].linear = [200.0, 0.0, 0.0];
    let envelope = Envelope::PerPair {
        floor: 0.01,
        speed_factor: 2.0,
    };
    let mut bed = Grid::default();
    bed.build(
        &pos_radius[..bed_only],
        &[],
        &motion[..bed_only],
        envelope,
        1e-3,
    );
    let mut grid = Grid::default();
    grid.build(&pos_radius, &[], &motion, envelope, 1e-3);
    assert_eq!(
        grid.cell, bed.cell,
        "far or fast grains must not change the cell edge"
    );
    assert_eq!(
        grid.large,
        vec![fast as u32],
        "the fast grain leaves the grid"
    );
    assert_eq!(bed.periodic, BVec3::FALSE);
    assert_eq!(grid.periodic, BVec3::TRUE, "dims {}", grid.dims);
    let cells = grid.dims.x as usize * grid.dims.y as usize * grid.dims.z as usize;
    assert!(cells <= 4 * pos_radius.len().max(1024), "{cells} cells");
    let in_grid = &pos_radius[..fast];
    let expected = brute_force(in_grid, &grid.reach);
    assert!(expected.contains(&(2000, 2001)), "the far pair must touch");
    assert!(
        expected.len() > 2000,
        "bed too sparse: {} pairs",
        expected.len()
    );
    assert_eq!(grid_pairs(&grid, in_grid), expected);
    let bed_pairs = brute_force(&pos_radius[..bed_only], &bed.reach);
    assert_eq!(grid_pairs(&bed, &pos_radius[..bed_only]), bed_pairs);
    // A box as wide as the coordinates go (a body of enormous reach) visits every grid body
    // once, without overflowing the width 2³¹ + 1 of its range.
    let mut seen = Vec::new();
    let far = IVec3::splat(1 << 30);
    grid.for_each_in_box(-far, far, |j| seen.push(j));
    seen.sort_unstable();
    assert_eq!(seen, (0..fast as u32).collect::<Vec<_>>());
}

/// A bed above [`SERIAL_GRID`] bodies (some large, kept out) sorted into its cells by the
/// pool and by one worker: the same bodies, cell starts and cells.
#[test]
fn the_pool_and_one_worker_sort_the_bodies_into_the_same_cells() {
    let mut random = grains_kernels::random::Lcg::new(3);
    let mut next = || random.unit();
    let n = SERIAL_GRID + 5000;
    let pos_radius: Vec<Vec4> = (0..n)
        .map(|i| {
            let r = if i % 997 == 0 { 0.2 } else { 0.005 };
            Vec4::new(next(), next(), 0.5 * next(), r)
        })
        .collect();
    let motion = vec![Motion::default(); n];
    let mut grid = Grid::default();
    grid.build(&pos_radius, &[], &motion, Envelope::Fixed(0.001), 1e-3);
    assert!(!grid.large.is_empty());
    let by_pool = (
        grid.bodies.clone(),
        grid.start.clone(),
        grid.cell_of.clone(),
    );
    let kept_out = grid.cell_of.clone();
    let large = |i: usize| kept_out[i] == NOT_IN_GRID;
    grid.count_and_scatter(&pos_radius, large, true);
    assert_eq!((grid.bodies, grid.start, grid.cell_of), by_pool);
}

/// [`floor_cell`] is ⌊x⌋ within ±2³⁰ (at integers, just below them and around zero), and
/// clamps beyond.
#[test]
fn cells_are_the_floor_of_the_coordinates() {
    let xs = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        2.999_999_8,
        -2.999_999_8,
        1e6,
        -1e6 - 0.5,
    ];
    for x in xs {
        let c = floor_cell(Vec3::new(x, -x, 0.25));
        let expect = [x.floor(), (-x).floor(), 0.0].map(|f| f as i32);
        assert_eq!(c.to_array(), expect, "{x}");
    }
    let far = floor_cell(Vec3::new(1e12, -1e12, f32::NAN));
    assert_eq!(far.to_array(), [1 << 30, -(1 << 30), -(1 << 30)]);
}
