//! The unit tests of `src/insertion.rs`.

use grains::{
    Body, BoxContainer, ClumpTemplate, Insertion, Material, MaterialId, Quat, Rate, Region,
    Settings, Shape, Vec3, World,
};
use grains_kernels::shapes::clump::clump_members;
use grains_kernels::shapes::ellipsoid::ellipsoids_touch;
use grains_kernels::shapes::Placed;

/// The exact gap (m) between bodies i and j of `w`, both clumps or both ellipsoids: the
/// least of the member pairs' ‖c_a − c_b‖ − r_a − r_b, or the ellipsoids' support-function
/// gap (the narrow phase's own).
fn gap(w: &World, i: usize, j: usize) -> f32 {
    let placed = |k: usize| Placed {
        centre: w.position(k),
        q: w.orientation(k),
        radius: w.radius(k),
        shape: w.shape(k),
    };
    let (a, b) = (placed(i), placed(j));
    match (a.shape, b.shape) {
        (Shape::Clump { template: ta, .. }, Shape::Clump { template: tb, .. }) => {
            let members = |p: &Placed, t| clump_members(p.centre, p.q, t, w.clump_table());
            let mut least = f32::INFINITY;
            for (ca, ra) in members(&a, ta) {
                for (cb, rb) in members(&b, tb) {
                    least = least.min(ca.distance(cb) - ra - rb);
                }
            }
            least
        }
        (Shape::Ellipsoid { semi_axes: sa }, Shape::Ellipsoid { semi_axes: sb }) => {
            ellipsoids_touch(&a, sa, &b, sb).phi
        }
        other => panic!("unexpected pair {other:?}"),
    }
}

/// A crowded feed (each batch near the most the region holds, [`grains::insertion::BATCH_FILL`]) of
/// `template` into a box: after every pass each new grain clears every other body by its
/// exact gap, and clears the walls. Returns the grains placed and the smallest gap met.
fn crowded_feed(template: impl Fn(&mut grains::WorldBuilder) -> Body) -> (u64, f32) {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.4));
    b.container(&BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: 0.1,
        width_y: 0.1,
        height: 0.2,
        material: MaterialId(0),
        motion: None,
    });
    let t = template(&mut b);
    let mut ins = Insertion::shaped(
        Region::Box {
            min: Vec3::new(-0.05, -0.05, 0.10),
            max: Vec3::new(0.05, 0.05, 0.16),
        },
        Rate::CountPerSecond(1.0),
        t,
    );
    ins.velocity = Vec3::new(0.0, 0.0, -0.5);
    ins.seed = 3;
    ins.batch_steps = Some(80);
    // The most a batch may ask for, less a grain.
    let bound = t.shape.bounding_radius(t.radius) as f64;
    let holds = grains::insertion::BATCH_FILL * 0.1 * 0.1 * 0.06
        / (4.0 / 3.0 * std::f64::consts::PI * bound.powi(3));
    ins.rate = Rate::CountPerSecond((holds - 1.0) / 0.08);
    b.insert(ins);
    let mut w = b.build().unwrap();
    let mut least = f32::INFINITY;
    for _ in 0..400 {
        let first = w.len();
        w.change_bodies().unwrap();
        for i in first..w.len() {
            for j in 0..w.len() {
                if j != i {
                    least = least.min(gap(&w, i, j));
                }
            }
            let body = w.insertions()[0].copy_of(&t, w.position(i), Quat::IDENTITY);
            let body = Body {
                orientation: w.orientation(i),
                ..body
            };
            for wall in 0..w.wall_descs().len() {
                let depth = w.depth_in_wall(&body, wall);
                assert!(depth <= 0.0, "grain {i} lies {depth} m in a wall");
            }
        }
        w.step().unwrap();
    }
    let c = w.lifecycle_state().insertions[0];
    println!("{} placed, {} missed", c.placed, c.missed);
    (c.placed, least)
}

#[test]
fn crowded_shaped_grains_are_placed_clear_of_each_other_by_their_exact_gaps() {
    let (clumps, clump_gap) = crowded_feed(|b| {
        let rod = b.clump_template(&ClumpTemplate::rod(3, 0.003, 0.004).unwrap());
        Body::clump(Vec3::ZERO, Quat::IDENTITY, &rod, 2500.0)
    });
    let (ellipsoids, ellipsoid_gap) =
        crowded_feed(|_| Body::ellipsoid(Vec3::ZERO, Vec3::new(0.004, 0.003, 0.0025), 0.3e-3));
    println!("{clumps} clumps placed, least gap {clump_gap:.3e} m; {ellipsoids} ellipsoids, least gap {ellipsoid_gap:.3e} m");
    assert!(clumps > 300 && ellipsoids > 300);
    assert!(clump_gap >= 0.0 && ellipsoid_gap >= 0.0);
}
