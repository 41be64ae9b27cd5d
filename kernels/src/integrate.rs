//! Stage 7, integrate: positions follow the new velocities, q⁺ = q + h v⁺ (hart-anitescu eq. 2.11's
//! position update); orientations by q⁺ = normalise(q + ½ h ω ⊗ q); along a periodic axis the
//! centre is wrapped back into [lo, hi) ([`Periodic::wrap`]; in a sheared cell a grain crossing
//! y also moves by the images' offset and velocity, [`Periodic::wrap_sheared`]). Anisotropic bodies turn by their
//! free rotation instead ([`rotate_freely`]: the implicit midpoint of Euler's equations in the
//! body frame, the same quaternion update by the midpoint ω̄).

use crate::inertia::{rotate_freely, PrincipalInertia};
use crate::layout::{BodyKind, Motion};
use crate::parallel::BLOCK;
use crate::periodic::Periodic;
use glam::{Quat, Vec4};
use rayon::prelude::*;

/// Advances centres and orientations of every moving body by one step `h`, wrapping the
/// centres into the `periodic` ranges; the anisotropic bodies of `inertia` turn freely (their
/// angular velocity changes with the gyroscopic term).
pub fn integrate_positions(
    pos_radius: &mut [Vec4],
    orientation: &mut [Quat],
    motion: &mut [Motion],
    kind: &[u32],
    inertia: &PrincipalInertia,
    h: f32,
    periodic: &Periodic,
) {
    let sheared = periodic.is_sheared();
    pos_radius
        .par_chunks_mut(BLOCK)
        .zip(orientation.par_chunks_mut(BLOCK))
        .zip(motion.par_chunks_mut(BLOCK))
        .enumerate()
        .for_each(|(b, ((ps, qs), ms))| {
            let bodies = ps.iter_mut().zip(qs.iter_mut()).zip(ms.iter_mut());
            for (k, ((p, q), m)) in bodies.enumerate() {
                let i = b * BLOCK + k;
                if kind[i] == BodyKind::Fixed as u32 {
                    continue;
                }
                *p += (m.v() * h).extend(0.0);
                if sheared {
                    let (moved, v) = periodic.wrap_sheared(p.truncate(), m.v(), h);
                    *p = moved.extend(p.w);
                    m.linear = v.to_array();
                } else if periodic.is_on() {
                    *p = periodic.wrap(p.truncate()).extend(p.w);
                }
                if let Some(moments) = inertia.of(i) {
                    rotate_freely(q, m, moments, h);
                    continue;
                }
                let w = m.w();
                if w != glam::Vec3::ZERO {
                    let spin = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * *q;
                    *q = (*q + spin * (0.5 * h)).normalize();
                }
            }
        });
}
