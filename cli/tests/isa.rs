//! The hot loops' two builds (`grains_kernels::isa`: SSE2 for every x86-64 processor, AVX2
//! where the processor has it) give the same bits: the main job's first steps run under
//! `GRAINS_ISA=sse2` and as the processor allows leave the same observables and the same last
//! frame, byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs the main job's scene for 60 steps on 2 threads into a fresh folder, with
/// `GRAINS_ISA=sse2` or without it; returns the folder.
fn run(name: &str, sse2: bool) -> PathBuf {
    let out = std::env::temp_dir().join(format!("grains-isa-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/brazil_nut_3d.toml");
    let mut command = Command::new(env!("CARGO_BIN_EXE_grains"));
    command.args([
        "run",
        scene.to_str().unwrap(),
        "--steps",
        "60",
        "--threads",
        "2",
    ]);
    command.arg("--out").arg(&out);
    match sse2 {
        true => command.env("GRAINS_ISA", "sse2"),
        false => command.env_remove("GRAINS_ISA"),
    };
    let o = command.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// The observables and the last frame of a run's folder.
fn results(out: &Path) -> (Vec<u8>, Vec<u8>) {
    let mut frames: Vec<PathBuf> = std::fs::read_dir(out.join("frames"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    frames.sort();
    let last = frames.last().expect("no frame written");
    let read = |p: &Path| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    (read(&out.join("observables.csv")), read(last))
}

#[test]
fn the_sse2_and_avx2_builds_give_the_same_bits() {
    let (sse2, native) = (run("sse2", true), run("native", false));
    let (a, b) = (results(&sse2), results(&native));
    assert!(
        a.0.len() > 100 && a.1.len() > 10_000,
        "too little output to compare"
    );
    assert!(a.0 == b.0, "the observables differ");
    assert!(a.1 == b.1, "the last frames differ");
    for d in [sse2, native] {
        let _ = std::fs::remove_dir_all(d);
    }
}
