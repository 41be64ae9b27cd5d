//! Progress of a run whose stderr is not a terminal (a log file, a batch job): a status line
//! every so often instead of a progress bar, and simulated times printed to the step's precision.

use std::time::{Duration, Instant};

/// Least wall time between two status lines.
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
fn format_duration(s: f64) -> String {
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

/// Decides when a status line is due and writes it.
#[derive(Debug)]
pub struct StatusLines {
    total: u64,
    h: f64,
    start: (Instant, u64),
    last: (Instant, u64),
}

impl StatusLines {
    /// For a run of `total` steps of `h` (s) that starts (or resumes) at step `step` now.
    pub fn new(step: u64, total: u64, h: f64, now: Instant) -> StatusLines {
        StatusLines {
            total,
            h,
            start: (now, step),
            last: (now, step),
        }
    }

    /// The status line after `step` steps at simulated time `t` (s), when one is due: at least
    /// [`STATUS_EVERY`] of wall time and 10 % of the steps since the last one, whichever comes
    /// later. It gives the step, the simulated time, the rate and the time left.
    pub fn due(&mut self, step: u64, t: f64, now: Instant) -> Option<String> {
        let waited = now.duration_since(self.last.0) >= STATUS_EVERY;
        let advanced = step.saturating_sub(self.last.1).saturating_mul(10) >= self.total;
        if !(waited && advanced) {
            return None;
        }
        self.last = (now, step);
        let wall = now.duration_since(self.start.0).as_secs_f64();
        let rate = step.saturating_sub(self.start.1) as f64 / wall.max(1e-9);
        let left = self.total.saturating_sub(step) as f64 / rate.max(1e-9);
        Some(format!(
            "step {step}/{} ({:.0} %), t = {} s, {rate:.0} steps/s, ETA {}",
            self.total,
            100.0 * step as f64 / self.total.max(1) as f64,
            format_time(t, self.h),
            format_duration(left),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_status_line_comes_after_30_s_and_10_percent_whichever_is_later() {
        let t0 = Instant::now();
        let mut s = StatusLines::new(0, 1000, 0.001f32 as f64, t0);
        let at = |secs| t0 + Duration::from_secs(secs);
        assert_eq!(s.due(500, 0.5, at(10)), None, "half the steps, but 10 s");
        assert_eq!(s.due(50, 0.05, at(40)), None, "40 s, but 5 % of the steps");
        let line = s.due(100, 0.100000001, at(40)).unwrap();
        assert_eq!(
            line,
            "step 100/1000 (10 %), t = 0.100 s, 2 steps/s, ETA 6m00s"
        );
        assert_eq!(s.due(300, 0.3, at(60)), None, "20 s since the last line");
        assert!(s.due(300, 0.3, at(70)).is_some());
    }
}
