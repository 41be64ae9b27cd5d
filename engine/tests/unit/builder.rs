//! The unit tests of `src/builder.rs`.

use glam::Vec3;
use grains::{Body, Settings, World};

/// A clone of a builder (what a scene builds its world from, with the caller's settings) holds
/// the same list of bodies, not a copy of it, until one of them adds a body; the other then
/// keeps its own.
#[test]
fn a_cloned_builder_shares_its_bodies_until_one_adds_a_body() {
    let mut b = World::builder(Settings::default());
    for k in 0..100 {
        b.body(Body::sphere(Vec3::new(k as f32, 0.0, 1.0), 0.1, 1.0));
    }
    let mut clone = b.clone();
    assert!(
        std::ptr::eq(b.bodies().as_ptr(), clone.bodies().as_ptr()),
        "the clone copied the bodies"
    );
    clone.body(Body::sphere(Vec3::new(0.0, 5.0, 1.0), 0.1, 1.0));
    assert_eq!((b.bodies().len(), clone.bodies().len()), (100, 101));
    assert!(!std::ptr::eq(b.bodies().as_ptr(), clone.bodies().as_ptr()));
    assert_eq!(b.bodies(), &clone.bodies()[..100]);
}
