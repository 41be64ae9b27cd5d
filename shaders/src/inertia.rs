//! The bodies' inertia on the device (`inertia.wgsl`): each anisotropic body's principal moments,
//! written at upload; the device computes the world inverse inertia from the orientation
//! (`refresh_inertia` after an upload, integrate as the bodies turn), so that the tensor's bits
//! depend on the orientation's alone.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

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
    /// The entry of a body with principal `moments` (zero: isotropic or not dynamic), its
    /// tensor left for `refresh_inertia`.
    pub fn new(moments: Vec3) -> Self {
        if moments == Vec3::ZERO {
            return BodyInertia::default();
        }
        BodyInertia {
            moments: moments.extend(1.0).to_array(),
            ..BodyInertia::default()
        }
    }
}

/// The device's inertia entries of `n` bodies with principal `moments` (one per body, or empty
/// where none is anisotropic: then the single empty entry the binding needs).
pub fn inertia_entries(moments: &[Vec3], n: usize) -> Vec<BodyInertia> {
    if moments.is_empty() {
        return vec![BodyInertia::default()];
    }
    (0..n)
        .map(|i| BodyInertia::new(moments.get(i).copied().unwrap_or(Vec3::ZERO)))
        .collect()
}
