//! Moving walls and kinematic bodies: their velocity enters the contacts' relative velocity.

use glam::Vec3;
use grains::{Body, BoxContainer, Material, MaterialId, Prescribed, Settings, WallDesc, World};

#[test]
fn a_conveyor_floor_drags_a_sphere_to_two_sevenths_of_its_speed() {
    // Slip stops when v − ω r equals the belt speed U; the friction impulse J then satisfies
    // J/m + r² J/I = U, so v = U/(1 + m r²/I) = 2U/7 for a solid sphere.
    let mut b = World::builder(Settings {
        h: 1e-3,
        ..Settings::default()
    });
    b.material(Material::new(0.4));
    let belt = Prescribed::Constant {
        linear: Vec3::new(1.0, 0.0, 0.0),
        angular: Vec3::ZERO,
    };
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z).moving(belt));
    b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.1), 0.1, 2.0));
    let mut w = b.build().unwrap();
    w.run(1000).unwrap();
    let (v, om) = (w.velocity(0), w.angular_velocity(0));
    assert!((v.x - 2.0 / 7.0).abs() < 1e-5, "v_x = {}", v.x);
    assert!(
        (v.x - om.y * 0.1 - 1.0).abs() < 1e-5,
        "still slipping: v − ω r = {}",
        v.x - om.y * 0.1
    );
    assert!(
        v.z.abs() < 1e-6 && (w.position(0).z - 0.1).abs() < 1e-5,
        "the sphere left the belt"
    );
}

fn shaken_sphere(frequency: f32) -> f32 {
    let mut b = World::builder(Settings {
        h: 5e-4,
        ..Settings::default()
    });
    b.material(Material::new(0.3));
    b.container(&BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: 1.0,
        width_y: 1.0,
        height: 0.5,
        material: MaterialId(0),
        motion: Some(Prescribed::vertical_shake(0.01, frequency)),
    });
    b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.05, 1.0));
    let mut w = b.build().unwrap();
    let mut max_gap: f32 = 0.0;
    for _ in 0..4000 {
        w.step().unwrap();
        let floor = Prescribed::vertical_shake(0.01, frequency)
            .displacement(w.time())
            .z;
        max_gap = max_gap.max(w.position(0).z - 0.05 - floor);
    }
    max_gap
}

#[test]
fn a_shaken_box_throws_a_sphere_only_above_one_g() {
    // Γ = A (2πf)² / g: 0.36 at 3 Hz (the sphere rides the floor), 4.0 at 10 Hz (it flies).
    let riding = shaken_sphere(3.0);
    let flying = shaken_sphere(10.0);
    assert!(
        riding < 2e-4,
        "at Γ = 0.36 the sphere lost the floor by {riding} m"
    );
    assert!(
        flying > 5e-3,
        "at Γ = 4 the sphere never left the floor (max gap {flying} m)"
    );
}

#[test]
fn a_kinematic_pusher_drives_a_sphere_ahead_of_it() {
    let mut b = World::builder(Settings {
        h: 1e-3,
        gravity: Vec3::ZERO,
        ..Settings::default()
    });
    b.material(Material::new(0.0));
    let push = Prescribed::Constant {
        linear: Vec3::new(0.5, 0.0, 0.0),
        angular: Vec3::ZERO,
    };
    b.body(Body::sphere(Vec3::ZERO, 0.1, 1.0).kinematic(push));
    b.body(Body::sphere(Vec3::new(0.25, 0.0, 0.0), 0.1, 1.0));
    let mut w = b.build().unwrap();
    w.run(500).unwrap();
    assert_eq!(
        w.velocity(0),
        Vec3::new(0.5, 0.0, 0.0),
        "the pusher must keep its prescribed velocity"
    );
    assert!(
        (w.position(0).x - 0.25).abs() < 1e-5,
        "pusher at {}",
        w.position(0).x
    );
    assert!(
        w.velocity(1).x >= 0.5 - 1e-5,
        "pushed sphere moves at {}",
        w.velocity(1).x
    );
    assert!(
        w.position(1).x - w.position(0).x >= 0.2 - 1e-4,
        "the pusher overlaps the sphere"
    );
}
