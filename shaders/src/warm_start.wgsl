// Stage 5, prepare: the warm start (mirrors kernels/src/warm_start.rs), and stage 8's store of
// the step's impulses. Contacts that persist from the last step (same
// body pair) start from last step's impulse, re-expressed in this step's frame; with spinning or
// rolling friction (rolling.wgsl), from last step's moment impulse too.

/// The slot of `key` in body o's segment of last step's contacts, or NO_BODY.
fn slot_in_segment(o: u32, key: vec2<u32>) -> u32 {
    let end = min(prev_row_start[o + 1u], params.row_capacity);
    for (var j = prev_row_start[o]; j < end; j = j + 1u) {
        if all(prev_keys[j] == key) {
            return j;
        }
    }
    return NO_BODY;
}

/// Contact c's slot among last step's contacts (same pair key), or NO_BODY for a new contact
/// and when the warm start is off. Last step's owner of the pair was one of its two bodies (a
/// grain that was fast owned its pairs with grid bodies), so both segments are searched. A
/// key's halves carry a clump member's number in their top four bits (member_key); a wall's
/// half has its top bit set.
fn previous_slot(c: u32) -> u32 {
    if params.warm_weight > 0.0 {
        let key = keys[c];
        let found = slot_in_segment(key.x & KEY_BODY_BITS, key);
        if found != NO_BODY || (key.y & KEY_WALL_BIT) != 0u {
            return found;
        }
        return slot_in_segment(key.y & KEY_BODY_BITS, key);
    }
    return NO_BODY;
}

/// γ⁰ = Π_K(w · P_last · [n t1 t2]) for a persisting contact, 0 for a new one; then the moment
/// rows' γ_m⁰ from the same slot.
@compute @workgroup_size(256)
fn warm_start(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= contact_count() {
        return;
    }
    let j = previous_slot(c);
    var g = vec3<f32>(0.0);
    if j != NO_BODY {
        let p = prev_cache[j].xyz * params.warm_weight;
        let row = rows[c];
        g = project_cone(vec3<f32>(dot(p, row.n), dot(p, row.t1), dot(p, row.t2)), row.mu);
    }
    gamma[c] = vec4<f32>(g, 0.0);
    warm_start_moments(c, j, g);
}

/// Remembers this step's impulses as world vectors D γ under their keys (already in `keys`),
/// and the moment impulses likewise.
@compute @workgroup_size(256)
fn store_impulses(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= contact_count() {
        return;
    }
    let row = rows[c];
    cache[c] = vec4<f32>(impulse_vector(row, gamma[c].xyz), 0.0);
    store_moments(c, row);
}
