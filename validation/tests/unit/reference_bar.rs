//! The unit tests of `src/reference/bar.rs`.

use grains_validation::reference::bar::*;
use grains_validation::reference::polyhedral::FrictionModel;
use grains_validation::reference::ReferenceError;

/// The slides' Painlevé bar: l = 2, m = 1, I = m/16, μ = 0.75.
const PAINLEVE: BarOnLine = BarOnLine {
    mass: 1.0,
    inertia: 1.0 / 16.0,
    half_length: 1.0,
    gravity: 9.81,
    mu: 0.75,
};

const MODELS: [FrictionModel; 2] = [FrictionModel::Coulomb, FrictionModel::ConeRelaxation];

fn tilted(y: f64, vx: f64) -> BarState {
    BarState {
        x: 0.0,
        y,
        theta: 72f64.to_radians(),
        vx,
        vy: 0.0,
        omega: 0.0,
    }
}

#[test]
fn in_flight_the_bar_falls_freely_and_keeps_its_spin() {
    let h = 0.01;
    let start = BarState {
        omega: 2.0,
        ..tilted(5.0, 1.0)
    };
    for model in MODELS {
        let path = PAINLEVE.trajectory(model, start, h, 20).unwrap();
        for (k, s) in path.iter().enumerate() {
            let t = h * (k + 1) as f64;
            assert!(
                (s.vy + PAINLEVE.gravity * t).abs() < 1e-12,
                "{model:?} {s:?}"
            );
            assert!((s.omega - 2.0).abs() < 1e-12 && (s.vx - 1.0).abs() < 1e-12);
        }
    }
}

/// Without friction no horizontal force acts: the centre's x velocity stays v₀ through the
/// impact and after, on both schemes (with μ = 0 they are the same LCP).
#[test]
fn without_friction_the_centre_keeps_its_horizontal_speed() {
    let bar = BarOnLine {
        mu: 0.0,
        ..PAINLEVE
    };
    let h = 1e-3;
    let lcp = bar
        .trajectory(FrictionModel::Coulomb, tilted(1.2, -1.0), h, 2000)
        .unwrap();
    let ccp = bar
        .trajectory(FrictionModel::ConeRelaxation, tilted(1.2, -1.0), h, 2000)
        .unwrap();
    assert!(lcp.iter().all(|s| (s.vx + 1.0).abs() < 1e-9));
    assert!(lcp.iter().any(|s| s.vy > 0.0), "the bar must hit the line");
    for (a, b) in lcp.iter().zip(&ccp) {
        assert!((a.y - b.y).abs() < 1e-9 && (a.theta - b.theta).abs() < 1e-9);
    }
}

/// Dropped from 0.5 m: both schemes keep the lower end on or above the line after the
/// impact (to the step's O(h) at the impact), lose energy over the run and leave the bar
/// lying on the line, and the Coulomb LCP never penetrates once in contact.
#[test]
fn the_dropped_bar_lands_loses_energy_and_lies_down() {
    let h = 1e-3;
    let start = tilted(1.0 * 72f64.to_radians().sin() + 0.5, -1.0);
    let e0 = PAINLEVE.energy(&start);
    for model in MODELS {
        let path = PAINLEVE.trajectory(model, start, h, 3000).unwrap();
        let end = path.last().unwrap();
        assert!(PAINLEVE.energy(end) < 0.05 * e0, "{model:?}: {end:?}");
        assert!(
            end.y.abs() < 1e-3 && end.theta.sin().abs() < 1e-3,
            "{end:?}"
        );
        let lowest = path
            .iter()
            .map(|s| s.lower_end_height(PAINLEVE.half_length))
            .fold(f64::INFINITY, f64::min);
        assert!(lowest > -0.05, "{model:?}: lower end reached {lowest}");
    }
}

#[test]
fn bad_parameters_are_typed_errors() {
    let s = tilted(2.0, 0.0);
    let bad = |b: BarOnLine, h: f64, s: BarState, name: &str| match b.trajectory(
        FrictionModel::Coulomb,
        s,
        h,
        3,
    ) {
        Err(ReferenceError::Parameter { name: n, .. }) => assert_eq!(n, name),
        other => panic!("expected a {name} error, got {other:?}"),
    };
    bad(
        BarOnLine {
            inertia: 0.0,
            ..PAINLEVE
        },
        0.1,
        s,
        "inertia",
    );
    bad(
        BarOnLine {
            half_length: -1.0,
            ..PAINLEVE
        },
        0.1,
        s,
        "half_length",
    );
    bad(PAINLEVE, f64::NAN, s, "h");
    bad(
        PAINLEVE,
        0.1,
        BarState {
            omega: f64::NAN,
            ..s
        },
        "state",
    );
}
