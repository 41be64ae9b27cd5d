//! Stage 3's sphere–wall contact: the point of a wall closest to a sphere's centre, for every
//! kind of [`Wall`] (a rectangle or plane with its edges and corners, a disk or annulus with its
//! rims, a cylinder or cone frustum with its rim circles), and the wall's switch (an inactive
//! wall has no contacts).
//!
//! The contact normal n points from the closest point q to the centre p, the gap is
//! Φ = |p − q| − r (or the signed distance to the face minus r inside the face region, where a
//! sphere whose centre is behind a one-sided face still meets it), and the contact point is
//! p − r n. Mirrored by `shaders/src/wall_contact.wgsl`.

use crate::layout::Wall;
use glam::{Vec3, Vec4};

/// Flag of [`Wall::flags`]: the wall is switched off for the step (it has no contacts).
pub const WALL_OFF: u32 = 1;
/// Flag of [`Wall::flags`]: the flat wall is a disk or annulus (outer radius `u.w`, inner
/// radius `v.w`) rather than a rectangle.
pub const WALL_DISK: u32 = 2;
/// The unit of a rectangle's plane group in [`Wall::flags`]: flags / `WALL_GROUP` is the group
/// (0: none). Rectangles of one group lie in one plane with one normal and move together; where
/// a sphere's centre lies over one of them, the others take no edge contact with it.
pub const WALL_GROUP: u32 = 4;

/// The gap and normal of a sphere against a wall: n (unit, from the wall towards the centre)
/// and Φ (m, negative when overlapping).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallTouch {
    /// Unit normal from the wall's closest point to the sphere's centre.
    pub n: Vec3,
    /// Gap Φ (m).
    pub phi: f32,
}

impl Wall {
    /// The cone frustum (or, with `slope` 0, the cylinder of [`Wall::cylinder`]) about the axis
    /// through `origin` along the unit `axis` (w: material): its radius at axial place s from
    /// `origin` is R(s) = |`signed_radius`| + `slope` s for |s| ≤ `half_length`; grains inside it
    /// when `signed_radius` > 0, outside when < 0; turning at `angular_speed` about the axis.
    pub fn frustum(
        origin: [f32; 4],
        axis: [f32; 4],
        signed_radius: f32,
        slope: f32,
        half_length: f32,
        angular_speed: f32,
        velocity: [f32; 4],
    ) -> Self {
        let mut wall = Wall::cylinder(
            origin,
            axis,
            signed_radius,
            half_length,
            angular_speed,
            velocity,
        );
        wall.u[0] = slope;
        wall
    }

    /// The flat annulus about `centre` with unit `normal` (w: material), radii
    /// `inner` ≤ ρ ≤ `outer` (a disk when `inner` is 0), moving at `velocity`.
    pub fn disk(
        centre: [f32; 4],
        normal: [f32; 4],
        outer: f32,
        inner: f32,
        velocity: [f32; 4],
    ) -> Self {
        let [x, y, z, _] = centre;
        let [vx, vy, vz, _] = velocity;
        Wall {
            origin: [x, y, z, 0.0],
            normal,
            u: [0.0, 0.0, 0.0, outer],
            v: [0.0, 0.0, 0.0, inner],
            velocity: [vx, vy, vz, WALL_DISK as f32],
        }
    }

    /// The flags word ([`WALL_OFF`], [`WALL_DISK`], the plane group times [`WALL_GROUP`]),
    /// stored as a float in `velocity.w`.
    #[inline(always)]
    pub fn flags(&self) -> u32 {
        self.velocity[3] as u32
    }

    /// This wall with flags word `flags`.
    pub fn with_flags(mut self, flags: u32) -> Self {
        self.velocity[3] = flags as f32;
        self
    }

    /// True when the wall is switched off for the step.
    #[inline(always)]
    pub fn is_off(&self) -> bool {
        self.flags() & WALL_OFF != 0
    }

    /// True for a disk or annulus.
    #[inline(always)]
    pub fn is_disk(&self) -> bool {
        self.flags() & WALL_DISK != 0
    }

    /// The rectangle's plane group (0: none).
    #[inline(always)]
    pub fn plane_group(&self) -> u32 {
        self.flags() / WALL_GROUP
    }

    /// The velocity of the wall's surface at the point `c`: its translation, plus ω e × (c − o)
    /// on a turning cylinder or cone.
    #[inline(always)]
    pub fn surface_velocity(&self, c: Vec3) -> Vec3 {
        let v = Vec4::from_array(self.velocity).truncate();
        if self.cylinder_radius() == 0.0 {
            v
        } else {
            v + self.v[3] * self.n().cross(c - self.o())
        }
    }

    /// dR/ds of a cone frustum along its axis (0 for a cylinder and a flat wall).
    #[inline(always)]
    pub fn slope(&self) -> f32 {
        self.u[0]
    }

    /// True when the foot of `p` on the plane of a flat wall lies within its face: the rectangle
    /// |s| ≤ half_u, |t| ≤ half_v, or the annulus inner ≤ ρ ≤ outer.
    #[inline(always)]
    pub fn covers(&self, p: Vec3) -> bool {
        let rel = p - self.o();
        let (u, v) = (Vec4::from_array(self.u), Vec4::from_array(self.v));
        if self.is_disk() {
            let rho = (rel - rel.dot(self.n()) * self.n()).length();
            return rho >= v.w && rho <= u.w;
        }
        rel.dot(u.truncate()).abs() <= u.w && rel.dot(v.truncate()).abs() <= v.w
    }
}

/// The contact of a sphere of radius `r` centred at `p` with wall `w` of `walls`, or `None`
/// when the wall is off, the sphere is wholly behind its face, or (for a cylinder or cone) on
/// the far side of its mantle: [`point_wall`] with the body reaching `r` behind its centre.
#[inline(always)]
pub fn sphere_wall(walls: &[Wall], w: usize, p: Vec3, r: f32) -> Option<WallTouch> {
    point_wall(walls, w, p, r, r)
}

/// The contact of a sphere of radius `r` centred at `p` (a point of a body, which reaches
/// `behind` beyond it: the radius for a sphere, more for a cuboid's corner) with wall `w`, or
/// `None` when the wall is off, the point is more than `behind` behind its face, or (for a
/// cylinder or cone) that far on the far side of its mantle.
#[inline(always)]
pub fn point_wall(walls: &[Wall], w: usize, p: Vec3, r: f32, behind: f32) -> Option<WallTouch> {
    let wall = &walls[w];
    if wall.is_off() {
        None
    } else if wall.cylinder_radius() != 0.0 {
        sphere_frustum(wall, p, r, behind)
    } else if wall.is_disk() {
        sphere_annulus(wall, p, r, behind)
    } else {
        sphere_rectangle(walls, w, p, r, behind)
    }
}

/// The touch of a centre at `d` from the wall's closest point q (d = p − q), or, when the
/// centre is on q, along `face`.
#[inline(always)]
fn touch_from(d: Vec3, r: f32, face: Vec3) -> WallTouch {
    let dist = d.length();
    let n = if dist > 0.0 { d / dist } else { face };
    WallTouch { n, phi: dist - r }
}

/// Sphere–frustum: in the axial half-plane of the centre (s along the axis e, ρ from it, unit
/// w = d/ρ outward) the mantle is the generator segment ρ = R₀ + k σ, |σ| ≤ L. The foot of
/// (s, ρ) on its line is σ* = (s + k (ρ − R₀)) / (1 + k²). Within the segment the gap is the
/// signed distance f = (R₀ + k s − ρ)/√(1 + k²) (positive towards the axis) minus r, inside
/// (normal (k e − w)/√(1 + k²)) or, negated, outside; a point more than `behind` on the far
/// side has none.
/// Beyond an end the closest point is that end's rim circle, q = σ_end e + R(σ_end) w.
#[inline(always)]
pub fn sphere_frustum(wall: &Wall, p: Vec3, r: f32, behind: f32) -> Option<WallTouch> {
    let (o, e) = (wall.o(), wall.n());
    let signed_radius = wall.cylinder_radius();
    let (r0, inside, k, half) = (
        signed_radius.abs(),
        signed_radius > 0.0,
        wall.slope(),
        wall.u[3],
    );
    let rel = p - o;
    let s = rel.dot(e);
    let d = rel - s * e;
    let rho = d.length();
    let w = if rho > 0.0 {
        d / rho
    } else {
        Wall::axis_normal(e)
    };
    let norm = (1.0 + k * k).sqrt();
    let towards_axis = (k * e - w) / norm;
    let (face, depth) = if inside {
        (towards_axis, (r0 + k * s - rho) / norm)
    } else {
        (-towards_axis, (rho - r0 - k * s) / norm)
    };
    let foot = (s + k * (rho - r0)) / (1.0 + k * k);
    if foot.abs() <= half {
        return (depth >= -behind).then_some(WallTouch {
            n: face,
            phi: depth - r,
        });
    }
    let end = half.copysign(foot);
    Some(touch_from(
        (s - end) * e + (rho - (r0 + k * end)) * w,
        r,
        face,
    ))
}

/// Sphere–annulus: with dist = (p − o)·n and ρ the centre's distance from the normal through o,
/// a centre over the face (inner ≤ ρ ≤ outer) has Φ = dist − r (none when dist < −`behind`); else the
/// closest point is on the nearer rim circle.
#[inline(always)]
pub fn sphere_annulus(wall: &Wall, p: Vec3, r: f32, behind: f32) -> Option<WallTouch> {
    let n = wall.n();
    let rel = p - wall.o();
    let dist = rel.dot(n);
    let d = rel - dist * n;
    let rho = d.length();
    let (outer, inner) = (wall.u[3], wall.v[3]);
    if rho >= inner && rho <= outer {
        return (dist >= -behind).then_some(WallTouch { n, phi: dist - r });
    }
    let w = if rho > 0.0 {
        d / rho
    } else {
        Wall::axis_normal(n)
    };
    let rim = rho.clamp(inner, outer);
    Some(touch_from(dist * n + (rho - rim) * w, r, n))
}

/// Sphere–rectangle: a centre over the face (|s| ≤ half_u, |t| ≤ half_v) has Φ = dist − r
/// (none when dist < −`behind`); else the closest point is the clamped (s, t) on an edge or corner,
/// unless the centre lies over a coplanar rectangle of the same plane group that is on, which
/// then holds the face contact (so a grain crossing the joint of two floor tiles has one
/// contact, not two). A centre exactly over the joint, on both faces, belongs to the tile of
/// the lower index.
#[inline(always)]
pub fn sphere_rectangle(
    walls: &[Wall],
    w: usize,
    p: Vec3,
    r: f32,
    behind: f32,
) -> Option<WallTouch> {
    let wall = &walls[w];
    let n = wall.n();
    let rel = p - wall.o();
    let dist = rel.dot(n);
    let (u, v) = (Vec4::from_array(wall.u), Vec4::from_array(wall.v));
    let (s, t) = (rel.dot(u.truncate()), rel.dot(v.truncate()));
    if s.abs() <= u.w && t.abs() <= v.w {
        let owned = dist >= -behind && !over_coplanar_neighbour(walls, w, p, w);
        return owned.then_some(WallTouch { n, phi: dist - r });
    }
    if over_coplanar_neighbour(walls, w, p, walls.len()) {
        return None;
    }
    let (sc, tc) = (s.clamp(-u.w, u.w), t.clamp(-v.w, v.w));
    Some(touch_from(
        dist * n + (s - sc) * u.truncate() + (t - tc) * v.truncate(),
        r,
        n,
    ))
}

/// True when `p` lies over the face of another switched-on rectangle in wall `w`'s plane group
/// with an index below `below`.
#[inline(always)]
fn over_coplanar_neighbour(walls: &[Wall], w: usize, p: Vec3, below: usize) -> bool {
    let group = walls[w].plane_group();
    group != 0
        && walls[..below].iter().enumerate().any(|(k, other)| {
            k != w && other.plane_group() == group && !other.is_off() && other.covers(p)
        })
}
