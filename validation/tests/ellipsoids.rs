//! Ellipsoids: gaps against closed forms, at rest on the floor, V24's rocking period, the same
//! bits on 1 and 2 threads, and the typed refusals.

use glam::{Quat, Vec3};
use grains::{Backend, Body, BuildError, Material, Settings, Shape, Solver, WallDesc, World};
use grains_kernels::shapes::ellipsoid::ellipsoid_pair;
use grains_kernels::shapes::Placed;
use grains_validation::cases::ellipsoids::{v24, V24_H};

const G: f32 = 9.81;

fn floor_world(settings: Settings, bodies: &[Body]) -> Result<World, BuildError> {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for &body in bodies {
        b.body(body);
    }
    b.build()
}

/// Rigid contacts, converged tightly, so that a resting body's contact force is its weight.
fn tight() -> Settings {
    Settings {
        solver: Solver::GaussSeidel {
            sweeps: 200,
            tolerance: 1e-9,
            omega: 1.0,
        },
        ..Settings::default()
    }
}

/// The world's one contact's gap.
fn only_gap(w: &World) -> f32 {
    let gaps: Vec<f32> = w.contacts().map(|c| c.gap).collect();
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    gaps[0]
}

/// An ellipsoid (a, b, c) turned by θ about x above the floor: its lowest point is
/// √(b² sin²θ + c² cos²θ) below its centre (the support function of the y–z ellipse), so
/// Φ = z − that, for a gap inside the envelope and an overlap alike.
#[test]
fn ellipsoid_plane_gap_is_the_support_function_in_closed_form() {
    let semi = Vec3::new(0.05, 0.08, 0.03);
    for (theta, gap) in [(0.0f32, 1e-4f32), (0.4, -2e-4), (1.2, 5e-5)] {
        let reach =
            (semi.y * semi.y * theta.sin().powi(2) + semi.z * semi.z * theta.cos().powi(2)).sqrt();
        let body = Body::ellipsoid(Vec3::new(0.0, 0.0, reach + gap), semi, 1.0)
            .with_orientation(Quat::from_rotation_x(theta));
        // Without gravity, so that the step's contact is the placed one.
        let settings = Settings {
            gravity: Vec3::ZERO,
            ..Settings::default()
        };
        let mut w = floor_world(settings, &[body]).unwrap();
        w.step().unwrap();
        let phi = only_gap(&w);
        // f32 positions of about 0.1 m: rounding of a few 1e-8 m.
        assert!((phi - gap).abs() < 1e-6, "θ = {theta}: Φ {phi} vs {gap}");
    }
}

fn placed(centre: Vec3, q: Quat, semi: Vec3) -> Placed {
    Placed {
        centre,
        q,
        radius: semi.min_element(),
        shape: Shape::Ellipsoid { semi_axes: semi },
    }
}

fn ball(centre: Vec3, r: f32) -> Placed {
    Placed {
        centre,
        q: Quat::IDENTITY,
        radius: r,
        shape: Shape::Sphere,
    }
}

/// A sphere of radius r over the end of an axis of an ellipsoid: Φ = d − e_i − r along the
/// axis (the vertex is the nearest point when d ≥ e_i, and inside when the centre is nearer
/// the centre of the ellipsoid than that axis's centre of curvature allows another point);
/// a sphere is the ellipsoid of equal semi-axes, Φ = ‖Δ‖ − R − r; and the normal points from
/// the second body to the first either way round.
#[test]
fn ellipsoid_sphere_gaps_against_closed_forms() {
    let semi = Vec3::new(0.1, 0.06, 0.04);
    let q = Quat::from_rotation_z(0.7) * Quat::from_rotation_x(0.3);
    let e = placed(Vec3::new(0.2, -0.1, 0.3), q, semi);
    for (axis, len) in [(Vec3::X, 0.1), (Vec3::Y, 0.06), (Vec3::NEG_Z, 0.04)] {
        for d in [len + 0.03, len + 0.01, len - 0.002] {
            let s = ball(e.centre + q * axis * d, 0.02);
            let t = ellipsoid_pair(&e, &s).unwrap();
            let want = d - len - 0.02;
            assert!(
                (t.phi - want).abs() < 1e-6,
                "{axis} {d}: {} vs {want}",
                t.phi
            );
            assert!((t.n + q * axis).length() < 1e-5, "{}", t.n);
            let u = ellipsoid_pair(&s, &e).unwrap();
            assert_eq!((u.phi, u.n), (t.phi, -t.n));
        }
    }
    // A centre inside, on the shortest axis: the nearest surface point is that vertex.
    let s = ball(e.centre + q * Vec3::Z * 0.01, 0.02);
    let t = ellipsoid_pair(&e, &s).unwrap();
    assert!((t.phi - (-0.03 - 0.02)).abs() < 1e-6, "{}", t.phi);
    let round = placed(Vec3::new(0.1, 0.2, 0.3), q, Vec3::splat(0.05));
    for offset in [Vec3::new(0.04, 0.05, -0.02), Vec3::new(0.01, 0.0, 0.02)] {
        let s = ball(round.centre + offset, 0.03);
        let t = ellipsoid_pair(&round, &s).unwrap();
        let want = offset.length() - 0.08;
        assert!((t.phi - want).abs() < 1e-6, "{} vs {want}", t.phi);
    }
}

/// Ellipsoid–ellipsoid against two independent closed forms: equal semi-axes are spheres,
/// Φ = ‖Δ‖ − R_a − R_b; two ellipsoids side by side along an axis that is the shortest of both,
/// Φ = d − e_a − e_b (every other direction has a larger sum of supports, see
/// `grains_kernels::shapes::ellipsoid`'s tests), separated and overlapping.
#[test]
fn ellipsoid_pair_gaps_against_closed_forms() {
    let (qa, qb) = (Quat::from_rotation_y(0.4), Quat::from_rotation_x(-1.1));
    for (offset, want) in [
        (
            Vec3::new(0.1, 0.05, 0.0),
            Vec3::new(0.1, 0.05, 0.0).length() - 0.09,
        ),
        (
            Vec3::new(0.0, 0.03, 0.06),
            Vec3::new(0.0, 0.03, 0.06).length() - 0.09,
        ),
    ] {
        let a = placed(Vec3::ZERO, qa, Vec3::splat(0.05));
        let b = placed(offset, qb, Vec3::splat(0.04));
        let t = ellipsoid_pair(&a, &b).unwrap();
        assert!((t.phi - want).abs() < 1e-6, "{} vs {want}", t.phi);
    }
    // Shortest axes along world x for both: a (0.03, 0.08, 0.1) turned about x, b (0.02,
    // 0.05, 0.09) turned about x the other way.
    let (sa, sb) = (Vec3::new(0.03, 0.08, 0.1), Vec3::new(0.02, 0.05, 0.09));
    for d in [0.06f32, 0.051, 0.048] {
        let a = placed(Vec3::new(d, 0.0, 0.0), Quat::from_rotation_x(0.5), sa);
        let b = placed(Vec3::ZERO, Quat::from_rotation_x(-0.9), sb);
        let t = ellipsoid_pair(&a, &b).unwrap();
        assert!((t.phi - (d - 0.05)).abs() < 1e-6, "d {d}: {}", t.phi);
        assert!((t.n - Vec3::X).length() < 1e-4, "{}", t.n);
    }
}

/// An ellipsoid dropped tilted (0.6 rad about its a axis, so that it rocks in one plane: a
/// point contact has no torsional friction, and a spin about the vertical picked up from a
/// tilt about two axes would never stop) lands on the floor and rocks onto its shortest axis.
/// Rolling without slip on a plane is conservative and the CCP's own dissipation of it is
/// slight (V24: the amplitude keeps 4 digits over six periods), so rolling resistance brings
/// it to rest: e_roll = 1 mm holds it still once the restoring moment m g (ρ − c) θ falls below
/// e_roll m g, θ < e_roll/(ρ − c) = 4.8e-3 rad (ρ = b²/c), where the centre is within
/// ½ (ρ − c) θ² = 2.4e-6 m = 6e-5 c of its height on the axis. The body keeps its own
/// principal moments (the moment rows take the tensor). At rest: the centre c above the floor
/// (to 1e-4 of c), the c axis vertical, one contact whose normal force is the weight to 1e-4
/// and whose friction is zero.
#[test]
fn a_tilted_ellipsoid_dropped_on_the_floor_rests_on_its_shortest_axis() {
    let (semi, mass) = (Vec3::new(0.06, 0.1, 0.04), 2.0);
    let tilt = Quat::from_rotation_x(0.6);
    let body = Body::ellipsoid(Vec3::new(0.0, 0.0, 0.15), semi, mass).with_orientation(tilt);
    let mut b = World::builder(tight());
    b.material(Material::new(0.5).with_rolling(1e-3));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(body);
    let mut w = b.build().unwrap();
    for _ in 0..25_000 {
        w.step().unwrap();
    }
    let p = w.position(0);
    assert!(
        (p.z - semi.z).abs() < 1e-4 * semi.z,
        "rests on its shortest axis: z = {}",
        p.z
    );
    let up = (w.orientation(0) * Vec3::Z).z.abs();
    assert!(1.0 - up < 1e-4, "the c axis is vertical: {up}");
    let (v, spin) = (w.velocity(0), w.angular_velocity(0));
    assert!(v.length() < 1e-4 && spin.length() < 1e-3, "v {v}, ω {spin}");
    let forces: Vec<Vec3> = w.contacts().map(|c| c.force).collect();
    assert_eq!(forces.len(), 1, "{forces:?}");
    let weight = mass * G;
    assert!(
        (forces[0].z - weight).abs() < 1e-4 * weight,
        "{} vs {weight}",
        forces[0].z
    );
    assert!(
        forces[0].truncate().length() < 1e-4 * weight,
        "{}",
        forces[0]
    );
}

/// A small ellipsoid (0.05, 0.04, 0.02) dropped level from 1 mm onto the top of a fixed,
/// larger one (0.1, 0.06, 0.03), axes aligned, lands inelastically and rests on the top point:
/// its centre c_fixed + c_top above the fixed centre (to 1e-4 of c), one contact carrying the
/// weight to 1e-4 with no friction force. The top is stable: the upper centre lies c = 0.02 above
/// the contact, below the curvature limit 1/(1/ρ_lower + 1/ρ_upper) = 0.048 of the stiffer
/// (y) direction, ρ = b²/c for each.
#[test]
fn an_ellipsoid_rests_on_top_of_a_fixed_ellipsoid() {
    let (lower, upper, mass) = (Vec3::new(0.1, 0.06, 0.03), Vec3::new(0.05, 0.04, 0.02), 0.3);
    let base = Body::ellipsoid(Vec3::new(0.0, 0.0, 0.03), lower, 1.0).fixed();
    let rest = 0.03 + lower.z + upper.z;
    let top = Body::ellipsoid(Vec3::new(0.0, 0.0, rest + 1e-3), upper, mass);
    let mut b = World::builder(tight());
    b.material(Material::new(0.5));
    b.body(base);
    b.body(top);
    let mut w = b.build().unwrap();
    for _ in 0..1000 {
        w.step().unwrap();
    }
    let z = w.position(1).z;
    assert!((z - rest).abs() < 1e-4 * upper.z, "z = {z} vs {rest}");
    assert!(w.velocity(1).length() < 1e-4);
    let forces: Vec<Vec3> = w.contacts().map(|c| c.force).collect();
    assert_eq!(forces.len(), 1, "{forces:?}");
    let weight = mass * G;
    // The force on the upper body (the pair's first or second, by index).
    let fz = forces[0].z.abs();
    assert!((fz - weight).abs() < 1e-4 * weight, "{fz} vs {weight}");
    assert!(
        forces[0].truncate().length() < 1e-4 * weight,
        "{}",
        forces[0]
    );
}

/// V24: the rocking period within 1 % of the closed form; and the period converges as h
/// halves, its change falling at least twofold per halving (a second-order step falls
/// fourfold) — the table is printed with `--nocapture`.
#[test]
fn v24_an_ellipsoid_rocks_with_the_closed_form_period() {
    let m = v24(V24_H, None).unwrap();
    assert!(m.passes(), "{m:?}");
    let mut periods = Vec::new();
    for h in [8.0 * V24_H, 4.0 * V24_H, 2.0 * V24_H, V24_H] {
        let r = v24(h, None).unwrap();
        periods.push(r.period);
        println!(
            "h = {h:.1e} s: period {:.6} s against {:.6} s, error {:.2e}, amplitude {:.5} rad after {} periods",
            r.period,
            r.expected,
            r.error(),
            r.last_amplitude,
            grains_validation::cases::ellipsoids::V24_PERIODS
        );
    }
    let changes: Vec<f64> = periods.windows(2).map(|p| (p[1] - p[0]).abs()).collect();
    assert!(
        changes.windows(2).all(|c| c[1] <= 0.5 * c[0]),
        "period changes per halving of h: {changes:?}"
    );
}

/// A pile of ellipsoids and spheres dropped together gives the same bits on 1 and 2 threads.
#[test]
fn an_ellipsoid_pile_is_bit_identical_on_1_and_2_threads() {
    let run = |threads: usize| {
        let bodies: Vec<Body> = (0..16)
            .map(|k| {
                let (i, j) = (k % 4, k / 4);
                let p = Vec3::new(
                    0.1 * i as f32 - 0.15,
                    0.013 * j as f32,
                    0.06 + 0.1 * j as f32,
                );
                if k % 5 == 4 {
                    Body::sphere(p, 0.03, 0.5)
                } else {
                    Body::ellipsoid(p, Vec3::new(0.05, 0.035, 0.025), 0.5).with_orientation(
                        Quat::from_rotation_z(0.4 * k as f32) * Quat::from_rotation_x(0.3),
                    )
                }
            })
            .collect();
        let settings = Settings {
            threads,
            ..Settings::default()
        };
        let mut w = floor_world(settings, &bodies).unwrap();
        for _ in 0..400 {
            w.step().unwrap();
        }
        let contacts = w.contacts().count();
        let state = (0..16)
            .map(|k| (w.position(k), w.orientation(k), w.velocity(k)))
            .collect::<Vec<_>>();
        (contacts, state)
    };
    let one = run(1);
    assert!(one.0 >= 12, "the pile touches: {} contacts", one.0);
    assert!(
        one.1.iter().all(|(p, _, _)| p.is_finite() && p.z > 0.0),
        "{one:?}"
    );
    assert_eq!(one, run(2));
}

/// Refused at build: unequal semi-axes with one scalar inertia, planar mode, a non-positive
/// semi-axis, ellipsoids beside capsules, cubes or boxes, outside a cylinder wall (inside one
/// they meet it), and the GPU backend.
#[test]
fn unsupported_ellipsoids_are_refused() {
    let e = Body::ellipsoid(Vec3::new(0.0, 0.0, 0.5), Vec3::new(0.1, 0.06, 0.04), 1.0);
    let problem = |settings: Settings, bodies: &[Body]| match floor_world(settings, bodies) {
        Err(BuildError::Body { field, problem, .. }) => format!("{field}: {problem}"),
        Err(e) => e.to_string(),
        Ok(_) => panic!("built"),
    };
    let scalar = Body {
        principal_moments: None,
        ..e
    };
    assert!(problem(Settings::default(), &[scalar]).contains("needs its principal moments"));
    let planar = Settings {
        planar: true,
        ..Settings::default()
    };
    assert!(problem(planar, &[e]).contains("planar mode"));
    let flat = Body {
        shape: Shape::Ellipsoid {
            semi_axes: Vec3::new(0.1, 0.0, 0.04),
        },
        ..e
    };
    assert!(problem(Settings::default(), &[flat]).contains("positive"));
    let away = Vec3::new(1.0, 0.0, 0.5);
    for other in [
        Body::capsule(away, 0.05, 0.2, 1.0),
        Body::cube(away, 0.05, 1.0),
        Body::cuboid(away, Vec3::new(0.1, 0.05, 0.02), 1.0),
    ] {
        assert!(
            problem(Settings::default(), &[e, other]).contains("ellipsoids meet"),
            "{other:?}"
        );
    }
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    b.wall(WallDesc::cylinder(Vec3::ZERO, Vec3::Z, 0.01, 1.0, false));
    b.body(e);
    match b.build() {
        Err(BuildError::Body { field, problem, .. }) => {
            assert_eq!(field, "shape");
            assert!(problem.contains("ellipsoid") && problem.contains("outside"));
        }
        other => panic!("{:?}", other.err()),
    }
    let gpu = Settings {
        backend: Backend::Gpu,
        solver: Solver::Jacobi {
            sweeps: 50,
            tolerance: 0.0,
            omega: 0.3,
        },
        ..Settings::default()
    };
    assert!(problem(gpu, &[e])
        .contains("gives this world ellipsoids, which cannot be combined with the GPU backend"));
}
