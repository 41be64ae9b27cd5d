//! Ctrl-C (SIGINT) and SIGTERM in `grains run` and `grains bench`: the first asks the run to
//! stop after the step in progress, write a checkpoint and the outputs due, and say how to
//! resume (the bench: to print the figures of the steps taken); a second ends the process at
//! once.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that asked the run to stop (0: none yet).
static ASKED: AtomicI32 = AtomicI32::new(0);

/// The handler: records the first signal; a second one exits at once (only async-signal-safe
/// calls here: an atomic swap and `_exit`).
extern "C" fn on_signal(signal: libc::c_int) {
    if ASKED.swap(signal, Ordering::SeqCst) != 0 {
        // SAFETY: `_exit` is async-signal-safe; it ends the process without unwinding.
        unsafe { libc::_exit(128 + signal) };
    }
}

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only touches an atomic and calls `_exit`.
        unsafe { libc::signal(signal, handler) };
    }
}

/// Whether a signal asked the run to stop (the runner's interrupt hook; false before
/// [`install`]).
pub fn asked() -> bool {
    signal().is_some()
}

/// The signal that asked the run to stop, if any.
pub fn signal() -> Option<i32> {
    match ASKED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The signal's name, for the message that says how to resume.
pub fn name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "Ctrl-C (SIGINT)",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}
