//! A run as one rank of two, for the tests of what a distributed run refuses before it starts:
//! the MPI calls stand in (the refusal comes before any of them matters).

use grains_app::runner::{run_distributed, Distribute, RunOptions};
use grains_app::scene::Scene;

/// The error of `scene` run as rank 0 of 2 into a fresh folder named after `name`, which must
/// stay unwritten.
pub fn refusal(scene: Scene, name: &str) -> String {
    let out = std::env::temp_dir().join(format!("grains-one-rank-{name}-{}", std::process::id()));
    let opts = RunOptions {
        threads: Some(1),
        progress: false,
        ..RunOptions::new(&out)
    };
    let distribute = Distribute {
        split: |_| Ok(()),
        rank: 0,
        ranks: 2,
        writes: true,
        first_failed: |failed| failed.then_some(0),
        all_gather: |mine| mine.to_vec(),
    };
    let e = run_distributed(scene, &opts, Some(distribute))
        .expect_err("a distributed run refuses the scene")
        .to_string();
    assert!(!out.exists(), "nothing was written");
    e
}
