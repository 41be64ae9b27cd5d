//! Servo walls (`engine/src/servo.rs`): a lid that moves to hold a normal force. A bed of 288
//! spheres settled on a floor in a periodic cell (so that no side wall carries any weight) is
//! closed by a plane lid facing down with a servo; once the lid has come to rest its measured
//! load averages the target F*, the floor carries the grains' weight plus F*, and a larger
//! target presses the lid lower. The servo's state survives a snapshot and is the same for any
//! thread count; what a servo cannot be combined with is refused at build, naming the value.

use grains::{
    Body, Material, Periodic, Prescribed, Servo, Settings, Vec3, WallDesc, World, WorldBuilder,
};

const G: f64 = 9.81;
/// Grain radius (m) and the lattice's spacing the grains are dropped from.
const R: f32 = 0.005;
const SPACING: f32 = 2.3 * R;
/// Grains per side of the periodic cell, and layers.
const N: usize = 6;
const LAYERS: usize = 8;
/// Step (s).
const H: f32 = 0.001;
/// The servo's gain (m/s per N) and largest speed (m/s).
const GAIN: f64 = 1e-2;
const MAX_SPEED: f64 = 0.05;

/// The periodic cell's side (m).
fn side() -> f32 {
    N as f32 * SPACING
}

/// A builder of the periodic cell with the floor z = 0 (wall 0).
fn cell(threads: usize) -> WorldBuilder {
    let l = side();
    let mut b = World::builder(Settings {
        periodic: Periodic {
            x: Some((0.0, l)),
            y: Some((0.0, l)),
            ..Periodic::NONE
        },
        threads,
        ..Settings::granular(H)
    });
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b
}

/// The bed settled on the floor without a lid (0.8 s): each grain's centre, radius and mass.
fn settled_bed() -> Vec<(Vec3, f32, f32)> {
    let mut b = cell(1);
    let mut random = grains_kernels::random::Lcg::new(12345);
    let mut unit = || random.unit();
    for k in 0..LAYERS {
        for j in 0..N {
            for i in 0..N {
                let r = R * (0.85 + 0.3 * unit());
                let jitter = 0.05 * R * (unit() - 0.5);
                let at = |q: usize| (q as f32 + 0.5) * SPACING + jitter;
                let z = 1.2 * R + k as f32 * SPACING;
                let mass = 2500.0 * 4.0 / 3.0 * std::f32::consts::PI * r * r * r;
                b.body(Body::sphere(Vec3::new(at(i), at(j), z), r, mass));
            }
        }
    }
    let mut world = b.build().unwrap();
    world.run(800).unwrap();
    (0..world.len())
        .map(|i| (world.position(i), world.radius(i), world.mass(i)))
        .collect()
}

/// The settled bed with a lid (wall 1) facing down 0.5 mm above its highest grain, held by a
/// servo at `target` (N).
fn lidded(bed: &[(Vec3, f32, f32)], target: f64, threads: usize) -> World {
    let mut b = cell(threads);
    let top = bed.iter().map(|(p, r, _)| p.z + r).fold(0.0, f32::max);
    let lid = WallDesc::plane(Vec3::new(0.0, 0.0, top + 0.0005), Vec3::NEG_Z);
    b.wall(lid.with_servo(Servo::new(target, GAIN, MAX_SPEED)));
    for &(p, r, m) in bed {
        b.body(Body::sphere(p, r, m));
    }
    b.build().unwrap()
}

/// What the lid came to under `target`: the mean loads on the lid and floor (N, the force the
/// grains push each with along its normal) over the last 300 of 1800 steps, and the lid's
/// height at the end (m).
struct Held {
    lid: f64,
    floor: f64,
    height: f64,
}

fn hold(bed: &[(Vec3, f32, f32)], target: f64) -> Held {
    let mut world = lidded(bed, target, 1);
    world.run(1500).unwrap();
    let (mut lid, mut floor) = (0.0, 0.0);
    let steps = 300;
    for _ in 0..steps {
        world.step().unwrap();
        let loads = world.wall_loads(Vec3::ZERO);
        let state = world.servo_state(1).unwrap();
        // The servo measures what wall_loads sums, to the bit.
        assert_eq!(state.load, loads[1].force.z, "the servo's load");
        lid += loads[1].force.z / steps as f64;
        floor += -loads[0].force.z / steps as f64;
    }
    let state = world.servo_state(1).unwrap();
    // The lid faces down: it lies `advance` below where it was built.
    let height = world.wall_descs()[1].origin.z as f64 - state.advance;
    Held { lid, floor, height }
}

#[test]
fn a_servo_lid_holds_its_target_and_the_floor_carries_the_weight_and_the_target() {
    let bed = settled_bed();
    let weight: f64 = bed.iter().map(|&(_, _, m)| m as f64 * G).sum();
    let mut heights = Vec::new();
    for target in [0.5 * weight, 2.5 * weight] {
        let held = hold(&bed, target);
        eprintln!(
            "F* = {target:.4} N: lid {:.4} N ({:+.3e} of F*), floor {:.4} N against weight + F* = {:.4} N ({:+.3e}), lid at z = {:.6} m",
            held.lid,
            held.lid / target - 1.0,
            held.floor,
            weight + target,
            held.floor / (weight + target) - 1.0,
            held.height
        );
        assert!(
            (held.lid - target).abs() < 0.01 * target,
            "the lid holds {} N, the target is {target} N",
            held.lid
        );
        assert!(
            (held.floor - (weight + target)).abs() < 0.01 * (weight + target),
            "the floor carries {} N, the weight {weight} N plus the target {target} N",
            held.floor
        );
        heights.push(held.height);
    }
    assert!(
        heights[1] < heights[0],
        "the larger target leaves the lid at z = {} m, not below the smaller one's {} m",
        heights[1],
        heights[0]
    );
}

/// A lid over a few grains: small enough to step for bit comparisons.
fn small(threads: usize) -> World {
    let bed: Vec<(Vec3, f32, f32)> = (0..24)
        .map(|k| {
            let (i, j, l) = (k % 4, k / 4 % 3, k / 12);
            let p = Vec3::new(
                (i as f32 + 0.5) * 2.1 * R,
                (j as f32 + 0.5) * 2.1 * R,
                R + 2.1 * R * l as f32,
            );
            (p, R, 1e-3)
        })
        .collect();
    lidded(&bed, 2.0, threads)
}

#[test]
fn the_servo_state_survives_a_snapshot_and_is_the_same_for_any_thread_count() {
    let mut one = small(1);
    let mut two = small(2);
    one.run(150).unwrap();
    two.run(150).unwrap();
    assert_eq!(one.servo_state(1), two.servo_state(1));
    assert!(
        one.bodies() == two.bodies(),
        "the bodies differ with 2 threads"
    );
    let moved = one.servo_state(1).unwrap();
    assert!(moved.advance > 0.0 && moved.load > 0.0, "{moved:?}");
    assert_eq!(one.servo_state(0), None, "the floor has no servo");

    let snap = one.snapshot().unwrap();
    let back = grains::Snapshot::from_bytes(&snap.to_bytes()).unwrap();
    assert_eq!(back.servos, vec![moved]);
    let mut resumed = small(1);
    resumed.restore(&back).unwrap();
    one.run(100).unwrap();
    resumed.run(100).unwrap();
    assert_eq!(one.servo_state(1), resumed.servo_state(1));
    assert!(one.bodies() == resumed.bodies(), "the restored run differs");

    // A snapshot without the servo's state is refused, naming it.
    let without = grains::Snapshot {
        servos: Vec::new(),
        ..back.clone()
    };
    let msg = small(1).restore(&without).unwrap_err().to_string();
    assert!(
        msg.contains("0 servo wall states for 1 servo walls"),
        "{msg}"
    );
    // Another target is another physics.
    let mut b = cell(1);
    b.wall(
        WallDesc::plane(Vec3::new(0.0, 0.0, 0.05), Vec3::NEG_Z)
            .with_servo(Servo::new(0.4, GAIN, MAX_SPEED)),
    );
    b.body(Body::sphere(Vec3::new(0.01, 0.01, R), R, 1e-3));
    let msg = b.build().unwrap().restore(&back).unwrap_err().to_string();
    assert!(msg.contains("wall 1 servo"), "{msg}");
}

#[test]
fn a_servo_is_refused_where_it_cannot_serve_naming_the_value() {
    let servo = Servo::new(1.0, 1e-3, 0.1);
    let lid = WallDesc::plane(Vec3::new(0.0, 0.0, 0.1), Vec3::NEG_Z);
    let refusal = |settings: Settings, wall: WallDesc| -> String {
        let mut b = World::builder(settings);
        b.material(Material::new(0.5));
        b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
        b.wall(wall);
        b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.01), 0.01, 1e-3));
        match b.build() {
            Ok(_) => panic!("{wall:?} was accepted"),
            Err(e) => e.to_string(),
        }
    };
    let s = Settings::default;
    for (bad, words) in [
        (
            Servo::new(f64::NAN, 1e-3, 0.1),
            "servo.force must be finite and not negative",
        ),
        (Servo::new(-1.0, 1e-3, 0.1), "got -1"),
        (
            Servo::new(1.0, 0.0, 0.1),
            "servo.gain must be finite and positive, got 0",
        ),
        (
            Servo::new(1.0, f64::INFINITY, 0.1),
            "servo.gain must be finite and positive, got inf",
        ),
        (
            Servo::new(1.0, 1e-3, -0.1),
            "servo.max_speed must be finite and positive, got -0.1",
        ),
        (
            Servo::new(1.0, 1e-3, f64::NAN),
            "servo.max_speed must be finite and positive, got NaN",
        ),
    ] {
        let msg = refusal(s(), lid.with_servo(bad));
        assert!(msg.contains("wall 1") && msg.contains(words), "{msg}");
    }
    let rectangle = WallDesc::rectangle(Vec3::new(0.0, 0.0, 0.1), Vec3::NEG_Z, Vec3::X, 0.1, 0.1);
    let msg = refusal(s(), rectangle.with_servo(servo));
    assert!(
        msg.contains("infinite plane only") && msg.contains("rectangle"),
        "{msg}"
    );
    let shaken = lid.moving(Prescribed::vertical_shake(0.001, 10.0));
    let msg = refusal(s(), shaken.with_servo(servo));
    assert!(msg.contains("prescribed motion"), "{msg}");
    let gpu = crate::common::on_the_gpu(s());
    let msg = refusal(gpu, lid.with_servo(servo));
    assert!(
        msg.contains("servo walls") && msg.contains("GPU backend") && msg.contains("wall 1: servo"),
        "{msg}"
    );
    let implicit = Settings {
        integrator: grains::Integrator::GeometricallyImplicit,
        ..s()
    };
    let msg = refusal(implicit, lid.with_servo(servo));
    assert!(
        msg.contains("moving walls") && msg.contains("implicit"),
        "{msg}"
    );
}
