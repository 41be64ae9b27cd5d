//! Seed cases of VALIDATION.md: V9 (sliding → rolling sphere), V11 (rolling disk keeps its
//! energy) and V5 (21-disk cannonball collapse), each measured on the world of its scene file in
//! `scenes/`, the same files `grains validate` runs.

use grains::scene::Scene;
use grains::validation::{cannonball, load, v11, v9, G};
use std::path::{Path, PathBuf};

fn scenes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes")
}

fn scene(name: &str) -> Scene {
    load(&scenes(), name).unwrap_or_else(|e| panic!("{e}"))
}

/// t* = 2 v₀ / (7 μ g) and v = 5 v₀ / 7 for v₀ = 2, μ = 0.2.
const T_STAR: f64 = 2.0 * 2.0 / (7.0 * 0.2 * G as f64);
const V_ROLL: f32 = 5.0 * 2.0 / 7.0;

#[test]
fn v9_sphere_starts_rolling_at_t_star_and_rolls_at_five_sevenths() {
    for h in [0.12f32, 0.012] {
        let mut s = scene("v9_slide_to_roll");
        s.settings.h = h;
        let r = v9(s.world(None).unwrap()).unwrap();
        // Rolling is reached in the step that contains t* (the slip is removed within a step).
        assert!(
            r.t_roll >= T_STAR - 1e-6 && r.t_roll <= T_STAR + h as f64 + 1e-6,
            "h = {h}: rolling from {} s, expected in [{T_STAR:.4}, {:.4}]",
            r.t_roll,
            T_STAR + h as f64
        );
        // Angular momentum about the contact line is conserved: exact up to f32 rounding.
        assert!(
            (r.v_end - V_ROLL).abs() <= 2e-6,
            "h = {h}: v = {} vs {V_ROLL}",
            r.v_end
        );
        assert!(
            (r.omega_r_end - V_ROLL).abs() <= 2e-6,
            "h = {h}: ω r = {} vs {V_ROLL}",
            r.omega_r_end
        );
        assert_eq!(r.off_axis, 0.0, "h = {h}: motion left the x–z plane");
    }
}

#[test]
fn v11_rolling_disk_keeps_its_energy_to_1e_5() {
    let s = scene("v11_rolling_disk");
    assert_eq!(s.total_steps(), 1000, "10 s at h = 0.01");
    let r = v11(s.world(None).unwrap(), s.total_steps()).unwrap();
    assert_eq!(r.ke_start, 6.75);
    assert!(
        r.max_relative_drift <= 1e-5,
        "relative energy drift {}",
        r.max_relative_drift
    );
}

#[test]
fn v5_cannonball_collapses_into_separated_disks_on_the_table() {
    let s = scene("v5_cannonball");
    assert_eq!(s.total_steps(), 400, "20 s at h = 0.05");
    let r = cannonball(s.world(None).unwrap(), s.total_steps()).unwrap();
    assert_eq!(r.disks, 21);
    assert_eq!(
        r.on_table, 21,
        "only {} disks touch the tabletop (max lift {})",
        r.on_table, r.max_lift
    );
    assert!(
        r.min_gap > 0.0,
        "two disks still touch or overlap: min gap {}",
        r.min_gap
    );
}

#[test]
fn v7_brazil_nut_2d_reaches_the_top_within_50_shakes() {
    let s = scene("v7_brazil_nut_2d");
    assert_eq!(s.bodies.len(), 201);
    assert_eq!(s.settings.h, 0.1);
    assert_eq!(s.total_steps(), 750, "75 s at h = 0.1");
    let r = grains::validation::brazil_nut(&s, None).unwrap();
    assert!(r.rank_start < 0.2, "the nut should start at the bottom");
    let k = r.shakes_to_top.expect("the nut never reached the top");
    assert!(k <= 50.0, "top reached after {k} shakes");
    assert_eq!(r.quality.escaped, 0);
    assert_eq!(r.quality.non_finite, 0);
}

/// The main job's scene (about 3 minutes on 2 cores): `cargo test --release -- --ignored`.
#[test]
#[ignore]
fn brazil_nut_3d_nut_rises_to_the_top() {
    let s = scene("brazil_nut_3d");
    let r = grains::validation::brazil_nut(&s, Some(2)).unwrap();
    println!("{r:?}");
    assert!(r.rank_start < 0.2);
    let k = r.shakes_to_top.expect("the nut never reached the top");
    assert!(k <= 150.0, "top reached after {k} shakes");
    assert_eq!(r.quality.escaped, 0);
    assert_eq!(r.quality.non_finite, 0);
}
