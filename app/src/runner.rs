//! The headless run of a scene: steps the world for the scene's duration, samples its
//! observables, hands frames and checkpoints (the first at step 0) to the writer thread, shows
//! progress, and ends with `summary.json` (also when a health check or the GPU fails). A run
//! cut short continues from its last checkpoint with `resume`, ending bit-identical to an
//! uninterrupted run; the checkpoint's physics fingerprint, not the scene file's text, decides
//! whether the scene resumed with may continue it.

use crate::output::checkpoint::{piece_name, read_checkpoint};
use crate::output::contacts::ContactFrame;
use crate::output::fields::{flat, profile_csv, vti};
use crate::output::image::{snapshot_of_parts, Extent, Section, Style, View};
use crate::output::mesh_loads::{LoadDistance, MeshLoadFrame};
use crate::output::progress::{
    exact_time, format_time, time_decimals, RecentRate, StatusLines, STATUS_EVERY,
};
use crate::output::record::RunRecord;
use crate::output::vtk_xml::FrameEncoding;
use crate::output::writer::{holds_no_results, FrameBounds, Layout, Part, WriterConfig, NO_GROUP};
use crate::output::{write_atomic, Frame, Quality, Writer, WriterMsg};
use crate::scene::{Bounds, FieldsOutput, ObservableKind, Scene, SceneError, ViewExtent};
use glam::DVec3;
use grains::fields::{coarse_grain, grain_stress, FieldsAverage, Sampling};
use grains::settings::Backend;
use grains::snapshot::SnapshotError;
use grains::support::{limit, Feature};
use grains::world::World;
use grains::PieceEntry;
use grains::{GpuError, StepError, Vec3, WallLoad};
use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::ops::Range;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use thiserror::Error;

/// Why a run failed.
#[derive(Debug, Error)]
pub enum RunError {
    /// The scene is invalid or its world could not be built.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The output folder cannot be used.
    #[error("output folder {dir}: {problem}")]
    Output {
        /// The folder.
        dir: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The folder is no run's, or its checkpoint is unreadable, damaged, of an older format, of
    /// other physics or other output cadence, or past the scene's end.
    #[error("cannot resume from {dir}: {problem}")]
    Resume {
        /// The folder.
        dir: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The GPU failed while stepping or reading back; the results written so far end at the
    /// last checkpoint before `step` (`summary.json` says the run failed).
    #[error("GPU backend failed at step {step}: {source}; the output folder holds the results up to the last checkpoint (continue with --resume, or use --backend cpu)")]
    Gpu {
        /// Steps taken when the failure was found.
        step: u64,
        /// The device's error.
        source: GpuError,
    },
    /// A health check failed after a step; the output folder ends at the last checkpoint
    /// before it (the failed state is not written; `summary.json` says the run failed).
    #[error("{source}; the output folder holds the results up to the last checkpoint before it")]
    Health {
        /// The step, the body or figure, and what went wrong.
        source: StepError,
    },
    /// One rank of a distributed run failed to set its part up (to build or split the world,
    /// open the output folder or restore the checkpoint), or the writing rank failed to write
    /// the results (the files of the steps, or `summary.json` at the end), and every rank
    /// agreed on it at the same point (before any of them stepped, at a step handed to the
    /// writer, or at the end): each ends by itself, none waits for another. `error` is this rank's own error on the rank that reports it (the
    /// lowest that failed), `None` on the others.
    #[error("{}", on_rank(*.rank, .error.as_deref()))]
    OnRank {
        /// The lowest rank that failed.
        rank: usize,
        /// Its error, on that rank.
        error: Option<Box<RunError>>,
    },
}

/// The message of [`RunError::OnRank`]: the rank's own error where it holds it.
fn on_rank(rank: usize, error: Option<&RunError>) -> String {
    match error {
        Some(e) => e.to_string(),
        None => format!("rank {rank} failed to set up its part of the run"),
    }
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Output folder.
    pub out: PathBuf,
    /// Worker threads (None: the scene's).
    pub threads: Option<usize>,
    /// Backend (None: the scene's).
    pub backend: Option<Backend>,
    /// Continue the run in `out` from its checkpoint (from step 0 when it was killed before
    /// its first).
    pub resume: bool,
    /// Show progress: a line on stdout saying what runs (bodies, steps, output folder, threads
    /// or GPU) at the start; then a bar on stderr when it is a terminal, else a status line on
    /// stdout every `status_every` or every 10 % of the steps, whichever comes first (so that
    /// stderr holds only warnings and the error's one line).
    pub progress: bool,
    /// Most wall time between two status lines ([`STATUS_EVERY`]).
    pub status_every: Duration,
    /// Stop after this many steps in total without finishing (as if killed; for tests).
    pub stop_after: Option<u64>,
    /// Asked after every step whether to stop now, so it must be cheap (the program's Ctrl-C
    /// flag; the Python package's hook looks for a signal at most every 50 ms): the run then
    /// writes a checkpoint at its last step, so that `resume` continues it, and ends with
    /// `stopped_early`.
    pub interrupt: Option<fn() -> bool>,
}

/// How a run is one rank of a distributed run (see [`run_distributed`]).
#[derive(Clone, Copy, Debug)]
pub struct Distribute {
    /// Turns the world built from the scene into this rank's share of the distributed run
    /// (`World::distribute` on the job's ranks).
    pub split: fn(&mut World) -> Result<(), grains::BuildError>,
    /// This rank's number.
    pub rank: usize,
    /// The run's ranks.
    pub ranks: usize,
    /// Whether this rank writes the outputs (rank 0); the others step, sample and checkpoint
    /// with it (every gather is collective) and write only their pieces of the frames and
    /// checkpoints.
    pub writes: bool,
    /// Tells every rank whether this one failed, and returns the lowest rank that did (`None`
    /// where none did): a collective call, made by every rank at the same points of the
    /// setup, so that a failure of one rank (a file it alone cannot read) ends them all.
    pub first_failed: fn(failed: bool) -> Option<usize>,
    /// Every rank's `mine` (as many values on every rank), concatenated in rank order, on
    /// every rank: a collective call (the checkpoints' agreement on their pieces).
    pub all_gather: fn(mine: &[u64]) -> Vec<u64>,
}

/// `result` of this rank's part of a setup stage, agreed among the ranks of `distribute`
/// (see [`Distribute::first_failed`]): where any rank failed, every rank returns
/// [`RunError::OnRank`], the lowest failed rank with its own error. In one process, `result`.
fn agreed<T>(distribute: Option<Distribute>, result: Result<T, RunError>) -> Result<T, RunError> {
    let Some(d) = distribute else {
        return result;
    };
    match ((d.first_failed)(result.is_err()), result) {
        (None, result) => result,
        (Some(rank), Err(e)) if rank == d.rank => Err(RunError::OnRank {
            rank,
            error: Some(Box::new(e)),
        }),
        (Some(rank), _) => Err(RunError::OnRank { rank, error: None }),
    }
}

impl RunOptions {
    /// A new run into the folder `out` with the scene's threads and backend, no progress shown.
    pub fn new(out: &std::path::Path) -> RunOptions {
        RunOptions {
            out: out.to_path_buf(),
            threads: None,
            backend: None,
            resume: false,
            progress: false,
            status_every: STATUS_EVERY,
            stop_after: None,
            interrupt: None,
        }
    }
}

/// Figures of a run, as written to `summary.json`: over the whole run, every session of a
/// resumed run included, except the `session_` figures. A run that failed (a health check, the
/// GPU) writes one too, with `failed`, the error and the figures up to its last good step.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunSummary {
    /// Scene name.
    pub scene: String,
    /// Bodies in the world.
    pub bodies: usize,
    /// Worker threads (CPU backend) of the last session.
    pub threads: usize,
    /// `"cpu"` or `"gpu"` (of the last session).
    pub backend: &'static str,
    /// GPU adapter name; `None` on the CPU backend.
    pub adapter: Option<String>,
    /// Time step h (s).
    pub dt: f64,
    /// Steps taken in total.
    pub steps: u64,
    /// Simulated time at the end (s): steps × h as an exact decimal.
    pub simulated_time_s: f64,
    /// Step at which the last session started (0, or the checkpoint resumed from).
    pub resumed_from_step: u64,
    /// Sessions that stepped the run (the first run and each resume that stepped).
    pub sessions: u64,
    /// Wall-clock seconds of stepping, all sessions (the steps redone after a kill counted once).
    pub wall_seconds: f64,
    /// Steps per wall-clock second, all sessions.
    pub steps_per_s: f64,
    /// Bodies × steps per wall-clock second, all sessions.
    pub body_steps_per_s: f64,
    /// Wall-clock seconds of stepping in the last session.
    pub session_wall_seconds: f64,
    /// Steps per wall-clock second in the last session (0 when it took none).
    pub session_steps_per_s: f64,
    /// Seconds each stage of the step took in the last session, by stage name (`None` where
    /// the backend has no stage times, as on a GPU without timestamps).
    pub session_stage_seconds: Option<BTreeMap<String, f64>>,
    /// Mean solver sweeps per step, all sessions (GPU: over the steps read back).
    pub iterations_mean: f64,
    /// Mean ε̂-active contacts per step, all sessions (GPU: over the steps read back).
    pub contacts_mean: f64,
    /// Frames written (all sessions).
    pub frames: u64,
    /// End-state quality figures (of a failed run: of the state the world held at the failure,
    /// non-finite values written as null).
    pub quality: Quality,
    /// Last value of each observable.
    pub observables_final: BTreeMap<String, f64>,
    /// Mean of each observable over the samples of the second half of the simulated time
    /// (t ≥ half the last sample's time; a steady state's level, e.g. a drum's angle).
    pub observables_mean_second_half: BTreeMap<String, f64>,
    /// For each `rank_from_top` observable: the first sampled time (s) at which the group's
    /// centre reached the top of the bed (rank ≥ 1), over the whole run (resumed runs included).
    pub top_reached_s: BTreeMap<String, f64>,
    /// The same in shakes (time × the box's shaking frequency), when the box is shaken.
    pub top_reached_shakes: BTreeMap<String, f64>,
    /// Whether the run was stopped before the end (`stop_after`, `interrupt`).
    pub stopped_early: bool,
    /// Whether the run failed (a health check or the GPU); `steps` is then the step of the
    /// failure and the sums cover the steps before it.
    pub failed: bool,
    /// The error that ended a failed run, as printed.
    pub error: Option<String>,
    /// Grains the `[[insert]]` tables placed, all of them, over the whole run.
    pub grains_inserted: u64,
    /// Grains due that found no place in their region (a region the heap has grown into).
    pub grains_missed: u64,
    /// Grains the `[[sink]]` tables removed, all of them.
    pub grains_removed: u64,
    /// Mass the `[[insert]]` tables placed (kg).
    pub grains_inserted_kg: f64,
    /// Mass the `[[sink]]` tables removed (kg).
    pub grains_removed_kg: f64,
    /// The steps the adaptive step took (`h = "auto"`), over the whole run; `None` with a
    /// fixed step.
    pub step_sizes: Option<StepSizes>,
    /// Bonds broken by the end of the run (`[[bonds]]` with strengths), of all the joints.
    pub bonds_broken: usize,
    /// What the ranks of a distributed run sent each other; `None` in one process.
    pub traffic: Option<Traffic>,
}

/// What the ranks of a distributed run sent each other, a step of this session (its outputs,
/// checkpoints and summary included), as `summary.json` gives it (payload bytes; see
/// [`grains::RankTraffic`]). Each pair is the mean over the ranks and the most of any.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Traffic {
    /// The run's ranks.
    pub ranks: usize,
    /// Bodies a rank owns, on average: the world's over the ranks.
    pub bodies_per_rank: f64,
    /// Ghosts a rank held a step.
    pub ghosts_per_step: [f64; 2],
    /// Bytes a rank sent other ranks in exchanges a step (ghosts, migrations, the solve's
    /// impulses, the bodies near the cuts).
    pub exchanged_bytes_per_step: [f64; 2],
    /// Bytes a rank put into collectives a step (reductions, counts, agreements).
    pub collective_bytes_per_step: [f64; 2],
    /// The largest payload one exchange of any rank sent one rank (bytes).
    pub largest_exchange_bytes: f64,
    /// The largest contribution of any rank to one collective (bytes).
    pub largest_contribution_bytes: f64,
}

impl Traffic {
    /// The figures of `world`'s ranks (a call every rank makes together); `None` in a world
    /// that steps every body itself.
    pub fn of(world: &World) -> Option<Traffic> {
        let t = world.rank_traffic()?;
        let steps = t.steps.max(1) as f64;
        let mine = [
            t.ghosts as f64 / steps,
            t.exchanged_bytes as f64 / steps,
            t.collective_bytes as f64 / steps,
        ];
        let mut sum = [1.0, mine[0], mine[1], mine[2]];
        world.sum_over_ranks(&mut sum);
        let largest = [t.largest_exchange_bytes, t.largest_contribution_bytes].map(|b| b as f64);
        let mut most = [mine[0], mine[1], mine[2], largest[0], largest[1]];
        world.max_over_ranks(&mut most);
        let ranks = sum[0];
        Some(Traffic {
            ranks: ranks as usize,
            bodies_per_rank: world.len() as f64 / ranks,
            ghosts_per_step: [sum[1] / ranks, most[0]],
            exchanged_bytes_per_step: [sum[2] / ranks, most[1]],
            collective_bytes_per_step: [sum[3] / ranks, most[2]],
            largest_exchange_bytes: most[3],
            largest_contribution_bytes: most[4],
        })
    }
}

/// The steps the adaptive step took (`h = "auto"`), as `summary.json` gives them.
#[derive(Clone, Debug, serde::Serialize)]
pub struct StepSizes {
    /// Steps taken (each `steps` tick of h_max is one or more of them).
    pub steps: u64,
    /// The shortest step (s).
    pub h_min_s: f64,
    /// The mean step (s).
    pub h_mean_s: f64,
    /// The longest step (s).
    pub h_max_s: f64,
    /// Steps the controller wanted below h_min and took at h_min.
    pub floored: u64,
    /// The deepest overlap any step started from, over the smallest radius.
    pub max_overlap_r: f64,
    /// The penetration budget, over the smallest radius.
    pub budget_r: f64,
}

impl StepSizes {
    /// The figures of `world`'s adaptive step; `None` with a fixed step.
    pub fn of(world: &World) -> Option<StepSizes> {
        let (c, auto) = (world.step_control()?, world.settings().auto_step?);
        let r_min = world.bodies().smallest_radius() as f64;
        // An f32 as the f64 of its shortest decimal text (0.004, not 0.004000000189989805).
        let decimal = |x: f32| x.to_string().parse().unwrap_or(x as f64);
        Some(StepSizes {
            steps: c.taken,
            h_min_s: if c.taken == 0 {
                0.0
            } else {
                decimal(c.shortest)
            },
            h_mean_s: c.mean(),
            h_max_s: decimal(c.longest),
            floored: c.floored,
            max_overlap_r: c.deepest as f64 / r_min,
            budget_r: decimal(auto.penetration),
        })
    }
}

/// The rows of `observables.csv` as numbers (unreadable cells as NaN); none without the file.
fn csv_rows(csv: &std::path::Path) -> Vec<Vec<f64>> {
    let Ok(text) = std::fs::read_to_string(csv) else {
        return Vec::new();
    };
    text.lines()
        .skip(1)
        .map(|line| {
            line.split(',')
                .map(|x| x.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect()
}

/// Mean of each column of `observables.csv` over its rows at t ≥ half the last row's time.
fn second_half_means(scene: &Scene, rows: &[Vec<f64>]) -> BTreeMap<String, f64> {
    let end = rows.last().and_then(|r| r.get(1).copied()).unwrap_or(0.0);
    let late: Vec<&Vec<f64>> = rows
        .iter()
        .filter(|r| r.get(1).is_some_and(|&t| t >= 0.5 * end))
        .collect();
    scene
        .observables
        .iter()
        .enumerate()
        .filter(|_| !late.is_empty())
        .map(|(k, o)| {
            let sum: f64 = late
                .iter()
                .map(|r| r.get(k + 2).copied().unwrap_or(f64::NAN))
                .sum();
            (o.name.clone(), sum / late.len() as f64)
        })
        .collect()
}

/// First time (s) each rank column of `observables.csv` reaches 1.
fn top_times(scene: &Scene, rows: &[Vec<f64>]) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for (k, o) in scene.observables.iter().enumerate() {
        if !matches!(o.kind, ObservableKind::RankFromTop(_)) {
            continue;
        }
        if let Some(row) = rows
            .iter()
            .find(|r| r.get(k + 2).is_some_and(|&v| v >= 1.0))
        {
            out.insert(o.name.clone(), row[1]);
        }
    }
    out
}

/// Height of the box floor at the world's current time (0 without a box).
pub fn floor_height(bounds: Option<&Bounds>, world: &World) -> f64 {
    bounds.map_or(0.0, |bd| {
        bd.floor_centre.z as f64
            + bd.motion
                .map(|m| m.displacement(world.time()).z as f64)
                .unwrap_or(0.0)
    })
}

/// The bodies a rank reads for its samples and frames: in a distributed world the ones it
/// owns ([`World::own_bodies`], as of the last step whatever the host copy holds), each rank's
/// figures reduced over the ranks; elsewhere every body of the host copy.
pub struct Share<'a> {
    /// The owned bodies' indices in the world and their state (`None`: every body).
    own: Option<(Vec<usize>, grains_kernels::Bodies)>,
    world: &'a World,
}

impl<'a> Share<'a> {
    /// This rank's share of `world` (not a collective call: nothing is gathered).
    pub fn of(world: &'a World) -> Share<'a> {
        Share {
            own: world.own_bodies(),
            world,
        }
    }

    /// Every body of `world`'s host copy.
    fn whole(world: &'a World) -> Share<'a> {
        Share { own: None, world }
    }

    /// The bodies' state: row k of [`Share::rows`].
    fn bodies(&self) -> &grains_kernels::Bodies {
        match &self.own {
            Some(own) => &own.1,
            None => self.world.bodies(),
        }
    }

    /// Each body as (its row in [`Share::bodies`], its index in the world), ascending.
    fn rows(&self) -> impl ExactSizeIterator<Item = (usize, usize)> + Clone + '_ {
        let at = move |k: usize| self.own.as_ref().map_or(k, |o| o.0[k]);
        (0..self.bodies().len()).map(move |k| (k, at(k)))
    }

    /// The rows of the bodies whose indices lie in `group`.
    fn rows_in<'b>(&'b self, group: &'b Range<usize>) -> impl Iterator<Item = usize> + 'b {
        self.rows()
            .filter(|(_, i)| group.contains(i))
            .map(|(k, _)| k)
    }

    /// `values` summed over the ranks (each rank's its own bodies').
    fn sum<const N: usize>(&self, mut values: [f64; N]) -> [f64; N] {
        self.world.sum_over_ranks(&mut values);
        values
    }

    /// The 95th percentile of the ranks' `values` together
    /// ([`percentile_95`](crate::output::quality::percentile_95)), the same number as of the
    /// values gathered; `None` where there are none.
    fn percentile_95(&self, mut values: Vec<f64>) -> Option<f64> {
        crate::output::quality::percentile_95(self.world, &mut values)
    }
}

/// Mean centre height of the bodies in `group` (m).
fn mean_height(share: &Share, group: &Range<usize>) -> f64 {
    let b = share.bodies();
    let sum = share.rows_in(group).map(|k| b.pos_radius[k].z as f64).sum();
    share.sum([sum])[0] / group.len().max(1) as f64
}

/// The angle (degrees, right-handed about the unit `axis`) from the downward vertical to the
/// mean centre of `group` seen from the axis through `point`, both projected on the plane
/// normal to the axis: the surface angle of a bed in a drum (see
/// [`ObservableKind::SurfaceAngle`]). 0 when the group is empty or gravity is along the axis.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn surface_angle(share: &Share, group: &Range<usize>, point: Vec3, axis: Vec3) -> f64 {
    let b = share.bodies();
    let (a, p) = (axis.as_dvec3(), point.as_dvec3());
    let across = |v: DVec3| v - a * a.dot(v);
    let sum: DVec3 = share
        .rows_in(group)
        .map(|k| b.pos_radius[k].truncate().as_dvec3() - p)
        .sum();
    let sum = DVec3::from_array(share.sum(sum.to_array()));
    let centroid = across(sum / group.len().max(1) as f64);
    let down = across(share.world.settings().gravity.as_dvec3());
    if group.is_empty() || down.length() == 0.0 {
        return 0.0;
    }
    down.cross(centroid)
        .dot(a)
        .atan2(down.dot(centroid))
        .to_degrees()
}

/// Centre heights of the dynamic bodies, leaving out `skip` (m).
fn dynamic_heights(share: &Share, skip: Option<&Range<usize>>) -> Vec<f64> {
    let b = share.bodies();
    (share.rows())
        .filter(|&(k, i)| b.is_dynamic(k) && !skip.is_some_and(|r| r.contains(&i)))
        .map(|(k, _)| b.pos_radius[k].z as f64)
        .collect()
}

/// 95th percentile of the dynamic bodies' centre heights (m).
fn bed_z95(share: &Share) -> f64 {
    share
        .percentile_95(dynamic_heights(share, None))
        .unwrap_or(0.0)
}

/// Height of `group` above the floor as a fraction of the other grains' z95 above the floor:
/// 1 or more means the group has reached the top of the bed. With no other grains the group
/// is the whole bed and nothing lies above it, so it is at the top: 1 (not the 0 / 0 of the
/// formula). In a distributed world, a call every rank makes together.
pub fn rank_from_top(world: &World, floor: f64, group: &Range<usize>) -> f64 {
    rank_from_top_in(&Share::of(world), floor, group)
}

/// [`rank_from_top`] of the bodies of `share`, reduced over the ranks.
fn rank_from_top_in(share: &Share, floor: f64, group: &Range<usize>) -> f64 {
    match share.percentile_95(dynamic_heights(share, Some(group))) {
        None => 1.0,
        Some(z95) => (mean_height(share, group) - floor) / (z95 - floor),
    }
}

/// The bodies' current indices of the group built as `group` (its ids; the bodies keep their
/// order when grains are removed, so they are a range again).
fn present(world: &World, group: &Range<usize>) -> Range<usize> {
    let ids = world.ids();
    ids.partition_point(|&id| id < group.start as u64)
        ..ids.partition_point(|&id| id < group.end as u64)
}

/// Mass removed so far by sink `sink`, or by all sinks (kg).
fn outflow_mass(world: &World, sink: Option<usize>) -> f64 {
    let sinks = &world.lifecycle_state().sinks;
    match sink {
        Some(k) => sinks[k].mass,
        None => sinks.iter().map(|s| s.mass).sum(),
    }
}

/// Current value of every observable of `scene`; `marks` holds, per `outflow_rate` observable,
/// the step and outflow mass of the last two samples (see [`RunRecord::outflow`]), which a
/// sample at a new step moves on. In a distributed world, a call every rank makes together:
/// each reads its own bodies, and the figures are reduced over the ranks (nothing gathered).
pub fn sample(scene: &Scene, world: &World, marks: &mut Vec<[f64; 4]>) -> Vec<f64> {
    sample_of(scene, &Share::of(world), marks)
}

/// [`sample`] of the bodies of `share`.
fn sample_of(scene: &Scene, share: &Share, marks: &mut Vec<[f64; 4]>) -> Vec<f64> {
    let (world, b) = (share.world, share.bodies());
    let rates = scene
        .observables
        .iter()
        .filter(|o| matches!(o.kind, ObservableKind::OutflowRate(_)))
        .count();
    marks.resize(rates, [0.0; 4]);
    let mut marks = marks.iter_mut();
    let floor = floor_height(scene.bounds.as_ref(), world);
    // The contacts' sums, each made once for every observable that reads it.
    let wall_forces = OnceCell::new();
    let body_forces = OnceCell::new();
    scene
        .observables
        .iter()
        .map(|o| match &o.kind {
            ObservableKind::Height(r) => mean_height(share, &present(world, r)),
            ObservableKind::RankFromTop(r) => rank_from_top_in(share, floor, &present(world, r)),
            ObservableKind::KineticEnergy => world.last_stats().kinetic_energy,
            ObservableKind::Contacts => world.last_stats().contacts as f64,
            ObservableKind::BedHeight => bed_z95(share),
            ObservableKind::MaxSpeed => {
                let fastest = (b.motion.iter())
                    .map(|m| m.v().length() as f64)
                    .fold(0.0, f64::max);
                let mut fastest = [fastest];
                world.max_over_ranks(&mut fastest);
                fastest[0]
            }
            ObservableKind::WallForce {
                walls,
                meshes,
                component,
            } => {
                let (loads, mesh_loads) = wall_forces
                    .get_or_init(|| (world.wall_loads(Vec3::ZERO), world.mesh_loads(Vec3::ZERO)));
                let on = loads[walls.clone()]
                    .iter()
                    .chain(&mesh_loads[meshes.clone()]);
                component.of(WallLoad::total(on).force)
            }
            ObservableKind::WallTorque {
                walls,
                meshes,
                point,
                axis,
            } => {
                let (loads, mesh_loads) = (world.wall_loads(*point), world.mesh_loads(*point));
                let on = loads[walls.clone()]
                    .iter()
                    .chain(&mesh_loads[meshes.clone()]);
                WallLoad::total(on).torque.dot(axis.as_dvec3())
            }
            ObservableKind::ContactForce { bodies, component } => {
                // A rank's forces are its own bodies' totals: the sum is its share.
                let forces = body_forces.get_or_init(|| world.body_contact_forces());
                let sum: DVec3 = forces[present(world, bodies)].iter().sum();
                let mut sum = sum.to_array();
                world.sum_over_ranks(&mut sum);
                component.of(DVec3::from_array(sum))
            }
            ObservableKind::GrainCount(None) => {
                share.sum([(0..b.len()).filter(|&k| b.is_dynamic(k)).count() as f64])[0]
            }
            ObservableKind::GrainCount(Some(k)) => world.lifecycle_state().sinks[*k].removed as f64,
            ObservableKind::BondsBroken => world.broken_bonds().len() as f64,
            ObservableKind::OutflowMass(sink) => outflow_mass(world, *sink),
            ObservableKind::OutflowRate(sink) => {
                let m = marks.next().expect("one mark per rate");
                let s = world.steps() as f64;
                if m[2] != s {
                    *m = [m[2], m[3], s, outflow_mass(world, *sink)];
                }
                if m[2] > m[0] {
                    (m[3] - m[1]) / ((m[2] - m[0]) * world.settings().h as f64)
                } else {
                    0.0
                }
            }
            ObservableKind::SurfaceAngle {
                bodies,
                point,
                axis,
            } => surface_angle(share, &present(world, bodies), *point, *axis),
            ObservableKind::MeanVelocity { bodies, component } => {
                let bodies = present(world, bodies);
                let n = bodies.len().max(1) as f64;
                let sum: DVec3 = (share.rows_in(&bodies))
                    .map(|k| b.motion[k].v().as_dvec3())
                    .sum();
                component.of(DVec3::from_array(share.sum(sum.to_array())) / n)
            }
        })
        .collect()
}

fn frame(scene: &Scene, world: &World, png: bool) -> Frame {
    frame_of(scene, &Share::whole(world), png)
}

/// The frame of the bodies of `share` (for one rank's piece, those it owns), with a PNG
/// snapshot when `png`; the integer arrays' types are the whole world's ([`frame_bounds`]).
fn frame_of(scene: &Scene, share: &Share, png: bool) -> Frame {
    let (world, b, rows) = (share.world, share.bodies(), share.rows());
    let n = rows.len();
    let ids = world.ids();
    let mut f = Frame {
        step: world.steps(),
        time: exact_time(world.steps(), world.settings().h),
        positions: Vec::with_capacity(n),
        radii: Vec::with_capacity(n),
        velocities: Vec::with_capacity(n),
        angular_velocities: Vec::with_capacity(n),
        orientations: Vec::with_capacity(n),
        stresses: match scene.output.frame_stress {
            // The run refuses the key where the stress cannot be had (shapes, mpirun).
            true => grain_stress(world).map_or_else(
                |_| Vec::new(),
                |s| {
                    (rows.clone())
                        .map(|(_, i)| flat(&s[i]).map(|x| x as f32))
                        .collect()
                },
            ),
            false => Vec::new(),
        },
        broken_bonds: {
            let counts = world.broken_bond_counts();
            match counts.is_empty() {
                true => counts,
                false => rows.clone().map(|(_, i)| counts[i]).collect(),
            }
        },
        shapes: Vec::new(),
        half_extents: Vec::new(),
        materials: rows.clone().map(|(k, _)| b.material[k]).collect(),
        groups: Vec::with_capacity(n),
        walls: if png {
            world.walls().to_vec()
        } else {
            Vec::new()
        },
        triangles: if png {
            world.mesh_triangles().to_vec()
        } else {
            Vec::new()
        },
        ids: rows.clone().map(|(_, i)| ids[i]).collect(),
        png,
        orientation: scene.output.frame_orientation,
        bounds: Some(frame_bounds(scene, world)),
    };
    for (k, i) in rows {
        let (p, m) = (b.pos_radius[k], &b.motion[k]);
        f.positions.push(p.truncate().to_array());
        f.radii.push(p.w);
        f.velocities.push(m.v().to_array());
        f.angular_velocities.push(m.w().to_array());
        f.orientations.push(b.orientation[k].to_array());
        if world.has_shapes() {
            f.shapes.push(world.shape(i));
            f.half_extents.push(world.half_extents(i).to_array());
        }
        // The table that made the body: the groups' ranges of ids follow one another.
        let id = ids[i] as usize;
        let k = scene.groups.partition_point(|g| g.range.start <= id);
        let group = match k.checked_sub(1) {
            Some(k) if scene.groups[k].range.contains(&id) => k as u32,
            _ => NO_GROUP,
        };
        f.groups.push(group);
    }
    f
}

/// The bounds that fix the types of `world`'s frames' integer arrays: the world's (not one
/// frame's or piece's), so that every piece of a frame and every frame of a run declare the
/// same types.
fn frame_bounds(scene: &Scene, world: &World) -> FrameBounds {
    FrameBounds {
        points: world.len(),
        id: world.lifecycle_state().next_id.saturating_sub(1),
        material: (scene.builder().materials().list.len())
            .max(scene.material_names.len())
            .saturating_sub(1) as u32,
        group: scene.groups.len().saturating_sub(1) as u32,
    }
}

/// The region a snapshot shows: the box (or the bodies) with a margin, from the floor up to
/// 1.3 × the highest body top at the start (or top of an insertion region).
fn view(scene: &Scene) -> View {
    // The bodies at the start and the regions grains are inserted into, as (lower, upper)
    // corners of their bounding boxes.
    let boxes: Vec<(Vec3, Vec3)> = (scene.builder().bodies().iter())
        .map(|b| {
            (
                b.position - Vec3::splat(b.radius),
                b.position + Vec3::splat(b.radius),
            )
        })
        .chain(
            scene
                .builder()
                .insertions()
                .iter()
                .map(|i| i.region.bounds()),
        )
        .collect();
    let top = boxes
        .iter()
        .map(|b| b.1.z)
        .fold(f32::NEG_INFINITY, f32::max);
    let bottom = boxes.iter().map(|b| b.0.z).fold(f32::INFINITY, f32::min);
    let (x0, x1) = match scene.bounds {
        Some(b) => (b.floor_centre.x - b.half_x, b.floor_centre.x + b.half_x),
        None => (
            boxes.iter().map(|b| b.0.x).fold(f32::INFINITY, f32::min),
            boxes
                .iter()
                .map(|b| b.1.x)
                .fold(f32::NEG_INFINITY, f32::max),
        ),
    };
    let floor = scene.bounds.map(|b| b.floor_centre.z).unwrap_or(bottom);
    let amp = scene
        .bounds
        .and_then(|b| b.motion)
        .map(|m| match m {
            grains::motion::Prescribed::Shake { amplitude, .. } => amplitude,
            _ => 0.0,
        })
        .unwrap_or(0.0);
    let w = (x1 - x0).max(1e-6);
    let z0 = floor.min(bottom) - amp - 0.05 * w;
    let z1 = match scene.output.view_height {
        Some(hgt) => floor + hgt + amp,
        None => floor + 1.3 * (top - floor) + amp,
    };
    View {
        x0: x0 - 0.05 * w,
        x1: x1 + 0.05 * w,
        z0,
        z1: z1.max(z0 + 0.2 * w),
    }
}

/// Opens the output folder: for a new run, checks that it is empty and writes `scene.toml`;
/// for a resume, restores the world and the run's record from `checkpoint.bin` (or, when the
/// run was killed before its first checkpoint, starts it again from step 0), then writes
/// `scene.toml` anew, since the scene resumed with may differ in what does not change the
/// physics (its duration, its description). Returns the record and the step resumed from.
/// A rank that does not write (`writes` false, see [`run_distributed`]) only reads: it skips
/// the checks and writes of the folder, which the writing rank makes, and restores the
/// checkpoint.
fn open_folder(
    scene: &Scene,
    opts: &RunOptions,
    world: &mut World,
    (scene_text, writes): (&[u8], bool),
) -> Result<(RunRecord, Option<u64>), RunError> {
    let layout = Layout {
        dir: opts.out.clone(),
    };
    let out_err = |problem: String| RunError::Output {
        dir: opts.out.clone(),
        problem,
    };
    let res_err = |problem: String| RunError::Resume {
        dir: opts.out.clone(),
        problem,
    };
    // A new run, or a resume of a run killed before it wrote its scene.toml (an empty folder,
    // or one holding only the temporary file of that write): start at step 0.
    let killed_before_its_scene = opts.resume && opts.out.is_dir() && holds_no_results(&opts.out);
    if !writes && (!opts.resume || killed_before_its_scene) {
        return Ok((RunRecord::new(scene), None));
    }
    if !opts.resume || killed_before_its_scene {
        if !holds_no_results(&opts.out) {
            return Err(out_err(
                "exists and is not empty; choose a new folder, or continue a cut-short run with --resume".into(),
            ));
        }
        std::fs::create_dir_all(&opts.out).map_err(|e| out_err(format!("cannot create: {e}")))?;
        write_atomic(&layout.scene(), scene_text)
            .map_err(|e| out_err(format!("cannot write: {e}")))?;
        return Ok((RunRecord::new(scene), None));
    }
    if let Err(e) = std::fs::metadata(layout.scene()) {
        return Err(res_err(format!(
            "no scene.toml, so not a run's folder: {e}"
        )));
    }
    let (record, resumed) = match std::fs::read(layout.checkpoint()) {
        // Killed before its first checkpoint (at step 0): nothing to keep, start again.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (RunRecord::new(scene), None),
        Err(e) => return Err(res_err(format!("cannot read checkpoint.bin: {e}"))),
        Ok(bytes) => {
            let snap = read_checkpoint(&opts.out, &bytes).map_err(res_err)?;
            let record = RunRecord::from_bytes(&snap.extra)
                .map_err(|e| res_err(format!("checkpoint.bin: {e}")))?;
            world.restore(&snap).map_err(|e| match e {
                SnapshotError::PhysicsChanged(_) => res_err(format!(
                    "{e}; resume with the scene the run was started with, or start a new run"
                )),
                e => res_err(format!("checkpoint.bin: {e}")),
            })?;
            let changed = record.cadence_changes(scene);
            if !changed.is_empty() {
                return Err(res_err(format!(
                    "the scene's outputs changed since the checkpoint: {}; the files written follow the old ones, so resume with them",
                    changed.join(", ")
                )));
            }
            if record.taken != snap.steps {
                return Err(res_err(format!(
                    "checkpoint.bin: its step counter ({}) disagrees with its run record ({} steps taken): the file was edited; resume from a checkpoint the run wrote, or start a new run",
                    snap.steps, record.taken
                )));
            }
            world.check_reach(&snap).map_err(|e| {
                res_err(format!(
                    "checkpoint.bin: {e}; the checkpoint was edited or is not of this run"
                ))
            })?;
            if writes {
                written_before(scene, &layout, snap.steps).map_err(res_err)?;
            }
            if snap.steps > scene.total_steps() {
                return Err(res_err(format!(
                    "the checkpoint is at step {}, past the scene's end at step {} (its duration shrank); resume with a duration of at least {} s",
                    snap.steps,
                    scene.total_steps(),
                    exact_time(snap.steps, scene.settings().h)
                )));
            }
            (record, Some(snap.steps))
        }
    };
    if !writes {
        return Ok((record, resumed));
    }
    if resumed.is_none() {
        // A summary of an earlier start cannot outlive it (none is written before the end).
        match std::fs::remove_file(layout.summary()) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(out_err(format!("cannot remove summary.json: {e}")))
            }
            _ => {}
        }
    }
    write_atomic(&layout.scene(), scene_text).map_err(|e| out_err(format!("cannot write: {e}")))?;
    Ok((record, resumed))
}

/// Checks that the folder holds what the run wrote before its checkpoint at step `steps`: the
/// last frame at or before it (with `vtu` frames) and the last sample row (with the CSV), both
/// written before the checkpoint. A checkpoint copied from a later point of the run (or of
/// another run), or a step counter edited, leaves them missing; resuming it would leave the
/// folder without its frames.
fn written_before(scene: &Scene, layout: &Layout, steps: u64) -> Result<(), String> {
    let o = &scene.output;
    if o.formats.vtu {
        let last = steps / o.every * o.every;
        let name = Layout::frame_name(last);
        // One process writes `.vtu` frames, a distributed run `.pvtu` ones (with their pieces).
        let parallel = Layout::parallel_frame_name(last);
        if !layout.frames().join(&name).is_file() && !layout.frames().join(&parallel).is_file() {
            return Err(format!(
                "the checkpoint is at step {steps}, but frames/{name}, written before it, is missing: the checkpoint is not this folder's; resume from the checkpoint the run wrote, or start a new run"
            ));
        }
    }
    if o.formats.csv {
        let last = steps / o.observe_every * o.observe_every;
        let text = std::fs::read_to_string(layout.csv()).unwrap_or_default();
        let found = text.lines().skip(1).any(|line| {
            line.split(',')
                .next()
                .and_then(|x| x.trim().parse::<f64>().ok())
                == Some(last as f64)
        });
        if !found {
            return Err(format!(
                "the checkpoint is at step {steps}, but observables.csv has no row for step {last}, written before it: the checkpoint is not this folder's; resume from the checkpoint the run wrote, or start a new run"
            ));
        }
    }
    Ok(())
}

/// Runs `scene` with `opts`; returns the summary (also written to `summary.json`). A run that
/// fails on a health check or the GPU writes a `summary.json` saying so before it returns the
/// error.
pub fn run(scene: &Scene, opts: &RunOptions) -> Result<RunSummary, RunError> {
    run_distributed(scene.clone(), opts, None)
}

/// [`run`] as one rank of a distributed run when `distribute` is given: every rank builds the
/// world from the scene, `distribute.split` makes it this rank's share, and all ranks step
/// and sample together on the gathered host copy, which only the writing rank writes (one CSV,
/// one summary); every rank writes its pieces of the frames and, on 2 ranks or more, of the
/// checkpoints, whose index the writing rank writes (`checkpoint_pieces`). A resume
/// restores the checkpoint (whole, or joined from its pieces) on every rank, whatever the rank
/// count that wrote it.
pub fn run_distributed(
    mut scene: Scene,
    opts: &RunOptions,
    distribute: Option<Distribute>,
) -> Result<RunSummary, RunError> {
    let writes = distribute.is_none_or(|d| d.writes);
    let layout = Layout {
        dir: opts.out.clone(),
    };
    let out_err = |problem: String| RunError::Output {
        dir: opts.out.clone(),
        problem,
    };
    // The setup up to the first collective step, in two stages, each agreed among the ranks
    // of a distributed run (one rank may fail where the others do not: a file it alone cannot
    // read, a GPU it alone cannot open).
    // The region the snapshots show, from the bodies at the start.
    let start = view(&scene);
    let built = (|| {
        if distribute.is_some() && scene.fields.is_some() {
            return Err(RunError::Scene(scene.fields_refusal(&refused(
                Feature::Distributed,
                Feature::FieldsOutput,
            ))));
        }
        if scene.output.frame_stress && distribute.is_some() {
            let problem = refused(Feature::Distributed, Feature::FrameStress);
            return Err(RunError::Scene(scene.frame_stress_refusal(&problem)));
        }
        if distribute.is_some() && scene.output.formats.meshes {
            let problem = refused(Feature::Distributed, Feature::MeshLoadFrames);
            return Err(RunError::Scene(scene.meshes_refusal(&problem)));
        }
        // Before anything in the folder is read or written: no entry of it is followed as a
        // link.
        layout
            .refuse_links()
            .map_err(|e| out_err(format!("refused: {e}")))?;
        let mut world = scene.world_with(opts.threads, opts.backend)?;
        if scene.output.frame_stress && world.has_shapes() {
            let problem = refused(Feature::FrameStress, Feature::NonSpheres);
            return Err(RunError::Scene(scene.frame_stress_refusal(&problem)));
        }
        if scene.output.formats.meshes {
            if world.mesh_triangles().is_empty() {
                return Err(RunError::Scene(scene.meshes_refusal(
                    "\"meshes\" frames need a mesh: the scene has no [[meshes]]",
                )));
            }
            if world.backend() != Backend::Cpu {
                let problem = refused(Feature::GpuBackend, Feature::MeshLoadFrames);
                return Err(RunError::Scene(scene.meshes_refusal(&problem)));
            }
        }
        if let Some(d) = distribute {
            (d.split)(&mut world).map_err(|e| RunError::Scene(scene.refusal(e)))?;
        }
        Ok(world)
    })();
    let mut world = agreed(distribute, built)?;
    // The world holds the bodies (a rank of a distributed run, at its first step, only its
    // own): the scene's copy of every body is freed.
    scene.forget_bodies();
    let scene = &scene;
    // The folder's scene.toml is the text the scene was parsed from: the file is not read
    // again (it may have changed, or gone, since).
    let scene_text = scene.source().as_bytes();
    let step_err = |world: &World, source| match source {
        StepError::Gpu(source) => RunError::Gpu {
            step: world.steps(),
            source,
        },
        source => RunError::Health { source },
    };
    let o = &scene.output;
    let h32 = scene.settings().h;
    let style = Style {
        width: o.image_width,
        colour: o.colour,
        extent: match o.view_extent {
            ViewExtent::Start => Extent::Fixed(start),
            ViewExtent::Bodies => Extent::Bodies,
        },
        section: match (o.section, o.section_y) {
            (false, _) => Section::None,
            (true, None) => Section::Largest,
            (true, Some(y)) => Section::At(y),
        },
        time_decimals: time_decimals(h32 as f64).max(3),
        material_names: scene.material_names.clone(),
        group_names: scene.groups.iter().map(|g| g.name.clone()).collect(),
    };
    let config = WriterConfig {
        layout: layout.clone(),
        formats: o.formats,
        encoding: o.frame_encoding,
        style: style.clone(),
        columns: scene.observables.iter().map(|o| o.name.clone()).collect(),
        quantities: scene
            .observables
            .iter()
            .map(|o| (o.kind.quantity(), o.kind.unit()))
            .collect(),
        h: h32,
        part: distribute.map(|d| Part {
            rank: d.rank,
            ranks: d.ranks,
        }),
    };
    // The folder opened (the checkpoint restored on a resume) and the writer started: the
    // writing rank's first, which keeps or removes the frames of an earlier run; then, once
    // the folder is ready, the other ranks' (which write their pieces of the frames; a second
    // agreement, made by every rank).
    let opened =
        open_folder(scene, opts, &mut world, (scene_text, writes)).and_then(|(record, at)| {
            let writer = match writes {
                true => Some(Writer::start(config.clone(), at)),
                false => None,
            }
            .transpose()
            .map_err(|e| out_err(format!("cannot write: {e}")))?;
            Ok((record, at, writer))
        });
    let (mut record, resume_step, writer) = agreed(distribute, opened)?;
    // Every rank writes its pieces of the checkpoints (and of the frames).
    let writer = match writer {
        Some(writer) => Ok(writer),
        None => Writer::start(config, resume_step),
    }
    .map_err(|e| out_err(format!("cannot write: {e}")));
    let writer = agreed(distribute, writer)?;
    // A distributed run's frames are written in pieces, each rank its own bodies' (and the
    // contacts it solved).
    let pieces = distribute.is_some() && (o.formats.vtu || o.formats.contacts);
    // Archard's F_n s of each mesh triangle over the run, with `"meshes"` frames: summed after
    // every step, saved with each checkpoint.
    let load_distance = std::cell::RefCell::new(LoadDistance(record.load_distance.clone()));
    // The `[fields]` time average in progress (`average_every`), saved with each checkpoint.
    let average = std::cell::RefCell::new(record.fields_average.clone().unwrap_or_default());

    let total = scene.total_steps();
    let start_step = world.steps();
    let mut frames_written = match resume_step {
        Some(s) if o.formats.frames() => s / o.every + 1,
        _ => 0,
    };
    // Every sample, frame and checkpoint first reads the GPU's state back (no-op on the CPU);
    // the contacts too, only for the samples of contact observables and the contact frames.
    let reads_contacts = scene.observables.iter().any(|o| o.kind.reads_contacts());
    // The outflow rates' last samples, saved with each checkpoint.
    let marks = std::cell::RefCell::new(record.outflow.clone());
    // The snapshots' style, for the pieces a distributed run's ranks draw.
    let style = &style;
    let emit = |world: &mut World, frames_written: &mut u64, writer: &Writer| {
        let s = world.steps();
        let csv = o.formats.csv && s.is_multiple_of(o.observe_every);
        let frame_due = s.is_multiple_of(o.every) && o.formats.frames();
        let png =
            frame_due && o.formats.png && ((s / o.every).is_multiple_of(o.png_every) || s == total);
        // The health checks run on every state read back before anything of it is written. A
        // distributed run's ranks read their own bodies and contacts (the samples reduced over
        // the ranks, the frames, contact frames and snapshots in pieces), nothing gathered.
        if (csv || frame_due) && distribute.is_some() {
            world.read_checked()?;
        } else if csv || frame_due {
            world.sync_checked()?;
        }
        if (csv && reads_contacts) || (frame_due && (o.formats.contacts || o.frame_stress)) {
            world.read_contacts().map_err(StepError::Gpu)?;
        }
        let share = (csv || frame_due).then(|| Share::of(world));
        if let (true, Some(share)) = (csv, &share) {
            let mut row = vec![s as f64, exact_time(s, h32)];
            row.extend(sample_of(scene, share, &mut marks.borrow_mut()));
            writer.send(WriterMsg::Sample(row));
        }
        if let (true, Some(share)) = (frame_due, &share) {
            let owned = if pieces { world.owned_indices() } else { None };
            if distribute.is_some() && (o.formats.vtu || png) {
                // Each rank's piece of the frame, and of the snapshot: the ranks paint their own
                // grains and composite them, nothing gathered.
                let mut piece = frame_of(scene, share, png);
                if png {
                    // The writing rank's picture (or why it could not be drawn: the writer
                    // fails the run with it).
                    if let Some(picture) =
                        snapshot_of_parts(&piece, style, world, writes).transpose()
                    {
                        writer.send(WriterMsg::Picture(s, Box::new(picture)));
                    }
                    (piece.png, piece.walls, piece.triangles) = (false, Vec::new(), Vec::new());
                }
                if o.formats.vtu {
                    writer.send(WriterMsg::Frame(Box::new(piece)));
                }
            } else if distribute.is_none() && (o.formats.vtu || o.formats.png) {
                writer.send(WriterMsg::Frame(Box::new(frame(scene, world, png))));
            }
            if o.formats.contacts {
                let contacts = match &owned {
                    Some(owned) => ContactFrame::piece(world, owned),
                    None => ContactFrame::of(world),
                };
                writer.send(WriterMsg::Contacts(Box::new(contacts)));
            }
            if o.formats.meshes {
                let f = MeshLoadFrame::of(world, &load_distance.borrow());
                writer.send(WriterMsg::MeshLoads(Box::new(f)));
            }
            *frames_written += 1;
        }
        if let Some(fields) = scene
            .fields
            .as_ref()
            .filter(|f| s.is_multiple_of(f.average_every))
        {
            if !(csv || frame_due) {
                world.sync_checked()?;
            }
            world.sync_contacts().map_err(StepError::Gpu)?;
            let mut average = average.borrow_mut();
            write_fields(world, fields, &mut average, (o.frame_encoding, writer));
        }
        Ok(())
    };
    // The checkpoint after the step the world is at, with the record up to it.
    let checkpoint = |world: &mut World, record: &RunRecord, writer: &Writer| {
        let record = RunRecord {
            outflow: marks.borrow().clone(),
            load_distance: load_distance.borrow().0.clone(),
            fields_average: Some(average.borrow().clone()),
            ..record.clone()
        };
        if let Some(d) = distribute.filter(|d| d.ranks > 1) {
            return checkpoint_pieces(world, record.to_bytes(), writer, d);
        }
        world.sync_checked()?;
        if let (Some(d), true) = (distribute, pieces) {
            // A checkpoint on disk implies every earlier frame is: every rank's pieces are
            // written before the writing rank queues it. Where a rank's write failed, none is
            // written; the ranks stop at the next step that agrees on the failure.
            writer.drain();
            if (d.first_failed)(writer.failed()).is_some() {
                return Ok(());
            }
        }
        let mut snap = world.snapshot()?;
        snap.extra = record.to_bytes();
        writer.send(WriterMsg::Checkpoint {
            step: world.steps(),
            bytes: snap.to_bytes(),
            pieces: 0,
        });
        Ok::<(), StepError>(())
    };
    if resume_step.is_none() {
        // Step 0 is on the host: nothing to read back, no failure. Its checkpoint makes every
        // started run resumable.
        emit(&mut world, &mut frames_written, &writer).map_err(|e| step_err(&world, e))?;
        checkpoint(&mut world, &record, &writer).map_err(|e| step_err(&world, e))?;
    }

    let h = h32 as f64;
    if opts.progress {
        println!("{}", start_line(scene, &world, start_step, &opts.out));
    }
    let on_terminal = std::io::stderr().is_terminal();
    let mut rate = RecentRate::new(start_step, Instant::now());
    let mut status = (opts.progress && !on_terminal)
        .then(|| StatusLines::new(start_step, total, h, Instant::now(), opts.status_every));
    let bar = if opts.progress && on_terminal {
        let b = indicatif::ProgressBar::new(total);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40.cyan/blue} {pos}/{len} steps  {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b.set_position(start_step);
        b
    } else {
        indicatif::ProgressBar::hidden()
    };

    // Statistics are summed over the steps whose figures are fresh (every step on the CPU, the
    // read-back steps on the GPU), into the record, whose sums start from the checkpoint's.
    let (before_taken, before_wall) = (record.taken, record.wall_seconds);
    if start_step < total {
        record.sessions += 1;
    }
    let clock = Instant::now();
    let mut last_draw = Instant::now();
    let mut stopped_early = false;
    let mut interrupted = false;
    // A GPU failure ends the loop; what was queued is still written before it is reported.
    let stepped: Result<(), StepError> = 'steps: {
        while world.steps() < total {
            if opts.stop_after.is_some_and(|s| world.steps() >= s) {
                stopped_early = true;
                break;
            }
            // A failed write stops the run here; the writer's error is reported below. In a
            // distributed run only one rank writes: the ranks agree on its failure at each
            // step whose state was handed to the writer, so that they all stop there.
            let failed = match distribute {
                None => writer.failed(),
                Some(d) => {
                    let s = world.steps();
                    let handed = (o.formats.csv && s.is_multiple_of(o.observe_every))
                        || s.is_multiple_of(o.every)
                        || s.is_multiple_of(o.checkpoint_every);
                    handed && (d.first_failed)(writer.failed()).is_some()
                }
            };
            if failed {
                break 'steps Ok(());
            }
            let st = match world.step() {
                Ok(st) => st,
                Err(e) => break 'steps Err(e),
            };
            for (step, fault) in world.take_warnings() {
                bar.suspend(|| eprintln!("warning: step {step}: {fault}"));
            }
            if o.formats.meshes {
                load_distance.borrow_mut().add_step(&world);
            }
            record.taken += 1;
            record.wall_seconds = before_wall + clock.elapsed().as_secs_f64();
            if world.stats_at() == world.steps() {
                record.iterations += st.iterations as u64;
                record.contacts += st.contacts as u64;
                record.counted += 1;
            }
            if let Err(e) = emit(&mut world, &mut frames_written, &writer) {
                break 'steps Err(e);
            }
            let s = world.steps();
            if s.is_multiple_of(o.checkpoint_every) && s < total {
                if let Err(e) = checkpoint(&mut world, &record, &writer) {
                    break 'steps Err(e);
                }
            }
            if opts.interrupt.is_some_and(|asked| asked()) {
                (stopped_early, interrupted) = (true, true);
                break;
            }
            if last_draw.elapsed().as_secs_f64() > 0.2 {
                last_draw = Instant::now();
                rate.record(s, last_draw);
                bar.set_position(s);
                bar.set_message(format!(
                    "t = {} s, {:.0} steps/s  ETA {}",
                    format_time(world.time(), h),
                    rate.per_second().unwrap_or(0.0),
                    rate.time_left(total)
                ));
                if let Some(line) = status
                    .as_mut()
                    .and_then(|st| st.due(s, world.time(), last_draw, &rate))
                {
                    println!("{line}");
                }
            }
        }
        // The end state on the host (GPU), for the summary (with the contacts its observables
        // read); and, unless stopped early, the final checkpoint (after the last step), so that
        // resuming a finished run does nothing. A distributed run's ranks check their own
        // bodies: its summary's figures are reduced over the ranks, nothing gathered.
        let end = match distribute {
            Some(_) => world.read_checked(),
            None => world.sync_checked(),
        };
        if let Err(e) = end {
            break 'steps Err(e);
        }
        if reads_contacts {
            if let Err(e) = world.read_contacts() {
                break 'steps Err(e.into());
            }
        }
        if (!stopped_early || interrupted) && world.steps() > start_step {
            if let Err(e) = checkpoint(&mut world, &record, &writer) {
                break 'steps Err(e);
            }
        }
        Ok(())
    };
    let session_wall = clock.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let written = writer.finish().map_err(|e| {
        out_err(format!(
            "writing results failed at step {}: {e}; the folder holds the results up to the last checkpoint",
            world.steps()
        ))
    });
    // The writing rank's failure, known to every rank: each ends by itself.
    let written = agreed(distribute, written);
    let session = (record.taken - before_taken, session_wall);
    record.outflow = marks.take();
    record.load_distance = load_distance.take().0;
    let failure = stepped.err().map(|e| step_err(&world, e));
    if failure.is_none() {
        written?;
    }
    let mut summary = summarise(
        scene,
        &world,
        &layout.csv(),
        &record,
        session,
        frames_written,
    );
    summary.resumed_from_step = start_step;
    summary.stopped_early = stopped_early;
    if let Some(e) = failure {
        // The figures up to the failure, for whoever reads the folder; the error is returned
        // whether or not this write succeeds.
        summary.failed = true;
        summary.error = Some(e.to_string());
        if writes {
            let _ = write_summary(&layout, &summary);
        }
        return Err(e);
    }
    // Resuming a finished run steps nothing: its summary.json stays as the run wrote it.
    let finished_before = start_step == total && resume_step.is_some() && layout.summary().exists();
    let summary_written = match !stopped_early && !finished_before && writes {
        true => write_summary(&layout, &summary)
            .map_err(|e| out_err(format!("cannot write summary.json: {e}"))),
        false => Ok(()),
    };
    // The writing rank's failure, known to every rank (each makes this last collective call
    // after the steps' last one): each ends by itself, none is left waiting.
    agreed(distribute, summary_written)?;
    Ok(summary)
}

/// The coarse-grained fields of `[fields]` at the world's step, a sample of `average` where
/// the output averages several; at an output step, handed to the writer as a grid's `.vti` or
/// a profile's CSV (the sample itself, or the average's mean, which starts afresh). The
/// scene's checks leave `coarse_grain` nothing to refuse but a distributed world, which the
/// run refuses at its start; a refusal is reported all the same, and the run goes on.
fn write_fields(
    world: &World,
    fields: &FieldsOutput,
    average: &mut FieldsAverage,
    (encoding, writer): (FrameEncoding, &Writer),
) {
    let step = world.steps();
    let output = step.is_multiple_of(fields.every);
    let sample = coarse_grain(world, &fields.sampling, fields.kernel).and_then(|f| {
        if fields.average_every == fields.every {
            return Ok(Some(f));
        }
        average.add(&f)?;
        Ok(output.then(|| std::mem::take(average).mean()).flatten())
    });
    match sample {
        Ok(None) => {}
        Ok(Some(f)) => {
            let grid = matches!(fields.sampling, Sampling::Grid { .. });
            let bytes = match grid {
                true => vti(&f, &fields.sampling, world.time(), encoding),
                false => profile_csv(&f, &fields.sampling).into_bytes(),
            };
            let name = Layout::field_name(step, grid);
            writer.send(WriterMsg::Fields { name, bytes });
        }
        Err(e) => eprintln!("warning: step {step}: no fields written: {e}"),
    }
}

/// The checkpoint of a run on `d`'s K ≥ 2 ranks after the step `world` is at, with the run's
/// record `extra`, written by the ranks themselves, never gathered: each rank's writer writes
/// its piece ([`World::snapshot_piece`]: its bodies and the warm start of the contacts it
/// decides) after every frame queued before it; once every rank's writes are on disk, the
/// ranks exchange whether they succeeded with each piece's size and CRC-32 (24 bytes a rank),
/// and rank 0 queues the index naming them, which its writer renames into place last. Where
/// a rank's write failed, no index is written (the ranks stop at the next step that agrees on
/// the failure). Nothing is gathered: the health checks ran where the state was handed to the
/// writer (the samples and frames, every `sync_every` steps).
fn checkpoint_pieces(
    world: &mut World,
    extra: Vec<u8>,
    writer: &Writer,
    d: Distribute,
) -> Result<(), StepError> {
    let step = world.steps();
    let piece = world
        .snapshot_piece()
        .expect("a distributed world has pieces")
        .into_bytes();
    let mine = PieceEntry::of(piece_name(step, d.rank), &piece);
    writer.send(WriterMsg::CheckpointPiece(step, piece));
    writer.drain();
    let all = (d.all_gather)(&[u64::from(writer.failed()), mine.size, u64::from(mine.crc)]);
    if all.chunks(3).any(|r| r[0] != 0) || !d.writes {
        return Ok(());
    }
    let entries = (all.chunks(3).enumerate())
        .map(|(k, r)| PieceEntry {
            name: piece_name(step, k),
            size: r[1],
            crc: r[2] as u32,
        })
        .collect();
    let mut index = world.snapshot_index(entries);
    index.head.extra = extra;
    writer.send(WriterMsg::Checkpoint {
        step,
        bytes: index.to_bytes(),
        pieces: d.ranks,
    });
    Ok(())
}

/// The line said when stepping starts: the scene, its bodies, the steps to take (from the
/// checkpoint's on a resume), where the outputs go and what steps the world.
fn start_line(scene: &Scene, world: &World, from: u64, out: &std::path::Path) -> String {
    let (total, h) = (scene.total_steps(), scene.settings().h);
    let steps = match from {
        0 => format!("{total} steps"),
        s => format!("steps {s} to {total} (resumed)"),
    };
    let on = backend_phrase(world.adapter_name(), world.settings().threads);
    let h_is = match world.settings().auto_step {
        None => "h =",
        Some(_) => "h_max =",
    };
    format!(
        "{}: {} bodies, {steps} of {h_is} {h} s (to t = {} s), into {}, {on}",
        scene.name,
        world.len(),
        format_time(exact_time(total, h), h as f64),
        out.display()
    )
}

/// Writes `summary` as the folder's `summary.json`, atomically.
fn write_summary(layout: &Layout, summary: &RunSummary) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(summary).unwrap_or_default();
    write_atomic(&layout.summary(), json.as_bytes())
}

/// The summary of the run in the state `world` is in, with the sums of `record`, the steps and
/// wall seconds of the last session in `session`, and the times the groups reached the top
/// read from the observables in `csv`.
fn summarise(
    scene: &Scene,
    world: &World,
    csv: &std::path::Path,
    record: &RunRecord,
    session: (u64, f64),
    frames: u64,
) -> RunSummary {
    let values = sample(scene, world, &mut record.outflow.clone());
    let rows = csv_rows(csv);
    let top_reached_s = top_times(scene, &rows);
    let freq = match scene.bounds.and_then(|b| b.motion) {
        Some(grains::motion::Prescribed::Shake { frequency, .. }) => Some(frequency as f64),
        _ => None,
    };
    let top_reached_shakes = match freq {
        Some(f) => top_reached_s
            .iter()
            .map(|(k, t)| (k.clone(), t * f))
            .collect(),
        None => BTreeMap::new(),
    };
    let h = scene.settings().h;
    let per_second = |n: u64, s: f64| if n == 0 { 0.0 } else { n as f64 / s.max(1e-12) };
    let wall = record.wall_seconds;
    let lifecycle = world.lifecycle_state().totals();
    RunSummary {
        scene: scene.name.clone(),
        bodies: world.len(),
        threads: world.settings().threads,
        backend: world.backend().name(),
        adapter: world.adapter_name().map(str::to_string),
        dt: exact_time(1, h),
        steps: world.steps(),
        simulated_time_s: exact_time(world.steps(), h),
        resumed_from_step: 0,
        sessions: record.sessions,
        wall_seconds: wall,
        steps_per_s: per_second(record.taken, wall),
        body_steps_per_s: per_second(record.taken * world.len() as u64, wall),
        session_wall_seconds: session.1,
        session_steps_per_s: per_second(session.0, session.1),
        session_stage_seconds: world.stage_times().map(|t| {
            (grains::Stage::ALL.iter())
                .map(|&stage| (stage.name().to_string(), t.seconds(stage)))
                .collect()
        }),
        iterations_mean: record.iterations as f64 / record.counted.max(1) as f64,
        contacts_mean: record.contacts as f64 / record.counted.max(1) as f64,
        frames,
        quality: Quality::measure_boxes(world, &scene.boxes),
        observables_final: scene
            .observables
            .iter()
            .zip(values)
            .map(|(o, v)| (o.name.clone(), v))
            .collect(),
        observables_mean_second_half: second_half_means(scene, &rows),
        top_reached_s,
        top_reached_shakes,
        stopped_early: false,
        failed: false,
        error: None,
        grains_inserted: lifecycle.inserted,
        grains_missed: lifecycle.missed,
        grains_removed: lifecycle.removed,
        grains_inserted_kg: lifecycle.inserted_mass,
        grains_removed_kg: lifecycle.removed_mass,
        step_sizes: StepSizes::of(world),
        bonds_broken: world.broken_bonds().len(),
        traffic: Traffic::of(world),
    }
}

/// Where a run steps, as the start and summary lines say it: "GPU adapter NAME", or "CPU, 1
/// thread" / "CPU, N threads".
pub fn backend_phrase(adapter: Option<&str>, threads: usize) -> String {
    match (adapter, threads) {
        (Some(a), _) => format!("GPU adapter {a}"),
        (None, 1) => "CPU, 1 thread".to_string(),
        (None, n) => format!("CPU, {n} threads"),
    }
}

/// The support table's row refusing `b` with `a`, in words (both sides named, and why).
fn refused(a: Feature, b: Feature) -> String {
    limit(a, b).map_or_else(
        || format!("{} cannot be combined with {}", b.name(), a.name()),
        |row| row.to_string(),
    )
}
