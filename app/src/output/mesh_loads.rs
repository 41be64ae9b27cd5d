//! The mesh walls' loads for ParaView (`formats = ["meshes"]`): per frame a `.vtp` (VTK XML
//! poly data, its arrays as [`FrameEncoding`] says) of every mesh triangle as placed for the
//! last step, with its load over that step ([`grains::TriangleLoad`]) and Archard's F_n s
//! summed over the run so far, and `meshes.pvd`, the index tying them to simulated times.
//!
//! Archard's law gives the volume a surface loses as V = K F_n s / H (K the wear coefficient,
//! H the hardness, F_n the normal load, s the distance slid under it). A run sums, for each
//! triangle, h × its sliding power Σ F_n ‖u_T‖ after every step ([`LoadDistance`]), so a
//! triangle's worn volume is K/H times its `load_distance` and its worn depth that over its area.

use super::progress::exact_time;
use super::vtk::pvd;
use super::vtk_xml::{FrameEncoding, VtkXml};
use super::writer::{keep_frames, Layout};
use super::{at, write_atomic};
use grains::{TriangleLoad, World};
use std::io;
use std::path::PathBuf;

/// Archard's F_n s of each mesh triangle (N m) summed over a run's steps, in the order of
/// [`World::mesh_triangles`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadDistance(pub Vec<f64>);

impl LoadDistance {
    /// Adds the last step's h × sliding power of each triangle of `world` (CPU: every step's
    /// contacts are on the host).
    pub fn add_step(&mut self, world: &World) {
        let h = f64::from(world.last_h());
        let powers = world.triangle_sliding_powers();
        self.0.resize(powers.len(), 0.0);
        for (sum, p) in self.0.iter_mut().zip(powers) {
            *sum += h * p;
        }
    }
}

/// The mesh triangles and their loads at one instant, copied off the world for writing.
#[derive(Clone, Debug, Default)]
pub struct MeshLoadFrame {
    /// Steps taken.
    pub step: u64,
    /// Simulated time (s).
    pub time: f64,
    /// Each triangle's corners as placed for the last step (m).
    pub triangles: Vec<[[f32; 3]; 3]>,
    /// The mesh each triangle belongs to (its index among the `[[meshes]]`).
    pub mesh: Vec<u32>,
    /// Each triangle's load over the last step.
    pub loads: Vec<TriangleLoad>,
    /// Each triangle's F_n s over the run so far (N m).
    pub load_distance: Vec<f64>,
}

impl MeshLoadFrame {
    /// The mesh triangles of `world` with their last step's loads and the run's `sums`.
    pub fn of(world: &World, sums: &LoadDistance) -> MeshLoadFrame {
        let triangles = world.mesh_triangles();
        let mut load_distance = sums.0.clone();
        load_distance.resize(triangles.len(), 0.0);
        MeshLoadFrame {
            step: world.steps(),
            time: exact_time(world.steps(), world.settings().h),
            triangles: (triangles.iter())
                .map(|t| t.vertices().map(|v| v.to_array()))
                .collect(),
            mesh: triangles.iter().map(|t| t.mesh()).collect(),
            loads: world.triangle_loads(),
            load_distance,
        }
    }
}

/// The `.vtp` file of a mesh-load frame, its arrays in `encoding`: three points and one
/// triangle cell per mesh triangle (the triangles share no points, so each cell's values are
/// its own), with cell data `mesh` (index), `force` (N, on the triangle), `normal_force` (N,
/// against its normal (b − a) × (c − a)), `shear_force` (N), `pressure` (Pa), `contacts`,
/// `sliding_power` (W) and `load_distance` (N m).
pub fn mesh_loads_vtp(f: &MeshLoadFrame, encoding: FrameEncoding) -> Vec<u8> {
    let n = f.triangles.len();
    let mut x = VtkXml::new("PolyData", encoding, 30 * n);
    x.tag("<FieldData>");
    x.field("TimeValue", f.time);
    x.tag("</FieldData>");
    x.tag(&format!(
        "<Piece NumberOfPoints=\"{}\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"{n}\">",
        3 * n
    ));
    x.tag("<Points>");
    x.array(None, f.triangles.iter().flatten().copied());
    x.tag("</Points>\n<Polys>");
    x.indices("connectivity", 3 * n, 0..3 * n);
    x.indices("offsets", 3 * n, (1..=n).map(|k| 3 * k));
    x.tag("</Polys>\n<CellData Scalars=\"pressure\" Vectors=\"force\">");
    let max_mesh = f.mesh.iter().copied().max().unwrap_or(0);
    x.unsigned("mesh", max_mesh.into(), f.mesh.iter().map(|&m| m.into()));
    x.array(Some("force"), f.loads.iter().map(|l| l.force.to_array()));
    let column = |x: &mut VtkXml, name: &str, value: fn(&TriangleLoad) -> f64| {
        x.array(Some(name), f.loads.iter().map(|l| [value(l)]));
    };
    column(&mut x, "normal_force", |l| l.normal_force);
    column(&mut x, "shear_force", |l| l.shear_force);
    column(&mut x, "pressure", |l| l.pressure);
    let contacts = f.loads.iter().map(|l| l.contacts as u64);
    x.unsigned("contacts", u32::MAX.into(), contacts);
    column(&mut x, "sliding_power", |l| l.sliding_power);
    x.array(Some("load_distance"), f.load_distance.iter().map(|&v| [v]));
    x.tag("</CellData>\n</Piece>");
    x.finish()
}

impl Layout {
    /// `meshes/` with the mesh-load `.vtp` files.
    pub fn mesh_frames(&self) -> PathBuf {
        self.dir.join("meshes")
    }
    /// The ParaView index of the mesh-load frames, `meshes.pvd`.
    pub fn meshes_pvd(&self) -> PathBuf {
        self.dir.join("meshes.pvd")
    }
    /// File name of the mesh-load frame after `step` steps.
    pub fn mesh_frame_name(step: u64) -> String {
        format!("meshes_{step:09}.vtp")
    }
}

/// The mesh-load frames of a run: writes each one and keeps `meshes.pvd` listing them.
pub struct MeshLoadFiles {
    layout: Layout,
    encoding: FrameEncoding,
    /// (time in s, file name relative to the folder) of every frame written, in order.
    frames: Vec<(f64, String)>,
}

impl MeshLoadFiles {
    /// Creates `meshes/`; with `resume_step`, keeps the frames up to that step of an earlier
    /// run and removes later ones, otherwise removes every frame found. `h` turns the steps of
    /// frames kept into times.
    pub fn open(
        layout: Layout,
        resume_step: Option<u64>,
        h: f32,
        encoding: FrameEncoding,
    ) -> io::Result<MeshLoadFiles> {
        let dir = layout.mesh_frames();
        std::fs::create_dir_all(&dir).map_err(|e| at(&dir, e))?;
        let frames = keep_frames(&dir, "meshes_", &[".vtp"], resume_step, h)?;
        Ok(MeshLoadFiles {
            layout,
            encoding,
            frames,
        })
    }

    /// Writes the frame `f` and the index with it.
    pub fn write(&mut self, f: &MeshLoadFrame) -> io::Result<()> {
        let name = Layout::mesh_frame_name(f.step);
        let path = self.layout.mesh_frames().join(&name);
        write_atomic(&path, &mesh_loads_vtp(f, self.encoding))?;
        self.frames.push((f.time, format!("meshes/{name}")));
        write_atomic(&self.layout.meshes_pvd(), pvd(&self.frames).as_bytes())
    }
}
