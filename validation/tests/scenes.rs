//! Every scene in `scenes/` is valid and runs; the pour scenes reproduce the benchmark's
//! definition (docs/benchmark.md) to the bit; the quality figures agree with a brute-force
//! overlap search on the pour scene.

use grains_app::output::Quality;
use grains_app::pour::PourScene;
use grains_app::scene::Scene;
use grains_validation::load_variant;
use std::path::{Path, PathBuf};

fn scenes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes")
}

fn all_scene_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(scenes())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

/// Bodies a scene file asks for: the sum of its generators' `count`s.
fn requested_bodies(f: &Path) -> i64 {
    let t: toml::Table = std::fs::read_to_string(f).unwrap().parse().unwrap();
    t.get("bodies")
        .and_then(|b| b.as_array())
        .map(|b| {
            b.iter()
                .filter_map(|g| g.get("count").and_then(|c| c.as_integer()))
                .sum()
        })
        .unwrap_or(0)
}

/// Scenes above this many bodies (the GPU benchmark's 100k and 1M) are checked here with every
/// `count` (and the pour box's `n`) cut to [`SMALL`]; `every_large_scene_loads_and_builds`
/// loads them in full.
const LARGE: i64 = 50_000;
const SMALL: i64 = 2_000;

#[test]
fn every_scene_loads_builds_and_steps() {
    let files = all_scene_files();
    assert!(
        files.len() >= 13,
        "expected the shipped scenes, found {files:?}"
    );
    for f in files {
        let s = if requested_bodies(&f) > LARGE {
            let name = f.file_stem().unwrap().to_str().unwrap();
            load_variant(&scenes(), name, |t| {
                for key in ["bodies", "containers"] {
                    for g in t[key].as_array_mut().unwrap() {
                        let g = g.as_table_mut().unwrap();
                        for k in ["count", "n"] {
                            if g.contains_key(k) {
                                g.insert(k.into(), toml::Value::Integer(SMALL));
                            }
                        }
                    }
                }
            })
        } else {
            Scene::load(&f)
        }
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(s.total_steps() > 0, "{}: no steps", f.display());
        let mut w = s.world(Some(2)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(w.len(), s.builder().bodies().len());
        w.run(3).unwrap();
        for i in 0..w.len() {
            assert!(
                w.position(i).is_finite() && w.velocity(i).is_finite(),
                "{}: body {i} not finite after 3 steps",
                f.display()
            );
        }
    }
}

/// The GPU benchmark scenes at full size (about 45 s for the 1M Brazil nut's random fill):
/// `cargo test --release -- --ignored`.
#[test]
#[ignore]
fn every_large_scene_loads_and_builds() {
    for f in all_scene_files() {
        let n = requested_bodies(&f);
        if n > LARGE {
            let s = Scene::load(&f).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                s.builder().bodies().len() as i64 >= n,
                "{}: {} bodies, {n} asked for",
                f.display(),
                s.builder().bodies().len()
            );
            let w = s.world(Some(2)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(w.len(), s.builder().bodies().len());
        }
    }
}

#[test]
fn pour_scenes_reproduce_pour_md_centres() {
    let close = |a: glam::Vec3, b: [f64; 3]| {
        (0..3).all(|k| (a[k] as f64 - b[k]).abs() < 1e-9 + 1e-7 * b[k].abs())
    };
    let s = Scene::load(scenes().join("pour_1k.toml")).unwrap();
    assert_eq!(s.builder().bodies().len(), 1000);
    let expected = [
        [-0.0496834602, -0.0496475917, 0.01],
        [-0.0386902287, -0.0496619411, 0.01],
        [-0.0274965599, -0.0495814827, 0.01],
    ];
    for (b, e) in s.builder().bodies().iter().zip(expected) {
        assert!(close(b.position, e), "{} vs {e:?}", b.position);
    }
    assert!(close(
        s.builder().bodies()[999].position,
        [0.0496749100, 0.0494894233, 0.109]
    ));
    let s = Scene::load(scenes().join("pour_27k.toml")).unwrap();
    assert_eq!(s.builder().bodies().len(), 27000);
    assert!(close(
        s.builder().bodies()[26999].position,
        [0.1594191799, 0.1594764186, 0.329]
    ));
    // Same world as the library's PourScene, to the bit.
    let ps = PourScene::new(27000);
    for (b, c) in s.builder().bodies().iter().zip(ps.centres()) {
        assert_eq!(b.position, c);
    }
    assert_eq!(s.settings().h, 0.002);
    assert_eq!(s.total_steps(), 500);
}

#[test]
fn quality_overlaps_match_a_brute_force_search() {
    let s = Scene::load(scenes().join("pour_1k.toml")).unwrap();
    let mut w = s.world(Some(2)).unwrap();
    w.run(150).unwrap();
    let q = Quality::measure(&w, s.bounds.as_ref());
    let r = grains_app::pour::bounds(&PourScene::new(1000));
    assert_eq!(
        s.bounds,
        Some(r),
        "pour_1k.toml must use the benchmark's box"
    );
    // Every sphere pair and sphere–floor overlap, by brute force, in units of r.
    let (mut max, mut sum, mut count) = (0.0f64, 0.0f64, 0usize);
    let radius = w.radius(0) as f64;
    let mut record = |pen: f64| {
        if pen > 0.0 {
            max = max.max(pen / radius);
            sum += pen / radius;
            count += 1;
        }
    };
    for i in 0..w.len() {
        for j in i + 1..w.len() {
            record(2.0 * radius - (w.position(i) - w.position(j)).length() as f64);
        }
        record(radius - w.position(i).z as f64);
    }
    assert!(max > 0.0, "grains should be in contact after 0.3 s");
    assert!(
        (q.max_pen_r - max).abs() <= 1e-9,
        "{} vs {max}",
        q.max_pen_r
    );
    assert!(
        (q.mean_pen_r - sum / count as f64).abs() <= 1e-9,
        "{} vs {}",
        q.mean_pen_r,
        sum / count as f64
    );
}

#[test]
fn every_settings_key_and_generator_is_read() {
    let text = r#"
[scene]
name = "all_keys"
duration = 0.1
overlap_tolerance = 0.0

[settings]
preset = "rigid"
h = 0.005
gravity = [0.0, 0.0, -1.62]
envelope = { kind = "per_pair", floor = 0.001, speed_factor = 2.0 }
solver = "jacobi"
max_iterations = 77
tolerance = 1e-5
omega = 0.3
warm_start = 0.5
contact_frequency = "inf"
coulomb_correction = 2
threads = 3

[[materials]]
name = "a"
friction = 0.3
restitution = 0.6

[[materials]]
name = "b"
friction = 0.7

[[friction_pairs]]
a = "a"
b = "b"
friction = 0.1

[[shakers]]
name = "spin"
kind = "constant"
angular = [0.0, 0.0, 1.0]

[[containers]]
kind = "rectangle"
centre = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
u = [1.0, 0.0, 0.0]
half_u = 1.0
half_v = 1.0
material = "b"

[[bodies]]
generator = "list"
name = "pair"
radius = 0.05
mass = 0.2
list = [{ position = [0.0, 0.0, 0.5] }, { position = [0.3, 0.0, 0.5], radius = 0.08, velocity = [1.0, 0.0, 0.0] }]

[[bodies]]
generator = "single"
name = "stirrer"
kind = "kinematic"
shaker = "spin"
radius = 0.1
mass = 1.0
position = [0.6, 0.6, 0.1]

[[bodies]]
generator = "random_fill"
name = "fill"
material = "b"
radius = 0.02
density = 1000.0
packing_fraction = 0.2
seed = 9
region_min = [-0.5, -0.5, 0.7]
region_max = [0.5, 0.5, 0.8]
"#;
    let s = Scene::parse(Path::new("all_keys.toml"), text).unwrap_or_else(|e| panic!("{e}"));
    let st = *s.settings();
    assert_eq!(st.h, 0.005);
    assert_eq!(st.gravity, glam::Vec3::new(0.0, 0.0, -1.62));
    assert_eq!(
        st.envelope,
        Some(grains::Envelope::PerPair {
            floor: 0.001,
            speed_factor: 2.0
        })
    );
    assert_eq!(
        (st.solver, st.warm_start),
        (
            grains::Solver::Jacobi {
                sweeps: 77,
                tolerance: 1e-5,
                omega: 0.3
            },
            0.5
        )
    );
    assert!(st.contact_frequency.is_infinite());
    assert_eq!(st.coulomb_correction, 2);
    assert_eq!(st.threads, 3);
    assert_eq!(s.builder().materials().list.len(), 2);
    assert_eq!(s.builder().materials().list[0].restitution, 0.6);
    assert_eq!(s.builder().materials().list[1].restitution, 0.0);
    assert_eq!(s.builder().materials().overrides.len(), 1);
    assert_eq!(s.builder().walls().len(), 1);
    assert_eq!(s.group("pair"), Some(0..2));
    assert_eq!(s.builder().bodies()[1].radius, 0.08);
    assert_eq!(s.builder().bodies()[1].velocity.x, 1.0);
    assert_eq!(s.builder().bodies()[2].kind, grains::BodyKind::Kinematic);
    // 0.2 of the 0.1 m³ region in spheres of r = 0.02 m: round(0.02 / 3.35e-5) = 597.
    let fill = s.group("fill").unwrap();
    assert_eq!(fill.len(), 597);
    assert!(s.builder().bodies()[fill]
        .iter()
        .all(|b| b.position.z >= 0.7 && b.position.z <= 0.8 && b.material.0 == 1));
    let mut w = s.world(Some(1)).unwrap();
    w.run(5).unwrap();
    assert!((0..w.len()).all(|i| w.position(i).is_finite()));
}
