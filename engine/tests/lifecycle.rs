//! Grains that come and go: the body count follows insertions and sinks at every step, mass is
//! balanced through the sinks, ids stay ascending, a checkpoint taken mid-feed resumes
//! bit-identically, the thread count changes no bit, and bad definitions are refused at build.

use grains::{
    BoxContainer, Insertion, Material, MaterialId, Rate, Region, Settings, Sink, SinkShape,
    SizeDistribution, Snapshot, Touching, Vec3, WallDesc, World, WorldBuilder,
};

/// Half width of the box (m).
const HALF: f32 = 0.05;
/// Half width of the square orifice in its floor (m).
const HOLE: f32 = 0.012;

/// A 10 cm box whose floor has a square orifice, fed at `rate` grains/s of radius 2–3 mm from a
/// box region near its top, with a sink below the floor (z < −2 cm).
fn feed(threads: usize, rate: f64) -> WorldBuilder {
    let mut b = World::builder(Settings {
        threads,
        ..Settings::default()
    });
    // A grain over the orifice's edge meets the plate it overlaps only once its centre is over
    // the plate (rectangles have no rims yet): a deep overlap there is that, not a fault.
    b.settings_mut().health.penetration = grains::Check::Warn;
    b.material(Material::new(0.3));
    let c = BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: 2.0 * HALF,
        width_y: 2.0 * HALF,
        height: 0.2,
        material: MaterialId(0),
        motion: None,
    };
    // The side walls only: the floor is four plates around the orifice.
    for w in &c.walls()[1..] {
        b.wall(*w);
    }
    let plate = (HALF - HOLE) / 2.0;
    for (x, y, hu, hv) in [
        (HOLE + plate, 0.0, plate, HALF),
        (-HOLE - plate, 0.0, plate, HALF),
        (0.0, HOLE + plate, HOLE, plate),
        (0.0, -HOLE - plate, HOLE, plate),
    ] {
        b.wall(WallDesc::rectangle(
            Vec3::new(x, y, 0.0),
            Vec3::Z,
            Vec3::X,
            hu,
            hv,
        ));
    }
    let mut ins = Insertion::new(
        Region::Box {
            min: Vec3::new(-0.04, -0.04, 0.14),
            max: Vec3::new(0.04, 0.04, 0.18),
        },
        Rate::CountPerSecond(rate),
        SizeDistribution::uniform(0.002, 0.003),
        2500.0,
    );
    ins.velocity = Vec3::new(0.0, 0.0, -0.5);
    ins.seed = 7;
    b.insert(ins);
    b.sink(Sink::new(
        "below",
        SinkShape::HalfSpace {
            point: Vec3::new(0.0, 0.0, -0.02),
            normal: -Vec3::Z,
        },
    ));
    b
}

#[test]
fn the_count_is_built_plus_placed_minus_removed_at_every_step_and_mass_balances() {
    let mut w = feed(1, 3000.0).build().unwrap();
    let m0 = w.dynamic_mass();
    let (mut saw_in, mut saw_out) = (false, false);
    for _ in 0..500 {
        w.step().unwrap();
        let t = w.lifecycle_state().totals();
        let (placed, removed) = (t.inserted, t.removed);
        assert_eq!(w.len() as u64, placed - removed, "step {}", w.steps());
        assert_eq!(w.ids().len(), w.len());
        assert!(w.ids().windows(2).all(|p| p[0] < p[1]), "ids ascending");
        saw_in |= placed > 0;
        saw_out |= removed > 0;
        // Mass balance: what is in the box is what came in less what went out. The three sums
        // add the same f32 masses in different orders, so they agree to the rounding of f64
        // sums of some thousand terms of 1e-4 kg (well below 1e-12 kg).
        let (inserted, out) = (t.inserted_mass, t.removed_mass);
        let m = w.dynamic_mass();
        assert!(
            (m - (m0 + inserted - out)).abs() < 1e-12,
            "step {}: mass {m} kg, in {inserted}, out {out}",
            w.steps()
        );
    }
    assert!(
        saw_in && saw_out,
        "the feed placed and the sink removed grains"
    );
    let s = w.lifecycle_state();
    // The feed runs 0.5 s at 3000/s: every grain due by the last pass is placed or missed.
    let k = w.insertion_batch_steps()[0];
    let due = (3000.0 * ((w.steps() - 1) / k * k) as f64 * 1e-3) as u64;
    assert_eq!(s.insertions[0].placed + s.insertions[0].missed, due);
    assert_eq!(s.insertions[0].missed, 0, "the region never filled");
    // Every grain left in the box lies above the sink's plane or within one pass's fall of it.
    assert!(w.centres().iter().all(|p| p.z > -0.1));
}

/// Checks that two worlds hold the same bits: bodies, ids and counters.
fn assert_same(a: &World, b: &World) {
    assert_eq!(a.ids(), b.ids());
    assert_eq!(a.lifecycle_state(), b.lifecycle_state());
    assert!(a.bodies() == b.bodies(), "the bodies differ");
    let bits = |w: &World| -> Vec<u32> {
        (w.centres().iter())
            .flat_map(|p| p.to_array().map(f32::to_bits))
            .collect()
    };
    assert_eq!(bits(a), bits(b));
}

#[test]
fn a_checkpoint_taken_mid_feed_resumes_bit_identically() {
    let mut straight = feed(1, 3000.0).build().unwrap();
    straight.run(420).unwrap();
    let mut first = feed(1, 3000.0).build().unwrap();
    first.run(230).unwrap();
    assert!(
        first.lifecycle_state().sinks[0].removed > 0,
        "mid-feed: grains already left"
    );
    let bytes = first.snapshot().unwrap().to_bytes();
    let mut resumed = feed(1, 3000.0).build().unwrap();
    resumed
        .restore(&Snapshot::from_bytes(&bytes).unwrap())
        .unwrap();
    assert_eq!(resumed.len(), first.len());
    resumed.run(190).unwrap();
    assert_same(&resumed, &straight);
}

#[test]
fn one_and_two_threads_give_the_same_bits_with_insertion_and_sinks() {
    let mut one = feed(1, 3000.0).build().unwrap();
    let mut two = feed(2, 3000.0).build().unwrap();
    one.run(300).unwrap();
    two.run(300).unwrap();
    assert!(one.lifecycle_state().sinks[0].removed > 0);
    assert_same(&one, &two);
}

#[test]
fn a_checkpoint_of_another_feed_is_refused() {
    let mut w = feed(1, 3000.0).build().unwrap();
    w.run(100).unwrap();
    let snap = w.snapshot().unwrap();
    let mut other = feed(1, 2000.0).build().unwrap();
    let msg = other.restore(&snap).unwrap_err().to_string();
    assert!(msg.contains("insertion table"), "{msg}");
    // An id beyond the next id is refused by name.
    let mut bad = snap.clone();
    if let Some(last) = bad.ids.last_mut() {
        *last = bad.lifecycle.next_id + 5;
    }
    let mut same = feed(1, 3000.0).build().unwrap();
    let msg = same.restore(&bad).unwrap_err().to_string();
    assert!(msg.contains("next id"), "{msg}");
}

/// The build's error for `b`, as text.
fn refused(b: &WorldBuilder) -> String {
    match b.build() {
        Err(e) => e.to_string(),
        Ok(_) => panic!("built"),
    }
}

#[test]
fn bad_insertions_are_refused_at_build_naming_the_field() {
    let walls = feed(1, 3000.0).walls().to_vec();
    let with = |edit: &dyn Fn(&mut Insertion)| {
        let mut b = World::builder(Settings::default());
        b.material(Material::new(0.3));
        for w in &walls {
            b.wall(*w);
        }
        let mut ins = Insertion::new(
            Region::Box {
                min: Vec3::new(-0.04, -0.04, 0.14),
                max: Vec3::new(0.04, 0.04, 0.18),
            },
            Rate::CountPerSecond(3000.0),
            SizeDistribution::uniform(0.002, 0.003),
            2500.0,
        );
        ins.velocity = Vec3::new(0.0, 0.0, -0.5);
        edit(&mut ins);
        b.insert(ins);
        refused(&b)
    };
    let msg = with(&|i| i.rate = Rate::CountPerSecond(0.0));
    assert!(msg.contains("insert 0: rate must be positive"), "{msg}");
    let msg = with(&|i| i.rate = Rate::KgPerSecond(-1.0));
    assert!(msg.contains("insert 0: rate must be positive"), "{msg}");
    let msg = with(&|i| i.rate = Rate::CountPerSecond(1e7));
    assert!(msg.contains("cannot be placed"), "{msg}");
    let msg = with(&|i| i.sizes = SizeDistribution::uniform(0.003, 0.002));
    assert!(msg.contains("insert 0: radius uniform bounds"), "{msg}");
    let msg = with(&|i| i.sizes = SizeDistribution::normal(0.003, -1.0));
    assert!(msg.contains("normal mean and sd must be positive"), "{msg}");
    let msg = with(&|i| i.sizes = SizeDistribution::table(vec![]));
    assert!(msg.contains("table has no entry"), "{msg}");
    let msg = with(&|i| {
        i.sizes = SizeDistribution::truncated(
            grains::SizeLaw::Normal {
                mean: 0.002,
                sd: 0.0001,
            },
            0.0029,
            0.003,
        )
    });
    assert!(msg.contains("keeps only"), "{msg}");
    let msg = with(&|i| i.sizes = SizeDistribution::fixed(0.05));
    assert!(msg.contains("too small for its grains"), "{msg}");
    let msg = with(&|i| {
        i.region = Region::Box {
            min: Vec3::new(0.04, -0.04, 0.1),
            max: Vec3::new(0.09, 0.04, 0.15),
        }
    });
    assert!(msg.contains("outside the domain"), "{msg}");
    let msg = with(&|i| {
        i.region = Region::Disk {
            centre: Vec3::new(0.03, 0.0, -0.1),
            radius: 0.01,
        }
    });
    assert!(msg.contains("outside the domain"), "{msg}");
}

#[test]
fn sinks_with_joints_and_bad_sink_shapes_are_refused() {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.3));
    b.sink(Sink::new(
        "s",
        SinkShape::HalfSpace {
            point: Vec3::ZERO,
            normal: Vec3::ZERO,
        },
    ));
    assert!(refused(&b).contains("sink 0: shape half-space needs"));
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.3));
    let a = b.body(grains::Body::sphere(Vec3::new(0.0, 0.0, 1.0), 0.1, 1.0));
    b.joint(grains::JointDesc::ball(a, None, Vec3::new(0.0, 0.0, 1.5)));
    b.sink(Sink::new(
        "s",
        SinkShape::Box {
            min: Vec3::splat(-5.0),
            max: Vec3::splat(-4.0),
        },
    ));
    let msg = refused(&b);
    assert!(
        msg.contains("joint 0: bodies gives this world joints, which cannot be combined with insertions and sinks"),
        "{msg}"
    );
}

/// A feed of `rate` and `sizes` into free fall (no walls) with no sink, run `steps` steps.
fn free_feed(rate: Rate, sizes: SizeDistribution, steps: u64) -> World {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.3));
    let mut ins = Insertion::new(
        Region::Box {
            min: Vec3::new(-0.1, -0.1, 0.0),
            max: Vec3::new(0.1, 0.1, 0.05),
        },
        rate,
        sizes,
        2500.0,
    );
    ins.velocity = Vec3::new(0.0, 0.0, -1.0);
    ins.seed = 11;
    b.insert(ins);
    let mut w = b.build().unwrap();
    w.run(steps).unwrap();
    w
}

#[test]
fn a_mass_rate_places_grains_by_the_mean_grain_mass() {
    // Uniform radii in [a, b]: E[r³] = (b⁴ − a⁴) / (4 (b − a)), so 0.05 kg/s is
    // 0.05 / (ρ 4/3 π E[r³]) grains per second, placed by the last batch's time.
    let (a, b) = (0.002f64, 0.003f64);
    let r3 = (b.powi(4) - a.powi(4)) / (4.0 * (b - a));
    let per_second = 0.05 / (2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r3);
    let w = free_feed(
        Rate::KgPerSecond(0.05),
        SizeDistribution::uniform(0.002, 0.003),
        300,
    );
    let k = w.insertion_batch_steps()[0];
    let last = (299 / k * k) as f64 * 1e-3;
    let c = w.lifecycle_state().insertions[0];
    assert_eq!(c.placed + c.missed, (per_second * last).floor() as u64);
    assert_eq!(c.missed, 0);
    assert_eq!(w.len() as u64, c.placed);
}

#[test]
fn drawn_radii_follow_their_law() {
    // A normal law truncated at mean ± 3 sd is symmetric: the drawn radii's mean is the law's
    // mean within 4 standard errors sd / √n (a chance of 6e-5 of failing by bad luck, and the
    // seed is fixed); every radius lies in [min, max].
    let (mean, sd) = (0.0025f32, 0.0002f32);
    let w = free_feed(
        Rate::CountPerSecond(4000.0),
        SizeDistribution::normal(mean, sd),
        300,
    );
    let r: Vec<f64> = w.centres().iter().map(|p| p.w as f64).collect();
    let n = r.len() as f64;
    assert!(n > 500.0, "{n} grains");
    let m = r.iter().sum::<f64>() / n;
    assert!(
        (m - mean as f64).abs() < 4.0 * sd as f64 / n.sqrt(),
        "mean {m}"
    );
    assert!(r
        .iter()
        .all(|&x| x >= (mean - 3.0 * sd) as f64 - 1e-9 && x <= (mean + 3.0 * sd) as f64 + 1e-9));
    // A table draws only its radii, in proportion to the fractions (binomial, 4 sd).
    let w = free_feed(
        Rate::CountPerSecond(4000.0),
        SizeDistribution::table(vec![(0.002, 3.0), (0.003, 1.0)]),
        300,
    );
    let n = w.len() as f64;
    let small = w.centres().iter().filter(|p| p.w == 0.002).count() as f64;
    assert_eq!(
        w.centres().iter().filter(|p| p.w == 0.003).count() as f64 + small,
        n
    );
    assert!(
        (small / n - 0.75).abs() < 4.0 * (0.75f64 * 0.25 / n).sqrt(),
        "{small} of {n}"
    );
}

#[test]
fn drives_and_forces_follow_their_bodies_when_a_grain_before_them_is_removed() {
    // Body 0 falls into a sink; body 1 is driven (shaken along x), body 2 is pushed up by a
    // force that cancels its weight. After the removal they are bodies 0 and 1: the drive and
    // the force must still act on them, not on whatever body now holds their old index.
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.3));
    b.body(grains::Body::sphere(Vec3::new(0.0, 0.0, -0.5), 0.01, 0.01));
    let shake = grains::Prescribed::Shake {
        axis: Vec3::X,
        amplitude: 0.01,
        frequency: 5.0,
        phase: 0.0,
    };
    b.body(grains::Body::sphere(Vec3::new(1.0, 0.0, 0.0), 0.01, 0.01).kinematic(shake));
    let floating = b.body(grains::Body::sphere(Vec3::new(2.0, 0.0, 0.0), 0.01, 0.01));
    b.force(grains::AppliedForce::constant(
        floating,
        Vec3::new(0.0, 0.0, 0.01 * 9.81),
    ));
    b.sink(Sink::new(
        "below",
        SinkShape::HalfSpace {
            point: Vec3::new(0.0, 0.0, -0.4),
            normal: -Vec3::Z,
        },
    ));
    let mut w = b.build().unwrap();
    w.run(100).unwrap();
    assert_eq!(w.ids(), &[1, 2], "body 0 went");
    let t = w.time() as f32;
    // The drive: x = 1 + A sin(2π f t), to the integration's rounding (1e-5 m of 1 cm).
    let x = 1.0 + 0.01 * (std::f32::consts::TAU * 5.0 * t).sin();
    assert!(
        (w.position(0).x - x).abs() < 1e-5,
        "{} vs {x}",
        w.position(0).x
    );
    // The force holds the floating body where it started (its weight cancelled).
    assert!(w.position(1).distance(Vec3::new(2.0, 0.0, 0.0)) < 1e-6);
}

/// A sphere inside a sink, a box (half-extents 0.2 × 0.1 × 0.05 m, principal moments) dropped
/// tilted beside it, and a sphere resting further on, on a floor: the sink's first pass removes
/// body 0, so the box becomes body 0 and must keep its shape and tensor (they follow its id,
/// not its index). It lands and rests flat on its largest face: centre c = 0.05 m up, level,
/// four corner contacts. Had the box taken the removed sphere's shape it would rest as a ball
/// of its radius 0.05 m with one contact, still tilted.
fn box_beside_a_sink(threads: usize) -> WorldBuilder {
    let mut b = World::builder(Settings {
        threads,
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(grains::Body::sphere(Vec3::new(-1.0, 0.0, 0.1), 0.1, 1.0));
    let tilted = grains::Quat::from_rotation_x(0.3) * grains::Quat::from_rotation_y(0.2);
    b.body(
        grains::Body::cuboid(Vec3::new(0.0, 0.0, 0.3), Vec3::new(0.2, 0.1, 0.05), 1.0)
            .with_orientation(tilted),
    );
    b.body(grains::Body::sphere(Vec3::new(1.0, 0.0, 0.1), 0.1, 1.0));
    let shape = SinkShape::Box {
        min: Vec3::new(-1.5, -0.5, -0.5),
        max: Vec3::new(-0.5, 0.5, 0.5),
    };
    b.sink(Sink::new("left", shape));
    b
}

#[test]
fn a_box_keeps_its_shape_and_tensor_when_a_body_before_it_is_removed() {
    let mut w = box_beside_a_sink(1)
        .build()
        .expect("a box beside a sink builds");
    w.run(2000).unwrap();
    assert_eq!(w.ids(), &[1, 2], "the sink removed body 0 only");
    let (p, q) = (w.position(0), w.orientation(0));
    let up = (q * Vec3::Z).z.abs();
    let on_floor = |c: &grains::Contact| matches!(c.touching, Touching::Wall { body: 0, .. });
    let on_box = w.contacts().filter(on_floor).count();
    println!("box at {p}, up·z {up}, {on_box} contacts");
    // Resting under the Φ/h stabilisation: within a fraction of g h² of its face; 1e-4 m and
    // 1e-4 of tilt leave no room for resting on an edge or as a ball of the removed body's
    // shape.
    assert!((p.z - 0.05).abs() < 1e-4, "box centre at {p}");
    assert!(1.0 - up < 1e-4, "box not level: {q}");
    assert_eq!(on_box, 4, "a box rests on four corners on the floor");
    assert!(
        (w.position(1).z - 0.1).abs() < 1e-4,
        "sphere at {}",
        w.position(1)
    );
}

/// A checkpoint of the box world taken after the removal resumes bit for bit (the restored
/// world hands the backend the shapes of the bodies present, by id), and two threads give the
/// same bits as one.
#[test]
fn the_box_world_resumes_bit_identically_after_a_removal_on_any_thread_count() {
    let mut a = box_beside_a_sink(1).build().unwrap();
    a.run(300).unwrap();
    let snap = a.snapshot().unwrap();
    let mut b = box_beside_a_sink(2).build().unwrap();
    b.restore(&Snapshot::from_bytes(&snap.to_bytes()).unwrap())
        .unwrap();
    a.run(300).unwrap();
    b.run(300).unwrap();
    assert_same(&a, &b);
}
