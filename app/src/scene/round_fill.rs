//! `random_fill` into a cylinder or cone frustum (`region = "cylinder"` or `"cone"`): the
//! keys read into the library's [`FillRegion`], whose centres are drawn in the region's
//! bounding box and kept where the body lies wholly inside the region, as a drum or hopper of
//! the same shape would hold it.

use super::generators::fill_error;
use super::spec::{BodySpec, S};
use super::values::{finite3, need, non_negative, positive, Ctx};
use super::SceneError;
use grains::fill::FillRegion;

/// The round region of generator `g`, `None` for the box of `region_min`/`region_max`
/// (`region` not given or `"box"`). (Planar mode refuses a round one with the fill,
/// [`grains::fill::RandomFill::check`].)
pub(super) fn round_region(cx: &Ctx, g: &BodySpec) -> Result<Option<FillRegion>, SceneError> {
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
    let at = g.generator.clone();
    let centre = finite3(
        cx,
        need(cx, &g.region_centre, "region_centre", &at)?,
        "region_centre",
    )?;
    let axis = finite3(
        cx,
        need(cx, &g.region_axis, "region_axis", &at)?,
        "region_axis",
    )?;
    let length = positive(
        cx,
        need(cx, &g.region_length, "region_length", &at)?,
        "region_length",
    )?;
    let region = if kind.get_ref() == "cylinder" {
        let r = positive(
            cx,
            need(cx, &g.region_radius, "region_radius", &at)?,
            "region_radius",
        )?;
        FillRegion::cylinder(centre, axis, r, length)
    } else {
        let small = non_negative(
            cx,
            need(cx, &g.region_small_radius, "region_small_radius", &at)?,
            "region_small_radius",
        )?;
        let large_s: &S<f64> = need(cx, &g.region_large_radius, "region_large_radius", &at)?;
        let large = positive(cx, large_s, "region_large_radius")?;
        FillRegion::cone(centre, axis, small, large, length)
    };
    region.map(Some).map_err(|e| fill_error(cx, g, e))
}
