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
    let refused = |path: &Path| match Scene::load(path) {
        Err(e @ SceneError::Read { .. }) => e.to_string(),
        other => panic!("{}: {other:?}", path.display()),
    };
    let zero = refused(Path::new("/dev/zero"));
    assert!(zero.contains("not a regular file (a device)"), "{zero}");
    let dir = std::env::temp_dir().join(format!("grains-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A FIFO with no writer blocked for ever in `open` before.
    let fifo = dir.join("fifo.toml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let line = refused(&fifo);
        assert!(
            line.contains("not a regular file (a FIFO); name a scene file"),
            "{line}"
        );
    }
    let f = dir.join("big.toml");
    let mut text = GOOD.to_string();
    text.push_str(&"#".repeat(MAX_FILE_BYTES as usize));
    std::fs::write(&f, text).unwrap();
    let big = refused(&f);
    assert!(
        big.contains("larger than 16 MiB, the most a scene file may be"),
        "{big}"
    );
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
        (
            "formats = [\"csv\", \"png\"]\nframe_encoding = \"zlib\"",
            "frame_encoding",
        ),
        (
            "formats = [\"csv\", \"contacts\"]\nframe_orientation = true",
            "frame_orientation",
        ),
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
    // The frames' encodings: the three names, and no other.
    for name in ["binary", "zlib", "ascii"] {
        let keys = format!("frame_encoding = \"{name}\"");
        let scene = Scene::parse(Path::new("s.toml"), &output(&keys)).unwrap();
        assert_eq!(scene.output.frame_encoding.name(), name);
    }
    // The orientation in the frames of spheres: off unless asked.
    assert!(
        !Scene::parse(Path::new("s.toml"), &output(""))
            .unwrap()
            .output
            .frame_orientation
    );
    let scene = Scene::parse(Path::new("s.toml"), &output("frame_orientation = true")).unwrap();
    assert!(scene.output.frame_orientation);
    let t = output("formats = [\"contacts\"]\nframe_encoding = \"base64\"");
    let msg = refused_at(&t, "frame_encoding", "frame_encoding");
    assert!(
        msg.contains("must be \"binary\", \"zlib\" or \"ascii\", got \"base64\""),
        "{msg}"
    );
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

/// Four spheres 0.5 m apart along x at z = 1 (the midpoints of neighbours are exact in binary)
/// and the joint and spring tables `links`.
fn linked(links: &str) -> String {
    format!(
        r#"[scene]
name = "links"
duration = 0.2

[settings]
preset = "rigid"
h = 0.001

[[bodies]]
generator = "list"
name = "beads"
radius = 0.1
mass = 0.1
list = [
    {{ position = [0.0, 0.0, 1.0] }},
    {{ position = [0.5, 0.0, 1.0] }},
    {{ position = [1.0, 0.0, 1.0] }},
    {{ position = [1.5, 0.0, 1.0] }},
]

[[bodies]]
generator = "single"
name = "lone"
radius = 0.1
mass = 0.1
position = [3.0, 0.0, 1.0]
{links}"#
    )
}

/// The joint tables `kind` from body `a` to body `b` of the beads at `anchor` (x; y = 0, z = 1).
fn spelled(kind: &str, extra: &str, pairs: &[(usize, usize, f64)]) -> String {
    pairs
        .iter()
        .map(|(a, b, x)| {
            format!(
                "\n[[joints]]\nkind = \"{kind}\"\na = \"beads\"\na_index = {a}\nb = \"beads\"\nb_index = {b}\nanchor = [{x:?}, 0.0, 1.0]\n{extra}"
            )
        })
        .collect()
}

/// Asserts the scenes `bulk` and `by_hand` build the same world, joint for joint, and stay
/// bit-identical over 200 steps; returns the joint count.
fn same_world(bulk: &str, by_hand: &str) -> usize {
    let (s1, s2) = (
        Scene::parse(Path::new("bulk.toml"), bulk).unwrap(),
        Scene::parse(Path::new("hand.toml"), by_hand).unwrap(),
    );
    assert_eq!(s1.builder().joints(), s2.builder().joints());
    let (mut w1, mut w2) = (s1.world(Some(1)).unwrap(), s2.world(Some(1)).unwrap());
    assert_eq!(w1.fingerprint(), w2.fingerprint());
    w1.run(200).unwrap();
    w2.run(200).unwrap();
    for i in 0..w1.len() {
        assert_eq!(
            w1.position(i).to_array().map(f32::to_bits),
            w2.position(i).to_array().map(f32::to_bits)
        );
        assert_eq!(
            w1.orientation(i).to_array().map(f32::to_bits),
            w2.orientation(i).to_array().map(f32::to_bits)
        );
    }
    assert!(w1.position(0).z < 1.0, "the chain falls");
    w1.joint_count()
}

#[test]
fn a_chain_is_the_joints_between_neighbours_at_their_midpoints() {
    let pin =
        "\n[[joints]]\nkind = \"ball\"\na = \"beads\"\na_index = 0\nanchor = [-0.25, 0.0, 1.0]\n";
    let bulk = linked(&format!(
        "{pin}\n[[joints]]\nkind = \"ball\"\nchain = \"beads\"\n"
    ));
    let by_hand = linked(&format!(
        "{pin}{}",
        spelled("ball", "", &[(1, 0, 0.25), (2, 1, 0.75), (3, 2, 1.25)])
    ));
    assert_eq!(same_world(&bulk, &by_hand), 1 + 3);
}

#[test]
fn a_ring_closes_the_chain_last_to_first() {
    let axis = "axis = [0.0, 1.0, 0.0]\n";
    let bulk = linked(&format!(
        "\n[[joints]]\nkind = \"hinge\"\nring = \"beads\"\n{axis}"
    ));
    let by_hand = linked(&spelled(
        "hinge",
        axis,
        &[(1, 0, 0.25), (2, 1, 0.75), (3, 2, 1.25), (0, 3, 0.75)],
    ));
    assert_eq!(same_world(&bulk, &by_hand), 4);
    let j = Scene::parse(Path::new("s.toml"), &bulk).unwrap();
    let last = j.builder().joints()[3];
    assert_eq!((last.a, last.b), (0, Some(3)));
}

#[test]
fn springs_come_in_chains_and_rings_too() {
    let keys = "stiffness = 50.0\ndamping = 0.5\n";
    let bulk = linked(&format!("\n[[springs]]\nring = \"beads\"\n{keys}"));
    let by_hand = linked(
        &[(1, 0), (2, 1), (3, 2), (0, 3)]
            .iter()
            .map(|(a, b)| {
                format!("\n[[springs]]\na = \"beads\"\na_index = {a}\nb = \"beads\"\nb_index = {b}\n{keys}")
            })
            .collect::<String>(),
    );
    same_world(&bulk, &by_hand);
    let springs = |text: &str| {
        let w = Scene::parse(Path::new("s.toml"), text)
            .unwrap()
            .world(Some(1))
            .unwrap();
        let n = w
            .fingerprint()
            .items()
            .find(|(k, _)| *k == "springs")
            .unwrap()
            .1
            .to_string();
        n
    };
    assert_eq!(springs(&bulk), "4");
    let chain = linked(&format!("\n[[springs]]\nchain = \"beads\"\n{keys}"));
    assert_eq!(springs(&chain), "3");
}

#[test]
fn bulk_joints_and_springs_that_make_no_sense_are_refused() {
    let joint = |keys: &str| linked(&format!("\n[[joints]]\nkind = \"ball\"\n{keys}"));
    let t = joint("chain = \"nope\"\n");
    refused_at(&t, "chain =", "chain");
    let t = joint("chain = \"lone\"\n");
    assert!(refused_at(&t, "chain =", "chain").contains("has 1 body"));
    let t = joint("ring = \"beads\"\nanchor = [0.0, 0.0, 1.0]\n");
    refused_at(&t, "anchor =", "anchor");
    let t = joint("chain = \"beads\"\na = \"beads\"\n");
    refused_at(&t, "a = \"beads\"", "a");
    let t = joint("chain = \"beads\"\nb_index = 1\n");
    refused_at(&t, "b_index", "b_index");
    let t = joint("chain = \"beads\"\nring = \"beads\"\n");
    refused_at(&t, "ring =", "ring");
    let t = joint("");
    refused_at(&t, "kind = \"ball\"", "a");
    let t = linked(
        "\n[[bodies]]\ngenerator = \"list\"\nname = \"two\"\nradius = 0.1\nmass = 0.1\nlist = [{ position = [5.0, 0.0, 1.0] }, { position = [5.5, 0.0, 1.0] }]\n\n[[joints]]\nkind = \"ball\"\nring = \"two\"\n",
    );
    assert!(refused_at(&t, "ring =", "ring").contains("at least 3"));
    let spring = |keys: &str| linked(&format!("\n[[springs]]\nstiffness = 1.0\n{keys}"));
    let t = spring("chain = \"beads\"\nanchor_a = [0.0, 0.0, 1.0]\n");
    refused_at(&t, "anchor_a", "anchor_a");
    let t = spring("ring = \"nope\"\n");
    refused_at(&t, "ring =", "ring");
    let t = spring("");
    refused(&t, 1, "a");
}

/// A `list` generator of `shape` with the generator's keys `keys` and the entries `entries`.
fn listed(shape: &str, keys: &str, entries: &str) -> String {
    let planar = if shape == "ellipse" {
        "planar = true\n"
    } else {
        ""
    };
    format!(
        "[scene]\nname = \"l\"\nduration = 0.01\n\n[settings]\npreset = \"rigid\"\nh = 0.001\n{planar}\n[[bodies]]\ngenerator = \"list\"\nshape = \"{shape}\"\ndensity = 1000.0\n{keys}list = [\n{entries}]\n"
    )
}

#[test]
fn every_shape_key_is_settable_per_list_entry() {
    use grains::body::Shape;
    let t = listed(
        "capsule",
        "radius = 0.05\nhalf_length = 0.1\n",
        "{ position = [0.0, 0.0, 1.0] },\n{ position = [1.0, 0.0, 1.0], half_length = 0.3, radius = 0.02, axis = [0.0, 0.0, 1.0] },\n",
    );
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    let b = s.builder().bodies();
    assert_eq!(b[0].shape, Shape::Capsule { half_length: 0.1 });
    assert_eq!(b[1].shape, Shape::Capsule { half_length: 0.3 });
    assert_eq!((b[0].radius, b[1].radius), (0.05, 0.02));
    assert!((b[1].orientation * glam::Vec3::X - glam::Vec3::Z).length() < 1e-6);
    assert!(
        b[1].mass > b[0].mass * 0.0 && b[1].mass != b[0].mass,
        "mass from its own shape"
    );
    // Solid capsules: in 3-D their principal moments from their own radius and length.
    for (body, r, l) in [(&b[0], 0.05, 0.1), (&b[1], 0.02, 0.3)] {
        let want = grains::capsule_principal_moments(r, l, body.mass);
        assert_eq!(body.principal_moments, Some(want), "capsule moments");
    }
    let t = listed(
        "ellipse",
        "a = 0.1\nb = 0.05\n",
        "{ position = [0.0, 0.0, 1.0] },\n{ position = [1.0, 0.0, 1.0], a = 0.2 },\n{ position = [2.0, 0.0, 1.0], b = 0.01 },\n",
    );
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    let shapes: Vec<_> = s.builder().bodies().iter().map(|b| b.shape).collect();
    assert_eq!(
        shapes,
        [
            Shape::Ellipse { a: 0.1, b: 0.05 },
            Shape::Ellipse { a: 0.2, b: 0.05 },
            Shape::Ellipse { a: 0.1, b: 0.01 },
        ]
    );
    assert_eq!(s.builder().bodies()[1].radius, 0.2);
}

#[test]
fn a_bad_per_entry_shape_key_is_refused_at_its_line() {
    let capsule = |entry: &str| {
        listed(
            "capsule",
            "radius = 0.05\nhalf_length = 0.1\n",
            &format!("{{ position = [0.0, 0.0, 1.0] }},\n{entry}\n"),
        )
    };
    let t = capsule("{ position = [1.0, 0.0, 1.0], half_length = -0.1 },");
    refused_at(&t, "-0.1", "half_length");
    let t = capsule("{ position = [1.0, 0.0, 1.0], half_length = \"long\" },");
    refused_at(&t, "\"long\"", "half_length");
    let t = capsule("{ position = [1.0, 0.0, 1.0], a = 0.1 },");
    refused_at(&t, "a = 0.1", "a");
    let t = capsule("{ position = [1.0, 0.0], half_length = 0.2 },");
    refused_at(&t, "[1.0, 0.0]", "position");
    let t = capsule("{ position = [1.0, 0.0, 1.0], axis = [1.0, 0.0] },");
    refused_at(&t, "axis", "axis");
    let t = listed(
        "sphere",
        "radius = 0.05\n",
        "{ position = [0.0, 0.0, 1.0], half_length = 0.2 },\n",
    );
    refused_at(&t, "half_length", "half_length");
    let t = listed(
        "ellipse",
        "a = 0.1\nb = 0.05\n",
        "{ position = [0.0, 0.0, 1.0], radius = 0.2 },\n",
    );
    refused_at(&t, "radius = 0.2", "radius");
}

#[test]
fn the_engine_refusing_a_bulk_joint_names_the_table_key() {
    let t = linked("\n[[joints]]\nkind = \"hinge\"\nring = \"beads\"\naxis = [0.0, 0.0, 0.0]\n");
    let e = match Scene::parse(Path::new("s.toml"), &t).and_then(|s| s.world(Some(1)).map(|_| ())) {
        Err(e) => e.to_string(),
        Ok(()) => panic!("accepted"),
    };
    let want = format!("s.toml:{}: key `axis`", line_of(&t, "axis ="));
    assert!(e.starts_with(&want), "{e}");
}

#[test]
fn the_shipped_whirled_chain_joins_its_capsules_end_to_end() {
    let s = Scene::load("../scenes/whirled_chain.toml").unwrap();
    let joints = s.builder().joints();
    assert_eq!(joints.len(), 8);
    for (k, j) in joints[..7].iter().enumerate() {
        assert_eq!((j.a, j.b), (k + 1, Some(k)));
        assert!((j.anchor.x - 0.12 * (k + 1) as f32).abs() < 1e-6, "{j:?}");
        assert!(!j.collide);
    }
    let mut w = s.world(Some(1)).unwrap();
    w.run(50).unwrap();
    for j in 0..w.joint_count() {
        assert!(
            w.joint_violation(j).0 < 1e-4,
            "joint {j}: {:?}",
            w.joint_violation(j)
        );
    }
}

/// Capsules are solid: in planar mode the flat stadium's moment about y (one scalar), and a
/// given `inertia` replaces the shape's moments by one moment about every axis.
#[test]
fn capsules_take_the_solid_inertia_or_the_given_one() {
    let t = listed(
        "capsule",
        "radius = 0.05
half_length = 0.1
",
        "{ position = [0.0, 0.0, 1.0] },
",
    );
    let planar = t.replace(
        "h = 0.001
",
        "h = 0.001
planar = true
",
    );
    let s = Scene::parse(Path::new("s.toml"), &planar).unwrap();
    let b = s.builder().bodies()[0];
    assert_eq!(b.principal_moments, None, "planar: one scalar");
    assert_eq!(b.inertia, grains::stadium_moment(0.05, 0.1, b.mass));
    let given = t.replace(
        "half_length = 0.1
",
        "half_length = 0.1
inertia = 0.25
",
    );
    let s = Scene::parse(Path::new("s.toml"), &given).unwrap();
    let b = s.builder().bodies()[0];
    assert_eq!(
        (b.principal_moments, b.inertia),
        (None, 0.25),
        "given inertia"
    );
}

/// `shape = "cube"`: the body's radius is the half-edge, the mass ρ (2 r)³, the inertia
/// 2/3 m r², turned by `axis`; refused in planar mode and with a key cubes do not use.
#[test]
fn cubes_take_their_half_edge_from_the_radius() {
    use grains::body::Shape;
    let t = listed(
        "cube",
        "radius = 0.05\n",
        "{ position = [0.0, 0.0, 1.0] },\n{ position = [1.0, 0.0, 1.0], radius = 0.1, axis = [0.0, 1.0, 0.0] },\n",
    );
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    let b = s.builder().bodies();
    let half = glam::Vec3::splat(0.05);
    assert_eq!(b[0].shape, Shape::Cuboid { half_extents: half });
    assert!((b[0].mass - 1000.0 * 0.1f32.powi(3)).abs() < 1e-6);
    assert!((b[0].inertia - 2.0 / 3.0 * b[0].mass * 0.05 * 0.05).abs() < 1e-9);
    assert_eq!(b[1].radius, 0.1);
    assert!((b[1].orientation * glam::Vec3::X - glam::Vec3::Y).length() < 1e-6);
    let t = listed(
        "cube",
        "radius = 0.05\nhalf_length = 0.1\n",
        "{ position = [0.0, 0.0, 1.0] },\n",
    );
    refused_at(&t, "half_length = 0.1", "half_length");
    let planar = t
        .replace("half_length = 0.1\n", "")
        .replace("h = 0.001\n", "h = 0.001\nplanar = true\n");
    refused_at(&planar, "\"cube\"", "shape");
}

/// `shape = "box"`: `half_extents` (per entry too) set the shape, the mass ρ 8abc and the
/// principal moments m (b² + c²)/3, …; `radius`, `inertia` and bad half-extents are refused at
/// their lines.
#[test]
fn boxes_take_their_half_extents_and_principal_moments() {
    use glam::Vec3;
    use grains::body::Shape;
    let t = listed(
        "box",
        "half_extents = [0.1, 0.05, 0.02]\n",
        "{ position = [0.0, 0.0, 1.0] },\n{ position = [1.0, 0.0, 1.0], half_extents = [0.2, 0.2, 0.1] },\n",
    );
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    let b = s.builder().bodies();
    let half = Vec3::new(0.1, 0.05, 0.02);
    assert_eq!(b[0].shape, Shape::Cuboid { half_extents: half });
    let m = 1000.0 * 8.0 * 0.1 * 0.05 * 0.02;
    assert!((b[0].mass - m).abs() < 1e-6 * m);
    let want = Vec3::new(
        0.05 * 0.05 + 0.02 * 0.02,
        0.1 * 0.1 + 0.02 * 0.02,
        0.1 * 0.1 + 0.05 * 0.05,
    ) * (m / 3.0);
    let got = b[0]
        .principal_moments
        .expect("a box carries its principal moments");
    assert!(
        (got - want).abs().max_element() < 1e-6 * want.max_element(),
        "{got} vs {want}"
    );
    assert_eq!(b[0].radius, 0.02, "the smallest half-extent");
    assert_eq!(
        b[1].shape,
        Shape::Cuboid {
            half_extents: Vec3::new(0.2, 0.2, 0.1)
        }
    );
    let boxed = |keys: &str| listed("box", keys, "{ position = [0.0, 0.0, 1.0] },\n");
    refused_at(
        &boxed("half_extents = [0.1, 0.05, 0.02]\nradius = 0.1\n"),
        "radius = 0.1",
        "radius",
    );
    refused_at(
        &boxed("half_extents = [0.1, 0.05, 0.02]\ninertia = 0.1\n"),
        "inertia = 0.1",
        "inertia",
    );
    refused_at(
        &boxed("half_extents = [0.1, 0.0, 0.02]\n"),
        "[0.1, 0.0, 0.02]",
        "half_extents",
    );
    refused_at(
        &boxed("half_extents = [0.1, 0.05]\n"),
        "[0.1, 0.05]",
        "half_extents",
    );
    refused_at(
        &listed(
            "cube",
            "radius = 0.1\nhalf_extents = [0.1, 0.1, 0.1]\n",
            "{ position = [0.0, 0.0, 1.0] },\n",
        ),
        "half_extents",
        "half_extents",
    );
}

/// `shape = "ellipsoid"`: `semi_axes` (per entry too) set the shape, the mass ρ 4/3 π abc and
/// the principal moments m (b² + c²)/5, …; `radius`, `inertia`, bad semi-axes, `semi_axes` on
/// another shape and planar mode are refused at their lines.
#[test]
fn ellipsoids_take_their_semi_axes_and_principal_moments() {
    use glam::Vec3;
    use grains::body::Shape;
    let t = listed(
        "ellipsoid",
        "semi_axes = [0.1, 0.05, 0.02]\n",
        "{ position = [0.0, 0.0, 1.0] },\n{ position = [1.0, 0.0, 1.0], semi_axes = [0.2, 0.2, 0.1] },\n",
    );
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    let b = s.builder().bodies();
    let semi = Vec3::new(0.1, 0.05, 0.02);
    assert_eq!(b[0].shape, Shape::Ellipsoid { semi_axes: semi });
    let m = 1000.0 * 4.0 / 3.0 * std::f32::consts::PI * 0.1 * 0.05 * 0.02;
    assert!((b[0].mass - m).abs() < 1e-6 * m);
    let want = Vec3::new(
        0.05 * 0.05 + 0.02 * 0.02,
        0.1 * 0.1 + 0.02 * 0.02,
        0.1 * 0.1 + 0.05 * 0.05,
    ) * (m / 5.0);
    let got = b[0]
        .principal_moments
        .expect("an ellipsoid carries its principal moments");
    assert!(
        (got - want).abs().max_element() < 1e-6 * want.max_element(),
        "{got} vs {want}"
    );
    assert_eq!(b[0].radius, 0.02, "the smallest semi-axis");
    assert_eq!(
        b[1].shape,
        Shape::Ellipsoid {
            semi_axes: Vec3::new(0.2, 0.2, 0.1)
        }
    );
    let one = |keys: &str| listed("ellipsoid", keys, "{ position = [0.0, 0.0, 1.0] },\n");
    refused_at(
        &one("semi_axes = [0.1, 0.05, 0.02]\nradius = 0.1\n"),
        "radius = 0.1",
        "radius",
    );
    refused_at(
        &one("semi_axes = [0.1, 0.05, 0.02]\ninertia = 0.1\n"),
        "inertia = 0.1",
        "inertia",
    );
    refused_at(
        &one("semi_axes = [0.1, -0.05, 0.02]\n"),
        "[0.1, -0.05, 0.02]",
        "semi_axes",
    );
    refused_at(&one(""), "\"ellipsoid\"", "semi_axes");
    refused_at(
        &listed(
            "ellipsoid",
            "semi_axes = [0.1, 0.05, 0.02]\n",
            "{ position = [0.0, 0.0, 1.0], radius = 0.1 },\n",
        ),
        "radius = 0.1",
        "radius",
    );
    refused_at(
        &listed(
            "cube",
            "radius = 0.1\n",
            "{ position = [0.0, 0.0, 1.0], semi_axes = [0.1, 0.1, 0.1] },\n",
        ),
        "semi_axes",
        "semi_axes",
    );
    let planar =
        one("semi_axes = [0.1, 0.05, 0.02]\n").replace("h = 0.001\n", "h = 0.001\nplanar = true\n");
    refused_at(&planar, "\"ellipsoid\"", "shape");
}

/// `listed("clump", …)` with the template table `[clumps.pair]` (`template`) after it.
fn clumped(keys: &str, entries: &str, template: &str) -> String {
    format!(
        "{}\n[clumps.pair]\n{template}",
        listed("clump", keys, entries)
    )
}

/// `shape = "clump"` with `clump = "pair"`: the body is a clump of the `[clumps.pair]` template
/// at its centre of mass, with the union's mass ρ (2 · 4/3 π r³ − lens) and principal
/// moments (the axial one the smaller), turned by `axis`; the smallest member's radius.
#[test]
fn clumps_take_their_template_mass_and_principal_moments() {
    use grains::body::Shape;
    let t = clumped(
        "clump = \"pair\"\n",
        "{ position = [0.0, 0.0, 1.0] },\n{ position = [1.0, 0.0, 1.0], axis = [0.0, 1.0, 0.0] },\n",
        "rod = { spheres = 2, radius = 0.05, spacing = 0.08 }\n",
    );
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    let b = s.builder().bodies();
    assert!(
        matches!(b[0].shape, Shape::Clump { template: 0, .. }),
        "{:?}",
        b[0].shape
    );
    assert_eq!(b[0].position, glam::Vec3::new(0.0, 0.0, 1.0));
    assert_eq!(b[0].radius, 0.05);
    let (r, d) = (0.05f64, 0.08f64);
    let lens = std::f64::consts::PI * (4.0 * r + d) * (2.0 * r - d).powi(2) / 12.0;
    let m = 1000.0 * (8.0 / 3.0 * std::f64::consts::PI * r.powi(3) - lens);
    assert!(
        (b[0].mass as f64 - m).abs() < 2e-5 * m,
        "{} vs {m}",
        b[0].mass
    );
    let moments = b[0]
        .principal_moments
        .expect("a clump carries its principal moments");
    assert!(moments.x < moments.y && (moments.y - moments.z).abs() < 1e-6 * moments.y);
    assert!((b[1].orientation * glam::Vec3::X - glam::Vec3::Y).length() < 1e-6);
    s.world(Some(1)).unwrap();
}

/// Bad clump input is refused at its line: no `clump`, an unknown one, `clump` on a sphere,
/// `radius` or `inertia` on a clump, a bad sphere, nine spheres, both or neither of `spheres`
/// and `rod`, a clump in planar mode.
#[test]
fn bad_clump_input_is_refused_at_its_line() {
    let rod = "rod = { spheres = 2, radius = 0.05, spacing = 0.08 }\n";
    let entry = "{ position = [0.0, 0.0, 1.0] },\n";
    refused_at(&clumped("", entry, rod), "\"clump\"", "clump");
    let t = clumped("clump = \"triple\"\n", entry, rod);
    assert!(refused_at(&t, "\"triple\"", "clump").contains("defined: pair"));
    let t = listed("sphere", "radius = 0.1\nclump = \"pair\"\n", entry);
    refused_at(&t, "clump = ", "clump");
    refused_at(
        &clumped("clump = \"pair\"\nradius = 0.1\n", entry, rod),
        "radius = 0.1",
        "radius",
    );
    refused_at(
        &clumped("clump = \"pair\"\ninertia = 0.1\n", entry, rod),
        "inertia = 0.1",
        "inertia",
    );
    let t = clumped(
        "clump = \"pair\"\n",
        entry,
        "spheres = [[0.0, 0.0, 0.0, 0.05], [0.1, 0.0, 0.0, -0.05]]\n",
    );
    assert!(refused_at(&t, "spheres = ", "spheres").contains("sphere 1"));
    let nine = format!("spheres = [{}]\n", ["[0.0, 0.0, 0.0, 0.05]"; 9].join(", "));
    refused_at(
        &clumped("clump = \"pair\"\n", entry, &nine),
        "spheres = ",
        "spheres",
    );
    let both = format!("spheres = [[0.0, 0.0, 0.0, 0.05]]\n{rod}");
    refused_at(
        &clumped("clump = \"pair\"\n", entry, &both),
        "spheres = ",
        "spheres",
    );
    let t = clumped("clump = \"pair\"\n", entry, "");
    refused_at(&t, "[clumps.pair]", "clumps.pair");
    let planar = clumped("clump = \"pair\"\n", entry, rod)
        .replace("h = 0.001\n", "h = 0.001\nplanar = true\n");
    refused_at(&planar, "\"clump\"", "shape");
}

/// `shape = "polyhedron"`: `vertices` give the hull, the mass ρ V (a box of points: ρ 8abc)
/// and its principal moments; fewer than four points, a flat cloud, `vertices` on another
/// shape, a missing `vertices` and `radius` are refused at their lines.
#[test]
fn polyhedra_take_the_hull_of_their_vertices() {
    use grains::body::Shape;
    let corners = "vertices = [[0.1, 0.05, 0.02], [-0.1, 0.05, 0.02], [0.1, -0.05, 0.02], [-0.1, -0.05, 0.02], [0.1, 0.05, -0.02], [-0.1, 0.05, -0.02], [0.1, -0.05, -0.02], [-0.1, -0.05, -0.02]]\n";
    let t = listed(
        "polyhedron",
        corners,
        "{ position = [0.0, 0.0, 1.0] },\n{ position = [1.0, 0.0, 1.0] },\n",
    );
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    let b = s.builder().bodies();
    assert!(matches!(b[0].shape, Shape::Polyhedron { hull: 0, .. }));
    assert_eq!(b[0].shape, b[1].shape);
    let m = 1000.0 * 8.0 * 0.1 * 0.05 * 0.02;
    assert!((b[0].mass - m).abs() < 1e-5 * m, "{}", b[0].mass);
    let got = b[0].principal_moments.expect("unequal moments");
    let want = (0.05f32 * 0.05 + 0.02 * 0.02) * m / 3.0;
    assert!((got.x - want).abs() < 1e-5 * want, "{got}");
    assert_eq!(s.builder().hulls().len(), 1);
    let poly = |keys: &str| listed("polyhedron", keys, "{ position = [0.0, 0.0, 1.0] },\n");
    refused_at(
        &poly("vertices = [[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.1, 0.0]]\n"),
        "vertices = [[0.0, 0.0, 0.0], [0.1",
        "vertices",
    );
    refused_at(
        &poly("vertices = [[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.1, 0.1, 0.0]]\n"),
        "vertices = [[0.0, 0.0, 0.0], [0.1",
        "vertices",
    );
    refused_at(
        &poly(&format!("{corners}radius = 0.1\n")),
        "radius = 0.1",
        "radius",
    );
    refused_at(&poly(""), "\"polyhedron\"", "vertices");
    refused_at(
        &listed(
            "cube",
            &format!("radius = 0.05\n{corners}"),
            "{ position = [0.0, 0.0, 1.0] },\n",
        ),
        "vertices = ",
        "vertices",
    );
}

/// Two polyhedra whose hulls overlap at the start are refused at load, naming both bodies and
/// the overlap (the start check measures them with the narrow phase's own pair routine); two
/// whose bounding spheres overlap but whose hulls are apart load.
#[test]
fn overlapping_polyhedra_are_refused_at_load() {
    // Two 0.2 × 0.1 × 0.04 m boxes of points side by side along x: 0.15 m apart their hulls
    // overlap, 0.05 m along x and wholly along y and z, so the least push that parts them is
    // the 0.04 m thickness; 0.21 m apart they are 1 cm clear, within their bounding spheres'
    // reach.
    let corners = "vertices = [[0.1, 0.05, 0.02], [-0.1, 0.05, 0.02], [0.1, -0.05, 0.02], [-0.1, -0.05, 0.02], [0.1, 0.05, -0.02], [-0.1, 0.05, -0.02], [0.1, -0.05, -0.02], [-0.1, -0.05, -0.02]]\n";
    let pair = |x: &str| {
        listed(
            "polyhedron",
            corners,
            &format!("{{ position = [0.0, 0.0, 1.0] }},\n{{ position = [{x}, 0.0, 1.0] }},\n"),
        )
    };
    let msg = refused_at(&pair("0.15"), "generator = \"list\"", "bodies");
    assert!(
        msg.contains("bodies 0 and 1 overlap by 4.000e-2 m"),
        "{msg}"
    );
    Scene::parse(Path::new("s.toml"), &pair("0.21")).unwrap();
}

/// Parses and builds `text`; asserts the build is refused with one line naming the file, the
/// line of `needle` and `key`.
fn built_refused_at(text: &str, needle: &str, key: &str) -> String {
    let s = Scene::parse(Path::new("s.toml"), text).unwrap();
    let Err(e) = s.world(Some(1)) else {
        panic!("built");
    };
    let msg = e.to_string();
    assert_eq!(msg.lines().count(), 1, "not one line: {msg}");
    let want = format!("s.toml:{}: key `{key}`", line_of(text, needle));
    assert!(msg.starts_with(&want), "expected `{want}` in: {msg}");
    msg
}

/// `max_iterations = 4000000000` with `tolerance = 0` swept for hours (on the GPU: 4e9
/// dispatches in one command buffer); refused at build, naming the key and the bound, as is a
/// Coulomb correction that multiplies the sweeps past it.
#[test]
fn sweeps_beyond_the_bound_are_refused_at_their_key() {
    let t = with(
        "h = 0.01",
        "h = 0.01\nmax_iterations = 4000000000\ntolerance = 0.0",
    );
    let msg = built_refused_at(&t, "max_iterations", "max_iterations");
    assert!(msg.contains("at most 100000"), "{msg}");
    let t = with(
        "h = 0.01",
        "h = 0.01\nmax_iterations = 20000\ncoulomb_correction = 4000000000",
    );
    let msg = built_refused_at(&t, "coulomb_correction", "coulomb_correction");
    assert!(msg.contains("100000"), "{msg}");
    let t = with("h = 0.01", "h = 0.01\nmax_iterations = 100000");
    Scene::parse(Path::new("s.toml"), &t)
        .unwrap()
        .world(Some(1))
        .unwrap();
}

/// `position_correction` acts on rigid contact only: beside the granular preset's compliant
/// contact it is refused at its key, naming both; with `contact_frequency = "inf"` it builds;
/// with the step's sweeps it may not pass the bound of sweeps a step.
#[test]
fn the_position_correction_is_refused_beside_compliant_contact_and_past_the_bound() {
    let t = with("h = 0.01", "h = 0.01\nposition_correction = 30");
    let msg = built_refused_at(&t, "position_correction", "position_correction");
    assert!(msg.contains("compliant contact"), "{msg}");
    let rigid = "h = 0.01\ncontact_frequency = \"inf\"\nposition_correction = 30";
    let t = with("h = 0.01", rigid);
    let s = Scene::parse(Path::new("s.toml"), &t).unwrap();
    assert_eq!(s.settings().position_correction, 30);
    s.world(Some(1)).unwrap();
    let t = with("h = 0.01", &rigid.replace("= 30", "= 99990"));
    let msg = built_refused_at(&t, "position_correction", "position_correction");
    assert!(msg.contains("100000"), "{msg}");
    let t = with("h = 0.01", "h = 0.01\nposition_correction = -1");
    refused(
        &t,
        line_of(&t, "position_correction"),
        "position_correction",
    );
}

/// A lattice's `jitter` is a fraction of the radius: beyond spacing / (2 r) a grain leaves its
/// cell (1e9 scattered the grains over kilometres); refused at its key.
#[test]
fn a_jitter_beyond_half_the_spacing_is_refused() {
    let lattice = |jitter: &str| {
        GOOD.replace(
            "generator = \"single\"\nname = \"ball\"\nradius = 0.1\ndensity = 1000.0\nposition = [0.0, 0.0, 0.2]",
            &format!(
                "generator = \"lattice\"\nname = \"ball\"\nradius = 0.01\ndensity = 1000.0\norigin = [-0.2, -0.2, 0.02]\nspacing = 0.03\ncounts = [3, 3, 2]\njitter = {jitter}\nseed = 7"
            ),
        )
    };
    let msg = refused_at(&lattice("1e9"), "jitter", "jitter");
    assert!(msg.contains("at most spacing / (2 r) = 1.5"), "{msg}");
    Scene::parse(Path::new("s.toml"), &lattice("0.2"))
        .unwrap()
        .world(Some(1))
        .unwrap();
}

/// A body placed beside the box is refused at build at its generator's position key; with
/// `[settings.health] escape = "off"` (an open domain) it is built; a bad value is refused.
#[test]
fn grains_outside_the_walls_are_refused_unless_the_domain_is_open() {
    let t = with("position = [0.0, 0.0, 0.2]", "position = [3.0, 0.0, 0.2]");
    let msg = built_refused_at(&t, "position = [3.0", "position");
    assert!(msg.contains("outside the box the walls enclose"), "{msg}");
    let open = t.replace(
        "h = 0.01",
        "h = 0.01\n\n[settings.health]\nescape = \"off\"",
    );
    Scene::parse(Path::new("s.toml"), &open)
        .unwrap()
        .world(Some(1))
        .unwrap();
    let bad = open.replace("escape = \"off\"", "escape = \"maybe\"");
    assert!(refused_at(&bad, "escape =", "escape").contains("\"stop\", \"warn\" or \"off\""));
}

/// `GOOD` with a lid: a plane facing down at z = 0.5 with `servo`.
fn with_lid(servo: &str) -> String {
    with(
        "[[bodies]]",
        &format!(
            "[[containers]]\nkind = \"plane\"\npoint = [0.0, 0.0, 0.5]\nnormal = [0.0, 0.0, -1.0]\n{servo}\n\n[[bodies]]"
        ),
    )
}

#[test]
fn a_servo_lid_builds_and_its_bad_keys_are_refused_at_their_line() {
    let good = with_lid("servo = { force = 5.0, gain = 1e-4, max_speed = 0.05 }");
    let s = Scene::parse(Path::new("s.toml"), &good).unwrap();
    let w = s.world(Some(1)).unwrap();
    let lid = w.wall_descs().len() - 1;
    let servo = w.wall_descs()[lid].servo.unwrap();
    assert_eq!(
        (servo.force, servo.gain, servo.max_speed),
        (5.0, 1e-4, 0.05)
    );
    for (bad, key, words) in [
        ("force = -5.0", "servo.force", "not negative"),
        ("gain = 0.0", "servo.gain", "finite and positive, got 0"),
        (
            "max_speed = nan",
            "servo.max_speed",
            "finite and positive, got NaN",
        ),
    ] {
        let what = bad.split(' ').next().unwrap();
        let from = match what {
            "force" => "force = 5.0",
            "gain" => "gain = 1e-4",
            _ => "max_speed = 0.05",
        };
        let t = good.replacen(from, bad, 1);
        let msg = refused_at(&t, "servo = {", key);
        assert!(msg.contains(words), "{msg}");
    }
    let t = with_lid("servo = { force = 5.0, gain = 1e-4, max_speed = 0.05 }\nshaker = \"slide\"");
    let msg = refused_at(&t, "servo = {", "servo");
    assert!(msg.contains("shaker"), "{msg}");
    let t = with_lid("servo = { force = 5.0, gain = 1e-4 }");
    refused_at(&t, "servo = {", "max_speed");
    let t = with(
        "height = 1.0",
        "height = 1.0\nservo = { force = 5.0, gain = 1e-4, max_speed = 0.05 }",
    );
    let msg = refused_at(&t, "servo = {", "servo");
    assert!(msg.contains("not used by `box`"), "{msg}");
}
