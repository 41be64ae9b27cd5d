//! Grains that come and go while a run goes: the world's side of [`Insertion`]s and [`Sink`]s.
//!
//! Between steps, on each insertion's batch steps (multiples of
//! [`World::insertion_batch_steps`]) and every [`SINK_STEPS`] steps where the world has sinks,
//! the world brings its host copy up to date (a read-back on the GPU), removes the dynamic
//! grains whose centres lie in a sink, then places the grains owed by the insertions whose
//! batch step it is, and hands the
//! edited bodies with the remapped warm start to the backend, which uploads them at the next
//! step (the GPU grows its buffers as needed). The ranks of a distributed world make the pass
//! on their own bodies instead, nothing gathered (`OnRanks`), to the same bits.
//!
//! Removal keeps the surviving bodies in their order, so every index that refers to bodies moves
//! down monotonically: the warm-start keys of the surviving pairs are renumbered (and those of
//! removed bodies dropped), the kinematic bodies' drives and the applied forces follow their
//! bodies (a force on a removed grain goes with it). Only dynamic bodies are ever removed, so
//! fixed and driven bodies stay. Joints and springs, whose rows hold body indices, are refused
//! with insertions or sinks at build, as is planar mode (`crate::support`). Shaped bodies (capsules, boxes, …) and
//! bodies with principal moments may be built beside them, placed by shaped insertions
//! ([`Insertion::shaped`]) and removed by sinks: their shapes and moments follow their ids to
//! the backend after each pass, a built body's as built and an inserted grain's from the
//! insertion that placed it ([`LifecycleState::placed_by`], kept in checkpoints).
//!
//! Every body keeps a stable id ([`World::ids`]): 0..n in build order, then increasing for the
//! inserted grains; outputs follow grains by it, and a restore checks the built bodies' fixed
//! properties by it.

use crate::backend::WarmStart;
use crate::body::BodyKind;
use crate::error::BuildError;
use crate::geometry::WallDesc;
use crate::health::StepError;
use crate::insertion::{Insertion, InsertionCounters};
use crate::joint::AppliedForce;
use crate::motion::Prescribed;
use crate::settings::Settings;
use crate::sink::{Sink, SinkCounters};
use crate::snapshot::{LifecycleState, Snapshot, SnapshotError};
use crate::world::World;
use bytemuck::{Pod, Zeroable};
use glam::{Quat, Vec3};
use grains_kernels::inertia::PrincipalInertia;
use grains_kernels::narrow_phase::{FLAGS_A, FLAGS_B};
use grains_kernels::random::SplitMix64;
use grains_kernels::shapes::clump::ClumpTable;
use grains_kernels::shapes::polyhedron::Hull;
use grains_kernels::shapes::shape_of;
use grains_kernels::{Bodies, Shape, NO_BODY};

/// The most steps between the passes of a world with sinks: a grain lies in a sink at most this
/// many steps before it goes (on the GPU each pass is a read-back).
pub const SINK_STEPS: u64 = 10;

/// [`LifecycleState::placed_by`] of a body as built.
pub const BUILT: u32 = u32::MAX;

/// What all the insertions and all the sinks of a world counted together
/// ([`LifecycleState::totals`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LifecycleTotals {
    /// Grains placed by the insertions.
    pub inserted: u64,
    /// Grains due from the insertions that found no place in their regions.
    pub missed: u64,
    /// Grains removed by the sinks.
    pub removed: u64,
    /// Mass placed by the insertions (kg).
    pub inserted_mass: f64,
    /// Mass removed by the sinks (kg).
    pub removed_mass: f64,
}

impl LifecycleState {
    /// The sums of the insertions' and the sinks' counters.
    pub fn totals(&self) -> LifecycleTotals {
        let (ins, sinks) = (&self.insertions, &self.sinks);
        LifecycleTotals {
            inserted: ins.iter().map(|c| c.placed).sum(),
            missed: ins.iter().map(|c| c.missed).sum(),
            removed: sinks.iter().map(|c| c.removed).sum(),
            inserted_mass: ins.iter().map(|c| c.mass).sum(),
            removed_mass: sinks.iter().map(|c| c.mass).sum(),
        }
    }
}

/// A body's properties fixed at build: radius, 1/m, 1/I, material, kind.
type Fixed = (f32, f32, f32, u32, u32);

/// The fixed properties of the bodies as built, by id, held as runs of consecutive ids that
/// share them (a generator's grains of one size and material are one run): a few bytes a run,
/// where one record a body was 20 bytes a body on every rank of a distributed run.
#[derive(Clone, Debug, Default)]
struct BuiltBodies {
    /// The first id of each run (ascending, from 0) and its bodies' properties.
    runs: Vec<(u64, Fixed)>,
    /// Number of bodies.
    len: usize,
}

impl BuiltBodies {
    /// The fixed properties of `bodies`, body i being id i.
    fn of(bodies: &Bodies) -> BuiltBodies {
        let same = |a: &Fixed, b: &Fixed| {
            (a.0.to_bits(), a.1.to_bits(), a.2.to_bits(), a.3, a.4)
                == (b.0.to_bits(), b.1.to_bits(), b.2.to_bits(), b.3, b.4)
        };
        let mut runs: Vec<(u64, Fixed)> = Vec::new();
        for i in 0..bodies.len() {
            let f = fixed(bodies, i);
            if runs.last().is_none_or(|r| !same(&r.1, &f)) {
                runs.push((i as u64, f));
            }
        }
        runs.shrink_to_fit();
        BuiltBodies {
            runs,
            len: bodies.len(),
        }
    }

    /// Number of bodies as built.
    fn len(&self) -> usize {
        self.len
    }

    /// The fixed properties of the body of id `id` as built; `None` for an id not built.
    fn get(&self, id: usize) -> Option<Fixed> {
        if id >= self.len {
            return None;
        }
        let run = self.runs.partition_point(|r| r.0 <= id as u64) - 1;
        Some(self.runs[run].1)
    }
}

/// The insertions and sinks of a world, the bodies' ids and what the world was built with.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lifecycle {
    insertions: Vec<Insertion>,
    /// Each insertion's batch interval (steps).
    batch_steps: Vec<u64>,
    sinks: Vec<Sink>,
    /// Each body's id, ascending.
    ids: Vec<u64>,
    state: LifecycleState,
    /// The bodies' fixed properties as built, by id.
    built: BuiltBodies,
    /// The drives as built (body index = id).
    built_drives: Vec<(u32, Prescribed)>,
    /// The applied forces as built (body index = id).
    built_forces: Vec<AppliedForce>,
    /// The shapes as built (body index = id), empty when every body is a sphere.
    built_shapes: Vec<Shape>,
    /// The principal moments as built (body index = id; zero: isotropic), empty when no body
    /// has any.
    built_moments: Vec<Vec3>,
}

impl Lifecycle {
    /// True when insertions or sinks may renumber the bodies.
    pub(crate) fn renumbers(&self) -> bool {
        !(self.insertions.is_empty() && self.sinks.is_empty())
    }

    /// Checks `insertions` and `sinks` against the rest of the world and sets up the ids of
    /// `bodies` as built (with their `shapes`, if any is not a sphere, and the kernels' principal
    /// `moments`, if any body has some). What they do not combine with (joints, springs,
    /// planar mode) is the support table's ([`crate::support`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        insertions: &[Insertion],
        sinks: &[Sink],
        settings: &Settings,
        materials: usize,
        walls: &[WallDesc],
        bodies: &Bodies,
        (drives, forces): (&[(u32, Prescribed)], &[AppliedForce]),
        (shapes, moments): (Option<&[Shape]>, &[Vec3]),
    ) -> Result<Lifecycle, BuildError> {
        let batch_steps = (insertions.iter().enumerate())
            .map(|(i, ins)| ins.check(i, materials, settings.h, settings.gravity, walls))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, s) in sinks.iter().enumerate() {
            s.check(i)?;
        }
        let n = bodies.len();
        Ok(Lifecycle {
            insertions: insertions.to_vec(),
            batch_steps,
            sinks: sinks.to_vec(),
            ids: (0..n as u64).collect(),
            state: LifecycleState {
                next_id: n as u64,
                placed_by: vec![BUILT; n],
                insertions: (insertions.iter())
                    .map(|i| InsertionCounters {
                        rng: i.seed,
                        ..Default::default()
                    })
                    .collect(),
                sinks: vec![SinkCounters::default(); sinks.len()],
            },
            built: BuiltBodies::of(bodies),
            built_drives: drives.to_vec(),
            built_forces: forces.to_vec(),
            built_shapes: shapes.map_or_else(Vec::new, <[Shape]>::to_vec),
            built_moments: moments.to_vec(),
        })
    }

    /// The smallest radius an insertion may add (infinite without insertions).
    pub(crate) fn smallest_radius(insertions: &[Insertion]) -> f32 {
        (insertions.iter())
            .map(Insertion::smallest_radius)
            .fold(f32::INFINITY, f32::min)
    }

    /// True when the pass is due before the step after `steps`: a sinks' step or a batch step
    /// of some insertion.
    pub(crate) fn due(&self, steps: u64) -> bool {
        steps > 0
            && ((!self.sinks.is_empty() && steps.is_multiple_of(SINK_STEPS))
                || self.batch_steps.iter().any(|&k| steps.is_multiple_of(k)))
    }

    /// Counts `removals` (ascending index) by their sinks, in index order as one pass over the
    /// bodies counts them, and drops the removed bodies' ids and records of placing.
    fn count_removed(&mut self, removals: &[Removal]) {
        for r in removals {
            let c = &mut self.state.sinks[r.sink as usize];
            c.removed += 1;
            c.mass += 1.0 / r.inv_mass as f64;
        }
        retain_unremoved(&mut self.ids, removals);
        retain_unremoved(&mut self.state.placed_by, removals);
    }

    /// The first sink that holds a centre at `p`, if any.
    fn sink_holding(&self, p: Vec3) -> Option<u32> {
        self.sinks.iter().position(|s| s.holds(p)).map(|s| s as u32)
    }

    /// True when the world has insertions or sinks.
    fn active(&self) -> bool {
        !(self.insertions.is_empty() && self.sinks.is_empty())
    }
}

/// Places the grains each insertion of `lc` owes by time `t`, before the step after `steps`
/// (those on a batch step), among the bodies `near(lo, hi)` gives (centre and bounding radius
/// of each body whose bounding box meets the box from lo to hi, in index order) and the walls
/// `walls`; returns them, in the order placed (their ids and counts recorded in `lc`).
fn place_due(
    lc: &mut Lifecycle,
    (steps, t): (u64, f64),
    walls: &[WallDesc],
    tables: (&ClumpTable, &[Hull]),
    near: &mut dyn FnMut(Vec3, Vec3) -> Vec<(Vec3, f32)>,
) -> Bodies {
    let mut placed = Bodies::default();
    // Each placed grain's centre and bounding radius.
    let mut reach_of_placed: Vec<(Vec3, f32)> = Vec::new();
    for (i, ins) in lc.insertions.iter().enumerate() {
        let c = &mut lc.state.insertions[i];
        let owed = ins.due(t).saturating_sub(c.placed + c.missed);
        if owed == 0 || !steps.is_multiple_of(lc.batch_steps[i]) {
            continue;
        }
        let reach = ins.reach();
        let mut nearby = near(reach.0, reach.1);
        // The grains an earlier insertion placed in this pass, after the bodies before it.
        nearby.extend(
            reach_of_placed
                .iter()
                .filter(|&&(p, r)| reaches(p, r, reach)),
        );
        let mut rng = SplitMix64(c.rng);
        for _ in 0..owed {
            match ins.draw_grain(&mut rng, &nearby, walls, tables) {
                Some(body) => {
                    let reach = (body.position, body.shape.bounding_radius(body.radius));
                    nearby.push(reach);
                    reach_of_placed.push(reach);
                    crate::body::push_body(&mut placed, &body);
                    lc.ids.push(lc.state.next_id);
                    lc.state.placed_by.push(i as u32);
                    lc.state.next_id += 1;
                    c.placed += 1;
                    // The mass as the world holds it (1 / its 1/m), as the sinks count it.
                    let inv_mass = placed.motion[placed.len() - 1].inv_mass;
                    c.mass += 1.0 / inv_mass as f64;
                }
                None => c.missed += 1,
            }
        }
        c.rng = rng.0;
    }
    placed
}

/// Whether a body at `p` of bounding radius `r` has its bounding box meet the box `(lo, hi)`.
fn reaches(p: Vec3, r: f32, (lo, hi): (Vec3, Vec3)) -> bool {
    (p + Vec3::splat(r)).cmpge(lo).all() && (p - Vec3::splat(r)).cmple(hi).all()
}

/// Appends the bodies of `more` to `bodies`.
fn append_bodies(bodies: &mut Bodies, more: &Bodies) {
    bodies.pos_radius.extend_from_slice(&more.pos_radius);
    bodies.orientation.extend_from_slice(&more.orientation);
    bodies.motion.extend_from_slice(&more.motion);
    bodies.material.extend_from_slice(&more.material);
    bodies.kind.extend_from_slice(&more.kind);
}

/// A dynamic body a sink removes: its index, the sink that holds it and its 1/m (as the ranks
/// of a distributed world send them to each other).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct Removal {
    /// The body's index (the host copy's).
    pub(crate) index: u64,
    /// The first sink that holds its centre.
    pub(crate) sink: u32,
    /// Its inverse mass (1/kg).
    pub(crate) inv_mass: f32,
}

impl Removal {
    /// Body `index`, of inverse mass `inv_mass`, removed by sink `sink`.
    pub(crate) fn of(index: u64, sink: u32, inv_mass: f32) -> Removal {
        Removal {
            index,
            sink,
            inv_mass,
        }
    }
}

/// A distributed rank's side of the insertions' and sinks' pass, made on the ranks' own bodies
/// while the host copy is released ([`crate::backend::StepBackend::on_ranks`]). Each call is
/// one every rank makes together.
pub(crate) trait OnRanks {
    /// Removes this rank's own dynamic bodies whose centre `sink_of` places in a sink, renumbers
    /// the bodies and the warm start past them (each index less the removed ones below it), and
    /// returns every rank's removals, ascending by index.
    fn remove_own(&mut self, sink_of: &dyn Fn(Vec3) -> Option<u32>) -> Vec<Removal>;

    /// The centre and radius of every body, on any rank, for which `near(centre, radius)`
    /// holds, ascending by index (the ranks send each other theirs).
    fn bodies_near(&self, near: &dyn Fn(Vec3, f32) -> bool) -> Vec<(Vec3, f32)>;

    /// Adds `placed`, indexed from the world's count of bodies on, to the ranks whose boxes
    /// hold them (every rank passes the same grains).
    fn add_own(&mut self, placed: &Bodies);

    /// The smallest radius of every body and the dynamic bodies' mass (kg), summed over the
    /// ranks in rank order, for the health monitor.
    fn fit(&self) -> (f32, f64);
}

/// Body `i`'s fixed properties.
fn fixed(b: &Bodies, i: usize) -> Fixed {
    let m = b.motion[i];
    (
        b.pos_radius[i].w,
        m.inv_mass,
        m.inv_inertia,
        b.material[i],
        b.kind[i],
    )
}

/// Drops the bodies that `removals` (ascending index) name, the others kept in order.
fn retain_bodies(b: &mut Bodies, removals: &[Removal]) {
    retain_unremoved(&mut b.pos_radius, removals);
    retain_unremoved(&mut b.orientation, removals);
    retain_unremoved(&mut b.motion, removals);
    retain_unremoved(&mut b.material, removals);
    retain_unremoved(&mut b.kind, removals);
}

/// Drops the entries of a per-body `list` that `removals` (ascending index) name.
fn retain_unremoved<T>(list: &mut Vec<T>, removals: &[Removal]) {
    let mut gone = removals.iter().map(|r| r.index).peekable();
    let mut i = 0u64;
    list.retain(|_| {
        i += 1;
        gone.next_if_eq(&(i - 1)).is_none()
    });
}

/// Renumbers warm-start memory after a removal: `to[i]` is body i's new index, or [`NO_BODY`]
/// when it was removed. Keys naming a removed body are dropped; the others keep their flags and
/// walls; the memory stays in ascending key order.
pub(crate) fn remap_warm_start(
    (keys, impulses, moments): WarmStart,
    to: &[u32],
    walls: usize,
) -> WarmStart {
    let with_moments = moments.len() == keys.len() && !keys.is_empty();
    let mut kept: Vec<(u64, [f32; 4], [f32; 4])> = Vec::with_capacity(keys.len());
    for (k, &key) in keys.iter().enumerate() {
        let flag_a = key & FLAGS_A;
        let a = ((key & !FLAGS_A) >> 32) as usize;
        let low = key as u32;
        let Some(&new_a) = to.get(a).filter(|&&x| x != NO_BODY) else {
            continue;
        };
        let new_low = if ((NO_BODY - low) as usize) < walls {
            low
        } else {
            let flag_b = low & FLAGS_B as u32;
            match to.get((low & !(FLAGS_B as u32)) as usize) {
                Some(&b) if b != NO_BODY => b | flag_b,
                _ => continue,
            }
        };
        let new_key = flag_a | ((new_a as u64) << 32) | new_low as u64;
        let moment = if with_moments { moments[k] } else { [0.0; 4] };
        kept.push((new_key, impulses[k], moment));
    }
    kept.sort_by_key(|e| e.0);
    (
        kept.iter().map(|e| e.0).collect(),
        kept.iter().map(|e| e.1).collect(),
        if with_moments {
            kept.iter().map(|e| e.2).collect()
        } else {
            Vec::new()
        },
    )
}

impl World {
    /// Each body's stable id, in body order (ascending): 0..n for the bodies as built, then
    /// increasing for grains inserted since. Removed grains' ids are never reused.
    pub fn ids(&self) -> &[u64] {
        &self.lifecycle.ids
    }

    /// The insertions' and sinks' running counts (grains placed and missed, mass placed; grains
    /// and mass removed) and the next id, as of the last pass.
    pub fn lifecycle_state(&self) -> &LifecycleState {
        &self.lifecycle.state
    }

    /// The sinks, in the order they were added.
    pub fn sinks(&self) -> &[Sink] {
        &self.lifecycle.sinks
    }

    /// The insertions, in the order they were added.
    pub fn insertions(&self) -> &[Insertion] {
        &self.lifecycle.insertions
    }

    /// Each insertion's batch interval (steps): it places the grains it owes before every
    /// step whose count of steps taken is a multiple of it.
    pub fn insertion_batch_steps(&self) -> &[u64] {
        &self.lifecycle.batch_steps
    }

    /// Total mass of the dynamic bodies (kg), summed in f64, as of step [`World::synced_at`].
    pub fn dynamic_mass(&self) -> f64 {
        (self.bodies.motion.iter().zip(&self.bodies.kind))
            .filter(|(_, &k)| k == BodyKind::Dynamic as u32)
            .map(|(m, _)| 1.0 / m.inv_mass as f64)
            .sum()
    }

    /// The pass between steps when it is due: removes the grains in sinks, places the grains
    /// due, and hands the edited bodies and the remapped warm start to the backend. A rank of a
    /// distributed world whose host copy is released makes the pass on the ranks' own bodies,
    /// nothing gathered (`World::change_bodies_on_ranks`).
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn change_bodies(&mut self) -> Result<(), StepError> {
        if !self.lifecycle.due(self.steps) || self.change_bodies_on_ranks() {
            return Ok(());
        }
        self.sync()?;
        let removed = self.remove_sunk();
        let walls = self.walls_now();
        let t = self.time();
        let (bodies, shapes) = (&self.bodies, &self.shapes);
        // Each body by its bounding sphere (a sphere's is itself).
        let mut near = |lo: Vec3, hi: Vec3| {
            (0..bodies.len())
                .map(|j| {
                    let r = shape_of(shapes, j).bounding_radius(bodies.pos_radius[j].w);
                    (bodies.pos_radius[j].truncate(), r)
                })
                .filter(|&(p, r)| reaches(p, r, (lo, hi)))
                .collect()
        };
        let tables = (&self.clumps, &self.hulls[..]);
        let placed = place_due(
            &mut self.lifecycle,
            (self.steps, t),
            &walls,
            tables,
            &mut near,
        );
        if removed.is_none() && placed.is_empty() {
            return Ok(());
        }
        append_bodies(&mut self.bodies, &placed);
        // The backend still holds the warm start of the bodies before this pass (a read-back
        // on the GPU, so only taken when the bodies changed).
        let mut warm = self.backend.warm_start_state()?;
        if let Some(to) = removed {
            // Walls and mesh triangles both key as walls (NO_BODY − w), triangles after walls.
            let walls = self.wall_descs.len() + self.meshes.placed.triangles.len();
            warm = remap_warm_start(warm, &to, walls);
        }
        self.relink();
        let (keys, impulses, moments) = warm;
        self.backend
            .restore(self.steps, (&keys, &impulses, &moments), &[]);
        Ok(())
    }

    /// The pass on the ranks of a distributed world whose host copy is released (a call every
    /// rank makes together; false, nothing done, elsewhere): each rank removes its own grains
    /// in sinks and every rank counts the ranks' removals in index order, as one process
    /// counts them; then every rank places the same grains among the bodies near each
    /// insertion (sent by the ranks that own them) and the rank whose box holds a grain takes
    /// it. The bed is split afresh at the next step, as after a pass on the host copy, with
    /// the warm start the ranks renumbered.
    fn change_bodies_on_ranks(&mut self) -> bool {
        if self.backend.released().is_none() {
            return false;
        }
        let walls = self.walls_now();
        let t = self.time();
        let Some(ranks) = self.backend.on_ranks() else {
            return false;
        };
        let lc = &mut self.lifecycle;
        let removals = match lc.sinks.is_empty() {
            true => Vec::new(),
            false => ranks.remove_own(&|p| lc.sink_holding(p)),
        };
        lc.count_removed(&removals);
        let mut near = |lo: Vec3, hi: Vec3| ranks.bodies_near(&|p, r| reaches(p, r, (lo, hi)));
        let tables = (&self.clumps, &self.hulls[..]);
        let placed = place_due(lc, (self.steps, t), &walls, tables, &mut near);
        if !placed.is_empty() {
            ranks.add_own(&placed);
        }
        if !removals.is_empty() || !placed.is_empty() {
            self.relink();
        }
        true
    }

    /// The walls as placed at the current time, standing (what an insertion keeps its grains
    /// clear of).
    fn walls_now(&self) -> Vec<WallDesc> {
        let t = self.time();
        (self.wall_descs.iter().enumerate())
            .map(|(i, w)| WallDesc {
                origin: w.origin + self.wall_motion(i, t).0,
                motion: None,
                servo: None,
                ..*w
            })
            .collect()
    }

    /// Removes the dynamic bodies whose centres lie in a sink (counted by the first sink that
    /// holds them); returns each old index's new one ([`NO_BODY`] if removed), or `None` when
    /// nothing was removed.
    fn remove_sunk(&mut self) -> Option<Vec<u32>> {
        let lc = &mut self.lifecycle;
        if lc.sinks.is_empty() {
            return None;
        }
        let b = &self.bodies;
        let removals: Vec<Removal> = (0..b.len())
            .filter(|&i| b.is_dynamic(i))
            .filter_map(|i| {
                let s = lc.sink_holding(b.pos_radius[i].truncate())?;
                Some(Removal::of(i as u64, s, b.motion[i].inv_mass))
            })
            .collect();
        if removals.is_empty() {
            return None;
        }
        lc.count_removed(&removals);
        let mut gone = removals.iter().map(|r| r.index as usize).peekable();
        let mut next = 0u32;
        let to = (0..b.len())
            .map(|i| match gone.next_if_eq(&i) {
                Some(_) => NO_BODY,
                None => {
                    next += 1;
                    next - 1
                }
            })
            .collect();
        retain_bodies(&mut self.bodies, &removals);
        Some(to)
    }

    /// Points the drives and applied forces at their bodies' current indices (a force whose body
    /// was removed is dropped), hands the backend the shapes and principal moments of the
    /// bodies now present (a built body's as built, by id; an inserted grain's its insertion's
    /// template's, a sphere's none) and fits the health monitor to them.
    fn relink(&mut self) {
        let lc = &self.lifecycle;
        let index = |id: u64| lc.ids.binary_search(&id).ok();
        self.drives = (lc.built_drives.iter())
            .filter_map(|&(id, m)| index(id as u64).map(|i| (i as u32, m)))
            .collect();
        self.forces = (lc.built_forces.iter())
            .filter_map(|f| index(f.body as u64).map(|body| AppliedForce { body, ..*f }))
            .collect();
        let t = self.time();
        self.load_buf.clear();
        self.load_buf.extend(self.forces.iter().map(|f| f.load(t)));
        self.backend.set_loads(&self.load_buf);
        let templates = || lc.insertions.iter().filter_map(|i| i.template);
        let shaped = !lc.built_shapes.is_empty() || templates().any(|t| !t.shape.is_sphere());
        let turning =
            !lc.built_moments.is_empty() || templates().any(|t| t.anisotropic_moments().is_some());
        if shaped || turning {
            // Body k's shape and moments: as built (id = index as built), or its insertion's
            // template's; a sphere's defaults.
            let of = |k: usize| match lc.state.placed_by[k] {
                BUILT => {
                    let id = lc.ids[k] as usize;
                    let shape = lc.built_shapes.get(id).copied().unwrap_or_default();
                    (shape, lc.built_moments.get(id).copied().unwrap_or_default())
                }
                i => lc.insertions[i as usize]
                    .template
                    .map_or_else(Default::default, |t| {
                        (t.shape, t.anisotropic_moments().unwrap_or_default())
                    }),
            };
            let (shapes, moments): (Vec<Shape>, Vec<Vec3>) = (0..lc.ids.len()).map(of).unzip();
            self.shapes = if shaped { shapes } else { Vec::new() };
            let moments = if turning { moments } else { Vec::new() };
            self.backend
                .set_body_shapes(self.shapes.clone(), PrincipalInertia::new(moments));
        }
        match self.backend.on_ranks() {
            Some(ranks) => {
                let (r_min, mass) = ranks.fit();
                self.monitor.fit_to(r_min, mass);
            }
            None => self.monitor.fit(&self.bodies),
        }
    }

    /// The snapshot's ids and counts, for [`World::snapshot`].
    pub(crate) fn lifecycle_snapshot(&self) -> (Vec<u64>, LifecycleState) {
        (self.lifecycle.ids.clone(), self.lifecycle.state.clone())
    }

    /// Checks a snapshot's ids, counts and bodies against the world as built: the same number of
    /// insertions and sinks; ids ascending, below the next id; each built body present with its
    /// fixed properties as built (a dynamic one may be missing where the world has sinks); each
    /// other body an inserted dynamic grain of the insertion the snapshot says placed it (a
    /// shaped one with its template's radius, mass and inertia); a snapshot without
    /// `placed_by` (format 4) only where every insertion places spheres.
    pub(crate) fn check_lifecycle(&self, snap: &Snapshot) -> Result<(), SnapshotError> {
        let lc = &self.lifecycle;
        let invalid = |what: String| Err(SnapshotError::Invalid(what));
        let (ins, sinks) = (snap.lifecycle.insertions.len(), snap.lifecycle.sinks.len());
        if ins != lc.insertions.len() || sinks != lc.sinks.len() {
            return invalid(format!(
                "{ins} insertions and {sinks} sinks, the world has {} and {}",
                lc.insertions.len(),
                lc.sinks.len()
            ));
        }
        let n = snap.bodies.len();
        let built = lc.built.len();
        if !lc.active() && n != built {
            return Err(SnapshotError::BodyCount {
                expected: built,
                found: n,
            });
        }
        if snap.ids.len() != n {
            return invalid(format!("{} ids for {n} bodies", snap.ids.len()));
        }
        let placed_by = &snap.lifecycle.placed_by;
        // A world without bodies records none (formats 5 and 6 too).
        if placed_by.is_empty() && n > 0 {
            if let Some(i) = lc.insertions.iter().position(|i| i.template.is_some()) {
                return invalid(format!("no record of which insertion placed each grain (a format-4 checkpoint), and insertion {i} places shaped grains"));
            }
        } else if placed_by.len() != n {
            return invalid(format!(
                "{} placing insertions for {n} bodies",
                placed_by.len()
            ));
        }
        if let Some(k) = snap.ids.windows(2).position(|w| w[0] >= w[1]) {
            return invalid(format!("body id {} is not above the one before", k + 1));
        }
        let next = snap.lifecycle.next_id;
        if next < built as u64 || snap.ids.last().is_some_and(|&l| l >= next) {
            return invalid(format!("the next id {next} is below an id in use"));
        }
        let mut present = vec![false; built];
        for (i, &id) in snap.ids.iter().enumerate() {
            let found = fixed(&snap.bodies, i);
            let source = placed_by.get(i).copied();
            if let Some(s) = source.filter(|&s| (s == BUILT) != (id < built as u64)) {
                let what = if s == BUILT { "built" } else { "inserted" };
                return invalid(format!(
                    "body {i} (id {id}) is recorded as {what} but its id says otherwise"
                ));
            }
            match lc.built.get(id as usize) {
                Some(own) => {
                    present[id as usize] = true;
                    let differs = |x: f32, y: f32| x.to_bits() != y.to_bits();
                    if differs(found.0, own.0) {
                        return invalid(format!(
                            "body {i} radius is {}, the world's is {} (id {id})",
                            found.0, own.0
                        ));
                    }
                    if differs(found.1, own.1) || differs(found.2, own.2) {
                        return invalid(format!(
                            "body {i} mass or inertia differs from the world's (id {id})"
                        ));
                    }
                    if found.3 != own.3 {
                        return invalid(format!(
                            "body {i} material is {}, the world's is {} (id {id})",
                            found.3, own.3
                        ));
                    }
                    if found.4 != own.4 {
                        return invalid(format!(
                            "body {i} kind is {}, the world's is {} (id {id})",
                            found.4, own.4
                        ));
                    }
                }
                None => {
                    let fine = |x: f32| x.is_finite() && x > 0.0;
                    let insertion = lc.insertions.get(source.unwrap_or(0) as usize);
                    let grain = match insertion.and_then(|ins| ins.template.map(|t| (ins, t))) {
                        // A shaped grain: its template's radius, mass and inertia, bit for bit.
                        Some((ins, t)) => {
                            let mut own = Bodies::default();
                            let copy = ins.copy_of(&t, Vec3::ZERO, Quat::IDENTITY);
                            crate::body::push_body(&mut own, &copy);
                            let own = fixed(&own, 0);
                            let same = |x: f32, y: f32| x.to_bits() == y.to_bits();
                            same(found.0, own.0)
                                && same(found.1, own.1)
                                && same(found.2, own.2)
                                && found.3 == own.3
                                && found.4 == own.4
                        }
                        None => {
                            insertion.is_some()
                                && found.4 == BodyKind::Dynamic as u32
                                && fine(found.0)
                                && fine(found.1)
                                && fine(found.2)
                                && (found.3 as usize) < self.friction.count
                        }
                    };
                    if !grain {
                        return invalid(format!(
                            "body {i} (id {id}) was not built and is no grain an insertion of this world places"
                        ));
                    }
                }
            }
        }
        let may_go = |id: usize| {
            !lc.sinks.is_empty()
                && lc
                    .built
                    .get(id)
                    .is_some_and(|f| f.4 == BodyKind::Dynamic as u32)
        };
        if let Some(id) = (0..built).find(|&id| !present[id] && !may_go(id)) {
            return invalid(format!(
                "body id {id} of the world as built is missing and no sink could have removed it"
            ));
        }
        Ok(())
    }

    /// Takes a checked snapshot's ids and counts (a format-4 snapshot's grains as placed by the
    /// first insertion, see [`LifecycleState::placed_by`]) and points drives and forces at the
    /// bodies.
    pub(crate) fn restore_lifecycle(&mut self, snap: &Snapshot) {
        let lc = &mut self.lifecycle;
        lc.ids.clone_from(&snap.ids);
        lc.state.clone_from(&snap.lifecycle);
        if lc.state.placed_by.is_empty() {
            let built = lc.built.len() as u64;
            let source = |&id: &u64| if id < built { BUILT } else { 0 };
            lc.state.placed_by = lc.ids.iter().map(source).collect();
        }
        if self.lifecycle.active() {
            self.relink();
        }
    }
}
