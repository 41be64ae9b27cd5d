//! # grains-app: scene files, headless runs and their outputs
//!
//! The application layer over the `grains` library: [`scene`] reads a TOML scene file into a
//! world, [`runner`] steps it headless with progress, checkpoints and resume, and [`output`]
//! writes ParaView frames, CSV observables, PNG pictures and a JSON summary; [`stl`] reads the
//! triangle meshes of mesh walls from STL files. [`pour`] builds the
//! `pour` benchmark scene to the bit.

#![warn(missing_docs)]

pub mod bounds;
pub mod convergence;
mod input;
mod one_line;
pub mod output;
pub mod pour;
pub mod runner;
pub mod scene;
pub mod stl;
