//! `[fluid.field]`: a fluid's velocity on a grid of nodes, read from a file beside the scene,
//! carries neutrally buoyant beads at the field's velocity where they are (not the `[fluid]`
//! table's uniform one), and a file that does not fit its grid is refused with the scene's line
//! and the file's.

use grains_app::scene::Scene;
use std::path::PathBuf;

/// Two beads of 0.1 mm, as dense as the water they are in (so drag alone moves them), at
/// heights 2 and 6 mm in a field of `counts` nodes 4 mm apart from the origin, read from
/// `flow.csv`; no gravity.
fn scene(counts: [i64; 3]) -> String {
    format!(
        r#"[scene]
name = "field"
duration = 0.05

[settings]
preset = "granular"
h = 0.001
gravity = [0.0, 0.0, 0.0]

[fluid]
density = 1000.0
viscosity = 1e-3
velocity = [0.0, 0.5, 0.0]
drag = "stokes"

[fluid.field]
file = "flow.csv"
origin = [-0.004, -0.004, 0.0]
spacing = 0.004
counts = [{}, {}, {}]

[[materials]]
name = "glass"
friction = 0.5

[[bodies]]
generator = "lattice"
name = "beads"
radius = 5e-5
density = 1000.0
origin = [0.0, 0.0, 0.002]
spacing = 0.004
counts = [1, 1, 2]
"#,
        counts[0], counts[1], counts[2]
    )
}

/// A fresh folder holding `scene.toml` with `text` and `flow.csv` with `csv`.
fn folder(name: &str, text: &str, csv: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grains-flow-field-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("flow.csv"), csv).unwrap();
    let path = dir.join("scene.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A shear u = (10 z, 0, 0) on 3 × 3 × 3 nodes, x fastest, as a fluid code would write it.
fn shear_csv() -> String {
    let mut csv = String::from("# ux, uy, uz (m/s) at the nodes, x fastest\n");
    for k in 0..3 {
        for _ in 0..9 {
            csv += &format!("{}, 0, 0\n", 10.0 * 0.004 * k as f64);
        }
    }
    csv
}

#[test]
fn beads_move_with_the_field_read_beside_the_scene() {
    let path = folder("shear", &scene([3, 3, 3]), &shear_csv());
    let scene = Scene::load(&path).expect("the scene reads");
    let mut world = scene.world(Some(1)).expect("the world builds");
    world.run(50).expect("0.05 s");
    // A 0.1 mm bead in water relaxes to the fluid's speed in m/(3π μ d) = 0.6 ms: after 50 ms
    // it moves with the field, 10 z, and not with the table's uniform (0, 0.5, 0).
    for (i, z) in [(0, 0.002f32), (1, 0.006)] {
        let v = world.velocity(i);
        println!("bead at z = {z}: {v}");
        assert!((v.x - 10.0 * z).abs() < 1e-4, "bead {i}: {v}");
        assert!(v.y.abs() < 1e-4 && v.z.abs() < 1e-4, "bead {i}: {v}");
    }
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_field_file_that_does_not_fit_its_grid_is_refused_at_its_lines() {
    let text = scene([3, 3, 3]);
    let line = text.lines().position(|l| l.contains("flow.csv")).unwrap() + 1;
    // The file's defects, each with the error's words (the file's line where it has one).
    let bad_line = shear_csv().replacen("0.04, 0, 0", "0.04, fast, 0", 1);
    let cases = [
        (
            "short",
            shear_csv().replacen("0, 0, 0\n", "", 1),
            "26 nodes where counts [3, 3, 3] give 27",
        ),
        (
            "long",
            shear_csv() + "0, 0, 0\n",
            "line 29: a node more than the 27",
        ),
        (
            "word",
            bad_line,
            "line 11: \"0.04, fast, 0\" is not three finite",
        ),
        (
            "two",
            shear_csv().replacen("0, 0, 0", "0, 0", 1),
            "line 2: 2 numbers where a node has three",
        ),
        (
            "nan",
            shear_csv().replacen("0, 0, 0", "NaN, 0, 0", 1),
            "line 2: \"NaN, 0, 0\" is not three finite",
        ),
    ];
    for (name, csv, saying) in cases {
        let path = folder(name, &text, &csv);
        let Err(e) = Scene::load(&path) else {
            panic!("{name}: accepted");
        };
        let msg = e.to_string();
        println!("{name}: {msg}");
        assert_eq!(msg.lines().count(), 1, "{name}: not one line: {msg}");
        let want = format!("{}:{line}: key `fluid.field.file`", path.display());
        assert!(msg.contains(&want), "{name}: expected `{want}` in: {msg}");
        assert!(
            msg.contains(saying),
            "{name}: expected `{saying}` in: {msg}"
        );
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
    // No file, and counts below one node.
    let path = folder("missing", &text.replace("flow.csv", "nowhere.csv"), "");
    let msg = Scene::load(&path).expect_err("no file").to_string();
    assert!(
        msg.contains("key `fluid.field.file`") && msg.contains("nowhere.csv"),
        "{msg}"
    );
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    let path = folder("empty", &scene([3, 0, 3]), "");
    let msg = Scene::load(&path).expect_err("0 nodes").to_string();
    assert!(
        msg.contains("key `fluid.field.counts`") && msg.contains("at least 1"),
        "{msg}"
    );
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}
