//! The health check from the command line: a run or benchmark whose state blows up stops with
//! one line naming the step and the cause and exits non-zero; valid scenes run through.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scene(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenes")
        .join(name)
}

fn grains(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grains"))
        .args(args)
        .output()
        .unwrap()
}

/// The one line on stderr, after checking that there is exactly one and that it names a step.
fn one_line(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).trim_end().to_string();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: step "), "{err}");
    err
}

#[test]
fn bench_with_undamped_jacobi_on_a_pile_exits_non_zero_naming_the_cause() {
    let pour = scene("pour_1k.toml");
    let o = grains(&[
        "bench",
        pour.to_str().unwrap(),
        "--solver",
        "jacobi",
        "--omega",
        "1.0",
        "--tolerance",
        "0",
        "--steps",
        "300",
        "--threads",
        "2",
    ]);
    assert!(!o.status.success(), "a blown-up bench must fail");
    let line = one_line(&o);
    assert!(
        line.contains("energy jumped") || line.contains("not finite"),
        "{line}"
    );
}

#[test]
fn run_with_a_joint_anchor_far_away_stops_before_writing_nan() {
    let dir = std::env::temp_dir().join(format!("grains-health-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(scene("v14_chain.toml")).unwrap();
    let bad = text.replacen(
        "anchor = [0.0, 0.0, 1.0]",
        "anchor = [0.8, 0.0, -1000000000000.0]",
        1,
    );
    assert_ne!(bad, text);
    // ASCII frames, searched below as text for a NaN.
    let bad = bad.replacen("[output]\n", "[output]\nframe_encoding = \"ascii\"\n", 1);
    assert!(bad.contains("frame_encoding"));
    let path = dir.join("chain.toml");
    std::fs::write(&path, bad).unwrap();
    let out = dir.join("out");
    let o = grains(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--stop-after",
        "3000",
    ]);
    assert!(!o.status.success(), "a run gone wrong must fail");
    one_line(&o);
    for f in std::fs::read_dir(out.join("frames")).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        assert!(
            !text.contains("NaN") && !text.contains("nan"),
            "a NaN frame"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn valid_scenes_never_trip_it() {
    for (name, steps) in [("pour_1k.toml", "300"), ("v7_brazil_nut_2d.toml", "1000")] {
        let path = scene(name);
        let o = grains(&[
            "bench",
            path.to_str().unwrap(),
            "--steps",
            steps,
            "--threads",
            "2",
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{name}: {err}");
    }
}
