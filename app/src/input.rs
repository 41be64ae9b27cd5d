//! Reading an input file (a scene, an STL mesh) bounded: only a regular file, its type checked
//! before it is opened (so that a FIFO, a device or a directory is refused without blocking or
//! reading), at most a given size, read whole.

use std::io::Read;
use std::path::Path;

/// The whole of the file at `path`, which must be a regular file of at most `max` bytes: its
/// type and size are checked before it is opened, checked again on the file opened (in case
/// the path was replaced meanwhile), and the read stops after `max` bytes (a file whose size
/// the system does not report, such as one of `/proc`). `what` names the file expected in the
/// errors ("a scene file").
pub(crate) fn read_regular(path: &Path, max: u64, what: &str) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    check_type(&meta, what)?;
    let too_large = |bytes: u64| {
        format!(
            "the file is {bytes} bytes, larger than {} MiB, the most {what} may be",
            max >> 20
        )
    };
    if meta.len() > max {
        return Err(too_large(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    check_type(&file.metadata().map_err(|e| e.to_string())?, what)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Refuses what is not a regular file, naming what it is and `what` was expected.
fn check_type(meta: &std::fs::Metadata, what: &str) -> Result<(), String> {
    let t = meta.file_type();
    if t.is_file() {
        return Ok(());
    }
    let kind = if t.is_dir() {
        "a directory"
    } else {
        special_kind(&t)
    };
    Err(format!("not a regular file ({kind}); name {what}"))
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(unix)]
fn special_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}
