//! `[periodic]`: periodic boundaries along x and/or y (`x = [lo, hi]`, `y = [lo, hi]`), the
//! Lees–Edwards shear of a cell periodic along both (`shear_rate`), and the
//! check that no two bodies overlap across a seam at the start (the plain overlap check of
//! `placement` measures straight distances only).

use super::origin::Origin;
use super::spec::{PeriodicSpec, S};
use super::values::{number, Ctx};
use super::SceneError;
use grains::body::Body;
use grains::Periodic;

/// Reads `[periodic]` (none when the table is absent): each range finite in single precision
/// with hi > lo, and at least one axis written; `shear_rate` finite, with both x and y.
pub(super) fn periodic(cx: &Ctx, spec: &Option<S<PeriodicSpec>>) -> Result<Periodic, SceneError> {
    let Some(spec) = spec else {
        return Ok(Periodic::NONE);
    };
    let range = |v: &Option<S<[f64; 2]>>, key: &str| -> Result<Option<(f32, f32)>, SceneError> {
        let Some(v) = v else { return Ok(None) };
        let [lo, hi] = *v.get_ref();
        let fits = |x: f64| x.is_finite() && x.abs() <= f32::MAX as f64;
        if !(fits(lo) && fits(hi) && (hi as f32) > (lo as f32)) {
            return Err(cx.err(
                v.span(),
                key,
                format!("must be [lo, hi] with finite lo < hi (m), got [{lo}, {hi}]"),
            ));
        }
        Ok(Some((lo as f32, hi as f32)))
    };
    let mut p = Periodic {
        x: range(&spec.get_ref().x, "periodic.x")?,
        y: range(&spec.get_ref().y, "periodic.y")?,
        ..Periodic::NONE
    };
    if let Some(rate) = &spec.get_ref().shear_rate {
        let key = "periodic.shear_rate";
        p.shear_rate = number(cx, rate, key)?;
        if p.x.is_none() || p.y.is_none() {
            return Err(cx.err(
                rate.span(),
                key,
                "shears the cell along x with its gradient along y: write both x = [lo, hi] and y = [lo, hi]",
            ));
        }
    }
    if !p.is_on() {
        return Err(cx.err(
            spec.span(),
            "periodic",
            "names no axis: write x = [lo, hi] and/or y = [lo, hi], or leave the table out",
        ));
    }
    Ok(p)
}

/// The settings' origin with the `[periodic]` keys that set the engine's `periodic` field.
pub(super) fn origin(cx: &Ctx, spec: &Option<S<PeriodicSpec>>, settings: Origin) -> Origin {
    let Some(spec) = spec else { return settings };
    let written = spec.get_ref();
    settings
        .key(cx, "periodic", "periodic.x", &written.x)
        .key(cx, "periodic", "periodic.y", &written.y)
        .key(
            cx,
            "periodic.shear_rate",
            "periodic.shear_rate",
            &written.shear_rate,
        )
        .key_at(cx, "periodic", "periodic", Some(spec.span()))
}

/// The worst overlap, more than `tol` × the smaller radius, of two bodies measured by their
/// minimum image across a seam: bodies within 2 r_max of a periodic axis' lower side against
/// those within 2 r_max of its upper side (the only pairs whose images can touch).
fn seam_overlap(bodies: &[Body], periodic: &Periodic, tol: f32) -> Option<(usize, usize, f32)> {
    let reach = |b: &Body| b.shape.bounding_radius(b.radius);
    let band = 2.0 * bodies.iter().map(reach).fold(0.0f32, f32::max);
    let mut worst: Option<(usize, usize, f32)> = None;
    for (axis, range) in periodic.axes().into_iter().enumerate() {
        let Some((lo, hi)) = range else { continue };
        let near = |side: f32| -> Vec<usize> {
            (0..bodies.len())
                .filter(|&i| (bodies[i].position[axis] - side).abs() <= band)
                .collect()
        };
        let (low, high) = (near(lo), near(hi));
        for &i in &low {
            for &j in high.iter().filter(|&&j| j != i) {
                let (a, b) = (&bodies[i], &bodies[j]);
                let d = periodic.minimum_image(a.position - b.position).length();
                let overlap = reach(a) + reach(b) - d;
                if overlap > tol * a.radius.min(b.radius) && worst.is_none_or(|w| overlap > w.2) {
                    worst = Some((i.min(j), i.max(j), overlap));
                }
            }
        }
    }
    worst
}

/// Refuses bodies that overlap across a seam at the start, naming the `[periodic]` table.
pub(super) fn check_seams(
    cx: &Ctx,
    spec: &Option<S<PeriodicSpec>>,
    periodic: &Periodic,
    bodies: &[Body],
    tol: f32,
) -> Result<(), SceneError> {
    let Some(spec) = spec else { return Ok(()) };
    match seam_overlap(bodies, periodic, tol) {
        None => Ok(()),
        Some((i, j, overlap)) => Err(cx.err(
            spec.span(),
            "periodic",
            format!(
                "bodies {i} and {j} overlap by {overlap:.3e} m across a periodic seam at the start (more than {tol} of the smaller radius): keep fills a radius inside the periodic range, or make the lattice spacing divide the period"
            ),
        )),
    }
}
