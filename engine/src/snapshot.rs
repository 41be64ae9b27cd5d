//! Snapshots of a world's evolving state and their checkpoint format (version 9): a header with
//! the format version, a CRC-32 over everything after it, the state, the physics fingerprint of
//! the world it was taken from, and bytes the caller stores with it.
//!
//! Layout (little-endian): `GRAINSV9` (8 bytes); the CRC-32 of all bytes from offset 12 on
//! (4 bytes); fourteen `u64` counts: steps, bodies, warm-start keys, moment impulses, joint
//! impulses, fingerprint bytes, extra bytes, insertions, sinks, placing insertions (one per
//! body, or none), the ranks of the subdomains' cuts (K, or 0 for none), the adaptive step's
//! state bytes (52, or 0 with a fixed step), the servo walls, the broken bonds; the last step's
//! statistics (contacts `u64`,
//! sweeps `u32`, residual `f32`, deepest overlap `f32`, kinetic energy `f64`); then the body
//! buffers (positions and radii,
//! orientations, motions, materials, kinds), the keys, their impulses, the moment impulses, the
//! joint impulses, the fingerprint text, the extra bytes; then the bodies' ids (`u64` each), the
//! next id (`u64`), each insertion's counters (random state, placed, missed: `u64`; mass:
//! `f64`) and each sink's (removed: `u64`; mass: `f64`); then which insertion placed each body
//! (`u32` each, [`LifecycleState::placed_by`]); then the cuts of a distributed run's
//! subdomains, 2K − 1 nodes of [`Bisection::to_bytes`]; then the adaptive step's state
//! ([`StepControl`]: next, last and the last tick's shortest h as `f32`, steps taken and
//! floored as `u64`, shortest and longest h as `f32`, their sum as `f64`, the deepest overlap
//! and the last step's as `f32`); then each servo wall's state ([`ServoState`]: its advance
//! and its last load, `f64` each); then the indices of the broken bonds (`u32` each,
//! ascending, [`crate::World::broken_bonds`]). Format 4 added the ids and counters of
//! grains that come and go ([`crate::lifecycle`]); format 5 the placing insertions, so that
//! shaped grains keep their shapes by id; format 6 the cuts, so that a distributed run resumed
//! on as many ranks continues bit for bit; format 7 the adaptive step's state, so that a run
//! with `h = "auto"` resumes bit for bit; format 8 the servo walls' states ([`crate::servo`]);
//! format 9 the broken bonds ([`crate::World::broken_bonds`]). Formats 4 to 8 are still read
//! (their counts end
//! at the sinks, the placing insertions, the cuts, the adaptive step's state and the servo
//! walls, and nothing follows what they count), as a snapshot without broken bonds, without
//! servo walls before format 8, without the adaptive step's
//! state before format 7, without cuts before format 6, and from
//! format 4 without placing insertions: its inserted grains were spheres.

use crate::auto_step::{StepControl, CONTROL_BYTES};
use crate::decomposition::{Bisection, NODE_BYTES};
use crate::fingerprint::Fingerprint;
use crate::insertion::InsertionCounters;
use crate::servo::ServoState;
use crate::sink::SinkCounters;
use bytemuck::Pod;
use glam::{Quat, Vec4};
use grains_kernels::{Bodies, Motion, StepStats};
use thiserror::Error;

/// The format version this build writes (and the newest it reads).
pub const FORMAT: u8 = 9;
/// The oldest format this build reads: 4, which has no placing insertions and no cuts (5 has
/// no cuts; 4 to 6 have no adaptive step's state; 4 to 7 no servo walls; 4 to 8 no broken
/// bonds).
pub const OLDEST_FORMAT: u8 = 4;
/// Every checkpoint header starts with these bytes, then the version as one byte, `'0'` + the
/// version (an ASCII digit up to format 9).
const MAGIC_PREFIX: &[u8; 7] = b"GRAINSV";
/// Header bytes: magic (8) and checksum (4).
const HEADER: usize = 12;
/// Counts after the header (one fewer in format 8, two fewer in 7, and so on to five fewer
/// in 4).
const COUNTS: usize = 14;

/// The bytes a checkpoint (or a distributed one's piece) writes of the bodies `b` and of the
/// warm start's keys, impulses and moment impulses.
pub(crate) fn state_bytes(b: &Bodies, (keys, impulses, moments): WarmSlices) -> usize {
    size_of_val(&b.pos_radius[..])
        + size_of_val(&b.orientation[..])
        + size_of_val(&b.motion[..])
        + size_of_val(&b.material[..])
        + size_of_val(&b.kind[..])
        + size_of_val(keys)
        + size_of_val(impulses)
        + size_of_val(moments)
}

/// A warm start's keys, impulses and moment impulses.
pub(crate) type WarmSlices<'a> = (&'a [u64], &'a [[f32; 4]], &'a [[f32; 4]]);

/// The running counts of the insertions and sinks, the next id and which insertion placed each
/// body, saved in checkpoints.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LifecycleState {
    /// The id the next inserted grain gets.
    pub next_id: u64,
    /// For each body, in body order: the index of the insertion that placed it, or [`crate::lifecycle::BUILT`]
    /// for a body as built. An inserted grain's shape and moments are its insertion's
    /// ([`crate::Insertion::template`]). Empty in a snapshot read from a format-4 checkpoint, which
    /// predates shaped insertions: its inserted grains are spheres, taken on restore as placed
    /// by the first insertion.
    pub placed_by: Vec<u32>,
    /// One per insertion, in the order they were added.
    pub insertions: Vec<InsertionCounters>,
    /// One per sink, in the order they were added.
    pub sinks: Vec<SinkCounters>,
}

/// Everything that changes while a world runs (step count, bodies, the warm-start memory of the
/// contacts' forces and moments and of the joints), with the fingerprint of the world it was
/// taken from and the caller's own bytes. Restoring it into a world built from the same
/// description continues bit-identically; [`crate::World::restore`] refuses any other.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// Steps taken.
    pub steps: u64,
    /// The statistics of the last step (what [`crate::World::last_stats`] returns), so that
    /// figures sampled from them (kinetic energy, contacts) read the same after a restore.
    pub last_stats: StepStats,
    /// Body buffers.
    pub bodies: Bodies,
    /// Warm-start pair keys (ascending).
    pub warm_keys: Vec<u64>,
    /// Warm-start impulse vectors, one per key; the fourth lane is 1 where the contact's
    /// liquid bridge stood ([`grains_kernels::cohesion`]), 0 elsewhere.
    pub warm_impulses: Vec<[f32; 4]>,
    /// Warm-start moment impulse vectors (spinning and rolling friction), one per key, or none
    /// when no material pair has either.
    pub warm_moments: Vec<[f32; 4]>,
    /// Impulses of the last step's joint rows (see `World::joint_impulses`).
    pub joint_impulses: Vec<f32>,
    /// The physics fingerprint of the world the snapshot was taken from.
    pub fingerprint: Fingerprint,
    /// Bytes the caller stores with the snapshot (e.g. a program's running totals); the
    /// library never reads them. Empty from [`crate::World::snapshot`].
    pub extra: Vec<u8>,
    /// Each body's stable id (see [`crate::World::ids`]).
    pub ids: Vec<u64>,
    /// The insertions' and sinks' running counts and the next id.
    pub lifecycle: LifecycleState,
    /// The cuts of the subdomains of the distributed run the snapshot was taken from (`None`
    /// from a world that steps every body itself, and from formats before 6). A distributed
    /// world on as many ranks ([`Bisection::ranks`]) restoring the snapshot splits the bed
    /// with them, as the run it was taken from would have until its next rebalance, and so
    /// continues bit for bit; any other world ignores them.
    pub cuts: Option<Bisection>,
    /// The adaptive step's state ([`crate::auto_step`]): `None` from a world with a fixed step
    /// and from formats before 7.
    pub step_control: Option<StepControl>,
    /// Each servo wall's state ([`crate::servo`]), in wall order: empty from a world without
    /// one and from formats before 8.
    pub servos: Vec<ServoState>,
    /// The joint indices of the broken bonds, ascending ([`crate::World::broken_bonds`]):
    /// empty from a world where none broke and from formats before 9.
    pub broken_bonds: Vec<u32>,
}

/// Why a snapshot could not be read or applied. Every message is one line.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SnapshotError {
    /// The bytes are not a grains checkpoint.
    #[error("not a grains checkpoint (bad header)")]
    BadHeader,
    /// A checkpoint of an older format, which is not resumed unchecked.
    #[error("written by an older grains, format {0}; this version reads formats {OLDEST_FORMAT} to {FORMAT}")]
    OlderFormat(u8),
    /// A checkpoint of a newer format.
    #[error("written by a newer grains, format {0}; this version reads formats {OLDEST_FORMAT} to {FORMAT}")]
    NewerFormat(u8),
    /// The checksum does not match the content.
    #[error("the checkpoint is damaged (checksum mismatch)")]
    Checksum,
    /// The bytes end early or the lengths disagree.
    #[error("the checkpoint is truncated or corrupt: {0}")]
    Corrupt(&'static str),
    /// The snapshot holds a different number of bodies than the world.
    #[error("the checkpoint has {found} bodies but the world has {expected}")]
    BodyCount {
        /// Bodies in the world.
        expected: usize,
        /// Bodies in the snapshot.
        found: usize,
    },
    /// The world's physics differs from that of the checkpoint: the items that changed.
    #[error("the scene's physics changed since the checkpoint: {}", .0.join(", "))]
    PhysicsChanged(Vec<String>),
    /// A field holds a value the world cannot continue from.
    #[error("the checkpoint holds an invalid value: {0}")]
    Invalid(String),
}

impl Snapshot {
    /// Serialises to the checkpoint format (see the module's documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let b = &self.bodies;
        let fingerprint = self.fingerprint.to_text();
        let cuts = self.cuts.as_ref().map(Bisection::to_bytes);
        // Room for it all at once (the arrays' bytes and at most 64 of statistics and the next
        // id after the header and counts): a buffer grown by doubling held up to twice a large
        // world's checkpoint while it was written.
        let lc = &self.lifecycle;
        let warm = (
            &self.warm_keys[..],
            &self.warm_impulses[..],
            &self.warm_moments[..],
        );
        let size = HEADER
            + 8 * COUNTS
            + 64
            + state_bytes(b, warm)
            + size_of_val(&self.joint_impulses[..])
            + fingerprint.len()
            + self.extra.len()
            + size_of_val(&self.ids[..])
            + 32 * lc.insertions.len()
            + 16 * lc.sinks.len()
            + size_of_val(&lc.placed_by[..])
            + cuts.as_ref().map_or(0, Vec::len)
            + CONTROL_BYTES
            + 16 * self.servos.len()
            + size_of_val(&self.broken_bonds[..]);
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(MAGIC_PREFIX);
        out.push(b'0' + FORMAT);
        out.extend_from_slice(&[0; 4]);
        let counts = [
            self.steps,
            b.len() as u64,
            self.warm_keys.len() as u64,
            self.warm_moments.len() as u64,
            self.joint_impulses.len() as u64,
            fingerprint.len() as u64,
            self.extra.len() as u64,
            self.lifecycle.insertions.len() as u64,
            self.lifecycle.sinks.len() as u64,
            self.lifecycle.placed_by.len() as u64,
            self.cuts.as_ref().map_or(0, |c| c.ranks() as u64),
            self.step_control.map_or(0, |_| CONTROL_BYTES as u64),
            self.servos.len() as u64,
            self.broken_bonds.len() as u64,
        ];
        for n in counts {
            out.extend_from_slice(&n.to_le_bytes());
        }
        let st = &self.last_stats;
        out.extend_from_slice(&(st.contacts as u64).to_le_bytes());
        out.extend_from_slice(&st.iterations.to_le_bytes());
        out.extend_from_slice(&st.residual.to_le_bytes());
        out.extend_from_slice(&st.max_penetration.to_le_bytes());
        out.extend_from_slice(&st.kinetic_energy.to_le_bytes());
        out.extend_from_slice(bytemuck::cast_slice(&b.pos_radius));
        out.extend_from_slice(bytemuck::cast_slice(&b.orientation));
        out.extend_from_slice(bytemuck::cast_slice(&b.motion));
        out.extend_from_slice(bytemuck::cast_slice(&b.material));
        out.extend_from_slice(bytemuck::cast_slice(&b.kind));
        out.extend_from_slice(bytemuck::cast_slice(&self.warm_keys));
        out.extend_from_slice(bytemuck::cast_slice(&self.warm_impulses));
        out.extend_from_slice(bytemuck::cast_slice(&self.warm_moments));
        out.extend_from_slice(bytemuck::cast_slice(&self.joint_impulses));
        out.extend_from_slice(fingerprint.as_bytes());
        out.extend_from_slice(&self.extra);
        out.extend_from_slice(bytemuck::cast_slice(&self.ids));
        out.extend_from_slice(&self.lifecycle.next_id.to_le_bytes());
        for c in &self.lifecycle.insertions {
            for x in [c.rng, c.placed, c.missed, c.mass.to_bits()] {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        for c in &self.lifecycle.sinks {
            for x in [c.removed, c.mass.to_bits()] {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out.extend_from_slice(bytemuck::cast_slice(&self.lifecycle.placed_by));
        if let Some(cuts) = &cuts {
            out.extend_from_slice(cuts);
        }
        if let Some(c) = self.step_control {
            out.extend_from_slice(&c.to_bytes());
        }
        for s in &self.servos {
            for x in [s.advance, s.load] {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out.extend_from_slice(bytemuck::cast_slice(&self.broken_bonds));
        seal(&mut out);
        out
    }

    /// Reads what [`Self::to_bytes`] wrote (or formats 4 to 7, see the module's
    /// documentation), after checking the version and the checksum; refuses formats before 4,
    /// which hold no fingerprint or ids to check, and cuts that are not a tree of the ranks
    /// ([`Bisection::from_bytes`]). Lengths are checked against the bytes before anything is
    /// allocated.
    pub fn from_bytes(bytes: &[u8]) -> Result<Snapshot, SnapshotError> {
        let version = match (bytes.get(..7), bytes.get(7)) {
            (Some(m), Some(&v)) if m == MAGIC_PREFIX && (b'0'..=b'~').contains(&v) => {
                let v = v - b'0';
                if v < OLDEST_FORMAT {
                    return Err(SnapshotError::OlderFormat(v));
                }
                if v > FORMAT {
                    return Err(SnapshotError::NewerFormat(v));
                }
                v
            }
            _ => return Err(SnapshotError::BadHeader),
        };
        let Some(stored) = bytes.get(8..HEADER) else {
            return Err(SnapshotError::Corrupt("it ends inside the header"));
        };
        if stored != crc32fast::hash(&bytes[HEADER..]).to_le_bytes() {
            return Err(SnapshotError::Checksum);
        }
        let mut rest = &bytes[HEADER..];
        let mut counts = take::<u64>(&mut rest, COUNTS - usize::from(FORMAT - version))?;
        counts.resize(COUNTS, 0);
        let count = |k: usize| {
            usize::try_from(counts[k]).map_err(|_| SnapshotError::Corrupt("a count is too large"))
        };
        let (n, m, moments, joints) = (count(1)?, count(2)?, count(3)?, count(4)?);
        if moments != 0 && moments != m {
            return Err(SnapshotError::Corrupt(
                "moment impulses must be one per key or none",
            ));
        }
        let last_stats = StepStats {
            contacts: usize::try_from(take::<u64>(&mut rest, 1)?[0])
                .map_err(|_| SnapshotError::Corrupt("a count is too large"))?,
            iterations: take::<u32>(&mut rest, 1)?[0],
            residual: take::<f32>(&mut rest, 1)?[0],
            max_penetration: take::<f32>(&mut rest, 1)?[0],
            kinetic_energy: take::<f64>(&mut rest, 1)?[0],
        };
        let bodies = Bodies {
            pos_radius: take::<Vec4>(&mut rest, n)?,
            orientation: take::<Quat>(&mut rest, n)?,
            motion: take::<Motion>(&mut rest, n)?,
            material: take::<u32>(&mut rest, n)?,
            kind: take::<u32>(&mut rest, n)?,
        };
        let warm_keys = take::<u64>(&mut rest, m)?;
        let warm_impulses = take::<[f32; 4]>(&mut rest, m)?;
        let warm_moments = take::<[f32; 4]>(&mut rest, moments)?;
        let joint_impulses = take::<f32>(&mut rest, joints)?;
        let text = take::<u8>(&mut rest, count(5)?)?;
        let fingerprint = Fingerprint::from_text(&text).ok_or(SnapshotError::Corrupt(
            "the fingerprint is not name–value text",
        ))?;
        let extra = take::<u8>(&mut rest, count(6)?)?;
        let ids = take::<u64>(&mut rest, n)?;
        let next_id = take::<u64>(&mut rest, 1)?[0];
        let insertions = take::<[u64; 4]>(&mut rest, count(7)?)?
            .into_iter()
            .map(|[rng, placed, missed, mass]| InsertionCounters {
                rng,
                placed,
                missed,
                mass: f64::from_bits(mass),
            })
            .collect();
        let sinks = take::<[u64; 2]>(&mut rest, count(8)?)?
            .into_iter()
            .map(|[removed, mass]| SinkCounters {
                removed,
                mass: f64::from_bits(mass),
            })
            .collect();
        let placed_by = take::<u32>(&mut rest, count(9)?)?;
        let cuts = match count(10)? {
            0 => None,
            ranks => {
                let nodes = ranks
                    .checked_mul(2)
                    .and_then(|n| n.checked_mul(NODE_BYTES))
                    .ok_or(SnapshotError::Corrupt("a count is too large"))?;
                let bytes = take::<u8>(&mut rest, nodes - NODE_BYTES)?;
                let cuts = Bisection::from_bytes(&bytes)
                    .map_err(|e| SnapshotError::Invalid(format!("the subdomains' cuts: {e}")))?;
                Some(cuts)
            }
        };
        let step_control = match count(11)? {
            0 => None,
            n => Some(StepControl::from_bytes(&take::<u8>(&mut rest, n)?).ok_or(
                SnapshotError::Corrupt("the adaptive step's state has the wrong length"),
            )?),
        };
        let servos = take::<[f64; 2]>(&mut rest, count(12)?)?
            .into_iter()
            .map(|[advance, load]| ServoState { advance, load })
            .collect();
        let broken_bonds = take::<u32>(&mut rest, count(13)?)?;
        if !rest.is_empty() {
            return Err(SnapshotError::Corrupt("trailing bytes"));
        }
        Ok(Snapshot {
            steps: counts[0],
            last_stats,
            bodies,
            warm_keys,
            warm_impulses,
            warm_moments,
            joint_impulses,
            fingerprint,
            extra,
            ids,
            lifecycle: LifecycleState {
                next_id,
                placed_by,
                insertions,
                sinks,
            },
            cuts,
            step_control,
            servos,
            broken_bonds,
        })
    }
}

/// Writes the CRC-32 of `bytes[12..]` into `bytes[8..12]`: what [`Snapshot::to_bytes`] does
/// last. A program that edits a checkpoint on purpose (a test of the field checks) seals it
/// again with this.
pub fn seal(bytes: &mut [u8]) {
    if bytes.len() >= HEADER {
        let crc = crc32fast::hash(&bytes[HEADER..]);
        bytes[8..HEADER].copy_from_slice(&crc.to_le_bytes());
    }
}

/// The bytes after the header of `bytes` once its first 8 bytes are `magic` and its checksum
/// matches: how the pieces and index of a distributed checkpoint ([`crate::pieces`]), which
/// share this header, are opened.
pub(crate) fn unseal<'a>(bytes: &'a [u8], magic: &[u8; 8]) -> Result<&'a [u8], SnapshotError> {
    if bytes.get(..8) != Some(&magic[..]) {
        return Err(SnapshotError::BadHeader);
    }
    let Some(stored) = bytes.get(8..HEADER) else {
        return Err(SnapshotError::Corrupt("it ends inside the header"));
    };
    if stored != crc32fast::hash(&bytes[HEADER..]).to_le_bytes() {
        return Err(SnapshotError::Checksum);
    }
    Ok(&bytes[HEADER..])
}

/// Reads `n` values of `T` from the front of `bytes` (copying, so alignment does not matter),
/// refusing before any allocation when fewer bytes are left than `n` values need.
pub(crate) fn take<T: Pod>(bytes: &mut &[u8], n: usize) -> Result<Vec<T>, SnapshotError> {
    let size = n
        .checked_mul(std::mem::size_of::<T>())
        .ok_or(SnapshotError::Corrupt("a count is too large"))?;
    if bytes.len() < size {
        return Err(SnapshotError::Corrupt("the data ends early"));
    }
    let (head, tail) = bytes.split_at(size);
    *bytes = tail;
    let mut out = vec![T::zeroed(); n];
    bytemuck::cast_slice_mut::<T, u8>(&mut out).copy_from_slice(head);
    Ok(out)
}
