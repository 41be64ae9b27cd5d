//! The geometrically implicit integrator through the engine (`Settings::integrator`): the
//! world agrees with the `ImplicitSystem` driven directly, contacts hold at the end of each
//! step where the CCP's linearised gap penetrates, a spinning sphere stops at the analytic
//! time, what the stepper cannot represent is refused at build, and a resume is bit-identical.

use grains::geometric::{ContactPair, Friction, ImplicitSystem, RigidBody};
use grains::glam::DVec3;
use grains::{
    AppliedForce, Backend, Body, BodyKind, BuildError, Integrator, JointDesc, Material, Settings,
    Shape, Snapshot, SnapshotError, StepError, Vec3, WallDesc, World, WorldBuilder,
};

fn implicit(h: f32) -> Settings {
    Settings {
        h,
        integrator: Integrator::GeometricallyImplicit,
        ..Settings::default()
    }
}

/// A sphere (r = 0.05 m, 1 kg) on the floor z = 0 with μ = 0.3, sliding at v₀ = 1 m/s along x
/// without spin.
fn sliding_sphere(settings: Settings) -> WorldBuilder {
    let mut b = World::builder(settings);
    b.material(Material::new(0.3));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    let mut s = Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.05, 1.0);
    s.velocity = Vec3::X;
    b.body(s);
    b
}

/// (a) The world stepped through the setting against the `ImplicitSystem` stepped directly
/// in f64 (with its closest-point and impulse memory) for a sphere sliding into rolling on a
/// plane. The world keeps the state in f32 between steps and rebuilds its system each step,
/// so they differ by the f32 rounding of the state each step (a relative 6e-8: 6e-8 m/s of
/// the 1 m/s, 1.2e-6 rad/s of the 20 rad/s, up to 7.5e-9 m of the position near 0.2 m)
/// accumulated over 60 steps (at most 4.5e-7 m, 3.6e-6 m/s, 7.2e-5 rad/s), plus the Newton
/// tolerance (1e-10); the bounds below are about twice that.
#[test]
fn world_matches_the_implicit_system_on_a_sliding_sphere() {
    let h = 0.005;
    let mut world = sliding_sphere(implicit(h)).build().unwrap();
    let mut direct = ImplicitSystem::new(h as f64, DVec3::new(0.0, 0.0, -9.81_f32 as f64)).unwrap();
    let floor = direct.add_body(RigidBody::floor(DVec3::Z)).unwrap();
    let ball = direct
        .add_body(
            RigidBody::sphere(0.05f32 as f64, 1.0, DVec3::new(0.0, 0.0, 0.05f32 as f64))
                .with_velocity(DVec3::X, DVec3::ZERO),
        )
        .unwrap();
    direct
        .add_contact(ContactPair {
            a: floor,
            b: ball,
            friction: Friction::isotropic(0.3f32 as f64, 0.0),
        })
        .unwrap();
    for step in 0..60 {
        world.step().unwrap();
        direct.step().unwrap();
        let d = direct.bodies()[ball];
        let dx = (world.position(0).as_dvec3() - d.pose.position)
            .abs()
            .max_element();
        let dv = (world.velocity(0).as_dvec3() - d.velocity)
            .abs()
            .max_element();
        let dw = (world.angular_velocity(0).as_dvec3() - d.angular_velocity)
            .abs()
            .max_element();
        assert!(
            dx < 1e-6 && dv < 1e-5 && dw < 2e-4,
            "step {step}: the world and the direct system differ by {dx:e} m, {dv:e} m/s, {dw:e} rad/s"
        );
    }
    // The sphere rolls from t = 2 v₀/(7 μ g) = 0.097 s at 5/7 v₀ (slide to roll, V9).
    let v = world.velocity(0).x;
    assert!(
        (v - 5.0 / 7.0).abs() < 1e-4,
        "rolling speed {v} m/s, expected 5/7"
    );
    let roll = world.angular_velocity(0).y * 0.05;
    assert!(
        (roll - v).abs() < 1e-5,
        "rolls without slip: ω r = {roll}, v = {v}"
    );
    let c = world.contacts().next().expect("the floor contact");
    assert!((c.force.z - 9.81).abs() < 1e-3, "floor force {}", c.force);
}

/// A sphere of r = 0.01 m nudged off the top of a fixed sphere of the same radius (μ = 0.5),
/// stepped at h = 5 ms for 25 steps (it rolls to about 33° from the top, before it leaves the
/// fixed sphere near 55°); returns the largest |r₁ + r₂ − |c₁ − c₂|| over the steps (m) and
/// the last height.
fn roll_off_a_sphere(integrator: Integrator) -> (f64, f32) {
    let mut b = World::builder(Settings {
        integrator,
        ..implicit(0.005)
    });
    b.material(Material::new(0.5));
    let mut fixed = Body::sphere(Vec3::ZERO, 0.01, 1.0);
    fixed.kind = BodyKind::Fixed;
    b.body(fixed);
    b.body(Body::sphere(Vec3::new(0.002, 0.0, 0.0198), 0.01, 1.0));
    let mut world = b.build().unwrap();
    let mut worst = 0.0f64;
    for _ in 0..25 {
        world.step().unwrap();
        let d = world.position(1).as_dvec3().length();
        worst = worst.max((0.02 - d).abs());
    }
    (worst, world.position(1).z)
}

/// (b) Contacts hold at the end of each step: a sphere rolling over a fixed sphere keeps
/// |c₁ − c₂| = r₁ + r₂ to 1e-8 m with the implicit integrator (the stepper's own tolerance is
/// 1e-10 m; the centres are stored in f32, whose rounding near 0.02 m is 9.3e-10 m per
/// coordinate, at most 3.2e-9 m on the distance), where the CCP's gap, linearised at the start
/// of each step along a normal that the rolling turns, lifts it off the curved surface (by
/// 4.6e-5 m after 25 steps).
#[test]
fn a_sphere_rolling_over_a_sphere_stays_on_it() {
    let (implicit_error, z) = roll_off_a_sphere(Integrator::GeometricallyImplicit);
    assert!(z < 0.0175, "the sphere rolled down the fixed one (z = {z})");
    assert!(
        implicit_error <= 1e-8,
        "implicit: the distance of the centres is off 2r by {implicit_error:e} m"
    );
    let (ccp_error, _) = roll_off_a_sphere(Integrator::Ccp);
    assert!(
        ccp_error > 1e-5,
        "the CCP's linearised gap should lift it off; it is off by {ccp_error:e} m only"
    );
}

/// (b) A sphere spinning in place on a plane with spinning friction (the stepper's friction
/// ellipsoid's e_r, the material's `spinning`) slows at the constant rate μ e_r m g / I and
/// stops at t* = ω₀ I / (μ e_r m g) (chakraborty example 2, V8): here 10 · 0.004 /
/// (0.2 · 0.02 · 9.81) = 1.0194 s. Before t* the rate is that of the exact solution (f32
/// rounding of ω each step, 1e-6 rad/s, over 100 steps bounds the error well below 1e-4);
/// from the step containing t* on, ω = 0.
#[test]
fn a_spinning_sphere_stops_at_the_analytic_time() {
    let (h, omega0, mu, e_r) = (0.01f32, 10.0f32, 0.2f32, 0.02f32);
    let mut b = World::builder(implicit(h));
    b.material(Material::new(mu).with_spinning(e_r));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    let mut s = Body::sphere(Vec3::new(0.0, 0.0, 0.1), 0.1, 1.0);
    s.angular_velocity = Vec3::new(0.0, 0.0, omega0);
    b.body(s);
    let mut world = b.build().unwrap();
    let inertia = 0.4 * 0.1 * 0.1;
    let rate = mu as f64 * e_r as f64 * 9.81f32 as f64 / inertia;
    let t_stop = omega0 as f64 / rate;
    let stop_step = (t_stop / h as f64).ceil() as u64;
    for _ in 0..stop_step + 10 {
        world.step().unwrap();
        let t = world.time();
        let w = world.angular_velocity(0).z as f64;
        if world.steps() < stop_step {
            let expected = omega0 as f64 - rate * t;
            assert!(
                (w - expected).abs() < 1e-4,
                "t = {t}: ω = {w}, expected {expected}"
            );
        } else {
            assert!(
                w.abs() < 1e-6,
                "t = {t} ≥ t* = {t_stop}: still spinning at {w}"
            );
        }
    }
    let moment = world.moment_impulses();
    assert_eq!(moment.len(), 1, "one contact with its spin impulse");
}

/// (b) A sphere dropped at 6 m/s onto a plane at h = 0.05 s ends each step on the plane
/// (the gap ≥ −1e-8 m: the stepper's tolerance and f32 rounding at 0.05 m, 3.7e-9 m) and at
/// rest: the implicit step is fully inelastic.
#[test]
fn a_fast_sphere_lands_on_the_plane_without_penetration() {
    let mut b = World::builder(implicit(0.05));
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    let mut s = Body::sphere(Vec3::new(0.0, 0.0, 0.3), 0.05, 1.0);
    s.velocity = Vec3::new(0.0, 0.0, -6.0);
    b.body(s);
    let mut world = b.build().unwrap();
    for _ in 0..20 {
        world.step().unwrap();
        let gap = world.position(0).z as f64 - 0.05;
        assert!(gap >= -1e-8, "step {}: gap {gap:e} m", world.steps());
    }
    assert!(world.velocity(0).length() < 1e-6, "at rest");
}

fn refused(b: &WorldBuilder) -> BuildError {
    match b.build() {
        Err(e) => e,
        Ok(_) => panic!("built a world the implicit integrator cannot step"),
    }
}

/// (c) What the stepper cannot represent is refused at build, naming the item and the limit.
#[test]
fn what_the_stepper_cannot_represent_is_refused() {
    let gpu = sliding_sphere(Settings {
        backend: Backend::Gpu,
        ..implicit(0.01)
    });
    let e = refused(&gpu);
    assert!(
        matches!(
            e,
            BuildError::Settings {
                field: "backend",
                ..
            }
        ),
        "{e}"
    );

    let mut many = sliding_sphere(implicit(0.01));
    for i in 0..16 {
        many.body(Body::sphere(
            Vec3::new(0.2 * i as f32, 1.0, 0.05),
            0.05,
            1.0,
        ));
    }
    let e = refused(&many);
    assert!(
        matches!(
            e,
            BuildError::Settings {
                field: "integrator",
                ..
            }
        ) && e.to_string().contains("16"),
        "{e}"
    );

    let mut capsule = sliding_sphere(implicit(0.01));
    let mut rod = Body::sphere(Vec3::new(1.0, 0.0, 0.05), 0.05, 1.0);
    rod.shape = Shape::Capsule { half_length: 0.1 };
    let i = capsule.body(rod);
    let e = refused(&capsule);
    assert!(
        matches!(e, BuildError::Body { body, field: "shape", .. } if body == i),
        "{e}"
    );

    let mut rectangle = sliding_sphere(implicit(0.01));
    let w = rectangle.wall(WallDesc::rectangle(
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::NEG_X,
        Vec3::Y,
        0.5,
        0.5,
    ));
    let e = refused(&rectangle);
    assert!(
        matches!(e, BuildError::Wall { wall, field: "shape", .. } if wall == w),
        "{e}"
    );

    let mut cylinder = sliding_sphere(implicit(0.01));
    let w = cylinder.wall(WallDesc::cylinder(Vec3::ZERO, Vec3::Z, 1.0, 1.0, true));
    let e = refused(&cylinder);
    assert!(
        matches!(e, BuildError::Wall { wall, field: "shape", .. } if wall == w),
        "{e}"
    );

    let mut joint = sliding_sphere(implicit(0.01));
    joint.joint(JointDesc::ball(0, None, Vec3::new(0.0, 0.0, 0.2)));
    let e = refused(&joint);
    assert!(
        matches!(e, BuildError::Joint { joint: 0, .. })
            && e.to_string().contains("joints")
            && e.to_string()
                .contains("the geometrically implicit integrator"),
        "{e}"
    );

    let compliant = sliding_sphere(Settings {
        integrator: Integrator::GeometricallyImplicit,
        ..Settings::granular(0.01)
    });
    let e = refused(&compliant);
    assert!(
        matches!(
            e,
            BuildError::Settings {
                field: "contact_frequency",
                ..
            }
        ),
        "{e}"
    );

    let mut bouncy = World::builder(implicit(0.01));
    bouncy.material(Material::new(0.3).with_restitution(0.5));
    bouncy.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.05, 1.0));
    let e = refused(&bouncy);
    assert!(
        matches!(
            e,
            BuildError::Material {
                material: 0,
                field: "restitution",
                ..
            }
        ),
        "{e}"
    );
}

/// A world of three spheres (one pushed by an applied force) on a floor, stepped at h = 0.01
/// by `integrator`.
fn three_spheres(integrator: Integrator) -> World {
    let mut b = World::builder(Settings {
        integrator,
        ..implicit(0.01)
    });
    b.material(Material::new(0.4).with_spinning(0.01));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for (i, x) in [0.0f32, 0.1, 0.2].into_iter().enumerate() {
        let mut s = Body::sphere(Vec3::new(x, 0.0, 0.05 + 0.02 * i as f32), 0.05, 1.0);
        s.angular_velocity = Vec3::new(0.0, 1.0, 3.0);
        b.body(s);
    }
    b.force(AppliedForce::constant(0, Vec3::new(5.0, 0.0, 0.0)));
    b.build().unwrap()
}

/// (d) A checkpoint resumes bit-identically, and one taken with the CCP is refused by an
/// implicit world, naming the integrator.
#[test]
fn resume_is_bit_identical_and_the_integrator_is_physics() {
    let implicit = Integrator::GeometricallyImplicit;
    let mut straight = three_spheres(implicit);
    straight.run(40).unwrap();
    let mut first = three_spheres(implicit);
    first.run(17).unwrap();
    let bytes = first.snapshot().unwrap().to_bytes();
    let mut resumed = three_spheres(implicit);
    resumed
        .restore(&Snapshot::from_bytes(&bytes).unwrap())
        .unwrap();
    resumed.run(23).unwrap();
    assert_eq!(resumed.steps(), 40);
    for i in 0..3 {
        assert_eq!(
            resumed.position(i).to_array().map(f32::to_bits),
            straight.position(i).to_array().map(f32::to_bits)
        );
        assert_eq!(
            resumed.angular_velocity(i).to_array().map(f32::to_bits),
            straight.angular_velocity(i).to_array().map(f32::to_bits)
        );
        assert_eq!(
            resumed.orientation(i).to_array().map(f32::to_bits),
            straight.orientation(i).to_array().map(f32::to_bits)
        );
    }

    let mut ccp = three_spheres(Integrator::Ccp);
    ccp.run(3).unwrap();
    match resumed.restore(&ccp.snapshot().unwrap()) {
        Err(SnapshotError::PhysicsChanged(changes)) => assert!(
            changes.iter().any(|c| c.contains("integrator")),
            "{changes:?}"
        ),
        other => panic!("a CCP snapshot restored into an implicit world: {other:?}"),
    }
}

/// More contacts within ε̂ than the stepper takes is an error of the step, and the world
/// keeps its state.
#[test]
fn too_many_contacts_is_an_error_of_the_step() {
    let mut b = World::builder(implicit(0.01));
    b.material(Material::new(0.4));
    // 13 touching spheres in a hexagonal patch: 12 around one, 30 pairs, and 13 floor
    // contacts.
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.05, 1.0));
    for k in 0..6 {
        let a = k as f32 * std::f32::consts::FRAC_PI_3;
        b.body(Body::sphere(
            Vec3::new(0.1 * a.cos(), 0.1 * a.sin(), 0.05),
            0.05,
            1.0,
        ));
        let a = a + std::f32::consts::FRAC_PI_6;
        let r = 0.1 * 3f32.sqrt();
        b.body(Body::sphere(
            Vec3::new(r * a.cos(), r * a.sin(), 0.05),
            0.05,
            1.0,
        ));
    }
    let mut world = b.build().unwrap();
    let before = world.position(3);
    match world.step() {
        Err(e @ StepError::Implicit { step: 1, .. }) => {
            assert!(e.to_string().contains("at most 32"), "{e}")
        }
        other => panic!("expected too many contacts, got {other:?}"),
    }
    assert_eq!(world.steps(), 0);
    assert_eq!(world.position(3), before);
}
