//! The GPU backend: the same step as [`crate::pipeline::CpuPipeline`] with projected Jacobi,
//! every stage a WGSL compute shader of `shaders/` run through wgpu. The body state lives on
//! the device; the host copy is refreshed only when asked ([`GpuPipeline::step`] with
//! `read_back`, or [`GpuPipeline::read_back`]).

use crate::forces::Drive;
use crate::layout::{Bodies, ContactRow, FrictionTable, Wall};
use crate::pipeline::{StepParams, StepStats};

/// Why the GPU backend cannot run.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No GPU adapter (nor software device) was found.
    #[error("no GPU adapter found ({0}); install a Vulkan driver (for a software device: apt-get install mesa-vulkan-drivers) or use --backend cpu")]
    NoAdapter(String),
    /// The device lacks a limit the backend needs.
    #[error("GPU adapter '{adapter}' lacks a needed limit: {limit} is {available}, the backend needs {needed}")]
    MissingLimit {
        /// Adapter name.
        adapter: String,
        /// Name of the limit.
        limit: &'static str,
        /// What the adapter offers.
        available: u64,
        /// What the backend needs.
        needed: u64,
    },
    /// The scene does not fit in the device's memory or buffer limits.
    #[error("GPU adapter '{adapter}' is out of memory for {bodies} bodies: the {buffer} buffer needs {needed} bytes ({limit})")]
    OutOfMemory {
        /// Adapter name.
        adapter: String,
        /// Bodies requested.
        bodies: usize,
        /// Which buffer did not fit.
        buffer: &'static str,
        /// Bytes it needed.
        needed: u64,
        /// The limit or failure met.
        limit: String,
    },
    /// A fixed-capacity buffer overflowed during the steps since the last read-back.
    #[error("GPU {what} overflowed: {needed} needed, capacity {capacity}; the steps since the last read-back are wrong")]
    Overflow {
        /// Which capacity.
        what: &'static str,
        /// Entries needed.
        needed: u64,
        /// Entries available.
        capacity: u64,
    },
    /// Any other device failure.
    #[error("GPU device error: {0}")]
    Device(String),
}

/// GPU backend: a wgpu device with every buffer and pipeline of the step.
pub struct GpuPipeline {
    adapter: String,
}

impl GpuPipeline {
    /// Opens the first suitable adapter (high performance preferred, software devices allowed).
    pub fn new() -> Result<Self, GpuError> {
        Err(GpuError::NoAdapter("not built yet".into()))
    }

    /// The adapter's name (e.g. "NVIDIA H100" or "llvmpipe").
    pub fn adapter_name(&self) -> &str {
        &self.adapter
    }

    /// Uploads `bodies` on the next step instead of keeping the device's copy (after the host
    /// changed them). Also forgets the warm start when `forget_warm_start`.
    pub fn invalidate(&mut self, forget_warm_start: bool) {
        let _ = forget_warm_start;
    }

    /// Runs one step on the device. With `read_back`, waits for it and copies the bodies into
    /// `bodies` and returns fresh statistics; otherwise returns the last read-back statistics
    /// and leaves `bodies` as they were at the last read-back.
    pub fn step(
        &mut self,
        bodies: &mut Bodies,
        walls: &[Wall],
        drives: &[Drive],
        friction: &FrictionTable,
        p: &StepParams,
        read_back: bool,
    ) -> Result<StepStats, GpuError> {
        let _ = (bodies, walls, drives, friction, p, read_back);
        unimplemented!()
    }

    /// Waits for the device and copies its bodies into `bodies`; returns the statistics of the
    /// last step.
    pub fn read_back(&mut self, bodies: &mut Bodies) -> Result<StepStats, GpuError> {
        let _ = bodies;
        unimplemented!()
    }

    /// The last step's contacts read back from the device: pair keys (ascending), rows and
    /// impulses (γn, γt1, γt2, 0), all in key order.
    pub fn contacts(&mut self) -> Result<(Vec<u64>, Vec<ContactRow>, Vec<[f32; 4]>), GpuError> {
        unimplemented!()
    }

    /// The warm-start memory: pair keys (ascending) and world-space impulse vectors, as
    /// [`crate::pipeline::CpuPipeline::warm_start_state`] gives them.
    pub fn warm_start_state(&mut self) -> Result<(Vec<u64>, Vec<[f32; 4]>), GpuError> {
        unimplemented!()
    }

    /// Restores the warm-start memory (keys ascending), used on the next step.
    pub fn restore_warm_start(&mut self, keys: &[u64], impulse: &[[f32; 4]]) {
        let _ = (keys, impulse);
    }

    /// Seconds of host wall time spent in steps (submission to completion, measured at
    /// read-backs).
    pub fn elapsed(&self) -> f64 {
        0.0
    }
}
