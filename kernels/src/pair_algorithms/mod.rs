//! The pair routines that belong to no one shape, one file per algorithm: the pairs of round
//! shapes, and a shape against a curved wall or a mesh triangle. A shape's routines against
//! itself and against spheres stand in its own file of [`crate::shapes`]; the pair table
//! ([`crate::pairs`]) names which routine meets which pair.

pub mod ellipsoid_frustum;
pub mod ellipsoid_triangle;
pub mod polytope_triangle;
pub mod round;
