//! Opening a wgpu device with the limits the backend needs, and catching its errors.

use grains_kernels::GpuError;
use std::sync::{Arc, Mutex};

/// Storage buffers the main bind group of the step binds (see `layout.wgsl`).
pub const STORAGE_BINDINGS: u32 = 31;

/// A device, its queue and the first error it reported.
pub struct Gpu {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter's name.
    pub adapter: String,
    /// The limits the device was opened with.
    pub limits: wgpu::Limits,
    /// Whether passes can record GPU timestamps (per-stage times).
    pub timestamps: bool,
    error: Arc<Mutex<Option<String>>>,
}

impl Gpu {
    /// Opens the first adapter (high performance preferred; software devices allowed).
    pub fn open() -> Result<Self, GpuError> {
        // Listing the adapters may make the Wayland client print outside the program's
        // one-error-line contract (see `quiet`).
        let adapter = crate::quiet::quietly(|| {
            let instance = wgpu::Instance::new(
                wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
            );
            pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            }))
        })
        .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        let name = adapter.get_info().name;
        let limits = adapter.limits();
        let needs: [(&'static str, u64, u64); 5] = [
            (
                "max_storage_buffers_per_shader_stage",
                limits.max_storage_buffers_per_shader_stage as u64,
                STORAGE_BINDINGS as u64,
            ),
            (
                "max_bindings_per_bind_group",
                limits.max_bindings_per_bind_group as u64,
                STORAGE_BINDINGS as u64 + 1,
            ),
            (
                "max_compute_invocations_per_workgroup",
                limits.max_compute_invocations_per_workgroup as u64,
                256,
            ),
            (
                "max_compute_workgroup_size_x",
                limits.max_compute_workgroup_size_x as u64,
                256,
            ),
            (
                "max_compute_workgroups_per_dimension",
                limits.max_compute_workgroups_per_dimension as u64,
                65535,
            ),
        ];
        for (limit, available, needed) in needs {
            if available < needed {
                return Err(GpuError::MissingLimit {
                    adapter: name,
                    limit,
                    available,
                    needed,
                });
            }
        }
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("grains"),
            required_features: if timestamps {
                wgpu::Features::TIMESTAMP_QUERY
            } else {
                wgpu::Features::empty()
            },
            required_limits: limits.clone(),
            memory_hints: wgpu::MemoryHints::Performance,
            ..Default::default()
        }))
        .map_err(|e| GpuError::Device(format!("opening '{name}': {e}")))?;
        let error = Arc::new(Mutex::new(None));
        let sink = error.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut slot = sink.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| e.to_string());
        }));
        let sink = error.clone();
        device.set_device_lost_callback(move |reason, message| {
            let mut slot = sink.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| format!("device lost ({reason:?}): {message}"));
        });
        Ok(Gpu {
            device,
            queue,
            adapter: name,
            limits,
            timestamps,
            error,
        })
    }

    /// The first error the device reported, if any.
    pub fn check(&self) -> Result<(), GpuError> {
        let slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        match slot.as_ref() {
            Some(e) => Err(GpuError::Device(e.clone())),
            None => Ok(()),
        }
    }

    /// Runs `f` (which creates pipelines) and turns a validation error it raised into a
    /// [`GpuError::Device`] saying that `what` failed.
    pub fn validated<T>(&self, what: &str, f: impl FnOnce() -> T) -> Result<T, GpuError> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(GpuError::Device(format!(
                "{what} on '{}': {e}",
                self.adapter
            ))),
            None => Ok(out),
        }
    }

    /// Blocks until the queue's work is done.
    pub fn wait(&self) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Device(e.to_string()))?;
        self.check()
    }

    /// Copies `size` bytes of each (buffer, offset) to the host, in one submission.
    pub fn read(&self, parts: &[(&wgpu::Buffer, u64)]) -> Result<Vec<Vec<u8>>, GpuError> {
        let total: u64 = parts.iter().map(|(_, s)| s.next_multiple_of(4)).sum();
        if total == 0 {
            return Ok(parts.iter().map(|_| Vec::new()).collect());
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("read-back"),
            size: total,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let mut at = 0;
        for (buffer, size) in parts {
            let size = size.next_multiple_of(4);
            if size > 0 {
                encoder.copy_buffer_to_buffer(buffer, 0, &staging, at, size);
            }
            at += size;
        }
        self.queue.submit([encoder.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        rx.recv()
            .map_err(|e| GpuError::Device(e.to_string()))?
            .map_err(|e| GpuError::Device(format!("mapping the read-back buffer: {e}")))?;
        let view = staging
            .get_mapped_range(..)
            .map_err(|e| GpuError::Device(format!("reading back: {e}")))?;
        let mut out = Vec::with_capacity(parts.len());
        let mut at = 0usize;
        for (_, size) in parts {
            out.push(view[at..at + *size as usize].to_vec());
            at += size.next_multiple_of(4) as usize;
        }
        drop(view);
        staging.unmap();
        Ok(out)
    }
}
