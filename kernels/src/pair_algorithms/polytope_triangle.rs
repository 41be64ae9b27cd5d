//! Stage 3, narrow phase (mesh walls): a box or a convex polyhedron against one triangle of a
//! mesh wall, by the polyhedra's separating-axis test ([`polyhedra_touch`]) with the triangle as
//! a thin convex hull.
//!
//! The triangle becomes a prism: its face on top, turned towards the body's centre (the side
//! the body is on, as sphere–mesh contacts take it), and a copy of the face sunk a depth τ
//! behind it (τ = 10⁻³ of the longest edge; the prism's side faces carry the edges' outward
//! normals in the triangle's plane, its short vertical edges the vertices'). The signed distance
//! of two convex bodies is the greatest separation over unit axes, attained on a face normal of
//! either or a cross product of an edge of each, so the test over the prism's and the body's
//! faces and edges is exact for the prism; its top face is the triangle itself, so a body on
//! it is held at the triangle, and a body reaching behind the triangle by less than τ is met
//! as by the triangle. A face axis gives the contact points of a clipped face (a box resting on
//! the triangle: the corners of its bottom face within the triangle, the bottom face's
//! crossings of the triangle's edges), an edge axis the nearest points of the two edges (a box
//! edge across a mesh ridge). Across a shared edge each triangle holds the part of the body's
//! face over it, so the points on the shared edge are found by both: the support is shared,
//! not doubled (the contact forces still add up to the weight).

use crate::mesh::{face_normal_towards, for_each_triangle_near, MeshProbe, MeshWalls, Triangle};
use crate::shapes::polyhedron::{polyhedra_touch, Hull, HullFace, POLYHEDRON_PAIR_POINTS};
use crate::shapes::{Placed, Shape, Touch};
use glam::{Quat, Vec3};

/// The prism's depth behind the triangle, as a fraction of its longest edge.
const PRISM_DEPTH: f32 = 1e-3;

/// Rewrites `out` (its buffers reused) as the hull of the box of half-extents `half` in its
/// body's frame: eight corners (bit i of the index the sign along axis i), six faces with their
/// loops counter-clockwise seen from outside, twelve edges with their two faces.
pub fn cuboid_hull(half: Vec3, out: &mut Hull) {
    clear(out);
    let sign = |k: usize, i: usize| if k >> i & 1 == 1 { 1.0 } else { -1.0 };
    out.vertices
        .extend((0..8).map(|k| half * Vec3::new(sign(k, 0), sign(k, 1), sign(k, 2))));
    // Face 2a + (s > 0) has normal s e_a; its loop runs (−,−), (+,−), (+,+), (−,+) over the
    // axes b = a + 1, c = a + 2 (positive about e_a since e_b × e_c = e_a), reversed for −e_a.
    for a in 0..3 {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        for up in [false, true] {
            let base = usize::from(up) << a;
            let mut ring = [0, 1 << b, 1 << b | 1 << c, 1 << c].map(|k| (base | k) as u32);
            if !up {
                ring.reverse();
            }
            let normal = Vec3::AXES[a] * if up { 1.0 } else { -1.0 };
            push_face(out, normal, half[a], &ring);
        }
    }
    for a in 0..3 {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        for k in 0..4usize {
            let (sb, sc) = (k & 1, k >> 1 & 1);
            let from = sb << b | sc << c;
            out.edges.push([from as u32, (from | 1 << a) as u32]);
            out.edge_faces
                .push([(2 * b + sb) as u32, (2 * c + sc) as u32]);
        }
    }
    out.inner_radius = half.min_element();
    out.outer_radius = half.length();
}

/// Rewrites `out` (its buffers reused) as the prism of triangle `v` (see the module), its top
/// face turned towards `towards`, about the triangle's centroid, which it returns.
pub fn triangle_prism(v: [Vec3; 3], towards: Vec3, out: &mut Hull) -> Vec3 {
    clear(out);
    let centroid = (v[0] + v[1] + v[2]) / 3.0;
    let n = face_normal_towards(v, towards);
    // The top loop counter-clockwise about n.
    let v = if (v[1] - v[0]).cross(v[2] - v[0]).dot(n) > 0.0 {
        v
    } else {
        [v[0], v[2], v[1]]
    };
    let longest = (0..3)
        .map(|i| (v[(i + 1) % 3] - v[i]).length())
        .fold(0.0, f32::max);
    let depth = PRISM_DEPTH * longest;
    out.vertices.extend(v.iter().map(|&x| x - centroid));
    out.vertices
        .extend(v.iter().map(|&x| x - depth * n - centroid));
    let top = out.vertices[0].dot(n);
    push_face(out, n, top, &[0, 1, 2]);
    push_face(out, -n, depth - top, &[3, 5, 4]);
    for i in 0..3u32 {
        let j = (i + 1) % 3;
        let m = (v[j as usize] - v[i as usize]).cross(n).normalize();
        let offset = out.vertices[i as usize].dot(m);
        push_face(out, m, offset, &[i, i + 3, j + 3, j]);
    }
    // Faces: 0 top, 1 bottom, 2 + i the side of edge i → i + 1.
    for i in 0..3u32 {
        let j = (i + 1) % 3;
        out.edges.push([i, j]);
        out.edge_faces.push([0, 2 + i]);
        out.edges.push([i + 3, j + 3]);
        out.edge_faces.push([1, 2 + i]);
        out.edges.push([i, i + 3]);
        out.edge_faces.push([2 + (i + 2) % 3, 2 + i]);
    }
    out.inner_radius = 0.5 * depth;
    out.outer_radius = out.vertices.iter().map(|x| x.length()).fold(0.0, f32::max);
    centroid
}

/// Empties a hull's buffers, keeping their capacity.
fn clear(h: &mut Hull) {
    h.vertices.clear();
    h.faces.clear();
    h.loops.clear();
    h.edges.clear();
    h.edge_faces.clear();
}

/// Appends a face of unit `normal`, plane offset `offset` and vertex loop `ring`.
fn push_face(h: &mut Hull, normal: Vec3, offset: f32, ring: &[u32]) {
    h.faces.push(HullFace {
        normal,
        offset,
        start: h.loops.len() as u32,
        count: ring.len() as u32,
    });
    h.loops.extend_from_slice(ring);
}

/// The contact points of the convex body `body` (its hull `hull`) with triangle `t`, the
/// triangle as the prism `prism` (rewritten here): [`polyhedra_touch`], n from the triangle to
/// the body, `pa` the body's point; none beyond `cutoff`.
pub fn polytope_triangle_points(
    body: &Placed,
    hull: &Hull,
    t: &Triangle,
    prism: &mut Hull,
    cutoff: f32,
) -> [Option<Touch>; POLYHEDRON_PAIR_POINTS] {
    let centroid = triangle_prism(t.vertices(), body.centre, prism);
    let placed = Placed {
        centre: centroid,
        q: Quat::IDENTITY,
        radius: prism.inner_radius,
        shape: Shape::Sphere,
    };
    polyhedra_touch(body, hull, &placed, prism, cutoff)
}

/// A worker thread's reusable buffers for [`polytope_mesh_contacts`]: the triangles near a body,
/// a box's hull and a triangle's prism.
type Scratch = (Vec<u32>, Hull, Hull);

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Default::default());
}

/// The contacts of the box or polyhedron `body` (a polyhedron's hull `hull`; a box's is built
/// here) with the triangles of the meshes near it (the probe's bounding sphere within `reach`):
/// for each triangle t, each point k of [`polytope_triangle_points`] within `reach` calls
/// `row(t, k, touch)`.
pub fn polytope_mesh_contacts(
    mesh: &MeshWalls,
    probe: &MeshProbe,
    body: &Placed,
    hull: Option<&Hull>,
    reach: f32,
    mut row: impl FnMut(u32, usize, &Touch),
) {
    SCRATCH.with_borrow_mut(|(near, box_hull, prism)| {
        let hull = match (hull, body.shape) {
            (Some(h), _) => h,
            (None, Shape::Cuboid { half_extents }) => {
                cuboid_hull(half_extents, box_hull);
                &*box_hull
            }
            (None, _) => return,
        };
        for_each_triangle_near(mesh, probe, reach, near, |tri, t| {
            let points = polytope_triangle_points(body, hull, tri, prism, reach);
            for (k, touch) in points.iter().enumerate() {
                if let Some(touch) = touch {
                    row(t, k, touch);
                }
            }
        });
    });
}
