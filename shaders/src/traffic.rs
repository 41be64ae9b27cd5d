//! The GPU's memory traffic per solver sweep, counted from the device buffers' layout by the
//! rule of `grains_kernels::traffic`: every element a dispatch reads counts once and every
//! element it writes counts once, whatever the caches keep.

use crate::buffers::SOLVER_ROW_BYTES;
use grains_kernels::layout::{ContactRow, Motion};
use grains_kernels::traffic::SweepTraffic;
use grains_kernels::SolverKind;
use std::mem::size_of;

/// A contact's compact solver row (`solver_rows`, `solver_row.wgsl`), which the solve's
/// dispatches read whole (the full 96-byte `ContactRow` only once a step, to compact it).
const ROW: usize = SOLVER_ROW_BYTES as usize;
/// A contact's full row, which a world with clumps solves with (`solver_row_full.wgsl`).
const FULL_ROW: usize = size_of::<ContactRow>();
/// A contact's impulses (γn, γt1, γt2, lift) in `gamma`, and APGD's γ_k in `gamma_last`.
const GAMMA: usize = 16;
/// A contact's world impulse D Δγ in `impulse`.
const IMPULSE: usize = 16;
/// An entry of the body → contacts index (`BodyEntry`: arm and tag).
const ENTRY: usize = 16;
/// A body's velocities and inverse masses (`motion`).
const MOTION: usize = size_of::<Motion>();

/// The traffic of one sweep of `solver` on the GPU (Jacobi or APGD; Gauss–Seidel does not run
/// there and counts as Jacobi), with the full rows where `full_rows` (a world with clumps):
/// * `contact_sweep` reads the solver row, reads and writes γ, reads both bodies, writes the
///   impulse;
/// * `body_gather` reads two index entries and two impulses per contact, and per body its
///   range (two offsets) and its velocities (read and written);
/// * APGD's `apgd_sweep` also reads and writes γ_{k−1} (`gamma_last`) and writes the momentum's
///   impulse D (γ⁺ − γ_k) (`momentum_impulse`), which `apgd_gather` reads beside the impulse.
///
/// The bodies are counted as isotropic (the benchmarks' spheres): an anisotropic body's
/// 48-byte inertia entry (`inertia.wgsl`), read wherever its motion is, is not in the count.
pub fn gpu_sweep_traffic(solver: SolverKind, full_rows: bool) -> SweepTraffic {
    let row = if full_rows { FULL_ROW } else { ROW };
    let sweep = row + 2 * GAMMA + 2 * MOTION + IMPULSE;
    let gather = 2 * (ENTRY + IMPULSE);
    let per_body = 2 * size_of::<u32>() + 2 * MOTION;
    let per_contact = match solver {
        SolverKind::Jacobi | SolverKind::GaussSeidel => sweep + gather,
        SolverKind::Apgd => sweep + 2 * GAMMA + IMPULSE + gather + 2 * IMPULSE,
    };
    SweepTraffic {
        per_contact,
        per_body,
    }
}
