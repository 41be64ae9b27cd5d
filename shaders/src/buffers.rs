//! Device buffers of the step, sized once per body count, with their bind groups.

use crate::inertia::BodyInertia;
use crate::programs::{Programs, SOLVE_BINDINGS};
use bytemuck::{Pod, Zeroable};
use grains_kernels::layout::{ContactRow, Motion, Wall};
use grains_kernels::GpuError;

/// Partner slots per body (`MAX_PAIRS` in `narrow_phase.wgsl`).
pub const MAX_PAIRS: u64 = 32;
/// Contact rows reserved per body.
pub const ROWS_PER_BODY: u64 = 8;
/// Bytes of one compact solver row (`SolverRow` in `solver_row.wgsl`, GPU only).
pub const SOLVER_ROW_BYTES: u64 = 48;
/// Bytes of one shared body's record (`SharedBody` in `shared_bodies.wgsl`).
pub const SHARED_BODY_BYTES: u64 = 96;
/// Threads per workgroup in every stage.
pub const WG: u64 = 256;
/// Slots of `bounds` (`BOUND_SLOTS` in `layout.wgsl`).
const BOUND_SLOTS: u64 = 9;
/// Elements a prefix-sum workgroup scans.
const SCAN_BLOCK: u64 = 1024;
/// Most workgroups along one dispatch dimension.
const MAX_GROUPS: u64 = 65535;

/// The uniform parameters of a step (`Params` in `layout.wgsl`), 96 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Params {
    pub gravity: [f32; 3],
    pub h: f32,
    pub envelope_floor: f32,
    pub envelope_speed: f32,
    pub omega: f32,
    pub softness: f32,
    pub softness_ratio: f32,
    pub large_limit: f32,
    pub warm_weight: f32,
    pub planar: u32,
    pub n_bodies: u32,
    pub n_walls: u32,
    pub n_drives: u32,
    pub n_large: u32,
    pub n_materials: u32,
    pub cell_capacity: u32,
    pub row_capacity: u32,
    pub stabilise: u32,
    pub give_speed: f32,
    /// Bodies `0..n_owned` are this rank's own in a distributed step (`n_bodies` otherwise).
    pub n_owned: u32,
    /// Bodies other ranks also hold, in a distributed step (0 otherwise).
    pub n_shared: u32,
    pub pad: u32,
}

/// The step's grid (`GridInfo` in `layout.wgsl`), 48 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GridInfo {
    pub origin: [f32; 3],
    pub cell: f32,
    pub dims: [i32; 3],
    pub cells: u32,
    pub periodic: [u32; 3],
    pub rows: u32,
}

/// One contact's moment rows (`Moment` in `rolling.wgsl`), 64 bytes: (e_r, e_roll,
/// 1/w_m, w_m |r_a|), (γ_s, γ_r1, γ_r2, 0), the sweep's moment-impulse change and the step's
/// moment impulse as world vectors.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Moment {
    pub row: [f32; 4],
    pub gamma: [f32; 4],
    pub impulse: [f32; 4],
    pub cache: [f32; 4],
}

/// Workgroups (x, y) covering `threads` invocations of WG threads, x at most 65535.
pub fn groups(threads: u64) -> (u32, u32) {
    let g = threads.div_ceil(WG).max(1);
    let x = g.min(MAX_GROUPS);
    (x as u32, g.div_ceil(x) as u32)
}

/// One prefix sum: per level, the bind group (data, sums, counters) and its block count; level
/// 0's counters are those `take_counts` empties into the data (a stand-in elsewhere).
pub struct ScanPlan {
    pub levels: Vec<(wgpu::BindGroup, u32)>,
}

/// Capacities the buffers were sized for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    pub bodies: u64,
    pub walls: u64,
    pub drives: u64,
    pub materials: u64,
    pub large: u64,
    pub cells: u64,
    pub rows: u64,
    /// Whether the contacts have moment rows (spinning or rolling friction).
    pub moments: bool,
    /// Whether some body is anisotropic (the inertia buffer holds one entry per body, else one).
    pub anisotropic: bool,
    /// Words of the clumps' buffer (`clump_shapes.wgsl`): 0 in a world without clumps (no
    /// clumps' buffer, compact solver rows); else the solve reads the full rows.
    pub clump_words: u64,
    /// Whether the buffers serve one rank of a distributed step (the bodies' ids and the
    /// shared bodies' records hold one entry per body, else one).
    pub distributed: bool,
}

impl Sizes {
    /// Capacities for a scene: cells as the CPU grid's budget, rows per body.
    pub fn for_scene(
        bodies: usize,
        walls: usize,
        drives: usize,
        materials: usize,
        large: usize,
        moments: bool,
        anisotropic: bool,
    ) -> Self {
        let n = bodies as u64;
        Sizes {
            bodies: n,
            walls: walls as u64,
            drives: drives as u64,
            materials: materials as u64,
            large: large as u64,
            cells: (4 * n).max(4096),
            rows: (ROWS_PER_BODY * n).max(1024),
            moments,
            anisotropic,
            clump_words: 0,
            distributed: false,
        }
    }

    /// These capacities with a clumps' buffer of `words` (0: a world without clumps), and rows
    /// for every member of the largest clump (`most` members; 1 without clumps) as for a sphere.
    pub fn with_clumps(mut self, (words, most): (u64, u64)) -> Self {
        self.clump_words = words;
        self.rows = (ROWS_PER_BODY * self.bodies * most.max(1)).max(1024);
        self
    }

    /// Slots of the cell counts: the grid's cells, then the fast grains' slot.
    pub fn cell_slots(&self) -> u64 {
        self.cells + 1
    }

    /// Entries of the buffers of a distributed step (`solver_row.wgsl`'s ids,
    /// `shared_bodies.wgsl`'s list, records and slots): one per body in one, else one.
    fn per_rank(&self) -> u64 {
        if self.distributed {
            self.bodies
        } else {
            1
        }
    }
}

/// The contacts' moment rows and the bind group (group 1 of `rolling.wgsl`) that binds
/// them, only where some material pair has spinning or rolling friction.
pub struct MomentBuffers {
    pub moments: wgpu::Buffer,
    pub group: wgpu::BindGroup,
}

/// Every buffer of the step. `row_start`, `keys` and `cache` alternate between steps.
pub struct Buffers {
    pub sizes: Sizes,
    pub params: wgpu::Buffer,
    pub pos_radius: wgpu::Buffer,
    pub orientation: wgpu::Buffer,
    pub motion: wgpu::Buffer,
    pub material: wgpu::Buffer,
    pub kind: wgpu::Buffer,
    pub walls: wgpu::Buffer,
    pub drives: wgpu::Buffer,
    pub friction: wgpu::Buffer,
    pub large: wgpu::Buffer,
    /// The step's grid (`GridInfo` in `layout.wgsl`) and each body's cell.
    pub grid: wgpu::Buffer,
    pub cell_of: wgpu::Buffer,
    pub rows: wgpu::Buffer,
    pub gamma: wgpu::Buffer,
    pub stats: wgpu::Buffer,
    pub row_start: [wgpu::Buffer; 2],
    pub keys: [wgpu::Buffer; 2],
    pub cache: [wgpu::Buffer; 2],
    pub dispatch: wgpu::Buffer,
    pub moments: Option<MomentBuffers>,
    /// Each body's inertia (`inertia.wgsl`): one entry per body where some body is
    /// anisotropic, else one empty entry.
    pub inertia: wgpu::Buffer,
    /// The clumps' buffer (`clump_shapes.wgsl`) and group 1 of the broad and narrow phases that
    /// binds it, in a world with clumps.
    pub clumps: Option<(wgpu::Buffer, wgpu::BindGroup)>,
    /// Group 0 for a step writing set `p` and reading set `1 − p`.
    pub step_groups: [wgpu::BindGroup; 2],
    pub dispatch_group: wgpu::BindGroup,
    /// A distributed step's: each body's id, the shared bodies' local indices and their
    /// records (`SharedBody`), and each body's slot among them; one empty entry each outside
    /// one.
    pub body_ids: wgpu::Buffer,
    pub shared_list: wgpu::Buffer,
    pub shared_bodies: wgpu::Buffer,
    pub body_slot: wgpu::Buffer,
    /// Group 0 of the solve and of the solver rows' compaction: the uniform parameters and
    /// [`SOLVE_BINDINGS`].
    pub solve_group: wgpu::BindGroup,
    pub cell_scan: ScanPlan,
    pub body_scan: ScanPlan,
    pub row_scan: [ScanPlan; 2],
}

/// Creates buffers, naming the first that does not fit the device.
struct Allocator<'a> {
    device: &'a wgpu::Device,
    limits: &'a wgpu::Limits,
    adapter: &'a str,
    bodies: usize,
    total: u64,
}

impl Allocator<'_> {
    fn buffer(
        &mut self,
        label: &'static str,
        bytes: u64,
        extra: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer, GpuError> {
        let size = bytes.max(16).next_multiple_of(16);
        let limit = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size);
        if size > limit {
            return Err(GpuError::OutOfMemory {
                adapter: self.adapter.to_string(),
                bodies: self.bodies,
                buffer: label,
                needed: size,
                limit: format!("the device's largest storage buffer is {limit} bytes"),
            });
        }
        self.total += size;
        Ok(self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC
                | extra,
            mapped_at_creation: false,
        }))
    }

    fn storage(
        &mut self,
        label: &'static str,
        count: u64,
        stride: u64,
    ) -> Result<wgpu::Buffer, GpuError> {
        // At least one element: a shader's array binding needs one (a world fed from empty
        // starts with no bodies).
        self.buffer(label, count.max(1) * stride, wgpu::BufferUsages::empty())
    }

    /// A prefix sum over `data` of `len` elements (one sums buffer per level), whose first
    /// `len − 1` elements are counted in `fill` when given.
    fn scan(
        &mut self,
        device: &wgpu::Device,
        programs: &Programs,
        data: &wgpu::Buffer,
        len: u64,
        fill: Option<&wgpu::Buffer>,
    ) -> Result<ScanPlan, GpuError> {
        let mut levels = Vec::new();
        let mut data = data.clone();
        let mut len = len;
        let stand_in = self.storage("no counters", 1, 4)?;
        let mut fill = fill.cloned();
        loop {
            let blocks = len.div_ceil(SCAN_BLOCK).max(1);
            let sums = self.storage("scan sums", blocks, 4)?;
            let (counters, counted) = match fill.take() {
                Some(f) => (f, (len - 1) * 4),
                None => (stand_in.clone(), 4),
            };
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("scan"),
                layout: &programs.scan_layout,
                entries: &[
                    entry(0, &data, len * 4),
                    entry(1, &sums, blocks * 4),
                    entry(2, &counters, counted),
                ],
            });
            levels.push((group, blocks as u32));
            if blocks == 1 {
                return Ok(ScanPlan { levels });
            }
            data = sums;
            len = blocks;
        }
    }
}

/// A binding of the first `bytes` of `buffer` (so `arrayLength` sees the logical length).
fn entry(binding: u32, buffer: &wgpu::Buffer, bytes: u64) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: 0,
            size: std::num::NonZeroU64::new(bytes.max(4)),
        }),
    }
}

/// A bind group of `layout` binding the whole of `buffer` at binding 0.
fn single_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffer: &wgpu::Buffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    })
}

impl Buffers {
    /// Allocates every buffer for `sizes` (bodies, walls, drives, materials, large bodies).
    pub fn new(
        device: &wgpu::Device,
        limits: &wgpu::Limits,
        adapter: &str,
        programs: &Programs,
        sizes: Sizes,
    ) -> Result<Self, GpuError> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let mut a = Allocator {
            device,
            limits,
            adapter,
            bodies: sizes.bodies as usize,
            total: 0,
        };
        let n = sizes.bodies;
        let rows_cap = sizes.rows;
        let row_groups = groups(rows_cap);
        let residual_groups = row_groups.0 as u64 * row_groups.1 as u64;
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("params"),
            size: std::mem::size_of::<Params>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let pos_radius = a.storage("pos_radius", n, 16)?;
        let orientation = a.storage("orientation", n, 16)?;
        let motion = a.storage("motion", n, std::mem::size_of::<Motion>() as u64)?;
        let material = a.storage("material", n, 4)?;
        let kind = a.storage("kind", n, 4)?;
        let reach = a.storage("reach", n, 4)?;
        // At least one element each: a binding must hold one element of its array even where
        // the scene has none (a world without walls or drives).
        let walls = a.storage(
            "walls",
            sizes.walls.max(1),
            std::mem::size_of::<Wall>() as u64,
        )?;
        let drives = a.storage("drives", sizes.drives.max(1), 32)?;
        // μ, e_r and e_roll of every material pair, one table after the other.
        let friction = a.storage("friction", 3 * sizes.materials * sizes.materials, 4)?;
        let large = a.storage("large", sizes.large, 4)?;
        let grid = a.storage("grid", 1, std::mem::size_of::<GridInfo>() as u64)?;
        let bounds = a.storage("bounds", BOUND_SLOTS, 4)?;
        let cell_of = a.storage("cell_of", n, 4)?;
        let cell_start = a.storage("cell_start", sizes.cell_slots() + 1, 4)?;
        let cell_fill = a.storage("cell_fill", sizes.cell_slots(), 4)?;
        let grid_bodies = a.storage("grid_bodies", n, 4)?;
        let partners = a.storage("partners", n * MAX_PAIRS, 4)?;
        let rows = a.storage("rows", rows_cap, std::mem::size_of::<ContactRow>() as u64)?;
        let gamma = a.storage("gamma", rows_cap, 16)?;
        let impulse = a.storage("impulse", rows_cap, 16)?;
        let body_start = a.storage("body_start", n + 1, 4)?;
        let body_fill = a.storage("body_fill", n, 4)?;
        let body_entries = a.storage("body_entries", 2 * rows_cap, 16)?;
        let stats = a.storage("stats", 8, 4)?;
        let residual_blocks = a.storage("residual_blocks", residual_groups, 4)?;
        // A world with clumps solves with the full rows (`solver_row_full.wgsl`).
        let compact_rows = if sizes.clump_words > 0 { 1 } else { rows_cap };
        let solver_rows = a.storage("solver_rows", compact_rows, SOLVER_ROW_BYTES)?;
        let inertia = a.storage(
            "inertia",
            if sizes.anisotropic { n } else { 1 },
            std::mem::size_of::<BodyInertia>() as u64,
        )?;
        let body_ids = a.storage("body_ids", sizes.per_rank(), 4)?;
        let shared_list = a.storage("shared_list", sizes.per_rank(), 4)?;
        let shared_bodies = a.storage("shared_bodies", sizes.per_rank(), SHARED_BODY_BYTES)?;
        let body_slot = a.storage("body_slot", sizes.per_rank(), 4)?;
        let row_start = [
            a.storage("row_start", n + 1, 4)?,
            a.storage("row_start", n + 1, 4)?,
        ];
        let keys = [
            a.storage("keys", rows_cap, 8)?,
            a.storage("keys", rows_cap, 8)?,
        ];
        let cache = [
            a.storage("cache", rows_cap, 16)?,
            a.storage("cache", rows_cap, 16)?,
        ];
        let dispatch = a.buffer("dispatch", 16, wgpu::BufferUsages::INDIRECT)?;
        let clumps = if sizes.clump_words > 0 {
            let data = a.storage("clumps", sizes.clump_words, 4)?;
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("clumps"),
                layout: &programs.clump_layout,
                entries: &[entry(2, &data, 4 * sizes.clump_words)],
            });
            Some((data, group))
        } else {
            None
        };
        let moments = if sizes.moments {
            let moments = a.storage("moments", rows_cap, std::mem::size_of::<Moment>() as u64)?;
            let group = single_group(device, "moments", &programs.moment_layout, &moments);
            Some(MomentBuffers { moments, group })
        } else {
            None
        };
        let cell_scan = a.scan(
            device,
            programs,
            &cell_start,
            sizes.cell_slots() + 1,
            Some(&cell_fill),
        )?;
        let body_scan = a.scan(device, programs, &body_start, n + 1, Some(&body_fill))?;
        let row_scan = [
            a.scan(device, programs, &row_start[0], n + 1, None)?,
            a.scan(device, programs, &row_start[1], n + 1, None)?,
        ];
        fn whole(b: &wgpu::Buffer) -> wgpu::BindingResource<'_> {
            b.as_entire_binding()
        }
        let step_group = |p: usize| {
            let q = 1 - p;
            let list: [&wgpu::Buffer; 31] = [
                &pos_radius,
                &orientation,
                &motion,
                &material,
                &kind,
                &reach,
                &walls,
                &drives,
                &friction,
                &large,
                &grid,
                &bounds,
                &cell_of,
                &cell_start,
                &cell_fill,
                &grid_bodies,
                &partners,
                &rows,
                &gamma,
                &impulse,
                &body_start,
                &body_fill,
                &body_entries,
                &stats,
                &residual_blocks,
                &row_start[p],
                &keys[p],
                &cache[p],
                &row_start[q],
                &keys[q],
                &cache[q],
            ];
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: whole(&params),
            }];
            entries.extend(list.iter().enumerate().map(|(k, b)| wgpu::BindGroupEntry {
                binding: k as u32 + 1,
                resource: whole(b),
            }));
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("step"),
                layout: &programs.step_layout,
                entries: &entries,
            })
        };
        let step_groups = [step_group(0), step_group(1)];
        let dispatch_group = single_group(device, "dispatch", &programs.dispatch_layout, &dispatch);
        let solve_list = [
            &pos_radius,
            &orientation,
            &motion,
            &kind,
            &grid,
            &rows,
            &gamma,
            &impulse,
            &body_start,
            &body_entries,
            &stats,
            &residual_blocks,
            &solver_rows,
            &inertia,
            &body_ids,
            &shared_list,
            &shared_bodies,
            &body_slot,
        ];
        let mut solve_entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: whole(&params),
        }];
        solve_entries.extend(SOLVE_BINDINGS.iter().zip(solve_list).map(|(&binding, b)| {
            wgpu::BindGroupEntry {
                binding,
                resource: whole(b),
            }
        }));
        let solve_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("solve"),
            layout: &programs.solve_layout,
            entries: &solve_entries,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::OutOfMemory {
                adapter: adapter.to_string(),
                bodies: n as usize,
                buffer: "all buffers together",
                needed: a.total,
                limit: e.to_string(),
            });
        }
        Ok(Buffers {
            sizes,
            params,
            pos_radius,
            orientation,
            motion,
            material,
            kind,
            walls,
            drives,
            friction,
            large,
            grid,
            cell_of,
            rows,
            gamma,
            stats,
            row_start,
            keys,
            cache,
            dispatch,
            moments,
            inertia,
            clumps,
            body_ids,
            shared_list,
            shared_bodies,
            body_slot,
            step_groups,
            dispatch_group,
            solve_group,
            cell_scan,
            body_scan,
            row_scan,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::device::Gpu;
    use crate::*;

    /// A scene whose buffers exceed the device's largest storage buffer is refused before any
    /// allocation, naming the buffer and the bytes it needs.
    #[test]
    fn too_large_a_scene_names_the_buffer_and_its_bytes() {
        let gpu = match Gpu::open() {
            Ok(g) => g,
            Err(GpuError::NoAdapter(why)) => {
                eprintln!("skipped: no GPU adapter ({why})");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        let programs = Programs::new(&gpu.device, false);
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: 1 << 20,
            ..gpu.limits.clone()
        };
        let sizes = Sizes::for_scene(100_000, 5, 0, 1, 0, false, false);
        match Buffers::new(&gpu.device, &limits, "test", &programs, sizes) {
            Err(GpuError::OutOfMemory {
                bodies,
                buffer,
                needed,
                ..
            }) => {
                assert_eq!((bodies, buffer, needed), (100_000, "pos_radius", 1_600_000));
            }
            Err(e) => panic!("wrong error: {e}"),
            Ok(_) => panic!("a 1.6 MB buffer passed a 1 MiB limit"),
        }
        let fits = Sizes::for_scene(1_000, 5, 0, 1, 0, false, false);
        assert!(Buffers::new(&gpu.device, &gpu.limits, "test", &programs, fits).is_ok());
    }
}
