//! The unit tests of `src/output/outline.rs`.

use glam::{Vec2, Vec3};
use grains_app::output::outline::*;
use grains_kernels::mesh::Triangle;
use grains_kernels::Wall;

#[test]
fn a_triangle_is_cut_between_its_edges() {
    let t = Triangle::new(
        [
            Vec3::new(0.0, -1.0, 0.0),
            Vec3::new(2.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 2.0),
        ],
        0,
        0,
    );
    // At y = 0: the edges a–b and c–a cross at (1, 0) and (0, 1) in x–z.
    let (p, q) = triangle_section(&t, 0.0).unwrap();
    let ends = [p, q];
    assert!(
        ends.contains(&Vec2::new(1.0, 0.0)) && ends.contains(&Vec2::new(0.0, 1.0)),
        "{ends:?}"
    );
    assert!(triangle_section(&t, 1.5).is_none());
}

fn length(segments: &[Segment]) -> f32 {
    segments.iter().map(|(a, b)| a.distance(*b)).sum()
}

#[test]
fn a_drum_about_y_is_cut_in_its_circle() {
    let drum = Wall::cylinder(
        [0.5, 0.0, -0.2, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        0.3,
        0.1,
        0.0,
        [0.0; 4],
    );
    let cut = wall_section(&drum, 0.02, 10.0);
    // The 96-gon's perimeter: 2 · 96 · R sin(π/96).
    let polygon = 2.0 * 96.0 * 0.3 * (std::f32::consts::PI / 96.0).sin();
    assert!((length(&cut) - polygon).abs() < 1e-4, "{}", length(&cut));
    for (a, b) in &cut {
        for p in [a, b] {
            assert!((p.distance(Vec2::new(0.5, -0.2)) - 0.3).abs() < 1e-5, "{p}");
        }
    }
    // Beyond its length the plane misses it.
    assert!(wall_section(&drum, 0.2, 10.0).is_empty());
}

#[test]
fn a_hopper_cone_and_its_orifice_plate_are_cut_in_lines() {
    // A cone about z: radius 0.1 at z = 0 growing to 0.3 at z = 0.4 (slope 0.5).
    let cone = Wall::frustum(
        [0.0, 0.0, 0.2, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        0.2,
        0.5,
        0.2,
        0.0,
        [0.0; 4],
    );
    let cut = wall_section(&cone, 0.0, 10.0);
    // Two generators, each from (±0.1, 0) to (±0.3, 0.4): 2 · √(0.2² + 0.4²).
    let generator = (0.2f32 * 0.2 + 0.4 * 0.4).sqrt();
    assert!(
        (length(&cut) - 2.0 * generator).abs() < 1e-3,
        "{}",
        length(&cut)
    );
    for (p, q) in &cut {
        for e in [p, q] {
            assert!((e.x.abs() - (0.1 + 0.5 * e.y)).abs() < 1e-3, "{e}");
        }
    }
    // A plate under it with an orifice of 0.1: two segments from 0.1 to 0.3 either side.
    let plate = Wall::disk([0.0; 4], [0.0, 0.0, 1.0, 0.0], 0.3, 0.1, [0.0; 4]);
    let cut = wall_section(&plate, 0.0, 10.0);
    assert!((length(&cut) - 0.4).abs() < 1e-3, "{}", length(&cut));
    assert!(cut
        .iter()
        .all(|(p, q)| p.x.abs() >= 0.1 - 1e-3 && q.x.abs() >= 0.1 - 1e-3));
    // Switched off, it is not drawn.
    let gate = plate.with_flags(
        grains_kernels::wall_contact::WALL_OFF | grains_kernels::wall_contact::WALL_DISK,
    );
    assert!(wall_section(&gate, 0.0, 10.0).is_empty());
}

#[test]
fn an_upright_cylinder_is_cut_in_two_lines() {
    let silo = Wall::cylinder(
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        0.5,
        1.0,
        0.0,
        [0.0; 4],
    );
    let cut = wall_section(&silo, 0.3, 10.0);
    // Two vertical lines at x = ±0.4, each 2 m long.
    assert!((length(&cut) - 4.0).abs() < 1e-3, "{}", length(&cut));
    for (a, b) in &cut {
        assert!(
            (a.x.abs() - 0.4).abs() < 2e-3 && (b.x.abs() - 0.4).abs() < 2e-3,
            "{a} {b}"
        );
    }
}

#[test]
fn flat_walls_are_cut_in_a_segment_or_not_at_all() {
    // A box's +x side wall: normal −x, u = y, v = n × u = −z... any in-face axes will do.
    let side = Wall {
        origin: [0.3, 0.0, 0.25, 0.0],
        normal: [-1.0, 0.0, 0.0, 0.0],
        u: [0.0, 1.0, 0.0, 0.3],
        v: [0.0, 0.0, -1.0, 0.25],
        velocity: [0.0; 4],
    };
    let (a, b) = wall_section(&side, 0.1, 10.0)[0];
    let (lo, hi) = (a.y.min(b.y), a.y.max(b.y));
    assert!(a.x == 0.3 && b.x == 0.3 && lo.abs() < 1e-6 && (hi - 0.5).abs() < 1e-6);
    assert!(
        wall_section(&side, 0.31, 10.0).is_empty(),
        "beyond its width"
    );
    // A wall facing y (an end plate) is parallel to the plane.
    let end = Wall {
        normal: [0.0, 1.0, 0.0, 0.0],
        u: [1.0, 0.0, 0.0, f32::INFINITY],
        v: [0.0, 0.0, -1.0, f32::INFINITY],
        ..side
    };
    assert!(wall_section(&end, 0.0, 10.0).is_empty());
    // A tilted infinite plane is cut within the reach.
    let slope = Wall {
        origin: [0.0; 4],
        normal: [-0.6, 0.0, 0.8, 0.0],
        u: [0.8, 0.0, 0.6, f32::INFINITY],
        v: [0.0, 1.0, 0.0, f32::INFINITY],
        velocity: [0.0; 4],
    };
    let (a, b) = wall_section(&slope, 0.5, 2.0)[0];
    assert!((a.distance(b) - 4.0).abs() < 1e-5 && (a.y / a.x - 0.75).abs() < 1e-5);
}
