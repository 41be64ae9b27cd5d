//! Stage 6, the solve: projected Jacobi and Gauss–Seidel reach the same impulses on a fixed small
//! pile, and the closed form where there is one.

mod common;

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

/// The Gauss–Seidel solve in space order ([`grains_kernels::space_order`]: each colour sorted by
/// the slot of its first body, the velocities in the grid's cell order) gives the impulses and
/// velocities of the solve in body order bit for bit, on 1 and 3 threads: a random pile of
/// 600 spheres of mixed radii (and one four times larger, so the colours run out and the
/// overflow is used), from the contacts and warm-start impulses of a step of it.
#[test]
fn the_solve_in_space_order_gives_the_bits_of_body_order() {
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
    sphere(&mut pile, Vec3::new(0.0, 0.0, 0.04), 0.04, 0.5);
    for _ in 0..600 {
        let at = Vec3::new(random.unit() - 0.5, random.unit() - 0.5, random.unit()) * 0.12;
        sphere(&mut pile, at, 0.008 + 0.004 * random.unit(), 0.01);
    }
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
    let mut colouring = Colouring::default();
    colouring.build(&rows, &kind);
    assert!(
        colouring.start[COLOURS] > colouring.start[COLOURS - 1],
        "the large sphere's contacts reach the overflow"
    );

    // Body order.
    let solve = |packs: &mut Packs, motion: &mut Vec<grains_kernels::Motion>, threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            apply_warm_start(packs, None, motion, &sweep);
            let mut trace = Trace::default();
            trace.begin();
            solve_gauss_seidel(
                packs,
                &mut JointRows::default(),
                None,
                motion,
                &mut trace,
                &sweep,
            )
        })
    };
    let mut packs = Packs::default();
    let classes = (Some(colouring.order.as_slice()), colouring.start.as_slice());
    packs.build(&rows, &gamma, classes, Some(COLOURS), |b| b);
    let mut motion = pile.motion.clone();
    let plain = solve(&mut packs, &mut motion, 1);
    let mut plain_gamma = vec![[0.0; 4]; rows.len()];
    packs.unpack_gamma(&mut plain_gamma);

    // Space order, on 1 and 3 threads.
    let mut grid = Grid::default();
    grid.build(&pile.pos_radius, &[], &pile.motion, p.envelope, p.h);
    let mut space = SpaceOrder::default();
    space.build(&grid);
    let slots: Vec<u32> = rows.iter().map(|r| space.slot(r.body_a)).collect();
    let mut sorted = Colouring::default();
    sorted.build(&rows, &kind);
    sorted.order_classes_by(&slots, kind.len());
    assert_ne!(
        sorted.order, colouring.order,
        "the space order moves contacts"
    );
    for threads in [1, 3] {
        let mut packs = Packs::default();
        let classes = (Some(sorted.order.as_slice()), sorted.start.as_slice());
        packs.build(&rows, &gamma, classes, Some(COLOURS), |b| space.slot(b));
        let mut local = Vec::new();
        space.gather(&pile.motion, &mut local);
        let ordered = solve(&mut packs, &mut local, threads);
        let mut back = pile.motion.clone();
        space.scatter(&local, &mut back);
        let mut ordered_gamma = vec![[0.0; 4]; rows.len()];
        packs.unpack_gamma(&mut ordered_gamma);
        assert_eq!(ordered.0, plain.0, "{threads} threads: sweeps");
        assert_eq!(
            ordered.1.to_bits(),
            plain.1.to_bits(),
            "{threads} threads: residual"
        );
        let bits = |m: &[grains_kernels::Motion]| bytemuck::cast_slice::<_, u32>(m).to_vec();
        assert!(
            bits(&back) == bits(&motion),
            "{threads} threads: velocities differ"
        );
        let same = bytemuck::cast_slice::<_, u32>(&ordered_gamma)
            == bytemuck::cast_slice::<_, u32>(&plain_gamma);
        assert!(same, "{threads} threads: impulses differ");
    }
}
