//! Small worlds the checkpoint tests take snapshots of: spheres only, spheres in a box,
//! spheres with spinning and rolling friction on a floor, and a jointed chain with a spring; the
//! GPU's settings for the refusal tests; and the touching pair the bond tests bond.

use grains::decomposition::Bisection;
use grains::WorldBuilder;
use grains::{
    Backend, Body, BoxContainer, JointDesc, Material, MaterialId, Prescribed, Settings, Snapshot,
    Solver, SpringDesc, Vec3, WallDesc, World,
};

/// `s` on the GPU backend with the solve it takes (Jacobi, 30 sweeps, tolerance 0, ω = 0.3): the
/// settings of a refusal test that the GPU must meet before any other of its limits.
pub fn on_the_gpu(s: Settings) -> Settings {
    Settings {
        backend: Backend::Gpu,
        solver: Solver::Jacobi {
            sweeps: 30,
            tolerance: 0.0,
            omega: 0.3,
        },
        ..s
    }
}

/// The scenes' names, in the order [`world`] takes them.
pub const SCENES: [&str; 4] = ["spheres", "walls", "moments", "joints"];

/// Scene `k` of [`SCENES`], built with `settings` (h, threads, …) and not yet stepped.
pub fn world_with(k: usize, settings: Settings) -> World {
    let mut b = World::builder(settings);
    match SCENES[k] {
        "spheres" => {
            b.material(Material::new(0.4));
            b.body(Body::sphere(Vec3::ZERO, 0.5, 1.0).fixed());
            for i in 0..6 {
                let x = 0.11 * i as f32 - 0.3;
                b.body(Body::sphere(Vec3::new(x, 0.01 * i as f32, 0.56), 0.05, 0.1));
            }
        }
        "walls" => {
            b.material(Material::new(0.5));
            let shaker = Prescribed::vertical_shake(0.002, 5.0);
            b.container(&BoxContainer {
                floor_centre: Vec3::ZERO,
                width_x: 0.2,
                width_y: 0.2,
                height: 0.3,
                material: MaterialId(0),
                motion: Some(shaker),
            });
            for i in 0..12 {
                let (x, y, z) = ((i % 3) as f32, (i / 3 % 2) as f32, (i / 6) as f32);
                let p = Vec3::new(0.05 * x - 0.05, 0.05 * y - 0.025, 0.03 + 0.05 * z);
                b.body(Body::sphere(p, 0.02, 0.05));
            }
        }
        "moments" => {
            b.material(Material::new(0.6).with_spinning(0.01).with_rolling(0.005));
            b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
            for i in 0..5 {
                let p = Vec3::new(0.12 * i as f32, 0.0, 0.05);
                let v = Vec3::new(0.5, 0.1 * i as f32, 0.0);
                b.body(
                    Body::sphere(p, 0.05, 0.2)
                        .with_velocity(v)
                        .with_angular_velocity(Vec3::new(0.0, 3.0, 2.0)),
                );
            }
        }
        "joints" => {
            b.material(Material::new(0.3));
            b.wall(WallDesc::plane(Vec3::new(0.0, 0.0, -1.0), Vec3::Z));
            let top = b.body(Body::sphere(Vec3::new(0.0, 0.0, 1.0), 0.05, 1.0).fixed());
            let mut last = top;
            for i in 1..5 {
                let p = Vec3::new(0.1 * i as f32, 0.0, 1.0);
                let link = b.body(Body::sphere(p, 0.04, 0.1));
                b.joint(JointDesc::ball(
                    last,
                    Some(link),
                    p - Vec3::new(0.05, 0.0, 0.0),
                ));
                last = link;
            }
            let free = b.body(Body::sphere(Vec3::new(0.5, 0.0, 0.6), 0.04, 0.1));
            b.spring(
                SpringDesc::new(
                    last,
                    Some(free),
                    Vec3::new(0.4, 0.0, 1.0),
                    Vec3::new(0.5, 0.0, 0.6),
                )
                .with_stiffness(50.0)
                .with_damping(0.5),
            );
        }
        _ => unreachable!(),
    }
    b.build().unwrap()
}

/// Scene `k` with the default settings.
pub fn world(k: usize) -> World {
    world_with(k, Settings::default())
}

/// `snap` with the cuts of its bodies among `ranks` ranks, as a distributed run on them would
/// carry (a world that steps every body itself ignores them).
pub fn with_cuts(snap: Snapshot, ranks: usize) -> Snapshot {
    let centres: Vec<Vec3> = snap
        .bodies
        .pos_radius
        .iter()
        .map(|p| p.truncate())
        .collect();
    let cuts = Bisection::new(&centres, &snap.ids, ranks);
    Snapshot {
        cuts: Some(cuts),
        ..snap
    }
}

/// Scene `k` stepped `steps` steps (so that it has contacts to warm-start from) and its
/// checkpoint bytes, with `extra` stored alongside.
pub fn checkpoint(k: usize, steps: u64, extra: &[u8]) -> (World, Vec<u8>) {
    let mut w = world(k);
    w.run(steps).unwrap();
    let mut snap = w.snapshot().unwrap();
    snap.extra = extra.to_vec();
    (w, snap.to_bytes())
}

/// Two spheres (r = 5 mm, 10 g) touching along x, the first fixed at the origin, without
/// gravity, h = 1 ms, μ = 0.5: the builder, for a bond at their contact point (r, 0, 0).
pub fn touching_pair(r: f32) -> WorldBuilder {
    let mut b = World::builder(Settings {
        gravity: Vec3::ZERO,
        h: 1e-3,
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.body(Body::sphere(Vec3::ZERO, r, 0.01).fixed());
    b.body(Body::sphere(Vec3::new(2.0 * r, 0.0, 0.0), r, 0.01));
    b
}
