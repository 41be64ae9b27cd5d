//! The Coulomb cone projection: in the cone, idempotent, and the nearest point (checked against
//! a brute-force search over the cone's surface and apex).

use glam::Vec4;
use grains_kernels::cone::{project_cone, project_cone_scaled4};

/// A small deterministic generator for test inputs (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn random_point(rng: &mut Rng) -> ([f32; 3], f32) {
    let mut u = || (rng.next_f64() * 2.0 - 1.0) as f32 * 3.0;
    let p = [u(), u(), u()];
    let mu = (rng.next_f64() * 1.2) as f32;
    (p, mu)
}

fn in_cone(g: [f32; 3], mu: f32) -> bool {
    (g[1] * g[1] + g[2] * g[2]).sqrt() <= mu * g[0] + 1e-5 * (1.0 + g[0].abs())
}

/// Squared distance in the metric diag(1, s², s²).
fn dist2(a: [f32; 3], b: [f32; 3], s2: f32) -> f64 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]].map(|x| x as f64);
    d[0] * d[0] + s2 as f64 * (d[1] * d[1] + d[2] * d[2])
}

/// The nearest cone point by search: the apex, and for each direction of the tangent circle
/// the best point of the generator line (a 1-D convex problem solved by golden section).
fn brute_nearest(p: [f32; 3], mu: f32, s2: f32) -> f64 {
    let mut best = dist2(p, [0.0; 3], s2);
    for k in 0..3600 {
        let phi = k as f64 / 3600.0 * std::f64::consts::TAU;
        let on_ray = |n: f64| {
            [
                n as f32,
                (mu as f64 * n * phi.cos()) as f32,
                (mu as f64 * n * phi.sin()) as f32,
            ]
        };
        let (mut lo, mut hi) = (0.0f64, 20.0f64);
        for _ in 0..100 {
            let (m1, m2) = (lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618);
            if dist2(p, on_ray(m1), s2) < dist2(p, on_ray(m2), s2) {
                hi = m2;
            } else {
                lo = m1;
            }
        }
        best = best.min(dist2(p, on_ray(0.5 * (lo + hi)), s2));
    }
    best
}

#[test]
fn projection_lies_in_the_cone_and_is_idempotent() {
    let mut rng = Rng(7);
    for _ in 0..10_000 {
        let (p, mu) = random_point(&mut rng);
        let q = project_cone(p[0], p[1], p[2], mu);
        assert!(in_cone(q, mu), "{p:?} μ={mu} → {q:?} is outside the cone");
        let r = project_cone(q[0], q[1], q[2], mu);
        for k in 0..3 {
            assert!(
                (r[k] - q[k]).abs() <= 1e-5 * (1.0 + q[k].abs()),
                "not idempotent: {q:?} → {r:?}"
            );
        }
        if in_cone(p, mu) && (p[1] * p[1] + p[2] * p[2]).sqrt() <= mu * p[0] {
            assert_eq!(q, p, "a point inside the cone must be kept");
        }
    }
}

#[test]
fn projection_is_the_nearest_cone_point() {
    let mut rng = Rng(11);
    for _ in 0..60 {
        let (p, mu) = random_point(&mut rng);
        let q = project_cone(p[0], p[1], p[2], mu);
        let found = dist2(p, q, 1.0);
        let best = brute_nearest(p, mu, 1.0);
        assert!(
            found <= best + 1e-5 * (1.0 + best),
            "{p:?} μ={mu}: projection at {found}, search found {best}"
        );
    }
}

/// The four-lane projection in the metric diag(1, s², s²), lane by lane.
fn project_scaled(p: [f32; 3], mu: f32, s2: f32) -> [f32; 3] {
    // Put the point in lane 2 among unrelated lanes: lanes must not interact.
    let lanes = |x: f32| Vec4::new(1.0, -2.0, x, 0.5);
    let [n, t1, t2] =
        project_cone_scaled4(lanes(p[0]), lanes(p[1]), lanes(p[2]), lanes(mu), lanes(s2));
    [n[2], t1[2], t2[2]]
}

#[test]
fn scaled_projection_is_nearest_in_its_metric() {
    let mut rng = Rng(13);
    for _ in 0..60 {
        let (p, mu) = random_point(&mut rng);
        let s2 = (0.2 + rng.next_f64() * 4.0) as f32;
        let q = project_scaled(p, mu, s2);
        assert!(
            in_cone(q, mu),
            "{p:?} μ={mu} s²={s2} → {q:?} is outside the cone"
        );
        let found = dist2(p, q, s2);
        let best = brute_nearest(p, mu, s2);
        assert!(
            found <= best + 1e-5 * (1.0 + best),
            "{p:?} μ={mu} s²={s2}: {found} vs search {best}"
        );
    }
}

#[test]
fn scaled_projection_with_unit_metric_is_the_euclidean_one() {
    let mut rng = Rng(17);
    for _ in 0..10_000 {
        let (p, mu) = random_point(&mut rng);
        let a = project_scaled(p, mu, 1.0);
        let b = project_cone(p[0], p[1], p[2], mu);
        for k in 0..3 {
            assert!(
                (a[k] - b[k]).abs() <= 1e-6 * (1.0 + b[k].abs()),
                "{p:?} μ={mu}: {a:?} vs {b:?}"
            );
        }
    }
}

#[test]
fn frictionless_cone_is_the_half_line() {
    assert_eq!(project_cone(2.0, 1.0, -1.0, 0.0), [2.0, 0.0, 0.0]);
    assert_eq!(project_cone(-2.0, 1.0, -1.0, 0.0), [0.0, 0.0, 0.0]);
    assert_eq!(project_scaled([-1.0, 3.0, 0.0], 0.0, 2.0), [0.0, 0.0, 0.0]);
    assert_eq!(project_scaled([1.0, 3.0, 0.0], 0.0, 2.0), [1.0, 0.0, 0.0]);
}
