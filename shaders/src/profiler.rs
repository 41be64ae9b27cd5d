//! GPU timestamps around each stage's pass, read at read-backs.

use crate::device::Gpu;
use grains_kernels::{Stage, StageTimes};

/// The timed compute passes of a step, in order: one per [`Stage`] the GPU runs (it has no
/// impact stage), and the narrow phase's sizing of the contact dispatches apart.
#[derive(Clone, Copy)]
pub(super) enum TimedPass {
    Forces,
    Broad,
    Narrow,
    Dispatch,
    Prepare,
    Solve,
    Integrate,
    Observe,
}

impl TimedPass {
    /// Every pass in order.
    const ALL: [TimedPass; TIMED_PASSES as usize] = [
        TimedPass::Forces,
        TimedPass::Broad,
        TimedPass::Narrow,
        TimedPass::Dispatch,
        TimedPass::Prepare,
        TimedPass::Solve,
        TimedPass::Integrate,
        TimedPass::Observe,
    ];

    /// The stage whose time the pass counts in.
    fn stage(self) -> Stage {
        match self {
            TimedPass::Forces => Stage::Forces,
            TimedPass::Broad => Stage::Broad,
            TimedPass::Narrow | TimedPass::Dispatch => Stage::Narrow,
            TimedPass::Prepare => Stage::Prepare,
            TimedPass::Solve => Stage::Solve,
            TimedPass::Integrate => Stage::Integrate,
            TimedPass::Observe => Stage::Observe,
        }
    }
}

/// Timed passes of a step.
pub(super) const TIMED_PASSES: u32 = 8;

/// GPU timestamps at the start and end of every pass, resolved each step and read at
/// read-backs: per-stage times sampled every `sync_every` steps.
pub(super) struct Profiler {
    pub(super) queries: wgpu::QuerySet,
    pub(super) resolved: wgpu::Buffer,
    /// Nanoseconds per timestamp tick.
    period: f64,
    /// Summed seconds of each timed pass over the sampled steps.
    sum: [f64; TIMED_PASSES as usize],
    samples: u64,
}

impl Profiler {
    /// A profiler for `gpu`, or `None` where the adapter has no timestamp queries.
    pub(super) fn new(gpu: &Gpu) -> Option<Self> {
        gpu.timestamps.then(|| Profiler {
            queries: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("stage times"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * TIMED_PASSES,
            }),
            resolved: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("stage times"),
                size: 16 * TIMED_PASSES as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            period: gpu.queue.get_timestamp_period() as f64,
            sum: [0.0; TIMED_PASSES as usize],
            samples: 0,
        })
    }

    /// Adds one step's resolved timestamps (start and end tick of every pass).
    pub(super) fn record(&mut self, resolved: &[u8]) {
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(resolved);
        for (k, slot) in self.sum.iter_mut().enumerate() {
            let span = ticks[2 * k + 1].saturating_sub(ticks[2 * k]);
            *slot += span as f64 * self.period * 1e-9;
        }
        self.samples += 1;
    }

    /// Seconds per stage over `steps` steps, from the sampled steps' mean; `None` before the
    /// first sample. The narrow phase includes sizing the contact dispatches.
    pub(super) fn stage_times(&self, steps: u64) -> Option<StageTimes> {
        if self.samples == 0 {
            return None;
        }
        let scale = steps as f64 / self.samples as f64;
        let mut times = StageTimes::default();
        for pass in TimedPass::ALL {
            *times.slot(pass.stage()) += self.sum[pass as usize] * scale;
        }
        Some(times)
    }
}
