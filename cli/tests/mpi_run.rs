//! `mpirun -np K grains run SCENE` (feature `mpi`): one folder of outputs that ParaView opens as
//! one data set (every grain in every frame, once), one CSV and one summary, whose figures match
//! one process's run; a run cut short on 2 ranks resumes from its checkpoint on 1 and on 4, and
//! on 2 ends bit-identical to the run left uninterrupted. The whole run on 2 ranks, the whole run
//! in one process and the cut one are each made once and shared by the tests that read them.

use grains::{Snapshot, SnapshotIndex};
use grains_app::output::checkpoint;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The app's tests' reader of the frames in every encoding (vtkio reads no raw binary); only
/// part of it is used here.
#[path = "../../app/tests/vtk_reader.rs"]
#[allow(dead_code)]
mod vtk_reader;

/// The program under test.
const GRAINS: &str = env!("CARGO_BIN_EXE_grains");

/// The distributed pour scene.
fn scene() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/pour_1k_mpi.toml")
}

/// A fresh folder for the test `name`.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-mpirun-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs `grains run` with `args` on `ranks` MPI ranks (one process without mpirun when 0);
/// panics with its output when it fails.
fn grains_run(ranks: usize, args: &[&str]) {
    let mut cmd = match ranks {
        0 => Command::new(GRAINS),
        k => {
            let mut c = Command::new("mpirun");
            // A rank waiting for a message yields its core instead of polling: the tests run
            // side by side on few cores (and the GPU ranks' software device needs them).
            c.args(["--mca", "mpi_yield_when_idle", "1"]);
            c.args([
                "--allow-run-as-root",
                "--oversubscribe",
                "-np",
                &k.to_string(),
            ])
            .arg(GRAINS);
            c
        }
    };
    let out = cmd
        .arg("run")
        .args(args)
        .output()
        .expect("grains (and mpirun, from openmpi-bin) run");
    assert!(
        out.status.success(),
        "grains run on {ranks} ranks failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A number from `summary.json` at the JSON pointer `at`.
fn figure(dir: &Path, at: &str) -> f64 {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("summary.json parses");
    json.pointer(at)
        .and_then(serde_json::Value::as_f64)
        .unwrap_or_else(|| panic!("summary.json has no number at {at}"))
}

/// Asserts that the run in `two` ends with the bed height of one process's run in `one`
/// (within a quarter grain radius, r = 5 mm) and its contacts (within the fraction
/// `contacts`).
fn assert_like_one_process(one: &Path, two: &Path, contacts: f64) {
    let bed = |d: &Path| figure(d, "/observables_final/bed_height_m");
    let count = |d: &Path| figure(d, "/observables_final/contacts");
    assert!(
        (bed(one) - bed(two)).abs() < 0.25 * 0.005,
        "bed {} m on 2 ranks, {} m in one process",
        bed(two),
        bed(one)
    );
    let rel = (count(one) - count(two)).abs() / count(one);
    assert!(rel < contacts, "contacts {} vs {}", count(two), count(one));
}

/// The values of the integer array `a` (UInt32 or UInt64).
fn unsigned(a: &vtk_reader::Array) -> Vec<u64> {
    match a.ty.as_str() {
        "UInt32" => (a.bytes.chunks_exact(4))
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as u64)
            .collect(),
        "UInt64" => (a.bytes.chunks_exact(8))
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect(),
        other => panic!("{}: {other} is not an unsigned type", a.name),
    }
}

/// The arrays a `.pvtu` declares, as (name, type, components), sorted; an unnamed one is
/// named by its element (`Points`), as the reader names a piece's.
fn declared(pvtu: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut rest = pvtu;
    while let Some(p) = rest.find("<PDataArray ") {
        let section = rest[..p]
            .rfind("<P")
            .map(|q| &rest[q + 2..p])
            .and_then(|s| s.split(['>', ' ']).next())
            .unwrap_or("");
        let end = p + rest[p..].find("/>").expect("a closed PDataArray");
        let tag = &rest[p..end];
        let name = vtk_reader::attr(tag, "Name").unwrap_or(section).to_string();
        let ty = vtk_reader::attr(tag, "type").expect("a type").to_string();
        let components =
            vtk_reader::attr(tag, "NumberOfComponents").map_or(1, |c| c.parse().unwrap());
        out.push((name, ty, components));
        rest = &rest[end..];
    }
    out.sort();
    out
}

/// The pieces of the frame `file`: a `.vtu` or `.vtp` alone, or each piece a `.pvtu` or `.pvtp`
/// names, each of which must declare the arrays the parallel file does, with their types.
fn frame_pieces(file: &Path) -> Vec<vtk_reader::VtkFile> {
    let read = |p: &Path| {
        vtk_reader::read(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
    };
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("pvtu") => "PUnstructuredGrid",
        Some("pvtp") => "PPolyData",
        _ => return vec![read(file)],
    };
    let text = std::fs::read_to_string(file).expect("the parallel file");
    assert!(
        text.contains(&format!("<VTKFile type=\"{kind}\"")),
        "{text}"
    );
    let want = declared(&text);
    let sources: Vec<&str> = text
        .match_indices("<Piece Source=\"")
        .map(|(at, key)| {
            let s = &text[at + key.len()..];
            &s[..s.find('"').expect("a closed Source")]
        })
        .collect();
    assert!(!sources.is_empty(), "{text}");
    sources
        .iter()
        .map(|s| {
            let piece = read(&file.with_file_name(s));
            let mut have: Vec<(String, String, usize)> = (piece.arrays.iter())
                .filter(|a| a.name != "TimeValue")
                .map(|a| (a.name.clone(), a.ty.clone(), a.components))
                .collect();
            have.sort();
            assert_eq!(have, want, "{s}: the arrays the parallel file declares");
            piece
        })
        .collect()
}

/// The values of the Float32 array `a`, in threes.
fn triples(a: &vtk_reader::Array) -> Vec<[f32; 3]> {
    assert_eq!((a.ty.as_str(), a.components), ("Float32", 3), "{}", a.name);
    (a.bytes.chunks_exact(12))
        .map(|b| {
            let x = |k: usize| f32::from_le_bytes(b[4 * k..4 * k + 4].try_into().expect("4 bytes"));
            [x(0), x(1), x(2)]
        })
        .collect()
}

/// The grains of the frame `file`, a `.vtu` or a `.pvtu` with the pieces it names
/// ([`frame_pieces`]), as (id, centre) in the order the files hold them, and the number of
/// bodies in each piece.
fn frame_grains(file: &Path) -> (Vec<(u64, [f32; 3])>, Vec<usize>) {
    let mut grains = Vec::new();
    let mut sizes = Vec::new();
    for piece in &frame_pieces(file) {
        let ids = unsigned(piece.array("id"));
        let centres = triples(piece.array("Points"));
        assert_eq!(centres.len(), ids.len(), "a centre per id");
        sizes.push(ids.len());
        grains.extend(ids.into_iter().zip(centres));
    }
    (grains, sizes)
}

/// The frames of `dir` the `.pvd` index lists, in order (`.vtu` of one process, `.pvtu` of
/// several ranks).
fn listed_frames(dir: &Path) -> Vec<PathBuf> {
    let pvd = std::fs::read_to_string(dir.join("grains.pvd")).expect("grains.pvd");
    pvd.match_indices("file=\"")
        .map(|(at, key)| {
            let s = &pvd[at + key.len()..];
            dir.join(&s[..s.find('"').expect("a closed file")])
        })
        .collect()
}

/// The ids in the last frame of `dir` (its pieces' together), sorted.
fn last_frame_ids(dir: &Path) -> Vec<u64> {
    let frames = listed_frames(dir);
    let last = frames.last().expect("a frame");
    let (grains, _) = frame_grains(last);
    let mut ids: Vec<u64> = grains.iter().map(|g| g.0).collect();
    ids.sort_unstable();
    ids
}

/// The outputs of a run that several tests read: made once, by the first test that asks for
/// them, and removed by the last of its users to call [`Shared::done`].
struct Shared {
    dir: PathBuf,
    users: AtomicUsize,
}

impl Shared {
    /// Runs `grains run` of the shared scene ([`shared_scene`]) on `ranks` ranks (one process
    /// when 0) with `args` and the folder `name`, for `users` tests.
    fn run(ranks: usize, name: &str, args: &[&str], users: usize) -> Shared {
        let dir = tmp(name);
        let scene = shared_scene();
        let out = ["--out", dir.to_str().expect("a UTF-8 path")];
        grains_run(
            ranks,
            &[&[scene.to_str().expect("a UTF-8 path")], args, &out].concat(),
        );
        Shared {
            dir,
            users: AtomicUsize::new(users),
        }
    }

    /// One of the users is done with the folder; the last removes it.
    fn done(&self) {
        if self.users.fetch_sub(1, Ordering::SeqCst) == 1 {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The scene of the shared runs: the distributed pour with contact frames and the box's load
/// ([`scene_with_loads`]), so that one run on 2 ranks and one in one process serve the data
/// set's test, the contact frames' and the resumes'. Written once, into a folder of its own
/// that stays (one small file).
fn shared_scene() -> &'static Path {
    static SCENE: OnceLock<PathBuf> = OnceLock::new();
    SCENE.get_or_init(|| scene_with_loads(&tmp("shared_scene")))
}

/// The whole scene on 2 ranks, read by the data set's test, the frame pieces', the contact
/// frames', the summary's, the snapshots' and the bit-for-bit resume's (one run instead of
/// six).
fn whole_on_two_ranks() -> &'static Shared {
    static WHOLE: OnceLock<Shared> = OnceLock::new();
    WHOLE.get_or_init(|| Shared::run(2, "whole2", &[], 7))
}

/// The whole scene in one process, read by the data set's test, the contact frames' and the
/// snapshots' (one run instead of three).
fn whole_in_one_process() -> &'static Shared {
    static ONE: OnceLock<Shared> = OnceLock::new();
    ONE.get_or_init(|| Shared::run(0, "one", &[], 3))
}

/// The scene cut at step 120 on 2 ranks, its folder copied by each of the three resumes (one
/// run instead of three).
fn cut_on_two_ranks() -> &'static Shared {
    static CUT: OnceLock<Shared> = OnceLock::new();
    CUT.get_or_init(|| Shared::run(2, "cut2", &["--steps", "120"], 4))
}

/// Copies the folder `from` (files and folders) to `to`.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("the folder reads") {
        let path = entry.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_folder(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("a file copied");
        }
    }
}

/// Two ranks write one set of outputs whose figures match one process's: every grain once in
/// the frames, as many CSV rows, the same bed height within a quarter radius and contacts
/// within 0.5 %; the summary's mean contacts, over every step (not only the 5 steps whose
/// bodies were gathered), within 2 %.
#[test]
fn two_ranks_write_one_data_set_that_matches_one_process() {
    let in_one = whole_in_one_process();
    let one = in_one.dir.clone();
    let shared = whole_on_two_ranks();
    let two = shared.dir.clone();
    let ids = last_frame_ids(&two);
    assert_eq!(ids, (0..1000).collect::<Vec<u64>>(), "every grain once");
    let rows = |d: &Path| {
        std::fs::read_to_string(d.join("observables.csv"))
            .expect("observables.csv")
            .lines()
            .count()
    };
    assert_eq!(rows(&one), rows(&two), "as many samples");
    assert_like_one_process(&one, &two, 0.005);
    let mean = |d: &Path| figure(d, "/contacts_mean");
    let rel = (mean(&one) - mean(&two)).abs() / mean(&one);
    assert!(
        rel < 0.02,
        "mean contacts {} on 2 ranks, {} in one process",
        mean(&two),
        mean(&one)
    );
    assert_eq!(figure(&two, "/steps"), 250.0);
    in_one.done();
    shared.done();
}

/// On 2 ranks every frame is a `.pvtu` (the `.pvd` lists them) naming one piece a rank, which
/// that rank wrote of the grains it owns: each piece declares the arrays of the `.pvtu` with
/// its types, neither is empty and together they hold every grain once, in the frame of step
/// 0 too (split as the first step splits the bed); the last frame's centres, by id, are those
/// of the final checkpoint bit for bit.
#[test]
fn two_ranks_write_one_piece_each_of_every_frame() {
    let shared = whole_on_two_ranks();
    let dir = shared.dir.clone();
    let frames = listed_frames(&dir);
    assert_eq!(frames.len(), 11, "steps 0 to 250, every 25");
    for f in &frames {
        let name = f.display();
        assert_eq!(
            f.extension().and_then(|e| e.to_str()),
            Some("pvtu"),
            "{name}"
        );
        let (grains, sizes) = frame_grains(f);
        assert_eq!(sizes.len(), 2, "{name}: one piece a rank");
        assert!(
            sizes.iter().all(|&n| n > 0),
            "{name}: pieces of {sizes:?} grains"
        );
        let mut ids: Vec<u64> = grains.iter().map(|g| g.0).collect();
        ids.sort_unstable();
        assert_eq!(
            ids,
            (0..1000).collect::<Vec<u64>>(),
            "{name}: every grain once"
        );
    }
    let (grains, _) = frame_grains(frames.last().expect("a frame"));
    let state = checkpoint_state(&dir);
    assert_eq!(state.steps, 250, "the final checkpoint");
    for (id, centre) in grains {
        let i = id as usize;
        assert!(
            state.ids.is_empty() || state.ids[i] == id,
            "ids are indices here"
        );
        let want = state.bodies.pos_radius[i].truncate().to_array();
        assert_eq!(
            centre.map(f32::to_bits),
            want.map(f32::to_bits),
            "grain {id}: the frame's centre {centre:?}, the checkpoint's {want:?}"
        );
    }
    shared.done();
}

/// The run of the scene cut at step 120 on 2 ranks ([`cut_on_two_ranks`]) copied to a fresh
/// folder for the test `name`, resumed on `resume_on` ranks (one process when 0) to its end;
/// returns the folder.
fn cut_and_resume(name: &str, resume_on: usize) -> PathBuf {
    let scene = shared_scene().to_str().expect("a UTF-8 path");
    let dir = tmp(name);
    let d = dir.to_str().unwrap();
    let cut = cut_on_two_ranks();
    copy_folder(&cut.dir, &dir);
    cut.done();
    assert_eq!(figure(&dir, "/steps"), 120.0);
    grains_run(resume_on, &[scene, "--resume", d]);
    assert_eq!(figure(&dir, "/steps"), 250.0);
    assert_eq!(figure(&dir, "/resumed_from_step"), 120.0);
    dir
}

/// Checks that the run in `dir`, resumed on `ranks` ranks (one process when 0), finished: every
/// grain in its last frame, the step's contacts in the pieces of its last contact frame, one a
/// rank, and its final checkpoint whole (one process or one rank) or in one piece a rank,
/// with no other piece left.
fn assert_finished(dir: &Path, ranks: usize) {
    assert_eq!(figure(dir, "/steps"), 250.0);
    assert_eq!(last_frame_ids(dir), (0..1000).collect::<Vec<u64>>());
    let contacts = contacts_at(dir, 250);
    assert_eq!(contacts.pieces, ranks.max(1), "one piece a rank");
    let count = figure(dir, "/observables_final/contacts");
    assert_eq!(contacts.lines.len() as f64, count, "the step's contacts");
    let pieces = if ranks > 1 {
        pieces_of(250, ranks)
    } else {
        Vec::new()
    };
    assert_eq!(
        pieces_in(dir),
        pieces,
        "the final checkpoint's pieces alone"
    );
    assert_eq!(checkpoint_state(dir).steps, 250);
}

/// A run cut short on 2 ranks (its checkpoint at step 120 in two pieces, written by the ranks)
/// resumes on 1 rank and finishes; resumed on 4 ranks to step 200, its checkpoint there is in
/// four pieces (the two-rank ones removed), which resume in one process, on 2 ranks and on 4,
/// each to the end.
#[test]
fn a_checkpoint_of_two_ranks_resumes_on_one_and_on_four() {
    let dir = cut_and_resume("resume1", 1);
    assert_finished(&dir, 1);
    let _ = std::fs::remove_dir_all(dir);
    let scene = shared_scene().to_str().expect("a UTF-8 path");
    let four = tmp("resume4");
    let cut = cut_on_two_ranks();
    copy_folder(&cut.dir, &four);
    cut.done();
    grains_run(
        4,
        &[scene, "--resume", four.to_str().unwrap(), "--steps", "200"],
    );
    assert_eq!(figure(&four, "/steps"), 200.0);
    assert_eq!(
        pieces_in(&four),
        pieces_of(200, 4),
        "four pieces at step 200"
    );
    for ranks in [0, 2, 4] {
        let dir = tmp(&format!("resume4on{ranks}"));
        copy_folder(&four, &dir);
        grains_run(ranks, &[scene, "--resume", dir.to_str().unwrap()]);
        assert_eq!(figure(&dir, "/resumed_from_step"), 200.0);
        assert_finished(&dir, ranks);
        let _ = std::fs::remove_dir_all(dir);
    }
    let _ = std::fs::remove_dir_all(four);
}

/// The run cut at step 120 on 2 ranks leaves an index and its two pieces, no other; damaged
/// in each way below, its resume (in one process, and on 2 ranks for a missing piece) is
/// refused with one error line naming the piece and what is wrong, and no panic.
#[test]
fn a_damaged_checkpoint_of_two_ranks_is_refused_naming_the_piece() {
    let cut = cut_on_two_ranks();
    assert_eq!(
        pieces_in(&cut.dir),
        pieces_of(120, 2),
        "the pieces at step 120"
    );
    let index = std::fs::read(cut.dir.join("checkpoint.bin")).expect("checkpoint.bin");
    assert!(
        SnapshotIndex::is_index(&index),
        "checkpoint.bin is an index"
    );
    let whole = whole_on_two_ranks();
    let later = std::fs::read(whole.dir.join(checkpoint::piece_name(250, 1))).expect("a piece");
    whole.done();
    let (r0, r1) = (
        checkpoint::piece_name(120, 0),
        checkpoint::piece_name(120, 1),
    );
    let read = |d: &Path, name: &str| std::fs::read(d.join(name)).expect("a piece");
    let write = |d: &Path, name: &str, bytes: &[u8]| std::fs::write(d.join(name), bytes).unwrap();
    // A piece's counts start after its 12-byte header: step, then the state tag.
    let forge = |d: &Path, at: usize| {
        let mut bytes = read(d, &r1);
        bytes[at] ^= 1;
        grains::snapshot::seal(&mut bytes);
        write(d, &r1, &bytes);
    };
    type Damage<'a> = Box<dyn Fn(&Path) + 'a>;
    fn case<'a>(
        name: &'a str,
        damage: impl Fn(&Path) + 'a,
        said: &'a str,
    ) -> (&'a str, Damage<'a>, &'a str) {
        (name, Box::new(damage), said)
    }
    let cases = [
        case(
            "missing",
            |d: &Path| std::fs::remove_file(d.join(&r1)).unwrap(),
            "is missing",
        ),
        case(
            "truncated",
            |d: &Path| {
                let bytes = read(d, &r1);
                write(d, &r1, &bytes[..bytes.len() / 2]);
            },
            "truncated",
        ),
        case(
            "bad crc",
            |d: &Path| {
                let mut bytes = read(d, &r1);
                let at = bytes.len() / 2;
                bytes[at] ^= 0x40;
                write(d, &r1, &bytes);
            },
            "checksum mismatch",
        ),
        case(
            "another step",
            |d: &Path| write(d, &r1, &later),
            "a piece of step 250, the index is of step 120",
        ),
        case(
            "another run",
            |d: &Path| forge(d, 20),
            "a piece of another run",
        ),
        case("forged", |d: &Path| forge(d, 200), "the index says"),
        case(
            "another rank",
            |d: &Path| write(d, &r1, &read(d, &r0)),
            "rank 0 of 2's piece, the index names it as rank 1 of 2's",
        ),
        case(
            "outside the folder",
            |d: &Path| {
                let bytes = read(d, "checkpoint.bin");
                let mut index = SnapshotIndex::from_bytes(&bytes).expect("the index reads");
                index.pieces[1].name = "../../escape.bin".into();
                write(d, "checkpoint.bin", &index.to_bytes());
            },
            "names \"../../escape.bin\" as rank 1's piece",
        ),
    ];
    let scene = shared_scene().to_str().expect("a UTF-8 path");
    for (name, damage, said) in &cases {
        let dir = tmp(&format!("damaged-{}", name.replace(' ', "-")));
        copy_folder(&cut.dir, &dir);
        damage(&dir);
        let out = Command::new(GRAINS)
            .args(["run", scene, "--resume", dir.to_str().unwrap()])
            .output()
            .expect("grains runs");
        let error = one_error_line(out.status, &String::from_utf8_lossy(&out.stderr));
        assert!(!error.contains("panicked"), "{name}: {error}");
        assert!(error.contains(said), "{name}: {error}");
        let names_file = error.contains(&r1) || error.contains("checkpoint.bin");
        assert!(names_file, "{name}: the file is named: {error}");
        if *name == "missing" {
            let error = failing_run_on_two_ranks(&[scene, "--resume", dir.to_str().unwrap()]);
            assert!(error.contains(said) && error.contains(&r1), "{error}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }
    cut.done();
}

/// `grains validate` under mpirun is refused on every rank, with one line saying to start it
/// without mpirun (its cases are single-process worlds, which each rank would run whole).
#[test]
fn validate_under_mpirun_is_refused() {
    let out = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "2", GRAINS])
        .args(["validate", "V1"])
        .output()
        .expect("grains and mpirun run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "refused: {stderr}");
    let said = "error: `grains validate` runs in one process; start it without mpirun";
    assert_eq!(
        stderr.matches(said).count(),
        2,
        "each rank says why: {stderr}"
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("V1"),
        "no case ran"
    );
}

/// The distributed pour scene with its box named `bin`, contact frames among its formats and
/// the box's `wall_force` among its observables, written into `dir`.
fn scene_with_loads(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(scene()).expect("the scene");
    let text = text
        .replace(
            "kind = \"pour_box\"\n",
            "kind = \"pour_box\"\nname = \"bin\"\n",
        )
        .replace(
            "formats = [\"vtu\", \"csv\"]",
            "formats = [\"vtu\", \"csv\", \"contacts\", \"png\"]",
        );
    let text = format!("{text}\n[[observables]]\nkind = \"wall_force\"\nwall = \"bin\"\n");
    std::fs::create_dir_all(dir).expect("a folder");
    let file = dir.join("pour_loads.toml");
    std::fs::write(&file, text).expect("the scene written");
    file
}

/// One contact of a contact frame: its first body's id, its partner (a body's id, or `None`
/// for a wall), the bits of the partner's point (the wall's contact point), and its force (N).
type Line = (u64, Option<u64>, [u32; 3], [f32; 3]);

/// The contacts of a contact frame, read back from its pieces (one `.vtp` in one process).
struct ContactLines {
    /// Each contact.
    lines: Vec<Line>,
    /// The pieces' `body_force` over all their points, summed (N).
    body_forces: [f64; 3],
    /// The number of pieces.
    pieces: usize,
}

/// The contact frame `file` (a `.vtp`, or a `.pvtp` and its pieces, [`frame_pieces`]) whose
/// line ends are told apart by the grain centres `grains` (the grain frame of the same step):
/// a point at a grain's centre, bit for bit, is that grain; any other is a wall's contact
/// point. Every line starts at a grain.
fn contact_lines(file: &Path, grains: &[(u64, [f32; 3])]) -> ContactLines {
    let bits = |p: [f32; 3]| p.map(f32::to_bits);
    let ids: std::collections::HashMap<[u32; 3], u64> =
        grains.iter().map(|&(id, c)| (bits(c), id)).collect();
    let pieces = frame_pieces(file);
    let mut out = ContactLines {
        lines: Vec::new(),
        body_forces: [0.0; 3],
        pieces: pieces.len(),
    };
    for piece in &pieces {
        let points = triples(piece.array("Points"));
        let ends: Vec<usize> = (piece.array("connectivity").bytes.chunks_exact(4))
            .map(|b| i32::from_le_bytes(b.try_into().expect("Int32")) as usize)
            .collect();
        let forces = triples(piece.array("force"));
        assert_eq!(ends.len(), 2 * forces.len(), "two ends and a force a line");
        for (line, force) in ends.chunks_exact(2).zip(forces) {
            let (a, b) = (bits(points[line[0]]), bits(points[line[1]]));
            let first = *ids.get(&a).expect("a line starts at a grain's centre");
            out.lines.push((first, ids.get(&b).copied(), b, force));
        }
        let body_forces = triples(piece.array("body_force"));
        assert_eq!(body_forces.len(), points.len(), "a body force a point");
        for f in body_forces {
            for (sum, x) in out.body_forces.iter_mut().zip(f) {
                *sum += f64::from(x);
            }
        }
    }
    out
}

/// The grains of the frame and the contacts of the contact frame of step `step` in `dir`
/// ([`contact_lines`]).
fn contacts_at(dir: &Path, step: u64) -> ContactLines {
    let grains = |ext: &str| dir.join(format!("frames/frame_{step:09}.{ext}"));
    let contacts = |ext: &str| dir.join(format!("contacts/contacts_{step:09}.{ext}"));
    let ext = match contacts("pvtp").exists() {
        true => ("pvtu", "pvtp"),
        false => ("vtu", "vtp"),
    };
    let (grains, _) = frame_grains(&grains(ext.0));
    contact_lines(&contacts(ext.1), &grains)
}

/// Under mpirun each rank writes the contacts it solved as its piece of every contact frame,
/// and rank 0 a `.pvtp` naming the pieces (the `.pvd` lists them): every piece declares the
/// `.pvtp`'s arrays, and the last frame's pieces together hold the step's contacts (the
/// summary's count), each pair once, every line from a grain's centre to its partner's or to
/// a wall's contact point. Those lines' forces on the walls, and the bodies' contact forces
/// (each body's total once, at its owner's point), balance the box's load of the CSV, within
/// 1e-5 of the bed's weight (a contact left out, or a shared body's force left without the
/// other rank's share, is off by about a grain's weight, 1e-3 of the bed's), and that load
/// is the resting bed's weight, as in one process (within 1 %). The runs are the shared ones
/// ([`whole_on_two_ranks`], [`whole_in_one_process`]), whose scene writes contact frames and
/// the box's load.
#[test]
fn two_ranks_write_contact_frames_and_wall_loads() {
    let (in_one, on_two) = (whole_in_one_process(), whole_on_two_ranks());
    let (one, two) = (&in_one.dir, &on_two.dir);
    let pvd = std::fs::read_to_string(two.join("contacts.pvd")).expect("contacts.pvd");
    assert_eq!(pvd.matches(".pvtp\"").count(), 11, "{pvd}");
    let frame = contacts_at(two, 250);
    assert_eq!(frame.pieces, 2, "one piece a rank");
    let count = figure(two, "/observables_final/contacts");
    assert_eq!(frame.lines.len() as f64, count, "the step's contacts");
    let mut pairs: Vec<(u64, Option<u64>, [u32; 3])> = (frame.lines.iter())
        .map(|&(a, b, p, _)| match b {
            Some(b) => (a.min(b), Some(a.max(b)), [0; 3]),
            None => (a, None, p),
        })
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    assert_eq!(pairs.len(), frame.lines.len(), "each contact once");
    let load = |d: &Path| figure(d, "/observables_final/wall_force_bin_z_N");
    let weight = 1000.0 * 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.005f64.powi(3) * 9.81;
    let on_walls: f64 = (frame.lines.iter())
        .filter(|l| l.1.is_none())
        .map(|l| -f64::from(l.3[2]))
        .sum();
    for (what, f) in [
        ("the walls' lines", on_walls),
        ("the bodies' forces", -frame.body_forces[2]),
    ] {
        assert!(
            (f - load(two)).abs() < 1e-5 * weight,
            "{what}: {f} N on the walls, the CSV's load {} N",
            load(two)
        );
    }
    for (run, f) in [("one process", load(one)), ("2 ranks", load(two))] {
        assert!(
            (f + weight).abs() < 0.01 * weight,
            "{run}: the box carries {f} N, the bed weighs {weight} N"
        );
    }
    in_one.done();
    on_two.done();
}

/// On one rank under mpirun the run is one process's, bit for bit, and so are its outputs of
/// the contacts: the contact frame's one piece is one process's `.vtp` byte for byte (the
/// wall contacts' points, the forces, the index types), and `observables.csv`, with the box's
/// load, is one process's byte for byte (the ranks' sums of one rank are its own).
#[test]
fn one_rank_writes_the_contacts_and_loads_of_one_process() {
    let scene = shared_scene().to_str().expect("a UTF-8 path");
    let dirs = [tmp("contacts-one"), tmp("contacts-rank")];
    for (ranks, dir) in [0, 1].into_iter().zip(&dirs) {
        let out = dir.to_str().expect("a UTF-8 path");
        grains_run(ranks, &[scene, "--steps", "50", "--out", out]);
    }
    let [one, rank] = &dirs;
    let read = |p: PathBuf| std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let (a, b) = (
        read(one.join("contacts/contacts_000000050.vtp")),
        read(rank.join("contacts/contacts_000000050_r0.vtp")),
    );
    assert!(a.len() > 10_000, "a frame with contacts");
    assert!(
        a == b,
        "the piece of one rank differs from one process's frame"
    );
    let pvtp = String::from_utf8(read(rank.join("contacts/contacts_000000050.pvtp")))
        .expect("the .pvtp is text");
    assert!(
        pvtp.contains("<Piece Source=\"contacts_000000050_r0.vtp\"/>"),
        "{pvtp}"
    );
    let csv = |d: &Path| read(d.join("observables.csv"));
    assert!(csv(one) == csv(rank), "observables.csv differs");
    let png = |d: &Path| read(d.join("images/snapshot_000000050.png"));
    assert!(png(one) == png(rank), "the rank's snapshot differs");
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The state of the checkpoint in `dir` (whole, or joined from its pieces), without the
/// runner's record (which holds wall-clock times).
fn checkpoint_state(dir: &Path) -> Snapshot {
    let mut snap = checkpoint::load(dir).expect("the checkpoint reads");
    snap.extra.clear();
    snap
}

/// The checkpoint pieces in `dir`, by name, sorted.
fn pieces_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the folder reads")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.starts_with("checkpoint_"))
        .collect();
    names.sort();
    names
}

/// The pieces a checkpoint at `step` of `ranks` ranks leaves, and none other.
fn pieces_of(step: u64, ranks: usize) -> Vec<String> {
    (0..ranks)
        .map(|k| checkpoint::piece_name(step, k))
        .collect()
}

/// On 2 ranks each rank paints the grains it owns and the ranks composite the snapshot, the
/// bed not gathered: the snapshot of step 0 (the scene's grains as built, the state of one
/// process's run too) is one process's byte for byte, and every snapshot is written.
#[test]
fn two_ranks_draw_the_snapshots_of_one_process() {
    let (in_one, on_two) = (whole_in_one_process(), whole_on_two_ranks());
    let png = |d: &Path, step: u64| std::fs::read(d.join(format!("images/snapshot_{step:09}.png")));
    let first = png(&in_one.dir, 0).expect("one process's first snapshot");
    assert!(first.len() > 1000, "a snapshot");
    assert!(
        png(&on_two.dir, 0).ok() == Some(first),
        "the first snapshots differ"
    );
    for step in (0..=250).step_by(25) {
        assert!(png(&on_two.dir, step).is_ok(), "no snapshot of step {step}");
    }
    in_one.done();
    on_two.done();
}

/// The summary's quality figures of a run on 2 ranks, which each rank measures on its own
/// bodies and their neighbours of the other rank, reduced over the ranks without gathering the
/// bed, are those of its end state gathered: its final checkpoint restored into one process's
/// world and measured there. The deepest overlaps, the bed's height and the grains that left
/// are the same numbers (to 1e-15, summary.json's text read back); the mean overlap agrees to
/// 1e-12 (its sum is added in another order).
#[test]
fn the_summary_of_two_ranks_measures_the_end_state_as_gathered() {
    use grains_app::output::Quality;
    let shared = whole_on_two_ranks();
    let scene = grains_app::scene::Scene::load(shared_scene()).expect("the scene loads");
    let mut world = scene.world(Some(1)).expect("the world builds");
    world
        .restore(&checkpoint_state(&shared.dir))
        .expect("the final checkpoint restores");
    assert_eq!(world.steps(), 250);
    let gathered = Quality::measure_boxes(&world, &scene.boxes);
    let reduced = |at: &str| figure(&shared.dir, &format!("/quality/{at}"));
    assert!(gathered.max_pen_r > 0.0, "the bed overlaps somewhere");
    // The same number, as far as summary.json's text says it: serde_json reads a float back to
    // within a unit in the last place or two.
    let same = |at: &str, g: f64, within: f64| {
        let r = reduced(at);
        assert!(
            (r - g).abs() <= within * g.abs(),
            "{at} {r} on 2 ranks, {g} gathered"
        );
    };
    same("max_pen_r", gathered.max_pen_r, 1e-15);
    same("wall_max_pen_r", gathered.wall_max_pen_r, 1e-15);
    same("bed_z95_r", gathered.bed_z95_r, 1e-15);
    same("mean_pen_r", gathered.mean_pen_r, 1e-12);
    for (at, n) in [
        ("escaped", gathered.escaped),
        ("discharged", gathered.discharged),
        ("non_finite", gathered.non_finite),
    ] {
        assert_eq!(reduced(at), n as f64, "{at}");
    }
    shared.done();
}

/// A run cut short on 2 ranks at step 120 (not a multiple of the rebalance interval, 100) and
/// resumed on 2 ends bit-identical to the 2-rank run left uninterrupted: the same frames,
/// contact frames and observables, byte for byte, and the same final checkpoint (bodies, warm
/// start and cuts).
#[test]
fn a_checkpoint_of_two_ranks_resumes_on_two_bit_for_bit() {
    let shared = whole_on_two_ranks();
    let whole = shared.dir.clone();
    let resumed = cut_and_resume("resume2", 2);
    let files = |d: &Path| {
        let mut names: Vec<PathBuf> = ["frames", "contacts"]
            .iter()
            .flat_map(|f| std::fs::read_dir(d.join(f)).expect("frames/ and contacts/"))
            .map(|e| e.expect("an entry").path())
            .collect();
        names.sort();
        let files: Vec<(std::ffi::OsString, Vec<u8>)> = names
            .iter()
            .map(|p| (p.file_name().unwrap().to_owned(), std::fs::read(p).unwrap()))
            .collect();
        files
    };
    let (a, b) = (files(&whole), files(&resumed));
    assert_eq!(a.len(), b.len(), "as many frames");
    assert!(
        a.iter().any(|f| f.0 == "contacts_000000250_r1.vtp"),
        "contact pieces"
    );
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name:?} differs after the resume");
    }
    let csv = |d: &Path| std::fs::read(d.join("observables.csv")).expect("observables.csv");
    assert!(csv(&whole) == csv(&resumed), "observables.csv differs");
    let state = checkpoint_state(&resumed);
    assert!(
        state.cuts.is_some(),
        "a distributed run's checkpoint has its cuts"
    );
    assert!(
        state == checkpoint_state(&whole),
        "the final checkpoint differs"
    );
    let _ = std::fs::remove_dir_all(resumed);
    shared.done();
}

/// A rank that mpirun bound to fewer CPUs than its worker threads (Open MPI binds each rank to
/// one core by default with 2 ranks or fewer, where its threads would take turns) is warned
/// about, on rank 0, with the mpirun options that give it more; unbound, it is not.
#[test]
fn a_rank_bound_to_fewer_cores_than_its_threads_is_warned_about() {
    let scene = scene();
    for (binding, warned) in [("core", true), ("none", false)] {
        let dir = tmp(&format!("bound-{binding}"));
        let out = Command::new("mpirun")
            .args([
                "--allow-run-as-root",
                "--bind-to",
                binding,
                "-np",
                "1",
                GRAINS,
            ])
            .arg("run")
            .arg(&scene)
            .args(["--steps", "5", "--threads", "2", "--out"])
            .arg(&dir)
            .output()
            .expect("grains and mpirun run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "--bind-to {binding}: {stderr}");
        let said = "warning: each rank steps on 2 worker threads, but mpirun bound rank 0 to 1 CPU";
        assert_eq!(
            stderr.contains(said),
            warned,
            "--bind-to {binding}: {stderr}"
        );
        if warned {
            assert!(stderr.contains("--bind-to none"), "{stderr}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A run whose steps fail (projected Jacobi undamped, ω = 1, which diverges on the pile) fails
/// on every rank alike: the job ends non-zero with one error line, rank 0's, naming the step
/// and the diverged body with the advice to lower ω (its state gathered at the first step
/// whose summed kinetic energy is not finite, between the gathers every 50 steps), and
/// without MPI_Abort (every rank ends by itself, none left waiting).
#[test]
fn a_failing_step_ends_every_rank_with_one_error() {
    let dir = tmp("diverging");
    std::fs::create_dir_all(&dir).expect("a folder");
    let text = std::fs::read_to_string(scene()).expect("the scene");
    let text = text
        .replace("solver = \"apgd\"", "solver = \"jacobi\"")
        .replace("tolerance = 1e-5", "tolerance = 0");
    let file = dir.join("diverging.toml");
    std::fs::write(&file, text).expect("the scene written");
    let (out, file) = (dir.join("out"), file.to_str().expect("a UTF-8 path"));
    let error = failing_run_on_two_ranks(&[file, "--out", out.to_str().unwrap()]);
    assert!(error.starts_with("error: step "), "{error}");
    assert!(
        error.contains("is not finite") && error.contains("lower omega"),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Runs `grains run` with `args` on 2 ranks, checks that it fails with one error line and no
/// MPI_Abort, and returns that line.
fn failing_run_on_two_ranks(args: &[&str]) -> String {
    let out = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "2", GRAINS])
        .arg("run")
        .args(args)
        .output()
        .expect("grains and mpirun run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the run fails: {stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "one error line: {stderr}");
    assert!(!stderr.contains("MPI_ABORT"), "no abort: {stderr}");
    errors[0].to_string()
}

/// A scene every rank refuses alike (here the GPU backend, which stops at no tolerance and
/// does not run distributed) ends the job with one error line, rank 0's, and no MPI_Abort.
#[test]
fn a_refused_scene_ends_every_rank_with_one_error() {
    let (dir, scene) = (tmp("refused"), scene());
    let (dir_arg, scene_arg) = (dir.to_str().unwrap(), scene.to_str().unwrap());
    let error = failing_run_on_two_ranks(&[scene_arg, "--backend", "gpu", "--out", dir_arg]);
    assert!(error.starts_with("error: "), "{error}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The distributed scene on the GPU backend (tolerance 0, as the GPU asks), in `dir`.
fn gpu_scene(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(scene()).expect("the scene");
    let text = text.replace("tolerance = 1e-5", "tolerance = 0");
    assert!(text.contains("tolerance = 0"), "the scene's tolerance line");
    std::fs::create_dir_all(dir).expect("a folder");
    let path = dir.join("pour_gpu.toml");
    std::fs::write(&path, text).expect("written");
    path
}

/// `mpirun -np 2 grains run SCENE --backend gpu` steps each rank's bodies on its GPU (Mesa's
/// software device here): 50 steps of the APGD pour (its grains landed, about 2,270 contacts)
/// write one data set with every grain once, a summary naming the adapter, and the bed height
/// and contacts of one GPU process's run (within r/4 and 1 %; on Mesa's device they agreed to
/// 2e-8 m and to the contact).
#[test]
fn two_gpu_ranks_run_the_scene_like_one_gpu() {
    let base = tmp("gpu");
    let scene = gpu_scene(&base);
    let scene = scene.to_str().expect("a UTF-8 path");
    let (one, two) = (base.join("one"), base.join("two"));
    let probe = Command::new(GRAINS)
        .args(["run", scene, "--backend", "gpu", "--steps", "50", "--out"])
        .arg(&one)
        .output()
        .expect("grains runs");
    if !probe.status.success() {
        let text = String::from_utf8_lossy(&probe.stderr);
        assert!(
            text.contains("no GPU adapter"),
            "one GPU process failed: {text}"
        );
        eprintln!("skipped: no GPU adapter");
        return;
    }
    let args = [scene, "--backend", "gpu", "--steps", "50", "--out"];
    grains_run(2, &[&args[..], &[two.to_str().unwrap()]].concat());
    assert_eq!(last_frame_ids(&two), (0..1000).collect::<Vec<u64>>());
    let summary = std::fs::read_to_string(two.join("summary.json")).expect("summary.json");
    let json: serde_json::Value = serde_json::from_str(&summary).expect("summary.json parses");
    assert_eq!(json["backend"], "gpu");
    assert!(
        json["adapter"].is_string(),
        "the adapter named: {}",
        json["adapter"]
    );
    assert_like_one_process(&one, &two, 0.01);
    let _ = std::fs::remove_dir_all(base);
}

/// The processes whose parent is `parent`, from `/proc` (Linux).
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let ppid = |pid: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name (field 2) is in parentheses and may hold spaces: the parent's id is
        // the second field after its closing parenthesis.
        stat[stat.rfind(')')? + 1..]
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| ppid(pid) == Some(parent))
        .collect()
}

/// The MPI rank of the process `pid` (`OMPI_COMM_WORLD_RANK` in its environment).
fn rank_of(pid: u32) -> Option<u32> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    env.split(|&b| b == 0)
        .find_map(|v| v.strip_prefix(b"OMPI_COMM_WORLD_RANK="))
        .and_then(|r| std::str::from_utf8(r).ok()?.parse().ok())
}

/// One rank of four killed by SIGKILL in the middle of a run (the others then wait on it in
/// the step's collectives) ends the whole job within 10 s, with a non-zero exit status:
/// mpirun sees the rank die and ends the others (Open MPI's default), none is left waiting.
#[test]
#[cfg(target_os = "linux")]
fn a_rank_killed_ends_the_job_within_seconds() {
    use std::time::{Duration, Instant};
    let dir = tmp("killed");
    // It runs until the kill.
    let file = long_scene(&dir);
    let (out, log) = (dir.join("out"), dir.join("stderr.txt"));
    let mut job = Command::new("mpirun")
        .args(["--mca", "mpi_yield_when_idle", "1"])
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "4", GRAINS])
        .arg("run")
        .arg(&file)
        .args(["--threads", "1", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).expect("the log file"))
        .spawn()
        .expect("mpirun (openmpi-bin) runs");
    // The four ranks, once the run writes its outputs (they are then stepping together).
    let started = Instant::now();
    let ranks = loop {
        let stepping = out.join("observables.csv").exists();
        let mut ranks: Vec<(u32, u32)> = children_of(job.id())
            .into_iter()
            .filter_map(|pid| Some((rank_of(pid)?, pid)))
            .collect();
        ranks.sort_unstable();
        if stepping && ranks.len() == 4 {
            break ranks;
        }
        if let Some(status) = job.try_wait().expect("mpirun's status") {
            panic!("the job ended before the kill: {status}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the run did not start within 120 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let victim = ranks[2].1;
    std::thread::sleep(Duration::from_millis(500));
    let killed = Command::new("kill")
        .args(["-KILL", &victim.to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success(), "rank 2 (pid {victim}) killed");
    let at = Instant::now();
    let status = loop {
        if let Some(status) = job.try_wait().expect("mpirun's status") {
            break status;
        }
        if at.elapsed() > Duration::from_secs(10) {
            let _ = job.kill();
            let _ = job.wait();
            panic!("the job still ran 10 s after rank 2 was killed");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let ended = at.elapsed();
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    println!("the job ended {ended:?} after the kill, {status}");
    assert!(!status.success(), "a non-zero exit: {status}\n{stderr}");
    // No rank is left behind (a zombie has ended; its parent, gone, no longer reaps it).
    let running = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| !s[s.rfind(')').unwrap_or(0)..].starts_with(") Z"))
    };
    let left: Vec<(u32, u32)> = ranks.into_iter().filter(|&(_, pid)| running(pid)).collect();
    assert!(
        left.is_empty(),
        "ranks (rank, pid) still running: {left:?}\n{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Waits for `job` at most `secs` seconds; kills it and panics saying `what` if it still runs
/// then. Returns its exit status and standard error (written to `log`).
fn ends_within(
    mut job: std::process::Child,
    secs: u64,
    log: &Path,
    what: &str,
) -> (std::process::ExitStatus, String) {
    use std::time::{Duration, Instant};
    let at = Instant::now();
    loop {
        if let Some(status) = job.try_wait().expect("mpirun's status") {
            return (status, std::fs::read_to_string(log).unwrap_or_default());
        }
        if at.elapsed() > Duration::from_secs(secs) {
            let _ = job.kill();
            let _ = job.wait();
            panic!(
                "{what}: the job still ran after {secs} s\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The one error line of a failed job's standard error, checked: the job failed, no rank
/// called MPI_Abort, and exactly one line starts with `error`.
fn one_error_line(status: std::process::ExitStatus, stderr: &str) -> String {
    assert!(!status.success(), "the job fails: {stderr}");
    assert!(!stderr.contains("MPI_ABORT"), "no abort: {stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "one error line: {stderr}");
    errors[0].to_string()
}

/// A scene only one rank refuses (a copy of the scene with one more grain, outside the walls,
/// as a node holding a stale copy would give it; refused when the world is built, after MPI
/// started) ends every rank within seconds: the ranks agree on the refusal before they step,
/// the refusing rank says why in the one error line, none calls MPI_Abort, nothing is
/// written. On 2 ranks (rank 1 refuses) and on 4 (rank 2 refuses).
#[test]
fn a_scene_one_rank_refuses_ends_every_rank_with_its_error() {
    let dir = tmp("one-refuses");
    std::fs::create_dir_all(&dir).expect("a folder");
    let good = scene();
    let text = std::fs::read_to_string(&good).expect("the scene");
    let bad = dir.join("stale.toml");
    std::fs::write(
        &bad,
        text + "\n[[bodies]]\ngenerator = \"single\"\nname = \"stray\"\nradius = 0.005\n\
                density = 2500.0\nmaterial = \"glass\"\nposition = [5.0, 0.0, 0.05]\n",
    )
    .expect("the stale copy written");
    for (before, after, rank) in [(1, 0, 1), (2, 1, 2)] {
        let out = dir.join(format!("out{rank}"));
        let log = dir.join(format!("stderr{rank}.txt"));
        // One application context per group of ranks (`mpirun … : …`), each with its scene.
        let app = |n: usize, file: &Path| -> Vec<std::ffi::OsString> {
            let n = n.to_string();
            let args = ["-np", &n, GRAINS, "run"].map(std::ffi::OsString::from);
            let tail = [file.as_os_str(), "--out".as_ref(), out.as_os_str()];
            args.into_iter().chain(tail.map(Into::into)).collect()
        };
        let mut contexts = vec![app(before, &good), app(1, &bad)];
        if after > 0 {
            contexts.push(app(after, &good));
        }
        let job = Command::new("mpirun")
            .args(["--mca", "mpi_yield_when_idle", "1"])
            .args(["--allow-run-as-root", "--oversubscribe"])
            .args(contexts.join(&std::ffi::OsString::from(":")))
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).expect("the log file"))
            .spawn()
            .expect("mpirun (openmpi-bin) runs");
        let ranks = before + 1 + after;
        let (status, stderr) = ends_within(job, 30, &log, &format!("rank {rank} refused"));
        let error = one_error_line(status, &stderr);
        assert!(
            error.starts_with(&format!("error (rank {rank} of {ranks}): "))
                && error.contains("stale.toml")
                && error.contains("outside the box"),
            "{error}"
        );
        assert!(!out.exists(), "nothing written: {}", out.display());
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The distributed pour made long (200 s of simulated time), in `dir`.
fn long_scene(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(scene()).expect("the scene");
    assert!(
        text.contains("duration = 0.5\n"),
        "the scene's duration line"
    );
    std::fs::create_dir_all(dir).expect("a folder");
    let file = dir.join("long.toml");
    std::fs::write(
        &file,
        text.replace("duration = 0.5\n", "duration = 200.0\n"),
    )
    .expect("the scene written");
    file
}

/// `mpirun -np 2 grains run SCENE --out OUT` started in the background, its standard error
/// into `log`.
fn start_two_ranks(scene: &Path, out: &Path, log: &Path) -> std::process::Child {
    Command::new("mpirun")
        .args(["--mca", "mpi_yield_when_idle", "1"])
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "2", GRAINS])
        .arg("run")
        .arg(scene)
        .args(["--threads", "1", "--out"])
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(log).expect("the log file"))
        .spawn()
        .expect("mpirun (openmpi-bin) runs")
}

/// A write of the outputs failing (here the `frames` folder, where both ranks write their
/// pieces, replaced by a file while the run goes, as a folder a user removes) ends every rank
/// within seconds: the ranks agree on the failure at the next step handed to the writers, the
/// lowest failing rank says it in the one error line, none calls MPI_Abort.
#[test]
fn a_failed_write_on_the_writing_rank_ends_every_rank_with_one_error() {
    use std::time::{Duration, Instant};
    let dir = tmp("write-fails");
    let file = long_scene(&dir);
    let (out, log) = (dir.join("out"), dir.join("stderr.txt"));
    let mut job = start_two_ranks(&file, &out, &log);
    let frames = out.join("frames");
    let started = Instant::now();
    while !frames.join("frame_000000025.pvtu").exists() {
        if let Some(status) = job.try_wait().expect("mpirun's status") {
            panic!("the job ended before its second frame: {status}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no second frame within 120 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::remove_dir_all(&frames).expect("frames/ removed");
    std::fs::write(&frames, b"not a folder").expect("a file in its place");
    let (status, stderr) = ends_within(job, 30, &log, "frames/ replaced by a file");
    let error = one_error_line(status, &stderr);
    assert!(
        written_by_a_rank(&error) && error.contains("writing results failed"),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Whether `error` is a rank's failure to write into the output folder: rank 0's (every
/// output) or rank 1's (its pieces of the frames), whichever is the lowest rank that failed.
fn written_by_a_rank(error: &str) -> bool {
    [
        "error: output folder ",
        "error (rank 1 of 2): output folder ",
    ]
    .iter()
    .any(|p| error.starts_with(p))
}

/// A small file system mounted for a test, unmounted when dropped.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A full disk (the output folder on a 400 KiB tmpfs, which the first frames fill) ends every
/// rank within seconds with one error line, the lowest failing rank's, saying so, and no
/// MPI_Abort. Skipped where this process may not mount a tmpfs (not root, or a container
/// without the capability).
#[test]
#[cfg(target_os = "linux")]
fn a_full_disk_on_the_writing_rank_ends_every_rank_with_one_error() {
    let dir = tmp("disk-full");
    let file = long_scene(&dir);
    // ASCII frames, which fill the small disk within the first frames (zlib's, a third of
    // their size, take longer than the time allowed on a busy machine).
    let text = std::fs::read_to_string(&file).expect("the scene");
    let ascii = text.replacen(
        "formats = [\"vtu\", \"csv\"]",
        "formats = [\"vtu\", \"csv\"]\nframe_encoding = \"ascii\"",
        1,
    );
    assert_ne!(ascii, text, "the scene's formats line");
    std::fs::write(&file, ascii).expect("the scene written");
    let disk = dir.join("disk");
    std::fs::create_dir_all(&disk).expect("a mount point");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=400k", "tmpfs"])
        .arg(&disk)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here");
        let _ = std::fs::remove_dir_all(dir);
        return;
    }
    let guard = Mounted(disk.clone());
    let (out, log) = (disk.join("out"), dir.join("stderr.txt"));
    let job = start_two_ranks(&file, &out, &log);
    let (status, stderr) = ends_within(job, 120, &log, "the disk full");
    let error = one_error_line(status, &stderr);
    assert!(
        written_by_a_rank(&error) && error.contains("No space left on device"),
        "{error}"
    );
    drop(guard);
    let _ = std::fs::remove_dir_all(dir);
}

/// `summary.json` failing to be written on the writing rank at the very end, after the last
/// collective of the steps (here a folder put in its place before a resume), ends every rank
/// within seconds with rank 0's one error line naming the file, and no MPI_Abort.
#[test]
fn a_failed_summary_write_ends_every_rank_with_one_error() {
    let dir = tmp("summary-fails");
    let (scene, out, log) = (scene(), dir.join("out"), dir.join("stderr.txt"));
    let (scene_arg, out_arg) = (scene.to_str().unwrap(), out.to_str().unwrap());
    grains_run(2, &[scene_arg, "--out", out_arg, "--steps", "20"]);
    let summary = out.join("summary.json");
    std::fs::remove_file(&summary).expect("summary.json removed");
    std::fs::create_dir_all(summary.join("in-the-way")).expect("a folder in its place");
    let job = Command::new("mpirun")
        .args(["--mca", "mpi_yield_when_idle", "1"])
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "2", GRAINS])
        .args(["run", scene_arg, "--threads", "1", "--resume", out_arg])
        .args(["--steps", "40"])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).expect("the log file"))
        .spawn()
        .expect("mpirun (openmpi-bin) runs");
    let (status, stderr) = ends_within(job, 120, &log, "summary.json a folder");
    let error = one_error_line(status, &stderr);
    assert!(
        error.starts_with("error: output folder ") && error.contains("cannot write summary.json"),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// What two ranks send each other, from `summary.json`'s `traffic`: the pour's 1,000 grains
/// for 100 steps with frames, contact frames, samples and checkpoints (no snapshots: their
/// reductions go by the picture's pixels). Every rank holds ghosts and exchanges bytes every
/// step, and no contribution to a collective comes near a rank's own bodies (88 bytes each,
/// as a gather of the bed sends them): the largest is under a quarter of those.
#[test]
fn two_ranks_send_each_other_no_bed() {
    let dir = tmp("traffic");
    std::fs::create_dir_all(&dir).expect("a folder");
    let text = std::fs::read_to_string(scene())
        .expect("the scene")
        .replace(
            "formats = [\"vtu\", \"csv\"]",
            "formats = [\"vtu\", \"csv\", \"contacts\"]",
        );
    let file = dir.join("pour.toml");
    std::fs::write(&file, text).expect("the scene written");
    let out = dir.join("out");
    let (file, out) = (file.to_str().expect("UTF-8"), out.to_str().expect("UTF-8"));
    grains_run(2, &[file, "--steps", "100", "--out", out]);
    let at = |name: &str| figure(Path::new(out), &format!("/traffic/{name}"));
    let per_rank = at("bodies_per_rank");
    assert_eq!((at("ranks"), per_rank), (2.0, 500.0));
    let (ghosts, exchanged) = (at("ghosts_per_step/0"), at("exchanged_bytes_per_step/0"));
    assert!(
        ghosts > 0.0 && exchanged > 0.0,
        "{ghosts} ghosts, {exchanged} B"
    );
    let largest = at("largest_contribution_bytes");
    assert!(
        largest > 0.0 && largest < 88.0 * per_rank / 4.0,
        "a rank put {largest} bytes into one collective; its bodies are {} bytes",
        88.0 * per_rank
    );
    let _ = std::fs::remove_dir_all(&dir);
}
