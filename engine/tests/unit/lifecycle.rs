//! The unit tests of `src/lifecycle.rs`.

use glam::Vec3;
use grains::{Body, Material, Settings, Sink, SinkShape, WallDesc, World};
use grains_kernels::pair_key;

/// Stacks of two spheres on a floor, the middle stack inside a sink: after the pass removes
/// it, every surviving contact keeps its warm-start impulse, bit for bit, under its
/// renumbered key, and the removed stack's contacts are gone.
#[test]
fn the_warm_start_of_surviving_contacts_is_kept_after_a_removal() {
    let r = 0.05;
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for k in 0..5 {
        let x = k as f32 * 0.3;
        b.body(Body::sphere(Vec3::new(x, 0.0, r), r, 1.0));
        b.body(Body::sphere(Vec3::new(x, 0.0, 3.0 * r), r, 1.0));
    }
    b.sink(Sink::new(
        "middle",
        SinkShape::Box {
            min: Vec3::new(0.5, -1.0, -1.0),
            max: Vec3::new(0.7, 1.0, 1.0),
        },
    ));
    let mut w = b.build().unwrap();
    w.run(grains::lifecycle::SINK_STEPS).unwrap();
    let (keys, impulses, _) = w.warm_start_state().unwrap();
    let ids = w.ids().to_vec();
    assert_eq!(keys.len(), 10, "five floor and five stack contacts");
    w.change_bodies().unwrap();
    assert_eq!(w.len(), 8, "the middle stack went");
    let (new_keys, new_impulses, _) = w.warm_start_state().unwrap();
    let new_index = |old: u32| {
        let id = ids[old as usize];
        w.ids().binary_search(&id).ok().map(|i| i as u32)
    };
    let mut kept = 0;
    for (key, impulse) in keys.iter().zip(&impulses) {
        let (a, low) = ((key >> 32) as u32, *key as u32);
        let Some(na) = new_index(a) else { continue };
        let new_key = if low > u32::MAX - 4 {
            (na as u64) << 32 | low as u64
        } else {
            match new_index(low) {
                Some(nb) => pair_key(na, nb),
                None => continue,
            }
        };
        let at = new_keys.binary_search(&new_key).expect("the key survives");
        assert_eq!(
            new_impulses[at].map(f32::to_bits),
            impulse.map(f32::to_bits)
        );
        assert!(
            impulse.iter().any(|x| *x != 0.0),
            "a resting contact pushes"
        );
        kept += 1;
    }
    assert_eq!(kept, 8);
    assert_eq!(new_keys.len(), 8);
    assert!(new_keys.windows(2).all(|p| p[0] < p[1]));
}

/// Spheres resting on a mesh floor beside a plane wall, the middle one in a sink: after the
/// removal the others keep their mesh contacts' warm start (triangle keys are walls too).
#[test]
fn mesh_contacts_keep_their_warm_start_after_a_removal() {
    let r = 0.05;
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::new(-5.0, 0.0, 0.0), Vec3::X));
    let c = [-1.0f32, 1.0].map(|x| [-1.0f32, 1.0].map(|y| Vec3::new(x, y, 0.0)));
    b.mesh(grains::MeshDesc::new(vec![
        [c[0][0], c[1][0], c[1][1]],
        [c[0][0], c[1][1], c[0][1]],
    ]));
    for k in 0..3 {
        b.body(Body::sphere(
            Vec3::new(k as f32 * 0.3 - 0.3, 0.1, r),
            r,
            1.0,
        ));
    }
    b.sink(Sink::new(
        "middle",
        SinkShape::Box {
            min: Vec3::new(-0.1, -1.0, -1.0),
            max: Vec3::new(0.1, 1.0, 1.0),
        },
    ));
    let mut w = b.build().unwrap();
    w.run(grains::lifecycle::SINK_STEPS).unwrap();
    let (keys, impulses, _) = w.warm_start_state().unwrap();
    assert_eq!(keys.len(), 3, "one mesh contact each");
    w.change_bodies().unwrap();
    assert_eq!(w.len(), 2);
    let (new_keys, new_impulses, _) = w.warm_start_state().unwrap();
    assert_eq!(new_keys.len(), 2, "the survivors' mesh contacts are kept");
    for (k, old) in [0, 2].into_iter().enumerate() {
        assert_eq!(new_keys[k] as u32, keys[old] as u32, "the same triangle");
        assert_eq!(
            new_impulses[k].map(f32::to_bits),
            impulses[old].map(f32::to_bits)
        );
    }
}
