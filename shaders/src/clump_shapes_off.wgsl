// Clumps switched off (the idle twin of clump_shapes.wgsl): every body is one sphere, prepended
// instead of it when the world has no clump (the broad and narrow phases then bind no clump
// buffer, and the narrow phase's member loops fold away).

fn is_clump(i: u32) -> bool {
    return false;
}

fn member_count(i: u32) -> u32 {
    return 1u;
}

fn member(i: u32, k: u32) -> vec4<f32> {
    return pos_radius[i];
}

fn placed_bound(i: u32) -> f32 {
    return pos_radius[i].w;
}

/// No clump's contacts to number (never called: partner_rows counts a sphere's contact as one).
fn store_partner_mask(slot: u32, mask: vec2<u32>) {}

fn partner_mask(slot: u32) -> vec2<u32> {
    return vec2<u32>(1u, 0u);
}
