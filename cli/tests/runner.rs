//! The headless runner: the files it writes can be opened (VTK parses, PNGs decode, CSV and
//! JSON read back), and a run killed and resumed ends bit-identical to an uninterrupted one.

use grains::Snapshot;
use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;
use std::path::{Path, PathBuf};

use crate::common;

/// A small shaken 2-D scene (the V7 box with fewer disks and a short duration) written to `dir`.
fn small_scene(dir: &Path) -> PathBuf {
    let text = common::fixture("tiny_shaker.toml");
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join("tiny.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The checkpoint in `dir` without the runner's record (which holds wall-clock times).
fn state(dir: &Path) -> Snapshot {
    let mut s = Snapshot::from_bytes(&std::fs::read(dir.join("checkpoint.bin")).unwrap()).unwrap();
    s.extra.clear();
    s
}

fn opts(out: &Path) -> RunOptions {
    RunOptions {
        threads: Some(2),
        ..RunOptions::new(out)
    }
}

#[test]
fn run_writes_files_that_parse() {
    let base = tmp("outputs");
    // ASCII frames, which vtkio reads (it reads no raw binary).
    let path = small_scene(&base);
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "colour = \"speed\"\n",
        "colour = \"speed\"\nframe_encoding = \"ascii\"\n",
    );
    std::fs::write(&path, text).unwrap();
    let scene = Scene::load(&path).unwrap();
    let out = base.join("out");
    let s = run(&scene, &opts(&out)).unwrap();
    assert_eq!(s.steps, 120);
    assert_eq!(s.frames, 13, "frames at steps 0, 10, …, 120");

    // ParaView: the last frame parses with vtkio and carries the point data.
    let pvd = std::fs::read_to_string(out.join("grains.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 13);
    assert!(pvd.contains("timestep=\"1.2") || pvd.contains("timestep=\"1.19"));
    let last = out.join("frames/frame_000000120.vtu");
    let mut vtk = vtkio::Vtk::import(&last).unwrap_or_else(|e| panic!("{e:?}"));
    vtk.load_all_pieces().unwrap();
    match vtk.data {
        vtkio::model::DataSet::UnstructuredGrid { pieces, .. } => {
            let vtkio::model::Piece::Inline(p) = &pieces[0] else {
                panic!("piece not inline")
            };
            assert_eq!(p.num_points(), 41);
            let names: Vec<&str> = p.data.point.iter().map(|a| a.name()).collect();
            for n in ["radius", "velocity", "angular_velocity", "id"] {
                assert!(names.contains(&n), "{n} missing from {names:?}");
            }
        }
        other => panic!("not an unstructured grid: {other:?}"),
    }

    // CSV: header + one row per 10 steps, nut height finite.
    let csv = std::fs::read_to_string(out.join("observables.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "step,time_s,height_nut_m,kinetic_energy_J,contacts"
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 13);
    assert!(rows.iter().all(|r| r.len() == 5 && r[2].is_finite()));

    // PNG: snapshots and one plot per observable decode.
    for name in [
        "snapshot_000000000.png",
        "snapshot_000000120.png",
        "plot_height_nut_m.png",
        "plot_kinetic_energy_J.png",
        "plot_contacts.png",
    ] {
        let f = std::fs::File::open(out.join("images").join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut r = png::Decoder::new(std::io::BufReader::new(f))
            .read_info()
            .unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        assert!(info.width >= 64 && info.height >= 16, "{name}");
        // Not blank: some pixel differs from the white background.
        assert!(buf.iter().any(|&b| b < 200), "{name} is blank");
    }

    // summary.json.
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(j["bodies"], 41);
    assert_eq!(j["steps"], 120);
    assert_eq!(j["quality"]["non_finite"], 0);
    assert!(j["observables_final"]["height_nut_m"].as_f64().unwrap() > 0.0);
    // The second half's mean is that of the csv rows at t ≥ half the last row's time.
    let csv = std::fs::read_to_string(out.join("observables.csv")).unwrap();
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = head.iter().position(|&c| c == "height_nut_m").unwrap();
    let rows: Vec<Vec<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    let end = rows.last().unwrap()[1];
    let late: Vec<f64> = rows
        .iter()
        .filter(|r| r[1] >= 0.5 * end)
        .map(|r| r[col])
        .collect();
    assert!(
        late.len() >= 2 && late.len() < rows.len(),
        "{} of {}",
        late.len(),
        rows.len()
    );
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    let got = j["observables_mean_second_half"]["height_nut_m"]
        .as_f64()
        .unwrap();
    assert!(
        (got - mean).abs() <= 1e-12 * mean.abs(),
        "{got} against {mean}"
    );
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn killed_run_resumes_bit_identical() {
    let base = tmp("resume");
    let path = small_scene(&base);
    let scene = Scene::load(&path).unwrap();
    let whole = base.join("whole");
    run(&scene, &opts(&whole)).unwrap();

    // Killed at step 62: the last checkpoint is at step 50, and frames up to 60 are on disk.
    let cut = base.join("cut");
    let s = run(
        &scene,
        &RunOptions {
            stop_after: Some(62),
            threads: Some(1),
            ..opts(&cut)
        },
    )
    .unwrap();
    assert!(s.stopped_early);
    assert!(!cut.join("summary.json").exists());
    let resumed = run(
        &scene,
        &RunOptions {
            resume: true,
            ..opts(&cut)
        },
    )
    .unwrap();
    assert_eq!(resumed.resumed_from_step, 50);
    assert_eq!(resumed.steps, 120);
    let read = |d: &Path, f: &str| std::fs::read(d.join(f)).unwrap();
    assert_eq!(state(&whole), state(&cut), "final state differs");
    assert_eq!(
        read(&whole, "observables.csv"),
        read(&cut, "observables.csv")
    );
    assert_eq!(read(&whole, "grains.pvd"), read(&cut, "grains.pvd"));
    assert_eq!(
        read(&whole, "frames/frame_000000120.vtu"),
        read(&cut, "frames/frame_000000120.vtu")
    );
    // Resuming with a scene of other physics is refused.
    let other = base.join("other.toml");
    std::fs::write(
        &other,
        std::fs::read_to_string(&path)
            .unwrap()
            .replace("h = 0.01", "h = 0.02"),
    )
    .unwrap();
    let err = run(
        &Scene::load(&other).unwrap(),
        &RunOptions {
            resume: true,
            ..opts(&cut)
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("h (0.01 → 0.02)"), "{err}");
    std::fs::remove_dir_all(&base).unwrap();
}

/// A real kill (SIGKILL of the `grains` process once a checkpoint after step 0 exists), then `--resume`: the
/// final state and the time series equal those of an uninterrupted run. The scene is `pour_1k`
/// as it is (1 s, 500 steps) with a checkpoint and an output every 100 steps: the kill lands
/// just after the checkpoint of step 100, with 400 steps (seconds) left against the 5 ms the
/// test takes to see that checkpoint, and the resume crosses four outputs and checkpoints.
#[test]
fn sigkilled_cli_run_resumes_bit_identical() {
    let base = tmp("sigkill");
    std::fs::create_dir_all(&base).unwrap();
    let scene = base.join("pour.toml");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/pour_1k.toml"),
    )
    .unwrap()
    .replace("every = 25", "every = 100\ncheckpoint_every = 100");
    std::fs::write(&scene, text).unwrap();
    let exe = env!("CARGO_BIN_EXE_grains");
    let (whole, cut) = (base.join("whole"), base.join("cut"));
    let ok = |args: &[&str]| {
        let o = std::process::Command::new(exe).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let (s, w, c) = (
        scene.to_str().unwrap(),
        whole.to_str().unwrap(),
        cut.to_str().unwrap(),
    );
    ok(&["run", s, "--out", w, "--threads", "2"]);
    let mut child = std::process::Command::new(exe)
        .args(["run", s, "--out", c, "--threads", "2"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Every run checkpoints step 0 at once: wait for a later checkpoint.
    let past_step_0 = || {
        std::fs::read(cut.join("checkpoint.bin"))
            .ok()
            .and_then(|b| Snapshot::from_bytes(&b).ok())
            .is_some_and(|s| s.steps > 0)
    };
    while !past_step_0() {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let killed_early = !cut.join("summary.json").exists();
    ok(&["run", s, "--resume", c, "--threads", "1"]);
    let read = |d: &Path, f: &str| std::fs::read(d.join(f)).unwrap();
    assert_eq!(state(&whole), state(&cut));
    assert_eq!(
        read(&whole, "observables.csv"),
        read(&cut, "observables.csv")
    );
    assert_eq!(read(&whole, "grains.pvd"), read(&cut, "grains.pvd"));
    println!("killed before the end: {killed_early}");
    std::fs::remove_dir_all(&base).unwrap();
}

/// `grains run --steps N` is a complete run of N steps; `--resume` then continues it to the
/// scene's duration, ending where an uninterrupted run ends. `--until T` runs to time T; a time
/// shorter than half a step, `--steps 0`, or more steps than a run counts exactly, is refused.
#[test]
fn a_trial_of_a_few_steps_continues_to_the_scene_s_duration() {
    let base = tmp("trial");
    let scene = small_scene(&base);
    let exe = env!("CARGO_BIN_EXE_grains");
    let grains = |args: &[&str]| {
        let o = std::process::Command::new(exe).args(args).output().unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let summary = |d: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("summary.json")).unwrap()).unwrap()
    };
    let s = scene.to_str().unwrap();
    let (whole, trial, until) = (base.join("whole"), base.join("trial"), base.join("until"));
    let (w, t, u) = (
        whole.to_str().unwrap(),
        trial.to_str().unwrap(),
        until.to_str().unwrap(),
    );
    let (ok, err) = grains(&["run", s, "--out", w]);
    assert!(ok, "{err}");
    let (ok, err) = grains(&["run", s, "--out", t, "--steps", "30"]);
    assert!(ok, "{err}");
    assert_eq!(summary(&trial)["steps"], 30);
    assert_eq!(summary(&trial)["simulated_time_s"], 0.3);
    let (ok, err) = grains(&["run", s, "--resume", t]);
    assert!(ok, "{err}");
    assert_eq!(summary(&trial)["steps"], 120);
    assert_eq!(state(&trial), state(&whole));
    let csv = |d: &Path| std::fs::read(d.join("observables.csv")).unwrap();
    assert_eq!(csv(&trial), csv(&whole));
    let (ok, err) = grains(&["run", s, "--out", u, "--until", "0.5"]);
    assert!(ok, "{err}");
    assert_eq!(summary(&until)["steps"], 50);
    let (ok, err) = grains(&["run", s, "--out", u, "--until", "0.001"]);
    assert!(!ok && err.contains("shorter than half a step"), "{err}");
    let (ok, err) = grains(&["run", s, "--out", u, "--steps", "0"]);
    assert!(!ok && err.contains("--steps"), "{err}");
    // A run longer than a step count can hold exactly (2^53) is refused, not cut to u64::MAX.
    let (ok, err) = grains(&["run", s, "--out", u, "--until", "1e300"]);
    assert!(
        !ok && err.contains("--until 1e300") && err.contains("counts exactly"),
        "{err}"
    );
    let (ok, err) = grains(&["run", s, "--out", u, "--steps", "9007199254740993"]);
    assert!(!ok && err.contains("counts exactly"), "{err}");
    std::fs::remove_dir_all(&base).unwrap();
}

/// The folder's `scene.toml` holds the bytes the scene was parsed from, read once: the file
/// changed (or gone) after it was read leaves the copy as it was parsed.
#[test]
fn the_copied_scene_is_the_text_that_was_parsed() {
    let base = tmp("parsed_once");
    let path = small_scene(&base);
    let parsed = std::fs::read_to_string(&path).unwrap();
    let mut scene = Scene::load(&path).unwrap();
    scene.run_for_steps(2).unwrap();
    std::fs::write(&path, format!("{parsed}\n# changed after it was read\n")).unwrap();
    let out = base.join("out");
    run(&scene, &opts(&out)).unwrap();
    assert_eq!(
        std::fs::read_to_string(out.join("scene.toml")).unwrap(),
        parsed
    );
    // A scene parsed from text with no file behind it runs too.
    std::fs::remove_file(&path).unwrap();
    let out = base.join("out2");
    run(&scene, &opts(&out)).unwrap();
    assert_eq!(
        std::fs::read_to_string(out.join("scene.toml")).unwrap(),
        parsed
    );
    std::fs::remove_dir_all(&base).unwrap();
}
