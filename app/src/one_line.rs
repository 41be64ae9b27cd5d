//! User-supplied text (a path, a key, a value, a reader's message) made fit for a one-line
//! error: control characters escaped and the length bounded.

use std::path::Path;

/// `text` as one line of at most `max` characters: control characters (newlines, escapes)
/// written as escapes (`\n`, `\u{1b}`), and `…` in place of the rest of a longer text.
pub(crate) fn shown(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `path` for an error line: control characters written as escapes.
pub(crate) fn path_shown(path: &Path) -> String {
    shown(&path.display().to_string(), usize::MAX)
}
