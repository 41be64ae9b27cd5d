//! The fill generators of `grains::fill` (the scene files' `lattice`, `random_fill` and
//! `pour_lattice`) and the density-based body builders.

use grains::fill::{FillRegion, Lattice, PourScene, RandomFill};
use grains::{Body, Vec3};

/// Every pair of `placed` (centre, radius) and of `placed` against `existing` clear of each
/// other: ‖c_i − c_j‖ ≥ r_i + r_j.
fn assert_no_overlap(placed: &[(Vec3, f32)], existing: &[(Vec3, f32)]) {
    for (i, (p, r)) in placed.iter().enumerate() {
        for (q, s) in placed[..i].iter().chain(existing) {
            assert!(
                (*p - *q).length() >= r + s,
                "{p} (r {r}) overlaps {q} (r {s})"
            );
        }
    }
}

#[test]
fn a_lattice_fills_its_sites_x_fastest_and_stops_at_its_count() {
    let o = Vec3::new(0.1, -0.2, 0.3);
    let lattice = Lattice::new(o, 0.02, [3, 2, 4]);
    let c = lattice.centres(0.005).unwrap();
    assert_eq!(c.len(), 24);
    for (idx, p) in c.iter().enumerate() {
        let (i, j, k) = (idx % 3, (idx / 3) % 2, idx / 6);
        let site = o + 0.02 * Vec3::new(i as f32, j as f32, k as f32);
        assert!((*p - site).length() < 1e-6, "site {idx}: {p} vs {site}");
    }
    let first = lattice.with_count(7).centres(0.005).unwrap();
    assert_eq!(first, c[..7]);
    let flat = Lattice::new(Vec3::new(0.0, 0.0, 0.1), 0.02, [5, 1, 3]).planar();
    assert!(flat.centres(0.005).unwrap().iter().all(|p| p.y == 0.0));
}

#[test]
fn a_lattice_jitters_each_site_in_x_and_y_by_at_most_jitter_times_r() {
    let (r, jitter) = (0.005, 0.8);
    let plain = Lattice::new(Vec3::ZERO, 0.011, [6, 6, 3]);
    let sites = plain.centres(r).unwrap();
    let moved = plain.with_jitter(jitter, 42).centres(r).unwrap();
    let mut largest: f32 = 0.0;
    for (s, m) in sites.iter().zip(&moved) {
        let d = *m - *s;
        assert_eq!(d.z, 0.0, "z is not jittered");
        assert!(
            d.x.abs() <= jitter * r * 1.0001 && d.y.abs() <= jitter * r * 1.0001,
            "{d}"
        );
        largest = largest.max(d.x.abs()).max(d.y.abs());
    }
    // 216 draws uniform in ±4 mm: the largest is within 10 % of the bound.
    assert!(largest > 0.9 * jitter * r, "largest move {largest}");
    assert_eq!(moved, plain.with_jitter(jitter, 42).centres(r).unwrap());
    assert_ne!(moved, plain.with_jitter(jitter, 43).centres(r).unwrap());
}

#[test]
fn a_lattice_names_the_parameter_out_of_range() {
    let lattice = Lattice::new(Vec3::ZERO, 0.01, [2, 2, 2]);
    let key = |l: Lattice, r: f32| l.centres(r).unwrap_err().key;
    // Half the spacing is 1 r: a jitter of 1.01 would let neighbours swap cells.
    assert_eq!(key(lattice.with_jitter(1.01, 1), 0.005), "jitter");
    assert_eq!(key(lattice.with_jitter(-0.1, 1), 0.005), "jitter");
    assert_eq!(key(lattice.with_count(8), 0.005), "count");
    assert_eq!(
        key(Lattice::new(Vec3::ZERO, 0.01, [2, 0, 2]), 0.005),
        "counts"
    );
    assert_eq!(
        key(Lattice::new(Vec3::ZERO, 0.0, [2, 2, 2]), 0.005),
        "spacing"
    );
    assert_eq!(key(lattice.planar(), 0.005), "counts");
    let off_plane = Lattice::new(Vec3::new(0.0, 0.1, 0.0), 0.01, [2, 1, 2]).planar();
    assert_eq!(key(off_plane, 0.005), "origin");
    let e = lattice.with_jitter(1.01, 1).centres(0.005).unwrap_err();
    assert!(e.to_string().starts_with("jitter: must be at most"), "{e}");
}

#[test]
fn a_random_fill_places_its_bodies_in_the_box_clear_of_each_other_and_of_those_given() {
    let (lo, hi) = (Vec3::new(-0.05, -0.05, 0.0), Vec3::new(0.05, 0.05, 0.1));
    let fill = RandomFill::new(FillRegion::boxed(lo, hi), 0.004)
        .with_radius_max(0.006)
        .with_seed(9);
    let existing = [(Vec3::new(0.0, 0.0, 0.05), 0.03)];
    let placed = fill.place(200, |r| r, existing).unwrap();
    assert_eq!(placed.len(), 200);
    for (p, r) in &placed {
        assert!(
            p.cmpge(lo).all() && p.cmple(hi).all(),
            "{p} outside the box"
        );
        assert!((0.004..=0.006).contains(r), "radius {r}");
    }
    assert_no_overlap(&placed, &existing);
    assert_eq!(placed, fill.place(200, |r| r, existing).unwrap());
    // A capsule's bounding sphere is larger than its radius: the fill keeps those clear.
    let bound = |r: f32| r + 0.01;
    let shaped = fill.place(25, bound, []).unwrap();
    let spheres: Vec<(Vec3, f32)> = shaped.iter().map(|(p, r)| (*p, bound(*r))).collect();
    assert_no_overlap(&spheres, &[]);
}

#[test]
fn a_random_fill_of_a_cylinder_or_cone_keeps_every_body_wholly_inside() {
    let (centre, axis) = (
        Vec3::new(0.1, 0.2, 0.3),
        Vec3::new(1.0, 1.0, 2.0).normalize(),
    );
    let (r, length) = (0.004, 0.12);
    for (small, large) in [(0.03, 0.03), (0.01, 0.05)] {
        let region = if small == large {
            FillRegion::cylinder(centre, axis * 3.0, large, length).unwrap()
        } else {
            FillRegion::cone(centre, axis * 3.0, small, large, length).unwrap()
        };
        let placed = RandomFill::new(region, r).place(80, |r| r, []).unwrap();
        assert_no_overlap(&placed, &[]);
        // The mantle through (s, R(s)) with slope k: a sphere inside stays a distance
        // (R(s) − ρ) cos(atan k) ≥ r from it, and r from both ends.
        let k = (large - small) / length;
        for (p, _) in &placed {
            let rel = *p - centre;
            let s = rel.dot(axis);
            let rho = (rel - s * axis).length();
            let radius = small + k * (s + 0.5 * length);
            assert!(s.abs() <= 0.5 * length - r + 1e-6, "{p}: past an end");
            assert!(
                (radius - rho) / (1.0 + k * k).sqrt() >= r - 1e-6,
                "{p}: through the mantle"
            );
        }
    }
}

#[test]
fn a_random_fill_counts_its_bodies_from_a_packing_fraction() {
    let region = FillRegion::boxed(Vec3::ZERO, Vec3::new(0.1, 0.2, 0.3));
    let fill = RandomFill::new(region, 0.004).with_radius_max(0.006);
    // φ V / (4/3 π r̄³) with r̄ = 5 mm: 0.3 × 0.006 m³ / 5.236e-7 m³ = 3437.7.
    assert_eq!(fill.count_for(0.3).unwrap(), 3438);
    let cylinder = FillRegion::cylinder(Vec3::ZERO, Vec3::Z, 0.1, 0.2).unwrap();
    let n = RandomFill::new(cylinder, 0.005).count_for(0.5).unwrap();
    let expected =
        0.5 * std::f64::consts::PI * 0.01 * 0.2 / (4.0 / 3.0 * std::f64::consts::PI * 1.25e-7);
    assert!((n as f64 - expected).abs() <= 1.0, "{n} vs {expected}");
    assert_eq!(fill.count_for(0.7).unwrap_err().key, "packing_fraction");
}

#[test]
fn a_random_fill_names_what_does_not_fit_or_is_out_of_range() {
    let small = FillRegion::boxed(Vec3::ZERO, Vec3::splat(0.02));
    let e = RandomFill::new(small, 0.005)
        .place(1000, |r| r, [])
        .unwrap_err();
    assert_eq!(e.key, "count");
    assert!(e.problem.starts_with("only "), "{e}");
    let key = |f: RandomFill| f.place(1, |r| r, []).unwrap_err().key;
    assert_eq!(
        key(RandomFill::new(small, 0.005).with_radius_max(0.004)),
        "radius_max"
    );
    assert_eq!(key(RandomFill::new(small, -1.0)), "radius");
    let flat = FillRegion::boxed(Vec3::ZERO, Vec3::new(0.1, 0.0, 0.1));
    assert_eq!(key(RandomFill::new(flat, 0.005)), "region_max");
    let off_plane = FillRegion::boxed(Vec3::new(0.0, 0.1, 0.0), Vec3::new(0.1, 0.1, 0.1));
    assert_eq!(
        key(RandomFill::new(off_plane, 0.005).planar()),
        "region_min"
    );
    let drum = FillRegion::cylinder(Vec3::ZERO, Vec3::Y, 0.1, 0.1).unwrap();
    assert_eq!(key(RandomFill::new(drum, 0.005).planar()), "region");
    let flat_placed = RandomFill::new(flat, 0.005)
        .planar()
        .place(20, |r| r, [])
        .unwrap();
    assert!(flat_placed.iter().all(|(p, _)| p.y == 0.0));
    assert_eq!(
        FillRegion::cylinder(Vec3::ZERO, Vec3::ZERO, 0.1, 0.1)
            .unwrap_err()
            .key,
        "region_axis"
    );
    assert_eq!(
        FillRegion::cone(Vec3::ZERO, Vec3::Z, 0.1, 0.05, 0.1)
            .unwrap_err()
            .key,
        "region_large_radius"
    );
}

#[test]
fn the_pour_lattice_is_the_benchmark_s_jittered_lattice_in_its_box() {
    let scene = PourScene::new(1000);
    assert_eq!(scene.side, 10);
    let c = scene.centres();
    assert_eq!(c.len(), 1000);
    let r = grains::fill::pour::RADIUS;
    // Sites 2.2 r apart from 2 r inside the walls, moved by at most 0.05 r in x and y.
    let half = scene.width as f32 / 2.0;
    for (idx, p) in c.iter().enumerate() {
        let (i, j, k) = (idx % 10, (idx / 10) % 10, idx / 100);
        let site = Vec3::new(-half + 2.0 * r, -half + 2.0 * r, 2.0 * r)
            + 2.2 * r * Vec3::new(i as f32, j as f32, k as f32);
        let d = (*p - site).abs();
        assert!(
            d.x <= 0.0501 * r && d.y <= 0.0501 * r && d.z < 1e-6,
            "{idx}: {d}"
        );
    }
}

#[test]
fn bodies_built_from_a_density_weigh_their_volume() {
    use std::f32::consts::PI;
    let p = Vec3::ZERO;
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-6 * b.abs();
    let s = Body::sphere_of_density(p, 0.01, 2500.0);
    assert!(close(s.mass, 4.0 / 3.0 * PI * 1e-6 * 2500.0), "{}", s.mass);
    assert!(close(s.inertia, 0.4 * s.mass * 1e-4));
    let d = Body::disk_of_density(p, 0.01, 30.0);
    assert!(close(d.mass, PI * 1e-4 * 30.0) && close(d.inertia, 0.5 * d.mass * 1e-4));
    let c = Body::cube_of_density(p, 0.01, 1000.0);
    assert!(close(c.mass, 8e-6 * 1000.0));
    let b = Body::cuboid_of_density(p, Vec3::new(0.01, 0.02, 0.03), 1000.0);
    assert!(close(b.mass, 48e-6 * 1000.0));
    let e = Body::ellipsoid_of_density(p, Vec3::new(0.01, 0.02, 0.03), 1000.0);
    assert!(close(e.mass, 4.0 / 3.0 * PI * 6e-6 * 1000.0));
    let l = Body::ellipse_of_density(p, 0.01, 0.02, 10.0);
    assert!(close(l.mass, PI * 2e-4 * 10.0));
    // A capsule: a cylinder 2L long and a sphere; flat, a 2L × 2r rectangle and a disk.
    let k = Body::capsule_of_density(p, 0.01, 0.02, 1000.0, false);
    assert!(close(
        k.mass,
        (PI * 1e-4 * 0.04 + 4.0 / 3.0 * PI * 1e-6) * 1000.0
    ));
    assert!(k.principal_moments.is_some());
    let f = Body::capsule_of_density(p, 0.01, 0.02, 10.0, true);
    assert!(close(f.mass, (0.04 * 0.02 + PI * 1e-4) * 10.0) && f.principal_moments.is_none());
}
