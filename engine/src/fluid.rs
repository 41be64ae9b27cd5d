//! A fluid filling the world (`WorldBuilder::fluid`): its buoyancy and drag on the spheres
//! (the law is [`grains_kernels::fluid`]'s), the checks of its values at build, and its velocity
//! on a grid set between steps ([`World::set_flow_field`]).

use crate::error::BuildError;
use crate::world::World;
pub use grains_kernels::fluid::{Drag, FlowField, Fluid};

impl World {
    /// Sets the fluid's velocity on a grid of nodes for every following step, until the next
    /// call (`None`: the fluid's uniform velocity again): each grain's drag then reads the
    /// field's trilinear interpolation at its centre ([`FlowField::at`]), as a fluid solver
    /// coupled to the grains would give it between steps. The field is not kept in checkpoints:
    /// a resumed run sets it again, as it sets the external loads.
    ///
    /// Refused (`BuildError::Settings`, field `flow_field`): a world without a fluid
    /// ([`crate::WorldBuilder::fluid`]), node counts that do not match the velocities, a
    /// spacing that is not finite and > 0, a value that is not finite.
    pub fn set_flow_field(&mut self, field: Option<FlowField>) -> Result<(), BuildError> {
        let refuse = |problem: String| {
            Err(BuildError::Settings {
                field: "flow_field",
                problem,
            })
        };
        if let Some(f) = &field {
            if let Err(problem) = f.check() {
                return refuse(problem);
            }
        }
        let speed = field.as_ref().map_or(0.0, FlowField::max_speed);
        let some = field.is_some();
        if !self.backend.set_flow_field(field) && some {
            return refuse(
                "the world has no fluid: give it one at build (WorldBuilder::fluid)".into(),
            );
        }
        self.monitor.field_speed = speed;
        Ok(())
    }
}

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
