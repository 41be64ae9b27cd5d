//! The support table: which features of a world combine. Each [`Limit`] is one pair of
//! features the engine refuses together, with why. It stands at the bottom of the crates, beside
//! the pair table ([`crate::pairs`]: which shapes meet which shapes and walls), so that every
//! layer reads the same rows: the world's build (`grains::support`) refuses the first limit
//! whose two features a world has, and the GPU backend (crate `grains-gpu`) refuses what its
//! rows name rather than keeping lists of its own. The outputs a run refuses with a backend or
//! a part of the world (fields, grain stress in frames, mesh-load frames) are rows here too: the
//! runner (`grains-app`) refuses them by these rows.

use crate::pairs::ShapeKind;
use crate::step::GpuError;

/// A feature a world may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// `Backend::Gpu`.
    GpuBackend,
    /// `World::distribute` (feature `mpi`).
    Distributed,
    /// `Integrator::GeometricallyImplicit`.
    ImplicitIntegrator,
    /// `Settings::periodic`.
    Periodic,
    /// A Lees–Edwards shear of the periodic cell (`Periodic::shear_rate`).
    PeriodicShear,
    /// `Settings::planar`.
    Planar,
    /// The Gauss–Seidel solver.
    GaussSeidel,
    /// A finite `Settings::contact_frequency`.
    CompliantContact,
    /// The position correction of overlaps (`Settings::position_correction`).
    PositionCorrection,
    /// A material with e > 0.
    Restitution,
    /// A material with spinning friction.
    SpinningFriction,
    /// A material with rolling friction.
    RollingFriction,
    /// A material with a pull-off force (cohesion).
    Cohesion,
    /// A material with a surface energy (JKR adhesion).
    Adhesion,
    /// A material with a liquid bridge.
    LiquidBridges,
    /// A fluid's buoyancy and drag (`WorldBuilder::fluid`).
    Fluid,
    /// Bodies of this kind (not spheres).
    Shape(ShapeKind),
    /// Bodies of any shape other than spheres.
    NonSpheres,
    /// Bodies with unequal principal moments.
    PrincipalMoments,
    /// Kinematic bodies.
    KinematicBodies,
    /// Walls other than infinite planes.
    NonPlaneWalls,
    /// Disk, annulus, cylinder and cone walls.
    RoundWalls,
    /// Walls that move.
    MovingWalls,
    /// Walls a servo moves to hold a normal force.
    ServoWalls,
    /// Walls switched on or off at given times.
    GatedWalls,
    /// Triangle-mesh walls.
    MeshWalls,
    /// Clumps in a world with mesh walls.
    ClumpsBesideMeshes,
    /// Joints.
    Joints,
    /// Springs and dampers.
    Springs,
    /// Applied forces.
    AppliedForces,
    /// Insertions and sinks.
    InsertionsAndSinks,
    /// Insertions of shaped grains.
    ShapedInsertions,
    /// The adaptive step (`h = "auto"`, `Settings::auto_step`).
    AdaptiveStep,
    /// Coarse-grained fields written by a run (the scene's `[fields]`).
    FieldsOutput,
    /// Each grain's Love–Weber stress in the frames (`[output] frame_stress`).
    FrameStress,
    /// Mesh-load frames with their Archard sums (`formats = ["meshes"]`).
    MeshLoadFrames,
}

impl Feature {
    /// The feature in words, as the refusals and the table name it.
    pub fn name(self) -> &'static str {
        match self {
            Feature::GpuBackend => "the GPU backend",
            Feature::Distributed => "a distributed run (MPI)",
            Feature::ImplicitIntegrator => "the geometrically implicit integrator",
            Feature::Periodic => "periodic boundaries",
            Feature::PeriodicShear => "a sheared periodic cell (Lees–Edwards, shear_rate)",
            Feature::Planar => "planar mode",
            Feature::GaussSeidel => "the Gauss–Seidel solver",
            Feature::CompliantContact => "compliant contact (a finite contact_frequency)",
            Feature::PositionCorrection => {
                "the position correction of overlaps (position_correction)"
            }
            Feature::Restitution => "restitution (a material with e > 0)",
            Feature::SpinningFriction => "spinning friction",
            Feature::RollingFriction => "rolling friction",
            Feature::Cohesion => "cohesion (a material with a pull-off force)",
            Feature::Adhesion => "adhesion (a material with a surface energy)",
            Feature::LiquidBridges => "liquid bridges (a material with a bridge volume)",
            Feature::Fluid => "a fluid (buoyancy and drag)",
            Feature::Shape(kind) => kind.plural(),
            Feature::NonSpheres => "shapes other than spheres",
            Feature::PrincipalMoments => "bodies with unequal principal moments",
            Feature::KinematicBodies => "kinematic bodies",
            Feature::NonPlaneWalls => "walls other than planes",
            Feature::RoundWalls => "disk, annulus, cylinder and cone walls",
            Feature::MovingWalls => "moving walls",
            Feature::ServoWalls => "servo walls",
            Feature::GatedWalls => "walls switched on or off (active)",
            Feature::MeshWalls => "mesh walls",
            Feature::ClumpsBesideMeshes => "clumps beside mesh walls",
            Feature::Joints => "joints",
            Feature::Springs => "springs and dampers",
            Feature::AppliedForces => "applied forces",
            Feature::InsertionsAndSinks => "insertions and sinks",
            Feature::ShapedInsertions => "insertions of shaped grains",
            Feature::AdaptiveStep => "the adaptive step (h = \"auto\")",
            Feature::FieldsOutput => "coarse-grained fields ([fields])",
            Feature::FrameStress => "grain stress in frames (frame_stress)",
            Feature::MeshLoadFrames => "mesh-load frames (formats = [\"meshes\"])",
        }
    }
}

/// Two features the engine refuses together, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The first side: a backend, an integrator, a mode.
    pub a: Feature,
    /// The second side: a part of the world the first does not handle.
    pub b: Feature,
    /// Why.
    pub why: &'static str,
}

use Feature::*;

/// Why the geometrically implicit integrator refuses parts it has none of.
const IMPLICIT: &str =
    "its step has none (it hands spheres and fixed plane walls to a small dense Newton system)";

/// Why a distributed run refuses what it refuses.
const DISTRIBUTED: &str = "the coupled solve across ranks covers sphere contacts only";

/// Why the GPU refuses cohesion.
const COHESION_CPU: &str = "the cohesive pull is applied on the CPU only; run with the CPU backend";

/// Why a periodic world refuses what it refuses.
const PERIODIC: &str = "only sphere contacts take the minimum image across the seams";

/// Every pair of features the engine refuses together (the body–body and body–wall pairs are
/// the pair table's, [`crate::pairs`]).
#[rustfmt::skip]
pub const LIMITS: &[Limit] = &[
    Limit { a: GpuBackend, b: Restitution, why: "the impact stage runs on the CPU only" },
    Limit { a: GpuBackend, b: Cohesion, why: COHESION_CPU },
    Limit { a: GpuBackend, b: Adhesion, why: COHESION_CPU },
    Limit { a: GpuBackend, b: LiquidBridges, why: COHESION_CPU },
    Limit { a: GpuBackend, b: Fluid, why: "the fluid's buoyancy and drag are applied on the CPU only; run with the CPU backend" },
    Limit { a: GpuBackend, b: Shape(ShapeKind::Capsule), why: "the GPU's narrow phase meets spheres and clumps only" },
    Limit { a: GpuBackend, b: Shape(ShapeKind::Ellipse), why: "the GPU's narrow phase meets spheres and clumps only" },
    Limit { a: GpuBackend, b: Shape(ShapeKind::Cuboid), why: "the GPU's narrow phase meets spheres and clumps only" },
    Limit { a: GpuBackend, b: Shape(ShapeKind::Ellipsoid), why: "the GPU's narrow phase meets spheres and clumps only" },
    Limit { a: GpuBackend, b: Shape(ShapeKind::Polyhedron), why: "the GPU's narrow phase meets spheres and clumps only (the CPU backend has polyhedra)" },
    Limit { a: GpuBackend, b: ClumpsBesideMeshes, why: "the GPU's mesh contacts take spheres only" },
    Limit { a: GpuBackend, b: Joints, why: "the joints' rows are solved on the CPU only" },
    Limit { a: GpuBackend, b: Springs, why: "the springs' rows are solved on the CPU only" },
    Limit { a: GpuBackend, b: PeriodicShear, why: "the GPU's grid has no minimum image, let alone the sheared images' offset and velocity" },
    Limit { a: GpuBackend, b: Periodic, why: "the GPU's grid has no minimum image" },
    Limit { a: GpuBackend, b: ServoWalls, why: "a servo wall's next velocity is its load of the last step, and the GPU copies the contacts back only on World::sync_contacts" },
    Limit { a: GpuBackend, b: PositionCorrection, why: "its second solve and the positions it moves run on the CPU only" },
    Limit { a: CompliantContact, b: PositionCorrection, why: "a compliant contact's overlap is its spring's give, which the correction would take away; use rigid contact (contact_frequency = \"inf\")" },
    Limit { a: PeriodicShear, b: PositionCorrection, why: "a grain it moves across the sheared seam would not take the images' velocity jump" },
    Limit { a: Joints, b: PositionCorrection, why: "it moves the contacts' bodies only, pulling jointed bodies apart for the joints' own stabilising term to pull back as a speed" },
    Limit { a: GpuBackend, b: AdaptiveStep, why: "each step's h is chosen on the host from the last step's statistics and velocities, which the GPU reads back only every sync_every steps" },
    Limit { a: ImplicitIntegrator, b: GpuBackend, why: "it runs on the CPU only" },
    Limit { a: ImplicitIntegrator, b: Planar, why: "it steps 3-D worlds only" },
    Limit { a: ImplicitIntegrator, b: PeriodicShear, why: "it has no periodic sides" },
    Limit { a: ImplicitIntegrator, b: Periodic, why: "it has no periodic sides" },
    Limit { a: ImplicitIntegrator, b: CompliantContact, why: "it has rigid contact only (use \"inf\", the rigid preset)" },
    Limit { a: ImplicitIntegrator, b: NonSpheres, why: "it takes spheres only" },
    Limit { a: ImplicitIntegrator, b: PrincipalMoments, why: "it takes spheres of one inertia about every axis" },
    Limit { a: ImplicitIntegrator, b: KinematicBodies, why: "it takes dynamic and fixed bodies only" },
    Limit { a: ImplicitIntegrator, b: NonPlaneWalls, why: "it takes infinite plane walls only" },
    Limit { a: ImplicitIntegrator, b: MovingWalls, why: "it takes fixed walls only" },
    Limit { a: ImplicitIntegrator, b: GatedWalls, why: "it takes walls that are always there only" },
    Limit { a: ImplicitIntegrator, b: MeshWalls, why: IMPLICIT },
    Limit { a: ImplicitIntegrator, b: Joints, why: IMPLICIT },
    Limit { a: ImplicitIntegrator, b: Springs, why: IMPLICIT },
    Limit { a: ImplicitIntegrator, b: InsertionsAndSinks, why: IMPLICIT },
    Limit { a: ImplicitIntegrator, b: Restitution, why: "it has no restitution (its impacts are fully inelastic)" },
    Limit { a: ImplicitIntegrator, b: RollingFriction, why: "it has no rolling friction" },
    Limit { a: ImplicitIntegrator, b: Cohesion, why: "its contacts push only (γn ≥ 0)" },
    Limit { a: ImplicitIntegrator, b: Adhesion, why: "its contacts push only (γn ≥ 0)" },
    Limit { a: ImplicitIntegrator, b: LiquidBridges, why: "its contacts push only (γn ≥ 0)" },
    Limit { a: ImplicitIntegrator, b: Fluid, why: "its step takes gravity as the only force" },
    Limit { a: ImplicitIntegrator, b: PositionCorrection, why: "its contacts hold at the step's end by its own Newton solve, leaving no overlap to correct" },
    Limit { a: ImplicitIntegrator, b: AdaptiveStep, why: "the step's residual budget reads the CCP solve's residual and tolerance, which its Newton solve does not report" },
    Limit { a: PeriodicShear, b: Restitution, why: "the impact stage's rows do not take the velocity of the images across the sheared seam" },
    Limit { a: Periodic, b: MeshWalls, why: "mesh contacts take no minimum image" },
    Limit { a: Periodic, b: InsertionsAndSinks, why: "regions and sinks are not wrapped across the seams yet" },
    Limit { a: Periodic, b: NonSpheres, why: PERIODIC },
    Limit { a: Periodic, b: RoundWalls, why: "only planes and rectangles unbounded along the periodic axes cross the seams" },
    Limit { a: Periodic, b: Joints, why: "their rows measure the bodies' separation without the minimum image" },
    Limit { a: Periodic, b: Springs, why: "their rows measure the bodies' separation without the minimum image" },
    Limit { a: InsertionsAndSinks, b: Joints, why: "their rows hold body indices, which insertions and sinks renumber" },
    Limit { a: InsertionsAndSinks, b: Springs, why: "their rows hold body indices, which insertions and sinks renumber" },
    Limit { a: InsertionsAndSinks, b: Planar, why: "grains are placed and removed in 3-D only" },
    Limit { a: MeshWalls, b: Restitution, why: "mesh contacts do not restitute yet" },
    Limit { a: MeshWalls, b: SpinningFriction, why: "mesh contacts have no moment rows yet" },
    Limit { a: MeshWalls, b: RollingFriction, why: "mesh contacts have no moment rows yet" },
    Limit { a: Distributed, b: ImplicitIntegrator, why: "only the CCP integrator runs distributed" },
    Limit { a: Distributed, b: GaussSeidel, why: "its sweep updates contacts one after another in an order no split by subdomain keeps; use solver = \"jacobi\" or \"apgd\", with omega at most about 0.4 on dense piles (Jacobi at omega = 1 diverges)" },
    Limit { a: Distributed, b: PeriodicShear, why: DISTRIBUTED },
    Limit { a: Distributed, b: Periodic, why: DISTRIBUTED },
    Limit { a: Distributed, b: Joints, why: DISTRIBUTED },
    Limit { a: Distributed, b: Springs, why: DISTRIBUTED },
    Limit { a: Distributed, b: AppliedForces, why: DISTRIBUTED },
    Limit { a: Distributed, b: Restitution, why: "the impact stage is not distributed" },
    Limit { a: Distributed, b: Cohesion, why: "the cohesive pull of a contact between two ranks' grains is not summed over the ranks yet" },
    Limit { a: Distributed, b: Adhesion, why: "the cohesive pull of a contact between two ranks' grains is not summed over the ranks yet" },
    Limit { a: Distributed, b: LiquidBridges, why: "the cohesive pull of a contact between two ranks' grains is not summed over the ranks yet" },
    Limit { a: LiquidBridges, b: NonSpheres, why: "the bridge's force law takes the radii of spheres" },
    Limit { a: Distributed, b: Fluid, why: "the ranks' steps do not take the fluid's forces yet" },
    Limit { a: Fluid, b: NonSpheres, why: "the drag and buoyancy laws take a sphere's diameter and volume" },
    Limit { a: Adhesion, b: NonSpheres, why: "the JKR pull-off 3π γ R* needs the contact's radii of curvature, which only spheres carry here; give the material a pull-off force (cohesion) instead" },
    Limit { a: Distributed, b: NonSpheres, why: DISTRIBUTED },
    Limit { a: Distributed, b: ShapedInsertions, why: DISTRIBUTED },
    Limit { a: Distributed, b: PrincipalMoments, why: DISTRIBUTED },
    Limit { a: Distributed, b: ServoWalls, why: "a servo wall's next velocity needs its load summed over the ranks after every step (each rank's contacts copied out and reduced), which distributed runs do not do yet" },
    Limit { a: Distributed, b: PositionCorrection, why: "its second solve is not coupled across the ranks yet" },
    Limit { a: Distributed, b: AdaptiveStep, why: "the ranks would have to agree on each step's h (a reduction of the fastest grain and the deepest overlap every step), which the coupling does not do" },
    Limit { a: Distributed, b: FieldsOutput, why: "each rank of an mpirun run holds only its own contacts; run the scene in one process, or resume its checkpoint in one process and write the fields there" },
    Limit { a: Distributed, b: FrameStress, why: "a grain's stress sums its contacts, and each rank of an mpirun run holds only its own; run the scene in one process" },
    Limit { a: Distributed, b: MeshLoadFrames, why: "their wear sums read every step's contacts, and each rank of an mpirun run holds only its own; run the scene in one process" },
    Limit { a: GpuBackend, b: MeshLoadFrames, why: "their wear sums read every step's contacts, which the GPU keeps on the device; run with --backend cpu, or leave \"meshes\" out" },
    Limit { a: FrameStress, b: NonSpheres, why: "the Love–Weber stress divides by the grain's volume, which only spheres have here; leave it out, or write the fields of [fields]" },
];

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (a, b) = (self.a.name(), self.b.name());
        write!(f, "{b} cannot be combined with {a}: {}", self.why)
    }
}

/// The limit on features `a` and `b` together (either order), if the table has one.
pub fn limit(a: Feature, b: Feature) -> Option<&'static Limit> {
    LIMITS
        .iter()
        .find(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a))
}

/// The GPU backend's refusal of `feature` beside `side` (the GPU backend itself, or a
/// distributed run for a GPU rank), where the table has a row for the pair: the device's own
/// guard, which the world's build meets first with the row's reason. The error names the
/// feature as the table does.
pub fn device_refusal(side: Feature, feature: Feature) -> Result<(), GpuError> {
    match limit(side, feature) {
        Some(_) => Err(GpuError::Unsupported(feature.name())),
        None => Ok(()),
    }
}
