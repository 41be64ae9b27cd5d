// Clumps (mirrors kernels/src/shapes/clump.rs): rigid bodies made of member spheres, prepended to the
// broad and narrow phases of a world with clumps (clump_shapes_off.wgsl otherwise). A plain
// sphere is a clump of one member at its centre; a clump's contacts are its members', all rows
// of the one body with arms from its centre of mass (narrow_phase.wgsl). The broad phase places
// every clump's members once a step (`placed_bound`), and the narrow phase reads them placed
// and keeps which member pairs of a partner touch (the partner masks).

/// A body's word in `clump_data` when it is a sphere.
const NOT_CLUMP: u32 = 0xffffffffu;

/// The clumps in one buffer (group 1, binding 2 of the broad and narrow phases: the step's 31
/// and this one fill the 32 storage buffers a stage may have on lavapipe; binding 0 is the
/// narrow phase's dispatch, 1 the mesh walls'), in words: body i's word (i < n_bodies),
/// NOT_CLUMP or (first placed member << 3 | members − 1); then body i's template's first
/// member; then the templates' members (x, y, z, r) in the body's axes, four words each from
/// 2 n_bodies; from `placed_at`, the clumps' members placed for the step, (centre, radius) in
/// world coordinates, four words each; from `masks_at`, each partner slot's contact mask where a
/// clump takes part (narrow_phase.wgsl's partner_rows), two words each, MAX_PAIRS slots per
/// body, written by find_pairs for build_rows.
struct ClumpData {
    placed_at: u32,
    masks_at: u32,
    words: array<u32>,
}

@group(1) @binding(2) var<storage, read_write> clump_data: ClumpData;

fn store_partner_mask(slot: u32, mask: vec2<u32>) {
    let o = clump_data.masks_at + 2u * slot;
    clump_data.words[o] = mask.x;
    clump_data.words[o + 1u] = mask.y;
}

fn partner_mask(slot: u32) -> vec2<u32> {
    let o = clump_data.masks_at + 2u * slot;
    return vec2<u32>(clump_data.words[o], clump_data.words[o + 1u]);
}

fn is_clump(i: u32) -> bool {
    return clump_data.words[i] != NOT_CLUMP;
}

/// Number of member spheres of body i (1 for a sphere).
fn member_count(i: u32) -> u32 {
    let word = clump_data.words[i];
    return select((word & 7u) + 1u, 1u, word == NOT_CLUMP);
}

/// The four words from word `o` as a vector.
fn clump_vec4(o: u32) -> vec4<f32> {
    let w = &clump_data.words;
    return bitcast<vec4<f32>>(vec4<u32>((*w)[o], (*w)[o + 1u], (*w)[o + 2u], (*w)[o + 3u]));
}

/// Member k of body i where it stands this step: centre and radius (a sphere's own).
fn member(i: u32, k: u32) -> vec4<f32> {
    let word = clump_data.words[i];
    if word == NOT_CLUMP {
        return pos_radius[i];
    }
    return clump_vec4(clump_data.placed_at + 4u * ((word >> 3u) + k));
}

/// Places body i's members for the step, c + R c_k with radius r_k (as clump_members), and
/// returns the radius about its centre that holds it, max ‖c_k‖ + r_k (clump_bound); a
/// sphere's radius.
fn placed_bound(i: u32) -> f32 {
    let word = clump_data.words[i];
    if word == NOT_CLUMP {
        return pos_radius[i].w;
    }
    let first = clump_data.words[params.n_bodies + i];
    let p = pos_radius[i].xyz;
    let q = orientation[i];
    var bound = 0.0;
    for (var k = 0u; k <= (word & 7u); k = k + 1u) {
        let m = clump_vec4(2u * params.n_bodies + 4u * (first + k));
        bound = max(bound, length(m.xyz) + m.w);
        let placed = bitcast<vec4<u32>>(vec4<f32>(p + rotate_vector(q, m.xyz), m.w));
        let o = clump_data.placed_at + 4u * ((word >> 3u) + k);
        for (var c = 0u; c < 4u; c = c + 1u) {
            clump_data.words[o + c] = placed[c];
        }
    }
    return bound;
}
