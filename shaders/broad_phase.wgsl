// Stage 2 (mirrors kernels/src/broad_phase.rs): uniform grid by count → prefix sum → scatter.
// Bodies larger than `large_limit` stay out of the grid; the narrow phase pairs them directly.

const NOT_IN_GRID: u32 = 0xffffffffu;

/// Each body's reach r + ε̂ margin (the envelope's share of hart-anitescu eq. 2.13), and the
/// bounds of the grid bodies' centres and reaches.
@compute @workgroup_size(256)
fn reach_and_bounds(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    let valid = i < params.n_bodies;
    var lo = vec3<u32>(0xffffffffu);
    var hi = vec3<u32>(0u);
    var r = 0u;
    if valid {
        let p = pos_radius[i];
        let speed = length(motion[i].linear);
        let reach_i = p.w + 0.5 * params.envelope_floor + params.envelope_speed * params.h * speed;
        reach[i] = reach_i;
        if !is_large(i) {
            lo = vec3<u32>(ordered(p.x), ordered(p.y), ordered(p.z));
            hi = lo;
            r = ordered(reach_i);
        }
    }
    // Minima as maxima of the complements.
    let lx = ~workgroup_max(lid, ~lo.x);
    let ly = ~workgroup_max(lid, ~lo.y);
    let lz = ~workgroup_max(lid, ~lo.z);
    let hx = workgroup_max(lid, hi.x);
    let hy = workgroup_max(lid, hi.y);
    let hz = workgroup_max(lid, hi.z);
    let rm = workgroup_max(lid, r);
    if lid == 0u {
        atomicMin(&bounds[B_MIN], lx);
        atomicMin(&bounds[B_MIN + 1u], ly);
        atomicMin(&bounds[B_MIN + 2u], lz);
        atomicMax(&bounds[B_MAX], hx);
        atomicMax(&bounds[B_MAX + 1u], hy);
        atomicMax(&bounds[B_MAX + 2u], hz);
        atomicMax(&bounds[B_REACH], rm);
    }
}

/// Cell edge ≥ 2 × the largest reach, at most `cell_capacity` cells (as Grid::size_cells).
@compute @workgroup_size(1)
fn size_grid() {
    let lo = vec3<f32>(unordered(atomicLoad(&bounds[B_MIN])), unordered(atomicLoad(&bounds[B_MIN + 1u])),
                       unordered(atomicLoad(&bounds[B_MIN + 2u])));
    let hi = vec3<f32>(unordered(atomicLoad(&bounds[B_MAX])), unordered(atomicLoad(&bounds[B_MAX + 1u])),
                       unordered(atomicLoad(&bounds[B_MAX + 2u])));
    if !(lo.x <= hi.x) {
        // No body in the grid.
        grid.origin = vec3<f32>(0.0);
        grid.cell = 1.0;
        grid.dims = vec3<i32>(1);
        grid.cells = 1u;
        return;
    }
    let extent = max(hi - lo, vec3<f32>(0.0));
    let budget = f32(params.cell_capacity);
    var cell = max(2.0 * unordered(atomicLoad(&bounds[B_REACH])), 1e-12);
    var dims = vec3<f32>(1.0);
    for (var k = 0; k < 200; k = k + 1) {
        dims = floor(extent / cell) + vec3<f32>(1.0);
        let total = dims.x * dims.y * dims.z;
        if total <= budget {
            break;
        }
        cell = cell * pow(total / budget, 1.0 / 3.0) * 1.01;
    }
    grid.origin = lo;
    grid.cell = cell;
    grid.dims = vec3<i32>(dims);
    grid.cells = u32(dims.x * dims.y * dims.z);
}

/// Each grid body's cell, counted per cell.
@compute @workgroup_size(256)
fn count_cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if i >= params.n_bodies {
        return;
    }
    if is_large(i) {
        cell_of[i] = NOT_IN_GRID;
        return;
    }
    let c = cell_index(cell_coords(pos_radius[i].xyz));
    cell_of[i] = c;
    atomicAdd(&cell_fill[c], 1u);
}

/// Writes each grid body into its cell's range.
@compute @workgroup_size(256)
fn scatter_cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if i >= params.n_bodies {
        return;
    }
    let c = cell_of[i];
    if c == NOT_IN_GRID {
        return;
    }
    grid_bodies[cell_start[c] + atomicAdd(&cell_fill[c], 1u)] = i;
}

/// The scatter's order within a cell depends on timing: sort each cell by body index.
@compute @workgroup_size(256)
fn sort_cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c >= params.cell_capacity {
        return;
    }
    atomicStore(&cell_fill[c], 0u);
    if c >= grid.cells {
        return;
    }
    let s = cell_start[c];
    let e = cell_start[c + 1u];
    for (var k = s + 1u; k < e; k = k + 1u) {
        let x = grid_bodies[k];
        var j = k;
        while j > s && grid_bodies[j - 1u] > x {
            grid_bodies[j] = grid_bodies[j - 1u];
            j = j - 1u;
        }
        grid_bodies[j] = x;
    }
}
