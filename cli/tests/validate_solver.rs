//! `grains validate --solver`: the iteration reaches the cases, the names are those of scene
//! files' `solver` key, and an unknown one is refused with the known ones listed.

use std::process::Command;

/// `grains validate` with `args` and `--json`: (exit ok, the cases' JSON, stderr).
fn validate(args: &[&str]) -> (bool, serde_json::Value, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_grains"))
        .arg("validate")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let cases = serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Null);
    (o.status.success(), cases, err)
}

/// V5 (the 21-disk cannonball) passes under APGD, which ends it in another state than the case's
/// own Gauss–Seidel (its smallest gap between disks differs), so the option reached the world;
/// `gauss_seidel` by name is the case's own. (Projected Jacobi at the case's ω = 1 diverges on
/// the stack, as it does on any pile at ω above about 0.4.)
#[test]
fn validate_solves_the_cases_with_the_solver_asked_for() {
    let measured = |args: &[&str]| {
        let (ok, cases, err) = validate(args);
        assert!(ok, "{args:?}: {cases} {err}");
        let case = &cases[0];
        assert_eq!(case["id"], "V5", "{case}");
        assert_eq!(case["status"], "Pass", "{args:?}: {case}");
        case["measured"].as_str().unwrap().to_owned()
    };
    let own = measured(&["V5"]);
    assert_eq!(measured(&["V5", "--solver", "gauss_seidel"]), own);
    assert_ne!(measured(&["V5", "--solver", "apgd"]), own);
}

#[test]
fn validate_refuses_an_unknown_solver_listing_the_known_ones() {
    let (ok, _, err) = validate(&["V5", "--solver", "newton"]);
    assert!(!ok);
    for name in ["newton", "gauss_seidel", "jacobi", "apgd"] {
        assert!(err.contains(name), "{err}");
    }
}
