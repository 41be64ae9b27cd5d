//! The unit tests of `src/reference/particle.rs`.

use grains_validation::reference::particle::*;
use grains_validation::reference::polyhedral::FrictionModel;
use grains_validation::reference::ReferenceError;

const PAPER: ParticleOnLine = ParticleOnLine {
    mass: 1.0,
    gravity: 9.81,
    mu: 0.3,
};

fn state(y: f64, vx: f64, vy: f64) -> ParticleState {
    ParticleState { x: 0.0, y, vx, vy }
}

/// The Coulomb step by hand: stop the normal velocity at −Φ/h, then friction μ c_n against
/// the tangential velocity, or stick.
fn coulomb_by_hand(p: &ParticleOnLine, s: &ParticleState, h: f64) -> [f64; 2] {
    let (vx, vy) = (s.vx, s.vy - h * p.gravity);
    let floor = -s.y / h;
    if vy >= floor {
        return [vx, vy];
    }
    let cn = p.mass * (floor - vy);
    let slip = vx.abs() - p.mu * cn / p.mass;
    [vx.signum() * slip.max(0.0), floor]
}

/// The CCP step by hand: project v* + (0, Φ/h) onto {w_y ≥ μ|w_x|} (unit mass metric).
fn relaxation_by_hand(p: &ParticleOnLine, s: &ParticleState, h: f64) -> [f64; 2] {
    let shift = s.y / h;
    let (wx, wy) = (s.vx, s.vy - h * p.gravity + shift);
    let mu = p.mu;
    let w = if wy >= mu * wx.abs() {
        [wx, wy]
    } else if wx.abs() <= -mu * wy {
        [0.0, 0.0]
    } else {
        let t = (wx.abs() + mu * wy) / (1.0 + mu * mu);
        [wx.signum() * t, mu * t]
    };
    [w[0], w[1] - shift]
}

#[test]
fn steps_match_the_hand_solutions_in_flight_landing_sliding_and_sticking() {
    let h = 0.01;
    let cases = [
        state(3.0, 3.0, 0.0),    // free flight
        state(0.02, 3.0, -5.0),  // landing, then sliding
        state(0.0, 2.0, 0.0),    // sliding on the line
        state(0.0, -2.0, 0.3),   // sliding backwards, moving up
        state(0.01, 0.05, -2.0), // landing and sticking
        state(0.0, 0.0, 0.0),    // at rest
    ];
    for s in cases {
        for (model, by_hand) in [
            (FrictionModel::Coulomb, coulomb_by_hand(&PAPER, &s, h)),
            (
                FrictionModel::ConeRelaxation,
                relaxation_by_hand(&PAPER, &s, h),
            ),
        ] {
            let next = PAPER.trajectory(model, s, h, 1).unwrap()[0];
            for (got, want) in [(next.vx, by_hand[0]), (next.vy, by_hand[1])] {
                assert!(
                    (got - want).abs() <= 1e-12 * (1.0 + want.abs()),
                    "{model:?} from {s:?}: got {next:?}, by hand {by_hand:?}"
                );
            }
            assert!((next.y - (s.y + h * next.vy)).abs() <= 1e-15);
        }
    }
}

#[test]
fn coulomb_slides_on_the_line_and_the_relaxation_lifts_off() {
    let h = 1e-3;
    let start = state(0.0, 3.0, 0.0);
    let lcp = PAPER
        .trajectory(FrictionModel::Coulomb, start, h, 100)
        .unwrap();
    assert!(lcp.iter().all(|s| s.y.abs() < 1e-12));
    // Coulomb deceleration μ g while sliding.
    let decel = (start.vx - lcp[99].vx) / (100.0 * h);
    assert!((decel - PAPER.mu * PAPER.gravity).abs() < 1e-9, "{decel}");
    let ccp = PAPER
        .trajectory(FrictionModel::ConeRelaxation, start, h, 1)
        .unwrap();
    // First step: the normal velocity μ‖v_T‖ of the relaxation.
    assert!((ccp[0].vy - PAPER.mu * ccp[0].vx).abs() < 1e-12);
    assert!(ccp[0].vy > 0.5);
}

#[test]
fn bad_parameters_are_typed_errors() {
    let s = state(1.0, 0.0, 0.0);
    let bad = |p: ParticleOnLine, h: f64, s: ParticleState, name: &str| match p.trajectory(
        FrictionModel::Coulomb,
        s,
        h,
        3,
    ) {
        Err(ReferenceError::Parameter { name: n, .. }) => assert_eq!(n, name),
        other => panic!("expected a {name} error, got {other:?}"),
    };
    bad(ParticleOnLine { mass: 0.0, ..PAPER }, 0.1, s, "mass");
    bad(ParticleOnLine { mu: -0.1, ..PAPER }, 0.1, s, "mu");
    bad(
        ParticleOnLine {
            gravity: f64::NAN,
            ..PAPER
        },
        0.1,
        s,
        "gravity",
    );
    bad(PAPER, 0.0, s, "h");
    bad(PAPER, 0.1, state(f64::INFINITY, 0.0, 0.0), "state");
}
