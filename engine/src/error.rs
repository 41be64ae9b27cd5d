//! Typed errors for worlds that cannot be built.

use grains_kernels::GpuError;
use thiserror::Error;

/// Why a world could not be built. Every variant names the offending item and field.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum BuildError {
    /// A body's field is out of range (index in the order bodies were added).
    #[error("body {body}: {field} {problem}")]
    Body {
        /// Index of the body.
        body: usize,
        /// Field name.
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// A material's field is out of range.
    #[error("material {material}: {field} {problem}")]
    Material {
        /// Index of the material.
        material: usize,
        /// Field name.
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// A wall's field is out of range.
    #[error("wall {wall}: {field} {problem}")]
    Wall {
        /// Index of the wall.
        wall: usize,
        /// Field name.
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// A mesh wall is malformed (index in the order meshes were added), at one of its
    /// triangles or as a whole.
    #[error("mesh {mesh}{}: {field} {problem}", triangle.map_or(String::new(), |t| format!(", triangle {t}")))]
    Mesh {
        /// Index of the mesh.
        mesh: usize,
        /// Index of the triangle at fault, if one is.
        triangle: Option<usize>,
        /// Field name.
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// A joint is malformed (index in the order joints were added).
    #[error("joint {joint}: {field} {problem}")]
    Joint {
        /// Index of the joint.
        joint: usize,
        /// Field name.
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// A spring is malformed (index in the order springs were added).
    #[error("spring {spring}: {field} {problem}")]
    Spring {
        /// Index of the spring.
        spring: usize,
        /// Field name.
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// An applied force is malformed (index in the order forces were added).
    #[error("force {force}: {field} {problem}")]
    Force {
        /// Index of the force.
        force: usize,
        /// Field name.
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// A setting is out of range.
    #[error("settings: {field} {problem}")]
    Settings {
        /// Setting name.
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// The worker threads could not be started.
    #[error("could not start {threads} worker threads: {reason}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// The system's reason.
        reason: String,
    },
    /// An insertion's field is out of range, or its rate cannot be placed (index in the order
    /// insertions were added).
    #[error("insert {insert}: {field} {problem}")]
    Insert {
        /// Index of the insertion.
        insert: usize,
        /// Field name.
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// A sink's field is out of range (index in the order sinks were added).
    #[error("sink {sink}: {field} {problem}")]
    Sink {
        /// Index of the sink.
        sink: usize,
        /// Field name.
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// The GPU backend was asked for but no GPU adapter (nor software device) exists.
    #[error("{0}")]
    NoGpuAdapter(String),
    /// The GPU backend could not start on the adapter it found (a missing device limit, too
    /// little memory, a device failure); the message names the adapter and what is missing.
    #[error("{0}")]
    Gpu(String),
    /// The world cannot be stepped by a distributed run over MPI (a solver, shape or part
    /// that the coupled solve across ranks does not cover); the message names it.
    #[error("distributed run: {0}")]
    Distributed(String),
}

impl From<GpuError> for BuildError {
    fn from(e: GpuError) -> Self {
        match e {
            GpuError::NoAdapter(_) => BuildError::NoGpuAdapter(e.to_string()),
            _ => BuildError::Gpu(e.to_string()),
        }
    }
}

/// True when every component is finite.
pub(crate) fn finite3(v: [f32; 3]) -> bool {
    v.iter().all(|x| x.is_finite())
}
