//! Sinks: regions that remove the dynamic grains whose centres lie in them, counting the number
//! and mass removed.

use crate::error::{finite3, BuildError};
use glam::Vec3;

/// The region a sink removes grains from (by their centres).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SinkShape {
    /// An axis-aligned box from `min` to `max` (m).
    Box {
        /// Lower corner (m).
        min: Vec3,
        /// Upper corner (m).
        max: Vec3,
    },
    /// The half-space on the side `normal` points to from the plane through `point`:
    /// (p − point) · normal > 0.
    HalfSpace {
        /// A point on the boundary plane (m).
        point: Vec3,
        /// Points into the sink (any length > 0).
        normal: Vec3,
    },
}

/// A named sink.
#[derive(Clone, Debug, PartialEq)]
pub struct Sink {
    /// The sink's name (in outputs).
    pub name: String,
    /// Where it removes grains.
    pub shape: SinkShape,
}

impl Sink {
    /// A sink named `name` over `shape`.
    pub fn new(name: impl Into<String>, shape: SinkShape) -> Self {
        Sink {
            name: name.into(),
            shape,
        }
    }

    /// True when the centre `p` lies in the sink.
    pub(crate) fn holds(&self, p: Vec3) -> bool {
        match self.shape {
            SinkShape::Box { min, max } => p.cmpge(min).all() && p.cmple(max).all(),
            SinkShape::HalfSpace { point, normal } => (p - point).dot(normal) > 0.0,
        }
    }

    /// Checks sink `i`'s shape.
    pub(crate) fn check(&self, i: usize) -> Result<(), BuildError> {
        let problem = match self.shape {
            SinkShape::Box { min, max } => (!(finite3(min.to_array())
                && finite3(max.to_array())
                && (max - min).cmpgt(Vec3::ZERO).all()))
            .then(|| format!("box needs finite corners with max {max} above min {min}")),
            SinkShape::HalfSpace { point, normal } => (!(finite3(point.to_array())
                && finite3(normal.to_array())
                && normal.length() > 0.0))
                .then(|| {
                    format!("half-space needs a finite point and a nonzero normal, got {point} and {normal}")
                }),
        };
        match problem {
            Some(problem) => Err(BuildError::Sink {
                sink: i,
                field: "shape",
                problem,
            }),
            None => Ok(()),
        }
    }
}

/// The running counts of a sink, saved in checkpoints.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SinkCounters {
    /// Grains removed.
    pub removed: u64,
    /// Mass removed (kg).
    pub mass: f64,
}
