//! Cohesion in the cone (`Material::cohesion`, `Material::surface_energy`) against closed
//! forms: a sphere under a ceiling, or under a fixed sphere, hangs at any weight below its
//! pull-off force (constant c, or JKR's 3π γ R*) and falls above it (1 % either side); the
//! contact reports the tension that holds it; a cube with cohesive corners slides under a
//! push above μ (m g + N c) and holds below it (the widened cone, 1 %); the combinations the
//! engine cannot serve are refused at build.

use grains::{AppliedForce, Backend, Body, BuildError, Material, Settings, Solver, Vec3, WallDesc};
use grains::{World, WorldBuilder};

const G: f32 = 9.81;

/// Rigid contact, Gauss–Seidel to 1e-9 m/s, h = 1 ms, gravity along −z.
fn tight() -> Settings {
    let s = Settings::default();
    Settings {
        solver: s.solver.with_tolerance(1e-9),
        ..s
    }
}

/// `b` built, or the message of its refusal.
fn build(b: WorldBuilder) -> Result<World, String> {
    b.build().map_err(|e| e.to_string())
}

/// The fall (m) over 1 s of a sphere of mass `mass` and radius `r` touching the ceiling
/// z = 0 from below, its material and the ceiling's `material`; the contact's force on the
/// sphere after the first step.
fn hang_under_ceiling(material: Material, mass: f32, r: f32) -> (f32, Vec3) {
    let mut b = World::builder(tight());
    b.material(material);
    b.wall(WallDesc::plane(Vec3::ZERO, -Vec3::Z));
    b.body(Body::sphere(Vec3::new(0.0, 0.0, -r), r, mass));
    let mut w = b.build().expect("the hanging sphere builds");
    w.step().expect("a step");
    let force = w.contacts().map(|c| c.force).sum();
    w.run(999).expect("1 s");
    (-r - w.position(0).z, force)
}

#[test]
fn a_sphere_under_a_ceiling_hangs_below_its_pull_off_force_and_falls_above() {
    let (r, c) = (0.005, 1.0);
    for (share, holds) in [(0.99, true), (1.01, false)] {
        let mass = share * c / G;
        let (fall, force) = hang_under_ceiling(Material::new(0.5).with_cohesion(c), mass, r);
        println!("weight {share} c: fell {fall:.3e} m; contact force {force}");
        if holds {
            assert!(fall.abs() < 1e-6, "weight {share} c: fell {fall} m");
            // The contact holds the sphere up in tension: its force on the sphere is the weight.
            let weight = mass * G;
            assert!(
                (force - Vec3::new(0.0, 0.0, weight)).length() < 1e-4 * weight,
                "contact force {force}, weight {weight} N"
            );
        } else {
            assert!(fall > 0.1, "weight {share} c: fell only {fall} m");
        }
    }
}

#[test]
fn a_sphere_under_a_fixed_sphere_pulls_off_at_the_jkr_force() {
    // Spheres of radii 5 and 3 mm, surface energy γ = 0.05 J/m²: R* = 1.875 mm and the JKR
    // pull-off force 3π γ R* = 0.8836 mN.
    let (r1, r2, gamma) = (0.005f32, 0.003f32, 0.05f32);
    let pull_off = 3.0 * std::f32::consts::PI * gamma * (r1 * r2 / (r1 + r2));
    for (share, holds) in [(0.99, true), (1.01, false)] {
        let mut b = World::builder(tight());
        b.material(Material::new(0.5).with_surface_energy(gamma));
        b.body(Body::sphere(Vec3::ZERO, r1, 1.0).fixed());
        let hanging = Vec3::new(0.0, 0.0, -(r1 + r2));
        b.body(Body::sphere(hanging, r2, share * pull_off / G));
        let mut w = b.build().expect("the pair builds");
        w.run(1000).expect("1 s");
        let fall = hanging.z - w.position(1).z;
        println!("weight {share} × 3π γ R*: fell {fall:.3e} m");
        match holds {
            true => assert!(fall.abs() < 1e-6, "weight {share}: fell {fall} m"),
            false => assert!(fall > 0.1, "weight {share}: fell only {fall} m"),
        }
    }
}

#[test]
fn a_cohesive_cube_slides_above_mu_times_its_weight_and_pull() {
    // A 2 cm cube of 0.1 kg on a floor (μ = 0.3), every corner contact with pull-off c = 0.5 N,
    // pushed along x at its centre: the widened cone holds it below F = μ (m g + N c) and
    // lets it slide above.
    let (mass, mu, c, half) = (0.1f32, 0.3f32, 0.5f32, 0.01f32);
    let slid = |push: f32| {
        let mut b = World::builder(tight());
        b.material(Material::new(mu).with_cohesion(c));
        b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
        b.body(Body::cube(Vec3::new(0.0, 0.0, half), half, mass));
        b.force(AppliedForce::constant(0, Vec3::new(push, 0.0, 0.0)));
        let mut w = b.build().expect("the cube builds");
        w.step().expect("a step");
        let touching = w.contacts().len();
        w.run(499).expect("0.5 s");
        (w.position(0).x, touching)
    };
    let (_, n) = slid(0.0);
    assert_eq!(n, 4, "a cube face down on a floor touches at its 4 corners");
    let threshold = mu * (mass * G + n as f32 * c);
    for (share, slides) in [(0.99, false), (1.01, true)] {
        let (x, _) = slid(share * threshold);
        println!("push {share} μ (m g + N c): moved {x:.3e} m");
        match slides {
            true => assert!(x > 1e-3, "push {share}: moved only {x} m"),
            false => assert!(x.abs() < 1e-6, "push {share}: moved {x} m"),
        }
    }
}

#[test]
fn cohesion_is_refused_where_it_cannot_be_served() {
    let cohesive = Material::new(0.5).with_cohesion(1.0);
    let sphere = Body::sphere(Vec3::ZERO, 0.01, 0.01);
    let world = |s: Settings, m: Material, body: Body| {
        let mut b = World::builder(s);
        b.material(m);
        b.body(body);
        build(b)
    };
    let gpu = Settings {
        backend: Backend::Gpu,
        solver: Solver::Jacobi {
            sweeps: 30,
            tolerance: 0.0,
            omega: 0.3,
        },
        ..tight()
    };
    let msg = world(gpu, cohesive, sphere)
        .err()
        .expect("the GPU refuses cohesion");
    assert!(
        msg.contains("cohesion") && msg.contains("GPU backend") && msg.contains("material 0"),
        "{msg}"
    );
    let jkr = Material::new(0.5).with_surface_energy(0.1);
    let cube = Body::cube(Vec3::ZERO, 0.01, 0.01);
    let msg = world(tight(), jkr, cube).err().expect("JKR needs spheres");
    assert!(
        msg.contains("surface energy") && msg.contains("shapes other than spheres"),
        "{msg}"
    );
    for bad in [
        Material::new(0.5).with_cohesion(-1.0),
        Material::new(0.5).with_surface_energy(f32::NAN),
    ] {
        let mut b = World::builder(tight());
        b.material(bad);
        b.body(sphere);
        match b.build() {
            Err(BuildError::Material { field, .. }) => {
                assert!(field == "cohesion" || field == "surface_energy", "{field}")
            }
            other => panic!("{bad:?} was not refused: {:?}", other.map(|_| ())),
        }
    }
}
