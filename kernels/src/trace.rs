//! Stage 6, solve: the residual after every sweep of a step's solves, with the time it was
//! reached, for convergence studies (`grains bench --convergence`) and for users who want to see
//! how a solve converged. Recording costs a clock read per sweep.

use std::time::Instant;

/// One sweep of a solve: its max-norm residual (m/s) and the seconds since the step's first
/// solve began.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepRecord {
    /// Max-norm residual after the sweep (m/s).
    pub residual: f32,
    /// Seconds since the step's first sweep began.
    pub seconds: f64,
}

/// Every sweep of the last step's solves (impact, CCP, Coulomb-correction passes), in order.
#[derive(Debug, Default)]
pub struct Trace {
    began: Option<Instant>,
    sweeps: Vec<SweepRecord>,
}

impl Trace {
    /// Forgets the last step's sweeps and starts the clock.
    pub fn begin(&mut self) {
        self.sweeps.clear();
        self.began = Some(Instant::now());
    }

    /// Records one sweep's residual.
    pub fn record(&mut self, residual: f32) {
        let seconds = self.began.map_or(0.0, |t| t.elapsed().as_secs_f64());
        self.sweeps.push(SweepRecord { residual, seconds });
    }

    /// The sweeps recorded since the last [`Self::begin`].
    pub fn sweeps(&self) -> &[SweepRecord] {
        &self.sweeps
    }
}
