//! Stage 1, forces: non-contact forces, v* = v + h M⁻¹ f (hart-anitescu eq. 2.11's h·f term).

use crate::inertia::PrincipalInertia;
use crate::layout::{BodyKind, Motion};
use crate::parallel::BLOCK;
use crate::step::StepParams;
use glam::Vec3;
use rayon::prelude::*;

/// [`Actuation::kind`] of a kinematic body's drive: prescribed velocities.
pub const DRIVE: u32 = 0;
/// [`Actuation::kind`] of an applied force: the GPU passes its per-body forces to stage 1 in the
/// same list as the drives, with the force (N) in `linear`.
pub const LOAD: u32 = 1;

/// What stage 1 imposes on one body besides gravity and the springs, over the coming step:
/// either a kinematic body's drive (kind [`DRIVE`]: its prescribed velocities) or, in the GPU
/// backend's list, an applied force on a dynamic body (kind [`LOAD`]: the force in `linear`).
/// The CPU backend takes the applied forces apart, as [`Load`]s.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Actuation {
    /// Body index.
    pub body: u32,
    /// Prescribed linear velocity (m/s), or the applied force (N) of a [`LOAD`].
    pub linear: [f32; 3],
    /// Prescribed angular velocity (rad/s); zero for a [`LOAD`].
    pub angular: [f32; 3],
    /// [`DRIVE`] (on the GPU also [`LOAD`]); pads the struct to 32 bytes.
    pub kind: u32,
}

/// Restricts a velocity pair to planar motion in the x–z plane: v_y = 0, ω about y only.
#[inline(always)]
pub fn planar_mask(m: &mut Motion) {
    m.linear[1] = 0.0;
    m.angular[0] = 0.0;
    m.angular[2] = 0.0;
}

/// Applies gravity to dynamic bodies, v ← v + h g, and sets kinematic bodies to their drives.
pub fn apply_forces(motion: &mut [Motion], kind: &[u32], drives: &[Actuation], p: &StepParams) {
    let (dv, planar) = (p.gravity * p.h, p.planar);
    motion
        .par_chunks_mut(BLOCK)
        .zip(kind.par_chunks(BLOCK))
        .for_each(|(ms, ks)| {
            for (m, &k) in ms.iter_mut().zip(ks) {
                if k == BodyKind::Dynamic as u32 {
                    m.linear = (m.v() + dv).to_array();
                    if planar {
                        planar_mask(m);
                    }
                }
            }
        });
    for d in drives {
        let m = &mut motion[d.body as usize];
        m.linear = d.linear;
        m.angular = d.angular;
    }
}

/// An applied force and moment on one body over the coming step, taken at the step's start.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Load {
    /// Body index.
    pub body: u32,
    /// Force f (N) on the centre of mass.
    pub force: Vec3,
    /// Moment τ (N m) about the centre of mass (CPU backend; the GPU takes forces only).
    pub torque: Vec3,
}

/// Adds applied forces and moments to their dynamic bodies, v ← v + h M⁻¹ f and
/// ω ← ω + h I⁻¹ τ (hart-anitescu eq. 2.11's h·k term for forces other than gravity; the
/// anisotropic bodies of `inertia` turned by I_w⁻¹).
pub fn apply_loads(
    motion: &mut [Motion],
    loads: &[Load],
    p: &StepParams,
    inertia: &PrincipalInertia,
) {
    for l in loads {
        let i = l.body as usize;
        let m = &mut motion[i];
        m.linear = (m.v() + l.force * (p.h * m.inv_mass)).to_array();
        if l.torque != Vec3::ZERO {
            m.angular = (m.w() + l.torque * (p.h * m.inv_inertia)).to_array();
            inertia.turn(i, m, l.torque * p.h);
        }
        if p.planar {
            planar_mask(m);
        }
    }
}
