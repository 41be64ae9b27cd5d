//! Bad scene files: each gives one clear error naming the file, the line and the key, the
//! program exits non-zero without a panic, and nothing is left in the output folder.

use grains_app::scene::{Scene, SceneError};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

/// A valid scene: two spheres, "ball" and "other", in a box.
fn good() -> String {
    common::fixture("good.toml")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-err-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `grains run` on `text`; returns (exit ok, stderr, output folder).
fn run_cli(name: &str, text: &str) -> (bool, String, PathBuf, PathBuf) {
    let dir = tmp(name);
    let scene = dir.join(format!("{name}.toml"));
    std::fs::write(&scene, text).unwrap();
    let out = dir.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args([
            "run",
            scene.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).to_string(),
        out,
        scene,
    )
}

/// Asserts the error names the file, `line` and `key`, and that the run left no output.
fn expect_error(name: &str, text: &str, line: usize, key: &str) {
    expect_error_saying(name, text, line, key, "");
}

/// [`expect_error`], whose line also says `saying`.
fn expect_error_saying(name: &str, text: &str, line: usize, key: &str, saying: &str) {
    let (ok, err, out, scene) = run_cli(name, text);
    assert!(!ok, "{name}: exited 0");
    assert!(!err.contains("panicked"), "{name}: panicked: {err}");
    assert_eq!(err.lines().count(), 1, "{name}: not one line: {err}");
    let want = format!("{}:{line}: key `{key}`", scene.display());
    assert!(err.contains(&want), "{name}: expected `{want}` in: {err}");
    assert!(
        err.contains(saying),
        "{name}: expected `{saying}` in: {err}"
    );
    assert!(!out.exists(), "{name}: output folder was created");
    std::fs::remove_dir_all(scene.parent().unwrap()).unwrap();
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn good_scene_runs() {
    let (ok, err, out, scene) = run_cli("good", &good());
    assert!(ok, "{err}");
    assert!(out.join("summary.json").exists());
    std::fs::remove_dir_all(scene.parent().unwrap()).unwrap();
}

#[test]
fn syntax_error() {
    let t = good().replace("friction = 0.5", "friction = = 0.5");
    expect_error("syntax", &t, line_of(&t, "= ="), "friction");
}

#[test]
fn unknown_key() {
    let t = good().replace("friction = 0.5", "friction = 0.5\nfrictoin = 0.3");
    expect_error("unknown", &t, line_of(&t, "frictoin"), "frictoin");
}

#[test]
fn missing_required_field() {
    let t = good().replacen("radius = 0.1\n", "", 1);
    // Reported at the generator that needs it.
    expect_error(
        "missing",
        &t,
        line_of(&t, "generator = \"single\""),
        "radius",
    );
    let t = good().replace("h = 0.01\n", "");
    expect_error("missing_h", &t, line_of(&t, "[settings]"), "h");
}

#[test]
fn wrong_type() {
    let t = good().replace("width_x = 1.4", "width_x = \"wide\"");
    expect_error("type", &t, line_of(&t, "width_x"), "width_x");
}

#[test]
fn negative_size() {
    let t = good().replacen("radius = 0.1", "radius = -0.1", 1);
    expect_error("negative", &t, line_of(&t, "radius = -0.1"), "radius");
    let t = good().replace("height = 1.0", "height = -1.0");
    expect_error("negative_box", &t, line_of(&t, "height = -1.0"), "height");
}

#[test]
fn bad_backend_or_sync_every() {
    let t = good().replace("h = 0.01", "h = 0.01\nsync_every = 0");
    expect_error("sync_every", &t, line_of(&t, "sync_every"), "sync_every");
    let t = good().replace("h = 0.01", "h = 0.01\nbackend = \"tpu\"");
    expect_error("backend", &t, line_of(&t, "backend"), "backend");
}

/// `integrator`: an unknown name, and what the geometrically implicit integrator cannot take
/// (the granular preset, the CCP solver's keys, the GPU backend, a box's rectangles, too many
/// bodies), each refused with one line naming its key.
#[test]
fn bad_integrator_settings() {
    let t = good().replace("h = 0.01", "h = 0.01\nintegrator = \"rk4\"");
    expect_error("integrator", &t, line_of(&t, "integrator"), "integrator");
    let implicit = "h = 0.01\nintegrator = \"geometrically_implicit\"";
    let t = good().replace("h = 0.01", implicit);
    expect_error("implicit_granular", &t, line_of(&t, "preset"), "preset");
    let rigid = good().replace("preset = \"granular\"", "preset = \"rigid\"");
    let t = rigid.replace("h = 0.01", &format!("{implicit}\nsolver = \"jacobi\""));
    expect_error("implicit_solver", &t, line_of(&t, "solver"), "solver");
    let t = rigid.replace("h = 0.01", &format!("{implicit}\nbackend = \"gpu\""));
    expect_error("implicit_gpu", &t, line_of(&t, "backend"), "backend");
    // The box's floor and sides are rectangles: refused at the container's `kind`.
    let t = rigid.replace("h = 0.01", implicit);
    expect_error("implicit_box", &t, line_of(&t, "kind = \"box\""), "kind");
    let floor = "kind = \"floor\"";
    let box_walls = "kind = \"box\"\nwidth_x = 1.4\nwidth_y = 1.0\nheight = 1.0";
    let on_floor = t.replace(box_walls, floor);
    let (ok, err, _, scene) = run_cli("implicit_floor", &on_floor);
    assert!(ok, "two spheres on a floor: {err}");
    std::fs::remove_dir_all(scene.parent().unwrap()).unwrap();
    let many = on_floor.replace(
        "generator = \"single\"\nname = \"other\"",
        "generator = \"lattice\"\nname = \"other\"\norigin = [0.5, 0.0, 0.2]\nspacing = 0.25\ncounts = [4, 4, 1]",
    );
    let many = many.replace("position = [0.5, 0.0, 0.2]\n", "");
    expect_error(
        "implicit_many",
        &many,
        line_of(&many, "integrator"),
        "integrator",
    );
}

/// The GPU backend solves by projected Jacobi or APGD at tolerance 0 only: a scene asking it for more
/// is refused with one line naming the key, in the file or by `--backend gpu`.
#[test]
fn gpu_refuses_gauss_seidel_and_a_tolerance() {
    let t = good().replace("h = 0.01", "h = 0.01\nbackend = \"gpu\"");
    // Neither key is in the file: the line is the preset's, which chose them, and says so.
    let (preset, by) = (
        line_of(&t, "preset"),
        "the file sets no `solver`: `preset` chose it",
    );
    expect_error_saying("gpu_gs", &t, preset, "preset", by);
    let t = good().replace(
        "h = 0.01",
        "h = 0.01\nbackend = \"gpu\"\nsolver = \"jacobi\"\nomega = 0.3",
    );
    let by = "the file sets no `tolerance`: `preset` chose it";
    expect_error_saying("gpu_tolerance", &t, line_of(&t, "preset"), "preset", by);
    // Written, the key is named at its own line.
    let t = good().replace(
        "h = 0.01",
        "h = 0.01\nbackend = \"gpu\"\nsolver = \"gauss_seidel\"",
    );
    expect_error("gpu_gs_written", &t, line_of(&t, "solver"), "solver");
    let dir = tmp("gpu_flag");
    let scene = dir.join("ok.toml");
    std::fs::write(&scene, good()).unwrap();
    let out = dir.join("out");
    for command in ["run", "bench"] {
        let o = Command::new(env!("CARGO_BIN_EXE_grains"))
            .args([command, scene.to_str().unwrap(), "--backend", "gpu"])
            .args(
                (command == "run")
                    .then_some(["--out", out.to_str().unwrap()])
                    .iter()
                    .flatten(),
            )
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{command}: exited 0");
        assert_eq!(err.lines().count(), 1, "{command}: not one line: {err}");
        assert!(
            err.contains("projected Jacobi or APGD only: set solver = \"jacobi\""),
            "{command}: {err}"
        );
    }
    assert!(!out.exists(), "output folder was created");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn values_only_the_engine_checks_are_reported_at_their_key() {
    // The engine refuses these when it builds the world; the error names the key's line.
    for (key, value) in [("omega", "2.5"), ("warm_start", "1.5")] {
        let t = good().replace("h = 0.01", &format!("h = 0.01\n{key} = {value}"));
        expect_error(key, &t, line_of(&t, key), key);
    }
    let box_walls = "kind = \"box\"\nwidth_x = 1.4\nwidth_y = 1.0\nheight = 1.0";
    let rectangle = "kind = \"rectangle\"\ncentre = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\nu = [0.0, 0.0, 2.0]\nhalf_u = 1.0\nhalf_v = 1.0";
    let t = good().replace(box_walls, rectangle);
    assert_ne!(t, good());
    expect_error("wall_u", &t, line_of(&t, "u = [0.0, 0.0, 2.0]"), "u");
}

#[test]
fn reading_a_scene_builds_no_world() {
    // The GPU refuses joints when the world is built; reading the file does not build it (nor
    // open the GPU), so it succeeds, and building reports the refusal at the joint's line.
    let t = jointed().replace(
        "h = 0.01",
        "h = 0.01\nbackend = \"gpu\"\nsolver = \"jacobi\"\ntolerance = 0.0",
    );
    let scene = Scene::parse(Path::new("gpu_joints.toml"), &t).unwrap_or_else(|e| panic!("{e}"));
    match scene.world(Some(1)) {
        Err(e @ SceneError::Invalid { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("key `bodies`: joint 0: bodies gives this world joints, which cannot be combined with the GPU backend"),
                "{msg}"
            )
        }
        Err(e) => panic!("expected the GPU's refusal of joints, got {e}"),
        Ok(_) => panic!("the GPU backend accepted joints"),
    }
}

#[test]
fn restitution_out_of_range() {
    let t = good().replace("friction = 0.5", "friction = 0.5\nrestitution = 1.5");
    expect_error("restitution", &t, line_of(&t, "restitution"), "restitution");
}

#[test]
fn negative_spinning_and_rolling_lengths_cohesion_and_surface_energy() {
    for key in ["spinning", "rolling", "cohesion", "surface_energy"] {
        let t = good().replace("friction = 0.5", &format!("friction = 0.5\n{key} = -0.01"));
        expect_error(key, &t, line_of(&t, key), key);
    }
}

#[test]
fn bad_fluid_and_bridge_keys() {
    let fluid = |keys: &str| {
        good().replace(
            "[[materials]]",
            &format!("[fluid]\ndensity = 1000.0\n{keys}\n\n[[materials]]"),
        )
    };
    let t = fluid("viscosity = 0.0");
    expect_error_saying(
        "fluid",
        &t,
        line_of(&t, "viscosity"),
        "fluid.viscosity",
        "> 0",
    );
    let t = fluid("viscosity = 1e-3\ndrag = \"oseen\"");
    expect_error_saying("drag", &t, line_of(&t, "oseen"), "fluid.drag", "stokes");
    // Di Felice's voidage cell: missing, stray, too small (the line each error names).
    for (name, keys, at, saying) in [
        (
            "no cell",
            "drag = \"di_felice\"",
            "[fluid]",
            "needs voidage_cell",
        ),
        ("stray cell", "voidage_cell = 0.01", "voidage_cell", "only"),
        (
            "tiny cell",
            "drag = \"di_felice\"\nvoidage_cell = 1e-9",
            "voidage_cell",
            "two diameters",
        ),
    ] {
        let t = fluid(&format!("viscosity = 1e-3\n{keys}"));
        expect_error_saying(name, &t, line_of(&t, at), "fluid.voidage_cell", saying);
    }
    let t = good().replace(
        "friction = 0.5",
        "friction = 0.5\ncontact_angle_degrees = 20.0",
    );
    let line = line_of(&t, "contact_angle_degrees");
    expect_error_saying(
        "angle",
        &t,
        line,
        "bridge_volume",
        "needs the bridge's volume",
    );
    let t = good().replace(
        "friction = 0.5",
        "friction = 0.5\nbridge_volume = 1e-9\ncontact_angle_degrees = 120.0",
    );
    let line = line_of(&t, "contact_angle_degrees");
    expect_error_saying("wetting", &t, line, "contact_angle_degrees", "[0, π/2]");
}

#[test]
fn bad_bonds() {
    let with = |table: &str| format!("{}\n{table}\n", good());
    let t = with("[[bonds]]\ngroup = \"nope\"\nstiffness = 1e6\nangular_stiffness = 1.0");
    expect_error_saying(
        "bond group",
        &t,
        line_of(&t, "nope"),
        "group",
        "no body group",
    );
    // Two touching grains in a group of their own, bonded with a stiffness the engine refuses.
    let pair = "[[bodies]]\ngenerator = \"lattice\"\nname = \"pair\"\nradius = 0.05\n\
        density = 1000.0\norigin = [0.0, 0.3, 0.5]\nspacing = 0.1\ncounts = [2, 1, 1]\n\n\
        [[bonds]]\ngroup = \"pair\"\nstiffness = 1e6\nangular_stiffness = -1.0";
    let t = with(pair);
    let line = line_of(&t, "angular_stiffness");
    expect_error_saying("bond stiffness", &t, line, "angular_stiffness", "positive");
    let t = with(&pair.replace("-1.0", "1.0\ntensile_strength = 5.0\nshear_strength = 0.0"));
    let line = line_of(&t, "shear_strength");
    expect_error_saying("bond strength", &t, line, "shear_strength", "positive");
    let t = with(&pair.replace("-1.0", "1.0\ntwisting_stiffness = 0.0"));
    let line = line_of(&t, "twisting_stiffness");
    expect_error_saying("bond twist", &t, line, "twisting_stiffness", "positive");
}

#[test]
fn negative_coulomb_correction() {
    let t = good().replace("h = 0.01", "h = 0.01\ncoulomb_correction = -1");
    expect_error(
        "coulomb_correction",
        &t,
        line_of(&t, "coulomb_correction"),
        "coulomb_correction",
    );
}

#[test]
fn overlapping_bodies() {
    let t = good().replace("[0.5, 0.0, 0.2]", "[0.1, 0.0, 0.2]");
    let line = t
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("generator = \"single\""))
        .nth(1)
        .unwrap()
        .0
        + 1;
    expect_error("overlap", &t, line, "bodies");
}

#[test]
fn unwritable_output_folder() {
    let dir = tmp("unwritable");
    let scene = dir.join("s.toml");
    std::fs::write(&scene, good()).unwrap();
    // A regular file where a folder is needed: no permission tricks, fails for root too.
    let blocker = dir.join("file");
    std::fs::write(&blocker, "x").unwrap();
    let out: &Path = &blocker.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args([
            "run",
            scene.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("output folder") && err.contains(out.to_str().unwrap()),
        "{err}"
    );
    // A non-empty folder is refused too, and left as it was.
    let full = dir.join("full");
    std::fs::create_dir_all(&full).unwrap();
    std::fs::write(full.join("keep.txt"), "mine").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args([
            "run",
            scene.to_str().unwrap(),
            "--out",
            full.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert_eq!(std::fs::read_dir(&full).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn validate_unknown_case_fails_cleanly() {
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args(["validate", "V99"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown case"));
}

#[test]
fn validate_runs_the_shape_cases_v3_and_v4() {
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args(["validate", "V3", "V4", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for case in v.as_array().unwrap() {
        assert_eq!(case["status"], "Pass", "{case}");
    }
}

#[test]
fn validate_exits_non_zero_on_a_failing_case() {
    // V7 without shaking: the nut stays at the bottom, so the case must FAIL.
    let dir = tmp("validate_fail");
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/v7_brazil_nut_2d.toml"),
    )
    .unwrap();
    let still: String = src
        .lines()
        .map(|l| {
            if l.starts_with("amplitude =") {
                "amplitude = 0.0"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(src, still);
    std::fs::write(dir.join("v7_brazil_nut_2d.toml"), still).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args(["validate", "V7", "--scenes", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "{out}");
    assert!(
        out.contains("FAIL") && out.contains("not at the top"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The good scene with a hinge between its two bodies, a spring and a force.
fn jointed() -> String {
    format!(
        "{}
{}",
        good(),
        common::fixture("links.toml")
    )
}

#[test]
fn jointed_scene_runs() {
    let (ok, err, _, scene) = run_cli("jointed", &jointed());
    assert!(ok, "{err}");
    std::fs::remove_dir_all(scene.parent().unwrap()).unwrap();
}

#[test]
fn bad_joints() {
    let good = jointed();
    let cases = [
        ("b = \"other\"", "b = \"ball\"", "b"),
        ("a = \"ball\"", "a = \"nobody\"", "a"),
        ("a = \"ball\"", "a = \"ball\"\na_index = 3", "a_index"),
        ("axis = [0.0, 0.0, 1.0]", "axis = [0.0, 0.0, 0.0]", "axis"),
        ("anchor = [0.25, 0.0, 0.2]", "anchor = [nan, 0.0, 0.2]", "anchor"),
        ("kind = \"hinge\"", "kind = \"weld\"", "kind"),
        (
            "kind = \"hinge\"\na = \"ball\"\nb = \"other\"\nanchor = [0.25, 0.0, 0.2]\naxis = [0.0, 0.0, 1.0]",
            "kind = \"ball\"\na = \"ball\"\nb = \"other\"\nanchor = [0.25, 0.0, 0.2]\nmotor_speed = 1.0",
            "motor_speed",
        ),
        (
            "b = \"other\"\nanchor = [0.25, 0.0, 0.2]",
            "anchor = [0.25, 0.0, 0.2]\ncollide = false",
            "collide",
        ),
        ("b = \"other\"", "b = \"other\"\ncollide = \"no\"", "collide"),
    ];
    for (i, (from, to, key)) in cases.into_iter().enumerate() {
        assert!(good.contains(from), "{from}");
        let t = good.replacen(from, to, 1);
        let needle = to.lines().last().unwrap();
        expect_error(&format!("joint{i}"), &t, line_of(&t, needle), key);
    }
}

#[test]
fn bad_springs_and_forces() {
    let good = jointed();
    let cases = [
        ("stiffness = 10.0", "stiffness = 0.0", "stiffness"),
        ("stiffness = 10.0", "stiffness = -10.0", "stiffness"),
        (
            "integration = \"implicit\"",
            "integration = \"semi\"",
            "integration",
        ),
        (
            "anchor_b = [1.0, 0.0, 0.2]",
            "anchor_b = [0.5, 0.0, 0.2]",
            "anchor_b",
        ),
        ("body = \"other\"", "body = \"nobody\"", "body"),
        (
            "force = [1.0, 0.0, 0.0]",
            "force = [nan, 0.0, 0.0]",
            "force",
        ),
        (
            "angular_frequency = 2.0",
            "angular_frequency = inf",
            "angular_frequency",
        ),
    ];
    for (i, (from, to, key)) in cases.into_iter().enumerate() {
        assert!(good.contains(from), "{from}");
        let t = good.replacen(from, to, 1);
        expect_error(&format!("spring{i}"), &t, line_of(&t, to), key);
    }
}

/// The good scene's box with capsules: a lattice of randomly turned ones, a list of two and a
/// sphere.
fn capsules() -> String {
    let good = good();
    let head = good.split("[[bodies]]").next().unwrap();
    format!("{head}{}", common::fixture("capsule_bodies.toml"))
}

/// A planar scene with one ellipse and a disk.
fn ellipses() -> String {
    common::fixture("ellipses.toml")
}

#[test]
fn scenes_with_capsules_and_ellipses_load_and_run() {
    for (name, text) in [("capsules", capsules()), ("ellipses", ellipses())] {
        let (ok, err, out, scene) = run_cli(name, &text);
        assert!(ok, "{name}: {err}");
        assert!(out.join("summary.json").exists());
        std::fs::remove_dir_all(scene.parent().unwrap()).unwrap();
    }
}

#[test]
fn bad_shape_keys() {
    let capsules = capsules();
    let ellipses = ellipses();
    let cases = [
        (
            capsules.as_str(),
            "shape = \"capsule\"",
            "shape = \"pyramid\"",
            "shape",
        ),
        (capsules.as_str(), "half_length = 0.06\n", "", "half_length"),
        (
            capsules.as_str(),
            "half_length = 0.06",
            "half_length = -0.06",
            "half_length",
        ),
        (
            capsules.as_str(),
            "shape = \"capsule\"",
            "shape = \"ellipse\"",
            "shape",
        ),
        (
            capsules.as_str(),
            "axis = \"random\"",
            "axis = \"sideways\"",
            "axis",
        ),
        (
            capsules.as_str(),
            "axis = \"random\"",
            "axis = [0.0, 0.0, 0.0]",
            "axis",
        ),
        (
            capsules.as_str(),
            "position = [0.3, 0.3, 0.8]",
            "position = [0.3, 0.3, 0.8]\naxis = [0.0, 0.0, 1.0]",
            "axis",
        ),
        (
            capsules.as_str(),
            "position = [0.3, 0.3, 0.8]",
            "position = [0.3, 0.3, 0.8]\nhalf_length = 0.11",
            "half_length",
        ),
        (
            capsules.as_str(),
            "counts = [4, 4, 2]",
            "counts = [4, 4, 2]\nseed = 3\nspacing = 0.1",
            "spacing",
        ),
        (ellipses.as_str(), "b = 0.1", "b = -0.1", "b"),
        (ellipses.as_str(), "a = 0.2\n", "", "a"),
        (
            ellipses.as_str(),
            "a = 0.2",
            "a = 0.2\nradius = 0.2",
            "radius",
        ),
        (
            ellipses.as_str(),
            "axis = [1.0, 0.0, 1.0]",
            "axis = [1.0, 1.0, 1.0]",
            "axis",
        ),
    ];
    for (i, (good, from, to, key)) in cases.into_iter().enumerate() {
        assert!(good.contains(from), "{from}");
        let t = good.replacen(from, to, 1);
        // The line of the new key, or of the generator's `shape` when the key went missing.
        let needle = if to.is_empty() {
            "shape = "
        } else {
            to.lines().last().unwrap()
        };
        let line = if key == "bodies" {
            line_of(&t, "generator = \"lattice\"")
        } else {
            line_of(&t, needle)
        };
        expect_error(&format!("shape{i}"), &t, line, key);
    }
}

#[test]
fn shapes_on_generators_that_cannot_take_them() {
    let cannonball = good().replacen(
        "generator = \"single\"\nname = \"ball\"\nradius = 0.1\ndensity = 1000.0\nposition = [0.0, 0.0, 0.2]",
        "generator = \"cannonball\"\nname = \"ball\"\nshape = \"capsule\"\nhalf_length = 0.1\nradius = 0.1\ndensity = 1000.0\nrows = 2",
        1,
    );
    assert_ne!(cannonball, good());
    expect_error(
        "cannonball",
        &cannonball,
        line_of(&cannonball, "shape = \"capsule\""),
        "shape",
    );
    let pour = good().replacen(
        "generator = \"single\"\nname = \"ball\"\nradius = 0.1\ndensity = 1000.0\nposition = [0.0, 0.0, 0.2]",
        "generator = \"pour_lattice\"\nname = \"ball\"\nshape = \"capsule\"\ncount = 10",
        1,
    );
    expect_error(
        "pour_shape",
        &pour,
        line_of(&pour, "shape = \"capsule\""),
        "shape",
    );
    let fill = capsules().replacen(
        "generator = \"lattice\"",
        "generator = \"random_fill\"\nregion_min = [-0.4, -0.4, 0.1]\nregion_max = [0.4, 0.4, 0.5]\npacking_fraction = 0.1",
        1,
    );
    let fill = fill
        .replacen("origin = [-0.3, -0.3, 0.1]\n", "", 1)
        .replacen("spacing = 0.2\n", "", 1)
        .replacen("counts = [4, 4, 2]\n", "", 1);
    expect_error(
        "fill_fraction",
        &fill,
        line_of(&fill, "packing_fraction"),
        "packing_fraction",
    );
}

#[test]
fn threads_on_the_command_line_are_bounded_like_the_scene_s() {
    let dir = tmp("threads");
    let scene = dir.join("good.toml");
    std::fs::write(&scene, good()).unwrap();
    let out = dir.join("out");
    let (scene, out) = (scene.to_str().unwrap(), out.to_str().unwrap());
    for n in ["0", "1025", "-1", "many"] {
        for args in [
            vec!["run", scene, "--out", out, "--threads", n],
            vec!["bench", scene, "--steps", "1", "--threads", n],
            vec!["validate", "V1", "--threads", n],
        ] {
            let o = Command::new(env!("CARGO_BIN_EXE_grains"))
                .args(&args)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{args:?}: exited 0");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert!(
                err.lines().next().unwrap_or("").contains("--threads")
                    && err.contains("from 1 to 1024"),
                "{args:?}: {err}"
            );
            assert!(!Path::new(out).exists(), "{args:?}: output written");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A floor of two plates, x in [-1, -0.2] and [0.2, 1], open between them, a ball over the
/// opening and one on a plate.
const OPEN_FLOOR: &str = r#"[scene]
name = "open_floor"
duration = 0.5

[settings]
preset = "rigid"
h = 0.01

# The grain leaves through the opening and falls on with no sink to take it: an open domain
# (by default it would stop the run on leaving the box the plates bound from below).
[settings.health]
escape = "off"

[[containers]]
kind = "rectangle"
centre = [-0.6, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
u = [1.0, 0.0, 0.0]
half_u = 0.4
half_v = 1.0

[[containers]]
kind = "rectangle"
centre = [0.6, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
u = [1.0, 0.0, 0.0]
half_u = 0.4
half_v = 1.0

[[bodies]]
generator = "list"
name = "balls"
radius = 0.1
density = 1000.0
list = [{ position = [0.0, 0.0, 0.3] }, { position = [0.6, 0.0, 0.1] }]

[output]
formats = ["csv"]
"#;

#[test]
fn a_grain_through_an_opening_of_the_floor_is_discharged_not_escaped() {
    let dir = tmp("open_floor");
    let scene = dir.join("open_floor.toml");
    std::fs::write(&scene, OPEN_FLOOR).unwrap();
    let out = dir.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args([
            "run",
            scene.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("0 escaped, 1 discharged"), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["quality"]["escaped"], 0, "{summary}");
    assert_eq!(summary["quality"]["discharged"], 1, "{summary}");
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args(["bench", scene.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let bench: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (&bench["escaped"], &bench["discharged"]),
        (&0.into(), &1.into())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn keys_without_effect_are_refused_at_their_line() {
    let shaker = common::fixture("tiny_shaker.toml");
    let t = shaker.replacen("height = 2.0", "width_y = 1.0\nheight = 2.0", 1);
    expect_error("planar_width_y", &t, line_of(&t, "width_y"), "width_y");
    let t = shaker.replacen("jitter = 0.05\n", "", 1);
    expect_error("lattice_seed", &t, line_of(&t, "seed = 3"), "seed");
}

/// good.toml's box with the capsules turned into ellipsoids.
fn ellipsoids() -> String {
    capsules()
        .replacen(
            "shape = \"capsule\"\nradius = 0.02\nhalf_length = 0.06",
            "shape = \"ellipsoid\"\nsemi_axes = [0.06, 0.04, 0.02]",
            1,
        )
        .replacen(
            "shape = \"capsule\"\nradius = 0.03\nhalf_length = 0.1",
            "shape = \"ellipsoid\"\nsemi_axes = [0.1, 0.05, 0.03]",
            1,
        )
}

#[test]
fn ellipsoid_scenes_run_and_bad_ellipsoid_keys_name_their_line() {
    let good = ellipsoids();
    assert!(!good.contains("shape = \"capsule\""), "{good}");
    let (ok, err, out, scene) = run_cli("ellipsoids", &good);
    assert!(ok, "{err}");
    assert!(out.join("summary.json").exists());
    std::fs::remove_dir_all(scene.parent().unwrap()).unwrap();
    let cases = [
        (
            "semi_axes = [0.06, 0.04, 0.02]",
            "semi_axes = [0.06, 0.0, 0.02]",
            "semi_axes",
        ),
        (
            "semi_axes = [0.06, 0.04, 0.02]",
            "semi_axes = [0.06, 0.04, 0.02]\nradius = 0.02",
            "radius",
        ),
        (
            "semi_axes = [0.1, 0.05, 0.03]",
            "semi_axes = [0.1, 0.05, 0.03]\ninertia = 0.001",
            "inertia",
        ),
        (
            "{ position = [0.0, 0.0, 0.7], axis = [0.0, 1.0, 0.0] }",
            "{ position = [0.0, 0.0, 0.7], semi_axes = [0.1, 0.05] }",
            "semi_axes",
        ),
        (
            "radius = 0.05\ndensity",
            "radius = 0.05\nsemi_axes = [0.11, 0.05, 0.03]\ndensity",
            "semi_axes",
        ),
    ];
    for (i, (from, to, key)) in cases.into_iter().enumerate() {
        assert!(good.contains(from), "{from}");
        let t = good.replacen(from, to, 1);
        let needle = to.lines().find(|l| l.contains(key)).unwrap();
        expect_error(&format!("ellipsoid{i}"), &t, line_of(&t, needle), key);
    }
}

/// The good scene's box with a lattice of randomly turned clumps (rods of three spheres) and
/// their template table.
fn clumps() -> String {
    let good = good();
    let head = good.split("[[bodies]]").next().unwrap();
    format!(
        "{head}[[bodies]]\ngenerator = \"lattice\"\nname = \"rods\"\nshape = \"clump\"\nclump = \"rod\"\naxis = \"random\"\ndensity = 1000.0\norigin = [-0.3, -0.3, 0.2]\nspacing = 0.2\ncounts = [3, 3, 1]\nseed = 4\n\n[clumps.rod]\nrod = {{ spheres = 3, radius = 0.04, spacing = 0.05 }}\n"
    )
}

/// A scene of clumps runs; a bad template or an unknown one is one line naming its key.
#[test]
fn clump_scenes_run_and_bad_clump_keys_name_their_line() {
    let text = clumps();
    let (ok, err, out, scene) = run_cli("clumps", &text);
    assert!(ok, "{err}");
    assert!(out.join("summary.json").exists());
    std::fs::remove_dir_all(scene.parent().unwrap()).unwrap();
    let t = text.replace("clump = \"rod\"", "clump = \"rice\"");
    expect_error("clump_unknown", &t, line_of(&t, "\"rice\""), "clump");
    let t = text.replace("spheres = 3,", "spheres = 12,");
    expect_error("clump_too_many", &t, line_of(&t, "rod = {"), "rod");
    let t = text.replace("shape = \"clump\"\n", "");
    expect_error("clump_on_sphere", &t, line_of(&t, "clump = "), "clump");
}

/// A polyhedron group: the good scene's ball made a tetrahedron runs; three `vertices`, a flat
/// cloud, a missing `vertices` and `vertices` on a sphere are refused, naming the file, the
/// line and the key.
#[test]
fn polyhedron_vertices() {
    let ball = "generator = \"single\"\nname = \"ball\"\nradius = 0.1\n";
    let tetra = "[[0.1, 0.1, 0.1], [0.1, -0.1, -0.1], [-0.1, 0.1, -0.1], [-0.1, -0.1, 0.1]]";
    let with = |shape: &str, vertices: &str| {
        good().replacen(
            ball,
            &format!("generator = \"single\"\nname = \"ball\"\n{shape}{vertices}"),
            1,
        )
    };
    let shape = "shape = \"polyhedron\"\n";
    let good_one = with(shape, &format!("vertices = {tetra}\n"));
    let (ok, err, out, scene) = run_cli("polyhedron", &good_one);
    assert!(ok, "{err}");
    assert!(out.join("summary.json").exists());
    std::fs::remove_dir_all(scene.parent().unwrap()).unwrap();
    let cases = [
        (
            with(shape, "vertices = [[0.1, 0.1, 0.1], [0.1, -0.1, -0.1], [-0.1, 0.1, -0.1]]\n"),
            "vertices = ",
        ),
        (
            with(shape, "vertices = [[0.1, 0.1, 0.1], [0.1, -0.1, 0.1], [-0.1, 0.1, 0.1], [-0.1, -0.1, 0.1]]\n"),
            "vertices = ",
        ),
        (with(shape, ""), "shape = \"polyhedron\""),
        (
            with("radius = 0.1\n", &format!("vertices = {tetra}\n")),
            "vertices = ",
        ),
    ];
    for (i, (t, needle)) in cases.into_iter().enumerate() {
        assert_ne!(t, good(), "case {i} changed nothing");
        expect_error(
            &format!("polyhedron{i}"),
            &t,
            line_of(&t, needle),
            "vertices",
        );
    }
}

#[test]
fn control_characters_of_paths_and_values_are_escaped_in_the_one_error_line() {
    let dir = tmp("controls");
    // A scene path with a newline and an escape sequence (a missing file), and a scene whose
    // mesh path holds them: each error is one line, the characters written as escapes.
    let missing = dir.join("a\nb\u{1b}[31m.toml");
    let text = good().replace(
        "[[bodies]]",
        "[[meshes]]\nfile = \"x\\ny\\u001b[2J.stl\"\n\n[[bodies]]",
    );
    let mesh_scene = dir.join("mesh.toml");
    std::fs::write(&mesh_scene, text).unwrap();
    for scene in [&missing, &mesh_scene] {
        let o = Command::new(env!("CARGO_BIN_EXE_grains"))
            .args(["run", scene.to_str().unwrap(), "--out"])
            .arg(dir.join("out"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{err}");
        assert_eq!(err.lines().count(), 1, "not one line: {err}");
        assert!(!err.contains('\u{1b}'), "a raw escape: {err:?}");
        assert!(err.contains("\\u{1b}[") && err.contains("\\n"), "{err:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_gpu_run_without_xdg_runtime_dir_prints_no_loader_lines() {
    // Mesa's device-selection layer asks Wayland for the display's GPU; without
    // XDG_RUNTIME_DIR, libwayland printed two `error: XDG_RUNTIME_DIR …` lines on every GPU run.
    let text = good().replace(
        "h = 0.01",
        "h = 0.01\nsolver = \"jacobi\"\ntolerance = 0.0\nomega = 0.3",
    );
    let dir = tmp("xdg");
    let scene = dir.join("gpu.toml");
    std::fs::write(&scene, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args([
            "run",
            scene.to_str().unwrap(),
            "--backend",
            "gpu",
            "--steps",
            "2",
        ])
        .arg("--out")
        .arg(dir.join("out"))
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    if err.contains("no GPU adapter") {
        eprintln!("skipped: no GPU adapter");
    } else {
        assert!(o.status.success(), "{err}");
        assert!(!err.contains("XDG_RUNTIME_DIR"), "{err}");
        assert!(!err.lines().any(|l| l.starts_with("error")), "{err}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `h = "auto"` and its keys: h_min above h_max, a negative h_min, a budget of 0, a name other
/// than "auto", its keys beside a fixed step, and the GPU backend (which cannot serve it), each
/// refused with one line naming the file, the line and the key.
#[test]
fn bad_adaptive_step_keys() {
    let auto = |keys: &str| good().replace("h = 0.01", &format!("h = \"auto\"\n{keys}"));
    let t = auto("h_max = 0.01\nh_min = 0.02");
    expect_error_saying(
        "h_min_high",
        &t,
        line_of(&t, "h_min"),
        "h_min",
        "above h_max",
    );
    let t = auto("h_min = -1e-6");
    expect_error_saying(
        "h_min_negative",
        &t,
        line_of(&t, "h_min"),
        "h_min",
        "positive",
    );
    let t = auto("penetration_budget = 0.0");
    let line = line_of(&t, "penetration_budget");
    expect_error("budget_zero", &t, line, "penetration_budget");
    let t = good().replace("h = 0.01", "h = \"fast\"");
    expect_error_saying("h_name", &t, line_of(&t, "h = "), "h", "\"auto\"");
    let t = good().replace("h = 0.01", "h = 0.01\nreach = 0.3");
    expect_error_saying(
        "reach_fixed",
        &t,
        line_of(&t, "reach"),
        "reach",
        "no effect",
    );
    let t = auto("backend = \"gpu\"\nsolver = \"jacobi\"\ntolerance = 0.0");
    let saying = "cannot be combined with the GPU backend";
    expect_error_saying("auto_gpu", &t, line_of(&t, "h = "), "h", saying);
}
