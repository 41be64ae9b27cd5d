//! Convex polyhedra on the library side: the convex hull of a point cloud with its faces
//! (coplanar triangles merged into one polygon), the exact mass properties of the solid hull,
//! and the world's checks of polyhedral bodies.
//!
//! The hull is found by its supporting planes: a plane through three points with every point
//! on one side of it (within 10⁻⁶ of the cloud's size) bounds the hull, and the points on it
//! are that face's corners, ordered by a planar convex hull (Andrew's monotone chain) that drops
//! the points inside the face or on its edges. It takes O(n⁴) for n points, so a cloud holds at
//! most [`MAX_CLOUD_POINTS`]; being exhaustive it needs no care of degenerate cases
//! (coplanar, cocircular, repeated points) beyond its tolerance.
//!
//! Mass properties at unit density, by signed tetrahedra from an interior point o to each
//! face's fan triangles (a, b, c), D = (a − o)·((b − o) × (c − o)) (closed form): volume
//! V = Σ D/6, centroid c = o + Σ (D/24)(a + b + c − 3o)/V, second moments
//! C = Σ D/120 (Σᵢ xᵢxᵢᵀ + s sᵀ) with xᵢ the corners from o and s their sum, shifted to the
//! centroid by C − V d dᵀ (d = c − o), and the inertia tensor I = tr(C) E − C. The principal
//! moments and axes come from a cyclic Jacobi eigen-decomposition of I in f64.

use crate::body::{Body, Shape};
use crate::error::BuildError;
use crate::settings::Settings;
use glam::{DMat3, DVec3, Quat, Vec3};
use grains_kernels::shapes::polyhedron::{Hull, HullFace, MAX_HULL_VERTICES};
use std::fmt;

/// The most points of a cloud given to [`Polyhedron::from_points`] (its hull is found in
/// O(n⁴)).
pub const MAX_CLOUD_POINTS: usize = 128;

/// Why a point cloud has no usable convex hull.
#[derive(Clone, Debug, PartialEq)]
pub enum HullError {
    /// Fewer than four distinct points.
    TooFewPoints(usize),
    /// More than [`MAX_CLOUD_POINTS`] points.
    TooManyPoints(usize),
    /// A coordinate that is not finite.
    NotFinite,
    /// Every point on one plane (or line): the hull has no volume.
    Flat,
    /// A hull with more than [`MAX_HULL_VERTICES`] vertices.
    TooManyVertices(usize),
}

impl fmt::Display for HullError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            HullError::TooFewPoints(n) => {
                write!(f, "a polyhedron needs at least 4 distinct points, got {n}")
            }
            HullError::TooManyPoints(n) => write!(
                f,
                "a polyhedron's point cloud holds at most {MAX_CLOUD_POINTS} points, got {n}"
            ),
            HullError::NotFinite => write!(f, "every coordinate must be finite"),
            HullError::Flat => write!(f, "the points lie on one plane: their hull has no volume"),
            HullError::TooManyVertices(n) => write!(
                f,
                "a polyhedron has at most {MAX_HULL_VERTICES} vertices, this hull has {n}"
            ),
        }
    }
}

impl std::error::Error for HullError {}

/// A solid convex polyhedron: its hull in its principal frame and its mass properties at unit
/// density.
#[derive(Clone, Debug, PartialEq)]
pub struct Polyhedron {
    /// The hull with the centre of mass at the origin and the principal axes along x, y, z.
    pub hull: Hull,
    /// Volume (m³).
    pub volume: f32,
    /// Principal moments of inertia per unit mass (m²) about the hull's x, y and z axes.
    pub unit_moments: Vec3,
    /// The centre of mass in the frame the points were given in (m).
    pub centroid: Vec3,
    /// The principal axes in the frame the points were given in: a given point x is
    /// `centroid + frame * v` with v a vertex of `hull`. A body of this hull with orientation
    /// q stands as the given cloud turned by q · frame⁻¹.
    pub frame: Quat,
}

/// One face found in the cloud: its outward normal, offset and corner indices.
struct FoundFace {
    normal: DVec3,
    offset: f64,
    corners: Vec<usize>,
}

impl Polyhedron {
    /// The convex hull of `points` with its exact mass properties (see the module comment).
    pub fn from_points(points: &[Vec3]) -> Result<Self, HullError> {
        if points.len() > MAX_CLOUD_POINTS {
            return Err(HullError::TooManyPoints(points.len()));
        }
        if points.iter().any(|p| !p.is_finite()) {
            return Err(HullError::NotFinite);
        }
        let mut cloud: Vec<DVec3> = Vec::new();
        for p in points {
            let p = p.as_dvec3();
            if !cloud.contains(&p) {
                cloud.push(p);
            }
        }
        if cloud.len() < 4 {
            return Err(HullError::TooFewPoints(cloud.len()));
        }
        let faces = supporting_faces(&cloud)?;
        let mut used: Vec<usize> = faces.iter().flat_map(|f| f.corners.clone()).collect();
        used.sort_unstable();
        used.dedup();
        if used.len() > MAX_HULL_VERTICES {
            return Err(HullError::TooManyVertices(used.len()));
        }
        let (volume, centroid, inertia) = mass_properties(&cloud, &faces);
        let (moments, axes) = principal_axes(inertia);
        let to_body = |p: DVec3| (axes.transpose() * (p - centroid)).as_vec3();
        let vertices: Vec<Vec3> = used.iter().map(|&i| to_body(cloud[i])).collect();
        let index = |i: usize| used.binary_search(&i).expect("a corner is a vertex") as u32;
        let mut hull = Hull {
            vertices,
            ..Hull::default()
        };
        for f in &faces {
            let normal = (axes.transpose() * f.normal).as_vec3();
            let first = to_body(cloud[f.corners[0]]);
            hull.faces.push(HullFace {
                normal,
                offset: normal.dot(first),
                start: hull.loops.len() as u32,
                count: f.corners.len() as u32,
            });
            for (k, &c) in f.corners.iter().enumerate() {
                let next = f.corners[(k + 1) % f.corners.len()];
                hull.loops.push(index(c));
                let edge = [index(c).min(index(next)), index(c).max(index(next))];
                let face = hull.faces.len() as u32 - 1;
                match hull.edges.iter().position(|e| *e == edge) {
                    Some(k) => hull.edge_faces[k][1] = face,
                    None => {
                        hull.edges.push(edge);
                        hull.edge_faces.push([face, face]);
                    }
                }
            }
        }
        hull.inner_radius = hull
            .faces
            .iter()
            .map(|f| f.offset)
            .fold(f32::INFINITY, f32::min);
        hull.outer_radius = hull.vertices.iter().map(|v| v.length()).fold(0.0, f32::max);
        Ok(Polyhedron {
            hull,
            volume: volume as f32,
            unit_moments: (moments / volume).as_vec3(),
            centroid: centroid.as_vec3(),
            frame: Quat::from_mat3(&axes.as_mat3()),
        })
    }

    /// Mass of the solid hull at density `rho` (kg/m³): ρ V.
    pub fn mass(&self, rho: f32) -> f32 {
        self.volume * rho
    }
}

/// The faces of the cloud's hull: every plane through three points with all points on one
/// side, once each, corners counter-clockwise seen from outside.
fn supporting_faces(cloud: &[DVec3]) -> Result<Vec<FoundFace>, HullError> {
    let size = cloud
        .iter()
        .map(|p| (*p - cloud[0]).length())
        .fold(0.0, f64::max);
    let eps = 1e-6 * size;
    let mut faces: Vec<FoundFace> = Vec::new();
    let n = cloud.len();
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let cross = (cloud[j] - cloud[i]).cross(cloud[k] - cloud[i]);
                if cross.length() <= eps * size {
                    continue;
                }
                let normal = cross.normalize();
                let offset = normal.dot(cloud[i]);
                let heights = cloud.iter().map(|p| normal.dot(*p) - offset);
                let (lo, hi) = heights.fold((0.0f64, 0.0f64), |(lo, hi), h| (lo.min(h), hi.max(h)));
                let (normal, offset) = if hi <= eps {
                    (normal, offset)
                } else if lo >= -eps {
                    (-normal, -offset)
                } else {
                    continue;
                };
                if faces
                    .iter()
                    .any(|f| f.normal.dot(normal) > 1.0 - 1e-9 && (f.offset - offset).abs() <= eps)
                {
                    continue;
                }
                let on: Vec<usize> = (0..n)
                    .filter(|&m| (normal.dot(cloud[m]) - offset).abs() <= eps)
                    .collect();
                faces.push(FoundFace {
                    normal,
                    offset,
                    corners: planar_hull(cloud, &on, normal),
                });
            }
        }
    }
    if faces.len() < 4 {
        return Err(HullError::Flat);
    }
    Ok(faces)
}

/// The corners of the convex polygon of the points `on` (on one plane of normal `normal`),
/// counter-clockwise about the normal: Andrew's monotone chain in the plane's coordinates,
/// points on an edge dropped.
fn planar_hull(cloud: &[DVec3], on: &[usize], normal: DVec3) -> Vec<usize> {
    let u = normal.any_orthonormal_vector();
    let v = normal.cross(u);
    let mut pts: Vec<(f64, f64, usize)> = on
        .iter()
        .map(|&i| (cloud[i].dot(u), cloud[i].dot(v), i))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let turn = |o: (f64, f64, usize), a: (f64, f64, usize), b: (f64, f64, usize)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut ring: Vec<(f64, f64, usize)> = Vec::new();
    for pass in 0..2 {
        let start = ring.len();
        let iter: Box<dyn Iterator<Item = &(f64, f64, usize)>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while ring.len() >= start + 2
                && turn(ring[ring.len() - 2], ring[ring.len() - 1], p) <= 0.0
            {
                ring.pop();
            }
            ring.push(p);
        }
        ring.pop();
    }
    ring.into_iter().map(|p| p.2).collect()
}

/// Volume, centroid and inertia tensor about the centroid (unit density) of the solid bounded
/// by `faces`, by signed tetrahedra (see the module comment).
fn mass_properties(cloud: &[DVec3], faces: &[FoundFace]) -> (f64, DVec3, DMat3) {
    let corners: Vec<DVec3> = faces
        .iter()
        .flat_map(|f| f.corners.iter().map(|&i| cloud[i]))
        .collect();
    let o = corners.iter().copied().sum::<DVec3>() / corners.len() as f64;
    let (mut volume, mut first, mut second) = (0.0, DVec3::ZERO, DMat3::ZERO);
    for f in faces {
        let a = cloud[f.corners[0]] - o;
        for w in f.corners[1..].windows(2) {
            let (b, c) = (cloud[w[0]] - o, cloud[w[1]] - o);
            let det = a.dot(b.cross(c));
            volume += det / 6.0;
            first += det / 24.0 * (a + b + c);
            let s = a + b + c;
            let outer = |x: DVec3| DMat3::from_cols(x * x.x, x * x.y, x * x.z);
            second += (outer(a) + outer(b) + outer(c) + outer(s)) * (det / 120.0);
        }
    }
    let d = first / volume;
    let outer_d = DMat3::from_cols(d * d.x, d * d.y, d * d.z);
    let c = second - outer_d * volume;
    let trace = c.x_axis.x + c.y_axis.y + c.z_axis.z;
    (volume, o + d, DMat3::from_diagonal(DVec3::splat(trace)) - c)
}

/// The eigenvalues (ascending) and eigenvectors (the columns of a rotation) of the symmetric
/// matrix `m`, by cyclic Jacobi rotations until the off-diagonal is below 10⁻¹⁴ of the
/// trace (an entry that small counts as zero, so that a body with equal moments keeps its
/// given axes).
fn principal_axes(m: DMat3) -> (DVec3, DMat3) {
    let mut a = m.to_cols_array_2d();
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let scale = (a[0][0] + a[1][1] + a[2][2]).abs();
    for _ in 0..50 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off <= 1e-14 * scale {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q].abs() <= 1e-14 * scale {
                continue;
            }
            // The rotation in the (p, q) plane that zeroes a[p][q]: tan 2θ = 2 a_pq/(a_qq − a_pp).
            let theta = 0.5 * (2.0 * a[p][q]).atan2(a[q][q] - a[p][p]);
            let (s, c) = theta.sin_cos();
            // A ← Jᵀ A J and V ← V J: columns p and q of A and V, then rows p and q of A,
            // turned by θ.
            for row in a.iter_mut().chain(v.iter_mut()) {
                let (xp, xq) = (row[p], row[q]);
                row[p] = c * xp - s * xq;
                row[q] = s * xp + c * xq;
            }
            let (rp, rq) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * rp[k] - s * rq[k]);
            a[q] = std::array::from_fn(|k| s * rp[k] + c * rq[k]);
        }
    }
    let mut order = [0, 1, 2];
    order.sort_by(|&i, &j| a[i][i].total_cmp(&a[j][j]));
    let column = |i: usize| DVec3::new(v[0][i], v[1][i], v[2][i]);
    let (x, y) = (column(order[0]), column(order[1]));
    let axes = DMat3::from_cols(x, y, x.cross(y));
    (
        DVec3::new(
            a[order[0]][order[0]],
            a[order[1]][order[1]],
            a[order[2]][order[2]],
        ),
        axes,
    )
}

/// A polyhedron's hull registered on a builder ([`crate::WorldBuilder::hull`]): its index in
/// the world's hull table and what a body of it needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullId {
    /// Index in the world's hull table.
    pub index: u32,
    /// The distance from the centre of mass to the nearest face plane (m).
    pub inner_radius: f32,
    /// The distance from the centre of mass to the farthest vertex (m).
    pub outer_radius: f32,
    /// Principal moments per unit mass (m²).
    pub unit_moments: Vec3,
    /// Volume (m³).
    pub volume: f32,
}

impl HullId {
    /// The id of `p` registered as entry `index` of a world's hull table (what
    /// [`crate::WorldBuilder::hull`] returns for the hulls it is given in order).
    pub fn new(index: u32, p: &Polyhedron) -> Self {
        HullId {
            index,
            inner_radius: p.hull.inner_radius,
            outer_radius: p.hull.outer_radius,
            unit_moments: p.unit_moments,
            volume: p.volume,
        }
    }
}

impl Body {
    /// A dynamic uniform convex polyhedron of the hull `hull` (registered with
    /// [`crate::WorldBuilder::hull`]) and mass `mass`, its centre of mass at `position`, with
    /// the hull's principal moments times the mass (one scalar inertia when the three are
    /// equal to 10⁻⁶, as for a cube or a regular tetrahedron); its radius is the inner radius,
    /// the sphere about the centre within the faces. 3-D and the CPU backend only.
    pub fn polyhedron(position: Vec3, hull: HullId, mass: f32) -> Self {
        let moments = hull.unit_moments * mass;
        let body = Body {
            shape: Shape::Polyhedron {
                hull: hull.index,
                bounding_radius: hull.outer_radius,
            },
            inertia: moments.min_element(),
            ..Body::sphere(position, hull.inner_radius, mass)
        };
        if is_anisotropic(moments) {
            body.with_principal_moments(moments)
        } else {
            Body {
                inertia: moments.element_sum() / 3.0,
                ..body
            }
        }
    }

    /// [`Body::polyhedron`] of density `density` (kg/m³): m = ρ V with the hull's volume.
    pub fn polyhedron_of_density(position: Vec3, hull: HullId, density: f32) -> Self {
        Body::polyhedron(position, hull, hull.volume * density)
    }
}

/// Checks the polyhedra of a world against its hull table `hulls`: each names a hull of the
/// table with its bounding radius, has principal moments unless the hull's are equal, and
/// meets only spheres and polyhedra (the narrow phase meets them with nothing else); planar
/// mode and the GPU backend have none.
pub(crate) fn check_polyhedra(
    settings: &Settings,
    bodies: &[Body],
    hulls: &[Polyhedron],
) -> Result<(), BuildError> {
    let is_polyhedron = |b: &Body| matches!(b.shape, Shape::Polyhedron { .. });
    let Some(first) = bodies.iter().position(is_polyhedron) else {
        return Ok(());
    };
    let bad = |body: usize, problem: String| {
        Err(BuildError::Body {
            body,
            field: "shape",
            problem,
        })
    };
    if settings.planar {
        return bad(
            first,
            "a polyhedron is a 3-D body and planar mode has none".into(),
        );
    }
    for (i, b) in bodies.iter().enumerate() {
        let Shape::Polyhedron {
            hull,
            bounding_radius,
        } = b.shape
        else {
            continue;
        };
        let Some(h) = hulls.get(hull as usize) else {
            return bad(
                i,
                format!(
                    "names hull {hull} but the world has {} (register it with WorldBuilder::hull)",
                    hulls.len()
                ),
            );
        };
        if bounding_radius != h.hull.outer_radius {
            return bad(i, format!("bounding radius {bounding_radius} is not hull {hull}'s {} (make the body with Body::polyhedron)", h.hull.outer_radius));
        }
        if b.principal_moments.is_none() && is_anisotropic(h.unit_moments) {
            return bad(i, format!("hull {hull} has unequal principal moments {} per unit mass and this body has one scalar inertia (Body::polyhedron gives them)", h.unit_moments));
        }
    }
    Ok(())
}

/// Whether principal moments differ by more than 10⁻⁶ of the largest (below it a body has one
/// scalar inertia, [`Body::polyhedron`]).
fn is_anisotropic(moments: Vec3) -> bool {
    moments.max_element() - moments.min_element() > 1e-6 * moments.max_element()
}
