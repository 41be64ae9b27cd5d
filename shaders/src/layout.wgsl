// The buffers every stage shares, byte for byte the `Pod` structs of kernels/src/layout.rs, and
// the small helpers several stages use. Prepended to every stage's file by the host.

const NO_BODY: u32 = 0xffffffffu;
const DYNAMIC: u32 = 0u;
const FIXED: u32 = 1u;
const WG: u32 = 256u;

/// The body's bits of a half of a pair key (the top four number a clump member, as
/// narrow_phase::FLAGS_A and FLAGS_B), and the bit set in a wall's half (NO_BODY − w).
const KEY_BODY_BITS: u32 = 0x0fffffffu;
const KEY_WALL_BIT: u32 = 0x80000000u;

// Slots of `stats`.
const STAT_ROWS: u32 = 0u;          // contact rows found (may exceed the capacity)
const STAT_PENETRATION: u32 = 1u;   // bits of the deepest overlap −Φ ≥ 0 (f32)
const STAT_PAIRS: u32 = 2u;         // most partners one body had (overflow when > max_pairs)
const STAT_RESIDUAL: u32 = 3u;      // bits of the last sweep's max-norm residual (f32)
const STAT_GROUPS: u32 = 4u;        // workgroups of the contact dispatches
const STAT_MESH_CANDIDATES: u32 = 5u; // most mesh candidates one sphere had (overflow when > 16)

const STAT_SLOTS: u32 = 8u;

// Slots of `bounds`: the grid bodies' min x, y, z, max x, y, z and max reach (ordered-integer
// floats), then the small spheres' reaches summed in fixed point (low and high word).
const B_MIN: u32 = 0u;
const B_MAX: u32 = 3u;
const B_REACH: u32 = 6u;
const B_REACH_SUM: u32 = 7u;
const BOUND_SLOTS: u32 = 9u;

// Largest cell coordinate magnitude along a periodic axis (as broad_phase::FAR).
const FAR: f32 = 1073741824.0;

struct Motion {
    linear: vec3<f32>,
    inv_mass: f32,
    angular: vec3<f32>,
    inv_inertia: f32,
}

/// As layout::Wall: a flat wall (origin.w = 0), or an open cylinder about the axis through
/// origin along normal, of signed radius origin.w (> 0: grains inside), half length u.w,
/// turning at v.w rad/s, a cone frustum of slope dR/ds u.x; velocity.w: the flags word of
/// wall_contact.wgsl (off, disk, plane group).
struct Wall {
    origin: vec4<f32>,
    normal: vec4<f32>,
    u: vec4<f32>,
    v: vec4<f32>,
    velocity: vec4<f32>,
}

/// A per-body input of stage 1: a kinematic body's prescribed velocities (kind 0: l linear, a
/// angular) or the applied force on a dynamic body (kind 1: l, in N).
struct Actuation {
    body: u32,
    lx: f32, ly: f32, lz: f32,
    ax: f32, ay: f32, az: f32,
    kind: u32,
}

struct ContactRow {
    n: vec3<f32>,
    phi: f32,
    t1: vec3<f32>,
    mu: f32,
    t2: vec3<f32>,
    mass_n: f32,
    ra: vec3<f32>,
    mass_t: f32,
    rb: vec3<f32>,
    body_a: u32,
    bias: vec3<f32>,
    body_b: u32,
}

/// One contact of a body: its lever arm and `contact << 1 | side` (side 1: the body is b).
struct BodyEntry {
    arm: vec3<f32>,
    tag: u32,
}

struct Params {
    gravity: vec3<f32>,
    h: f32,
    envelope_floor: f32,
    envelope_speed: f32,
    omega: f32,
    softness: f32,
    softness_ratio: f32,
    large_limit: f32,
    warm_weight: f32,
    planar: u32,
    n_bodies: u32,
    n_walls: u32,
    n_drives: u32,
    n_large: u32,
    n_materials: u32,
    cell_capacity: u32,
    row_capacity: u32,
    stabilise: u32,     // 1: the contacts' normal rows carry Φ/h; 0: n·v⁺ ≥ 0
    give_speed: f32,    // δ/h: the most a compliant contact's spring gives in a step, as a speed
    n_owned: u32,       // bodies 0..n_owned are this rank's own (n_bodies outside a distributed run)
    n_shared: u32,      // bodies other ranks also hold (shared_bodies.wgsl; 0 outside one)
}

/// The step's grid, and the contact rows that fit the capacity (set by `contact_dispatch`).
/// Slot `cells` of `cell_start` lists the grains out of the grid for their speed.
struct GridInfo {
    origin: vec3<f32>,
    cell: f32,
    dims: vec3<i32>,
    cells: u32,
    periodic: vec3<u32>,    // 1 along the axes where the grid repeats (see size_grid)
    rows: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> pos_radius: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> orientation: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> motion: array<Motion>;
@group(0) @binding(4) var<storage, read_write> material: array<u32>;
@group(0) @binding(5) var<storage, read_write> kind: array<u32>;
@group(0) @binding(6) var<storage, read_write> reach: array<f32>;
@group(0) @binding(7) var<storage, read_write> walls: array<Wall>;
@group(0) @binding(8) var<storage, read_write> drives: array<Actuation>;
// μ, then e_r, then e_roll of every material pair (n_materials² each, row-major).
@group(0) @binding(9) var<storage, read_write> friction: array<f32>;
@group(0) @binding(10) var<storage, read_write> large: array<u32>;
@group(0) @binding(11) var<storage, read_write> grid: GridInfo;
@group(0) @binding(12) var<storage, read_write> bounds: array<atomic<u32>>;
@group(0) @binding(13) var<storage, read_write> cell_of: array<u32>;
@group(0) @binding(14) var<storage, read_write> cell_start: array<u32>;
@group(0) @binding(15) var<storage, read_write> cell_fill: array<atomic<u32>>;
@group(0) @binding(16) var<storage, read_write> grid_bodies: array<u32>;
@group(0) @binding(17) var<storage, read_write> partners: array<u32>;
@group(0) @binding(18) var<storage, read_write> rows: array<ContactRow>;
// (γn, γt1, γt2, lift): a contact's impulses and the Coulomb correction's μ‖u_T‖ added to its
// normal bias (zeroed by the warm start, set by coulomb_correction.wgsl).
@group(0) @binding(19) var<storage, read_write> gamma: array<vec4<f32>>;
@group(0) @binding(20) var<storage, read_write> impulse: array<vec4<f32>>;
@group(0) @binding(21) var<storage, read_write> body_start: array<u32>;
@group(0) @binding(22) var<storage, read_write> body_fill: array<atomic<u32>>;
@group(0) @binding(23) var<storage, read_write> body_entries: array<BodyEntry>;
@group(0) @binding(24) var<storage, read_write> stats: array<atomic<u32>>;
@group(0) @binding(25) var<storage, read_write> residual_blocks: array<u32>;
// Ping-pong between steps: this step's and last step's contact keys, row offsets and impulses.
@group(0) @binding(26) var<storage, read_write> row_start: array<u32>;
@group(0) @binding(27) var<storage, read_write> keys: array<vec2<u32>>;
@group(0) @binding(28) var<storage, read_write> cache: array<vec4<f32>>;
@group(0) @binding(29) var<storage, read_write> prev_row_start: array<u32>;
@group(0) @binding(30) var<storage, read_write> prev_keys: array<vec2<u32>>;
@group(0) @binding(31) var<storage, read_write> prev_cache: array<vec4<f32>>;

var<workgroup> reduce_scratch: array<u32, WG>;

/// Index of an invocation in a dispatch laid out as x × y workgroups of WG threads.
fn thread_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * WG + lid;
}

/// Linear index of a workgroup in an x × y dispatch.
fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

/// The largest `v` over the workgroup (every thread must call it; all get the result).
fn workgroup_max(lid: u32, v: u32) -> u32 {
    reduce_scratch[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if lid < s {
            reduce_scratch[lid] = max(reduce_scratch[lid], reduce_scratch[lid + s]);
        }
        workgroupBarrier();
    }
    let out = reduce_scratch[0];
    workgroupBarrier();
    return out;
}

/// A float as an unsigned integer with the same order (for atomic min/max).
fn ordered(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

/// Inverse of `ordered`.
fn unordered(u: u32) -> f32 {
    return bitcast<f32>(select(~u, u & 0x7fffffffu, (u & 0x80000000u) != 0u));
}

/// v rotated by quaternion q (xyz, w): v + (2/|q|²) (w (u × v) + u × (u × v)), a rotation for
/// any length of q. A normalised q of f32 is off unit length by rounding, and the unit formula
/// scales v by |q|²: on lavapipe V21's energy drifted 3 times as far with it.
fn rotate_vector(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = cross(q.xyz, v);
    return v + (2.0 / dot(q, q)) * (q.w * t + cross(q.xyz, t));
}

fn is_dynamic(i: u32) -> bool {
    return kind[i] == DYNAMIC;
}

fn is_large(i: u32) -> bool {
    return pos_radius[i].w > params.large_limit;
}

/// Planar mode (x–z plane): v_y = 0, rotation about y only.
fn planar_mask(m: Motion) -> Motion {
    var out = m;
    if params.planar != 0u {
        out.linear.y = 0.0;
        out.angular.x = 0.0;
        out.angular.z = 0.0;
    }
    return out;
}

/// The ε̂ of a pair that may close at `closing` m/s (hart-anitescu eq. 2.13, per pair).
fn pair_envelope(closing: f32) -> f32 {
    return params.envelope_floor + params.envelope_speed * params.h * max(closing, 0.0);
}

/// Cell coordinates of a point: clamped into the grid along its bounded axes, unwrapped (within
/// ±FAR) along its periodic ones (as Grid::coords).
fn cell_coords(p: vec3<f32>) -> vec3<i32> {
    let c = vec3<i32>(clamp(floor((p - grid.origin) / grid.cell), vec3<f32>(-FAR), vec3<f32>(FAR)));
    return select(clamp(c, vec3<i32>(0), grid.dims - vec3<i32>(1)), c, grid.periodic != vec3<u32>(0u));
}

/// A cell coordinate taken modulo the cell count d (which changes it only along periodic axes);
/// within a period of the grid, the usual case, without a division.
fn wrap(c: i32, d: i32) -> i32 {
    if c >= -d && c < 2 * d {
        return select(select(c, c - d, c >= d), c + d, c < 0);
    }
    return (c % d + d) % d;
}

/// Key of a body's pair with `partner` (a body, or NO_BODY − wall): (min, max), as pair_key.
fn pair_key(i: u32, partner: u32) -> vec2<u32> {
    return vec2<u32>(min(i, partner), max(i, partner));
}

/// Rows found this step that fit the capacity (a plain load, the same for every thread).
fn contact_count() -> u32 {
    return grid.rows;
}

/// As mesh::Triangle: one triangle of a mesh wall placed for the step; a.w its friction
/// material, b.w its mesh.
struct Triangle {
    a: vec4<f32>,
    b: vec4<f32>,
    c: vec4<f32>,
}

/// As mesh::MeshMotion: every point x of a mesh moves at velocity + angular × (x − axis_point).
struct MeshMotion {
    velocity: vec4<f32>,
    angular: vec4<f32>,
    axis_point: vec4<f32>,
}
