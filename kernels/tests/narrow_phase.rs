//! Stage 3, the narrow phase, against closed form: the gap Φ, normal, arms and contact points of
//! sphere–sphere and sphere–wall contacts, and no contact beyond the envelope.

use crate::common;

use common::{plane, settings, sphere, sphere_contacts};
use glam::Vec3;
use grains_kernels::broad_phase::Envelope;
use grains_kernels::{pair_key, wall_key, Bodies, ContactRow, SolverKind, StepParams, NO_BODY};

fn assert_close(got: Vec3, want: Vec3, what: &str) {
    assert!((got - want).length() < 1e-6, "{what}: {got} vs {want}");
}

/// The row's (n, t1, t2) is a right-handed orthonormal frame.
fn assert_frame(row: &ContactRow) {
    let (n, t1, t2) = (
        Vec3::from_array(row.n),
        Vec3::from_array(row.t1),
        Vec3::from_array(row.t2),
    );
    for (a, b) in [(n, t1), (n, t2), (t1, t2)] {
        assert!(a.dot(b).abs() < 1e-6, "{a} · {b}");
    }
    assert_close(n.cross(t1), t2, "t2 = n × t1");
}

/// Two overlapping spheres, a sphere 4 mm above the floor, a sphere 2 cm above it (beyond the
/// 1 cm envelope) and a wall at x = 1 that nothing reaches: exactly two contacts, with
/// Φ = ‖p_a − p_b‖ − r_a − r_b along n = (p_a − p_b)/‖p_a − p_b‖ (b → a) and Φ = (p − o)·n − r
/// along the wall's normal, arms from each centre to its surface point, and the stabilised
/// normal bias Φ/h.
#[test]
fn sphere_pairs_and_walls_meet_their_closed_form() {
    let mut bodies = Bodies::default();
    let (pa, pb) = (Vec3::new(0.0, 0.0, 0.5), Vec3::new(0.15, 0.05, 0.52));
    sphere(&mut bodies, pa, 0.1, 1.0);
    sphere(&mut bodies, pb, 0.08, 3.0);
    let low = Vec3::new(-0.5, 0.25, 0.104);
    sphere(&mut bodies, low, 0.1, 2.0);
    sphere(&mut bodies, Vec3::new(0.5, -0.25, 0.12), 0.1, 2.0);
    let walls = [
        plane(Vec3::ZERO, Vec3::Z),
        plane(Vec3::new(1.0, 0.0, 0.0), -Vec3::X),
    ];
    let p = settings(SolverKind::GaussSeidel);
    let (_, contacts) = sphere_contacts(&bodies, &walls, &p);

    assert_eq!(contacts.keys, vec![pair_key(0, 1), wall_key(2, 0)]);
    let pair = &contacts.rows[0];
    let d = pa - pb;
    let n = d / d.length();
    assert!(
        (pair.phi - (d.length() - 0.18)).abs() < 1e-6,
        "Φ {}",
        pair.phi
    );
    assert!(pair.phi < 0.0, "the spheres overlap");
    assert_close(pair.normal(), n, "pair normal");
    assert_close(Vec3::from_array(pair.ra), -0.1 * n, "arm of a");
    assert_close(Vec3::from_array(pair.rb), 0.08 * n, "arm of b");
    assert_close(pa + Vec3::from_array(pair.ra), pa - 0.1 * n, "point on a");
    assert_close(pb + Vec3::from_array(pair.rb), pb + 0.08 * n, "point on b");
    assert_eq!((pair.body_a, pair.body_b), (0, 1));
    assert!((pair.mass_n - 1.0 / (1.0 + 1.0 / 3.0)).abs() < 1e-6);
    assert!((pair.bias[0] - pair.phi / p.h).abs() < 1e-4);
    assert_frame(pair);

    let wall = &contacts.rows[1];
    assert!((wall.phi - 0.004).abs() < 1e-6, "Φ {}", wall.phi);
    assert_close(wall.normal(), Vec3::Z, "wall normal");
    assert_close(Vec3::from_array(wall.ra), Vec3::new(0.0, 0.0, -0.1), "arm");
    assert_close(Vec3::from_array(wall.rb), Vec3::ZERO, "wall arm");
    assert_eq!((wall.body_a, wall.body_b), (2, NO_BODY));
    assert!((wall.mass_n - 2.0).abs() < 1e-6);
    assert!((wall.bias[0] - 4.0).abs() < 1e-3, "Φ/h {}", wall.bias[0]);
    assert_frame(wall);
}

/// A dense polydisperse cloud of 700 spheres at rest, with a few fast ones among them (whose
/// pairs take a wider ε̂), and a few bodies stacked on one spot: the grid's candidate runs have
/// every length modulo four, and the sphere–sphere keys the narrow phase finds are exactly
/// those of the pairs a brute-force test over all pairs keeps (Φ ≤ ε̂ of the pair's closing
/// speed), each once, in key order.
#[test]
fn the_sphere_pairs_found_are_those_of_a_brute_force_search() {
    let mut random = grains_kernels::random::Lcg::new(11);
    let mut bodies = Bodies::default();
    for k in 0..700 {
        let centre = match k {
            // Three bodies on one spot: Φ < 0 at zero distance (the normal falls back to z).
            690..=692 => Vec3::splat(0.05),
            _ => Vec3::new(random.unit(), random.unit(), random.unit()) * 0.1,
        };
        sphere(&mut bodies, centre, 0.004 + 0.004 * random.unit(), 1.0);
        if k % 97 == 0 {
            bodies.motion[k].linear = [3.0, -2.0, 1.0];
        }
    }
    let p = StepParams {
        envelope: Envelope::PerPair {
            floor: 2e-4,
            speed_factor: 2.0,
        },
        ..settings(SolverKind::GaussSeidel)
    };
    let (_, contacts) = sphere_contacts(&bodies, &[], &p);
    let mut expected = Vec::new();
    for a in 0..bodies.len() {
        for b in a + 1..bodies.len() {
            let (pa, pb) = (bodies.pos_radius[a], bodies.pos_radius[b]);
            let d = pa.truncate() - pb.truncate();
            let n = if d.length() > 0.0 {
                d / d.length()
            } else {
                Vec3::Z
            };
            let (va, vb) = (bodies.motion[a].v(), bodies.motion[b].v());
            let closing = (-(va - vb).dot(n)).max(va.length()).max(vb.length());
            if d.length() - (pa.w + pb.w) <= p.envelope.pair(closing, p.h) {
                expected.push(pair_key(a as u32, b as u32));
            }
        }
    }
    assert!(
        expected.len() > 500,
        "a dense cloud: {} pairs",
        expected.len()
    );
    assert_eq!(contacts.keys, expected);
}
