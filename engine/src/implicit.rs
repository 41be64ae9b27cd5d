//! The integrator a world steps with ([`Integrator`]), and the checks at build that a world
//! asking for the geometrically implicit stepper of Chakraborty et al. ([`crate::geometric`])
//! is one that stepper can represent.
//!
//! With [`Integrator::GeometricallyImplicit`] each step hands the world's spheres and plane
//! walls to a fresh [`ImplicitSystem`](crate::geometric::ImplicitSystem) and copies the
//! end-of-step state back (`engine/src/backend/implicit.rs`). Everything it cannot represent
//! is refused when the world is built, naming the item and the limit (the support table,
//! `crate::support`, and the size check here); nothing is ignored.

use crate::body::Body;
use crate::error::BuildError;
use crate::geometry::WallDesc;
use crate::settings::Settings;
use grains_kernels::geometric::MAX_BODIES;

/// How a world advances its state by one step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Integrator {
    /// The cone-complementarity step of Anitescu (the engine's pipeline, on either backend):
    /// gaps linearised at the start of the step, solved by the projected iterations of
    /// [`Settings::solver`].
    #[default]
    Ccp,
    /// The geometrically implicit stepper of Chakraborty et al. ([`crate::geometric`]): the
    /// contact points are unknowns of the step, so each contact's gap is ≥ 0 at its end (to
    /// the Newton tolerance). For small worlds only: at most
    /// [`MAX_BODIES`] spheres and plane walls together, at most
    /// [`MAX_CONTACTS`](crate::geometric::MAX_CONTACTS) contacts in a step, rigid contact, CPU
    /// backend; refused at build otherwise (see `kernels/src/support.rs` and `engine/src/implicit.rs`).
    GeometricallyImplicit,
}

impl Integrator {
    /// The name scene files and the Python package give it.
    pub fn name(self) -> &'static str {
        match self {
            Integrator::Ccp => "ccp",
            Integrator::GeometricallyImplicit => "geometrically_implicit",
        }
    }

    /// The integrator called `name` (`"ccp"` or `"geometrically_implicit"`).
    pub fn from_name(name: &str) -> Option<Integrator> {
        [Integrator::Ccp, Integrator::GeometricallyImplicit]
            .into_iter()
            .find(|i| i.name() == name)
    }
}

/// Refuses a world too large for the geometrically implicit stepper, when its settings ask for
/// it: more than [`MAX_BODIES`] bodies and plane walls together (its Newton matrix is dense).
/// What it cannot represent at all (shapes other than spheres, kinematic bodies, walls other
/// than fixed planes that are always there, meshes, joints, springs, insertions and sinks,
/// restitution, rolling friction, the GPU, planar mode, periodic sides, compliant contact)
/// is the support table's ([`crate::support`]); applied forces, gravity, fixed spheres, μ and
/// spinning friction are supported.
pub(crate) fn check_world(
    settings: &Settings,
    bodies: &[Body],
    walls: &[WallDesc],
) -> Result<(), BuildError> {
    if settings.integrator != Integrator::GeometricallyImplicit {
        return Ok(());
    }
    let count = bodies.len() + walls.len();
    if count > MAX_BODIES {
        return Err(BuildError::Settings {
            field: "integrator",
            problem: format!(
                "is geometrically_implicit, which takes at most {MAX_BODIES} bodies and plane walls together (its Newton matrix is dense); this world has {count} (bodies: {}, walls: {})",
                bodies.len(),
                walls.len()
            ),
        });
    }
    Ok(())
}
