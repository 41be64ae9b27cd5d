//! The unit tests of `src/reference/polyhedral.rs`.

use grains_validation::reference::polyhedral::*;

const G: f64 = 9.81;

/// A point mass sliding on the plane z = 0 in 3-D: its positions after each step of h from
/// the origin at velocity (vx, vy, 0), with the polyhedral cone of m directions about x̂.
fn slide(model: FrictionModel, m: usize, v0: [f64; 2], mu: f64, h: f64) -> Vec<[f64; 3]> {
    let directions: Vec<Vec<f64>> = polygon_directions([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], m)
        .into_iter()
        .map(|d| d.to_vec())
        .collect();
    let (mut q, mut v) = ([0.0; 3], [v0[0], v0[1], 0.0]);
    let mut path = Vec::new();
    for _ in 0..100_000 {
        let v_free = [v[0], v[1], v[2] - h * G];
        let contact = ContactRows {
            normal: vec![0.0, 0.0, 1.0],
            directions: directions.clone(),
            gap: q[2],
            mu,
        };
        let next = step_velocity(model, &[1.0; 3], &v_free, &[contact], h, 200).unwrap();
        v = [next[0], next[1], next[2]];
        q = [0, 1, 2].map(|k| q[k] + h * v[k]);
        path.push(q);
        if v[0].hypot(v[1]) < 1e-12 {
            break;
        }
    }
    path
}

/// Where the slide stops, and the closed form for Coulomb friction of constant deceleration
/// a along the start direction: v₀² / (2a) plus the step's O(h v₀) (forward Euler on the
/// position puts each step's stop at the end of the step).
fn stop(path: &[[f64; 3]]) -> [f64; 3] {
    *path.last().unwrap()
}

#[test]
fn polygon_directions_are_unit_and_balanced() {
    for m in [2, 4, 6, 8] {
        let d = polygon_directions([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], m);
        assert_eq!(d.len(), m);
        for (j, dj) in d.iter().enumerate() {
            let length2: f64 = dj.iter().map(|x| x * x).sum();
            assert!((length2 - 1.0).abs() < 1e-15);
            let opposite = if m % 2 == 0 {
                d[(j + m / 2) % m]
            } else {
                continue;
            };
            assert!((0..3).all(|k| (dj[k] + opposite[k]).abs() < 1e-15));
        }
    }
}

/// Along one of the m directions the polyhedral Coulomb cone decelerates at μ g exactly,
/// and midway between two at μ g cos(π/m), the polygon's edge: the stop distances are
/// v₀²/(2μg) and v₀²/(2μg cos(π/m)) (up to one step's travel), and a slide that starts on
/// either keeps its direction.
#[test]
fn polyhedral_coulomb_decelerates_at_the_polygon_support() {
    let (mu, h, speed) = (0.3, 1e-3, 2.0);
    for m in [4, 6, 8, 16] {
        let half = std::f64::consts::PI / m as f64;
        for (angle, deceleration) in [(0.0, mu * G), (half, mu * G * half.cos())] {
            let v0 = [speed * angle.cos(), speed * angle.sin()];
            let end = stop(&slide(FrictionModel::Coulomb, m, v0, mu, h));
            let distance = end[0].hypot(end[1]);
            let expected = speed * speed / (2.0 * deceleration);
            assert!(
                (distance - expected).abs() <= h * speed,
                "m = {m}, angle {angle}: stopped at {distance}, closed form {expected}"
            );
            let heading = end[1].atan2(end[0]);
            assert!((heading - angle).abs() < 1e-9, "m = {m}: heading {heading}");
            assert!(
                end[2].abs() < 1e-12,
                "Coulomb stays on the plane: {}",
                end[2]
            );
        }
    }
}

/// From a generic heading the polyhedral cone's stop point tends to the circular cone's,
/// D₀ = v₀²/(2μg) along the start heading α, as m grows. The friction acts along the
/// direction nearest −v (or along a polygon edge), so the heading only drifts towards the
/// nearest direction or edge midpoint, within π/m of α, and the deceleration along v lies
/// in [μg cos(π/m), μg]: the path length is in [D₀, D₀/cos(π/m)] and the stop point's
/// projection on α in [D₀ cos(π/m), D₀/cos(π/m)], its offset across α at most D₀ tan(π/m).
/// The miss is bounded by D₀ (1/cos(π/m) − cos(π/m) + tan(π/m)) ~ D₀ π/m, plus two steps'
/// travel.
#[test]
fn polyhedral_coulomb_tends_to_the_circular_cone() {
    let (mu, h, speed, angle) = (0.3, 1e-3, 2.0, 0.3f64);
    let exact = speed * speed / (2.0 * mu * G);
    let target = [exact * angle.cos(), exact * angle.sin()];
    let ms = [4usize, 8, 16, 32, 64];
    let misses = ms.map(|m| {
        let end = stop(&slide(
            FrictionModel::Coulomb,
            m,
            [speed * angle.cos(), speed * angle.sin()],
            mu,
            h,
        ));
        (end[0] - target[0]).hypot(end[1] - target[1])
    });
    for (m, miss) in ms.iter().zip(misses) {
        let a = std::f64::consts::PI / *m as f64;
        let bound = exact * (1.0 / a.cos() - a.cos() + a.tan()) + 2.0 * h * speed;
        assert!(miss <= bound, "m = {m}: miss {miss} > bound {bound}");
    }
    assert!(misses[4] < misses[0] / 20.0, "{misses:?}");
}

/// The relaxation on the same polygon: while sliding it lifts the mass off the plane at
/// μ‖v_T‖ per unit normal speed (anitescu-2006 §5): the first step of a slide along a
/// direction from rest on the plane leaves at v_z = μ v_T, v_T = (v₀ − μ h g)/(1 + μ²), the
/// projection of v* onto the cone's generator n + μ d in the unit-mass metric.
#[test]
fn the_relaxation_lifts_a_sliding_mass_as_the_ccp_does() {
    let (mu, h, speed) = (0.3, 1e-3, 2.0);
    for m in [4, 8] {
        let path = slide(FrictionModel::ConeRelaxation, m, [speed, 0.0], mu, h);
        let vz = path[0][2] / h;
        let vt = (speed - mu * h * G) / (1.0 + mu * mu);
        assert!(
            (vz - mu * vt).abs() < 1e-9,
            "m = {m}: v_z {vz}, model {}",
            mu * vt
        );
        assert!((path[0][0] / h - vt).abs() < 1e-9);
    }
}
