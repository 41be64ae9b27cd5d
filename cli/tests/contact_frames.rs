//! Force chains: the contact frames of a run (written as ASCII, for vtkio) parse as VTK poly-data
//! lines with their force data, the forces of the wall contacts in the last one add up to the
//! CSV's wall force, and a resumed run writes the same frames (binary, the default).

use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;
use std::path::{Path, PathBuf};
use vtkio::model::{Attribute, DataSet, Piece, VertexNumbers};

use crate::common;

/// A fresh folder for the test `name`.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-contacts-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn opts(out: &Path) -> RunOptions {
    RunOptions {
        threads: Some(1),
        ..RunOptions::new(out)
    }
}

/// The tiny shaker fixture with its box at rest and named `bin`, the contact frames (their
/// arrays in `encoding`) and a `wall_force` column, written to `dir` and loaded.
fn scene(dir: &Path, encoding: &str) -> Scene {
    let text = common::fixture("tiny_shaker.toml")
        // A box at rest, so the bed settles on it.
        .replace("kind = \"box\"\n", "kind = \"box\"\nname = \"bin\"\n")
        .replace("height = 2.0\nshaker = \"table\"\n", "height = 2.0\n")
        .replace(
            "colour = \"speed\"\n",
            &format!("colour = \"speed\"\nformats = [\"vtu\", \"csv\", \"png\", \"contacts\"]\nframe_encoding = \"{encoding}\"\n"),
        )
        + "\n[[observables]]\nkind = \"wall_force\"\nwall = \"bin\"\n";
    let path = dir.join("tiny.toml");
    std::fs::write(&path, text).unwrap();
    Scene::load(&path).unwrap()
}

#[test]
fn contact_frames_parse_and_agree_with_the_wall_force_column() {
    let base = tmp("parse");
    let scene = scene(&base, "ascii");
    let out = base.join("out");
    run(&scene, &opts(&out)).unwrap();

    let pvd = std::fs::read_to_string(out.join("contacts.pvd")).unwrap();
    assert_eq!(
        pvd.matches("<DataSet").count(),
        13,
        "frames at steps 0, 10, …, 120"
    );
    assert!(
        pvd.contains("file=\"contacts/contacts_000000120.vtp\""),
        "{pvd}"
    );

    let mut vtk = vtkio::Vtk::import(out.join("contacts/contacts_000000120.vtp"))
        .unwrap_or_else(|e| panic!("{e:?}"));
    vtk.load_all_pieces().unwrap();
    let DataSet::PolyData { pieces, .. } = vtk.data else {
        panic!("not poly data")
    };
    let Piece::Inline(p) = &pieces[0] else {
        panic!("piece not inline")
    };
    let bodies = 41;
    assert!(p.verts.is_none() && p.polys.is_none() && p.strips.is_none());
    let Some(VertexNumbers::XML {
        connectivity,
        offsets,
    }) = &p.lines
    else {
        panic!("no XML lines")
    };
    let cells = offsets.len();
    assert!(cells > bodies, "a settled bed has contacts: {cells}");
    assert!(
        offsets
            .iter()
            .enumerate()
            .all(|(k, &o)| o as usize == 2 * (k + 1)),
        "two points a line"
    );
    assert_eq!(connectivity.len(), 2 * cells);
    assert!(connectivity.iter().all(|&i| (i as usize) < p.num_points()));
    let array = |attrs: &[Attribute], name: &str| -> Vec<f64> {
        attrs
            .iter()
            .find_map(|a| match a {
                Attribute::DataArray(d) if d.name == name => d.data.cast_into::<f64>(),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no array {name}"))
    };
    let force = array(&p.data.cell, "force");
    let normal = array(&p.data.cell, "normal_force");
    let gap = array(&p.data.cell, "gap");
    let body_force = array(&p.data.point, "body_force");
    assert_eq!(
        (force.len(), normal.len(), gap.len()),
        (3 * cells, cells, cells)
    );
    assert_eq!(body_force.len(), 3 * p.num_points());
    assert!(normal.iter().all(|&f| f >= 0.0) && normal.iter().any(|&f| f > 0.0));
    // Wall contacts end at a point past the bodies' centres; their forces on the bodies sum to
    // minus the force on the box.
    let on_bodies_z: f64 = (0..cells)
        .filter(|&k| connectivity[2 * k + 1] as usize >= bodies)
        .map(|k| force[3 * k + 2])
        .sum();
    let csv = std::fs::read_to_string(out.join("observables.csv")).unwrap();
    let column = csv
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == "wall_force_bin_z_N")
        .unwrap();
    let last: f64 = csv
        .lines()
        .last()
        .unwrap()
        .split(',')
        .nth(column)
        .unwrap()
        .parse()
        .unwrap();
    assert!(last < 0.0, "the bed presses the box down: {last}");
    assert!(
        (on_bodies_z + last).abs() <= 1e-5 * last.abs(),
        "contact frame {on_bodies_z} N against the column {last} N"
    );
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_resumed_run_writes_the_same_contact_frames() {
    let base = tmp("resume");
    let scene = scene(&base, "binary");
    let whole = base.join("whole");
    run(&scene, &opts(&whole)).unwrap();
    // Cut at step 40 (the last checkpoint at step 25), then resumed: the frames after step 25
    // are removed and written again.
    let cut = base.join("cut");
    let stopped = RunOptions {
        stop_after: Some(40),
        ..opts(&cut)
    };
    assert!(run(&scene, &stopped).unwrap().stopped_early);
    assert!(cut.join("contacts/contacts_000000040.vtp").exists());
    // A `.vtu` contact frame after the checkpoint, as runs from before the `.vtp` ones wrote,
    // is removed too.
    let legacy = cut.join("contacts/contacts_000000030.vtu");
    std::fs::write(&legacy, "<VTKFile").unwrap();
    let resumed = RunOptions {
        resume: true,
        ..opts(&cut)
    };
    run(&scene, &resumed).unwrap();
    assert!(!legacy.exists(), "the stale .vtu frame is removed");
    let read = |dir: &Path, name: &str| std::fs::read(dir.join(name)).unwrap();
    assert_eq!(read(&whole, "contacts.pvd"), read(&cut, "contacts.pvd"));
    for step in (0..=120).step_by(10) {
        let name = format!("contacts/contacts_{step:09}.vtp");
        assert!(read(&whole, &name) == read(&cut, &name), "{name} differs");
    }
    std::fs::remove_dir_all(&base).unwrap();
}
