//! The WGSL stages (`src/*.wgsl`), compiled into one compute pipeline per entry point.

use crate::device::{Gpu, STORAGE_BINDINGS};
use grains_kernels::support::{device_refusal, Feature};
use grains_kernels::GpuError;

const LAYOUT: &str = include_str!("layout.wgsl");
const CONE: &str = include_str!("cone.wgsl");
const CONTACT_FRAME: &str = include_str!("contact_frame.wgsl");
const INERTIA: &str = include_str!("inertia.wgsl");
const INERTIA_OFF: &str = include_str!("inertia_off.wgsl");
const SOLVER_ROW: &str = include_str!("solver_row.wgsl");
const SOLVER_ROW_FULL: &str = include_str!("solver_row_full.wgsl");
const CLUMP_SHAPES: &str = include_str!("clump_shapes.wgsl");
const CLUMP_SHAPES_OFF: &str = include_str!("clump_shapes_off.wgsl");
const ROLLING: &str = include_str!("rolling.wgsl");
const ROLLING_OFF: &str = include_str!("rolling_off.wgsl");
const ROLLING_INERTIA: &str = include_str!("rolling_inertia.wgsl");
const FORCES: &str = include_str!("forces.wgsl");
const BROAD_PHASE: &str = include_str!("broad_phase.wgsl");
const NARROW_PHASE: &str = include_str!("narrow_phase.wgsl");
const WALL_CONTACT: &str = include_str!("wall_contact.wgsl");
const WARM_START: &str = include_str!("warm_start.wgsl");
const JACOBI: &str = include_str!("jacobi.wgsl");
const COULOMB_CORRECTION: &str = include_str!("coulomb_correction.wgsl");
const INTEGRATE: &str = include_str!("integrate.wgsl");
const OBSERVE: &str = include_str!("observe.wgsl");
const PARALLEL: &str = include_str!("parallel.wgsl");
const MESH: &str = include_str!("mesh.wgsl");
const MESH_OFF: &str = include_str!("mesh_off.wgsl");
const APGD: &str = include_str!("apgd.wgsl");
const SHARED_BODIES: &str = include_str!("shared_bodies.wgsl");

/// Every compute pipeline of the step and the bind group layouts they share.
pub struct Programs {
    /// Group 0 of every stage: the uniform parameters and the storage buffers.
    pub step_layout: wgpu::BindGroupLayout,
    /// Group 1 of the narrow phase: the indirect dispatch arguments.
    pub dispatch_layout: wgpu::BindGroupLayout,
    /// Group 0 of the prefix sum: data, block sums and the counters emptied into the data.
    pub scan_layout: wgpu::BindGroupLayout,
    /// Group 1 of the stages with moment rows: the contacts' moments (`rolling.wgsl`).
    pub moment_layout: wgpu::BindGroupLayout,
    /// Group 1 of the narrow phase with mesh walls: the mesh buffer at binding 1 (`mesh.wgsl`).
    pub mesh_layout: wgpu::BindGroupLayout,
    /// Group 0 of the solve (Jacobi's and APGD's) and of the solver rows' compaction: the uniform
    /// parameters and the storage buffers those stages use ([`SOLVE_BINDINGS`]), leaving room
    /// for the moments and APGD's two.
    pub solve_layout: wgpu::BindGroupLayout,
    /// Group 2 of APGD's solve: the momentum and the last iterates (`apgd.wgsl`).
    pub apgd_layout: wgpu::BindGroupLayout,
    /// Group 1 of the broad and narrow phases in a world with clumps: the clumps' buffer at
    /// binding 2 (`clump_shapes.wgsl`).
    pub clump_layout: wgpu::BindGroupLayout,
    /// Whether the stages were compiled for a world with clumps: the broad and narrow phases
    /// with `clump_shapes.wgsl` (binding the clumps as group 1), the solve with the full rows
    /// (`solver_row_full.wgsl`).
    pub(super) clumps: bool,
    pub(super) clear_statistics: wgpu::ComputePipeline,
    pub(super) apply_forces: wgpu::ComputePipeline,
    pub(super) apply_drives: wgpu::ComputePipeline,
    pub(super) body_reach: wgpu::ComputePipeline,
    pub(super) grid_bounds: wgpu::ComputePipeline,
    pub(super) size_grid: wgpu::ComputePipeline,
    pub(super) count_cells: wgpu::ComputePipeline,
    pub(super) scatter_cells: wgpu::ComputePipeline,
    pub(super) sort_cells: wgpu::ComputePipeline,
    pub(super) find_pairs: wgpu::ComputePipeline,
    pub(super) build_rows: wgpu::ComputePipeline,
    pub(super) contact_dispatch: wgpu::ComputePipeline,
    pub(super) count_body_contacts: wgpu::ComputePipeline,
    pub(super) scatter_body_contacts: wgpu::ComputePipeline,
    pub(super) sort_body_contacts: wgpu::ComputePipeline,
    pub(super) contact_impulse: wgpu::ComputePipeline,
    /// Stage 5's compact solver rows (`solver_row.wgsl`), bound to [`SOLVE_BINDINGS`].
    pub(super) compact_rows: wgpu::ComputePipeline,
    /// Stage 6's Coulomb correction: the normal bias (sliding rows only, with or without moments),
    /// bound to [`SOLVE_BINDINGS`].
    pub(super) correct_normal_bias: wgpu::ComputePipeline,
    /// The contact stages with the sliding rows only.
    pub(super) sliding: ContactPrograms,
    /// The contact stages with the moment rows too, compiled by [`Programs::load_rolling`] for
    /// the first step that has spinning or rolling friction.
    pub(super) rolling: Option<ContactPrograms>,
    /// The moment rows' diagonal of the contacts with an anisotropic body
    /// (`rolling_inertia.wgsl`), compiled with [`Programs::rolling`].
    pub(super) weigh_anisotropic_moments: Option<wgpu::ComputePipeline>,
    /// `find_pairs` and `build_rows` with the mesh walls' contacts, compiled by
    /// [`Programs::load_meshes`] for the first step of a world with meshes.
    pub(super) meshes: Option<[wgpu::ComputePipeline; 2]>,
    /// APGD's solve without and with the moment rows, compiled by [`Programs::load_apgd`] for
    /// the first APGD step of each kind.
    pub(super) apgd: [Option<ApgdPrograms>; 2],
    pub(super) integrate_positions: wgpu::ComputePipeline,
    /// The anisotropic bodies' I_w⁻¹ after an upload (`integrate.wgsl`), bound to
    /// [`SOLVE_BINDINGS`].
    pub(super) refresh_inertia: wgpu::ComputePipeline,
    pub(super) reduce_residual: wgpu::ComputePipeline,
    pub(super) take_counts: wgpu::ComputePipeline,
    pub(super) scan_blocks: wgpu::ComputePipeline,
    pub(super) add_block_offsets: wgpu::ComputePipeline,
}

/// The stages that touch a contact's impulses, compiled with `rolling_off.wgsl` (sliding
/// rows only) or `rolling.wgsl` (moment rows too, bound as group 1): the warm start and the store
/// with the step's group 0, the sweep and the gather with the solve's ([`SOLVE_BINDINGS`]).
pub(super) struct ContactPrograms {
    pub(super) warm_start: wgpu::ComputePipeline,
    pub(super) contact_sweep: wgpu::ComputePipeline,
    /// The same sweep without the residual reduction, for every sweep but the last.
    pub(super) contact_sweep_quiet: wgpu::ComputePipeline,
    pub(super) body_gather: wgpu::ComputePipeline,
    pub(super) store_impulses: wgpu::ComputePipeline,
    /// A distributed step's record of the shared bodies before a gather (`shared_bodies.wgsl`).
    pub(super) share_impulses: wgpu::ComputePipeline,
    /// A distributed step's kick of the shared bodies by the impulses summed over the ranks.
    pub(super) kick_shared: wgpu::ComputePipeline,
}

impl ContactPrograms {
    /// The pipelines of the warm start and Jacobi modules `warm` (with pipeline layout `step`)
    /// and `jacobi` (with `solve`).
    fn new(
        device: &wgpu::Device,
        [step, solve]: [&wgpu::PipelineLayout; 2],
        warm: &wgpu::ShaderModule,
        jacobi: &wgpu::ShaderModule,
    ) -> Self {
        let make = |module, entry, constants: &[(&str, f64)]| {
            pipeline(device, solve, module, entry, constants)
        };
        ContactPrograms {
            warm_start: pipeline(device, step, warm, "warm_start", &[]),
            contact_sweep: make(jacobi, "contact_sweep", &[]),
            contact_sweep_quiet: make(jacobi, "contact_sweep", &[("report_residual", 0.0)]),
            body_gather: make(jacobi, "body_gather", &[]),
            store_impulses: pipeline(device, step, warm, "store_impulses", &[]),
            share_impulses: make(jacobi, "share_impulses", &[]),
            kick_shared: make(jacobi, "kick_shared", &[]),
        }
    }
}

/// The storage bindings that the solve's stages, the solver rows' compaction and integrate use:
/// those of `layout.wgsl` (pos_radius, orientation, motion, kind, grid, rows, gamma, impulse,
/// body_start, body_entries, stats, residual_blocks), then the solver rows (`solver_row.wgsl`,
/// binding 32) and the bodies' inertia (`inertia.wgsl`, binding 33). These stages bind them
/// alone as their group 0, since the step's 31 and the moments fill the 32 storage buffers a
/// stage may have on some adapters (lavapipe). Then a distributed step's: the bodies' ids
/// (`solver_row.wgsl`, binding 34), and the shared bodies' list, records and each body's slot
/// (`shared_bodies.wgsl`, bindings 35 to 37).
pub const SOLVE_BINDINGS: [u32; 18] = [
    1, 2, 3, 5, 11, 18, 19, 20, 21, 23, 24, 25, 32, 33, 34, 35, 36, 37,
];

/// APGD's solve (`apgd.wgsl` after the Jacobi stage and the Coulomb correction), with or
/// without the moment rows; every stage of its solve pass, bound to [`SOLVE_BINDINGS`].
pub(super) struct ApgdPrograms {
    /// θ = 1, β = 0 and ω = the user's step at a solve's start.
    pub(super) start_solve: wgpu::ComputePipeline,
    /// The sweep from the extrapolated point, keeping the momentum's records (every sweep of a
    /// solve but its last).
    pub(super) sweep: wgpu::ComputePipeline,
    /// A solve's last sweep, without the momentum's records or the residual.
    pub(super) last_sweep_quiet: wgpu::ComputePipeline,
    /// The step's last sweep, reporting the residual.
    pub(super) last_sweep: wgpu::ComputePipeline,
    /// β and θ from the sweep's restart sum, and the move's ‖Δy‖²_W.
    pub(super) weigh_momentum: wgpu::ComputePipeline,
    /// The body gather of the move to the next extrapolated point, with its kinetic energy.
    pub(super) gather: wgpu::ComputePipeline,
    pub(super) adapt_step: wgpu::ComputePipeline,
    /// Jacobi's gather, after a solve's last sweep.
    pub(super) body_gather: wgpu::ComputePipeline,
    /// The Coulomb correction's normal bias, before each solve after the first.
    pub(super) correct_normal_bias: wgpu::ComputePipeline,
    /// A distributed step's: this rank's sweep sums and move energy for the host
    /// (`Momentum::ranks`), β and the step from the sums over the ranks the host wrote back,
    /// and the shared bodies' records (of the move, of a plain gather) and kick.
    pub(super) rank_sweep_sums: wgpu::ComputePipeline,
    pub(super) rank_move_energy: wgpu::ComputePipeline,
    pub(super) weigh_summed: wgpu::ComputePipeline,
    pub(super) adapt_summed: wgpu::ComputePipeline,
    pub(super) share_extrapolated: wgpu::ComputePipeline,
    pub(super) share_impulses: wgpu::ComputePipeline,
    pub(super) kick_shared: wgpu::ComputePipeline,
}

impl ApgdPrograms {
    /// The pipelines of the APGD module `module` with pipeline layout `layout`.
    fn new(
        device: &wgpu::Device,
        layout: &wgpu::PipelineLayout,
        module: &wgpu::ShaderModule,
    ) -> Self {
        let make =
            |entry, constants: &[(&str, f64)]| pipeline(device, layout, module, entry, constants);
        let quiet = ("report_residual", 0.0);
        let last = ("keep_momentum", 0.0);
        ApgdPrograms {
            start_solve: make("start_solve", &[]),
            sweep: make("apgd_sweep", &[quiet]),
            last_sweep_quiet: make("apgd_sweep", &[quiet, last]),
            last_sweep: make("apgd_sweep", &[last]),
            weigh_momentum: make("weigh_momentum", &[]),
            gather: make("apgd_gather", &[]),
            adapt_step: make("adapt_step", &[]),
            body_gather: make("body_gather", &[]),
            correct_normal_bias: make("correct_normal_bias", &[]),
            rank_sweep_sums: make("rank_sweep_sums", &[]),
            rank_move_energy: make("rank_move_energy", &[]),
            weigh_summed: make("weigh_momentum", &[("summed_by_host", 1.0)]),
            adapt_summed: make("adapt_step", &[("summed_by_host", 1.0)]),
            share_extrapolated: make("share_extrapolated_impulses", &[]),
            share_impulses: make("share_impulses", &[]),
            kick_shared: make("kick_shared", &[]),
        }
    }
}

/// What every module of the solve starts with: the layout, the bodies' inertia, the cone
/// projections and the contact frame, then the solver rows: compact, or full where `clumps`.
fn solve_prelude(clumps: bool) -> [&'static str; 5] {
    let rows = if clumps { SOLVER_ROW_FULL } else { SOLVER_ROW };
    [LAYOUT, INERTIA, CONE, CONTACT_FRAME, rows]
}

/// A module of the solve: [`solve_prelude`], then `parts`.
fn compile_solve(
    device: &wgpu::Device,
    clumps: bool,
    label: &str,
    parts: &[&str],
) -> wgpu::ShaderModule {
    compile(device, label, &[&solve_prelude(clumps)[..], parts].concat())
}

fn compile(device: &wgpu::Device, label: &str, parts: &[&str]) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(parts.concat().into()),
    })
}

fn pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(layout),
        module,
        entry_point: Some(entry),
        // Every stage writes its workgroup memory before reading it.
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            zero_initialize_workgroup_memory: false,
        },
        cache: None,
    })
}

fn pipeline_layout(
    device: &wgpu::Device,
    groups: &[Option<&wgpu::BindGroupLayout>],
) -> wgpu::PipelineLayout {
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: groups,
        immediate_size: 0,
    })
}

fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn layout(
    device: &wgpu::Device,
    label: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries,
    })
}

impl Programs {
    /// Compiles every stage for `device`, for a world with clumps where `clumps` (the moment
    /// rows' variants wait for [`Programs::load_rolling`]).
    pub fn new(device: &wgpu::Device, clumps: bool) -> Self {
        let mut step_entries = vec![wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }];
        step_entries.extend((1..=STORAGE_BINDINGS).map(storage_entry));
        let step_layout = layout(device, "step", &step_entries);
        let dispatch_layout = layout(device, "dispatch", &[storage_entry(0)]);
        let scan_layout = layout(
            device,
            "scan",
            &[storage_entry(0), storage_entry(1), storage_entry(2)],
        );
        let moment_layout = layout(device, "moments", &[storage_entry(0)]);
        let mesh_layout = layout(device, "meshes", &[storage_entry(1)]);
        let clump_layout = layout(device, "clumps", &[storage_entry(2)]);
        let mut solve_entries = vec![step_entries[0]];
        solve_entries.extend(SOLVE_BINDINGS.map(storage_entry));
        let solve_layout = layout(device, "solve", &solve_entries);
        let apgd_layout = layout(
            device,
            "apgd",
            &[storage_entry(0), storage_entry(1), storage_entry(2)],
        );
        let step = pipeline_layout(device, &[Some(&step_layout)]);
        let solve = pipeline_layout(device, &[Some(&solve_layout)]);
        let narrow = pipeline_layout(device, &[Some(&step_layout), Some(&dispatch_layout)]);
        let scan = pipeline_layout(device, &[Some(&scan_layout)]);
        // The stages that place a clump's members bind the clumps as group 1.
        let (shapes, placing) = if clumps {
            let layout = pipeline_layout(device, &[Some(&step_layout), Some(&clump_layout)]);
            (CLUMP_SHAPES, layout)
        } else {
            (CLUMP_SHAPES_OFF, step.clone())
        };
        let forces = compile(device, "forces", &[LAYOUT, FORCES]);
        let broad = compile(device, "broad_phase", &[LAYOUT, shapes, BROAD_PHASE]);
        let narrow_module = compile(
            device,
            "narrow_phase",
            &[
                LAYOUT,
                INERTIA_OFF,
                CONTACT_FRAME,
                WALL_CONTACT,
                MESH_OFF,
                shapes,
                NARROW_PHASE,
            ],
        );
        let warm = compile(
            device,
            "warm_start",
            &[LAYOUT, CONE, ROLLING_OFF, WARM_START],
        );
        let jacobi = compile_solve(
            device,
            clumps,
            "jacobi",
            &[ROLLING_OFF, JACOBI, SHARED_BODIES],
        );
        let correction = compile_solve(device, clumps, "coulomb_correction", &[COULOMB_CORRECTION]);
        let integrate = compile(device, "integrate", &[LAYOUT, INERTIA, INTEGRATE]);
        let observe = compile(device, "observe", &[LAYOUT, OBSERVE]);
        let parallel = compile(device, "parallel", &[PARALLEL]);
        let make = |layout: &wgpu::PipelineLayout, module: &wgpu::ShaderModule, entry: &str| {
            pipeline(device, layout, module, entry, &[])
        };
        Programs {
            clear_statistics: make(&step, &observe, "clear_statistics"),
            apply_forces: make(&step, &forces, "apply_forces"),
            apply_drives: make(&step, &forces, "apply_drives"),
            body_reach: make(&placing, &broad, "body_reach"),
            grid_bounds: make(&step, &broad, "grid_bounds"),
            size_grid: make(&step, &broad, "size_grid"),
            count_cells: make(&step, &broad, "count_cells"),
            scatter_cells: make(&step, &broad, "scatter_cells"),
            sort_cells: make(&step, &broad, "sort_cells"),
            find_pairs: make(&placing, &narrow_module, "find_pairs"),
            build_rows: make(&placing, &narrow_module, "build_rows"),
            contact_dispatch: make(&narrow, &narrow_module, "contact_dispatch"),
            count_body_contacts: make(&step, &jacobi, "count_body_contacts"),
            scatter_body_contacts: make(&step, &jacobi, "scatter_body_contacts"),
            sort_body_contacts: make(&step, &jacobi, "sort_body_contacts"),
            contact_impulse: make(&step, &jacobi, "contact_impulse"),
            compact_rows: make(&solve, &jacobi, "compact_rows"),
            correct_normal_bias: make(&solve, &correction, "correct_normal_bias"),
            sliding: ContactPrograms::new(device, [&step, &solve], &warm, &jacobi),
            rolling: None,
            weigh_anisotropic_moments: None,
            meshes: None,
            apgd: [None, None],
            integrate_positions: make(&solve, &integrate, "integrate_positions"),
            refresh_inertia: make(&solve, &integrate, "refresh_inertia"),
            reduce_residual: make(&step, &observe, "reduce_residual"),
            take_counts: make(&scan, &parallel, "take_counts"),
            scan_blocks: make(&scan, &parallel, "scan_blocks"),
            add_block_offsets: make(&scan, &parallel, "add_block_offsets"),
            step_layout,
            dispatch_layout,
            scan_layout,
            moment_layout,
            mesh_layout,
            solve_layout,
            apgd_layout,
            clump_layout,
            clumps,
        }
    }

    /// Compiles the narrow phase with the mesh walls' contacts (`mesh.wgsl`), once; it binds
    /// the mesh buffer as group 1.
    pub fn load_meshes(&mut self, gpu: &Gpu) -> Result<(), GpuError> {
        if self.meshes.is_some() {
            return Ok(());
        }
        if self.clumps {
            device_refusal(Feature::GpuBackend, Feature::ClumpsBesideMeshes)?;
        }
        let available = gpu.limits.max_storage_buffers_per_shader_stage;
        let needed = STORAGE_BINDINGS + 1;
        if available < needed {
            return Err(GpuError::MissingLimit {
                adapter: gpu.adapter.clone(),
                limit: "max_storage_buffers_per_shader_stage (mesh walls)",
                available: available as u64,
                needed: needed as u64,
            });
        }
        let device = &gpu.device;
        self.meshes = Some(gpu.validated("compiling the mesh walls' shaders", || {
            let layout =
                pipeline_layout(device, &[Some(&self.step_layout), Some(&self.mesh_layout)]);
            let module = compile(
                device,
                "narrow_phase",
                &[
                    LAYOUT,
                    INERTIA_OFF,
                    CONTACT_FRAME,
                    WALL_CONTACT,
                    MESH,
                    CLUMP_SHAPES_OFF,
                    NARROW_PHASE,
                ],
            );
            ["find_pairs", "build_rows"].map(|e| pipeline(device, &layout, &module, e, &[]))
        })?);
        Ok(())
    }

    /// Compiles the contact stages with the moment rows of spinning and rolling friction, once;
    /// they bind one storage buffer more than the others.
    pub fn load_rolling(&mut self, gpu: &Gpu) -> Result<(), GpuError> {
        if self.rolling.is_some() {
            return Ok(());
        }
        let available = gpu.limits.max_storage_buffers_per_shader_stage;
        if available <= STORAGE_BINDINGS {
            return Err(GpuError::MissingLimit {
                adapter: gpu.adapter.clone(),
                limit: "max_storage_buffers_per_shader_stage (spinning and rolling friction)",
                available: available as u64,
                needed: STORAGE_BINDINGS as u64 + 1,
            });
        }
        let device = &gpu.device;
        let (rolling, weigh) = gpu.validated("compiling the moment rows' shaders", || {
            let layout =
                |group0| pipeline_layout(device, &[Some(group0), Some(&self.moment_layout)]);
            let warm = compile(device, "warm_start", &[LAYOUT, CONE, ROLLING, WARM_START]);
            let jacobi = compile_solve(
                device,
                self.clumps,
                "jacobi",
                &[ROLLING, JACOBI, ROLLING_INERTIA, SHARED_BODIES],
            );
            let layouts = [layout(&self.step_layout), layout(&self.solve_layout)];
            let weigh = pipeline(
                device,
                &layouts[1],
                &jacobi,
                "weigh_anisotropic_moments",
                &[],
            );
            let programs = ContactPrograms::new(device, [&layouts[0], &layouts[1]], &warm, &jacobi);
            (programs, weigh)
        })?;
        self.rolling = Some(rolling);
        self.weigh_anisotropic_moments = Some(weigh);
        Ok(())
    }

    /// Compiles APGD's solve, once for each of `moments` false and true (the moment rows
    /// bound as group 1, APGD's buffers as group 2, the solve's buffers as group 0).
    pub fn load_apgd(&mut self, gpu: &Gpu, moments: bool) -> Result<(), GpuError> {
        if self.apgd[moments as usize].is_some() {
            return Ok(());
        }
        let device = &gpu.device;
        let programs = gpu.validated("compiling the APGD solver's shaders", || {
            let (rolling, group) = if moments {
                (ROLLING, Some(&self.moment_layout))
            } else {
                (ROLLING_OFF, None)
            };
            let layout = pipeline_layout(
                device,
                &[Some(&self.solve_layout), group, Some(&self.apgd_layout)],
            );
            let parts = [rolling, JACOBI, COULOMB_CORRECTION, APGD, SHARED_BODIES];
            let module = compile_solve(device, self.clumps, "apgd", &parts);
            ApgdPrograms::new(device, &layout, &module)
        })?;
        self.apgd[moments as usize] = Some(programs);
        Ok(())
    }
}
