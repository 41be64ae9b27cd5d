//! Stage 3, narrow phase (mesh walls): contacts of spheres, a clump's member spheres and
//! ellipsoids ([`crate::pair_algorithms::ellipsoid_triangle`]) with the triangles of triangle-mesh walls, found
//! through a uniform grid over the triangles ([`mesh_contacts`]: the same search and shared-rim
//! rule for every body, each with its own candidate per triangle; boxes and polyhedra take the
//! same search, [`for_each_triangle_near`], with several points per triangle,
//! [`crate::pair_algorithms::polytope_triangle`]).
//!
//! The host places every mesh's triangles in world coordinates for the step ([`MeshWalls`]) and
//! rebuilds the [`TriangleGrid`] when a mesh moves (once for meshes that never move). Each
//! sphere looks up the cells its reach covers and takes the closest point q of every triangle
//! there (face, edge or vertex of the triangle); with d = ‖p − q‖ the gap is Φ = d − r along
//! n = (p − q)/d, or, at a face, Φ = (p − a)·n_f − r along the face normal n_f turned towards
//! the sphere, the same sums as a flat wall's.
//!
//! **One contact per touching point.** A point shared by several triangles (a shared edge or
//! vertex) would be found once per triangle. The rule: a contact at an edge or vertex of its
//! triangle e, at point q_e with distance d_e, is dropped when q_e lies on another candidate
//! triangle f (within a tolerance τ) that is nearer, d_f < d_e − τ, or as near (|d_f − d_e| ≤ τ)
//! and either touches at its face or has the lower index. Face contacts are always kept. So a
//! sphere over a flat triangulated floor has one contact whichever triangle, edge or vertex
//! lies under it (the neighbour's edge point lies on the face it is over, which is nearer), a
//! sphere on a shared edge or vertex keeps the lowest-indexed triangle's contact, and a sphere
//! in a concave crease keeps one contact per face it touches.
//!
//! Contacts with triangle t are keyed as walls numbered after the flat and cylinder walls,
//! `wall_key(i, first_wall + t)`, or-ed with the probe's flag (a clump's member k carries
//! [`crate::narrow_phase::wall_point_flag`]`(k)`, a box's or polyhedron's point k the same),
//! with body b = [`NO_BODY`]: the solver treats them as wall contacts and their warm start
//! follows the triangle. The mesh's velocity at the contact point c (p − r n for a sphere),
//! v + ω × (c − x_axis), enters the row's bias as a moving wall's does.

use crate::cell_coords::floor_cell;
use crate::layout::{wall_key, ContactRow, NO_BODY};
use bytemuck::{Pod, Zeroable};
use glam::{IVec3, Vec3, Vec4};

/// One triangle of a mesh wall, placed in world coordinates for the current step.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Triangle {
    /// First vertex (m); w: friction material index.
    pub a: [f32; 4],
    /// Second vertex (m); w: index of the mesh the triangle belongs to.
    pub b: [f32; 4],
    /// Third vertex (m); w unused.
    pub c: [f32; 4],
}

impl Triangle {
    /// The triangle (a, b, c) of mesh `mesh` with material `material`.
    pub fn new(v: [Vec3; 3], material: u32, mesh: u32) -> Self {
        Triangle {
            a: v[0].extend(material as f32).to_array(),
            b: v[1].extend(mesh as f32).to_array(),
            c: v[2].extend(0.0).to_array(),
        }
    }

    /// The three vertices.
    #[inline(always)]
    pub fn vertices(&self) -> [Vec3; 3] {
        [self.a, self.b, self.c].map(|v| Vec4::from_array(v).truncate())
    }

    /// Friction material index.
    pub fn material(&self) -> u32 {
        self.a[3] as u32
    }

    /// Index of the mesh the triangle belongs to.
    pub fn mesh(&self) -> u32 {
        self.b[3] as u32
    }
}

/// A mesh's motion over the current step: every point x of it moves at
/// v + ω × (x − `axis_point`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MeshMotion {
    /// Linear velocity v (m/s); w unused.
    pub velocity: [f32; 4],
    /// Angular velocity ω (rad/s); w unused.
    pub angular: [f32; 4],
    /// A point of the rotation axis at the step's start (m); w unused.
    pub axis_point: [f32; 4],
}

impl MeshMotion {
    /// Velocity v + ω × (x − x_axis) of the mesh's point `x`.
    #[inline(always)]
    pub fn velocity_at(&self, x: Vec3) -> Vec3 {
        let v = |a: [f32; 4]| Vec4::from_array(a).truncate();
        v(self.velocity) + v(self.angular).cross(x - v(self.axis_point))
    }
}

/// A uniform grid over the triangles: each triangle is listed in every cell its bounding box
/// overlaps (cells by count → prefix sum → scatter, in triangle order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriangleGrid {
    /// Lower corner of cell (0, 0, 0).
    pub origin: Vec3,
    /// Cell edge (m).
    pub cell: f32,
    /// Cells along x, y, z (all 0 when there are no triangles).
    pub dims: IVec3,
    /// Triangles of cell c are `triangles[start[c]..start[c + 1]]`, in increasing index.
    pub start: Vec<u32>,
    /// Triangle indices sorted by cell.
    pub triangles: Vec<u32>,
}

impl TriangleGrid {
    /// The grid over `triangles` with cells at least `min_cell` wide (the broad phase's cell is
    /// a good choice) and no narrower than the triangles' mean bounding-box edge; the cells are
    /// widened until there are at most 4 per triangle (plus 4096), so memory stays linear.
    pub fn build(triangles: &[Triangle], min_cell: f32) -> Self {
        if triangles.is_empty() {
            return TriangleGrid::default();
        }
        let boxes: Vec<(Vec3, Vec3)> = triangles.iter().map(bounding_box).collect();
        let (lo, hi) = boxes.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), b| (lo.min(b.0), hi.max(b.1)),
        );
        let mean_edge = boxes
            .iter()
            .map(|(l, h)| f64::from((*h - *l).max_element()))
            .sum::<f64>()
            / boxes.len() as f64;
        let extent = (hi - lo).max(Vec3::splat(1e-6));
        let mut cell = min_cell
            .max(mean_edge as f32)
            .max(extent.max_element() * 1e-4);
        let limit = 4 * triangles.len() as u64 + 4096;
        let dims = loop {
            let d = (extent / cell).floor().as_ivec3() + IVec3::ONE;
            if d.as_i64vec3().element_product() as u64 <= limit {
                break d;
            }
            cell *= 1.25;
        };
        let mut grid = TriangleGrid {
            origin: lo,
            cell,
            dims,
            start: vec![0; dims.element_product() as usize + 1],
            triangles: Vec::new(),
        };
        let ranges: Vec<(IVec3, IVec3)> = boxes
            .iter()
            .map(|(l, h)| (grid.coords(*l), grid.coords(*h)))
            .collect();
        for &(l, h) in &ranges {
            for_each_cell_in(dims, l, h, |c| grid.start[c] += 1);
        }
        let mut total = 0;
        for s in grid.start.iter_mut() {
            let n = *s;
            *s = total;
            total += n;
        }
        grid.triangles = vec![0; total as usize];
        let mut fill = grid.start.clone();
        for (t, &(l, h)) in ranges.iter().enumerate() {
            let (dims, triangles) = (grid.dims, &mut grid.triangles);
            for_each_cell_in(dims, l, h, |c| {
                triangles[fill[c] as usize] = t as u32;
                fill[c] += 1;
            });
        }
        grid
    }

    /// Cell coordinates of a point, clamped into the grid.
    #[inline(always)]
    pub fn coords(&self, p: Vec3) -> IVec3 {
        floor_cell((p - self.origin) / self.cell).clamp(IVec3::ZERO, self.dims - IVec3::ONE)
    }

    /// Calls `f` with the flat index of every cell from `lo` to `hi` (inclusive).
    fn for_each_cell(&self, lo: IVec3, hi: IVec3, f: impl FnMut(usize)) {
        for_each_cell_in(self.dims, lo, hi, f);
    }

    /// The triangles listed in the cells that the box [`lo`, `hi`] overlaps, each once, in
    /// increasing index, into `out` (cleared first).
    pub fn triangles_near(&self, lo: Vec3, hi: Vec3, out: &mut Vec<u32>) {
        out.clear();
        if self.triangles.is_empty() {
            return;
        }
        let top = self.origin + self.dims.as_vec3() * self.cell;
        if lo.cmpgt(top).any() || hi.cmplt(self.origin).any() {
            return;
        }
        self.for_each_cell(self.coords(lo), self.coords(hi), |c| {
            out.extend_from_slice(
                &self.triangles[self.start[c] as usize..self.start[c + 1] as usize],
            );
        });
        out.sort_unstable();
        out.dedup();
    }
}

/// Calls `f` with the flat index of every cell from `lo` to `hi` (inclusive) of a grid of
/// `dims` cells.
fn for_each_cell_in(dims: IVec3, lo: IVec3, hi: IVec3, mut f: impl FnMut(usize)) {
    for z in lo.z..=hi.z {
        for y in lo.y..=hi.y {
            for x in lo.x..=hi.x {
                f(((z * dims.y + y) * dims.x + x) as usize);
            }
        }
    }
}

/// The axis-aligned bounding box of a triangle.
fn bounding_box(t: &Triangle) -> (Vec3, Vec3) {
    let [a, b, c] = t.vertices();
    (a.min(b).min(c), a.max(b).max(c))
}

/// Every mesh wall of the world, placed for the current step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshWalls {
    /// All meshes' triangles in world coordinates, mesh after mesh.
    pub triangles: Vec<Triangle>,
    /// Each mesh's motion over the step (indexed by [`Triangle::mesh`]).
    pub motions: Vec<MeshMotion>,
    /// The wall number of triangle 0 in contact keys: the number of flat and cylinder walls.
    pub first_wall: u32,
    /// The fastest any point of any mesh moves (m/s), which widens the spheres' search.
    pub max_speed: f32,
    /// The grid over `triangles` (rebuilt by the host whenever they move).
    pub grid: TriangleGrid,
}

impl MeshWalls {
    /// True when the world has no mesh wall.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// Triangle `t`'s index among all walls, for [`wall_key`].
    #[inline(always)]
    pub fn wall_of(&self, t: u32) -> u32 {
        self.first_wall + t
    }

    /// The triangle of a wall number from a contact key, or `None` for a flat or cylinder wall.
    #[inline(always)]
    pub fn triangle_of_wall(&self, wall: usize) -> Option<usize> {
        wall.checked_sub(self.first_wall as usize)
    }
}

/// Which part of a triangle its closest point to a sphere's centre lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// The interior of the face.
    Face,
    /// An edge or a vertex.
    Rim,
}

/// The point of triangle `[a, b, c]` closest to `p`, and whether it lies on the face's interior
/// or on its rim (by the triangle's Voronoi regions: vertices, then edges, then the face).
pub fn closest_point_on_triangle(p: Vec3, [a, b, c]: [Vec3; 3]) -> (Vec3, Feature) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Rim);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Rim);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Feature::Rim);
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Rim);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Feature::Rim);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return (
            b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))),
            Feature::Rim,
        );
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), Feature::Face)
}

/// One triangle's candidate contact with a body (a sphere, a clump's member, an ellipsoid).
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    /// Triangle index.
    pub triangle: u32,
    /// The triangle's point at the contact (for a sphere, its closest point to the centre).
    pub point: Vec3,
    /// Unit normal from the triangle to the body.
    pub normal: Vec3,
    /// How far the body is from the triangle, for ranking the candidates of one body against
    /// each other (a sphere: its centre's distance Φ + r; an ellipsoid: Φ).
    pub distance: f32,
    /// Face or rim.
    pub feature: Feature,
    /// Gap Φ (m).
    pub gap: f32,
    /// The body's surface point at the contact, relative to the probe's centre.
    pub arm: Vec3,
}

/// The unit normal of triangle `v`'s face turned towards `p`.
#[inline(always)]
pub fn face_normal_towards(v: [Vec3; 3], p: Vec3) -> Vec3 {
    let face = (v[1] - v[0]).cross(v[2] - v[0]).normalize();
    if (p - v[0]).dot(face) < 0.0 {
        -face
    } else {
        face
    }
}

/// The candidate contact of the sphere of radius `r` centred at `p` with triangle `t` (index
/// `index`): at a face, the face normal turned towards p and the distance (p − a)·n_f; at the
/// rim, n = (p − q)/‖p − q‖ and ‖p − q‖ (the face normal when p lies on the rim); Φ = distance
/// − r, the arm −r n.
pub fn sphere_triangle_candidate(p: Vec3, r: f32, t: &Triangle, index: u32) -> Candidate {
    let v = t.vertices();
    let (q, feature) = closest_point_on_triangle(p, v);
    let face = face_normal_towards(v, p);
    let (normal, distance) = match feature {
        Feature::Face => (face, (p - v[0]).dot(face)),
        Feature::Rim => {
            let d = (p - q).length();
            (if d > 0.0 { (p - q) / d } else { face }, d)
        }
    };
    Candidate {
        triangle: index,
        point: q,
        normal,
        distance,
        feature,
        gap: distance - r,
        arm: -r * normal,
    }
}

/// Keeps one contact per touching point (the rule of the module's notes): drops each rim
/// candidate whose point lies, within `tol`, on another candidate's triangle that is nearer, or
/// as near and touching at its face or of lower index. `candidates` are in increasing triangle
/// index; the kept ones stay in that order.
pub fn drop_shared_rim_contacts(
    candidates: &mut Vec<Candidate>,
    keep: &mut Vec<bool>,
    triangles: &[Triangle],
    tol: f32,
) {
    keep.clear();
    keep.resize(candidates.len(), true);
    for (e, ce) in candidates.iter().enumerate() {
        if ce.feature == Feature::Face {
            continue;
        }
        keep[e] = !candidates.iter().enumerate().any(|(f, cf)| {
            if f == e {
                return false;
            }
            let on_f = {
                let (q, _) =
                    closest_point_on_triangle(ce.point, triangles[cf.triangle as usize].vertices());
                (q - ce.point).length() <= tol
            };
            let nearer = cf.distance < ce.distance - tol;
            let as_near = (cf.distance - ce.distance).abs() <= tol
                && (cf.feature == Feature::Face || cf.triangle < ce.triangle);
            on_f && (nearer || as_near)
        });
    }
    let mut k = keep.iter();
    candidates.retain(|_| *k.next().unwrap_or(&true));
}

/// A body whose mesh contacts are sought: its index, a centre and the radius about it that
/// holds every point of it that can touch (a sphere's own), and the flag or-ed into its
/// contacts' keys (a clump's member number, [`crate::narrow_phase::wall_point_flag`]; 0 for a
/// whole body).
pub struct MeshProbe {
    /// Body index.
    pub body: u32,
    /// Centre (m).
    pub centre: Vec3,
    /// Bounding radius about `centre` (m).
    pub radius: f32,
    /// Key flag of the probe's contacts.
    pub flag: u64,
}

/// Appends the rows of the contacts of the sphere `s` (centre, radius) with the meshes:
/// [`mesh_contacts`] with [`sphere_triangle_candidate`].
pub fn sphere_mesh_contacts(
    mesh: &MeshWalls,
    s: &MeshProbe,
    reach: f32,
    row: impl FnMut(Vec3, f32, Vec3, Vec3, u32) -> Option<ContactRow>,
    out: &mut Vec<(u64, ContactRow)>,
) {
    let candidate = |t: &Triangle, index| {
        let c = sphere_triangle_candidate(s.centre, s.radius, t, index);
        (c.gap <= reach).then_some(c)
    };
    mesh_contacts(mesh, s, reach, 1e-4 * s.radius, candidate, row, out);
}

/// Appends the rows of the contacts of the body `probe` with the meshes, in ascending key order
/// (descending triangle), each key `wall_key(body, triangle's wall) | flag`: every triangle
/// whose box comes within `reach` (the largest ε̂ the body can have with any mesh) of the
/// probe's bounding sphere and for which `candidate(triangle, index)` finds a contact, after
/// [`drop_shared_rim_contacts`] with tolerance `tol`. `row(n, Φ, arm, v_wall, material)`
/// builds the row (arm from the probe's centre), or `None` when Φ exceeds the pair's ε̂.
pub fn mesh_contacts(
    mesh: &MeshWalls,
    probe: &MeshProbe,
    reach: f32,
    tol: f32,
    candidate: impl FnMut(&Triangle, u32) -> Option<Candidate>,
    row: impl FnMut(Vec3, f32, Vec3, Vec3, u32) -> Option<ContactRow>,
    out: &mut Vec<(u64, ContactRow)>,
) {
    SCRATCH.with_borrow_mut(|scratch| {
        mesh_contacts_in(mesh, probe, reach, tol, scratch, candidate, row, out)
    });
}

/// Calls `f(triangle, index)` for every triangle, in increasing index, whose bounding box
/// meets the box about the probe's bounding sphere widened by `reach`, from the triangle grid's
/// cells there (`near`: a reusable buffer).
pub fn for_each_triangle_near(
    mesh: &MeshWalls,
    probe: &MeshProbe,
    reach: f32,
    near: &mut Vec<u32>,
    mut f: impl FnMut(&Triangle, u32),
) {
    let span = Vec3::splat(probe.radius + reach);
    let (lo, hi) = (probe.centre - span, probe.centre + span);
    mesh.grid.triangles_near(lo, hi, near);
    for &t in near.iter() {
        let tri = &mesh.triangles[t as usize];
        let (tlo, thi) = bounding_box(tri);
        if tlo.cmpgt(hi).any() || thi.cmplt(lo).any() {
            continue;
        }
        f(tri, t);
    }
}

/// A worker thread's reusable buffers for [`mesh_contacts`]: the triangles near a body, their
/// candidate contacts and which of those are kept.
type Scratch = (Vec<u32>, Vec<Candidate>, Vec<bool>);

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new()))
    };
}

/// [`mesh_contacts`] with the thread's buffers.
#[allow(clippy::too_many_arguments)]
fn mesh_contacts_in(
    mesh: &MeshWalls,
    probe: &MeshProbe,
    reach: f32,
    tol: f32,
    (near, candidates, keep): &mut Scratch,
    mut candidate: impl FnMut(&Triangle, u32) -> Option<Candidate>,
    mut row: impl FnMut(Vec3, f32, Vec3, Vec3, u32) -> Option<ContactRow>,
    out: &mut Vec<(u64, ContactRow)>,
) {
    candidates.clear();
    for_each_triangle_near(mesh, probe, reach, near, |tri, t| {
        candidates.extend(candidate(tri, t))
    });
    if candidates.is_empty() {
        return;
    }
    drop_shared_rim_contacts(candidates, keep, &mesh.triangles, tol);
    for c in candidates.iter().rev() {
        let tri = &mesh.triangles[c.triangle as usize];
        let vw = mesh.motions[tri.mesh() as usize].velocity_at(probe.centre + c.arm);
        let key = wall_key(probe.body, mesh.wall_of(c.triangle)) | probe.flag;
        if let Some(r) = row(c.normal, c.gap, c.arm, vw, tri.material()) {
            debug_assert_eq!(r.body_b, NO_BODY);
            out.push((key, r));
        }
    }
}
