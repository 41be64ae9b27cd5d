//! `[[meshes]]`: STL files read, checked and placed; each bad file refused at the line of its
//! `file` key naming the STL file (and the triangle); a named mesh's `wall_force` carries the
//! grains' weight, clumps', ellipsoids' and boxes' too; the shipped mixer blade loads and turns.

use grains::Vec3;
use grains_app::runner::sample;
use grains_app::scene::{Scene, SceneError};
use grains_app::stl::{ascii_stl, read_stl};
use std::path::{Path, PathBuf};

const G: f64 = 9.81;

/// A fresh folder for one test's files.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-mesh-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The shipped meshes' folder.
fn shipped(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenes/meshes")
        .join(file)
}

/// A scene with one mesh of `mesh_keys` (its `file` on line 12) and `rest` after it.
fn scene(mesh_keys: &str, rest: &str) -> String {
    format!(
        r#"[scene]
name = "mesh"
duration = 0.1

[settings]
preset = "rigid"
h = 0.001
tolerance = 1e-9

[[meshes]]
name = "floor"
{mesh_keys}
{rest}"#
    )
}

/// Loads `text` as `scene.toml` in `dir`.
fn load(dir: &Path, text: &str) -> Result<Scene, SceneError> {
    let path = dir.join("scene.toml");
    std::fs::write(&path, text).unwrap();
    Scene::load(&path)
}

/// A binary STL of `count` triangles as its header says, holding only `written` of them.
fn binary_stl(count: u32, written: u32) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    b.extend_from_slice(&count.to_le_bytes());
    for k in 0..written {
        let z = k as f32;
        for v in [[0.0, 0.0, 1.0], [0.0, 0.0, z], [1.0, 0.0, z], [0.0, 1.0, z]] {
            for x in v {
                b.extend_from_slice(&f32::to_le_bytes(x));
            }
        }
        b.extend_from_slice(&[0, 0]);
    }
    b
}

/// A bad STL case: its file name, its bytes (none: the file is missing) and words the error
/// must hold.
type Case = (&'static str, Option<Vec<u8>>, [&'static str; 2]);

#[test]
fn bad_stl_files_are_refused_at_the_file_key() {
    let dir = tmp("bad");
    let good = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let ascii = |t: &[[Vec3; 3]]| ascii_stl("t", t).into_bytes();
    let nan = ascii(&[good, [Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0), Vec3::Y]]);
    let inf = ascii(&[
        good,
        [Vec3::ZERO, Vec3::X, Vec3::new(0.0, f32::INFINITY, 0.0)],
    ]);
    let flat = ascii(&[good, [Vec3::ZERO, Vec3::X, 2.0 * Vec3::X]]);
    // A NaN or infinite vertex of an ASCII file is refused by the reader itself, a binary
    // file's by the check after it: both name the triangle and say "finite".
    let mut binary_nan = binary_stl(2, 2);
    binary_nan[84 + 50 + 12..84 + 50 + 16].copy_from_slice(&f32::NAN.to_le_bytes());
    let cases: [Case; 7] = [
        ("missing.stl", None, ["cannot read STL", ""]),
        (
            "truncated.stl",
            Some(binary_stl(5, 2)),
            ["not an STL file", "truncated"],
        ),
        ("nan.stl", Some(nan), ["triangle 1: ", "finite"]),
        ("inf.stl", Some(inf), ["triangle 1: ", "finite"]),
        (
            "binary_nan.stl",
            Some(binary_nan),
            ["triangle 1: ", "finite"],
        ),
        (
            "flat.stl",
            Some(flat),
            ["triangle 1: vertices have zero area", ""],
        ),
        ("empty.stl", Some(ascii(&[])), ["empty", ""]),
    ];
    for (file, bytes, words) in cases {
        if let Some(b) = bytes {
            std::fs::write(dir.join(file), b).unwrap();
        }
        let text = scene(&format!("file = \"{file}\""), "");
        match load(&dir, &text) {
            Err(SceneError::Invalid {
                line, key, problem, ..
            }) => {
                assert_eq!((line, key.as_str()), (12, "file"), "{file}: {problem}");
                assert!(problem.contains(file), "{file}: {problem}");
                for w in words {
                    assert!(problem.contains(w), "{file}: {problem}");
                }
            }
            other => panic!("{file}: expected an error at `file`, got {other:?}"),
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The one-line error of loading a scene whose mesh `file` is `stl`, at the `file` key
/// (line 12), within `limit` of wall time.
fn refusal(dir: &Path, stl: &str, limit: std::time::Duration) -> String {
    let text = scene(&format!("file = \"{stl}\""), "");
    let start = std::time::Instant::now();
    let result = load(dir, &text);
    assert!(start.elapsed() < limit, "{stl}: {:?}", start.elapsed());
    match result {
        Err(e @ SceneError::Invalid { .. }) => {
            let line = e.to_string();
            assert!(!line.contains('\n'), "{line}");
            assert!(line.contains("scene.toml:12: key `file`"), "{line}");
            assert!(line.contains(stl), "{line}");
            line
        }
        other => panic!("{stl}: expected an error at `file`, got {other:?}"),
    }
}

#[test]
fn stl_paths_to_devices_fifos_and_folders_are_refused_before_they_are_read() {
    let dir = tmp("special");
    let second = std::time::Duration::from_secs(1);
    // A device that never ends aborted the process (a 4 GiB allocation) before.
    let zero = refusal(&dir, "/dev/zero", second);
    assert!(zero.contains("not a regular file (a device)"), "{zero}");
    let folder = refusal(&dir, "/tmp", second);
    assert!(
        folder.contains("not a regular file (a directory)"),
        "{folder}"
    );
    // A FIFO with no writer blocked for ever in `open` before.
    let fifo = dir.join("fifo.stl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let line = refusal(&dir, "fifo.stl", second);
        assert!(line.contains("not a regular file (a FIFO)"), "{line}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn stl_files_over_the_cap_or_with_a_false_count_are_refused_unread() {
    let dir = tmp("bounds");
    let second = std::time::Duration::from_secs(1);
    // A sparse file one byte over the cap: refused by its size, before a byte is read.
    let big = std::fs::File::create(dir.join("big.stl")).unwrap();
    big.set_len(grains_app::stl::MAX_STL_BYTES + 1).unwrap();
    let line = refusal(&dir, "big.stl", second);
    assert!(line.contains("larger than 64 MiB"), "{line}");
    // A header declaring 2^32 - 1 triangles over none: refused by the size, nothing allocated.
    std::fs::write(dir.join("count.stl"), binary_stl(u32::MAX, 0)).unwrap();
    let line = refusal(&dir, "count.stl", second);
    assert!(line.contains("not an STL file"), "{line}");
    // Two triangles more than the header declares are not read as a mesh either.
    let mut extra = binary_stl(1, 3);
    extra.truncate(84 + 150);
    std::fs::write(dir.join("extra.stl"), extra).unwrap();
    let line = refusal(&dir, "extra.stl", second);
    assert!(line.contains("not an STL file"), "{line}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_file_that_is_not_stl_is_refused_without_its_bytes() {
    let dir = tmp("foreign");
    // Text of another format (a password file's shape, with a control character) and a
    // binary blob whose bytes, read as triangles, are finite floats.
    let secret =
        "root:$6$SECRETSALT$hash:19000:0:99999:7:::\x1b[31m\ndaemon:*:19000:0:99999:7:::\n";
    std::fs::write(dir.join("shadow"), secret.repeat(3)).unwrap();
    let blob: Vec<u8> = (0..1000u32)
        .flat_map(|k| (1.0 + k as f32).to_le_bytes())
        .collect();
    std::fs::write(dir.join("blob.bin"), blob).unwrap();
    for file in ["shadow", "blob.bin"] {
        let line = refusal(&dir, file, std::time::Duration::from_secs(1));
        assert!(line.contains("not an STL file"), "{line}");
        for leak in ["SECRET", "root", "\x1b", "vertices", "triangle 0"] {
            assert!(!line.contains(leak), "{file}: `{leak}` in {line}");
        }
    }
    // The shipped (ASCII) floor still reads: 288 triangles.
    assert_eq!(read_stl(&shipped("floor_288.stl")).unwrap().len(), 288);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_shipped_floor_is_read_with_its_triangles() {
    let floor = read_stl(&shipped("floor_288.stl")).unwrap();
    assert_eq!(floor.len(), 288);
    let top = floor
        .iter()
        .flatten()
        .map(|p| p.z.abs())
        .fold(0.0, f32::max);
    assert_eq!(top, 0.0, "a flat floor at z = 0");
}

#[test]
fn grains_on_a_named_mesh_floor_load_its_wall_force_with_their_weight() {
    // 16 spheres apart from each other on the shipped floor scaled to 0.4 m and tilted by
    // nothing: each rests on one triangle, edge or vertex; the mesh's `wall_force` is minus
    // their weight (to 1e-4: rigid contact solved to 1e-9 m/s).
    let dir = tmp("floor");
    let floor = shipped("floor_288.stl");
    let list: Vec<String> = (0..16)
        .map(|k| {
            let (x, y) = ((k % 4) as f32 * 0.08 - 0.12, (k / 4) as f32 * 0.08 - 0.12);
            format!("{{ position = [{x}, {y}, 0.01] }}")
        })
        .collect();
    let rest = format!(
        r#"
[[bodies]]
generator = "list"
radius = 0.01
mass = 0.05
list = [{}]

[[observables]]
kind = "wall_force"
wall = "floor"
"#,
        list.join(", ")
    );
    let keys = format!(
        "file = \"{}\"\nscale = 0.4\ntranslate = [0.0, 0.0, 0.0]",
        floor.display()
    );
    let text = scene(&keys, &rest);
    let scene = load(&dir, &text).unwrap();
    let mut world = scene.world(None).unwrap();
    world.run(300).unwrap();
    let force = sample(&scene, &world, &mut Vec::new())[0];
    let weight = 16.0 * 0.05 * G;
    assert!(
        (force + weight).abs() < 1e-4 * weight,
        "wall_force {force} against the weight {weight}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn shaped_grains_on_a_named_mesh_floor_load_its_wall_force_with_their_weight() {
    // Four dumbbell clumps, then four ellipsoids, then four boxes, laid level 1 mm above the
    // shipped floor (scaled to 0.4 m) on a lattice: each comes to rest on the triangles, edges
    // or vertices under it, and the mesh's `wall_force` is minus their weight (to 1e-4).
    let dir = tmp("shaped");
    let floor = shipped("floor_288.stl");
    let keys = format!("file = \"{}\"\nscale = 0.4", floor.display());
    let lattice = "generator = \"lattice\"\ndensity = 1000.0\norigin = [-0.05, -0.05, 0.021]\nspacing = 0.1\ncounts = [2, 2, 1]";
    let bodies = [
        format!(
            "[clumps.dumbbell]\nrod = {{ spheres = 2, radius = 0.02, spacing = 0.03 }}\n\n[[bodies]]\nshape = \"clump\"\nclump = \"dumbbell\"\n{lattice}"
        ),
        format!("[[bodies]]\nshape = \"ellipsoid\"\nsemi_axes = [0.04, 0.03, 0.02]\n{lattice}"),
        format!("[[bodies]]\nshape = \"box\"\nhalf_extents = [0.04, 0.03, 0.02]\n{lattice}"),
    ];
    for body in bodies {
        let rest =
            format!("\n{body}\n\n[[observables]]\nkind = \"wall_force\"\nwall = \"floor\"\n");
        let scene = load(&dir, &scene(&keys, &rest)).unwrap();
        let mut world = scene.world(None).unwrap();
        world.run(500).unwrap();
        let force = sample(&scene, &world, &mut Vec::new())[0];
        let weight: f64 = (0..world.len()).map(|i| world.mass(i) as f64 * G).sum();
        assert!(
            (force + weight).abs() < 1e-4 * weight,
            "{body}: wall_force {force} against the weight {weight}"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_shipped_mixer_blade_loads_and_turns() {
    // The blade turns at ω about z through the origin: after n steps of h a vertex off the axis
    // has turned by ω n h.
    let dir = tmp("blade");
    let keys = format!(
        "file = \"{}\"\nangular_speed = 2.0\naxis = [0.0, 0.0, 1.0]\naxis_point = [0.0, 0.0, 0.0]",
        shipped("mixer_blade.stl").display()
    );
    // A grain far from the blade, out of the way (and out of the domain the lone blade
    // encloses, so the escape check is off).
    let far = "[settings.health]\nescape = \"off\"\n\n[[bodies]]\ngenerator = \"single\"\nradius = 0.01\nmass = 0.01\nposition = [1.0, 1.0, 1.0]\n";
    let scene = load(&dir, &scene(&keys, far)).unwrap();
    let mut world = scene.world(None).unwrap();
    let before = world.mesh_triangles().to_vec();
    assert_eq!(before.len(), 240);
    world.run(100).unwrap();
    // The triangles placed for the last step are those of t = 99 h.
    let angle = 2.0f32 * 0.099;
    let turn = grains::Quat::from_rotation_z(angle);
    for (a, b) in before.iter().zip(world.mesh_triangles()) {
        for (p, q) in a.vertices().iter().zip(b.vertices()) {
            assert!((turn * *p - q).length() < 1e-5, "{p} turned to {q}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn mesh_keys_without_effect_or_partner_are_refused() {
    let dir = tmp("keys");
    let file = shipped("floor_288.stl");
    for (extra, key) in [
        ("axis = [0.0, 0.0, 1.0]", "axis"),
        ("rotate_axis = [0.0, 0.0, 1.0]", "rotate_axis"),
        ("angular_speed = 1.0\naxis = [0.0, 0.0, 1.0]", "axis_point"),
        ("scale = -1.0", "scale"),
    ] {
        let text = scene(&format!("file = \"{}\"\n{extra}", file.display()), "");
        match load(&dir, &text) {
            Err(SceneError::Invalid { key: k, .. }) => assert_eq!(k, key, "{extra}"),
            other => panic!("{extra}: expected an error at `{key}`, got {other:?}"),
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_engines_refusal_of_a_mesh_lands_on_its_key() {
    // The engine refuses a turning shaker on a mesh (a mesh turns by `angular_speed`); the
    // error names the scene file, the line of the mesh's `shaker` key and the key.
    let dir = tmp("refusal");
    let keys = format!(
        "file = \"{}\"\nshaker = \"spin\"",
        shipped("floor_288.stl").display()
    );
    let rest = r#"
[[shakers]]
name = "spin"
kind = "constant"
angular = [0.0, 0.0, 1.0]

[[bodies]]
generator = "single"
radius = 0.01
mass = 0.01
position = [0.0, 0.0, 0.5]
"#;
    let text = scene(&keys, rest);
    let scene = load(&dir, &text).unwrap();
    match scene.world(None) {
        Err(SceneError::Invalid {
            line, key, problem, ..
        }) => {
            assert_eq!((line, key.as_str()), (13, "shaker"), "{problem}");
            assert!(problem.contains("mesh 0"), "{problem}");
        }
        Err(e) => panic!("expected the refusal at `shaker`, got {e}"),
        Ok(_) => panic!("a turning shaker on a mesh was accepted"),
    }
    std::fs::remove_dir_all(dir).unwrap();
}
