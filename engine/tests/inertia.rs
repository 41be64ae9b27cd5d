//! Full rigid-body inertia: the isotropic case bit for bit, the free rotation on any thread
//! count, the capsule's tensor, contacts with the tensor (a capsule at rest, rolling at the
//! closed-form speed, tipping over, rebounding), a physical pendulum on a ball joint, resume and
//! the refusals. The free rotation against the closed form of Euler's equations (the
//! intermediate-axis flip) is validation case V21.

use grains::glam::DVec3;
use grains::{
    capsule_principal_moments, stadium_moment, Body, BuildError, JointDesc, Material, Quat,
    Settings, Snapshot, SolverKind, Vec3, WallDesc, World,
};

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

/// A box-like inertia and a spin about its intermediate axis y with a small push about x and z.
const MOMENTS: Vec3 = Vec3::new(1.0, 2.0, 3.0);
const SPIN: Vec3 = Vec3::new(0.2, 3.0, 0.2);

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

/// The flat stadium's moment about y meets the disk's m r²/2 at L = 0 and the thin bar's
/// m (2L)²/12 as r → 0, and equals a midpoint sum over a fine grid of its area (its closed form
/// is a rectangle and two half disks by the parallel-axis theorem, this a plain area integral).
#[test]
fn stadium_moment_meets_its_limits_and_an_area_sum() {
    assert!((stadium_moment(0.5, 0.0, 2.0) - 0.5 * 2.0 * 0.25).abs() < 1e-6);
    assert!((stadium_moment(1e-5, 1.0, 3.0) - 3.0 * 4.0 / 12.0).abs() < 1e-3);
    let (r, l, m) = (0.3f64, 0.7f64, 2.0f64);
    let n = 2000;
    let (dx, dz) = (2.0 * (l + r) / n as f64, 2.0 * r / n as f64);
    let (mut area, mut moment) = (0.0, 0.0);
    for i in 0..n {
        let x = -(l + r) + (i as f64 + 0.5) * dx;
        for k in 0..n {
            let z = -r + (k as f64 + 0.5) * dz;
            let end = (x.abs() - l).max(0.0);
            if end * end + z * z <= r * r {
                area += dx * dz;
                moment += (x * x + z * z) * dx * dz;
            }
        }
    }
    let want = moment * m / area;
    let got = stadium_moment(r as f32, l as f32, m as f32) as f64;
    // The grid's boundary cells misplace O(dx) of the rim: about 1e-4 of the moment here.
    assert!((got - want).abs() < 5e-4 * want, "{got} vs {want}");
}

/// Moments no mass distribution has, and anisotropic bodies where the world cannot turn them,
/// are refused naming the item and field.
#[test]
fn impossible_moments_and_unsupported_worlds_are_refused() {
    let build = |bodies: &[Body], planar: bool, material: Material| {
        let mut w = World::builder(Settings {
            planar,
            ..Settings::default()
        });
        w.material(material);
        for b in bodies {
            w.body(*b);
        }
        w.build()
    };
    let item_field = |r: Result<World, BuildError>| match r {
        Err(BuildError::Body { body, field, .. }) => ("body", body, field),
        other => panic!("expected a body error, got {:?}", other.err()),
    };
    let plain = Material::new(0.5);
    let b = Body::sphere(Vec3::ZERO, 0.1, 1.0);
    for bad in [Vec3::new(1.0, 1.0, 3.0), Vec3::new(1.0, -1.0, 1.0)] {
        let r = build(&[b.with_principal_moments(bad)], false, plain);
        assert_eq!(item_field(r), ("body", 0, "principal_moments"), "{bad}");
    }
    let anisotropic = b.with_principal_moments(MOMENTS);
    let far = Body::sphere(Vec3::X * 10.0, 0.1, 1.0);
    assert!(build(&[far, anisotropic], false, plain).is_ok());
    let r = build(&[far, anisotropic], true, plain);
    assert_eq!(item_field(r), ("body", 1, "principal_moments"), "planar");
    let rolling = plain.with_rolling(0.01);
    assert!(
        build(&[far, anisotropic], false, rolling).is_ok(),
        "rolling"
    );
    let mut w = build(&[far, anisotropic], false, plain).unwrap();
    let planar = Settings {
        planar: true,
        ..Settings::default()
    };
    assert_eq!(
        item_field(w.set_settings(planar).map(|_| w)),
        ("body", 1, "principal_moments")
    );
}

/// A sphere of unequal principal moments (0.3, 0.35, 0.4) kg m², m = 1 kg, r = 1 m, spinning
/// about its largest axis z, upright on a floor with spinning friction (μ = 0.2, e_r = 0.4 m):
/// the moment about the normal is μ e_r m g, so ω_z falls at μ e_r m g / I_z = 1.962 rad/s²
/// (V8's sphere, whose scalar I is this I_z) and stops at t = 1 s, with every solver. The
/// moment rows' step takes 1/I_min (`grains_kernels::rolling`), so this checks that the
/// iteration still reaches the solution with the tensor's I_z.
#[test]
fn anisotropic_sphere_spinning_in_place_stops_at_the_closed_form_time() {
    let material = Material::new(0.2).with_spinning(0.4);
    for solver in [
        SolverKind::GaussSeidel,
        SolverKind::Jacobi,
        SolverKind::Apgd,
    ] {
        let ball = Body::sphere(Vec3::Z, 1.0, 1.0)
            .with_principal_moments(Vec3::new(0.3, 0.35, 0.4))
            .with_angular_velocity(Vec3::Z * 1.962);
        let mut w = World::builder(Settings {
            h: 0.01,
            solver: Settings::default().solver.with_kind(solver),
            ..Settings::default()
        });
        w.material(material);
        w.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
        w.body(ball);
        let mut w = w
            .build()
            .expect("an anisotropic sphere with spinning friction builds");
        w.run(50).unwrap();
        let half = w.angular_velocity(0);
        w.run(60).unwrap();
        let end = w.angular_velocity(0);
        println!("{solver:?}: ω at 0.5 s {half}, at 1.1 s {end}");
        // At t = 0.5 s the line gives 1.962 − 0.981 = 0.981 rad/s; the solve's tolerance
        // leaves ~1e-6 rad/s per step, so 1e-4 is loose for the line and tight for any
        // other moment (0.3 or 0.35 would give 0.654 or 0.841 rad/s).
        assert!((half.z - 0.981).abs() < 1e-4, "{solver:?}: ω_z {half}");
        assert!(half.truncate().length() < 1e-6, "{solver:?}: tilted {half}");
        assert!(end.length() < 1e-4, "{solver:?}: still spinning {end}");
    }
}

/// A physical pendulum on a ball joint swings about each principal axis with its own moment:
/// T = 2π √((I_k + m d²)/(m g d)) for the centre d below the pivot (small swings, amplitude
/// 0.02 rad, whose correction θ²/16 is 2e-5).
#[test]
fn pendulum_on_a_ball_joint_swings_with_the_moment_about_its_axis() {
    let (moments, d, g) = (Vec3::new(0.02, 0.05, 0.03), 0.2f32, 9.81f32);
    for (k, axis) in [(0, Vec3::X), (1, Vec3::Y)] {
        let mut b = World::builder(Settings::default());
        b.material(Material::new(0.5));
        b.body(
            Body::sphere(Vec3::ZERO, 0.05, 1.0)
                .with_principal_moments(moments)
                .with_angular_velocity(axis * 0.1),
        );
        b.joint(JointDesc::ball(0, None, Vec3::new(0.0, 0.0, d)));
        let mut w = b.build().unwrap();
        let mut reversals = Vec::new();
        let mut last = 0.1f32;
        for _ in 0..4000 {
            w.step().unwrap();
            let now = w.angular_velocity(0).dot(axis);
            if now.signum() != last.signum() {
                reversals.push(w.time() - 1e-3 * (now / (now - last)) as f64);
            }
            last = now;
        }
        let half = (reversals[reversals.len() - 1] - reversals[0]) / (reversals.len() - 1) as f64;
        let want = std::f64::consts::PI * (((moments[k] + d * d) / (g * d)) as f64).sqrt();
        println!("axis {axis}: half period {half} s, closed form {want} s");
        // A step's phase error at swing frequency Ω ≈ 5 rad/s is O((h Ω)²) ≈ 3e-5 (1e-5
        // measured); 2e-4 is far below the 20 % between the two axes' periods.
        assert!(
            (half - want).abs() < 2e-4 * want,
            "axis {axis}: {half} vs {want}"
        );
    }
}

/// A floor z = 0 with friction `mu`, gravity −9.81 ẑ, h = 1 ms, `threads` threads, `solver`,
/// and `body` on it.
fn on_floor(body: Body, mu: f32, threads: usize, solver: SolverKind) -> World {
    let mut w = World::builder(Settings {
        threads,
        solver: Settings::default().solver.with_kind(solver),
        ..Settings::default()
    });
    w.material(Material::new(mu));
    w.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    w.body(body);
    w.build().expect("the capsule on the floor builds")
}

/// The solid capsule of the contact tests: r = 5 cm, L = 10 cm, 1 kg.
const R: f32 = 0.05;
const L: f32 = 0.1;

/// A solid capsule lying on the floor stays at rest, with either solver.
#[test]
fn capsule_lying_on_the_floor_stays_at_rest() {
    for solver in [SolverKind::GaussSeidel, SolverKind::Jacobi] {
        let body = Body::solid_capsule(Vec3::new(0.0, 0.0, R), R, L, 1.0);
        let mut w = on_floor(body, 0.5, 1, solver);
        w.run(1000).unwrap();
        let (p, v, om) = (w.position(0), w.velocity(0), w.angular_velocity(0));
        // Resting contact under the Φ/h stabilisation settles within a fraction of g h² of
        // its gap; 1e-5 m and 1e-3 m/s leave room for that and none for a slide or a roll.
        assert!(
            (p - Vec3::new(0.0, 0.0, R)).length() < 1e-5,
            "{solver:?}: at {p}"
        );
        assert!(
            v.length() < 1e-3 && om.length() < 1e-2,
            "{solver:?}: v {v}, ω {om}"
        );
    }
}

/// A solid capsule pushed sideways across its axis on a frictional floor slides, then rolls
/// about its axis at the speed angular momentum about the contact line gives:
/// m v0 r = m v r + I_x v / r, v = v0 / (1 + I_x/(m r²)) with the axial moment I_x of the
/// tensor (the scalar thin-bar inertia would give v0 / (1 + (2L)²/(12 r²)) = v0/2.33).
#[test]
fn capsule_pushed_across_its_axis_rolls_at_the_closed_form_speed() {
    let v0 = 1.0;
    let m = 1.0;
    let ix = capsule_principal_moments(R, L, m).x;
    let want = v0 / (1.0 + ix / (m * R * R));
    for solver in [
        SolverKind::GaussSeidel,
        SolverKind::Jacobi,
        SolverKind::Apgd,
    ] {
        let body = Body::solid_capsule(Vec3::new(0.0, 0.0, R), R, L, m)
            .with_velocity(Vec3::new(0.0, v0, 0.0));
        let mut w = on_floor(body, 0.3, 1, solver);
        w.run(500).unwrap();
        let (v, om) = (w.velocity(0), w.angular_velocity(0));
        println!("{solver:?}: rolls at {} m/s, closed form {want} m/s", v.y);
        // Rolling without slipping: v_y = −ω_x r; the CCP's sliding phase ends in
        // v0 / (μ g (1 + m r²/I_x)) ≈ 0.1 s, well before 0.5 s.
        assert!(
            (v.y + om.x * R).abs() < 1e-3 * v0,
            "{solver:?}: v {v}, ω {om} roll"
        );
        assert!(
            (v.y - want).abs() < 1e-3 * want,
            "{solver:?}: rolls at {} m/s, closed form {want} m/s",
            v.y
        );
    }
}

/// A solid capsule dropped tilted tips over and comes to rest lying flat, its energy
/// E = ½ m v² + ½ ωᵀIω + m g z never rising, and the same bits on one and two threads.
#[test]
fn tilted_capsule_tips_over_and_settles_with_energy_falling() {
    let tilt = Quat::from_rotation_y(0.6);
    let start = Body::solid_capsule(Vec3::new(0.0, 0.0, 0.2), R, L, 1.0).with_orientation(tilt);
    let mut worlds = [1, 2].map(|t| on_floor(start, 0.5, t, SolverKind::GaussSeidel));
    // The step's statistic is the kinetic energy after it; the body starts at rest.
    let energy = |w: &World| w.last_stats().kinetic_energy + 9.81 * w.position(0).z as f64;
    let mut last = 9.81 * 0.2;
    let mut rise = 0.0f64;
    for _ in 0..3000 {
        for w in &mut worlds {
            w.step().unwrap();
        }
        let e = energy(&worlds[0]);
        rise = rise.max(e - last);
        last = e;
    }
    assert_eq!(worlds[0].bodies(), worlds[1].bodies(), "1 and 2 threads");
    let w = &worlds[0];
    let axis = w.orientation(0) * Vec3::X;
    println!(
        "largest rise {rise:e} J, end z {}, axis {axis}",
        w.position(0).z
    );
    // Contacts only take energy out (rigid, inelastic CCP); what f32 rounding of m g z
    // (z ≈ 0.1 m) and of the state adds per step is below 1e-6 J of the 2 J at the start.
    assert!(rise < 1e-6, "the energy rose by {rise} J in one step");
    assert!(axis.z.abs() < 1e-3, "lies flat: axis {axis}");
    assert!(
        (w.position(0).z - R).abs() < 1e-4,
        "rests on the floor at z = {}",
        w.position(0).z
    );
    let (v, om) = (w.velocity(0), w.angular_velocity(0));
    assert!(
        v.length() < 1e-3 && om.length() < 1e-2,
        "at rest: v {v}, ω {om}"
    );
}

/// A checkpoint taken while a solid capsule tumbles onto the floor continues bit-identically
/// (the principal moments are fixed at build; the orientation and ω are in the checkpoint),
/// and a world whose moments differ refuses it by name.
#[test]
fn resume_of_a_tumbling_capsule_is_bit_identical_and_other_moments_are_refused() {
    let start = Body::solid_capsule(Vec3::new(0.0, 0.0, 0.2), R, L, 1.0)
        .with_orientation(Quat::from_rotation_y(0.6))
        .with_angular_velocity(Vec3::new(0.0, 2.0, 1.0));
    let mut straight = on_floor(start, 0.5, 1, SolverKind::GaussSeidel);
    straight.run(250).unwrap();
    let bytes = straight.snapshot().unwrap().to_bytes();
    straight.run(250).unwrap();
    let snap = Snapshot::from_bytes(&bytes).unwrap();
    let mut resumed = on_floor(start, 0.5, 2, SolverKind::GaussSeidel);
    resumed.restore(&snap).unwrap();
    resumed.run(250).unwrap();
    assert_eq!(straight.bodies(), resumed.bodies());
    assert_eq!(straight.last_stats(), resumed.last_stats());

    let other = start.with_principal_moments(capsule_principal_moments(R, L, 1.0) * 1.01);
    let mut w = on_floor(other, 0.5, 1, SolverKind::GaussSeidel);
    let msg = w.restore(&snap).unwrap_err().to_string();
    assert!(msg.contains("body principal moments"), "{msg}");
}

/// A solid capsule dropped level on a floor with restitution e = 0.5 goes through the impact
/// phase (its hooks turn anisotropic bodies too) and leaves at e times its arrival speed, both
/// ends striking at once, without turning.
#[test]
fn level_capsule_rebounds_at_e_times_its_arrival_speed() {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5).with_restitution(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(Body::solid_capsule(
        Vec3::new(0.0, 0.0, R + 0.05),
        R,
        L,
        1.0,
    ));
    let mut w = b.build().unwrap();
    let mut arrival = 0.0f32;
    for _ in 0..200 {
        let before = w.velocity(0).z;
        w.step().unwrap();
        let after = w.velocity(0).z;
        if before < 0.0 && after > 0.0 {
            arrival = -before;
            // The impact acts on the step's starting velocity v⁻, and the step's gravity on
            // what it leaves: e v⁻ − g h (docs/method.md, Restitution).
            let want = 0.5 * arrival - 9.81 * 1e-3;
            assert!(
                (after - want).abs() < 1e-3 * arrival,
                "rebound {after} vs {want}"
            );
            break;
        }
    }
    assert!(
        arrival > 0.9,
        "the capsule struck the floor at {arrival} m/s"
    );
    assert!(
        w.angular_velocity(0).length() < 1e-4,
        "ω {}",
        w.angular_velocity(0)
    );
}
