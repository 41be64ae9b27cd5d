//! Stage 3 finds exactly the ε̂-active sphere pairs of an all-pairs search, whatever the grid's
//! cells: a pour-like cloud (a settled bed under falling grains whose envelope margins are
//! several times the bed's) gives the keys and rows of a brute-force reference, in the same
//! order, without and with periodic boundaries and a projectile kept out of the grid.

use crate::common;

use common::{plane, settings, sphere, sphere_contacts};
use glam::{Vec3, Vec4};
use grains_kernels::broad_phase::{Envelope, Grid};
use grains_kernels::periodic::Periodic;
use grains_kernels::random::Lcg;
use grains_kernels::{pair_key, Bodies, SolverKind, StepParams, NO_BODY};

/// Radius of the cloud's grains (m), as in the pour benchmark.
const R: f32 = 0.005;

/// A bed of about 1,150 grains (for a side of 12 cm) of radius R ± 20 % on a jittered lattice of spacing 2 R
/// (touching, overlapping or a little apart, creeping at up to 5 cm/s) filling `side` × `side`
/// from z = R, and above it about 290 grains falling at 1 to 4 m/s, some just above the bed.
fn pour_cloud(side: f32) -> Bodies {
    let mut random = Lcg::new(2026);
    let mut next = move || random.unit();
    let mut bodies = Bodies::default();
    let per_side = (side / (2.0 * R)) as usize;
    for layer in 0..8 {
        for y in 0..per_side {
            for x in 0..per_side {
                let lattice = Vec3::new(x as f32 + 0.5, y as f32 + 0.5, layer as f32) * 2.0 * R;
                let jitter = Vec3::new(next(), next(), next()) - 0.5;
                let centre = lattice + Vec3::new(0.0, 0.0, R) + 0.3 * R * jitter;
                let radius = R * (0.8 + 0.4 * next());
                sphere(&mut bodies, centre, radius, 1e-3);
                let creep = Vec3::new(next(), next(), next()) - 0.5;
                bodies.motion.last_mut().unwrap().linear = (0.1 * creep).to_array();
            }
        }
    }
    let bed = bodies.len();
    while bodies.len() < bed + bed / 4 {
        let centre = Vec3::new(side * next(), side * next(), 16.0 * R + 8.0 * R * next());
        sphere(&mut bodies, centre, R * (0.8 + 0.4 * next()), 1e-3);
        let speed = 1.0 + 3.0 * next();
        let sideways = 0.2 * (Vec3::new(next(), next(), 0.0) - 0.5);
        bodies.motion.last_mut().unwrap().linear = (sideways - speed * Vec3::Z).to_array();
    }
    bodies
}

/// The pour's settings: h = 2 ms and the granular preset's per-pair envelope (a floor of 5 % of
/// the radius, 1.5 h times the closing speed), so a falling grain's margin is up to 12 mm.
fn pour_settings(periodic: Periodic) -> StepParams {
    StepParams {
        h: 0.002,
        envelope: Envelope::PerPair {
            floor: 0.05 * R,
            speed_factor: 1.5,
        },
        periodic,
        ..settings(SolverKind::Jacobi)
    }
}

/// Every ε̂-active sphere pair (a, b), a < b, by trying all pairs, with its Φ and normal: the
/// narrow phase's test written out (the same operations in the same order, so the same bits):
/// d the minimum image of x_a − x_b, candidates within reach_a + reach_b, at least one body
/// dynamic, n = d/‖d‖, closing speed max(−(v_a − v_b)·n, ‖v_a‖, ‖v_b‖), kept when
/// Φ = ‖d‖ − r_a − r_b ≤ ε̂ of the pair.
fn all_pairs(bodies: &Bodies, reach: &[f32], p: &StepParams) -> Vec<(u64, f32, Vec3)> {
    let mut found = Vec::new();
    for a in 0..bodies.len() {
        for b in a + 1..bodies.len() {
            let (pa, pb): (Vec4, Vec4) = (bodies.pos_radius[a], bodies.pos_radius[b]);
            let d = p.periodic.minimum_image(pa.truncate() - pb.truncate());
            let dist2 = d.length_squared();
            let bound = reach[a] + reach[b];
            if dist2 > bound * bound || !(bodies.is_dynamic(a) || bodies.is_dynamic(b)) {
                continue;
            }
            let dist = dist2.sqrt();
            let n = if dist > 0.0 { d / dist } else { Vec3::Z };
            let (va, vb) = (bodies.motion[a].v(), bodies.motion[b].v());
            let closing = (-(va - vb).dot(n)).max(va.length()).max(vb.length());
            let phi = dist - (pa.w + pb.w);
            if phi <= p.envelope.pair(closing, p.h) {
                found.push((pair_key(a as u32, b as u32), phi, n));
            }
        }
    }
    found
}

/// Runs the narrow phase on `bodies` with a floor and checks its rows against [`all_pairs`]:
/// the pair rows' keys, in order, and their Φ and normals bit for bit, the wall rows after each
/// body's pairs (the keys ascending throughout). Returns the grid and the pairs for the
/// caller's checks of what the case exercised.
fn assert_all_pairs_found(bodies: &Bodies, p: &StepParams) -> (Grid, Vec<(u64, f32, Vec3)>) {
    let (grid, contacts) = sphere_contacts(bodies, &[plane(Vec3::ZERO, Vec3::Z)], p);
    assert!(contacts.keys.windows(2).all(|k| k[0] < k[1]), "keys ascend");
    let expected = all_pairs(bodies, &grid.reach, p);
    let pairs: Vec<usize> = (0..contacts.len())
        .filter(|&c| contacts.rows[c].body_b != NO_BODY)
        .collect();
    let keys: Vec<u64> = pairs.iter().map(|&c| contacts.keys[c]).collect();
    let expected_keys: Vec<u64> = expected.iter().map(|e| e.0).collect();
    let missing: Vec<_> = expected_keys.iter().filter(|k| !keys.contains(k)).collect();
    let extra: Vec<_> = keys.iter().filter(|k| !expected_keys.contains(k)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing pairs {missing:x?}, extra pairs {extra:x?}"
    );
    assert_eq!(keys, expected_keys);
    for (&c, &(key, phi, n)) in pairs.iter().zip(&expected) {
        let row = &contacts.rows[c];
        assert_eq!(pair_key(row.body_a, row.body_b), key);
        assert_eq!(row.phi.to_bits(), phi.to_bits(), "Φ of {key:x}");
        assert_eq!(row.normal(), n, "normal of {key:x}");
    }
    assert!(
        contacts.len() > pairs.len(),
        "the bed's lowest grains touch the floor"
    );
    (grid, expected)
}

/// The pour: falling grains of reach up to about 3.4 times the bed's stay in the grid, and every
/// pair of the all-pairs search is found, fast–slow pairs at up to 22 mm among them.
#[test]
fn pour_cloud_gives_the_all_pairs_contacts() {
    let bodies = pour_cloud(0.12);
    let p = pour_settings(Periodic::NONE);
    let (grid, pairs) = assert_all_pairs_found(&bodies, &p);
    assert!(grid.large.is_empty(), "every grain stays in the grid");
    let reach_min = grid.reach.iter().fold(f32::INFINITY, |m, &r| m.min(r));
    let reach_max = grid.reach.iter().fold(0.0f32, |m, &r| m.max(r));
    assert!(
        reach_max > 2.5 * reach_min,
        "reach {reach_min} to {reach_max}"
    );
    let falling = |key: u64| bodies.motion[(key & 0xffff_ffff) as usize].v().length() > 0.9;
    let fast_pairs = pairs.iter().filter(|e| falling(e.0)).count();
    assert!(
        fast_pairs > 20,
        "only {fast_pairs} pairs with a falling grain"
    );
    assert!(pairs.len() > 3000, "only {} pairs", pairs.len());
}

/// The same cloud in a world periodic along x and y (of period its side), with a projectile at
/// 60 m/s kept out of the grid: pairs across the periodic sides and the projectile's pairs are
/// found too, each once, by the minimum image.
#[test]
fn periodic_pour_cloud_with_a_projectile_gives_the_all_pairs_contacts() {
    let side = 0.12;
    let mut bodies = pour_cloud(side);
    sphere(&mut bodies, Vec3::new(0.001, 0.06, 0.06), R, 1e-3);
    bodies.motion.last_mut().unwrap().linear = [60.0, 0.0, 0.0];
    let projectile = bodies.len() as u32 - 1;
    let p = pour_settings(Periodic {
        x: Some((0.0, side)),
        y: Some((0.0, side)),
        ..Periodic::NONE
    });
    let (grid, pairs) = assert_all_pairs_found(&bodies, &p);
    assert_eq!(
        grid.large,
        vec![projectile],
        "the projectile leaves the grid"
    );
    let across = pairs
        .iter()
        .filter(|e| {
            let (a, b) = ((e.0 >> 32) as usize, (e.0 & 0xffff_ffff) as usize);
            let d = bodies.pos_radius[a] - bodies.pos_radius[b];
            d.x.abs() > 0.5 * side || d.y.abs() > 0.5 * side
        })
        .count();
    assert!(across > 50, "only {across} pairs across the periodic sides");
    let hits = pairs
        .iter()
        .filter(|e| (e.0 & 0xffff_ffff) as u32 == projectile)
        .count();
    assert!(hits > 0, "the projectile meets nothing");
}
