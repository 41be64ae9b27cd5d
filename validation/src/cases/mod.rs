//! The validation cases, one file per group, and the registry [`CASES`] that `grains validate`
//! runs. A new case is one [`Case`](crate::Case) in its group's file and one line here.

pub mod bar;
pub mod brazil_nut;
pub mod ellipse;
pub mod links;
pub mod particle;
pub mod restitution;
pub mod rolling;
pub mod spin_and_roll;
pub mod stacks;

use crate::case::Registered;

/// Every case, in the order `grains validate` runs and reports them.
pub const CASES: [&dyn Registered; 15] = [
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
];
