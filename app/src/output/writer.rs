//! The writer thread: receives frames, observable samples and checkpoints over a channel in
//! stepping order and writes them, so a checkpoint on disk implies every earlier frame is too.

use super::checkpoint::{piece_name, remove_stale_pieces};
use super::contacts::{ContactFiles, ContactFrame};
use super::image::{plot, snapshot, Canvas, Series, Style};
use super::mesh_loads::{MeshLoadFiles, MeshLoadFrame};
use super::progress::exact_time;
use super::vtk::{pvd, pvtu, vtu};
use super::vtk_xml::FrameEncoding;
use super::{at, create_temp, refuse_symlink, write_atomic};
use crate::scene::Formats;
use crossbeam_channel::{Receiver, Sender};
use grains_kernels::mesh::Triangle;
use grains_kernels::Wall;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// The state of the grains at one instant, copied off the world for writing.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    /// Steps taken.
    pub step: u64,
    /// Simulated time (s).
    pub time: f64,
    /// Centres (m).
    pub positions: Vec<[f32; 3]>,
    /// Radii (m).
    pub radii: Vec<f32>,
    /// Velocities (m/s).
    pub velocities: Vec<[f32; 3]>,
    /// Angular velocities (rad/s).
    pub angular_velocities: Vec<[f32; 3]>,
    /// Orientations, unit quaternions (x, y, z, w) turning the body's axes into the world's.
    pub orientations: Vec<[f32; 4]>,
    /// Each sphere's Love–Weber stress (Pa, compression-positive, row-major; empty: not
    /// written, `[output] frame_stress`).
    pub stresses: Vec<[f32; 9]>,
    /// How many of each body's bonds have broken (empty: the world has no breakable bonds).
    pub broken_bonds: Vec<u32>,
    /// Each body's shape (empty: every body is a sphere or disk).
    pub shapes: Vec<grains::Shape>,
    /// Half-sizes of each body along its own axes (m), when some body is not a sphere (empty
    /// otherwise).
    pub half_extents: Vec<[f32; 3]>,
    /// Material index of each body (the order of `[[materials]]`).
    pub materials: Vec<u32>,
    /// Group index of each body (the order of the `[[bodies]]` tables; [`NO_GROUP`] for none).
    pub groups: Vec<u32>,
    /// The walls where they are now, for drawing their cuts in snapshots.
    pub walls: Vec<Wall>,
    /// The mesh walls' triangles where they are now, likewise.
    pub triangles: Vec<Triangle>,
    /// Stable id of each body (`World::ids`; empty: the body's index).
    pub ids: Vec<u64>,
    /// Also draw a PNG snapshot of this frame.
    pub png: bool,
    /// Write each body's `orientation` where every body is a sphere or disk too (`[output]
    /// frame_orientation`); a frame with some other shape always has it.
    pub orientation: bool,
    /// What fixes the integer arrays' types (the same for every piece of a frame); `None`:
    /// this frame's own values.
    pub bounds: Option<FrameBounds>,
}

/// The largest values a frame's integer arrays may hold, which choose their types: each array
/// is written in the narrowest type that holds its bound, so that every piece of a frame
/// written by several ranks declares the same types, and a run's frames keep theirs from frame
/// to frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameBounds {
    /// Points in the whole frame (connectivity and offsets: Int32 up to 2³¹ − 1, else Int64).
    pub points: usize,
    /// The largest id (`id`: UInt32 up to 2³² − 1, else UInt64).
    pub id: u64,
    /// The largest material index (`material`: UInt8, UInt16 or UInt32).
    pub material: u32,
    /// The largest group index (`group`, −1 for none: Int8, Int16 or Int32).
    pub group: u32,
}

impl Frame {
    /// The bounds of this frame's own values (see [`FrameBounds`]).
    pub fn own_bounds(&self) -> FrameBounds {
        let n = self.positions.len();
        FrameBounds {
            points: n,
            id: match self.ids.is_empty() {
                true => n.saturating_sub(1) as u64,
                false => self.ids.iter().copied().max().unwrap_or(0),
            },
            material: self.materials.iter().copied().max().unwrap_or(0),
            group: (self.groups.iter().copied())
                .filter(|&g| g != NO_GROUP)
                .max()
                .unwrap_or(0),
        }
    }
}

/// The group index of a body made by no `[[bodies]]` table (written as −1 in `.vtu` files).
pub const NO_GROUP: u32 = u32::MAX;

/// What the stepping thread sends to the writer.
pub enum WriterMsg {
    /// A frame to write as `.vtu` (and PNG if asked): the whole bed, or, for one rank's part of
    /// a distributed run ([`WriterConfig::part`]), the bodies the rank owns.
    Frame(Box<Frame>),
    /// The PNG snapshot of step `.0`, drawn already (on the writing rank of a distributed run,
    /// from the ranks' pieces: [`super::image::snapshot_of_parts`]), or why it could not be.
    Picture(u64, Box<io::Result<Canvas>>),
    /// Answer on the channel once everything sent before is written.
    Drain(Sender<()>),
    /// The contacts of a frame, to write as a contact `.vtp`: all of them, or, for one rank's
    /// part of a distributed run, those the rank solved (its piece).
    Contacts(Box<ContactFrame>),
    /// One row of observables: step, time, then the values in the scene's order.
    Sample(Vec<f64>),
    /// Checkpoint bytes of the world after `step` steps, written atomically to
    /// `checkpoint.bin` by the writing rank: a whole snapshot, or the index of `pieces`
    /// pieces (0 for a whole one); the pieces of other checkpoints are then removed
    /// ([`super::checkpoint::remove_stale_pieces`]).
    Checkpoint {
        /// Steps taken.
        step: u64,
        /// The bytes of `checkpoint.bin`.
        bytes: Vec<u8>,
        /// The pieces it names.
        pieces: usize,
    },
    /// This rank's piece of the checkpoint after `step` steps of a distributed run, written
    /// atomically by every rank ([`super::checkpoint::piece_name`]).
    CheckpointPiece(u64, Vec<u8>),
    /// The mesh triangles' loads of a frame, to write as a mesh-load `.vtp`.
    MeshLoads(Box<MeshLoadFrame>),
    /// A file of coarse-grained fields (`[fields]`) to write atomically into `fields/` under
    /// `name` ([`Layout::field_name`]).
    Fields {
        /// The file's name.
        name: String,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// Write the plots and stop.
    Finish,
}

/// Fixed layout of a run's output folder.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The output folder.
    pub dir: PathBuf,
}

impl Layout {
    /// `frames/` with the `.vtu` files.
    pub fn frames(&self) -> PathBuf {
        self.dir.join("frames")
    }
    /// The ParaView index `grains.pvd`.
    pub fn pvd(&self) -> PathBuf {
        self.dir.join("grains.pvd")
    }
    /// `observables.csv`.
    pub fn csv(&self) -> PathBuf {
        self.dir.join("observables.csv")
    }
    /// `images/` with snapshots and plots.
    pub fn images(&self) -> PathBuf {
        self.dir.join("images")
    }
    /// `checkpoint.bin`.
    pub fn checkpoint(&self) -> PathBuf {
        self.dir.join("checkpoint.bin")
    }
    /// The copy of the scene file, `scene.toml`.
    pub fn scene(&self) -> PathBuf {
        self.dir.join("scene.toml")
    }
    /// `summary.json`.
    pub fn summary(&self) -> PathBuf {
        self.dir.join("summary.json")
    }
    /// `fields/` with the coarse-grained fields of `[fields]`.
    pub fn fields(&self) -> PathBuf {
        self.dir.join("fields")
    }
    /// File name of the fields after `step` steps: a grid's `.vti`, or a profile's `.csv`.
    pub fn field_name(step: u64, grid: bool) -> String {
        match grid {
            true => format!("fields_{step:09}.vti"),
            false => format!("profile_{step:09}.csv"),
        }
    }
    /// Fails when the output folder or any of the fixed entries in it is a symbolic link (the
    /// error names it), so that no write and no removal ever goes through a planted link.
    pub fn refuse_links(&self) -> io::Result<()> {
        for p in [
            self.dir.clone(),
            self.frames(),
            self.pvd(),
            self.csv(),
            self.images(),
            self.checkpoint(),
            self.scene(),
            self.summary(),
            self.contact_frames(),
            self.contacts_pvd(),
            self.mesh_frames(),
            self.meshes_pvd(),
            self.fields(),
        ] {
            refuse_symlink(&p)?;
        }
        Ok(())
    }
    /// File name of the frame after `step` steps.
    pub fn frame_name(step: u64) -> String {
        format!("frame_{step:09}.vtu")
    }
    /// File name of the parallel frame after `step` steps (`.pvtu`, naming its pieces).
    pub fn parallel_frame_name(step: u64) -> String {
        format!("frame_{step:09}.pvtu")
    }
    /// File name of rank `rank`'s piece of the parallel frame after `step` steps.
    pub fn piece_name(step: u64, rank: usize) -> String {
        format!("frame_{step:09}_r{rank}.vtu")
    }
}

/// One rank's part of the outputs of a distributed run: each rank writes its bodies' piece of
/// every frame ([`Layout::piece_name`]), its contacts' piece of every contact frame
/// ([`Layout::contact_piece_name`]) and, on 2 ranks or more, its piece of every checkpoint
/// ([`super::checkpoint::piece_name`]); rank 0 also the `.pvtu` and `.pvtp` naming the pieces,
/// the checkpoints' indexes, the `.pvd` indexes and every other output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// This rank.
    pub rank: usize,
    /// The run's ranks.
    pub ranks: usize,
}

/// Settings of the writer.
#[derive(Clone, Debug)]
pub struct WriterConfig {
    /// Where.
    pub layout: Layout,
    /// Which files.
    pub formats: Formats,
    /// How the ParaView frames' arrays are stored.
    pub encoding: FrameEncoding,
    /// How snapshots are drawn.
    pub style: Style,
    /// Names of the observable columns.
    pub columns: Vec<String>,
    /// Each column's quantity and unit, for its plot: the title's kind and the y axis label
    /// (e.g. `("kinetic energy", "J")`).
    pub quantities: Vec<(&'static str, &'static str)>,
    /// Time step (s), to turn frame numbers into times on resume.
    pub h: f32,
    /// This rank's part of a distributed run's outputs; `None`: one process writes them all.
    pub part: Option<Part>,
}

/// The running writer thread.
pub struct Writer {
    tx: Sender<WriterMsg>,
    handle: JoinHandle<io::Result<()>>,
}

impl Writer {
    /// Starts the writer. With `resume_step`, keeps the frames and samples up to that step from
    /// an earlier run in the same folder and removes the later ones; without, removes every
    /// frame and sample found (a run started again from step 0 in its folder).
    pub fn start(cfg: WriterConfig, resume_step: Option<u64>) -> io::Result<Writer> {
        let mut state = State::new(cfg, resume_step)?;
        let (tx, rx): (Sender<WriterMsg>, Receiver<WriterMsg>) = crossbeam_channel::bounded(64);
        let handle = std::thread::Builder::new()
            .name("grains-writer".into())
            .spawn(move || {
                for msg in rx {
                    match msg {
                        WriterMsg::Frame(f) => state.frame(&f)?,
                        WriterMsg::Picture(step, picture) => state.picture(step, *picture)?,
                        WriterMsg::Drain(done) => {
                            state.flush()?;
                            let _ = done.send(());
                        }
                        WriterMsg::Contacts(f) => {
                            if let Some(c) = &mut state.contacts {
                                c.write(&f)?;
                            }
                        }
                        WriterMsg::MeshLoads(f) => {
                            if let Some(m) = &mut state.meshes {
                                m.write(&f)?;
                            }
                        }
                        WriterMsg::Fields { name, bytes } => {
                            let dir = state.cfg.layout.fields();
                            std::fs::create_dir_all(&dir).map_err(|e| at(&dir, e))?;
                            write_atomic(&dir.join(name), &bytes)?;
                        }
                        WriterMsg::CheckpointPiece(step, bytes) => {
                            let rank = state.cfg.part.map_or(0, |p| p.rank);
                            let name = piece_name(step, rank);
                            write_atomic(&state.cfg.layout.dir.join(name), &bytes)?;
                        }
                        // Another rank than the first of a distributed run writes only its
                        // pieces of the frames and checkpoints.
                        WriterMsg::Sample(_) | WriterMsg::Checkpoint { .. } if !state.lead() => {}
                        WriterMsg::Sample(row) => state.sample(row)?,
                        WriterMsg::Checkpoint {
                            step,
                            bytes,
                            pieces,
                        } => {
                            state.flush()?;
                            let dir = &state.cfg.layout.dir;
                            write_atomic(&state.cfg.layout.checkpoint(), &bytes)?;
                            remove_stale_pieces(dir, step, pieces)?;
                            state.plots()?;
                        }
                        WriterMsg::Finish => {
                            state.flush()?;
                            state.plots()?;
                            break;
                        }
                    }
                }
                state.flush()
            })?;
        Ok(Writer { tx, handle })
    }

    /// Queues a message (fails only when the writer has stopped on an error).
    pub fn send(&self, msg: WriterMsg) -> bool {
        self.tx.send(msg).is_ok()
    }

    /// Waits until everything sent before is written (or the writer has stopped on an error).
    pub fn drain(&self) {
        let (done, wait) = crossbeam_channel::bounded(1);
        if self.tx.send(WriterMsg::Drain(done)).is_err() {
            return;
        }
        // A writer that stopped on an error leaves the message in the channel (which lives on
        // with this end), unanswered: the wait looks for that too.
        loop {
            match wait.recv_timeout(std::time::Duration::from_millis(20)) {
                Err(crossbeam_channel::RecvTimeoutError::Timeout) if !self.failed() => {}
                _ => return,
            }
        }
    }

    /// True once the writer thread has ended before [`Writer::finish`], which happens only on
    /// an error: the stepping loop checks it so that a failed write stops the run at once
    /// ([`Writer::finish`] then returns the error).
    pub fn failed(&self) -> bool {
        self.handle.is_finished()
    }

    /// Stops the writer after everything queued is written; returns its first error.
    pub fn finish(self) -> io::Result<()> {
        let _ = self.tx.send(WriterMsg::Finish);
        drop(self.tx);
        match self.handle.join() {
            Ok(r) => r,
            Err(_) => Err(io::Error::other("the writer thread panicked")),
        }
    }
}

struct State {
    cfg: WriterConfig,
    frames: Vec<(f64, String)>,
    rows: Vec<Vec<f64>>,
    csv: Option<io::BufWriter<std::fs::File>>,
    contacts: Option<ContactFiles>,
    meshes: Option<MeshLoadFiles>,
}

impl State {
    fn new(cfg: WriterConfig, resume_step: Option<u64>) -> io::Result<State> {
        let l = &cfg.layout;
        l.refuse_links()?;
        if cfg.formats.vtu {
            std::fs::create_dir_all(l.frames()).map_err(|e| at(&l.frames(), e))?;
        }
        if cfg.part.is_some_and(|p| p.rank > 0) {
            // Another rank's pieces only (of the grain and contact frames): rank 0 keeps and
            // removes the frames of an earlier run, and writes every other file.
            let formats = Formats {
                vtu: cfg.formats.vtu,
                csv: false,
                png: false,
                contacts: cfg.formats.contacts,
                meshes: false,
            };
            let contacts = match cfg.formats.contacts {
                true => Some(ContactFiles::open(
                    l.clone(),
                    resume_step,
                    cfg.h,
                    (cfg.encoding, cfg.part),
                )?),
                false => None,
            };
            return Ok(State {
                cfg: WriterConfig { formats, ..cfg },
                frames: Vec::new(),
                rows: Vec::new(),
                csv: None,
                contacts,
                meshes: None,
            });
        }
        if cfg.formats.png {
            std::fs::create_dir_all(l.images()).map_err(|e| at(&l.images(), e))?;
        }
        let mut frames = Vec::new();
        let mut rows = Vec::new();
        if cfg.formats.vtu {
            let suffixes = [".vtu", ".pvtu"];
            frames = keep_frames(&l.frames(), "frame_", &suffixes, resume_step, cfg.h)?;
        }
        // The fields of an earlier run in the folder: kept up to the resumed step, the later
        // ones (all, from step 0) removed, as the frames.
        if l.fields().is_dir() {
            for (prefix, suffix) in [("fields_", ".vti"), ("profile_", ".csv")] {
                keep_frames(&l.fields(), prefix, &[suffix], resume_step, cfg.h)?;
            }
        }
        if let Some(last) = resume_step {
            if let Ok(text) = std::fs::read_to_string(l.csv()) {
                for line in text.lines().skip(1) {
                    let row: Vec<f64> = line
                        .split(',')
                        .map(|x| x.trim().parse().unwrap_or(f64::NAN))
                        .collect();
                    // A row cut short by a kill has too few columns or an unparsable value.
                    let complete = row.len() == cfg.columns.len() + 2
                        && row.iter().all(|v| !v.is_nan() || line.contains("NaN"));
                    if complete && row.first().is_some_and(|&s| s <= last as f64) {
                        rows.push(row);
                    }
                }
            }
        }
        // The rows kept are written to a new file renamed over the old one, so a kill in between
        // loses no row; the open handle then appends to the renamed file.
        let csv = if cfg.formats.csv {
            let (tmp, f) = create_temp(&l.csv())?;
            let mut f = io::BufWriter::new(f);
            let written = write_header_and_rows(&mut f, &cfg.columns, &rows)
                .map_err(|e| at(&tmp, e))
                .and_then(|()| std::fs::rename(&tmp, l.csv()).map_err(|e| at(&l.csv(), e)));
            if let Err(e) = written {
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
            Some(f)
        } else {
            None
        };
        let contacts = if cfg.formats.contacts {
            Some(ContactFiles::open(
                l.clone(),
                resume_step,
                cfg.h,
                (cfg.encoding, cfg.part),
            )?)
        } else {
            None
        };
        let meshes = match cfg.formats.meshes {
            true => Some(MeshLoadFiles::open(
                l.clone(),
                resume_step,
                cfg.h,
                cfg.encoding,
            )?),
            false => None,
        };
        Ok(State {
            cfg,
            frames,
            rows,
            csv,
            contacts,
            meshes,
        })
    }

    /// Whether this writer writes every output: one process's, or rank 0's of a distributed
    /// run (the other ranks' write only their pieces of the frames and checkpoints).
    fn lead(&self) -> bool {
        self.cfg.part.is_none_or(|p| p.rank == 0)
    }

    fn frame(&mut self, f: &Frame) -> io::Result<()> {
        let l = &self.cfg.layout;
        if self.cfg.formats.vtu {
            let name = match self.cfg.part {
                None => {
                    let name = Layout::frame_name(f.step);
                    write_atomic(&l.frames().join(&name), &vtu(f, self.cfg.encoding))?;
                    Some(name)
                }
                Some(p) => {
                    let piece = Layout::piece_name(f.step, p.rank);
                    write_atomic(&l.frames().join(&piece), &vtu(f, self.cfg.encoding))?;
                    if p.rank > 0 {
                        None
                    } else {
                        let name = Layout::parallel_frame_name(f.step);
                        let pieces: Vec<String> = (0..p.ranks)
                            .map(|k| Layout::piece_name(f.step, k))
                            .collect();
                        write_atomic(&l.frames().join(&name), &pvtu(f, &pieces))?;
                        Some(name)
                    }
                }
            };
            if let Some(name) = name {
                self.frames.push((f.time, format!("frames/{name}")));
                write_atomic(&l.pvd(), pvd(&self.frames).as_bytes())?;
            }
        }
        self.snapshot(f)
    }

    /// Draws `f` as a PNG snapshot when it asks for one.
    fn snapshot(&mut self, f: &Frame) -> io::Result<()> {
        if self.cfg.formats.png && f.png {
            self.picture(f.step, snapshot(f, &self.cfg.style))?;
        }
        Ok(())
    }

    /// Saves the snapshot `picture` of step `step`, or fails with why it could not be drawn.
    fn picture(&mut self, step: u64, picture: io::Result<Canvas>) -> io::Result<()> {
        let name = format!("snapshot_{step:09}.png");
        picture?.save(&self.cfg.layout.images().join(name))
    }

    fn sample(&mut self, row: Vec<f64>) -> io::Result<()> {
        if let Some(f) = &mut self.csv {
            write_row(f, &row).map_err(|e| at(&self.cfg.layout.csv(), e))?;
        }
        self.rows.push(row);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(f) = &mut self.csv {
            f.flush().map_err(|e| at(&self.cfg.layout.csv(), e))?;
        }
        Ok(())
    }

    fn plots(&self) -> io::Result<()> {
        if !self.cfg.formats.png || self.rows.is_empty() {
            return Ok(());
        }
        let times: Vec<f64> = self.rows.iter().map(|r| r[1]).collect();
        let columns: Vec<Vec<f64>> = (0..self.cfg.columns.len())
            .map(|k| {
                self.rows
                    .iter()
                    .map(|r| r.get(k + 2).copied().unwrap_or(f64::NAN))
                    .collect()
            })
            .collect();
        let images = self.cfg.layout.images();
        let y_label = |(quantity, unit): (&str, &str)| format!("{quantity} ({unit})");
        for (k, name) in self.cfg.columns.iter().enumerate() {
            let q = self.cfg.quantities[k];
            let series = [Series {
                name,
                values: &columns[k],
            }];
            let c = plot(
                &format!("{name}: {}", q.0),
                &y_label(q),
                &times,
                &series,
                800,
                400,
            )?;
            c.save(&images.join(format!("plot_{name}.png")))?;
        }
        // Observables of one quantity (the heights of several groups) also share a plot.
        let mut done: Vec<(&str, &str)> = Vec::new();
        for &q in &self.cfg.quantities {
            let same: Vec<usize> = (0..columns.len())
                .filter(|&k| self.cfg.quantities[k] == q)
                .collect();
            if same.len() < 2 || done.contains(&q) {
                continue;
            }
            done.push(q);
            let series: Vec<Series> = same
                .iter()
                .map(|&k| Series {
                    name: &self.cfg.columns[k],
                    values: &columns[k],
                })
                .collect();
            let c = plot(q.0, &y_label(q), &times, &series, 800, 400)?;
            // The quantity's words joined by `_`: `plots_mean_centre_height.png`.
            let file =
                q.0.split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .collect::<Vec<_>>()
                    .join("_");
            c.save(&images.join(format!("plots_{file}.png")))?;
        }
        Ok(())
    }
}

fn write_header_and_rows(
    f: &mut impl Write,
    columns: &[String],
    rows: &[Vec<f64>],
) -> io::Result<()> {
    write!(f, "step,time_s")?;
    for c in columns {
        write!(f, ",{c}")?;
    }
    writeln!(f)?;
    for r in rows {
        write_row(f, r)?;
    }
    f.flush()
}

fn write_row(f: &mut impl Write, row: &[f64]) -> io::Result<()> {
    for (k, v) in row.iter().enumerate() {
        if k > 0 {
            write!(f, ",")?;
        }
        if k == 0 {
            write!(f, "{}", *v as u64)?;
        } else {
            write!(f, "{v}")?;
        }
    }
    writeln!(f)
}

/// The frames `<prefix><step><suffix>` (`suffix` one of `suffixes`) in the folder `dir` that an earlier run wrote up to
/// `resume_step`, as (time, path from the output folder) in step order, for the `.pvd` index;
/// removes the later ones (every one when not resuming), which the run writes again. The
/// pieces of a distributed run's frames, `<prefix><step>_r<rank><suffix>`, are kept or
/// removed likewise, but not listed (their `.pvtu` is).
pub(super) fn keep_frames(
    dir: &Path,
    prefix: &str,
    suffixes: &[&str],
    resume_step: Option<u64>,
    h: f32,
) -> io::Result<Vec<(f64, String)>> {
    let folder = dir.file_name().unwrap_or_default().to_string_lossy();
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| at(dir, e))? {
        let name = e?.file_name().to_string_lossy().to_string();
        let stem = name
            .strip_prefix(prefix)
            .and_then(|s| suffixes.iter().find_map(|x| s.strip_suffix(x)));
        let (stem, piece) = match stem.and_then(|s| s.split_once("_r")) {
            Some((s, rank)) if rank.parse::<usize>().is_ok() => (Some(s), true),
            _ => (stem, false),
        };
        if let Some(step) = stem.and_then(|s| s.parse::<u64>().ok()) {
            if resume_step.is_some_and(|last| step <= last) {
                if !piece {
                    found.push((step, name));
                }
            } else {
                let p = dir.join(&name);
                std::fs::remove_file(&p).map_err(|e| at(&p, e))?;
            }
        }
    }
    found.sort();
    Ok(found
        .into_iter()
        .map(|(s, n)| (exact_time(s, h), format!("{folder}/{n}")))
        .collect())
}

/// True when the folder `dir` holds no results: it does not exist, is empty, or holds only the
/// temporary `scene.toml.tmp` of a run killed before its first file was in place.
pub fn holds_no_results(dir: &Path) -> bool {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .into_iter()
            .all(|e| e.is_ok_and(|e| e.file_name() == "scene.toml.tmp")),
        Err(_) => true,
    }
}
