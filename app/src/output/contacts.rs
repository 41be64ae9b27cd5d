//! Force chains for ParaView: per frame a `.vtp` (VTK XML poly data, its arrays ASCII or binary,
//! [`FrameEncoding`]) of the last step's contacts as line cells
//! (between the two centres of a body–body contact, from the centre to the contact point of a
//! body–wall contact) with each contact's force, normal force and gap, and each body's total
//! contact force; and `contacts.pvd`, the index tying them to simulated times. A distributed
//! run writes each frame in pieces, one `.vtp` a rank of the contacts it solved, and a `.pvtp`
//! naming them, as it writes its grain frames.

use super::progress::exact_time;
use super::vtk::pvd;
use super::vtk_xml::{FrameEncoding, VtkXml};
use super::writer::{keep_frames, Layout, Part};
use super::{at, write_atomic};
use grains::{Touching, World};
use std::collections::HashMap;
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
    /// body–wall contact. In a rank's piece of a distributed run's frame, the centres of the
    /// bodies the rank owns (ascending), then, in contact order, the contact point of each
    /// wall contact and the centre of each partner the rank does not own.
    pub points: Vec<[f32; 3]>,
    /// Total contact force on each body (N), for its centre point (0 at a piece's centres of
    /// bodies another rank owns, whose piece carries it); the points past its end get 0.
    pub body_forces: Vec<[f32; 3]>,
    /// Each contact's two points.
    pub lines: Vec<[usize; 2]>,
    /// Force on the contact's first body (N): the impulse over the step divided by h.
    pub forces: Vec<[f32; 3]>,
    /// Normal force (N), γn / h, ≥ 0.
    pub normal_forces: Vec<f32>,
    /// Gap at the start of the step (m; negative when overlapping).
    pub gaps: Vec<f32>,
    /// The largest point index and offset any piece of the frame may hold, which chooses the
    /// index arrays' type (Int32 or Int64) alike in every piece; `None`: this frame's own.
    pub bound: Option<usize>,
}

impl ContactFrame {
    /// The last step's contacts of `world` (GPU: as of its last `sync_contacts`), every body a
    /// point.
    pub fn of(world: &World) -> ContactFrame {
        let bodies: Vec<usize> = (0..world.len()).collect();
        ContactFrame::of_bodies(world, &bodies, None)
    }

    /// One rank's piece of the contact frame of a distributed `world`: the contacts the rank
    /// solved (the world's, as of its last `sync_contacts`, each solved by one rank), the
    /// bodies it `owns` (ascending) its first points with their total contact force, and the
    /// index types of the whole frame. A call every rank makes together (the bodies' forces are
    /// totalled over the ranks that hold them).
    ///
    /// Nothing is gathered: the centres are those the rank stepped ([`World::held_centre`]),
    /// a partner another rank owns at its ghost's centre, its owner's bit for bit.
    pub fn piece(world: &World, owns: &[usize]) -> ContactFrame {
        // A piece holds at most its bodies and one more point per contact.
        let bound = world.len() + 2 * world.last_stats().contacts;
        ContactFrame::of_bodies(world, owns, Some(bound))
    }

    /// The contacts of `world` with the `bodies` (ascending) as the first points; a contact's
    /// partner among none of them is a point of its own after them, with force 0.
    fn of_bodies(world: &World, bodies: &[usize], bound: Option<usize>) -> ContactFrame {
        // A rank's own bodies' totals without a list of every body, where it has them (the
        // same on every rank: a collective call either way).
        let forces = match world.own_contact_forces() {
            Some(own) => own,
            None => {
                let all = world.body_contact_forces();
                bodies.iter().map(|&i| all[i]).collect()
            }
        };
        let centre = |i: usize| world.held_centre(i).unwrap_or_else(|| world.position(i));
        let mut f = ContactFrame {
            step: world.steps(),
            time: exact_time(world.steps(), world.settings().h),
            points: bodies.iter().map(|&i| centre(i).to_array()).collect(),
            body_forces: (forces.iter()).map(|f| f.as_vec3().to_array()).collect(),
            bound,
            ..ContactFrame::default()
        };
        // Every body a point (one process, or one rank): point i is body i.
        let all = bodies.len() == world.len();
        let mut partners = HashMap::new();
        let mut point = |f: &mut ContactFrame, i: usize| match bodies.binary_search(&i) {
            _ if all => i,
            Ok(p) => p,
            Err(_) => *partners.entry(i).or_insert_with(|| {
                f.points.push(centre(i).to_array());
                f.body_forces.resize(f.points.len(), [0.0; 3]);
                f.points.len() - 1
            }),
        };
        for c in world.contacts() {
            let line = match c.touching {
                Touching::Bodies { a, b } => [point(&mut f, a), point(&mut f, b)],
                Touching::Wall { body, .. } | Touching::Mesh { body, .. } => {
                    let body = point(&mut f, body);
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
    let values = 6 * f.points.len() + 9 * f.lines.len();
    let mut x = VtkXml::new("PolyData", encoding, values);
    lines(&mut x, f);
    x.finish()
}

/// The `.pvtp` file of a contact frame written in pieces, one `.vtp` a rank: the arrays every
/// piece holds (as [`contacts_vtp`] writes `f`, one of the pieces; the pieces share
/// `f.bound`, so their types agree) and the piece files `pieces`, relative to its folder.
pub fn contacts_pvtp(f: &ContactFrame, pieces: &[String]) -> Vec<u8> {
    let mut x = VtkXml::parallel("PolyData");
    lines(&mut x, f);
    x.pieces(pieces);
    x.finish()
}

/// The data set of a contact frame's lines, into `x`.
fn lines(x: &mut VtkXml, f: &ContactFrame) {
    let (np, nc) = (f.points.len(), f.lines.len());
    x.tag("<FieldData>");
    x.field("TimeValue", f.time);
    x.tag("</FieldData>");
    x.tag(&format!(
        "<Piece NumberOfPoints=\"{np}\" NumberOfVerts=\"0\" NumberOfLines=\"{nc}\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">"
    ));
    x.tag("<Points>");
    x.array(None, f.points.iter().copied());
    x.tag("</Points>\n<Lines>");
    x.indices(
        "connectivity",
        f.bound.unwrap_or(np),
        f.lines.iter().flatten().copied(),
    );
    x.indices(
        "offsets",
        f.bound.unwrap_or(2 * nc),
        (1..=nc).map(|k| 2 * k),
    );
    x.tag("</Lines>\n<PointData Vectors=\"body_force\">");
    let zero = std::iter::repeat([0.0f32; 3]);
    let body_forces = f.body_forces.iter().copied().chain(zero).take(np);
    x.array(Some("body_force"), body_forces);
    x.tag("</PointData>\n<CellData Scalars=\"normal_force\" Vectors=\"force\">");
    x.array(Some("normal_force"), f.normal_forces.iter().map(|&v| [v]));
    x.array(Some("force"), f.forces.iter().copied());
    x.array(Some("gap"), f.gaps.iter().map(|&v| [v]));
    x.tag("</CellData>\n</Piece>");
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
    /// File name of the parallel contact frame after `step` steps (`.pvtp`, naming its
    /// pieces).
    pub fn parallel_contact_frame_name(step: u64) -> String {
        format!("contacts_{step:09}.pvtp")
    }
    /// File name of rank `rank`'s piece of the parallel contact frame after `step` steps.
    pub fn contact_piece_name(step: u64, rank: usize) -> String {
        format!("contacts_{step:09}_r{rank}.vtp")
    }
}

/// The contact frames of a run: writes each one and keeps `contacts.pvd` listing them; in a
/// distributed run, this rank's piece of each, and on rank 0 the `.pvtp` naming the pieces and
/// the index.
pub struct ContactFiles {
    layout: Layout,
    encoding: FrameEncoding,
    /// This rank's part of a distributed run's frames; `None`: one process writes them whole.
    part: Option<Part>,
    /// (time in s, file name relative to the folder) of every frame written, in order.
    frames: Vec<(f64, String)>,
}

impl ContactFiles {
    /// Creates `contacts/`; with `resume_step`, keeps the frames up to that step of an earlier
    /// run and removes later ones, otherwise removes every frame found (the `.vtu` contact
    /// frames of runs from before the `.vtp` ones included, and the pieces of distributed
    /// runs). `h` turns the steps of frames kept into times; `encoding` is the new frames';
    /// with `part`, the frames are this rank's pieces (a rank other than 0 leaves the frames
    /// found to rank 0, which opens them first).
    pub fn open(
        layout: Layout,
        resume_step: Option<u64>,
        h: f32,
        (encoding, part): (FrameEncoding, Option<Part>),
    ) -> io::Result<ContactFiles> {
        let dir = layout.contact_frames();
        std::fs::create_dir_all(&dir).map_err(|e| at(&dir, e))?;
        let frames = match part {
            Some(p) if p.rank > 0 => Vec::new(),
            _ => {
                let suffixes = [".vtp", ".pvtp", ".vtu"];
                keep_frames(&dir, "contacts_", &suffixes, resume_step, h)?
            }
        };
        Ok(ContactFiles {
            layout,
            encoding,
            part,
            frames,
        })
    }

    /// Writes the frame `f` (this rank's piece of it) and, where this writer keeps it, the
    /// index with it.
    pub fn write(&mut self, f: &ContactFrame) -> io::Result<()> {
        let dir = self.layout.contact_frames();
        let name = match self.part {
            None => {
                let name = Layout::contact_frame_name(f.step);
                write_atomic(&dir.join(&name), &contacts_vtp(f, self.encoding))?;
                name
            }
            Some(p) => {
                let piece = Layout::contact_piece_name(f.step, p.rank);
                write_atomic(&dir.join(&piece), &contacts_vtp(f, self.encoding))?;
                if p.rank > 0 {
                    return Ok(());
                }
                let name = Layout::parallel_contact_frame_name(f.step);
                let pieces: Vec<String> = (0..p.ranks)
                    .map(|k| Layout::contact_piece_name(f.step, k))
                    .collect();
                write_atomic(&dir.join(&name), &contacts_pvtp(f, &pieces))?;
                name
            }
        };
        self.frames.push((f.time, format!("contacts/{name}")));
        write_atomic(&self.layout.contacts_pvd(), pvd(&self.frames).as_bytes())
    }
}
