// Clumps (mirrors kernels/src/clump.rs): rigid bodies made of member spheres, prepended to the
// broad and narrow phases of a world with clumps (clump_shapes_off.wgsl otherwise). A plain
// sphere is a clump of one member at its centre; a clump's contacts are its members', all rows
// of the one body with arms from its centre of mass (narrow_phase.wgsl).

/// A body's word in `clump_data` when it is a sphere.
const NOT_CLUMP: u32 = 0xffffffffu;

/// The clumps in one buffer (group 1, binding 2 of the broad and narrow phases, beside the
/// step's 31; binding 0 is the narrow phase's dispatch, 1 the mesh walls'):
/// word i < n_bodies is body i's, NOT_CLUMP or (first member << 3 | members − 1); member m of
/// the templates is (x, y, z, r) in the body's axes, the four words from n_bodies + 4 m.
@group(1) @binding(2) var<storage, read_write> clump_data: array<u32>;

fn is_clump(i: u32) -> bool {
    return clump_data[i] != NOT_CLUMP;
}

/// Number of member spheres of body i (1 for a sphere).
fn member_count(i: u32) -> u32 {
    let word = clump_data[i];
    return select((word & 7u) + 1u, 1u, word == NOT_CLUMP);
}

/// Member k, in the body's axes, of the clump whose word is `word`.
fn template_member(word: u32, k: u32) -> vec4<f32> {
    let o = params.n_bodies + 4u * ((word >> 3u) + k);
    return bitcast<vec4<f32>>(vec4<u32>(clump_data[o], clump_data[o + 1u], clump_data[o + 2u],
                                        clump_data[o + 3u]));
}

/// Member k of body i where it stands: centre c + R c_k (xyz) and radius r_k (w), as
/// clump_members; a sphere's own centre and radius.
fn member(i: u32, k: u32) -> vec4<f32> {
    let word = clump_data[i];
    if word == NOT_CLUMP {
        return pos_radius[i];
    }
    let m = template_member(word, k);
    return vec4<f32>(pos_radius[i].xyz + rotate_vector(orientation[i], m.xyz), m.w);
}

/// Radius about body i's centre that holds it: max ‖c_k‖ + r_k over a clump's members
/// (clump_bound), a sphere's radius.
fn bounding_radius(i: u32) -> f32 {
    let word = clump_data[i];
    if word == NOT_CLUMP {
        return pos_radius[i].w;
    }
    var bound = 0.0;
    for (var k = 0u; k <= (word & 7u); k = k + 1u) {
        let m = template_member(word, k);
        bound = max(bound, length(m.xyz) + m.w);
    }
    return bound;
}
