//! Stage 7, integrate: positions follow the new velocities, q⁺ = q + h v⁺ (hart-anitescu eq. 2.11's
//! position update); orientations by q⁺ = normalise(q + ½ h ω ⊗ q); along a periodic axis the
//! centre is wrapped back into [lo, hi) ([`Periodic::wrap`]).

use crate::layout::{BodyKind, Motion};
use crate::parallel::BLOCK;
use crate::periodic::Periodic;
use glam::{Quat, Vec4};
use rayon::prelude::*;

/// Advances centres and orientations of every moving body by one step `h`, wrapping the
/// centres into the `periodic` ranges.
pub fn integrate_positions(
    pos_radius: &mut [Vec4],
    orientation: &mut [Quat],
    motion: &[Motion],
    kind: &[u32],
    h: f32,
    periodic: &Periodic,
) {
    pos_radius
        .par_chunks_mut(BLOCK)
        .zip(orientation.par_chunks_mut(BLOCK))
        .enumerate()
        .for_each(|(b, (ps, qs))| {
            for (k, (p, q)) in ps.iter_mut().zip(qs.iter_mut()).enumerate() {
                let i = b * BLOCK + k;
                if kind[i] == BodyKind::Fixed as u32 {
                    continue;
                }
                let m = &motion[i];
                *p += (m.v() * h).extend(0.0);
                if periodic.is_on() {
                    *p = periodic.wrap(p.truncate()).extend(p.w);
                }
                let w = m.w();
                if w != glam::Vec3::ZERO {
                    let spin = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * *q;
                    *q = (*q + spin * (0.5 * h)).normalize();
                }
            }
        });
}
