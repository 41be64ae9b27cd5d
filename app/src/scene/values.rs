//! Reading one value of a scene file: the file and its text for error reports ([`Ctx`]), and
//! the checks that only the file format knows (a TOML number that must be a count, a key that
//! a kind does not take, a key required by another).

use super::spec::{S, V3};
use super::SceneError;
use crate::one_line::shown;
use glam::Vec3;
use std::ops::Range;
use std::path::Path;

/// The most characters of a key shown in an error message.
const MAX_KEY_CHARS: usize = 80;

/// The most characters of a problem shown in an error message (it may quote a value of the
/// file: a name, a kind).
const MAX_PROBLEM_CHARS: usize = 240;

/// Context for error messages: the file, its text, and the span → line conversion.
pub(super) struct Ctx<'a> {
    /// The scene file.
    pub(super) file: &'a Path,
    /// Its text.
    pub(super) src: &'a str,
}

impl Ctx<'_> {
    /// The file a scene names by `relative`, a path relative to the scene file's folder.
    pub(super) fn beside(&self, relative: &str) -> std::path::PathBuf {
        self.file
            .parent()
            .unwrap_or(std::path::Path::new(""))
            .join(relative)
    }

    /// The 1-based line of byte `pos`.
    pub(super) fn line(&self, pos: usize) -> usize {
        self.src[..pos.min(self.src.len())].matches('\n').count() + 1
    }

    /// The error "`key` at the line of `span`: `problem`".
    pub(super) fn err(
        &self,
        span: Range<usize>,
        key: &str,
        problem: impl Into<String>,
    ) -> SceneError {
        SceneError::Invalid {
            file: self.file.to_path_buf(),
            line: self.line(span.start),
            key: shown(key, MAX_KEY_CHARS),
            problem: shown(&problem.into(), MAX_PROBLEM_CHARS),
        }
    }

    /// A toml deserialisation error → line, key and message.
    pub(super) fn toml_error(&self, e: &toml::de::Error) -> SceneError {
        let msg = e.message().trim().to_string();
        let span = e.span().unwrap_or(0..0);
        let line = self.line(span.start);
        // The key: the first `name` in backticks of the message (unknown / missing field), else
        // the text left of `=` on the offending line, else the span's text.
        let named = [
            "unknown field",
            "missing field",
            "duplicate key",
            "unknown variant",
        ]
        .iter()
        .any(|p| msg.starts_with(p));
        let key = named
            .then(|| msg.split('`').nth(1).map(str::to_string))
            .flatten()
            .or_else(|| {
                // The key written last before the value on its line (one of an inline table's).
                let at = span.start.min(self.src.len());
                let before = self.src.get(..at).unwrap_or("");
                let left = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
                let (k, _) = left.rsplit_once('=')?;
                let k = k
                    .rsplit([',', '{'])
                    .next()
                    .unwrap_or(k)
                    .trim()
                    .trim_matches('"');
                (!k.is_empty()).then(|| k.to_string())
            })
            .or_else(|| {
                let text = self.src.lines().nth(line - 1).unwrap_or("");
                text.split_once('=')
                    .map(|(k, _)| k.trim().trim_matches('"').to_string())
            })
            .unwrap_or_else(|| {
                self.src
                    .get(span.clone())
                    .unwrap_or("")
                    .trim()
                    .chars()
                    .take(40)
                    .collect()
            });
        SceneError::Invalid {
            file: self.file.to_path_buf(),
            line,
            key: shown(&key, MAX_KEY_CHARS),
            problem: shown(&msg, MAX_PROBLEM_CHARS),
        }
    }
}

/// True when `x` is finite and survives the cast to the engine's `f32`: 0, or a magnitude in
/// [`f32::MIN_POSITIVE`, `f32::MAX`] (`1e39` would become infinite, `1e-300` zero).
fn fits_f32(x: f64) -> bool {
    x == 0.0 || (x.is_finite() && (f32::MIN_POSITIVE as f64..=f32::MAX as f64).contains(&x.abs()))
}

/// The message for a number outside the engine's single precision.
fn out_of_f32(x: impl std::fmt::Debug) -> String {
    format!(
        "must be finite and 0 or of magnitude between {:e} and {:e} (the engine's single precision), got {x:?}",
        f32::MIN_POSITIVE,
        f32::MAX
    )
}

/// A finite number within the engine's single precision (see `fits_f32`).
pub(super) fn number(cx: &Ctx, v: &S<f64>, key: &str) -> Result<f32, SceneError> {
    let x = *v.get_ref();
    if fits_f32(x) {
        Ok(x as f32)
    } else {
        Err(cx.err(v.span(), key, out_of_f32(x)))
    }
}

/// The value of an optional number (see [`number`]), `default` when it is not written.
pub(super) fn number_or(
    cx: &Ctx,
    v: &Option<S<f64>>,
    key: &str,
    default: f32,
) -> Result<f32, SceneError> {
    v.as_ref().map_or(Ok(default), |v| number(cx, v, key))
}

/// A positive, finite number.
pub(super) fn positive(cx: &Ctx, v: &S<f64>, key: &str) -> Result<f32, SceneError> {
    let x = *v.get_ref();
    if x > 0.0 && fits_f32(x) {
        Ok(x as f32)
    } else {
        Err(cx.err(
            v.span(),
            key,
            format!(
                "must be positive and finite, between {:e} and {:e}, got {x}",
                f32::MIN_POSITIVE,
                f32::MAX
            ),
        ))
    }
}

/// A finite number ≥ 0.
pub(super) fn non_negative(cx: &Ctx, v: &S<f64>, key: &str) -> Result<f32, SceneError> {
    let x = *v.get_ref();
    if x >= 0.0 && fits_f32(x) {
        Ok(x as f32)
    } else {
        Err(cx.err(
            v.span(),
            key,
            format!(
                "must be finite and ≥ 0, 0 or between {:e} and {:e}, got {x}",
                f32::MIN_POSITIVE,
                f32::MAX
            ),
        ))
    }
}

/// A count of at least `min`.
pub(super) fn count(cx: &Ctx, v: &S<i64>, key: &str, min: i64) -> Result<u64, SceneError> {
    let x = *v.get_ref();
    if x >= min {
        Ok(x as u64)
    } else {
        Err(cx.err(v.span(), key, format!("must be at least {min}, got {x}")))
    }
}

/// A count that must fit a `u32` (sweeps, passes).
pub(super) fn count_u32(cx: &Ctx, v: &S<i64>, key: &str, min: i64) -> Result<u32, SceneError> {
    u32::try_from(count(cx, v, key, min)?).map_err(|_| {
        cx.err(
            v.span(),
            key,
            format!("must be at most {}, got {}", u32::MAX, v.get_ref()),
        )
    })
}

/// A vector of finite numbers.
pub(super) fn finite3(cx: &Ctx, v: &S<V3>, key: &str) -> Result<Vec3, SceneError> {
    let x = v.get_ref();
    if x.iter().all(|&c| fits_f32(c)) {
        Ok(Vec3::new(x[0] as f32, x[1] as f32, x[2] as f32))
    } else {
        Err(cx.err(v.span(), key, out_of_f32(x)))
    }
}

/// The value of `key`, which `owner` (a kind, a generator) requires.
pub(super) fn need<'a, T>(
    cx: &Ctx,
    v: &'a Option<S<T>>,
    key: &str,
    owner: &S<String>,
) -> Result<&'a S<T>, SceneError> {
    v.as_ref().ok_or_else(|| {
        cx.err(
            owner.span(),
            key,
            format!("missing: required for `{}`", owner.get_ref()),
        )
    })
}

/// Fails when a key that `kind` does not use is given.
pub(super) fn only(
    cx: &Ctx,
    kind: &S<String>,
    given: &[(&str, Option<Range<usize>>)],
    allowed: &[&str],
) -> Result<(), SceneError> {
    for (key, span) in given {
        if let Some(span) = span {
            if !allowed.contains(key) {
                return Err(cx.err(
                    span.clone(),
                    key,
                    format!(
                        "not used by `{}` (it takes: {})",
                        kind.get_ref(),
                        allowed.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The span of a value, if it was written.
pub(super) fn sp<T>(v: &Option<S<T>>) -> Option<Range<usize>> {
    v.as_ref().map(|s| s.span())
}
