//! A fluid filling the world (`WorldBuilder::fluid`): its buoyancy and drag on the spheres
//! (the law is [`grains_kernels::fluid`]'s), and the checks of its values at build.

use crate::error::BuildError;
pub use grains_kernels::fluid::{Drag, Fluid};

/// Refuses a fluid whose density is negative, whose viscosity is not positive, any of whose
/// values is not finite, or whose voidage cells (Di Felice's drag) are not finite or narrower
/// than two diameters of the largest grain (radius `largest`), naming the field.
pub(crate) fn check_fluid(fluid: &Fluid, largest: f32) -> Result<(), BuildError> {
    let bad = |field, problem: String| Err(BuildError::Settings { field, problem });
    if !(fluid.density.is_finite() && fluid.density >= 0.0) {
        return bad(
            "fluid.density",
            format!(
                "must be a finite density ≥ 0 (kg/m³), got {}",
                fluid.density
            ),
        );
    }
    if !(fluid.viscosity.is_finite() && fluid.viscosity > 0.0) {
        return bad(
            "fluid.viscosity",
            format!(
                "must be a finite viscosity > 0 (Pa s), got {}",
                fluid.viscosity
            ),
        );
    }
    if !fluid.velocity.is_finite() {
        return bad(
            "fluid.velocity",
            format!("must be finite (m/s), got {}", fluid.velocity),
        );
    }
    if let Some(cell) = fluid.drag.voidage_cell() {
        if !(cell.is_finite() && cell >= 4.0 * largest && cell > 0.0) {
            return bad(
                "fluid.voidage_cell",
                format!(
                    "must be a finite edge (m) of at least two diameters of the largest grain ({}), so that a cell's voidage averages several grains, got {cell}",
                    4.0 * largest
                ),
            );
        }
    }
    Ok(())
}
