//! The grid broad phase with the narrow phase finds exactly the pairs a brute-force search finds,
//! also with a Brazil nut many times larger than the grains and a few medium grains.

use glam::Vec3;
use grains::{Body, Envelope, Health, Material, Settings, World, WorldBuilder};

fn scene(nut_radius: f32) -> World {
    bed(nut_radius).build().unwrap()
}

/// The builder of [`scene`]: 4,000 grains around a nut of `nut_radius`, without gravity. The
/// grains overlap at random (a test of the pairs, not of the physics), so the health check is
/// off.
fn bed(nut_radius: f32) -> WorldBuilder {
    let mut b = World::builder(Settings {
        gravity: Vec3::ZERO,
        envelope: Some(Envelope::Fixed(0.02)),
        threads: 2,
        health: Health::OFF,
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    let mut random = grains_kernels::random::Lcg::new(12345);
    let mut next = || random.unit();
    // 4,000 grains of radius 0.05–0.1 packed loosely in a 2 m cube, around a nut at the centre.
    b.body(Body::sphere(Vec3::ZERO, nut_radius, 50.0));
    while b.body_count() < 4000 {
        let p = Vec3::new(next(), next(), next()) * 2.0 - Vec3::ONE;
        let r = 0.05 + 0.05 * next();
        if p.length() > nut_radius + r - 0.01 {
            b.body(Body::sphere(p, r, 1.0));
        }
    }
    b
}

fn brute_force_pairs(w: &World, eps: f32) -> Vec<u64> {
    let mut keys = Vec::new();
    for i in 0..w.len() {
        for j in i + 1..w.len() {
            let gap = (w.position(i) - w.position(j)).length() - w.radius(i) - w.radius(j);
            if gap <= eps {
                keys.push(((i as u64) << 32) | j as u64);
            }
        }
    }
    keys
}

#[test]
fn grid_finds_every_pair_with_a_brazil_nut_present() {
    for nut in [0.1f32, 0.4, 0.6] {
        let mut w = scene(nut);
        let expected = brute_force_pairs(&w, 0.02);
        w.step().unwrap();
        let found = w.contact_rows().keys.clone();
        assert!(
            expected.len() > 1000,
            "scene too sparse to test: {} pairs",
            expected.len()
        );
        assert_eq!(
            found, expected,
            "nut radius {nut}: grid pairs differ from brute force"
        );
        let nut_pairs = found.iter().filter(|&&k| k >> 32 == 0).count();
        assert!(
            nut_pairs > 0,
            "nut radius {nut}: the nut found no neighbour"
        );
    }
}

/// Grains that escaped far from the bed (10 km away, two of them touching) change neither the
/// contacts of the bed nor miss their own: the grid repeats periodically instead of growing
/// its cells (see `broad_phase`), and the contact list stays exactly the brute-force one.
#[test]
fn grid_finds_every_pair_with_grains_escaped_far_away() {
    let mut b = bed(0.1);
    let far = b.body_count();
    b.body(Body::sphere(Vec3::new(1e4, 0.0, 0.0), 0.05, 1.0));
    b.body(Body::sphere(Vec3::new(1e4 + 0.09, 0.0, 0.0), 0.05, 1.0));
    b.body(Body::sphere(Vec3::new(0.0, -4e3, 7e3), 0.05, 1.0));
    let mut w = b.build().unwrap();
    let expected = brute_force_pairs(&w, 0.02);
    assert!(expected.contains(&(((far as u64) << 32) | (far as u64 + 1))));
    w.step().unwrap();
    assert_eq!(w.contact_rows().keys, expected);
}
