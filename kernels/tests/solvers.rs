//! Stage 6, the solve: projected Jacobi and Gauss–Seidel reach the same impulses on a fixed small
//! pile, and the closed form where there is one.

use crate::common;

use common::{material, plane, settings, sphere};
use glam::Vec3;
use grains_kernels::mesh::MeshWalls;
use grains_kernels::{pair_key, wall_key, Bodies, CpuPipeline, SolverKind};

const SOLVERS: [SolverKind; 3] = SolverKind::ALL;

/// Normal impulses (N s) by contact key.
type NormalImpulses = Vec<(u64, f32)>;

/// Steps `bodies` once on a floor of friction coefficient `mu` with `solver` from rest; returns the
/// normal impulse (N s) of each contact key, the bodies' largest speed after the step (m/s), and
/// the sweeps run.
fn one_step(mut bodies: Bodies, solver: SolverKind, mu: f32) -> (NormalImpulses, f32, u32) {
    let mut cpu = CpuPipeline::new(2).unwrap();
    let floor = [plane(Vec3::ZERO, Vec3::Z)];
    let stats = cpu
        .step(
            &mut bodies,
            &floor,
            &MeshWalls::default(),
            &[],
            &material(mu),
            &settings(solver),
        )
        .unwrap();
    let normal: NormalImpulses = cpu
        .contacts()
        .keys
        .iter()
        .zip(cpu.impulses())
        .map(|(&k, g)| (k, g[0]))
        .collect();
    let speed = bodies
        .motion
        .iter()
        .map(|m| m.v().length())
        .fold(0.0, f32::max);
    (normal, speed, stats.iterations)
}

/// Three equal spheres stacked on the floor, touching (radii and heights exact in binary): one
/// step from rest stops them, so each contact carries the weight above it over the step,
/// γn = k m g h with k = 3 at the floor, 2 and 1 between the spheres, on both solvers.
#[test]
fn a_resting_column_carries_its_weight_on_both_solvers() {
    let (r, m, g, h) = (0.125, 2.0, 9.81f32, 1e-3f32);
    let mut column = Bodies::default();
    for k in 0..3 {
        sphere(
            &mut column,
            Vec3::new(0.0, 0.0, r * (1.0 + 2.0 * k as f32)),
            r,
            m,
        );
    }
    for solver in SOLVERS {
        let (normal, speed, sweeps) = one_step(column.clone(), solver, 0.5);
        let keys: Vec<u64> = normal.iter().map(|c| c.0).collect();
        assert_eq!(keys, vec![pair_key(0, 1), wall_key(0, 0), pair_key(1, 2)]);
        for ((key, gn), k) in normal.iter().zip([2.0, 3.0, 1.0]) {
            let want = k * m * g * h;
            assert!(
                (gn - want).abs() < 1e-5 * want,
                "{solver:?}, key {key:x}: γn = {gn}, closed form {want} ({sweeps} sweeps)"
            );
        }
        assert!(
            speed < 1e-6,
            "{solver:?}: the column still moves at {speed} m/s"
        );
    }
}

/// A small frictionless pile on the floor: four spheres at the corners of a square, 2 cm apart
/// (beyond the envelope, so they do not touch), and a fifth resting on all four. It is not at
/// rest (the top sphere wedges the others apart), but without friction its eight normal rows are
/// independent, so the impulses are unique: the three solvers find the same contacts and the same
/// normal impulses to 1e-4 of the largest, and by symmetry the four floor contacts carry one
/// impulse, as do the four under the top sphere. (With friction the impulses are not unique:
/// Gauss–Seidel then converges to a lopsided solution, Jacobi to the symmetric one.)
#[test]
fn the_three_solvers_agree_on_a_small_pile() {
    let (r, m) = (0.125f32, 1.0);
    let a = r + 0.01;
    let mut pile = Bodies::default();
    for (x, y) in [(-a, -a), (a, -a), (-a, a), (a, a)] {
        sphere(&mut pile, Vec3::new(x, y, r), r, m);
    }
    // Touching all four: ‖(a, a, z − r)‖ = 2r.
    let top = r + (4.0 * r * r - 2.0 * a * a).sqrt();
    sphere(&mut pile, Vec3::new(0.0, 0.0, top), r, m);
    let [(gauss_seidel, _, _), jacobi, apgd] = SOLVERS.map(|s| one_step(pile.clone(), s, 0.0));
    let largest = gauss_seidel.iter().map(|c| c.1).fold(0.0, f32::max);
    for (name, (other, _, _)) in [("Jacobi", jacobi), ("APGD", apgd)] {
        assert_eq!(other.len(), 4 + 4, "floor and top contacts");
        for ((ko, go), (kg, gg)) in other.iter().zip(&gauss_seidel) {
            assert_eq!(ko, kg);
            assert!(
                (go - gg).abs() <= 1e-4 * largest,
                "key {ko:x}: {name} γn = {go}, Gauss–Seidel {gg}"
            );
        }
    }
    let (floor, under_top): (NormalImpulses, NormalImpulses) = gauss_seidel
        .iter()
        .copied()
        .partition(|c| c.0 == wall_key((c.0 >> 32) as u32, 0));
    for set in [floor, under_top] {
        assert_eq!(set.len(), 4);
        for c in &set {
            assert!((c.1 - set[0].1).abs() <= 1e-4 * largest, "{set:?}");
        }
        assert!(set[0].1 > 0.0);
    }
}

/// The Gauss–Seidel solve in blocks ([`grains_kernels::colouring`]: the bed cut into slabs of
/// the grid's cells in space order, the even slabs relaxed at once, then the odd ones, then the
/// shared classes) gives the same impulses, velocities, sweeps and residual bit for bit on 1, 2
/// and 3 threads: a jostled lattice of 9,600 spheres of mixed radii on a floor (cut into eight
/// blocks or more) with one sphere 24 times larger on top, touching more of them than a
/// block has colours, so that the shared classes are used too, from the contacts and warm-start
/// impulses of a step of it; and the same bits again with the rows in compact sphere packs.
#[test]
fn the_solve_in_blocks_gives_the_same_bits_on_any_team() {
    use grains_kernels::broad_phase::Grid;
    use grains_kernels::colouring::{Colouring, COLOURS};
    use grains_kernels::contact_update::SweepParams;
    use grains_kernels::gauss_seidel::{apply_warm_start, solve_gauss_seidel};
    use grains_kernels::inertia::PrincipalInertia;
    use grains_kernels::joint_rows::JointRows;
    use grains_kernels::packing::Packs;
    use grains_kernels::random::Lcg;
    use grains_kernels::space_order::SpaceOrder;
    use grains_kernels::trace::Trace;

    let mut random = Lcg::new(11);
    let mut pile = Bodies::default();
    let (side, layers, r) = (20, 24, 0.005);
    for k in 0..side * side * layers {
        let (i, j, l) = (k % side, k / side % side, k / (side * side));
        let at = Vec3::new(i as f32, j as f32, l as f32 + 0.5) * 2.0 * r;
        sphere(&mut pile, at, r * (0.95 + 0.05 * random.unit()), 1e-3);
    }
    let top = Vec3::new(
        side as f32 * r,
        side as f32 * r,
        2.0 * r * layers as f32 + 24.0 * r,
    );
    sphere(&mut pile, top, 24.0 * r, 0.5);
    for m in &mut pile.motion {
        m.linear = [random.unit() - 0.5, random.unit() - 0.5, -random.unit()];
    }
    let mut p = settings(SolverKind::GaussSeidel);
    (p.max_iterations, p.tolerance) = (30, 0.0);
    let mut cpu = CpuPipeline::new(1).unwrap();
    let floor = [plane(Vec3::ZERO, Vec3::Z)];
    cpu.step(
        &mut pile,
        &floor,
        &MeshWalls::default(),
        &[],
        &material(0.5),
        &p,
    )
    .unwrap();
    let rows = cpu.contacts().rows.clone();
    let gamma = cpu.impulses().to_vec();
    let inertia = PrincipalInertia::default();
    let sweep = SweepParams::step(&p, &inertia);
    let kind = pile.kind.clone();
    let mut grid = Grid::default();
    grid.build(&pile.pos_radius, &[], &pile.motion, p.envelope, p.h);
    let mut space = SpaceOrder::default();
    space.build(&grid);
    let mut colouring = Colouring::default();
    colouring.build_in_blocks(&rows, &kind, space.slots());
    let blocks = &colouring.blocks;
    assert!(blocks.len() >= 8, "{} blocks", blocks.len());
    let shared = blocks.shared();
    let classes = colouring.start.len() - 1;
    assert_eq!(
        classes - shared,
        COLOURS + 1,
        "the shared colours and the overflow"
    );
    let beyond_blocks = colouring.start[shared]..colouring.start[classes];
    assert!(
        !beyond_blocks.is_empty(),
        "the large sphere reaches the shared classes"
    );
    let in_blocks = colouring.start[shared] as usize;
    assert!(
        in_blocks * 16 >= rows.len() * 15,
        "{in_blocks} of {} in blocks",
        rows.len()
    );

    let mut first: Option<(u32, u32, Vec<u32>, Vec<u32>)> = None;
    // A pool of three whose sweeps run on its first worker alone (as on a busy machine) too;
    // the rows of spheres in compact packs too (`grains_kernels::sphere_pack`).
    let runs = [(1, 1, false), (2, 2, false), (3, 3, false), (3, 1, false)];
    for (threads, team, compact) in runs.into_iter().chain([(1, 1, true), (2, 2, true)]) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut packs = Packs::default();
        let order = (Some(colouring.order.as_slice()), colouring.start.as_slice());
        let mut slot_radius = Vec::new();
        space.gather(&pile.pos_radius, &mut slot_radius);
        let spheres = compact.then_some(slot_radius.as_slice());
        packs.build(
            &rows,
            &gamma,
            order,
            Some(classes - 1),
            |b| space.slot(b),
            spheres,
        );
        assert_eq!(packs.compact, compact, "sphere rows packed compactly");
        let mut motion = Vec::new();
        space.gather(&pile.motion, &mut motion);
        let out = pool.install(|| {
            apply_warm_start(&packs, blocks, None, &mut motion, &sweep);
            let mut trace = Trace::default();
            trace.begin();
            let joints = &mut JointRows::default();
            solve_gauss_seidel(
                &mut packs,
                blocks,
                joints,
                None,
                &mut motion,
                &mut trace,
                &sweep,
                team,
            )
        });
        let (sweeps, residual) = (out.sweeps, out.residual);
        let mut impulses = vec![[0.0; 4]; rows.len()];
        packs.unpack_gamma(&mut impulses);
        let velocities = bytemuck::cast_slice::<_, u32>(&motion).to_vec();
        let impulses = bytemuck::cast_slice::<_, u32>(&impulses).to_vec();
        let this = (sweeps, residual.to_bits(), velocities, impulses);
        match &first {
            None => first = Some(this),
            Some(one) => {
                let on = format!("{threads} threads, a team of {team}, compact {compact}");
                assert_eq!((this.0, this.1), (one.0, one.1), "{on}");
                assert!(this.2 == one.2, "{on}: velocities differ");
                assert!(this.3 == one.3, "{on}: impulses differ");
            }
        }
    }
}
