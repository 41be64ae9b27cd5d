//! Stage 3, narrow phase: sphere–sphere and sphere–wall gaps Φ, and for the shapes of
//! [`crate::shapes`]: capsule–wall (both ends), capsule–sphere (the segment's closest point),
//! capsule–capsule (the segments' closest points, plus the ends of the stretch of one's axis
//! the other covers), ellipse–wall (the support point) and ellipse–sphere (the ellipse's point
//! nearest the sphere's centre, by bisection), and cuboids' corners and edge crossings
//! ([`crate::shapes::cuboid`]); pairs with Φ ≤ ε̂ become contact rows (hart-anitescu eq. 2.13's active
//! set), sorted by pair key.
//! Ellipsoids ([`crate::shapes::ellipsoid`]) meet flat walls at their support point, spheres and
//! ellipsoids at one point, the inside of cylinders and cones at the support point reaching
//! farthest from the axis ([`crate::pair_algorithms::ellipsoid_frustum`]) and mesh triangles at one point each
//! ([`crate::pair_algorithms::ellipsoid_triangle`]). Clumps meet walls and mesh triangles member by member
//! ([`crate::shapes::clump`]); boxes and polyhedra meet mesh triangles by the separating-axis test
//! ([`crate::pair_algorithms::polytope_triangle`]). Which pairs of bodies meet, and by which routine, is the
//! pair table's ([`crate::pairs`]): [`pair_touches`] dispatches through it, and the builder
//! refuses every pair it refuses.

use crate::broad_phase::Grid;
use crate::contact_update::transpose;
use crate::isa;
use crate::layout::{pair_key, wall_key, Bodies, ContactRow, FrictionTable, Motion, Wall, NO_BODY};
use crate::mesh::{mesh_contacts, sphere_mesh_contacts, MeshProbe, MeshWalls, Triangle};
use crate::pair_algorithms::ellipsoid_frustum::ellipsoid_in_frustum;
use crate::pair_algorithms::ellipsoid_triangle::ellipsoid_triangle_candidate;
use crate::pair_algorithms::polytope_triangle::polytope_mesh_contacts;
use crate::pair_algorithms::round::contact_points;
use crate::pairs::{pair_routine, PairRoutine};
use crate::parallel::{Disjoint, BLOCK};
use crate::position_correction::stabilising_bias;
use crate::shapes::capsule::capsule_ends;
use crate::shapes::clump::{clump_members, clump_pair_touches, ClumpTable};
use crate::shapes::cuboid::{cuboid_corners, cuboid_pair_points};
use crate::shapes::ellipse::ellipse_support;
use crate::shapes::ellipsoid::{ellipsoid_pair_points, ellipsoid_support, PlacedEllipsoid};
use crate::shapes::polyhedron::{hull_vertices, polyhedron_pair_points, Hull};
use crate::shapes::{shape_of, Placed, Shape, Touch};
use crate::step::StepParams;
use crate::wall_contact::{point_wall, sphere_wall};
use glam::{Vec3, Vec4};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// The most ε̂-active contacts the grid's bodies may have per body, on average over a block of
/// [`BLOCK`] bodies. A resting bed of spheres has about 6 per body (each of about 12 touching
/// neighbours counted once per pair), a fast pour a few more; tens of times that means the
/// envelope ε̂ ≈ v·h spans many neighbours (the step h is too large for the grains' speeds),
/// and the contact rows would grow as the square of it.
pub const MAX_CONTACTS_PER_BODY: usize = 64;

/// The contacts of the grid's bodies exceeded [`MAX_CONTACTS_PER_BODY`] per body in some block
/// of bodies: the step was abandoned before its rows could fill the memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyContacts;

/// Flag set in the pair key of a pair's second contact (a capsule's second end on a wall, the
/// lower end of two capsules' overlap), so that the contacts of one pair have distinct keys
/// (body indices stay below 2³¹, so the flagged key sorts after every plain one).
pub const SECOND_END: u64 = 1 << 63;

/// Flag set in the pair key of the third contact of two capsules (the upper end of their
/// overlap): the top bit of the key's second body, free in body–body keys since body indices
/// stay below 2³¹ (wall keys set it, but a wall's index would have to be about 2³¹ to meet it).
pub const THIRD_POINT: u64 = 1 << 31;

/// The bits of a pair key's first half (body a) that number a pair's contacts rather than a
/// body: its top four bits, free since body indices stay below [`MAX_BODIES`].
pub const FLAGS_A: u64 = 0xF << 60;

/// The bits of a body–body key's second half (body b) that number a pair's contacts: its top
/// four bits (in a wall key they are part of the wall's number).
pub const FLAGS_B: u64 = 0xF << 28;

/// The most bodies a world may hold: 2²⁸, so that the top four bits of each half of a pair
/// key ([`FLAGS_A`], [`FLAGS_B`]) can number a pair's contacts.
pub const MAX_BODIES: usize = 1 << 28;

/// The key flag of point `k` (< 16) of a body against one wall: all four bits of body a's half
/// (bits 60–63). A wall key's other half is the wall's number counted down from [`NO_BODY`],
/// whose top bits are all set, so [`point_flag`]'s bits there would not tell points apart. For
/// k < 8 it equals [`point_flag`]`(k)`; a capsule's second end ([`SECOND_END`], bit 63) is
/// the only other wall flag, and no body is both a capsule and a polyhedron.
#[inline(always)]
pub fn wall_point_flag(k: usize) -> u64 {
    debug_assert!(k < 16);
    (k as u64) << 60
}

/// The key flag of contact point `p` (< 64) of a pair: its low three bits in bits 60–62 of the
/// key (body a's half), the rest in bits 28–30 (body b's half), so that a cuboid's eight
/// corners or a clump's members on a wall use a's half only. Bits 63 and 31 stay free for
/// [`SECOND_END`] and [`THIRD_POINT`], so every flag is distinct from theirs.
#[inline(always)]
pub fn point_flag(p: usize) -> u64 {
    debug_assert!(p < 64);
    ((p as u64 & 7) << 60) | ((p as u64 >> 3) << 28)
}

/// The contact rows of one step, sorted by [`pair_key`], with reusable per-block buffers.
#[derive(Default)]
pub struct Contacts {
    /// Constant data of each contact.
    pub rows: Vec<ContactRow>,
    /// Pair key of each contact (ascending).
    pub keys: Vec<u64>,
    blocks: Vec<Vec<(u64, ContactRow)>>,
    block_start: Vec<u32>,
    /// The large bodies' rows, sorted by key.
    large: Vec<(u64, ContactRow)>,
    /// The first key of each non-empty grid block, and the block.
    firsts: Vec<(u64, usize)>,
    order: Vec<(u64, u32)>,
    sorted: Vec<ContactRow>,
}

impl Contacts {
    /// Number of active contacts.
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    /// True when there is no active contact.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Keeps, in place and in order, the contacts whose row passes `keep` (with their keys).
    pub fn retain(&mut self, mut keep: impl FnMut(&ContactRow) -> bool) {
        let mut kept = 0;
        for k in 0..self.rows.len() {
            let row = self.rows[k];
            if !keep(&row) {
                continue;
            }
            self.rows[kept] = row;
            self.keys[kept] = self.keys[k];
            kept += 1;
        }
        self.rows.truncate(kept);
        self.keys.truncate(kept);
    }
}

/// An orthonormal frame (n, t1, t2 = n × t1) from a unit normal (branchless, no singular axis).
#[inline(always)]
pub fn tangent_frame(n: Vec3, planar: bool) -> (Vec3, Vec3) {
    if planar {
        return (Vec3::Y.cross(n), Vec3::Y);
    }
    let sign = 1.0f32.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    let t1 = Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
    let t2 = Vec3::new(b, sign + n.y * n.y * a, -n.y);
    (t1, t2)
}

/// A row of a pair that closes more than this many radii (the smaller body's `pos_radius.w`)
/// in one step at its closing speed may be *swept* (`PairTests::swept_mu`): in the active set
/// only as a guard against a fast grain turned into the surface, and then frictionless. A
/// resolved flow stays well under it: the shipped scenes and the validation cases below 2.2
/// (docs/method.md, "Swept rows"), a grain at 10 km/s with h = 2 ms and r = 5 mm at 4,000.
pub const SWEPT_STEP: f32 = 4.0;

/// How fast a and b close along a normal (b → a).
#[derive(Clone, Copy, Debug)]
struct Closing {
    /// Their approach speed −(v_a − v_b)·n.
    approach: f32,
    /// The fastest they can close within a step (the envelope's closing speed): the approach,
    /// or the speed of either one if the other is stopped.
    speed: f32,
}

/// The closing speeds of a and b, moving at `va` and `vb`, along `n` (b → a).
#[inline(always)]
fn closing_speed(va: Vec3, vb: Vec3, n: Vec3) -> Closing {
    let approach = -(va - vb).dot(n);
    Closing {
        approach,
        speed: approach.max(va.length()).max(vb.length()),
    }
}

/// Velocity v + ω × r of the point at arm `r` from a body's centre.
#[inline(always)]
pub(crate) fn point_velocity(m: &Motion, r: Vec3) -> Vec3 {
    m.v() + m.w().cross(r)
}

/// Diagonal entry eᵀ(M⁻¹)e of one body for direction `e` with lever arm `r`.
#[inline(always)]
fn body_weight(m: &Motion, r: Vec3, e: Vec3) -> f32 {
    m.inv_mass + m.inv_inertia * r.cross(e).length_squared()
}

/// The first sphere of sphere–sphere tests: what they read of it, loaded once for all its
/// partners.
struct SphereSide {
    body: u32,
    pos_radius: glam::Vec4,
    /// Radius plus envelope margin (m).
    reach: f32,
    dynamic: bool,
}

impl SphereSide {
    #[inline(always)]
    fn of(bodies: &Bodies, reach: &[f32], i: u32) -> Self {
        SphereSide {
            body: i,
            pos_radius: bodies.pos_radius[i as usize],
            reach: reach[i as usize],
            dynamic: bodies.is_dynamic(i as usize),
        }
    }
}

/// What one pair test needs to read.
struct PairTests<'a> {
    bodies: &'a Bodies,
    shapes: &'a [Shape],
    /// The clump templates the [`Shape::Clump`] bodies name.
    clumps: &'a ClumpTable,
    /// The convex hulls [`Shape::Polyhedron`] names.
    hulls: &'a [Hull],
    walls: &'a [Wall],
    /// The triangle-mesh walls.
    mesh: &'a MeshWalls,
    friction: &'a FrictionTable,
    /// The step: h, the ε̂ rule, planar mode and whether the normal rows keep Φ/h.
    p: &'a StepParams,
    /// Contact compliance relative to the normal diagonal, ε/w_n = 1/(2π f h)² (0 = rigid).
    softness_ratio: f32,
}

impl PairTests<'_> {
    /// Builds the row of a contact with normal `n` (b → a), gap `phi` and arms `ra`, `rb`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn contact_row(
        &self,
        a: u32,
        b: u32,
        ma: &Motion,
        mb: Option<&Motion>,
        n: Vec3,
        phi: f32,
        ra: Vec3,
        rb: Vec3,
        mu: f32,
        wall_velocity: Vec3,
    ) -> ContactRow {
        let p = self.p;
        let (t1, t2) = tangent_frame(n, p.planar);
        let w = |e: Vec3| body_weight(ma, ra, e) + mb.map_or(0.0, |mb| body_weight(mb, rb, e));
        let wn = w(n) * (1.0 + self.softness_ratio);
        let wt = 0.5 * (w(t1) + w(t2));
        ContactRow {
            n: n.to_array(),
            phi,
            t1: t1.to_array(),
            mu,
            t2: t2.to_array(),
            mass_n: 1.0 / wn,
            ra: ra.to_array(),
            mass_t: 1.0 / wt,
            rb: rb.to_array(),
            body_a: a,
            bias: [
                stabilising_bias(phi, p.h, p.stabilise_contacts, p.position_correction > 0)
                    - n.dot(wall_velocity),
                -t1.dot(wall_velocity),
                -t2.dot(wall_velocity),
            ],
            body_b: b,
        }
    }

    /// The friction coefficient of an ε̂-active row of friction `mu`, gap `phi` and `closing`
    /// speeds between bodies of radius at least `size`: 0 for a *swept* row, `mu` otherwise.
    /// A row is swept when the pair is fast, h × its closing speed more than [`SWEPT_STEP`]
    /// radii, and the row lies beyond the envelope of its approach speed alone (Φ > ε̂ of
    /// −(v_a − v_b)·n): it is in the active set only because the pair's speed could be turned
    /// towards it within the step, a speculative contact the grain slides past. The relaxed
    /// cone would let it act anyway: its dual cone asks u_n = n·v + Φ/h ≥ μ‖u_T‖, so a
    /// speculative contact sliding at ‖u_T‖ > Φ/(μ h) pushes the grain off and brakes it by
    /// friction without ever touching it (at 10 km/s beside a wall, kilometres per second).
    /// Frictionless, the row is Coulomb's n·v + Φ/h ≥ 0 ⊥ γn ≥ 0: it still stops a grain
    /// turned into the surface, and acts only when the grain reaches it. Slow pairs (every
    /// pair of a resolved flow) never meet the first test, so their rows are untouched.
    #[inline(always)]
    fn swept_mu(&self, mu: f32, phi: f32, closing: Closing, size: f32) -> f32 {
        let (h, envelope) = (self.p.h, self.p.envelope);
        if h * closing.speed > SWEPT_STEP * size && phi > envelope.pair(closing.approach, h) {
            0.0
        } else {
            mu
        }
    }

    /// Sphere–sphere: Φ = ‖p_a − p_b‖ − r_a − r_b, kept when Φ ≤ ε̂ of the pair.
    #[inline(always)]
    fn sphere_sphere(&self, reach: &[f32], i: u32, j: u32, out: &mut Vec<(u64, ContactRow)>) {
        let (a, bb) = (i.min(j), i.max(j));
        let centre_reach = self.bodies.pos_radius[bb as usize]
            .truncate()
            .extend(reach[bb as usize]);
        let side = SphereSide::of(self.bodies, reach, a);
        if self.p.periodic.is_sheared() {
            self.sphere_partner::<true, true>(&side, bb, centre_reach, out);
        } else {
            self.sphere_partner::<true, false>(&side, bb, centre_reach, out);
        }
    }

    /// Sphere–sphere for sphere `a` (its data loaded once for all its partners) and a partner
    /// `bb` > a of centre and reach `centre_reach` (bit copies of the body's own, read from
    /// wherever they lie nearest; its radius is read only for a pair within reach); see
    /// [`Self::sphere_sphere`]. `PERIODIC` false skips the minimum image, which is then the
    /// separation itself; `SHEARED` (with `PERIODIC`) takes the Lees–Edwards minimum image and
    /// the velocity of b's copy across y ([`crate::periodic::Periodic::image_velocity`]).
    #[inline(always)]
    fn sphere_partner<const PERIODIC: bool, const SHEARED: bool>(
        &self,
        side: &SphereSide,
        bb: u32,
        centre_reach: glam::Vec4,
        out: &mut Vec<(u64, ContactRow)>,
    ) {
        let b = self.bodies;
        let (a, pa) = (side.body, side.pos_radius);
        let d = pa.truncate() - centre_reach.truncate();
        let (d, image) = if PERIODIC && SHEARED {
            self.p.periodic.minimum_image_sheared(d)
        } else if PERIODIC {
            (self.p.periodic.minimum_image(d), 0.0)
        } else {
            (d, 0.0)
        };
        let dist2 = d.length_squared();
        // Cheap reject before the square root: each body's reach covers its share of any ε̂.
        let bound = side.reach + centre_reach.w;
        if dist2 > bound * bound || !(side.dynamic || b.is_dynamic(bb as usize)) {
            return;
        }
        let pb = b.pos_radius[bb as usize];
        let (ma, mb) = (&b.motion[a as usize], &b.motion[bb as usize]);
        let dist = dist2.sqrt();
        let n = if dist > 0.0 { d / dist } else { Vec3::Z };
        let touch = (n, dist - (pa.w + pb.w), -pa.w * n, pb.w * n);
        if SHEARED {
            let jump = self.p.periodic.image_velocity(image);
            let closing = closing_speed(ma.v(), mb.v() + jump, n);
            self.keep_pair(a, bb, touch, closing, pair_key(a, bb), jump, out);
        } else {
            let closing = closing_speed(ma.v(), mb.v(), n);
            self.keep_pair(a, bb, touch, closing, pair_key(a, bb), Vec3::ZERO, out);
        }
    }

    /// Pushes the row of contact (a, b) (a < b) with its normal n, gap Φ and arms
    /// `touch = (n, Φ, r_a, r_b)` under `key`, when Φ ≤ ε̂ of the pair's `closing` speed
    /// (frictionless when [`Self::swept_mu`] says so); `b_jump` is the velocity b's copy moves
    /// at on top of b's own (across a sheared seam; zero otherwise), in the row as a wall's.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn keep_pair(
        &self,
        a: u32,
        b: u32,
        (n, phi, ra, rb): (Vec3, f32, Vec3, Vec3),
        closing: Closing,
        key: u64,
        b_jump: Vec3,
        out: &mut Vec<(u64, ContactRow)>,
    ) {
        if phi > self.p.envelope.pair(closing.speed, self.p.h) {
            return;
        }
        let bodies = self.bodies;
        let (ma, mb) = (&bodies.motion[a as usize], &bodies.motion[b as usize]);
        let mu = self
            .friction
            .mu(bodies.material[a as usize], bodies.material[b as usize]);
        let size = bodies.pos_radius[a as usize]
            .w
            .min(bodies.pos_radius[b as usize].w);
        let mu = self.swept_mu(mu, phi, closing, size);
        let row = self.contact_row(a, b, ma, Some(mb), n, phi, ra, rb, mu, b_jump);
        out.push((key, row));
    }

    /// Sphere–wall: the contact of [`sphere_wall`] (a face, an edge, a corner or a rim) with
    /// every switched-on wall, kept when Φ ≤ ε̂ of the centre's closing speed.
    #[inline(always)]
    fn sphere_walls(&self, i: u32, out: &mut Vec<(u64, ContactRow)>) {
        if !self.bodies.is_dynamic(i as usize) {
            return;
        }
        // Walls in decreasing index, so their keys (NO_BODY − w) ascend after the bodies'.
        for w in (0..self.walls.len()).rev() {
            self.sphere_wall_row(i, w, out);
        }
    }

    /// Sphere–mesh: the contacts of the sphere of centre and radius `sphere` (body `i` itself,
    /// or one of its clump members, whose key `flag` numbers it) with the triangles of the mesh
    /// walls (see [`crate::mesh`]), Φ = ‖p − q‖ − r to each triangle's closest point q, with
    /// arms from the body's centre, kept when Φ ≤ ε̂ of the closing speed of the sphere's centre
    /// with the mesh's velocity at the contact point.
    fn sphere_meshes(
        &self,
        i: u32,
        (centre, radius): (Vec3, f32),
        flag: u64,
        out: &mut Vec<(u64, ContactRow)>,
    ) {
        if self.mesh.is_empty() || !self.bodies.is_dynamic(i as usize) {
            return;
        }
        let offset = centre - self.bodies.pos_radius[i as usize].truncate();
        let velocity = point_velocity(&self.bodies.motion[i as usize], offset);
        let reach = self.mesh_reach(velocity.length());
        let probe = MeshProbe {
            body: i,
            centre,
            radius,
            flag,
        };
        let row = self.mesh_row(i, offset, velocity);
        sphere_mesh_contacts(self.mesh, &probe, reach, row, out);
    }

    /// Ellipsoid–mesh: the contacts of ellipsoid `i` with the triangles of the mesh walls, one
    /// per triangle ([`ellipsoid_triangle_candidate`]: the face's support-point gap or the
    /// least signed distance along the rim), after the mesh's shared-rim rule with tolerance
    /// 10⁻⁴ of the shortest semi-axis, kept when Φ ≤ ε̂ of the closing speed of the centre
    /// (the search reaches ε̂ of the fastest any point of the body moves).
    fn ellipsoid_meshes(&self, i: u32, semi_axes: Vec3, out: &mut Vec<(u64, ContactRow)>) {
        if self.mesh.is_empty() || !self.bodies.is_dynamic(i as usize) {
            return;
        }
        let body = PlacedEllipsoid {
            centre: self.bodies.pos_radius[i as usize].truncate(),
            q: self.bodies.orientation[i as usize],
            semi_axes,
        };
        let m = &self.bodies.motion[i as usize];
        let reach = self.mesh_reach(m.v().length() + m.w().length() * semi_axes.max_element());
        let probe = MeshProbe {
            body: i,
            centre: body.centre,
            radius: semi_axes.max_element(),
            flag: 0,
        };
        let candidate = |t: &Triangle, index| ellipsoid_triangle_candidate(&body, t, index, reach);
        let tol = 1e-4 * semi_axes.min_element();
        let row = self.mesh_row(i, Vec3::ZERO, m.v());
        mesh_contacts(self.mesh, &probe, reach, tol, candidate, row, out);
    }

    /// Box–mesh and polyhedron–mesh: the contact points of body `i` (a polyhedron's `hull`; a
    /// box's is built from its half-extents) with each triangle of the mesh walls near it
    /// ([`polytope_mesh_contacts`]: the separating-axis test with the triangle as a thin
    /// prism), point k of triangle t keyed `wall_key(i, triangle's wall) | wall_point_flag(k)`,
    /// each kept when Φ ≤ ε̂ of its closing speed with the mesh at the point.
    fn polytope_meshes(&self, i: u32, hull: Option<&Hull>, out: &mut Vec<(u64, ContactRow)>) {
        if self.mesh.is_empty() || !self.bodies.is_dynamic(i as usize) {
            return;
        }
        let body = self.placed(i as usize);
        let m = &self.bodies.motion[i as usize];
        let bound = body.shape.bounding_radius(body.radius);
        let reach = self.mesh_reach(m.v().length() + m.w().length() * bound);
        let probe = MeshProbe {
            body: i,
            centre: body.centre,
            radius: bound,
            flag: 0,
        };
        polytope_mesh_contacts(self.mesh, &probe, &body, hull, reach, |t, k, touch| {
            let tri = &self.mesh.triangles[t as usize];
            let arm = touch.pa - body.centre;
            let vw = self.mesh.motions[tri.mesh() as usize].velocity_at(touch.pa);
            let row = self.mesh_row(i, Vec3::ZERO, point_velocity(m, arm));
            if let Some(row) = row(touch.n, touch.phi, arm, vw, tri.material()) {
                out.push((wall_key(i, self.mesh.wall_of(t)) | wall_point_flag(k), row));
            }
        });
    }

    /// The largest ε̂ a body point moving at `speed` can have with any mesh.
    #[inline(always)]
    fn mesh_reach(&self, speed: f32) -> f32 {
        (self.p.envelope).pair(speed + self.mesh.max_speed, self.p.h)
    }

    /// The row builder of body `i`'s mesh contacts for [`crate::mesh::mesh_contacts`]: the
    /// probe's arm shifted by `offset` (the probe's centre less the body's), kept when Φ ≤ ε̂ of
    /// the closing speed of `velocity` (the probe centre's, or the contact point's) with the
    /// mesh's at the contact.
    #[inline(always)]
    fn mesh_row(
        &self,
        i: u32,
        offset: Vec3,
        velocity: Vec3,
    ) -> impl Fn(Vec3, f32, Vec3, Vec3, u32) -> Option<ContactRow> + '_ {
        let m = &self.bodies.motion[i as usize];
        let material = self.bodies.material[i as usize];
        let (h, envelope) = (self.p.h, self.p.envelope);
        let size = self.bodies.pos_radius[i as usize].w;
        move |n: Vec3, phi: f32, arm: Vec3, vw: Vec3, wall_material: u32| {
            let closing = closing_speed(velocity, vw, n);
            if phi > envelope.pair(closing.speed, h) {
                return None;
            }
            let mu = self.friction.mu(material, wall_material);
            let mu = self.swept_mu(mu, phi, closing, size);
            let ra = offset + arm;
            Some(self.contact_row(i, NO_BODY, m, None, n, phi, ra, Vec3::ZERO, mu, vw))
        }
    }

    /// Pushes sphere `i`'s row against wall `w` (see [`sphere_wall`]) when Φ ≤ ε̂ of the centre's
    /// closing speed; the wall's velocity at the contact point c = p − r n is its translation
    /// plus, on a turning cylinder or cone, ω e × (c − o).
    #[inline(always)]
    fn sphere_wall_row(&self, i: u32, w: usize, out: &mut Vec<(u64, ContactRow)>) {
        let pr = self.bodies.pos_radius[i as usize];
        if let Some(t) = sphere_wall(self.walls, w, pr.truncate(), pr.w) {
            let m = &self.bodies.motion[i as usize];
            self.push_wall_row(i, w, m, t.n, t.phi, -pr.w * t.n, m.v(), 0, out);
        }
    }

    /// All contacts owned by grid body `i`: grid partners j > i in the 27 cells around it (their
    /// centres and reaches read from the grid's copies in cell order), walls.
    /// With periodic boundaries also in the 27 cells around each image x_i + k L within reach of
    /// a side ([`crate::periodic::Periodic::image_queries`]: in a sheared cell those across y
    /// offset by the images' shift along x; a grid pair's reach is at most one
    /// cell), each partner kept only around its minimum-image index k, so found once.
    #[inline(always)]
    fn grid_body(&self, grid: &Grid, i: u32, out: &mut Vec<(u64, ContactRow)>) {
        let first = out.len();
        if self.p.periodic.is_sheared() {
            self.grid_partners::<true, true>(grid, i, out);
        } else if self.p.periodic.is_on() {
            self.grid_partners::<true, false>(grid, i, out);
        } else {
            self.grid_partners::<false, false>(grid, i, out);
        }
        out[first..].sort_unstable_by_key(|c| c.0);
        let pr = self.bodies.pos_radius[i as usize];
        self.sphere_meshes(i, (pr.truncate(), pr.w), 0, out);
        self.sphere_walls(i, out);
    }

    /// The sphere–sphere contacts of [`Self::grid_body`], unsorted; `PERIODIC` is whether the
    /// world has periodic sides and `SHEARED` whether its cell is sheared (decided once per
    /// body rather than per candidate).
    #[inline(always)]
    fn grid_partners<const PERIODIC: bool, const SHEARED: bool>(
        &self,
        grid: &Grid,
        i: u32,
        out: &mut Vec<(u64, ContactRow)>,
    ) {
        let periodic = &self.p.periodic;
        let p = self.bodies.pos_radius[i as usize].truncate();
        let (queries, count) = periodic.image_queries(p, grid.cell);
        let side = SphereSide::of(self.bodies, &grid.reach, i);
        for &(q, k) in &queries[..count] {
            let (ranges, n) = grid.neighbour_ranges(grid.coords(q));
            for &(start, end) in &ranges[..n] {
                let range = start as usize..end as usize;
                let (bodies, centres) = (
                    &grid.bodies[range.clone()],
                    &grid.sorted_centre_reach[range],
                );
                if !PERIODIC {
                    self.near_partners(&side, bodies, centres, out);
                    continue;
                }
                for (&j, &cj) in bodies.iter().zip(centres) {
                    let index = if SHEARED {
                        periodic.image_index_sheared(p, cj.truncate())
                    } else {
                        periodic.image_index(p, cj.truncate())
                    };
                    if j > i && index == k {
                        self.sphere_partner::<PERIODIC, SHEARED>(&side, j, cj, out);
                    }
                }
            }
        }
    }

    /// [`Self::sphere_partner`] (without periodic sides) for the candidates `bodies` of one run
    /// of cells, with centres and reaches `centres`: the sphere–sphere contacts of `side` with
    /// those after it, in candidate order. Whether a candidate comes after `side`, and whether
    /// it lies within the two reaches, follow no pattern a branch predictor could learn, so
    /// both are tested four candidates at a time into a mask, without a branch (the same
    /// arithmetic as `sphere_partner`'s reject test, lane by lane), and only the candidates left
    /// in the mask are tested in full.
    #[inline(always)]
    fn near_partners(
        &self,
        side: &SphereSide,
        bodies: &[u32],
        centres: &[Vec4],
        out: &mut Vec<(u64, ContactRow)>,
    ) {
        let i = side.body;
        let [px, py, pz, _] = side.pos_radius.to_array().map(Vec4::splat);
        let reach = Vec4::splat(side.reach);
        let (quads, rest) = (bodies.len() / 4, bodies.len() % 4);
        for q in 0..quads {
            let (ids, c) = (&bodies[4 * q..4 * q + 4], &centres[4 * q..4 * q + 4]);
            let [x, y, z, w] = transpose([c[0], c[1], c[2], c[3]]);
            let (dx, dy, dz) = (px - x, py - y, pz - z);
            let bound = reach + w;
            // Out of reach (NaN distances are kept, as in `sphere_partner`).
            let far = (dx * dx + dy * dy + dz * dz).cmpgt(bound * bound).bitmask();
            let after = ids
                .iter()
                .enumerate()
                .fold(0, |m, (l, &j)| m | u32::from(j > i) << l);
            let mut kept = after & !far;
            while kept != 0 {
                let l = kept.trailing_zeros() as usize;
                kept &= kept - 1;
                self.sphere_partner::<false, false>(side, ids[l], c[l], out);
            }
        }
        let tail = bodies.len() - rest..bodies.len();
        for (&j, &cj) in bodies[tail.clone()].iter().zip(&centres[tail]) {
            if j > i {
                self.sphere_partner::<false, false>(side, j, cj, out);
            }
        }
    }

    /// All contacts of large body `l`: grid bodies in the cells its box covers (around each of
    /// its periodic images within reach of a side, each partner around its minimum-image index
    /// only), larger-index large bodies near it ([`Grid::large_near`]), walls.
    fn large_body(&self, grid: &Grid, l: u32, out: &mut Vec<(u64, ContactRow)>) {
        let periodic = &self.p.periodic;
        let p = self.bodies.pos_radius[l as usize].truncate();
        let r = grid.reach[l as usize] + 0.5 * grid.cell;
        let (queries, count) = periodic.image_queries(p, r);
        let sheared = periodic.is_sheared();
        for &(q, k) in &queries[..count] {
            let (lo, hi) = (
                grid.coords(q - Vec3::splat(r)),
                grid.coords(q + Vec3::splat(r)),
            );
            grid.for_each_in_box(lo, hi, |j| {
                let pj = self.bodies.pos_radius[j as usize].truncate();
                let index = if sheared {
                    periodic.image_index_sheared(p, pj)
                } else {
                    periodic.image_index(p, pj)
                };
                if index == k {
                    self.body_pair(&grid.reach, l, j, out);
                }
            });
        }
        for m in grid.large_near(p, grid.reach[l as usize]) {
            if m > l {
                self.body_pair(&grid.reach, l, m, out);
            }
        }
        match shape_of(self.shapes, l as usize) {
            Shape::Sphere => {
                let pr = self.bodies.pos_radius[l as usize];
                self.sphere_meshes(l, (pr.truncate(), pr.w), 0, out);
                self.sphere_walls(l, out)
            }
            Shape::Capsule { half_length } => self.capsule_walls(l, half_length, out),
            Shape::Ellipse { a, b } => self.ellipse_walls(l, a, b, out),
            Shape::Ellipsoid { semi_axes } => {
                let q = self.bodies.orientation[l as usize];
                self.ellipsoid_meshes(l, semi_axes, out);
                self.ellipsoid_frustums(l, semi_axes, out);
                self.support_walls(l, |d| ellipsoid_support(q, semi_axes, d), out)
            }
            Shape::Cuboid { half_extents } => {
                self.polytope_meshes(l, None, out);
                self.cuboid_walls(l, half_extents, out)
            }
            Shape::Clump { template, .. } => self.clump_walls(l, template, out),
            Shape::Polyhedron { hull, .. } => {
                self.polytope_meshes(l, Some(&self.hulls[hull as usize]), out);
                self.polyhedron_walls(l, hull, out)
            }
        }
    }

    /// Dispatches the pair (i, j) by shape: sphere–sphere, or, for pairs within reach of each
    /// other, the routine of the pair table ([`pair_touches`]).
    #[inline(always)]
    fn body_pair(&self, reach: &[f32], i: u32, j: u32, out: &mut Vec<(u64, ContactRow)>) {
        if shape_of(self.shapes, i as usize).is_sphere()
            && shape_of(self.shapes, j as usize).is_sphere()
        {
            return self.sphere_sphere(reach, i, j, out);
        }
        let bodies = self.bodies;
        let (a, b) = (i.min(j) as usize, i.max(j) as usize);
        let (pa, pb) = (bodies.pos_radius[a], bodies.pos_radius[b]);
        let bound = reach[a] + reach[b];
        if (pa - pb).truncate().length_squared() > bound * bound
            || !(bodies.is_dynamic(a) || bodies.is_dynamic(b))
        {
            return;
        }
        let (placed_a, placed_b) = (self.placed(a), self.placed(b));
        let routine = match pair_routine(placed_a.shape.kind(), placed_b.shape.kind()) {
            Ok(routine) => routine,
            Err(e) => unreachable!("the world's build refuses this pair: {e}"),
        };
        let cutoff = self.largest_envelope(a, b, reach);
        let tables = (self.clumps, self.hulls);
        pair_touches(
            routine,
            &placed_a,
            &placed_b,
            tables,
            cutoff,
            |flag, touch| self.push_pair_row(a as u32, b as u32, &touch, flag, out),
        );
    }

    /// The largest envelope ε̂ any contact point of bodies a and b can have in this step: that
    /// of the closing speed |v_a| + |v_b| + |ω_a| R_a + |ω_b| R_b, which bounds every pair of
    /// their points' approach and speeds (R the bounding radius, at most the `reach`).
    #[inline(always)]
    fn largest_envelope(&self, a: usize, b: usize, reach: &[f32]) -> f32 {
        let m = &self.bodies.motion;
        let speed = |i: usize| m[i].v().length() + m[i].w().length() * reach[i];
        self.p.envelope.pair(speed(a) + speed(b), self.p.h)
    }

    /// Body `i`'s shape where it stands.
    #[inline(always)]
    fn placed(&self, i: usize) -> Placed {
        let pr = self.bodies.pos_radius[i];
        Placed {
            centre: pr.truncate(),
            q: self.bodies.orientation[i],
            radius: pr.w,
            shape: shape_of(self.shapes, i),
        }
    }

    /// Pushes the row of contact (a, b) (a < b) at `touch`, with arms from the centres to its
    /// surface points and `flag` or-ed into the pair key, when Φ ≤ ε̂ of the points' closing
    /// speed.
    #[inline(always)]
    fn push_pair_row(
        &self,
        a: u32,
        b: u32,
        touch: &Touch,
        flag: u64,
        out: &mut Vec<(u64, ContactRow)>,
    ) {
        let bodies = self.bodies;
        let (ca, cb) = (
            bodies.pos_radius[a as usize].truncate(),
            bodies.pos_radius[b as usize].truncate(),
        );
        let (ma, mb) = (&bodies.motion[a as usize], &bodies.motion[b as usize]);
        let (ra, rb) = (touch.pa - ca, touch.pb - cb);
        let closing = closing_speed(point_velocity(ma, ra), point_velocity(mb, rb), touch.n);
        let key = pair_key(a, b) | flag;
        self.keep_pair(
            a,
            b,
            (touch.n, touch.phi, ra, rb),
            closing,
            key,
            Vec3::ZERO,
            out,
        );
    }

    /// Capsule–wall: each end point of the segment as a sphere of the capsule's radius against
    /// every wall, Φ = (e − o)·n − r; the second end's key carries [`SECOND_END`].
    #[inline(always)]
    fn capsule_walls(&self, i: u32, half_length: f32, out: &mut Vec<(u64, ContactRow)>) {
        let b = self.bodies;
        let pr = b.pos_radius[i as usize];
        let ends = capsule_ends(pr.truncate(), b.orientation[i as usize], half_length);
        for (end, e) in ends.into_iter().enumerate() {
            let flag = if end == 0 { 0 } else { SECOND_END };
            self.point_walls(i, (e, pr.w, pr.w), flag, out);
        }
    }

    /// Cuboid–wall: each of the eight corners as a sphere of radius zero against every wall,
    /// the box reaching its smallest half-extent behind it, corner k's key carrying
    /// [`wall_point_flag`]`(k)`.
    #[inline(always)]
    fn cuboid_walls(&self, i: u32, half_extents: Vec3, out: &mut Vec<(u64, ContactRow)>) {
        let b = self.bodies;
        let centre = b.pos_radius[i as usize].truncate();
        let corners = cuboid_corners(centre, b.orientation[i as usize], half_extents);
        let behind = half_extents.min_element();
        for (k, corner) in corners.into_iter().enumerate() {
            self.point_walls(i, (corner, 0.0, behind), wall_point_flag(k), out);
        }
    }

    /// Clump–wall and clump–mesh: each member sphere of the clump against every wall and the
    /// mesh walls' triangles, member k's key carrying [`wall_point_flag`]`(k)` (see
    /// [`crate::shapes::clump`]).
    #[inline(always)]
    fn clump_walls(&self, i: u32, template: u32, out: &mut Vec<(u64, ContactRow)>) {
        let b = self.bodies;
        let centre = b.pos_radius[i as usize].truncate();
        let members = clump_members(centre, b.orientation[i as usize], template, self.clumps);
        for (k, (c, r)) in members.enumerate() {
            self.sphere_meshes(i, (c, r), wall_point_flag(k), out);
            self.point_walls(i, (c, r, r), wall_point_flag(k), out);
        }
    }

    /// Polyhedron–wall: each vertex of hull `hull` as a sphere of radius zero against every
    /// wall, the body reaching its inner radius behind it, vertex k's key carrying
    /// [`wall_point_flag`]`(k)` (see [`crate::shapes::polyhedron`]).
    #[inline(always)]
    fn polyhedron_walls(&self, i: u32, hull: u32, out: &mut Vec<(u64, ContactRow)>) {
        let b = self.bodies;
        let hull = &self.hulls[hull as usize];
        let centre = b.pos_radius[i as usize].truncate();
        let vertices = hull_vertices(hull, centre, b.orientation[i as usize]);
        for (k, &v) in vertices[..hull.vertices.len()].iter().enumerate() {
            self.point_walls(i, (v, 0.0, hull.inner_radius), wall_point_flag(k), out);
        }
    }

    /// Ellipse–wall: the ellipse's support point in −n, s, is its point nearest the wall's
    /// plane, Φ = (p + s − o)·n (closed form, see [`ellipse_support`] and [`Self::support_walls`]).
    #[inline(always)]
    fn ellipse_walls(&self, i: u32, a: f32, b: f32, out: &mut Vec<(u64, ContactRow)>) {
        let q = self.bodies.orientation[i as usize];
        self.support_walls(i, |d| ellipse_support(q, a, b, d), out)
    }

    /// Smooth convex body–flat wall (ellipse, ellipsoid): the body's support point in −n,
    /// s = `support`(−n) relative to its centre p, is its point nearest a flat wall's plane,
    /// Φ = (p + s − o)·n, kept when s lies over the wall's face and p in front of it. Cylinder
    /// and cone walls are met by [`Self::ellipsoid_frustums`] (ellipses beside them are
    /// refused at build).
    #[inline(always)]
    fn support_walls(
        &self,
        i: u32,
        support: impl Fn(Vec3) -> Vec3,
        out: &mut Vec<(u64, ContactRow)>,
    ) {
        let bodies = self.bodies;
        if !bodies.is_dynamic(i as usize) {
            return;
        }
        let p = bodies.pos_radius[i as usize].truncate();
        let m = &bodies.motion[i as usize];
        for (w, wall) in self.walls.iter().enumerate().rev() {
            if wall.cylinder_radius() != 0.0 {
                continue;
            }
            let n = wall.n();
            let s = support(-n);
            let phi = (p + s - wall.o()).dot(n);
            if wall.is_off() || (p - wall.o()).dot(n) < 0.0 || !wall.covers(p + s) {
                continue;
            }
            let closing = point_velocity(m, s);
            self.push_wall_row(i, w, m, n, phi, s, closing, 0, out);
        }
    }

    /// Ellipsoid–frustum: ellipsoid `i` inside every switched-on cylinder and cone wall
    /// ([`ellipsoid_in_frustum`]: the support point in the outward radial direction that reaches
    /// farthest, or the nearest point to an end's rim), kept when Φ ≤ ε̂ of the closing speed
    /// of its contact point (walls with the grains outside are refused beside it at build).
    fn ellipsoid_frustums(&self, i: u32, semi_axes: Vec3, out: &mut Vec<(u64, ContactRow)>) {
        let bodies = self.bodies;
        if !bodies.is_dynamic(i as usize) {
            return;
        }
        let body = PlacedEllipsoid {
            centre: bodies.pos_radius[i as usize].truncate(),
            q: bodies.orientation[i as usize],
            semi_axes,
        };
        let m = &bodies.motion[i as usize];
        for (w, wall) in self.walls.iter().enumerate().rev() {
            if wall.cylinder_radius() <= 0.0 || wall.is_off() {
                continue;
            }
            if let Some(t) = ellipsoid_in_frustum(wall, &body) {
                let closing = point_velocity(m, t.arm);
                self.push_wall_row(i, w, m, t.n, t.phi, t.arm, closing, 0, out);
            }
        }
    }

    /// A point `e` of body `i` with a surface of radius `r` about it, the body reaching
    /// `behind` beyond it, against every wall, as a sphere there ([`point_wall`]), with `flag`
    /// or-ed into the pair key.
    #[inline(always)]
    fn point_walls(
        &self,
        i: u32,
        (e, r, behind): (Vec3, f32, f32),
        flag: u64,
        out: &mut Vec<(u64, ContactRow)>,
    ) {
        let b = self.bodies;
        if !b.is_dynamic(i as usize) {
            return;
        }
        let p = b.pos_radius[i as usize].truncate();
        let m = &b.motion[i as usize];
        for w in (0..self.walls.len()).rev() {
            if let Some(t) = point_wall(self.walls, w, e, r, behind) {
                let ra = e - r * t.n - p;
                self.push_wall_row(i, w, m, t.n, t.phi, ra, point_velocity(m, ra), flag, out);
            }
        }
    }

    /// Pushes the row of body `i` against wall `w` with gap `phi` and arm `ra` when Φ ≤ ε̂ of
    /// the closing speed of the body's velocity `closing` (at its centre or the contact point)
    /// against the wall's surface at the contact point.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn push_wall_row(
        &self,
        i: u32,
        w: usize,
        m: &Motion,
        n: Vec3,
        phi: f32,
        ra: Vec3,
        closing: Vec3,
        flag: u64,
        out: &mut Vec<(u64, ContactRow)>,
    ) {
        let wall = &self.walls[w];
        let c = self.bodies.pos_radius[i as usize].truncate() + ra;
        let vw = wall.surface_velocity(c);
        let closing = closing_speed(closing, vw, n);
        if phi > self.p.envelope.pair(closing.speed, self.p.h) {
            return;
        }
        let mu = self
            .friction
            .mu(self.bodies.material[i as usize], wall.material());
        let mu = self.swept_mu(mu, phi, closing, self.bodies.pos_radius[i as usize].w);
        let row = self.contact_row(i, NO_BODY, m, None, n, phi, ra, Vec3::ZERO, mu, vw);
        out.push((wall_key(i, w as u32) | flag, row));
    }
}

/// Calls `touch(flag, t)` for each contact point t of bodies a and b that `routine` (the pair
/// table's, [`pair_routine`]) finds, with the flag the point's pair key carries: a capsule
/// pair's second and third points [`SECOND_END`] and [`THIRD_POINT`], the numbered points of
/// boxes, polyhedra and clumps' members [`point_flag`]. Routines that prune by distance
/// (boxes, ellipsoids, polyhedra, clumps) drop points surely more than `cutoff` apart; the
/// clumps' templates are read from `clumps`, the polyhedra's hulls from `hulls`.
#[inline(always)]
pub fn pair_touches(
    routine: PairRoutine,
    a: &Placed,
    b: &Placed,
    (clumps, hulls): (&ClumpTable, &[Hull]),
    cutoff: f32,
    mut touch: impl FnMut(u64, Touch),
) {
    let mut numbered = |touches: &[Option<Touch>]| {
        for (p, t) in touches.iter().enumerate() {
            if let Some(t) = t {
                touch(point_flag(p), *t);
            }
        }
    };
    match routine {
        PairRoutine::Spheres
        | PairRoutine::CapsuleSphere
        | PairRoutine::Capsules
        | PairRoutine::EllipseSphere => {
            let flags = [0, SECOND_END, THIRD_POINT];
            for (t, flag) in contact_points(a, b).into_iter().zip(flags) {
                if let Some(t) = t {
                    touch(flag, t);
                }
            }
        }
        PairRoutine::Boxes => numbered(&cuboid_pair_points(a, b, cutoff)),
        PairRoutine::Polyhedra => numbered(&polyhedron_pair_points(a, b, hulls, cutoff)),
        PairRoutine::Ellipsoids => {
            if let Some(t) = ellipsoid_pair_points(a, b, cutoff) {
                touch(0, t);
            }
        }
        PairRoutine::Clumps => {
            clump_pair_touches(a, b, clumps, cutoff, |p, t| touch(point_flag(p), t))
        }
    }
}

/// Finds every ε̂-active contact (with the walls and the `mesh` walls too; the clumps' members
/// from `clumps`, polyhedra's shapes from the hull table `hulls`) and writes the rows sorted by
/// pair key into `contacts`; fails
/// when the grid's bodies have more than [`MAX_CONTACTS_PER_BODY`] contacts per body in a
/// block (checked after each body, so the rows stay bounded whatever the envelope).
#[allow(clippy::too_many_arguments)]
pub fn find_contacts(
    grid: &Grid,
    bodies: &Bodies,
    shapes: &[Shape],
    clumps: &ClumpTable,
    hulls: &[Hull],
    walls: &[Wall],
    mesh: &MeshWalls,
    friction: &FrictionTable,
    p: &StepParams,
    contacts: &mut Contacts,
) -> Result<(), TooManyContacts> {
    let tests = PairTests {
        bodies,
        shapes,
        clumps,
        hulls,
        walls,
        mesh,
        friction,
        p,
        softness_ratio: p.softness_ratio(),
    };
    let n = bodies.len();
    let grid_blocks = n.div_ceil(BLOCK);
    let blocks_needed = grid_blocks + grid.large.len();
    if contacts.blocks.len() < blocks_needed {
        contacts.blocks.resize_with(blocks_needed, Vec::new);
    }
    let too_many = AtomicBool::new(false);
    let (grid_part, large_part) = contacts.blocks[..blocks_needed].split_at_mut(grid_blocks);
    let avx2 = isa::avx2();
    grid_part.par_iter_mut().enumerate().for_each(|(b, out)| {
        out.clear();
        let range = b * BLOCK..((b + 1) * BLOCK).min(n);
        let block = (&tests, grid, &too_many);
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the processor has the features `isa::avx2` checks.
            return unsafe { grid_block_avx2(block, range, out) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = avx2;
        grid_block(block, range, out);
    });
    if too_many.into_inner() {
        return Err(TooManyContacts);
    }
    large_part
        .par_iter_mut()
        .zip(grid.large.par_iter())
        .for_each(|(out, &l)| {
            out.clear();
            tests.large_body(grid, l, out);
        });
    gather_blocks(contacts, grid_blocks, blocks_needed);
    Ok(())
}

/// The contacts of grid bodies `range` into `out`, stopping once any block has more than
/// [`MAX_CONTACTS_PER_BODY`] a body (`too_many`).
#[inline(always)]
fn grid_block(
    (tests, grid, too_many): (&PairTests, &Grid, &AtomicBool),
    range: std::ops::Range<usize>,
    out: &mut Vec<(u64, ContactRow)>,
) {
    let budget = MAX_CONTACTS_PER_BODY * range.len();
    for i in range {
        if too_many.load(Ordering::Relaxed) {
            return;
        }
        if grid.cell_of[i] != crate::broad_phase::NOT_IN_GRID {
            tests.grid_body(grid, i as u32, out);
        }
        if out.len() > budget {
            too_many.store(true, Ordering::Relaxed);
        }
    }
}

/// [`grid_block`] built with AVX2 ([`crate::isa`]: the same bits).
///
/// # Safety
/// Only on a processor with the features [`isa::avx2`] checks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn grid_block_avx2(
    block: (&PairTests, &Grid, &AtomicBool),
    range: std::ops::Range<usize>,
    out: &mut Vec<(u64, ContactRow)>,
) {
    grid_block(block, range, out)
}

/// Concatenates the block buffers into the flat arrays sorted by key. The grid bodies' blocks
/// come sorted, one after the other in key order, so the large bodies' rows, sorted on their
/// own, are merged into them; only where a grid block breaks that order is everything sorted.
fn gather_blocks(contacts: &mut Contacts, grid_blocks: usize, blocks: usize) {
    let (grid, large) = contacts.blocks[..blocks].split_at(grid_blocks);
    contacts.block_start.clear();
    let mut total = 0u32;
    for b in grid {
        contacts.block_start.push(total);
        total += b.len() as u32;
    }
    contacts.large.clear();
    for b in large {
        contacts.large.extend_from_slice(b);
    }
    let large = &mut contacts.large;
    // Keys are unique, so the unstable sort is deterministic.
    large.par_sort_unstable_by_key(|c| c.0);
    // Without large rows the concatenation is the order, as the blocks give it.
    let merge = large.is_empty()
        || grid
            .par_iter()
            .all(|b| b.windows(2).all(|w| w[0].0 < w[1].0))
            && grid
                .iter()
                .filter_map(|b| Some((b.first()?.0, b.last()?.0)))
                .try_fold(None, |last: Option<u64>, (first, end)| {
                    last.is_none_or(|l| l < first).then_some(Some(end))
                })
                .is_some();
    let total = total as usize + contacts.large.len();
    contacts.rows.resize(total, ContactRow::default());
    contacts.keys.resize(total, 0);
    let large = contacts.large.as_slice();
    let rows = Disjoint::new(&mut contacts.rows);
    let keys = Disjoint::new(&mut contacts.keys);
    let put = |at: usize, (key, row): &(u64, ContactRow)| {
        // SAFETY: every caller writes positions no other writes (see each use).
        unsafe {
            *keys.get(at) = *key;
            *rows.get(at) = *row;
        }
    };
    grid.par_iter()
        .zip(contacts.block_start.par_iter())
        .for_each(|(b, &s)| {
            // Each grid row goes after its block's predecessors and the large rows of smaller
            // key: distinct positions, since keys are unique (out of order: their block's
            // range plus the large rows, sorted below).
            let mut q = b
                .first()
                .map_or(0, |f| large.partition_point(|l| l.0 < f.0));
            for (idx, c) in b.iter().enumerate() {
                while merge && q < large.len() && large[q].0 < c.0 {
                    q += 1;
                }
                put(s as usize + idx + if merge { q } else { 0 }, c);
            }
        });
    if !merge {
        large.par_iter().enumerate().for_each(|(q, c)| {
            // SAFETY: the grid rows filled the positions before the large ones.
            put(total - large.len() + q, c)
        });
        sort_all(contacts);
        return;
    }
    if large.is_empty() {
        return;
    }
    contacts.firsts.clear();
    let firsts = grid
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((b.first()?.0, i)));
    contacts.firsts.extend(firsts);
    let (firsts, block_start) = (&contacts.firsts, &contacts.block_start);
    large.par_iter().enumerate().for_each(|(q, c)| {
        // The grid rows of smaller key: the blocks before the one that holds c's place, and
        // that block's rows below c.
        let j = firsts.partition_point(|f| f.0 < c.0);
        let below = match j {
            0 => 0,
            _ => {
                let b = firsts[j - 1].1;
                block_start[b] as usize + grid[b].partition_point(|g| g.0 < c.0)
            }
        };
        put(q + below, c);
    });
}

/// Sorts the flat arrays by key (a grid block out of key order).
fn sort_all(contacts: &mut Contacts) {
    contacts.order.clear();
    contacts.order.extend(
        contacts
            .keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, i as u32)),
    );
    contacts.order.par_sort_unstable();
    contacts.sorted.clear();
    contacts.sorted.extend(
        contacts
            .order
            .iter()
            .map(|&(_, i)| contacts.rows[i as usize]),
    );
    std::mem::swap(&mut contacts.rows, &mut contacts.sorted);
    for (k, &(key, _)) in contacts.keys.iter_mut().zip(&contacts.order) {
        *k = key;
    }
}
