//! Grains that come and go through the runner: a run cut short mid-feed resumes to the same
//! bits and the same files as an uninterrupted one (a feed of shaped grains, `clump_feed.toml`,
//! too, on another thread count), the frames' point count follows the grains with their ids,
//! and bad `[[insert]]` and `[[sink]]` tables are refused at their line and key.

use grains::Snapshot;
use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;
use std::path::{Path, PathBuf};

use crate::common;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-feed-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The tiny feed scene, edited by `edit`, written to `dir/file` and loaded.
fn scene(dir: &Path, file: &str, edit: impl Fn(String) -> String) -> Result<Scene, String> {
    let p = dir.join(file);
    std::fs::write(&p, edit(common::fixture("tiny_feed.toml"))).unwrap();
    Scene::load(&p).map_err(|e| e.to_string())
}

fn opts(out: &Path) -> RunOptions {
    RunOptions {
        threads: Some(1),
        ..RunOptions::new(out)
    }
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The checkpoint in `dir` without the runner's record (which holds wall-clock times).
fn state(dir: &Path) -> Snapshot {
    let mut s = Snapshot::from_bytes(&std::fs::read(dir.join("checkpoint.bin")).unwrap()).unwrap();
    s.extra.clear();
    s
}

/// The `NumberOfPoints` and the `id` values of a frame file.
fn points_and_ids(vtu: &str) -> (usize, Vec<u64>) {
    let n: usize = vtu
        .split("NumberOfPoints=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|s| s.parse().ok())
        .expect("a point count");
    let ids = vtu
        .split("Name=\"id\" format=\"ascii\">\n")
        .nth(1)
        .and_then(|s| s.split("</DataArray>").next())
        .expect("an id array")
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    (n, ids)
}

#[test]
fn a_run_cut_mid_feed_resumes_to_the_same_bits_and_files() {
    let base = tmp("resume");
    // ASCII frames, whose ids `points_and_ids` reads as text.
    let ascii = |t: String| t.replace("every = 100\n", "every = 100\nframe_encoding = \"ascii\"\n");
    let sc = scene(&base, "a.toml", ascii).unwrap();
    let (whole, cut) = (base.join("whole"), base.join("cut"));
    let full = run(&sc, &opts(&whole)).unwrap();
    let stopped = run(
        &sc,
        &RunOptions {
            stop_after: Some(230),
            ..opts(&cut)
        },
    )
    .unwrap();
    assert!(stopped.stopped_early);
    let mid = state(&cut);
    assert_eq!(mid.steps, 200, "the last checkpoint before the cut");
    assert!(
        mid.lifecycle.sinks[0].removed > 0,
        "grains left before the cut"
    );
    assert!(mid.lifecycle.insertions[0].placed > mid.bodies.len() as u64);
    let resumed = run(
        &sc,
        &RunOptions {
            resume: true,
            ..opts(&cut)
        },
    )
    .unwrap();
    assert_eq!(resumed.resumed_from_step, 200);
    assert_eq!(
        state(&cut),
        state(&whole),
        "the resumed run's state differs"
    );
    assert_eq!(
        read(&cut, "observables.csv"),
        read(&whole, "observables.csv")
    );
    assert_eq!(full.bodies, resumed.bodies);
    assert_eq!(
        full.bodies as u64,
        full.grains_inserted - full.grains_removed,
        "the summary's counts"
    );
    assert_eq!(full.grains_missed, 0);
    // The frames' point counts change with the grains, and their ids are the world's.
    let (n1, ids1) = points_and_ids(&read(&whole, "frames/frame_000000100.vtu"));
    let (n4, ids4) = points_and_ids(&read(&whole, "frames/frame_000000400.vtu"));
    assert_ne!(n1, n4, "the count changed");
    assert_eq!((ids1.len(), ids4.len()), (n1, n4));
    assert_eq!(ids4, state(&whole).ids);
    assert!(ids4.windows(2).all(|p| p[0] < p[1]));
    // The CSV's grain count is the bodies in the world at each sample, and the outflow mass
    // only grows.
    let csv = read(&whole, "observables.csv");
    let rows: Vec<Vec<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.last().unwrap()[2], full.bodies as f64);
    assert!(rows.windows(2).all(|r| r[1][3] >= r[0][3]));
    // The outflow rate is the outflow mass's growth over the sample interval (10 steps of 1 ms;
    // the world's h is the f32 nearest 1 ms, 5e-8 relative above it, hence the tolerance).
    for r in rows.windows(2) {
        let rate = (r[1][3] - r[0][3]) / 0.01;
        assert!((r[1][4] - rate).abs() <= 1e-7 * rate.abs(), "{r:?}");
    }
    std::fs::remove_dir_all(&base).unwrap();
}

/// `scenes/clump_feed.toml` (clumps fed into a box, a sink over a corner of its floor) places
/// every grain due, the sink takes some, and a run cut mid-feed and resumed on two threads ends
/// in the same state and CSV as the whole run on one.
#[test]
fn the_clump_feed_scene_cut_mid_feed_resumes_on_two_threads_to_the_same_bits() {
    let base = tmp("clumps");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/clump_feed.toml");
    let sc = Scene::load(&path).unwrap();
    let (whole, cut) = (base.join("whole"), base.join("cut"));
    let full = run(&sc, &opts(&whole)).unwrap();
    let stopped = RunOptions {
        stop_after: Some(330),
        ..opts(&cut)
    };
    assert!(run(&sc, &stopped).unwrap().stopped_early);
    let mid = state(&cut);
    assert_eq!(
        mid.steps, 300,
        "the last checkpoint before the cut, mid-feed"
    );
    assert!(
        mid.lifecycle.sinks[0].removed > 0,
        "grains left before the cut"
    );
    let two = RunOptions {
        resume: true,
        threads: Some(2),
        ..RunOptions::new(&cut)
    };
    let resumed = run(&sc, &two).unwrap();
    assert_eq!(resumed.resumed_from_step, 300);
    assert_eq!(
        state(&cut),
        state(&whole),
        "the resumed run's state differs"
    );
    assert_eq!(
        read(&cut, "observables.csv"),
        read(&whole, "observables.csv")
    );
    println!(
        "clump_feed: {} inserted, {} missed, {} removed, {} left",
        full.grains_inserted, full.grains_missed, full.grains_removed, full.bodies
    );
    assert_eq!((full.grains_inserted, full.grains_missed), (200, 0));
    assert!(full.grains_removed > 0);
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn bad_insert_and_sink_tables_name_their_line_and_key() {
    let base = tmp("errors");
    // (text, its replacement, the key named, what the message says); the line named is that of
    // the replacement's first line, or of `region = "box"` for the region's extents.
    let cases: [(&str, &str, &str, &str); 9] = [
        (
            "count_per_second = 1500",
            "count_per_second = 0",
            "count_per_second",
            "must be positive",
        ),
        (
            "count_per_second = 1500",
            "count_per_second = 1e9",
            "count_per_second",
            "cannot be placed",
        ),
        (
            "radius = { uniform = [0.002, 0.003] }",
            "radius = { uniform = [0.003, 0.002] }",
            "radius",
            "a < b",
        ),
        (
            "radius = { uniform = [0.002, 0.003] }",
            "radius = { normal = [0.002] }",
            "radius",
            "two numbers",
        ),
        (
            "radius = { uniform = [0.002, 0.003] }",
            "radius = { weibull = [1, 2] }",
            "radius",
            "unknown law",
        ),
        (
            "min = [-0.025, -0.025, 0.08]",
            "min = [-0.05, -0.025, 0.08]",
            "region",
            "outside the domain",
        ),
        (
            "radius = { uniform = [0.002, 0.003] }",
            "radius = 0.02",
            "region",
            "too small for its grains",
        ),
        (
            "shape = \"box\"\nmin = [-0.01",
            "shape = \"cone\"\nmin = [-0.01",
            "shape",
            "\"box\" or \"half_space\"",
        ),
        (
            "sink = \"outlet\"",
            "sink = \"drain\"",
            "sink",
            "no sink named",
        ),
    ];
    refused_at_their_keys(&base, &common::fixture("tiny_feed.toml"), &cases);
    std::fs::remove_dir_all(&base).unwrap();
}

/// Each case (text, its replacement, the key named, what the message says) of `cases` applied
/// to the scene `text` is refused, when read or built, in one line naming the file, the line of
/// the replacement's first line (of `region = "box"` for the region's extents) and the key.
fn refused_at_their_keys(base: &Path, text: &str, cases: &[(&str, &str, &str, &str)]) {
    for (k, &(from, to, key, what)) in cases.iter().enumerate() {
        let edited = |t: String| {
            assert!(t.contains(from), "{from}");
            t.replace(from, to)
        };
        let changed = edited(text.to_string());
        let anchor = if key == "region" {
            "region = \"box\""
        } else {
            to.lines().next().unwrap()
        };
        let line = changed.lines().position(|l| l.contains(anchor)).unwrap() + 1;
        let file = format!("bad{k}.toml");
        std::fs::write(base.join(&file), &changed).unwrap();
        let msg = match Scene::load(base.join(&file)) {
            Err(e) => e.to_string(),
            Ok(sc) => match sc.world(Some(1)) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("{to}: accepted"),
            },
        };
        let want = format!("{file}:{line}: key `{key}`");
        assert!(msg.contains(&want), "{to}: expected `{want}` in: {msg}");
        assert!(msg.contains(what), "{to}: expected `{what}` in: {msg}");
        assert!(!msg.contains('\n'), "{msg}");
    }
}

/// Bad shaped `[[insert]]` tables (edits of `scenes/clump_feed.toml`) are refused at their line
/// and key: a size law for a shaped grain, a truncation, an unknown template, a dimension of
/// another shape, and a shape the world cannot hold (ellipsoids on the GPU backend), at its
/// `shape` key.
#[test]
fn bad_shaped_insert_tables_name_their_line_and_key() {
    let base = tmp("shaped-errors");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/clump_feed.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let cases: [(&str, &str, &str, &str); 5] = [
        (
            "clump = \"pellet\"",
            "radius = { uniform = [0.002, 0.003] }\nclump = \"pellet\"",
            "radius",
            "one number",
        ),
        (
            "clump = \"pellet\"",
            "min_radius = 0.002\nclump = \"pellet\"",
            "min_radius",
            "used only by sphere feeds",
        ),
        (
            "clump = \"pellet\"",
            "clump = \"rock\"",
            "clump",
            "names no [clumps.rock] table",
        ),
        (
            "clump = \"pellet\"",
            "semi_axes = [0.004, 0.003, 0.002]\nclump = \"pellet\"",
            "semi_axes",
            "used only by shape = \"ellipsoid\"",
        ),
        (
            "shape = \"clump\"\nclump = \"pellet\"",
            "shape = \"box\"\nradius = 0.003",
            "half_extents",
            "missing",
        ),
    ];
    refused_at_their_keys(&base, &text, &cases);
    let on_gpu = text.replace(
        "h = 0.001",
        "h = 0.001\nbackend = \"gpu\"\nsolver = \"jacobi\"\ntolerance = 0.0",
    );
    let cases = [(
        "shape = \"clump\"\nclump = \"pellet\"",
        "shape = \"ellipsoid\"\nsemi_axes = [0.004, 0.003, 0.002]",
        "shape",
        "gives this world ellipsoids, which cannot be combined with the GPU backend",
    )];
    refused_at_their_keys(&base, &on_gpu, &cases);
    std::fs::remove_dir_all(&base).unwrap();
}

/// `grains run` prints the feed's counts and masses, those of `summary.json`, and warns on
/// standard error when grains due found no place (only then).
#[test]
fn the_run_prints_the_grains_inserted_missed_and_removed() {
    let base = tmp("print");
    let run = |name: &str, text: String, steps: &str| {
        let file = base.join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        let out = base.join(name);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_grains"))
            .args([
                "run",
                file.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .args(["--steps", steps])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let j: serde_json::Value = serde_json::from_str(&read(&out, "summary.json")).unwrap();
        (j, o)
    };
    let feed = common::fixture("tiny_feed.toml");
    // A shelf at the region's bottom: the grains pile up in the region, which fills, and
    // later grains due find no place.
    let flood = feed.replace(
        "[[insert]]",
        "[[containers]]\nkind = \"plane\"\npoint = [0.0, 0.0, 0.08]\nnormal = [0.0, 0.0, 1.0]\n\n[[insert]]",
    );
    for (name, text, missing) in [("feed", feed, false), ("flood", flood, true)] {
        let (j, o) = run(name, text, "400");
        let inserted = j["grains_inserted"].as_u64().unwrap();
        let missed = j["grains_missed"].as_u64().unwrap();
        assert!(inserted > 0, "the fixture feeds grains");
        assert_eq!(missed > 0, missing, "{name}: {missed} missed");
        // Each grain weighs 4/3 π r³ × 2500 kg/m³ with r in 2–3 mm.
        let kg = j["grains_inserted_kg"].as_f64().unwrap();
        let c = 4.0 / 3.0 * std::f64::consts::PI * 2500.0 * inserted as f64;
        let (light, heavy) = (c * 8e-9, c * 27e-9);
        assert!(
            light < kg && kg < heavy,
            "{name}: {kg} kg for {inserted} grains"
        );
        let line = format!(
            "grains: {inserted} inserted ({kg:.4} kg), {missed} missed (no place found), {} removed by sinks ({:.4} kg)",
            j["grains_removed"],
            j["grains_removed_kg"].as_f64().unwrap()
        );
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(stdout.contains(&line), "{line} not in:\n{stdout}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        let warning = format!(
            "warning: {missed} of the {} grains due from the [[insert]] tables found no place",
            inserted + missed
        );
        assert_eq!(stderr.contains(&warning), missing, "{name}: {stderr}");
    }
    std::fs::remove_dir_all(&base).unwrap();
}
