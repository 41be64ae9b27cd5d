//! `[clumps.NAME]`: the clump template table. Each template is a list of member spheres,
//! `spheres = [[x, y, z, r], ...]`, or generated from a rod, `rod = { spheres = k, radius = r,
//! spacing = d }`; a `[[bodies]]` generator makes clumps of one with `shape = "clump"` and
//! `clump = "NAME"`.

use super::spec::{ClumpSpec, S};
use super::values::{need, Ctx};
use super::SceneError;
use glam::Vec4;
use grains::clump::{Clump, ClumpTemplate};
use grains::WorldBuilder;
use grains_kernels::shapes::clump::ClumpTable;
use std::collections::BTreeMap;

/// The scene's clump templates by name, registered on the builder, and the builder's table
/// (for the start-overlap check).
#[derive(Default)]
pub(super) struct ClumpNames {
    names: BTreeMap<String, Clump>,
    /// The templates' member spheres as the narrow phase reads them.
    pub(super) table: ClumpTable,
}

/// Reads every `[clumps.NAME]` table and registers its template on `world`.
pub(super) fn clumps(
    cx: &Ctx,
    specs: &BTreeMap<String, S<ClumpSpec>>,
    world: &mut WorldBuilder,
) -> Result<ClumpNames, SceneError> {
    let mut out = ClumpNames::default();
    for (name, spec) in specs {
        let template =
            match (&spec.get_ref().spheres, &spec.get_ref().rod) {
                (Some(s), None) => {
                    let spheres: Vec<Vec4> = s
                        .get_ref()
                        .iter()
                        .map(|m| Vec4::new(m[0] as f32, m[1] as f32, m[2] as f32, m[3] as f32))
                        .collect();
                    ClumpTemplate::new(&spheres).map_err(|e| cx.err(s.span(), "spheres", e.0))?
                }
                (None, Some(rod)) => {
                    let r = rod.get_ref();
                    let count = usize::try_from(*r.spheres.get_ref()).unwrap_or(0);
                    ClumpTemplate::rod(
                        count,
                        *r.radius.get_ref() as f32,
                        *r.spacing.get_ref() as f32,
                    )
                    .map_err(|e| cx.err(rod.span(), "rod", e.0))?
                }
                (Some(s), Some(_)) => {
                    return Err(cx.err(s.span(), "spheres", "give either spheres or rod, not both"))
                }
                (None, None) => return Err(cx.err(
                    spec.span(),
                    &format!("clumps.{name}"),
                    "needs `spheres = [[x, y, z, r], ...]` or `rod = { spheres, radius, spacing }`",
                )),
            };
        out.names
            .insert(name.clone(), world.clump_template(&template));
    }
    out.table = world.clump_table().clone();
    Ok(out)
}

impl ClumpNames {
    /// The template a generator's or an insertion's `clump` key names (required with
    /// `shape = "clump"`).
    pub(super) fn of(
        &self,
        cx: &Ctx,
        clump: &Option<S<String>>,
        shape: &S<String>,
    ) -> Result<Clump, SceneError> {
        let name = need(cx, clump, "clump", shape)?;
        self.names.get(name.get_ref()).copied().ok_or_else(|| {
            let known: Vec<&str> = self.names.keys().map(String::as_str).collect();
            cx.err(
                name.span(),
                "clump",
                format!(
                    "names no [clumps.{}] table (defined: {})",
                    name.get_ref(),
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                ),
            )
        })
    }
}
