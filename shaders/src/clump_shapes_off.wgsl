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

fn bounding_radius(i: u32) -> f32 {
    return pos_radius[i].w;
}
