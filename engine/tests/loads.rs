//! Wall and body loads against closed-form statics: a resting bed's walls carry its weight, a
//! sphere on a floor presses with m g, and the torques about a point are those of the weight's
//! lever arm.

use grains::glam::DVec3;
use grains::{
    Backend, Body, BoxContainer, BuildError, Material, Settings, Solver, Vec3, WallDesc, WallLoad,
    World,
};

const G: f64 = 9.81;

/// Settings whose solve at rest is converged far below the 0.1 % asked of the sums: rigid
/// contact, Gauss–Seidel to 1e-9 m/s.
fn tight() -> Settings {
    let s = Settings::default();
    Settings {
        solver: s.solver.with_tolerance(1e-9),
        ..s
    }
}

/// True when `a` and `b` agree to `tol` of `scale`.
fn close(a: DVec3, b: DVec3, tol: f64, scale: f64) -> bool {
    (a - b).length() <= tol * scale
}

#[test]
fn a_sphere_on_a_floor_presses_with_its_weight_and_its_lever_arm() {
    let (m, r) = (2.0, 0.05);
    let centre = Vec3::new(0.3, -0.2, r);
    let mut b = World::builder(tight());
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::new(5.0, 0.0, 0.0), -Vec3::X)); // far away: no contact
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(Body::sphere(centre, r, m));
    let mut w = b.build().unwrap();
    w.run(500).unwrap();
    let weight = DVec3::new(0.0, 0.0, -f64::from(m) * G);
    let p = Vec3::new(-0.1, 0.4, 0.2);
    let loads = w.wall_loads(p);
    assert_eq!(loads.len(), 2);
    assert_eq!(
        loads[0],
        WallLoad::default(),
        "the far wall carries nothing"
    );
    let floor = loads[1];
    assert_eq!(floor.contacts, 1);
    assert!(
        close(floor.force, weight, 1e-5, weight.length()),
        "{}",
        floor.force
    );
    // The contact point is under the centre on the floor: torque (c − p) × (−m g ẑ).
    let arm = DVec3::new(0.3 + 0.1, -0.2 - 0.4, -0.2);
    let torque = arm.cross(weight);
    assert!(
        close(floor.torque, torque, 1e-4, torque.length()),
        "torque {} expected {torque}",
        floor.torque
    );
    let on_body = w.body_contact_forces();
    assert!(
        close(on_body[0], -weight, 1e-5, weight.length()),
        "{}",
        on_body[0]
    );
}

#[test]
fn a_sphere_held_on_a_slope_by_rolling_resistance_loads_it_through_its_centre() {
    // On a slope of angle θ with tan θ < e_roll / r the sphere rests; its balance about its
    // centre makes the plane's torque about any point that of the weight through the centre,
    // (centre − p) × m g, the rolling moment included (without it the arm would end at the
    // contact point, r below the centre along the normal).
    let (m, r) = (1.5f32, 0.1f32);
    let theta = 0.2f32;
    let normal = Vec3::new(-theta.sin(), 0.0, theta.cos());
    let mut b = World::builder(tight());
    b.material(Material::new(0.8).with_rolling(0.05));
    b.wall(WallDesc::plane(Vec3::ZERO, normal));
    let centre = normal * r;
    b.body(Body::sphere(centre, r, m));
    let mut w = b.build().unwrap();
    w.run(1000).unwrap();
    let c = w.position(0).as_dvec3();
    assert!(w.velocity(0).length() < 1e-5, "the sphere rests");
    let weight = DVec3::new(0.0, 0.0, -f64::from(m) * G);
    let p = Vec3::new(0.5, 0.3, -0.2);
    let plane = w.wall_loads(p)[0];
    assert!(
        close(plane.force, weight, 1e-5, weight.length()),
        "{}",
        plane.force
    );
    let torque = (c - p.as_dvec3()).cross(weight);
    assert!(
        close(plane.torque, torque, 1e-4, torque.length()),
        "torque {} expected {torque}",
        plane.torque
    );
}

#[test]
fn a_resting_bed_loads_its_box_with_its_weight() {
    // 288 spheres (6 × 6 × 8) settle in a box; at rest the floor and the side walls carry the
    // bed's weight. Momentum balance makes Σ wall forces = Σ m Δv / h − M g exactly, so the
    // sum is off the weight only by the bed's remaining acceleration; 0.1 % of M g is a mean
    // velocity change of 1e-5 m/s per step, which a settled rigid bed solved to 1e-9 m/s is
    // far below.
    let r = 0.005f32;
    let mut b = World::builder(tight());
    b.material(Material::new(0.5));
    b.container(&BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: 12.8 * r,
        width_y: 12.8 * r,
        height: 30.0 * r,
        material: Default::default(),
        motion: None,
    });
    let mass = 0.001f32;
    for k in 0..8 {
        for j in 0..6 {
            for i in 0..6 {
                let jitter = 0.02 * r * ((i * 7 + j * 3 + k) % 5) as f32;
                let at = Vec3::new(
                    (2.1 * i as f32 - 5.25) * r + jitter,
                    (2.1 * j as f32 - 5.25) * r - jitter,
                    (1.05 + 2.1 * k as f32) * r,
                );
                b.body(Body::sphere(at, r, mass));
            }
        }
    }
    let mut w = b.build().unwrap();
    w.run(1500).unwrap();
    let before = w.momentum();
    w.step().unwrap();
    let after = w.momentum();
    let weight = 288.0 * f64::from(mass) * G;
    let loads = w.wall_loads(Vec3::ZERO);
    let total = WallLoad::total(&loads);
    let floor = loads[0].force.z;
    let sides = WallLoad::total(&loads[1..]).force;
    let h = f64::from(w.settings().h);
    let accel = DVec3::from_array(after) - DVec3::from_array(before);
    println!(
        "floor {floor} N, sides {sides} N, total {} N, weight {weight} N, Σ m Δv / h {} N",
        total.force,
        accel / h
    );
    assert!(
        (total.force.z + weight).abs() <= 1e-3 * weight,
        "floor plus walls {} N, weight {weight} N",
        total.force.z
    );
    assert!(
        total.force.truncate().length() <= 1e-3 * weight,
        "no net sideways push on the box: {}",
        total.force
    );
    // Each side wall is pushed outwards, the floor down.
    assert!(floor < 0.0 && loads[1].force.x <= 0.0 && loads[2].force.x >= 0.0);
    let on_bodies: DVec3 = w.body_contact_forces().iter().sum();
    assert!(
        close(on_bodies, -total.force, 1e-9, weight),
        "body–body forces cancel: {on_bodies} against {}",
        total.force
    );
}

#[test]
fn on_the_gpu_the_loads_are_those_of_the_contacts_read_back() {
    // Until `sync_contacts` the host holds no contacts of the device's steps: the loads are 0;
    // after it, the floor carries the sphere's weight.
    let (m, r) = (2.0f32, 0.05f32);
    let mut b = World::builder(Settings {
        backend: Backend::Gpu,
        solver: Solver::Jacobi {
            sweeps: 50,
            tolerance: 0.0,
            omega: 0.3,
        },
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(Body::sphere(Vec3::new(0.0, 0.0, r), r, m));
    let mut w = match b.build() {
        Ok(w) => w,
        Err(BuildError::NoGpuAdapter(why)) => return eprintln!("skipped: no GPU adapter ({why})"),
        Err(BuildError::Gpu(why)) => return eprintln!("skipped: no GPU backend ({why})"),
        Err(e) => panic!("{e}"),
    };
    w.run(300).unwrap();
    assert_eq!(w.wall_loads(Vec3::ZERO)[0], WallLoad::default());
    w.sync_contacts().unwrap();
    let floor = w.wall_loads(Vec3::ZERO)[0];
    let weight = f64::from(m) * G;
    assert_eq!(floor.contacts, 1);
    assert!(
        (floor.force.z + weight).abs() < 1e-3 * weight,
        "{}",
        floor.force
    );
    assert!(close(
        w.body_contact_forces()[0],
        -floor.force,
        1e-9,
        weight
    ));
}
