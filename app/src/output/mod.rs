//! Results a user can open: ParaView frames (`.vtu` + `.pvd` of the grains, `.vtp` + `.pvd` of
//! their contacts; binary or ASCII), a CSV of the tracked observables, PNG snapshots and plots, and the end-state
//! quality figures. Frames are written by a writer thread fed through a channel, so stepping never waits on the disk.

pub mod checkpoint;
pub mod contacts;
pub mod fields;
pub mod image;
pub mod mesh_loads;
pub mod outline;
pub mod progress;
pub mod quality;
pub mod record;
pub mod vtk;
pub mod vtk_xml;
pub mod writer;

pub use quality::{Quality, Rest};
pub use vtk_xml::FrameEncoding;
pub use writer::{Frame, Writer, WriterMsg};

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// `err` with the file it concerns in front, so that one line names both.
pub fn at(path: &Path, err: io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("{}: {err}", path.display()))
}

/// Fails when `path` is a symbolic link: outputs are never written through one, so a link
/// planted in an output folder cannot redirect a write elsewhere.
pub fn refuse_symlink(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is a symbolic link; results are not written through links (remove it)",
                path.display()
            ),
        )),
        _ => Ok(()),
    }
}

/// Creates the temporary file `path.tmp` beside `path` for a write that ends with a rename over
/// `path`: a stale one left by a kill is removed first (the link itself, if it is one) and the
/// new one is created create-new, so it never opens an existing file or follows a link.
pub fn create_temp(path: &Path) -> io::Result<(PathBuf, File)> {
    refuse_symlink(path)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(at(&tmp, e)),
        _ => {}
    }
    let f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| at(&tmp, e))?;
    Ok((tmp, f))
}

/// Writes `bytes` to `path` atomically: to a temporary file beside it ([`create_temp`]), then
/// renamed over it. Errors name the file; on an error the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let (tmp, mut f) = create_temp(path)?;
    let written = f
        .write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| at(&tmp, e))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| at(path, e)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
