//! Insertions of shaped grains ([`Insertion::shaped`]): a feed of clumps and one of ellipsoids
//! into a box places grains at the rate, they fall and settle, a sink takes some out while the
//! others keep their shapes by id, a checkpoint taken mid-feed resumes bit for bit on another
//! thread count, and shapes the world cannot hold are refused at build, naming the insertion.

use grains::{
    Backend, Body, BoxContainer, BuildError, ClumpTemplate, Insertion, Material, MaterialId, Quat,
    Rate, Region, Settings, Shape, Sink, SinkShape, Snapshot, Solver, Vec3, WallDesc, World,
    WorldBuilder,
};

/// Half width of the box (m).
const HALF: f32 = 0.05;
/// Grains per second.
const RATE: f64 = 500.0;
/// The feed stops at this time (s).
const STOP: f64 = 0.4;

/// The grains a feed places.
#[derive(Clone, Copy, Debug)]
enum Grain {
    /// Rods of three overlapping spheres (r = 3 mm, 4 mm apart).
    Clump,
    /// Ellipsoids of semi-axes 4, 3 and 2.5 mm.
    Ellipsoid,
}

/// A 10 cm box with a floor at z = 0, fed at [`RATE`] grains/s until [`STOP`] from a box region
/// 10–16 cm up with grains of `grain` at 2500 kg/m³, starting down at 0.5 m/s, and a sink over
/// a corner of the floor (x, y > 2 cm, z < 2 cm).
fn feed(threads: usize, grain: Grain) -> WorldBuilder {
    let mut b = World::builder(Settings {
        threads,
        ..Settings::default()
    });
    b.material(Material::new(0.4));
    b.container(&BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: 2.0 * HALF,
        width_y: 2.0 * HALF,
        height: 0.2,
        material: MaterialId(0),
        motion: None,
    });
    let template = match grain {
        Grain::Clump => {
            let rod = b.clump_template(&ClumpTemplate::rod(3, 0.003, 0.004).unwrap());
            Body::clump(Vec3::ZERO, Quat::IDENTITY, &rod, 2500.0)
        }
        Grain::Ellipsoid => {
            let semi = Vec3::new(0.004, 0.003, 0.0025);
            Body::ellipsoid(Vec3::ZERO, semi, grains::ellipsoid_mass(semi, 2500.0))
        }
    };
    let mut ins = Insertion::shaped(
        Region::Box {
            min: Vec3::new(-0.04, -0.04, 0.10),
            max: Vec3::new(0.04, 0.04, 0.16),
        },
        Rate::CountPerSecond(RATE),
        template,
    );
    ins.velocity = Vec3::new(0.0, 0.0, -0.5);
    ins.stop = STOP;
    ins.seed = 11;
    b.insert(ins);
    b.sink(Sink::new(
        "corner",
        SinkShape::Box {
            min: Vec3::new(0.02, 0.02, -0.01),
            max: Vec3::new(0.06, 0.06, 0.02),
        },
    ));
    b
}

/// Runs the feed of `grain` for 1 s and checks it step by step: the count is placed minus
/// removed; every grain due by the last pass is placed (none missed); each body present has its
/// template's shape (by id, whatever was removed before it); no grain leaves the box; at the
/// end the grains rest.
fn feed_fills_and_settles(grain: Grain) {
    let mut w = feed(1, grain).build().unwrap();
    let template = w.insertions()[0].template.unwrap();
    let k = w.insertion_batch_steps()[0];
    for _ in 0..1000 {
        w.step().unwrap();
        let s = w.lifecycle_state();
        let (c, sink) = (s.insertions[0], s.sinks[0]);
        assert_eq!(
            w.len() as u64,
            c.placed - sink.removed,
            "step {}",
            w.steps()
        );
        let last_pass = (w.steps() - 1) / k * k;
        let due = (RATE * (last_pass as f64 * 1e-3).min(STOP)).floor() as u64;
        assert_eq!((c.placed, c.missed), (due, 0), "step {}", w.steps());
        assert!((0..w.len()).all(|i| w.shape(i) == template.shape));
        assert!((0..w.len()).all(|i| w.position(i).z > -0.01));
    }
    let s = w.lifecycle_state();
    let (placed, removed) = (s.insertions[0].placed, s.sinks[0].removed);
    let ke = w.last_stats().kinetic_energy / w.len() as f64;
    let deepest = w.last_stats().max_penetration;
    println!(
        "{grain:?}: {placed} placed (batch every {k} steps), {removed} removed, {} left, kinetic energy per grain {ke:.3e} J, deepest overlap {deepest:.2e} m",
        w.len()
    );
    assert_eq!(placed, (RATE * STOP) as u64);
    assert!(removed > 0 && removed < placed, "the sink took some");
    // At rest: 1e-7 J is a 0.6 g grain at 1.8 cm/s; it fell with 1e-3 J.
    assert!(ke < 1e-7, "kinetic energy per grain {ke:.3e} J");
    assert!(w.centres().iter().all(|p| p.z < 0.05), "the grains lie low");
}

#[test]
fn a_clump_feed_places_at_the_rate_and_settles_while_a_sink_takes_some() {
    feed_fills_and_settles(Grain::Clump);
}

#[test]
fn an_ellipsoid_feed_places_at_the_rate_and_settles_while_a_sink_takes_some() {
    feed_fills_and_settles(Grain::Ellipsoid);
}

/// Checks that two worlds hold the same bits: bodies, ids, counters and placing insertions.
fn assert_same(a: &World, b: &World) {
    assert_eq!(a.ids(), b.ids());
    assert_eq!(a.lifecycle_state(), b.lifecycle_state());
    assert!(a.bodies() == b.bodies(), "the bodies differ");
    let bits = |w: &World| -> Vec<u32> {
        (0..w.len())
            .flat_map(|i| {
                let (p, q) = (w.position(i), w.orientation(i));
                p.to_array()
                    .into_iter()
                    .chain(q.to_array())
                    .map(f32::to_bits)
            })
            .collect()
    };
    assert_eq!(bits(a), bits(b));
}

/// A checkpoint of the clump feed taken mid-feed, after the sink took grains, resumes on two
/// threads to the same bits as the straight run on one, and on one as the straight run on two.
/// From one thread the checkpoint is the straight run's own at step 310, taken on its way to
/// 600 (890 steps, not 1,200); from two it comes from a run of its own, so that the straight
/// run there takes no snapshot and a snapshot that changed the world it was taken of would
/// still show.
#[test]
fn a_clump_feed_checkpointed_mid_feed_resumes_bit_identically_on_another_thread_count() {
    for (first, second) in [(1, 2), (2, 1)] {
        let mut straight = feed(first, Grain::Clump).build().unwrap();
        let shared = first == 1;
        let mut own = feed(first, Grain::Clump).build().unwrap();
        let part = if shared { &mut straight } else { &mut own };
        part.run(310).unwrap();
        let s = part.lifecycle_state();
        assert!(s.sinks[0].removed > 0, "grains already left");
        assert!(s.insertions[0].placed < 200, "mid-feed");
        let bytes = part.snapshot().unwrap().to_bytes();
        straight.run(if shared { 290 } else { 600 }).unwrap();
        let mut resumed = feed(second, Grain::Clump).build().unwrap();
        resumed
            .restore(&Snapshot::from_bytes(&bytes).unwrap())
            .unwrap();
        resumed.run(290).unwrap();
        assert_same(&resumed, &straight);
        assert!((0..resumed.len()).all(|i| matches!(resumed.shape(i), Shape::Clump { .. })));
    }
}

/// A checkpoint of the clump feed does not resume the ellipsoid feed (the template is in the
/// physics fingerprint), and without its placing insertions (as format 4 has none) it does not
/// resume the clump feed itself; one taken before the first grain resumes it.
#[test]
fn a_checkpoint_of_a_shaped_feed_resumes_only_its_own_feed() {
    let mut w = feed(1, Grain::Clump).build().unwrap();
    w.run(200).unwrap();
    let snap = w.snapshot().unwrap();
    let mut other = feed(1, Grain::Ellipsoid).build().unwrap();
    let msg = other.restore(&snap).unwrap_err().to_string();
    assert!(msg.contains("insertion table"), "{msg}");
    let mut forgetful = snap.clone();
    forgetful.lifecycle.placed_by.clear();
    let msg = feed(1, Grain::Clump)
        .build()
        .unwrap()
        .restore(&forgetful)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("places shaped grains"), "{msg}");
    // Before the first grain is placed there is no record to keep: that snapshot resumes.
    let mut empty = feed(1, Grain::Clump).build().unwrap();
    empty.step().unwrap();
    assert_eq!(empty.len(), 0, "the feed has not placed yet");
    let early = empty.snapshot().unwrap();
    let mut resumed = feed(1, Grain::Clump).build().unwrap();
    resumed.restore(&early).unwrap();
    resumed.run(199).unwrap();
    w.restore(&snap).unwrap();
    assert_same(&resumed, &w);
}

/// The message of the build error of `b`, after checking it names insertion 0's shape.
fn refusal(b: &WorldBuilder) -> String {
    match b.build() {
        Err(
            e @ BuildError::Insert {
                insert: 0,
                field: "shape",
                ..
            },
        ) => e.to_string(),
        Err(e) => panic!("expected insertion 0's shape to be refused, got {e}"),
        Ok(_) => panic!("the world was built"),
    }
}

/// Shapes the world cannot hold are refused at build naming the insertion: ellipsoids on the
/// GPU backend (which feeds spheres and clumps), beside a built box (clumps meet spheres, clumps and walls only), ellipsoids outside a
/// cylinder wall (they meet it from inside only, which builds); a sphere feed beside the same
/// box builds.
#[test]
fn shaped_grains_the_world_cannot_hold_are_refused_naming_the_insertion() {
    let mut gpu = feed(1, Grain::Ellipsoid);
    *gpu.settings_mut() = Settings {
        backend: Backend::Gpu,
        solver: Solver::Jacobi {
            sweeps: 50,
            tolerance: 0.0,
            omega: 0.3,
        },
        ..Settings::default()
    };
    let msg = refusal(&gpu);
    assert!(
        msg.contains("insert 0: shape gives this world ellipsoids")
            && msg
                .contains("the GPU backend: the GPU's narrow phase meets spheres and clumps only"),
        "{msg}"
    );

    let mut beside_box = feed(1, Grain::Clump);
    beside_box.body(Body::cuboid(
        Vec3::new(0.0, 0.0, 0.03),
        Vec3::new(0.01, 0.01, 0.005),
        0.01,
    ));
    let msg = refusal(&beside_box);
    assert!(
        msg.contains("clumps meet spheres, clumps and walls only"),
        "{msg}"
    );

    let mut outside = feed(1, Grain::Ellipsoid);
    outside.wall(WallDesc::cylinder(Vec3::ZERO, Vec3::Z, 0.2, 0.3, false));
    let msg = refusal(&outside);
    assert!(
        msg.contains("insert") && msg.contains("only from inside"),
        "{msg}"
    );
    let mut inside = feed(1, Grain::Ellipsoid);
    inside.wall(WallDesc::cylinder(Vec3::ZERO, Vec3::Z, 0.2, 0.3, true));
    inside
        .build()
        .expect("ellipsoids meet a cylinder from inside");

    let mut spheres = World::builder(Settings::default());
    spheres.material(Material::new(0.4));
    spheres.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    spheres.body(Body::cuboid(
        Vec3::new(0.0, 0.0, 0.005),
        Vec3::new(0.01, 0.01, 0.005),
        0.01,
    ));
    let mut ins = Insertion::new(
        Region::Box {
            min: Vec3::new(-0.04, -0.04, 0.10),
            max: Vec3::new(0.04, 0.04, 0.16),
        },
        Rate::CountPerSecond(RATE),
        grains::SizeDistribution::fixed(0.003),
        2500.0,
    );
    ins.velocity = Vec3::new(0.0, 0.0, -0.5);
    spheres.insert(ins);
    spheres.build().expect("spheres meet boxes");
}

/// Two feeds of capsules (r = 2 mm, half-length 8 mm: a bounding radius of 1 cm) into one 20 cm
/// region, 60 grains each due at the same batch step: the second keeps its grains' bounding
/// spheres clear of those of the capsules the first placed in the same pass, as it does of the
/// bodies placed before. (Until 2026-12-02 it took a grain placed in the same pass for a
/// sphere of the capsule's radius, and placed grains through it.)
#[test]
fn a_second_shaped_feed_keeps_clear_of_what_the_first_placed_in_the_same_pass() {
    let h = 0.001;
    let mut b = World::builder(Settings {
        h,
        gravity: Vec3::ZERO,
        threads: 1,
        ..Settings::default()
    });
    b.material(Material::new(0.4));
    let region = Region::Box {
        min: Vec3::splat(-0.1),
        max: Vec3::splat(0.1),
    };
    let rod = Body::capsule(Vec3::ZERO, 0.002, 0.008, 1e-4);
    for seed in [1, 2] {
        let mut ins = Insertion::shaped(region, Rate::CountPerSecond(60.0 / h as f64), rod);
        ins.seed = seed;
        ins.batch_steps = Some(1);
        b.insert(ins);
    }
    let mut world = b.build().expect("the two feeds build");
    world.step().expect("a step");
    world.change_bodies().expect("the pass of both feeds");
    let placed: Vec<u64> = (world.lifecycle_state().insertions.iter())
        .map(|c| c.placed)
        .collect();
    assert!(placed[0] >= 50 && placed[1] >= 50, "placed {placed:?}");
    let centres: Vec<Vec3> = (0..world.len()).map(|i| world.position(i)).collect();
    let bound = 0.01f32;
    let mut closest = f32::INFINITY;
    for (i, a) in centres.iter().enumerate() {
        for c in &centres[i + 1..] {
            closest = closest.min(a.distance(*c));
        }
    }
    assert!(
        closest >= 2.0 * bound * (1.0 - 1e-6),
        "two grains' bounding spheres overlap: centres {closest} m apart, {} m needed",
        2.0 * bound
    );
}
