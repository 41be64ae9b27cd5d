//! The mesh walls on the device (`mesh.wgsl`): one buffer holding the triangle grid's facts,
//! the placed triangles (the bytes of [`Triangle`]), the meshes' motions and the host's triangle
//! grid, bound as group 1 of the narrow phase (one binding: the step takes 31 of the 32 storage
//! buffers a stage may have). Written with `queue.write_buffer` when it changes (every step
//! while a mesh moves, once for fixed meshes), in a buffer grown as needed.

use crate::device::Gpu;
use crate::programs::Programs;
use bytemuck::{Pod, Zeroable};
use grains_kernels::mesh::{MeshMotion, MeshWalls, Triangle};

/// The head of the mesh buffer (`MeshData` in `mesh.wgsl`, before its `words`), 48 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct MeshHead {
    origin: [f32; 3],
    cell: f32,
    dims: [i32; 3],
    n_triangles: u32,
    max_speed: f32,
    cells: u32,
    motions_at: u32,
    index_at: u32,
}

/// The mesh buffer and its bind group, with the host copy of what it holds.
pub(crate) struct MeshBuffers {
    data: wgpu::Buffer,
    /// Group 1 of the narrow phase with meshes.
    pub(crate) group: wgpu::BindGroup,
    /// The triangles and motions last written (the grid follows the triangles).
    written: (Vec<Triangle>, Vec<MeshMotion>),
}

/// The mesh buffer's bytes: the head, the triangles, the motions, the cells' starts and the
/// triangle indices.
fn mesh_bytes(mesh: &MeshWalls) -> Vec<u8> {
    let g = &mesh.grid;
    let words = |bytes: usize| (bytes / 4) as u32;
    let tris: &[u8] = bytemuck::cast_slice(&mesh.triangles);
    let motions: &[u8] = bytemuck::cast_slice(&mesh.motions);
    let head = MeshHead {
        origin: g.origin.to_array(),
        cell: g.cell,
        dims: g.dims.to_array(),
        n_triangles: mesh.triangles.len() as u32,
        max_speed: mesh.max_speed,
        cells: g.start.len().saturating_sub(1) as u32,
        motions_at: words(tris.len()),
        index_at: words(tris.len() + motions.len()),
    };
    let mut bytes = bytemuck::bytes_of(&head).to_vec();
    bytes.extend_from_slice(tris);
    bytes.extend_from_slice(motions);
    bytes.extend_from_slice(bytemuck::cast_slice(&g.start));
    bytes.extend_from_slice(bytemuck::cast_slice(&g.triangles));
    // An empty mesh still binds one word.
    bytes.resize(bytes.len().max(std::mem::size_of::<MeshHead>() + 4), 0);
    bytes
}

impl MeshBuffers {
    /// Writes `mesh` to the device when it differs from what was written last, first growing
    /// the buffer (and making a new bind group) where it no longer fits.
    pub(crate) fn update(
        slot: &mut Option<MeshBuffers>,
        gpu: &Gpu,
        programs: &Programs,
        mesh: &MeshWalls,
    ) {
        if let Some(m) = slot {
            if m.written.0 == mesh.triangles && m.written.1 == mesh.motions {
                return;
            }
        }
        let bytes = mesh_bytes(mesh);
        if slot
            .as_ref()
            .is_none_or(|m| m.data.size() < bytes.len() as u64)
        {
            // Grown by half again, so a mesh whose grid changes size does not reallocate often.
            let data = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("meshes"),
                size: (bytes.len() as u64 * 3 / 2).next_multiple_of(16),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("meshes"),
                layout: &programs.mesh_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 1,
                    resource: data.as_entire_binding(),
                }],
            });
            *slot = Some(MeshBuffers {
                data,
                group,
                written: (Vec::new(), Vec::new()),
            });
        }
        let m = slot.as_mut().expect("made above");
        gpu.queue.write_buffer(&m.data, 0, &bytes);
        m.written = (mesh.triangles.clone(), mesh.motions.clone());
    }
}
