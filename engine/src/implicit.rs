//! The integrator a world steps with ([`Integrator`]), and the checks at build that a world
//! asking for the geometrically implicit stepper of Chakraborty et al. ([`crate::geometric`])
//! is one that stepper can represent.
//!
//! With [`Integrator::GeometricallyImplicit`] each step hands the world's spheres and plane
//! walls to a fresh [`ImplicitSystem`](crate::geometric::ImplicitSystem) and copies the
//! end-of-step state back (`engine/src/backend/implicit.rs`). Everything it cannot represent
//! is refused here, when the world is built, naming the item and the limit; nothing is ignored.

use crate::body::{Body, BodyKind};
use crate::error::BuildError;
use crate::geometry::{ActiveWindow, WallDesc};
use crate::material::Material;
use crate::settings::{Backend, Settings};
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
    /// backend; refused at build otherwise (see `engine/src/implicit.rs`).
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

/// What a world has besides its bodies and walls, counted for [`check_world`].
pub(crate) struct Extras {
    /// Joints.
    pub(crate) joints: usize,
    /// Springs and dampers.
    pub(crate) springs: usize,
    /// Triangle-mesh walls.
    pub(crate) meshes: usize,
    /// Insertions and sinks.
    pub(crate) lifecycle: bool,
}

/// Refuses settings the geometrically implicit stepper cannot honour, when they ask for it:
/// the GPU backend, planar mode, periodic sides and compliant contact (its contact is rigid).
/// Called by [`Settings::check`], so at build and by [`crate::World::set_settings`].
pub(crate) fn check_settings(settings: &Settings) -> Result<(), BuildError> {
    if settings.integrator != Integrator::GeometricallyImplicit {
        return Ok(());
    }
    let setting = |field, problem: String| Err(BuildError::Settings { field, problem });
    if settings.backend == Backend::Gpu {
        return setting("backend", format!("is gpu, but {WHY} runs on the CPU only"));
    }
    if settings.planar {
        return setting(
            "planar",
            format!("is true, but {WHY} steps 3-D worlds only"),
        );
    }
    if settings.periodic.is_on() {
        return setting(
            "periodic",
            format!("is set, but {WHY} has no periodic sides"),
        );
    }
    if settings.contact_frequency.is_finite() {
        return setting(
            "contact_frequency",
            format!(
                "is {} Hz, but {WHY} has rigid contact only (use \"inf\", the rigid preset)",
                settings.contact_frequency
            ),
        );
    }
    Ok(())
}

/// Names the integrator in the refusals.
const WHY: &str = "the geometrically implicit integrator (settings.integrator)";

/// Refuses a world the geometrically implicit stepper cannot represent, when its settings ask
/// for it: shapes other than spheres, kinematic bodies, walls other than fixed planes that are
/// always there, meshes, joints, springs, insertions and sinks, restitution and rolling
/// friction (it has neither), and more than [`MAX_BODIES`] spheres and plane walls together.
/// Applied forces, gravity, fixed spheres, μ and spinning friction are supported.
pub(crate) fn check_world(
    settings: &Settings,
    bodies: &[Body],
    walls: &[WallDesc],
    materials: &[Material],
    extras: Extras,
) -> Result<(), BuildError> {
    if settings.integrator != Integrator::GeometricallyImplicit {
        return Ok(());
    }
    let why = WHY;
    let setting = |field, problem: String| Err(BuildError::Settings { field, problem });
    let count = bodies.len() + walls.len();
    if count > MAX_BODIES {
        return setting(
            "integrator",
            format!(
                "is geometrically_implicit, which takes at most {MAX_BODIES} bodies and plane walls together (its Newton matrix is dense); this world has {count} (bodies: {}, walls: {})",
                bodies.len(),
                walls.len()
            ),
        );
    }
    for (i, b) in bodies.iter().enumerate() {
        let body = |field, problem: String| {
            Err(BuildError::Body {
                body: i,
                field,
                problem,
            })
        };
        if !b.shape.is_sphere() {
            return body(
                "shape",
                format!("is {:?}, but {why} takes spheres only", b.shape),
            );
        }
        if b.anisotropic_moments().is_some() {
            return body(
                "principal_moments",
                format!("are unequal, but {why} takes spheres of one inertia about every axis"),
            );
        }
        if b.kind == BodyKind::Kinematic {
            return body(
                "kind",
                format!("is kinematic, but {why} takes dynamic and fixed bodies only"),
            );
        }
    }
    for (i, w) in walls.iter().enumerate() {
        let wall = |field, problem: String| {
            Err(BuildError::Wall {
                wall: i,
                field,
                problem,
            })
        };
        if !w.is_plane() {
            return wall(
                "shape",
                format!(
                    "is a {}, but {why} takes infinite planes only",
                    w.kind_name()
                ),
            );
        }
        if w.motion.is_some() {
            return wall(
                "motion",
                format!("is set, but {why} takes fixed walls only"),
            );
        }
        if w.active != ActiveWindow::ALWAYS {
            return wall(
                "active",
                format!("is set, but {why} takes walls that are always there only"),
            );
        }
    }
    let refuse = |what: &str| {
        setting(
            "integrator",
            format!("is geometrically_implicit, which has no {what}; this world has some"),
        )
    };
    if extras.meshes > 0 {
        return refuse("mesh walls");
    }
    if extras.joints > 0 {
        return refuse("joints");
    }
    if extras.springs > 0 {
        return refuse("springs or dampers");
    }
    if extras.lifecycle {
        return refuse("insertions or sinks");
    }
    for (i, m) in materials.iter().enumerate() {
        let material = |field, problem: String| {
            Err(BuildError::Material {
                material: i,
                field,
                problem,
            })
        };
        if m.restitution > 0.0 {
            return material(
                "restitution",
                format!(
                    "is {}, but {why} has no restitution (its impacts are fully inelastic)",
                    m.restitution
                ),
            );
        }
        if m.rolling > 0.0 {
            return material(
                "rolling",
                format!("is {} m, but {why} has no rolling friction", m.rolling),
            );
        }
    }
    Ok(())
}
