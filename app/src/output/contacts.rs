//! Force chains for ParaView: per frame a `.vtp` (VTK XML poly data, its arrays ASCII or binary,
//! [`FrameEncoding`]) of the last step's contacts as line cells
//! (between the two centres of a body–body contact, from the centre to the contact point of a
//! body–wall contact) with each contact's force, normal force and gap, and each body's total
//! contact force; and `contacts.pvd`, the index tying them to simulated times.

use super::progress::exact_time;
use super::vtk::pvd;
use super::vtk_xml::{FrameEncoding, VtkXml};
use super::writer::{keep_frames, Layout};
use super::{at, write_atomic};
use grains::{Touching, World};
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

/// The `.vtp` file (VTK XML poly data) of a contact frame, its arrays in `encoding`: one line
/// cell per contact with cell data `force` (N, on the first body), `normal_force` (N) and `gap`
/// (m), and point data `body_force` (N, the body's total contact force at its centre; 0 at the
/// contact points on walls).
pub fn contacts_vtp(f: &ContactFrame, encoding: FrameEncoding) -> Vec<u8> {
    let (np, nc) = (f.points.len(), f.lines.len());
    let mut x = VtkXml::new("PolyData", encoding, 6 * np + 9 * nc);
    x.tag("<FieldData>");
    x.field("TimeValue", f.time);
    x.tag("</FieldData>");
    x.tag(&format!(
        "<Piece NumberOfPoints=\"{np}\" NumberOfVerts=\"0\" NumberOfLines=\"{nc}\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">"
    ));
    x.tag("<Points>");
    x.array(None, f.points.iter().copied());
    x.tag("</Points>\n<Lines>");
    x.indices("connectivity", np, f.lines.iter().flatten().copied());
    x.indices("offsets", 2 * nc, (1..=nc).map(|k| 2 * k));
    x.tag("</Lines>\n<PointData Vectors=\"body_force\">");
    let zero = std::iter::repeat([0.0f32; 3]);
    let body_forces = f.body_forces.iter().copied().chain(zero).take(np);
    x.array(Some("body_force"), body_forces);
    x.tag("</PointData>\n<CellData Scalars=\"normal_force\" Vectors=\"force\">");
    x.array(Some("normal_force"), f.normal_forces.iter().map(|&v| [v]));
    x.array(Some("force"), f.forces.iter().copied());
    x.array(Some("gap"), f.gaps.iter().map(|&v| [v]));
    x.tag("</CellData>\n</Piece>");
    x.finish()
}

impl Layout {
    /// `contacts/` with the contact `.vtp` files.
    pub fn contact_frames(&self) -> PathBuf {
        self.dir.join("contacts")
    }
    /// The ParaView index of the contact frames, `contacts.pvd`.
    pub fn contacts_pvd(&self) -> PathBuf {
        self.dir.join("contacts.pvd")
    }
    /// File name of the contact frame after `step` steps.
    pub fn contact_frame_name(step: u64) -> String {
        format!("contacts_{step:09}.vtp")
    }
}

/// The contact frames of a run: writes each one and keeps `contacts.pvd` listing them.
pub struct ContactFiles {
    layout: Layout,
    encoding: FrameEncoding,
    /// (time in s, file name relative to the folder) of every frame written, in order.
    frames: Vec<(f64, String)>,
}

impl ContactFiles {
    /// Creates `contacts/`; with `resume_step`, keeps the frames up to that step of an earlier
    /// run and removes later ones, otherwise removes every frame found (the `.vtu` contact
    /// frames of runs from before the `.vtp` ones included). `h` turns the steps of frames kept
    /// into times; `encoding` is the new frames'.
    pub fn open(
        layout: Layout,
        resume_step: Option<u64>,
        h: f32,
        encoding: FrameEncoding,
    ) -> io::Result<ContactFiles> {
        let dir = layout.contact_frames();
        std::fs::create_dir_all(&dir).map_err(|e| at(&dir, e))?;
        let frames = keep_frames(&dir, "contacts_", &[".vtp", ".vtu"], resume_step, h)?;
        Ok(ContactFiles {
            layout,
            encoding,
            frames,
        })
    }

    /// Writes the frame `f` and the index with it.
    pub fn write(&mut self, f: &ContactFrame) -> io::Result<()> {
        let name = Layout::contact_frame_name(f.step);
        let path = self.layout.contact_frames().join(&name);
        write_atomic(&path, &contacts_vtp(f, self.encoding))?;
        self.frames.push((f.time, format!("contacts/{name}")));
        write_atomic(&self.layout.contacts_pvd(), pvd(&self.frames).as_bytes())
    }
}
