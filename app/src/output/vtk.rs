//! ParaView files: one VTK XML unstructured grid (`.vtu`) per frame, the grains as vertex cells
//! with point data (its arrays ASCII or binary, [`FrameEncoding`]), and a `.pvd` collection
//! tying frame files to simulated times.

use super::vtk_xml::{FrameEncoding, VtkXml};
use super::writer::{Frame, NO_GROUP};
use grains::{shape_code, Quat, Vec3};
use std::fmt::Write;

/// The `.vtu` file of a frame, its arrays in `encoding`: points at the grain centres (m,
/// Float32) with point data `radius` (m), `velocity` (m/s), `angular_velocity` (rad/s), all
/// Float32 (the engine's own precision), `id` (the body's stable id, which follows a grain from
/// frame to frame while grains are inserted and removed; UInt32, or UInt64 once an id passes
/// 2³² − 1), `material` (index of its material, in the order of the scene's `[[materials]]`;
/// UInt8 for up to 256 materials) and `group` (index of the `[[bodies]]` table that made it, −1
/// for none; Int8 for up to 127 tables), the integer types as [`super::writer::FrameBounds`] chooses them.
/// In a world with breakable bonds, also `broken_bonds` (how many of the grain's bonds have
/// broken, UInt8, at most 255): coloured by it, the cracks show.
/// Where some body is not a sphere (or with [`Frame::orientation`]), also `orientation` (the
/// unit quaternion x, y, z, w turning the body's axes into the world's, Float32); where some
/// body is not a sphere, also `shape` ([`grains::shape_code`], Int32) and `axes`: the 3×3
/// tensor whose columns are the body's own x, y and z axes in world coordinates, each scaled
/// by its half-size along it, written column by column (VTK's order for a 3×3 tensor), so that
/// ParaView's Tensor Glyph with eigenvalues not extracted (which takes the columns as the
/// glyph's axes) and a scale factor of 2 turns its unit cube or sphere into the body's
/// bounding box or its ellipsoid.
pub fn vtu(frame: &Frame, encoding: FrameEncoding) -> Vec<u8> {
    let mut f = VtkXml::new("UnstructuredGrid", encoding, 30 * frame.positions.len());
    grains(&mut f, frame);
    f.finish()
}

/// The `.pvtu` file of a frame written in pieces, one `.vtu` a rank: the arrays every piece
/// holds (as [`vtu`] writes `frame`, one of the pieces; the pieces share `frame.bounds`, so
/// their types agree) and the piece files `pieces`, relative to its folder.
pub fn pvtu(frame: &Frame, pieces: &[String]) -> Vec<u8> {
    let mut f = VtkXml::parallel("UnstructuredGrid");
    grains(&mut f, frame);
    f.pieces(pieces);
    f.finish()
}

/// The data set of a frame's grains, into `f`.
fn grains(f: &mut VtkXml, frame: &Frame) {
    let n = frame.positions.len();
    let bounds = frame.bounds.unwrap_or_else(|| frame.own_bounds());
    f.tag("<FieldData>");
    f.field("TimeValue", frame.time);
    f.tag("</FieldData>");
    f.tag(&format!(
        "<Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{n}\">"
    ));
    f.tag("<Points>");
    f.array(None, frame.positions.iter().copied());
    f.tag("</Points>\n<Cells>");
    let points = bounds.points.max(n);
    f.indices("connectivity", points, 0..n);
    f.indices("offsets", points, 1..=n);
    f.array(Some("types"), (0..n).map(|_| [VTK_VERTEX]));
    f.tag("</Cells>\n<PointData Scalars=\"radius\" Vectors=\"velocity\">");
    f.array(Some("radius"), frame.radii.iter().map(|&r| [r]));
    f.array(Some("velocity"), frame.velocities.iter().copied());
    f.array(
        Some("angular_velocity"),
        frame.angular_velocities.iter().copied(),
    );
    if !frame.stresses.is_empty() {
        f.array(Some("stress"), frame.stresses.iter().copied());
    }
    if !frame.broken_bonds.is_empty() {
        let counts = frame.broken_bonds.iter().map(|&c| u64::from(c));
        f.unsigned("broken_bonds", u8::MAX as u64, counts);
    }
    let shaped = !frame.shapes.is_empty();
    if shaped || frame.orientation {
        f.array(Some("orientation"), frame.orientations.iter().copied());
    }
    if shaped {
        f.array(Some("shape"), frame.shapes.iter().map(|&s| [shape_code(s)]));
        let axes = frame
            .orientations
            .iter()
            .zip(&frame.half_extents)
            .map(|(q, e)| {
                let q = Quat::from_array(*q);
                let [x, y, z] = [Vec3::X * e[0], Vec3::Y * e[1], Vec3::Z * e[2]].map(|a| q * a);
                [x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z]
            });
        f.array(Some("axes"), axes);
    }
    // Ids at least UInt32, so that a run's ids keep one type while grains are inserted.
    f.unsigned(
        "id",
        bounds.id.max(u32::MAX as u64),
        (0..n).map(|i| frame.ids.get(i).copied().unwrap_or(i as u64)),
    );
    f.unsigned(
        "material",
        bounds.material as u64,
        frame.materials.iter().map(|&m| m as u64),
    );
    f.small_signed(
        "group",
        i32::try_from(bounds.group).unwrap_or(i32::MAX),
        frame.groups.iter().map(|&g| match g {
            NO_GROUP => -1,
            g => i32::try_from(g).unwrap_or(i32::MAX),
        }),
    );
    f.tag("</PointData>\n</Piece>");
}

/// VTK's cell type of a vertex (one point).
const VTK_VERTEX: u8 = 1;

/// The `.pvd` collection of `(time in s, file name)` frames.
pub fn pvd(frames: &[(f64, String)]) -> String {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n<Collection>\n");
    for (t, f) in frames {
        let _ = writeln!(
            s,
            "<DataSet timestep=\"{t}\" group=\"\" part=\"0\" file=\"{f}\"/>"
        );
    }
    s.push_str("</Collection>\n</VTKFile>\n");
    s
}
