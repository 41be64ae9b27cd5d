//! The unit tests of `src/scene/placement.rs`.

use glam::Vec3;
use grains::body::{Body, BodyKind};
use grains_app::pour::SplitMix64;
use grains_app::scene::placement::*;
use grains_kernels::shapes::clump::ClumpTable;
use grains_kernels::shapes::Placed;

/// Every pair, the way the grids must agree with.
fn brute(bodies: &[Body], tol: f32) -> Option<(usize, usize, f32)> {
    let placed = |b: &Body| Placed {
        centre: b.position,
        q: b.orientation,
        radius: b.radius,
        shape: b.shape,
    };
    let mut worst: Option<(usize, usize, f32)> = None;
    for j in 0..bodies.len() {
        for i in 0..j {
            let (a, b) = (&bodies[i], &bodies[j]);
            if a.kind != BodyKind::Dynamic && b.kind != BodyKind::Dynamic {
                continue;
            }
            let overlap = deepest_overlap(&placed(a), &placed(b), (&ClumpTable::default(), &[]));
            if overlap > tol * a.radius.min(b.radius) && worst.is_none_or(|w| overlap > w.2) {
                worst = Some((i, j, overlap));
            }
        }
    }
    worst
}

#[test]
fn the_grids_find_what_every_pair_finds_with_any_size_mix() {
    let mut rng = SplitMix64(99);
    for case in 0..200 {
        let n = 2 + case % 40;
        let bodies: Vec<Body> = (0..n)
            .map(|k| {
                let mut u = || rng.next_f64() as f32;
                let r = if k % 7 == 0 {
                    0.01 + 3.0 * u()
                } else {
                    0.01 + 0.05 * u()
                };
                let p = Vec3::new(u(), u(), u()) * 2.0;
                let b = Body::sphere(p, r, 1.0);
                if k % 5 == 0 {
                    b.fixed()
                } else {
                    b
                }
            })
            .collect();
        assert_eq!(
            worst_overlap(&bodies, 0.01, (&ClumpTable::default(), &[])),
            brute(&bodies, 0.01),
            "case {case}"
        );
    }
}

#[test]
fn one_large_rock_among_many_grains_is_checked_in_linear_time() {
    // 27,000 grains on a lattice and one 10 m rock far beside them: 13 s with one grid of
    // cells the rock's size, a few tens of milliseconds with the levels.
    let mut bodies: Vec<Body> = (0..27_000)
        .map(|k| {
            let (i, j, l) = (k % 30, (k / 30) % 30, k / 900);
            Body::sphere(Vec3::new(i as f32, j as f32, l as f32) * 0.011, 0.005, 1.0)
        })
        .collect();
    bodies.push(Body::sphere(Vec3::new(30.0, 0.0, 0.0), 10.0, 1.0));
    let t = std::time::Instant::now();
    assert_eq!(
        worst_overlap(&bodies, 0.01, (&ClumpTable::default(), &[])),
        None
    );
    assert!(t.elapsed().as_secs_f64() < 1.0, "took {:?}", t.elapsed());
}

#[test]
fn a_lattice_of_bodies_far_larger_than_its_spacing_is_refused_in_linear_time() {
    // 2,000 ellipsoids 10 m across on a 2 cm lattice: all in one cell of their level, so
    // every pair (2 million ellipsoid tests, about 14 s) was tested before the worst one was
    // named; the budget ends the check after some 140,000.
    let bodies: Vec<Body> = (0..2_000)
        .map(|k| {
            let (i, j, l) = (k % 11, (k / 11) % 11, k / 121);
            let p = Vec3::new(i as f32, j as f32, l as f32) * 0.02;
            Body::ellipsoid(p, Vec3::new(10.0, 8.0, 6.0), 1.0)
        })
        .collect();
    let t = std::time::Instant::now();
    let (i, j, overlap) = worst_overlap(&bodies, 0.01, (&ClumpTable::default(), &[])).unwrap();
    assert!(i < j && overlap > 1.0, "{i} {j} {overlap}");
    assert!(t.elapsed().as_secs_f64() < 2.0, "took {:?}", t.elapsed());
}
