//! The records ranks send each other: a body's state (migrating, as a ghost, or gathered) and
//! a contact's warm-start impulses, both keyed by the bodies' stable ids.

use bytemuck::{Pod, Zeroable};
use glam::{Quat, Vec4};
use grains_kernels::{pair_key, Bodies, Motion, NO_BODY};

/// One body's state by id, with the ranks that hold a copy of it (bit q: rank q), and what of
/// it never changes (mass properties, material, kind): a rank needs nothing of a body but its
/// record, so no rank keeps a copy of every body.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct BodyRecord {
    /// The body's id (its index in the world's bodies).
    pub id: u64,
    /// The ranks holding it this step, owner included (bit q for rank q).
    pub holders: u64,
    /// Centre (m) and radius (m).
    pub pos_radius: [f32; 4],
    /// Orientation quaternion (x, y, z, w).
    pub orientation: [f32; 4],
    /// Velocities and inverse mass properties, as the kernels hold them.
    pub motion: Motion,
    /// Material index into the friction table.
    pub material: u32,
    /// [`crate::body::BodyKind`] as `u32`.
    pub kind: u32,
}

impl BodyRecord {
    /// Body `i` of `bodies` under `id`.
    pub(crate) fn of(bodies: &Bodies, i: usize, id: u64) -> BodyRecord {
        BodyRecord {
            id,
            holders: 0,
            pos_radius: bodies.pos_radius[i].to_array(),
            orientation: bodies.orientation[i].to_array(),
            motion: bodies.motion[i],
            material: bodies.material[i],
            kind: bodies.kind[i],
        }
    }

    /// Writes the record into body `i` of `bodies`.
    pub(crate) fn write(&self, bodies: &mut Bodies, i: usize) {
        bodies.pos_radius[i] = Vec4::from_array(self.pos_radius);
        bodies.orientation[i] = Quat::from_array(self.orientation);
        bodies.motion[i] = self.motion;
        bodies.material[i] = self.material;
        bodies.kind[i] = self.kind;
    }

    /// The record's centre.
    pub(crate) fn centre(&self) -> glam::Vec3 {
        glam::Vec3::from_slice(&self.pos_radius[..3])
    }
}

/// Second id of a [`WarmRecord`] of a wall contact: `WALL - wall`.
pub(crate) const WALL: u64 = u64::MAX;

/// Last step's impulse of one contact by its bodies' ids: `a` < `b`, or `b` = [`WALL`] − wall.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct WarmRecord {
    /// Id of body a (the lower).
    pub a: u64,
    /// Id of body b, or [`WALL`] − wall index.
    pub b: u64,
    /// World-space impulse vector on a (N s).
    pub impulse: [f32; 4],
    /// World-space moment impulse on a (N m s), zero without moment rows.
    pub moment: [f32; 4],
}

/// A warm-start entry as the kernels key it: pair key, impulse and moment vectors on the key's
/// first body.
pub(crate) type KeyedImpulse = (u64, [f32; 4], [f32; 4]);

/// The vector on the other body of a contact: minus the one on the first.
fn flip(v: [f32; 4]) -> [f32; 4] {
    v.map(|x| -x)
}

impl WarmRecord {
    /// The record of the kernels' entry `(key, impulse, moment)` over bodies indexed
    /// `0..bodies` whose ids are `id(index)` (a key's second half at or past `bodies` is a
    /// wall): its lower id first, the vectors turned to it.
    pub(crate) fn from_key(
        (key, impulse, moment): KeyedImpulse,
        bodies: usize,
        id: impl Fn(u32) -> u64,
    ) -> WarmRecord {
        let (la, lb) = ((key >> 32) as u32, key as u32);
        let a = id(la);
        if lb as usize >= bodies {
            let b = WALL - (NO_BODY - lb) as u64;
            return WarmRecord {
                a,
                b,
                impulse,
                moment,
            };
        }
        let b = id(lb);
        match a < b {
            true => WarmRecord {
                a,
                b,
                impulse,
                moment,
            },
            false => WarmRecord {
                a: b,
                b: a,
                impulse: flip(impulse),
                moment: flip(moment),
            },
        }
    }

    /// This record with its bodies' ids renumbered by `id` (a wall stays), or `None` when a
    /// body has no new id.
    pub(crate) fn renumbered(&self, id: impl Fn(u64) -> Option<u64>) -> Option<WarmRecord> {
        let b = match self.b > WALL - (1 << 32) {
            true => self.b,
            false => id(self.b)?,
        };
        Some(WarmRecord {
            a: id(self.a)?,
            b,
            ..*self
        })
    }

    /// The kernels' entry of this record over bodies whose index of id is `index(id)` (its
    /// lower index first, the vectors turned to it), or `None` when a body is not there.
    pub(crate) fn keyed(&self, index: impl Fn(u64) -> Option<u32>) -> Option<KeyedImpulse> {
        let a = index(self.a)?;
        if self.b > WALL - (1 << 32) {
            let wall = (WALL - self.b) as u32;
            return Some((pair_key(a, NO_BODY - wall), self.impulse, self.moment));
        }
        let b = index(self.b)?;
        Some(match a < b {
            true => (pair_key(a, b), self.impulse, self.moment),
            false => (pair_key(b, a), flip(self.impulse), flip(self.moment)),
        })
    }
}
