//! Breakable bonds in a scene's outputs: `[[bonds]]` with a strength, the `bonds_broken`
//! observable, `summary.json`'s `bonds_broken` and the frames' `broken_bonds` array.

use crate::vtk_reader;
use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;

/// Two grains touching along z without gravity, bonded with a twisting strength of 1e-6 N m;
/// the upper one spins about the bond's axis, so the bond breaks in the first step.
const TWISTED: &str = r#"[scene]
name = "twisted"
duration = 0.02

[settings]
preset = "rigid"
h = 0.001
gravity = [0.0, 0.0, 0.0]

[[materials]]
name = "m"
friction = 0.5

[[bodies]]
generator = "list"
name = "pair"
radius = 0.005
mass = 0.01
list = [{ position = [0.0, 0.0, 0.0] }, { position = [0.0, 0.0, 0.01], angular_velocity = [0.0, 0.0, 10.0] }]

[[bonds]]
group = "pair"
stiffness = 1e5
angular_stiffness = 1.0
twisting_strength = 1e-6

[output]
every = 10
observe_every = 10
formats = ["vtu", "csv"]

[[observables]]
kind = "bonds_broken"
"#;

#[test]
fn a_broken_bond_shows_in_the_observable_the_summary_and_the_frames() {
    let base = std::env::temp_dir().join(format!("grains-bonds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let path = base.join("twisted.toml");
    std::fs::write(&path, TWISTED).unwrap();
    let out = base.join("out");
    let opts = RunOptions {
        threads: Some(1),
        progress: false,
        ..RunOptions::new(&out)
    };
    let summary = run(&Scene::load(&path).unwrap(), &opts).unwrap();
    assert_eq!(summary.bonds_broken, 1);
    let csv = std::fs::read_to_string(out.join("observables.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "step,time_s,bonds_broken");
    assert!(
        rows[1].ends_with(",0"),
        "none broken at step 0: {}",
        rows[1]
    );
    assert!(rows.last().unwrap().ends_with(",1"), "{csv}");
    let frame = vtk_reader::read(&std::fs::read(out.join("frames/frame_000000020.vtu")).unwrap());
    let broken = frame.array("broken_bonds");
    assert_eq!(
        (broken.ty.as_str(), broken.bytes.as_slice()),
        ("UInt8", &[1u8, 1][..])
    );
    let first = vtk_reader::read(&std::fs::read(out.join("frames/frame_000000000.vtu")).unwrap());
    assert_eq!(first.array("broken_bonds").bytes, [0u8, 0]);
    std::fs::remove_dir_all(&base).unwrap();
}
