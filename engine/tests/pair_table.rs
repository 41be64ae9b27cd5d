//! The pair table and the narrow phase agree for every pair of shape kinds: each pair the
//! table supports gives a contact where two bodies of those kinds overlap, each pair it
//! refuses is a build error naming both bodies' kinds.

use grains::body::Body;
use grains::{ClumpTemplate, Material, Settings, Touching, Vec3, Vec4, WorldBuilder};
use grains_kernels::pairs::{pair_routine, ShapeKind};

/// A body of `kind` at `x` on the x axis reaching 0.1 m from its centre along x (a disk in
/// planar mode), registering the clump template or hull it names with `b`.
fn body(b: &mut WorldBuilder, kind: ShapeKind, x: f32) -> Body {
    let p = Vec3::new(x, 0.0, 0.0);
    match kind {
        ShapeKind::Sphere => Body::sphere(p, 0.1, 1.0),
        ShapeKind::Capsule => Body::capsule(p, 0.05, 0.05, 1.0),
        ShapeKind::Ellipse => Body::ellipse(p, 0.1, 0.05, 1.0),
        ShapeKind::Cuboid => Body::cube(p, 0.1, 1.0),
        ShapeKind::Ellipsoid => Body::ellipsoid(p, Vec3::new(0.1, 0.08, 0.06), 1.0),
        ShapeKind::Clump => {
            let members = [
                Vec4::new(-0.05, 0.0, 0.0, 0.05),
                Vec4::new(0.05, 0.0, 0.0, 0.05),
            ];
            let clump = b.clump_template(&ClumpTemplate::new(&members).unwrap());
            Body::clump(p, grains::Quat::IDENTITY, &clump, 1000.0)
        }
        ShapeKind::Polyhedron => {
            let corners: Vec<Vec3> = (0..8)
                .map(|k| {
                    let s = |bit: u32| if k & bit == 0 { -0.1 } else { 0.1 };
                    Vec3::new(s(1), s(2), s(4))
                })
                .collect();
            let hull = b.hull(&grains::polyhedron::Polyhedron::from_points(&corners).unwrap());
            Body::polyhedron(p, hull, 1.0)
        }
    }
}

/// A world of a body of kind `a` at the origin and one of kind `b` 0.19 m along x, overlapping
/// it by 1 cm, without gravity; planar when either is an ellipse and the pair is supported
/// (so that a refused pair is refused as a pair, not as an ellipse out of planar mode).
fn pair_world(a: ShapeKind, b: ShapeKind) -> Result<grains::World, grains::BuildError> {
    let ellipse = [a, b].contains(&ShapeKind::Ellipse);
    let settings = Settings {
        gravity: Vec3::ZERO,
        planar: ellipse && pair_routine(a, b).is_ok(),
        ..Settings::default()
    };
    let mut w = WorldBuilder::new(settings);
    w.material(Material::new(0.5));
    let (first, second) = (body(&mut w, a, 0.0), body(&mut w, b, 0.19));
    w.body(first);
    w.body(second);
    w.build()
}

#[test]
fn the_pair_table_and_the_narrow_phase_agree_for_every_pair_of_kinds() {
    for a in ShapeKind::ALL {
        for b in ShapeKind::ALL {
            let built = pair_world(a, b);
            match pair_routine(a, b) {
                Ok(routine) => {
                    let mut world = built.unwrap_or_else(|e| panic!("{a:?}–{b:?}: {e}"));
                    world.step().unwrap();
                    let touching = world
                        .contacts()
                        .filter(|c| c.touching == Touching::Bodies { a: 0, b: 1 })
                        .count();
                    assert!(
                        touching > 0,
                        "{a:?}–{b:?} ({routine:?}) overlap but have no contact"
                    );
                }
                Err(unsupported) => {
                    let Err(e) = built else {
                        panic!("{a:?}–{b:?} is built though the table refuses it");
                    };
                    let msg = e.to_string();
                    let pair = format!("no {}–{} routine", a.name(), b.name());
                    assert!(
                        msg.contains(&pair) && msg.contains(&unsupported.to_string()),
                        "{a:?}–{b:?}: {msg}"
                    );
                }
            }
        }
    }
}
