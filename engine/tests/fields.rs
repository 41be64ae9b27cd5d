//! Coarse-grained fields (`engine/src/fields.rs`) against the laws they must obey: a bed at rest
//! under gravity in a periodic cell carries σ_zz(z) = g ∫_z^∞ ρ dz' (the coarse-grained momentum
//! balance, exact whatever the kernel when every grain is in equilibrium), and the contact
//! stress integrated over a closed box at rest equals the walls' loads times their positions
//! plus the weight's first moment (the virial), as do the grains' Love–Weber stresses summed;
//! and the time average of samples holds the velocity's fluctuation from sample to sample in
//! its kinetic stress.

use grains::fields::{
    coarse_grain, grain_stress, FieldsAverage, FieldsError, Kernel, Sampling, Tensor,
};
use grains::{
    Body, BoxContainer, Material, Periodic, Settings, Vec3, WallDesc, World, WorldBuilder,
};

const G: f64 = 9.81;
/// Grain radius (m) and the lattice's spacing the grains are dropped from.
const R: f32 = 0.005;
const SPACING: f32 = 2.3 * R;

/// Drops `layers` layers of n × n grains from a lattice over [x0, x0 + n a)², radii 0.85–1.15 R
/// drawn from a fixed sequence, so that the bed they settle into is disordered.
fn drop_grains(b: &mut WorldBuilder, n: usize, layers: usize, x0: f32) {
    let mut random = grains_kernels::random::Lcg::new(12345);
    let mut unit = || random.unit();
    for k in 0..layers {
        for j in 0..n {
            for i in 0..n {
                let r = R * (0.85 + 0.3 * unit());
                let jitter = 0.05 * R * (unit() - 0.5);
                let at = |q: usize| x0 + (q as f32 + 0.5) * SPACING + jitter;
                let z = 1.2 * R + k as f32 * SPACING;
                let mass = 2500.0 * 4.0 / 3.0 * std::f32::consts::PI * r * r * r;
                b.body(Body::sphere(Vec3::new(at(i), at(j), z), r, mass));
            }
        }
    }
}

/// Settles the bed (1 s of 1 ms steps), then converges its last steps tightly, so that every
/// grain's contact forces balance its weight far below the checks' 1 %.
fn settle(mut world: World) -> World {
    world.run(1000).unwrap();
    let s = *world.settings();
    let tight = Settings {
        solver: s.solver.with_tolerance(1e-7).with_sweeps(3000),
        ..s
    };
    world.set_settings(tight).unwrap();
    world.run(20).unwrap();
    let fastest = (0..world.len())
        .map(|i| world.velocity(i).length())
        .fold(0.0f32, f32::max);
    assert!(
        fastest < 1e-2,
        "the bed is not at rest: a grain moves at {fastest} m/s"
    );
    world
}

fn top_of(world: &World) -> f32 {
    (0..world.len())
        .map(|i| world.position(i).z + world.radius(i))
        .fold(0.0, f32::max)
}

#[test]
fn a_bed_at_rest_carries_the_weight_above_each_height() {
    let n = 6;
    let l = n as f32 * SPACING;
    let mut b = World::builder(Settings {
        periodic: Periodic {
            x: Some((0.0, l)),
            y: Some((0.0, l)),
            ..Periodic::NONE
        },
        ..Settings::granular(0.001)
    });
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    drop_grains(&mut b, n, 8, 0.0);
    let world = settle(b.build().unwrap());
    let top = top_of(&world);
    let c = 4.0 * R;
    let total: f64 = (0..world.len()).map(|i| world.mass(i) as f64).sum();
    let weight = total * G / (l * l) as f64;
    for kernel in [
        Kernel::Lucy { cutoff: c },
        Kernel::Gaussian { width: c / 3.0 },
    ] {
        // From −c: the kernel spreads the lowest grains' mass below the floor too.
        let profile = |spacing: f32| Sampling::Profile {
            axis: 2,
            from: -c,
            spacing,
            count: ((top + 2.0 * c) / spacing).ceil() as usize + 1,
            area: l * l,
        };
        // The weight above z, from the density profile on a fine grid (trapezoids of c/100).
        let fine = coarse_grain(&world, &profile(c / 100.0), kernel).unwrap();
        let dz = (c / 100.0) as f64;
        let mut above = vec![0.0; fine.density.len()];
        for k in (0..fine.density.len() - 1).rev() {
            above[k] = above[k + 1] + 0.5 * dz * (fine.density[k] + fine.density[k + 1]) * G;
        }
        assert!(
            (above[0] - weight).abs() < 1e-3 * weight,
            "{kernel:?}: the density profile holds {} Pa of weight, the grains {weight} Pa",
            above[0]
        );
        let coarse = coarse_grain(&world, &profile(c / 4.0), kernel).unwrap();
        let mut checked = 0;
        for (k, p) in coarse.points.iter().enumerate() {
            // The coarse points are every 25th fine one.
            let Some(&expected) = above.get(k * 25) else {
                continue;
            };
            // Beyond the floor contacts' reach (their segments end at z = 0), and where the
            // weight above is a fifth of the bed's or more (near the surface it tends to zero).
            if p.z < c || expected < 0.2 * weight {
                continue;
            }
            let s = coarse.stress(k);
            // The lateral stresses lie between Rankine's active and passive limits for an
            // internal friction angle of 30° (a bed of μ = 0.5 spheres stays below it):
            // K_a = (1 − sin 30°)/(1 + sin 30°) = 1/3 ≤ σ_xx/σ_zz ≤ K_p = 3.
            for (a, name) in [(0, "xx"), (1, "yy")] {
                let k0 = s[a][a] / expected;
                assert!(
                    (1.0 / 3.0..=3.0).contains(&k0),
                    "{kernel:?}: σ_{name}/σ_zz = {k0} at z = {}",
                    p.z
                );
            }
            assert!(
                (s[2][2] - expected).abs() < 0.01 * expected,
                "{kernel:?}: σ_zz({}) = {} Pa where the weight above is {expected} Pa",
                p.z,
                s[2][2]
            );
            // At rest, with no side walls, the horizontal planes carry no shear (σ_xz = 0 at
            // the surface and ∂σ_xz/∂z = 0 below it; likewise σ_yz).
            for (a, e) in [(0, 2), (1, 2)] {
                assert!(
                    s[a][e].abs() < 0.01 * expected,
                    "{kernel:?}: σ_{a}{e}({}) = {} Pa where σ_zz = {expected} Pa",
                    p.z,
                    s[a][e]
                );
            }
            checked += 1;
        }
        assert!(
            checked >= 5,
            "{kernel:?}: only {checked} heights were checked"
        );
    }
    // A grid over one period: the grains near a seam spread their mass across it (through
    // their periodic images), so the density sums to the grains' mass.
    let nodes = 12;
    let grid = Sampling::Grid {
        origin: Vec3::new(0.0, 0.0, -c),
        spacing: Vec3::new(l / nodes as f32, l / nodes as f32, c / 4.0),
        count: [
            nodes,
            nodes,
            ((top + 2.0 * c) / (c / 4.0)).ceil() as usize + 1,
        ],
    };
    let fields = coarse_grain(&world, &grid, Kernel::Lucy { cutoff: c }).unwrap();
    let cell = (l as f64 / nodes as f64).powi(2) * (c / 4.0) as f64;
    let mass = fields.density.iter().sum::<f64>() * cell;
    assert!(
        (mass - total).abs() < 1e-3 * total,
        "{mass} kg of {total} on the periodic grid"
    );
}

/// The integral over all space of a field sampled on a grid of cell volume `cell`.
fn integral(field: &[Tensor], cell: f64) -> Tensor {
    let mut sum = [[0.0; 3]; 3];
    for t in field {
        for (row, r) in sum.iter_mut().zip(t) {
            for (x, y) in row.iter_mut().zip(r) {
                *x += y * cell;
            }
        }
    }
    sum
}

#[test]
fn the_contact_stress_of_a_box_at_rest_is_its_wall_loads_average() {
    let n = 6;
    let w = n as f32 * SPACING + R;
    let mut b = World::builder(Settings::granular(0.001));
    b.material(Material::new(0.5));
    // Frictionless walls: each carries a force along its normal only, at its plane.
    let smooth = b.material(Material::new(0.0));
    b.container(&BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: w,
        width_y: w,
        height: 0.2,
        material: smooth,
        motion: None,
    });
    drop_grains(&mut b, n, 8, -0.5 * w + 0.5 * R);
    let world = settle(b.build().unwrap());
    let top = top_of(&world);
    let c = 4.0 * R;
    let h = R;
    let origin = Vec3::new(-0.5 * w - c, -0.5 * w - c, -c);
    let count = |span: f32| (span / h).ceil() as usize + 1;
    let grid = Sampling::Grid {
        origin,
        spacing: Vec3::splat(h),
        count: [count(w + 2.0 * c), count(w + 2.0 * c), count(top + 2.0 * c)],
    };
    let fields = coarse_grain(&world, &grid, Kernel::Lucy { cutoff: c }).unwrap();
    let cell = (h as f64).powi(3);
    let volume_integral = integral(&fields.contact_stress, cell);
    // The virial: −Σ over the wall contacts of f ⊗ p (f the force on the grain, p the contact
    // point) − Σ m g ⊗ x. A frictionless wall normal to axis k at x_k pushes along k only:
    // Σ f_k p_k = f_k x_k, and its other moments Σ f_k p_β are its torque about the origin
    // (τ = −Σ p × f).
    let loads = world.wall_loads(Vec3::ZERO);
    let planes = [
        (2, 0.0),
        (0, -0.5 * w),
        (0, 0.5 * w),
        (1, -0.5 * w),
        (1, 0.5 * w),
    ];
    let mut expected = [[0.0; 3]; 3];
    for (load, (k, at)) in loads.iter().zip(planes) {
        let (f, tau) = (-load.force, load.torque);
        let moments = match k {
            0 => [f.x * at as f64, tau.z, -tau.y],
            1 => [-tau.z, f.y * at as f64, tau.x],
            _ => [tau.y, -tau.x, f.z * at as f64],
        };
        for (e, m) in expected[k].iter_mut().zip(moments) {
            *e -= m;
        }
    }
    for i in 0..world.len() {
        let weight = world.mass(i) as f64 * G;
        for (e, x) in expected[2].iter_mut().zip(world.position(i).to_array()) {
            *e += weight * x as f64;
        }
    }
    let love_weber = {
        let per_grain = grain_stress(&world).unwrap();
        let volumes: Vec<f64> = (0..world.len())
            .map(|i| 4.0 / 3.0 * std::f64::consts::PI * (world.radius(i) as f64).powi(3))
            .collect();
        let weighted: Vec<Tensor> = per_grain
            .iter()
            .zip(&volumes)
            .map(|(s, v)| s.map(|row| row.map(|x| x * v)))
            .collect();
        integral(&weighted, 1.0)
    };
    let scale = (0..3).fold(0.0f64, |m, k| m.max(expected[k][k].abs()));
    for (a, e) in (0..3).flat_map(|a| (0..3).map(move |e| (a, e))) {
        let (fields_ae, lw, want) = (volume_integral[a][e], love_weber[a][e], expected[a][e]);
        assert!(
            (fields_ae - want).abs() < 0.01 * want.abs().max(0.1 * scale),
            "component {a}{e}: ∫σᶜ dV = {fields_ae} N m, the walls and the weight give {want}"
        );
        assert!(
            (lw - want).abs() < 0.01 * want.abs().max(0.1 * scale),
            "component {a}{e}: Σ V σ (Love–Weber) = {lw} N m, the walls and the weight give {want}"
        );
    }
    // The side walls hold part of the bed's horizontal push: a static bed is not a fluid.
    let side = loads[2].force.x;
    assert!(side > 0.0, "the +x wall carries {side} N");
    let density_integral: f64 = fields.density.iter().sum::<f64>() * cell;
    let mass: f64 = (0..world.len()).map(|i| world.mass(i) as f64).sum();
    assert!(
        (density_integral - mass).abs() < 1e-3 * mass,
        "{density_integral} kg of {mass}"
    );
}

#[test]
fn bad_samplings_and_shapes_are_refused_naming_the_value() {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(Body::sphere(Vec3::new(0.0, 0.0, R), R, 0.001));
    let world = b.build().unwrap();
    let grid = Sampling::Grid {
        origin: Vec3::ZERO,
        spacing: Vec3::new(0.01, 0.0, 0.01),
        count: [2, 2, 2],
    };
    let e = coarse_grain(&world, &grid, Kernel::Lucy { cutoff: 0.02 }).unwrap_err();
    assert!(e.to_string().contains("spacing"), "{e}");
    let profile = |axis: usize| Sampling::Profile {
        axis,
        from: 0.0,
        spacing: 0.01,
        count: 3,
        area: 1.0,
    };
    let e = coarse_grain(&world, &profile(3), Kernel::Lucy { cutoff: 0.02 }).unwrap_err();
    assert!(e.to_string().contains("axis"), "{e}");
    let ok = profile(2);
    let e = coarse_grain(&world, &ok, Kernel::Gaussian { width: -1.0 }).unwrap_err();
    assert!(
        e.to_string().contains("Gaussian width") && e.to_string().contains("-1"),
        "{e}"
    );
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::ZERO, R, 0.001));
    b.body(Body::capsule(Vec3::new(0.1, 0.0, 0.0), R, R, 0.001));
    let world = b.build().unwrap();
    assert_eq!(grain_stress(&world), Err(FieldsError::NotSphere(1)));
    let fields = coarse_grain(&world, &ok, Kernel::Lucy { cutoff: 0.02 }).unwrap();
    assert!(fields.volume_fraction.is_none());
}

#[test]
fn a_time_average_counts_the_velocity_changing_between_samples_as_kinetic_stress() {
    // One grain at rest in space sampled twice, moving at v1 then at v2. Each sample's kinetic
    // stress is zero (the grain is the field's own velocity wherever it reaches); the average's
    // velocity is the mean (v1 + v2)/2 and its kinetic stress the fluctuation about it,
    // ρ/4 (v1 − v2) ⊗ (v1 − v2), at every point the grain reaches. Identical samples average
    // to themselves.
    let mut b = World::builder(Settings {
        gravity: Vec3::ZERO,
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::new(0.01, 0.0, 0.0), R, 0.002));
    let mut world = b.build().unwrap();
    let sampling = Sampling::Grid {
        origin: Vec3::splat(-0.01),
        spacing: Vec3::splat(0.004),
        count: [8, 6, 6],
    };
    let kernel = Kernel::Gaussian { width: 0.006 };
    let (v1, v2) = (Vec3::new(1.0, -2.0, 0.5), Vec3::new(-0.5, 1.0, 3.0));
    let mut average = FieldsAverage::default();
    assert!(average.mean().is_none());
    let mut samples = Vec::new();
    for v in [v1, v2] {
        world.set_velocity(0, v, Vec3::ZERO).unwrap();
        let f = coarse_grain(&world, &sampling, kernel).unwrap();
        average.add(&f).unwrap();
        samples.push(f);
    }
    let mean = average.mean().unwrap();
    let dv = (v1 - v2).as_dvec3().to_array();
    let mut reached = 0;
    for k in 0..sampling.len() {
        let rho = samples[0].density[k];
        assert_eq!(mean.density[k], rho);
        if rho < 1e-9 * samples[0].density.iter().cloned().fold(0.0, f64::max) {
            continue;
        }
        reached += 1;
        let want_v = (0.5 * (v1 + v2)).as_dvec3().to_array();
        for a in 0..3 {
            assert!(
                (mean.velocity[k][a] - want_v[a]).abs() < 1e-6,
                "{:?}",
                mean.velocity[k]
            );
            for c in 0..3 {
                let want = rho / 4.0 * dv[a] * dv[c];
                let got = mean.kinetic_stress[k][a][c];
                assert!(
                    (got - want).abs() < 1e-6 * rho * 25.0,
                    "point {k} [{a}][{c}]: {got} where {want}"
                );
                assert!(samples[0].kinetic_stress[k][a][c].abs() < 1e-6 * rho);
            }
        }
    }
    assert!(reached > 20, "the grain reaches {reached} points");
    // Three identical samples: their mean is the sample.
    let mut same = FieldsAverage::default();
    for _ in 0..3 {
        same.add(&samples[1]).unwrap();
    }
    let m = same.mean().unwrap();
    for k in 0..sampling.len() {
        assert!((m.density[k] - samples[1].density[k]).abs() <= 1e-12 * samples[1].density[k]);
        for a in 0..3 {
            for c in 0..3 {
                let want = samples[1].kinetic_stress[k][a][c];
                assert!((m.kinetic_stress[k][a][c] - want).abs() < 1e-9 * (1.0 + want.abs()));
            }
        }
    }
    // A sample of other points is refused.
    let other = Sampling::Grid {
        origin: Vec3::splat(-0.01),
        spacing: Vec3::splat(0.004),
        count: [8, 6, 5],
    };
    let f = coarse_grain(&world, &other, kernel).unwrap();
    assert!(matches!(average.add(&f), Err(FieldsError::Sampling(_))));
}

#[test]
fn the_fields_are_the_same_bits_for_any_thread_count() {
    // The workers split the sample points into slabs of about equal work, each spreading every
    // source over its own: each point's sums keep the source order, so the fields of a falling
    // bed in a box (grid and profile) are the same bits with 1, 2 and 3 workers.
    let fields = |threads: usize| {
        let mut b = World::builder(Settings {
            threads,
            ..Settings::granular(1e-3)
        });
        let material = b.material(Material::new(0.5));
        b.container(&BoxContainer {
            floor_centre: Vec3::ZERO,
            width_x: 0.06,
            width_y: 0.06,
            height: 0.2,
            material,
            motion: None,
        });
        drop_grains(&mut b, 5, 4, -0.028);
        let mut world = b.build().unwrap();
        world.run(150).unwrap();
        assert!(world.contacts().len() > 50, "the grains touch");
        let grid = Sampling::Grid {
            origin: Vec3::new(-0.04, -0.04, -0.01),
            spacing: Vec3::splat(0.005),
            count: [17, 17, 13],
        };
        let profile = Sampling::Profile {
            axis: 2,
            from: -0.01,
            spacing: 0.002,
            count: 40,
            area: 0.0036,
        };
        let kernel = Kernel::Lucy { cutoff: 0.012 };
        [grid, profile].map(|s| coarse_grain(&world, &s, kernel).unwrap())
    };
    let one = fields(1);
    for threads in [2, 3] {
        let many = fields(threads);
        for (a, b) in one.iter().zip(&many) {
            assert_eq!(a.density, b.density, "{threads} threads");
            assert_eq!(a.velocity, b.velocity, "{threads} threads");
            assert_eq!(a.kinetic_stress, b.kinetic_stress, "{threads} threads");
            assert_eq!(a.contact_stress, b.contact_stress, "{threads} threads");
            assert_eq!(a.fabric, b.fabric, "{threads} threads");
            assert_eq!(a.volume_fraction, b.volume_fraction, "{threads} threads");
        }
    }
}
