//! The writer thread: receives frames, observable samples and checkpoints over a channel in
//! stepping order and writes them, so a checkpoint on disk implies every earlier frame is too.

use super::contacts::{ContactFiles, ContactFrame};
use super::image::{plot, snapshot, Series, Style};
use super::progress::exact_time;
use super::vtk::{pvd, vtu};
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
}

/// The group index of a body made by no `[[bodies]]` table (written as −1 in `.vtu` files).
pub const NO_GROUP: u32 = u32::MAX;

/// What the stepping thread sends to the writer.
pub enum WriterMsg {
    /// A frame to write as `.vtu` (and PNG if asked).
    Frame(Box<Frame>),
    /// The contacts of a frame, to write as a contact `.vtp`.
    Contacts(Box<ContactFrame>),
    /// One row of observables: step, time, then the values in the scene's order.
    Sample(Vec<f64>),
    /// Snapshot bytes of the world after `step` steps, written atomically to `checkpoint.bin`.
    Checkpoint(u64, Vec<u8>),
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
        ] {
            refuse_symlink(&p)?;
        }
        Ok(())
    }
    /// File name of the frame after `step` steps.
    pub fn frame_name(step: u64) -> String {
        format!("frame_{step:09}.vtu")
    }
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
                        WriterMsg::Contacts(f) => {
                            if let Some(c) = &mut state.contacts {
                                c.write(&f)?;
                            }
                        }
                        WriterMsg::Sample(row) => state.sample(row)?,
                        WriterMsg::Checkpoint(_, bytes) => {
                            state.flush()?;
                            write_atomic(&state.cfg.layout.checkpoint(), &bytes)?;
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

    /// A writer that writes nothing: the one of a rank of a distributed run other than the
    /// first, which steps and samples with the others while rank 0 writes.
    pub fn discard() -> io::Result<Writer> {
        let (tx, rx): (Sender<WriterMsg>, Receiver<WriterMsg>) = crossbeam_channel::bounded(64);
        let handle = std::thread::Builder::new()
            .name("grains-writer".into())
            .spawn(move || {
                for msg in rx {
                    if matches!(msg, WriterMsg::Finish) {
                        break;
                    }
                }
                Ok(())
            })?;
        Ok(Writer { tx, handle })
    }

    /// Queues a message (fails only when the writer has stopped on an error).
    pub fn send(&self, msg: WriterMsg) -> bool {
        self.tx.send(msg).is_ok()
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
}

impl State {
    fn new(cfg: WriterConfig, resume_step: Option<u64>) -> io::Result<State> {
        let l = &cfg.layout;
        l.refuse_links()?;
        if cfg.formats.vtu {
            std::fs::create_dir_all(l.frames()).map_err(|e| at(&l.frames(), e))?;
        }
        if cfg.formats.png {
            std::fs::create_dir_all(l.images()).map_err(|e| at(&l.images(), e))?;
        }
        let mut frames = Vec::new();
        let mut rows = Vec::new();
        if cfg.formats.vtu {
            frames = keep_frames(&l.frames(), "frame_", &[".vtu"], resume_step, cfg.h)?;
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
                cfg.encoding,
            )?)
        } else {
            None
        };
        Ok(State {
            cfg,
            frames,
            rows,
            csv,
            contacts,
        })
    }

    fn frame(&mut self, f: &Frame) -> io::Result<()> {
        let l = &self.cfg.layout;
        if self.cfg.formats.vtu {
            let name = Layout::frame_name(f.step);
            write_atomic(&l.frames().join(&name), &vtu(f, self.cfg.encoding))?;
            self.frames.push((f.time, format!("frames/{name}")));
            write_atomic(&l.pvd(), pvd(&self.frames).as_bytes())?;
        }
        if self.cfg.formats.png && f.png {
            let c = snapshot(f, &self.cfg.style)?;
            c.save(&l.images().join(format!("snapshot_{:09}.png", f.step)))?;
        }
        Ok(())
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
/// removes the later ones (every one when not resuming), which the run writes again.
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
        let step = name
            .strip_prefix(prefix)
            .and_then(|s| suffixes.iter().find_map(|x| s.strip_suffix(x)))
            .and_then(|s| s.parse::<u64>().ok());
        if let Some(step) = step {
            if resume_step.is_some_and(|last| step <= last) {
                found.push((step, name));
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
