//! `[[bonds]]`: bonds made at build between the grains of a body group whose surfaces are at
//! most `gap` apart (`WorldBuilder::bond_neighbours`), each an elastic fixed joint of the
//! table's stiffness and damping, breaking at the table's strengths where it gives any. The
//! engine checks the values when the world is built.

use super::origin::{Origin, Origins};
use super::spec::BondSpec;
use super::values::{non_negative, number, number_or, positive, Ctx};
use super::{Group, SceneError};
use grains::{BondStiffness, BondStrength, WorldBuilder};

/// Adds each table's bonds to `world` (after every other joint), one origin per bond.
pub(super) fn bonds(
    cx: &Ctx,
    specs: &[BondSpec],
    groups: &[Group],
    world: &mut WorldBuilder,
    origins: &mut Origins,
) -> Result<(), SceneError> {
    for spec in specs {
        let group = groups
            .iter()
            .find(|g| &g.name == spec.group.get_ref())
            .ok_or_else(|| {
                cx.err(
                    spec.group.span(),
                    "group",
                    format!("no body group named \"{}\"", spec.group.get_ref()),
                )
            })?;
        let (linear, angular) = (
            number(cx, &spec.stiffness, "stiffness")?,
            number(cx, &spec.angular_stiffness, "angular_stiffness")?,
        );
        let stiffness = BondStiffness {
            linear,
            shear: number_or(cx, &spec.shear_stiffness, "shear_stiffness", linear)?,
            linear_damping: number_or(cx, &spec.damping, "damping", 0.0)?,
            angular,
            twisting: number_or(cx, &spec.twisting_stiffness, "twisting_stiffness", angular)?,
            angular_damping: number_or(cx, &spec.angular_damping, "angular_damping", 0.0)?,
        };
        let gap = match &spec.gap {
            Some(g) => non_negative(cx, g, "gap")?,
            None => 0.0,
        };
        let strength = strength(cx, spec)?;
        let added = world
            .breakable_bonds(group.range.clone(), gap, stiffness, strength)
            .map_err(|e| cx.err(spec.group.span(), "bonds", e.to_string()))?;
        let stiffness_span = Some(spec.stiffness.span());
        let angular_span = Some(spec.angular_stiffness.span());
        for _ in 0..added {
            origins.joints.push(
                Origin::new(cx, spec.group.span())
                    .key_at(cx, "stiffness", "stiffness", stiffness_span.clone())
                    .key_at(
                        cx,
                        "angular_stiffness",
                        "angular_stiffness",
                        angular_span.clone(),
                    )
                    .key(
                        cx,
                        "shear_stiffness",
                        "shear_stiffness",
                        &spec.shear_stiffness,
                    )
                    .key(
                        cx,
                        "twisting_stiffness",
                        "twisting_stiffness",
                        &spec.twisting_stiffness,
                    )
                    .key(cx, "damping", "damping", &spec.damping)
                    .key(
                        cx,
                        "angular_damping",
                        "angular_damping",
                        &spec.angular_damping,
                    ),
            );
        }
    }
    Ok(())
}

/// The table's strengths, each infinite where not written; `None` when none is written.
fn strength(cx: &Ctx, spec: &BondSpec) -> Result<Option<BondStrength>, SceneError> {
    let keys = [
        (&spec.tensile_strength, "tensile_strength"),
        (&spec.shear_strength, "shear_strength"),
        (&spec.bending_strength, "bending_strength"),
        (&spec.twisting_strength, "twisting_strength"),
    ];
    if keys.iter().all(|(v, _)| v.is_none()) {
        return Ok(None);
    }
    let [tensile, shear, bending, twisting] = keys.map(|(v, key)| {
        v.as_ref()
            .map_or(Ok(f32::INFINITY), |v| positive(cx, v, key))
    });
    Ok(Some(BondStrength {
        tensile: tensile?,
        shear: shear?,
        bending: bending?,
        twisting: twisting?,
    }))
}
