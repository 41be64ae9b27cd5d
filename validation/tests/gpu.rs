//! The CPU-vs-GPU lockstep suite: the GPU backend agrees with the CPU running the same projected
//! Jacobi (same ω, same fixed sweep count, tolerance 0 so the CPU runs every sweep too): same
//! active contacts, positions within a stated tolerance, same validation verdicts; snapshots and
//! the runner work on it. The tests here go through `World` and the scene files;
//! [`pipelines`] steps the two pipelines directly on generated beds; [`common`] holds the
//! comparisons both use.
//!
//! Each test first opens its GPU backend; where no adapter exists (no GPU and no software Vulkan
//! device) it prints why it is skipped and returns. Any other error fails the test. On a machine
//! without a GPU, Mesa's lavapipe (`mesa-vulkan-drivers`) runs them on the CPU, in minutes.

mod clumps;
mod common;
mod inertia;
mod lifecycle;
mod meshes;
mod pipelines;
mod solver_row;

use common::{assert_same_contacts, max_position_difference, skipped, smallest_radius};
use grains::{Backend, Body, BuildError, Material, Settings, Solver, SolverKind, World};
use grains_app::runner::{run, RunOptions};
use grains_app::scene::{Scene, SceneError};
use grains_validation::cases::brazil_nut::brazil_nut_to_top;
use grains_validation::cases::particle::{
    coulomb_correction_contraction, engine_path, engine_point_particle, v2_correction,
    PAPER_PARTICLE, V2_CORRECTION_PASSES, V2_DURATION, V2_START,
};
use grains_validation::cases::rolling::v9;
use grains_validation::cases::spin_and_roll::{v12, v8, V8_DECELERATION, V8_T_STOP};
use grains_validation::{load, load_variant, scenes_dir};
use std::path::PathBuf;

/// Largest |Δposition| allowed between the backends after one step from the same state, in
/// units of the smallest radius r (the starting value asked for; not tuned).
///
/// Measured on llvmpipe (Mesa lavapipe, LLVM 15) against the CPU, 100 steps each: pour_1k
/// 1.5e-6 r, V7 disks 3.9e-6 r, with identical contact keys at every step. Left to run freely,
/// the two backends drift apart as round-off (different summation order in the body gather) is
/// amplified by the granular dynamics: pour_1k 4.4e-3 r after 100 steps (first differing contact
/// key at step 45, at the ε̂ boundary); the shaken V7 bed doubles the difference every ~1.5
/// steps from step 50 and is 13 r apart at step 100. So positions and contact sets are compared
/// step by step from the GPU's state, and the free runs only through verdicts (V7, V9).
const POSITION_TOLERANCE_R: f32 = 1e-3;

/// Builds `scene` on the GPU with the one solver it has: projected Jacobi at tolerance 0, with
/// the scene's sweeps and ω. `None` (after saying so on stderr) when there is no adapter.
fn on_gpu(scene: &Scene) -> Option<World> {
    let mut scene = scene.clone();
    scene.settings_mut().solver = scene
        .settings()
        .solver
        .with_kind(SolverKind::Jacobi)
        .with_tolerance(0.0);
    match scene.world_with(None, Some(Backend::Gpu)) {
        Err(SceneError::Build { source, .. }) => gpu_world(Err(source)),
        built => Some(built.unwrap_or_else(|e| panic!("the GPU world could not be built: {e}"))),
    }
}

/// The GPU world `built`; `None` (after saying so on stderr) when there is no adapter.
fn gpu_world(built: Result<World, BuildError>) -> Option<World> {
    match built {
        Ok(w) => Some(w),
        Err(BuildError::NoGpuAdapter(why)) => {
            skipped(&why);
            None
        }
        Err(e) => panic!("the GPU world could not be built: {e}"),
    }
}

/// `scene` with the solver both backends run: projected Jacobi, ω = 0.3, `sweeps` sweeps every
/// step (tolerance 0), read back every step on the GPU.
fn jacobi(mut scene: Scene, sweeps: u32) -> Scene {
    *scene.settings_mut() = Settings {
        solver: Solver::Jacobi {
            sweeps,
            tolerance: 0.0,
            omega: 0.3,
        },
        sync_every: 1,
        threads: 2,
        ..*scene.settings()
    };
    scene
}

fn scene(name: &str) -> Scene {
    load(&scenes_dir(), name).unwrap_or_else(|e| panic!("{e}"))
}

/// `pour_1k` with spinning (e_r = 0.2 r) and rolling (e_roll = 0.1 r) friction on its grains.
fn rough_pour() -> Scene {
    load_variant(&scenes_dir(), "pour_1k", |t| {
        if let Some(toml::Value::Array(m)) = t.get_mut("materials") {
            if let Some(toml::Value::Table(g)) = m.first_mut() {
                g.insert("spinning".into(), toml::Value::Float(0.001));
                g.insert("rolling".into(), toml::Value::Float(0.0005));
            }
        }
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Largest |Δposition| over all bodies of two worlds, in units of the smallest radius.
fn max_world_difference(cpu: &World, gpu: &World) -> f32 {
    max_position_difference(cpu.bodies(), gpu.bodies())
}

/// Steps `scene` 100 steps on the GPU; before each step the CPU world is set to the GPU's
/// state (bodies and warm start, through a snapshot), so that each step compares the two
/// backends on the same input without the round-off of earlier steps being amplified.
fn compare_100_steps(scene: Scene, what: &str) {
    let Some(gpu) = on_gpu(&scene) else {
        return;
    };
    compare_worlds(gpu, scene.world(None).unwrap(), what);
}

/// [`compare_100_steps`] on built worlds: `gpu`, and a CPU world of the same start, set to the
/// GPU's state each step. (How far free runs drift apart is measured in
/// [`POSITION_TOLERANCE_R`]'s notes, not in every run: a third world stepped alongside only for
/// a printed figure.)
fn compare_worlds(mut gpu: World, mut cpu: World, what: &str) {
    let mut worst = (0.0f32, 0u64);
    for step in 1..=100u64 {
        cpu.restore(&gpu.snapshot().unwrap()).unwrap();
        cpu.step().unwrap();
        gpu.step().unwrap();
        assert_eq!(
            gpu.synced_at(),
            step,
            "sync_every = 1 reads back every step"
        );
        let d = max_world_difference(&cpu, &gpu);
        gpu.sync_contacts().unwrap();
        let (cpu_keys, gpu_keys) = (&cpu.contact_rows().keys, &gpu.contact_rows().keys);
        assert_same_contacts(cpu_keys, gpu_keys, &format!("{what}, step {step}"));
        if d > worst.0 {
            worst = (d, step);
        }
    }
    eprintln!(
        "{what}: max one-step |Δposition| = {:.3e} r (at step {}); on {}",
        worst.0,
        worst.1,
        gpu.adapter_name().unwrap_or("?")
    );
    assert!(
        worst.0 <= POSITION_TOLERANCE_R,
        "{what}: positions differ by {} r at step {} (tolerance {POSITION_TOLERANCE_R} r)",
        worst.0,
        worst.1
    );
}

#[test]
fn contacts_and_positions_agree_with_cpu_jacobi() {
    // The pour benchmark (docs/benchmark.md) at 1000 spheres, granular preset but 30 Jacobi
    // sweeps at ω = 0.3.
    let s = jacobi(scene("pour_1k"), 30);
    assert_eq!(s.builder().bodies().len(), 1000);
    compare_100_steps(s, "pour_1k");
}

#[test]
fn spinning_and_rolling_friction_agree_with_cpu_jacobi() {
    // The pour with moment rows: each step starts the CPU from a snapshot of the GPU, which
    // carries the moment impulses' warm start.
    let s = jacobi(rough_pour(), 30);
    compare_100_steps(s, "pour_1k with spinning and rolling friction");
}

/// V8 on the GPU: the sphere spinning in place on the plane (μ = 0.2, e_r = 0.4, h = 0.07)
/// loses its spin at the closed-form μ e_r m g / I = 1.962 rad/s² and stops in the step that
/// contains 1.0 s, to V8's own tolerances: the mean deceleration within 1e-4 of it, every step
/// within 1e-5 rad/s of the line, nothing else moving by more than 1e-6.
#[test]
fn v8_spinning_sphere_stops_at_one_second_on_gpu() {
    let s = scene("v8_spinning_sphere");
    let Some(gpu) = on_gpu(&s) else {
        return;
    };
    let r = v8(gpu, s.total_steps()).unwrap();
    eprintln!(
        "V8 on the GPU: deceleration {:.6} rad/s² (closed form {V8_DECELERATION:.6}, relative \
         error {:.1e}), max deviation from the line {:.1e} rad/s, stop at {:.2} s (closed form \
         {V8_T_STOP:.3} s), off-axis {:.1e}",
        r.deceleration,
        (r.deceleration - V8_DECELERATION) / V8_DECELERATION,
        r.max_deviation,
        r.t_stop,
        r.off_axis
    );
    assert!(r.passes(), "the GPU fails V8: {r:?}");
}

/// V12 on the GPU, a world without walls: the sphere in the seam of two fixed spheres with
/// spinning friction slides, rolls and separates as the paper's figures show (within 0.25 s).
#[test]
fn v12_sphere_in_a_seam_passes_on_gpu() {
    let s = scene("v12_two_spheres");
    let Some(gpu) = on_gpu(&s) else {
        return;
    };
    let r = v12(gpu, s.total_steps()).unwrap();
    assert!(r.passes(), "the GPU fails V12: {r:?}");
}

#[test]
fn planar_disks_agree_with_cpu_jacobi() {
    // V7's 200 disks and the nut in the shaken box, 100 Jacobi sweeps at ω = 0.3.
    let s = jacobi(scene("v7_brazil_nut_2d"), 100);
    assert!(s.settings().planar);
    compare_100_steps(s, "v7_brazil_nut_2d");
}

/// V2's particle on the plane ([`engine_point_particle`] with Jacobi and `passes`
/// Coulomb-correction passes at step `h`) rebuilt on the GPU from the CPU world's settings, wall
/// and body, read back every step, with 5 sweeps per solve: its one contact is solved exactly by
/// the first (ω = 1, the projection in W's metric), where the CPU stops at its tolerance. `None`
/// (after saying so) when there is no adapter.
fn particle_on_gpu(h: f64, passes: u32) -> Option<World> {
    let p = PAPER_PARTICLE;
    let cpu = engine_point_particle(&p, V2_START, h, SolverKind::Jacobi, passes).unwrap();
    let mut b = World::builder(Settings {
        backend: Backend::Gpu,
        sync_every: 1,
        solver: cpu.settings().solver.with_sweeps(5).with_tolerance(0.0),
        ..*cpu.settings()
    });
    b.material(Material::new(p.mu as f32));
    b.wall(cpu.wall_descs()[0]);
    b.body(Body {
        inertia: 1.0 / cpu.bodies().motion[0].inv_inertia,
        ..Body::sphere(cpu.position(0), cpu.radius(0), cpu.mass(0)).with_velocity(cpu.velocity(0))
    });
    gpu_world(b.build())
}

/// Steps of V2's slide the GPU takes: 0.1 s at h = 1 ms, past the plain CCP's apex (0.084 s;
/// it lands at 0.17 s and hops lower after) and the corrected runs' first steps, where each
/// run's largest lift lies (the test checks that on the CPU's whole run). The rest of the 1.5 s
/// slide, where the lifts only shrink with the speed, is V2's on the CPU (`grains validate v2`).
const V2_GPU_STEPS: usize = 100;

/// V2 with the Coulomb correction on the GPU: the sliding particle's lift with 0 → 1 → 2 → 3
/// passes falls as on the CPU (h = 0.001, Jacobi on both). Each GPU lift lies within a factor 1.5
/// of the model's (the hop falls by r² per pass, r = μ²/(1 + μ²), then one step's rise
/// h μ‖v_T‖ r^k; V2's own bound) and within 1 % of the CPU's: both solve the one contact exactly,
/// so they differ by round-off only (measured on lavapipe: the same lifts to 5 digits, 3.5093e-2,
/// 2.7075e-4, 5.6237e-6, 4.6438e-7 m). Without the passes on the GPU every lift would stay at the
/// plain hop, 3.5e-2 m. The GPU steps the first [`V2_GPU_STEPS`] steps of the slide, which hold
/// the largest lift of the CPU's whole run (checked here, bit for bit).
#[test]
fn v2_coulomb_correction_removes_the_lift_on_gpu() {
    let h = 1e-3;
    let cpu = v2_correction(h, SolverKind::Jacobi, &V2_CORRECTION_PASSES).unwrap();
    let steps = (V2_DURATION / h).round() as usize;
    assert!(V2_GPU_STEPS < steps);
    let highest = |path: &[[f64; 2]]| path.iter().map(|q| q[1]).fold(f64::MIN, f64::max);
    for c in &cpu {
        let p = PAPER_PARTICLE;
        let on_cpu = engine_point_particle(&p, V2_START, h, SolverKind::Jacobi, c.passes).unwrap();
        let window = highest(&engine_path(on_cpu, V2_GPU_STEPS).unwrap());
        assert_eq!(
            window, c.lift,
            "{} passes: the CPU's largest lift over the whole slide lies in its first \
             {V2_GPU_STEPS} steps",
            c.passes
        );
        let Some(gpu) = particle_on_gpu(h, c.passes) else {
            return;
        };
        let lift = highest(&engine_path(gpu, V2_GPU_STEPS).unwrap());
        eprintln!(
            "V2 on the GPU, {} passes: lift {lift:.4e} m (CPU {:.4e}, apart by {:.1e} of it; model \
             {:.3e}; r = {:.4})",
            c.passes,
            c.lift,
            (lift - c.lift).abs() / c.lift,
            c.model_lift,
            coulomb_correction_contraction(PAPER_PARTICLE.mu)
        );
        assert!(
            (lift - c.lift).abs() <= 0.01 * c.lift,
            "{} passes: the GPU lifts the particle {lift} m, the CPU {} m",
            c.passes,
            c.lift
        );
        if c.passes > 0 {
            assert!(
                (c.model_lift / 1.5..=c.model_lift * 1.5).contains(&lift),
                "{} passes: lift {lift} m against the model's {} m",
                c.passes,
                c.model_lift
            );
        }
    }
}

#[test]
fn v9_verdict_same_on_gpu() {
    for h in [0.12f32, 0.012] {
        let mut s = scene("v9_slide_to_roll");
        s.settings_mut().h = h;
        let Some(gpu) = on_gpu(&s) else {
            return;
        };
        let cpu = v9(s.world(None).unwrap()).unwrap();
        let gpu = v9(gpu).unwrap();
        assert!(cpu.passes(h), "h = {h}: the CPU fails V9: {cpu:?}");
        assert!(
            gpu.passes(h),
            "h = {h}: the GPU fails V9: {gpu:?} (CPU: {cpu:?})"
        );
        let onset = |t: f64| (t / h as f64).round() as u64;
        assert_eq!(
            onset(gpu.t_roll),
            onset(cpu.t_roll),
            "h = {h}: rolling starts at step {} on the GPU, {} on the CPU",
            onset(gpu.t_roll),
            onset(cpu.t_roll)
        );
    }
}

#[test]
fn brazil_nut_verdict_same_on_gpu() {
    // V7 (planar, 200 disks + the nut, 45 shakes) with 100 Jacobi sweeps at ω = 0.3 on both
    // backends. On the CPU the nut reaches the top after about 24 shakes with this solver.
    let cpu_scene = jacobi(scene("v7_brazil_nut_2d"), 100);
    let mut gpu_scene = cpu_scene.clone();
    gpu_scene.settings_mut().backend = Backend::Gpu;
    if on_gpu(&gpu_scene).is_none() {
        return;
    }
    // Each run stops when its nut first reaches the top: the verdict is decided then.
    let cpu = brazil_nut_to_top(&cpu_scene, None).unwrap();
    let gpu = brazil_nut_to_top(&gpu_scene, None).unwrap();
    eprintln!(
        "V7 with Jacobi: top after {:?} shakes on the CPU, {:?} on the GPU",
        cpu.shakes_to_top, gpu.shakes_to_top
    );
    assert!(
        cpu.rises_within_50_shakes(),
        "the CPU with Jacobi fails V7 (the reference is wrong): {cpu:?}"
    );
    assert!(
        gpu.rises_within_50_shakes(),
        "the GPU fails V7 where the CPU passes: GPU {gpu:?}, CPU {cpu:?}"
    );
}

/// A GPU run of `pour_1k` (30 Jacobi sweeps, read back every 7 steps), plain and with
/// spinning and rolling friction, snapshotted at step 25, moved on 10 steps, restored and run to
/// step 40, ends with the same bits as the run straight through; without the moments' warm
/// start the rough run differs. The grains meet the floor at step 5 and about 1,700 are in
/// contact at the snapshot (2,500 at step 18, on the CPU), so the warm start carries thousands
/// of keys, impulses and moment impulses; neither 25 nor 40 is a read-back step, so the
/// snapshot and the end read the device back themselves.
#[test]
fn snapshot_on_gpu_resumes_the_run() {
    const SNAPSHOT: u64 = 25;
    const MOVE_ON: u64 = 10;
    const END: u64 = 40;
    for base in [scene("pour_1k"), rough_pour()] {
        let mut s = jacobi(base, 30);
        s.settings_mut().sync_every = 7;
        let Some(mut straight) = on_gpu(&s) else {
            return;
        };
        straight.run(END).unwrap();
        assert_eq!(straight.synced_at(), END, "run() reads back at the end");

        let mut w = on_gpu(&s).unwrap();
        w.run(SNAPSHOT).unwrap();
        let snap = w.snapshot().unwrap();
        assert_eq!(snap.steps, SNAPSHOT);
        assert!(
            !snap.warm_keys.is_empty(),
            "the GPU's warm start is in the snapshot"
        );
        let rough = s
            .builder()
            .materials()
            .list
            .iter()
            .any(|m| m.spinning > 0.0);
        assert_eq!(
            snap.warm_moments.len(),
            if rough { snap.warm_keys.len() } else { 0 },
            "one moment impulse per key with spinning and rolling friction, else none"
        );
        // The device moves on; restoring must replace its bodies and warm start.
        w.run(MOVE_ON).unwrap();
        w.restore(&grains::Snapshot::from_bytes(&snap.to_bytes()).unwrap())
            .unwrap();
        w.run(END - SNAPSHOT).unwrap();
        assert_eq!(w.steps(), END);
        // The GPU step is deterministic and restoring uploads the exact state: same bits.
        assert!(
            straight.bodies() == w.bodies(),
            "the resumed GPU run differs from the straight one (positions by up to {} r)",
            max_world_difference(&straight, &w)
        );
        if rough {
            // Without the moments' warm start the resumed run differs.
            let forgetful = grains::Snapshot {
                warm_moments: Vec::new(),
                ..snap
            };
            w.restore(&forgetful).unwrap();
            w.run(END - SNAPSHOT).unwrap();
            assert!(
                straight.bodies() != w.bodies(),
                "the moments' warm start made no difference"
            );
        }
    }
}

#[test]
fn set_velocity_on_gpu_edits_the_current_state() {
    // No read-back in the first 20 steps: set_velocity must read the device's state back
    // before editing it, and upload the edit.
    let mut s = jacobi(scene("pour_1k"), 30);
    s.settings_mut().sync_every = 50;
    let Some(mut gpu) = on_gpu(&s) else {
        return;
    };
    let mut cpu = s.world(None).unwrap();
    for w in [&mut cpu, &mut gpu] {
        for _ in 0..20 {
            w.step().unwrap();
        }
        let kick = glam::Vec3::new(1.0, 0.0, 0.0);
        w.set_velocity(999, kick, glam::Vec3::ZERO).unwrap();
        w.run(5).unwrap();
    }
    let d = max_world_difference(&cpu, &gpu);
    assert!(
        d <= POSITION_TOLERANCE_R,
        "after set_velocity the GPU is {d} r away from the CPU"
    );
    assert!(
        cpu.position(999).x - s.builder().bodies()[999].position.x
            > 0.5 * s.builder().bodies()[999].radius,
        "the kick should have moved the grain"
    );
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-gpu-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The bed height column of `observables.csv` in `dir`, by step.
fn bed_heights(dir: &std::path::Path) -> Vec<(u64, f64)> {
    let text = std::fs::read_to_string(dir.join("observables.csv")).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|c| c.starts_with("bed")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let v: Vec<&str> = l.split(',').collect();
            (v[0].parse().unwrap(), v[col].parse().unwrap())
        })
        .collect()
}

#[test]
fn runner_on_gpu_samples_the_current_step() {
    // Read-backs every 7 steps, samples every 10: the runner must read back before sampling.
    let mut s = jacobi(scene("pour_1k"), 30);
    s.settings_mut().sync_every = 7;
    s.duration = 0.1;
    s.output.every = 10;
    s.output.observe_every = 10;
    s.output.checkpoint_every = 25;
    s.output.formats.png = false;
    let mut gpu_scene = s.clone();
    gpu_scene.settings_mut().backend = Backend::Gpu;
    if on_gpu(&gpu_scene).is_none() {
        return;
    }
    let (cpu_dir, gpu_dir) = (tmp("cpu"), tmp("gpu"));
    let opts = |out: &PathBuf| RunOptions::new(out);
    let cpu = run(&s, &opts(&cpu_dir)).unwrap();
    let gpu = run(&gpu_scene, &opts(&gpu_dir)).unwrap();
    assert_eq!((gpu.steps, gpu.frames), (50, 6));
    assert_eq!(gpu.backend, "gpu");
    assert!(gpu.adapter.is_some());
    let r = smallest_radius(s.world(None).unwrap().bodies()) as f64;
    let (a, b) = (bed_heights(&cpu_dir), bed_heights(&gpu_dir));
    assert_eq!(
        a.iter().map(|x| x.0).collect::<Vec<_>>(),
        b.iter().map(|x| x.0).collect::<Vec<_>>()
    );
    for ((step, za), (_, zb)) in a.iter().zip(&b) {
        assert!(
            (za - zb).abs() <= POSITION_TOLERANCE_R as f64 * r,
            "step {step}: bed height {zb} on the GPU vs {za} on the CPU"
        );
    }
    assert_eq!(cpu.steps, gpu.steps);
    let _ = std::fs::remove_dir_all(cpu_dir);
    let _ = std::fs::remove_dir_all(gpu_dir);
}

/// Applied forces on the GPU: body 0 carries a harmonic force along x and a constant one along
/// z (summed into one entry), body 1 a constant force along y; no gravity, no contacts. After
/// 0.5 s at h = 1 ms (ωt = 1.5 rad: x is 0.21 m, where a constant F would have moved it 0.25 m)
/// both backends are within 1e-6 m of each other, and body 0 within 2e-3 m of
/// x = F(1 − cos ωt)/(mω²), z = F_z t²/(2m) (the step's O(h) against the closed form, F_z t h
/// /(2m) = 2.5e-4 m for z), body 1 of y = F t²/(2m). With no contacts the solve has nothing to
/// do, but each of its sweeps is still two dispatches: one sweep, not 100, keeps the software
/// device's step to the forces and the integration this test is about.
#[test]
fn applied_forces_move_free_bodies_as_on_the_cpu() {
    use glam::Vec3;
    use grains::AppliedForce;
    let build = |backend| {
        let mut b = World::builder(Settings {
            h: 1e-3,
            gravity: Vec3::ZERO,
            solver: Solver::Jacobi {
                sweeps: 1,
                tolerance: 0.0,
                omega: 1.0,
            },
            backend,
            sync_every: 1000,
            ..Settings::default()
        });
        b.material(Material::new(0.5));
        b.body(Body::sphere(Vec3::ZERO, 0.05, 2.0));
        b.body(Body::sphere(Vec3::new(1.0, 0.0, 0.0), 0.05, 1.0));
        b.force(AppliedForce::harmonic(
            0,
            Vec3::new(4.0, 0.0, 0.0),
            3.0,
            0.0,
        ));
        b.force(AppliedForce::constant(0, Vec3::new(0.0, 0.0, 2.0)));
        b.force(AppliedForce::constant(1, Vec3::new(0.0, 1.0, 0.0)));
        b.build()
    };
    let Some(mut gpu) = gpu_world(build(Backend::Gpu)) else {
        return;
    };
    let mut cpu = build(Backend::Cpu).unwrap();
    gpu.run(500).unwrap();
    cpu.run(500).unwrap();
    let t = 0.5f32;
    for i in 0..2 {
        let d = (gpu.position(i) - cpu.position(i)).length();
        assert!(
            d <= 1e-6,
            "body {i}: GPU {} vs CPU {}",
            gpu.position(i),
            cpu.position(i)
        );
    }
    let (x, z) = (
        4.0 * (1.0 - (3.0 * t).cos()) / (2.0 * 9.0),
        2.0 * t * t / (2.0 * 2.0),
    );
    let p = gpu.position(0);
    assert!(
        (p.x - x).abs() < 2e-3 && (p.z - z).abs() < 2e-3,
        "{p} vs ({x}, 0, {z})"
    );
    assert!(
        (gpu.position(1).y - t * t / 2.0).abs() < 2e-3,
        "{}",
        gpu.position(1)
    );
}

/// The pour's tuning (compliant contact, h = 2 ms) with the GPU's Jacobi solver (ω = 0.3, every
/// sweep run), on the GPU: the fast-grain tests' settings.
fn granular_jacobi_on_gpu() -> Settings {
    let granular = Settings::granular(0.002);
    Settings {
        solver: granular
            .solver
            .with_kind(SolverKind::Jacobi)
            .with_omega(0.3)
            .with_tolerance(0.0),
        backend: Backend::Gpu,
        ..granular
    }
}

/// A grain shot at the floor at 10 km/s stops on it on the GPU as on the CPU (the library test
/// `engine/tests/fast_grains.rs`): the pour's tuning (compliant contact, h = 2 ms) with the
/// GPU's Jacobi solver. The compliant row gives at most δ = 0.1 r; 30 sweeps at ω = 0.3 leave
/// 0.7³⁰ of the 10 km/s to stop, 0.2 m/s, another 0.09 r in the step, so the grain overlaps
/// the floor by 0.19 r (measured on lavapipe; the old spring let it through, 68 r deep after
/// one step).
#[test]
fn grains_at_ten_km_per_s_stop_on_the_floor_on_gpu() {
    use glam::Vec3;
    use grains::{sphere_mass, WallDesc};
    let r = 0.005;
    let mut b = World::builder(granular_jacobi_on_gpu());
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    let p = Vec3::new(0.0, 0.0, 0.1);
    b.body(Body::sphere(p, r, sphere_mass(r, 2500.0)).with_velocity(-1e4 * Vec3::Z));
    let Some(mut gpu) = gpu_world(b.build()) else {
        return;
    };
    for step in 1..=20 {
        gpu.run(1).unwrap();
        let overlap = (r - gpu.position(0).z) / r;
        assert!(
            overlap <= 0.25,
            "step {step}: the grain overlaps the floor by {overlap} r"
        );
    }
}

/// A grain falling at 10 km/s half a radius from the side wall of a box stops on the floor below
/// its start on the GPU as on the CPU (`fast_grains.rs`): the box's walls are speculative rows
/// it slides past, frictionless there as on the CPU (`swept_mu` of `narrow_phase.wgsl`), so
/// they neither push it off nor brake it. (With friction they threw it sideways: 4.1 r off its
/// line in the first step, on lavapipe.)
#[test]
fn a_fast_grain_beside_a_side_wall_stops_on_the_floor_on_gpu() {
    use glam::Vec3;
    use grains::{sphere_mass, BoxContainer, MaterialId};
    let r = 0.005;
    let mut b = World::builder(granular_jacobi_on_gpu());
    b.material(Material::new(0.5));
    b.container(&BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: 0.1,
        width_y: 0.1,
        height: 0.2,
        material: MaterialId(0),
        motion: None,
    });
    let p = Vec3::new(-0.05 + 1.5 * r, 0.0, 0.1);
    b.body(Body::sphere(p, r, sphere_mass(r, 2500.0)).with_velocity(-1e4 * Vec3::Z));
    let Some(mut gpu) = gpu_world(b.build()) else {
        return;
    };
    for step in 1..=20 {
        gpu.run(1).unwrap();
        let at = gpu.position(0);
        let overlap = (r - at.z) / r;
        assert!(
            overlap <= 0.25 && (at.x - p.x).abs() < 0.01 * r && at.y.abs() < 0.01 * r,
            "step {step}: the grain is at {at} ({overlap} r into the floor), shot down from {p}"
        );
    }
}

/// pour_1k diverging on the GPU (projected Jacobi at ω = 1.99), read back every 50 steps and
/// written every 25: the runner reads the state back for the step-25 outputs and the health
/// checks run on that read-back before anything of it is written, so the run stops at step 25
/// with the folder holding step 0 only (before: it stopped at step 50 with a frame and a CSV
/// row of NaNs at step 25).
#[test]
fn a_diverging_run_on_gpu_stops_before_writing_its_state() {
    let mut s = scene("pour_1k");
    *s.settings_mut() = Settings {
        solver: Solver::Jacobi {
            sweeps: 30,
            tolerance: 0.0,
            omega: 1.99,
        },
        sync_every: 50,
        backend: Backend::Gpu,
        ..*s.settings()
    };
    s.duration = 0.1;
    s.output.every = 25;
    s.output.observe_every = 25;
    s.output.formats.png = false;
    // Frames as text, searched for NaNs below.
    s.output.frame_encoding = grains_app::output::vtk_xml::FrameEncoding::Ascii;
    if on_gpu(&s).is_none() {
        return;
    }
    let dir = tmp("diverging");
    let opts = RunOptions::new(&dir);
    let e = run(&s, &opts).expect_err("ω = 1.99 diverges");
    let grains_app::runner::RunError::Health {
        source: grains::StepError::Health { step, .. },
    } = e
    else {
        panic!("expected a health error, got {e}");
    };
    assert!(
        step <= 25,
        "found at step {step}, after the step-25 outputs: {e}"
    );
    let csv = std::fs::read_to_string(dir.join("observables.csv")).unwrap();
    for row in csv.lines().skip(1) {
        let step: u64 = row.split(',').next().unwrap().parse().unwrap();
        assert!(step < 25 && !row.to_lowercase().contains("nan"), "{row}");
    }
    for f in std::fs::read_dir(dir.join("frames")).unwrap() {
        let path = f.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap().to_lowercase();
        assert!(!text.contains("nan"), "{} holds NaNs", path.display());
        assert!(path.ends_with("frame_000000000.vtu"), "{}", path.display());
    }
    let _ = std::fs::remove_dir_all(dir);
}
