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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Status;
    use std::path::PathBuf;

    #[test]
    fn the_registry_holds_v1_to_v26_once_each_in_order() {
        let ids: Vec<&str> = CASES.iter().map(|c| c.about().id).collect();
        let expected: Vec<String> = (1..=26).map(|k| format!("V{k}")).collect();
        assert_eq!(ids, expected);
    }

    #[test]
    fn a_case_is_found_by_its_id_in_either_letter_case_and_an_unknown_id_is_not() {
        assert_eq!(find("v12").map(|c| c.about().id), Some("V12"));
        assert_eq!(find("V1").map(|c| c.about().id), Some("V1"));
        assert!(find("V99").is_none());
        assert!(run_case("V0", &Setup::default()).is_none());
    }

    #[test]
    fn a_case_that_cannot_load_its_scene_fails_with_the_error_as_its_measurement() {
        let setup = Setup {
            scenes: PathBuf::from("no such folder"),
            ..Setup::default()
        };
        let r = run_case("V11", &setup).expect("V11 is registered");
        assert_eq!(r.status, Status::Fail);
        assert!(r.measured.starts_with("error: "), "{}", r.measured);
        assert!(r.measured.contains("v11_rolling_disk"), "{}", r.measured);
        assert_eq!(r.key_figure, r.measured);
        assert_eq!(
            r.expected,
            "kinetic energy constant to 1e-5 relative over 10 s"
        );
    }
}
