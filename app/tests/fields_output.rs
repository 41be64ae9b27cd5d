//! `[fields]`: a run writes the coarse-grained fields of the steps it asks for, a profile as CSV
//! and a grid as a `.vti` image, each the library's `coarse_grain` of the world at that step bit
//! for bit; and the table's bad values are refused naming the key and line.

use crate::one_rank;
use crate::vtk_reader::{attr, read};
use grains::fields::{coarse_grain, grain_stress};
use grains::support::{limit, Feature};
use grains_app::output::fields::{profile_csv, vti};
use grains_app::output::FrameEncoding;
use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;
use std::path::Path;

/// A settling stack of 2 × 2 × 3 spheres on a floor, 20 steps, with `fields` as its `[fields]`.
fn scene(fields: &str) -> String {
    format!(
        "[scene]\nname = \"stack\"\nduration = 0.04\n\n[settings]\npreset = \"rigid\"\nh = 0.002\n\n\
         [[materials]]\nname = \"m\"\nfriction = 0.5\n\n[[containers]]\nkind = \"floor\"\nz = 0.0\n\n\
         [[bodies]]\ngenerator = \"lattice\"\nname = \"grains\"\nradius = 0.01\ndensity = 1000.0\n\
         origin = [0.0, 0.0, 0.011]\nspacing = 0.021\ncounts = [2, 2, 3]\n\n\
         [output]\nevery = 10\nformats = [\"csv\"]\n\n[fields]\n{fields}"
    )
}

fn run_in(name: &str, text: &str) -> (Scene, std::path::PathBuf) {
    let base = std::env::temp_dir().join(format!("grains-fields-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let path = base.join("scene.toml");
    std::fs::write(&path, text).unwrap();
    let scene = Scene::load(&path).unwrap();
    let out = base.join("out");
    let opts = RunOptions {
        threads: Some(1),
        progress: false,
        ..RunOptions::new(&out)
    };
    run(&scene, &opts).unwrap();
    (scene, out)
}

#[test]
fn a_run_writes_each_profile_and_grid_as_the_library_computes_them() {
    let profile = "every = 10\nwidth = 0.02\naxis = \"z\"\nfrom = -0.02\nto = 0.08\nspacing = 0.005\narea = 0.0025\n";
    let (s, out) = run_in("profile", &scene(profile));
    let fields = s.fields.clone().unwrap();
    let mut world = s.world(Some(1)).unwrap();
    for step in [0u64, 10, 20] {
        world.run(step - world.steps()).unwrap();
        let want = profile_csv(
            &coarse_grain(&world, &fields.sampling, fields.kernel).unwrap(),
            &fields.sampling,
        );
        let file = out.join(format!("fields/profile_{step:09}.csv"));
        let got = std::fs::read_to_string(&file).unwrap();
        assert_eq!(got, want, "{}", file.display());
        assert_eq!(got.lines().count(), 1 + 21, "a header and 21 points");
    }
    assert!(!out.join("fields/profile_000000005.csv").exists());
    let grid = "every = 20\nkernel = \"gaussian\"\nwidth = 0.008\nmin = [-0.02, -0.02, -0.02]\nmax = [0.04, 0.04, 0.08]\nspacing = 0.005\n";
    let (s, out) = run_in("grid", &scene(grid));
    let fields = s.fields.clone().unwrap();
    let mut world = s.world(Some(1)).unwrap();
    world.run(20).unwrap();
    let f = coarse_grain(&world, &fields.sampling, fields.kernel).unwrap();
    let got = std::fs::read(out.join("fields/fields_000000020.vti")).unwrap();
    assert_eq!(
        got,
        vti(&f, &fields.sampling, world.time(), FrameEncoding::Zlib)
    );
    let file = read(&got);
    assert_eq!(attr(&file.piece, "Extent"), Some("0 12 0 12 0 20"));
    let density = file.array("density");
    assert_eq!((density.ty.as_str(), density.components), ("Float64", 1));
    let values: Vec<f64> = density
        .bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(values, f.density);
    assert_eq!(file.array("stress").components, 9);
    // The grid holds the grains' mass (0.005 m cells; the Gaussian of 8 mm reaches 24 mm).
    let mass: f64 = values.iter().sum::<f64>() * 0.005f64.powi(3);
    let grains: f64 = (0..world.len()).map(|i| world.mass(i) as f64).sum();
    assert!(
        (mass - grains).abs() < 1e-3 * grains,
        "{mass} kg of {grains}"
    );
}

#[test]
fn an_averaged_profile_is_the_mean_of_its_window_and_survives_a_resume() {
    // A profile every 10 steps averaging the states every 5: step 0's alone, then steps 5 and
    // 10, then 15 and 20; the same bytes after a stop at step 15 (its checkpoint holds the
    // sample of step 15) and a resume.
    let profile = "every = 10\naverage_every = 5\nwidth = 0.02\naxis = \"z\"\nfrom = -0.02\nto = 0.08\nspacing = 0.005\narea = 0.0025\n";
    let text = scene(profile).replace(
        "every = 10\nformats",
        "every = 10\ncheckpoint_every = 5\nformats",
    );
    let (s, out) = run_in("average", &text);
    let fields = s.fields.clone().unwrap();
    let mut world = s.world(Some(1)).unwrap();
    let sample = |w: &grains::World| coarse_grain(w, &fields.sampling, fields.kernel).unwrap();
    for (step, window) in [(0u64, vec![0u64]), (10, vec![5, 10]), (20, vec![15, 20])] {
        let mut average = grains::fields::FieldsAverage::default();
        for k in window {
            world.run(k - world.steps()).unwrap();
            average.add(&sample(&world)).unwrap();
        }
        let want = profile_csv(&average.mean().unwrap(), &fields.sampling);
        let got = std::fs::read_to_string(out.join(format!("fields/profile_{step:09}.csv")));
        assert_eq!(got.unwrap(), want, "step {step}");
    }
    // The states differ from sample to sample (the stack settles): the mean is no sample.
    world.run(0).unwrap();
    let last = profile_csv(&sample(&world), &fields.sampling);
    let averaged = std::fs::read_to_string(out.join("fields/profile_000000020.csv")).unwrap();
    assert_ne!(averaged, last);

    let base = out.parent().unwrap();
    let again = base.join("again");
    let opts = |stop_after, resume| RunOptions {
        threads: Some(1),
        progress: false,
        stop_after,
        resume,
        ..RunOptions::new(&again)
    };
    run(&s, &opts(Some(15), false)).unwrap();
    assert!(!again.join("fields/profile_000000020.csv").exists());
    run(&s, &opts(None, true)).unwrap();
    assert_eq!(
        std::fs::read_to_string(again.join("fields/profile_000000020.csv")).unwrap(),
        averaged
    );
}

#[test]
fn frames_carry_each_grains_love_weber_stress_and_runs_that_cannot_refuse_it() {
    // The stack's frames with `frame_stress`: each grain's `stress` is the library's
    // grain_stress at that step, in Float32; the bottom grains carry the stack's weight.
    let text =
        scene("width = 0.02\naxis = \"z\"\nfrom = 0.0\nto = 0.01\nspacing = 0.01\narea = 1.0\n")
            .replace(
                "formats = [\"csv\"]",
                "formats = [\"vtu\"]\nframe_stress = true",
            );
    let (s, out) = run_in("frame-stress", &text);
    let mut world = s.world(Some(1)).unwrap();
    world.run(20).unwrap();
    let want = grain_stress(&world).unwrap();
    let file = read(&std::fs::read(out.join("frames/frame_000000020.vtu")).unwrap());
    let stress = file.array("stress");
    assert_eq!((stress.ty.as_str(), stress.components), ("Float32", 9));
    let got: Vec<f32> = (stress.bytes.chunks_exact(4))
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let flat: Vec<f32> = want.iter().flatten().flatten().map(|&x| x as f32).collect();
    assert_eq!(got, flat);
    let bottom = (0..world.len())
        .filter(|&i| world.position(i).z < 0.015)
        .map(|i| want[i][2][2])
        .fold(f64::INFINITY, f64::min);
    assert!(
        bottom > 0.0,
        "the bottom layer is compressed: σ_zz = {bottom}"
    );
    // Without "vtu" it has no effect; under mpirun it is refused naming its line.
    let bad = text.replace("formats = [\"vtu\"]", "formats = [\"csv\"]");
    let e = Scene::parse(Path::new("s.toml"), &bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("frame_stress") && e.contains("no effect"), "{e}");
    let text = &text[..text.find("\n[fields]").unwrap()];
    // Cubes, not spheres: refused when the run starts, by the support table's row.
    let boxes = text.replace("[[bodies]]\n", "[[bodies]]\nshape = \"cube\"\n");
    let s = Scene::parse(Path::new("s.toml"), &boxes).unwrap();
    let e = run(
        &s,
        &RunOptions::new(&std::env::temp_dir().join("grains-frame-stress-boxes")),
    )
    .unwrap_err()
    .to_string();
    let row = limit(Feature::FrameStress, Feature::NonSpheres).unwrap();
    assert!(
        e.contains("key `frame_stress`") && e.contains(&row.to_string()),
        "{e}"
    );
    let s = Scene::parse(Path::new("s.toml"), text).unwrap();
    let e = one_rank::refusal(s, "frame-stress");
    let line = text
        .lines()
        .position(|l| l.starts_with("frame_stress"))
        .unwrap()
        + 1;
    let row = limit(Feature::Distributed, Feature::FrameStress).unwrap();
    assert!(
        e.contains(&format!("s.toml:{line}: key `frame_stress`")) && e.contains(&row.to_string()),
        "{e}"
    );
}

#[test]
fn bad_fields_tables_are_refused_naming_the_key_and_line() {
    let cases = [
        ("axis = \"z\"\nfrom = 0.0\nto = 0.1\nspacing = 0.01\narea = 1.0\n", "fields.width", "missing"),
        ("width = 0.01\nkernel = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nspacing = 0.1\n", "fields.kernel", "\"box\""),
        ("width = 0.01\naxis = \"z\"\nmin = [0, 0, 0]\nfrom = 0.0\nto = 0.1\nspacing = 0.01\narea = 1.0\n", "fields.min", "not used by a profile"),
        ("width = 0.01\naxis = \"w\"\nfrom = 0.0\nto = 0.1\nspacing = 0.01\narea = 1.0\n", "fields.axis", "\"x\", \"y\" or \"z\""),
        ("width = 0.01\naxis = \"z\"\nfrom = 0.0\nto = 0.1\nspacing = 0.01\n", "fields.area", "missing"),
        ("width = 0.01\nmin = [0, 0, 0]\nmax = [1, -1, 1]\nspacing = 0.1\n", "fields.max", "axis 1"),
        ("width = 0.01\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nspacing = 0.001\n", "fields.spacing", "more than"),
        ("width = 0.01\nmin = [0, 0, 0]\nmax = [1e30, 1e30, 1e30]\nspacing = 1e-30\n", "fields.spacing", "more than"),
        ("width = 0.01\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nspacing = 0.1\nsize = 3\n", "size", "unknown"),
        ("every = 10\naverage_every = 3\nwidth = 0.01\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nspacing = 0.1\n", "fields.average_every", "must divide `every` (10 steps), got 3"),
        ("average_every = 0\nwidth = 0.01\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nspacing = 0.1\n", "fields.average_every", "at least 1"),
    ];
    for (fields, key, words) in cases {
        let text = scene(fields);
        let e = match Scene::parse(Path::new("s.toml"), &text) {
            Ok(_) => panic!("accepted: {fields}"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(key) && e.contains(words), "{fields} gave: {e}");
        assert!(e.starts_with("s.toml:"), "{e}");
    }
}

#[test]
fn a_distributed_run_refuses_fields_before_it_starts() {
    // One rank of a job (the MPI calls stand in: the refusal comes before any of them matters).
    let text = scene("width = 0.01\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\nspacing = 0.01\n");
    let s = Scene::parse(Path::new("s.toml"), &text).unwrap();
    let e = one_rank::refusal(s, "fields");
    let line = text.lines().position(|l| l == "[fields]").unwrap() + 1;
    assert!(
        e.contains(&format!("s.toml:{line}: key `fields`")) && e.contains("one process"),
        "{e}"
    );
    // The support table's row, naming both sides.
    let row = limit(Feature::Distributed, Feature::FieldsOutput).unwrap();
    assert!(e.contains(&row.to_string()), "{e}");
}
