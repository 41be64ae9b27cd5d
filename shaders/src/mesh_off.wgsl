// Mesh walls switched off (the idle twin of mesh.wgsl, which mirrors kernels/src/mesh.rs):
// mesh.wgsl's hooks doing nothing, prepended instead of it when the world has no mesh wall (the
// narrow phase then binds no mesh buffer).

/// No mesh triangle to pair with.
fn gather_meshes(i: u32, list: ptr<function, array<u32, MAX_PAIRS>>, count: ptr<function, u32>) {}

/// No mesh triangle to build a row with (never called: no partner names a triangle).
fn mesh_row(i: u32, t: u32) -> ContactRow {
    var row: ContactRow;
    return row;
}
