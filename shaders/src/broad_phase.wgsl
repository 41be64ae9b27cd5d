// Stage 2, broad phase (mirrors kernels/src/broad_phase.rs): uniform grid by count → prefix sum →
// scatter. Bodies larger than `large_limit` stay out of the grid (the narrow phase pairs them
// directly), and so do small spheres whose reach exceeds FAST_REACH times the small spheres' mean,
// listed in the slot after the last cell. Where the grid bodies' extent needs more cells than the
// budget, the grid repeats periodically along its longest axes instead of growing its cells.

const NOT_IN_GRID: u32 = 0xffffffffu;

/// A small sphere whose reach is more than this many times the small spheres' mean leaves the
/// grid (as broad_phase::FAST_REACH).
const FAST_REACH: f32 = 4.0;

/// Fixed-point units of a reach per `large_limit`, and the most units one body adds, so that a
/// workgroup's sum fits 32 bits.
const REACH_UNITS: f32 = 1024.0;
const MAX_REACH_UNITS: f32 = 8388608.0;

var<workgroup> group_reach: atomic<u32>;

/// Each body's reach, its bounding radius (a clump's, whose members it places for the step:
/// clump_shapes.wgsl) + ε̂ margin (the envelope's share of hart-anitescu eq. 2.13), and the
/// small spheres' reaches summed in fixed point: integer sums do not depend on the order of the
/// atomics, so one device decides alike on every run which grains are fast.
@compute @workgroup_size(256)
fn body_reach(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if lid == 0u {
        atomicStore(&group_reach, 0u);
    }
    workgroupBarrier();
    if i < params.n_bodies {
        let speed = length(motion[i].linear);
        let reach_i = placed_bound(i) + 0.5 * params.envelope_floor + params.envelope_speed * params.h * speed;
        reach[i] = reach_i;
        if !is_large(i) {
            let units = min(reach_i * REACH_UNITS / params.large_limit, MAX_REACH_UNITS);
            atomicAdd(&group_reach, u32(units));
        }
    }
    workgroupBarrier();
    if lid == 0u {
        // A 64-bit sum: a wrapped low word carries into the high word.
        let add = atomicLoad(&group_reach);
        let low = atomicAdd(&bounds[B_REACH_SUM], add);
        if low + add < low {
            atomicAdd(&bounds[B_REACH_SUM + 1u], 1u);
        }
    }
}

/// FAST_REACH times the small spheres' mean reach.
fn fast_reach() -> f32 {
    let units = f32(atomicLoad(&bounds[B_REACH_SUM + 1u])) * 4294967296.0 + f32(atomicLoad(&bounds[B_REACH_SUM]));
    let small = max(params.n_bodies - params.n_large, 1u);
    return FAST_REACH * units / f32(small) * params.large_limit / REACH_UNITS;
}

/// Which bodies the grid holds (cell_of: 0, or NOT_IN_GRID for large bodies and fast grains),
/// and the bounds of the grid bodies' centres and reaches.
@compute @workgroup_size(256)
fn grid_bounds(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    var lo = vec3<u32>(0xffffffffu);
    var hi = vec3<u32>(0u);
    var r = 0u;
    if i < params.n_bodies {
        let in_grid = !is_large(i) && reach[i] <= fast_reach();
        cell_of[i] = select(NOT_IN_GRID, 0u, in_grid);
        if in_grid {
            let p = pos_radius[i];
            lo = vec3<u32>(ordered(p.x), ordered(p.y), ordered(p.z));
            hi = lo;
            r = ordered(reach[i]);
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

/// Whether x · y ≤ cap, exactly.
fn fits(x: u32, y: u32, cap: u32) -> bool {
    return y == 0u || x <= cap / y;
}

/// Cell edge 2 × the largest grid reach; enough cells to cover the grid bodies' extent where at
/// most `cell_capacity` do, and otherwise the longest axes cut to fit (at least 3 cells each) and
/// made periodic (as Grid::size_cells).
@compute @workgroup_size(1)
fn size_grid() {
    let lo = vec3<f32>(unordered(atomicLoad(&bounds[B_MIN])), unordered(atomicLoad(&bounds[B_MIN + 1u])),
                       unordered(atomicLoad(&bounds[B_MIN + 2u])));
    let hi = vec3<f32>(unordered(atomicLoad(&bounds[B_MAX])), unordered(atomicLoad(&bounds[B_MAX + 1u])),
                       unordered(atomicLoad(&bounds[B_MAX + 2u])));
    grid.periodic = vec3<u32>(0u);
    if !(lo.x <= hi.x) {
        // No body in the grid.
        grid.origin = vec3<f32>(0.0);
        grid.cell = 1.0;
        grid.dims = vec3<i32>(1);
        grid.cells = 1u;
        return;
    }
    let cell = max(2.0 * unordered(atomicLoad(&bounds[B_REACH])), 1e-12);
    let needed = vec3<u32>(min(floor(max(hi - lo, vec3<f32>(0.0)) / cell) + vec3<f32>(1.0), vec3<f32>(FAR)));
    let cap = params.cell_capacity;
    var dims = needed;
    // Each cut fits the longest axis to the budget, or to 3 cells when the others alone exceed
    // it; after three cuts the grid fits.
    for (var k = 0u; k < 3u; k = k + 1u) {
        var a = 0u;
        if dims.y > dims[a] {
            a = 1u;
        }
        if dims.z > dims[a] {
            a = 2u;
        }
        let b = dims[(a + 1u) % 3u];
        let c = dims[(a + 2u) % 3u];
        if !fits(b, c, cap) {
            dims[a] = 3u;
        } else if fits(dims[a], b * c, cap) {
            break;
        } else {
            dims[a] = max(cap / (b * c), 3u);
        }
    }
    grid.origin = lo;
    grid.cell = cell;
    grid.dims = vec3<i32>(dims);
    grid.periodic = select(vec3<u32>(0u), vec3<u32>(1u), dims < needed);
    grid.cells = dims.x * dims.y * dims.z;
}

/// Linear index of cell coordinates, taken modulo the cell counts (as Grid::index).
fn cell_index(c: vec3<i32>) -> u32 {
    let d = grid.dims;
    return u32(wrap(c.x, d.x) + d.x * (wrap(c.y, d.y) + d.y * wrap(c.z, d.z)));
}

/// Each grid body's cell and each fast grain's slot (`grid.cells`), counted.
@compute @workgroup_size(256)
fn count_cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if i >= params.n_bodies || is_large(i) {
        return;
    }
    var c = grid.cells;
    if cell_of[i] != NOT_IN_GRID {
        c = cell_index(cell_coords(pos_radius[i].xyz));
    }
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

/// The scatter's order within a cell depends on timing: sort each cell, and the fast grains, by
/// body index.
@compute @workgroup_size(256)
fn sort_cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let c = thread_index(wid, nwg, lid);
    if c > params.cell_capacity {
        return;
    }
    atomicStore(&cell_fill[c], 0u);
    if c > grid.cells {
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
