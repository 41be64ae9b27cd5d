//! The unit tests of `src/runner.rs`.

use grains::body::Body;
use grains::material::Material;
use grains::settings::Settings;
use grains::world::World;
use grains::Vec3;
use grains_app::runner::*;

/// Grains filling the circular segment under a chord tilted by `tilt` (rad) in a drum of
/// radius 1 about the y axis through `c`, on a lattice symmetric about the chord's
/// perpendicular through the axis: their centroid lies on that perpendicular, so the
/// observable must return the tilt.
fn tilted_bed(tilt: f32, c: Vec3) -> World {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    // In the chord's frame: x' along the chord, z' down its perpendicular; depth 0.6.
    let (along, down) = (
        Vec3::new(tilt.cos(), 0.0, -tilt.sin()),
        Vec3::new(-tilt.sin(), 0.0, -tilt.cos()),
    );
    for i in -20..=20 {
        for k in 0..=20 {
            let (x, z) = (i as f32 * 0.05, 0.4 + k as f32 * 0.03);
            if x * x + z * z < 1.0 {
                for y in [-0.1, 0.1] {
                    let p = c + x * along + z * down + Vec3::new(0.0, y, 0.0);
                    b.body(Body::sphere(p, 0.01, 1.0));
                }
            }
        }
    }
    b.build().unwrap()
}

#[test]
fn surface_angle_is_the_tilt_of_a_flat_bed_in_the_drum() {
    let c = Vec3::new(0.3, -0.2, 1.5);
    for deg in [0.0f32, 12.0, 35.0, -20.0] {
        let w = tilted_bed(deg.to_radians(), c);
        let got = surface_angle(&Share::of(&w), &(0..w.len()), c, Vec3::Y);
        // f32 positions of size ~1: the centroid's direction is good to ~1e-6 rad.
        assert!((got - deg as f64).abs() < 1e-3, "{deg}°: got {got}°");
        // About the opposite axis the angle changes sign.
        let flipped = surface_angle(&Share::of(&w), &(0..w.len()), c, -Vec3::Y);
        assert!(
            (flipped + deg as f64).abs() < 1e-3,
            "{deg}°: got {flipped}°"
        );
    }
}
