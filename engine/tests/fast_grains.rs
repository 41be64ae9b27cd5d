//! Grains shot at walls and at each other at 10 km/s stop at the surface within one step: the
//! per-pair envelope makes the contact in the step before they would reach it (a speculative
//! contact), and a compliant contact gives at most δ = 0.1 r_min (`StepParams::max_give`), so
//! nothing passes through. Before the bound the pour's spring let them through (68 r deep after
//! one step, then the contact was gone).

use grains::{sphere_mass, Body, Material, Prescribed, Settings, Vec3};
use grains::{WallDesc, World};

const R: f32 = 0.005;
const SPEED: f32 = 1e4;

/// The pour's tuning (compliant contact, h = 2 ms) and the papers' rigid default (h = 1 ms).
fn settings() -> [Settings; 2] {
    [Settings::granular(0.002), Settings::default()]
}

/// A grain 10 cm above the floor z = 0 (`walls`), shot straight down at 10 km/s.
fn shot_down(settings: Settings, walls: &[WallDesc]) -> World {
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    for &w in walls {
        b.wall(w);
    }
    let p = Vec3::new(0.0, 0.0, 0.1);
    b.body(Body::sphere(p, R, sphere_mass(R, 2500.0)).with_velocity(-SPEED * Vec3::Z));
    b.build().unwrap()
}

/// Steps `w` 20 times and returns the deepest overlap the grain had with the floor at height
/// `floor(t)` after a step, in radii.
fn deepest_floor_overlap(w: &mut World, floor: impl Fn(f64) -> f32) -> f32 {
    let mut deepest = f32::NEG_INFINITY;
    for _ in 0..20 {
        w.step().unwrap();
        deepest = deepest.max((floor(w.time()) + R - w.position(0).z) / R);
    }
    deepest
}

#[test]
fn grains_at_ten_km_per_s_stop_on_a_plane_floor() {
    for s in settings() {
        let mut w = shot_down(s, &[WallDesc::plane(Vec3::ZERO, Vec3::Z)]);
        let overlap = deepest_floor_overlap(&mut w, |_| 0.0);
        assert!(overlap <= 0.11, "h = {}: overlap {overlap} r", s.h);
    }
}

#[test]
fn grains_at_ten_km_per_s_stop_on_a_rectangular_table() {
    let table = WallDesc::rectangle(Vec3::ZERO, Vec3::Z, Vec3::X, 0.1, 0.1);
    for s in settings() {
        let mut w = shot_down(s, &[table]);
        let overlap = deepest_floor_overlap(&mut w, |_| 0.0);
        assert!(overlap <= 0.11, "h = {}: overlap {overlap} r", s.h);
    }
}

#[test]
fn grains_at_ten_km_per_s_stop_on_a_rising_floor() {
    let rise = 2.0;
    let lift = Prescribed::Constant {
        linear: rise * Vec3::Z,
        angular: Vec3::ZERO,
    };
    for s in settings() {
        let mut w = shot_down(s, &[WallDesc::plane(Vec3::ZERO, Vec3::Z).moving(lift)]);
        let overlap = deepest_floor_overlap(&mut w, |t| rise * t as f32);
        assert!(overlap <= 0.11, "h = {}: overlap {overlap} r", s.h);
    }
}

#[test]
fn grains_at_ten_km_per_s_do_not_pass_through_each_other() {
    for s in settings() {
        let mut b = World::builder(s);
        b.material(Material::new(0.5));
        let m = sphere_mass(R, 2500.0);
        b.body(Body::sphere(Vec3::new(-0.05, 0.0, 0.0), R, m).with_velocity(SPEED * Vec3::X));
        b.body(Body::sphere(Vec3::new(0.05, 0.0, 0.0), R, m).with_velocity(-SPEED * Vec3::X));
        let mut w = b.build().unwrap();
        for _ in 0..20 {
            w.step().unwrap();
            let gap = w.position(1).x - w.position(0).x - 2.0 * R;
            assert!(gap >= -0.11 * R, "h = {}: gap {} r", s.h, gap / R);
        }
    }
}
