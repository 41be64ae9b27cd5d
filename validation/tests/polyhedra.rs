//! Convex polyhedra (issue 16): hulls and their exact mass properties, gaps against closed
//! forms, bodies at rest on faces as statics says, bit-identical piles, and the refusals.

use glam::{Quat, Vec3};
use grains::polyhedron::MAX_CLOUD_POINTS;
use grains::{
    Backend, Body, BuildError, HullError, Material, Polyhedron, Settings, Shape, Solver, Touching,
    WallDesc, World, WorldBuilder,
};
use grains_kernels::shapes::polyhedron::{point_polyhedron, polyhedra_touch};
use grains_kernels::shapes::Placed;
use grains_validation::cases::on_floor::tight;
use grains_validation::cases::polyhedra::v25;

const G: f32 = 9.81;

/// The eight corners (±a, ±b, ±c) of a box.
fn box_points(half: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|k| {
            let s = |i: u32| if k >> i & 1 == 1 { 1.0 } else { -1.0 };
            Vec3::new(s(0) * half.x, s(1) * half.y, s(2) * half.z)
        })
        .collect()
}

/// A regular tetrahedron of edge 2√2 s: alternate corners of the cube of half-edge s.
fn tetrahedron(s: f32) -> Vec<Vec3> {
    vec![
        Vec3::new(s, s, s),
        Vec3::new(s, -s, -s),
        Vec3::new(-s, s, -s),
        Vec3::new(-s, -s, s),
    ]
}

fn close(a: f32, b: f32, rel: f32) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-30)
}

/// A box's hull: its eight corners, six square faces (two coplanar triangles each merged), twelve
/// edges; volume 8abc and moments (b² + c²)/3, (a² + c²)/3, (a² + b²)/3 per unit mass (closed
/// form), to 1e-5 (f32 output of an f64 computation). Interior points, points on its faces and
/// repeated points change nothing.
#[test]
fn a_box_hull_has_six_faces_and_the_box_mass_properties() {
    let half = Vec3::new(0.3, 0.2, 0.1);
    let mut cloud = box_points(half);
    cloud.extend([
        Vec3::ZERO,
        Vec3::new(0.3, 0.0, 0.05),
        Vec3::new(0.0, 0.2, 0.0),
        cloud[3],
    ]);
    let p = Polyhedron::from_points(&cloud).unwrap();
    assert_eq!(p.hull.vertices.len(), 8);
    assert_eq!(p.hull.faces.len(), 6);
    assert!(p.hull.faces.iter().all(|f| f.count == 4));
    assert_eq!(p.hull.edges.len(), 12);
    // Each edge bounds two faces.
    assert!(p.hull.edge_faces.iter().all(|[f, g]| f != g));
    assert!(close(p.volume, 8.0 * half.x * half.y * half.z, 1e-5));
    let sq = half * half;
    let want = Vec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) / 3.0;
    // Principal axes sorted by moment: the smallest about the longest side (x).
    for k in 0..3 {
        assert!(
            close(p.unit_moments[k], want[k], 1e-5),
            "{} vs {want}",
            p.unit_moments
        );
    }
    assert!(close(p.hull.inner_radius, 0.1, 1e-5));
    assert!(close(p.hull.outer_radius, half.length(), 1e-5));
}

/// A regular tetrahedron of edge a: V = a³/(6√2), I = m a²/20 about every axis; a regular
/// octahedron of vertices ±s on the axes: V = 4 s³/3, I = m s²/5 (closed forms), to 1e-5. Both
/// moved off the origin and turned: the centroid is found, the moments unchanged.
#[test]
fn regular_tetrahedron_and_octahedron_have_their_closed_form_mass_properties() {
    let (shift, turn) = (Vec3::new(1.0, -2.0, 0.5), Quat::from_rotation_y(0.7));
    let s = 0.1f32;
    let tet: Vec<Vec3> = tetrahedron(s).iter().map(|&p| shift + turn * p).collect();
    let p = Polyhedron::from_points(&tet).unwrap();
    let a = 2.0 * 2f32.sqrt() * s;
    assert_eq!((p.hull.faces.len(), p.hull.edges.len()), (4, 6));
    assert!(close(p.volume, a.powi(3) / (6.0 * 2f32.sqrt()), 1e-5));
    for k in 0..3 {
        assert!(
            close(p.unit_moments[k], a * a / 20.0, 1e-5),
            "{}",
            p.unit_moments
        );
    }
    assert!((p.centroid - shift).length() < 1e-6);
    let oct: Vec<Vec3> = [Vec3::X, Vec3::Y, Vec3::Z]
        .iter()
        .flat_map(|&e| [e * s, -e * s])
        .map(|p| shift + turn * p)
        .collect();
    let p = Polyhedron::from_points(&oct).unwrap();
    assert_eq!((p.hull.faces.len(), p.hull.edges.len()), (8, 12));
    assert!(close(p.volume, 4.0 * s.powi(3) / 3.0, 1e-5));
    for k in 0..3 {
        assert!(
            close(p.unit_moments[k], s * s / 5.0, 1e-5),
            "{}",
            p.unit_moments
        );
    }
}

/// A turned box's principal axes are found: the frame maps the hull's x axis (smallest moment)
/// onto the box's longest side, and every input point is centroid + frame·vertex.
#[test]
fn a_turned_box_gets_its_principal_axes() {
    let turn = Quat::from_rotation_z(0.4) * Quat::from_rotation_x(0.3);
    let cloud: Vec<Vec3> = box_points(Vec3::new(0.3, 0.2, 0.1))
        .iter()
        .map(|&p| turn * p)
        .collect();
    let p = Polyhedron::from_points(&cloud).unwrap();
    assert!((p.frame * Vec3::X).dot(turn * Vec3::X).abs() > 1.0 - 1e-5);
    for &x in &cloud {
        let back = p
            .hull
            .vertices
            .iter()
            .map(|&v| (p.centroid + p.frame * v - x).length());
        assert!(back.fold(f32::INFINITY, f32::min) < 1e-5);
    }
}

/// Bad clouds: three points, a flat square, a line, a non-finite coordinate, a hull of more
/// than 16 vertices, too many points.
#[test]
fn bad_point_clouds_are_refused() {
    let flat = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::X + Vec3::Y];
    assert_eq!(
        Polyhedron::from_points(&flat[..3]),
        Err(HullError::TooFewPoints(3))
    );
    assert_eq!(Polyhedron::from_points(&flat), Err(HullError::Flat));
    let line: Vec<Vec3> = (0..5).map(|k| Vec3::X * k as f32).collect();
    assert_eq!(Polyhedron::from_points(&line), Err(HullError::Flat));
    let nan = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.0, 0.0, f32::NAN)];
    assert_eq!(Polyhedron::from_points(&nan), Err(HullError::NotFinite));
    // 40 points on a sphere (a Fibonacci spiral) are all vertices of their hull.
    let ball: Vec<Vec3> = (0..40)
        .map(|k| {
            let z = 1.0 - (2 * k + 1) as f32 / 40.0;
            let (s, c) = (2.39996 * k as f32).sin_cos();
            let rho = (1.0 - z * z).sqrt();
            Vec3::new(rho * c, rho * s, z)
        })
        .collect();
    assert_eq!(
        Polyhedron::from_points(&ball),
        Err(HullError::TooManyVertices(40))
    );
    let many = vec![Vec3::ZERO; MAX_CLOUD_POINTS + 1];
    assert!(matches!(
        Polyhedron::from_points(&many),
        Err(HullError::TooManyPoints(_))
    ));
}

fn placed(centre: Vec3, q: Quat) -> Placed {
    Placed {
        centre,
        q,
        radius: 0.0,
        shape: Shape::Sphere,
    }
}

/// A point outside a face, outside an edge, outside a corner and inside a turned box hull: the
/// gap is the distance to the face, the edge, the corner, and minus the depth below the nearest
/// face (closed forms of the box), to 1e-6 m.
#[test]
fn sphere_gaps_to_a_hull_are_the_distances_to_it() {
    let half = Vec3::new(0.5, 0.3, 0.2);
    let hull = Polyhedron::from_points(&box_points(half)).unwrap().hull;
    let (c, q) = (Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_z(0.4));
    let world = |l: Vec3| c + q * l;
    let face = point_polyhedron(world(Vec3::new(0.1, 0.0, 0.5)), 0.05, &hull, c, q);
    assert!((face.phi - 0.25).abs() < 1e-6, "{face:?}");
    assert!((face.n - q * Vec3::Z).length() < 1e-6);
    let edge = point_polyhedron(world(Vec3::new(0.8, 0.7, 0.0)), 0.0, &hull, c, q);
    assert!((edge.phi - 0.5).abs() < 1e-6, "{edge:?}");
    let corner = point_polyhedron(world(Vec3::new(0.6, 0.4, 0.3)), 0.0, &hull, c, q);
    assert!((corner.phi - 3f32.sqrt() * 0.1).abs() < 1e-6, "{corner:?}");
    assert!((corner.pb - world(half)).length() < 1e-6);
    let inside = point_polyhedron(world(Vec3::new(0.45, 0.0, 0.0)), 0.0, &hull, c, q);
    assert!((inside.phi + 0.05).abs() < 1e-6, "{inside:?}");
    assert!((inside.n - q * Vec3::X).length() < 1e-6);
}

/// Two unit cube hulls, a above b with a gap g and turned 0.5 rad about z: face on face, the
/// manifold is the octagon where the squares overlap, eight points at Φ = g with n = +z; a
/// cutoff below g gives none. Edge across edge (a turned 45° about x, b about y, gap g): one
/// point at Φ = g, n = +z (closed forms of the two placements).
#[test]
fn hull_pairs_touch_on_their_face_overlap_or_crossing_edges() {
    let hull = Polyhedron::from_points(&box_points(Vec3::splat(0.5)))
        .unwrap()
        .hull;
    let g = 0.01;
    let b = placed(Vec3::ZERO, Quat::IDENTITY);
    let a = placed(Vec3::new(0.0, 0.0, 1.0 + g), Quat::from_rotation_z(0.5));
    let touches: Vec<_> = polyhedra_touch(&a, &hull, &b, &hull, 1.0)
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(touches.len(), 8, "{touches:?}");
    for t in &touches {
        assert!(
            (t.phi - g).abs() < 1e-5 && (t.n - Vec3::Z).length() < 1e-5,
            "{t:?}"
        );
        assert!(
            (t.pa.z - (0.5 + g)).abs() < 1e-5 && (t.pb.z - 0.5).abs() < 1e-5,
            "{t:?}"
        );
    }
    assert!(polyhedra_touch(&a, &hull, &b, &hull, 0.5 * g)
        .iter()
        .all(Option::is_none));
    let lift = 0.5 * std::f32::consts::SQRT_2;
    let b = placed(
        Vec3::ZERO,
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_4),
    );
    let a = placed(
        Vec3::new(0.0, 0.0, 2.0 * lift + g),
        Quat::from_rotation_x(std::f32::consts::FRAC_PI_4),
    );
    let touches: Vec<_> = polyhedra_touch(&a, &hull, &b, &hull, 1.0)
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(touches.len(), 1, "{touches:?}");
    assert!((touches[0].phi - g).abs() < 1e-5 && (touches[0].n - Vec3::Z).length() < 1e-5);
}

/// A world with a floor, the hulls of `clouds` registered in order, and `bodies(ids)`.
fn floor_world(
    settings: Settings,
    clouds: &[Vec<Vec3>],
    bodies: impl Fn(&[grains::HullId]) -> Vec<Body>,
) -> Result<World, BuildError> {
    let mut b = WorldBuilder::new(settings);
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    let ids: Vec<_> = clouds
        .iter()
        .map(|c| b.hull(&Polyhedron::from_points(c).unwrap()))
        .collect();
    for body in bodies(&ids) {
        b.body(body);
    }
    b.build()
}

/// Body 0 of `w` is still, and its contacts balance its weight m g as statics says: the forces
/// add up to (0, 0, m g) and their moments about the centre to zero, to 1e-4 of m g (and of
/// m g times the body's size `size`), with `points` contacts.
fn at_rest_as_statics_says(w: &World, mass: f32, points: usize, size: f32) {
    assert!(w.velocity(0).length() < 1e-4 && w.angular_velocity(0).length() < 1e-3);
    let contacts: Vec<_> = w.contacts().collect();
    assert_eq!(contacts.len(), points, "{contacts:?}");
    let weight = mass * G;
    let force: Vec3 = contacts.iter().map(|c| c.force).sum();
    assert!(
        (force.z - weight).abs() < 1e-4 * weight,
        "{force} vs {weight}"
    );
    assert!(
        force.truncate().length() < 1e-4 * weight,
        "tangential {force}"
    );
    let moment: Vec3 = contacts
        .iter()
        .map(|c| (c.point - w.position(0)).cross(c.force))
        .sum();
    assert!(moment.length() < 1e-4 * weight * size, "moment {moment}");
}

/// A cube given as a polyhedron, dropped tilted, matches `Body::cube` dropped the same way: the
/// same rest height (its half-edge, to 1e-4 of it; the two runs' heights to 1e-6 m), four corner
/// contacts whose forces balance the weight, and the same total force to 1e-4.
#[test]
fn a_cube_polyhedron_rests_like_body_cube() {
    let (half, mass) = (0.05, 2.0);
    let tilt = Quat::from_rotation_x(0.5) * Quat::from_rotation_y(0.3);
    let start = Vec3::new(0.0, 0.0, 0.2);
    let mut poly = floor_world(tight(), &[box_points(Vec3::splat(half))], |ids| {
        vec![Body::polyhedron(start, ids[0], mass).with_orientation(tilt)]
    })
    .unwrap();
    let mut cube = floor_world(tight(), &[], |_| {
        vec![Body::cube(start, half, mass).with_orientation(tilt)]
    })
    .unwrap();
    for _ in 0..3000 {
        poly.step().unwrap();
        cube.step().unwrap();
    }
    let (zp, zc) = (poly.position(0).z, cube.position(0).z);
    assert!((zp - half).abs() < 1e-4 * half, "polyhedron at {zp}");
    assert!((zp - zc).abs() < 1e-6, "polyhedron at {zp}, cube at {zc}");
    at_rest_as_statics_says(&poly, mass, 4, half);
    let total = |w: &World| w.contacts().map(|c| c.force).sum::<Vec3>();
    assert!((total(&poly) - total(&cube)).length() < 1e-4 * mass * G);
}

/// An irregular tetrahedron dropped tilted comes to rest on one of its faces: that face level
/// (its normal −z to 1e-4), the centre at the face's distance from the centre of mass above
/// the floor (to 1e-4 of the inner radius), held at the face's three corners by forces that
/// balance the weight and its moment about the centre (statics, to 1e-4).
#[test]
fn an_irregular_tetrahedron_rests_on_a_face_as_statics_says() {
    let cloud = vec![
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(0.12, 0.01, 0.0),
        Vec3::new(0.03, 0.09, 0.01),
        Vec3::new(0.04, 0.03, 0.07),
    ];
    let mass = 0.7;
    let hull = Polyhedron::from_points(&cloud).unwrap().hull;
    let tilt = Quat::from_rotation_x(0.4) * Quat::from_rotation_y(0.2);
    let mut w = floor_world(tight(), &[cloud], |ids| {
        vec![Body::polyhedron(Vec3::new(0.0, 0.0, 0.15), ids[0], mass).with_orientation(tilt)]
    })
    .unwrap();
    for _ in 0..4000 {
        w.step().unwrap();
    }
    let q = w.orientation(0);
    let face = hull
        .faces
        .iter()
        .min_by(|f, g| (q * f.normal).z.total_cmp(&(q * g.normal).z))
        .unwrap();
    assert!(
        (q * face.normal).z < -1.0 + 1e-4,
        "resting face {:?}",
        q * face.normal
    );
    let z = w.position(0).z;
    assert!(
        (z - face.offset).abs() < 1e-4 * hull.inner_radius,
        "z = {z}, face at {}",
        face.offset
    );
    at_rest_as_statics_says(&w, mass, 3, hull.outer_radius);
}

/// A cube polyhedron resting on a larger box polyhedron turned 0.6 rad about z stands: each at
/// its height, still, the floor carrying both weights and the pair's contacts the top one's.
#[test]
fn a_polyhedron_stands_on_a_turned_polyhedron() {
    let (half, mass) = (0.05, 1.0);
    let clouds = [
        box_points(Vec3::splat(half)),
        box_points(Vec3::new(0.08, 0.08, half)),
    ];
    let mut w = floor_world(tight(), &clouds, |ids| {
        vec![
            Body::polyhedron(Vec3::new(0.0, 0.0, half), ids[1], mass),
            Body::polyhedron(Vec3::new(0.01, 0.0, 3.0 * half + 0.002), ids[0], mass)
                .with_orientation(Quat::from_rotation_z(0.6)),
        ]
    })
    .unwrap();
    for _ in 0..2000 {
        w.step().unwrap();
    }
    for (k, want) in [(0, half), (1, 3.0 * half)] {
        let z = w.position(k).z;
        assert!(
            (z - want).abs() < 3e-4 * half,
            "body {k} at {z}, want {want}"
        );
        assert!(w.velocity(k).length() < 1e-4, "body {k} moves");
    }
    let weight = mass * G;
    let contacts: Vec<_> = w.contacts().collect();
    let on_floor: f32 = contacts
        .iter()
        .filter(|c| matches!(c.touching, Touching::Wall { .. }))
        .map(|c| c.force.z)
        .sum();
    assert!(
        (on_floor - 2.0 * weight).abs() < 1e-4 * 2.0 * weight,
        "floor {on_floor}"
    );
    let between: f32 = contacts
        .iter()
        .filter(|c| matches!(c.touching, Touching::Bodies { .. }))
        .map(|c| c.force.z.abs())
        .sum();
    assert!(
        (between - weight).abs() < 1e-4 * weight,
        "between {between}"
    );
}

/// A ball dropped on a fixed octahedron's upper face comes to rest on it, its centre its radius
/// off the face's plane (to 1e-4 m).
#[test]
fn a_ball_rests_on_a_polyhedron_face() {
    let s = 0.1f32;
    let oct: Vec<Vec3> = [Vec3::X, Vec3::Y, Vec3::Z]
        .iter()
        .flat_map(|&e| [e * s, -e * s])
        .collect();
    // Turned so that the face (1, 1, 1)/√3 faces up.
    let up = Quat::from_rotation_arc(Vec3::ONE.normalize(), Vec3::Z);
    let r = 0.01;
    let centre = Vec3::new(0.0, 0.0, 0.2);
    let mut w = floor_world(tight(), &[oct], |ids| {
        vec![
            Body::polyhedron(centre, ids[0], 1.0)
                .with_orientation(up)
                .fixed(),
            Body::sphere(centre + Vec3::new(0.005, 0.0, 0.1), r, 0.01),
        ]
    })
    .unwrap();
    for _ in 0..1500 {
        w.step().unwrap();
    }
    let height = (w.position(1) - centre).z;
    assert!(
        (height - (s / 3f32.sqrt() + r)).abs() < 1e-4,
        "height {height}"
    );
}

/// The clouds of the piles: a regular tetrahedron, a box and an irregular five-point hull.
fn pile_clouds() -> [Vec<Vec3>; 3] {
    [
        tetrahedron(0.04),
        box_points(Vec3::new(0.05, 0.03, 0.02)),
        vec![
            Vec3::new(0.05, 0.0, 0.0),
            Vec3::new(-0.04, 0.02, 0.0),
            Vec3::new(0.0, -0.04, 0.01),
            Vec3::new(0.01, 0.01, 0.05),
            Vec3::new(0.0, 0.02, -0.03),
        ],
    ]
}

/// Twelve of the pile's grains on a lattice, turned, over a floor.
fn pile(settings: Settings) -> World {
    floor_world(settings, &pile_clouds(), |ids| {
        (0..12)
            .map(|k| {
                let (i, j) = (k % 3, k / 3);
                let p = Vec3::new(
                    0.12 * i as f32 - 0.12,
                    0.01 * j as f32,
                    0.08 + 0.12 * j as f32,
                );
                Body::polyhedron(p, ids[k % 3], 1.0).with_orientation(
                    Quat::from_rotation_z(0.4 * k as f32) * Quat::from_rotation_x(0.3),
                )
            })
            .collect()
    })
    .unwrap()
}

/// The bodies' positions, orientations and velocities.
fn state(w: &World) -> Vec<(Vec3, Quat, Vec3)> {
    (0..w.len())
        .map(|k| (w.position(k), w.orientation(k), w.velocity(k)))
        .collect()
}

/// A pile resumed from a snapshot taken mid-fall ends with the same bits as the run it was
/// taken from (the hull table comes with the build, its fingerprint with the snapshot).
#[test]
fn a_polyhedron_pile_resumes_bit_identical() {
    let mut w = pile(Settings::default());
    for _ in 0..200 {
        w.step().unwrap();
    }
    let snap = w.snapshot().unwrap();
    for _ in 0..200 {
        w.step().unwrap();
    }
    let mut resumed = pile(Settings::default());
    resumed.restore(&snap).unwrap();
    for _ in 0..200 {
        resumed.step().unwrap();
    }
    assert_eq!(state(&w), state(&resumed));
}

/// The same pile of irregular polyhedra on 1 and 2 threads gives the same bits.
#[test]
fn a_polyhedron_pile_is_bit_identical_on_1_and_2_threads() {
    let run = |threads: usize| {
        let mut w = pile(Settings {
            threads,
            ..Settings::default()
        });
        for _ in 0..400 {
            w.step().unwrap();
        }
        state(&w)
    };
    let one = run(1);
    assert!(
        one.iter().all(|(p, _, _)| p.is_finite() && p.z > 0.0),
        "{one:?}"
    );
    assert_eq!(one, run(2));
}

/// Refused at build: the GPU backend, planar mode, a polyhedron beside a capsule or a box, a
/// hull index not in the table, an anisotropic hull without principal moments, and a
/// polyhedron starting inside the floor.
#[test]
fn unsupported_polyhedra_are_refused() {
    let problem = |settings: Settings, extra: Option<Body>, edit: fn(Body) -> Body| {
        let built = floor_world(settings, &[box_points(Vec3::new(0.1, 0.05, 0.03))], |ids| {
            let mut v = vec![edit(Body::polyhedron(
                Vec3::new(0.0, 0.0, 0.5),
                ids[0],
                1.0,
            ))];
            v.extend(extra);
            v
        });
        match built {
            Err(BuildError::Body { field, problem, .. }) => format!("{field}: {problem}"),
            Err(e) => e.to_string(),
            Ok(_) => panic!("built"),
        }
    };
    let same = |b: Body| b;
    let gpu = Settings {
        backend: Backend::Gpu,
        solver: Solver::Jacobi {
            sweeps: 50,
            tolerance: 0.0,
            omega: 0.3,
        },
        ..Settings::default()
    };
    assert!(problem(gpu, None, same).contains("polyhedra"));
    let planar = Settings {
        planar: true,
        ..Settings::default()
    };
    assert!(problem(planar, None, same).contains("planar mode"));
    let capsule = Body::capsule(Vec3::new(1.0, 0.0, 0.5), 0.05, 0.2, 1.0);
    assert!(problem(Settings::default(), Some(capsule), same).contains("polyhedra meet"));
    let cube = Body::cube(Vec3::new(1.0, 0.0, 0.5), 0.05, 1.0);
    assert!(problem(Settings::default(), Some(cube), same).contains("polyhedra meet"));
    let elsewhere = |b: Body| Body {
        shape: Shape::Polyhedron {
            hull: 3,
            bounding_radius: b.shape.bounding_radius(b.radius),
        },
        ..b
    };
    assert!(problem(Settings::default(), None, elsewhere).contains("names hull 3"));
    let scalar = |b: Body| Body {
        principal_moments: None,
        ..b
    };
    assert!(problem(Settings::default(), None, scalar).contains("unequal principal moments"));
    let sunk = |b: Body| Body {
        position: Vec3::new(0.0, 0.0, 0.0),
        ..b
    };
    assert!(problem(Settings::default(), None, sunk).contains("inside wall 0"));
}

/// V25: an irregular pebble dropped tilted comes to rest on a face as statics says (height,
/// level, one contact per corner, forces = weight, moments 0, no friction force, each to 1e-4;
/// see `PolyhedronAtRest::passes`).
#[test]
fn v26_an_irregular_pebble_comes_to_rest_on_a_face() {
    let m = v25(None).unwrap();
    assert!(m.passes(), "{m:?}");
}
