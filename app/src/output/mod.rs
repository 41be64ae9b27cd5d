//! Results a user can open: ParaView frames (`.vtu` + `.pvd`), a CSV of the tracked
//! observables, PNG snapshots and plots, and the end-state quality figures. Frames are written
//! by a writer thread fed through a channel, so stepping never waits on the disk.

pub mod image;
pub mod quality;
pub mod vtk;
pub mod writer;

pub use quality::Quality;
pub use writer::{Frame, Writer, WriterMsg};

use std::io;
use std::path::Path;

/// Writes `bytes` to `path` atomically: to a temporary file beside it, then renamed over it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}
