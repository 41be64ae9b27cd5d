//! # grains: rigid grains with hard contact and Coulomb friction
//!
//! Each step solves one cone complementarity problem (CCP): Anitescu's convex relaxation of
//! the Coulomb contact problem in velocities and impulses, over the ε̂-active contacts, with the
//! Φ/h stabilisation, then moves positions with the new velocities (`q⁺ = q + h v⁺`).
//!
//! A sphere dropped on a floor comes to rest on it:
//!
//! ```
//! use grains::{Body, Material, Settings, Vec3, WallDesc, World};
//!
//! let mut builder = World::builder(Settings::default());
//! builder.material(Material::new(0.5)); // friction coefficient μ
//! builder.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z)); // the floor z = 0
//! builder.body(Body::sphere(Vec3::new(0.0, 0.0, 0.1), 0.05, 1.0)); // centre, radius, mass
//! let mut world = builder.build().unwrap();
//! world.run(1000).unwrap(); // one second at h = 1 ms
//! assert!((world.position(0).z - 0.05).abs() < 1e-3);
//! let contact = world.contacts().next().unwrap(); // the floor holds the sphere up
//! assert!((contact.force.z - 9.81).abs() < 1e-2);
//! ```
//!
//! The math types of the API ([`Vec3`], [`Quat`], [`Vec4`]) are re-exported, and the whole
//! [`glam`] crate with them, so a program needs no `glam` dependency of its own.

#![warn(missing_docs)]

pub mod auto_step;
mod backend;
pub mod body;
mod bond_breakage;
mod bonds;
pub mod builder;
pub mod clump;
pub mod contact;
pub mod decomposition;
#[cfg(feature = "mpi")]
pub mod distributed;
pub mod domain;
pub mod error;
mod external;
pub mod fields;
pub mod fill;
pub mod fingerprint;
pub mod fluid;
pub mod geometry;
pub mod health;
pub mod implicit;
mod inertia;
pub mod insertion;
pub mod joint;
pub mod lifecycle;
pub mod loads;
pub mod material;
pub mod mesh;
pub mod motion;
pub mod periodic;
pub mod pieces;
mod plane_groups;
pub mod polyhedron;
pub mod rank_traffic;
pub mod reach;
mod restore;
pub mod servo;
pub mod settings;
pub mod sink;
pub mod snapshot;
pub mod solver;
pub mod support;
mod wall_depth;
mod wall_partners;
pub mod world;

pub use glam;
pub use glam::{Quat, Vec3, Vec4};
pub use grains_kernels::geometric;

pub use auto_step::{AutoStep, StepControl};
pub use body::{
    capsule_mass, capsule_principal_moments, cube_mass, cuboid_mass, disk_mass, ellipse_mass,
    shape_code, shape_half_extents, shape_name, sphere_mass, stadium_moment, Body, BodyKind, Shape,
};
pub use body::{ellipsoid_mass, ellipsoid_principal_moments};
pub use builder::WorldBuilder;
pub use clump::{Clump, ClumpTemplate};
pub use contact::{Contact, Touching};
pub use domain::{Domain, Whereabouts};
pub use error::BuildError;
pub use fill::{FillError, FillRegion, Lattice, RandomFill};
pub use fingerprint::Fingerprint;
pub use geometry::{ActiveWindow, BoxContainer, WallDesc, WallShape};
pub use grains_kernels::traffic::SweepTraffic;
pub use grains_kernels::SweepRecord;
pub use health::{Check, Fault, Health, StepError};
pub use insertion::{Insertion, Rate, Region, SizeDistribution, SizeLaw};
pub use joint::{
    AppliedForce, BondLoad, BondStiffness, BondStrength, JointDesc, JointKind, Motor, SpringDesc,
    SpringIntegration,
};
pub use lifecycle::LifecycleTotals;
pub use loads::WallLoad;
pub use material::{LiquidBridge, Material, MaterialId};
pub use mesh::{MeshDesc, Rotation, TriangleLoad};
pub use motion::Prescribed;
pub use periodic::Periodic;
pub use pieces::{PieceEntry, PieceError, SnapshotIndex, SnapshotPiece};
pub use polyhedron::{HullError, HullId, Polyhedron};
pub use rank_traffic::RankTraffic;
pub use servo::{Servo, ServoState};
pub use settings::{Backend, Envelope, Integrator, Settings};
pub use sink::{Sink, SinkShape};
pub use snapshot::{LifecycleState, Snapshot, SnapshotError};
pub use solver::{Solver, SolverKind};
pub use world::World;

pub use grains_kernels::GpuError;
pub use grains_kernels::{Stage, StageTimes, StepStats};

/// The README's library example runs as a doc test, so the front page cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExample;
