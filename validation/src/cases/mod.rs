//! The validation cases, one file per group, and the registry [`CASES`] that `grains validate`
//! runs. A new case is one [`Case`](crate::Case) in its group's file and one line here.

pub mod bar;
pub mod boxes;
pub mod brazil_nut;
pub mod clumps;
pub mod drum_rest;
pub mod ellipse;
pub mod ellipsoids;
pub mod free_rotation;
pub mod geometric;
pub mod links;
pub mod on_floor;
pub mod particle;
pub mod polygon_disc;
pub mod polyhedra;
pub mod restitution;
pub mod rolling;
pub mod spin_and_roll;
pub mod stacks;

use crate::case::{CaseResult, Registered, Setup};

/// Every case, in the order `grains validate` runs and reports them.
pub const CASES: [&dyn Registered; 26] = [
    &particle::V1,
    &particle::V2,
    &bar::V3,
    &ellipse::V4,
    &stacks::V5,
    &stacks::V6,
    &brazil_nut::V7,
    &spin_and_roll::V8,
    &rolling::V9,
    &spin_and_roll::V10,
    &rolling::V11,
    &spin_and_roll::V12,
    &links::V13,
    &links::V14,
    &restitution::V15,
    &geometric::V16,
    &geometric::V17,
    &geometric::V18,
    &geometric::V19,
    &polygon_disc::V20,
    &free_rotation::V21,
    &boxes::V22,
    &clumps::V23,
    &ellipsoids::V24,
    &polyhedra::V25,
    &drum_rest::V26,
];

/// The registered case of id `id` (any case), if there is one.
pub fn find(id: &str) -> Option<&'static dyn Registered> {
    CASES
        .iter()
        .copied()
        .find(|c| c.about().id.eq_ignore_ascii_case(id))
}

/// Runs case `id` (any case) in `setup`; None for an unknown id.
pub fn run_case(id: &str, setup: &Setup) -> Option<CaseResult> {
    find(id).map(|c| c.evaluate(setup))
}
