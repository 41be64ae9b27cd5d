//! Triangle-mesh walls against closed forms and against flat walls: one contact at a shared
//! edge or vertex carrying the weight, a slide down a triangulated incline equal to the slide
//! down a plane, a resting bed's weight on a mesh box, a turning mesh dragging a grain at its
//! surface speed, each triangle's load (and Archard's F_n s) under a sliding and a rolling
//! sphere, and the refusals of bad meshes.

use grains::glam::DVec3;
use grains::{
    Body, BuildError, Material, MeshDesc, Quat, Settings, Touching, Vec3, WallDesc, WallLoad, World,
};

const G: f64 = 9.81;

/// Rigid contact, Gauss–Seidel solved to 1e-9 m/s: at rest the solve is converged far below the
/// tolerances asked of the sums.
fn tight() -> Settings {
    let s = Settings::default();
    Settings {
        solver: s.solver.with_tolerance(1e-9),
        ..s
    }
}

/// The square [−a, a]² at height z as two triangles sharing the diagonal (−a, −a)–(a, a).
fn square(a: f32, z: f32) -> Vec<[Vec3; 3]> {
    let p = |x: f32, y: f32| Vec3::new(x * a, y * a, z);
    vec![
        [p(-1.0, -1.0), p(1.0, -1.0), p(1.0, 1.0)],
        [p(-1.0, -1.0), p(1.0, 1.0), p(-1.0, 1.0)],
    ]
}

/// A regular hexagon of radius `a` at z = 0 as six triangles around the centre vertex.
fn hexagon_fan(a: f32) -> Vec<[Vec3; 3]> {
    (0..6)
        .map(|k| {
            let corner = |k: i32| {
                let t = std::f32::consts::FRAC_PI_3 * k as f32;
                Vec3::new(a * t.cos(), a * t.sin(), 0.0)
            };
            [Vec3::ZERO, corner(k), corner(k + 1)]
        })
        .collect()
}

/// A sphere of mass `m` and radius `r` resting with its centre at `centre` on `mesh`, after
/// 500 steps: its contacts and the mesh's load.
fn rest_on(mesh: Vec<[Vec3; 3]>, centre: Vec3, r: f32, m: f32) -> (Vec<Touching>, WallLoad) {
    let mut b = World::builder(tight());
    b.material(Material::new(0.5));
    b.mesh(MeshDesc::new(mesh));
    b.body(Body::sphere(centre, r, m));
    let mut w = b.build().unwrap();
    w.run(500).unwrap();
    let touching = w.contacts().map(|c| c.touching).collect();
    (touching, w.mesh_loads(Vec3::ZERO)[0])
}

#[test]
fn a_sphere_on_a_shared_edge_has_one_contact_carrying_its_weight() {
    // The centre is above the midpoint of the diagonal both triangles share: each triangle's
    // closest point is that edge point, and only the lower-indexed triangle's contact stays.
    let (r, m) = (0.05, 2.0);
    let (touching, load) = rest_on(square(0.5, 0.0), Vec3::new(0.1, 0.1, r), r, m);
    assert_eq!(
        touching,
        vec![Touching::Mesh {
            body: 0,
            mesh: 0,
            triangle: 0
        }]
    );
    let weight = f64::from(m) * G;
    assert!(
        (load.force.z + weight).abs() <= 1e-4 * weight,
        "{}",
        load.force
    );
}

#[test]
fn a_sphere_on_a_shared_vertex_has_one_contact_carrying_its_weight() {
    // Six triangles meet at the centre vertex under the sphere.
    let (r, m) = (0.05, 1.5);
    let (touching, load) = rest_on(hexagon_fan(0.4), Vec3::new(0.0, 0.0, r), r, m);
    assert_eq!(touching.len(), 1, "{touching:?}");
    let weight = f64::from(m) * G;
    assert!(
        (load.force.z + weight).abs() <= 1e-4 * weight,
        "{}",
        load.force
    );
}

#[test]
fn a_grain_slides_down_a_triangulated_incline_as_down_a_plane() {
    // An incline of angle θ with μ < tan θ: the grain slides (and rolls) across the shared
    // edges of a strip of triangles. The same run on the plane wall of the same normal must
    // agree: both have one contact with the same normal and gap, so only rounding differs
    // (1e-4 m and m/s over 0.6 s is some 100× the f32 rounding of the sums).
    let theta = 0.4f32;
    let normal = Vec3::new(-theta.sin(), 0.0, theta.cos());
    let down = -Vec3::new(theta.cos(), 0.0, theta.sin());
    let across = Vec3::Y;
    let r = 0.02;
    // Strip of 8 squares of 0.1 m along the slope, each split into two triangles.
    let mut strip = Vec::new();
    for k in 0..8 {
        let p = |s: f32, t: f32| down * (0.1 * (k as f32 + s) - 0.4) + across * (0.3 * t);
        strip.push([p(0.0, -1.0), p(1.0, -1.0), p(1.0, 1.0)]);
        strip.push([p(0.0, -1.0), p(1.0, 1.0), p(0.0, 1.0)]);
    }
    let start = -down * 0.3 + across * 0.013 + normal * r;
    let run = |with_mesh: bool| {
        let mut b = World::builder(tight());
        b.material(Material::new(0.2));
        if with_mesh {
            b.mesh(MeshDesc::new(strip.clone()));
        } else {
            b.wall(WallDesc::plane(Vec3::ZERO, normal));
        }
        b.body(Body::sphere(start, r, 0.1));
        let mut w = b.build().unwrap();
        w.run(600).unwrap();
        let contacts = w.contacts().len();
        (w.position(0), w.velocity(0), contacts)
    };
    let (p_mesh, v_mesh, n_mesh) = run(true);
    let (p_plane, v_plane, n_plane) = run(false);
    assert!(
        (p_mesh - start).dot(down) > 0.3,
        "the grain slid over several triangles: {p_mesh}"
    );
    assert_eq!((n_mesh, n_plane), (1, 1));
    assert!((p_mesh - p_plane).length() < 1e-4, "{p_mesh} {p_plane}");
    assert!((v_mesh - v_plane).length() < 1e-4, "{v_mesh} {v_plane}");
}

/// An open box of side 2a and height `height` as a mesh of `n` × `n` squares per face (two
/// triangles each), floor at z = 0.
fn mesh_box(a: f32, height: f32, n: usize) -> Vec<[Vec3; 3]> {
    let mut tris = Vec::new();
    let mut face = |origin: Vec3, u: Vec3, v: Vec3| {
        for i in 0..n {
            for j in 0..n {
                let p = |s: usize, t: usize| {
                    origin + u * ((i + s) as f32 / n as f32) + v * ((j + t) as f32 / n as f32)
                };
                tris.push([p(0, 0), p(1, 0), p(1, 1)]);
                tris.push([p(0, 0), p(1, 1), p(0, 1)]);
            }
        }
    };
    let (x, y, z) = (Vec3::X * 2.0 * a, Vec3::Y * 2.0 * a, Vec3::Z * height);
    let corner = Vec3::new(-a, -a, 0.0);
    face(corner, x, y);
    face(corner, x, z);
    face(corner + y, x, z);
    face(corner, y, z);
    face(corner + x, y, z);
    tris
}

/// 288 spheres (6 × 6 × 8) of radius `r` and mass `mass` in a lattice over the box's floor.
fn bed(b: &mut grains::WorldBuilder, r: f32, mass: f32) {
    for k in 0..8 {
        for j in 0..6 {
            for i in 0..6 {
                let jitter = 0.02 * r * ((i * 7 + j * 3 + k) % 5) as f32;
                let at = Vec3::new(
                    (2.1 * i as f32 - 5.25) * r + jitter,
                    (2.1 * j as f32 - 5.25) * r - jitter,
                    (1.05 + 2.1 * k as f32) * r,
                );
                b.body(Body::sphere(at, r, mass));
            }
        }
    }
}

#[test]
fn a_resting_bed_loads_a_mesh_box_with_its_weight() {
    // 288 spheres (6 × 6 × 8) settle in a box made of 1,000 triangles. Momentum balance makes
    // the mesh's force = Σ m Δv / h − M g, so it is off the weight only by the bed's remaining
    // acceleration; 0.1 % of M g is a mean velocity change of 1e-5 m/s per step, far above a
    // settled rigid bed's solved to 1e-9 m/s.
    let r = 0.005f32;
    let mut b = World::builder(tight());
    b.material(Material::new(0.5));
    b.mesh(MeshDesc::new(mesh_box(6.4 * r, 30.0 * r, 10)));
    let mass = 0.001f32;
    bed(&mut b, r, mass);
    let mut w = b.build().unwrap();
    w.run(1500).unwrap();
    let weight = 288.0 * f64::from(mass) * G;
    let load = w.mesh_loads(Vec3::ZERO)[0];
    assert!(
        (load.force - DVec3::new(0.0, 0.0, -weight)).length() <= 1e-3 * weight,
        "mesh force {} against the weight {weight}",
        load.force
    );
    assert!(load.contacts >= 36, "{} contacts", load.contacts);
}

#[test]
fn a_turning_mesh_drags_a_resting_grain_at_its_surface_speed() {
    // A turntable: a square turning about z at ω. A grain set down on it at rest is dragged
    // by friction until its contact point moves with the surface, v + ω_g × (−r ẑ) =
    // ω ẑ × (c − axis), and then keeps rolling without slip (a ball on a turntable circles, so
    // its centre does not move at ω × ρ, but its contact point does).
    let (r, omega) = (0.02f32, 1.0f32);
    let mut b = World::builder(tight());
    b.material(Material::new(0.9));
    b.mesh(MeshDesc::new(square(1.0, 0.0)).rotating(Vec3::ZERO, Vec3::Z, omega));
    b.body(Body::sphere(Vec3::new(0.3, 0.0, r), r, 0.1));
    let mut w = b.build().unwrap();
    w.run(500).unwrap();
    let centre = w.position(0);
    let contact = centre - r * Vec3::Z;
    let point_velocity = w.velocity(0) + w.angular_velocity(0).cross(-r * Vec3::Z);
    let surface = omega * Vec3::Z.cross(contact);
    assert!(surface.length() > 0.2, "{surface}");
    assert!(
        (point_velocity - surface).length() < 1e-3 * surface.length(),
        "contact point moves at {point_velocity}, the surface at {surface}"
    );
    assert!(w.velocity(0).length() > 0.01, "the grain was dragged");
}

#[test]
fn a_mesh_box_with_a_turning_paddle_gives_the_same_bits_for_any_thread_count() {
    // A falling bed in a mesh box stirred by a turning square paddle: the contacts found through
    // the triangle grid, deduplicated and keyed, must not depend on the thread count. 100 steps
    // (0.1 s; the paddle turns half a radian): the bottom layer touches the floor from the
    // first step and the bed is settling onto it; a bit that differed in any step would carry
    // on to the end state. (Three worker threads on the test machine's 2 cores wait for each
    // other at every colour of every sweep, so each step costs many times one thread's.)
    let r = 0.005f32;
    let run = |threads: usize| {
        let mut b = World::builder(Settings {
            threads,
            ..Settings::default()
        });
        b.material(Material::new(0.5));
        b.mesh(MeshDesc::new(mesh_box(6.4 * r, 30.0 * r, 10)));
        let paddle: Vec<[Vec3; 3]> = square(3.0 * r, 0.0)
            .into_iter()
            .map(|t| t.map(|p| Vec3::new(p.x, 0.0, p.y + 8.0 * r)))
            .collect();
        b.mesh(MeshDesc::new(paddle).rotating(Vec3::ZERO, Vec3::Z, 5.0));
        bed(&mut b, r, 0.001);
        let mut w = b.build().unwrap();
        w.run(100).unwrap();
        let bits: Vec<u32> = (0..w.len())
            .flat_map(|i| w.position(i).to_array().map(f32::to_bits))
            .collect();
        let contacts = w.contacts().len();
        (bits, contacts)
    };
    let one = run(1);
    println!("{} contacts at step 100", one.1);
    assert!(one.1 > 100, "the bed touches the mesh: {} contacts", one.1);
    assert_eq!(one, run(3));
}

#[test]
fn a_conveyor_mesh_drags_a_grain_to_its_speed() {
    // A mesh floor translating at v along x (a constant-velocity motion): a grain set down on it
    // at rest is dragged by friction until its contact point moves at v, then rolls along.
    let v = Vec3::new(0.3, 0.0, 0.0);
    let r = 0.02;
    let mut b = World::builder(tight());
    b.material(Material::new(0.9));
    b.mesh(
        MeshDesc::new(square(2.0, 0.0)).moving(grains::Prescribed::Constant {
            linear: v,
            angular: Vec3::ZERO,
        }),
    );
    b.body(Body::sphere(Vec3::new(0.0, 0.0, r), r, 0.1));
    let mut w = b.build().unwrap();
    w.run(300).unwrap();
    let point_velocity = w.velocity(0) + w.angular_velocity(0).cross(-r * Vec3::Z);
    assert!(
        (point_velocity - v).length() < 1e-3 * v.length(),
        "contact point at {point_velocity}, the floor at {v}"
    );
    // Rolling without slip from rest under a friction impulse at the contact: v_c = 2/7 v.
    assert!(
        (w.velocity(0) - 2.0 / 7.0 * v).length() < 1e-3 * v.length(),
        "{}",
        w.velocity(0)
    );
}

#[test]
fn the_fingerprint_names_a_changed_mesh() {
    // A checkpoint of one world must not resume in a world whose mesh differs: its triangles,
    // material or motion each change the fingerprint.
    let build = |mesh: MeshDesc| {
        let mut b = World::builder(Settings::default());
        b.material(Material::new(0.5));
        b.material(Material::new(0.3));
        b.mesh(mesh);
        b.build().unwrap().fingerprint().clone()
    };
    let base = MeshDesc::new(square(1.0, 0.0));
    let f = build(base.clone());
    assert_eq!(f, build(base.clone()));
    for other in [
        MeshDesc::new(square(1.0, 0.1)),
        base.clone().with_material(grains::MaterialId(1)),
        base.clone().rotating(Vec3::ZERO, Vec3::Z, 1.0),
        base.clone()
            .moving(grains::Prescribed::vertical_shake(0.01, 5.0)),
    ] {
        assert_ne!(f, build(other.clone()), "{other:?}");
    }
}

#[test]
fn bad_meshes_are_refused_naming_the_triangle() {
    let build = |tris: Vec<[Vec3; 3]>| {
        let mut b = World::builder(Settings::default());
        b.material(Material::new(0.5));
        b.mesh(MeshDesc::new(tris));
        b.build().err()
    };
    let mut nan = square(1.0, 0.0);
    nan[1][2].y = f32::NAN;
    let mut flat = square(1.0, 0.0);
    flat[1][2] = flat[1][1];
    for (tris, triangle, words) in [
        (nan, Some(1), "finite"),
        (flat, Some(1), "zero area"),
        (Vec::new(), None, "no triangle"),
    ] {
        match build(tris) {
            Some(BuildError::Mesh {
                mesh: 0,
                triangle: t,
                problem,
                ..
            }) => {
                assert_eq!(t, triangle);
                assert!(problem.contains(words), "{problem}");
            }
            other => panic!("expected a mesh error, got {other:?}"),
        }
    }
}

#[test]
fn a_snapshot_with_mesh_contacts_restores_and_resumes_bit_identically() {
    // The warm start holds the contact with a triangle (keyed as a wall after the flat ones):
    // a restore must accept its key and the resumed run must match the uninterrupted one.
    let world = || {
        let mut b = World::builder(tight());
        b.material(Material::new(0.5));
        b.mesh(MeshDesc::new(square(0.5, 0.0)));
        b.body(Body::sphere(Vec3::new(0.1, 0.05, 0.05), 0.05, 1.0));
        b.build().unwrap()
    };
    let mut w = world();
    w.run(20).unwrap();
    assert_eq!(w.contacts().count(), 1);
    let snap = w.snapshot().unwrap();
    let mut again = world();
    again.restore(&snap).unwrap();
    w.run(20).unwrap();
    again.run(20).unwrap();
    assert_eq!(w.bodies().pos_radius, again.bodies().pos_radius);
}

#[test]
fn a_sphere_on_an_inclined_mesh_loads_its_triangles_by_coulomb_and_rolling() {
    // A sphere on a plane mesh inclined at θ = 40°: with μ = 0.1 < (2/7) tan θ it slides, and
    // the triangles carry a shear μ N; with μ = 0.5 it rolls without slipping, and the shear is
    // the (2/7) m g sin θ that turns it, (2/7) tan θ N. N = m g cos θ either way, and the
    // pressure is N over the loaded triangle's area.
    let theta = 40f32.to_radians();
    let (r, m) = (0.05f32, 2.0f32);
    let turn = Quat::from_rotation_y(theta);
    let mesh: Vec<[Vec3; 3]> = square(1.0, 0.0)
        .into_iter()
        .map(|t| t.map(|v| turn * v))
        .collect();
    let normal = turn * Vec3::Z;
    for (mu, ratio) in [(0.1f32, 0.1f64), (0.5, 2.0 / 7.0 * (theta.tan() as f64))] {
        let mut b = World::builder(tight());
        b.material(Material::new(mu));
        b.mesh(MeshDesc::new(mesh.clone()));
        b.body(Body::sphere(
            normal * r + turn * Vec3::new(0.5, 0.3, 0.0),
            r,
            m,
        ));
        let mut w = b.build().unwrap();
        // Archard's F_n s: the triangles' sliding powers summed over the steps times h.
        let (steps, h) = (50, f64::from(w.settings().h));
        let mut load_distance = 0.0;
        for _ in 0..steps {
            w.step().unwrap();
            load_distance += h * w.triangle_sliding_powers().iter().sum::<f64>();
        }
        let loads = w.triangle_loads();
        let (normal_force, shear): (f64, f64) = loads.iter().fold((0.0, 0.0), |(n, s), l| {
            (n + l.normal_force, s + l.shear_force)
        });
        let weight = (m * 9.81) as f64;
        let n = weight * (theta.cos() as f64);
        // The slip speed at the contact, u = |v + ω × (−r n)|, against the sliding power's.
        let slip = (w.velocity(0) + w.angular_velocity(0).cross(-r * normal)).length() as f64;
        let power: f64 = loads.iter().map(|l| l.sliding_power).sum();
        println!(
            "μ = {mu}: F_n s = {load_distance:.6e} N m, power {power:.6e} W, N u = {:.6e} W",
            normal_force * slip
        );
        if mu < 0.2 {
            // Sliding, the contact point slips at u = g (sin θ − 7/2 μ cos θ) t (the friction
            // μ N brakes the centre by μ g cos θ and spins the sphere up by 5/2 μ g cos θ at
            // its rim); after step k, u_k = k h g (…), so Σ h N u_k = N g (…) h² n (n + 1)/2.
            // N varies by the cone's relaxation (below) and u with it: 2 %.
            let rate = G * (theta.sin() as f64 - 3.5 * mu as f64 * theta.cos() as f64);
            let want = n * rate * h * h * (steps * (steps + 1)) as f64 / 2.0;
            assert!(
                (load_distance - want).abs() < 0.02 * want,
                "F_n s = {load_distance} N m where {want}"
            );
            assert!(
                (power - normal_force * slip).abs() < 1e-3 * normal_force * slip,
                "sliding power {power} W where N u = {}",
                normal_force * slip
            );
        } else {
            // Rolling without slip: the contact point is at rest, up to the solve's tolerance.
            let speed = w.velocity(0).length() as f64;
            assert!(
                load_distance < 1e-4 * n * speed * steps as f64 * h,
                "a rolling sphere wears its mesh: F_n s = {load_distance} N m"
            );
        }
        // Sliding, the cone's relaxation (docs/method.md) lifts the sphere by μ |v_T| h a step,
        // which the normal row's Φ/h takes back: N is m g cos θ on average, not every step, but
        // the shear is μ N in every step.
        let (tol_n, want) = match mu < 0.2 {
            true => (0.02, ratio * normal_force),
            false => (1e-3, ratio * n),
        };
        assert!(
            (normal_force - n).abs() < tol_n * n,
            "μ = {mu}: N = {normal_force} of {n}"
        );
        assert!(
            (shear - want).abs() < 1e-3 * want,
            "μ = {mu}: shear {shear} N where {want} N"
        );
        let loaded: Vec<_> = loads.iter().filter(|l| l.contacts > 0).collect();
        assert_eq!(loaded.len(), 1, "one triangle under the sphere");
        let pressure = loaded[0].normal_force / 2.0;
        assert!(
            (loaded[0].pressure - pressure).abs() < 1e-6 * pressure,
            "pressure {} Pa where N / area = {pressure} Pa",
            loaded[0].pressure
        );
        let total = w.mesh_loads(Vec3::ZERO)[0].force;
        assert!((loaded[0].force - total).length() < 1e-9 * weight);
    }
}
