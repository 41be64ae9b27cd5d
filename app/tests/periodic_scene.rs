//! The `[periodic]` table: read into the settings, and every bad value refused with one line
//! naming the file, the line and the key; the chute scene builds and its grains flow across
//! the seam.

use grains_app::scene::Scene;
use std::path::Path;

/// A bed of 4 × 4 grains on a floor, periodic over 0.4 m along x and y.
const GOOD: &str = r#"[scene]
name = "periodic"
duration = 0.02

[settings]
preset = "granular"
h = 0.002

[[materials]]
name = "grain"
friction = 0.5

[[containers]]
kind = "floor"
name = "floor"

[[bodies]]
generator = "lattice"
radius = 0.04
density = 1000.0
origin = [0.05, 0.05, 0.045]
spacing = 0.1
counts = [4, 4, 1]

[periodic]
x = [0.0, 0.4]
y = [0.0, 0.4]
"#;

/// `GOOD` with `from` replaced by `to` (which must occur).
fn with(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "{from}");
    GOOD.replacen(from, to, 1)
}

/// The 1-based line of the first line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

/// Asserts `text` is refused, when parsed or when its world is built, with one line naming
/// the file, the line of `needle` and `key`; returns the message.
fn refused(text: &str, needle: &str, key: &str) -> String {
    let e = match Scene::parse(Path::new("s.toml"), text) {
        Err(e) => e,
        Ok(scene) => match scene.world(Some(1)) {
            Err(e) => e,
            Ok(_) => panic!("accepted"),
        },
    };
    let msg = e.to_string();
    assert_eq!(msg.lines().count(), 1, "not one line: {msg}");
    let want = format!("s.toml:{}: key `{key}`", line_of(text, needle));
    assert!(msg.starts_with(&want), "expected `{want}` in: {msg}");
    msg
}

#[test]
fn the_periodic_table_sets_the_ranges() {
    let s = Scene::parse(Path::new("s.toml"), GOOD).unwrap();
    let p = s.settings().periodic;
    assert_eq!(p.x, Some((0.0, 0.4)));
    assert_eq!(p.y, Some((0.0, 0.4)));
    let only_x = with("y = [0.0, 0.4]\n", "");
    let s = Scene::parse(Path::new("s.toml"), &only_x).unwrap();
    assert_eq!(s.settings().periodic.y, None);
    s.world(Some(1)).unwrap();
}

#[test]
fn bad_periodic_values_name_file_line_and_key() {
    let t = with("x = [0.0, 0.4]", "x = [0.4, 0.4]");
    let msg = refused(&t, "x = [0.4, 0.4]", "periodic.x");
    assert!(msg.contains("finite lo < hi"), "{msg}");
    let t = with("y = [0.0, 0.4]", "y = [0.0, 1e39]");
    refused(&t, "y = [0.0, 1e39]", "periodic.y");
    let t = with("y = [0.0, 0.4]", "z = [0.0, 0.4]");
    refused(&t, "z = [0.0, 0.4]", "z");
    let t = with("x = [0.0, 0.4]\ny = [0.0, 0.4]\n", "");
    refused(&t, "[periodic]", "periodic");
    // A period under twice the pair reach: refused by the engine, named at the range's line.
    let t = with("x = [0.0, 0.4]", "x = [0.0, 0.1]").replacen("[4, 4, 1]", "[1, 4, 1]", 1);
    let msg = refused(&t, "x = [0.0, 0.1]", "periodic.x");
    assert!(msg.contains("pair reach"), "{msg}");
    // A grain outside the range: named at its generator.
    let t = with("x = [0.0, 0.4]", "x = [0.1, 0.5]");
    let msg = refused(&t, "generator = \"lattice\"", "position");
    assert!(msg.contains("outside the periodic range"), "{msg}");
    // A lattice whose spacing does not divide the period overlaps across the seam.
    let t = with("x = [0.0, 0.4]", "x = [0.0, 0.36]");
    let t = t.replacen("origin = [0.05,", "origin = [0.04,", 1);
    let msg = refused(&t, "[periodic]", "periodic");
    assert!(msg.contains("across a periodic seam"), "{msg}");
}

#[test]
fn shear_rate_sets_the_lees_edwards_shear_and_bad_values_are_refused() {
    let t = with("y = [0.0, 0.4]\n", "y = [0.0, 0.4]\nshear_rate = 2.5\n");
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    assert_eq!(s.settings().periodic.shear_rate, 2.5);
    s.world(Some(1)).unwrap().run(5).unwrap();
    // Only x periodic: refused at the key.
    let t = with("y = [0.0, 0.4]\n", "shear_rate = 2.5\n");
    let msg = refused(&t, "shear_rate", "periodic.shear_rate");
    assert!(msg.contains("both x = [lo, hi] and y = [lo, hi]"), "{msg}");
    // Not finite (or beyond single precision): refused at the key.
    let t = with("y = [0.0, 0.4]\n", "y = [0.0, 0.4]\nshear_rate = nan\n");
    refused(&t, "shear_rate", "periodic.shear_rate");
    let t = with("y = [0.0, 0.4]\n", "y = [0.0, 0.4]\nshear_rate = 1e39\n");
    refused(&t, "shear_rate", "periodic.shear_rate");
    // The GPU backend: the engine's refusal, named at the key.
    let t = with("y = [0.0, 0.4]\n", "y = [0.0, 0.4]\nshear_rate = 2.5\n").replacen(
        "h = 0.002",
        "h = 0.002\nbackend = \"gpu\"\nsolver = \"jacobi\"\ntolerance = 0.0\nomega = 0.3",
        1,
    );
    let msg = refused(&t, "shear_rate", "periodic.shear_rate");
    assert!(
        msg.contains("sheared periodic cell") && msg.contains("GPU backend"),
        "{msg}"
    );
}

#[test]
fn a_wall_facing_a_periodic_axis_is_refused_at_its_table() {
    let t = GOOD.replacen(
        "[[bodies]]",
        "[[containers]]\nkind = \"plane\"\npoint = [0.0, 0.0, 0.0]\nnormal = [1.0, 0.0, 0.0]\n\n[[bodies]]",
        1,
    );
    let msg = refused(&t, "normal = [1.0", "normal");
    assert!(msg.contains("periodic axis x"), "{msg}");
}

#[test]
fn the_chute_scene_builds_and_its_grains_cross_the_seam() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/chute.toml");
    let scene = Scene::load(&path).unwrap();
    let (lo, hi) = scene.settings().periodic.x.unwrap();
    let mut w = scene.world(Some(2)).unwrap();
    assert!(w.len() >= 2000, "{} grains", w.len());
    w.run(50).unwrap();
    for i in 0..w.len() {
        let x = w.position(i).x;
        assert!((lo..hi).contains(&x), "grain {i} at x = {x}");
    }
    let mean_vx = (0..w.len()).map(|i| w.velocity(i).x).sum::<f32>() / w.len() as f32;
    assert!(
        mean_vx > 0.0,
        "the grains must flow down the chute: {mean_vx}"
    );
}
