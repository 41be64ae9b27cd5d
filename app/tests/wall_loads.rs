//! The `wall_force` and `wall_torque` observables: a resting stack's weight appears in the CSV
//! column of its box's floor, the torque column is the weight's lever arm, and every bad key is
//! refused at its line.

use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;
use std::path::{Path, PathBuf};

const G: f64 = 9.81;

/// Three spheres of 0.2 kg (r = 0.05 m, ρ = 0.2 / (4/3 π r³)) stacked off centre in a named box
/// with a floor named too; rigid contact solved to 1e-9 m/s, 0.6 s at h = 2 ms.
const STACK: &str = r#"[scene]
name = "stack"
duration = 0.6

[settings]
preset = "rigid"
h = 0.002
tolerance = 1e-9

[[materials]]
name = "grain"
friction = 0.5

[[containers]]
kind = "box"
name = "bin"
floor_centre = [0.0, 0.0, 0.0]
width_x = 1.0
width_y = 1.0
height = 0.5

[[containers]]
kind = "floor"
name = "ground"
z = -1.0

[[bodies]]
generator = "list"
name = "stack"
radius = 0.05
mass = 0.2
list = [{ position = [0.2, 0.1, 0.05] }, { position = [0.2, 0.1, 0.15] }, { position = [0.2, 0.1, 0.25] }]

[output]
formats = ["csv"]
observe_every = 50

[[observables]]
kind = "wall_force"
wall = "bin"

[[observables]]
kind = "wall_force"
wall = "bin"
part = "floor"
component = "magnitude"

[[observables]]
kind = "wall_force"
wall = "bin"
part = "sides"
component = "x"

[[observables]]
kind = "wall_force"
wall = "ground"

[[observables]]
kind = "wall_torque"
name = "floor_torque"
wall = "bin"
part = "floor"
point = [0.0, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]

[[observables]]
kind = "contact_force"
body = "stack"
"#;

/// A fresh folder for the test `name`.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-loads-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn opts(out: &Path) -> RunOptions {
    RunOptions {
        threads: Some(1),
        ..RunOptions::new(out)
    }
}

#[test]
fn the_floor_column_of_a_resting_stack_is_its_weight() {
    let base = tmp("stack");
    let path = base.join("stack.toml");
    std::fs::write(&path, STACK).unwrap();
    let scene = Scene::load(&path).unwrap();
    let out = base.join("out");
    run(&scene, &opts(&out)).unwrap();
    let csv = std::fs::read_to_string(out.join("observables.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "step,time_s,wall_force_bin_z_N,wall_force_bin_floor_magnitude_N,wall_force_bin_sides_x_N,wall_force_ground_z_N,floor_torque,contact_force_stack_z_N"
    );
    let last: Vec<f64> = lines
        .last()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    let weight = 3.0 * 0.2 * G;
    // At rest the floor carries the whole weight: its force on the floor is −m g ẑ, within
    // the 0.1 % a settled rigid stack solved to 1e-9 m/s keeps far below.
    assert!((last[2] + weight).abs() < 1e-3 * weight, "{last:?}");
    assert!((last[3] - weight).abs() < 1e-3 * weight, "{last:?}");
    assert!(
        last[4].abs() < 1e-6 * weight,
        "the side walls are untouched: {last:?}"
    );
    assert_eq!(last[5], 0.0, "nothing reaches the ground below the box");
    // The contact point is at x = 0.2 on the floor: the torque about the origin along y is
    // (0.2 x̂ × −m g ẑ)·ŷ = 0.2 m g.
    assert!(
        (last[6] - 0.2 * weight).abs() < 1e-3 * 0.2 * weight,
        "{last:?}"
    );
    // The floor holds the stack up: its contact force is +m g ẑ (the body–body ones cancel).
    assert!((last[7] - weight).abs() < 1e-3 * weight, "{last:?}");
    // Step 0 has no contacts yet: the first row's forces are 0.
    let first: Vec<f64> = csv
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(first[2], 0.0);
    std::fs::remove_dir_all(&base).unwrap();
}

/// `STACK` with `from` replaced by `to` (which must occur), parsed; asserts it is refused with
/// one line naming the file, the line of `needle` (the first after the replacement starts) and
/// `key`, and returns the message.
fn refused(from: &str, to: &str, needle: &str, key: &str) -> String {
    let at = STACK.find(from).unwrap_or_else(|| panic!("{from}"));
    let text = STACK.replacen(from, to, 1);
    let line = text[..at + text[at..].find(needle).unwrap()]
        .matches('\n')
        .count()
        + 1;
    let Err(e) = Scene::parse(Path::new("s.toml"), &text) else {
        panic!("accepted: {to}");
    };
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("s.toml:{line}: key `{key}`")),
        "{msg} (expected line {line}, key {key})"
    );
    assert!(!msg.contains('\n'), "{msg}");
    msg
}

#[test]
fn bad_wall_observables_are_refused_at_their_line_and_key() {
    let m = refused("wall = \"bin\"\n\n", "wall = \"silo\"\n\n", "silo", "wall");
    assert!(m.contains("\"bin\", \"ground\""), "{m}");
    let m = refused("part = \"floor\"", "part = \"roof\"", "roof", "part");
    assert!(m.contains("\"roof\""), "{m}");
    refused(
        "component = \"x\"",
        "component = \"w\"",
        "\"w\"",
        "component",
    );
    let m = refused(
        "wall = \"ground\"",
        "wall = \"ground\"\npart = \"floor\"",
        "part",
        "part",
    );
    assert!(m.contains("not a box"), "{m}");
    refused(
        "wall = \"bin\"\n\n",
        "wall = \"bin\"\npoint = [0.0, 0.0, 0.0]\n\n",
        "point",
        "point",
    );
    refused(
        "axis = [0.0, 1.0, 0.0]",
        "axis = [0.0, 1.0, 0.0]\ncomponent = \"z\"",
        "component",
        "component",
    );
    refused(
        "axis = [0.0, 1.0, 0.0]",
        "axis = [0.0, 0.0, 0.0]",
        "axis",
        "axis",
    );
    refused(
        "kind = \"wall_force\"\nwall = \"bin\"\n\n",
        "kind = \"wall_force\"\n\n",
        "kind",
        "wall",
    );
    refused("name = \"ground\"", "name = \"bin\"", "name", "name");
    refused("name = \"ground\"", "name = \"\"", "name", "name");
    refused(
        "body = \"stack\"\n",
        "body = \"stack\"\npoint = [0.0, 0.0, 0.0]\n",
        "point",
        "point",
    );
    refused(
        "[output]",
        "[[observables]]\nkind = \"contacts\"\nwall = \"bin\"\n\n[output]",
        "wall",
        "wall",
    );
    // `surface_angle` takes a group, a point and an axis, and nothing of the walls'.
    let angle = "[[observables]]\nkind = \"surface_angle\"\nbody = \"stack\"\npoint = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\n";
    for (extra, key) in [
        ("wall = \"bin\"\n", "wall"),
        ("component = \"x\"\n", "component"),
    ] {
        refused("[output]", &format!("{angle}{extra}\n[output]"), key, key);
    }
    refused(
        "[output]",
        &format!(
            "{}\n[output]",
            angle.replace("axis = [0.0, 1.0, 0.0]\n", "")
        ),
        "kind = \"surface_angle\"",
        "axis",
    );
    refused(
        "[output]",
        &format!("{}\n[output]", angle.replace("stack", "heap")),
        "heap",
        "body",
    );
}
