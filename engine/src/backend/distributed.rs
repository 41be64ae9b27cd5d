//! The distributed backend: one rank of a domain-decomposed run over MPI
//! ([`crate::distributed`]). Each rank steps its subdomain's bodies and ghosts on its CPU
//! threads or its GPU with the coupled solve. The world's host copy of every body is brought up
//! to date by gathering the ranks' own bodies only when asked ([`crate::World::sync`]); on the
//! steps the world reads back (every [`crate::Settings::sync_every`] steps) each rank's health
//! checks read its own bodies, and the ranks combine their findings, nothing gathered.

use super::{NearBodies, OwnPart, StepBackend, StepInputs, WarmStart};
use crate::body::BodyKind;
use crate::decomposition::Bisection;
use crate::distributed::contacts::RankContacts;
use crate::distributed::coupling::Coupling;
use crate::distributed::rank_pipeline::RankPipeline;
use crate::distributed::subdomain::{Local, Subdomain};
use crate::distributed::wire::{BodyRecord, KeyedImpulse, WarmRecord};
use crate::domain::Domain;
use crate::health::{self, Check, Scan, StepError};
use crate::lifecycle::{OnRanks, Removal};
use crate::support::Feature;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use grains_kernels::forces::{Actuation, Load};
use grains_kernels::inertia::PrincipalInertia;
use grains_kernels::narrow_phase::Contacts;
use grains_kernels::observe::kinetic_energy_of_rigid_bodies;
use grains_kernels::traffic::SweepTraffic;
use grains_kernels::{Bodies, GpuError, SolverKind, StageTimes, StepStats, SweepRecord};

/// One rank's pipeline, coupling and subdomain.
pub(crate) struct DistributedBackend {
    pipeline: RankPipeline,
    coupling: Coupling,
    /// The cuts of the last (re)balance, or a restored snapshot's for this rank count (none
    /// before the first step and after an edit: the next step makes fresh ones).
    cuts: Option<Bisection>,
    /// Steps between rebalances of the cuts.
    rebalance_every: u64,
    subdomain: Subdomain,
    local: Local,
    drives: Vec<Actuation>,
    /// Warm start to seed from (a restored snapshot's, or the one remapped after grains came
    /// or went), keyed by the host copy's indices, when the host copy is to be split again at
    /// the next step (after an edit, a restore or a pass of the insertions and sinks).
    reseed: Option<WarmStart>,
    /// Whether the warm start has moment impulses: some material pair has spinning or rolling
    /// friction (as of the last step, or of the restored warm start before it).
    moments: bool,
    /// The step the host copy holds, and the statistics of the last step.
    synced_at: u64,
    /// The step whose state the health checks read: the last read-back (the owned bodies are
    /// always current; this says which steps are checked).
    read_at: u64,
    last: StepStats,
    /// The step the local pipeline last took (its contacts are that step's).
    stepped_at: Option<u64>,
    /// The contacts this rank solved in the last step, numbered by body id, once
    /// [`StepBackend::sync_contacts`] has copied them (none before).
    own: RankContacts,
    energy_blocks: Vec<f64>,
    /// The bodies of the world: every rank's owned ones (as of the last split, which the
    /// steps keep).
    total: usize,
    /// Whether the host copy is released (emptied by the step that split it or stepped the
    /// bodies after it): a rank then holds its own bodies and ghosts only, and the host copy
    /// is filled again by a gather ([`crate::World::sync`]).
    released: bool,
    /// Steps this rank took, and the ghosts it held summed over them.
    taken: (u64, u64),
}

impl DistributedBackend {
    /// A backend on `coupling`'s ranks stepping on `pipeline`, rebalancing every
    /// `rebalance_every` steps; the host copy of step `steps` is split at the first step.
    pub(crate) fn open(
        pipeline: RankPipeline,
        coupling: Coupling,
        rebalance_every: u64,
        steps: u64,
    ) -> Self {
        DistributedBackend {
            pipeline,
            coupling,
            cuts: None,
            rebalance_every: rebalance_every.max(1),
            subdomain: Subdomain::default(),
            local: Local::default(),
            drives: Vec::new(),
            reseed: Some(WarmStart::default()),
            moments: false,
            synced_at: steps,
            read_at: steps,
            last: StepStats::default(),
            stepped_at: None,
            own: RankContacts::default(),
            energy_blocks: Vec::new(),
            total: 0,
            released: false,
            taken: (0, 0),
        }
    }

    /// The ids of the bodies each rank owns, by rank, each ascending (a collective call).
    fn ids_by_rank(&self) -> Vec<Vec<u64>> {
        let mine: Vec<u64> = self.subdomain.owned.iter().map(|r| r.id).collect();
        self.coupling.ranks.gather_by_rank(&mine)
    }

    /// Splits the host copy again at the next step, seeding the warm start from `warm` (keyed
    /// by the host copy's indices) with fresh cuts; the contacts of the last step are gone.
    fn split_again(&mut self, warm: WarmStart) {
        self.reseed = Some(warm);
        self.released = false;
        self.stepped_at = None;
        self.own.clear();
        self.cuts = None;
    }

    /// After the ranks' own bodies came or went: fresh cuts from them at the next step (then a
    /// migration), and no contacts of the last step.
    fn split_afresh(&mut self) {
        self.stepped_at = None;
        self.own.clear();
        self.cuts = None;
    }

    /// The cuts a split of the host copy `world` afresh at step `next` takes: a restored
    /// snapshot's unless a rebalance is due, else fresh ones from the host copy's centres (the
    /// same cuts as a rebalance of the owned bodies, which are the host copy's).
    fn split_cuts(&self, world: &Bodies, next: u64) -> Bisection {
        match &self.cuts {
            Some(restored) if !next.is_multiple_of(self.rebalance_every) => restored.clone(),
            _ => {
                let centres: Vec<_> = world.pos_radius.iter().map(|p| p.truncate()).collect();
                let ids: Vec<u64> = (0..world.len() as u64).collect();
                Bisection::new(&centres, &ids, self.coupling.ranks.size())
            }
        }
    }

    /// `f` of this rank's subdomain as of the last step, or, where the host copy `world` is to
    /// be split afresh at step `next`, of what that split will give this rank.
    fn with_own<R>(&self, world: &Bodies, next: u64, f: impl FnOnce(&Subdomain) -> R) -> R {
        match &self.reseed {
            None => f(&self.subdomain),
            Some(warm) => f(&self.seeded(world, &self.split_cuts(world, next), warm)),
        }
    }

    /// This rank's subdomain of the host copy `world` split afresh by `cuts`
    /// ([`Self::split_cuts`]), seeded with the warm start `warm` (keyed by its indices).
    fn seeded(&self, world: &Bodies, cuts: &Bisection, warm: &WarmStart) -> Subdomain {
        let warm = records_by_id(warm, world.len());
        Subdomain::seed(world, cuts, self.coupling.ranks.rank(), &warm)
    }

    /// Splits the host copy `world` again (at the first step, after an edit or a restore), by
    /// a restored snapshot's cuts unless a rebalance is due, or rebalances the cuts on the owned
    /// bodies' centres when due; then migrates.
    fn decompose(&mut self, world: &Bodies, steps: u64) {
        if let Some(warm) = self.reseed.take() {
            let cuts = self.split_cuts(world, steps);
            self.subdomain = self.seeded(world, &cuts, &warm);
            self.cuts = Some(cuts);
            self.total = world.len();
            return;
        }
        let ranks = &self.coupling.ranks;
        let due = steps.is_multiple_of(self.rebalance_every);
        if self.cuts.is_none() || due {
            // The cuts of the whole bed from each rank's own bodies, nothing gathered.
            let owned = &self.subdomain.owned;
            let centres: Vec<_> = owned.iter().map(BodyRecord::centre).collect();
            let ids: Vec<u64> = owned.iter().map(|r| r.id).collect();
            self.cuts = Some(Bisection::from_parts(&centres, &ids, ranks.size(), ranks));
        }
        if let Some(cuts) = &self.cuts {
            self.subdomain.migrate(cuts, ranks);
        }
    }

    /// `sub`'s own bodies, then every body another rank owns that could overlap one of them
    /// where they are now (a collective call): rank q's bodies may lie outside its box of
    /// `cuts` by what they moved since it took them (its spill, the farthest of them outside),
    /// so two bodies of radii r and r' that overlap lie within r + r' + spill of each other's
    /// boxes, and each rank sends each of its bodies to the ranks whose box lies within its
    /// radius, the largest radius and their spill. One `Allgather` of a number a rank, one of
    /// the spills and one exchange of the bodies near the cuts (88 bytes each).
    fn near(&self, sub: &Subdomain, cuts: &Bisection) -> NearBodies {
        let ranks = &self.coupling.ranks;
        let me = ranks.rank();
        let owned = &sub.owned;
        let spill = (owned.iter()).fold(0.0f32, |s, r| s.max(cuts.distance(me, r.centre())));
        let spills = ranks.all_gather(&[spill]);
        let widest = ranks.max(owned.iter().fold(0.0f32, |w, r| w.max(r.pos_radius[3])));
        let mut out: Vec<Vec<BodyRecord>> = vec![Vec::new(); ranks.size()];
        for r in owned {
            let c = r.centre();
            for (q, list) in out.iter_mut().enumerate() {
                if q != me && cuts.distance(q, c) <= r.pos_radius[3] + widest + spills[q] {
                    list.push(*r);
                }
            }
        }
        let mut near = ranks.exchange(&out).concat();
        drop(out);
        near.sort_unstable_by_key(|r| r.id);
        let all: Vec<BodyRecord> = owned.iter().chain(&near).copied().collect();
        let (ids, bodies) = records_of(&all);
        (ids, bodies, owned.len())
    }

    /// The warm start of `records` keyed by the host copy's indices (the records' ids), in
    /// ascending key order, with moment impulses where the run has them.
    fn keyed_warm_start(&self, records: &[WarmRecord]) -> WarmStart {
        let index = |id: u64| u32::try_from(id).ok();
        let keyed = || records.iter().filter_map(move |w| w.keyed(index));
        // Records in (a, b) order are in key order (the ids are the host copy's indices): the
        // lists are then taken straight from them, without a sorted copy of every entry beside
        // them (at a checkpoint, beside the rank's pipeline).
        if keyed().is_sorted_by_key(|e| e.0) {
            return warm_lists(keyed, self.moments);
        }
        let mut entries: Vec<_> = keyed().collect();
        entries.sort_by_key(|e| e.0);
        warm_lists(|| entries.iter().copied(), self.moments)
    }

    /// Gathers every rank's owned bodies into the host copy `world` (index = id), sized
    /// afresh where the step released it, checking that every body is owned by exactly one
    /// rank.
    fn gather(&mut self, world: &mut Bodies, steps: u64) -> Result<(), StepError> {
        let all = self.coupling.ranks.all_gather(&self.subdomain.owned);
        let fail = |problem: String| StepError::Distributed {
            step: steps,
            problem,
        };
        if all.len() != self.total {
            return Err(fail(format!(
                "the ranks own {} bodies, the world has {}",
                all.len(),
                self.total
            )));
        }
        let mut seen = vec![false; self.total];
        resize(world, self.total);
        for r in &all {
            let i = r.id as usize;
            match seen.get_mut(i) {
                Some(s) if !*s => *s = true,
                Some(_) => return Err(fail(format!("body {} is owned by two ranks", r.id))),
                None => {
                    return Err(fail(format!(
                        "a rank owns body {}, beyond the world's",
                        r.id
                    )))
                }
            }
            r.write(world, i);
        }
        self.released = false;
        self.synced_at = steps;
        self.read_at = steps;
        Ok(())
    }
}

/// `bodies` holding `n` bodies, each new one zeroed (a gather writes every one).
fn resize(bodies: &mut Bodies, n: usize) {
    bodies.pos_radius.resize(n, Default::default());
    bodies.orientation.resize(n, Default::default());
    bodies.motion.resize(n, Default::default());
    bodies.material.resize(n, 0);
    bodies.kind.resize(n, 0);
}

/// The ids (the host copy's indices) of `records` and their state, body k of the `Bodies`
/// being record k.
fn records_of(records: &[BodyRecord]) -> (Vec<u64>, Bodies) {
    let indices: Vec<u64> = records.iter().map(|r| r.id).collect();
    let mut bodies = Bodies::default();
    resize(&mut bodies, records.len());
    for (j, r) in records.iter().enumerate() {
        r.write(&mut bodies, j);
    }
    (indices, bodies)
}

/// One rank's findings of the health checks' pass ([`Scan`]) as the ranks exchange them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
struct ScanRecord {
    /// The first body not finite ([`NONE`] for none), and what of it.
    non_finite: u64,
    quantity: u32,
    /// The fastest surface of the fixed and kinematic bodies (m/s).
    surface: f32,
    /// The first dynamic body escaped ([`NONE`] for none), its centre and distance (m).
    escaped: u64,
    centre: [f32; 3],
    distance: f32,
}

/// No body, in a [`ScanRecord`].
const NONE: u64 = u64::MAX;

impl ScanRecord {
    /// The record of one rank's pass.
    fn of(scan: &Scan) -> ScanRecord {
        let (non_finite, quantity) = scan.non_finite.map_or((NONE, 0), |(i, q)| (i as u64, q));
        let (escaped, centre, distance) =
            scan.escaped.map_or((NONE, [0.0; 3], 0.0), |(i, c, d)| {
                (i as u64, c.to_array(), d)
            });
        ScanRecord {
            non_finite,
            quantity: quantity as u32,
            surface: scan.surface,
            escaped,
            centre,
            distance,
        }
    }

    /// The pass over `found`'s bodies and this record's (disjoint): the lower body of each
    /// finding, the faster surface.
    fn combine(&self, found: Scan) -> Scan {
        let first = |a: Option<usize>, b: u64| b != NONE && a.is_none_or(|a| b < a as u64);
        Scan {
            non_finite: match first(found.non_finite.map(|f| f.0), self.non_finite) {
                true => Some((self.non_finite as usize, self.quantity as usize)),
                false => found.non_finite,
            },
            surface: found.surface.max(self.surface),
            escaped: match first(found.escaped.map(|e| e.0), self.escaped) {
                true => Some((
                    self.escaped as usize,
                    glam::Vec3::from(self.centre),
                    self.distance,
                )),
                false => found.escaped,
            },
        }
    }
}

/// The warm start of the entries `entries()` gives (in key order), each list sized exactly,
/// with moment impulses where `moments`.
fn warm_lists<I: Iterator<Item = KeyedImpulse>>(
    entries: impl Fn() -> I,
    moments: bool,
) -> WarmStart {
    let n = entries().count();
    let mut warm: WarmStart = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(if moments { n } else { 0 }),
    );
    warm.0.extend(entries().map(|e| e.0));
    warm.1.extend(entries().map(|e| e.1));
    if moments {
        warm.2.extend(entries().map(|e| e.2));
    }
    warm
}

/// The records of the warm start `(keys, impulses, moments)` of a host copy of `bodies`
/// bodies, whose ids are their indices (a key's second half at or past `bodies` is a wall).
fn records_by_id((keys, impulses, moments): &WarmStart, bodies: usize) -> Vec<WarmRecord> {
    (keys.iter().zip(impulses))
        .enumerate()
        .map(|(k, (&key, &impulse))| {
            let entry = (key, impulse, moments.get(k).copied().unwrap_or_default());
            WarmRecord::from_key(entry, bodies, |i| i as u64)
        })
        .collect()
}

/// The pass of the insertions and sinks on the ranks' own bodies: only the removals and the
/// bodies near an insertion travel, and the bed is split afresh at the next step (fresh cuts
/// from the ranks' bodies, then a migration), as after a pass on the host copy.
impl OnRanks for DistributedBackend {
    /// One `Allgather` of the removals (16 bytes each).
    fn remove_own(&mut self, sink_of: &dyn Fn(Vec3) -> Option<u32>) -> Vec<Removal> {
        let mine: Vec<Removal> = (self.subdomain.owned.iter())
            .filter(|r| r.kind == BodyKind::Dynamic as u32)
            .filter_map(|r| Some(Removal::of(r.id, sink_of(r.centre())?, r.motion.inv_mass)))
            .collect();
        let mut all = self.coupling.ranks.all_gather(&mine);
        if all.is_empty() {
            return all;
        }
        all.sort_unstable_by_key(|r| r.index);
        let renumber = |id: u64| {
            let below = all.partition_point(|r| r.index < id);
            let gone = all.get(below).is_some_and(|r| r.index == id);
            (!gone).then(|| id - below as u64)
        };
        let sub = &mut self.subdomain;
        sub.owned
            .retain_mut(|r| renumber(r.id).map(|id| r.id = id).is_some());
        sub.warm = sub
            .warm
            .iter()
            .filter_map(|w| w.renumbered(renumber))
            .collect();
        self.total -= all.len();
        self.split_afresh();
        all
    }

    /// One `Allgather` of the bodies `near` holds for (88 bytes each).
    fn bodies_near(&self, near: &dyn Fn(Vec3, f32) -> bool) -> Vec<(Vec3, f32)> {
        let mine: Vec<BodyRecord> = (self.subdomain.owned.iter())
            .filter(|r| near(r.centre(), r.pos_radius[3]))
            .copied()
            .collect();
        let mut all = self.coupling.ranks.all_gather(&mine);
        all.sort_unstable_by_key(|r| r.id);
        all.iter().map(|r| (r.centre(), r.pos_radius[3])).collect()
    }

    /// Each grain goes to the rank whose box of the last cuts holds it (rank 0 after a removal
    /// dropped them); the next step's migration moves it on to the fresh cuts' owner.
    fn add_own(&mut self, placed: &Bodies) {
        let me = self.coupling.ranks.rank();
        for k in 0..placed.len() {
            let centre = placed.pos_radius[k].truncate();
            if self.cuts.as_ref().map_or(0, |c| c.owner(centre)) == me {
                let id = (self.total + k) as u64;
                self.subdomain.owned.push(BodyRecord::of(placed, k, id));
            }
        }
        self.total += placed.len();
        self.split_afresh();
    }

    /// One `Allgather` of 24 bytes a rank.
    fn fit(&self) -> (f32, f64) {
        let owned = &self.subdomain.owned;
        let r_min = owned
            .iter()
            .fold(f32::INFINITY, |m, r| m.min(r.pos_radius[3]));
        let mass = (owned.iter())
            .filter(|r| r.kind == BodyKind::Dynamic as u32)
            .map(|r| 1.0 / r.motion.inv_mass as f64)
            .sum();
        let (least, [mass, _]) = self.coupling.ranks.reduce(-r_min, [mass, 0.0]);
        (-least, mass)
    }
}

impl StepBackend for DistributedBackend {
    fn set_loads(&mut self, _loads: &[Load]) {
        // `World::distribute` refuses worlds with applied forces; there are none to set.
    }

    fn step(
        &mut self,
        bodies: &mut Bodies,
        inputs: &StepInputs,
        steps: u64,
        read_back: bool,
    ) -> Result<StepStats, StepError> {
        let p = inputs.params;
        if p.solver == SolverKind::GaussSeidel {
            return Err(StepError::Distributed {
                step: steps,
                problem: crate::support::limit(Feature::Distributed, Feature::GaussSeidel)
                    .expect("the support table refuses Gauss–Seidel in a distributed run")
                    .to_string(),
            });
        }
        self.decompose(bodies, steps);
        // Split: the rank holds what it steps (its bodies' records, and its ghosts' at the
        // layout), and no copy of the bodies other ranks own until a gather asks for one.
        *bodies = Bodies::default();
        self.released = true;
        let cuts = self.cuts.as_ref().expect("decompose sets the cuts");
        let ranks = &self.coupling.ranks;
        let physics = (p.envelope, p.h, p.gravity);
        let drives = inputs.drives;
        self.subdomain
            .layout(cuts, ranks, physics, drives, &mut self.local);
        let local = &mut self.local;
        self.taken.0 += 1;
        self.taken.1 += (local.ids.len() - local.owned) as u64;
        self.coupling
            .set_layout(local.owned, &local.ids, &local.holders);
        let warm = self.subdomain.local_warm_start(local);
        // From the friction table, the same on every rank: a rank whose last step had no
        // contact still warm-starts the moments of the contacts that migrated to it.
        self.moments = inputs.friction.any_moment_friction();
        self.drives.clear();
        for d in inputs.drives {
            if let Some(i) = local.index_of(d.body as u64) {
                self.drives.push(Actuation { body: i, ..*d });
            }
        }
        let rank_inputs = (
            inputs.walls,
            inputs.mesh,
            &self.drives[..],
            inputs.friction,
            p,
        );
        let stats = self.pipeline.step(
            local,
            rank_inputs,
            (warm, self.moments),
            &mut self.coupling,
            steps,
        )?;
        self.stepped_at = Some(steps);
        self.own.clear();
        let (keys, impulses, moments) = self.pipeline.warm_start();
        self.subdomain.take_step(local, keys, impulses, moments);
        let ranks = &self.coupling.ranks;
        let owned = local.owned;
        let energy = kinetic_energy_of_rigid_bodies(
            &local.bodies.motion[..owned],
            &local.bodies.kind[..owned],
            (
                &local.bodies.orientation[..owned],
                &PrincipalInertia::default(),
            ),
            &mut self.energy_blocks,
        );
        let count = ranks.sum_count(owned as u64);
        if count != self.total as u64 {
            return Err(StepError::Distributed {
                step: steps,
                problem: format!("the ranks own {count} bodies, the world has {}", self.total),
            });
        }
        self.last = StepStats {
            contacts: ranks.sum_count(stats.contacts as u64) as usize,
            max_penetration: ranks.max(stats.max_penetration),
            kinetic_energy: ranks.sum(energy),
            ..stats
        };
        if read_back {
            self.read_at = steps;
        }
        Ok(self.last)
    }

    /// The owned bodies are current: nothing to gather for the health checks.
    fn read(&mut self, _bodies: &mut Bodies, steps: u64) -> Result<Option<StepStats>, GpuError> {
        self.read_at = steps;
        Ok(None)
    }

    fn read_at(&self, _steps: u64) -> u64 {
        self.read_at
    }

    /// The pass over this rank's own bodies, the ranks' passes combined in one `Allgather` of
    /// 40 bytes a rank: the first body by index of every rank's findings, the fastest surface
    /// of them all.
    fn scan(&self, _world: &Bodies, escape: (Option<Domain>, Check)) -> Scan {
        let own = self.subdomain.owned.iter().map(|r| {
            let (i, m) = (r.id as usize, &r.motion);
            (i, glam::Vec4::from(r.pos_radius), m.v(), m.w(), r.kind)
        });
        let mine = ScanRecord::of(&health::scan(own, escape));
        let all = self.coupling.ranks.all_gather(&[mine]);
        all.iter()
            .fold(Scan::default(), |found, r| r.combine(found))
    }

    fn max_over_ranks(&self, values: &mut [f64]) {
        self.coupling.ranks.largest_each(values);
    }

    fn max_keys_over_ranks(&self, values: &mut [u64]) {
        self.coupling.ranks.largest_keys(values);
    }

    fn select_over_ranks(&self, values: &mut [f64], k: u64) -> Option<f64> {
        self.coupling.ranks.select(values, k)
    }

    fn sync(&mut self, bodies: &mut Bodies, steps: u64) -> Result<Option<StepStats>, GpuError> {
        if self.synced_at == steps {
            return Ok(None);
        }
        self.gather(bodies, steps)
            .map_err(|e| GpuError::Distributed(e.to_string()))?;
        Ok(Some(self.last))
    }

    /// Copies the contacts this rank solved in the last step, renumbered by body id (not a
    /// collective call: nothing is gathered); none after a restore or an edit, before the next
    /// step.
    fn sync_contacts(&mut self, steps: u64) -> Result<(), GpuError> {
        if self.own.at == Some(steps) || self.stepped_at != Some(steps) {
            return Ok(());
        }
        let solved = self.pipeline.contacts(&self.coupling)?;
        self.own.renumber(steps, solved, &self.local.ids);
        Ok(())
    }

    fn sum_over_ranks(&self, values: &mut [f64]) {
        self.coupling.ranks.sum_each(values);
    }

    /// The forces of this rank's contacts, copied by the last `sync_contacts`, on its own
    /// bodies totalled over the ranks that hold them, and zero on its ghosts (a collective
    /// call); with no contacts copied since the last step, there is nothing to total.
    fn total_contact_forces(&self, forces: &mut [glam::DVec3]) {
        if self.own.at.is_some() && self.own.at == self.stepped_at {
            self.coupling.total_owned(forces);
        }
    }

    fn own_contact_forces(
        &self,
        forces: &mut dyn Iterator<Item = (usize, Option<usize>, glam::DVec3)>,
    ) -> Option<Vec<glam::DVec3>> {
        self.stepped_at?;
        let local = |id: usize| self.local.index_of(id as u64).map(|i| i as usize);
        let mut totals = vec![glam::DVec3::ZERO; self.local.ids.len()];
        for (a, b, f) in forces {
            // A contact's bodies are held here (it was solved here).
            if let Some(a) = local(a) {
                totals[a] += f;
            }
            if let Some(b) = b.and_then(local) {
                totals[b] -= f;
            }
        }
        if self.own.at.is_some() && self.own.at == self.stepped_at {
            self.coupling.total_owned_local(&mut totals);
        }
        totals.truncate(self.local.owned);
        Some(totals)
    }

    fn synced_at(&self, _steps: u64) -> u64 {
        self.synced_at
    }

    fn released(&self) -> Option<usize> {
        self.released.then_some(self.total)
    }

    /// Every step's statistics are summed over the ranks as it is taken, whether or not the
    /// bodies are gathered.
    fn stats_at(&self, steps: u64) -> u64 {
        steps
    }

    fn owned_ids(&self) -> Option<Vec<Vec<u64>>> {
        Some(self.ids_by_rank())
    }

    /// The owned records' ids (the host copy's indices), or, where the host copy is to be split
    /// afresh at step `next`, the bodies of this rank's box of the cuts [`Self::decompose`] will
    /// take: the restored ones unless a rebalance is due, else fresh ones from the host copy.
    fn owned_indices(&self, world: &Bodies, next: u64) -> Option<Vec<usize>> {
        if self.reseed.is_none() {
            return Some(self.subdomain.owned.iter().map(|r| r.id as usize).collect());
        }
        let cuts = self.split_cuts(world, next);
        let me = self.coupling.ranks.rank();
        Some(
            (0..world.len())
                .filter(|&i| cuts.owner(world.pos_radius[i].truncate()) == me)
                .collect(),
        )
    }

    /// The owned records and the warm start of the contacts this rank decides (as of the
    /// last step), or, where the host copy is to be split afresh at step `next`, what that
    /// split will give this rank of the host copy and of the warm start it seeds from.
    fn own_part(&self, world: &Bodies, next: u64) -> Option<OwnPart> {
        self.with_own(world, next, |sub| {
            let (indices, bodies) = records_of(&sub.owned);
            Some(OwnPart {
                rank: self.coupling.ranks.rank(),
                ranks: self.coupling.ranks.size(),
                indices,
                bodies,
                warm: self.keyed_warm_start(&sub.warm),
            })
        })
    }

    fn own_bodies(&self, world: &Bodies, next: u64) -> Option<(Vec<u64>, Bodies)> {
        Some(self.with_own(world, next, |sub| records_of(&sub.owned)))
    }

    fn held_centre(&self, id: u64) -> Option<glam::Vec3> {
        let i = self.local.index_of(id)? as usize;
        self.stepped_at
            .is_some()
            .then(|| self.local.bodies.pos_radius[i].truncate())
    }

    fn own_and_near_bodies(&self, world: &Bodies, next: u64) -> Option<NearBodies> {
        Some(match (&self.reseed, &self.cuts) {
            (Some(warm), _) => {
                let cuts = self.split_cuts(world, next);
                self.near(&self.seeded(world, &cuts, warm), &cuts)
            }
            (None, Some(cuts)) => self.near(&self.subdomain, cuts),
            (None, None) => {
                let (ids, bodies) = records_of(&self.subdomain.owned);
                let owned = ids.len();
                (ids, bodies, owned)
            }
        })
    }

    fn joint_impulses(&self) -> &[f32] {
        &[]
    }

    fn adapter_name(&self) -> Option<&str> {
        self.pipeline.adapter_name()
    }

    fn stage_times(&self) -> Option<StageTimes> {
        self.pipeline.times()
    }

    fn step_seconds(&self) -> f64 {
        self.pipeline.step_seconds()
    }

    fn sweep_trace(&self) -> &[SweepRecord] {
        self.pipeline.sweep_trace()
    }

    fn sweep_traffic(&self, solver: SolverKind) -> SweepTraffic {
        self.pipeline.sweep_traffic(solver)
    }

    fn contacts(&self) -> &Contacts {
        &self.own.contacts
    }

    fn impulses(&self) -> &[[f32; 4]] {
        &self.own.impulses
    }

    fn moment_impulses(&self) -> &[[f32; 4]] {
        &self.own.moments
    }

    fn bodies_edited(&mut self) {
        self.split_again(WarmStart::default());
    }

    /// The warm start the next step seeds from where the host copy is to be split afresh (a
    /// restored snapshot's, or a pass's remapped one: the subdomains' is a world before it), else
    /// the ranks' gathered.
    fn warm_start_state(&mut self) -> Result<WarmStart, GpuError> {
        if let Some(warm) = &self.reseed {
            return Ok(warm.clone());
        }
        let all = self.coupling.ranks.all_gather(&self.subdomain.warm);
        Ok(self.keyed_warm_start(&all))
    }

    fn restore(
        &mut self,
        steps: u64,
        (keys, impulses, moments): (&[u64], &[[f32; 4]], &[[f32; 4]]),
        _joint_impulses: &[f32],
    ) {
        self.moments = !moments.is_empty();
        self.split_again((keys.to_vec(), impulses.to_vec(), moments.to_vec()));
        self.synced_at = steps;
        self.read_at = steps;
    }

    fn is_distributed(&self) -> bool {
        true
    }

    fn rank_traffic(&self) -> Option<crate::RankTraffic> {
        let [exchanged_bytes, collective_bytes, largest_exchange_bytes, largest_contribution_bytes] =
            self.coupling.ranks.sent();
        Some(crate::RankTraffic {
            steps: self.taken.0,
            exchanged_bytes,
            collective_bytes,
            largest_exchange_bytes,
            largest_contribution_bytes,
            ghosts: self.taken.1,
        })
    }

    fn on_ranks(&mut self) -> Option<&mut dyn OnRanks> {
        match self.released {
            true => Some(self),
            false => None,
        }
    }

    fn cuts(&self) -> Option<Bisection> {
        self.cuts.clone()
    }

    fn restore_cuts(&mut self, cuts: Option<&Bisection>) {
        let ranks = self.coupling.ranks.size();
        self.cuts = cuts.filter(|c| c.ranks() == ranks).cloned();
    }
}
