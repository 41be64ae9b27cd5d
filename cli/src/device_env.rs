//! The environment the GPU's loader sees, set once at the start of `main` while the program has
//! one thread: what would make it print outside the one-error-line contract.
//!
//! Mesa's Vulkan device-selection layer (`VK_LAYER_MESA_device_select`, loaded implicitly with
//! Mesa's drivers, lavapipe included) asks Wayland for the display's GPU while the adapters are
//! enumerated; without `XDG_RUNTIME_DIR`, `libwayland-client` prints
//! `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` once per query (twice per
//! run). Without that variable no Wayland display can be reached anyway, so when it is unset
//! (and no `WAYLAND_DISPLAY` path or `WAYLAND_SOCKET` names one) it is set to a fresh, empty
//! directory of this process (mode 0700 under the system's temporary folder): the query then
//! finds no display, silently, and the layer still orders the devices as it would. The
//! directory is removed when `main` ends ([`RuntimeDir`]'s drop).

use std::path::PathBuf;

/// The private runtime directory made by [`quiet_gpu_loader`], removed on drop.
pub struct RuntimeDir(Option<PathBuf>);

impl Drop for RuntimeDir {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Sets `XDG_RUNTIME_DIR` to a fresh private directory where it is unset or not an absolute
/// path and Wayland is not reached otherwise; call it before any other thread starts.
pub fn quiet_gpu_loader() -> RuntimeDir {
    let absolute =
        |v: Option<std::ffi::OsString>| v.is_some_and(|v| v.to_string_lossy().starts_with('/'));
    let reaches_wayland = absolute(std::env::var_os("WAYLAND_DISPLAY"))
        || std::env::var_os("WAYLAND_SOCKET").is_some();
    if absolute(std::env::var_os("XDG_RUNTIME_DIR")) || reaches_wayland {
        return RuntimeDir(None);
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir =
        std::env::temp_dir().join(format!("grains-runtime-{}-{stamp:09}", std::process::id()));
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    // A directory of that name made by someone else is not used (`create` fails on it).
    if builder.create(&dir).is_err() || !dir.is_absolute() {
        return RuntimeDir(None);
    }
    std::env::set_var("XDG_RUNTIME_DIR", &dir);
    RuntimeDir(Some(dir))
}
