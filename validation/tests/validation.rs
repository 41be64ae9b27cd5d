//! The validation cases (docs/validation.md) through the functions their `Case`s run: V9
//! (sliding → rolling sphere), V11 (rolling disk keeps its energy), V5 and V6 (cannonball
//! collapses), V7 (2-D Brazil nut), V8, V10, V12 (spinning friction), V13 (explicit and linearly
//! implicit dampers), V14 (joint drift with and without Θ/h) and V15 (restitution), each measured
//! on the world of its scene file in `scenes/`, the same files `grains validate` runs; V1 and V2
//! (point particle, CCP against the exact-Coulomb LCP, and the Coulomb correction); the
//! registry's figures for the fast cases; and the papers' polyhedral friction cones against the
//! engine's circular one in 3-D.

use grains::{Solver, SolverKind};
use grains_app::scene::Scene;
use grains_validation::cases::brazil_nut::{brazil_nut, V7_MIN_CONVERGED_SHARE};
use grains_validation::cases::links::{
    v13_passes, v13_runs, v14_passes, v14_pendulum_bound, v14_runs, Link, V13_LIKE_A_JOINT,
    V13_STABLE_SPEED,
};
use grains_validation::cases::particle::{
    coulomb_correction_contraction, v1_passes, v1_row, v2_correction, v2_correction_passes,
    v2_passes, v2_run, PAPER_PARTICLE, V1_PAPER, V1_START, V2_CORRECTION_PASSES,
};
use grains_validation::cases::restitution::{v15, v15_passes, v15_world, V15_RESTITUTION};
use grains_validation::cases::rolling::{v11, v9};
use grains_validation::cases::spin_and_roll::{
    ellipsoid_sphere_on_plane, v10, v12, v8, V10_BALL, V8_DECELERATION, V8_T_STOP,
};
use grains_validation::cases::stacks::{cannonball, v6_passes, v6_table, V6_PAPER};
use grains_validation::reference::FrictionModel;
use grains_validation::report::short_line;
use grains_validation::{load, run_case, Setup, Status, G};
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
        s.settings_mut().h = h;
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

/// V7's spec (`scenes/v7_brazil_nut_2d.toml`): every solve converged to the scene's 1e-4 m/s
/// (the case fails below 99 %), the bed shaken for 75 s without an escape or a non-finite
/// state. Whether the nut reaches the top is the ignored test below.
#[test]
fn v7_brazil_nut_2d_solves_converge() {
    let s = scene("v7_brazil_nut_2d");
    assert_eq!(s.builder().bodies().len(), 201);
    assert_eq!(s.settings().h, 0.1);
    assert_eq!(s.total_steps(), 750, "75 s at h = 0.1");
    assert_eq!(s.settings().solver.tolerance(), 1e-4);
    let r = brazil_nut(&s, None).unwrap();
    println!("{r:?}");
    assert!(r.rank_start < 0.2, "the nut should start at the bottom");
    assert_eq!(r.steps, 750);
    assert!(
        r.converged_share() >= V7_MIN_CONVERGED_SHARE,
        "{}/{} solves converged",
        r.converged_steps,
        r.steps
    );
    assert!(r.mean_residual <= 1e-4 && r.max_residual.is_finite());
    assert_eq!(r.quality.escaped, 0);
    assert_eq!(r.quality.non_finite, 0);
}

/// V7's verdict, which fails (issue 37): with every solve converged the nut creeps to rank
/// 0.24–0.30 in 45 shakes (`scenes/v7_brazil_nut_2d.toml` gives the study).
#[test]
#[ignore = "issue 37: with converged solves V7's nut does not reach the top at h = 0.1"]
fn v7_brazil_nut_2d_reaches_the_top_within_50_shakes() {
    let r = brazil_nut(&scene("v7_brazil_nut_2d"), None).unwrap();
    let k = r.shakes_to_top.expect("the nut never reached the top");
    assert!(k <= 50.0, "top reached after {k} shakes");
    assert!(r.passes_v7(), "{r:?}");
}

/// The case fails a rise carried by unconverged solves: V7's scene solved as the papers' rigid
/// preset would (Gauss–Seidel stopped at 100 sweeps, tolerance 1e-6 m/s, met by under 5 % of
/// the steps) raises the nut within 50 shakes, and the verdict is still FAIL.
#[test]
fn v7_fails_a_rise_whose_solves_do_not_converge() {
    let mut s = scene("v7_brazil_nut_2d");
    s.settings_mut().solver = Solver::GaussSeidel {
        sweeps: 100,
        tolerance: 1e-6,
        omega: 1.0,
    };
    let r = brazil_nut(&s, None).unwrap();
    assert!(r.rises_within_50_shakes(), "{r:?}");
    assert!(r.converged_share() < 0.05, "{r:?}");
    assert!(!r.passes_v7(), "{r:?}");
}

/// V7's convergence count: every step of V7 has contacts and ends with a residual above 0, so
/// at tolerance 0 (every solve runs all its sweeps, here 100) none counts as converged.
#[test]
fn v7_counts_no_solve_converged_at_tolerance_zero() {
    let mut s = scene("v7_brazil_nut_2d");
    let solver = s.settings().solver;
    s.settings_mut().solver = solver.with_sweeps(100).with_tolerance(0.0);
    let r = brazil_nut(&s, None).unwrap();
    assert_eq!(r.steps, 750);
    assert_eq!(r.converged_steps, 0);
    assert!(r.mean_residual > 0.0, "the solves leave a residual");
    assert!(!r.passes_v7(), "{r:?}");
}

/// The main job's scene (about 6 minutes on 2 cores): `cargo test --release -- --ignored`.
#[test]
#[ignore]
fn brazil_nut_3d_nut_rises_to_the_top() {
    let s = scene("brazil_nut_3d");
    let r = brazil_nut(&s, Some(2)).unwrap();
    println!("{r:?}");
    assert!(r.rank_start < 0.2);
    let k = r.shakes_to_top.expect("the nut never reached the top");
    assert!(k <= 150.0, "top reached after {k} shakes");
    assert_eq!(r.quality.escaped, 0);
    assert_eq!(r.quality.non_finite, 0);
}

#[test]
fn v1_ccp_and_lcp_heights_converge_as_h_falls_and_the_engine_follows_the_ccp() {
    let rows: Vec<_> = (0..V1_PAPER.len() as u32)
        .map(|k| v1_row(&Setup::default(), k).unwrap())
        .collect();
    for r in &rows {
        println!(
            "k = {}: {:.3e} (paper {:.3e}); engine vs exact CCP {:.1e} relative",
            r.k, r.difference, V1_PAPER[r.k as usize], r.engine.relative_error
        );
        assert!(r.difference > 0.0, "k = {}: the schemes should differ", r.k);
        assert!(
            r.engine.relative_error <= 1e-4,
            "k = {}: engine off the exact CCP by {:e}",
            r.k,
            r.engine.relative_error
        );
    }
    assert!(rows[7].difference < 1e-4, "{:?}", rows[7]);
    assert!(v1_passes(&rows), "{rows:#?}");
}

/// Past k = 7 the V1 difference falls at the model's rate 2^{3/2} ≈ 2.83 per halving (the
/// reference alone, 1.3 s: the particle is at rest on the line by 1.1 s).
#[test]
fn v1_difference_falls_at_the_relaxation_rate_two_to_the_three_halves() {
    let difference = |k: u32| {
        let h = 0.1 / f64::from(1u32 << k);
        let steps = (1.3 / h).round() as usize;
        let y = |model| {
            PAPER_PARTICLE
                .trajectory(model, V1_START, h, steps)
                .unwrap()
                .into_iter()
                .map(|s| s.y)
        };
        y(FrictionModel::ConeRelaxation)
            .zip(y(FrictionModel::Coulomb))
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt()
            / f64::from(1u32 << k)
    };
    let d: Vec<f64> = (8..=10).map(difference).collect();
    for w in d.windows(2) {
        let ratio = w[0] / w[1];
        assert!(
            (ratio - 2f64.powf(1.5)).abs() < 0.1,
            "halving ratio {ratio} (differences {d:?})"
        );
    }
}

#[test]
fn v2_ccp_hops_off_the_line_by_a_height_that_does_not_vanish_with_h() {
    let runs: Vec<_> = [1e-3, 5e-4]
        .into_iter()
        .map(|h| v2_run(&Setup::default(), h).unwrap())
        .collect();
    for r in &runs {
        println!("{r:?}");
        assert!(r.lcp_max_height < 1e-9, "{r:?}");
        assert!(r.apex > 0.03, "{r:?}");
    }
    assert!(v2_passes(&runs), "{runs:#?}");
}

/// The Coulomb correction on V2's sliding particle, with each solver: one pass cuts the
/// relaxation's hop by the model's 1/r² (r = μ²/(1 + μ²), 147× at μ = 0.3; at least 100×
/// asserted), and every pass brings the path closer to the exact-Coulomb LCP's.
#[test]
fn v2_coulomb_correction_removes_the_lift_and_follows_the_lcp() {
    let r = coulomb_correction_contraction(PAPER_PARTICLE.mu);
    for solver in SolverKind::ALL {
        let runs = v2_correction(1e-3, solver, &V2_CORRECTION_PASSES).unwrap();
        for c in &runs {
            println!("{solver:?}: {c:?}");
        }
        let (plain, one) = (&runs[0], &runs[1]);
        assert!(
            plain.lift > 0.03,
            "{solver:?}: the plain CCP should hop: {plain:?}"
        );
        assert!(
            one.lift <= plain.lift / 100.0,
            "{solver:?}: one pass leaves a lift of {} m vs {} m without (model ×{:.4})",
            one.lift,
            plain.lift,
            r * r
        );
        assert!(
            runs[3].l2_difference <= plain.l2_difference / 100.0,
            "{solver:?}: the corrected path does not approach the LCP's: {runs:?}"
        );
        assert!(v2_correction_passes(&runs), "{solver:?}: {runs:#?}");
    }
}

/// V15: Poisson restitution. A sphere dropped from H rebounds to e²H within 1 % (e = 0.5, 0.9)
/// and not at all with e = 0; Jacobi gives the same rebound.
#[test]
fn v15_sphere_rebounds_to_e_squared_h() {
    let runs: Vec<_> = V15_RESTITUTION
        .iter()
        .map(|&e| {
            let (w, n) = v15_world(&Setup::default(), e).unwrap();
            v15(w, e, n).unwrap()
        })
        .collect();
    for r in &runs {
        println!("{r:?}: ratio {}", r.ratio());
        assert!(r.impact_time.is_finite(), "never hit the plane: {r:?}");
        if r.restitution > 0.0 {
            assert!((r.ratio() - 1.0).abs() <= 0.01, "{r:?}: {} e²H", r.ratio());
        } else {
            assert!(r.rebound_height.abs() <= 1e-6, "e = 0 rebounds: {r:?}");
        }
    }
    assert!(v15_passes(&runs));
    let (mut w, n) = v15_world(&Setup::default(), 0.9).unwrap();
    let mut s = *w.settings();
    s.solver = s.solver.with_kind(SolverKind::Jacobi);
    w.set_settings(s).unwrap();
    let jacobi = v15(w, 0.9, n).unwrap();
    assert!((jacobi.ratio() - 1.0).abs() <= 0.01, "Jacobi: {jacobi:?}");
}

/// V6: the slides' cannonball table (and μ = 0 for the smaller stacks): every run completes,
/// each of the slides' 11 problems is run once, and the first step's contacts are the stack's
/// 3n(n − 1)/2 touching pairs plus its n disks on the table.
#[test]
fn v6_every_cannonball_stack_completes_at_every_friction() {
    let runs = v6_table(&Setup {
        threads: Some(2),
        ..Setup::default()
    })
    .unwrap();
    for r in &runs {
        println!("{r:?}");
        let n = ((8 * r.result.disks + 1) as f64).sqrt() as usize / 2;
        assert_eq!(
            r.result.contacts_start,
            3 * n * (n - 1) / 2 + n,
            "{} disks: contacts at the start",
            r.result.disks
        );
    }
    for (i, p) in V6_PAPER.iter().enumerate() {
        let matched = runs.iter().filter(|r| r.paper == Some(*p)).count();
        assert_eq!(matched, 1, "problem {}: {p:?} run {matched} times", i + 1);
    }
    assert!(v6_passes(&runs), "{runs:#?}");
}

#[test]
fn v13_the_explicit_damper_blows_up_where_the_linearly_implicit_one_holds_like_a_joint() {
    let s = scene("v13_damper");
    assert_eq!(s.total_steps(), 200, "10 s at h = 0.05");
    let runs = v13_runs(&Setup::default()).unwrap();
    let [explicit_20, explicit_100, implicit_100, damper, stiff, joint] = &runs[..] else {
        panic!("{} runs", runs.len());
    };
    assert_eq!(joint.link, Link::Joint);
    // δ = 20 is the explicit scheme's edge (h δ (1/m₁ + 1/m₂) = 2): bounded, not growing.
    assert!(
        explicit_20.stable(),
        "explicit δ = 20: {:?}",
        explicit_20.blown_up_at
    );
    // δ = 100: the relative velocity is multiplied by 1 − 2hδ = −9 each step.
    let t = explicit_100
        .blown_up_at
        .expect("explicit δ = 100 did not blow up");
    assert!(t <= 0.5, "explicit δ = 100 blew up only at {t} s");
    for r in [implicit_100, damper, stiff, joint] {
        assert!(
            r.stable() && r.max_speed <= V13_STABLE_SPEED,
            "{}: max |v| {} m/s, blown up at {:?}",
            r.link,
            r.max_speed,
            r.blown_up_at
        );
    }
    // Stiffer links come closer to the joint: δ = 10⁴ within a few mm, k = 10⁶ within 0.1 mm.
    let (d_damper, d_stiff) = (damper.distance_to(joint), stiff.distance_to(joint));
    assert!(
        d_damper <= V13_LIKE_A_JOINT && d_stiff <= 1e-4,
        "{d_damper} m, {d_stiff} m"
    );
    assert!(d_stiff < d_damper && d_damper < implicit_100.distance_to(joint));
    assert!(
        joint.stretch() <= 1e-5,
        "the joint stretched by {}",
        joint.stretch()
    );
    assert!(v13_passes(&runs));
}

#[test]
fn v14_joint_drift_is_o_h2_per_step_with_theta_over_h_and_grows_without_it() {
    let runs = v14_runs(&Setup::default()).unwrap();
    let [pendulum, coarse, pendulum_free, chain, chain_free] = &runs[..] else {
        panic!("{} runs", runs.len());
    };
    // One step's drift of the rotating arm, ½ h² ω² L ≤ g h² at the bottom of the swing.
    let bound = v14_pendulum_bound(pendulum.h);
    assert!(
        pendulum.max <= 1.2 * bound,
        "{} vs g h² = {bound}",
        pendulum.max
    );
    assert!(
        pendulum.max >= 0.5 * bound,
        "{} vs g h² = {bound}",
        pendulum.max
    );
    let ratio = coarse.max / pendulum.max;
    assert!((3.5..=4.5).contains(&ratio), "2h / h drift ratio {ratio}");
    for r in [pendulum, coarse, chain] {
        assert!(
            r.late <= 1.5 * r.early,
            "grew from {} to {}",
            r.early,
            r.late
        );
    }
    for (free, held) in [(pendulum_free, pendulum), (chain_free, chain)] {
        assert!(!free.stabilised && held.stabilised);
        assert!(
            free.late >= 5.0 * free.early,
            "{} → {}",
            free.early,
            free.late
        );
        assert!(
            free.late >= 10.0 * held.max,
            "{} vs {}",
            free.late,
            held.max
        );
    }
    assert!(v14_passes(&runs));
}

/// V8: ω_z falls at μ e_r m g / I = 1.962 rad/s² and stops in the step that contains 1.0 s
/// (1.05 s at h = 0.07, as in chakraborty's figure 3); nothing else moves.
#[test]
fn v8_spinning_sphere_stops_at_one_second() {
    let s = scene("v8_spinning_sphere");
    let r = v8(s.world(None).unwrap(), s.total_steps()).unwrap();
    assert!(
        ((r.deceleration - V8_DECELERATION) / V8_DECELERATION).abs() <= 1e-4,
        "deceleration {} vs {V8_DECELERATION}",
        r.deceleration
    );
    assert!(
        r.max_deviation <= 1e-5,
        "off the line by {}",
        r.max_deviation
    );
    assert!(
        r.t_stop >= V8_T_STOP - 1e-6 && r.t_stop <= V8_T_STOP + r.h as f64 + 1e-6,
        "stopped at {} s",
        r.t_stop
    );
    assert_eq!(r.off_axis, 0.0, "other velocity components moved");
    assert!(r.passes());
}

/// V10: the bowling ball hooks (v_y from +0.2 to −1/7), slides until |u₀|/(3.5 μ g) = 3.79 s,
/// then loses its spin at μ e_r m g / I until 7.86 s (paper: sliding until about 7.5–7.9 s) and
/// rolls on at v₀ − (2/7) u₀. The papers' maximal-dissipation ellipsoid stops everything at
/// 7.44 s, within their 7.5–7.9 s given their steps.
#[test]
fn v10_bowling_ball_hooks_then_rolls_after_about_7_9_s() {
    let s = scene("v10_bowling");
    let r = v10(s.world(None).unwrap(), s.total_steps()).unwrap();
    let (t_slip, t_spin, v_roll) = V10_BALL.sliding_first();
    assert!((t_slip - 3.786).abs() < 1e-3 && (t_spin - 7.864).abs() < 1e-3);
    assert!(
        r.heading.0 > 0.19 && r.heading.1 < -0.16,
        "no hook: heading {:?} rad",
        r.heading
    );
    assert!(
        (r.v_end - v_roll).abs().max_element() <= 1e-4,
        "{}",
        r.v_end
    );
    assert!(r.t_roll > t_slip - 1e-6 && r.t_roll <= t_slip + 0.05 + 1e-6);
    assert!(
        (7.5..=7.9 + 1e-6).contains(&r.t_spin_stop),
        "spin stopped at {}",
        r.t_spin_stop
    );
    assert!(r.passes(&V10_BALL));
    let (t_end, _) = ellipsoid_sphere_on_plane(&V10_BALL, 1e-4);
    assert!((t_end - 7.436).abs() < 2e-3, "ellipsoid reference {t_end}");
}

/// V12: contact 1 slides until it separates near 3.2 s; contact 2 rolls until about 3 s, then
/// slides and separates near 3.6 s (read from chakraborty's figures 7 and 8).
#[test]
fn v12_sphere_in_a_seam_slides_rolls_and_separates_on_time() {
    let s = scene("v12_two_spheres");
    let r = v12(s.world(None).unwrap(), s.total_steps()).unwrap();
    let (c1, c2) = (&r.contact_1, &r.contact_2);
    assert_eq!(
        c1.sliding_steps, c1.loaded_steps,
        "contact 1 stuck at times"
    );
    let near = |t: Option<f64>, paper: f64| t.is_some_and(|t| (t - paper).abs() <= 0.25);
    assert!(
        near(c1.t_separate, 3.2),
        "contact 1 separates at {:?}",
        c1.t_separate
    );
    assert!(
        near(c2.t_slide, 3.0),
        "contact 2 slides from {:?}",
        c2.t_slide
    );
    assert!(
        near(c2.t_separate, 3.6),
        "contact 2 separates at {:?}",
        c2.t_separate
    );
    assert!(c2.max_rolling_slip < 1e-3);
    assert!(r.passes());
}

/// The engine's CCP uses the circular cone (anitescu-2006 eq. 5.5); the papers' LCP models use
/// polyhedral cones of m directions. In 3-D, a sphere launched sliding along the plane at a
/// heading between two directions: the exact relaxation on the m-polygon (Lemke) tends to the
/// engine's path as m grows, its largest miss falling like 1/m (the polygon's heading bias).
#[test]
fn polyhedral_relaxation_tends_to_the_engines_circular_cone_in_3d() {
    use glam::Vec3;
    use grains::{Body, Envelope, Material, Settings, WallDesc, World};
    use grains_validation::reference::{polygon_directions, step_velocity, ContactRows};
    let (mu, h, speed, heading, r) = (0.3f64, 1e-3f64, 2.0f64, 0.3f64, 1e-3f32);
    let steps = 1000;
    let v0 = [speed * heading.cos(), speed * heading.sin(), 0.0];
    let mut b = World::builder(Settings {
        h: h as f32,
        gravity: Vec3::new(0.0, 0.0, -G),
        envelope: Some(Envelope::Fixed(10.0)),
        ..Settings::default()
    });
    b.material(Material::new(mu as f32));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(Body {
        inertia: 1e20,
        ..Body::sphere(Vec3::new(0.0, 0.0, r), r, 1.0).with_velocity(Vec3::new(
            v0[0] as f32,
            v0[1] as f32,
            0.0,
        ))
    });
    let mut w = b.build().unwrap();
    let engine: Vec<[f64; 3]> = (0..steps)
        .map(|_| {
            w.step().unwrap();
            let p = w.position(0);
            [p.x as f64, p.y as f64, (p.z - r) as f64]
        })
        .collect();
    let miss = |m: usize| {
        let directions: Vec<Vec<f64>> = polygon_directions([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], m)
            .iter()
            .map(|d| d.to_vec())
            .collect();
        let (mut q, mut v) = ([0.0f64; 3], v0);
        let mut worst = 0.0f64;
        for e in &engine {
            let plane = ContactRows {
                normal: vec![0.0, 0.0, 1.0],
                directions: directions.clone(),
                gap: q[2],
                mu,
            };
            let free = [v[0], v[1], v[2] - h * G as f64];
            let next = step_velocity(
                FrictionModel::ConeRelaxation,
                &[1.0; 3],
                &free,
                &[plane],
                h,
                500,
            )
            .unwrap();
            v = [next[0], next[1], next[2]];
            q = [0, 1, 2].map(|k| q[k] + h * v[k]);
            worst = worst.max((0..3).map(|k| (q[k] - e[k]).powi(2)).sum::<f64>().sqrt());
        }
        worst
    };
    // The polygon's friction keeps the heading within π/m of the circle's and its
    // deceleration within [μg cos(π/m), μg]: over the slide D₀ = v₀²/(2μg) the miss is at most
    // D₀ (1/cos(π/m) − cos(π/m) + tan(π/m)), plus 1 cm for the hop and the engine's f32.
    let slide = speed * speed / (2.0 * mu * G as f64);
    let ms = [4usize, 8, 16, 32, 64];
    let misses = ms.map(miss);
    for (m, miss) in ms.iter().zip(misses) {
        let a = std::f64::consts::PI / *m as f64;
        let bound = slide * (1.0 / a.cos() - a.cos() + a.tan()) + 0.01;
        assert!(
            miss <= bound,
            "m = {m}: miss {miss} m > {bound} m ({misses:?})"
        );
    }
    assert!(misses[4] < misses[0] / 20.0, "{misses:?}");
}

/// The registry runs the fast cases to the figures `grains validate` printed before the cases
/// became a registry (the layout may change, the numbers may not), and its one-line summary
/// carries the id, the title, the key figure and the verdict.
#[test]
fn the_registry_reproduces_the_fast_cases_figures() {
    let figures = [
        ("V5", "21/21 on table (max lift 0.00e0), min gap 0.0041"),
        (
            "V8",
            "h = 0.07: deceleration 1.96200 rad/s² (max deviation from the line 3.4e-7), \
             |ω_z| ≤ 1e-6 from t = 1.05 s, other velocities ≤ 0.0e0",
        ),
        ("V11", "KE₀ = 6.75 J, max relative drift 0.00e0"),
        (
            "V15",
            "H = 1.000 m, h = 0.0001 s: e = 0: rebound 0.0e0 m, e = 0.5: rebound 0.25008 m = \
             1.0003 e²H, e = 0.9: rebound 0.80965 m = 0.9996 e²H",
        ),
    ];
    for (id, measured) in figures {
        let r = run_case(id, &Setup::default()).expect("a registered case");
        assert_eq!(r.measured, measured, "{id}");
        assert_eq!(r.status, Status::Pass, "{id}");
        let line = short_line(&r);
        assert!(
            line.starts_with(id) && line.contains(r.title) && line.ends_with(" PASS"),
            "{line}"
        );
        assert!(line.contains(&r.key_figure), "{line}");
    }
}
