//! Bonds that break (`JointDesc::breaking_at`, `WorldBuilder::breakable_bonds`): a bond pulled
//! by a slowly rising force holds below its tensile strength and breaks above it (1 %); a
//! cantilever of bonded spheres breaks at its root when the tip load's moment exceeds the
//! bending strength (1 %); a broken bond's grains collide again; which bonds broke survives a
//! checkpoint, and the run resumed from it goes on bit for bit.

use grains::{
    AppliedForce, Body, BondStiffness, BondStrength, JointDesc, Material, Settings, Snapshot, Vec3,
    World,
};
use std::f32::consts::FRAC_PI_2;

const NEVER: BondStrength = BondStrength {
    tensile: f32::INFINITY,
    shear: f32::INFINITY,
    bending: f32::INFINITY,
    twisting: f32::INFINITY,
};

/// Two spheres (r = 5 mm, 10 g) touching along x, the first fixed, bonded at their contact
/// point with `strength`; a force F₀ sin(ω t) along +x on the second, ω = 10 rad/s, far below
/// the bond's ω_n = √(k/m) = 3,162 rad/s, so that the bond's tension follows the force to
/// (ω/ω_n)² = 1e-5. No gravity, h = 1 ms, until past the force's peak at t = π/(2ω).
fn pulled_pair(strength: BondStrength, force: f32) -> World {
    let (r, omega) = (0.005f32, 10.0f32);
    let mut b = crate::common::touching_pair(r);
    let stiffness = BondStiffness::isotropic(1e5, 30.0, 1.0, 1e-3);
    b.joint(JointDesc::bond(0, Some(1), Vec3::new(r, 0.0, 0.0), stiffness).breaking_at(strength));
    b.force(AppliedForce::harmonic(
        1,
        Vec3::X * force,
        omega,
        -FRAC_PI_2,
    ));
    b.build().expect("the pair builds")
}

/// Steps `w` `steps` times; returns the largest tension its bond 0 carried while intact.
fn largest_tension(w: &mut World, steps: usize) -> f32 {
    let mut largest = 0.0f32;
    for _ in 0..steps {
        w.step().expect("a step");
        if let Some(load) = w.bond_load(0) {
            largest = largest.max(load.tension);
        }
    }
    largest
}

#[test]
fn a_pulled_bond_holds_below_its_tensile_strength_and_breaks_above_it() {
    let force = 0.5f32;
    let strong = BondStrength {
        tensile: 1.01 * force,
        ..NEVER
    };
    let mut w = pulled_pair(strong, force);
    let peak = largest_tension(&mut w, 200);
    println!("largest tension {peak:.6} N under a force of {force} N");
    assert!(w.broken_bonds().is_empty(), "{:?}", w.broken_bonds());
    assert!(
        (peak - force).abs() < 0.002 * force,
        "{peak} N against {force} N"
    );
    let load = w.bond_load(0).expect("an intact bond");
    assert!(load.shear < 1e-3 * force && load.bending < 1e-6, "{load:?}");

    let weak = BondStrength {
        tensile: 0.99 * force,
        ..NEVER
    };
    let mut w = pulled_pair(weak, force);
    let mut broke_at = None;
    for step in 1..=200usize {
        w.step().unwrap();
        if broke_at.is_none() && !w.broken_bonds().is_empty() {
            broke_at = Some(step);
        }
    }
    assert_eq!(w.broken_bonds(), vec![0]);
    assert_eq!(w.bond_load(0), None, "a broken bond carries nothing");
    assert!(w.joint_impulses().is_empty(), "{:?}", w.joint_impulses());
    // F₀ sin(ω t) reaches 0.99 F₀ at ω t = 1.43: the bond breaks at that step.
    let expected = (0.99f32.asin() / 10.0 / 1e-3).ceil() as usize;
    let step = broke_at.expect("the bond broke");
    assert!(
        step.abs_diff(expected) <= 2,
        "broke at step {step}, expected {expected}"
    );
    // Free, the grain flies off along the force.
    assert!(w.position(1).x > 0.02, "{}", w.position(1));
}

/// A cantilever of `n` + 1 spheres (r = 5 mm, ℓ = 1 cm, 10 g each), the first fixed, bonded by
/// the distance rule with E I = k_r ℓ = 1 N m² (first bending mode about 350 rad/s) and
/// `strength`; a tip load F₀ sin(ω t) along −z with ω = 2 rad/s, quasi-static to (ω/ω₁)² ≈
/// 3e-5; no gravity, h = 1 ms, to past the peak (t = π/4).
fn loaded_cantilever(strength: BondStrength, force: f32) -> World {
    let (n, r, spacing) = (10usize, 0.005f32, 0.01f32);
    let mut b = World::builder(Settings {
        gravity: Vec3::ZERO,
        h: 1e-3,
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    for k in 0..=n {
        let body = Body::sphere(Vec3::new(k as f32 * spacing, 0.0, 0.0), r, 0.01);
        b.body(if k == 0 { body.fixed() } else { body });
    }
    let stiffness = BondStiffness::isotropic(1e7, 100.0, 100.0, 0.5);
    let bonds = b
        .breakable_bonds(0..n + 1, 0.0, stiffness, Some(strength))
        .unwrap();
    assert_eq!(bonds, n);
    b.force(AppliedForce::harmonic(n, -Vec3::Z * force, 2.0, -FRAC_PI_2));
    b.build().expect("the cantilever builds")
}

#[test]
fn a_cantilever_breaks_at_its_root_when_the_tip_moment_exceeds_the_bending_strength() {
    // The root bond's anchor lies ℓ/2 from the fixed grain's centre, 9.5 ℓ from the tip: it
    // carries the moment F₀ × 9.5 ℓ and the shear F₀.
    let force = 0.01f32;
    let moment = force * 0.095;
    let strong = BondStrength {
        bending: 1.01 * moment,
        ..NEVER
    };
    let mut w = loaded_cantilever(strong, force);
    let mut peak = 0.0f32;
    for _ in 0..900 {
        w.step().unwrap();
        peak = peak.max(w.bond_load(0).expect("intact").bending);
    }
    println!("largest root moment {peak:.6e} N m against F L = {moment:.6e} N m");
    assert!(w.broken_bonds().is_empty(), "{:?}", w.broken_bonds());
    assert!((peak - moment).abs() < 0.005 * moment, "{peak} N m");

    let weak = BondStrength {
        bending: 0.99 * moment,
        ..NEVER
    };
    let mut w = loaded_cantilever(weak, force);
    while w.broken_bonds().is_empty() && w.steps() < 900 {
        w.step().unwrap();
    }
    // The root breaks first (the moment falls off linearly along the beam).
    assert_eq!(w.broken_bonds(), vec![0], "at step {}", w.steps());
    assert_eq!(w.joint_impulses().len(), 9 * 6);
}

/// A grain resting on a fixed grain under gravity, bonded to it with a twisting strength of
/// 1e-6 N m and spun about the bond's axis: the bond breaks in the first step, and the grain
/// then rests on the other by contact instead of falling through it.
#[test]
fn a_broken_bond_becomes_an_ordinary_contact() {
    let r = 0.005f32;
    let mut b = World::builder(Settings {
        h: 1e-3,
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::ZERO, r, 0.01).fixed());
    b.body(
        Body::sphere(Vec3::new(0.0, 0.0, 2.0 * r), r, 0.01).with_angular_velocity(Vec3::Z * 10.0),
    );
    let stiffness = BondStiffness::isotropic(1e5, 30.0, 1.0, 1e-3);
    let strength = BondStrength {
        twisting: 1e-6,
        ..NEVER
    };
    let anchor = Vec3::new(0.0, 0.0, r);
    b.joint(JointDesc::bond(0, Some(1), anchor, stiffness).breaking_at(strength));
    let mut w = b.build().unwrap();
    w.step().unwrap();
    assert_eq!(w.broken_bonds(), vec![0]);
    w.run(1000).unwrap();
    let gap = w.position(1).z - 2.0 * r;
    println!("after 1 s the grain's centre is {gap:.3e} m off touching");
    assert!(gap.abs() < 0.01 * r, "{gap} m");
    assert!(w.last_stats().contacts == 1);
}

#[test]
fn which_bonds_broke_survives_a_checkpoint_and_the_run_resumes_bit_for_bit() {
    let force = 0.5f32;
    let weak = BondStrength {
        tensile: 0.9 * force,
        ..NEVER
    };
    let mut w = pulled_pair(weak, force);
    let before = w.snapshot().unwrap();
    w.run(150).unwrap();
    assert_eq!(w.broken_bonds(), vec![0]);
    let bytes = w.snapshot().unwrap().to_bytes();
    w.run(50).unwrap();
    let mut resumed = pulled_pair(weak, force);
    resumed
        .restore(&Snapshot::from_bytes(&bytes).unwrap())
        .unwrap();
    assert_eq!(resumed.broken_bonds(), vec![0]);
    resumed.run(50).unwrap();
    assert_eq!(resumed.bodies().pos_radius, w.bodies().pos_radius);
    assert_eq!(resumed.bodies().motion, w.bodies().motion);
    // A snapshot from before the break mends the bond.
    resumed.restore(&before).unwrap();
    assert!(resumed.broken_bonds().is_empty());
    resumed.run(20).unwrap();
    assert!(resumed.bond_load(0).is_some_and(|l| l.tension > 0.0));
    // A list that names a bond which cannot break is refused.
    let mut bad = Snapshot::from_bytes(&bytes).unwrap();
    bad.broken_bonds = vec![3];
    let msg = resumed.restore(&bad).unwrap_err().to_string();
    assert!(
        msg.contains("broken bond 3 is not a breakable bond"),
        "{msg}"
    );
}

#[test]
fn a_strength_is_checked_at_build_naming_the_joint_and_the_field() {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::ZERO, 0.005, 0.01));
    b.body(Body::sphere(Vec3::new(0.01, 0.0, 0.0), 0.005, 0.01));
    let zero = BondStrength {
        shear: 0.0,
        ..NEVER
    };
    let anchor = Vec3::new(0.005, 0.0, 0.0);
    b.joint(JointDesc::fixed(0, Some(1), anchor).breaking_at(NEVER));
    let msg = b.build().err().map(|e| e.to_string()).expect("refused");
    assert!(
        msg.contains("joint 0: strength") && msg.contains("only a bond can break"),
        "{msg}"
    );
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::ZERO, 0.005, 0.01));
    b.body(Body::sphere(Vec3::new(0.01, 0.0, 0.0), 0.005, 0.01));
    let stiffness = BondStiffness::isotropic(1e5, 0.0, 1.0, 0.0);
    b.joint(JointDesc::bond(0, Some(1), anchor, stiffness).breaking_at(zero));
    let msg = b.build().err().map(|e| e.to_string()).expect("refused");
    assert!(msg.contains("joint 0: shear_strength"), "{msg}");
}
