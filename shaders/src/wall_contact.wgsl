// Stage 3's sphere–wall contact (mirrors kernels/src/wall_contact.rs): the point of a wall
// closest to a sphere's centre for a rectangle or plane (face, edge, corner), a disk or annulus
// (face, rims), a cylinder or cone frustum (mantle, rim circles); an inactive wall has none.

const WALL_OFF: u32 = 1u;
const WALL_DISK: u32 = 2u;
const WALL_GROUP: u32 = 4u;
/// The gap meaning "no contact".
const NO_TOUCH: f32 = 3.0e38;

/// The flags word of wall w (as Wall::flags).
fn wall_flags(w: u32) -> u32 {
    return u32(walls[w].velocity.w);
}

/// A unit vector normal to the unit `e` (as layout::axis_normal): e × x̂, or e × ŷ when e is
/// near x̂.
fn axis_normal(e: vec3<f32>) -> vec3<f32> {
    return normalize(cross(e, select(vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(1.0, 0.0, 0.0), abs(e.x) < 0.9)));
}

/// (n, Φ) of a centre at `d` from the wall's closest point, along `face` when d = 0 (as
/// touch_from).
fn touch_from(d: vec3<f32>, r: f32, face: vec3<f32>) -> vec4<f32> {
    let dist = length(d);
    var n = face;
    if dist > 0.0 {
        n = d / dist;
    }
    return vec4<f32>(n, dist - r);
}

/// Sphere–frustum (as sphere_frustum): the generator segment ρ = R₀ + k σ, |σ| ≤ L in the
/// centre's axial half-plane; the signed distance to it within, its rim circles beyond.
fn sphere_frustum(wall: Wall, p: vec3<f32>, r: f32) -> vec4<f32> {
    let o = wall.origin.xyz;
    let e = wall.normal.xyz;
    let r0 = abs(wall.origin.w);
    let inside = wall.origin.w > 0.0;
    let k = wall.u.x;
    let half = wall.u.w;
    let rel = p - o;
    let s = dot(rel, e);
    let d = rel - s * e;
    let rho = length(d);
    var w = axis_normal(e);
    if rho > 0.0 {
        w = d / rho;
    }
    let norm = sqrt(1.0 + k * k);
    let towards_axis = (k * e - w) / norm;
    var face = -towards_axis;
    var depth = (rho - r0 - k * s) / norm;
    if inside {
        face = towards_axis;
        depth = (r0 + k * s - rho) / norm;
    }
    let foot = (s + k * (rho - r0)) / (1.0 + k * k);
    if abs(foot) <= half {
        if depth < -r {
            return vec4<f32>(face, NO_TOUCH);
        }
        return vec4<f32>(face, depth - r);
    }
    let end = select(-half, half, foot >= 0.0);
    return touch_from((s - end) * e + (rho - (r0 + k * end)) * w, r, face);
}

/// Sphere–annulus (as sphere_annulus): the face over inner ≤ ρ ≤ outer, the rims off it.
fn sphere_annulus(wall: Wall, p: vec3<f32>, r: f32) -> vec4<f32> {
    let n = wall.normal.xyz;
    let rel = p - wall.origin.xyz;
    let dist = dot(rel, n);
    let d = rel - dist * n;
    let rho = length(d);
    let outer = wall.u.w;
    let inner = wall.v.w;
    if rho >= inner && rho <= outer {
        if dist < -r {
            return vec4<f32>(n, NO_TOUCH);
        }
        return vec4<f32>(n, dist - r);
    }
    var w = axis_normal(n);
    if rho > 0.0 {
        w = d / rho;
    }
    let rim = clamp(rho, inner, outer);
    return touch_from(dist * n + (rho - rim) * w, r, n);
}

/// Whether p lies over the face of rectangle `other` (as Wall::covers for a rectangle).
fn over_rectangle(other: Wall, p: vec3<f32>) -> bool {
    let rel = p - other.origin.xyz;
    return abs(dot(rel, other.u.xyz)) <= other.u.w && abs(dot(rel, other.v.xyz)) <= other.v.w;
}

/// Whether p lies over another switched-on rectangle of wall w's plane group with an index
/// below `below` (as over_coplanar_neighbour).
fn over_coplanar_neighbour(w: u32, p: vec3<f32>, below: u32) -> bool {
    let group = wall_flags(w) / WALL_GROUP;
    if group == 0u {
        return false;
    }
    for (var k = 0u; k < below; k = k + 1u) {
        let flags = wall_flags(k);
        if k != w && flags / WALL_GROUP == group && (flags & WALL_OFF) == 0u && over_rectangle(walls[k], p) {
            return true;
        }
    }
    return false;
}

/// Sphere–rectangle (as sphere_rectangle): the face over the rectangle (unless a lower-index
/// coplanar neighbour also has p over its face), else its clamped edge or corner point unless p
/// lies over a coplanar neighbour of its plane group.
fn sphere_rectangle(w: u32, p: vec3<f32>, r: f32) -> vec4<f32> {
    let wall = walls[w];
    let n = wall.normal.xyz;
    let rel = p - wall.origin.xyz;
    let dist = dot(rel, n);
    let s = dot(rel, wall.u.xyz);
    let t = dot(rel, wall.v.xyz);
    if abs(s) <= wall.u.w && abs(t) <= wall.v.w {
        if dist < -r || over_coplanar_neighbour(w, p, w) {
            return vec4<f32>(n, NO_TOUCH);
        }
        return vec4<f32>(n, dist - r);
    }
    if over_coplanar_neighbour(w, p, params.n_walls) {
        return vec4<f32>(n, NO_TOUCH);
    }
    let sc = clamp(s, -wall.u.w, wall.u.w);
    let tc = clamp(t, -wall.v.w, wall.v.w);
    return touch_from(dist * n + (s - sc) * wall.u.xyz + (t - tc) * wall.v.xyz, r, n);
}

/// The unit normal (xyz) and gap Φ (w) of a sphere of radius r centred at p against wall w (as
/// sphere_wall); Φ = NO_TOUCH when there is no contact.
fn sphere_wall(w: u32, p: vec3<f32>, r: f32) -> vec4<f32> {
    let wall = walls[w];
    let flags = wall_flags(w);
    if (flags & WALL_OFF) != 0u {
        return vec4<f32>(wall.normal.xyz, NO_TOUCH);
    }
    if wall.origin.w != 0.0 {
        return sphere_frustum(wall, p, r);
    }
    if (flags & WALL_DISK) != 0u {
        return sphere_annulus(wall, p, r);
    }
    return sphere_rectangle(w, p, r);
}
