//! The unit tests of `src/output/quality.rs`.

use glam::Vec3;
use grains::world::World;
use grains::{Body, BoxContainer, Check, Fault, Material, MaterialId, Settings, WallDesc};
use grains_app::output::quality::*;
use grains_app::scene::Bounds;

/// A world of `walls` and dynamic spheres of radius 0.1 at `centres`, at time 0, with the
/// escape check warning (grains outside the walls are what these figures classify).
fn world(walls: &[WallDesc], centres: &[Vec3]) -> World {
    world_escape(walls, centres, Check::Warn)
}

/// [`world`] with the escape check `escape`.
fn world_escape(walls: &[WallDesc], centres: &[Vec3], escape: Check) -> World {
    let mut b = World::builder(Settings {
        health: grains::Health {
            escape,
            ..Default::default()
        },
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    for w in walls {
        b.wall(*w);
    }
    // Built high above (the domain is open upwards), since a grain placed in a wall is
    // refused, then moved to its place.
    for &c in centres {
        b.body(Body::sphere(c + Vec3::Z * 100.0, 0.1, 1.0));
    }
    let mut w = b.build().unwrap();
    w.set_positions(centres, None).unwrap();
    w
}

/// One grain at a time, in a hopper of two plates open between them (no sink under the
/// outlet) or in a box, under each setting of the escape check that lets the run go on:
/// the figures count it escaped exactly when the health check finds it escaped, and
/// discharged exactly when it left an open domain.
#[test]
fn escaped_and_discharged_agree_with_the_health_check() {
    let plate = |x| WallDesc::rectangle(Vec3::new(x, 0.0, 0.0), Vec3::Z, Vec3::X, 0.4, 1.0);
    let hopper = [plate(-0.6), plate(0.6)];
    let bounds = Bounds {
        floor_centre: Vec3::ZERO,
        half_x: 0.5,
        half_y: 0.5,
        height: 0.3,
        motion: None,
    };
    let boxed = box_walls(0.0, 0.0);
    let cases: [(&[WallDesc], Option<&Bounds>, Vec3); 8] = [
        (&hopper, None, Vec3::new(0.6, 0.0, 0.5)),   // over a plate
        (&hopper, None, Vec3::new(0.0, 0.0, -2.0)),  // out of the outlet
        (&hopper, None, Vec3::new(1.5, 0.0, -2.0)),  // past the plates' edge
        (&hopper, None, Vec3::new(-0.6, 0.0, -0.5)), // through a plate
        (&boxed, Some(&bounds), Vec3::new(0.0, 0.0, 0.15)), // in the box
        (&boxed, Some(&bounds), Vec3::new(2.0, 0.0, 0.15)), // beside it
        (&boxed, Some(&bounds), Vec3::new(0.0, 0.0, -1.0)), // through its floor
        (&boxed, Some(&bounds), Vec3::new(0.0, 0.0, 3.0)), // over its open top
    ];
    let mut left = 0;
    for escape in [Check::Warn, Check::Off] {
        for (walls, bounds, p) in cases {
            let mut w = world_escape(walls, &[p], escape);
            w.step().unwrap();
            let health = (w.take_warnings().iter())
                .filter(|(_, f)| matches!(f, Fault::Escaped { .. }))
                .count();
            let outside = (w.domain().unwrap()).excess(w.bodies().pos_radius[0].truncate(), 0.1);
            let q = Quality::measure(&w, bounds);
            let at = format!("{escape:?}, grain at {p}: {q:?}");
            assert_eq!(q.escaped, health, "{at}");
            let discharged = outside > 0.0 && escape == Check::Off;
            assert_eq!(q.discharged, usize::from(discharged), "{at}");
            left += usize::from(outside > 0.0);
        }
    }
    assert_eq!(left, 2 * 5);
}

#[test]
fn grains_below_a_floor_of_plates_have_left_and_touch_no_floor() {
    // A floor of two plates, x in [-1, -0.2] and [0.2, 1], open between them; a plate above
    // it is not the floor.
    let plate = |x, z| WallDesc::rectangle(Vec3::new(x, 0.0, z), Vec3::Z, Vec3::X, 0.4, 1.0);
    let centres = &[
        Vec3::new(0.6, 0.0, 0.1),   // on a plate of the floor
        Vec3::new(0.6, 0.0, 0.8),   // under the upper plate, on nothing
        Vec3::new(0.0, 0.0, -2.0),  // through the opening
        Vec3::new(1.5, 0.0, -2.0),  // past the floor's edge
        Vec3::new(-0.6, 0.0, -0.5), // under a plate of the floor: through it
    ];
    let w = world(
        &[plate(-0.6, 0.0), plate(0.6, 0.0), plate(0.6, 1.0)],
        centres,
    );
    // The three below the floor left the domain (z from 0 up): escaped while the escape
    // check is on, discharged from an open domain.
    let q = Quality::measure(&w, None);
    assert_eq!((q.escaped, q.discharged), (3, 0));
    assert!(q.max_pen_r < 1e-6, "{q:?}");
    let w = world_escape(&[plate(-0.6, 0.0), plate(0.6, 0.0)], centres, Check::Off);
    let q = Quality::measure(&w, None);
    assert_eq!((q.escaped, q.discharged), (0, 3));
    // With no wall there is no domain: nothing can leave.
    let q = Quality::measure(&world(&[], &[Vec3::new(0.0, 0.0, -5.0)]), None);
    assert_eq!((q.escaped, q.discharged), (0, 0));
}

#[test]
fn grains_out_of_a_box_are_escaped_without_an_overlap() {
    let bounds = Bounds {
        floor_centre: Vec3::ZERO,
        half_x: 0.5,
        half_y: 0.5,
        height: 0.3,
        motion: None,
    };
    let w = world(
        &box_walls(0.0, 0.0),
        &[
            Vec3::new(0.0, 0.0, 0.1),   // on the floor
            Vec3::new(-0.45, 0.0, 0.1), // 0.05 into the −x wall
            Vec3::new(0.45, 0.0, 0.5),  // above the walls' top, beside the +x wall
            Vec3::new(2.0, 0.0, 0.1),   // over a wall, beside the box
            Vec3::new(2.0, 0.0, -3.0),  // over a wall, below the floor
            Vec3::new(0.0, 0.0, -3.0),  // through the floor
        ],
    );
    let q = Quality::measure(&w, Some(&bounds));
    assert_eq!((q.escaped, q.discharged), (3, 0));
    assert!((q.wall_max_pen_r - 0.5).abs() < 1e-5, "{q:?}");
    assert!(q.max_pen_r < 1e-6, "{q:?}");
}

#[test]
fn grains_in_any_box_level_with_the_first_touch_its_walls() {
    let boxed = |x: f32, z: f32| Bounds {
        floor_centre: Vec3::new(x, 0.0, z),
        half_x: 0.5,
        half_y: 0.5,
        height: 0.3,
        motion: None,
    };
    let walls: Vec<WallDesc> = [(0.0, 0.0), (2.0, 0.0), (4.0, 0.5)]
        .iter()
        .flat_map(|&(x, z)| box_walls(x, z))
        .collect();
    let w = world(
        &walls,
        &[
            Vec3::new(0.0, 0.0, 0.1),  // in the first box
            Vec3::new(2.0, 0.0, 0.1),  // in the second, level with it
            Vec3::new(2.45, 0.0, 0.1), // 0.05 into the second box's +x wall
            Vec3::new(4.0, 0.0, 0.6),  // in the third, raised one: not level
            Vec3::new(1.0, 0.0, 0.1),  // between the boxes
            Vec3::new(2.0, 0.0, -3.0), // through the second box's floor
        ],
    );
    // Only the grain through a floor left the domain, the box about all three.
    let q = Quality::measure_boxes(&w, &[boxed(0.0, 0.0), boxed(2.0, 0.0), boxed(4.0, 0.5)]);
    assert_eq!((q.escaped, q.discharged), (1, 0));
    assert!((q.wall_max_pen_r - 0.5).abs() < 1e-5, "{q:?}");
    // The first box alone: the second's wall overlap is not measured; what left is the same.
    let q = Quality::measure_boxes(&w, &[boxed(0.0, 0.0)]);
    assert_eq!((q.escaped, q.wall_max_pen_r), (1, 0.0));
}

/// The walls of a box 1 m wide and 0.3 m high on a floor centred at (x, 0, z).
fn box_walls(x: f32, z: f32) -> [WallDesc; 5] {
    BoxContainer {
        floor_centre: Vec3::new(x, 0.0, z),
        width_x: 1.0,
        width_y: 1.0,
        height: 0.3,
        material: MaterialId(0),
        motion: None,
    }
    .walls()
}
