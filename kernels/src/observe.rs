//! Stage 8, observe: per-step statistics, reduced in fixed block order (bit-identical for any
//! thread count).

use crate::inertia::{rotational_energy, PrincipalInertia};
use crate::layout::{BodyKind, ContactRow, Motion};
use crate::parallel::BLOCK;
use glam::Quat;
use rayon::prelude::*;

/// Kinetic energy Σ ½ m v² + ½ I ω² of the dynamic bodies (J), all isotropic, summed in f64
/// block by block (`blocks` is scratch).
pub fn kinetic_energy(motion: &[Motion], kind: &[u32], blocks: &mut Vec<f64>) -> f64 {
    let isotropic = PrincipalInertia::default();
    kinetic_energy_of_rigid_bodies(motion, kind, (&[], &isotropic), blocks)
}

/// Kinetic energy Σ ½ m v² + ½ I ω² of the dynamic bodies (J), summed in f64 block by block
/// (`blocks` is scratch), with ½ ω_bᵀ I ω_b (ω_b = Rᵀ ω) for the anisotropic bodies of `inertia`
/// at orientations `orientation`.
pub fn kinetic_energy_of_rigid_bodies(
    motion: &[Motion],
    kind: &[u32],
    (orientation, inertia): (&[Quat], &PrincipalInertia),
    blocks: &mut Vec<f64>,
) -> f64 {
    blocks.clear();
    motion
        .par_chunks(BLOCK)
        .zip(kind.par_chunks(BLOCK))
        .enumerate()
        .map(|(b, (ms, ks))| {
            let rotation = |i: usize, m: &Motion| match inertia.of(i) {
                Some(moments) => rotational_energy(moments, orientation[i], m.w()),
                None => 0.5 * m.w().length_squared() as f64 / m.inv_inertia as f64,
            };
            (ms.iter().zip(ks).enumerate())
                .filter(|(_, (_, &k))| k == BodyKind::Dynamic as u32)
                .map(|(k, (m, _))| {
                    0.5 * m.v().length_squared() as f64 / m.inv_mass as f64
                        + rotation(b * BLOCK + k, m)
                })
                .sum::<f64>()
        })
        .collect_into_vec(blocks);
    blocks.iter().sum()
}

/// Deepest overlap −Φ among the step's contacts (m), 0 when none overlaps.
pub fn max_penetration(rows: &[ContactRow]) -> f32 {
    rows.par_iter()
        .with_min_len(BLOCK)
        .map(|r| -r.phi)
        .reduce(|| 0.0, f32::max)
}
