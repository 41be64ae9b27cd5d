//! Convex polyhedra: a table of convex hulls ([`Hull`]) in their bodies' frames (centre of mass
//! at the origin, principal axes along x, y, z), which a [`Shape::Polyhedron`] names by index,
//! and their contacts, all as points so that a polyhedron resting on a face is held at that
//! face's corners and does not rock:
//! * against a wall, each vertex (a sphere of radius zero, as a cuboid's corners);
//! * against a sphere, the hull's point nearest the sphere's centre ([`point_polyhedron`]);
//! * against another polyhedron, the separating-axis test over both hulls' face normals and
//!   the cross products of their edges ([`polyhedra_touch`]): the axis of greatest separation
//!   is the contact normal and its separation the depth (exact for convex polyhedra: their
//!   Minkowski difference is a polyhedron whose faces have these normals). A face axis gives
//!   a manifold, the incident face (the other hull's face most against the normal) clipped to
//!   the reference face's side planes (Sutherland–Hodgman), each clipped corner one point at
//!   its depth below the reference plane; an edge axis gives the edges' nearest points.
//!
//! The separating-axis test stands in for GJK/EPA: both find the closest features of two convex
//! bodies, but with at most [`MAX_HULL_VERTICES`] vertices a hull's faces and edges are few,
//! and the test's axes are exact and need no iteration or tolerance of convergence. Between
//! separated hulls whose nearest features are two vertices or a vertex and an edge, its
//! separation is a lower bound of their distance (a contact reported slightly early, never late).

use crate::shapes::capsule::closest_between_segments;
use crate::shapes::{Placed, Shape, Touch};
use glam::{Quat, Vec3};

/// The most vertices of one hull: each vertex meets a wall, and the key flags number at most 16
/// points of one body against one wall ([`crate::narrow_phase::wall_point_flag`]).
pub const MAX_HULL_VERTICES: usize = 16;

/// The most contact points of a pair with a polyhedron in it: a clipped face keeps at most
/// this many of its corners.
pub const POLYHEDRON_PAIR_POINTS: usize = 16;

/// One face of a [`Hull`]: its plane n·x = d and its vertex loop, counter-clockwise seen from
/// outside.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HullFace {
    /// Outward unit normal in the body's frame.
    pub normal: Vec3,
    /// The plane's distance from the centre of mass, n·x for x on the face (m).
    pub offset: f32,
    /// First entry of the loop in [`Hull::loops`].
    pub start: u32,
    /// Number of vertices in the loop.
    pub count: u32,
}

/// A convex polyhedron in its body's frame: vertices, faces (coplanar triangles merged into one
/// polygon each) and edges.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hull {
    /// The vertices (m), at most [`MAX_HULL_VERTICES`].
    pub vertices: Vec<Vec3>,
    /// The faces.
    pub faces: Vec<HullFace>,
    /// The faces' vertex loops, one after the other (indices into `vertices`).
    pub loops: Vec<u32>,
    /// Each edge once, as the indices of its two ends.
    pub edges: Vec<[u32; 2]>,
    /// The two faces each edge bounds (indices into `faces`, in the order of `edges`).
    pub edge_faces: Vec<[u32; 2]>,
    /// The distance from the centre of mass to the nearest face plane (m): the inscribed
    /// sphere about the centre, how far the body reaches behind a vertex on a wall.
    pub inner_radius: f32,
    /// The distance from the centre of mass to the farthest vertex (m).
    pub outer_radius: f32,
}

impl Hull {
    /// The vertex loop of face `f`.
    #[inline(always)]
    pub fn face_loop(&self, f: usize) -> &[u32] {
        let face = &self.faces[f];
        &self.loops[face.start as usize..(face.start + face.count) as usize]
    }
}

/// The most faces of one hull: 2V − 4 for V vertices (Euler's formula, triangles only).
const MAX_HULL_FACES: usize = 2 * MAX_HULL_VERTICES - 4;

/// The most edges of one hull: 3V − 6 for V vertices (Euler's formula, triangles only).
const MAX_HULL_EDGES: usize = 3 * MAX_HULL_VERTICES - 6;

/// A hull placed in the world: its vertices and face normals turned and moved.
struct Posed<'a> {
    hull: &'a Hull,
    centre: Vec3,
    vertices: [Vec3; MAX_HULL_VERTICES],
    normals: [Vec3; MAX_HULL_FACES],
}

impl<'a> Posed<'a> {
    fn new(hull: &'a Hull, centre: Vec3, q: Quat) -> Self {
        let mut vertices = [Vec3::ZERO; MAX_HULL_VERTICES];
        for (w, &v) in vertices.iter_mut().zip(&hull.vertices) {
            *w = centre + q * v;
        }
        let mut normals = [Vec3::ZERO; MAX_HULL_FACES];
        for (w, f) in normals.iter_mut().zip(&hull.faces) {
            *w = q * f.normal;
        }
        Posed {
            hull,
            centre,
            vertices,
            normals,
        }
    }

    fn vertices(&self) -> &[Vec3] {
        &self.vertices[..self.hull.vertices.len()]
    }

    /// Face f's world normal and a point of its plane.
    fn face(&self, f: usize) -> (Vec3, Vec3) {
        let face = &self.hull.faces[f];
        (
            self.normals[f],
            self.vertices[self.hull.loops[face.start as usize] as usize],
        )
    }

    /// The lowest and highest projections of the vertices on `n`.
    fn span(&self, n: Vec3) -> (f32, f32) {
        self.vertices()
            .iter()
            .map(|v| v.dot(n))
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            })
    }

    /// Face with the greatest separation of `other` from its plane, min over other's vertices
    /// of (x − p)·n: (separation, face).
    fn best_face(&self, other: &Posed) -> (f32, usize) {
        (0..self.hull.faces.len())
            .map(|f| {
                let (n, p) = self.face(f);
                (other.span(n).0 - p.dot(n), f)
            })
            .fold(
                (f32::NEG_INFINITY, 0),
                |best, x| if x.0 > best.0 { x } else { best },
            )
    }
}

/// A sphere of radius `r` about `p` (side a) against the hull `hull` at centre `c` and
/// orientation `q` (side b): outside, the hull's nearest point e (inside a face whose plane p
/// stands in front of, or on an edge), n = (p − e)/‖p − e‖ and Φ = ‖p − e‖ − r; inside (or on
/// the surface), the face whose plane is nearest, n its normal and Φ = −(depth below it) − r.
pub fn point_polyhedron(p: Vec3, r: f32, hull: &Hull, c: Vec3, q: Quat) -> Touch {
    let local = q.inverse() * (p - c);
    let heights = |f: &HullFace| local.dot(f.normal) - f.offset;
    let (top, top_face) = hull
        .faces
        .iter()
        .enumerate()
        .map(|(i, f)| (heights(f), i))
        .fold((f32::NEG_INFINITY, 0), |b, x| if x.0 > b.0 { x } else { b });
    if top <= 0.0 {
        let n = q * hull.faces[top_face].normal;
        return Touch {
            n,
            phi: top - r,
            pa: p - r * n,
            pb: p - top * n,
        };
    }
    // Outside: the nearest point lies inside a face in front of p, or on an edge.
    let mut nearest = Vec3::ZERO;
    let mut best = f32::INFINITY;
    for (f, face) in hull.faces.iter().enumerate() {
        let h = heights(face);
        if h <= 0.0 || h >= best {
            continue;
        }
        let foot = local - h * face.normal;
        if inside_loop(hull, f, foot) {
            (best, nearest) = (h, foot);
        }
    }
    for &[i, j] in &hull.edges {
        let (u, v) = (hull.vertices[i as usize], hull.vertices[j as usize]);
        let d = v - u;
        let s = ((local - u).dot(d) / d.length_squared()).clamp(0.0, 1.0);
        let e = u + s * d;
        let dist = (local - e).length();
        if dist < best {
            (best, nearest) = (dist, e);
        }
    }
    let n = q * ((local - nearest) / best);
    Touch {
        n,
        phi: best - r,
        pa: p - r * n,
        pb: c + q * nearest,
    }
}

/// Whether `x` (in face f's plane, body frame) lies within the face's loop: behind each edge's
/// side plane, (x − v_i)·((v_{i+1} − v_i) × n) ≤ 0.
fn inside_loop(hull: &Hull, f: usize, x: Vec3) -> bool {
    let n = hull.faces[f].normal;
    let ring = hull.face_loop(f);
    (0..ring.len()).all(|i| {
        let (u, v) = (
            hull.vertices[ring[i] as usize],
            hull.vertices[ring[(i + 1) % ring.len()] as usize],
        );
        (x - u).dot((v - u).cross(n)) <= 0.0
    })
}

/// Smallest sin² of the angle between two edges for their cross product to be an axis (nearly
/// parallel edges are covered by the faces' axes).
const CROSSING_SIN2: f32 = 1e-4;

/// The most corners a clipped polygon can have: an incident face's and one per side plane.
const CLIP_CAPACITY: usize = 2 * MAX_HULL_VERTICES;

/// The contact points of polyhedra a and b (their hulls `ha`, `hb`), by the separating-axis
/// test over both hulls' face normals and the cross products of their edges (see the module
/// comment). A face axis wins unless an edge axis separates them farther by more than 10⁻³ of
/// the hulls' inner radii (so that a face resting on a face gives its manifold, not one of its
/// edges); the reference face is a's best face unless b's separates farther by that much. The
/// face manifold keeps the clipped corners whose depth Φ is at most `cutoff`, at most
/// [`POLYHEDRON_PAIR_POINTS`] of them (evenly through the loop when it has more); an edge axis
/// gives one point, the edges' nearest points, Φ = (p_a − p_b)·n.
///
/// None of them when some axis separates the hulls by more than `cutoff`.
pub fn polyhedra_touch(
    a: &Placed,
    ha: &Hull,
    b: &Placed,
    hb: &Hull,
    cutoff: f32,
) -> [Option<Touch>; POLYHEDRON_PAIR_POINTS] {
    let mut out = [None; POLYHEDRON_PAIR_POINTS];
    let (pa, pb) = (Posed::new(ha, a.centre, a.q), Posed::new(hb, b.centre, b.q));
    let (sep_a, face_a) = pa.best_face(&pb);
    if sep_a > cutoff {
        return out;
    }
    let (sep_b, face_b) = pb.best_face(&pa);
    if sep_b > cutoff {
        return out;
    }
    let near = 1e-3 * (ha.inner_radius + hb.inner_radius);
    let face_sep = sep_a.max(sep_b);
    if let Some((sep, ea, eb, n)) = best_edges(&pa, &pb, face_sep + near) {
        if sep > cutoff {
            return out;
        }
        let ([ia, ja], [ib, jb]) = (ha.edges[ea], hb.edges[eb]);
        let (a0, a1) = (pa.vertices[ia as usize], pa.vertices[ja as usize]);
        let (b0, b1) = (pb.vertices[ib as usize], pb.vertices[jb as usize]);
        let (ua, la) = ((a1 - a0).normalize(), 0.5 * (a1 - a0).length());
        let (ub, lb) = ((b1 - b0).normalize(), 0.5 * (b1 - b0).length());
        let (ma, mb) = (0.5 * (a0 + a1), 0.5 * (b0 + b1));
        let (s, t) = closest_between_segments(ma, ua, la, mb, ub, lb);
        let (xa, xb) = (ma + ua * s, mb + ub * t);
        out[0] = Some(Touch {
            n,
            phi: (xa - xb).dot(n),
            pa: xa,
            pb: xb,
        });
        return out;
    }
    if sep_b > sep_a + near {
        face_manifold(&pb, face_b, &pa, cutoff, &mut out);
        for t in out.iter_mut().flatten() {
            *t = t.swapped();
        }
    } else {
        face_manifold(&pa, face_a, &pb, cutoff, &mut out);
    }
    out
}

/// The edge pair whose cross product separates the hulls farthest, when that separation is
/// above `least`: (separation, a's edge, b's edge, unit axis turned from b towards a). The
/// separation along an axis is that of the whole hulls (their vertices' projections); of the
/// edges giving it, only a pair lying on both hulls' supporting planes (a's lowest, b's
/// highest along the axis) is where they meet.
fn best_edges(pa: &Posed, pb: &Posed, least: f32) -> Option<(f32, usize, usize, Vec3)> {
    let mut best = None;
    let mut top = least;
    let towards_a = pa.centre - pb.centre;
    // Vertices may stand this far off a supporting plane (rounding of their positions).
    let slack = 1e-5 * (pa.hull.outer_radius + pb.hull.outer_radius);
    // Each edge's arc on the Gauss map, b's negated (the Minkowski difference's).
    let arc = |p: &Posed, e: usize, sign: f32| {
        let [f, g] = p.hull.edge_faces[e];
        let (x, y) = (sign * p.normals[f as usize], sign * p.normals[g as usize]);
        [x, y, y.cross(x)]
    };
    let mut arcs_b = [[Vec3::ZERO; 3]; MAX_HULL_EDGES];
    for (j, slot) in arcs_b.iter_mut().enumerate().take(pb.hull.edges.len()) {
        *slot = arc(pb, j, -1.0);
    }
    for (i, &[a0, a1]) in pa.hull.edges.iter().enumerate() {
        let da = pa.vertices[a1 as usize] - pa.vertices[a0 as usize];
        let arc_a = arc(pa, i, 1.0);
        for (j, (&[b0, b1], arc_b)) in pb.hull.edges.iter().zip(&arcs_b).enumerate() {
            if !arcs_cross(&arc_a, arc_b) {
                continue;
            }
            let db = pb.vertices[b1 as usize] - pb.vertices[b0 as usize];
            let cross = da.cross(db);
            if cross.length_squared() < CROSSING_SIN2 * da.length_squared() * db.length_squared() {
                continue;
            }
            let n = cross.normalize();
            let n = if towards_a.dot(n) < 0.0 { -n } else { n };
            let ((lo_a, _), (_, hi_b)) = (pa.span(n), pb.span(n));
            let sep = lo_a - hi_b;
            let on = |x: Vec3, level: f32| (x.dot(n) - level).abs() <= slack;
            let supports = on(pa.vertices[a0 as usize], lo_a)
                && on(pa.vertices[a1 as usize], lo_a)
                && on(pb.vertices[b0 as usize], hi_b)
                && on(pb.vertices[b1 as usize], hi_b);
            if sep > top && supports {
                top = sep;
                best = Some((sep, i, j, n));
            }
        }
    }
    best
}

/// Whether the arcs a–b and c–d of the unit sphere cross (Gregorius's test of a Minkowski
/// face), each given as [a, b, b × a] and [c, d, d × c]: an edge of one hull (its faces' normals
/// a, b) and one of the other (c, d, negated) form a face of the hulls' Minkowski difference,
/// whose normal ∥ (b × a) × (d × c) is a candidate separating axis, exactly when c and d lie on
/// either side of the plane of a and b, a and b on either side of that of c and d, and both
/// arcs on one hemisphere: (c·(b × a))(d·(b × a)) < 0, (a·(d × c))(b·(d × c)) < 0 and
/// (c·(b × a))(b·(d × c)) > 0. Other edge pairs give no axis the faces' do not beat, so they
/// are passed over before their projections.
#[inline(always)]
fn arcs_cross([a, b, bxa]: &[Vec3; 3], [c, d, dxc]: &[Vec3; 3]) -> bool {
    let (cba, dba) = (c.dot(*bxa), d.dot(*bxa));
    if cba * dba >= 0.0 {
        return false;
    }
    let (adc, bdc) = (a.dot(*dxc), b.dot(*dxc));
    adc * bdc < 0.0 && cba * bdc > 0.0
}

/// The manifold of `reference`'s face `f` against `incident`: the incident face (the one whose
/// normal is most against f's) clipped to f's side planes, each corner x with Φ = (x − p)·n ≤
/// `cutoff` (p on f's plane, n its normal) giving a touch with n from the reference towards the
/// incident body: the incident body's point x, the reference body's point x − Φ n. When no
/// corner is left, the incident hull's deepest vertex along −n (Φ the separation on this axis)
/// is the one point, so that a pair whose faces barely overlap is never let through.
fn face_manifold(
    reference: &Posed,
    f: usize,
    incident: &Posed,
    cutoff: f32,
    out: &mut [Option<Touch>; POLYHEDRON_PAIR_POINTS],
) {
    let (n, p) = reference.face(f);
    let against = (0..incident.hull.faces.len())
        .map(|g| (incident.normals[g].dot(n), g))
        .fold((f32::INFINITY, 0), |b, x| if x.0 < b.0 { x } else { b })
        .1;
    let mut poly = [Vec3::ZERO; CLIP_CAPACITY];
    let mut count = 0;
    for &v in incident.hull.face_loop(against) {
        poly[count] = incident.vertices[v as usize];
        count += 1;
    }
    let ring = reference.hull.face_loop(f);
    for i in 0..ring.len() {
        let u = reference.vertices[ring[i] as usize];
        let v = reference.vertices[ring[(i + 1) % ring.len()] as usize];
        let side = (v - u).cross(n);
        count = clip_to_plane(&mut poly, count, side, side.dot(u));
        if count == 0 {
            break;
        }
    }
    let mut kept = [Vec3::ZERO; CLIP_CAPACITY];
    let mut depths = [0.0; CLIP_CAPACITY];
    let mut found = 0;
    for &x in &poly[..count] {
        let phi = (x - p).dot(n);
        if phi <= cutoff {
            kept[found] = x;
            depths[found] = phi;
            found += 1;
        }
    }
    if found == 0 {
        // The incident face's overlap with the reference face is empty (or beyond the cutoff):
        // the incident hull's deepest vertex, whose Φ is the separation along n.
        let deepest = incident
            .vertices()
            .iter()
            .map(|&x| ((x - p).dot(n), x))
            .fold((f32::INFINITY, p), |b, x| if x.0 < b.0 { x } else { b });
        if deepest.0 <= cutoff {
            (kept[0], depths[0], found) = (deepest.1, deepest.0, 1);
        }
    }
    let take = found.min(POLYHEDRON_PAIR_POINTS);
    for (k, slot) in out.iter_mut().take(take).enumerate() {
        let i = k * found / take;
        let (x, phi) = (kept[i], depths[i]);
        *slot = Some(Touch {
            n: -n,
            phi,
            pa: x - phi * n,
            pb: x,
        });
    }
}

/// Sutherland–Hodgman: clips the polygon `poly[..count]` to the half-space s·x ≤ d, in place;
/// returns the new count (corners inside kept, edges crossing the plane cut at it).
fn clip_to_plane(poly: &mut [Vec3; CLIP_CAPACITY], count: usize, s: Vec3, d: f32) -> usize {
    let mut clipped = [Vec3::ZERO; CLIP_CAPACITY];
    let mut found = 0;
    for i in 0..count {
        let (x, y) = (poly[i], poly[(i + 1) % count]);
        let (hx, hy) = (s.dot(x) - d, s.dot(y) - d);
        if hx <= 0.0 && found < CLIP_CAPACITY {
            clipped[found] = x;
            found += 1;
        }
        if (hx <= 0.0) != (hy <= 0.0) && found < CLIP_CAPACITY {
            clipped[found] = x + (y - x) * (hx / (hx - hy));
            found += 1;
        }
    }
    poly[..found].copy_from_slice(&clipped[..found]);
    found
}

/// The contact points of a polyhedron–polyhedron or polyhedron–sphere pair, the pairs
/// [`crate::pairs::PairRoutine::Polyhedra`] routes here ([`polyhedra_touch`]; against a sphere
/// the hull's point nearest its centre, [`point_polyhedron`]), in the order the narrow phase's
/// key flags number them ([`crate::narrow_phase::point_flag`]).
pub fn polyhedron_pair_points(
    a: &Placed,
    b: &Placed,
    hulls: &[Hull],
    cutoff: f32,
) -> [Option<Touch>; POLYHEDRON_PAIR_POINTS] {
    let mut out = [None; POLYHEDRON_PAIR_POINTS];
    match (a.shape, b.shape) {
        (Shape::Polyhedron { hull: i, .. }, Shape::Polyhedron { hull: j, .. }) => {
            return polyhedra_touch(a, &hulls[i as usize], b, &hulls[j as usize], cutoff);
        }
        (Shape::Polyhedron { hull, .. }, Shape::Sphere) => {
            let h = &hulls[hull as usize];
            out[0] = Some(point_polyhedron(b.centre, b.radius, h, a.centre, a.q).swapped());
        }
        (Shape::Sphere, Shape::Polyhedron { hull, .. }) => {
            let h = &hulls[hull as usize];
            out[0] = Some(point_polyhedron(a.centre, a.radius, h, b.centre, b.q));
        }
        (a, b) => unreachable!("{a:?}–{b:?} is not a pair of polyhedra's (crate::pairs)"),
    }
    out
}

/// The vertices of hull `hull` at centre `c` and orientation `q`, c + R v, in world coordinates
/// (the first `hull.vertices.len()` entries).
pub fn hull_vertices(hull: &Hull, c: Vec3, q: Quat) -> [Vec3; MAX_HULL_VERTICES] {
    Posed::new(hull, c, q).vertices
}
