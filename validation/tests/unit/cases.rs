//! The unit tests of `src/cases/mod.rs`.

use grains_validation::case::Setup;
use grains_validation::case::Status;
use grains_validation::cases::*;
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
