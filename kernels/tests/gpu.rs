//! The GPU backend against the CPU's projected Jacobi on the same bodies: same active contacts,
//! positions within a stated tolerance. Skips with a message where no adapter exists.

use glam::{Quat, Vec3};
use grains_kernels::broad_phase::Envelope;
use grains_kernels::gpu::{GpuError, GpuPipeline};
use grains_kernels::pipeline::SolverKind;
use grains_kernels::{Bodies, BodyKind, CpuPipeline, FrictionTable, Motion, StepParams, Wall};

fn gpu() -> Option<GpuPipeline> {
    match GpuPipeline::new() {
        Ok(g) => Some(g),
        Err(GpuError::NoAdapter(why)) => {
            eprintln!("skipped: no GPU adapter ({why}); install mesa-vulkan-drivers for the software device");
            None
        }
        Err(e) => panic!("GPU backend failed to start: {e}"),
    }
}

/// A floor and four side walls around [−half, half]² (normals inwards).
fn open_box(half: f32) -> Vec<Wall> {
    let wall = |o: Vec3, n: Vec3, u: Vec3| Wall {
        origin: o.extend(0.0).to_array(),
        normal: n.extend(0.0).to_array(),
        u: u.extend(f32::INFINITY).to_array(),
        v: n.cross(u).extend(f32::INFINITY).to_array(),
        velocity: [0.0; 4],
    };
    vec![
        wall(Vec3::ZERO, Vec3::Z, Vec3::X),
        wall(Vec3::new(-half, 0.0, 0.0), Vec3::X, Vec3::Y),
        wall(Vec3::new(half, 0.0, 0.0), -Vec3::X, Vec3::Y),
        wall(Vec3::new(0.0, -half, 0.0), Vec3::Y, Vec3::Z),
        wall(Vec3::new(0.0, half, 0.0), -Vec3::Y, Vec3::Z),
    ]
}

/// `n` spheres of radius 0.05–0.1 m on a jittered lattice above the floor, plus one large one.
fn spheres(n: usize, with_large: bool) -> Bodies {
    let mut b = Bodies::default();
    let mut seed = 12345u64;
    let mut rand = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let side = 8;
    for i in 0..n {
        let (x, y, z) = (i % side, (i / side) % side, i / (side * side));
        let r = 0.05 + 0.05 * rand();
        let p = Vec3::new(
            (x as f32 - 3.5) * 0.21 + 0.01 * rand(),
            (y as f32 - 3.5) * 0.21 + 0.01 * rand(),
            0.12 + z as f32 * 0.21,
        );
        push(&mut b, p, r, Vec3::new(rand() - 0.5, rand() - 0.5, -rand()));
    }
    if with_large {
        // Just above the top layer, falling into it.
        let z = 0.53 + (n / (side * side)) as f32 * 0.21;
        push(
            &mut b,
            Vec3::new(0.0, 0.0, z),
            0.3,
            Vec3::new(0.0, 0.0, -2.0),
        );
    }
    b
}

fn push(b: &mut Bodies, p: Vec3, r: f32, v: Vec3) {
    let m = 2500.0 * 4.0 / 3.0 * std::f32::consts::PI * r * r * r;
    b.pos_radius.push(p.extend(r));
    b.orientation.push(Quat::IDENTITY);
    b.motion.push(Motion {
        linear: v.to_array(),
        inv_mass: 1.0 / m,
        angular: [0.0; 3],
        inv_inertia: 1.0 / (0.4 * m * r * r),
    });
    b.material.push(0);
    b.kind.push(BodyKind::Dynamic as u32);
}

fn params(h: f32) -> StepParams {
    StepParams {
        h,
        gravity: Vec3::new(0.0, 0.0, -9.81),
        envelope: Envelope::PerPair {
            floor: 0.0025,
            speed_factor: 1.5,
        },
        solver: SolverKind::Jacobi,
        max_iterations: 30,
        tolerance: 0.0,
        omega: 0.3,
        warm_start: 1.0,
        planar: false,
        contact_frequency: 1.2 / h,
        coulomb_correction: 0,
        stabilise_contacts: true,
    }
}

/// Largest distance between the two bodies' centres, in units of the smallest radius.
fn max_drift(a: &Bodies, b: &Bodies) -> f32 {
    let r_min = a
        .pos_radius
        .iter()
        .map(|p| p.w)
        .fold(f32::INFINITY, f32::min);
    a.pos_radius
        .iter()
        .zip(&b.pos_radius)
        .map(|(p, q)| (p.truncate() - q.truncate()).length())
        .fold(0.0, f32::max)
        / r_min
}

struct Scene {
    walls: Vec<Wall>,
    friction: FrictionTable,
    params: StepParams,
    bodies: Bodies,
}

fn scene(n: usize, with_large: bool) -> Scene {
    Scene {
        walls: open_box(0.9),
        friction: FrictionTable {
            count: 1,
            mu: vec![0.5],
            restitution: vec![0.0],
            ..FrictionTable::default()
        },
        params: params(2e-3),
        bodies: spheres(n, with_large),
    }
}

/// Keys in one list and not the other.
fn difference(a: &[u64], b: &[u64]) -> Vec<(u32, u32)> {
    let split = |k: u64| ((k >> 32) as u32, k as u32);
    a.iter()
        .filter(|k| b.binary_search(k).is_err())
        .chain(b.iter().filter(|k| a.binary_search(k).is_err()))
        .map(|&k| split(k))
        .collect()
}

/// Each step starts the CPU from the GPU's state (bodies and warm start): the two must find
/// the same contacts and move the bodies alike within 1e-5 r.
fn lockstep(s: &Scene, what: &str, steps: usize) {
    let Some(mut gpu) = gpu() else { return };
    let mut cpu = CpuPipeline::new(2).unwrap();
    let mut gpu_bodies = s.bodies.clone();
    let mut worst = 0.0f32;
    for step in 1..=steps {
        let mut cpu_bodies = gpu_bodies.clone();
        let (keys, impulses) = gpu.warm_start_state().unwrap();
        cpu.restore_warm_start(&keys, &impulses);
        cpu.step(&mut cpu_bodies, &s.walls, &[], &s.friction, &s.params);
        gpu.step(&mut gpu_bodies, &s.walls, &[], &s.friction, &s.params, true)
            .unwrap();
        let (keys, _, _) = gpu.contacts().unwrap();
        let diff = difference(&keys, &cpu.contacts().keys);
        assert!(
            diff.is_empty(),
            "{what}, step {step}: contacts differ: {diff:?}"
        );
        worst = worst.max(max_drift(&cpu_bodies, &gpu_bodies));
    }
    eprintln!("lockstep {what}, {steps} steps: largest one-step difference {worst:.2e} r");
    assert!(
        worst < 1e-5,
        "{what}: one step moves bodies differently by {worst} r"
    );
}

/// Both backends run freely: the contact sets agree exactly at first and the positions stay
/// within 1e-3 r over `steps` steps (rounding differences grow, as in any chaotic system).
fn free_run(n: usize, with_large: bool, steps: usize) {
    let Some(mut gpu) = gpu() else { return };
    let s = scene(n, with_large);
    let mut cpu = CpuPipeline::new(2).unwrap();
    let (mut cpu_bodies, mut gpu_bodies) = (s.bodies.clone(), s.bodies.clone());
    let mut first_difference = None;
    for step in 1..=steps {
        let c = cpu.step(&mut cpu_bodies, &s.walls, &[], &s.friction, &s.params);
        let g = gpu
            .step(&mut gpu_bodies, &s.walls, &[], &s.friction, &s.params, true)
            .unwrap();
        let (keys, _, _) = gpu.contacts().unwrap();
        let diff = difference(&keys, &cpu.contacts().keys);
        if !diff.is_empty() && first_difference.is_none() {
            first_difference = Some((step, diff.len(), c.contacts));
        }
        assert!(g.kinetic_energy.is_finite());
    }
    let drift = max_drift(&cpu_bodies, &gpu_bodies);
    eprintln!(
        "free run {n} bodies (large: {with_large}), {steps} steps: drift {drift:.2e} r; first contact-set difference {first_difference:?} (step, pairs, contacts)"
    );
    assert!(
        drift < 1e-3,
        "positions differ by {drift} r after {steps} steps"
    );
    assert!(
        first_difference.is_none_or(|(step, _, _)| step > 20),
        "contact sets differ early: {first_difference:?}"
    );
}

#[test]
fn falling_spheres_step_like_cpu_jacobi() {
    lockstep(&scene(300, false), "300 bodies", 100);
}

#[test]
fn large_body_in_a_bed_steps_like_cpu_jacobi() {
    lockstep(&scene(300, true), "300 bodies and a large one", 100);
}

/// Without the Φ/h term (n·v⁺ ≥ 0 for every ε̂-active contact) the GPU steps like the CPU too;
/// with the term wrongly kept, contacts found inside the envelope would close their gap within
/// the step and the bodies land ~0.1 r apart (measured on lavapipe: 9e-2 r).
#[test]
fn unstabilised_contacts_step_like_cpu_jacobi() {
    let mut s = scene(300, false);
    s.params.stabilise_contacts = false;
    lockstep(&s, "300 bodies without Φ/h", 100);
}

#[test]
fn free_runs_stay_together() {
    free_run(300, false, 100);
    free_run(300, true, 100);
}

#[test]
fn gpu_runs_repeat_bit_for_bit() {
    let run = || {
        let mut gpu = gpu()?;
        let s = scene(300, true);
        let mut bodies = s.bodies.clone();
        for step in 1..=60 {
            gpu.step(
                &mut bodies,
                &s.walls,
                &[],
                &s.friction,
                &s.params,
                step % 30 == 0,
            )
            .unwrap();
        }
        Some((bodies, gpu.contacts().unwrap().2))
    };
    let (Some(a), Some(b)) = (run(), run()) else {
        return;
    };
    assert_eq!(a.0, b.0, "bodies differ between two runs");
    assert_eq!(a.1, b.1, "impulses differ between two runs");
    assert!(!a.1.is_empty());
}
