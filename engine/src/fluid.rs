//! A fluid filling the world (`WorldBuilder::fluid`): its buoyancy and drag on the spheres
//! (the law is [`grains_kernels::fluid`]'s), and the checks of its values at build.

use crate::error::BuildError;
pub use grains_kernels::fluid::{Drag, Fluid};

/// Refuses a fluid whose density is negative, whose viscosity is not positive, or any of
/// whose values is not finite, naming the field.
pub(crate) fn check_fluid(fluid: &Fluid) -> Result<(), BuildError> {
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
    Ok(())
}
