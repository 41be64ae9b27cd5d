//! The unit tests of `src/pairs.rs`.

use grains_kernels::pairs::*;

#[test]
fn the_pair_table_is_symmetric() {
    for a in ShapeKind::ALL {
        for b in ShapeKind::ALL {
            assert_eq!(
                pair_routine(a, b).ok(),
                pair_routine(b, a).ok(),
                "{a:?}–{b:?}"
            );
        }
    }
}

#[test]
fn refusals_name_both_sides() {
    let e = pair_routine(ShapeKind::Capsule, ShapeKind::Clump).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("capsule–clump"), "{text}");
    assert!(
        text.contains("capsules meet spheres, capsules and walls only"),
        "{text}"
    );
    assert!(
        text.contains("clumps meet spheres, clumps and walls only"),
        "{text}"
    );
    let e = pair_routine(ShapeKind::Ellipse, ShapeKind::Ellipse).unwrap_err();
    assert!(
        e.to_string()
            .contains("ellipses meet spheres and walls only"),
        "{e}"
    );
    let e = wall_support(ShapeKind::Capsule, WallKind::Mesh).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("only spheres, boxes, ellipsoids, clumps and polyhedra meet mesh walls"),
        "{e}"
    );
}
