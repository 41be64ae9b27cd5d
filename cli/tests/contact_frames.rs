//! Force chains: the contact frames of a run parse as VTK line cells with their force data, the
//! forces of the wall contacts in the last one add up to the CSV's wall force, and a resumed run
//! writes the same frames.

use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;
use std::path::{Path, PathBuf};
use vtkio::model::{Attribute, CellType, DataSet, Piece, VertexNumbers};

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

/// The tiny shaker fixture with its box at rest and named `bin`, the contact frames and a
/// `wall_force` column, written to `dir` and loaded.
fn scene(dir: &Path) -> Scene {
    let text = common::fixture("tiny_shaker.toml")
        // A box at rest, so the bed settles on it.
        .replace("kind = \"box\"\n", "kind = \"box\"\nname = \"bin\"\n")
        .replace("height = 2.0\nshaker = \"table\"\n", "height = 2.0\n")
        .replace(
            "colour = \"speed\"\n",
            "colour = \"speed\"\nformats = [\"vtu\", \"csv\", \"png\", \"contacts\"]\n",
        )
        + "\n[[observables]]\nkind = \"wall_force\"\nwall = \"bin\"\n";
    let path = dir.join("tiny.toml");
    std::fs::write(&path, text).unwrap();
    Scene::load(&path).unwrap()
}

#[test]
fn contact_frames_parse_and_agree_with_the_wall_force_column() {
    let base = tmp("parse");
    let scene = scene(&base);
    let out = base.join("out");
    run(&scene, &opts(&out)).unwrap();

    let pvd = std::fs::read_to_string(out.join("contacts.pvd")).unwrap();
    assert_eq!(
        pvd.matches("<DataSet").count(),
        13,
        "frames at steps 0, 10, …, 120"
    );
    assert!(
        pvd.contains("file=\"contacts/contacts_000000120.vtu\""),
        "{pvd}"
    );

    let mut vtk = vtkio::Vtk::import(out.join("contacts/contacts_000000120.vtu"))
        .unwrap_or_else(|e| panic!("{e:?}"));
    vtk.load_all_pieces().unwrap();
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("not an unstructured grid")
    };
    let Piece::Inline(p) = &pieces[0] else {
        panic!("piece not inline")
    };
    let bodies = 41;
    let cells = p.cells.types.len();
    assert!(cells > bodies, "a settled bed has contacts: {cells}");
    assert!(p.cells.types.iter().all(|t| *t == CellType::Line));
    let VertexNumbers::XML { connectivity, .. } = &p.cells.cell_verts else {
        panic!("not XML cells")
    };
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
    let scene = scene(&base);
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
    assert!(cut.join("contacts/contacts_000000040.vtu").exists());
    let resumed = RunOptions {
        resume: true,
        ..opts(&cut)
    };
    run(&scene, &resumed).unwrap();
    let read = |dir: &Path, name: &str| std::fs::read(dir.join(name)).unwrap();
    assert_eq!(read(&whole, "contacts.pvd"), read(&cut, "contacts.pvd"));
    for step in (0..=120).step_by(10) {
        let name = format!("contacts/contacts_{step:09}.vtu");
        assert!(read(&whole, &name) == read(&cut, &name), "{name} differs");
    }
    std::fs::remove_dir_all(&base).unwrap();
}
