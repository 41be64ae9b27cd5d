//! The WGSL stages of `shaders/`, compiled into one compute pipeline per entry point.

use super::device::STORAGE_BINDINGS;

const LAYOUT: &str = include_str!("../../../shaders/layout.wgsl");
const CONE: &str = include_str!("../../../shaders/cone.wgsl");
const FORCES: &str = include_str!("../../../shaders/forces.wgsl");
const BROAD_PHASE: &str = include_str!("../../../shaders/broad_phase.wgsl");
const NARROW_PHASE: &str = include_str!("../../../shaders/narrow_phase.wgsl");
const WARM_START: &str = include_str!("../../../shaders/warm_start.wgsl");
const JACOBI: &str = include_str!("../../../shaders/jacobi.wgsl");
const INTEGRATE: &str = include_str!("../../../shaders/integrate.wgsl");
const OBSERVE: &str = include_str!("../../../shaders/observe.wgsl");
const PARALLEL: &str = include_str!("../../../shaders/parallel.wgsl");

/// Every compute pipeline of the step and the bind group layouts they share.
pub struct Programs {
    /// Group 0 of every stage: the uniform parameters and the storage buffers.
    pub step_layout: wgpu::BindGroupLayout,
    /// Group 1 of the narrow phase: the indirect dispatch arguments.
    pub dispatch_layout: wgpu::BindGroupLayout,
    /// Group 0 of the prefix sum: data, block sums and the counters emptied into the data.
    pub scan_layout: wgpu::BindGroupLayout,
    pub(super) clear_statistics: wgpu::ComputePipeline,
    pub(super) apply_forces: wgpu::ComputePipeline,
    pub(super) apply_drives: wgpu::ComputePipeline,
    pub(super) reach_and_bounds: wgpu::ComputePipeline,
    pub(super) size_grid: wgpu::ComputePipeline,
    pub(super) count_cells: wgpu::ComputePipeline,
    pub(super) scatter_cells: wgpu::ComputePipeline,
    pub(super) sort_cells: wgpu::ComputePipeline,
    pub(super) find_pairs: wgpu::ComputePipeline,
    pub(super) build_rows: wgpu::ComputePipeline,
    pub(super) contact_dispatch: wgpu::ComputePipeline,
    pub(super) warm_start: wgpu::ComputePipeline,
    pub(super) count_body_contacts: wgpu::ComputePipeline,
    pub(super) scatter_body_contacts: wgpu::ComputePipeline,
    pub(super) sort_body_contacts: wgpu::ComputePipeline,
    pub(super) contact_impulse: wgpu::ComputePipeline,
    pub(super) contact_sweep: wgpu::ComputePipeline,
    /// The same sweep without the residual reduction, for every sweep but the last.
    pub(super) contact_sweep_quiet: wgpu::ComputePipeline,
    pub(super) body_gather: wgpu::ComputePipeline,
    pub(super) integrate_positions: wgpu::ComputePipeline,
    pub(super) store_impulses: wgpu::ComputePipeline,
    pub(super) reduce_residual: wgpu::ComputePipeline,
    pub(super) take_counts: wgpu::ComputePipeline,
    pub(super) scan_blocks: wgpu::ComputePipeline,
    pub(super) add_block_offsets: wgpu::ComputePipeline,
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
    /// Compiles every stage for `device`.
    pub fn new(device: &wgpu::Device) -> Self {
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
        let pipeline_layout = |groups: &[Option<&wgpu::BindGroupLayout>]| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: None,
                bind_group_layouts: groups,
                immediate_size: 0,
            })
        };
        let step = pipeline_layout(&[Some(&step_layout)]);
        let narrow = pipeline_layout(&[Some(&step_layout), Some(&dispatch_layout)]);
        let scan = pipeline_layout(&[Some(&scan_layout)]);
        let module = |label: &str, parts: &[&str]| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(parts.concat().into()),
            })
        };
        let forces = module("forces", &[LAYOUT, FORCES]);
        let broad = module("broad_phase", &[LAYOUT, BROAD_PHASE]);
        let narrow_module = module("narrow_phase", &[LAYOUT, NARROW_PHASE]);
        let warm = module("warm_start", &[LAYOUT, CONE, WARM_START]);
        let jacobi = module("jacobi", &[LAYOUT, CONE, JACOBI]);
        let integrate = module("integrate", &[LAYOUT, INTEGRATE]);
        let observe = module("observe", &[LAYOUT, OBSERVE]);
        let parallel = module("parallel", &[PARALLEL]);
        let make_with = |layout: &wgpu::PipelineLayout,
                         module: &wgpu::ShaderModule,
                         entry: &str,
                         constants: &[(&str, f64)]| {
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
        };
        let make = |layout: &wgpu::PipelineLayout, module: &wgpu::ShaderModule, entry: &str| {
            make_with(layout, module, entry, &[])
        };
        Programs {
            clear_statistics: make(&step, &observe, "clear_statistics"),
            apply_forces: make(&step, &forces, "apply_forces"),
            apply_drives: make(&step, &forces, "apply_drives"),
            reach_and_bounds: make(&step, &broad, "reach_and_bounds"),
            size_grid: make(&step, &broad, "size_grid"),
            count_cells: make(&step, &broad, "count_cells"),
            scatter_cells: make(&step, &broad, "scatter_cells"),
            sort_cells: make(&step, &broad, "sort_cells"),
            find_pairs: make(&step, &narrow_module, "find_pairs"),
            build_rows: make(&step, &narrow_module, "build_rows"),
            contact_dispatch: make(&narrow, &narrow_module, "contact_dispatch"),
            warm_start: make(&step, &warm, "warm_start"),
            store_impulses: make(&step, &warm, "store_impulses"),
            count_body_contacts: make(&step, &jacobi, "count_body_contacts"),
            scatter_body_contacts: make(&step, &jacobi, "scatter_body_contacts"),
            sort_body_contacts: make(&step, &jacobi, "sort_body_contacts"),
            contact_impulse: make(&step, &jacobi, "contact_impulse"),
            contact_sweep: make(&step, &jacobi, "contact_sweep"),
            contact_sweep_quiet: make_with(
                &step,
                &jacobi,
                "contact_sweep",
                &[("report_residual", 0.0)],
            ),
            body_gather: make(&step, &jacobi, "body_gather"),
            integrate_positions: make(&step, &integrate, "integrate_positions"),
            reduce_residual: make(&step, &observe, "reduce_residual"),
            take_counts: make(&scan, &parallel, "take_counts"),
            scan_blocks: make(&scan, &parallel, "scan_blocks"),
            add_block_offsets: make(&scan, &parallel, "add_block_offsets"),
            step_layout,
            dispatch_layout,
            scan_layout,
        }
    }
}
