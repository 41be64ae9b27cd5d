//! The unit tests of `src/auto_step.rs`.

use grains::auto_step::{AutoStep, Choice, StepControl, CONTROL_BYTES, GROW};
use grains::StepStats;
use grains_kernels::Bodies;

#[test]
fn the_state_reads_back_as_written() {
    let c = StepControl {
        next: 1e-3,
        last: 2.5e-4,
        tick_shortest: 1e-5,
        taken: 12345,
        floored: 3,
        shortest: 1e-7,
        longest: 2e-3,
        sum: 0.75,
        deepest: 1e-5,
        overlap: 2e-6,
    };
    let bytes = c.to_bytes();
    assert_eq!(bytes.len(), CONTROL_BYTES);
    assert_eq!(StepControl::from_bytes(&bytes), Some(c));
    assert_eq!(StepControl::from_bytes(&bytes[1..]), None);
}

#[test]
fn a_step_lands_on_the_tick_and_the_budget_shrinks_or_grows_it() {
    let auto = AutoStep::new(1e-3);
    let c = StepControl::new(1e-3);
    let still = Bodies::default();
    // Nothing moves: the whole tick in one step; the rest of a tick in one or two halves.
    let whole = c.choose(&auto, &still, 0.01, 1e-3);
    assert_eq!(
        (whole.h, whole.chosen, whole.floored(&auto)),
        (1e-3, 1e-3, false)
    );
    let c = StepControl { next: 4e-4, ..c };
    assert_eq!(c.choose(&auto, &still, 0.01, 6e-4).h, 3e-4);
    let first = c.choose(&auto, &still, 0.01, 1e-3);
    assert_eq!(first.h, 4e-4);
    let mut c = c;
    let deep = StepStats {
        max_penetration: 0.03 * 0.01,
        ..Default::default()
    };
    c.record(&auto, &first, (&deep, 0.01, 1e-4, true), 1e-3);
    assert_eq!(c.next, 2e-4);
    let half = Choice {
        h: 2e-4,
        chosen: 2e-4,
        ..first
    };
    c.record(
        &auto,
        &half,
        (&StepStats::default(), 0.01, 1e-4, true),
        1e-3,
    );
    assert_eq!(c.next, 2e-4 * GROW);
    let unconverged = StepStats {
        residual: 10.0,
        ..Default::default()
    };
    c.record(&auto, &half, (&unconverged, 0.01, 1e-4, true), 1e-3);
    assert_eq!(c.next, 1e-4);
    assert_eq!((c.taken, c.shortest, c.longest), (3, 2e-4, 4e-4));
}
