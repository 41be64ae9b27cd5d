//! Triangle meshes from STL files (ASCII or binary, read by the `stl_io` crate), bounded and
//! checked: only a regular file (checked before it is opened, so a FIFO or a device is refused
//! without blocking), at most [`MAX_STL_BYTES`], read whole and recognised as STL before a
//! triangle is decoded (a binary file's size must be the one its header's triangle count
//! gives), then checked triangle by triangle: every vertex finite, no zero-area triangle, and at
//! least one triangle. No error quotes the bytes of a file that is not STL.

use crate::input::read_regular;
use crate::one_line::{path_shown, shown};
use glam::Vec3;
use grains::mesh::triangle_problem;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The largest STL file read, in bytes (64 MiB: about 1.3 million triangles binary, a quarter
/// of a million ASCII); a larger one is refused before it is read.
pub const MAX_STL_BYTES: u64 = 64 << 20;

/// The most characters of a reader's reason quoted in an error (it may quote a line of a
/// malformed ASCII file).
const MAX_REASON_CHARS: usize = 160;

/// The bytes of a binary STL's header: 80 free bytes and the triangle count (u32).
const BINARY_HEADER: u64 = 84;

/// The bytes of one triangle of a binary STL: normal, three vertices, an attribute count.
const BINARY_TRIANGLE: u64 = 50;

/// Why an STL file gave no mesh; each names the file, and the triangle where one is at fault.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum StlError {
    /// The file could not be opened or read, is not a regular file, is too large, or is not STL
    /// (neither ASCII STL text nor a binary STL of the size its header declares).
    #[error("{}: cannot read STL: {reason}", path_shown(file))]
    Read {
        /// The STL file.
        file: PathBuf,
        /// The reason (never the file's bytes, unless it is ASCII STL).
        reason: String,
    },
    /// A triangle could not be read, or has a vertex that is not finite or zero area.
    #[error("{}: triangle {triangle}: {problem}", path_shown(file))]
    Triangle {
        /// The STL file.
        file: PathBuf,
        /// Index of the triangle (0-based, in file order).
        triangle: usize,
        /// What is wrong.
        problem: String,
    },
    /// The file holds no triangle.
    #[error("{}: the mesh is empty (no triangle)", path_shown(file))]
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
    let bad = |triangle: usize, problem: String| StlError::Triangle {
        file: path.to_path_buf(),
        triangle,
        problem,
    };
    let bytes = read_regular(path, MAX_STL_BYTES, "an STL file").map_err(read_err)?;
    let mut out = Vec::new();
    let mut push = |i: usize, v: [Vec3; 3]| match triangle_problem(v) {
        Some(problem) => Err(bad(i, format!("vertices {problem}"))),
        None => {
            out.push(v);
            Ok(())
        }
    };
    match kind(&bytes) {
        Kind::Binary => {
            let body = &bytes[BINARY_HEADER as usize..];
            for (i, t) in body.chunks_exact(BINARY_TRIANGLE as usize).enumerate() {
                // Normal (bytes 0..12), then the three vertices, 12 bytes each.
                let f = |k: usize| f32::from_le_bytes([t[k], t[k + 1], t[k + 2], t[k + 3]]);
                push(i, [12, 24, 36].map(|o| Vec3::new(f(o), f(o + 4), f(o + 8))))?;
            }
        }
        Kind::Ascii => {
            let mut cursor = Cursor::new(&bytes[..]);
            let triangles = stl_io::create_stl_reader(&mut cursor)
                .map_err(|e| read_err(shown(&e.to_string(), MAX_REASON_CHARS)))?;
            for (i, t) in triangles.enumerate() {
                let t = t.map_err(|e| {
                    let e = shown(&e.to_string(), MAX_REASON_CHARS);
                    bad(i, format!("cannot be read: {e}"))
                })?;
                push(i, t.vertices.map(|p| Vec3::new(p[0], p[1], p[2])))?;
            }
        }
        Kind::Neither => {
            return Err(read_err(format!(
                "not an STL file: not ASCII STL (text that starts with `solid `), and its size, {} bytes, is not that of the binary STL its header describes ({BINARY_HEADER} bytes and {BINARY_TRIANGLE} per triangle): truncated, or not STL",
                bytes.len()
            )))
        }
    }
    if out.is_empty() {
        return Err(StlError::Empty {
            file: path.to_path_buf(),
        });
    }
    Ok(out)
}

/// What the bytes of a file are.
enum Kind {
    /// A binary STL: an 84-byte header whose triangle count gives the file's size exactly.
    Binary,
    /// ASCII STL text (it starts with `solid `, and is not a binary STL whose header does).
    Ascii,
    /// Neither: not STL, or a binary STL cut short or with bytes after its triangles.
    Neither,
}

/// Recognises `bytes` as binary or ASCII STL. A binary file's size is checked against its
/// declared triangle count before any triangle is decoded or allocated.
fn kind(bytes: &[u8]) -> Kind {
    if bytes.len() as u64 >= BINARY_HEADER {
        let count = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]);
        if BINARY_HEADER + BINARY_TRIANGLE * count as u64 == bytes.len() as u64 {
            return Kind::Binary;
        }
    }
    if bytes.starts_with(b"solid ") {
        Kind::Ascii
    } else {
        Kind::Neither
    }
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
