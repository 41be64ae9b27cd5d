//! The memory traffic of one solver sweep, counted from the buffers' layout: the bytes each
//! contact and each body costs a sweep when every element a pass reads counts once and every
//! element it writes counts once (a read-modify-write twice), whatever the caches keep. `grains bench` turns
//! it into bytes per contact-sweep and, with the solve's time, into the solve's achieved
//! bandwidth. The CPU's counts are here ([`cpu_sweep_traffic`]); the GPU's are in `grains-gpu`.
//! Moment rows (spinning and rolling friction) and joint rows are not counted.

use crate::contact_update::{Lanes3, RowPack};
use crate::layout::Motion;
use crate::sphere_pack::SpherePack;
use crate::step::SolverKind;
use std::mem::size_of;

/// Bytes one sweep moves per contact and per body (see the module's counting rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepTraffic {
    /// Bytes per contact and sweep.
    pub per_contact: usize,
    /// Bytes per body and sweep (a gather's own reads and writes of the body).
    pub per_body: usize,
}

impl SweepTraffic {
    /// Bytes per contact-sweep with `contacts` contacts among `bodies` bodies.
    pub fn per_contact_sweep(&self, contacts: f64, bodies: f64) -> f64 {
        if contacts <= 0.0 {
            return 0.0;
        }
        self.per_contact as f64 + self.per_body as f64 * bodies / contacts
    }
}

/// One contact's share of its pack's row data (a pack holds four lanes).
const PACK_LANE: usize = size_of::<RowPack>() / 4;
/// One contact's share of a compact sphere pack's row data.
const SPHERE_LANE: usize = size_of::<SpherePack>() / 4;
/// One contact's impulses (γn, γt1, γt2) in its pack.
const LANE_GAMMA: usize = size_of::<Lanes3>() / 4;
/// A body's velocities and inverse masses.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub const MOTION: usize = size_of::<Motion>();
/// One contact's world impulse D Δγ kept for the gather.
const IMPULSE: usize = size_of::<[f32; 4]>();
/// One entry of the body → contacts index.
const ENTRY: usize = size_of::<u32>();
/// The lever arm the gather reads from a contact's row.
const ARM: usize = size_of::<[f32; 3]>();
/// A pack lane's inverse diagonal masses (mass_n, mass_t), which APGD's W-norms read.
const LANE_MASSES: usize = 2 * size_of::<f32>();

/// The CPU's traffic of one sweep of `solver`, with `compact` sphere packs or full ones:
/// * Gauss–Seidel: the pack lane's row (full or compact), its γ read and written, both bodies'
///   velocities read and written at once.
/// * Jacobi: the contact sweep reads the lane's row, reads and writes γ, reads both bodies and
///   writes the impulse D Δγ; the gather reads, for each of the contact's two bodies, an index
///   entry, its arm (kept beside it) and the contact's impulse, and per body its range's start and
///   its velocities (read and written).
/// * APGD: Jacobi's, plus the sweep's read of γ_k and the extrapolation's pass (the lane's
///   masses; γ, γ_k and the impulse each read and written).
pub fn cpu_sweep_traffic(solver: SolverKind, compact: bool) -> SweepTraffic {
    let jacobi_sweep = PACK_LANE + 2 * LANE_GAMMA + 2 * MOTION + IMPULSE;
    let gather = 2 * (ENTRY + ARM + IMPULSE);
    let gather_body = size_of::<u32>() + 2 * MOTION;
    match solver {
        SolverKind::GaussSeidel => SweepTraffic {
            per_contact: if compact { SPHERE_LANE } else { PACK_LANE }
                + 2 * LANE_GAMMA
                + 4 * MOTION,
            per_body: 0,
        },
        SolverKind::Jacobi => SweepTraffic {
            per_contact: jacobi_sweep + gather,
            per_body: gather_body,
        },
        SolverKind::Apgd => SweepTraffic {
            per_contact: jacobi_sweep
                + LANE_GAMMA
                + (LANE_MASSES + 4 * LANE_GAMMA + 2 * IMPULSE)
                + gather,
            per_body: gather_body,
        },
    }
}
