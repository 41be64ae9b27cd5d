//! Periodic boundaries along x and y: contacts across the seam found once each, momentum
//! conserved through collisions across it, a grain leaving one side re-entering the other, a
//! periodic bed's floor carrying its weight, bit-identical results for any thread count and
//! across a checkpoint, and clear refusals of what a periodic world cannot hold.

use grains::glam::DVec3;
use grains::{
    Backend, Body, BuildError, Envelope, JointDesc, Material, Periodic, Settings, Touching, Vec3,
    WallDesc, World,
};
use std::collections::HashSet;

const G: f32 = 9.81;

/// A world periodic along x and y over [0, lx) × [0, ly) with `settings` otherwise.
fn periodic(settings: Settings, lx: f32, ly: f32) -> Settings {
    Settings {
        periodic: Periodic {
            x: Some((0.0, lx)),
            y: Some((0.0, ly)),
            ..Periodic::NONE
        },
        ..settings
    }
}

/// Rigid contact, Gauss–Seidel converged to 1e-9 m/s: statics far below the 0.1 % asked.
fn tight() -> Settings {
    let s = Settings::default();
    Settings {
        solver: s.solver.with_tolerance(1e-9).with_sweeps(2000),
        ..s
    }
}

/// True when the straight separation of bodies a and b spans more than half the period along
/// x or y: their contact can only be across a seam.
fn across_seam(w: &World, a: usize, b: usize, l: f32) -> bool {
    let d = (w.position(a) - w.position(b)).abs();
    d.x > 0.5 * l || d.y > 0.5 * l
}

#[test]
fn a_grid_of_touching_grains_spanning_the_period_has_every_contact_once() {
    // n × n grains of radius r, centres 2r apart on a floor, filling the period L = 2 r n
    // exactly: each grain touches its 4 neighbours along x and y (the diagonal ones are
    // 2(√2 − 1) r = 0.83 r apart, far beyond ε̂ = 0.01 r), so there are 2 n² pairs, 2 n of them
    // across the seams, and n² floor contacts.
    let (n, r) = (7usize, 0.05f32);
    let l = 2.0 * r * n as f32;
    let mut b = World::builder(periodic(
        Settings {
            envelope: Some(Envelope::Fixed(0.01 * r)),
            ..tight()
        },
        l,
        l,
    ));
    b.material(Material::new(0.3));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for i in 0..n {
        for j in 0..n {
            let p = Vec3::new(r + 2.0 * r * i as f32, r + 2.0 * r * j as f32, r);
            b.body(Body::sphere(p, r, 1.0));
        }
    }
    let mut w = b.build().unwrap();
    w.step().unwrap();
    let mut pairs = HashSet::new();
    let (mut floor, mut seam) = (0, 0);
    for c in w.contacts() {
        match c.touching {
            Touching::Bodies { a, b } => {
                assert!(pairs.insert((a, b)), "pair ({a}, {b}) found twice");
                let (ia, ja) = (a / n, a % n);
                let (ib, jb) = (b / n, b % n);
                let step = |p: usize, q: usize| (p + n - q) % n;
                let neighbours = (ia == ib && (step(ja, jb) == 1 || step(jb, ja) == 1))
                    || (ja == jb && (step(ia, ib) == 1 || step(ib, ia) == 1));
                assert!(neighbours, "({a}, {b}) are not lattice neighbours");
                assert!(c.gap.abs() < 1e-5 * r, "gap {} of ({a}, {b})", c.gap);
                if across_seam(&w, a, b, l) {
                    seam += 1;
                    // The minimum image: the normal points along ±x or ±y, not across the box.
                    assert!(
                        c.normal.x.abs().max(c.normal.y.abs()) > 0.999_99,
                        "{}",
                        c.normal
                    );
                }
            }
            Touching::Wall { wall, .. } => {
                assert_eq!(wall, 0, "the floor is the only wall");
                floor += 1;
            }
            Touching::Mesh { .. } => panic!("no mesh in this world"),
        }
    }
    assert_eq!(pairs.len(), 2 * n * n);
    assert_eq!(seam, 2 * n);
    assert_eq!(floor, n * n);
}

/// A weightless cloud of 1,200 spheres, periodic over a 1 m square in x and y and unbounded in
/// z, dense enough that they collide, many across the seams.
fn cloud(threads: usize) -> World {
    let mut b = World::builder(periodic(
        Settings {
            gravity: Vec3::ZERO,
            threads,
            ..Settings::default()
        },
        1.0,
        1.0,
    ));
    b.material(Material::new(0.3));
    let mut k = 12345u32;
    let mut next = || {
        k = k.wrapping_mul(1664525).wrapping_add(1013904223);
        (k >> 8) as f32 / (1u32 << 24) as f32
    };
    for i in 0..12 {
        for j in 0..12 {
            for l in 0..8 {
                let p = Vec3::new(i as f32 / 12.0, j as f32 / 12.0, l as f32 / 12.0);
                let v = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 2.0;
                b.body(Body::sphere(p, 0.03 + 0.005 * next(), 1.0 + next()).with_velocity(v));
            }
        }
    }
    b.build().unwrap()
}

#[test]
fn collisions_across_the_seams_conserve_x_and_y_momentum() {
    let mut w = cloud(2);
    let p0 = w.momentum();
    let (mut contacts, mut seam) = (0, 0);
    for _ in 0..300 {
        contacts += w.step().unwrap().contacts;
        seam += w
            .contacts()
            .filter(|c| match c.touching {
                Touching::Bodies { a, b } => across_seam(&w, a, b, 1.0),
                Touching::Wall { .. } | Touching::Mesh { .. } => false,
            })
            .count();
    }
    assert!(
        contacts > 1000,
        "the cloud must collide: {contacts} contacts"
    );
    assert!(
        seam > 50,
        "it must collide across the seams: {seam} contacts"
    );
    let p1 = w.momentum();
    // Each contact adds equal and opposite impulses; what is left is f32 rounding of the
    // velocity updates (about 1e-7 of each), summed over the bodies: 1e-6 of Σ m|v| bounds it.
    let scale: f64 = (0..w.len())
        .map(|i| w.mass(i) as f64 * w.velocity(i).length() as f64)
        .sum();
    for k in 0..2 {
        assert!(
            (p1[k] - p0[k]).abs() <= 1e-6 * scale,
            "axis {k}: {} → {} (scale {scale})",
            p0[k],
            p1[k]
        );
    }
    for i in 0..w.len() {
        let p = w.position(i);
        assert!(
            (0.0..1.0).contains(&p.x) && (0.0..1.0).contains(&p.y),
            "{p}"
        );
    }
}

/// Every body's centre, orientation and motion, as bits.
fn state(w: &World) -> Vec<u8> {
    let b = w.bodies();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(bytemuck::cast_slice(&b.pos_radius));
    bytes.extend_from_slice(bytemuck::cast_slice(&b.orientation));
    bytes.extend_from_slice(bytemuck::cast_slice(&b.motion));
    bytes
}

#[test]
fn a_periodic_cloud_is_bit_identical_on_1_and_2_threads() {
    let (mut one, mut two) = (cloud(1), cloud(2));
    one.run(150).unwrap();
    two.run(150).unwrap();
    assert_eq!(state(&one), state(&two));
}

#[test]
fn a_grain_leaving_one_side_re_enters_the_other_with_its_velocity() {
    let (lo, hi) = (-0.5f32, 0.7f32);
    let settings = Settings {
        gravity: Vec3::ZERO,
        periodic: Periodic {
            x: Some((lo, hi)),
            y: Some((lo, hi)),
            ..Periodic::NONE
        },
        ..Settings::default()
    };
    let v = Vec3::new(1.0, -0.5, 0.25);
    let start = Vec3::new(hi - 0.0045, lo + 0.0012, 0.3);
    let mut b = World::builder(settings);
    b.material(Material::new(0.3));
    b.body(Body::sphere(start, 0.05, 1.0).with_velocity(v));
    let mut w = b.build().unwrap();
    let steps = 10;
    w.run(steps).unwrap();
    let moved = start + v * (steps as f32 * 1e-3);
    // It left through x = hi and y = lo: one period back along x, one forward along y.
    let expected = moved - Vec3::new(hi - lo, lo - hi, 0.0);
    let p = w.position(0);
    assert!((lo..hi).contains(&p.x) && (lo..hi).contains(&p.y), "{p}");
    assert!((p - expected).length() < 1e-5, "{p} expected {expected}");
    assert_eq!(w.velocity(0), v, "the velocity must come through unchanged");
}

#[test]
fn a_settled_periodic_bed_loads_the_floor_with_its_weight() {
    // Two layers on a floor, periodic over n × n cells of 2.2 r: the lower layer on the floor
    // with gaps between grains, the upper one in its hollows, half of those across the seams,
    // so the load goes through contacts across the seams. At rest the floor carries the weight
    // of all (the solve is converged to 1e-9 m/s, far below 0.1 %).
    let (n, r, m) = (6usize, 0.05f32, 0.2f32);
    let a = 2.2 * r;
    let l = a * n as f32;
    let mut b = World::builder(periodic(tight(), l, l));
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    let rise = (4.0 * r * r - 2.0 * (0.5 * a) * (0.5 * a)).sqrt();
    for layer in 0..2 {
        for i in 0..n {
            for j in 0..n {
                let shift = 0.5 * a * layer as f32;
                let x = (0.5 * a + a * i as f32 + shift) % l;
                let y = (0.5 * a + a * j as f32 + shift) % l;
                let z = r + layer as f32 * (rise + 0.01 * r);
                b.body(Body::sphere(Vec3::new(x, y, z), r, m));
            }
        }
    }
    let mut w = b.build().unwrap();
    w.run(400).unwrap();
    let weight = (2 * n * n) as f64 * (m * G) as f64;
    let floor = w.wall_loads(Vec3::ZERO)[0];
    assert!(
        (floor.force - DVec3::new(0.0, 0.0, -weight)).length() <= 1e-3 * weight,
        "floor force {} for a weight of {weight} N",
        floor.force
    );
    let seam = w
        .contacts()
        .filter(|c| match c.touching {
            Touching::Bodies { a, b } => across_seam(&w, a, b, l),
            Touching::Wall { .. } | Touching::Mesh { .. } => false,
        })
        .count();
    assert!(
        seam > 0,
        "the upper layer must rest on grains across the seams"
    );
}

/// Twenty grains dropping onto a floor while sliding towards the seam at x = 1, with rolling
/// resistance (so the checkpoint carries moment rows too).
fn crossing(threads: usize) -> World {
    let mut b = World::builder(periodic(
        Settings {
            threads,
            ..Settings::default()
        },
        1.0,
        1.0,
    ));
    b.material(Material::new(0.4).with_rolling(0.002));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for i in 0..20 {
        let p = Vec3::new(0.6 + 0.02 * i as f32, (0.09 * i as f32) % 0.99, 0.05);
        b.body(Body::sphere(p, 0.04, 0.1).with_velocity(Vec3::new(2.0, 0.3, 0.0)));
    }
    b.build().unwrap()
}

#[test]
fn a_checkpoint_resumes_bit_identically_across_a_seam_crossing() {
    let mut w = crossing(1);
    w.run(20).unwrap();
    let snap = w.snapshot().unwrap();
    let bytes = snap.to_bytes();
    let before: Vec<f32> = (0..w.len()).map(|i| w.position(i).x).collect();
    w.run(60).unwrap();
    let wrapped = (0..w.len())
        .filter(|&i| w.position(i).x < before[i])
        .count();
    assert!(
        wrapped > 0,
        "some grain must cross x = 1 after the checkpoint"
    );
    let mut resumed = crossing(2);
    resumed
        .restore(&grains::Snapshot::from_bytes(&bytes).unwrap())
        .unwrap();
    resumed.run(60).unwrap();
    assert_eq!(state(&resumed), state(&w));
}

#[test]
fn a_checkpoint_of_a_world_with_other_periodic_ranges_is_refused() {
    let mut w = crossing(1);
    w.run(5).unwrap();
    let snap = w.snapshot().unwrap();
    let mut b = World::builder(Settings {
        periodic: Periodic {
            x: Some((0.0, 1.0)),
            y: Some((0.0, 1.5)),
            ..Periodic::NONE
        },
        ..Settings::default()
    });
    b.material(Material::new(0.4).with_rolling(0.002));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    for i in 0..20 {
        let p = Vec3::new(0.6 + 0.02 * i as f32, (0.09 * i as f32) % 0.99, 0.05);
        b.body(Body::sphere(p, 0.04, 0.1));
    }
    let mut other = b.build().unwrap();
    let e = other.restore(&snap).unwrap_err().to_string();
    assert!(e.contains("periodic"), "{e}");
}

/// The error of building a periodic world over [0, 1)² with `body`, `wall` and `settings`.
fn refusal(settings: Settings, body: Body, wall: Option<WallDesc>, joint: bool) -> BuildError {
    let mut b = World::builder(Settings {
        periodic: Periodic {
            x: Some((0.0, 1.0)),
            y: Some((0.0, 1.0)),
            ..Periodic::NONE
        },
        ..settings
    });
    b.material(Material::new(0.3));
    let first = b.body(body);
    let second = b.body(Body::sphere(Vec3::new(0.5, 0.5, 0.5), 0.05, 1.0));
    if let Some(w) = wall {
        b.wall(w);
    }
    if joint {
        b.joint(JointDesc::ball(
            first,
            Some(second),
            Vec3::new(0.4, 0.5, 0.5),
        ));
    }
    match b.build() {
        Ok(_) => panic!("the world must be refused"),
        Err(e) => e,
    }
}

#[test]
fn what_a_periodic_world_cannot_hold_is_refused_by_name() {
    let ok = Body::sphere(Vec3::new(0.2, 0.2, 0.2), 0.05, 1.0);
    let cases: Vec<(BuildError, &str)> = vec![
        (
            refusal(
                Settings::default(),
                Body::sphere(Vec3::new(1.0, 0.2, 0.2), 0.05, 1.0),
                None,
                false,
            ),
            "body 0: position x = 1 lies outside the periodic range [0, 1)",
        ),
        (
            refusal(
                Settings::default(),
                Body::sphere(Vec3::new(0.2, 0.2, 0.2), 0.3, 1.0),
                None,
                false,
            ),
            "under twice the largest pair reach",
        ),
        (
            refusal(
                Settings::default(),
                ok,
                Some(WallDesc::plane(Vec3::ZERO, Vec3::X)),
                false,
            ),
            "wall 0: normal",
        ),
        (
            refusal(
                Settings::default(),
                ok,
                Some(WallDesc {
                    half_u: 0.4,
                    half_v: 0.4,
                    ..WallDesc::plane(Vec3::ZERO, Vec3::Z)
                }),
                false,
            ),
            "wall 0: extent is bounded along the periodic axis",
        ),
        (
            refusal(
                Settings::default(),
                Body::capsule(Vec3::new(0.2, 0.2, 0.2), 0.05, 0.05, 1.0),
                None,
                false,
            ),
            "body 0: shape gives this world shapes other than spheres, which cannot be combined with periodic boundaries",
        ),
        (
            refusal(Settings::default(), ok, None, true),
            "joint 0: bodies gives this world joints, which cannot be combined with periodic boundaries",
        ),
        (
            refusal(
                Settings {
                    backend: Backend::Gpu,
                    solver: Settings::default()
                        .solver
                        .with_kind(grains::SolverKind::Jacobi)
                        .with_tolerance(0.0)
                        .with_omega(0.3),
                    ..Settings::default()
                },
                ok,
                None,
                false,
            ),
            "settings: periodic gives this world periodic boundaries, which cannot be combined with the GPU backend",
        ),
    ];
    for (e, words) in cases {
        assert!(e.to_string().contains(words), "{e} (expected “{words}”)");
    }
    for (lo, hi) in [(1.0, 1.0), (0.0, f32::NAN), (2.0, -1.0)] {
        let settings = Settings {
            periodic: Periodic {
                x: None,
                y: Some((lo, hi)),
                ..Periodic::NONE
            },
            ..Settings::default()
        };
        let e = settings.check().unwrap_err().to_string();
        assert!(
            e.contains("settings: periodic range along y must be finite with hi > lo"),
            "{e}"
        );
    }
}
