//! The position correction of overlaps (`Settings::position_correction`) against what it must
//! do: an overlap is brought back to the slop (1e-3 of the smallest radius) in one step by
//! moving the bodies, with no speed left behind (where the stabilising term Φ/h leaves the
//! separation speed |Φ|/h), the pair's centre of mass stays put, and a resting column keeps
//! resting where the stabilising term makes it jump.

use grains::{Body, JointDesc, Material, Settings, Solver, Vec3, WallDesc, World};

/// Rigid contact without gravity, Gauss–Seidel to 1e-9 m/s, h = 1 ms, with `correction` sweeps
/// of the position correction.
fn rigid(correction: u32) -> Settings {
    let s = Settings::default();
    Settings {
        gravity: Vec3::ZERO,
        solver: s.solver.with_tolerance(1e-9),
        position_correction: correction,
        ..s
    }
}

/// Two equal spheres (r = 5 mm, 1 g) at rest overlapping by `overlap` (m) along x, one step.
fn overlapping_pair(settings: Settings, overlap: f32) -> World {
    let r = 0.005;
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    let half = r - 0.5 * overlap;
    b.body(Body::sphere(Vec3::new(-half, 0.0, 0.0), r, 1e-3));
    b.body(Body::sphere(Vec3::new(half, 0.0, 0.0), r, 1e-3));
    let mut w = b.build().expect("the pair builds");
    w.step().expect("a step");
    w
}

/// The overlap the correction leaves between spheres of radius `r` (the smallest).
fn slop(r: f32) -> f32 {
    1e-3 * r
}

#[test]
fn an_overlap_is_moved_away_in_one_step_without_leaving_a_speed() {
    let (r, overlap, h) = (0.005, 1e-4, 1e-3);
    let corrected = overlapping_pair(rigid(50), overlap);
    let gap = (corrected.position(1) - corrected.position(0)).length() - 2.0 * r;
    let (v0, v1) = (corrected.velocity(0), corrected.velocity(1));
    let centre = corrected.position(0) + corrected.position(1);
    println!(
        "corrected: gap {gap:.3e} m (slop {:.3e}), speeds {v0} {v1}, centre {centre}",
        slop(r)
    );
    assert!((gap + slop(r)).abs() < 1e-3 * overlap, "gap left {gap} m");
    assert!(v0.length() == 0.0 && v1.length() == 0.0, "speeds {v0} {v1}");
    assert!(
        centre.length() < 1e-9,
        "the pair's centre moved to {centre}"
    );

    // The stabilising term removes the same overlap with the separation speed |Φ|/h, which the
    // pair keeps (each sphere |Φ|/(2h)).
    let stabilised = overlapping_pair(rigid(0), overlap);
    let speed = stabilised.velocity(1).x;
    println!(
        "stabilised: speed {speed:.4e} m/s, |Φ|/(2h) = {:.4e}",
        overlap / (2.0 * h)
    );
    assert!((speed - overlap / (2.0 * h)).abs() < 1e-3 * overlap / h);
}

/// A column of `n` spheres (r = 5 mm) standing on a floor, each overlapping the one below (and
/// the lowest the floor) by `overlap`, stepped `steps` times under gravity with rigid contact:
/// the top sphere's rise (m) and the largest speed at the end.
fn column(correction: u32, overlap: f32, n: usize, steps: u64) -> (f32, f32) {
    let r = 0.005;
    let mut b = World::builder(Settings {
        gravity: Vec3::new(0.0, 0.0, -9.81),
        solver: Solver::GaussSeidel {
            sweeps: correction.max(200),
            tolerance: 0.0,
            omega: 1.0,
        },
        h: 5e-3,
        ..rigid(correction)
    });
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for k in 0..n {
        let z = r - overlap + k as f32 * (2.0 * r - overlap);
        b.body(Body::sphere(Vec3::new(0.0, 0.0, z), r, 1e-3));
    }
    let mut w = b.build().expect("the column builds");
    let top = w.position(n - 1).z;
    w.run(steps).expect("the column's steps");
    let fastest = (0..n).map(|i| w.velocity(i).length()).fold(0.0, f32::max);
    (w.position(n - 1).z - top, fastest)
}

#[test]
fn a_column_at_rest_keeps_resting_once_its_overlaps_are_moved_away() {
    let (r, overlap, n) = (0.005, 5e-5, 20);
    let (rise, fastest) = column(200, overlap, n, 400);
    println!("corrected: the top rose {rise:.4e} m, fastest {fastest:.3e} m/s");
    // Every overlap brought back to the slop, none made: the top rises by n (overlap − slop)
    // and no more.
    let expected = n as f32 * (overlap - slop(r));
    assert!((rise - expected).abs() < 0.05 * expected, "rose {rise} m");
    // At rest: g h is 0.049 m/s, and what stays is the rounding of the solve (without the
    // slop's dead band, the positions' own rounding, an ulp of 1.5e-8 m near 0.2 m corrected
    // every step, kept the column moving at up to 1e-5 m/s).
    assert!(fastest < 1e-6, "fastest {fastest} m/s");
    // The stabilising term pushes the same overlaps apart as speeds: the column jumps and
    // bounces (the comparison that shows the check can fail).
    let (rise, fastest) = column(0, overlap, n, 400);
    println!("stabilised: the top rose {rise:.4e} m, fastest {fastest:.3e} m/s (r = {r})");
    assert!(fastest > 1e-3 || (rise - expected).abs() > 0.05 * expected);
}

#[test]
fn the_correction_is_refused_where_it_cannot_act() {
    let built = |s: Settings| {
        let mut b = World::builder(s);
        b.material(Material::new(0.5));
        b.body(Body::sphere(Vec3::ZERO, 0.005, 1e-3));
        b.build().map(|_| ()).map_err(|e| e.to_string())
    };
    let compliant = Settings {
        position_correction: 10,
        ..Settings::granular(1e-3)
    };
    let message = built(compliant).expect_err("compliant contact is refused");
    println!("{message}");
    assert!(message.contains("position_correction") && message.contains("compliant contact"));
    let unstabilised = Settings {
        stabilise_contacts: false,
        ..rigid(10)
    };
    let message = built(unstabilised).expect_err("without the stabilising term it is refused");
    assert!(message.contains("stabilise_contacts"), "{message}");
    assert_eq!(built(rigid(10)), Ok(()));
    // Switched on later in a world with joints: refused by the same table.
    let mut b = World::builder(rigid(0));
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::ZERO, 0.005, 1e-3));
    b.body(Body::sphere(Vec3::new(0.02, 0.0, 0.0), 0.005, 1e-3));
    b.joint(JointDesc::ball(0, Some(1), Vec3::new(0.01, 0.0, 0.0)));
    let mut w = b.build().expect("the jointed pair builds");
    let message = w.set_settings(rigid(10)).expect_err("refused").to_string();
    assert!(message.contains("joints"), "{message}");
}
