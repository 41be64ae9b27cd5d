//! The bodies' inertia on the device (`inertia.wgsl`): each anisotropic body's principal moments
//! and world inverse inertia, written at upload; integrate keeps the tensor current as the
//! bodies turn.

use bytemuck::{Pod, Zeroable};
use glam::{Quat, Vec3};
use grains_kernels::inertia::world_inverse_inertia;

/// One body's inertia, as `BodyInertia` in `inertia.wgsl`: (I1, I2, I3, 1) for an anisotropic
/// body (zero for the others), then I_w⁻¹'s diagonal (xx, yy, zz, 0) and off-diagonal
/// (xy, xz, yz, 0) entries.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BodyInertia {
    pub moments: [f32; 4],
    pub diagonal: [f32; 4],
    pub off_diagonal: [f32; 4],
}

impl BodyInertia {
    /// The entry of a body with principal `moments` (zero: isotropic or not dynamic) at
    /// orientation `q`.
    pub fn new(moments: Vec3, q: Quat) -> Self {
        if moments == Vec3::ZERO {
            return BodyInertia::default();
        }
        let t = world_inverse_inertia(moments, q.normalize());
        BodyInertia {
            moments: moments.extend(1.0).to_array(),
            diagonal: [t.x_axis.x, t.y_axis.y, t.z_axis.z, 0.0],
            off_diagonal: [t.y_axis.x, t.z_axis.x, t.z_axis.y, 0.0],
        }
    }
}

/// The device's inertia entries of the bodies at `orientation` with principal `moments` (one
/// per body, or empty where none is anisotropic: then the single empty entry the binding needs).
pub fn inertia_entries(moments: &[Vec3], orientation: &[Quat]) -> Vec<BodyInertia> {
    if moments.is_empty() {
        return vec![BodyInertia::default()];
    }
    (orientation.iter().enumerate())
        .map(|(i, &q)| BodyInertia::new(moments.get(i).copied().unwrap_or(Vec3::ZERO), q))
        .collect()
}
