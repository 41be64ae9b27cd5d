//! Opening the GPU without the Wayland client library's lines on standard error.
//!
//! Mesa's Vulkan device-selection layer (`VK_LAYER_MESA_device_select`, loaded implicitly with
//! Mesa's drivers, lavapipe included) asks Wayland for the display's GPU while the adapters are
//! listed; without `XDG_RUNTIME_DIR`, `libwayland-client` prints
//! `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` once per query (twice per
//! GPU opened), which breaks a program's one-error-line contract. Without that variable no
//! Wayland display can be reached anyway, so only then (unset or not an absolute path, and no
//! `WAYLAND_DISPLAY` path or `WAYLAND_SOCKET` naming one) the opening runs with standard error
//! (file descriptor 2) caught in an unnamed temporary file; when it is done, standard error is
//! put back and what was caught is written to it, less exactly those lines. Nothing else is
//! changed (no environment variable, no handler of the library), and in a session with a
//! display standard error is never touched. While an opening runs, another thread's writes to
//! standard error come out when it ends (tens of milliseconds later), in their order; openings
//! take turns.

/// The line `libwayland-client` prints for each query of a session without `XDG_RUNTIME_DIR`.
const WAYLAND_LINE: &str = "error: XDG_RUNTIME_DIR is invalid or not set in the environment.";

/// Whether Wayland can be reached (so that its client library prints nothing): an absolute
/// `XDG_RUNTIME_DIR`, an absolute `WAYLAND_DISPLAY` path, or a `WAYLAND_SOCKET`.
fn wayland_reachable() -> bool {
    let absolute =
        |v: &str| std::env::var_os(v).is_some_and(|v| v.to_string_lossy().starts_with('/'));
    absolute("XDG_RUNTIME_DIR")
        || absolute("WAYLAND_DISPLAY")
        || std::env::var_os("WAYLAND_SOCKET").is_some()
}

/// `caught` less the lines of [`WAYLAND_LINE`].
fn without_wayland_lines(caught: &[u8]) -> Vec<u8> {
    caught
        .split_inclusive(|&b| b == b'\n')
        .filter(|line| line.trim_ascii_end() != WAYLAND_LINE.as_bytes())
        .flatten()
        .copied()
        .collect()
}

/// Runs `open` (which lists the adapters) with the Wayland client's lines kept off standard
/// error where no Wayland display can be reached (see the module's documentation).
#[cfg(unix)]
pub fn quietly<T>(open: impl FnOnce() -> T) -> T {
    if wayland_reachable() {
        return open();
    }
    // One opening at a time: each puts back the standard error it found.
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    // Put back when dropped, after the opening (also when it panics).
    let _caught = Caught::start();
    open()
}

/// Elsewhere (no Wayland), `open` as it is.
#[cfg(not(unix))]
pub fn quietly<T>(open: impl FnOnce() -> T) -> T {
    open()
}

/// Standard error redirected into an unnamed temporary file; when dropped, standard error is
/// put back and what was caught written to it, less the Wayland lines.
#[cfg(unix)]
struct Caught {
    /// The temporary file.
    file: std::fs::File,
    /// A duplicate of standard error as it was.
    saved: std::os::fd::OwnedFd,
}

#[cfg(unix)]
impl Caught {
    /// Redirects standard error into a fresh unnamed file; `None` (nothing changed) where no
    /// such file can be made.
    fn start() -> Option<Caught> {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        // SAFETY: `tmpfile` returns a stream of a file already removed from its folder, or
        // null; its descriptor is duplicated into a `File` before the stream is closed.
        let file = unsafe {
            let stream = libc::tmpfile();
            if stream.is_null() {
                return None;
            }
            let fd = libc::dup(libc::fileno(stream));
            libc::fclose(stream);
            if fd < 0 {
                return None;
            }
            std::fs::File::from_raw_fd(fd)
        };
        // SAFETY: `dup` of standard error gives a new descriptor this value owns; `dup2`
        // replaces descriptor 2 atomically (the turn keeps other openings out).
        unsafe {
            let saved = libc::dup(2);
            if saved < 0 {
                return None;
            }
            let saved = OwnedFd::from_raw_fd(saved);
            if libc::dup2(file.as_raw_fd(), 2) < 0 {
                return None;
            }
            Some(Caught { file, saved })
        }
    }
}

#[cfg(unix)]
impl Drop for Caught {
    fn drop(&mut self) {
        use std::io::{Read, Seek, Write};
        use std::os::fd::AsRawFd;
        // SAFETY: `saved` is an open descriptor of this value; `dup2` puts it back as 2.
        unsafe {
            libc::dup2(self.saved.as_raw_fd(), 2);
        }
        let mut caught = Vec::new();
        if self.file.rewind().is_ok() && self.file.read_to_end(&mut caught).is_ok() {
            let _ = std::io::stderr().write_all(&without_wayland_lines(&caught));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the Wayland client's lines are taken out; every other line (without its newline at
    /// the end too) is kept, in order.
    #[test]
    fn only_the_wayland_lines_are_taken_out() {
        let caught = format!("{WAYLAND_LINE}\nwarning: kept\n{WAYLAND_LINE}\nerror: kept too");
        assert_eq!(
            without_wayland_lines(caught.as_bytes()),
            b"warning: kept\nerror: kept too"
        );
        assert_eq!(without_wayland_lines(b""), b"");
    }
}
