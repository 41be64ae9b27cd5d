//! Bonded grains (`JointDesc::bond`, `WorldBuilder::bond_neighbours`): a cantilever of bonded
//! spheres bends under a tip load as the Euler–Bernoulli beam of E I = k_r ℓ (5 %; as its chain
//! of midpoint springs, 1 %), the distance rule bonds exactly the neighbours within its gap, and
//! a bond's four stiffnesses act each on its own rows (a pull, a force across, a twist), and
//! a bond's stiffness is checked at build.

use grains::{AppliedForce, Body, BondStiffness, JointDesc, Material, Settings, Vec3, World};

/// A cantilever of `n` + 1 spheres (r = 5 mm, ℓ = 1 cm apart along x, 10 g each), the first
/// fixed, consecutive ones bonded at their contact point with `stiffness` (by the distance rule
/// of `bond_neighbours`, which must find exactly those n pairs), a force `tip` on the last one,
/// no gravity: the tip's displacement after 2 s at h = 1 ms.
fn cantilever(n: usize, stiffness: BondStiffness, tip: Vec3) -> Vec3 {
    let (r, spacing) = (0.005f32, 0.01f32);
    let mut b = World::builder(Settings {
        gravity: Vec3::ZERO,
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    for k in 0..=n {
        let body = Body::sphere(Vec3::new(k as f32 * spacing, 0.0, 0.0), r, 0.01);
        b.body(if k == 0 { body.fixed() } else { body });
    }
    assert_eq!(
        b.bond_neighbours(0..n + 1, 0.0, stiffness).unwrap(),
        n,
        "the chain's bonds"
    );
    b.force(AppliedForce::constant(n, tip));
    let mut w = b.build().expect("the cantilever builds");
    let start = w.position(n);
    w.run(2000).expect("2 s");
    w.position(n) - start
}

#[test]
fn a_bonded_cantilever_bends_as_an_euler_bernoulli_beam() {
    // E I = k_r ℓ = 0.01 N m², L = 10 ℓ = 0.1 m, F = 0.01 N: F L³ / (3 E I) = 0.333 mm (δ/L
    // = 0.3 %, small deflection). The chain of 10 rotational springs at the midpoints gives
    // F ℓ² N (4N² − 1) / (12 k_r) = 0.3325 mm, within 1/(4N²) of the beam; the positional
    // springs (k = 1e7 N/m) add N F / k = 1e-8 m.
    let (n, spacing, k_r, force) = (10usize, 0.01f64, 1.0f64, 0.01f64);
    let stiffness = BondStiffness::isotropic(1e7, 10.0, k_r as f32, 0.01);
    let moved = cantilever(n, stiffness, Vec3::new(0.0, 0.0, -force as f32));
    let length = n as f64 * spacing;
    let beam = force * length.powi(3) / (3.0 * k_r * spacing);
    let nn = n as f64;
    let chain = force * spacing * spacing * nn * (4.0 * nn * nn - 1.0) / (12.0 * k_r);
    let deflection = -moved.z as f64;
    println!(
        "tip deflection {deflection:.5e} m; chain {chain:.5e} m; Euler–Bernoulli {beam:.5e} m; along x {:.1e} m",
        moved.x
    );
    assert!(
        (deflection - chain).abs() < 0.01 * chain,
        "{deflection} m against the chain's {chain} m"
    );
    assert!(
        (deflection - beam).abs() < 0.05 * beam,
        "{deflection} m against the beam's {beam} m"
    );
    // Ten times stiffer bonds bend ten times less.
    let stiffer = BondStiffness {
        angular: 10.0 * k_r as f32,
        angular_damping: 0.1,
        ..stiffness
    };
    let stiff = -cantilever(n, stiffer, Vec3::new(0.0, 0.0, -force as f32)).z as f64;
    assert!(
        (stiff - 0.1 * chain).abs() < 0.01 * 0.1 * chain,
        "{stiff} m"
    );
}

#[test]
fn the_distance_rule_bonds_the_touching_neighbours_of_a_lattice() {
    // A 3 × 3 × 3 cubic lattice of touching spheres has 3 × 2 × 9 = 54 nearest pairs; the
    // face-diagonal neighbours lie (√2 − 1) d apart and stay unbonded until the gap reaches them.
    let (r, d) = (0.005f32, 0.01f32);
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    for k in 0..27 {
        let at = Vec3::new((k % 3) as f32, ((k / 3) % 3) as f32, (k / 9) as f32) * d;
        b.body(Body::sphere(at, r, 0.01));
    }
    let stiffness = BondStiffness::isotropic(1e6, 0.0, 1.0, 0.0);
    assert_eq!(b.bond_neighbours(0..27, 0.0, stiffness).unwrap(), 54);
    let diagonal = (2f32.sqrt() - 1.0) * d;
    let mut wider = World::builder(Settings::default());
    for body in b.bodies() {
        wider.body(*body);
    }
    // Face diagonals: in each of the 3 orientations of plane, 3 layers of 4 unit squares with
    // 2 diagonals each, 72 pairs; the body diagonals lie (√3 − 1) d apart, beyond the gap.
    assert_eq!(
        wider
            .bond_neighbours(0..27, diagonal * 1.01, stiffness)
            .unwrap(),
        54 + 72
    );
}

#[test]
fn the_distance_rule_refuses_a_gap_that_is_no_distance_and_a_range_beyond_the_bodies() {
    let mut b = World::builder(Settings::default());
    b.body(Body::sphere(Vec3::ZERO, 0.005, 0.01));
    b.body(Body::sphere(Vec3::new(0.01, 0.0, 0.0), 0.005, 0.01));
    let stiffness = BondStiffness::isotropic(1e6, 0.0, 1.0, 0.0);
    for gap in [f32::NAN, -1e-3, f32::INFINITY] {
        let msg = b
            .bond_neighbours(0..2, gap, stiffness)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("gap") && msg.contains("finite gap"), "{msg}");
    }
    let msg = b
        .bond_neighbours(0..3, 0.0, stiffness)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("0..3 is not a range of the 2 bodies"), "{msg}");
    assert!(b.joints().is_empty(), "nothing added");
    assert_eq!(b.bond_neighbours(0..2, 0.0, stiffness), Ok(1));
}

#[test]
fn a_bond_without_stiffness_is_refused_naming_the_joint() {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::ZERO, 0.005, 0.01));
    b.body(Body::sphere(Vec3::new(0.01, 0.0, 0.0), 0.005, 0.01));
    let limp = BondStiffness::isotropic(1e6, 0.0, 0.0, 0.0);
    b.joint(grains::JointDesc::bond(
        0,
        Some(1),
        Vec3::new(0.005, 0.0, 0.0),
        limp,
    ));
    let msg = b.build().err().map(|e| e.to_string()).expect("refused");
    assert!(msg.contains("joint 0: angular_stiffness"), "{msg}");
}

/// A grain (r = 5 mm, 10 g) bonded at its contact point to a fixed one along x with
/// k_n = 1e5 N/m, k_s = 2e4 N/m, k_b = 1 N m/rad, k_t = 0.25 N m/rad, near critically damped,
/// under a constant `force` and `torque` without gravity: its displacement and its rotation
/// vector after 2 s at h = 1 ms, at rest by then.
fn loaded_pair(force: Vec3, torque: Vec3) -> (Vec3, Vec3) {
    let r = 0.005f32;
    let mut b = crate::common::touching_pair(r);
    let stiffness = BondStiffness {
        linear: 1e5,
        shear: 2e4,
        linear_damping: 30.0,
        angular: 1.0,
        twisting: 0.25,
        angular_damping: 3e-4,
    };
    b.joint(JointDesc::bond(
        0,
        Some(1),
        Vec3::new(r, 0.0, 0.0),
        stiffness,
    ));
    let mut w = b.build().unwrap();
    w.set_external_loads(&[Vec3::ZERO, force], &[Vec3::ZERO, torque])
        .unwrap();
    let start = w.position(1);
    w.run(2000).unwrap();
    let (axis, angle) = w.orientation(1).to_axis_angle();
    (w.position(1) - start, axis * angle)
}

#[test]
fn a_bond_resists_a_pull_a_shear_and_a_twist_with_its_own_stiffnesses() {
    let r = 0.005f32;
    // A pull of 1 N stretches the bond by F/k_n = 1e-5 m.
    let (moved, _) = loaded_pair(Vec3::X, Vec3::ZERO);
    println!("pull: {moved:?}");
    assert!((moved.x - 1e-5).abs() < 0.01 * 1e-5, "{moved:?}");
    // A force of 0.2 N across it at the grain's centre: the shear F/k_s plus the bending of the
    // moment F r about the anchor, r × F r/k_b: 1e-5 + 5e-6 m.
    let (moved, turned) = loaded_pair(Vec3::Y * 0.2, Vec3::ZERO);
    let across = 0.2 / 2e4 + 0.2 * r * r / 1.0;
    println!("shear: {moved:?}, turned {turned:?} (expected {across:e} m)");
    assert!((moved.y - across).abs() < 0.01 * across, "{moved:?}");
    assert!(
        (turned.z - 0.2 * r / 1.0).abs() < 0.01 * 0.2 * r,
        "{turned:?}"
    );
    // A moment of 1e-3 N m about the axis twists it by M/k_t = 4e-3 rad, and moves nothing.
    let (moved, turned) = loaded_pair(Vec3::ZERO, Vec3::X * 1e-3);
    println!("twist: {turned:?}, moved {moved:?}");
    assert!((turned.x - 4e-3).abs() < 0.01 * 4e-3, "{turned:?}");
    assert!(moved.length() < 1e-9, "{moved:?}");
}
