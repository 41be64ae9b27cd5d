//! `formats = ["meshes"]`: each frame's `.vtp` of the mesh triangles with their loads and
//! Archard's F_n s summed over the run, against the closed form of a sphere sliding down an
//! incline, kept bit for bit through a stop and a resume; and the runs that cannot write them
//! refused naming the key.

use crate::one_rank;
use crate::vtk_reader::read;
use grains::support::{limit, Feature};
use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;
use std::path::{Path, PathBuf};

const G: f64 = 9.81;
const MU: f64 = 0.1;
const SLOPE_DEGREES: f64 = 30.0;
const RADIUS: f64 = 0.02;
const DENSITY: f64 = 1000.0;
const H: f64 = 1e-4;

/// A sphere set down at rest on `floor_288.stl` (the unit square about the origin, 288
/// triangles) turned 30° about y, 3 mm uphill of the edge between two rows of its triangles,
/// so that it slides down along x (μ = 0.1 < (2/7) tan 30°) while it spins up, and crosses onto
/// the next triangle after about 380 steps; h = 0.1 ms, 600 steps, a frame every 100.
fn incline() -> String {
    let stl = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/meshes/floor_288.stl");
    let t = SLOPE_DEGREES.to_radians();
    let (x, z) = (
        -0.003 * t.cos() + RADIUS * t.sin(),
        0.003 * t.sin() + RADIUS * t.cos(),
    );
    format!(
        "[scene]\nname = \"incline\"\nduration = 0.06\n\n[settings]\npreset = \"rigid\"\nh = {H}\n\
         tolerance = 1e-9\n\n[[materials]]\nname = \"m\"\nfriction = {MU}\n\n\
         [[meshes]]\nfile = \"{}\"\nrotate_axis = [0.0, 1.0, 0.0]\nrotate_degrees = {SLOPE_DEGREES}\n\n\
         [[bodies]]\ngenerator = \"lattice\"\nname = \"grain\"\nradius = {RADIUS}\ndensity = {DENSITY}\n\
         origin = [{x}, 0.04, {z}]\nspacing = 0.1\ncounts = [1, 1, 1]\n\n\
         [output]\nevery = 100\nformats = [\"meshes\", \"csv\"]\n",
        stl.display()
    )
}

fn folder(name: &str) -> PathBuf {
    let base =
        std::env::temp_dir().join(format!("grains-mesh-loads-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    base
}

fn options(out: &Path) -> RunOptions {
    RunOptions {
        threads: Some(1),
        progress: false,
        ..RunOptions::new(out)
    }
}

/// A Float64 cell array of a `.vtp` file.
fn column(file: &Path, name: &str) -> Vec<f64> {
    let f = read(&std::fs::read(file).unwrap());
    let a = f.array(name);
    assert_eq!(a.ty, "Float64", "{name}");
    (a.bytes.chunks_exact(8))
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

#[test]
fn a_grain_sliding_down_an_incline_wears_it_by_n_times_its_slip() {
    let base = folder("incline");
    let scene = Scene::parse(&base.join("scene.toml"), &incline()).unwrap();
    let out = base.join("out");
    run(&scene, &options(&out)).unwrap();
    let frame = |step: u64| out.join(format!("meshes/meshes_{step:09}.vtp"));
    let pvd = std::fs::read_to_string(out.join("meshes.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 7, "{pvd}");
    // Friction μ N brakes the centre by μ g cos θ and spins the sphere up by 5/2 μ g cos θ at
    // its rim, so its contact point slips at u = g (sin θ − 7/2 μ cos θ) t; after step k,
    // u_k = k h g (…), and Σ h N u_k = N g (…) h² n (n + 1)/2 with N = m g cos θ. N varies
    // from step to step by the cone's relaxation (docs/method.md), and the slip with it: 1 %.
    let t = SLOPE_DEGREES.to_radians();
    let mass = DENSITY * 4.0 / 3.0 * std::f64::consts::PI * RADIUS.powi(3);
    let normal = mass * G * t.cos();
    let rate = G * (t.sin() - 3.5 * MU * t.cos());
    let want = |n: f64| normal * rate * H * H * n * (n + 1.0) / 2.0;
    let ends = column(&frame(600), "load_distance");
    assert_eq!(ends.len(), 288, "a cell per triangle");
    for (step, sums) in [
        (300, column(&frame(300), "load_distance")),
        (600, ends.clone()),
    ] {
        let total: f64 = sums.iter().sum();
        let want = want(step as f64);
        println!("step {step}: F_n s = {total:.6e} N m, closed form {want:.6e} N m");
        assert!(
            (total - want).abs() < 0.01 * want,
            "step {step}: F_n s = {total} N m where {want}"
        );
    }
    // The sums only grow, triangle by triangle; the grain crossed several triangles.
    let middle = column(&frame(300), "load_distance");
    assert!(middle.iter().zip(&ends).all(|(a, b)| a <= b));
    assert!(ends.iter().filter(|&&v| v > 0.0).count() > 1, "{ends:?}");
    // The incline carries N, on the triangle under the grain, at the slip's power.
    let loaded = column(&frame(600), "normal_force");
    let n: f64 = loaded.iter().sum();
    assert!((n - normal).abs() < 0.02 * normal, "N = {n} where {normal}");
    let power: f64 = column(&frame(600), "sliding_power").iter().sum();
    let slip = rate * 600.0 * H;
    assert!(
        (power - n * slip).abs() < 0.02 * n * slip,
        "{power} W where N u = {}",
        n * slip
    );

    // Stopped at step 250 and resumed: the same files, bit for bit (the sums ride in the
    // checkpoint's run record).
    let again = base.join("again");
    let first = RunOptions {
        stop_after: Some(250),
        ..options(&again)
    };
    run(&scene, &first).unwrap();
    let rest = RunOptions {
        resume: true,
        ..options(&again)
    };
    run(&scene, &rest).unwrap();
    for step in [300, 600] {
        let name = format!("meshes/meshes_{step:09}.vtp");
        assert_eq!(
            std::fs::read(out.join(&name)).unwrap(),
            std::fs::read(again.join(&name)).unwrap(),
            "{name}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(again.join("meshes.pvd")).unwrap(),
        pvd
    );
}

#[test]
fn runs_that_cannot_sum_the_wear_refuse_meshes_frames() {
    let base = folder("refused");
    let line = |text: &str| text.lines().position(|l| l.starts_with("formats")).unwrap() + 1;
    // Without a mesh.
    let text = incline();
    let no_mesh = text.replace("[[meshes]]", "[[meshes_gone]]");
    let cut = no_mesh.find("[[meshes_gone]]").unwrap();
    let end = no_mesh[cut..].find("\n\n").unwrap();
    let no_mesh = format!("{}{}", &no_mesh[..cut], &no_mesh[cut + end + 2..]);
    let s = Scene::parse(Path::new("s.toml"), &no_mesh).unwrap();
    let e = run(&s, &options(&base.join("a"))).unwrap_err().to_string();
    let at = format!("s.toml:{}: key `formats`", line(&no_mesh));
    assert!(e.contains(&at) && e.contains("no [[meshes]]"), "{e}");
    // Under mpirun (the MPI calls stand in: the refusal comes first).
    let s = Scene::parse(Path::new("s.toml"), &text).unwrap();
    let e = one_rank::refusal(s, "meshes");
    let at = format!("s.toml:{}: key `formats`", line(&text));
    // The support table's row, naming both sides.
    let row = limit(Feature::Distributed, Feature::MeshLoadFrames).unwrap();
    assert!(e.contains(&at) && e.contains(&row.to_string()), "{e}");
    assert!(e.contains("a distributed run (MPI)") && e.contains("mesh-load frames"));
    // An unknown format names the new one among those there are.
    let bad = text.replace("\"meshes\", \"csv\"", "\"mesh\"");
    let e = Scene::parse(Path::new("s.toml"), &bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"meshes\")") && e.contains("\"mesh\""), "{e}");
}
