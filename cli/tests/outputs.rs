//! Outputs that cannot mislead or write where they must not: a failed write stops the run at
//! once and names the file, links planted in an output folder are refused, and figures stay
//! defined (a lone `rank_from_top` group, a body that fell out of the box).

use grains_app::output::Quality;
use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;
use std::path::{Path, PathBuf};

use crate::common;

/// A fresh folder for the test `name`.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-out-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The tiny shaker scene, edited by `edit`, written to `dir` and loaded.
fn scene(dir: &Path, edit: impl Fn(String) -> String) -> Scene {
    let p = dir.join("tiny.toml");
    std::fs::write(&p, edit(common::fixture("tiny_shaker.toml"))).unwrap();
    Scene::load(&p).unwrap()
}

fn opts(out: &Path) -> RunOptions {
    RunOptions {
        threads: Some(1),
        ..RunOptions::new(out)
    }
}

/// A run cut at step 40 (checkpoint at step 25) in `dir/out`, to be resumed.
fn cut_run(dir: &Path, scene: &Scene) -> PathBuf {
    let out = dir.join("out");
    let s = run(
        scene,
        &RunOptions {
            stop_after: Some(40),
            ..opts(&out)
        },
    )
    .unwrap();
    assert!(s.stopped_early);
    out
}

fn resume(scene: &Scene, out: &Path) -> String {
    let err = run(
        scene,
        &RunOptions {
            resume: true,
            ..opts(out)
        },
    )
    .expect_err("the resume must be refused");
    let msg = err.to_string();
    assert!(!msg.contains('\n'), "one line: {msg}");
    msg
}

/// Files whose name ends in `.tmp` anywhere under `dir`.
fn temp_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            found.extend(temp_files(&p));
        } else if p.to_string_lossy().ends_with(".tmp") {
            found.push(p);
        }
    }
    found
}

#[test]
fn a_failed_write_stops_the_run_at_once_and_names_the_file() {
    let base = tmp("write-fails");
    // 10,000 steps, so that a run that goes on stepping after the failure is seen.
    let sc = scene(&base, |t| t.replace("duration = 1.2", "duration = 100.0"));
    let out = cut_run(&base, &sc);
    // The snapshot of step 60 cannot be renamed into place: a folder (not empty) holds its name.
    let blocker = out.join("images/snapshot_000000060.png");
    std::fs::create_dir_all(blocker.join("x")).unwrap();
    let msg = resume(&sc, &out);
    assert!(msg.contains("snapshot_000000060.png"), "{msg}");
    assert!(msg.contains("os error"), "{msg}");
    let step: u64 = msg
        .split("at step ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no step in: {msg}"));
    assert!(step < 2000, "stepping went on to step {step}: {msg}");
    assert!(
        out.join("checkpoint.bin").exists(),
        "the last checkpoint is kept"
    );
    assert!(!out.join("summary.json").exists());
    assert_eq!(
        temp_files(&out),
        Vec::<PathBuf>::new(),
        "temporary files left"
    );
    std::fs::remove_dir_all(&base).unwrap();
}

#[cfg(unix)]
#[test]
fn links_planted_in_an_output_folder_are_not_followed() {
    use std::os::unix::fs::symlink;
    let base = tmp("links");
    let sc = scene(&base, |t| t);
    let target = base.join("precious.txt");
    let other = base.join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    let kept = other.join("frame_000000100.vtu");
    for name in [
        "observables.csv",
        "summary.json",
        "checkpoint.bin",
        "frames",
    ] {
        std::fs::write(&target, "precious").unwrap();
        std::fs::write(&kept, "kept").unwrap();
        let out = cut_run(&base, &sc);
        let planted = out.join(name);
        if planted.is_dir() {
            std::fs::remove_dir_all(&planted).unwrap();
            symlink(&other, &planted).unwrap();
        } else {
            let _ = std::fs::remove_file(&planted);
            symlink(&target, &planted).unwrap();
        }
        let msg = resume(&sc, &out);
        assert!(msg.contains(name) && msg.contains("symbolic link"), "{msg}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "kept", "{name}");
        std::fs::remove_dir_all(&out).unwrap();
    }
    // An output folder that is itself a link is refused, on a new run too.
    let link = base.join("link");
    symlink(&other, &link).unwrap();
    let msg = run(&sc, &opts(&link)).unwrap_err().to_string();
    assert!(msg.contains("symbolic link"), "{msg}");
    assert_eq!(
        std::fs::read_dir(&other).unwrap().count(),
        1,
        "nothing written there"
    );
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn rank_from_top_of_a_group_alone_is_one_not_nan() {
    let base = tmp("rank-alone");
    // Only the nut: no other grains to rank it against.
    let sc = scene(&base, |t| {
        let lattice = t.find("[[bodies]]\ngenerator = \"lattice\"").unwrap();
        let output = t.find("[output]").unwrap();
        let t = format!("{}{}", &t[..lattice], &t[output..]);
        t.replace("duration = 1.2", "duration = 0.2").replace(
            "kind = \"contacts\"",
            "kind = \"rank_from_top\"\nbody = \"nut\"",
        )
    });
    let out = base.join("out");
    let s = run(&sc, &opts(&out)).unwrap();
    assert_eq!(s.observables_final["rank_nut"], 1.0);
    let csv = std::fs::read_to_string(out.join("observables.csv")).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",rank_nut"), "{csv}");
    for line in csv.lines().skip(1) {
        assert!(line.ends_with(",1"), "{line}");
    }
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_body_fallen_beside_the_box_is_no_floor_overlap() {
    let base = tmp("fallen");
    // The box is 1 m wide on a floor at z = 0; one grain lies 1 m below it, 2 m to the side
    // (outside the domain, which is open here so that the world builds).
    let sc = scene(&base, |t| {
        t.replace(
            "[output]",
            "[settings.health]\nescape = \"off\"\n\n[[bodies]]\ngenerator = \"single\"\nname = \"out\"\nradius = 0.04\ndensity = 1.0\nposition = [2.0, 0.0, -1.0]\n\n[output]",
        )
    });
    let world = sc.world_with(Some(1), None).unwrap();
    let q = Quality::measure(&world, sc.bounds.as_ref());
    assert!(q.max_pen_r < 1.0, "max overlap {} r", q.max_pen_r);
    // It left the open domain: discharged, not escaped.
    assert_eq!((q.escaped, q.discharged), (0, 1));
    std::fs::remove_dir_all(&base).unwrap();
}

/// The RGB pixels of the PNG at `path`, with its width and height.
fn decode(path: &Path) -> (u32, u32, Vec<u8>) {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut r = png::Decoder::new(std::io::BufReader::new(f))
        .read_info()
        .unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn frames_tell_materials_and_groups_apart() {
    use grains_app::output::image::category_colour;
    let dir = tmp("materials");
    // The small grains get a second material; snapshots are coloured by material.
    let scene = scene(&dir, |t| {
        t.replace(
            "[[shakers]]",
            "[[materials]]\nname = \"steel\"\nfriction = 0.3\n\n[[shakers]]",
        )
        .replace("name = \"small\"", "name = \"small\"\nmaterial = \"steel\"")
        // ASCII frames, which vtkio reads (it reads no raw binary).
        .replace(
            "colour = \"speed\"",
            "colour = \"material\"\nframe_encoding = \"ascii\"",
        ) + "\n[[observables]]\nkind = \"height\"\nbody = \"small\"\n"
    });
    let out = dir.join("out");
    run(&scene, &opts(&out)).unwrap();

    // ParaView: per-body `material` and `group` arrays beside the existing ones.
    let mut vtk = vtkio::Vtk::import(out.join("frames/frame_000000120.vtu"))
        .unwrap_or_else(|e| panic!("{e:?}"));
    vtk.load_all_pieces().unwrap();
    let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("not an unstructured grid")
    };
    let vtkio::model::Piece::Inline(p) = &pieces[0] else {
        panic!("piece not inline")
    };
    let array = |name: &str| -> Vec<i32> {
        let a = p.data.point.iter().find(|a| a.name() == name);
        match a {
            Some(vtkio::model::Attribute::DataArray(d)) => d.data.clone().cast_into().unwrap(),
            other => panic!("{name}: {other:?}"),
        }
    };
    let names: Vec<&str> = p.data.point.iter().map(|a| a.name()).collect();
    for n in ["radius", "velocity", "angular_velocity", "id"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    // Disks only: no shape codes or axes, and no orientation without `frame_orientation`.
    assert!(
        !names.contains(&"shape") && !names.contains(&"axes") && !names.contains(&"orientation"),
        "{names:?}"
    );
    let (material, group) = (array("material"), array("group"));
    assert_eq!(material.len(), 41);
    assert_eq!((material[0], group[0]), (0, 0), "the nut: grain, group 0");
    assert!(material[1..].iter().all(|&m| m == 1), "{material:?}");
    assert!(group[1..].iter().all(|&g| g == 1), "{group:?}");

    // The snapshot shows both materials' colours; the plots decode at 800 × 400.
    let (_, _, px) = decode(&out.join("images/snapshot_000000120.png"));
    for k in 0..2 {
        let c = category_colour(k);
        assert!(px.chunks(3).any(|p| p == c), "no body of material {k}");
    }
    // The two heights also share a plot.
    for name in ["plot_contacts.png", "plots_mean_centre_height.png"] {
        let (w, h, _) = decode(&out.join("images").join(name));
        assert_eq!((w, h), (800, 400), "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Frames of a world with shaped bodies carry each body's orientation, shape code and `axes`
/// (its own axes in world coordinates scaled by its half-sizes, column by column): a box whose
/// x axis is turned onto y and a sphere, written as ASCII and read back with vtkio.
#[test]
fn frames_carry_orientations_shapes_and_axes() {
    let dir = tmp("axes");
    let p = dir.join("boxes.toml");
    std::fs::write(
        &p,
        "[scene]\nname = \"boxes\"\nduration = 0.01\n\n[settings]\npreset = \"rigid\"\nh = 0.001\n\n\
         [[materials]]\nname = \"m\"\nfriction = 0.5\n\n[[containers]]\nkind = \"floor\"\nz = 0.0\n\n\
         [[bodies]]\ngenerator = \"single\"\nname = \"slab\"\nshape = \"box\"\n\
         half_extents = [0.2, 0.1, 0.05]\ndensity = 1000.0\nposition = [0.0, 0.0, 0.05]\naxis = [0.0, 1.0, 0.0]\n\n\
         [[bodies]]\ngenerator = \"single\"\nname = \"ball\"\nradius = 0.05\ndensity = 1000.0\nposition = [1.0, 0.0, 0.05]\n\n\
         [output]\nevery = 10\nframe_encoding = \"ascii\"\n",
    )
    .unwrap();
    let out = dir.join("out");
    run(&Scene::load(&p).unwrap(), &opts(&out)).unwrap();
    let mut vtk = vtkio::Vtk::import(out.join("frames/frame_000000000.vtu"))
        .unwrap_or_else(|e| panic!("{e:?}"));
    vtk.load_all_pieces().unwrap();
    let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("not an unstructured grid")
    };
    let vtkio::model::Piece::Inline(p) = &pieces[0] else {
        panic!("piece not inline")
    };
    let array = |name: &str| -> Vec<f64> {
        match p.data.point.iter().find(|a| a.name() == name) {
            Some(vtkio::model::Attribute::DataArray(d)) => d.data.clone().cast_into().unwrap(),
            other => panic!("{name}: {other:?}"),
        }
    };
    assert_eq!(array("shape"), [3.0, 0.0], "a box, then a sphere");
    let (q, axes) = (array("orientation"), array("axes"));
    assert_eq!(
        (q.len(), axes.len()),
        (8, 18),
        "4 and 9 components per body"
    );
    // The box's x axis lies along world y, scaled by a = 0.2; its y axis along −x by b = 0.1;
    // its z axis along z by c = 0.05. The sphere's are the world's, scaled by its radius.
    let want_box = [0.0, 0.2, 0.0, -0.1, 0.0, 0.0, 0.0, 0.0, 0.05];
    let want_ball = [0.05, 0.0, 0.0, 0.0, 0.05, 0.0, 0.0, 0.0, 0.05];
    for (k, w) in want_box.iter().chain(&want_ball).enumerate() {
        assert!(
            (axes[k] - w).abs() < 1e-6,
            "axes[{k}] = {} for {w}",
            axes[k]
        );
    }
    let norm = |q: &[f64]| q.iter().map(|x| x * x).sum::<f64>().sqrt();
    assert!((norm(&q[..4]) - 1.0).abs() < 1e-6 && (norm(&q[4..]) - 1.0).abs() < 1e-6);
    std::fs::remove_dir_all(&dir).unwrap();
}
