//! The unit tests of `src/support.rs`.

use grains::support::{check, limit, Feature::*, Item, LIMITS};

#[test]
fn each_limit_exists_once() {
    for (i, l) in LIMITS.iter().enumerate() {
        assert_eq!(
            limit(l.a, l.b),
            Some(l),
            "limit {i} ({:?}, {:?}) is listed twice",
            l.a,
            l.b
        );
        assert_ne!(l.a, l.b);
    }
}

#[test]
fn a_refusal_names_both_sides_at_the_second_ones_item() {
    let e = check(&[
        (MeshWalls, Item::Mesh),
        (Restitution, Item::Material(1, "restitution")),
    ])
    .unwrap_err();
    assert_eq!(e.to_string(), "material 1: restitution gives this world restitution (a material with e > 0), which cannot be combined with mesh walls: mesh contacts do not restitute yet");
    assert!(check(&[(MeshWalls, Item::Mesh), (Joints, Item::Joint)]).is_ok());
}
