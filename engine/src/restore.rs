//! Taking a world's snapshot and restoring one: the restore checks every field against the
//! world before anything is replaced, so that a checkpoint of another world, or one edited or
//! damaged in a way its checksum cannot see, is refused with one line naming the field.

use crate::auto_step::StepControl;
use crate::pieces::{state_tag, PieceEntry, SnapshotIndex, SnapshotPiece};
use crate::reach::SPEED_OF_LIGHT;
use crate::snapshot::{LifecycleState, Snapshot, SnapshotError};
use crate::world::World;
use grains_kernels::narrow_phase::{FLAGS_A, FLAGS_B};
use grains_kernels::{Bodies, GpuError, StepStats, NO_BODY};

/// How far from 1 the length of a restored orientation may be.
const UNIT_TOLERANCE: f32 = 1e-3;

impl World {
    /// The evolving state of the world (see [`Snapshot`]), with the world's fingerprint, no
    /// extra bytes and, from a distributed world, its subdomains' cuts. On the GPU backend the
    /// state is read back from the device first.
    pub fn snapshot(&mut self) -> Result<Snapshot, GpuError> {
        self.sync()?;
        let (warm_keys, warm_impulses, warm_moments) = self.warm_start_state()?;
        let (ids, lifecycle) = self.lifecycle_snapshot();
        Ok(Snapshot {
            steps: self.steps(),
            last_stats: self.last_stats(),
            bodies: self.bodies().clone(),
            warm_keys,
            warm_impulses,
            warm_moments,
            joint_impulses: self.joint_impulses().to_vec(),
            fingerprint: self.fingerprint.clone(),
            extra: Vec::new(),
            ids,
            lifecycle,
            cuts: self.backend.cuts(),
            step_control: self.control,
            servos: self.servos.iter().map(|s| s.state).collect(),
            broken_bonds: self.broken_bonds().into_iter().map(|i| i as u32).collect(),
        })
    }

    /// This rank's piece of a checkpoint of a distributed world ([`crate::pieces`]): the
    /// bodies it owns, with their indices and ids, and the warm start of the contacts it
    /// decides, as of the last step (where the bed is to be split afresh at the next step,
    /// what that split gives this rank of the host copy). Not a collective call: nothing is
    /// gathered, nothing sent. `None` from a world that steps every body itself.
    pub fn snapshot_piece(&self) -> Option<SnapshotPiece> {
        let part = self.backend.own_part(&self.bodies, self.steps() + 1)?;
        let (warm_keys, warm_impulses, warm_moments) = part.warm;
        let placed_by = &self.lifecycle_state().placed_by;
        let ids = self.ids();
        let of = |i: &u64| *i as usize;
        Some(SnapshotPiece {
            steps: self.steps(),
            tag: state_tag(&self.checkpoint_head(), self.len(), part.ranks),
            rank: part.rank,
            ranks: part.ranks,
            world_bodies: self.len(),
            ids: part.indices.iter().map(|i| ids[of(i)]).collect(),
            placed_by: match placed_by.is_empty() {
                true => Vec::new(),
                false => part.indices.iter().map(|i| placed_by[of(i)]).collect(),
            },
            indices: part.indices,
            bodies: part.bodies,
            warm_keys,
            warm_impulses,
            warm_moments,
        })
    }

    /// The index of a checkpoint of this distributed world whose pieces (one per rank, in rank
    /// order, each [`World::snapshot_piece`] of its rank) are `pieces`: the world's state
    /// without its bodies and warm start, no extra bytes. Not a collective call.
    pub fn snapshot_index(&self, pieces: Vec<PieceEntry>) -> SnapshotIndex {
        SnapshotIndex::new(self.checkpoint_head(), self.len(), pieces)
    }

    /// What a snapshot holds besides the bodies, their ids and placing insertions, and the
    /// warm start: the same on every rank of a distributed world.
    fn checkpoint_head(&self) -> Snapshot {
        let state = self.lifecycle_state();
        Snapshot {
            steps: self.steps(),
            last_stats: self.last_stats(),
            bodies: Bodies::default(),
            warm_keys: Vec::new(),
            warm_impulses: Vec::new(),
            warm_moments: Vec::new(),
            joint_impulses: self.joint_impulses().to_vec(),
            fingerprint: self.fingerprint.clone(),
            extra: Vec::new(),
            ids: Vec::new(),
            lifecycle: LifecycleState {
                next_id: state.next_id,
                placed_by: Vec::new(),
                insertions: state.insertions.clone(),
                sinks: state.sinks.clone(),
            },
            cuts: self.backend.cuts(),
            step_control: self.control,
            servos: self.servos.iter().map(|s| s.state).collect(),
            broken_bonds: self.broken_bonds().into_iter().map(|i| i as u32).collect(),
        }
    }

    /// Continues from `snap`, taken from a world built from the same description (on either
    /// backend and any thread count; the GPU uploads it at the next step; a distributed world
    /// splits the bed with the snapshot's cuts when they are for its rank count, so that it
    /// continues bit for bit, and makes fresh cuts otherwise). Refuses, leaving the
    /// world as it was, a snapshot whose fingerprint differs from the world's (naming every
    /// item that changed) or whose fields the world cannot continue from: counts that differ
    /// from the world's, a body's fixed properties (radius, mass, inertia, material, kind) that
    /// differ, a value that is not finite, a body faster than light, an orientation that is not a unit quaternion,
    /// warm-start keys not strictly ascending or naming no pair of this world.
    pub fn restore(&mut self, snap: &Snapshot) -> Result<(), SnapshotError> {
        let changes = self.fingerprint.changes_since(&snap.fingerprint);
        if !changes.is_empty() {
            return Err(SnapshotError::PhysicsChanged(changes));
        }
        self.check_bodies(snap)?;
        self.check_broken_bonds(snap)?;
        self.check_warm_start(snap)?;
        check_stats(&snap.last_stats)?;
        let control = self.check_control(snap)?;
        self.check_servos(snap)?;
        self.last = snap.last_stats;
        for (s, state) in self.servos.iter_mut().zip(&snap.servos) {
            s.state = *state;
        }
        if let Some(c) = control {
            self.params.h = c.last;
        }
        self.control = control;
        self.set_broken_bonds(&snap.broken_bonds, &[]);
        self.restore_parts(
            snap.steps,
            &snap.bodies,
            &snap.warm_keys,
            &snap.warm_impulses,
            &snap.warm_moments,
            &snap.joint_impulses,
        );
        self.backend.restore_cuts(snap.cuts.as_ref());
        self.restore_lifecycle(snap);
        Ok(())
    }

    /// The adaptive step's state to continue from: the snapshot's, checked against the
    /// world's [`crate::AutoStep`] (a fresh one from a snapshot without it); none with a fixed
    /// step.
    fn check_control(&self, snap: &Snapshot) -> Result<Option<StepControl>, SnapshotError> {
        let Some(auto) = &self.settings.auto_step else {
            return Ok(None);
        };
        let h_max = self.settings.h;
        match snap.step_control {
            None => Ok(Some(StepControl::new(h_max))),
            Some(c) if c.is_valid(auto, h_max) => Ok(Some(c)),
            Some(c) => Err(SnapshotError::Invalid(format!(
                "the adaptive step's state is out of range for h in [{}, {h_max}] s: {c:?}",
                auto.h_min
            ))),
        }
    }

    /// The servo walls' states: one per servo wall, finite.
    fn check_servos(&self, snap: &Snapshot) -> Result<(), SnapshotError> {
        let (n, found) = (self.servos.len(), snap.servos.len());
        if found != n {
            return Err(SnapshotError::Invalid(format!(
                "{found} servo wall states for {n} servo walls"
            )));
        }
        match snap.servos.iter().position(|s| !s.is_finite()) {
            Some(k) => Err(SnapshotError::Invalid(format!(
                "the state of servo wall {} is not finite: {:?}",
                self.servos[k].wall, snap.servos[k]
            ))),
            None => Ok(()),
        }
    }

    /// The bodies' counts, fixed properties (by id, see [`World::check_lifecycle`]),
    /// finiteness and unit orientations.
    fn check_bodies(&self, snap: &Snapshot) -> Result<(), SnapshotError> {
        let theirs = &snap.bodies;
        let n = theirs.len();
        let lengths = [
            theirs.orientation.len(),
            theirs.motion.len(),
            theirs.material.len(),
            theirs.kind.len(),
        ];
        if let Some(&found) = lengths.iter().find(|&&l| l != n) {
            return Err(SnapshotError::BodyCount { expected: n, found });
        }
        self.check_lifecycle(snap)?;
        let bad = |i: usize, what: String| Err(SnapshotError::Invalid(format!("body {i} {what}")));
        for i in 0..n {
            let (p, q, m) = (
                theirs.pos_radius[i],
                theirs.orientation[i],
                theirs.motion[i],
            );
            if !p.truncate().is_finite() {
                return bad(i, "position is not finite".into());
            }
            if !(q.is_finite() && (q.length() - 1.0).abs() <= UNIT_TOLERANCE) {
                return bad(i, "orientation is not a unit quaternion".into());
            }
            if !(m.linear.iter().chain(&m.angular).all(|x| x.is_finite())) {
                return bad(i, "velocity is not finite".into());
            }
            let speed = m.v().as_dvec3().length();
            if speed > SPEED_OF_LIGHT {
                return bad(i, format!("moves at {speed:.3e} m/s, faster than light"));
            }
        }
        Ok(())
    }

    /// The warm-start memory: one impulse per key, moments one per key or none, joint impulses
    /// one per row or none, keys strictly ascending and naming pairs of this world, every
    /// impulse finite.
    fn check_warm_start(&self, snap: &Snapshot) -> Result<(), SnapshotError> {
        let invalid = |what: String| Err(SnapshotError::Invalid(what));
        let keys = snap.warm_keys.len();
        if snap.warm_impulses.len() != keys {
            return invalid(format!(
                "{} warm-start impulses for {keys} keys",
                snap.warm_impulses.len()
            ));
        }
        if ![0, keys].contains(&snap.warm_moments.len()) {
            return invalid(format!(
                "{} moment impulses for {keys} keys (one per key or none)",
                snap.warm_moments.len()
            ));
        }
        let joint_rows = self.joint_rows_with(&snap.broken_bonds);
        if ![0, joint_rows].contains(&snap.joint_impulses.len()) {
            return invalid(format!(
                "{} joint impulses for {joint_rows} joint rows",
                snap.joint_impulses.len(),
            ));
        }
        for (k, pair) in snap.warm_keys.windows(2).enumerate() {
            if pair[0] >= pair[1] {
                return invalid(format!(
                    "warm-start key {} is not above the one before",
                    k + 1
                ));
            }
        }
        for (k, &key) in snap.warm_keys.iter().enumerate() {
            if !self.names_a_pair(key, snap.bodies.len()) {
                return invalid(format!("warm-start key {k} names no pair of this world"));
            }
        }
        let impulses = snap
            .warm_impulses
            .iter()
            .chain(&snap.warm_moments)
            .flatten();
        if !impulses.chain(&snap.joint_impulses).all(|x| x.is_finite()) {
            return invalid("a warm-start impulse is not finite".into());
        }
        Ok(())
    }

    /// True when `key` is a contact key of this world with `n` bodies: body a with a body
    /// b ≠ a or with a wall (a flat, cylinder, cone or disk wall, or a mesh triangle numbered
    /// after them), flags aside.
    fn names_a_pair(&self, key: u64, n: usize) -> bool {
        let key = key & !FLAGS_A;
        let (a, low) = ((key >> 32) as usize, key as u32);
        let wall = (NO_BODY - low) as usize;
        let b = (low & !(FLAGS_B as u32)) as usize;
        let walls = self.wall_descs.len() + self.meshes.placed.triangles.len();
        a < n && (wall < walls || (b < n && b != a))
    }
}

/// The last step's figures that health checks and samples read: finite, and not below 0.
fn check_stats(st: &StepStats) -> Result<(), SnapshotError> {
    let fine = st.max_penetration.is_finite()
        && st.max_penetration >= 0.0
        && st.kinetic_energy.is_finite()
        && st.kinetic_energy >= 0.0;
    if fine {
        Ok(())
    } else {
        Err(SnapshotError::Invalid(format!(
            "the last step's statistics are out of range: overlap {} m, kinetic energy {} J",
            st.max_penetration, st.kinetic_energy
        )))
    }
}
