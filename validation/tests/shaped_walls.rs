//! Shaped grains (issue 16) against mesh, cylinder and cone walls: clumps, ellipsoids, boxes and
//! polyhedra resting on a triangulated floor as on a plane (over a face, across and along the
//! triangles' shared edge, on a fan's shared vertex) and at the bottom of a drum at the
//! closed-form depth (V26), piles on a mesh floor giving the same bits on 1 and 2 threads, and
//! the pairs still refused.

use glam::{Quat, Vec3, Vec4};
use grains::{
    Body, BuildError, ClumpTemplate, Material, MeshDesc, Polyhedron, Settings, Touching, WallDesc,
    World, WorldBuilder,
};
use grains_validation::cases::drum_rest::v26;
use grains_validation::cases::on_floor::tight;

const G: f32 = 9.81;

/// The square [−1, 1]² at z = 0 as two triangles sharing the diagonal (−1, −1)–(1, 1).
fn square() -> Vec<[Vec3; 3]> {
    let p = |x: f32, y: f32| Vec3::new(x, y, 0.0);
    vec![
        [p(-1.0, -1.0), p(1.0, -1.0), p(1.0, 1.0)],
        [p(-1.0, -1.0), p(1.0, 1.0), p(-1.0, 1.0)],
    ]
}

/// A regular hexagon of radius 1 at z = 0 as six triangles around the centre vertex.
fn hexagon_fan() -> Vec<[Vec3; 3]> {
    let corner = |k: i32| {
        let t = std::f32::consts::FRAC_PI_3 * k as f32;
        Vec3::new(t.cos(), t.sin(), 0.0)
    };
    (0..6)
        .map(|k| [Vec3::ZERO, corner(k), corner(k + 1)])
        .collect()
}

/// The floor z = 0: a plane wall, the mesh of [`square`] or of [`hexagon_fan`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum Floor {
    Plane,
    Mesh,
    Fan,
}

/// The body `add` puts into a world with `floor` (friction 0.5), after `steps` steps: its
/// centre, its contacts' count and the sum of their forces, each contact on the floor.
fn settle(floor: Floor, add: &dyn Fn(&mut WorldBuilder), steps: u64) -> (Vec3, usize, Vec3) {
    let mut b = World::builder(tight());
    b.material(Material::new(0.5));
    match floor {
        Floor::Plane => {
            b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
        }
        Floor::Mesh => {
            b.mesh(MeshDesc::new(square()));
        }
        Floor::Fan => {
            b.mesh(MeshDesc::new(hexagon_fan()));
        }
    }
    add(&mut b);
    let mut w = b.build().unwrap();
    w.run(steps).unwrap();
    let contacts: Vec<_> = w.contacts().collect();
    for c in &contacts {
        let on_floor = matches!(
            (floor, c.touching),
            (Floor::Plane, Touching::Wall { .. })
                | (Floor::Mesh | Floor::Fan, Touching::Mesh { .. })
        );
        assert!(on_floor, "{floor:?}: {c:?}");
    }
    let force = contacts.iter().map(|c| c.force).sum();
    (w.position(0), contacts.len(), force)
}

/// `settle` on the plane and on the mesh `floor`: the same height (to 1e-4 of `height`, which
/// is also the closed form), `contacts` contacts on the plane and `mesh_contacts` (or, when
/// `None`, at least as many) on the mesh, and the forces' sum the weight m g (to 1e-4) along
/// z, with no net friction.
fn rests_as_on_a_plane(
    floor: Floor,
    add: &dyn Fn(&mut WorldBuilder),
    (mass, height): (f32, f32),
    contacts: usize,
    mesh_contacts: Option<usize>,
) {
    let weight = mass * G;
    let plane = settle(Floor::Plane, add, 1500);
    assert_eq!(plane.1, contacts, "plane");
    let mesh = settle(floor, add, 1500);
    match mesh_contacts {
        Some(n) => assert_eq!(mesh.1, n, "{floor:?}"),
        None => assert!(mesh.1 >= contacts, "{floor:?}: {} contacts", mesh.1),
    }
    for (floor, (p, _, force)) in [(Floor::Plane, plane), (floor, mesh)] {
        assert!(
            (p.z - height).abs() < 1e-4 * height,
            "{floor:?}: z = {} vs {height}",
            p.z
        );
        assert!(
            (force.z - weight).abs() < 1e-4 * weight,
            "{floor:?}: {} vs {weight}",
            force.z
        );
        assert!(
            force.truncate().length() < 1e-4 * weight,
            "{floor:?}: {force}"
        );
    }
    assert!(
        (plane.0.z - mesh.0.z).abs() < 1e-4 * height,
        "plane {} vs mesh {}",
        plane.0.z,
        mesh.0.z
    );
}

/// A dumbbell (two spheres of r = 0.05, 0.08 apart) laid level 1 cm above the floor at
/// `centre`, turned by `turn` about z.
fn dumbbell(centre: Vec3, turn: f32) -> impl Fn(&mut WorldBuilder) {
    move |b: &mut WorldBuilder| {
        let rod = b.clump_template(&ClumpTemplate::rod(2, 0.05, 0.08).unwrap());
        b.body(Body::clump(
            centre + Vec3::new(0.0, 0.0, 0.06),
            Quat::from_rotation_z(turn),
            &rod,
            1000.0,
        ));
    }
}

/// The dumbbell's mass: two spheres of r = 0.05 at ρ = 1000 less their lens (spacing 0.08).
fn dumbbell_mass() -> f32 {
    let (r, d) = (0.05f32, 0.08f32);
    let lens = std::f32::consts::PI * (4.0 * r + d) * (2.0 * r - d).powi(2) / 12.0;
    (2.0 * 4.0 / 3.0 * std::f32::consts::PI * r.powi(3) - lens) * 1000.0
}

/// A dumbbell rests on the mesh floor as on the plane, one contact per member, carrying its
/// weight: over one triangle's face, across the shared diagonal (one member on each
/// triangle), along it (both members on the shared edge: no doubled support), and with a
/// member on the centre vertex of a fan of six triangles.
#[test]
fn a_clump_rests_on_a_mesh_floor_as_on_a_plane() {
    let mass = dumbbell_mass();
    for (centre, turn) in [
        (Vec3::new(0.5, -0.3, 0.0), 0.3),
        (Vec3::ZERO, 0.0),
        (Vec3::new(0.1, 0.1, 0.0), std::f32::consts::FRAC_PI_4),
    ] {
        rests_as_on_a_plane(
            Floor::Mesh,
            &dumbbell(centre, turn),
            (mass, 0.05),
            2,
            Some(2),
        );
    }
    let on_the_vertex = dumbbell(Vec3::new(0.04, 0.0, 0.0), 0.0);
    rests_as_on_a_plane(Floor::Fan, &on_the_vertex, (mass, 0.05), 2, Some(2));
}

/// An ellipsoid (0.06, 0.1, 0.04) laid level 1 mm above the floor rests on the mesh floor as
/// on the plane, its centre c = 0.04 above it, one contact carrying its weight: over a face,
/// with its lowest point on the shared diagonal (both triangles find it at their rim: one
/// kept), beside it, and on the centre vertex of a fan of six triangles (six rim contacts
/// found: one kept).
#[test]
fn an_ellipsoid_rests_on_a_mesh_floor_as_on_a_plane() {
    let (semi, mass) = (Vec3::new(0.06, 0.1, 0.04), 2.0);
    let ellipsoid = |x: f32, y: f32, turn: f32| {
        move |b: &mut WorldBuilder| {
            let at = Vec3::new(x, y, semi.z + 0.001);
            b.body(Body::ellipsoid(at, semi, mass).with_orientation(Quat::from_rotation_z(turn)));
        }
    };
    for (x, y, turn) in [(0.5, -0.3, 0.7), (0.0, 0.0, 0.2), (0.2, 0.2005, -0.4)] {
        rests_as_on_a_plane(
            Floor::Mesh,
            &ellipsoid(x, y, turn),
            (mass, semi.z),
            1,
            Some(1),
        );
    }
    rests_as_on_a_plane(
        Floor::Fan,
        &ellipsoid(0.0, 0.0, 0.3),
        (mass, semi.z),
        1,
        Some(1),
    );
}

/// The eight corners of the box of half-extents `half` about the origin.
fn box_corners(half: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|k| {
            let s = |i: u32| if k >> i & 1 == 1 { 1.0 } else { -1.0 };
            Vec3::new(s(0) * half.x, s(1) * half.y, s(2) * half.z)
        })
        .collect()
}

/// A box (0.06, 0.05, 0.04) laid level 1 mm above the floor rests on the mesh floor as on the
/// plane, its centre c = 0.04 above it, its contact forces adding up to its weight: over one
/// triangle's face (its four bottom corners), across the shared diagonal and on the centre
/// vertex of the fan (each triangle under it holds the corners over it and the bottom face's
/// crossings of its edges: more points, the same support); the same box as a polyhedron.
#[test]
fn boxes_and_polyhedra_rest_on_a_mesh_floor_as_on_a_plane() {
    let (half, mass) = (Vec3::new(0.06, 0.05, 0.04), 0.5);
    let hull = Polyhedron::from_points(&box_corners(half)).unwrap();
    let placements = [
        (Floor::Mesh, 0.5, -0.3, 0.7, Some(4)),
        (Floor::Mesh, 0.0, 0.0, 0.2, None),
        (Floor::Fan, 0.01, 0.02, 0.3, None),
    ];
    for (floor, x, y, turn, mesh_contacts) in placements {
        let at = Vec3::new(x, y, half.z + 0.001);
        let q = Quat::from_rotation_z(turn);
        let cuboid = move |b: &mut WorldBuilder| {
            b.body(Body::cuboid(at, half, mass).with_orientation(q));
        };
        rests_as_on_a_plane(floor, &cuboid, (mass, half.z), 4, mesh_contacts);
        let polyhedron = |b: &mut WorldBuilder| {
            let id = b.hull(&hull);
            b.body(Body::polyhedron(at, id, mass).with_orientation(q));
        };
        rests_as_on_a_plane(floor, &polyhedron, (mass, half.z), 4, mesh_contacts);
    }
}

/// V26: a dumbbell clump, an ellipsoid, a box, the box as a polyhedron and a capsule across
/// the axis at rest at the bottom of a drum at the closed-form depth, on the vertical through
/// the axis, forces = weight, each to 1e-4 (see `grains_validation::cases::drum_rest`).
#[test]
fn v26_shaped_grains_rest_at_the_bottom_of_a_drum() {
    let rests = v26(None).unwrap();
    assert_eq!(rests.len(), 5);
    for r in &rests {
        assert!(r.passes(), "{r:?}");
    }
}

/// A floor of 4 × 4 squares over [−0.3, 0.3]², two triangles each.
fn tiled_floor() -> Vec<[Vec3; 3]> {
    let p = |i: i32, j: i32| Vec3::new(-0.3 + 0.15 * i as f32, -0.3 + 0.15 * j as f32, 0.0);
    (0..4)
        .flat_map(|i| {
            (0..4).flat_map(move |j| {
                [
                    [p(i, j), p(i + 1, j), p(i + 1, j + 1)],
                    [p(i, j), p(i + 1, j + 1), p(i, j + 1)],
                ]
            })
        })
        .collect()
}

/// Bodies dropped in a loose lattice onto the tiled mesh floor: the same bits (positions and
/// orientations) on 1 and 2 threads after 400 steps, and nothing through the floor.
fn same_bits_on_a_mesh_floor(add: &dyn Fn(&mut WorldBuilder, Vec3, usize)) {
    let run = |threads: usize| {
        let mut b = World::builder(Settings {
            threads,
            ..Settings::default()
        });
        b.material(Material::new(0.5));
        b.mesh(MeshDesc::new(tiled_floor()));
        for k in 0..18 {
            let (i, j, l) = (k % 3, (k / 3) % 3, k / 9);
            let at = Vec3::new(
                -0.12 + 0.12 * i as f32 + 0.01 * l as f32,
                -0.12 + 0.12 * j as f32,
                0.08 + 0.1 * l as f32,
            );
            add(&mut b, at, k);
        }
        let mut w = b.build().unwrap();
        w.run(400).unwrap();
        (0..w.len())
            .map(|i| {
                let p = w.position(i);
                assert!(p.z > 0.0, "body {i} fell through: {p}");
                (
                    p.to_array().map(f32::to_bits),
                    w.orientation(i).to_array().map(f32::to_bits),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn a_clump_pile_on_a_mesh_floor_is_bit_identical_on_1_and_2_threads() {
    same_bits_on_a_mesh_floor(&|b, at, k| {
        let bent = ClumpTemplate::new(&[
            Vec4::new(0.0, 0.0, 0.0, 0.03),
            Vec4::new(0.04, 0.0, 0.0, 0.025),
            Vec4::new(0.0, 0.04, 0.01, 0.02),
        ])
        .unwrap();
        let t = if k % 2 == 0 {
            b.clump_template(&ClumpTemplate::rod(2, 0.03, 0.04).unwrap())
        } else {
            b.clump_template(&bent)
        };
        b.body(Body::clump(
            at,
            Quat::from_rotation_x(0.3 * k as f32),
            &t,
            1000.0,
        ));
    });
}

#[test]
fn a_box_pile_on_a_mesh_floor_is_bit_identical_on_1_and_2_threads() {
    same_bits_on_a_mesh_floor(&|b, at, k| {
        let turn = Quat::from_euler(glam::EulerRot::XYZ, 0.4 * k as f32, 0.7, 0.2 * k as f32);
        b.body(Body::cuboid(at, Vec3::new(0.04, 0.03, 0.025), 0.2).with_orientation(turn));
    });
}

#[test]
fn an_ellipsoid_pile_on_a_mesh_floor_is_bit_identical_on_1_and_2_threads() {
    same_bits_on_a_mesh_floor(&|b, at, k| {
        let semi = Vec3::new(0.05, 0.035, 0.025);
        let turn = Quat::from_euler(glam::EulerRot::XYZ, 0.4 * k as f32, 0.7, 0.2 * k as f32);
        b.body(Body::ellipsoid(at, semi, 0.2).with_orientation(turn));
    });
}

/// The pairs not implemented are refused at build, naming the shape and the wall: capsules
/// with a mesh; boxes, polyhedra and ellipsoids outside a cylinder; a capsule outside a cone.
#[test]
fn shapes_the_walls_do_not_meet_are_refused() {
    let problem = |body: Body, wall: Option<WallDesc>, mesh: bool| {
        let mut b = World::builder(Settings::default());
        b.material(Material::new(0.5));
        b.wall(WallDesc::plane(Vec3::new(0.0, 0.0, -2.0), Vec3::Z));
        if let Some(w) = wall {
            b.wall(w);
        }
        if mesh {
            b.mesh(MeshDesc::new(square()));
        }
        let body = match body.shape {
            grains::Shape::Polyhedron { .. } => {
                let corners: Vec<Vec3> = (0..8)
                    .map(|k| Vec3::new((k & 1) as f32, (k >> 1 & 1) as f32, (k >> 2) as f32))
                    .collect();
                let id = b.hull(&Polyhedron::from_points(&corners).unwrap());
                Body::polyhedron(body.position, id, 1.0)
            }
            _ => body,
        };
        b.body(body);
        match b.build() {
            Err(BuildError::Body { field, problem, .. }) => {
                assert_eq!(field, "shape", "{problem}");
                problem
            }
            other => panic!("{:?}", other.err()),
        }
    };
    let at = Vec3::new(0.0, 0.0, 1.0);
    let cube = Body::cube(at, 0.05, 1.0);
    let capsule = Body::capsule(at, 0.05, 0.1, 1.0);
    let polyhedron = Body {
        shape: grains::Shape::Polyhedron {
            hull: 0,
            bounding_radius: 1.0,
        },
        ..cube
    };
    let p = problem(capsule, None, true);
    assert!(p.contains("capsule") && p.contains("mesh wall"), "{p}");
    let post = WallDesc::cylinder(Vec3::new(3.0, 0.0, 0.0), Vec3::Z, 0.1, 1.0, false);
    let ellipsoid = Body::ellipsoid(at, Vec3::new(0.1, 0.06, 0.04), 1.0);
    for (body, name) in [
        (cube, "box"),
        (polyhedron, "polyhedron"),
        (ellipsoid, "ellipsoid"),
    ] {
        let p = problem(body, Some(post), false);
        assert!(
            p.contains(name) && p.contains("cylinder") && p.contains("outside"),
            "{p}"
        );
    }
    let funnel = WallDesc::cone(Vec3::ZERO, Vec3::Z, 0.1, 2.0, 1.5, false);
    let p = problem(capsule, Some(funnel), false);
    assert!(
        p.contains("capsule") && p.contains("cone") && p.contains("only from inside"),
        "{p}"
    );
}
