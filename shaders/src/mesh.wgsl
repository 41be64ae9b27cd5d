// Stage 3, narrow phase with mesh walls (mirrors kernels/src/mesh.rs): sphere–triangle contacts
// found through the host's triangle grid. Each sphere takes the closest point q of every
// triangle listed in the cells its reach covers; Φ = ‖p − q‖ − r along (p − q)/‖p − q‖ at an
// edge or vertex, Φ = (p − a)·n_f − r along the face normal turned towards p at the face. One
// contact per touching point: an edge or vertex contact is dropped when its point lies, within
// τ, on another candidate triangle that is nearer, or as near and touching at its face or of
// lower index (as drop_shared_rim_contacts). Triangle t is the wall n_walls + t of the keys.

/// Candidate triangles one sphere may hold (more are reported as an overflow).
const MAX_MESH_CANDIDATES: u32 = 16u;

/// The mesh walls in one buffer (one binding: the adapters' 32 storage buffers a stage are
/// taken): the grid's facts (as mesh::TriangleGrid), then `words`: the placed triangles (12
/// words each, mesh::Triangle's bytes), from `motions_at` the meshes' motions (12 words each,
/// mesh::MeshMotion's bytes), from `index_at` the cells' starts (cells + 1 of them) and the
/// triangle indices sorted by cell.
struct MeshData {
    origin: vec3<f32>,
    cell: f32,
    dims: vec3<i32>,
    n_triangles: u32,
    max_speed: f32,     // fastest any point of any mesh moves (m/s)
    cells: u32,
    motions_at: u32,
    index_at: u32,
    words: array<u32>,
}

@group(1) @binding(1) var<storage, read_write> mesh_data: MeshData;

/// The four words from word `o` as a vector.
fn mesh_vec4(o: u32) -> vec4<f32> {
    let w = &mesh_data.words;
    return bitcast<vec4<f32>>(vec4<u32>((*w)[o], (*w)[o + 1u], (*w)[o + 2u], (*w)[o + 3u]));
}

/// Triangle t.
fn triangle(t: u32) -> Triangle {
    let o = 12u * t;
    return Triangle(mesh_vec4(o), mesh_vec4(o + 4u), mesh_vec4(o + 8u));
}

/// The motion of mesh m.
fn mesh_motion(m: u32) -> MeshMotion {
    let o = mesh_data.motions_at + 12u * m;
    return MeshMotion(mesh_vec4(o), mesh_vec4(o + 4u), mesh_vec4(o + 8u));
}

/// Element k of the grid's index: the cells' starts, then the triangles.
fn mesh_index(k: u32) -> u32 {
    return mesh_data.words[mesh_data.index_at + k];
}

/// One triangle's candidate contact: closest point q (xyz) and rim flag (w: 1 at an edge or
/// vertex, 0 at the face), unit normal towards the centre (xyz) and distance Φ + r (w).
struct MeshCandidate {
    point: vec4<f32>,
    normal: vec4<f32>,
}

/// The point of triangle t closest to p (xyz) and whether it lies on the rim (w = 1) or inside
/// the face (w = 0), by the triangle's Voronoi regions (as closest_point_on_triangle).
fn closest_point_on_triangle(p: vec3<f32>, t: u32) -> vec4<f32> {
    let tri = triangle(t);
    let a = tri.a.xyz;
    let b = tri.b.xyz;
    let c = tri.c.xyz;
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return vec4<f32>(a, 1.0);
    }
    let bp = p - b;
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if d3 >= 0.0 && d4 <= d3 {
        return vec4<f32>(b, 1.0);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return vec4<f32>(a + ab * (d1 / (d1 - d3)), 1.0);
    }
    let cp = p - c;
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if d6 >= 0.0 && d5 <= d6 {
        return vec4<f32>(c, 1.0);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return vec4<f32>(a + ac * (d2 / (d2 - d6)), 1.0);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return vec4<f32>(b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))), 1.0);
    }
    let denom = 1.0 / (va + vb + vc);
    return vec4<f32>(a + ab * (vb * denom) + ac * (vc * denom), 0.0);
}

/// The candidate contact of the sphere centred at p with triangle t (as triangle_candidate).
fn triangle_candidate(p: vec3<f32>, t: u32) -> MeshCandidate {
    let tri = triangle(t);
    let a = tri.a.xyz;
    let q = closest_point_on_triangle(p, t);
    var face = normalize(cross(tri.b.xyz - a, tri.c.xyz - a));
    if dot(p - a, face) < 0.0 {
        face = -face;
    }
    var out: MeshCandidate;
    out.point = q;
    if q.w == 0.0 {
        out.normal = vec4<f32>(face, dot(p - a, face));
    } else {
        let d = length(p - q.xyz);
        out.normal = vec4<f32>(select(face, (p - q.xyz) / d, d > 0.0), d);
    }
    return out;
}

/// The velocity of triangle t's mesh at point x.
fn mesh_velocity_at(t: u32, x: vec3<f32>) -> vec3<f32> {
    let m = mesh_motion(u32(triangle(t).b.w));
    return m.velocity.xyz + cross(m.angular.xyz, x - m.axis_point.xyz);
}

/// Cell coordinates of a point in the triangle grid, clamped into it.
fn mesh_cell(p: vec3<f32>) -> vec3<i32> {
    let c = vec3<i32>(floor((p - mesh_data.origin) / mesh_data.cell));
    return clamp(c, vec3<i32>(0), mesh_data.dims - vec3<i32>(1));
}

/// Whether the candidate e (triangle te) is an edge or vertex contact another candidate f
/// supersedes (as drop_shared_rim_contacts).
fn rim_superseded(e: u32, tris: ptr<function, array<u32, MAX_MESH_CANDIDATES>>,
                  found: ptr<function, array<MeshCandidate, MAX_MESH_CANDIDATES>>, n: u32, tol: f32) -> bool {
    let ce = (*found)[e];
    let te = (*tris)[e];
    for (var f = 0u; f < n; f = f + 1u) {
        if f == e {
            continue;
        }
        let cf = (*found)[f];
        let on_f = length(closest_point_on_triangle(ce.point.xyz, (*tris)[f]).xyz - ce.point.xyz) <= tol;
        let nearer = cf.normal.w < ce.normal.w - tol;
        let as_near = abs(cf.normal.w - ce.normal.w) <= tol && (cf.point.w == 0.0 || (*tris)[f] < te);
        if on_f && (nearer || as_near) {
            return true;
        }
    }
    return false;
}

/// Adds sphere i's ε̂-active mesh contacts as partners NO_BODY − (n_walls + t): every triangle
/// within the reach ε̂(|v| + max mesh speed) of the cells the sphere's box covers, each once,
/// culled by its bounding box, then the shared-rim rule, then Φ ≤ ε̂ of the closing speed with
/// the mesh's velocity at the contact point (as sphere_mesh_contacts).
fn gather_meshes(i: u32, list: ptr<function, array<u32, MAX_PAIRS>>, count: ptr<function, u32>) {
    if mesh_data.n_triangles == 0u {
        return;
    }
    let pr = pos_radius[i];
    let p = pr.xyz;
    let vi = motion[i].linear;
    let search = pair_envelope(length(vi) + mesh_data.max_speed);
    let span = vec3<f32>(pr.w + search);
    let lo = p - span;
    let hi = p + span;
    let top = mesh_data.origin + vec3<f32>(mesh_data.dims) * mesh_data.cell;
    if any(lo > top) || any(hi < mesh_data.origin) {
        return;
    }
    var tris: array<u32, MAX_MESH_CANDIDATES>;
    var found: array<MeshCandidate, MAX_MESH_CANDIDATES>;
    var n = 0u;
    var overflow = 0u;
    let first = mesh_cell(lo);
    let last = mesh_cell(hi);
    let d = mesh_data.dims;
    for (var z = first.z; z <= last.z; z = z + 1) {
        for (var y = first.y; y <= last.y; y = y + 1) {
            for (var x = first.x; x <= last.x; x = x + 1) {
                let c = u32((z * d.y + y) * d.x + x);
                let end = mesh_index(c + 1u);
                for (var k = mesh_index(c); k < end; k = k + 1u) {
                    let t = mesh_index(mesh_data.cells + 1u + k);
                    var seen = false;
                    for (var s = 0u; s < n; s = s + 1u) {
                        seen = seen || tris[s] == t;
                    }
                    let tri = triangle(t);
                    let tlo = min(min(tri.a.xyz, tri.b.xyz), tri.c.xyz);
                    let thi = max(max(tri.a.xyz, tri.b.xyz), tri.c.xyz);
                    if seen || any(tlo > hi) || any(thi < lo) {
                        continue;
                    }
                    let cand = triangle_candidate(p, t);
                    if cand.normal.w - pr.w <= search {
                        if n < MAX_MESH_CANDIDATES {
                            tris[n] = t;
                            found[n] = cand;
                            n = n + 1u;
                        } else {
                            overflow = overflow + 1u;
                        }
                    }
                }
            }
        }
    }
    if overflow > 0u {
        atomicMax(&stats[STAT_MESH_CANDIDATES], n + overflow);
    }
    let tol = 1e-4 * pr.w;
    for (var e = 0u; e < n; e = e + 1u) {
        let ce = found[e];
        if ce.point.w != 0.0 && rim_superseded(e, &tris, &found, n, tol) {
            continue;
        }
        let vw = mesh_velocity_at(tris[e], p - pr.w * ce.normal.xyz);
        if ce.normal.w - pr.w <= pair_envelope(closing_speed(vi, vw, ce.normal.xyz)) {
            add_partner(list, count, NO_BODY - (params.n_walls + tris[e]));
        }
    }
}

/// The row of sphere i's contact with triangle t (as sphere_mesh_contacts' rows): the normal and
/// gap of triangle_candidate, lever arm −r n, the mesh's velocity at c = p − r n in the bias.
fn mesh_row(i: u32, t: u32) -> ContactRow {
    let pr = pos_radius[i];
    let cand = triangle_candidate(pr.xyz, t);
    let n = cand.normal.xyz;
    let arm = -pr.w * n;
    let phi = cand.normal.w - pr.w;
    let vw = mesh_velocity_at(t, pr.xyz + arm);
    let mu = swept_mu(friction[material[i] * params.n_materials + u32(triangle(t).a.w)], phi,
                      motion[i].linear, vw, n, pr.w);
    return contact_row(i, NO_BODY, n, phi, arm, vec3<f32>(0.0), mu, vw);
}
