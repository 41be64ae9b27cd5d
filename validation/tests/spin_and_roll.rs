//! Spinning and rolling friction: rolling resistance stops a rolling sphere at the rate of the
//! rolling moment and holds one on a slope up to tan θ = e_roll / r; the angle of repose of a
//! heap rises with the rolling length.

use grains_validation::repose::{
    repose_of, Heap, REPOSE_LAYERS, REPOSE_LIFT, REPOSE_LIFT_SLOW, REPOSE_ROLLING,
};
use grains_validation::{load_variant, scenes_dir, Setup};

/// The heaps of [`REPOSE_ROLLING`] from a column of `layers` layers (63 grains a layer on
/// average) poured by the tube lifted at `lift` m/s, each on one worker thread (the steps are
/// bit-identical on any count, and one thread a heap leaves the other core to the test beside
/// it).
fn heaps(lift: f32, layers: u32) -> Vec<Heap> {
    let setup = Setup {
        threads: Some(1),
        ..Setup::default()
    };
    REPOSE_ROLLING
        .iter()
        .map(|&e| {
            let h = repose_of(&setup, e, lift, layers).unwrap();
            println!(
                "{layers} layers, lift {lift} m/s, e_roll = {} r: angle {:.1}°, height {:.1} r, \
                 KE/grain {:.1e} J",
                h.rolling, h.angle, h.height, h.kinetic_energy
            );
            h
        })
        .collect()
}

/// Each step of e_roll = 0, 0.05 r, 0.1 r raises the heap's flank by at least 2° and the heap
/// itself; without rolling resistance the spheres spread into a flat bed (0°, under 4 r
/// high); the heaps with rolling resistance have settled.
fn assert_rolling_resistance_raises_the_heap(heaps: &[Heap]) {
    for w in heaps.windows(2) {
        assert!(
            w[1].angle >= w[0].angle + 2.0 && w[1].height > w[0].height,
            "e_roll {} r → {} r: angle {:.1}° → {:.1}°, height {:.1} r → {:.1} r",
            w[0].rolling,
            w[1].rolling,
            w[0].angle,
            w[1].angle,
            w[0].height,
            w[1].height
        );
    }
    let flat = &heaps[0];
    assert!(
        flat.angle == 0.0 && flat.height < 4.0,
        "e_roll = 0: a flat bed, {:.1}° and {:.1} r high",
        flat.angle,
        flat.height
    );
    assert!(
        heaps[1..].iter().all(|h| h.kinetic_energy < 1e-6),
        "the heaps with rolling resistance have settled: {heaps:?}"
    );
}

/// Layers of the column the CI's repose test pours: 12 (756 spheres, lifted out of the tube in
/// 0.135 m), against the scene's 32 (2016). Measured at 0.25 m/s: 0° (a flat bed 3.6 r high),
/// 5.5° (5.7 r high), 11.2° (7.2 r high), KE/grain 7e-6, 2.6e-7 and 8.5e-8 J; the steps of 5.5°
/// and 5.7° lie well above the 2° asked, as the full column's (5.1°, 4.0°) do.
const CI_LAYERS: u32 = 12;

/// Rolling resistance raises the angle of repose: the repose scene's tube (lifted at 0.25 m/s)
/// holding a column of [`CI_LAYERS`] layers, heaped with e_roll = 0, 0.05 r and 0.1 r
/// ([`assert_rolling_resistance_raises_the_heap`]). Without rolling resistance nothing stops a
/// sphere rolling on the floor, so the flat bed's strays may still roll when the heaps have
/// settled (its angle is 0 either way), and the settling is checked where there is a heap. The
/// scene's own column, whose angles docs/method.md tabulates, is
/// [`angle_of_repose_study_with_the_full_column`].
#[test]
fn rolling_resistance_raises_the_angle_of_repose() {
    assert_rolling_resistance_raises_the_heap(&heaps(REPOSE_LIFT, CI_LAYERS));
}

/// The study behind docs/method.md's angle-of-repose figures at 0.25 m/s: the repose scene as
/// it stands (2016 spheres) with the same checks; a few minutes on 2 cores.
#[test]
#[ignore = "a study of minutes; CI runs rolling_resistance_raises_the_angle_of_repose"]
fn angle_of_repose_study_with_the_full_column() {
    assert_rolling_resistance_raises_the_heap(&heaps(REPOSE_LIFT, REPOSE_LAYERS));
}

/// The study behind docs/method.md's angle-of-repose figures at 0.08 m/s: the same heaps
/// poured more gently (about a minute per heap here).
#[test]
#[ignore]
fn angle_of_repose_study_with_a_slow_lift() {
    let heaps = heaps(REPOSE_LIFT_SLOW, REPOSE_LAYERS);
    assert!(heaps.windows(2).all(|w| w[1].angle > w[0].angle));
}

use glam::Vec3;
use grains::{Body, Material, Settings, Snapshot, SolverKind, WallDesc, World};

/// A unit sphere (m = 1, I = 0.4) on the plane z = 0 with μ = 0.5 and rolling length e_roll,
/// under gravity g (which may be tilted), stepped by `solver`.
fn sphere_on_floor(e_roll: f32, gravity: Vec3, v: Vec3, solver: SolverKind) -> World {
    let mut b = World::builder(Settings {
        h: 0.01,
        gravity,
        solver: Settings::default()
            .solver
            .with_kind(solver)
            .with_omega(if solver == SolverKind::Jacobi {
                0.5
            } else {
                1.0
            })
            .with_sweeps(1000)
            .with_tolerance(1e-7),
        ..Settings::default()
    });
    b.material(Material::new(0.5).with_rolling(e_roll));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(Body::sphere(Vec3::new(0.0, 0.0, 1.0), 1.0, 1.0).with_velocity(v));
    b.build().unwrap()
}

/// A sphere rolling without slip against the rolling moment e_roll m g: (I + m r²) ω̇ = −e m g,
/// so v falls at 5 e g / (7 r) and stops at 7 r v₀ / (5 e g); it keeps rolling (no slip) all the
/// way, with both solvers.
#[test]
fn rolling_resistance_stops_a_rolling_sphere_at_five_sevenths_e_g() {
    let (e, v0, g) = (0.05f32, 1.0f32, 9.81f32);
    let deceleration = 5.0 * e * g / 7.0;
    for solver in [SolverKind::GaussSeidel, SolverKind::Jacobi] {
        let mut w = sphere_on_floor(e, Vec3::new(0.0, 0.0, -g), Vec3::X * v0, solver);
        w.set_velocity(0, Vec3::X * v0, Vec3::Y * v0).unwrap();
        let mut t_stop = None;
        for _ in 0..400 {
            w.step().unwrap();
            let (v, om, t) = (w.velocity(0), w.angular_velocity(0), w.time() as f32);
            assert!(
                (v.x - om.y).abs() < 1e-4,
                "{solver:?}: slips at t = {t}: v {v}, ω {om}"
            );
            if t_stop.is_none() {
                let model = v0 - deceleration * t;
                if model > 0.0 {
                    assert!(
                        (v.x - model).abs() < 1e-3,
                        "{solver:?}: v = {} at t = {t}, model {model}",
                        v.x
                    );
                }
                if v.x.abs() < 1e-4 {
                    t_stop = Some(t);
                }
            }
        }
        let t_stop = t_stop.expect("the sphere never stopped");
        let model = v0 / deceleration;
        assert!(
            (t_stop - model).abs() <= 0.011,
            "{solver:?}: stopped at {t_stop} s, model {model} s"
        );
        assert!(w.velocity(0).length() < 1e-4 && w.angular_velocity(0).length() < 1e-4);
    }
}

/// On a slope θ a sphere at rest stays put while tan θ ≤ e_roll / r (the rolling moment
/// e m g cos θ holds the torque r m g sin θ of the friction that keeps it from sliding), and
/// rolls away above it.
#[test]
fn rolling_resistance_holds_a_sphere_on_a_slope_up_to_tan_theta_e_over_r() {
    let e = 0.1f32;
    for (degrees, holds) in [(5.0f32, true), (5.5, true), (6.2, false), (8.0, false)] {
        let th = degrees.to_radians();
        let g = 9.81 * Vec3::new(th.sin(), 0.0, -th.cos());
        let mut w = sphere_on_floor(e, g, Vec3::ZERO, SolverKind::GaussSeidel);
        w.run(200).unwrap();
        let moved = w.position(0).x.abs();
        assert_eq!(
            moved < 1e-4,
            holds,
            "θ = {degrees}° (tan θ = {:.4}, e/r = {e}): moved {moved} m in 2 s",
            th.tan()
        );
    }
}

/// The repose scene's grains with spinning (e_r = 0.2 r) and rolling (e_roll = 0.1 r) friction,
/// on `threads` threads with `solver`.
fn rough_pour(threads: usize, solver: SolverKind) -> World {
    let scene = load_variant(&scenes_dir(), "repose_pile", |t| {
        if let Some(toml::Value::Array(m)) = t.get_mut("materials") {
            if let Some(toml::Value::Table(g)) = m.first_mut() {
                g.insert("spinning".into(), toml::Value::Float(0.001));
            }
        }
    })
    .unwrap();
    let mut world = scene.world(Some(threads)).unwrap();
    let mut settings = *world.settings();
    settings.solver = settings.solver.with_kind(solver);
    if solver == SolverKind::Jacobi {
        settings.solver = settings.solver.with_omega(0.3);
    }
    world.set_settings(settings).unwrap();
    world
}

fn state_bytes(w: &World) -> Vec<u8> {
    let b = w.bodies();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(bytemuck::cast_slice(&b.pos_radius));
    bytes.extend_from_slice(bytemuck::cast_slice(&b.orientation));
    bytes.extend_from_slice(bytemuck::cast_slice(&b.motion));
    bytes
}

/// The moment rows keep the step bit-identical for any thread count, with either solver: 100
/// steps of the rough pour (0.1 s, the 2016 grains settling in the rising tube, thousands of
/// contacts, so that the bodies and the contacts each span several work blocks of
/// `grains_kernels::parallel::BLOCK`); a difference in any step's bits would carry on to the
/// end state.
#[test]
fn spinning_and_rolling_friction_are_bit_identical_on_1_2_and_4_threads() {
    for solver in [SolverKind::GaussSeidel, SolverKind::Jacobi] {
        let run = |threads| {
            let mut w = rough_pour(threads, solver);
            w.run(100).unwrap();
            assert!(!w.moment_impulses().is_empty());
            let contacts = w.last_stats().contacts;
            println!("{solver:?} on {threads} threads: {contacts} contacts at step 100");
            assert!(
                contacts > 2 * grains_kernels::parallel::BLOCK,
                "{contacts} contacts"
            );
            state_bytes(&w)
        };
        let one = run(1);
        assert_eq!(one, run(2), "{solver:?}: 2 threads differ from 1");
        assert_eq!(one, run(4), "{solver:?}: 4 threads differ from 1");
    }
}

/// A snapshot carries the moment impulses' warm start, so a run restored from it ends
/// bit-identical to an uninterrupted one; without them it would not. The rough pour snapshotted
/// at step 100 (its moment rows active, as the test above checks) and run 50 steps on, on one
/// worker thread (the bits are those of any thread count).
#[test]
fn snapshots_with_moment_impulses_resume_bit_identically() {
    let mut w = rough_pour(1, SolverKind::GaussSeidel);
    w.run(100).unwrap();
    let snap = Snapshot::from_bytes(&w.snapshot().unwrap().to_bytes()).unwrap();
    assert!(!snap.warm_moments.is_empty());
    assert_eq!(snap.warm_moments.len(), snap.warm_keys.len());
    w.run(50).unwrap();
    let resume = |snap: &Snapshot| {
        let mut r = rough_pour(1, SolverKind::GaussSeidel);
        r.restore(snap).unwrap();
        r.run(50).unwrap();
        state_bytes(&r)
    };
    assert_eq!(state_bytes(&w), resume(&snap), "the resumed run differs");
    let forgetful = Snapshot {
        warm_moments: Vec::new(),
        ..snap.clone()
    };
    assert_ne!(
        state_bytes(&w),
        resume(&forgetful),
        "the moments' warm start made no difference"
    );
}
