//! `[fields]`: coarse-grained continuum fields (`grains::fields`) written every so many steps, on
//! a grid (`min`, `max`, `spacing`: `fields/fields_<step>.vti`) or along a profile (`axis`,
//! `from`, `to`, `spacing`, `area`: `fields/profile_<step>.csv`), smoothed by `kernel` of size
//! `width`.

use super::spec::{FieldsSpec, S};
use super::values::{count, finite3, number, positive, sp, Ctx};
use super::SceneError;
use grains::fields::{Kernel, Sampling};

/// What `[fields]` asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldsOutput {
    /// Steps between outputs.
    pub every: u64,
    /// Steps between the samples each output averages ([`grains::fields::FieldsAverage`]):
    /// the output at step s is the mean of the states at s − every + average_every, …, s
    /// (step 0's, that state alone); `every` for one sample, the state itself.
    pub average_every: u64,
    /// The smoothing kernel.
    pub kernel: Kernel,
    /// Where the fields are sampled.
    pub sampling: Sampling,
    /// The line of the `[fields]` table, for refusals after the scene is read.
    pub line: usize,
}

/// The most sample points an output may hold (a grid of 200³).
const MAX_POINTS: usize = 8_000_000;

/// Reads `[fields]` (none when the table is absent); `every` defaults to `frames_every`.
pub(super) fn fields(
    cx: &Ctx,
    spec: &Option<S<FieldsSpec>>,
    frames_every: u64,
) -> Result<Option<FieldsOutput>, SceneError> {
    let Some(spec) = spec else { return Ok(None) };
    let (at, f) = (spec.span(), spec.get_ref());
    let missing = |key: &str, why: &str| cx.err(at.clone(), key, format!("missing: {why}"));
    let every = match &f.every {
        Some(v) => count(cx, v, "fields.every", 1)?,
        None => frames_every,
    };
    let average_every = match &f.average_every {
        Some(v) => {
            let m = count(cx, v, "fields.average_every", 1)?;
            if !every.is_multiple_of(m) {
                return Err(cx.err(
                    v.span(),
                    "fields.average_every",
                    format!("must divide `every` ({every} steps), got {m}"),
                ));
            }
            m
        }
        None => every,
    };
    let width = match &f.width {
        Some(v) => positive(cx, v, "fields.width")?,
        None => return Err(missing("fields.width", "the kernel's size (m)")),
    };
    let kernel = match f.kernel.as_ref().map(|k| (k.span(), k.get_ref().as_str())) {
        None | Some((_, "lucy")) => Kernel::Lucy { cutoff: width },
        Some((_, "gaussian")) => Kernel::Gaussian { width },
        Some((span, other)) => {
            return Err(cx.err(
                span,
                "fields.kernel",
                format!("must be \"lucy\" or \"gaussian\", got {other:?}"),
            ))
        }
    };
    let spacing = match &f.spacing {
        Some(v) => (positive(cx, v, "fields.spacing")?, v.span()),
        None => {
            return Err(missing(
                "fields.spacing",
                "the distance between samples (m)",
            ))
        }
    };
    let refuse = |keys: &[(&str, Option<std::ops::Range<usize>>)], what: &str| match keys
        .iter()
        .find_map(|(k, s)| Some((k, s.clone()?)))
    {
        Some((key, span)) => Err(cx.err(span, key, format!("not used by {what}"))),
        None => Ok(()),
    };
    let sampling = match &f.axis {
        Some(axis) => {
            refuse(
                &[("fields.min", sp(&f.min)), ("fields.max", sp(&f.max))],
                "a profile (`axis` is given; a grid takes min, max and spacing)",
            )?;
            let k = match axis.get_ref().as_str() {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                other => {
                    return Err(cx.err(
                        axis.span(),
                        "fields.axis",
                        format!("must be \"x\", \"y\" or \"z\", got {other:?}"),
                    ))
                }
            };
            let why = "a profile (`axis`) needs from, to, spacing and area";
            let need = |key: &str| missing(key, why);
            let from_value = f.from.as_ref().ok_or_else(|| need("fields.from"))?;
            let from = number(cx, from_value, "fields.from")?;
            let to_value = f.to.as_ref().ok_or_else(|| need("fields.to"))?;
            let to = number(cx, to_value, "fields.to")?;
            if to < from {
                return Err(cx.err(
                    to_value.span(),
                    "fields.to",
                    format!("must be at least `from` ({from} m), got {to} m"),
                ));
            }
            let area_value = f.area.as_ref().ok_or_else(|| need("fields.area"))?;
            let area = positive(cx, area_value, "fields.area")?;
            Sampling::Profile {
                axis: k,
                from,
                spacing: spacing.0,
                count: samples(from, to, spacing.0),
                area,
            }
        }
        None => {
            refuse(
                &[
                    ("fields.from", sp(&f.from)),
                    ("fields.to", sp(&f.to)),
                    ("fields.area", sp(&f.area)),
                ],
                "a grid (no `axis`; a profile takes axis, from, to, spacing and area)",
            )?;
            let corner = |v: &Option<S<[f64; 3]>>, key: &str| match v {
                Some(v) => finite3(cx, v, key),
                None => Err(missing(
                    key,
                    "a grid needs min, max and spacing (or give `axis` for a profile)",
                )),
            };
            let (lo, hi) = (corner(&f.min, "fields.min")?, corner(&f.max, "fields.max")?);
            if let Some(k) = (0..3).find(|&k| hi[k] < lo[k]) {
                return Err(cx.err(
                    sp(&f.max).unwrap_or(at.clone()),
                    "fields.max",
                    format!(
                        "must be at least `min` along every axis, got {} below {} along axis {k}",
                        hi[k], lo[k]
                    ),
                ));
            }
            let count = [0, 1, 2].map(|k| samples(lo[k], hi[k], spacing.0));
            Sampling::Grid {
                origin: lo,
                spacing: grains::Vec3::splat(spacing.0),
                count,
            }
        }
    };
    if sampling.len() > MAX_POINTS {
        return Err(cx.err(
            spacing.1,
            "fields.spacing",
            format!(
                "gives {} samples, more than the {MAX_POINTS} an output may hold: widen the spacing",
                sampling.len()
            ),
        ));
    }
    Ok(Some(FieldsOutput {
        every,
        average_every,
        kernel,
        sampling,
        line: cx.line(at.start),
    }))
}

/// The samples from `from` to `to` (m) `spacing` apart, the first at `from` (`usize::MAX`
/// where they do not fit).
fn samples(from: f32, to: f32, spacing: f32) -> usize {
    let steps = ((to as f64 - from as f64) / spacing as f64 + 1e-6).floor();
    (steps as usize).saturating_add(1)
}
