// Stage 3, narrow phase (mirrors kernels/src/narrow_phase.rs): sphere–sphere and sphere–wall gaps
// Φ, and a clump's per member sphere (clump_shapes.wgsl); pairs with Φ ≤ ε̂ become contact rows
// (hart-anitescu eq. 2.13's active set). Each body owns the rows of its pairs with larger-index
// grid bodies, with large bodies (when it is small) and with walls, in one segment ordered by
// partner's pair key and, within a pair, by member, so the order never depends on timing. A fast grain
// (out of the grid for its speed) owns its pairs with every grid body within its reach and with
// larger-index fast grains; grid bodies leave those pairs to it.

const MAX_PAIRS: u32 = 32u;

@group(1) @binding(0) var<storage, read_write> contact_groups: array<u32>;

/// Fastest closing speed along n (b → a) within a step (as closing_speed).
fn closing_speed(va: vec3<f32>, vb: vec3<f32>, n: vec3<f32>) -> f32 {
    return max(max(-dot(va - vb, n), length(va)), length(vb));
}

/// A pair closing more than this many radii (the smaller body's) in a step may be swept (as
/// SWEPT_STEP).
const SWEPT_STEP: f32 = 4.0;

/// The friction of an ε̂-active row of friction mu and gap phi between bodies moving at va and
/// vb along n (b → a), of radius at least `size` (as PairTests::swept_mu): 0 when the pair closes
/// more than SWEPT_STEP radii in the step and the row lies beyond the envelope of its approach
/// speed alone (a speculative contact the grain slides past), mu otherwise.
fn swept_mu(mu: f32, phi: f32, va: vec3<f32>, vb: vec3<f32>, n: vec3<f32>, size: f32) -> f32 {
    let approach = -dot(va - vb, n);
    let speed = max(max(approach, length(va)), length(vb));
    return select(mu, 0.0, params.h * speed > SWEPT_STEP * size && phi > pair_envelope(approach));
}

/// Unit normal b → a and gap Φ = ‖p_a − p_b‖ − r_a − r_b of two spheres.
fn sphere_gap(a: u32, b: u32) -> vec4<f32> {
    let pa = pos_radius[a];
    let pb = pos_radius[b];
    let d = pa.xyz - pb.xyz;
    let dist = sqrt(dot(d, d));
    var n = vec3<f32>(0.0, 0.0, 1.0);
    if dist > 0.0 {
        n = d / dist;
    }
    return vec4<f32>(n, dist - (pa.w + pb.w));
}

/// Whether spheres i and j form an ε̂-active contact (as Scene::sphere_sphere).
fn spheres_touch(i: u32, j: u32) -> bool {
    let a = min(i, j);
    let b = max(i, j);
    let d = pos_radius[a].xyz - pos_radius[b].xyz;
    let bound = reach[a] + reach[b];
    if dot(d, d) > bound * bound || !(is_dynamic(a) || is_dynamic(b)) {
        return false;
    }
    let gap = sphere_gap(a, b);
    return gap.w <= pair_envelope(closing_speed(motion[a].linear, motion[b].linear, gap.xyz));
}

/// The unit normal (xyz) and gap Φ (w) of sphere i against wall w (as sphere_wall in
/// wall_contact.wgsl); Φ = NO_TOUCH when they do not meet.
fn wall_contact(i: u32, w: u32) -> vec4<f32> {
    return sphere_wall(w, pos_radius[i].xyz, pos_radius[i].w);
}

/// The velocity of wall w's surface at point c: the wall's velocity, plus ω e × (c − o) on a
/// turning cylinder or cone.
fn wall_velocity_at(w: u32, c: vec3<f32>) -> vec3<f32> {
    let wall = walls[w];
    if wall.origin.w == 0.0 {
        return wall.velocity.xyz;
    }
    return wall.velocity.xyz + wall.v.w * cross(wall.normal.xyz, c - wall.origin.xyz);
}

/// The velocity of wall w's surface at the point touching sphere i along normal n, c = p − r n.
fn wall_surface_velocity(i: u32, w: u32, n: vec3<f32>) -> vec3<f32> {
    return wall_velocity_at(w, pos_radius[i].xyz - pos_radius[i].w * n);
}

/// Whether sphere i and wall w form an ε̂-active contact (as Scene::sphere_walls).
fn wall_touches(i: u32, w: u32) -> bool {
    let gap = wall_contact(i, w);
    let vw = wall_surface_velocity(i, w, gap.xyz);
    return gap.w < NO_TOUCH && gap.w <= pair_envelope(closing_speed(motion[i].linear, vw, gap.xyz));
}

/// The contact of member ka of body a with member kb of body b (a < b) as spheres (as
/// clump_pair_touches): unit normal b → a, Φ = ‖c_a − c_b‖ − r_a − r_b, and the arms from the
/// bodies' centres to the surface points c_a − r_a n and c_b + r_b n.
struct MemberTouch {
    n: vec3<f32>,
    phi: f32,
    ra: vec3<f32>,
    rb: vec3<f32>,
}

/// The touch of placed members ma of a and mb of b (member's centre and radius).
fn member_touch(a: u32, ma: vec4<f32>, b: u32, mb: vec4<f32>) -> MemberTouch {
    let d = ma.xyz - mb.xyz;
    let dist = sqrt(dot(d, d));
    var n = vec3<f32>(0.0, 0.0, 1.0);
    if dist > 0.0 {
        n = d / dist;
    }
    return MemberTouch(n, dist - ma.w - mb.w, ma.xyz - ma.w * n - pos_radius[a].xyz,
                       mb.xyz + mb.w * n - pos_radius[b].xyz);
}

/// The velocity of body i's point at arm r from its centre.
fn point_velocity(i: u32, r: vec3<f32>) -> vec3<f32> {
    return motion[i].linear + cross(motion[i].angular, r);
}

/// Whether a member contact of bodies a and b is ε̂-active for its points' closing speed (as
/// push_pair_row).
fn member_touch_active(a: u32, b: u32, t: MemberTouch) -> bool {
    let closing = closing_speed(point_velocity(a, t.ra), point_velocity(b, t.rb), t.n);
    return t.phi <= pair_envelope(closing);
}

/// Key of the contact of member ka of a with member kb of b (a < b): the pair key with point
/// 8 ka + kb in its flag bits, kb in the top bits of a's half and ka in b's (as point_flag).
fn member_key(a: u32, ka: u32, b: u32, kb: u32) -> vec2<u32> {
    return vec2<u32>(a | (kb << 28u), b | (ka << 28u));
}

/// A contact mask: bit 8 ka + kb for member ka of body a against member kb of b (x: bits 0–31,
/// y: 32–63), or bit k for member k against a wall.
fn mask_with(mask: vec2<u32>, bit: u32) -> vec2<u32> {
    let one = 1u << (bit & 31u);
    return select(vec2<u32>(mask.x | one, mask.y), vec2<u32>(mask.x, mask.y | one), bit >= 32u);
}

fn mask_has(mask: vec2<u32>, bit: u32) -> bool {
    return ((select(mask.x, mask.y, bit >= 32u) >> (bit & 31u)) & 1u) != 0u;
}

/// The largest envelope ε̂ any contact point of bodies a and b can have in this step: that of
/// the closing speed |v_a| + |ω_a| R_a + |v_b| + |ω_b| R_b with R the reach (as
/// largest_envelope).
fn largest_envelope(a: u32, b: u32) -> f32 {
    let ma = motion[a];
    let mb = motion[b];
    let speed = length(ma.linear) + length(ma.angular) * reach[a] + length(mb.linear)
        + length(mb.angular) * reach[b];
    return pair_envelope(speed);
}

/// The ε̂-active member pairs of bodies i and j where one is a clump (as body_pair); with
/// `first_only`, only the first found (enough to tell whether they touch). A member of a
/// farther from b's centre than its radius, b's reach and the pair's largest envelope meets
/// none of b's members, and is passed over.
fn pair_mask(i: u32, j: u32, first_only: bool) -> vec2<u32> {
    let a = min(i, j);
    let b = max(i, j);
    var mask = vec2<u32>(0u);
    let pb = pos_radius[b].xyz;
    let d = pos_radius[a].xyz - pb;
    let bound = reach[a] + reach[b];
    if dot(d, d) > bound * bound || !(is_dynamic(a) || is_dynamic(b)) {
        return mask;
    }
    let around_b = reach[b] + largest_envelope(a, b);
    for (var ka = 0u; ka < member_count(a); ka = ka + 1u) {
        let ma = member(a, ka);
        let far = ma.w + around_b;
        let to_b = ma.xyz - pb;
        if dot(to_b, to_b) > far * far {
            continue;
        }
        for (var kb = 0u; kb < member_count(b); kb = kb + 1u) {
            if member_touch_active(a, b, member_touch(a, ma, b, member(b, kb))) {
                mask = mask_with(mask, 8u * ka + kb);
                if first_only {
                    return mask;
                }
            }
        }
    }
    return mask;
}

/// Whether bodies i and j have an ε̂-active contact: two spheres' (spheres_touch), or a member
/// pair's where one is a clump.
fn pair_touches(i: u32, j: u32) -> bool {
    if !is_clump(i) && !is_clump(j) {
        return spheres_touch(i, j);
    }
    return any(pair_mask(i, j, true) != vec2<u32>(0u));
}

/// Member k of body i against wall w as a sphere: the unit normal (xyz) and gap Φ (w) of
/// sphere_wall (Φ = NO_TOUCH when they do not meet), the arm to the touching point c − r n,
/// and the wall's velocity there.
struct MemberWallTouch {
    gap: vec4<f32>,
    arm: vec3<f32>,
    wall_velocity: vec3<f32>,
}

fn member_wall_touch(i: u32, k: u32, w: u32) -> MemberWallTouch {
    let m = member(i, k);
    let gap = sphere_wall(w, m.xyz, m.w);
    let c = m.xyz - m.w * gap.xyz;
    return MemberWallTouch(gap, c - pos_radius[i].xyz, wall_velocity_at(w, c));
}

/// Whether member k's contact with a wall is ε̂-active for the closing speed of its point (as
/// point_walls).
fn member_wall_active(i: u32, t: MemberWallTouch) -> bool {
    let closing = closing_speed(point_velocity(i, t.arm), t.wall_velocity, t.gap.xyz);
    return t.gap.w < NO_TOUCH && t.gap.w <= pair_envelope(closing);
}

/// The members of clump i with an ε̂-active contact with wall w (bit k: member k; as
/// clump_walls).
fn wall_mask(i: u32, w: u32) -> vec2<u32> {
    var mask = vec2<u32>(0u);
    for (var k = 0u; k < member_count(i); k = k + 1u) {
        if member_wall_active(i, member_wall_touch(i, k, w)) {
            mask = mask_with(mask, k);
        }
    }
    return mask;
}

/// Whether dynamic body i has an ε̂-active contact with wall w: a sphere's (wall_touches), or a
/// member's of a clump.
fn wall_touched(i: u32, w: u32) -> bool {
    if !is_clump(i) {
        return wall_touches(i, w);
    }
    return any(wall_mask(i, w) != vec2<u32>(0u));
}

/// Whether owner i's contacts with `partner` are a clump's, numbered by member: with a body
/// where either is a clump, with a wall (not a mesh triangle) where i is one.
fn member_contacts(i: u32, partner: u32) -> bool {
    if partner >= params.n_bodies {
        return is_clump(i) && NO_BODY - partner < params.n_walls;
    }
    return is_clump(i) || is_clump(partner);
}

/// The rows of owner i's contact with the partner in its slot `slot` (after the partners'
/// sort): 1 for a sphere's, else the active members' or member pairs' mask, kept for
/// build_rows in `partner_masks` (clump_shapes.wgsl) so that it writes exactly the rows
/// counted here (evaluated twice, a contact at the envelope's edge could go either way).
fn partner_rows(i: u32, partner: u32, slot: u32) -> u32 {
    if !member_contacts(i, partner) {
        return 1u;
    }
    var mask: vec2<u32>;
    if partner >= params.n_bodies {
        mask = wall_mask(i, NO_BODY - partner);
    } else {
        mask = pair_mask(i, partner, false);
    }
    store_partner_mask(slot, mask);
    return countOneBits(mask.x) + countOneBits(mask.y);
}

/// Pair-key order of two partners of body i.
fn key_less(i: u32, p: u32, q: u32) -> bool {
    let kp = pair_key(i, p);
    let kq = pair_key(i, q);
    return kp.x < kq.x || (kp.x == kq.x && kp.y < kq.y);
}

/// Counts a partner of the body whose list is `list`, kept while the MAX_PAIRS slots last.
fn add_partner(list: ptr<function, array<u32, MAX_PAIRS>>, count: ptr<function, u32>, partner: u32) {
    if *count < MAX_PAIRS {
        (*list)[*count] = partner;
    }
    *count = *count + 1u;
}

/// Adds the bodies j ≥ `first_body` of grid_bodies[first, last) that touch body i.
fn gather_run(i: u32, first: u32, last: u32, first_body: u32, list: ptr<function, array<u32, MAX_PAIRS>>,
              count: ptr<function, u32>) {
    for (var k = first; k < last; k = k + 1u) {
        let j = grid_bodies[k];
        if j >= first_body && pair_touches(i, j) {
            add_partner(list, count, j);
        }
    }
}

/// The first and last cell coordinates of the cells from lo to hi to visit, each cell once:
/// clamped along bounded axes, the whole axis along periodic ones the range covers (as
/// Grid::span).
fn cell_span(lo: vec3<i32>, hi: vec3<i32>) -> array<vec3<i32>, 2> {
    let d = grid.dims;
    let periodic = grid.periodic != vec3<u32>(0u);
    // hi − lo + 1 ≥ d, without overflow for coordinates within ±FAR.
    let whole = periodic & (hi - d >= lo - vec3<i32>(1));
    let first = select(select(max(lo, vec3<i32>(0)), lo, periodic), vec3<i32>(0), whole);
    let last = select(select(min(hi, d - vec3<i32>(1)), hi, periodic), d - vec3<i32>(1), whole);
    return array<vec3<i32>, 2>(first, last);
}

/// Adds the grid bodies j ≥ `first_body` that touch body i in the cells from lo to hi (clamped
/// along bounded axes, wrapped along periodic ones), each cell once: one run of cells per row of
/// x, two where the row wraps (as Grid::for_each_in_box). The rows' wrapped coordinates are
/// stepped rather than divided.
fn gather_box(i: u32, lo: vec3<i32>, hi: vec3<i32>, first_body: u32,
              list: ptr<function, array<u32, MAX_PAIRS>>, count: ptr<function, u32>) {
    let span = cell_span(lo, hi);
    let first = span[0];
    let last = span[1];
    let d = grid.dims;
    let first_x = wrap(first.x, d.x);
    let last_x = wrap(last.x, d.x);
    let wraps = first_x > last_x;
    let end_x = select(last_x, d.x - 1, wraps);
    var z = wrap(first.z, d.z);
    for (var uz = first.z; uz <= last.z; uz = uz + 1) {
        var y = wrap(first.y, d.y);
        for (var uy = first.y; uy <= last.y; uy = uy + 1) {
            let row = u32(d.x * (y + d.y * z));
            gather_run(i, cell_start[row + u32(first_x)], cell_start[row + u32(end_x) + 1u], first_body,
                       list, count);
            if wraps {
                gather_run(i, cell_start[row], cell_start[row + u32(last_x) + 1u], first_body, list, count);
            }
            y = select(y + 1, 0, y + 1 == d.y);
        }
        z = select(z + 1, 0, z + 1 == d.z);
    }
}

/// Every partner of owner i (bodies, and walls as NO_BODY − w), sorted by pair key, into its
/// MAX_PAIRS slots; the count of their contact rows (partner_rows) goes to row_start[i] for the
/// prefix sum. A grid body scans the 27
/// cells around it for larger-index partners, a fast grain the cells its reach covers and the
/// other fast grains; small bodies pair with every large body, large ones with larger-index ones.
@compute @workgroup_size(256)
fn find_pairs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if i >= params.n_bodies {
        if i == params.n_bodies {
            row_start[i] = 0u;
        }
        return;
    }
    var list: array<u32, MAX_PAIRS>;
    var count = 0u;
    let cell = cell_of[i];
    let fast = cell == grid.cells;
    if cell <= grid.cells {
        // A fast grain's grid partners lie within its reach plus the largest grid reach (half a
        // cell).
        let p = pos_radius[i].xyz;
        let r = vec3<f32>(select(0.0, reach[i] + 0.5 * grid.cell, fast));
        let lo = select(cell_coords(p) - vec3<i32>(1), cell_coords(p - r), fast);
        let hi = select(cell_coords(p) + vec3<i32>(1), cell_coords(p + r), fast);
        gather_box(i, lo, hi, select(i + 1u, 0u, fast), &list, &count);
    }
    if fast {
        gather_run(i, cell_start[cell], cell_start[cell + 1u], i + 1u, &list, &count);
    }
    for (var k = 0u; k < params.n_large; k = k + 1u) {
        let l = large[k];
        if (!is_large(i) || l > i) && pair_touches(i, l) {
            add_partner(&list, &count, l);
        }
    }
    if is_dynamic(i) {
        for (var w = 0u; w < params.n_walls; w = w + 1u) {
            if wall_touched(i, w) {
                add_partner(&list, &count, NO_BODY - w);
            }
        }
        gather_meshes(i, &list, &count);
    }
    if count > MAX_PAIRS {
        atomicMax(&stats[STAT_PAIRS], count);
    }
    let kept = min(count, MAX_PAIRS);
    for (var k = 1u; k < kept; k = k + 1u) {
        let x = list[k];
        var j = k;
        while j > 0u && key_less(i, x, list[j - 1u]) {
            list[j] = list[j - 1u];
            j = j - 1u;
        }
        list[j] = x;
    }
    var rows = 0u;
    for (var k = 0u; k < kept; k = k + 1u) {
        partners[i * MAX_PAIRS + k] = list[k];
        rows = rows + partner_rows(i, list[k], i * MAX_PAIRS + k);
    }
    row_start[i] = rows;
}

/// The rows D = [n t1 t2] of a contact, their inverse diagonal masses (contact_frame) and the bias
/// (Φ/h − n·v_wall, −t1·v_wall, −t2·v_wall) of hart-anitescu eq. 2.9, without Φ/h when the
/// contacts are not stabilised (as contact_row).
fn contact_row(a: u32, b: u32, n: vec3<f32>, phi: f32, ra: vec3<f32>, rb: vec3<f32>, mu: f32,
               wall_velocity: vec3<f32>) -> ContactRow {
    var row = contact_frame(a, b, n, ra, rb);
    row.phi = phi;
    row.mu = mu;
    let stabilising = select(0.0, phi / params.h, params.stabilise != 0u);
    row.bias = vec3<f32>(stabilising - dot(n, wall_velocity), -dot(row.t1, wall_velocity),
                         -dot(row.t2, wall_velocity));
    return row;
}

/// The row of owner i's contact with `partner` (a body, or NO_BODY − wall).
fn partner_row(i: u32, partner: u32) -> ContactRow {
    if partner >= params.n_bodies {
        let w = NO_BODY - partner;
        if w >= params.n_walls {
            return mesh_row(i, w - params.n_walls);
        }
        let wall = walls[w];
        let gap = wall_contact(i, w);
        let r = pos_radius[i].w;
        let vw = wall_surface_velocity(i, w, gap.xyz);
        let mu = swept_mu(friction[material[i] * params.n_materials + u32(wall.normal.w)], gap.w,
                          motion[i].linear, vw, gap.xyz, r);
        return contact_row(i, NO_BODY, gap.xyz, gap.w, -r * gap.xyz, vec3<f32>(0.0), mu, vw);
    }
    let a = min(i, partner);
    let b = max(i, partner);
    let gap = sphere_gap(a, b);
    let mu = swept_mu(friction[material[a] * params.n_materials + material[b]], gap.w,
                      motion[a].linear, motion[b].linear, gap.xyz,
                      min(pos_radius[a].w, pos_radius[b].w));
    return contact_row(a, b, gap.xyz, gap.w, -pos_radius[a].w * gap.xyz, pos_radius[b].w * gap.xyz, mu,
                       vec3<f32>(0.0));
}

/// Writes contact row `row` with key `key` into slot s, and keeps the deepest overlap.
fn write_row(s: u32, row: ContactRow, key: vec2<u32>, deepest: ptr<function, f32>) {
    rows[s] = row;
    keys[s] = key;
    *deepest = max(*deepest, -row.phi);
}

/// Writes owner i's rows with the partner in its slot `slot` from row s on (none past `end`),
/// as partner_rows counted them: one for a sphere's contact, one per member or member pair of
/// its mask where a clump takes part, in member order. Returns the next free row.
fn write_partner_rows(i: u32, slot: u32, s: u32, end: u32, deepest: ptr<function, f32>) -> u32 {
    let partner = partners[slot];
    if !member_contacts(i, partner) {
        write_row(s, partner_row(i, partner), pair_key(i, partner), deepest);
        return s + 1u;
    }
    let mask = partner_mask(slot);
    var next = s;
    if partner >= params.n_bodies {
        let w = NO_BODY - partner;
        let mu = friction[material[i] * params.n_materials + u32(walls[w].normal.w)];
        for (var k = 0u; k < member_count(i); k = k + 1u) {
            if mask_has(mask, k) && next < end {
                let t = member_wall_touch(i, k, w);
                let swept = swept_mu(mu, t.gap.w, point_velocity(i, t.arm), t.wall_velocity,
                                     t.gap.xyz, pos_radius[i].w);
                let row = contact_row(i, NO_BODY, t.gap.xyz, t.gap.w, t.arm, vec3<f32>(0.0), swept,
                                      t.wall_velocity);
                write_row(next, row, vec2<u32>(i | (k << 28u), partner), deepest);
                next = next + 1u;
            }
        }
        return next;
    }
    let a = min(i, partner);
    let b = max(i, partner);
    let mu = friction[material[a] * params.n_materials + material[b]];
    for (var ka = 0u; ka < member_count(a); ka = ka + 1u) {
        let ma = member(a, ka);
        for (var kb = 0u; kb < member_count(b); kb = kb + 1u) {
            if mask_has(mask, 8u * ka + kb) && next < end {
                let t = member_touch(a, ma, b, member(b, kb));
                let swept = swept_mu(mu, t.phi, point_velocity(a, t.ra), point_velocity(b, t.rb),
                                     t.n, min(pos_radius[a].w, pos_radius[b].w));
                let row = contact_row(a, b, t.n, t.phi, t.ra, t.rb, swept, vec3<f32>(0.0));
                write_row(next, row, member_key(a, ka, b, kb), deepest);
                next = next + 1u;
            }
        }
    }
    return next;
}

/// Writes owner i's rows and keys into its segment [row_start[i], row_start[i + 1]) partner
/// by partner, and records the deepest overlap.
@compute @workgroup_size(256)
fn build_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    var deepest = 0.0;
    if i < params.n_bodies {
        let end = min(row_start[i + 1u], params.row_capacity);
        var s = row_start[i];
        for (var k = 0u; k < MAX_PAIRS && s < end; k = k + 1u) {
            s = write_partner_rows(i, i * MAX_PAIRS + k, s, end, &deepest);
        }
    }
    let all = workgroup_max(lid, bitcast<u32>(deepest));
    if lid == 0u {
        atomicMax(&stats[STAT_PENETRATION], all);
    }
}

/// Records the row count and sizes the contact dispatches (x × y workgroups).
@compute @workgroup_size(1)
fn contact_dispatch() {
    let found = row_start[params.n_bodies];
    atomicStore(&stats[STAT_ROWS], found);
    grid.rows = min(found, params.row_capacity);
    let groups = (grid.rows + WG - 1u) / WG;
    let x = min(groups, 65535u);
    let y = select(1u, (groups + x - 1u) / x, x > 0u);
    atomicStore(&stats[STAT_GROUPS], x * y);
    contact_groups[0] = x;
    contact_groups[1] = y;
    contact_groups[2] = 1u;
}
