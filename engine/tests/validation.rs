//! Seed cases of VALIDATION.md: V9 (sliding → rolling sphere), V11 (rolling disk keeps its
//! energy) and V5 (21-disk cannonball collapse).

use grains::validation::{v11_rolling_disk, v5_cannonball, v9_slide_to_roll, G};

/// t* = 2 v₀ / (7 μ g) and v = 5 v₀ / 7 for v₀ = 2, μ = 0.2.
const T_STAR: f64 = 2.0 * 2.0 / (7.0 * 0.2 * G as f64);
const V_ROLL: f32 = 5.0 * 2.0 / 7.0;

#[test]
fn v9_sphere_starts_rolling_at_t_star_and_rolls_at_five_sevenths() {
    for h in [0.12f32, 0.012] {
        let r = v9_slide_to_roll(h);
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
    let r = v11_rolling_disk();
    assert_eq!(r.ke_start, 6.75);
    assert!(
        r.max_relative_drift <= 1e-5,
        "relative energy drift {}",
        r.max_relative_drift
    );
}

#[test]
fn v5_cannonball_collapses_into_separated_disks_on_the_table() {
    let r = v5_cannonball();
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
