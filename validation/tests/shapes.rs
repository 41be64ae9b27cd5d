//! Capsules, ellipses and cubes: contacts, V3 and V4, and the typed refusals.

use glam::{Quat, Vec3};
use grains::{
    Backend, Body, BuildError, Material, Settings, Shape, Solver, Touching, WallDesc, World,
};
use grains_app::scene::Scene;
use grains_validation::cases::bar::{
    v3, v3_passes, v3_reference_passes, v3_reference_rows, v3_world, V3_DURATION, V3_TABLE,
};
use grains_validation::cases::boxes::v22;
use grains_validation::cases::ellipse::{v4, v4_passes, v4_world};
use grains_validation::cases::on_floor::tight;
use grains_validation::Setup;

fn floor_world(settings: Settings, bodies: &[Body]) -> Result<World, BuildError> {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for &body in bodies {
        b.body(body);
    }
    b.build()
}

#[test]
fn capsule_lying_on_the_floor_rests_on_both_ends() {
    let (r, l) = (0.1, 0.5);
    let cap = Body::capsule(Vec3::new(0.0, 0.0, r + 0.05), r, l, 1.0);
    let mut w = floor_world(Settings::default(), &[cap]).unwrap();
    for _ in 0..1000 {
        w.step().unwrap();
    }
    assert_eq!(w.contacts().len(), 2, "one contact per end");
    let p = w.position(0);
    assert!((p.z - r).abs() < 1e-4, "rests at its radius: z = {}", p.z);
    let tilt = (w.orientation(0) * Vec3::X).z.abs();
    assert!(tilt < 1e-4, "stays level: axis z = {tilt}");
    assert!(w.velocity(0).length() < 1e-4);
}

#[test]
fn sphere_comes_to_rest_on_a_lying_capsule() {
    let (rc, rs) = (0.1, 0.05);
    let cap = Body::capsule(Vec3::new(0.0, 0.0, rc), rc, 0.5, 1.0)
        .with_orientation(Quat::from_rotation_z(0.7))
        .fixed();
    let over = Quat::from_rotation_z(0.7) * Vec3::new(0.3, 0.0, 0.0);
    let ball = Body::sphere(over + Vec3::Z * (2.0 * rc + rs + 0.05), rs, 0.1);
    let mut w = floor_world(Settings::default(), &[cap, ball]).unwrap();
    for _ in 0..1500 {
        w.step().unwrap();
    }
    let p = w.position(1);
    let axis = w.orientation(0) * Vec3::X;
    let across = p - axis * p.dot(axis) - Vec3::new(0.0, 0.0, rc);
    assert!(
        (across.length() - rc - rs).abs() < 1e-3,
        "touches the segment's surface: distance {}",
        across.length()
    );
    assert!(
        (p.z - 2.0 * rc - rs).abs() < 1e-3,
        "on top of the capsule, not fallen through: z = {}",
        p.z
    );
}

#[test]
fn ellipse_at_rest_on_its_flat_side_touches_the_floor_at_b() {
    let settings = Settings {
        planar: true,
        ..Settings::default()
    };
    let e = Body::ellipse(Vec3::new(0.0, 0.0, 2.05), 4.0, 2.0, 10.0);
    let mut w = floor_world(settings, &[e]).unwrap();
    for _ in 0..1000 {
        w.step().unwrap();
    }
    assert!(
        (w.position(0).z - 2.0).abs() < 1e-4,
        "z = {}",
        w.position(0).z
    );
}

#[test]
fn v4_stabilisation_keeps_the_ellipse_out_of_the_table() {
    let with = v4(v4_world(&Setup::default(), true).unwrap(), true).unwrap();
    let without = v4(v4_world(&Setup::default(), false).unwrap(), false).unwrap();
    assert!(
        v4_passes(&with, &without),
        "with {with:?}, without {without:?}"
    );
}

#[test]
fn v3_bar_steps_stay_solvable_and_lose_energy() {
    let runs: Vec<_> = [(0.5, -1.0), (0.0, -1.0)]
        .into_iter()
        .map(|(drop, v0)| {
            let w = v3_world(&Setup::default(), 0.01, drop, v0, 0.0).unwrap();
            v3(w, V3_DURATION).unwrap()
        })
        .collect();
    assert!(v3_passes(&runs), "{runs:?}");
    for r in &runs {
        assert!(
            r.tip.1 > -1e-3,
            "the tip stays on the line: lowest {}",
            r.tip.1
        );
        assert!(r.energy.1 < r.energy.0, "energy lost: {:?}", r.energy);
    }
}

/// anitescu-2006 ex. 3: dropped without initial contact, the bar's CCP path tends to its exact
/// Coulomb LCP path as h → 0 (both solved by Lemke's method), and the engine follows the exact
/// CCP; a table whose differences stop falling, or an engine that strays, fails the verdict.
#[test]
fn v3_bar_ccp_tends_to_the_exact_lcp_without_initial_contact() {
    let (drop, v0) = V3_TABLE;
    let rows = v3_reference_rows(&Setup::default(), drop, v0).unwrap();
    assert!(v3_reference_passes(&rows), "{rows:#?}");
    let ratio = rows[0].lower_end / rows[7].lower_end;
    assert!(
        ratio > 2f64.powi(7),
        "lower end falls ≥ 2× per halving: {ratio}"
    );
    let mut stalled = rows.clone();
    stalled[7].lower_end = stalled[6].lower_end;
    assert!(!v3_reference_passes(&stalled));
    let mut strayed = rows;
    strayed[3].engine.relative_error = 2e-3;
    assert!(!v3_reference_passes(&strayed));
}

#[test]
fn ellipse_outside_planar_mode_is_refused() {
    let e = Body::ellipse(Vec3::new(0.0, 0.0, 3.0), 4.0, 2.0, 10.0);
    match floor_world(Settings::default(), &[e]) {
        Err(BuildError::Body { body, field, .. }) => assert_eq!((body, field), (0, "shape")),
        other => panic!("expected a shape error, got {:?}", other.err()),
    }
}

#[test]
fn bad_capsule_length_is_refused() {
    let mut c = Body::capsule(Vec3::new(0.0, 0.0, 3.0), 0.1, 1.0, 1.0);
    c.shape = Shape::Capsule { half_length: -1.0 };
    match floor_world(Settings::default(), &[c]) {
        Err(BuildError::Body { body, field, .. }) => assert_eq!((body, field), (0, "shape")),
        other => panic!("expected a shape error, got {:?}", other.err()),
    }
}

#[test]
fn gpu_refuses_non_sphere_shapes_but_takes_unstabilised_contacts() {
    let gpu = Settings {
        backend: Backend::Gpu,
        solver: Solver::Jacobi {
            sweeps: 100,
            tolerance: 0.0,
            omega: 1.0,
        },
        ..Settings::default()
    };
    let c = Body::capsule(Vec3::new(0.0, 0.0, 3.0), 0.1, 1.0, 1.0);
    match floor_world(gpu, &[c]) {
        Err(e @ BuildError::Body { body: 0, .. }) => assert!(
            e.to_string().contains(
                "gives this world capsules, which cannot be combined with the GPU backend"
            ),
            "{e}"
        ),
        other => panic!("expected the capsule's refusal, got {:?}", other.err()),
    }
    let s = Body::sphere(Vec3::new(0.0, 0.0, 3.0), 0.1, 1.0);
    let unstabilised = Settings {
        stabilise_contacts: false,
        ..gpu
    };
    match floor_world(unstabilised, &[s]) {
        Ok(_) => {}
        Err(BuildError::NoGpuAdapter(why)) => {
            eprintln!("skipped the build: no GPU adapter ({why})")
        }
        Err(e) => panic!("the GPU refused unstabilised contacts: {e}"),
    }
}

/// The distance from `p` to the boundary of the ellipse (centre c, semi-axes a along x and b
/// along z), by sampling the boundary.
fn sampled_ellipse_distance(c: Vec3, a: f32, b: f32, p: Vec3) -> f32 {
    (0..100_000)
        .map(|k| {
            let t = std::f32::consts::TAU * k as f32 / 100_000.0;
            (c + Vec3::new(a * t.cos(), 0.0, b * t.sin()) - p).length()
        })
        .fold(f32::INFINITY, f32::min)
}

#[test]
fn disk_rests_on_a_fixed_ellipse_at_its_radius_from_the_boundary() {
    let settings = Settings {
        planar: true,
        ..Settings::default()
    };
    // Small and near the origin, so that f32 positions resolve a creep of 1e-5 m/s per step.
    let (a, b, r) = (0.4f32, 0.2f32, 0.05f32);
    let c = Vec3::new(0.0, 0.0, 0.25);
    // On top (closed form: centre height c_z + b + r), and on the shoulder at θ = 60° of the
    // parametrisation (a cos θ, b sin θ): centre e + r n̂, n̂ ∝ (cos θ / a, sin θ / b); the
    // shoulder's disk slides like a block (huge inertia) and μ = 0.5 holds it on the slope.
    let t = 60f32.to_radians();
    let e = Vec3::new(a * t.cos(), 0.0, b * t.sin());
    let n = Vec3::new(t.cos() / a, 0.0, t.sin() / b).normalize();
    let shoulder = c + e + r * n;
    let slope = n.x.abs() / n.z;
    assert!(slope < 0.5, "the slope {slope} is within μ");
    let ellipse = Body::ellipse(c, a, b, 100.0).fixed();
    let top = Body::disk(c + Vec3::Z * (b + r + 0.002), r, 1.0);
    let mut side = Body::disk(shoulder + n * 1e-4, r, 1.0);
    side.inertia = 1e20;
    let mut w = floor_world(settings, &[ellipse, top, side]).unwrap();
    for _ in 0..1000 {
        w.step().unwrap();
    }
    let z = w.position(1).z;
    assert!((z - (c.z + b + r)).abs() < 1e-4, "top: z = {z}");
    assert!(
        w.position(1).x.abs() < 1e-4,
        "stays on top: x = {}",
        w.position(1).x
    );
    let p = w.position(2);
    let d = sampled_ellipse_distance(c, a, b, p);
    assert!(
        (d - r).abs() < 2e-4,
        "shoulder: distance {d} from the boundary"
    );
    assert!(
        (p - shoulder).length() < 5e-3,
        "stays put: {p} vs {shoulder}"
    );
    for i in [1, 2] {
        assert!(
            w.velocity(i).length() < 1e-4,
            "{i} at rest: {}",
            w.velocity(i)
        );
    }
}

#[test]
fn capsule_dropped_across_a_fixed_capsule_rests_at_the_sum_of_the_radii() {
    // Centred across the lower one, a plank on a log: balanced, and stable since the log's
    // radius r1 exceeds the height r2 of the plank's centre above the contact.
    let (r1, r2) = (0.1, 0.06);
    let below = Body::capsule(Vec3::new(0.0, 0.0, 1.0), r1, 0.5, 1.0).fixed();
    let across = Body::capsule(Vec3::new(0.15, 0.0, 1.0 + r1 + r2 + 0.05), r2, 0.4, 1.0)
        .with_orientation(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
    let mut w = floor_world(Settings::default(), &[below, across]).unwrap();
    for _ in 0..1500 {
        w.step().unwrap();
    }
    let p = w.position(1);
    assert!(
        (p.z - 1.0 - r1 - r2).abs() < 1e-4,
        "axes r1 + r2 apart: z = {}",
        p.z
    );
    assert!(w.velocity(1).length() < 1e-4, "at rest: {}", w.velocity(1));
    assert_eq!(
        w.contacts().len(),
        1,
        "crossing capsules touch at one point"
    );
}

#[test]
fn log_on_two_parallel_logs_rests_on_both_ends_of_each() {
    // Two fixed logs along x, axes 2.4 r apart in y; a third on top, parallel: its axis rests at
    // r + √((2r)² − (1.2 r)²) = 2.6 r, level, on four contacts (both ends of each overlap).
    let r = 0.1;
    let log = |y: f32, z: f32| Body::capsule(Vec3::new(0.0, y, z), r, 0.5, 1.0);
    let bodies = [
        log(-1.2 * r, r).fixed(),
        log(1.2 * r, r).fixed(),
        log(0.0, 2.6 * r + 0.02).with_velocity(Vec3::new(0.0, 0.0, -0.1)),
    ];
    let mut w = floor_world(Settings::default(), &bodies).unwrap();
    for _ in 0..1000 {
        w.step().unwrap();
    }
    let p = w.position(2);
    assert!((p.z - 2.6 * r).abs() < 1e-4, "z = {} vs {}", p.z, 2.6 * r);
    assert!(p.y.abs() < 1e-4, "centred: y = {}", p.y);
    let tilt = (w.orientation(2) * Vec3::X).z.abs();
    assert!(tilt < 1e-4, "stays level: axis z = {tilt}");
    assert_eq!(w.contacts().len(), 4, "two contacts per pair of logs");
}

fn rods_pour_scene() -> Scene {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes/rods_pour.toml");
    Scene::load(path).unwrap_or_else(|e| panic!("{e}"))
}

/// `scenes/rods_pour.toml` stepped `steps` steps on `threads` threads: (world, largest
/// penetration −Φ of any contact over the run, largest rod speed over the last 0.1 s).
fn rods_pour(threads: usize, steps: Option<u64>) -> (World, f32, f32) {
    let scene = rods_pour_scene();
    let mut w = scene.world(Some(threads)).unwrap();
    let steps = steps.unwrap_or(scene.total_steps());
    let rods = scene.group("rods").unwrap();
    let late = steps - (0.1 / scene.settings().h).round() as u64;
    let (mut worst, mut rod_speed) = (0.0f32, 0.0f32);
    for k in 0..steps {
        w.step().unwrap();
        let deepest = w.contact_rows().rows.iter().map(|r| -r.phi);
        worst = deepest.fold(worst, f32::max);
        if k >= late {
            rod_speed = rods
                .clone()
                .map(|i| w.velocity(i).length())
                .fold(rod_speed, f32::max);
        }
    }
    (w, worst, rod_speed)
}

#[test]
fn rods_pour_settles_without_nan_or_deep_overlap() {
    let (w, worst, rod_speed) = rods_pour(1, None);
    let r = 0.005;
    for i in 0..w.len() {
        assert!(
            w.position(i).is_finite() && w.velocity(i).is_finite(),
            "body {i}"
        );
    }
    let rods = rods_pour_scene()
        .builder()
        .bodies()
        .iter()
        .filter(|b| !b.shape.is_sphere())
        .count();
    assert_eq!(rods, 200, "the scene's 200 rods");
    // Impacts of rods spinning at tens of rad/s reach a few tenths of a millimetre for a step
    // (the contact points slide along crossing rods within the step); the settled bed none.
    assert!(worst < 0.25 * r, "largest penetration {worst} m");
    let settled = w
        .contact_rows()
        .rows
        .iter()
        .map(|c| -c.phi)
        .fold(0.0f32, f32::max);
    assert!(settled < 0.05 * r, "settled penetration {settled} m");
    assert!(
        rod_speed < 0.01,
        "rods still moving at {rod_speed} m/s over the last 0.1 s"
    );
    let inside = (0..w.len()).all(|i| {
        let p = w.position(i);
        p.x.abs() < 0.15 && p.y.abs() < 0.15 && p.z > 0.0 && p.z < 0.1
    });
    assert!(inside, "every body settled in the box, below 0.1 m");
}

#[test]
fn rods_pour_is_bit_identical_on_1_and_2_threads() {
    let (one, ..) = rods_pour(1, Some(150));
    let (two, ..) = rods_pour(2, Some(150));
    for i in 0..one.len() {
        let bits = |w: &World| {
            let (p, q) = (w.position(i), w.orientation(i));
            (
                p.to_array().map(f32::to_bits),
                q.to_array().map(f32::to_bits),
            )
        };
        assert_eq!(bits(&one), bits(&two), "body {i}");
    }
    assert_eq!(one.contact_rows().keys, two.contact_rows().keys);
}

#[test]
fn scene_shape_keys_set_the_axis_mass_and_inertia() {
    let text = r#"
[scene]
name = "keys"
duration = 0.01

[settings]
preset = "rigid"
h = 0.01
planar = true

[[containers]]
kind = "floor"

[[bodies]]
generator = "list"
shape = "capsule"
radius = 0.1
half_length = 0.3
density = 2.0
axis = [0.0, 0.0, 1.0]
list = [{ position = [0.0, 0.0, 1.0] }, { position = [2.0, 0.0, 1.0], axis = [-1.0, 0.0, 1.0] }]

[[bodies]]
generator = "lattice"
shape = "ellipse"
a = 0.4
b = 0.2
axis = "random"
density = 3.0
origin = [-4.0, 0.0, 2.0]
spacing = 1.0
counts = [8, 1, 1]
"#;
    let s = Scene::parse(std::path::Path::new("keys.toml"), text).unwrap_or_else(|e| panic!("{e}"));
    let x = |i: usize| s.builder().bodies()[i].orientation * Vec3::X;
    assert!((x(0) - Vec3::Z).length() < 1e-6, "{}", x(0));
    let diagonal = Vec3::new(-1.0, 0.0, 1.0).normalize();
    assert!((x(1) - diagonal).length() < 1e-6, "{}", x(1));
    // Planar capsule: ρ (4 r L + π r²), the flat stadium's moment about y (checked against an
    // area integral in engine/tests/inertia.rs), one scalar.
    let m = 2.0 * (4.0 * 0.1 * 0.3 + std::f32::consts::PI * 0.01);
    let capsule = &s.builder().bodies()[0];
    assert!((capsule.mass - m).abs() < 1e-6, "{}", capsule.mass);
    let stadium = grains::stadium_moment(0.1, 0.3, m);
    assert!(
        (capsule.inertia - stadium).abs() < 1e-6,
        "{}",
        capsule.inertia
    );
    assert_eq!(capsule.principal_moments, None);
    // Ellipses: ρ π a b, m (a² + b²)/4, random axes in the x–z plane, no two alike.
    let e = &s.builder().bodies()[2];
    let m = 3.0 * std::f32::consts::PI * 0.4 * 0.2;
    assert!((e.mass - m).abs() < 1e-6 && (e.inertia - m * 0.2 / 4.0).abs() < 1e-6);
    assert_eq!(e.shape, Shape::Ellipse { a: 0.4, b: 0.2 });
    let axes: Vec<Vec3> = (2..10).map(x).collect();
    for (k, a) in axes.iter().enumerate() {
        assert!(a.y.abs() < 1e-6 && (a.length() - 1.0).abs() < 1e-6, "{a}");
        assert!(
            axes[..k].iter().all(|b| (*a - *b).length() > 1e-3),
            "{axes:?}"
        );
    }
}

// Cubes (cuboids with equal half-extents): resting on a face on the floor and on each other,
// against spheres, and the typed refusals.

const G: f32 = 9.81;

/// A cube dropped tilted about two axes lands on an edge or a corner, tips over and comes to rest
/// flat on a face: at its half-edge above the floor (to 1e-4 of it), level (every face normal
/// along a world axis to 1e-4), still, held at its four lower corners, whose normal forces add
/// up to its weight m g to 1e-4 (statics of a body on a plane; friction carries nothing at
/// rest on a level floor, so the tangential forces vanish to the same tolerance).
#[test]
fn a_tilted_cube_dropped_on_the_floor_comes_to_rest_flat_on_a_face() {
    let (half, mass) = (0.05, 2.0);
    let tilt = Quat::from_rotation_x(0.5) * Quat::from_rotation_y(0.3);
    let cube = Body::cube(Vec3::new(0.0, 0.0, 0.2), half, mass).with_orientation(tilt);
    let mut w = floor_world(tight(), &[cube]).unwrap();
    for _ in 0..3000 {
        w.step().unwrap();
    }
    let p = w.position(0);
    assert!(
        (p.z - half).abs() < 1e-4 * half,
        "rests at its half-edge: z = {}",
        p.z
    );
    let q = w.orientation(0);
    let level = [Vec3::X, Vec3::Y, Vec3::Z]
        .map(|axis| (q * axis).z.abs())
        .into_iter()
        .fold(0.0f32, f32::max);
    assert!(1.0 - level < 1e-4, "no face normal is vertical: {level}");
    rests_on_four_corners(&w, mass);
}

/// Body 0 of `w`, of mass `mass`, is still and held at four contacts (its lower corners) whose
/// forces add up to its weight m g to 1e-4 (statics of a body on a level floor: the normal
/// forces carry the weight, friction carries nothing).
fn rests_on_four_corners(w: &World, mass: f32) {
    assert!(w.velocity(0).length() < 1e-4 && w.angular_velocity(0).length() < 1e-3);
    let contacts: Vec<_> = w.contacts().collect();
    assert_eq!(
        contacts.len(),
        4,
        "one contact per lower corner: {contacts:?}"
    );
    let force: Vec3 = contacts.iter().map(|c| c.force).sum();
    let weight = mass * G;
    assert!(
        (force.z - weight).abs() < 1e-4 * weight,
        "normal forces {} against the weight {weight}",
        force.z
    );
    assert!(
        force.truncate().length() < 1e-4 * weight,
        "tangential {force}"
    );
}

/// V22: a slab (half-extents 0.1 × 0.05 × 0.02 m, its principal moments) dropped tilted about
/// two axes tips over and comes to rest on its largest face as statics says (height, level,
/// four corners, forces = weight, no friction force, each to 1e-4; see `BoxAtRest::passes`).
#[test]
fn v22_a_tilted_slab_comes_to_rest_on_its_largest_face() {
    let m = v22(None).unwrap();
    assert!(m.passes(), "{m:?}");
}

/// Three cubes stacked with their faces turned against each other (0.3 and 0.6 rad about z)
/// settle into a still tower: each at its height 2 k half above the floor (the sum of the
/// half-edges below), the floor carrying the weight of all three and the top cube's contacts
/// its own weight (forces to 1e-4 of the weights).
#[test]
fn a_tower_of_turned_cubes_stands_still() {
    let (half, mass) = (0.05, 1.0);
    let cubes: Vec<Body> = (0..3)
        .map(|k| {
            let z = half + 2.0 * half * k as f32 + 0.002 * k as f32;
            Body::cube(Vec3::new(0.0, 0.0, z), half, mass)
                .with_orientation(Quat::from_rotation_z(0.3 * k as f32))
        })
        .collect();
    let mut w = floor_world(tight(), &cubes).unwrap();
    for _ in 0..2000 {
        w.step().unwrap();
    }
    for k in 0..3 {
        let z = w.position(k).z;
        let want = half * (1.0 + 2.0 * k as f32);
        assert!(
            (z - want).abs() < 1e-4 * half * 3.0,
            "cube {k} at z = {z}, want {want}"
        );
        assert!(w.velocity(k).length() < 1e-4, "cube {k} moves");
    }
    let contacts: Vec<_> = w.contacts().collect();
    let weight = mass * G;
    let on_floor: f32 = contacts
        .iter()
        .filter(|c| matches!(c.touching, Touching::Wall { .. }))
        .map(|c| c.force.z)
        .sum();
    assert!(
        (on_floor - 3.0 * weight).abs() < 1e-4 * 3.0 * weight,
        "floor carries {on_floor}, want {}",
        3.0 * weight
    );
    let on_top: f32 = contacts
        .iter()
        .filter(|c| matches!(c.touching, Touching::Bodies { a, b } if a == 2 || b == 2))
        .map(|c| c.force.z.abs())
        .sum();
    assert!(
        (on_top - weight).abs() < 1e-4 * weight,
        "the top cube's contacts carry {on_top}, want {weight}"
    );
}

/// A ball dropped on the middle of a fixed cube's top face comes to rest on it, its centre its
/// radius above the face; one dropped past the top face's edge rolls off it without falling
/// into the cube (its centre never nearer the cube than its radius, less the solver's overlap).
#[test]
fn balls_rest_on_a_cube_and_roll_off_its_edge() {
    let (half, r) = (0.1, 0.02);
    let cube = Body::cube(Vec3::new(0.0, 0.0, half), half, 1.0).fixed();
    let on_top = Body::sphere(Vec3::new(0.01, -0.02, 2.0 * half + r + 0.03), r, 0.05);
    let on_edge = Body::sphere(
        Vec3::new(half + 0.3 * r, 0.0, 2.0 * half + r + 0.01),
        r,
        0.05,
    );
    let mut w = floor_world(tight(), &[cube, on_top, on_edge]).unwrap();
    let mut nearest = f32::INFINITY;
    for _ in 0..1500 {
        w.step().unwrap();
        let local = w.position(2) - Vec3::new(0.0, 0.0, half);
        let outside = (local.abs() - Vec3::splat(half)).max(Vec3::ZERO).length();
        nearest = nearest.min(outside);
    }
    let z = w.position(1).z;
    assert!((z - 2.0 * half - r).abs() < 1e-4, "resting ball at z = {z}");
    assert!(
        nearest > r - 1e-3,
        "the rolling ball came within {nearest} of the cube"
    );
    assert!(
        w.position(2).x > half + r - 1e-3,
        "rolled off the edge: x = {}",
        w.position(2).x
    );
}

/// The same cube pile on 1 and 2 threads gives the same bits.
#[test]
fn a_cube_pile_is_bit_identical_on_1_and_2_threads() {
    let run = |threads: usize| {
        let cubes: Vec<Body> = (0..12)
            .map(|k| {
                let (i, j) = (k % 3, k / 3);
                let p = Vec3::new(
                    0.16 * i as f32 - 0.16,
                    0.013 * j as f32,
                    0.08 + 0.16 * j as f32,
                );
                Body::cube(p, 0.05, 1.0).with_orientation(Quat::from_rotation_z(0.4 * k as f32))
            })
            .collect();
        let settings = Settings {
            threads,
            ..Settings::default()
        };
        let mut w = floor_world(settings, &cubes).unwrap();
        for _ in 0..400 {
            w.step().unwrap();
        }
        (0..12)
            .map(|k| (w.position(k), w.orientation(k), w.velocity(k)))
            .collect::<Vec<_>>()
    };
    let one = run(1);
    assert!(
        one.iter().all(|(p, _, _)| p.is_finite() && p.z > 0.0),
        "{one:?}"
    );
    assert_eq!(one, run(2));
}

/// Refused at build: a cuboid with unequal half-extents and no principal moments (one scalar
/// inertia is exact for a cube only), one in planar mode, a non-positive half-extent, cuboids beside capsules, and the GPU backend.
#[test]
fn unsupported_cuboids_are_refused() {
    let cube = Body::cube(Vec3::new(0.0, 0.0, 0.5), 0.1, 1.0);
    let slab = Body {
        shape: Shape::Cuboid {
            half_extents: Vec3::new(0.2, 0.1, 0.05),
        },
        ..cube
    };
    let problem = |settings: Settings, bodies: &[Body]| match floor_world(settings, bodies) {
        Err(BuildError::Body { field, problem, .. }) => format!("{field}: {problem}"),
        Err(e) => e.to_string(),
        Ok(_) => panic!("built"),
    };
    assert!(problem(Settings::default(), &[slab]).contains("needs its principal moments"));
    let planar = Settings {
        planar: true,
        ..Settings::default()
    };
    assert!(problem(planar, &[cube]).contains("planar mode"));
    let flat = Body {
        shape: Shape::Cuboid {
            half_extents: Vec3::new(0.1, 0.1, 0.0),
        },
        ..cube
    };
    assert!(problem(Settings::default(), &[flat]).contains("positive"));
    let capsule = Body::capsule(Vec3::new(1.0, 0.0, 0.5), 0.05, 0.2, 1.0);
    assert!(problem(Settings::default(), &[cube, capsule]).contains("boxes meet"));
    // Planar ellipses meet disks and walls only: a capsule or a second ellipse beside one is
    // refused (their pairs are not detected), naming the unmet body.
    let oval = |x: f32| Body::ellipse(Vec3::new(x, 0.0, 0.5), 0.2, 0.1, 1.0);
    let disk = Body::disk(Vec3::new(-1.0, 0.0, 0.5), 0.1, 1.0);
    assert!(floor_world(planar, &[oval(0.0), disk]).is_ok());
    for (other, name) in [(capsule, "capsule"), (oval(1.0), "ellipse")] {
        match floor_world(planar, &[oval(0.0), disk, other]) {
            Err(BuildError::Body { body, problem, .. }) => {
                assert_eq!(body, 2, "{problem}");
                assert!(
                    problem.contains("ellipses meet spheres and walls only"),
                    "{problem}"
                );
                let pair = format!("body 0 is an ellipse: the narrow phase has no ellipse–{name}");
                assert!(problem.contains(&pair), "{problem}");
            }
            other => panic!("built or wrong error: {:?}", other.err()),
        }
    }
    let gpu = Settings {
        backend: Backend::Gpu,
        solver: Solver::Jacobi {
            sweeps: 50,
            tolerance: 0.0,
            omega: 0.3,
        },
        ..Settings::default()
    };
    assert!(problem(gpu, &[cube]).contains("boxes"));
}
