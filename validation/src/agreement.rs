//! How closely the engine follows an exact reference: the heights of the engine's path against
//! the exact CCP's and the exact Coulomb LCP's at the same steps (V1–V3).

/// ‖a − b‖₂ over paired samples.
pub fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// How closely the engine follows the exact CCP on one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineAgreement {
    /// Largest |y_engine − y_CCP| (m).
    pub max_error: f64,
    /// ‖y_engine − y_CCP‖₂ / ‖y_CCP‖₂ over the samples.
    pub relative_error: f64,
    /// ‖y_engine − y_LCP‖₂ over the samples: the engine's own CCP–LCP difference (m).
    pub lcp_distance: f64,
}

impl EngineAgreement {
    /// Compares the engine's heights with the exact CCP's and LCP's at the same samples.
    pub fn measure(engine: &[f64], ccp: &[f64], lcp: &[f64]) -> Self {
        EngineAgreement {
            max_error: engine
                .iter()
                .zip(ccp)
                .map(|(e, c)| (e - c).abs())
                .fold(0.0, f64::max),
            relative_error: distance(engine, ccp) / distance(ccp, &vec![0.0; ccp.len()]),
            lcp_distance: distance(engine, lcp),
        }
    }
}
