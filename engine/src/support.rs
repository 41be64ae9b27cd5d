//! The world's side of the support table ([`grains_kernels::support`], re-exported here: each
//! [`Limit`] is one pair of features the engine refuses together, with why): the world's build
//! collects the features a world has, each with the item that brings it (`Item`), and `check`
//! refuses the first limit whose two features are both there, at the item of its second side
//! and naming the first. Which shapes meet which shapes and walls is the pair table's
//! ([`grains_kernels::pairs`]); `grains support --markdown` prints both ([`markdown`]), and
//! `docs/support.md` is that page.

use crate::body::{Body, BodyKind};
use crate::error::BuildError;
use crate::geometry::{ActiveWindow, WallDesc, WallShape};
use crate::implicit::Integrator;
use crate::insertion::Insertion;
use crate::material::Material;
use crate::settings::{Backend, Settings};
use crate::solver::Solver;
use grains_kernels::pairs::{pair_routine, wall_support, ShapeKind, WallKind};
pub use grains_kernels::support::{limit, Feature, Limit, LIMITS};
use Feature::*;

/// Where a world's feature comes from: the item a refusal names.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// A setting.
    Settings(&'static str),
    /// A material's field.
    Material(usize, &'static str),
    /// A body's field.
    Body(usize, &'static str),
    /// A wall's field.
    Wall(usize, &'static str),
    /// The first mesh wall.
    Mesh,
    /// The first joint.
    Joint,
    /// The first spring.
    Spring,
    /// The first applied force.
    Force,
    /// An insertion's field.
    Insert(usize, &'static str),
    /// The first sink.
    Sink,
    /// The run itself (a distributed run's refusals name no item).
    #[cfg(feature = "mpi")]
    Run,
}

impl Item {
    /// The refusal `problem` at this item.
    fn error(self, problem: String) -> BuildError {
        match self {
            Item::Settings(field) => BuildError::Settings { field, problem },
            Item::Material(material, field) => BuildError::Material {
                material,
                field,
                problem,
            },
            Item::Body(body, field) => BuildError::Body {
                body,
                field,
                problem,
            },
            Item::Wall(wall, field) => BuildError::Wall {
                wall,
                field,
                problem,
            },
            Item::Mesh => BuildError::Mesh {
                mesh: 0,
                triangle: None,
                field: "triangles",
                problem,
            },
            Item::Joint => BuildError::Joint {
                joint: 0,
                field: "bodies",
                problem,
            },
            Item::Spring => BuildError::Spring {
                spring: 0,
                field: "bodies",
                problem,
            },
            Item::Force => BuildError::Force {
                force: 0,
                field: "body",
                problem,
            },
            Item::Insert(insert, field) => BuildError::Insert {
                insert,
                field,
                problem,
            },
            Item::Sink => BuildError::Sink {
                sink: 0,
                field: "shape",
                problem,
            },
            #[cfg(feature = "mpi")]
            Item::Run => BuildError::Distributed(problem),
        }
    }
}

/// The features a world has, each with the first item that brings it.
#[derive(Default)]
pub(crate) struct Present(Vec<(Feature, Item)>);

impl Present {
    /// Adds `feature` from `item` when `on` and the feature is not there yet.
    pub(crate) fn add(&mut self, on: bool, feature: Feature, item: Item) {
        if on && self.0.iter().all(|p| p.0 != feature) {
            self.0.push((feature, item));
        }
    }

    /// The settings' features: backend, integrator, periodic sides, planar mode, solver,
    /// compliant contact.
    pub(crate) fn of_settings(s: &Settings) -> Present {
        let mut p = Present::default();
        p.add(
            s.backend == Backend::Gpu,
            GpuBackend,
            Item::Settings("backend"),
        );
        let implicit = s.integrator == Integrator::GeometricallyImplicit;
        p.add(implicit, ImplicitIntegrator, Item::Settings("integrator"));
        let sheared = s.periodic.is_sheared();
        p.add(
            sheared,
            PeriodicShear,
            Item::Settings("periodic.shear_rate"),
        );
        p.add(s.periodic.is_on(), Periodic, Item::Settings("periodic"));
        p.add(s.planar, Planar, Item::Settings("planar"));
        let gauss_seidel = matches!(s.solver, Solver::GaussSeidel { .. });
        p.add(gauss_seidel, GaussSeidel, Item::Settings("solver"));
        p.add(s.auto_step.is_some(), AdaptiveStep, Item::Settings("h"));
        let compliant = s.contact_frequency.is_finite();
        p.add(
            compliant,
            CompliantContact,
            Item::Settings("contact_frequency"),
        );
        p.add(
            s.position_correction > 0,
            PositionCorrection,
            Item::Settings("position_correction"),
        );
        p
    }

    /// Adds the materials' restitution, spinning and rolling friction.
    pub(crate) fn materials(&mut self, materials: &[Material]) {
        for (i, m) in materials.iter().enumerate() {
            self.add(
                m.restitution > 0.0,
                Restitution,
                Item::Material(i, "restitution"),
            );
            self.add(
                m.spinning > 0.0,
                SpinningFriction,
                Item::Material(i, "spinning"),
            );
            self.add(
                m.rolling > 0.0,
                RollingFriction,
                Item::Material(i, "rolling"),
            );
            self.add(m.cohesion > 0.0, Cohesion, Item::Material(i, "cohesion"));
            let adhesive = m.surface_energy > 0.0;
            self.add(adhesive, Adhesion, Item::Material(i, "surface_energy"));
            let wet = m.bridge.volume > 0.0;
            self.add(wet, LiquidBridges, Item::Material(i, "bridge_volume"));
        }
    }

    /// Adds the bodies' shapes, unequal principal moments and kinematic bodies.
    pub(crate) fn bodies(&mut self, bodies: &[Body]) {
        for (i, b) in bodies.iter().enumerate() {
            self.shape(b, Item::Body(i, "shape"));
            let unequal = b.anisotropic_moments().is_some();
            self.add(
                unequal,
                PrincipalMoments,
                Item::Body(i, "principal_moments"),
            );
            let kinematic = b.kind == BodyKind::Kinematic;
            self.add(kinematic, KinematicBodies, Item::Body(i, "kind"));
        }
    }

    /// Adds the shape of body `b` (a body or an insertion's template) from `item`.
    fn shape(&mut self, b: &Body, item: Item) {
        let kind = b.shape.kind();
        let shaped = kind != ShapeKind::Sphere;
        self.add(shaped, Shape(kind), item);
        self.add(shaped, NonSpheres, item);
    }

    /// Adds the walls' kinds, motions, servos and gates.
    pub(crate) fn walls(&mut self, walls: &[WallDesc]) {
        for (w, wall) in walls.iter().enumerate() {
            self.add(!wall.is_plane(), NonPlaneWalls, Item::Wall(w, "shape"));
            let round = wall.shape != WallShape::Flat;
            self.add(round, RoundWalls, Item::Wall(w, "shape"));
            self.add(wall.motion.is_some(), MovingWalls, Item::Wall(w, "motion"));
            self.add(wall.servo.is_some(), MovingWalls, Item::Wall(w, "servo"));
            self.add(wall.servo.is_some(), ServoWalls, Item::Wall(w, "servo"));
            let gated = wall.active != ActiveWindow::ALWAYS;
            self.add(gated, GatedWalls, Item::Wall(w, "active"));
        }
    }

    /// Adds the insertions (and the shapes of their grains) and sinks.
    pub(crate) fn lifecycle(&mut self, insertions: &[Insertion], sinks: usize) {
        for (i, ins) in insertions.iter().enumerate() {
            self.add(true, InsertionsAndSinks, Item::Insert(i, "region"));
            if let Some(t) = &ins.template {
                self.add(true, ShapedInsertions, Item::Insert(i, "shape"));
                self.shape(t, Item::Insert(i, "shape"));
            }
        }
        self.add(sinks > 0, InsertionsAndSinks, Item::Sink);
    }

    /// Adds the mesh walls (`meshes` of them), joints, springs and applied forces, by count.
    pub(crate) fn parts(
        &mut self,
        (meshes, joints, springs, forces): (usize, usize, usize, usize),
    ) {
        self.add(meshes > 0, MeshWalls, Item::Mesh);
        let clumps = self.0.iter().any(|p| p.0 == Shape(ShapeKind::Clump));
        self.add(meshes > 0 && clumps, ClumpsBesideMeshes, Item::Mesh);
        self.add(joints > 0, Joints, Item::Joint);
        self.add(springs > 0, Springs, Item::Spring);
        self.add(forces > 0, AppliedForces, Item::Force);
    }

    /// Refuses the first limit of [`LIMITS`] whose two features are both here ([`check`]).
    pub(crate) fn check(&self) -> Result<(), BuildError> {
        check(&self.0)
    }
}

/// Refuses the first limit of [`LIMITS`] whose two features are both among `present` (each
/// with the first item that brings it), at the item of its second side, naming both sides
/// and why.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn check(present: &[(Feature, Item)]) -> Result<(), BuildError> {
    let item = |f: Feature| present.iter().find(|p| p.0 == f).map(|p| p.1);
    for l in LIMITS {
        if let (Some(_), Some(at)) = (item(l.a), item(l.b)) {
            return Err(at.error(match at {
                #[cfg(feature = "mpi")]
                Item::Run => l.to_string(),
                _ => format!(
                    "gives this world {}, which cannot be combined with {}: {}",
                    l.b.name(),
                    l.a.name(),
                    l.why
                ),
            }));
        }
    }
    Ok(())
}

/// The support page, `docs/support.md`: the limits, then the pair table's body pairs and
/// body–wall pairs.
pub fn markdown() -> String {
    let mut out = String::from(
        "# What combines with what\n\n\
         Generated by `grains support --markdown` from `kernels/src/support.rs` (the limits) and\n\
         `kernels/src/pairs.rs` (the pair table); a test checks that this page is its output.\n\
         A world that combines two features of a row is refused when it is built, naming the\n\
         item that brings the second and the first; a run's outputs (fields, grain stress in\n\
         frames, mesh-load frames) are refused by their rows when the run starts, naming the\n\
         scene's key and line.\n\n\
         ## Features refused together\n\n\
         | feature | refused with | why |\n|---|---|---|\n",
    );
    for l in LIMITS {
        out += &format!("| {} | {} | {} |\n", l.a.name(), l.b.name(), l.why);
    }
    out += "\n## Body pairs\n\nWhich shapes the narrow phase meets with which (the routine is \
            `grains_kernels::pairs::PairRoutine`); a world with a pair marked — is refused.\n\n";
    out += &grid(&ShapeKind::ALL, ShapeKind::name, |a, b| {
        pair_routine(a, b).is_ok()
    });
    out += "\n## Bodies and walls\n\n";
    out += &grid(&WallKind::ALL, WallKind::name, |k, w| {
        wall_support(k, w).is_ok()
    });
    out
}

/// A Markdown table of every shape kind (rows) against `columns`: "yes" where `meets`, "—" where not.
fn grid<C: Copy>(
    columns: &[C],
    column_name: impl Fn(C) -> &'static str,
    meets: impl Fn(ShapeKind, C) -> bool,
) -> String {
    let mut out = String::from("| shape |");
    for &c in columns {
        out += &format!(" {} |", column_name(c));
    }
    out += &format!("\n|---|{}\n", "---|".repeat(columns.len()));
    for a in ShapeKind::ALL {
        out += &format!("| {} |", a.name());
        for &c in columns {
            out += &format!(" {} |", if meets(a, c) { "yes" } else { "—" });
        }
        out += "\n";
    }
    out
}
