//! The GPU backend: the same step as [`grains_kernels::CpuPipeline`] with projected Jacobi or
//! APGD (and their Coulomb-correction passes), every stage a WGSL compute shader beside this crate's
//! host code (`src/*.wgsl`, each naming the CPU file it mirrors), run through wgpu in the stage
//! order of [`grains_kernels::Stage`]. The body state lives on the device; the host copy is
//! refreshed only when asked ([`GpuPipeline::step`] with `read_back`, or
//! [`GpuPipeline::read_back`]).

mod apgd;
mod buffers;
mod clumps;
mod device;
mod distributed;
mod inertia;
mod mesh;
mod profiler;
mod programs;
mod quiet;
mod step;
mod traffic;

pub use distributed::RankStepError;
pub use grains_kernels::GpuError;
pub use traffic::gpu_sweep_traffic;

use buffers::{Buffers, GridInfo, Moment, Params, Sizes, MAX_PAIRS};
use device::Gpu;
use grains_kernels::broad_phase::{large_limit, Envelope};
use grains_kernels::forces::{Actuation, Load, LOAD};
use grains_kernels::inertia::PrincipalInertia;
use grains_kernels::layout::{pair_key, Bodies, ContactRow, FrictionTable, Motion, Wall};
use grains_kernels::mesh::MeshWalls;
use grains_kernels::narrow_phase::FLAGS_A;
use grains_kernels::observe::kinetic_energy_of_rigid_bodies;
use grains_kernels::support::{device_refusal, Feature};
use grains_kernels::{SolverKind, StageTimes, StepParams, StepStats};
use profiler::{Profiler, TIMED_PASSES};
use programs::Programs;
use std::time::Instant;

/// Contacts read back from the device: pair keys (ascending), rows, impulses (γn, γt1, γt2, 0)
/// and moment impulses (γ_s, γ_r1, γ_r2, 0) (none without spinning and rolling friction).
pub type ContactReadBack = (Vec<u64>, Vec<ContactRow>, Vec<[f32; 4]>, Vec<[f32; 4]>);

/// The warm-start memory: pair keys (ascending), world-space impulse vectors and moment impulse
/// vectors (one per key, or none without spinning and rolling friction).
pub type WarmStartState = (Vec<u64>, Vec<[f32; 4]>, Vec<[f32; 4]>);

/// The grid of the last step as the device built it.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuGrid {
    /// Cell edge (m): twice the largest reach of a grid body.
    pub cell: f32,
    /// Cells along x, y, z.
    pub dims: [i32; 3],
    /// The axes along which the grid repeats periodically.
    pub periodic: [bool; 3],
    /// The grains left out of the grid for their speed, in increasing index.
    pub fast: Vec<u32>,
}

/// GPU backend: a wgpu device with every buffer and pipeline of the step.
pub struct GpuPipeline {
    gpu: Gpu,
    programs: Programs,
    buffers: Option<Buffers>,
    /// The bodies of the coming (or last) step: the buffers hold room for `sizes.bodies`, as
    /// many, or on a rank of a distributed run more.
    count: u64,
    /// The ping-pong set the last step wrote (its keys, row offsets and impulses).
    parity: usize,
    upload: bool,
    warm_valid: bool,
    pending_warm: Option<WarmStartState>,
    large_limit: f32,
    /// The applied forces of the coming steps, one [`LOAD`] entry per body.
    loads: Vec<Actuation>,
    last: StepStats,
    elapsed: f64,
    energy_blocks: Vec<f64>,
    profiler: Option<Profiler>,
    steps: u64,
    /// The mesh walls' buffers (none while the world has no mesh wall).
    meshes: Option<mesh::MeshBuffers>,
    /// APGD's momentum and last iterates with its solve's bind groups (none before the first
    /// APGD step on the current buffers).
    apgd: Option<apgd::ApgdBuffers>,
    /// The anisotropic bodies' principal moments, for the coming uploads and the kinetic
    /// energy.
    inertia: PrincipalInertia,
    /// The clump templates and each body's, for the coming uploads.
    clumps: clumps::ClumpShapes,
    /// Whether the next step first computes the anisotropic bodies' I_w⁻¹ (after an upload).
    refresh_inertia: bool,
}

/// Bytes of one contact's moment rows.
const MOMENT_BYTES: u64 = std::mem::size_of::<Moment>() as u64;

/// Slots of the statistics buffer (`stats` in `layout.wgsl`).
const STAT_ROWS: usize = 0;
const STAT_PENETRATION: usize = 1;
const STAT_PAIRS: usize = 2;
const STAT_RESIDUAL: usize = 3;
const STAT_MESH_CANDIDATES: usize = 5;
/// Candidate triangles one sphere may hold (`MAX_MESH_CANDIDATES` in `mesh.wgsl`).
const MAX_MESH_CANDIDATES: u64 = 16;

impl GpuPipeline {
    /// Opens the first suitable adapter (high performance preferred, software devices allowed).
    pub fn new() -> Result<Self, GpuError> {
        let gpu = Gpu::open()?;
        let programs = gpu.validated("compiling the shaders", || {
            Programs::new(&gpu.device, false)
        })?;
        let profiler = Profiler::new(&gpu);
        Ok(GpuPipeline {
            gpu,
            programs,
            buffers: None,
            count: 0,
            parity: 0,
            upload: true,
            warm_valid: false,
            pending_warm: None,
            large_limit: f32::INFINITY,
            loads: Vec::new(),
            last: StepStats::default(),
            elapsed: 0.0,
            energy_blocks: Vec::new(),
            profiler,
            steps: 0,
            meshes: None,
            apgd: None,
            inertia: PrincipalInertia::default(),
            clumps: clumps::ClumpShapes::default(),
            refresh_inertia: false,
        })
    }

    /// Compiles the stages with the moment rows of spinning and rolling friction now rather than
    /// at the first step that needs them; fails where the adapter lacks the one storage buffer
    /// more that they bind.
    pub fn prepare_moment_rows(&mut self) -> Result<(), GpuError> {
        self.programs.load_rolling(&self.gpu)
    }

    /// The mesh walls of the following steps, placed for the coming one: written to the
    /// device when they changed since the last call (every step while a mesh moves). The first
    /// call with triangles compiles the narrow phase with mesh contacts; fails where the adapter
    /// lacks the storage buffers it binds.
    pub fn set_meshes(&mut self, mesh: &MeshWalls) -> Result<(), GpuError> {
        if mesh.is_empty() && self.meshes.is_none() {
            return Ok(());
        }
        self.programs.load_meshes(&self.gpu)?;
        mesh::MeshBuffers::update(&mut self.meshes, &self.gpu, &self.programs, mesh);
        Ok(())
    }

    /// The anisotropic bodies' principal moments (the CPU's [`PrincipalInertia`]; their
    /// `inv_inertia` is 0). Takes effect with the next upload of the bodies, which it asks for.
    pub fn set_principal_inertia(&mut self, inertia: PrincipalInertia) {
        self.inertia = inertia;
        self.upload = true;
    }

    /// The clump templates of `table` and each body's shape (`shapes`: spheres and clumps; empty
    /// when every body is a sphere); refuses other shapes. The first call with a template (for
    /// the bodies or the grains an insertion will place) compiles every stage again for clumps
    /// (`clump_shapes.wgsl`, `solver_row_full.wgsl`), which refuses mesh walls from then on.
    /// Takes effect with the next upload of the bodies, which it asks for.
    pub fn set_clumps(
        &mut self,
        table: grains_kernels::shapes::clump::ClumpTable,
        shapes: &[grains_kernels::Shape],
    ) -> Result<(), GpuError> {
        let clumps = clumps::ClumpShapes::new(table, shapes)?;
        if !clumps.table.is_empty() && !self.programs.clumps {
            if self.meshes.is_some() {
                device_refusal(Feature::GpuBackend, Feature::ClumpsBesideMeshes)?;
            }
            let device = &self.gpu.device;
            self.programs = self.gpu.validated("compiling the shaders for clumps", || {
                Programs::new(device, true)
            })?;
            self.buffers = None;
            self.apgd = None;
        }
        self.clumps = clumps;
        self.upload = true;
        Ok(())
    }

    /// Each body's shape after bodies came or went: the same kinds [`GpuPipeline::set_clumps`]
    /// took (a world's bodies only leave on the GPU). Takes effect with the next upload, which
    /// it asks for.
    pub fn set_body_shapes(&mut self, shapes: &[grains_kernels::Shape]) {
        self.clumps.set_bodies(shapes);
        self.upload = true;
    }

    /// Whether the solve reads the full contact rows (a world with clumps) rather than the
    /// compact solver rows.
    pub fn solves_with_full_rows(&self) -> bool {
        self.programs.clumps
    }

    /// The adapter's name (e.g. "NVIDIA H100" or "llvmpipe").
    pub fn adapter_name(&self) -> &str {
        &self.gpu.adapter
    }

    /// Uploads `bodies` on the next step instead of keeping the device's copy (after the host
    /// changed them). Also forgets the warm start when `forget_warm_start`.
    pub fn invalidate(&mut self, forget_warm_start: bool) {
        self.upload = true;
        if forget_warm_start {
            self.warm_valid = false;
            self.pending_warm = None;
        }
    }

    /// Replaces the applied forces of the following steps (each body's forces summed, in the
    /// order given).
    pub fn set_loads(&mut self, loads: &[Load]) {
        self.loads.clear();
        self.loads.extend(loads.iter().map(|l| Actuation {
            body: l.body,
            linear: l.force.to_array(),
            angular: [0.0; 3],
            kind: LOAD,
        }));
        // A stable sort keeps each body's forces in the order given for the sum.
        self.loads.sort_by_key(|d| d.body);
        self.loads.dedup_by(|later, kept| {
            let same = later.body == kept.body;
            if same {
                kept.linear = (glam::Vec3::from_array(kept.linear)
                    + glam::Vec3::from_array(later.linear))
                .to_array();
            }
            same
        });
    }

    /// Runs one step on the device. With `read_back`, waits for it and copies the bodies into
    /// `bodies` and returns fresh statistics; otherwise returns the last read-back statistics
    /// and leaves `bodies` as they were at the last read-back.
    pub fn step(
        &mut self,
        bodies: &mut Bodies,
        walls: &[Wall],
        drives: &[Actuation],
        friction: &FrictionTable,
        p: &StepParams,
        read_back: bool,
    ) -> Result<StepStats, GpuError> {
        let clock = Instant::now();
        self.ready_buffers(bodies, walls, drives, friction, p, false)?;
        let cur = 1 - self.parity;
        self.write_step_inputs(walls, drives, friction, p, None);
        let inputs = drives.len() + self.loads.len();
        self.encode_step(cur, inputs, p);
        self.refresh_inertia = false;
        self.last.iterations = p.max_iterations * (1 + p.coulomb_correction);
        self.steps += 1;
        self.parity = cur;
        self.warm_valid = true;
        let out = if read_back {
            self.read_back(bodies)
        } else {
            Ok(self.last)
        };
        self.elapsed += clock.elapsed().as_secs_f64();
        out
    }

    /// Checks the device, compiles what the step needs, (re)makes the buffers for `bodies`
    /// where their sizes changed (for one rank of a distributed step where `distributed`),
    /// uploads the bodies where they changed on the host and a restored warm start.
    fn ready_buffers(
        &mut self,
        bodies: &Bodies,
        walls: &[Wall],
        drives: &[Actuation],
        friction: &FrictionTable,
        p: &StepParams,
        distributed: bool,
    ) -> Result<(), GpuError> {
        self.gpu.check()?;
        let rolls = friction.any_moment_friction();
        if rolls {
            self.programs.load_rolling(&self.gpu)?;
        }
        let accelerate = p.solver == SolverKind::Apgd;
        if accelerate {
            self.programs.load_apgd(&self.gpu, rolls)?;
        }
        let n = bodies.len() as u64;
        // A rank's local bodies change in number every step: its buffers keep room (a power of
        // two above 5/4 of its bodies) and are made afresh only when the bodies outgrow it or
        // fall below a quarter of it. One process's hold its bodies exactly.
        let room = self
            .buffers
            .as_ref()
            .map(|b| b.sizes)
            .filter(|s| distributed && s.distributed && n <= s.bodies && 4 * n >= s.bodies);
        let capacity = match (room, distributed) {
            (Some(s), _) => s.bodies,
            (None, true) => (n + n / 4).next_power_of_two(),
            (None, false) => n,
        };
        // The large bodies need a pass over the radii: only when something may have changed.
        let shape = |s: &Sizes| {
            s.bodies == capacity
                && s.walls == walls.len() as u64
                && s.drives == (drives.len() + self.loads.len()) as u64
                && s.materials == friction.count as u64
                && s.moments == rolls
                && s.anisotropic == self.inertia.any()
                && s.clump_words == self.clump_sizes(bodies.len()).0
                && s.distributed == distributed
        };
        if self.upload || !self.buffers.as_ref().is_some_and(|b| shape(&b.sizes)) {
            self.large_limit = large_limit(&bodies.pos_radius, &[]);
            let large: Vec<u32> = (0..bodies.len() as u32)
                .filter(|&i| bodies.pos_radius[i as usize].w > self.large_limit)
                .collect();
            let sizes = Sizes::for_scene(
                capacity as usize,
                walls.len(),
                drives.len() + self.loads.len(),
                friction.count,
                large.len(),
                rolls,
                self.inertia.any(),
            );
            let sizes = Sizes {
                distributed,
                ..sizes.with_clumps(self.clump_sizes(bodies.len()))
            };
            if self.buffers.as_ref().is_none_or(|b| b.sizes != sizes) {
                self.buffers = None;
                self.apgd = None;
                self.buffers = Some(Buffers::new(
                    &self.gpu.device,
                    &self.gpu.limits,
                    &self.gpu.adapter,
                    &self.programs,
                    sizes,
                )?);
                self.upload = true;
                self.warm_valid = false;
            }
            if self.upload {
                self.upload_bodies(bodies, friction, &large);
            }
        }
        self.count = n;
        if let Some((keys, impulse, moment)) = self.pending_warm.take() {
            self.upload_warm_start(bodies, &keys, &impulse, &moment);
        }
        if accelerate && self.apgd.is_none() {
            let b = self.buffers.as_ref().expect("buffers exist");
            self.apgd = Some(apgd::ApgdBuffers::new(&self.gpu.device, &self.programs, b));
        }
        Ok(())
    }

    /// Waits for the device and copies its bodies into `bodies`; returns the statistics of the
    /// last step.
    pub fn read_back(&mut self, bodies: &mut Bodies) -> Result<StepStats, GpuError> {
        let clock = Instant::now();
        let Some(b) = &self.buffers else {
            return Ok(self.last);
        };
        let n = bodies.len() as u64;
        let mut list = vec![
            (&b.pos_radius, n * 16),
            (&b.orientation, n * 16),
            (&b.motion, n * std::mem::size_of::<Motion>() as u64),
            (&b.stats, 32),
        ];
        if let Some(prof) = &self.profiler {
            list.push((&prof.resolved, 16 * TIMED_PASSES as u64));
        }
        let parts = self.gpu.read(&list)?;
        if let Some(prof) = &mut self.profiler {
            prof.record(&parts[4]);
        }
        bodies
            .pos_radius
            .copy_from_slice(&bytemuck::pod_collect_to_vec(&parts[0]));
        bodies
            .orientation
            .copy_from_slice(&bytemuck::pod_collect_to_vec(&parts[1]));
        bodies
            .motion
            .copy_from_slice(&bytemuck::pod_collect_to_vec(&parts[2]));
        let stats: Vec<u32> = bytemuck::pod_collect_to_vec(&parts[3]);
        let rows = self.check_capacity(&stats)?;
        self.last = StepStats {
            contacts: rows as usize,
            iterations: self.last.iterations,
            residual: f32::from_bits(stats[STAT_RESIDUAL]),
            max_penetration: f32::from_bits(stats[STAT_PENETRATION]),
            kinetic_energy: kinetic_energy_of_rigid_bodies(
                &bodies.motion,
                &bodies.kind,
                (&bodies.orientation, &self.inertia),
                &mut self.energy_blocks,
            ),
        };
        self.elapsed += clock.elapsed().as_secs_f64();
        Ok(self.last)
    }

    /// The last step's grid read back from the device (`None` before any step).
    pub fn grid(&mut self) -> Result<Option<GpuGrid>, GpuError> {
        let Some(b) = &self.buffers else {
            return Ok(None);
        };
        let size = std::mem::size_of::<GridInfo>() as u64;
        let parts = self
            .gpu
            .read(&[(&b.grid, size), (&b.cell_of, self.count * 4)])?;
        let info: GridInfo = bytemuck::pod_read_unaligned(&parts[0]);
        let cell_of: Vec<u32> = bytemuck::pod_collect_to_vec(&parts[1]);
        Ok(Some(GpuGrid {
            cell: info.cell,
            dims: info.dims,
            periodic: info.periodic.map(|p| p != 0),
            fast: (0..cell_of.len() as u32)
                .filter(|&i| cell_of[i as usize] == info.cells)
                .collect(),
        }))
    }

    /// The last step's contacts read back from the device: pair keys (ascending), rows,
    /// impulses (γn, γt1, γt2, 0) and moment impulses (γ_s, γ_r1, γ_r2, 0), all in key order.
    pub fn contacts(&mut self) -> Result<ContactReadBack, GpuError> {
        let Some(rows) = self.read_rows()? else {
            return Ok(Default::default());
        };
        let b = self.buffers.as_ref().expect("rows were read");
        let row_bytes = std::mem::size_of::<ContactRow>() as u64;
        let mut parts = vec![(&b.rows, row_bytes), (&b.gamma, 16)];
        parts.extend(b.moments.as_ref().map(|m| (&m.moments, MOMENT_BYTES)));
        let (keys, data) = self.read_in_key_order(rows, &parts)?;
        // The device keeps the Coulomb correction's lift in w; the impulses end at γt2.
        let impulses = bytemuck::pod_collect_to_vec::<u8, [f32; 4]>(&data[1])
            .into_iter()
            .map(|[n, t1, t2, _]| [n, t1, t2, 0.0])
            .collect();
        Ok((
            keys,
            bytemuck::pod_collect_to_vec(&data[0]),
            impulses,
            moment_field(data.get(2), |m| m.gamma),
        ))
    }

    /// The warm-start memory (pair keys ascending, world-space impulse vectors and moment impulse
    /// vectors), as [`grains_kernels::CpuPipeline::warm_start_state`] and
    /// [`grains_kernels::CpuPipeline::warm_start_moments`] give them.
    pub fn warm_start_state(&mut self) -> Result<WarmStartState, GpuError> {
        if let Some(pending) = &self.pending_warm {
            return Ok(pending.clone());
        }
        if !self.warm_valid {
            return Ok(Default::default());
        }
        let Some(rows) = self.read_rows()? else {
            return Ok(Default::default());
        };
        let b = self.buffers.as_ref().expect("rows were read");
        let mut parts = vec![(&b.cache[self.parity], 16)];
        parts.extend(b.moments.as_ref().map(|m| (&m.moments, MOMENT_BYTES)));
        let (keys, data) = self.read_in_key_order(rows, &parts)?;
        Ok((
            keys,
            bytemuck::pod_collect_to_vec(&data[0]),
            moment_field(data.get(1), |m| m.cache),
        ))
    }

    /// Restores the warm-start memory (keys ascending, one impulse per key, and one moment
    /// impulse per key or none), used on the next step.
    pub fn restore_warm_start(&mut self, keys: &[u64], impulse: &[[f32; 4]], moment: &[[f32; 4]]) {
        self.pending_warm = Some((keys.to_vec(), impulse.to_vec(), moment.to_vec()));
    }

    /// Seconds of host wall time spent in steps and read-backs (the device runs ahead of the
    /// host between read-backs, so only totals over whole synced runs are meaningful).
    pub fn elapsed(&self) -> f64 {
        self.elapsed
    }

    /// Seconds per stage over all steps taken, estimated from the GPU timestamps of the steps
    /// read back (the device's own clock; `None` where the adapter has no timestamps or before
    /// the first read-back). The narrow phase includes sizing the contact dispatches.
    pub fn stage_times(&self) -> Option<StageTimes> {
        self.profiler.as_ref()?.stage_times(self.steps)
    }

    /// The last step's pair keys (ascending) and, in their order, the first `rows` elements of
    /// each (buffer, element bytes) of `parts`, as bytes.
    fn read_in_key_order(
        &self,
        rows: u64,
        parts: &[(&wgpu::Buffer, u64)],
    ) -> Result<(Vec<u64>, Vec<Vec<u8>>), GpuError> {
        let b = self.buffers.as_ref().expect("buffers exist");
        let mut list = vec![(&b.keys[self.parity], rows * 8)];
        list.extend(parts.iter().map(|&(buffer, bytes)| (buffer, rows * bytes)));
        let data = self.gpu.read(&list)?;
        let keys = decode_keys(&data[0]);
        let order = key_order(&keys);
        let permute = |bytes: &[u8], size: usize| -> Vec<u8> {
            order
                .iter()
                .flat_map(|&i| &bytes[i * size..(i + 1) * size])
                .copied()
                .collect()
        };
        Ok((
            order.iter().map(|&i| keys[i]).collect(),
            parts
                .iter()
                .zip(&data[1..])
                .map(|(&(_, size), bytes)| permute(bytes, size as usize))
                .collect(),
        ))
    }

    /// Row count of the last step after checking every capacity; `None` before any step.
    fn read_rows(&mut self) -> Result<Option<u64>, GpuError> {
        let Some(b) = &self.buffers else {
            return Ok(None);
        };
        let parts = self.gpu.read(&[(&b.stats, 32)])?;
        let stats: Vec<u32> = bytemuck::pod_collect_to_vec(&parts[0]);
        self.check_capacity(&stats).map(Some)
    }

    /// The rows found, or an overflow error when a fixed capacity was exceeded.
    fn check_capacity(&self, stats: &[u32]) -> Result<u64, GpuError> {
        let sizes = self
            .buffers
            .as_ref()
            .map(|b| b.sizes)
            .expect("buffers exist");
        let pairs = stats[STAT_PAIRS] as u64;
        if pairs > MAX_PAIRS {
            return Err(GpuError::Overflow {
                what: "partner slots of one body",
                needed: pairs,
                capacity: MAX_PAIRS,
            });
        }
        let candidates = stats[STAT_MESH_CANDIDATES] as u64;
        if candidates > MAX_MESH_CANDIDATES {
            return Err(GpuError::Overflow {
                what: "mesh triangles near one sphere",
                needed: candidates,
                capacity: MAX_MESH_CANDIDATES,
            });
        }
        let rows = stats[STAT_ROWS] as u64;
        if rows > sizes.rows {
            return Err(GpuError::Overflow {
                what: "contact rows",
                needed: rows,
                capacity: sizes.rows,
            });
        }
        Ok(rows)
    }

    /// Words of the clumps' buffer for `n` bodies (0 where the stages were compiled without
    /// clumps) and the most members of one clump.
    fn clump_sizes(&self, n: usize) -> (u64, u64) {
        if self.programs.clumps {
            self.clumps.sizes(n)
        } else {
            (0, 1)
        }
    }

    /// Copies the bodies, the large-body list and the friction tables to the device.
    fn upload_bodies(&mut self, bodies: &Bodies, friction: &FrictionTable, large: &[u32]) {
        let b = self.buffers.as_ref().expect("buffers exist");
        let q = &self.gpu.queue;
        q.write_buffer(&b.pos_radius, 0, bytemuck::cast_slice(&bodies.pos_radius));
        q.write_buffer(&b.orientation, 0, bytemuck::cast_slice(&bodies.orientation));
        q.write_buffer(&b.motion, 0, bytemuck::cast_slice(&bodies.motion));
        q.write_buffer(&b.material, 0, bytemuck::cast_slice(&bodies.material));
        q.write_buffer(&b.kind, 0, bytemuck::cast_slice(&bodies.kind));
        q.write_buffer(
            &b.friction,
            0,
            bytemuck::cast_slice(&friction_tables(friction)),
        );
        q.write_buffer(&b.large, 0, bytemuck::cast_slice(large));
        let inertia = inertia::inertia_entries(&self.inertia.moments, bodies.len());
        q.write_buffer(&b.inertia, 0, bytemuck::cast_slice(&inertia));
        self.refresh_inertia = b.sizes.anisotropic;
        if let Some((data, _)) = &b.clumps {
            let words = self.clumps.words(bodies.len());
            q.write_buffer(data, 0, bytemuck::cast_slice(&words));
        }
        self.upload = false;
    }

    /// Writes restored warm-start impulses (and moment impulses, one per key or none) as the
    /// previous step's set, segmented by owner.
    fn upload_warm_start(
        &mut self,
        bodies: &Bodies,
        keys: &[u64],
        impulse: &[[f32; 4]],
        moment: &[[f32; 4]],
    ) {
        let b = self.buffers.as_ref().expect("buffers exist");
        // Segmented by the pair's first body (its half without a clump member's flag bits): the
        // warm start looks a key up in both of its bodies' segments.
        let kept = keys.len().min(b.sizes.rows as usize);
        let first_body = |key: u64| ((key & !FLAGS_A) >> 32) as usize;
        let mut order: Vec<usize> = (0..kept).collect();
        order.sort_unstable_by_key(|&k| (first_body(keys[k]), keys[k]));
        let mut start = vec![0u32; bodies.len() + 1];
        for &k in &order {
            start[first_body(keys[k]) + 1] += 1;
        }
        for i in 0..bodies.len() {
            start[i + 1] += start[i];
        }
        let pairs: Vec<[u32; 2]> = order
            .iter()
            .map(|&k| [(keys[k] >> 32) as u32, keys[k] as u32])
            .collect();
        let cache: Vec<[f32; 4]> = order.iter().map(|&k| impulse[k]).collect();
        let q = &self.gpu.queue;
        let p = self.parity;
        q.write_buffer(&b.row_start[p], 0, bytemuck::cast_slice(&start));
        if !pairs.is_empty() {
            q.write_buffer(&b.keys[p], 0, bytemuck::cast_slice(&pairs));
            q.write_buffer(&b.cache[p], 0, bytemuck::cast_slice(&cache));
            if let Some(m) = &b.moments {
                // Zero where none were kept: the CPU then starts the moments from 0 too.
                let given = moment.len() == keys.len();
                let stored: Vec<Moment> = order
                    .iter()
                    .map(|&k| Moment {
                        cache: if given { moment[k] } else { [0.0; 4] },
                        ..Moment::default()
                    })
                    .collect();
                q.write_buffer(&m.moments, 0, bytemuck::cast_slice(&stored));
            }
        }
        self.warm_valid = true;
    }

    /// Uploads the step's parameters, walls (at their current place), drives and applied forces;
    /// in a distributed step, `rank` gives the bodies this rank owns and those it shares.
    fn write_step_inputs(
        &self,
        walls: &[Wall],
        drives: &[Actuation],
        friction: &FrictionTable,
        p: &StepParams,
        rank: Option<(u32, u32)>,
    ) {
        let b = self.buffers.as_ref().expect("buffers exist");
        let (envelope_floor, envelope_speed) = match p.envelope {
            Envelope::PerPair {
                floor,
                speed_factor,
            } => (floor, speed_factor),
            Envelope::Fixed(e) => (e, 0.0),
        };
        let ratio = p.softness_ratio();
        let params = Params {
            gravity: p.gravity.to_array(),
            h: p.h,
            envelope_floor,
            envelope_speed,
            omega: p.omega,
            softness: ratio / (1.0 + ratio),
            softness_ratio: ratio,
            large_limit: self.large_limit,
            warm_weight: if self.warm_valid { p.warm_start } else { 0.0 },
            planar: p.planar as u32,
            n_bodies: self.count as u32,
            n_walls: walls.len() as u32,
            n_drives: (drives.len() + self.loads.len()) as u32,
            n_large: b.sizes.large as u32,
            n_materials: friction.count as u32,
            cell_capacity: b.sizes.cells as u32,
            row_capacity: b.sizes.rows as u32,
            stabilise: p.stabilise_contacts as u32,
            give_speed: p.give_speed(),
            n_owned: rank.map_or(self.count as u32, |r| r.0),
            n_shared: rank.map_or(0, |r| r.1),
            pad: 0,
        };
        let q = &self.gpu.queue;
        q.write_buffer(&b.params, 0, bytemuck::bytes_of(&params));
        // Shaders may assume finite floats: an unbounded rectangle becomes the largest finite.
        let walls: Vec<Wall> = walls
            .iter()
            .map(|w| {
                let mut w = *w;
                for axis in [&mut w.u, &mut w.v] {
                    axis[3] = axis[3].min(f32::MAX);
                }
                w
            })
            .collect();
        if !walls.is_empty() {
            q.write_buffer(&b.walls, 0, bytemuck::cast_slice(&walls));
        }
        if !drives.is_empty() {
            q.write_buffer(&b.drives, 0, bytemuck::cast_slice(drives));
        }
        if !self.loads.is_empty() {
            let after_drives = std::mem::size_of_val(drives) as u64;
            q.write_buffer(&b.drives, after_drives, bytemuck::cast_slice(&self.loads));
        }
    }
}

/// Pair keys from the device's (a, b) pairs.
fn decode_keys(bytes: &[u8]) -> Vec<u64> {
    bytemuck::pod_collect_to_vec::<u8, [u32; 2]>(bytes)
        .into_iter()
        .map(|[a, b]| pair_key(a, b))
        .collect()
}

/// The friction buffer's tables: μ, then e_r, then e_roll of every material pair (row-major).
fn friction_tables(friction: &FrictionTable) -> Vec<f32> {
    let n = friction.count as u32;
    let pairs = || (0..n).flat_map(move |i| (0..n).map(move |j| (i, j)));
    friction
        .mu
        .iter()
        .copied()
        .chain(pairs().map(|(i, j)| friction.spinning(i, j)))
        .chain(pairs().map(|(i, j)| friction.rolling(i, j)))
        .collect()
}

/// One field of the moment rows read back as bytes (none where the step had no moment rows).
fn moment_field(bytes: Option<&Vec<u8>>, field: impl Fn(&Moment) -> [f32; 4]) -> Vec<[f32; 4]> {
    bytes.map_or_else(Vec::new, |b| {
        bytemuck::pod_collect_to_vec::<u8, Moment>(b)
            .iter()
            .map(field)
            .collect()
    })
}

/// Indices that put `keys` in ascending order.
fn key_order(keys: &[u64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_unstable_by_key(|&i| keys[i]);
    order
}

const _: () = assert!(std::mem::size_of::<Params>() == 96);
