// Prefix sums (mirrors kernels/src/parallel.rs's exclusive_scan): blocks of 1024 are scanned in
// place and their totals written to `sums`; the sums are scanned the same way (a level up) and
// added back. `take_counts` first moves atomic counts into the array to scan. A standalone module
// with its own bindings.

const THREADS: u32 = 256u;
const PER_THREAD: u32 = 4u;
const BLOCK: u32 = 1024u;

@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;
// The counters `take_counts` empties into `data` (one fewer than `data`: the last entry of
// `data` becomes the total).
@group(0) @binding(2) var<storage, read_write> fill: array<atomic<u32>>;

var<workgroup> totals: array<u32, THREADS>;

fn block_of(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

/// data[i] = fill[i] and fill[i] = 0 (the counters are ready for the scatter), data[last] = 0.
@compute @workgroup_size(256)
fn take_counts(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = block_of(wid, nwg) * THREADS + lid;
    if i >= arrayLength(&data) {
        return;
    }
    var count = 0u;
    if i < arrayLength(&fill) {
        count = atomicExchange(&fill[i], 0u);
    }
    data[i] = count;
}

/// Exclusive prefix sum of each block of 1024 in place; the block's total goes to `sums`.
@compute @workgroup_size(256)
fn scan_blocks(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let block = block_of(wid, nwg);
    let len = arrayLength(&data);
    let first = block * BLOCK + lid * PER_THREAD;
    var v: array<u32, 4>;
    var run = 0u;
    for (var k = 0u; k < PER_THREAD; k = k + 1u) {
        var x = 0u;
        if first + k < len {
            x = data[first + k];
        }
        v[k] = run;
        run = run + x;
    }
    // Inclusive scan of the thread totals (Hillis–Steele).
    totals[lid] = run;
    workgroupBarrier();
    for (var s = 1u; s < THREADS; s = s * 2u) {
        var add = 0u;
        if lid >= s {
            add = totals[lid - s];
        }
        workgroupBarrier();
        totals[lid] = totals[lid] + add;
        workgroupBarrier();
    }
    let before = totals[lid] - run;
    for (var k = 0u; k < PER_THREAD; k = k + 1u) {
        if first + k < len {
            data[first + k] = v[k] + before;
        }
    }
    if lid == THREADS - 1u && block < arrayLength(&sums) {
        sums[block] = totals[lid];
    }
}

/// Adds each block's scanned offset to its elements.
@compute @workgroup_size(256)
fn add_block_offsets(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32) {
    let block = block_of(wid, nwg);
    let len = arrayLength(&data);
    let offset = sums[block];
    for (var k = 0u; k < PER_THREAD; k = k + 1u) {
        let i = block * BLOCK + k * THREADS + lid;
        if i < len {
            data[i] = data[i] + offset;
        }
    }
}
