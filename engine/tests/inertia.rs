//! Full rigid-body inertia: the free rotation of an asymmetric body against the closed forms of
//! Euler's equations, the isotropic case bit for bit, and the refusals.

use grains::glam::DVec3;
use grains::{capsule_principal_moments, Body, BuildError, Material, Settings, Vec3, World};
use grains_kernels::inertia::free_rotation_period;

/// A world of one body, no gravity, no walls, on `threads` threads.
fn alone(b: Body, threads: usize) -> World {
    let mut w = World::builder(Settings {
        gravity: Vec3::ZERO,
        h: 1e-3,
        threads,
        ..Settings::default()
    });
    w.material(Material::new(0.5));
    w.body(b);
    w.build().expect("a lone body builds")
}

/// The box-like inertia of the tennis-racket test and its start: spun at 3 rad/s about the
/// intermediate axis y with a small push about x and z.
const MOMENTS: Vec3 = Vec3::new(1.0, 2.0, 3.0);
const SPIN: Vec3 = Vec3::new(0.2, 3.0, 0.2);

/// Body-frame angular velocity of body 0.
fn body_spin(w: &World) -> DVec3 {
    (w.orientation(0).inverse() * w.angular_velocity(0)).as_dvec3()
}

/// Energy ½ ω_bᵀ I ω_b and world angular momentum R I ω_b of body 0, in f64.
fn energy_and_momentum(w: &World) -> (f64, DVec3) {
    let wb = body_spin(w);
    let m = MOMENTS.as_dvec3();
    let q = w.orientation(0).as_dquat();
    (0.5 * wb.dot(m * wb), q * (m * wb))
}

/// The intermediate-axis flip (Dzhanibekov's T-handle): over 10 s at h = 1e-3 the spin about y
/// reverses, the times between reversals match the elliptic half period 2K/s, and the kinetic
/// energy and the world angular momentum stay put.
#[test]
fn box_spun_about_its_intermediate_axis_flips_and_keeps_energy_and_momentum() {
    let b = Body::sphere(Vec3::ZERO, 0.1, 1.0)
        .with_principal_moments(MOMENTS)
        .with_angular_velocity(SPIN);
    let mut w = alone(b, 1);
    let (e0, l0) = energy_and_momentum(&w);
    let half_period = 0.5 * free_rotation_period(MOMENTS.as_dvec3(), SPIN.as_dvec3());
    let (mut crossings, mut last) = (Vec::new(), body_spin(&w).y);
    let (mut drift_e, mut drift_l) = (0.0f64, 0.0f64);
    for _ in 0..10_000 {
        w.step().expect("steps");
        let y = body_spin(&w).y;
        if y.signum() != last.signum() {
            // Linear interpolation of the zero between the two steps.
            crossings.push(w.time() - 1e-3 * y / (y - last));
        }
        last = y;
        let (e, l) = energy_and_momentum(&w);
        drift_e = drift_e.max((e - e0).abs() / e0);
        drift_l = drift_l.max((l - l0).length() / l0.length());
    }
    println!(
        "flips at {crossings:?} s, half period {half_period} s, energy drift {drift_e:e}, momentum drift {drift_l:e}"
    );
    assert!(
        crossings.len() >= 2,
        "the spin about y reverses (half period {half_period} s): {crossings:?}"
    );
    for pair in crossings.windows(2) {
        let gap = pair[1] - pair[0];
        // The midpoint rule's phase error is O((h s)²) per unit time, far below 1e-3; the
        // interpolated crossing is good to about h²s.
        assert!(
            (gap - half_period).abs() < 1e-3 * half_period,
            "reversals {gap} s apart, the elliptic half period is {half_period} s"
        );
    }
    // The scheme keeps both exactly but for f32 rounding of the state each step (about 1e-7,
    // a random walk over 10⁴ steps).
    assert!(drift_e <= 1e-4, "relative kinetic energy drift {drift_e}");
    assert!(drift_l <= 1e-4, "relative angular momentum drift {drift_l}");
    assert!(
        (w.last_stats().kinetic_energy - e0).abs() <= 1e-4 * e0,
        "the step's kinetic energy statistic is ½ ωᵀIω"
    );
}

/// Three equal principal moments are the isotropic body: the same bits as the scalar inertia,
/// over a free spin.
#[test]
fn equal_moments_are_the_scalar_inertia_bit_for_bit() {
    let sphere = Body::sphere(Vec3::ZERO, 0.1, 1.0).with_angular_velocity(SPIN);
    let tensor = sphere.with_principal_moments(Vec3::splat(sphere.inertia));
    let (mut a, mut b) = (alone(sphere, 1), alone(tensor, 1));
    a.run(500).unwrap();
    b.run(500).unwrap();
    assert_eq!(a.bodies(), b.bodies());
    assert_eq!(a.last_stats(), b.last_stats());
}

/// The free rotation gives the same bits on one and two threads.
#[test]
fn free_rotation_is_the_same_for_any_thread_count() {
    let b = Body::sphere(Vec3::ZERO, 0.1, 1.0)
        .with_principal_moments(MOMENTS)
        .with_angular_velocity(SPIN);
    let (mut one, mut two) = (alone(b, 1), alone(b, 2));
    one.run(1000).unwrap();
    two.run(1000).unwrap();
    assert_eq!(one.bodies(), two.bodies());
}

/// The capsule's closed form: a sphere when L = 0, the thin bar when r → 0, and the sum of the
/// parts against a numerical integration over slices along the axis.
#[test]
fn capsule_moments_meet_their_limits_and_a_slice_sum() {
    let sphere = capsule_principal_moments(0.5, 0.0, 2.0);
    assert!((sphere - Vec3::splat(0.4 * 2.0 * 0.25)).abs().max_element() < 1e-6);
    let bar = capsule_principal_moments(1e-4, 1.0, 3.0);
    assert!((bar.y - 3.0 * 4.0 / 12.0).abs() < 1e-3 && bar.x < 1e-6);
    // Slices of the solid along x: discs of radius ρ(x) with I_x = ½ dm ρ², I_y = dm (ρ²/4 + x²).
    let (r, l, m) = (0.3f64, 0.7f64, 2.0f64);
    let n = 200_000;
    let (mut mass, mut ix, mut iy) = (0.0, 0.0, 0.0);
    for k in 0..n {
        let x = -(l + r) + (k as f64 + 0.5) * 2.0 * (l + r) / n as f64;
        let end = (x.abs() - l).max(0.0);
        let rho2 = r * r - end * end;
        let dm = std::f64::consts::PI * rho2 * 2.0 * (l + r) / n as f64;
        mass += dm;
        ix += 0.5 * dm * rho2;
        iy += dm * (rho2 / 4.0 + x * x);
    }
    let got = capsule_principal_moments(r as f32, l as f32, m as f32).as_dvec3();
    let want = DVec3::new(ix, iy, iy) * (m / mass);
    assert!(
        (got - want).abs().max_element() < 1e-5 * want.max_element(),
        "{got} vs {want}"
    );
}

/// Moments no mass distribution has, and anisotropic bodies where the world cannot turn them,
/// are refused naming the body and field.
#[test]
fn impossible_moments_and_unsupported_worlds_are_refused() {
    let body_field = |r: Result<World, BuildError>| match r {
        Err(BuildError::Body { body, field, .. }) => (body, field),
        other => panic!("expected a body error, got {:?}", other.err()),
    };
    let build = |bodies: &[Body], planar: bool| {
        let mut w = World::builder(Settings {
            planar,
            ..Settings::default()
        });
        w.material(Material::new(0.5));
        for b in bodies {
            w.body(*b);
        }
        w.build()
    };
    let b = Body::sphere(Vec3::ZERO, 0.1, 1.0);
    for bad in [Vec3::new(1.0, 1.0, 3.0), Vec3::new(1.0, -1.0, 1.0)] {
        let r = build(&[b.with_principal_moments(bad)], false);
        assert_eq!(body_field(r), (0, "principal_moments"), "{bad}");
    }
    let anisotropic = b.with_principal_moments(MOMENTS);
    assert!(build(&[anisotropic], false).is_ok());
    let r = build(&[anisotropic], true);
    assert_eq!(body_field(r), (0, "principal_moments"), "planar");
    let far = Body::sphere(Vec3::X * 10.0, 0.1, 1.0);
    let r = build(&[far, anisotropic], false);
    assert_eq!(body_field(r), (1, "principal_moments"), "with contacts");
}
