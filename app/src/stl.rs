//! Triangle meshes from STL files (ASCII or binary, read by the `stl_io` crate), checked
//! triangle by triangle: every vertex finite, no zero-area triangle, and at least one triangle.

use glam::Vec3;
use grains::mesh::triangle_problem;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why an STL file gave no mesh; each names the file, and the triangle where one is at fault.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum StlError {
    /// The file could not be opened or is not STL (truncated, malformed).
    #[error("{file}: cannot read STL: {reason}")]
    Read {
        /// The STL file.
        file: PathBuf,
        /// The reader's reason.
        reason: String,
    },
    /// A triangle could not be read, or has a vertex that is not finite or zero area.
    #[error("{file}: triangle {triangle}: {problem}")]
    Triangle {
        /// The STL file.
        file: PathBuf,
        /// Index of the triangle (0-based, in file order).
        triangle: usize,
        /// What is wrong.
        problem: String,
    },
    /// The file holds no triangle.
    #[error("{file}: the mesh is empty (no triangle)")]
    Empty {
        /// The STL file.
        file: PathBuf,
    },
}

/// The triangles (vertices a, b, c) of the STL file at `path`, in file order; the normals the
/// file stores are ignored (a mesh wall pushes grains off whichever side they are on).
pub fn read_stl(path: &Path) -> Result<Vec<[Vec3; 3]>, StlError> {
    let read_err = |reason: String| StlError::Read {
        file: path.to_path_buf(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| read_err(e.to_string()))?;
    let mut reader = BufReader::new(file);
    let triangles = stl_io::create_stl_reader(&mut reader).map_err(|e| read_err(e.to_string()))?;
    let mut out = Vec::new();
    for (i, t) in triangles.enumerate() {
        let bad = |problem: String| StlError::Triangle {
            file: path.to_path_buf(),
            triangle: i,
            problem,
        };
        let t = t.map_err(|e| bad(format!("cannot be read: {e}")))?;
        let v = t.vertices.map(|p| Vec3::new(p[0], p[1], p[2]));
        if let Some(problem) = triangle_problem(v) {
            return Err(bad(format!("vertices {problem}")));
        }
        out.push(v);
    }
    if out.is_empty() {
        return Err(StlError::Empty {
            file: path.to_path_buf(),
        });
    }
    Ok(out)
}

/// The ASCII STL text of `triangles` under the solid name `name` (facet normals from the
/// winding): for writing test meshes and the shipped ones.
pub fn ascii_stl(name: &str, triangles: &[[Vec3; 3]]) -> String {
    let mut s = format!("solid {name}\n");
    for [a, b, c] in triangles {
        let n = (*b - *a).cross(*c - *a).normalize_or_zero();
        s += &format!("  facet normal {} {} {}\n    outer loop\n", n.x, n.y, n.z);
        for p in [a, b, c] {
            s += &format!("      vertex {} {} {}\n", p.x, p.y, p.z);
        }
        s += "    endloop\n  endfacet\n";
    }
    s += &format!("endsolid {name}\n");
    s
}
