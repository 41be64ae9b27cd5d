//! `random_fill` into a cylinder or cone frustum (`region = "cylinder"` or `"cone"`): the
//! centres drawn in the region's bounding box and kept where the body lies wholly inside the
//! region, as a drum or hopper of the same shape would hold it.

use super::spec::{BodySpec, S};
use super::values::{finite3, need, non_negative, positive, Ctx};
use super::SceneError;
use glam::Vec3;

/// A filled frustum: radius `small` at `centre − half axis` to `large` at `centre + half axis`
/// (equal for a cylinder).
#[derive(Clone, Copy, Debug)]
pub(super) struct RoundRegion {
    centre: Vec3,
    axis: Vec3,
    small: f32,
    large: f32,
    half: f32,
}

impl RoundRegion {
    /// The round region of generator `g`, `None` for the box of `region_min`/`region_max`
    /// (`region` not given or `"box"`).
    pub(super) fn read(cx: &Ctx, g: &BodySpec, planar: bool) -> Result<Option<Self>, SceneError> {
        let Some(kind) = &g.region else {
            return Ok(None);
        };
        let round = [
            ("region_centre", g.region_centre.as_ref().map(|v| v.span())),
            ("region_axis", g.region_axis.as_ref().map(|v| v.span())),
            ("region_radius", g.region_radius.as_ref().map(|v| v.span())),
            (
                "region_small_radius",
                g.region_small_radius.as_ref().map(|v| v.span()),
            ),
            (
                "region_large_radius",
                g.region_large_radius.as_ref().map(|v| v.span()),
            ),
            ("region_length", g.region_length.as_ref().map(|v| v.span())),
        ];
        let box_keys = [
            ("region_min", g.region_min.as_ref().map(|v| v.span())),
            ("region_max", g.region_max.as_ref().map(|v| v.span())),
        ];
        let refuse = |keys: &[(&str, Option<std::ops::Range<usize>>)], allowed: &[&str]| {
            for (key, span) in keys {
                if let Some(span) = span.as_ref().filter(|_| !allowed.contains(key)) {
                    return Err(cx.err(
                        span.clone(),
                        key,
                        format!(
                            "not used by region \"{}\" (it takes: {})",
                            kind.get_ref(),
                            allowed.join(", ")
                        ),
                    ));
                }
            }
            Ok(())
        };
        let common = ["region_centre", "region_axis", "region_length"];
        match kind.get_ref().as_str() {
            "box" => {
                refuse(&round, &[])?;
                return Ok(None);
            }
            "cylinder" => {
                refuse(&box_keys, &[])?;
                refuse(&round, &[&common[..], &["region_radius"]].concat())?;
            }
            "cone" => {
                refuse(&box_keys, &[])?;
                refuse(
                    &round,
                    &[&common[..], &["region_small_radius", "region_large_radius"]].concat(),
                )?;
            }
            other => {
                return Err(cx.err(
                    kind.span(),
                    "region",
                    format!("must be \"box\", \"cylinder\" or \"cone\", got \"{other}\""),
                ))
            }
        }
        if planar {
            return Err(cx.err(
                kind.span(),
                "region",
                "a cylinder or cone region needs 3-D: in planar mode give region_min and region_max",
            ));
        }
        let at = g.generator.clone();
        let centre = finite3(
            cx,
            need(cx, &g.region_centre, "region_centre", &at)?,
            "region_centre",
        )?;
        let axis_s = need(cx, &g.region_axis, "region_axis", &at)?;
        let axis = finite3(cx, axis_s, "region_axis")?;
        if axis.length() == 0.0 {
            return Err(cx.err(axis_s.span(), "region_axis", "must not be zero"));
        }
        let length = positive(
            cx,
            need(cx, &g.region_length, "region_length", &at)?,
            "region_length",
        )?;
        let (small, large) = if kind.get_ref() == "cylinder" {
            let r = positive(
                cx,
                need(cx, &g.region_radius, "region_radius", &at)?,
                "region_radius",
            )?;
            (r, r)
        } else {
            let small = non_negative(
                cx,
                need(cx, &g.region_small_radius, "region_small_radius", &at)?,
                "region_small_radius",
            )?;
            let large_s: &S<f64> = need(cx, &g.region_large_radius, "region_large_radius", &at)?;
            let large = positive(cx, large_s, "region_large_radius")?;
            if large <= small {
                return Err(cx.err(
                    large_s.span(),
                    "region_large_radius",
                    format!("must exceed region_small_radius = {small}, got {large}"),
                ));
            }
            (small, large)
        };
        Ok(Some(RoundRegion {
            centre,
            axis: axis.normalize(),
            small,
            large,
            half: 0.5 * length,
        }))
    }

    /// The corners of the axis-aligned box around the region.
    pub(super) fn bounds(&self) -> (Vec3, Vec3) {
        let ends = [
            (self.centre - self.half * self.axis, self.small),
            (self.centre + self.half * self.axis, self.large),
        ];
        // A circle of radius R about axis e reaches R √(1 − e_i²) along axis i.
        let reach = |r: f32| {
            r * (Vec3::ONE - self.axis * self.axis)
                .max(Vec3::ZERO)
                .powf(0.5)
        };
        let lo = ends[0].0.min(ends[1].0) - reach(self.large);
        let hi = ends[0].0.max(ends[1].0) + reach(self.large);
        (lo, hi)
    }

    /// True when a body of bounding radius `b` centred at `p` lies wholly inside: its centre at
    /// least b from both ends and from the mantle's generator line ρ = R(s),
    /// (R(s) − ρ)/√(1 + k²) ≥ b with k = dR/ds.
    pub(super) fn holds(&self, p: Vec3, b: f32) -> bool {
        let rel = p - self.centre;
        let s = rel.dot(self.axis);
        let rho = (rel - s * self.axis).length();
        let k = (self.large - self.small) / (2.0 * self.half);
        let radius = 0.5 * (self.small + self.large) + k * s;
        s.abs() <= self.half - b && radius - rho >= b * (1.0 + k * k).sqrt()
    }

    /// The region's volume π (2L/3)(R₁² + R₁R₂ + R₂²) (m³).
    pub(super) fn volume(&self) -> f64 {
        let (a, b) = (f64::from(self.small), f64::from(self.large));
        std::f64::consts::PI * 2.0 * f64::from(self.half) / 3.0 * (a * a + a * b + b * b)
    }
}
