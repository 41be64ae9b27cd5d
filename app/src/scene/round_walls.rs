//! The `[[containers]]` kinds with round edges: `cone` (a frustum, inside or outside, turning),
//! `disk` and `annulus` (flat, with rims), the `caps` of a cylinder or cone, and every
//! container's active window (`active_from`, `active_until`).

use super::spec::{ContainerSpec, S};
use super::values::{finite3, need, non_negative, number_or, positive, Ctx};
use super::SceneError;
use glam::Vec3;
use grains::geometry::WallDesc;

/// A unit vector from `key`'s written vector (a zero one has no direction).
fn direction(cx: &Ctx, v: &S<[f64; 3]>, key: &str) -> Result<Vec3, SceneError> {
    let d = finite3(cx, v, key)?;
    if d.length() == 0.0 {
        return Err(cx.err(v.span(), key, "must not be zero"));
    }
    Ok(d.normalize())
}

/// `kind = "cone"`: the frustum about `axis` through `centre`, `small_radius` at
/// `centre − length/2 · axis` to `large_radius` at the other end, grains `inside` (default) or
/// outside, turning at `angular_velocity`.
pub(super) fn cone(cx: &Ctx, c: &ContainerSpec) -> Result<WallDesc, SceneError> {
    let centre = finite3(cx, need(cx, &c.centre, "centre", &c.kind)?, "centre")?;
    let axis = direction(cx, need(cx, &c.axis, "axis", &c.kind)?, "axis")?;
    let small = non_negative(
        cx,
        need(cx, &c.small_radius, "small_radius", &c.kind)?,
        "small_radius",
    )?;
    let large_s = need(cx, &c.large_radius, "large_radius", &c.kind)?;
    let large = positive(cx, large_s, "large_radius")?;
    if large <= small {
        return Err(cx.err(
            large_s.span(),
            "large_radius",
            format!("must exceed small_radius = {small} (the small end is at centre − length/2 · axis: flip the axis for a cone widening the other way; equal radii make a cylinder), got {large}"),
        ));
    }
    let length = positive(cx, need(cx, &c.length, "length", &c.kind)?, "length")?;
    let inside = c.inside.as_ref().is_none_or(|b| *b.get_ref());
    let omega = number_or(cx, &c.angular_velocity, "angular_velocity", 0.0)?;
    Ok(WallDesc::cone(centre, axis, small, large, 0.5 * length, inside).rotating(omega))
}

/// `kind = "disk"` or `"annulus"`: the flat disk of `radius` about `centre` facing `normal`,
/// with a central hole of `inner_radius` (required for an annulus).
pub(super) fn disk(cx: &Ctx, c: &ContainerSpec) -> Result<WallDesc, SceneError> {
    let centre = finite3(cx, need(cx, &c.centre, "centre", &c.kind)?, "centre")?;
    let normal = direction(cx, need(cx, &c.normal, "normal", &c.kind)?, "normal")?;
    let radius = positive(cx, need(cx, &c.radius, "radius", &c.kind)?, "radius")?;
    let inner = match (&c.inner_radius, c.kind.get_ref() == "annulus") {
        (Some(v), _) => hole(cx, v, "inner_radius", radius)?,
        (None, true) => {
            need(cx, &c.inner_radius, "inner_radius", &c.kind)?;
            0.0
        }
        (None, false) => 0.0,
    };
    Ok(WallDesc::disk(centre, normal, radius, inner))
}

/// A hole's radius `v`: at least 0 and below the radius `outer` of its disk.
fn hole(cx: &Ctx, v: &S<f64>, key: &str, outer: f32) -> Result<f32, SceneError> {
    let r = non_negative(cx, v, key)?;
    if r >= outer {
        return Err(cx.err(
            v.span(),
            key,
            format!("must be below the radius {outer} of its disk, got {r}"),
        ));
    }
    Ok(r)
}

/// The caps of a cylinder or cone `mantle` that `caps` asks for, with `cap_hole`'s hole.
pub(super) fn caps(
    cx: &Ctx,
    c: &ContainerSpec,
    mantle: &WallDesc,
) -> Result<Vec<WallDesc>, SceneError> {
    let ends: &[bool] = match c.caps.as_ref().map(|s| s.get_ref().as_str()) {
        None | Some("none") => &[],
        Some("low") => &[false],
        Some("high") => &[true],
        Some("both") => &[false, true],
        Some(other) => {
            return Err(cx.err(
                c.caps.as_ref().unwrap().span(),
                "caps",
                format!("must be \"none\", \"low\", \"high\" or \"both\", got \"{other}\""),
            ))
        }
    };
    if ends.is_empty() {
        if let Some(h) = &c.cap_hole {
            return Err(cx.err(
                h.span(),
                "cap_hole",
                "has no effect without caps: give `caps` too, or remove it",
            ));
        }
    }
    let mut walls = Vec::new();
    for &large_end in ends {
        let cap = mantle.end_cap(large_end, 0.0).expect("a cylinder or cone");
        let grains::WallShape::Disk { outer, .. } = cap.shape else {
            unreachable!("end_cap makes disks")
        };
        let inner = match &c.cap_hole {
            Some(v) => hole(cx, v, "cap_hole", outer)?,
            None => 0.0,
        };
        walls.push(WallDesc {
            shape: grains::WallShape::Disk { outer, inner },
            ..cap
        });
    }
    Ok(walls)
}

/// The container's active window: `active_from` (default −∞) to `active_until` (default ∞),
/// seconds of simulated time, `until` after `from`.
pub(super) fn window(cx: &Ctx, c: &ContainerSpec) -> Result<(f64, f64), SceneError> {
    let from = match &c.active_from {
        Some(v) => seconds(cx, v, "active_from")?,
        None => f64::NEG_INFINITY,
    };
    let until = match &c.active_until {
        Some(v) => {
            let until = seconds(cx, v, "active_until")?;
            if until <= 0.0 {
                return Err(cx.err(
                    v.span(),
                    "active_until",
                    format!("must be after the run's start (t = 0): with {until} s the wall would never be on"),
                ));
            }
            if until <= from {
                return Err(cx.err(
                    v.span(),
                    "active_until",
                    format!("must be after active_from = {from} s, got {until} s"),
                ));
            }
            until
        }
        None => f64::INFINITY,
    };
    Ok((from, until))
}

/// A finite time (s).
fn seconds(cx: &Ctx, v: &S<f64>, key: &str) -> Result<f64, SceneError> {
    let t = *v.get_ref();
    if t.is_finite() {
        Ok(t)
    } else {
        Err(cx.err(v.span(), key, format!("must be a finite time (s), got {t}")))
    }
}
