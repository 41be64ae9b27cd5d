//! Lees–Edwards boundaries (a periodic cell sheared along x across y, `Periodic::shear_rate`):
//! a grain crossing the y seam re-enters shifted by the images' offset and slowed by their
//! velocity, a pair across the seam sees the images' velocity (a frictional pair dragged, a
//! copy swept into a grain at rest at the time the offset says), a sheared bed without
//! gravity takes the linear profile v_x = γ̇ y and resists the shear, the same bits for any
//! thread count, and the refusals.

use grains::fields::{coarse_grain, grain_stress, Kernel, Sampling};
use grains::support::{limit, Feature};
use grains::{Backend, Body, Material, Periodic, Servo, Settings, Vec3, WallDesc, World};

/// A cell periodic over [0, lx) × [0, ly), sheared at `rate`, with `settings` otherwise.
fn sheared(settings: Settings, lx: f32, ly: f32, rate: f32) -> Settings {
    Settings {
        gravity: Vec3::ZERO,
        periodic: Periodic {
            x: Some((0.0, lx)),
            y: Some((0.0, ly)),
            shear_rate: rate,
            ..Periodic::NONE
        },
        ..settings
    }
}

/// Δ(t) = γ̇ L_y t mod L_x in f64.
fn offset(rate: f64, lx: f64, ly: f64, t: f64) -> f64 {
    (rate * ly * t).rem_euclid(lx)
}

#[test]
fn a_grain_crossing_the_y_seam_re_enters_shifted_and_slowed() {
    let (lx, ly, rate, h) = (1.0f32, 0.8f32, 2.0f32, 1e-3f32);
    let mut b = World::builder(sheared(Settings::default(), lx, ly, rate));
    b.material(Material::new(0.3));
    // One grain up through y = hi, one down through y = lo, far apart in z.
    let up = Vec3::new(0.3, 0.7, 0.2);
    let down = Vec3::new(0.05, 0.06, 0.7);
    b.body(Body::sphere(up, 0.02, 1.0).with_velocity(Vec3::new(0.1, 0.5, 0.0)));
    b.body(Body::sphere(down, 0.02, 1.0).with_velocity(Vec3::new(-0.2, -0.5, 0.0)));
    let mut w = b.build().unwrap();
    let jump = (rate * ly) as f64;
    let mut crossed = [0; 2];
    for _ in 0..400 {
        let before = [0, 1].map(|i| (w.position(i), w.velocity(i)));
        w.step().unwrap();
        let t_end = w.time();
        let delta = offset(rate as f64, lx as f64, ly as f64, t_end);
        for (i, (p, v)) in before.into_iter().enumerate() {
            let moved = p + v * h;
            let n = ((moved.y as f64) / ly as f64).floor();
            let x = (moved.x as f64 - n * delta).rem_euclid(lx as f64);
            let y = moved.y as f64 - n * ly as f64;
            let (now, vel) = (w.position(i), w.velocity(i));
            assert!(
                ((now.x as f64 - x).abs() < 2e-6 || (now.x as f64 - x).abs() > lx as f64 - 2e-6)
                    && (now.y as f64 - y).abs() < 2e-6,
                "grain {i} at t = {t_end}: {now}, expected ({x}, {y})"
            );
            assert_eq!(now.z, moved.z);
            let vx = v.x as f64 - n * jump;
            assert!(
                (vel.x as f64 - vx).abs() < 1e-6,
                "grain {i}: v_x {} expected {vx}",
                vel.x
            );
            assert_eq!((vel.y, vel.z), (v.y, v.z));
            if n != 0.0 {
                crossed[i] += n as i32;
                // The shift is not trivial: Δ is neither 0 nor a whole period.
                assert!(delta > 0.1 && delta < lx as f64 - 0.1, "Δ = {delta}");
            }
        }
    }
    assert_eq!(crossed, [1, -1], "each grain crosses once");
    // Up through hi: slowed by γ̇ L_y; down through lo: sped up by it.
    assert!((w.velocity(0).x - (0.1 - 1.6)).abs() < 1e-6);
    assert!((w.velocity(1).x - (-0.2 + 1.6)).abs() < 1e-6);
}

#[test]
fn a_frictional_pair_across_the_seam_is_dragged_by_the_images_velocity() {
    // Grain a just above y = lo and b just below y = hi, both at rest, at the same x and
    // overlapping across the seam by 0.2 mm: the copy of b that a touches lies below lo and
    // moves at −γ̇ L_y = −2 m/s along x. Pushed apart, the pair slides and friction drags a
    // along −x and b along +x, by μ times their change of normal velocity.
    let (lx, ly, rate, r, mu) = (0.5f32, 0.4f32, 5.0f32, 0.02f32, 0.3f32);
    let mut b = World::builder(sheared(Settings::default(), lx, ly, rate));
    b.material(Material::new(mu));
    b.body(Body::sphere(Vec3::new(0.2, r - 0.0001, 0.1), r, 0.1));
    b.body(Body::sphere(Vec3::new(0.2, ly - r + 0.0001, 0.1), r, 0.1));
    let mut w = b.build().unwrap();
    w.run(5).unwrap();
    let (va, vb) = (w.velocity(0), w.velocity(1));
    assert!(
        va.y > 0.0 && vb.y < 0.0,
        "the pair must have been pushed apart: {va} {vb}"
    );
    let dvn = va.y;
    eprintln!("a: {va}, b: {vb}; μ Δv_n = {}", mu * dvn);
    assert!(
        (va.x + mu * dvn).abs() < 0.05 * mu * dvn,
        "a dragged along −x by μ Δv_n = {}: {va}",
        mu * dvn
    );
    assert!((va.x + vb.x).abs() < 1e-6, "momentum: {va} {vb}");
    assert!((va.y + vb.y).abs() < 1e-6, "momentum: {va} {vb}");
}

#[test]
fn a_copy_across_the_seam_sweeps_into_a_grain_when_the_offset_says() {
    // a at rest just above y = lo, b at rest just below y = hi and 0.1 m further along x; they
    // overlap in y across the seam by 0.2 r. b's copy below lo lies at x_b − Δ(t), moving at
    // −γ̇ L_y = −0.8 m/s: it reaches a when x_b − Δ(t) − x_a = √((2r)² − (1.8 r)²), at t* =
    // (0.1 − 0.872 r)/0.8, and knocks a along −x.
    let (lx, ly, rate, r) = (0.5f32, 0.4f32, 2.0f32, 0.02f32);
    let mut b = World::builder(sheared(Settings::default(), lx, ly, rate));
    b.material(Material::new(0.0));
    b.body(Body::sphere(Vec3::new(0.2, 0.9 * r, 0.1), r, 0.1));
    b.body(Body::sphere(Vec3::new(0.3, ly - 0.9 * r, 0.1), r, 0.1));
    let mut w = b.build().unwrap();
    let t_star = (0.1 - (4.0f64 - 3.24).sqrt() * r as f64) / (rate * ly) as f64;
    let mut hit = None;
    for _ in 0..200 {
        w.step().unwrap();
        if hit.is_none() && w.velocity(0) != Vec3::ZERO {
            hit = Some(w.time());
        }
    }
    let hit = hit.expect("the copy must reach a");
    assert!(
        (hit - t_star).abs() <= 2.5e-3,
        "first moved at t = {hit}, the copy reaches it at {t_star}"
    );
    // Frictionless, a leaves along the normal at the touch, (−0.872 r, 1.8 r) normalised.
    let (va, vb) = (w.velocity(0), w.velocity(1));
    let along = -(4.0f32 - 3.24).sqrt() / 1.8;
    assert!(va.x < -0.05 && va.y > 0.0, "a knocked along −x: {va}");
    assert!(
        (va.x / va.y - along).abs() < 0.05 * along.abs(),
        "{va}: v_x/v_y = {along} expected"
    );
    assert!((va + vb).length() < 1e-5, "momentum: {va} {vb}");
}

/// The cell of [`bed`]: periods along x and y, height between the walls (m), grain radius.
const BED: (f32, f32, f32) = (0.21, 0.084, 0.01);

/// A bed of 10 × 10 × 4 grains (r = 1 cm, on a cubic lattice 2.1 r apart jittered by 0.04 r
/// along x and y, φ ≈ 0.45) between two frictionless walls z = 0 and z = 8.4 cm, periodic
/// over 21 cm along x and y, sheared at γ̇ = 10/s without gravity, started with a small random
/// agitation (each velocity component within ±0.1 m/s, 5 % of γ̇ L_y: on a lattice at rest
/// the images would slide past the rows across the seam without touching), on `threads`
/// threads.
fn bed(threads: usize) -> World {
    bed_under(threads, None)
}

/// The bed of [`bed`], its top wall (wall 1) held by `lid` if given.
fn bed_under(threads: usize, lid: Option<Servo>) -> World {
    let (l, height, r) = BED;
    let (n, a) = (10usize, l / 10.0);
    let settings = Settings {
        threads,
        ..sheared(Settings::granular(1e-3), l, l, 10.0)
    };
    let mut b = World::builder(settings);
    b.material(Material::new(0.3));
    let smooth = b.material(Material::new(0.0));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z).with_material(smooth));
    let top = WallDesc::plane(Vec3::new(0.0, 0.0, height), -Vec3::Z).with_material(smooth);
    b.wall(match lid {
        Some(servo) => top.with_servo(servo),
        None => top,
    });
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut uniform = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        2.0 * ((seed >> 40) as f32 / (1u64 << 24) as f32) - 1.0
    };
    for k in 0..4 {
        for j in 0..n {
            for i in 0..n {
                let site = Vec3::new(i as f32 + 0.5, j as f32 + 0.5, k as f32 + 0.5) * a;
                let c = site + 0.04 * r * Vec3::new(uniform(), uniform(), 0.0);
                let v = 0.1 * Vec3::new(uniform(), uniform(), uniform());
                b.body(Body::sphere(c, r, 1e-2).with_velocity(v));
            }
        }
    }
    b.build().unwrap()
}

#[test]
fn a_sheared_bed_takes_the_linear_profile_and_resists_the_shear() {
    let mut w = bed(1);
    let (l, rate, height) = (BED.0 as f64, 10.0f64, BED.1 as f64);
    let count = 11;
    let profile = Sampling::Profile {
        axis: 1,
        from: 0.0,
        spacing: (l / count as f64) as f32,
        count,
        area: (l * height) as f32,
    };
    let kernel = Kernel::Lucy { cutoff: 0.04 };
    // Strain 30 to settle the flow, then average over strain 10 more.
    w.run(3000).unwrap();
    let (mut vx, mut stress, mut samples) = (vec![0.0; count], 0.0, 0);
    for _ in 0..50 {
        w.run(20).unwrap();
        let f = coarse_grain(&w, &profile, kernel).unwrap();
        for (k, v) in f.velocity.iter().enumerate() {
            vx[k] += v[0];
        }
        stress += f.contact_stress.iter().map(|s| s[0][1]).sum::<f64>() / count as f64;
        samples += 1;
    }
    let vx: Vec<f64> = vx.iter().map(|v| v / samples as f64).collect();
    let stress = stress / samples as f64;
    // A line fit over the middle of the cell (the points 2..=8 of 0..=10).
    let points: Vec<(f64, f64)> = (2..=8)
        .map(|k| (k as f64 * l / count as f64, vx[k]))
        .collect();
    let m = points.len() as f64;
    let (sy, sv) = points
        .iter()
        .fold((0.0, 0.0), |s, p| (s.0 + p.0, s.1 + p.1));
    let (my, mv) = (sy / m, sv / m);
    let (num, den) = points.iter().fold((0.0, 0.0), |s, p| {
        (s.0 + (p.0 - my) * (p.1 - mv), s.1 + (p.0 - my) * (p.0 - my))
    });
    let slope = num / den;
    eprintln!("profile v_x(y): {vx:.3?}");
    eprintln!("slope {slope:.3} 1/s for γ̇ = {rate}; σ_xy (contacts, compression-positive) = {stress:.4e} Pa");
    assert!(
        (slope - rate).abs() < 0.1 * rate,
        "slope {slope} for a shear rate {rate}: {vx:?}"
    );
    // Compression-positive: Σ f_x b_y < 0 is a stress that resists the shear (the faster
    // grains above are pulled back along −x); the power γ̇ (−σ_xy) V the cell's images feed in
    // is positive.
    assert!(
        stress < 0.0,
        "σ_xy = {stress}: the bed must resist the shear"
    );
}

/// The pressure-controlled shear cell (python/examples/shear_cell.py in small): the bed of
/// [`bed`] under a servo lid holding 38 kPa (inertial number about 0.05 at γ̇ = 10/s). Over
/// strain 10 after strain 20 of settling, the cell's normal stress across the lid, the volume
/// average of the grains' Love–Weber stress (`grain_stress` × V_i) plus the kinetic stress
/// about the streaming profile γ̇ (y − L_y/2) x̂, equals the lid's load over its face: the
/// virial balance of a steady state, which the time average of d/dt Σ m v_z z (bounded by the
/// samples' spread) and the lid's fluctuation leave within 2 % (measured: 0.2 %). The lid holds
/// its target to 5 % (the servo in a sheared cell), and the shear stress resists the shear.
#[test]
fn a_servo_lid_on_a_sheared_cell_carries_the_cells_normal_stress() {
    let (l, rate) = (BED.0 as f64, 10.0f64);
    let area = l * l;
    let target = 38e3 * area;
    // A lid off its target by the target moves at 2.5 cm/s: gain × bed stiffness × h ≈ 0.2.
    let mut w = bed_under(1, Some(Servo::new(target, 0.025 / target, 0.1)));
    w.run(2000).unwrap();
    let (mut virial, mut boundary, mut lid, mut shear, samples) = (0.0, 0.0, 0.0, 0.0, 100);
    for _ in 0..samples {
        w.run(10).unwrap();
        let gap = BED.1 as f64 - w.servo_state(1).unwrap().advance;
        let load = w.servo_state(1).unwrap().load;
        let stress = grain_stress(&w).unwrap();
        let (mut zz, mut xy) = (0.0, 0.0);
        for (i, s) in stress.iter().enumerate() {
            let r = w.radius(i) as f64;
            let volume = 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
            let (p, v, m) = (w.position(i), w.velocity(i), w.mass(i) as f64);
            let vx = v.x as f64 - rate * (p.y as f64 - l / 2.0);
            zz += volume * s[2][2] + m * (v.z as f64).powi(2);
            xy += volume * s[0][1] + m * vx * v.y as f64;
        }
        virial += zz / samples as f64;
        boundary += load * gap / samples as f64;
        lid += load / samples as f64;
        shear += xy / (area * gap) / samples as f64;
    }
    eprintln!(
        "V σ_zz {virial:.4e} against lid load × gap {boundary:.4e} N m; lid {lid:.1} N for {target:.1}; σ_xy {shear:.1} Pa"
    );
    assert!(
        (virial / boundary - 1.0).abs() < 0.02,
        "V σ_zz {virial} against F h {boundary}"
    );
    assert!(
        (lid / target - 1.0).abs() < 0.05,
        "lid {lid} N for {target}"
    );
    assert!(shear < 0.0, "σ_xy = {shear}: the bed must resist the shear");
}

#[test]
fn a_sheared_bed_is_bit_identical_on_1_and_2_threads() {
    let (mut one, mut two) = (bed(1), bed(2));
    one.run(300).unwrap();
    two.run(300).unwrap();
    let state = |w: &World| -> Vec<[u32; 6]> {
        (0..w.len())
            .map(|i| {
                let (p, v) = (w.position(i), w.velocity(i));
                [p.x, p.y, p.z, v.x, v.y, v.z].map(f32::to_bits)
            })
            .collect()
    };
    assert_eq!(state(&one), state(&two));
    // Grains have crossed the seam: the test covers the wrap.
    let moved = (0..one.len()).any(|i| one.velocity(i).x.abs() > 0.5);
    assert!(moved);
}

/// The error text of building a sheared world over [0, 1)² with `settings` changed by `edit`.
fn refused(edit: impl FnOnce(&mut Settings)) -> String {
    let mut s = sheared(Settings::default(), 1.0, 1.0, 1.0);
    edit(&mut s);
    let mut b = World::builder(s);
    b.material(Material::new(0.3));
    b.body(Body::sphere(Vec3::new(0.5, 0.5, 0.5), 0.05, 1.0));
    match b.build() {
        Ok(_) => panic!("the world must be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn what_a_sheared_cell_cannot_be_is_refused_by_name() {
    let e = refused(|s| s.periodic.y = None);
    assert!(
        e.contains("periodic.shear_rate") && e.contains("needs both x and y periodic"),
        "{e}"
    );
    let e = refused(|s| s.periodic.shear_rate = f32::NAN);
    assert!(e.contains("shear_rate must be finite"), "{e}");
    let e = refused(|s| {
        s.backend = Backend::Gpu;
        s.solver = s
            .solver
            .with_kind(grains::SolverKind::Jacobi)
            .with_tolerance(0.0)
            .with_omega(0.3);
    });
    assert!(
        e.contains("settings: periodic.shear_rate gives this world a sheared periodic cell (Lees–Edwards, shear_rate), which cannot be combined with the GPU backend"),
        "{e}"
    );
    let e = refused(|s| s.integrator = grains::Integrator::GeometricallyImplicit);
    assert!(
        e.contains("sheared periodic cell") && e.contains("geometrically implicit"),
        "{e}"
    );
    // Distributed runs refuse it (checked at `World::distribute`, feature mpi) by this row,
    // which names both sides.
    let row = limit(Feature::Distributed, Feature::PeriodicShear).expect("a row");
    let text = row.to_string();
    assert!(
        text.contains("sheared periodic cell") && text.contains("distributed run"),
        "{text}"
    );
    // Restitution: the impact stage does not take the images' velocity.
    let mut b = World::builder(sheared(Settings::default(), 1.0, 1.0, 1.0));
    b.material(Material::new(0.3).with_restitution(0.5));
    b.body(Body::sphere(Vec3::new(0.5, 0.5, 0.5), 0.05, 1.0));
    let e = b.build().map(|_| ()).unwrap_err().to_string();
    assert!(
        e.contains("sheared periodic cell") && e.contains("restitution"),
        "{e}"
    );
    // Without shear the ranges alone build as before.
    let mut b = World::builder(sheared(Settings::default(), 1.0, 1.0, 0.0));
    b.material(Material::new(0.3));
    b.body(Body::sphere(Vec3::new(0.5, 0.5, 0.5), 0.05, 1.0));
    assert!(b.build().is_ok());
}
