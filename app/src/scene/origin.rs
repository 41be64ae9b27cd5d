//! Where each item of a scene's world was written. The engine checks the world once, when it
//! is built, and names the item it refuses by its index and field ([`BuildError`]); the
//! [`Origins`] kept from parsing turn that back into the file, line and key that produced it.

use super::spec::S;
use super::values::Ctx;
use super::SceneError;
use grains::error::BuildError;
use std::ops::Range;
use std::path::Path;

/// Where one item (a material, a joint, a body generator, …) was written: the line of its
/// table, and the line of each key that set one of the engine's fields.
#[derive(Clone, Debug, Default)]
pub(super) struct Origin {
    /// Line of the item's table (of its first key).
    line: usize,
    /// (engine field, key of the file, line of the key), for the keys written.
    keys: Vec<(&'static str, &'static str, usize)>,
    /// The key at `line` that chooses the values of the fields the file does not write
    /// (`[settings]`' `preset`), if there is one.
    defaults_by: Option<&'static str>,
}

impl Origin {
    /// An item whose table starts at `span` (its first key).
    pub(super) fn new(cx: &Ctx, span: Range<usize>) -> Origin {
        Origin {
            line: cx.line(span.start),
            keys: Vec::new(),
            defaults_by: None,
        }
    }

    /// Says that `key`, the item's first key, chooses the fields the file does not write.
    pub(super) fn defaults_by(self, key: &'static str) -> Origin {
        Origin {
            defaults_by: Some(key),
            ..self
        }
    }

    /// An item the file does not write (the default material): errors point at line 1.
    pub(super) fn unwritten() -> Origin {
        Origin {
            line: 1,
            keys: Vec::new(),
            defaults_by: None,
        }
    }

    /// Records that `key`, if written, sets the engine's `field`.
    pub(super) fn key<T>(
        self,
        cx: &Ctx,
        field: &'static str,
        key: &'static str,
        v: &Option<S<T>>,
    ) -> Origin {
        self.key_at(cx, field, key, v.as_ref().map(|v| v.span()))
    }

    /// Records that `key`, written at `span` (if at all), sets the engine's `field`.
    pub(super) fn key_at(
        mut self,
        cx: &Ctx,
        field: &'static str,
        key: &'static str,
        span: Option<Range<usize>>,
    ) -> Origin {
        if let Some(span) = span {
            self.keys.push((field, key, cx.line(span.start)));
        }
        self
    }

    /// The key and line of the engine's `field`, and what to add to the engine's message: the
    /// first key written for it; else the key that chose its value (`preset`) at its line, or
    /// the field's own name at the item's line, with a note that the file does not write it.
    fn place(&self, field: &'static str) -> (&'static str, usize, Option<String>) {
        if let Some(&(_, key, line)) = self.keys.iter().find(|(f, _, _)| *f == field) {
            return (key, line, None);
        }
        let note = match self.defaults_by {
            Some(by) => format!("the file sets no `{field}`: `{by}` chose it"),
            None => format!("the file sets no `{field}`: it is the default"),
        };
        (self.defaults_by.unwrap_or(field), self.line, Some(note))
    }
}

/// The origins of every item of a scene's world, by the engine's index of the item.
#[derive(Clone, Debug, Default)]
pub(super) struct Origins {
    /// `[settings]`.
    pub(super) settings: Origin,
    /// `[[materials]]`, in order (the default material if the file has none).
    pub(super) materials: Vec<Origin>,
    /// `[[containers]]`: the range of the walls each one made.
    pub(super) walls: Vec<(Range<usize>, Origin)>,
    /// `[[meshes]]`, in order.
    pub(super) meshes: Vec<Origin>,
    /// `[[bodies]]` generators: the range of the bodies each one made.
    pub(super) bodies: Vec<(Range<usize>, Origin)>,
    /// `[[joints]]`, in order.
    pub(super) joints: Vec<Origin>,
    /// `[[springs]]`, in order.
    pub(super) springs: Vec<Origin>,
    /// `[[forces]]`, in order.
    pub(super) forces: Vec<Origin>,
    /// `[[insert]]`, in order.
    pub(super) inserts: Vec<Origin>,
    /// `[[sink]]`, in order.
    pub(super) sinks: Vec<Origin>,
}

impl Origins {
    /// The engine's refusal `e` of the world built from `file`, at the line and key of the item
    /// it names; errors about no item (threads, the GPU) name the file alone.
    pub(super) fn refusal(&self, file: &Path, e: BuildError) -> SceneError {
        let named = match &e {
            BuildError::Settings { field, .. } => Some((Some(&self.settings), *field)),
            BuildError::Material {
                material, field, ..
            } => Some((self.materials.get(*material), *field)),
            BuildError::Wall { wall, field, .. } => Some((within(&self.walls, *wall), *field)),
            BuildError::Body { body, field, .. } => Some((within(&self.bodies, *body), *field)),
            BuildError::Mesh { mesh, field, .. } => Some((self.meshes.get(*mesh), *field)),
            BuildError::Joint { joint, field, .. } => Some((self.joints.get(*joint), *field)),
            BuildError::Spring { spring, field, .. } => Some((self.springs.get(*spring), *field)),
            BuildError::Force { force, field, .. } => Some((self.forces.get(*force), *field)),
            BuildError::Insert { insert, field, .. } => Some((self.inserts.get(*insert), *field)),
            BuildError::Sink { sink, field, .. } => Some((self.sinks.get(*sink), *field)),
            BuildError::Threads { .. }
            | BuildError::NoGpuAdapter(_)
            | BuildError::Gpu(_)
            | BuildError::Distributed(_) => None,
        };
        match named {
            Some((Some(origin), field)) => {
                let (key, line, note) = origin.place(field);
                SceneError::Invalid {
                    file: file.to_path_buf(),
                    line,
                    key: key.to_string(),
                    problem: match note {
                        Some(note) => format!("{e} ({note})"),
                        None => e.to_string(),
                    },
                }
            }
            _ => SceneError::Build {
                file: file.to_path_buf(),
                source: e,
            },
        }
    }
}

/// The origin of item `i` among items made in ranges (the walls of a container, the bodies of
/// a generator).
fn within(made: &[(Range<usize>, Origin)], i: usize) -> Option<&Origin> {
    made.iter().find(|(r, _)| r.contains(&i)).map(|(_, o)| o)
}
