//! `[fluid]`: a fluid filling the world (`density`, `viscosity`, `velocity`, `drag`, and for
//! Di Felice's drag `voidage_cell`), whose buoyancy and drag act on every dynamic sphere. The
//! engine checks the values at build.

use super::origin::Origin;
use super::spec::{FluidSpec, S};
use super::values::{finite3, number, Ctx};
use super::SceneError;
use grains::fluid::{Drag, Fluid};
use grains::{Vec3, WorldBuilder};

/// The drag laws by their scene names (Di Felice's cell edge is `voidage_cell`'s).
const DRAGS: [(&str, Drag); 3] = [
    ("stokes", Drag::Stokes),
    ("schiller_naumann", Drag::SchillerNaumann),
    ("di_felice", Drag::DiFelice { cell: 0.0 }),
];

/// Adds the scene's fluid to `world` (nothing when the table is absent).
pub(super) fn fluid(
    cx: &Ctx,
    spec: &Option<S<FluidSpec>>,
    world: &mut WorldBuilder,
) -> Result<(), SceneError> {
    let Some(spec) = spec else { return Ok(()) };
    let f = spec.get_ref();
    let drag = match &f.drag {
        None => Drag::SchillerNaumann,
        Some(name) => DRAGS
            .iter()
            .find(|d| d.0 == name.get_ref())
            .map(|d| d.1)
            .ok_or_else(|| {
                cx.err(
                    name.span(),
                    "fluid.drag",
                    format!(
                        "unknown drag law \"{}\": use \"stokes\", \"schiller_naumann\" or \"di_felice\"",
                        name.get_ref()
                    ),
                )
            })?,
    };
    let drag = match (drag, &f.voidage_cell) {
        (Drag::DiFelice { .. }, Some(cell)) => Drag::DiFelice {
            cell: number(cx, cell, "fluid.voidage_cell")?,
        },
        (Drag::DiFelice { .. }, None) => {
            return Err(cx.err(
                spec.span(),
                "fluid.voidage_cell",
                "drag = \"di_felice\" needs voidage_cell, the edge (m) of the cells the voidage is counted in (a few grains wide)",
            ))
        }
        (_, Some(cell)) => {
            return Err(cx.err(
                cell.span(),
                "fluid.voidage_cell",
                "voidage_cell is read by drag = \"di_felice\" only",
            ))
        }
        (drag, None) => drag,
    };
    let velocity = match &f.velocity {
        None => Vec3::ZERO,
        Some(v) => finite3(cx, v, "fluid.velocity")?,
    };
    world.fluid(Fluid {
        density: number(cx, &f.density, "fluid.density")?,
        viscosity: number(cx, &f.viscosity, "fluid.viscosity")?,
        velocity,
        drag,
    });
    Ok(())
}

/// The settings' origin with the `[fluid]` keys that set the engine's `fluid` fields.
pub(super) fn origin(cx: &Ctx, spec: &Option<S<FluidSpec>>, settings: Origin) -> Origin {
    let Some(spec) = spec else { return settings };
    let f = spec.get_ref();
    settings
        .key_at(cx, "fluid.density", "fluid.density", Some(f.density.span()))
        .key_at(
            cx,
            "fluid.viscosity",
            "fluid.viscosity",
            Some(f.viscosity.span()),
        )
        .key(cx, "fluid.velocity", "fluid.velocity", &f.velocity)
        .key(
            cx,
            "fluid.voidage_cell",
            "fluid.voidage_cell",
            &f.voidage_cell,
        )
        .key_at(cx, "fluid", "fluid", Some(spec.span()))
}
