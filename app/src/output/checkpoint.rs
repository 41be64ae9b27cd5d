//! Checkpoints on disk. `checkpoint.bin` holds a whole checkpoint ([`grains::Snapshot`]: one
//! process's, or one rank's) or, from a run on K ≥ 2 ranks, the index of its pieces
//! ([`grains::pieces`]), which the ranks write themselves beside it,
//! `checkpoint_<step>_r<rank>.bin`, before rank 0 renames the index into place: a checkpoint
//! on disk is whole. Either kind resumes on any rank count or in one process.

use super::refuse_symlink;
use grains::{Snapshot, SnapshotIndex, SnapshotPiece};
use std::io;
use std::path::Path;

/// The file name of rank `rank`'s piece of the checkpoint after `step` steps.
pub fn piece_name(step: u64, rank: usize) -> String {
    format!("checkpoint_{step:09}_r{rank}.bin")
}

/// The step and rank of a piece's file name (or of its temporary file, `.bin.tmp`).
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn parse_piece_name(name: &str) -> Option<(u64, usize)> {
    let rest = name.strip_prefix("checkpoint_")?;
    let rest = rest
        .strip_suffix(".bin")
        .or_else(|| rest.strip_suffix(".bin.tmp"))?;
    let (step, rank) = rest.split_once("_r")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (step.len() == 9 && digits(step) && digits(rank)).then_some(())?;
    Some((step.parse().ok()?, rank.parse().ok()?))
}

/// Removes from `dir` the pieces (and their temporary files) that the checkpoint just written
/// at step `step`, with `pieces` pieces (0: a whole checkpoint), does not name: those of earlier
/// steps, and of this step from ranks past its own. Pieces of later steps are another
/// checkpoint's, being written or left by a run cut short before its index: they are kept.
pub fn remove_stale_pieces(dir: &Path, step: u64, pieces: usize) -> io::Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| super::at(dir, e))? {
        let entry = entry.map_err(|e| super::at(dir, e))?;
        let name = entry.file_name();
        let Some((s, rank)) = name.to_str().and_then(parse_piece_name) else {
            continue;
        };
        if s < step || (s == step && rank >= pieces) {
            match std::fs::remove_file(entry.path()) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(super::at(&entry.path(), e))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// The snapshot that `bytes`, read from `dir`'s `checkpoint.bin`, hold: a whole checkpoint, or
/// the index of a distributed run's pieces, each read from `dir` and checked against the
/// index (name, size, CRC-32, step, rank and run) before they are joined. The error is one
/// line naming the file and what is wrong with it.
pub fn read_checkpoint(dir: &Path, bytes: &[u8]) -> Result<Snapshot, String> {
    if !SnapshotIndex::is_index(bytes) {
        return Snapshot::from_bytes(bytes).map_err(|e| format!("checkpoint.bin: {e}"));
    }
    let index = SnapshotIndex::from_bytes(bytes)
        .map_err(|e| format!("checkpoint.bin, the index of a distributed checkpoint: {e}"))?;
    let steps = index.head.steps;
    let mut pieces: Vec<SnapshotPiece> = Vec::with_capacity(index.pieces.len());
    for (k, entry) in index.pieces.iter().enumerate() {
        let name = piece_name(steps, k);
        if entry.name != name {
            return Err(format!(
                "checkpoint.bin names {:?} as rank {k}'s piece of step {steps}, not {name} of the output folder: refused (a piece is read only under its own name)",
                entry.name
            ));
        }
        let whose = format!("{name} (rank {k}'s piece of the checkpoint at step {steps})");
        let path = dir.join(&name);
        let read = refuse_symlink(&path).and_then(|()| std::fs::read(&path));
        let bytes = match read {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(format!("{whose} is missing"))
            }
            Err(e) => return Err(format!("{whose}: cannot read: {e}")),
            Ok(bytes) => bytes,
        };
        let piece = index
            .open_piece(k, &bytes)
            .map_err(|e| format!("{whose}: {e}"))?;
        pieces.push(piece);
    }
    index
        .assemble(pieces)
        .map_err(|e| format!("checkpoint.bin's pieces at step {steps}: {e}"))
}

/// Reads `dir`'s checkpoint ([`read_checkpoint`]).
pub fn load(dir: &Path) -> Result<Snapshot, String> {
    let bytes = std::fs::read(dir.join("checkpoint.bin"))
        .map_err(|e| format!("cannot read checkpoint.bin: {e}"))?;
    read_checkpoint(dir, &bytes)
}
