//! Clumps: rigid bodies made of overlapping spheres (the multi-sphere grains of the DEM field),
//! each a [`Shape::Clump`] naming a template of a [`ClumpTable`]: its member spheres' centres in
//! the body's axes (the principal axes, the centre of mass at the origin) and radii.
//!
//! A clump's contacts are those of its member spheres, all rows of the one body, with arms from
//! its centre of mass:
//! * against a sphere or another clump's member, Φ = ‖c_a − c_b‖ − r_a − r_b for every pair of
//!   members (a plain sphere is a clump of one member at its centre);
//! * against a wall, each member as a sphere ([`crate::wall_contact::point_wall`]: faces, edges,
//!   rims, cylinders and cones);
//! * against a mesh wall's triangles, each member as a sphere
//!   ([`crate::mesh::sphere_mesh_contacts`], the shared-rim rule per member).
//!
//! A template holds at most [`MAX_CLUMP_MEMBERS`] spheres: the contacts of one pair of bodies
//! are told apart by a point number in their pair key ([`crate::narrow_phase::point_flag`]),
//! member k_a of a against member k_b of b being point 8 k_a + k_b < 64 (six flag bits), and a
//! member on a wall or a mesh triangle point k_a < 8 (the flag bits of the body's half of a wall
//! key, [`crate::narrow_phase::wall_point_flag`]).

use crate::shapes::sphere::spheres_touch;
use crate::shapes::{Placed, Shape, Touch};
use glam::{Vec3, Vec4};

/// The most member spheres of one clump template (see the module's notes for why).
pub const MAX_CLUMP_MEMBERS: usize = 8;

/// The clump templates of a world: each template's member spheres, (x, y, z, r) with the centre
/// in the body's axes, stored one template after another.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClumpTable {
    /// Every template's members, template after template.
    spheres: Vec<Vec4>,
    /// Index in `spheres` of each template's first member, and one past the last template's.
    first: Vec<u32>,
}

impl ClumpTable {
    /// Appends a template of 1 to [`MAX_CLUMP_MEMBERS`] members (x, y, z, r) and returns its
    /// number, or `None` when it has none or too many.
    pub fn push(&mut self, members: &[Vec4]) -> Option<u32> {
        if members.is_empty() || members.len() > MAX_CLUMP_MEMBERS {
            return None;
        }
        if self.first.is_empty() {
            self.first.push(0);
        }
        self.spheres.extend_from_slice(members);
        self.first.push(self.spheres.len() as u32);
        Some(self.len() as u32 - 1)
    }

    /// Number of templates.
    pub fn len(&self) -> usize {
        self.first.len().saturating_sub(1)
    }

    /// True when the table has no template.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The member spheres (x, y, z, r) of template `t`, centres in the body's axes.
    #[inline(always)]
    pub fn members(&self, t: u32) -> &[Vec4] {
        let t = t as usize;
        &self.spheres[self.first[t] as usize..self.first[t + 1] as usize]
    }
}

/// Half-sizes along the body's axes of the box about its origin that holds the member spheres
/// `members` (x, y, z, r): max |c_k| + r_k along each axis.
pub fn clump_half_extents(members: &[Vec4]) -> Vec3 {
    (members.iter()).fold(Vec3::ZERO, |h, m| {
        h.max(m.truncate().abs() + Vec3::splat(m.w))
    })
}

/// Radius of the smallest sphere about the body's origin that holds the member spheres `members`
/// (x, y, z, r): max ‖c_k‖ + r_k.
pub fn clump_bound(members: &[Vec4]) -> f32 {
    members
        .iter()
        .map(|m| m.truncate().length() + m.w)
        .fold(0.0, f32::max)
}

/// The spheres body `p` (a sphere or a clump) stands for where it is: a clump's members,
/// c + R c_k with radius r_k; a sphere itself.
#[inline(always)]
fn placed_spheres(p: &Placed, table: &ClumpTable) -> ([Vec4; MAX_CLUMP_MEMBERS], usize) {
    let mut out = [Vec4::ZERO; MAX_CLUMP_MEMBERS];
    match p.shape {
        Shape::Sphere => {
            out[0] = p.centre.extend(p.radius);
            (out, 1)
        }
        Shape::Clump { template, .. } => {
            let members = clump_members(p.centre, p.q, template, table);
            let mut n = 0;
            for (o, (c, r)) in out.iter_mut().zip(members) {
                *o = c.extend(r);
                n += 1;
            }
            (out, n)
        }
        other => unreachable!("a {other:?} is not a clump's partner (crate::pairs)"),
    }
}

/// The member spheres of clump `p` in world coordinates, (centre, radius) each.
#[inline(always)]
pub fn clump_members(
    centre: Vec3,
    q: glam::Quat,
    template: u32,
    table: &ClumpTable,
) -> impl Iterator<Item = (Vec3, f32)> + '_ {
    table
        .members(template)
        .iter()
        .map(move |m| (centre + q * m.truncate(), m.w))
}

/// Calls `touch(point, t)` for every pair of member spheres of bodies a and b (a clump and a
/// sphere or another clump, the pairs [`crate::pairs::PairRoutine::Clumps`] routes here)
/// within `cutoff` of each other, with Φ = ‖c_a − c_b‖ − r_a − r_b and point = 8 k_a + k_b for
/// members k_a of a and k_b of b.
#[inline(always)]
pub fn clump_pair_touches(
    a: &Placed,
    b: &Placed,
    table: &ClumpTable,
    cutoff: f32,
    mut touch: impl FnMut(usize, Touch),
) {
    let ((sa, na), (sb, nb)) = (placed_spheres(a, table), placed_spheres(b, table));
    for (ka, ma) in sa[..na].iter().enumerate() {
        for (kb, mb) in sb[..nb].iter().enumerate() {
            let bound = ma.w + mb.w + cutoff;
            if (ma.truncate() - mb.truncate()).length_squared() > bound * bound {
                continue;
            }
            let t = spheres_touch(ma.truncate(), ma.w, mb.truncate(), mb.w);
            touch(MAX_CLUMP_MEMBERS * ka + kb, t);
        }
    }
}
