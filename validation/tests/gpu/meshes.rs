//! Triangle-mesh walls on the GPU against the CPU's Jacobi, the two pipelines stepped directly:
//! spheres resting and rolling on a tilted triangulated plane (crossing its shared edges and
//! vertices), and a turning triangulated paddle in a bed.

use super::pipelines::{bed, gpu, lockstep_with_meshes, push, StepInputs};
use super::{compare_worlds, gpu_world};
use glam::{Quat, Vec3};
use grains::{Backend, Body, BuildError, Material, MeshDesc, Settings, Solver, World};
use grains_kernels::mesh::{MeshMotion, MeshWalls, Triangle, TriangleGrid};
use grains_kernels::{wall_key, Bodies, CpuPipeline};

/// The rectangle `corner + s u + t v` (s, t in [0, 1]) cut into `nu` × `nv` squares of two
/// triangles each, sharing their edges and vertices.
fn sheet(corner: Vec3, u: Vec3, v: Vec3, nu: usize, nv: usize) -> Vec<[Vec3; 3]> {
    let at = |i: usize, j: usize| corner + u * (i as f32 / nu as f32) + v * (j as f32 / nv as f32);
    (0..nu)
        .flat_map(|i| (0..nv).map(move |j| (i, j)))
        .flat_map(|(i, j)| {
            [
                [at(i, j), at(i + 1, j), at(i + 1, j + 1)],
                [at(i, j), at(i + 1, j + 1), at(i, j + 1)],
            ]
        })
        .collect()
}

/// One mesh of `triangles` moving with `motion` (fastest point `max_speed`), after
/// `first_wall` flat walls, with the grid the engine would build (cells of a grain diameter).
fn mesh_walls(
    triangles: &[[Vec3; 3]],
    motion: MeshMotion,
    max_speed: f32,
    first_wall: usize,
) -> MeshWalls {
    let triangles: Vec<Triangle> = triangles.iter().map(|&t| Triangle::new(t, 0, 0)).collect();
    MeshWalls {
        grid: TriangleGrid::build(&triangles, 0.2),
        triangles,
        motions: vec![motion],
        first_wall: first_wall as u32,
        max_speed,
    }
}

/// The tilted plane, a 1.2 m square cut into 6 × 6 squares falling 20° along x through
/// (0, 0, 0.4), and its upward normal.
fn tilted_plane() -> (Vec<[Vec3; 3]>, Vec3) {
    let (s, c) = 20f32.to_radians().sin_cos();
    let down = Vec3::new(c, 0.0, -s);
    let corner = Vec3::new(-0.6, -0.6, 0.4) - 0.6 * (down - Vec3::X);
    let tris = sheet(corner, 1.2 * down, 1.2 * Vec3::Y, 6, 6);
    (tris, down.cross(Vec3::Y))
}

/// Spheres of radius 0.05 resting on the tilted plane (a gap of 1 mm) over its vertices and
/// the middles of its edges, some of them pushed along the slope or across it.
fn spheres_on_plane(down: Vec3, normal: Vec3) -> Bodies {
    let mut b = Bodies::default();
    let origin = Vec3::new(0.0, 0.0, 0.4);
    for i in 0..4 {
        for j in 0..4 {
            let along = -0.4 + 0.2 * i as f32 + if j % 2 == 1 { 0.1 } else { 0.0 };
            let across = -0.3 + 0.2 * j as f32;
            let p = origin + along * down + across * Vec3::Y + 0.051 * normal;
            let v = 0.5 * (i as f32 - 1.5) * down + 0.3 * (j as f32 - 1.5) * Vec3::Y;
            push(&mut b, p, 0.05, v);
        }
    }
    b
}

/// The bed's walls and settings with the spheres on the tilted plane.
fn plane_scene() -> (StepInputs, MeshWalls) {
    let (tris, normal) = tilted_plane();
    let down = Vec3::new(20f32.to_radians().cos(), 0.0, -20f32.to_radians().sin());
    let mut s = bed(0, false);
    s.bodies = spheres_on_plane(down, normal);
    let mesh = mesh_walls(&tris, MeshMotion::default(), 0.0, s.walls.len());
    (s, mesh)
}

/// Spheres resting and rolling on a fixed tilted mesh cross its shared edges and vertices:
/// the GPU finds the same contacts (the same triangles keyed) as the CPU at every step and
/// moves the spheres alike within lockstep's tolerances.
#[test]
fn spheres_roll_on_a_tilted_mesh_like_cpu_jacobi() {
    let (s, mesh) = plane_scene();
    let most = lockstep_with_meshes(&s, "spheres on a tilted mesh", 150, |_| mesh.clone());
    // Every sphere touches the plane, so mesh contacts were compared.
    assert!(
        most.is_none_or(|(_, m)| m >= 16),
        "{most:?} contacts, mesh contacts"
    );
}

/// A paddle of 16 triangles (a 1 m × 0.4 m plate, standing on the floor) turning about the
/// vertical axis at 3 rad/s through a bed of 200 spheres, placed for each step as the engine
/// places a rotating mesh: the GPU agrees with the CPU step by step.
#[test]
fn turning_mesh_paddle_in_a_bed_steps_like_cpu_jacobi() {
    let mut s = bed(200, false);
    let (omega, h) = (3.0f32, s.params.h);
    let plate = sheet(Vec3::new(-0.5, 0.0, 0.01), Vec3::X, 0.4 * Vec3::Z, 4, 2);
    let first_wall = s.walls.len();
    // The spheres the plate would cut at the start are moved out of its way, above the bed.
    for k in 0..s.bodies.len() {
        let p = s.bodies.pos_radius[k];
        if p.y.abs() < p.w + 0.01 {
            s.bodies.pos_radius[k].z += 1.0;
        }
    }
    let motion = MeshMotion {
        angular: [0.0, 0.0, omega, 0.0],
        ..MeshMotion::default()
    };
    let placed = |step: usize| {
        let turn = Quat::from_rotation_z(omega * h * (step - 1) as f32);
        let tris: Vec<[Vec3; 3]> = plate.iter().map(|t| t.map(|v| turn * v)).collect();
        mesh_walls(&tris, motion, omega * 0.65, first_wall)
    };
    let most = lockstep_with_meshes(&s, "a turning mesh paddle in a bed", 150, placed);
    // The bed settles on the floor and the paddle sweeps through it.
    assert!(
        most.is_none_or(|(all, m)| all > 200 && m >= 10),
        "{most:?} contacts, mesh contacts"
    );
}

/// A sphere resting over a shared edge and one over a vertex shared by six triangles of the
/// tilted plane have one mesh contact each on the GPU, the same as on the CPU.
#[test]
fn one_gpu_contact_on_a_shared_edge_or_vertex() {
    let Some(mut gpu) = gpu() else { return };
    let (mut s, mesh) = plane_scene();
    let (_, normal) = tilted_plane();
    let down = Vec3::new(20f32.to_radians().cos(), 0.0, -20f32.to_radians().sin());
    s.bodies = Bodies::default();
    let origin = Vec3::new(0.0, 0.0, 0.4);
    // Over the vertex at the plane's centre and over the middle of a diagonal edge.
    push(&mut s.bodies, origin + 0.049 * normal, 0.05, Vec3::ZERO);
    let edge = origin + 0.1 * down + 0.1 * Vec3::Y;
    push(&mut s.bodies, edge + 0.049 * normal, 0.05, Vec3::ZERO);
    gpu.set_meshes(&mesh).unwrap();
    let mut bodies = s.bodies.clone();
    gpu.step(&mut bodies, &s.walls, &[], &s.friction, &s.params, true)
        .unwrap();
    let (gpu_keys, _, _, _) = gpu.contacts().unwrap();
    let mut cpu = CpuPipeline::new(2).unwrap();
    let mut bodies = s.bodies.clone();
    cpu.step(&mut bodies, &s.walls, &mesh, &[], &s.friction, &s.params)
        .unwrap();
    for (backend, keys) in [("GPU", &gpu_keys), ("CPU", &cpu.contacts().keys)] {
        for body in 0..2u32 {
            let on_mesh: Vec<u64> = (0..mesh.triangles.len() as u32)
                .map(|t| wall_key(body, mesh.wall_of(t)))
                .filter(|k| keys.contains(k))
                .collect();
            assert_eq!(
                on_mesh.len(),
                1,
                "{backend}, sphere {body}: mesh contacts {on_mesh:?}"
            );
        }
    }
    assert_eq!(
        gpu_keys,
        cpu.contacts().keys,
        "the same triangles keep the contacts"
    );
}

/// A world of 24 spheres on a fixed triangulated floor with a triangulated paddle turning
/// about the vertical axis at 3 rad/s, on `backend` (projected Jacobi, 30 sweeps, ω = 0.3).
fn paddle_world(backend: Backend) -> Result<World, BuildError> {
    let mut b = World::builder(Settings {
        backend,
        solver: Solver::Jacobi {
            sweeps: 30,
            tolerance: 0.0,
            omega: 0.3,
        },
        sync_every: 1,
        threads: 2,
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.mesh(MeshDesc::new(sheet(
        Vec3::new(-0.6, -0.6, 0.0),
        1.2 * Vec3::X,
        1.2 * Vec3::Y,
        6,
        6,
    )));
    let plate = sheet(Vec3::new(-0.5, 0.0, 0.01), Vec3::X, 0.3 * Vec3::Z, 4, 2);
    b.mesh(MeshDesc::new(plate).rotating(Vec3::ZERO, Vec3::Z, 3.0));
    for i in 0..6 {
        for j in 0..4 {
            let y = [-0.3, -0.12, 0.12, 0.3][j];
            b.body(Body::sphere(
                Vec3::new(-0.45 + 0.18 * i as f32, y, 0.06 + 0.02 * j as f32),
                0.05,
                1.0,
            ));
        }
    }
    b.build()
}

/// Through `World`: the GPU builds a world with mesh walls (no longer refused), and steps it
/// like the CPU, the CPU set to the GPU's state (snapshot and warm start) before each step.
#[test]
fn a_world_with_mesh_walls_steps_like_cpu_jacobi() {
    let Some(gpu) = gpu_world(paddle_world(Backend::Gpu)) else {
        return;
    };
    let cpu = paddle_world(Backend::Cpu).unwrap();
    compare_worlds(gpu, cpu, "spheres, a mesh floor and a turning mesh paddle");
}

/// A sphere over the centre of a fan of 24 triangles has more candidate triangles than a GPU
/// thread holds (16): the step fails with an overflow naming them, never drops contacts.
#[test]
fn too_many_triangles_near_a_sphere_are_an_overflow() {
    let Some(mut gpu) = gpu() else { return };
    let mut s = bed(0, false);
    let corner = |k: usize| {
        let t = std::f32::consts::TAU * k as f32 / 24.0;
        Vec3::new(0.3 * t.cos(), 0.3 * t.sin(), 0.4)
    };
    let fan: Vec<[Vec3; 3]> = (0..24)
        .map(|k| [Vec3::new(0.0, 0.0, 0.4), corner(k), corner(k + 1)])
        .collect();
    let mesh = mesh_walls(&fan, MeshMotion::default(), 0.0, s.walls.len());
    push(&mut s.bodies, Vec3::new(0.0, 0.0, 0.449), 0.05, Vec3::ZERO);
    gpu.set_meshes(&mesh).unwrap();
    let mut bodies = s.bodies.clone();
    let e = gpu
        .step(&mut bodies, &s.walls, &[], &s.friction, &s.params, true)
        .expect_err("24 candidates overflow 16 slots");
    assert!(e.to_string().contains("mesh triangles"), "{e}");
}
