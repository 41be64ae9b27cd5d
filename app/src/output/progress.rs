//! Progress of a run: the recent stepping rate and the time left at it (for the progress bar on
//! a terminal and the status lines), a status line every so often when stderr is not a
//! terminal (a log file, a batch job), and simulated times printed to the step's precision.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Most wall time between two status lines of a run (`grains run --status-every` sets another,
/// for tests).
pub const STATUS_EVERY: Duration = Duration::from_secs(30);

/// Decimals that show a multiple of `h` (s) exactly: those of `h` itself (`0.01` → 2,
/// `2.5e-4` → 5), at most 9.
pub fn time_decimals(h: f64) -> usize {
    (0..9)
        .find(|&d| {
            let x = h * 10f64.powi(d as i32);
            // h comes from an f32: its decimal digits end within its 7 significant ones.
            (x - x.round()).abs() <= 1e-6 * x.abs().max(1.0)
        })
        .unwrap_or(9)
}

/// Simulated time `t` (s) to the precision of the step `h`, without the float noise of a sum
/// of steps (`12.000000104308128` with h = 0.001 → `12.000`).
pub fn format_time(t: f64, h: f64) -> String {
    format!("{t:.*}", time_decimals(h))
}

/// The time after `steps` steps of `h` (s) as the decimal it is, steps × h with h taken as
/// its shortest decimal (`0.001`, not the f32's 0.0010000000474974513) and the product rounded
/// to h's decimals: 12000 steps of 0.001 → 12.0, not 12.000000104308128.
pub fn exact_time(steps: u64, h: f32) -> f64 {
    let h = h.to_string().parse::<f64>().unwrap_or(h as f64);
    let scale = 10f64.powi(time_decimals(h) as i32);
    (steps as f64 * h * scale).round() / scale
}

/// A wall-clock duration as `1h02m03s`, `2m03s` or `3s`.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn format_duration(s: f64) -> String {
    let s = if s.is_finite() {
        s.max(0.0).round() as u64
    } else {
        0
    };
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, m, sec) => format!("{m}m{sec:02}s"),
        (hr, m, sec) => format!("{hr}h{m:02}m{sec:02}s"),
    }
}

/// How far back [`RecentRate`] looks: the rate of the last this many seconds of wall time.
pub const RATE_WINDOW: Duration = Duration::from_secs(20);

/// The stepping rate of the recent past: the steps taken over the last [`RATE_WINDOW`] of wall
/// time (or since the process started stepping, when that is shorter), from the samples
/// (wall instant, step) it is given. It counts only the steps of this process, so that a
/// resumed run's time left is not that of the steps the checkpoint already holds; and it
/// follows a rate that changes (a bed that settles, a heap that grows), where the average over
/// the whole run lags behind.
#[derive(Debug)]
pub struct RecentRate {
    samples: VecDeque<(Instant, u64)>,
}

impl RecentRate {
    /// How many samples it holds.
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn samples_held(&self) -> usize {
        self.samples.len()
    }

    /// Starting at step `step` now.
    pub fn new(step: u64, now: Instant) -> RecentRate {
        RecentRate {
            samples: VecDeque::from([(now, step)]),
        }
    }

    /// Records that the run is at step `step` at `now`, forgetting the samples that are older
    /// than the window (the oldest one inside it stays, as the window's start).
    pub fn record(&mut self, step: u64, now: Instant) {
        self.samples.push_back((now, step));
        while self
            .samples
            .get(1)
            .is_some_and(|&(t, _)| now.duration_since(t) >= RATE_WINDOW)
        {
            self.samples.pop_front();
        }
    }

    /// Steps per second over the window; `None` before a step was taken.
    pub fn per_second(&self) -> Option<f64> {
        let (&(t0, s0), &(t1, s1)) = (self.samples.front()?, self.samples.back()?);
        let wall = t1.duration_since(t0).as_secs_f64();
        (s1 > s0 && wall > 0.0).then(|| (s1 - s0) as f64 / wall)
    }

    /// The wall time left to reach step `total` at the recent rate, as `2m05s` (`?` before a
    /// step was taken).
    pub fn time_left(&self, total: u64) -> String {
        match (self.per_second(), self.samples.back()) {
            (Some(rate), Some(&(_, step))) => {
                format_duration(total.saturating_sub(step) as f64 / rate)
            }
            _ => "?".into(),
        }
    }
}

/// Decides when a status line is due and writes it.
#[derive(Debug)]
pub struct StatusLines {
    total: u64,
    h: f64,
    every: Duration,
    last: (Instant, u64),
}

impl StatusLines {
    /// For a run of `total` steps of `h` (s) that starts (or resumes) at step `step` now, with
    /// a line at least every `every` of wall time ([`STATUS_EVERY`] in a run).
    pub fn new(step: u64, total: u64, h: f64, now: Instant, every: Duration) -> StatusLines {
        StatusLines {
            total,
            h,
            every,
            last: (now, step),
        }
    }

    /// The status line after `step` steps at simulated time `t` (s), when one is due: after
    /// `every` of wall time or 10 % of the steps since the last one, whichever comes first. It
    /// gives the step, the simulated time, the recent rate and the time left at that rate.
    pub fn due(&mut self, step: u64, t: f64, now: Instant, rate: &RecentRate) -> Option<String> {
        let waited = now.duration_since(self.last.0) >= self.every;
        let advanced = step.saturating_sub(self.last.1).saturating_mul(10) >= self.total;
        if !(waited || advanced) {
            return None;
        }
        self.last = (now, step);
        Some(format!(
            "step {step}/{} ({:.0} %), t = {} s, {:.0} steps/s, ETA {}",
            self.total,
            100.0 * step as f64 / self.total.max(1) as f64,
            format_time(t, self.h),
            rate.per_second().unwrap_or(0.0),
            rate.time_left(self.total),
        ))
    }
}
