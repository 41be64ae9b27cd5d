//! The domain of a world: the axis-aligned box its walls enclose, which the health check of
//! escaped grains ([`crate::Health::escape`]) holds the dynamic bodies' centres to.
//!
//! Each side of the box is bounded by the walls that face it: its lower x side by the walls
//! whose normal (towards the grains) has a +x component, at the lowest x any of them reaches,
//! and so on for the six sides. A flat wall (plane, rectangle, disk) faces along its normal; a
//! cylinder or cone holding grains inside it (a drum, a hopper) faces its axis from every side
//! across it, and a cone also faces its large end (a hopper holds grains from below); a
//! triangle mesh, whose winding does not matter, faces both ways along its triangles' normals;
//! a wall that holds grains outside it (a pillar) faces nothing. Each wall counts over its
//! whole motion: a shaken wall's reach widened by its amplitude along the shake's axis, an axis
//! along which it moves at a constant velocity (or a servo moves it) unbounded, a wall that turns (or a turning mesh)
//! the ball about its axis point that holds it, facing every side. A floor plane z = 0 alone
//! bounds z from below; an open-top box bounds x, y and z from below; a side nothing faces is
//! open.
//!
//! The box then takes in the insertions' and the sinks' regions (grains fed in or removed
//! there are meant to be there; a half-space sink whose normal is an axis opens its side), and
//! is open on the side gravity points away from (the half-axis of −g's largest component: a
//! grain thrown over a rim comes back down), along the periodic axes and, in planar mode,
//! along y. A world with no wall or mesh has no domain, nor one whose walls bound no side.
//!
//! A dynamic body has left the domain when its centre lies outside it by more than its own
//! (bounding) radius: it has wholly left the box. [`whereabouts`] is the one definition of
//! where a body is that the health check of escaped grains and the app's quality figures
//! (`escaped`, `discharged`) share: a body that left is *escaped* where the escape check is on
//! (leaving is a fault: a grain that went through a wall, or out of an outlet with no sink
//! under it) and *discharged* where it is off (an open domain, where grains are meant to
//! leave).

use crate::geometry::{WallDesc, WallShape};
use crate::health::Check;
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

/// Where a dynamic body is with respect to the world's domain ([`whereabouts`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Whereabouts {
    /// Inside the domain or within its radius of it; also every body of a world without a
    /// domain, and one whose centre is not finite (the non-finite check's).
    Inside,
    /// Wholly outside the domain, `distance` (m) beyond its radius, while the escape check is
    /// on ([`Check::Stop`] or [`Check::Warn`]): a fault.
    Escaped {
        /// How far beyond its radius its centre lies outside the domain (m).
        distance: f32,
    },
    /// Wholly outside the domain while the escape check is off: an open domain, where
    /// grains are meant to leave.
    Discharged,
}

/// Where a dynamic body with centre `p` and (bounding) radius `r` is in a world with the
/// domain `domain` and the escape check `escape`: the one definition of an escaped and a
/// discharged grain, which [`crate::Health::escape`] stops or warns on and the app's quality
/// figures count (see the module's documentation).
pub fn whereabouts(domain: Option<&Domain>, escape: Check, p: Vec3, r: f32) -> Whereabouts {
    let Some(d) = domain else {
        return Whereabouts::Inside;
    };
    let distance = d.excess(p, r);
    if !p.is_finite() || distance.is_nan() || distance <= 0.0 {
        return Whereabouts::Inside;
    }
    match escape {
        Check::Stop | Check::Warn => Whereabouts::Escaped { distance },
        Check::Off => Whereabouts::Discharged,
    }
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
        // Each side's bound: the farthest reach of the walls facing it.
        let mut d = Domain::EMPTY;
        let mut bound = |reach: Domain, facing: Facing| {
            for k in 0..3 {
                if facing.up[k] {
                    d.lo[k] = d.lo[k].min(reach.lo[k]);
                }
                if facing.down[k] {
                    d.hi[k] = d.hi[k].max(reach.hi[k]);
                }
            }
        };
        for w in walls {
            if let Some((reach, facing)) = wall_reach(w) {
                let (reach, facing) = moved(reach, facing, w.travel().as_ref(), w.origin);
                bound(reach, facing);
            }
        }
        for m in meshes {
            let mut reach = Domain::EMPTY;
            let mut facing = Facing::default();
            for t in &m.triangles {
                for v in t {
                    reach.grow(Domain::around(*v, Vec3::ZERO));
                }
                let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
                facing = facing.or(Facing::along(n)).or(Facing::along(-n));
            }
            if m.triangles.is_empty() {
                continue;
            }
            if let Some(rot) = &m.rotation {
                if rot.angular_speed != 0.0 {
                    reach = ball(reach, rot.axis_point);
                    facing = Facing::ALL;
                }
            }
            let (reach, facing) = moved(reach, facing, m.motion.as_ref(), reach.lo);
            bound(reach, facing);
        }
        // Sides no wall faces are open.
        for k in 0..3 {
            if d.lo[k] == f32::INFINITY {
                d.lo[k] = f32::NEG_INFINITY;
            }
            if d.hi[k] == f32::NEG_INFINITY {
                d.hi[k] = f32::INFINITY;
            }
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

/// The sides a wall faces: `up[k]` when it holds grains from the low side of axis k (its normal
/// towards the grains has a +k component), `down[k]` from the high side.
#[derive(Clone, Copy, Debug, Default)]
struct Facing {
    up: [bool; 3],
    down: [bool; 3],
}

impl Facing {
    /// Every side.
    const ALL: Facing = Facing {
        up: [true; 3],
        down: [true; 3],
    };

    /// The sides a face with unit normal `n` towards the grains faces.
    fn along(n: Vec3) -> Facing {
        Facing {
            up: n.to_array().map(|c| c > FACING),
            down: n.to_array().map(|c| c < -FACING),
        }
    }

    /// The sides either faces.
    fn or(self, other: Facing) -> Facing {
        let either = |a: [bool; 3], b: [bool; 3]| [a[0] || b[0], a[1] || b[1], a[2] || b[2]];
        Facing {
            up: either(self.up, other.up),
            down: either(self.down, other.down),
        }
    }
}

/// The smallest component of a wall's normal that makes it face an axis's side: walls tilted
/// by less than about 0.06° from an axis face only along it.
const FACING: f32 = 1e-3;

/// The ball about `pivot` that holds `b` whichever way it turns about it.
fn ball(b: Domain, pivot: Vec3) -> Domain {
    let reach = (b.lo - pivot).abs().max((b.hi - pivot).abs()).length();
    Domain::around(pivot, Vec3::splat(reach))
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

/// The box wall `w` reaches at rest and the sides it faces; `None` for one that holds grains
/// outside it.
fn wall_reach(w: &WallDesc) -> Option<(Domain, Facing)> {
    let n = w.normal;
    // How far a disk of radius 1 normal to n reaches along each axis: √(1 − n_k²).
    let across = Vec3::from_array(n.to_array().map(|c| (1.0 - c * c).max(0.0).sqrt()));
    // A drum's or hopper's mantle faces its axis from both sides of every axis it spans.
    let around = Facing {
        up: across.to_array().map(|c| c > FACING),
        down: across.to_array().map(|c| c > FACING),
    };
    let (half, facing) = match w.shape {
        WallShape::Flat => (
            spread(w.u, w.half_u) + spread(n.cross(w.u), w.half_v),
            Facing::along(n),
        ),
        WallShape::Disk { outer, .. } => (across * outer, Facing::along(n)),
        WallShape::Cylinder { inside: false, .. } | WallShape::Cone { inside: false, .. } => {
            return None
        }
        WallShape::Cylinder {
            radius,
            half_length,
            ..
        } => (across * radius + spread(n, half_length), around),
        WallShape::Cone {
            large_radius,
            half_length,
            ..
        } => (
            across * large_radius + spread(n, half_length),
            around.or(Facing::along(n)),
        ),
    };
    Some((Domain::around(w.origin, half), facing))
}

/// Box `b`, facing `facing`, swept by `motion`: widened by a shake's amplitude along its axis,
/// unbounded along the axes of a constant velocity, the ball about `pivot` that holds it (and
/// facing every side) for a constant turn.
fn moved(b: Domain, facing: Facing, motion: Option<&Prescribed>, pivot: Vec3) -> (Domain, Facing) {
    match motion {
        None => (b, facing),
        Some(Prescribed::Shake {
            axis, amplitude, ..
        }) => {
            let a = spread(*axis, amplitude.abs());
            (
                Domain {
                    lo: b.lo - a,
                    hi: b.hi + a,
                },
                facing,
            )
        }
        Some(Prescribed::Constant { linear, angular }) => {
            let (mut b, mut facing) = (b, facing);
            if *angular != Vec3::ZERO {
                b = ball(b, pivot);
                facing = Facing::ALL;
            }
            for k in 0..3 {
                if linear[k] != 0.0 {
                    b.lo[k] = f32::NEG_INFINITY;
                    b.hi[k] = f32::INFINITY;
                }
            }
            (b, facing)
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
