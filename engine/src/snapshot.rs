//! Snapshots of a world's evolving state, for checkpoints that resume bit-identically.

use crate::world::World;
use bytemuck::Pod;
use glam::{Quat, Vec4};
use grains_kernels::GpuError;
use grains_kernels::{Bodies, Motion};
use thiserror::Error;

/// Header of the present format, which adds the contacts' moment impulses (spinning and
/// rolling friction) and the joints' impulses to version 1: five counts (steps, bodies, keys,
/// moments, joint rows).
const MAGIC: &[u8; 8] = b"GRAINSV2";
/// Header of version 1 (three counts: steps, bodies, keys; no moments, no joints), still read.
const MAGIC_V1: &[u8; 8] = b"GRAINSV1";

/// Everything that changes while a world runs: step count, bodies and the warm-start memory
/// of the contacts (forces and moments) and the joints.
/// Restoring it into a world built from the same scene continues bit-identically.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// Steps taken.
    pub steps: u64,
    /// Body buffers.
    pub bodies: Bodies,
    /// Warm-start pair keys (ascending).
    pub warm_keys: Vec<u64>,
    /// Warm-start impulse vectors, one per key.
    pub warm_impulses: Vec<[f32; 4]>,
    /// Warm-start moment impulse vectors (spinning and rolling friction), one per key, or none
    /// when no material pair has either.
    pub warm_moments: Vec<[f32; 4]>,
    /// Impulses of the last step's joint rows (see `World::joint_impulses`).
    pub joint_impulses: Vec<f32>,
}

/// Why a snapshot could not be read or applied.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SnapshotError {
    /// The bytes are not a snapshot of this version.
    #[error("not a grains snapshot (bad header)")]
    BadHeader,
    /// The bytes end early or the lengths disagree.
    #[error("snapshot is truncated or corrupt: {0}")]
    Corrupt(&'static str),
    /// The snapshot holds a different number of bodies than the world.
    #[error("snapshot has {found} bodies but the world has {expected}")]
    BodyCount {
        /// Bodies in the world.
        expected: usize,
        /// Bodies in the snapshot.
        found: usize,
    },
}

impl Snapshot {
    /// Serialises to a self-describing little-endian byte string.
    pub fn to_bytes(&self) -> Vec<u8> {
        let b = &self.bodies;
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        let counts = [
            self.steps,
            b.len() as u64,
            self.warm_keys.len() as u64,
            self.warm_moments.len() as u64,
            self.joint_impulses.len() as u64,
        ];
        for n in counts {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(bytemuck::cast_slice(&b.pos_radius));
        out.extend_from_slice(bytemuck::cast_slice(&b.orientation));
        out.extend_from_slice(bytemuck::cast_slice(&b.motion));
        out.extend_from_slice(bytemuck::cast_slice(&b.material));
        out.extend_from_slice(bytemuck::cast_slice(&b.kind));
        out.extend_from_slice(bytemuck::cast_slice(&self.warm_keys));
        out.extend_from_slice(bytemuck::cast_slice(&self.warm_impulses));
        out.extend_from_slice(bytemuck::cast_slice(&self.warm_moments));
        out.extend_from_slice(bytemuck::cast_slice(&self.joint_impulses));
        out
    }

    /// Reads what [`Self::to_bytes`] wrote (or a version-1 snapshot, which has no moments and
    /// no joints).
    pub fn from_bytes(bytes: &[u8]) -> Result<Snapshot, SnapshotError> {
        let words = match bytes.get(..8) {
            Some(m) if m == MAGIC => 5,
            Some(m) if m == MAGIC_V1 => 3,
            _ => return Err(SnapshotError::BadHeader),
        };
        let header = 8 + 8 * words;
        if bytes.len() < header {
            return Err(SnapshotError::BadHeader);
        }
        let word = |k: usize| u64::from_le_bytes(bytes[8 + 8 * k..16 + 8 * k].try_into().unwrap());
        let (steps, n, m) = (word(0), word(1) as usize, word(2) as usize);
        let (moments, joints) = if words == 5 {
            (word(3) as usize, word(4) as usize)
        } else {
            (0, 0)
        };
        if moments != 0 && moments != m {
            return Err(SnapshotError::Corrupt(
                "moment impulses must be one per key or none",
            ));
        }
        let mut rest = &bytes[header..];
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
        if !rest.is_empty() {
            return Err(SnapshotError::Corrupt("trailing bytes"));
        }
        Ok(Snapshot {
            steps,
            bodies,
            warm_keys,
            warm_impulses,
            warm_moments,
            joint_impulses,
        })
    }
}

/// Reads `n` values of `T` from the front of `bytes` (copying, so alignment does not matter).
fn take<T: Pod>(bytes: &mut &[u8], n: usize) -> Result<Vec<T>, SnapshotError> {
    let size = n
        .checked_mul(std::mem::size_of::<T>())
        .ok_or(SnapshotError::Corrupt("length overflow"))?;
    if bytes.len() < size {
        return Err(SnapshotError::Corrupt("data ends early"));
    }
    let (head, tail) = bytes.split_at(size);
    *bytes = tail;
    let mut out = vec![T::zeroed(); n];
    bytemuck::cast_slice_mut::<T, u8>(&mut out).copy_from_slice(head);
    Ok(out)
}

impl World {
    /// The evolving state of the world (see [`Snapshot`]). On the GPU backend the state is read
    /// back from the device first.
    pub fn snapshot(&mut self) -> Result<Snapshot, GpuError> {
        self.sync()?;
        let (warm_keys, warm_impulses, warm_moments) = self.warm_start_state()?;
        Ok(Snapshot {
            steps: self.steps(),
            bodies: self.bodies().clone(),
            warm_keys,
            warm_impulses,
            warm_moments,
            joint_impulses: self.joint_impulses().to_vec(),
        })
    }

    /// Continues from `snap`, taken from a world built from the same description (on either
    /// backend; the GPU uploads it at the next step).
    pub fn restore(&mut self, snap: &Snapshot) -> Result<(), SnapshotError> {
        if snap.bodies.len() != self.len() {
            return Err(SnapshotError::BodyCount {
                expected: self.len(),
                found: snap.bodies.len(),
            });
        }
        self.restore_parts(
            snap.steps,
            &snap.bodies,
            &snap.warm_keys,
            &snap.warm_impulses,
            &snap.warm_moments,
            &snap.joint_impulses,
        );
        Ok(())
    }
}
