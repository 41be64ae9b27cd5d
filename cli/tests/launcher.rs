//! `grains` started by an MPI launcher: a build without the `mpi` feature refuses to be one of
//! several processes (with it, `mpi_run.rs` runs it distributed). A test binary of its own that
//! the workspace's test build with MPI compiles empty; `.ci/run` runs it alone, without MPI.
#![cfg(not(feature = "mpi"))]

use std::process::Command;

/// A `grains` built without the `mpi` feature and started by mpirun as one of several
/// processes (Open MPI's `OMPI_COMM_WORLD_SIZE`, PMI's `PMI_SIZE`) refuses in one line, naming
/// the feature, where each process would run the whole scene into one folder; as the only
/// process it runs as ever.
#[test]
fn a_build_without_mpi_refuses_to_be_one_of_several_ranks() {
    let grains = env!("CARGO_BIN_EXE_grains");
    for var in ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"] {
        let out = Command::new(grains)
            .args(["validate", "V1"])
            .env(var, "2")
            .output()
            .expect("grains runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{var}=2: refused");
        assert!(
            stderr.contains("one of 2 processes") && stderr.contains("--features mpi"),
            "{var}=2: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    }
    let alone = Command::new(grains)
        .args(["validate", "V1"])
        .env("OMPI_COMM_WORLD_SIZE", "1")
        .output()
        .expect("grains runs");
    assert!(
        alone.status.success(),
        "alone it runs: {}",
        String::from_utf8_lossy(&alone.stderr)
    );
}
