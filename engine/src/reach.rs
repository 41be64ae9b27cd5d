//! How far a world's bodies can have got from where it started: the plausibility check of a
//! state restored from a checkpoint ([`World::check_reach`]). A forged or misplaced checkpoint
//! whose checksum holds (a body a million metres under the floor, a speed or an impulse of
//! 10³⁰) is refused, naming the body or the impulse, instead of being continued.
//!
//! The bound is kinematic: nothing in a world without applied forces, joints or springs moves
//! faster than what set it moving (the bodies' start velocities, the inserted grains', the
//! moving and turning walls, meshes and kinematic bodies; twice each, for a rebound) plus what
//! gravity adds over the time run and what pushing an overlap of a radius apart in one step
//! gives, so no body leaves the box of the start (the bodies, the insertion regions) by more
//! than twice that speed times the time run. Worlds with forces, joints or springs, whose work
//! has no such bound, are held to the speed of light only. Impulses are held to 1000 × the
//! dynamic bodies' momentum at that speed.

use crate::body::{Body, BodyKind};
use crate::geometry::{WallDesc, WallShape};
use crate::insertion::Insertion;
use crate::motion::Prescribed;
use crate::snapshot::{Snapshot, SnapshotError};
use crate::world::World;
use glam::Vec3;

/// The speed of light (m/s): no restored body may move faster, whatever the world.
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;

/// What the check of a restored state compares against, fixed when the world is built.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reach {
    /// Lower corner of the start's box (m): bodies' bounding spheres and insertion regions.
    lo: Vec3,
    /// Upper corner of the start's box (m).
    hi: Vec3,
    /// The fastest anything is set moving (m/s): see the module's comment.
    speed: f64,
    /// True when no applied force, joint or spring can supply work without bound.
    bounded: bool,
    /// The largest bounding radius (m).
    r_max: f64,
}

/// The fastest any point of a body, wall or mesh with motion `m` moves, turning about a point
/// at most `arm` away (m/s).
fn prescribed_speed(m: &Prescribed, arm: f32) -> f64 {
    match *m {
        Prescribed::Constant { linear, angular } => {
            // A turning plane (an infinite arm) has no bound: the speed of light stands for it.
            let w = angular.length() as f64;
            let turning = if w == 0.0 {
                0.0
            } else {
                (w * arm as f64).min(SPEED_OF_LIGHT)
            };
            linear.length() as f64 + turning
        }
        Prescribed::Shake {
            amplitude,
            frequency,
            ..
        } => std::f64::consts::TAU * frequency.abs() as f64 * amplitude.abs() as f64,
    }
}

/// The fastest any point of the wall `w` moves: its motion or its servo's largest speed (a turning rectangle's corner), and
/// the rim of a turning cylinder or cone.
fn wall_speed(w: &WallDesc) -> f64 {
    let turning = match w.shape {
        WallShape::Cylinder {
            radius,
            angular_speed,
            ..
        } => angular_speed.abs() as f64 * radius.abs() as f64,
        WallShape::Cone {
            small_radius,
            large_radius,
            angular_speed,
            ..
        } => angular_speed.abs() as f64 * small_radius.abs().max(large_radius.abs()) as f64,
        _ => 0.0,
    };
    let arm = match w.shape {
        WallShape::Flat => w.half_u.hypot(w.half_v),
        _ => 0.0,
    };
    turning
        + w.travel()
            .as_ref()
            .map_or(0.0, |m| prescribed_speed(m, arm))
}

impl Reach {
    /// The reach of a world built from `bodies`, `insertions`, `walls`, meshes whose fastest
    /// point moves at `mesh_speed`, with or without work from forces, joints and springs.
    pub(crate) fn new(
        bodies: &[Body],
        insertions: &[Insertion],
        walls: &[WallDesc],
        mesh_speed: f32,
        bounded: bool,
    ) -> Reach {
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        let mut speed = mesh_speed as f64;
        let mut r_max = 0.0f64;
        for b in bodies {
            let r = b.shape.bounding_radius(b.radius);
            r_max = r_max.max(r as f64);
            lo = lo.min(b.position - Vec3::splat(r));
            hi = hi.max(b.position + Vec3::splat(r));
            let own = b.velocity.length() as f64 + b.angular_velocity.length() as f64 * r as f64;
            let driven = match (b.kind, &b.prescribed) {
                (BodyKind::Kinematic, Some(m)) => prescribed_speed(m, r),
                _ => 0.0,
            };
            speed = speed.max(own).max(driven);
        }
        for ins in insertions {
            let (l, h) = ins.reach();
            lo = lo.min(l);
            hi = hi.max(h);
            speed = speed.max(ins.velocity.length() as f64);
            r_max = r_max.max(ins.sizes.max as f64);
        }
        for w in walls {
            speed = speed.max(wall_speed(w));
        }
        Reach {
            lo,
            hi,
            speed,
            bounded,
            r_max,
        }
    }
}

impl World {
    /// Checks that the state of `snap` is one this world can have reached in its
    /// `snap.steps` steps (see the module's comment): every body within reach of the start's
    /// box, no body faster than the world can make it, every warm-start impulse within 1000 ×
    /// the dynamic bodies' momentum at that speed. [`World::restore`] does not call it (a
    /// program may move bodies anywhere with [`World::set_positions`]); a run resumed from its
    /// checkpoint does. The error names the body or impulse and the bound.
    pub fn check_reach(&self, snap: &Snapshot) -> Result<(), SnapshotError> {
        let reach = &self.reach;
        let h = self.settings.h as f64;
        let t = snap.steps as f64 * h;
        let g = self.settings.gravity.length() as f64;
        // Twice what set things moving, gravity over the time run, an overlap of the largest
        // radius pushed apart in one step; the speed of light where forces do unbounded work.
        let speed = if reach.bounded {
            (2.0 * reach.speed + g * t + reach.r_max / h).min(SPEED_OF_LIGHT)
        } else {
            SPEED_OF_LIGHT
        };
        let far = 2.0 * speed * t + 2.0 * reach.r_max;
        let b = &snap.bodies;
        let invalid = |what: String| Err(SnapshotError::Invalid(what));
        let mut mass = 0.0f64;
        for i in 0..b.len() {
            let p = b.pos_radius[i].truncate();
            let m = b.motion[i];
            if m.inv_mass > 0.0 {
                mass += 1.0 / m.inv_mass as f64;
            }
            let r = b.pos_radius[i].w as f64;
            let fastest = m.v().as_dvec3().length() + m.w().as_dvec3().length() * r;
            if fastest > 2.0 * speed {
                return invalid(format!(
                    "body {i} moves at {fastest:.3e} m/s, beyond the {:.3e} m/s this world can give a body in {t} s",
                    2.0 * speed
                ));
            }
            let periodic = self.settings.periodic.is_on();
            if reach.bounded && !periodic && reach.lo.x <= reach.hi.x {
                let out = (reach.lo.as_dvec3() - p.as_dvec3())
                    .max(p.as_dvec3() - reach.hi.as_dvec3())
                    .max_element();
                if out > far {
                    return invalid(format!(
                        "body {i} at ({}, {}, {}) m is {out:.3e} m outside the box the bodies started in, beyond the {far:.3e} m a body can go in {t} s",
                        p.x, p.y, p.z
                    ));
                }
            }
        }
        let most = 1000.0 * mass * (speed + g * h);
        let impulses = snap.warm_impulses.iter().chain(&snap.warm_moments);
        for (k, x) in impulses.enumerate() {
            let size = x.iter().map(|&c| c as f64 * c as f64).sum::<f64>().sqrt();
            let arm = reach.r_max.max(f64::MIN_POSITIVE);
            let (bound, what) = if k < snap.warm_impulses.len() {
                (most, "impulse")
            } else {
                (most * arm, "moment impulse")
            };
            if size > bound {
                return invalid(format!(
                    "warm-start {what} {} is {size:.3e}, beyond 1000 × the bodies' momentum at the fastest they can move ({bound:.3e})",
                    k % snap.warm_impulses.len().max(1)
                ));
            }
        }
        Ok(())
    }
}
