//! APGD's device state (`apgd.wgsl`): the momentum (θ, β, the current step ω, the last move's
//! ‖Δy‖²_W and the sweeps' per-workgroup partial sums), the second-last iterates γ_{k−1} of the
//! contacts' sliding rows (and moment rows) and the sweep's momentum impulses
//! D (γ_{k+1} − γ_k), bound as group 2 of its solve, beside group 0 binding the solve's own buffers
//! of the step (`Buffers::solve_group`). Made with the step's buffers (again whenever those are
//! remade); never read back: each solve starts them afresh on the device.

use crate::buffers::{groups, Buffers};
use crate::programs::Programs;

/// Bytes of the momentum's head (`Momentum` in `apgd.wgsl`, before its `sums`).
const MOMENTUM_HEAD: u64 = 32;
/// Offset of `Momentum::ranks` (the sweep's three sums and the move's energy, f32).
pub(crate) const RANK_SUMS: u64 = 16;
/// Partial sums per workgroup (`SUMS` in `apgd.wgsl`: ⟨d1, d2⟩_W, ‖d1‖²_W, ‖d2‖²_W, kinetic
/// energy).
const SUMS_PER_GROUP: u64 = 4;

/// APGD's bind group for the step buffers it was made beside.
pub(crate) struct ApgdBuffers {
    /// Group 2 of APGD's solve: the momentum, the second-last iterates and the momentum
    /// impulses.
    pub(crate) group: wgpu::BindGroup,
    /// The momentum (`Momentum` in `apgd.wgsl`).
    pub(crate) momentum: wgpu::Buffer,
}

/// Workgroups of a dispatch over `threads` (x × y, as [`groups`] lays them out).
fn dispatched(threads: u64) -> u64 {
    let (x, y) = groups(threads);
    x as u64 * y as u64
}

/// A binding of the whole of `buffer`.
fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

impl ApgdBuffers {
    /// The momentum, the second-last iterates and the momentum impulses sized for `step` (each
    /// no larger per row than the step's contact rows, which fit the device), and their bind
    /// group.
    pub(crate) fn new(device: &wgpu::Device, programs: &Programs, step: &Buffers) -> Self {
        let s = &step.sizes;
        let blocks = dispatched(s.rows).max(dispatched(s.bodies));
        let buffer = |label, size: u64, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.next_multiple_of(16),
                usage: wgpu::BufferUsages::STORAGE | usage,
                mapped_at_creation: false,
            })
        };
        let host = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let momentum_bytes = MOMENTUM_HEAD + 4 * SUMS_PER_GROUP * blocks;
        let momentum = buffer("momentum", momentum_bytes, host);
        let none = wgpu::BufferUsages::empty();
        let kept = if s.moments { 2 * s.rows } else { s.rows };
        let last = buffer("gamma_last", 16 * kept.max(1), none);
        let pushes = buffer("momentum_impulse", 16 * kept.max(1), none);
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("apgd"),
            layout: &programs.apgd_layout,
            entries: &[whole(0, &momentum), whole(1, &last), whole(2, &pushes)],
        });
        ApgdBuffers { group, momentum }
    }
}
