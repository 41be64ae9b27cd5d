//! # grains: rigid grains with hard contact and Coulomb friction
//!
//! Each step solves one cone complementarity problem (CCP): Anitescu's convex relaxation of
//! the Coulomb contact problem in velocities and impulses, over the ε̂-active contacts, with the
//! Φ/h stabilisation, then moves positions with the new velocities (`q⁺ = q + h v⁺`).
//!
//! ```
//! use grains::{Body, Material, Settings, World, WallDesc};
//! use glam::Vec3;
//! let mut b = World::builder(Settings::default());
//! b.material(Material::new(0.5));
//! b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
//! b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.1), 0.05, 1.0));
//! let mut world = b.build().unwrap();
//! world.run(1000).unwrap(); // only the GPU backend can fail (device lost, …)
//! assert!((world.position(0).z - 0.05).abs() < 1e-3);
//! ```

#![warn(missing_docs)]

pub mod body;
pub mod builder;
pub mod error;
pub mod geometry;
pub mod joint;
pub mod material;
pub mod motion;
pub mod settings;
pub mod snapshot;
pub mod world;

pub use body::{sphere_mass, Body, BodyKind, Shape};
pub use builder::WorldBuilder;
pub use error::BuildError;
pub use geometry::{BoxContainer, WallDesc};
pub use joint::{AppliedForce, JointDesc, JointKind, Motor, SpringDesc, SpringIntegration};
pub use material::{Material, MaterialId};
pub use motion::Prescribed;
pub use settings::{Backend, Envelope, Settings, SolverKind};
pub use snapshot::{Snapshot, SnapshotError};
pub use world::World;

pub use grains_kernels::GpuError;
pub use grains_kernels::{StageTimes, StepStats};
