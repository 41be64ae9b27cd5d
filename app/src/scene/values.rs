//! Reading one value of a scene file: the file and its text for error reports ([`Ctx`]), and
//! the checks that only the file format knows (a TOML number that must be a count, a key that
//! a kind does not take, a key required by another).

use super::spec::{S, V3};
use super::SceneError;
use glam::Vec3;
use std::ops::Range;
use std::path::Path;

/// Context for error messages: the file, its text, and the span → line conversion.
pub(super) struct Ctx<'a> {
    /// The scene file.
    pub(super) file: &'a Path,
    /// Its text.
    pub(super) src: &'a str,
}

impl Ctx<'_> {
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
            key: key.to_string(),
            problem: problem.into(),
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
            key,
            problem: msg,
        }
    }
}

/// A vector as written, in the engine's precision.
pub(super) fn v3(v: &V3) -> Vec3 {
    Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
}

/// A positive, finite number.
pub(super) fn positive(cx: &Ctx, v: &S<f64>, key: &str) -> Result<f32, SceneError> {
    let x = *v.get_ref();
    if x.is_finite() && x > 0.0 {
        Ok(x as f32)
    } else {
        Err(cx.err(
            v.span(),
            key,
            format!("must be positive and finite, got {x}"),
        ))
    }
}

/// A finite number ≥ 0.
pub(super) fn non_negative(cx: &Ctx, v: &S<f64>, key: &str) -> Result<f32, SceneError> {
    let x = *v.get_ref();
    if x.is_finite() && x >= 0.0 {
        Ok(x as f32)
    } else {
        Err(cx.err(v.span(), key, format!("must be finite and ≥ 0, got {x}")))
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
    if x.iter().all(|c| c.is_finite()) {
        Ok(v3(x))
    } else {
        Err(cx.err(v.span(), key, format!("must be finite, got {x:?}")))
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
