//! ParaView files: one VTK XML unstructured grid (`.vtu`) per frame, the grains as vertex cells
//! with point data, and a `.pvd` collection tying frame files to simulated times.

use super::writer::{Frame, NO_GROUP};
use grains::{shape_code, Quat, Vec3};
use std::fmt::Write;

/// The `.vtu` text of a frame: points at the grain centres (m) with point data `radius` (m),
/// `velocity` (m/s), `angular_velocity` (rad/s), `orientation` (the unit quaternion x, y, z, w
/// turning the body's axes into the world's), `id` (the body's stable id, which follows a grain
/// from frame to frame while grains are inserted and removed), `material` (index of
/// its material, in the order of the scene's `[[materials]]`) and `group` (index of the
/// `[[bodies]]` table that made it, −1 for none). Where some body is not a sphere, also `shape`
/// ([`grains::shape_code`]) and `axes`: the 3×3 tensor whose columns are the body's own x, y and z axes
/// in world coordinates, each scaled by its half-size along it, written column by column (VTK's
/// order for a 3×3 tensor), so that ParaView's Tensor Glyph with eigenvalues not extracted
/// (which takes the columns as the glyph's axes) and a scale factor of 2 turns its unit cube or
/// sphere into the body's bounding box or its ellipsoid.
pub fn vtu(frame: &Frame) -> String {
    let n = frame.positions.len();
    let mut s = String::with_capacity(n * 120 + 1024);
    s.push_str("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n<UnstructuredGrid>\n");
    let _ = writeln!(
        s,
        "<FieldData><DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">{}</DataArray></FieldData>",
        frame.time
    );
    let _ = writeln!(s, "<Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{n}\">");
    let vec3 = |s: &mut String, name: Option<&str>, data: &[[f32; 3]]| {
        match name {
            Some(name) => {
                let _ = writeln!(s, "<DataArray type=\"Float32\" Name=\"{name}\" NumberOfComponents=\"3\" format=\"ascii\">");
            }
            None => s.push_str(
                "<DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n",
            ),
        }
        for p in data {
            let _ = writeln!(s, "{} {} {}", p[0], p[1], p[2]);
        }
        s.push_str("</DataArray>\n");
    };
    s.push_str("<Points>\n");
    vec3(&mut s, None, &frame.positions);
    s.push_str(
        "</Points>\n<Cells>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n",
    );
    for i in 0..n {
        let _ = write!(s, "{i} ");
    }
    s.push_str("\n</DataArray>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
    for i in 0..n {
        let _ = write!(s, "{} ", i + 1);
    }
    s.push_str("\n</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
    for _ in 0..n {
        s.push_str("1 ");
    }
    s.push_str("\n</DataArray>\n</Cells>\n<PointData Scalars=\"radius\" Vectors=\"velocity\">\n");
    s.push_str("<DataArray type=\"Float32\" Name=\"radius\" format=\"ascii\">\n");
    for r in &frame.radii {
        let _ = writeln!(s, "{r}");
    }
    s.push_str("</DataArray>\n");
    vec3(&mut s, Some("velocity"), &frame.velocities);
    vec3(&mut s, Some("angular_velocity"), &frame.angular_velocities);
    s.push_str("<DataArray type=\"Float32\" Name=\"orientation\" NumberOfComponents=\"4\" format=\"ascii\">\n");
    for q in &frame.orientations {
        let _ = writeln!(s, "{} {} {} {}", q[0], q[1], q[2], q[3]);
    }
    s.push_str("</DataArray>\n");
    if !frame.shapes.is_empty() {
        s.push_str("<DataArray type=\"Int32\" Name=\"shape\" format=\"ascii\">\n");
        for shape in &frame.shapes {
            let _ = writeln!(s, "{}", shape_code(*shape));
        }
        s.push_str("</DataArray>\n<DataArray type=\"Float32\" Name=\"axes\" NumberOfComponents=\"9\" format=\"ascii\">\n");
        for (q, e) in frame.orientations.iter().zip(&frame.half_extents) {
            let q = Quat::from_array(*q);
            let [x, y, z] = [Vec3::X * e[0], Vec3::Y * e[1], Vec3::Z * e[2]].map(|a| q * a);
            let _ = writeln!(
                s,
                "{} {} {} {} {} {} {} {} {}",
                x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z
            );
        }
        s.push_str("</DataArray>\n");
    }
    s.push_str("<DataArray type=\"UInt64\" Name=\"id\" format=\"ascii\">\n");
    for i in 0..n {
        let _ = writeln!(s, "{}", frame.ids.get(i).copied().unwrap_or(i as u64));
    }
    s.push_str("</DataArray>\n<DataArray type=\"Int32\" Name=\"material\" format=\"ascii\">\n");
    for m in &frame.materials {
        let _ = writeln!(s, "{m}");
    }
    s.push_str("</DataArray>\n<DataArray type=\"Int32\" Name=\"group\" format=\"ascii\">\n");
    for &g in &frame.groups {
        let _ = writeln!(s, "{}", if g == NO_GROUP { -1 } else { g as i64 });
    }
    s.push_str("</DataArray>\n</PointData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n");
    s
}

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
