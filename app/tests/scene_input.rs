//! Scene input that cannot hang, crash, overflow or be silently ignored: each case is refused
//! by the scene layer with one line naming the file, the line and the key.

use grains_app::scene::{Scene, SceneError, MAX_BODIES, MAX_FILE_BYTES};
use std::path::Path;

/// A valid scene: two spheres in a box; the tests change one key of it at a time.
const GOOD: &str = r#"[scene]
name = "ok"
duration = 0.05

[settings]
preset = "granular"
h = 0.01

[[materials]]
name = "grain"
friction = 0.5

[[shakers]]
name = "spin"
kind = "constant"
angular = [0.0, 0.0, 1.0]

[[shakers]]
name = "slide"
kind = "constant"
linear = [0.1, 0.0, 0.0]

[[containers]]
kind = "box"
width_x = 1.0
width_y = 1.0
height = 1.0

[[bodies]]
generator = "single"
name = "ball"
radius = 0.1
density = 1000.0
position = [0.0, 0.0, 0.2]
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

/// Parses `text`; asserts it is refused with one line naming the file, `line` and `key`.
fn refused(text: &str, line: usize, key: &str) -> String {
    let Err(e) = Scene::parse(Path::new("s.toml"), text) else {
        panic!("accepted");
    };
    let msg = e.to_string();
    assert_eq!(msg.lines().count(), 1, "not one line: {msg}");
    let want = format!("s.toml:{line}: key `{key}`");
    assert!(msg.starts_with(&want), "expected `{want}` in: {msg}");
    msg
}

/// Refused at the line of `needle` (the first line holding it), key `key`.
fn refused_at(text: &str, needle: &str, key: &str) -> String {
    refused(text, line_of(text, needle), key)
}

#[test]
fn the_base_scene_is_good() {
    let s = Scene::parse(Path::new("s.toml"), GOOD).unwrap();
    assert_eq!(s.total_steps(), 5);
    s.world(Some(1)).unwrap();
}

#[test]
fn a_run_of_no_steps_is_refused() {
    refused_at(
        &with("duration = 0.05", "duration = 0"),
        "duration",
        "duration",
    );
    refused_at(
        &with("duration = 0.05", "duration = 0.004"),
        "duration",
        "duration",
    );
    let t = with("h = 0.01", "h = 0.5");
    assert!(refused_at(&t, "duration", "duration").contains("no step"));
}

#[test]
fn numbers_outside_single_precision_are_refused_at_their_key() {
    for (from, to, key) in [
        ("radius = 0.1", "radius = 1e39", "radius"),
        ("radius = 0.1", "radius = 1e-300", "radius"),
        ("density = 1000.0", "density = 1e39", "density"),
        ("h = 0.01", "h = 1e-300", "h"),
        ("friction = 0.5", "friction = 1e39", "friction"),
        ("friction = 0.5", "friction = 1e-300", "friction"),
        (
            "position = [0.0, 0.0, 0.2]",
            "position = [1e-300, 0.0, 0.2]",
            "position",
        ),
        (
            "position = [0.0, 0.0, 0.2]",
            "position = [1e39, 0.0, 0.2]",
            "position",
        ),
        ("width_x = 1.0", "width_x = 1e39", "width_x"),
        (
            "linear = [0.1, 0.0, 0.0]",
            "linear = [1e39, 0.0, 0.0]",
            "linear",
        ),
    ] {
        let t = with(from, to);
        let needle = to.split(' ').next().unwrap();
        let msg = refused(&t, line_of(&t, to), key);
        assert!(
            msg.contains("single precision") || msg.contains("between"),
            "{needle}: {msg}"
        );
    }
    let t = with("kind = \"box\"", "kind = \"floor\"\nz = 1e-300")
        .replace("width_x = 1.0\nwidth_y = 1.0\nheight = 1.0\n", "");
    refused_at(&t, "z = 1e-300", "z");
}

#[test]
fn a_container_given_a_turning_shaker_is_refused() {
    let t = with("height = 1.0", "height = 1.0\nshaker = \"spin\"");
    refused_at(&t, "shaker = \"spin\"", "shaker");
    // A shaker that only translates moves the walls.
    let t = with("height = 1.0", "height = 1.0\nshaker = \"slide\"");
    Scene::parse(Path::new("s.toml"), &t).unwrap();
}

#[test]
fn keys_without_effect_on_a_body_are_refused() {
    let t = with(
        "density = 1000.0",
        "density = 1000.0\nkind = \"fixed\"\nvelocity = [1.0, 0.0, 0.0]",
    );
    refused_at(&t, "velocity", "velocity");
    let t = with(
        "density = 1000.0",
        "density = 1000.0\nkind = \"fixed\"\nangular_velocity = [1.0, 0.0, 0.0]",
    );
    refused_at(&t, "angular_velocity", "angular_velocity");
    let t = with(
        "density = 1000.0",
        "density = 1000.0\nkind = \"kinematic\"\nshaker = \"slide\"\ninertia = 1.0",
    );
    refused_at(&t, "inertia", "inertia");
    let t = with("density = 1000.0", "density = 1000.0\nshaker = \"slide\"");
    refused_at(&t, "shaker = \"slide\"", "shaker");
    let t = with("generator = \"single\"", "generator = \"list\"\nkind = \"fixed\"\nlist = [{ position = [0.0, 0.0, 0.2], velocity = [1.0, 0.0, 0.0] }]")
        .replace("position = [0.0, 0.0, 0.2]\n", "");
    refused_at(&t, "list =", "velocity");
}

#[test]
fn counts_beyond_the_body_limit_are_refused_before_allocating() {
    let lattice = |counts: &str, count: &str| {
        with(
            "generator = \"single\"",
            &format!("generator = \"lattice\"\norigin = [0.0, 0.0, 0.2]\nspacing = 0.3\ncounts = {counts}{count}"),
        )
        .replace("position = [0.0, 0.0, 0.2]\n", "")
    };
    let big = i64::MAX.to_string();
    refused_at(
        &lattice(&format!("[{big}, {big}, {big}]"), ""),
        "counts",
        "counts",
    );
    refused_at(&lattice("[100000, 100000, 100000]", ""), "counts", "counts");
    let msg = refused_at(
        &lattice("[100000, 100000, 100000]", "\ncount = 200000000"),
        "count =",
        "count",
    );
    assert!(msg.contains(&MAX_BODIES.to_string()), "{msg}");
    let pour = with(
        "generator = \"single\"",
        &format!("generator = \"pour_lattice\"\ncount = {big}"),
    )
    .replace(
        "radius = 0.1\ndensity = 1000.0\nposition = [0.0, 0.0, 0.2]\n",
        "",
    );
    refused_at(&pour, "count =", "count");
    let fill = with(
        "generator = \"single\"",
        "generator = \"random_fill\"\nregion_min = [0.0, 0.0, 0.0]\nregion_max = [1.0, 1.0, 1.0]\ncount = 100000001",
    )
    .replace("position = [0.0, 0.0, 0.2]\n", "");
    refused_at(&fill, "count =", "count");
    let pour_box = with("kind = \"box\"", &format!("kind = \"pour_box\"\nn = {big}"))
        .replace("width_x = 1.0\nwidth_y = 1.0\nheight = 1.0\n", "");
    refused_at(&pour_box, "n = 9223", "n");
}

#[test]
fn threads_beyond_the_limit_are_refused() {
    let t = with("h = 0.01", "h = 0.01\nthreads = 1000000");
    assert!(refused_at(&t, "threads", "threads").contains("1024"));
    Scene::parse(
        Path::new("s.toml"),
        &with("h = 0.01", "h = 0.01\nthreads = 1024"),
    )
    .unwrap();
}

#[test]
fn an_endless_or_huge_file_is_one_clean_error() {
    let Err(e) = Scene::load("/dev/zero") else {
        panic!("accepted");
    };
    assert!(matches!(e, SceneError::Read { .. }), "{e}");
    assert!(e.to_string().contains("MiB"), "{e}");
    let dir = std::env::temp_dir().join(format!("grains-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("big.toml");
    let mut text = GOOD.to_string();
    text.push_str(&"#".repeat(MAX_FILE_BYTES as usize));
    std::fs::write(&f, text).unwrap();
    assert!(matches!(Scene::load(&f), Err(SceneError::Read { .. })));
    std::fs::write(&f, GOOD).unwrap();
    Scene::load(&f).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn names_in_messages_are_one_short_line() {
    let long = "m".repeat(1_000_000);
    let t = with(
        "density = 1000.0",
        &format!("density = 1000.0\nmaterial = \"{long}\\nsecond line\""),
    );
    let msg = refused_at(&t, "material = ", "material");
    assert!(msg.len() < 400, "{} bytes", msg.len());
    let t = with(
        "density = 1000.0",
        "density = 1000.0\nmaterial = \"a\\nb\\u001b[31m\"",
    );
    let msg = refused_at(&t, "material = ", "material");
    assert!(msg.contains("a\\nb\\u{1b}"), "{msg}");
}

#[test]
fn the_scene_name_is_one_plain_folder_name() {
    for bad in [
        "", "../../x", "/abs", "a/b", "a\\\\b", ".hidden", "..", "a\\nb", "a\\u0007",
    ] {
        let t = with("name = \"ok\"", &format!("name = \"{bad}\""));
        refused(&t, 2, "name");
    }
    let t = with("name = \"ok\"", &format!("name = \"{}\"", "n".repeat(256)));
    refused(&t, 2, "name");
    Scene::parse(
        Path::new("s.toml"),
        &with("name = \"ok\"", "name = \"a b-c_d.1 é\""),
    )
    .unwrap();
}

/// `GOOD` in planar mode (the ball becomes a disk).
fn planar(from: &str, to: &str) -> String {
    with("h = 0.01", "h = 0.01\nplanar = true").replacen(from, to, 1)
}

#[test]
fn a_box_width_y_or_floor_y_in_planar_mode_is_refused() {
    let msg = refused_at(&planar("", ""), "width_y", "width_y");
    assert!(msg.contains("no effect in planar mode"), "{msg}");
    let t = planar("width_y = 1.0\n", "");
    Scene::parse(Path::new("s.toml"), &t)
        .unwrap()
        .world(Some(1))
        .unwrap();
    let t = planar("width_y = 1.0\n", "floor_centre = [0.0, 0.5, 0.0]\n");
    refused_at(&t, "floor_centre", "floor_centre");
    // In 3-D the box needs its y width.
    refused_at(&with("width_y = 1.0\n", ""), "kind = \"box\"", "width_y");
}

/// `GOOD` with its single ball replaced by a lattice with the keys `extra`.
fn lattice(extra: &str) -> String {
    with(
        "generator = \"single\"",
        &format!("generator = \"lattice\"\norigin = [-0.3, 0.0, 0.2]\nspacing = 0.3\ncounts = [3, 1, 2]{extra}"),
    )
    .replace("position = [0.0, 0.0, 0.2]\n", "")
}

#[test]
fn a_seed_on_a_lattice_that_draws_nothing_is_refused() {
    let msg = refused_at(&lattice("\nseed = 4"), "seed", "seed");
    assert!(msg.contains("has no effect on a lattice"), "{msg}");
    refused_at(&lattice("\njitter = 0.0\nseed = 4"), "seed", "seed");
    // The seed draws the jitter.
    Scene::parse(Path::new("s.toml"), &lattice("\njitter = 0.1\nseed = 4")).unwrap();
}

#[test]
fn a_lattice_count_that_stops_nothing_is_refused() {
    let msg = refused_at(&lattice("\ncount = 6"), "count =", "count");
    assert!(msg.contains("6 sites"), "{msg}");
    refused_at(&lattice("\ncount = 7"), "count =", "count");
    Scene::parse(Path::new("s.toml"), &lattice("\ncount = 5")).unwrap();
}

#[test]
fn components_that_planar_mode_drops_are_refused() {
    let t = planar("width_y = 1.0\n", "");
    for (from, to, key) in [
        (
            "position = [0.0, 0.0, 0.2]",
            "position = [0.0, 0.0, 0.2]\nvelocity = [0.0, 1.0, 0.0]",
            "velocity",
        ),
        (
            "position = [0.0, 0.0, 0.2]",
            "position = [0.0, 0.0, 0.2]\nangular_velocity = [1.0, 0.0, 0.0]",
            "angular_velocity",
        ),
        (
            "generator = \"single\"",
            "generator = \"lattice\"\norigin = [-0.3, 0.2, 0.2]\nspacing = 0.3\ncounts = [3, 1, 2]",
            "origin",
        ),
        (
            "generator = \"single\"",
            "generator = \"random_fill\"\nregion_min = [-0.4, -0.1, 0.1]\nregion_max = [0.4, 0.0, 0.9]\ncount = 3",
            "region_min",
        ),
    ] {
        let t = t.replacen(from, to, 1);
        let t = if from.starts_with("generator") {
            t.replace("position = [0.0, 0.0, 0.2]\n", "")
        } else {
            t
        };
        let needle = to.lines().find(|l| l.starts_with(key)).unwrap();
        let msg = refused_at(&t, needle, key);
        assert!(msg.contains("no effect in planar mode"), "{msg}");
    }
    // The motion the plane keeps is accepted.
    let t = t.replacen(
        "position = [0.0, 0.0, 0.2]",
        "position = [0.0, 0.0, 0.2]\nvelocity = [1.0, 0.0, -1.0]\nangular_velocity = [0.0, 2.0, 0.0]",
        1,
    );
    Scene::parse(Path::new("s.toml"), &t).unwrap();
}

#[test]
fn output_keys_for_files_not_written_are_refused() {
    let output = |keys: &str| format!("{GOOD}\n[output]\n{keys}\n");
    for (keys, key) in [
        ("formats = [\"vtu\", \"csv\"]\ncolour = \"speed\"", "colour"),
        ("formats = [\"csv\"]\npng_every = 2", "png_every"),
        ("formats = [\"vtu\"]\nimage_width = 400", "image_width"),
        ("formats = [\"vtu\"]\nview = \"side\"", "view"),
        ("formats = [\"vtu\"]\nview_height = 0.5", "view_height"),
        (
            "formats = [\"vtu\"]\nview_extent = \"bodies\"",
            "view_extent",
        ),
        ("formats = [\"vtu\"]\nsection_y = 0.0", "section_y"),
        (
            "formats = [\"vtu\", \"png\"]\nobserve_every = 2",
            "observe_every",
        ),
        ("formats = [\"csv\"]\nobserve_every = 2\nevery = 3", "every"),
        ("formats = []\nevery = 3", "every"),
    ] {
        let t = output(keys);
        let needle = keys.lines().last().unwrap();
        let msg = refused_at(&t, needle, key);
        assert!(msg.contains("has no effect"), "{msg}");
    }
    // `every` sets the csv rows when `observe_every` is not given.
    Scene::parse(
        Path::new("s.toml"),
        &output("formats = [\"csv\"]\nevery = 3"),
    )
    .unwrap();
    let msg = refused_at(&output("image_width = 9000"), "image_width", "image_width");
    assert!(msg.contains("8192"), "{msg}");
    Scene::parse(Path::new("s.toml"), &output("image_width = 8192")).unwrap();
}

#[test]
fn a_rest_length_on_a_pure_damper_is_refused() {
    let spring = |keys: &str| {
        format!("{GOOD}\n[[springs]]\na = \"ball\"\nanchor_b = [0.0, 0.0, 1.0]\n{keys}\nrest_length = 0.5\n")
    };
    let msg = refused_at(&spring("damping = 1.0"), "rest_length", "rest_length");
    assert!(msg.contains("no effect"), "{msg}");
    Scene::parse(Path::new("s.toml"), &spring("stiffness = 10.0")).unwrap();
}

#[test]
fn a_sync_every_beyond_u32_is_refused_not_clamped() {
    let t = with("h = 0.01", "h = 0.01\nsync_every = 5000000000");
    let msg = refused_at(&t, "sync_every", "sync_every");
    assert!(msg.contains(&u32::MAX.to_string()), "{msg}");
}

#[test]
fn a_body_starting_inside_a_wall_is_refused_at_its_position() {
    // The ball (r = 0.1 m) 4 cm into the box's floor (wall 0) would leave it at 4 cm/h = 4 m/s.
    let t = with("position = [0.0, 0.0, 0.2]", "position = [0.0, 0.0, 0.06]");
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    let Err(e) = s.world(Some(1)) else {
        panic!("accepted");
    };
    assert_eq!(
        e.to_string(),
        format!(
            "s.toml:{}: key `position`: body 0: position is 4.000e-2 m inside wall 0 (a rectangle) at the start, more than 1 % of its radius 0.1 m: the first step would shoot it out at 4.000e0 m/s",
            line_of(&t, "position = ")
        )
    );
}

#[test]
fn snapshot_colour_view_and_section_choices() {
    use grains_app::scene::{Colour, ViewExtent};
    let output = |keys: &str| format!("{GOOD}\n[output]\n{keys}\n");
    let read = |keys: &str| Scene::parse(Path::new("s.toml"), &output(keys)).unwrap();
    assert_eq!(
        read("colour = \"material\"").output.colour,
        Colour::Material
    );
    assert_eq!(read("colour = \"group\"").output.colour, Colour::Group);
    let s = read("view_extent = \"bodies\"\nsection_y = 0.25");
    assert_eq!(s.output.view_extent, ViewExtent::Bodies);
    assert_eq!(s.output.section_y, Some(0.25));
    let s = read("");
    assert_eq!(s.output.view_extent, ViewExtent::Start);
    assert_eq!(s.output.section_y, None);
    assert_eq!(s.material_names, ["grain"]);
    // Each bad value: one line naming the file, the line and the key.
    for (keys, key, says) in [
        ("colour = \"purple\"", "colour", "\"material\" or \"group\""),
        ("view = \"top\"", "view", "\"section\" or \"side\""),
        (
            "view_extent = \"bed\"",
            "view_extent",
            "\"start\" or \"bodies\"",
        ),
        ("view_extent = 3", "view_extent", ""),
        ("section_y = \"middle\"", "section_y", ""),
        ("section_y = 1e39", "section_y", ""),
        (
            "view = \"side\"\nsection_y = 0.0",
            "section_y",
            "has no effect",
        ),
        (
            "view_extent = \"bodies\"\nview_height = 0.5",
            "view_height",
            "has no effect",
        ),
    ] {
        let t = output(keys);
        let needle = keys.lines().last().unwrap().split(' ').next().unwrap();
        let msg = refused_at(&t, needle, key);
        assert!(msg.contains(says), "{msg}");
    }
}

/// `GOOD` with its box replaced by a drum about the x axis through (0, 0, 0.5) holding the ball.
fn in_a_drum(keys: &str) -> String {
    with(
        "kind = \"box\"\nwidth_x = 1.0\nwidth_y = 1.0\nheight = 1.0",
        &format!("kind = \"cylinder\"\ncentre = [0.0, 0.0, 0.5]\naxis = [2.0, 0.0, 0.0]\nradius = 0.5\nlength = 1.0\n{keys}"),
    )
}

#[test]
fn a_cylinder_container_builds_and_its_bad_keys_are_refused_at_their_line() {
    let good = in_a_drum("inside = true\nangular_velocity = 1.5");
    let s = Scene::parse(Path::new("s.toml"), &good).unwrap();
    let w = s.world(Some(1)).unwrap();
    assert!(w.wall_descs()[0].is_cylinder());
    for (bad, key) in [
        ("radius = 0.5", "radius = -0.5"),
        ("length = 1.0", "length = 0.0"),
        ("axis = [2.0, 0.0, 0.0]", "axis = [0.0, 0.0, 0.0]"),
    ] {
        let t = good.replacen(bad, key, 1);
        let k = key.split(' ').next().unwrap();
        refused_at(&t, key, k);
    }
    refused_at(&in_a_drum("width_x = 1.0"), "width_x = 1.0", "width_x");
    let t = good.replacen("angular_velocity = 1.5", "angular_velocity = 1e39", 1);
    refused_at(&t, "angular_velocity", "angular_velocity");
}

#[test]
fn a_ball_in_a_drum_s_mantle_is_refused_at_its_position() {
    // The ball (r = 0.1 m) at 0.45 m from the axis overlaps the 0.5 m mantle by 5 cm.
    let t = in_a_drum("").replacen(
        "position = [0.0, 0.0, 0.2]",
        "position = [0.0, 0.0, 0.05]",
        1,
    );
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    let Err(e) = s.world(Some(1)) else {
        panic!("accepted");
    };
    let msg = e.to_string();
    let want = format!("s.toml:{}: key `position`", line_of(&t, "position = "));
    assert!(
        msg.starts_with(&want) && msg.contains("(a cylinder)"),
        "{msg}"
    );
}
