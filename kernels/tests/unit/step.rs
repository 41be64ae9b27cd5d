//! The unit tests of `src/step.rs`.

use grains_kernels::step::*;

/// Every stage has a slot of its own, and the total sums them all.
#[test]
fn each_stage_has_its_own_slot_in_the_total() {
    let mut times = StageTimes::default();
    for (k, stage) in Stage::ALL.into_iter().enumerate() {
        *times.slot(stage) += (1u32 << k) as f64;
    }
    assert_eq!(times.total(), 255.0);
    assert_eq!(
        (times.forces, times.impact, times.observe),
        (1.0, 8.0, 128.0)
    );
}
