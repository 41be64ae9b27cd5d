//! The domain of a world: the axis-aligned box its walls enclose, which the health check of
//! escaped grains ([`crate::Health::escape`]) holds the dynamic bodies' centres to.
//!
//! It is the bounding box of
//! * every wall except those that hold grains outside them (a pillar: a cylinder or cone with
//!   `inside` false), over its whole motion: a shaken wall's box widened by its amplitude along
//!   the shake's axis, an axis along which a wall moves at a constant velocity unbounded, a
//!   wall or mesh that turns the ball about its axis (or origin) that holds it while it turns;
//!   a plane (infinite extents) is unbounded along every axis its face spans, so a floor
//!   z = 0 bounds only z from below;
//! * every triangle-mesh wall, the same way;
//! * the regions of the insertions and of the sinks (a half-space sink whose normal is an
//!   axis is unbounded on its side, any other unbounded along every axis): grains fed in or
//!   removed there are meant to be there;
//!
//! and it is open on the side gravity points away from (the half-axis of −g's largest
//! component: an open-top box is poured from above, and a grain thrown over its rim comes back
//! down), along the periodic axes and, in planar mode, along y. A world with no wall or mesh
//! has no domain, nor does one whose walls leave every axis unbounded (a tilted plane).
//!
//! A dynamic body has escaped when its centre lies outside the domain by more than its own
//! (bounding) radius: it has wholly left the box.

use crate::geometry::{WallDesc, WallShape};
use crate::insertion::{Insertion, Region};
use crate::mesh::MeshDesc;
use crate::motion::Prescribed;
use crate::settings::Settings;
use crate::sink::{Sink, SinkShape};
use glam::Vec3;

/// An axis-aligned box, with infinite bounds along the axes it leaves open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Domain {
    /// Lower corner (m); −∞ where open.
    pub lo: Vec3,
    /// Upper corner (m); +∞ where open.
    pub hi: Vec3,
}

impl Domain {
    /// The empty box, which [`Domain::grow`] widens.
    const EMPTY: Domain = Domain {
        lo: Vec3::splat(f32::INFINITY),
        hi: Vec3::splat(f32::NEG_INFINITY),
    };

    /// The box about `centre` reaching `half` along each axis.
    fn around(centre: Vec3, half: Vec3) -> Domain {
        Domain {
            lo: centre - half,
            hi: centre + half,
        }
    }

    /// The smallest box holding this one and `other`.
    fn grow(&mut self, other: Domain) {
        self.lo = self.lo.min(other.lo);
        self.hi = self.hi.max(other.hi);
    }

    /// How far (m) the centre `p` of a body of radius `r` lies outside the box beyond `r`
    /// (positive: it has escaped; a non-finite centre is the non-finite check's).
    pub fn excess(&self, p: Vec3, r: f32) -> f32 {
        let out = (self.lo - p).max(p - self.hi).max_element();
        out - r
    }

    /// The domain of a world with these walls (normalised), meshes, insertions and sinks under
    /// `settings`; `None` where it has none (see the module's documentation).
    pub(crate) fn of_world(
        walls: &[WallDesc],
        meshes: &[MeshDesc],
        (insertions, sinks): (&[Insertion], &[Sink]),
        settings: &Settings,
    ) -> Option<Domain> {
        let mut d = Domain::EMPTY;
        let mut any = false;
        for w in walls {
            if let Some(b) = wall_box(w) {
                d.grow(moved(b, w.motion.as_ref(), w.origin));
                any = true;
            }
        }
        for m in meshes {
            if m.triangles.is_empty() {
                continue;
            }
            let mut b = Domain::EMPTY;
            for t in &m.triangles {
                for v in t {
                    b.grow(Domain::around(*v, Vec3::ZERO));
                }
            }
            if let Some(rot) = &m.rotation {
                if rot.angular_speed != 0.0 {
                    let reach = (b.lo - rot.axis_point)
                        .abs()
                        .max((b.hi - rot.axis_point).abs())
                        .length();
                    b = Domain::around(rot.axis_point, Vec3::splat(reach));
                }
            }
            d.grow(moved(b, m.motion.as_ref(), b.lo));
            any = true;
        }
        if !any {
            return None;
        }
        for ins in insertions {
            d.grow(region_box(&ins.region));
        }
        for s in sinks {
            d.grow(sink_box(&s.shape));
        }
        let g = settings.gravity;
        if g != Vec3::ZERO {
            let k = g.abs().max_position();
            if g[k] < 0.0 {
                d.hi[k] = f32::INFINITY;
            } else {
                d.lo[k] = f32::NEG_INFINITY;
            }
        }
        let mut open = |k: usize| {
            d.lo[k] = f32::NEG_INFINITY;
            d.hi[k] = f32::INFINITY;
        };
        if settings.periodic.x.is_some() {
            open(0);
        }
        if settings.periodic.y.is_some() {
            open(1);
        }
        if settings.planar {
            open(1);
        }
        let bounded = (0..3).any(|k| d.lo[k].is_finite() || d.hi[k].is_finite());
        bounded.then_some(d)
    }
}

/// Half of `extent` along each axis of the unit vector `axis` (`extent` may be infinite; an
/// axis with no component gets nothing from it).
fn spread(axis: Vec3, extent: f32) -> Vec3 {
    Vec3::from_array(axis.to_array().map(|c| {
        if c.abs() < 1e-6 {
            0.0
        } else {
            c.abs() * extent
        }
    }))
}

/// The box of wall `w` at rest, `None` for one that holds grains outside it.
fn wall_box(w: &WallDesc) -> Option<Domain> {
    let n = w.normal;
    // How far a disk of radius 1 normal to n reaches along each axis: √(1 − n_k²).
    let across = Vec3::from_array(n.to_array().map(|c| (1.0 - c * c).max(0.0).sqrt()));
    let half = match w.shape {
        WallShape::Flat => spread(w.u, w.half_u) + spread(n.cross(w.u), w.half_v),
        WallShape::Disk { outer, .. } => across * outer,
        WallShape::Cylinder { inside: false, .. } | WallShape::Cone { inside: false, .. } => {
            return None
        }
        WallShape::Cylinder {
            radius,
            half_length,
            ..
        } => across * radius + spread(n, half_length),
        WallShape::Cone {
            large_radius,
            half_length,
            ..
        } => across * large_radius + spread(n, half_length),
    };
    Some(Domain::around(w.origin, half))
}

/// Box `b` swept by `motion`: widened by a shake's amplitude along its axis, unbounded along
/// the axes of a constant velocity, the ball about `pivot` that holds it for a constant turn.
fn moved(b: Domain, motion: Option<&Prescribed>, pivot: Vec3) -> Domain {
    match motion {
        None => b,
        Some(Prescribed::Shake {
            axis, amplitude, ..
        }) => {
            let a = spread(*axis, amplitude.abs());
            Domain {
                lo: b.lo - a,
                hi: b.hi + a,
            }
        }
        Some(Prescribed::Constant { linear, angular }) => {
            let mut b = b;
            if *angular != Vec3::ZERO {
                let reach = (b.lo - pivot).abs().max((b.hi - pivot).abs()).length();
                b = Domain::around(pivot, Vec3::splat(reach));
            }
            for k in 0..3 {
                if linear[k] != 0.0 {
                    b.lo[k] = f32::NEG_INFINITY;
                    b.hi[k] = f32::INFINITY;
                }
            }
            b
        }
    }
}

/// The box an insertion region places grains in.
fn region_box(r: &Region) -> Domain {
    match *r {
        Region::Box { min, max } => Domain { lo: min, hi: max },
        Region::Cylinder {
            centre,
            radius,
            half_height,
        } => Domain::around(centre, Vec3::new(radius, radius, half_height)),
        Region::Disk { centre, radius } => Domain::around(centre, Vec3::new(radius, radius, 0.0)),
    }
}

/// The box of a sink's region.
fn sink_box(s: &SinkShape) -> Domain {
    match *s {
        SinkShape::Box { min, max } => Domain { lo: min, hi: max },
        SinkShape::HalfSpace { point, normal } => {
            let mut d = Domain {
                lo: Vec3::NEG_INFINITY,
                hi: Vec3::INFINITY,
            };
            let k = normal.abs().max_position();
            let axis_aligned = (0..3).all(|j| j == k || normal[j] == 0.0);
            if axis_aligned {
                if normal[k] > 0.0 {
                    d.lo[k] = point[k];
                } else {
                    d.hi[k] = point[k];
                }
            }
            d
        }
    }
}
