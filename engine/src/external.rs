//! Forces and moments a caller sets on every body for the steps that follow
//! ([`World::set_external_loads`]): the coupling a fluid solver or any other code drives the
//! grains through, one array in per exchange, the state read back through the world's views.

use crate::error::BuildError;
use crate::settings::Backend;
use crate::world::World;
use crate::Integrator;
use glam::Vec3;
use grains_kernels::forces::Load;

impl World {
    /// Sets the force `forces[i]` (N, on the centre of mass) and the moment `torques[i]` (N m,
    /// about it) on body i for every following step, until the next call: one entry per body
    /// (`torques` may be empty: no moments), added in stage 1 to gravity and the applied forces
    /// (v ← v + h M⁻¹ f, ω ← ω + h I⁻¹ τ; fixed and kinematic bodies ignore them). Empty
    /// `forces` and `torques` remove them.
    ///
    /// Refused (`BuildError::Settings`, field `external_loads`, or `BuildError::Body` naming the
    /// body and value): arrays of another length than the bodies, a value that is not finite,
    /// a world with insertions or sinks (they renumber the bodies between calls), a
    /// distributed world, and moments on the GPU backend or with the geometrically implicit
    /// integrator (they take forces only).
    pub fn set_external_loads(
        &mut self,
        forces: &[Vec3],
        torques: &[Vec3],
    ) -> Result<(), BuildError> {
        let refuse = |problem: String| {
            Err(BuildError::Settings {
                field: "external_loads",
                problem,
            })
        };
        let n = self.len();
        if !(forces.is_empty() && torques.is_empty()) {
            if forces.len() != n || !(torques.is_empty() || torques.len() == n) {
                return refuse(format!(
                    "{} forces and {} moments for {n} bodies: give one force per body, and one moment per body or none",
                    forces.len(),
                    torques.len()
                ));
            }
            if self.lifecycle.renumbers() {
                return refuse(
                    "the world has insertions or sinks, which renumber the bodies between steps; apply the loads without them".into(),
                );
            }
            if self.backend.is_distributed() {
                return refuse("a distributed world takes no external loads yet".into());
            }
            let gpu = self.settings.backend == Backend::Gpu;
            let implicit = self.settings.integrator == Integrator::GeometricallyImplicit;
            if (gpu || implicit) && torques.iter().any(|t| *t != Vec3::ZERO) {
                return refuse(format!(
                    "{} takes forces only: pass no moments",
                    if gpu {
                        "the GPU backend"
                    } else {
                        "the geometrically implicit integrator"
                    }
                ));
            }
        }
        let torque = |i: usize| torques.get(i).copied().unwrap_or(Vec3::ZERO);
        // Each load checked, and its push √(F²/m + τ²/I) summed for the energy check.
        let mut push2 = 0.0;
        for (i, f) in forces.iter().enumerate() {
            for (field, value) in [("external force", *f), ("external moment", torque(i))] {
                if !value.is_finite() {
                    return Err(BuildError::Body {
                        body: i,
                        field,
                        problem: format!("must be finite, got {value}"),
                    });
                }
            }
            let m = &self.bodies.motion[i];
            push2 += f.length_squared() as f64 * m.inv_mass as f64;
            push2 += torque(i).length_squared() as f64 * m.inv_inertia as f64;
        }
        self.monitor.links.external_push = push2.sqrt();
        self.external.clear();
        let loads = forces.iter().enumerate().map(|(i, &force)| Load {
            body: i as u32,
            force,
            torque: torque(i),
        });
        let acting = |l: &Load| l.force != Vec3::ZERO || l.torque != Vec3::ZERO;
        self.external.extend(loads.filter(acting));
        if self.forces.is_empty() && self.external.is_empty() {
            self.backend.set_loads(&[]);
        }
        Ok(())
    }
}
