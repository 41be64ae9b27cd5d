//! The unit tests of `src/output/progress.rs`.

use grains_app::output::progress::*;
use std::time::{Duration, Instant};

#[test]
fn times_are_printed_to_the_step_precision() {
    assert_eq!(format_time(12.000000104308128, 0.001f32 as f64), "12.000");
    assert_eq!(format_time(0.30000001, 0.01f32 as f64), "0.30");
    assert_eq!(format_time(1.00025, 2.5e-4f32 as f64), "1.00025");
    assert_eq!(format_time(3.0, 0.5), "3.0");
    assert_eq!(format_time(7.0, 1.0), "7");
    assert_eq!(format_duration(3723.0), "1h02m03s");
    assert_eq!(exact_time(12_000, 0.001), 12.0);
    assert_eq!(exact_time(3, 0.1).to_string(), "0.3");
    assert_eq!(exact_time(7, 2.5e-4).to_string(), "0.00175");
    assert_eq!(format_duration(125.0), "2m05s");
}

#[test]
fn a_status_line_comes_after_30_s_or_10_percent_whichever_is_first() {
    let t0 = Instant::now();
    let at = |secs| t0 + Duration::from_secs(secs);
    let mut rate = RecentRate::new(0, t0);
    let mut s = StatusLines::new(0, 1000, 0.001f32 as f64, t0, STATUS_EVERY);
    rate.record(50, at(10));
    assert_eq!(
        s.due(50, 0.05, at(10), &rate),
        None,
        "10 s and 5 % of the steps"
    );
    rate.record(100, at(20));
    let line = s.due(100, 0.100000001, at(20), &rate).unwrap();
    assert_eq!(
        line, "step 100/1000 (10 %), t = 0.100 s, 5 steps/s, ETA 3m00s",
        "10 % of the steps after 20 s"
    );
    rate.record(120, at(49));
    assert_eq!(s.due(120, 0.12, at(49), &rate), None, "29 s and 2 %");
    assert!(s.due(120, 0.12, at(50), &rate).is_some(), "30 s and 2 %");
}

#[test]
fn the_time_left_counts_this_process_steps_only() {
    // Resumed at step 9,000 of 10,000: before a step, no rate; then 10 steps/s.
    let t0 = Instant::now();
    let mut rate = RecentRate::new(9000, t0);
    assert_eq!(rate.time_left(10_000), "?");
    rate.record(9010, t0 + Duration::from_secs(1));
    assert_eq!(rate.per_second(), Some(10.0));
    assert_eq!(rate.time_left(10_000), "1m39s");
}

#[test]
fn the_rate_follows_the_recent_steps() {
    // 100 steps/s for a minute, then 10 steps/s: once the window holds only the slow
    // steps the rate is theirs, where the whole-run average would still say 55 steps/s.
    let t0 = Instant::now();
    let mut rate = RecentRate::new(0, t0);
    let mut step = 0;
    for sec in 1..=120u64 {
        step += if sec <= 60 { 100 } else { 10 };
        rate.record(step, t0 + Duration::from_secs(sec));
    }
    let r = rate.per_second().unwrap();
    assert!((r - 10.0).abs() < 1e-9, "the recent rate is {r} steps/s");
    assert_eq!(rate.time_left(step + 600), "1m00s");
    assert!(rate.samples_held() <= 1 + RATE_WINDOW.as_secs() as usize);
}
