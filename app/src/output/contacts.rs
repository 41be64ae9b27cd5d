//! Force chains for ParaView: per frame a `.vtu` of the last step's contacts as line cells
//! (between the two centres of a body–body contact, from the centre to the contact point of a
//! body–wall contact) with each contact's force, normal force and gap, and each body's total
//! contact force; and `contacts.pvd`, the index tying them to simulated times.

use super::progress::exact_time;
use super::vtk::pvd;
use super::writer::{keep_frames, Layout};
use super::{at, write_atomic};
use grains::{Touching, World};
use std::fmt::Write;
use std::io;
use std::path::PathBuf;

/// The contacts of the last step at one instant, copied off the world for writing.
#[derive(Clone, Debug, Default)]
pub struct ContactFrame {
    /// Steps taken.
    pub step: u64,
    /// Simulated time (s).
    pub time: f64,
    /// Points (m): the body centres (point i is body i), then the contact point of each
    /// body–wall contact.
    pub points: Vec<[f32; 3]>,
    /// Total contact force on each body (N), for its centre point.
    pub body_forces: Vec<[f32; 3]>,
    /// Each contact's two points.
    pub lines: Vec<[usize; 2]>,
    /// Force on the contact's first body (N): the impulse over the step divided by h.
    pub forces: Vec<[f32; 3]>,
    /// Normal force (N), γn / h, ≥ 0.
    pub normal_forces: Vec<f32>,
    /// Gap at the start of the step (m; negative when overlapping).
    pub gaps: Vec<f32>,
}

impl ContactFrame {
    /// The last step's contacts of `world` (GPU: as of its last `sync_contacts`).
    pub fn of(world: &World) -> ContactFrame {
        let n = world.len();
        let mut f = ContactFrame {
            step: world.steps(),
            time: exact_time(world.steps(), world.settings().h),
            points: (0..n).map(|i| world.position(i).to_array()).collect(),
            body_forces: world
                .body_contact_forces()
                .iter()
                .map(|v| v.as_vec3().to_array())
                .collect(),
            ..ContactFrame::default()
        };
        for c in world.contacts() {
            let line = match c.touching {
                Touching::Bodies { a, b } => [a, b],
                Touching::Wall { body, .. } | Touching::Mesh { body, .. } => {
                    f.points.push(c.point.to_array());
                    [body, f.points.len() - 1]
                }
            };
            f.lines.push(line);
            f.forces.push(c.force.to_array());
            f.normal_forces.push(c.force.dot(c.normal).max(0.0));
            f.gaps.push(c.gap);
        }
        f
    }
}

/// The `.vtu` text of a contact frame: line cells with cell data `force` (N, on the first
/// body), `normal_force` (N) and `gap` (m), and point data `body_force` (N, the body's total
/// contact force at its centre; 0 at the contact points on walls).
pub fn contacts_vtu(f: &ContactFrame) -> String {
    let (np, nc) = (f.points.len(), f.lines.len());
    let mut s = String::with_capacity((np + nc) * 80 + 1024);
    s.push_str("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n<UnstructuredGrid>\n");
    let _ = writeln!(
        s,
        "<FieldData><DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">{}</DataArray></FieldData>",
        f.time
    );
    let _ = writeln!(s, "<Piece NumberOfPoints=\"{np}\" NumberOfCells=\"{nc}\">");
    s.push_str("<Points>\n");
    vectors(&mut s, None, &f.points);
    s.push_str(
        "</Points>\n<Cells>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n",
    );
    for [a, b] in &f.lines {
        let _ = write!(s, "{a} {b} ");
    }
    s.push_str("\n</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
    for k in 0..nc {
        let _ = write!(s, "{} ", 2 * (k + 1));
    }
    s.push_str("\n</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
    for _ in 0..nc {
        s.push_str("3 ");
    }
    s.push_str("\n</DataArray>\n</Cells>\n<PointData Vectors=\"body_force\">\n");
    let mut body_forces = f.body_forces.clone();
    body_forces.resize(np, [0.0; 3]);
    vectors(&mut s, Some("body_force"), &body_forces);
    s.push_str("</PointData>\n<CellData Scalars=\"normal_force\" Vectors=\"force\">\n");
    scalars(&mut s, "normal_force", &f.normal_forces);
    vectors(&mut s, Some("force"), &f.forces);
    scalars(&mut s, "gap", &f.gaps);
    s.push_str("</CellData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n");
    s
}

/// A Float32 data array of 3-vectors (the points when `name` is none).
fn vectors(s: &mut String, name: Option<&str>, data: &[[f32; 3]]) {
    match name {
        Some(name) => {
            let _ = writeln!(
                s,
                "<DataArray type=\"Float32\" Name=\"{name}\" NumberOfComponents=\"3\" format=\"ascii\">"
            );
        }
        None => {
            s.push_str("<DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n")
        }
    }
    for p in data {
        let _ = writeln!(s, "{} {} {}", p[0], p[1], p[2]);
    }
    s.push_str("</DataArray>\n");
}

/// A Float32 data array of scalars.
fn scalars(s: &mut String, name: &str, data: &[f32]) {
    let _ = writeln!(
        s,
        "<DataArray type=\"Float32\" Name=\"{name}\" format=\"ascii\">"
    );
    for v in data {
        let _ = writeln!(s, "{v}");
    }
    s.push_str("</DataArray>\n");
}

impl Layout {
    /// `contacts/` with the contact `.vtu` files.
    pub fn contact_frames(&self) -> PathBuf {
        self.dir.join("contacts")
    }
    /// The ParaView index of the contact frames, `contacts.pvd`.
    pub fn contacts_pvd(&self) -> PathBuf {
        self.dir.join("contacts.pvd")
    }
    /// File name of the contact frame after `step` steps.
    pub fn contact_frame_name(step: u64) -> String {
        format!("contacts_{step:09}.vtu")
    }
}

/// The contact frames of a run: writes each one and keeps `contacts.pvd` listing them.
pub struct ContactFiles {
    layout: Layout,
    /// (time in s, file name relative to the folder) of every frame written, in order.
    frames: Vec<(f64, String)>,
}

impl ContactFiles {
    /// Creates `contacts/`; with `resume_step`, keeps the frames up to that step of an earlier
    /// run and removes later ones, otherwise removes every frame found. `h` turns the steps of
    /// frames kept into times.
    pub fn open(layout: Layout, resume_step: Option<u64>, h: f32) -> io::Result<ContactFiles> {
        let dir = layout.contact_frames();
        std::fs::create_dir_all(&dir).map_err(|e| at(&dir, e))?;
        let frames = keep_frames(&dir, "contacts_", resume_step, h)?;
        Ok(ContactFiles { layout, frames })
    }

    /// Writes the frame `f` and the index with it.
    pub fn write(&mut self, f: &ContactFrame) -> io::Result<()> {
        let name = Layout::contact_frame_name(f.step);
        let path = self.layout.contact_frames().join(&name);
        write_atomic(&path, contacts_vtu(f).as_bytes())?;
        self.frames.push((f.time, format!("contacts/{name}")));
        write_atomic(&self.layout.contacts_pvd(), pvd(&self.frames).as_bytes())
    }
}
