//! The checkpoint of a distributed run as its ranks write it, never gathered: one piece per
//! rank ([`SnapshotPiece`]: the bodies it owns, with their indices and ids, and the warm start
//! of the contacts it decides) and one small index ([`SnapshotIndex`], written by rank 0 once
//! every piece is on disk: the run's global state and the pieces' names, sizes and CRC-32s).
//! [`SnapshotIndex::assemble`] joins the pieces into the [`Snapshot`] a gathered checkpoint
//! would have held, the same bits, which any world restores: on as many ranks bit for bit, on
//! any other rank count or in one process as a gathered checkpoint resumes.
//!
//! Both share the snapshot's header: 8 bytes of magic, then the CRC-32 of everything after the
//! 12th byte. Little-endian throughout.
//!
//! A piece (`GRAINSP1`): nine `u64` counts: step, state tag (below), rank, ranks, the world's
//! bodies, the bodies here (n), warm-start keys (m), moment impulses (0 or m), placing
//! insertions (0 or n); then the bodies' indices in the world (`u64`, ascending), their ids
//! (`u64`) and placing insertions (`u32`), their buffers as in a snapshot (positions and radii,
//! orientations, motions, materials, kinds), the warm-start keys (`u64`, over the world's
//! indices, ascending), impulses and moment impulses (`[f32; 4]`).
//!
//! The index (`GRAINSI1`, format 1 of the index): four `u64`: state tag, the world's bodies,
//! ranks (K), bytes of the head; K entries, one per rank: the piece file's size (`u64`) and
//! CRC-32 (`u32`), its name's length (`u32`) and name (UTF-8); then the head, a checkpoint of
//! the current format ([`Snapshot::to_bytes`]) without bodies or warm start that holds the rest: step,
//! the last step's statistics, the fingerprint, the caller's extra bytes, the insertions' and
//! sinks' counters and the next id, the subdomains' cuts.
//!
//! The state tag is the CRC-32 of the head without its extra bytes, of the world's bodies and
//! of the ranks: the same on every rank of a run at a step (their global state is), so that a
//! piece left by another run, or by another checkpoint of this one, is told from the index's.

use crate::snapshot::{seal, state_bytes, take, unseal, Snapshot, SnapshotError};
use glam::{Quat, Vec4};
use grains_kernels::{Bodies, Motion};
use thiserror::Error;

/// The first bytes of a piece.
const PIECE_MAGIC: &[u8; 8] = b"GRAINSP1";
/// The first bytes of an index.
const INDEX_MAGIC: &[u8; 8] = b"GRAINSI1";
/// Counts after a piece's header.
const PIECE_COUNTS: usize = 9;
/// Counts after an index's header.
const INDEX_COUNTS: usize = 4;

/// One rank's piece of a distributed checkpoint (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotPiece {
    /// Steps taken.
    pub steps: u64,
    /// The state tag of the checkpoint it belongs to.
    pub tag: u32,
    /// The rank that wrote it.
    pub rank: usize,
    /// The run's ranks.
    pub ranks: usize,
    /// Bodies in the whole world.
    pub world_bodies: usize,
    /// The indices in the world of the bodies here (ascending).
    pub indices: Vec<u64>,
    /// Their stable ids.
    pub ids: Vec<u64>,
    /// The insertion that placed each (none: as [`crate::snapshot::LifecycleState::placed_by`]).
    pub placed_by: Vec<u32>,
    /// Their state.
    pub bodies: Bodies,
    /// Warm-start keys of the contacts this rank decides, over the world's indices (ascending).
    pub warm_keys: Vec<u64>,
    /// Their impulse vectors.
    pub warm_impulses: Vec<[f32; 4]>,
    /// Their moment impulse vectors, or none.
    pub warm_moments: Vec<[f32; 4]>,
}

/// What the index says of one piece.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceEntry {
    /// The piece's file name, relative to the index's folder.
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
    /// The CRC-32 of the whole file.
    pub crc: u32,
}

/// The index of a distributed checkpoint (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotIndex {
    /// Everything but the bodies and the warm start (whose fields stay empty).
    pub head: Snapshot,
    /// The state tag every piece must carry.
    pub tag: u32,
    /// Bodies in the whole world.
    pub bodies: usize,
    /// One per rank, in rank order.
    pub pieces: Vec<PieceEntry>,
}

/// Why a piece is refused. Every message is one line, to follow the piece's name.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PieceError {
    /// The file's size is not the index's.
    #[error("{found} bytes, the index says {expected}: truncated or not the piece it names")]
    Size {
        /// What the index says.
        expected: u64,
        /// What is on disk.
        found: u64,
    },
    /// The bytes are no piece, or are damaged.
    #[error("{0}")]
    Unreadable(SnapshotError),
    /// A piece of another step.
    #[error("a piece of step {found}, the index is of step {expected}")]
    Step {
        /// The index's step.
        expected: u64,
        /// The piece's.
        found: u64,
    },
    /// A piece of another rank or rank count.
    #[error("rank {found} of {found_ranks}'s piece, the index names it as rank {expected} of {expected_ranks}'s")]
    Rank {
        /// The rank the index names.
        expected: usize,
        /// The index's ranks.
        expected_ranks: usize,
        /// The piece's rank.
        found: usize,
        /// The piece's ranks.
        found_ranks: usize,
    },
    /// A piece of another run's state (or of a world of another size).
    #[error("a piece of another run (state tag {found:08x}, the index's {expected:08x})")]
    Tag {
        /// The index's tag.
        expected: u32,
        /// The piece's.
        found: u32,
    },
    /// The file's CRC-32 is not the index's.
    #[error("its CRC-32 is {found:08x}, the index says {expected:08x}")]
    Crc {
        /// What the index says.
        expected: u32,
        /// What the file has.
        found: u32,
    },
}

impl PieceEntry {
    /// The entry of the piece file `name` holding `bytes`.
    pub fn of(name: String, bytes: &[u8]) -> PieceEntry {
        PieceEntry {
            name,
            size: bytes.len() as u64,
            crc: crc32fast::hash(bytes),
        }
    }
}

/// The state tag of a checkpoint whose head is `head` (its extra bytes left out), of a world
/// of `bodies` bodies on `ranks` ranks.
pub(crate) fn state_tag(head: &Snapshot, bodies: usize, ranks: usize) -> u32 {
    let bare = Snapshot {
        extra: Vec::new(),
        ..head.clone()
    };
    let mut bytes = bare.to_bytes();
    bytes.extend_from_slice(&(bodies as u64).to_le_bytes());
    bytes.extend_from_slice(&(ranks as u64).to_le_bytes());
    crc32fast::hash(&bytes)
}

/// Appends `values` as their bytes (then frees them, where they are owned).
fn put<T: bytemuck::Pod>(out: &mut Vec<u8>, values: impl AsRef<[T]>) {
    out.extend_from_slice(bytemuck::cast_slice(values.as_ref()));
}

/// A count read from the front of a checkpoint as a `usize`.
fn to_usize(n: u64) -> Result<usize, SnapshotError> {
    usize::try_from(n).map_err(|_| SnapshotError::Corrupt("a count is too large"))
}

impl SnapshotPiece {
    /// Serialises the piece (see the module's documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.clone().into_bytes()
    }

    /// Serialises the piece as [`Self::to_bytes`] does, freeing each of its lists once it is
    /// written: a rank writes its piece beside its whole pipeline, where the piece and its
    /// bytes side by side doubled what the checkpoint added to the rank's peak.
    pub fn into_bytes(self) -> Vec<u8> {
        let counts = [
            self.steps,
            u64::from(self.tag),
            self.rank as u64,
            self.ranks as u64,
            self.world_bodies as u64,
            self.indices.len() as u64,
            self.warm_keys.len() as u64,
            self.warm_moments.len() as u64,
            self.placed_by.len() as u64,
        ];
        // Sized exactly: a doubling growth left up to half of the buffer empty (34 MB of a
        // 1M-grain pour's rank on 4 ranks). Its pages are touched only as they are written.
        let b = self.bodies;
        let size = PIECE_MAGIC.len()
            + 4
            + size_of_val(&counts)
            + size_of_val(&self.indices[..])
            + size_of_val(&self.ids[..])
            + size_of_val(&self.placed_by[..])
            + state_bytes(
                &b,
                (&self.warm_keys, &self.warm_impulses, &self.warm_moments),
            );
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(PIECE_MAGIC);
        out.extend_from_slice(&[0; 4]);
        put(&mut out, counts);
        put(&mut out, self.indices);
        put(&mut out, self.ids);
        put(&mut out, self.placed_by);
        put(&mut out, b.pos_radius);
        put(&mut out, b.orientation);
        put(&mut out, b.motion);
        put(&mut out, b.material);
        put(&mut out, b.kind);
        put(&mut out, self.warm_keys);
        put(&mut out, self.warm_impulses);
        put(&mut out, self.warm_moments);
        debug_assert_eq!(out.len(), size, "the piece's size");
        seal(&mut out);
        out
    }

    /// Reads what [`Self::to_bytes`] wrote, after checking the magic and the checksum; counts
    /// are checked against the bytes before anything is allocated.
    pub fn from_bytes(bytes: &[u8]) -> Result<SnapshotPiece, SnapshotError> {
        let mut rest = unseal(bytes, PIECE_MAGIC)?;
        let counts = take::<u64>(&mut rest, PIECE_COUNTS)?;
        let count = |k: usize| to_usize(counts[k]);
        let (n, m, moments, placed) = (count(5)?, count(6)?, count(7)?, count(8)?);
        if ![0, m].contains(&moments) || ![0, n].contains(&placed) {
            return Err(SnapshotError::Corrupt(
                "moment impulses must be one per key or none, placing insertions one per body or none",
            ));
        }
        let piece = SnapshotPiece {
            steps: counts[0],
            tag: u32::try_from(counts[1])
                .map_err(|_| SnapshotError::Corrupt("the state tag is not 32 bits"))?,
            rank: count(2)?,
            ranks: count(3)?,
            world_bodies: count(4)?,
            indices: take::<u64>(&mut rest, n)?,
            ids: take::<u64>(&mut rest, n)?,
            placed_by: take::<u32>(&mut rest, placed)?,
            bodies: Bodies {
                pos_radius: take::<Vec4>(&mut rest, n)?,
                orientation: take::<Quat>(&mut rest, n)?,
                motion: take::<Motion>(&mut rest, n)?,
                material: take::<u32>(&mut rest, n)?,
                kind: take::<u32>(&mut rest, n)?,
            },
            warm_keys: take::<u64>(&mut rest, m)?,
            warm_impulses: take::<[f32; 4]>(&mut rest, m)?,
            warm_moments: take::<[f32; 4]>(&mut rest, moments)?,
        };
        if !rest.is_empty() {
            return Err(SnapshotError::Corrupt("trailing bytes"));
        }
        Ok(piece)
    }
}

impl SnapshotIndex {
    /// The index of a checkpoint whose global state is `head` (no bodies, no warm start), of a
    /// world of `bodies` bodies, with one entry per rank.
    pub fn new(head: Snapshot, bodies: usize, pieces: Vec<PieceEntry>) -> SnapshotIndex {
        let tag = state_tag(&head, bodies, pieces.len());
        SnapshotIndex {
            head,
            tag,
            bodies,
            pieces,
        }
    }

    /// True when `bytes` start as an index does (rather than as a whole checkpoint).
    pub fn is_index(bytes: &[u8]) -> bool {
        bytes.starts_with(&INDEX_MAGIC[..7])
    }

    /// Serialises the index (see the module's documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let head = self.head.to_bytes();
        let mut out = INDEX_MAGIC.to_vec();
        out.extend_from_slice(&[0; 4]);
        let counts = [
            u64::from(self.tag),
            self.bodies as u64,
            self.pieces.len() as u64,
            head.len() as u64,
        ];
        put(&mut out, counts);
        for p in &self.pieces {
            out.extend_from_slice(&p.size.to_le_bytes());
            out.extend_from_slice(&p.crc.to_le_bytes());
            out.extend_from_slice(&(p.name.len() as u32).to_le_bytes());
            out.extend_from_slice(p.name.as_bytes());
        }
        out.extend_from_slice(&head);
        seal(&mut out);
        out
    }

    /// Reads what [`Self::to_bytes`] wrote, after checking the magic (an index of a newer
    /// format is refused as such) and the checksum; the head is read as a checkpoint, and must
    /// hold no bodies and no warm start, and cuts (if any) for the index's ranks.
    pub fn from_bytes(bytes: &[u8]) -> Result<SnapshotIndex, SnapshotError> {
        if let Some(&v) = bytes.get(7).filter(|_| Self::is_index(bytes)) {
            if v != INDEX_MAGIC[7] {
                return Err(SnapshotError::Invalid(format!(
                    "an index of a distributed checkpoint of format {}; this version reads format 1",
                    v as char
                )));
            }
        }
        let mut rest = unseal(bytes, INDEX_MAGIC)?;
        let counts = take::<u64>(&mut rest, INDEX_COUNTS)?;
        let tag = u32::try_from(counts[0])
            .map_err(|_| SnapshotError::Corrupt("the state tag is not 32 bits"))?;
        let (bodies, ranks, head_len) = (to_usize(counts[1])?, counts[2], to_usize(counts[3])?);
        if ranks == 0 || ranks > rest.len() as u64 {
            return Err(SnapshotError::Corrupt(
                "the rank count does not fit the index",
            ));
        }
        let mut pieces = Vec::new();
        for _ in 0..ranks {
            let size = take::<u64>(&mut rest, 1)?[0];
            let crc = take::<u32>(&mut rest, 1)?[0];
            let len = take::<u32>(&mut rest, 1)?[0] as usize;
            let name = String::from_utf8(take::<u8>(&mut rest, len)?)
                .map_err(|_| SnapshotError::Corrupt("a piece's name is not UTF-8"))?;
            pieces.push(PieceEntry { name, size, crc });
        }
        if rest.len() != head_len {
            return Err(SnapshotError::Corrupt(
                "the head's length disagrees with the index",
            ));
        }
        let head = Snapshot::from_bytes(rest)?;
        let empty = head.bodies.is_empty() && head.ids.is_empty() && head.warm_keys.is_empty();
        if !empty || !head.lifecycle.placed_by.is_empty() {
            return Err(SnapshotError::Corrupt(
                "the head holds bodies or warm start",
            ));
        }
        if head
            .cuts
            .as_ref()
            .is_some_and(|c| c.ranks() != pieces.len())
        {
            return Err(SnapshotError::Invalid(format!(
                "the cuts are for {} ranks, the index names {} pieces",
                head.cuts.as_ref().map_or(0, |c| c.ranks()),
                pieces.len()
            )));
        }
        Ok(SnapshotIndex {
            head,
            tag,
            bodies,
            pieces,
        })
    }

    /// Reads `bytes` as the piece of rank `k` this index names, refusing one whose bytes are
    /// no piece or damaged (as truncated where its size is not the index's), or whose step,
    /// rank, rank count, state tag, size or CRC-32 is not the index's, in that order.
    pub fn open_piece(&self, k: usize, bytes: &[u8]) -> Result<SnapshotPiece, PieceError> {
        let entry = &self.pieces[k];
        let size = PieceError::Size {
            expected: entry.size,
            found: bytes.len() as u64,
        };
        let piece = match SnapshotPiece::from_bytes(bytes) {
            Err(_) if bytes.len() as u64 != entry.size => return Err(size),
            read => read.map_err(PieceError::Unreadable)?,
        };
        if piece.steps != self.head.steps {
            return Err(PieceError::Step {
                expected: self.head.steps,
                found: piece.steps,
            });
        }
        if (piece.rank, piece.ranks) != (k, self.pieces.len()) {
            return Err(PieceError::Rank {
                expected: k,
                expected_ranks: self.pieces.len(),
                found: piece.rank,
                found_ranks: piece.ranks,
            });
        }
        if piece.tag != self.tag || piece.world_bodies != self.bodies {
            return Err(PieceError::Tag {
                expected: self.tag,
                found: piece.tag,
            });
        }
        if bytes.len() as u64 != entry.size {
            return Err(size);
        }
        let crc = crc32fast::hash(bytes);
        if crc != entry.crc {
            return Err(PieceError::Crc {
                expected: entry.crc,
                found: crc,
            });
        }
        Ok(piece)
    }

    /// The snapshot the pieces (one per rank, in rank order, each opened by
    /// [`Self::open_piece`]) hold together: every body of the world once, by index, with the
    /// warm start of every piece in ascending key order; refuses pieces that leave a body out
    /// or hold one twice (naming the body and the ranks).
    pub fn assemble(self, pieces: Vec<SnapshotPiece>) -> Result<Snapshot, SnapshotError> {
        let invalid = |what: String| Err(SnapshotError::Invalid(what));
        let n = self.bodies;
        let held: usize = pieces.iter().map(|p| p.indices.len()).sum();
        if held != n {
            return invalid(format!("the pieces hold {held} bodies, the world {n}"));
        }
        let moments = pieces.iter().any(|p| !p.warm_moments.is_empty());
        if let Some(p) = pieces
            .iter()
            .find(|p| moments && p.warm_moments.is_empty() && !p.warm_keys.is_empty())
        {
            return invalid(format!(
                "rank {}'s piece has no moment impulses where another has",
                p.rank
            ));
        }
        let placed = pieces.iter().any(|p| !p.placed_by.is_empty());
        if let Some(p) = pieces
            .iter()
            .find(|p| placed && p.placed_by.is_empty() && !p.indices.is_empty())
        {
            return invalid(format!(
                "rank {}'s piece has no placing insertions where another has",
                p.rank
            ));
        }
        let mut bodies = Bodies {
            pos_radius: vec![Vec4::ZERO; n],
            orientation: vec![Quat::IDENTITY; n],
            motion: vec![Motion::default(); n],
            material: vec![0; n],
            kind: vec![0; n],
        };
        let mut ids = vec![0; n];
        let mut placed_by = vec![0; if placed { n } else { 0 }];
        let mut holder = vec![usize::MAX; n];
        let mut warm = Vec::new();
        for p in &pieces {
            for (j, &index) in p.indices.iter().enumerate() {
                let Some(i) = usize::try_from(index).ok().filter(|&i| i < n) else {
                    return invalid(format!(
                        "rank {}'s piece holds body {index}, beyond the world's {n}",
                        p.rank
                    ));
                };
                if holder[i] != usize::MAX {
                    return invalid(format!(
                        "body {i} is in the pieces of ranks {} and {}",
                        holder[i], p.rank
                    ));
                }
                holder[i] = p.rank;
                bodies.pos_radius[i] = p.bodies.pos_radius[j];
                bodies.orientation[i] = p.bodies.orientation[j];
                bodies.motion[i] = p.bodies.motion[j];
                bodies.material[i] = p.bodies.material[j];
                bodies.kind[i] = p.bodies.kind[j];
                ids[i] = p.ids[j];
                if placed {
                    placed_by[i] = p.placed_by[j];
                }
            }
            for (k, &key) in p.warm_keys.iter().enumerate() {
                let moment = p.warm_moments.get(k).copied().unwrap_or_default();
                warm.push((key, p.warm_impulses[k], moment));
            }
        }
        warm.sort_unstable_by_key(|w| w.0);
        let mut head = self.head;
        head.bodies = bodies;
        head.ids = ids;
        head.lifecycle.placed_by = placed_by;
        head.warm_keys = warm.iter().map(|w| w.0).collect();
        head.warm_impulses = warm.iter().map(|w| w.1).collect();
        head.warm_moments = match moments {
            true => warm.iter().map(|w| w.2).collect(),
            false => Vec::new(),
        };
        Ok(head)
    }
}
