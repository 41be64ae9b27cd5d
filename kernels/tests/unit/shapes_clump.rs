//! The unit tests of `src/shapes/clump.rs`.

use glam::Quat;
use glam::{Vec3, Vec4};
use grains_kernels::shapes::clump::*;
use grains_kernels::shapes::{Placed, Shape};

fn dumbbell() -> (ClumpTable, Shape) {
    let members = [
        Vec4::new(-0.1, 0.0, 0.0, 0.1),
        Vec4::new(0.1, 0.0, 0.0, 0.1),
    ];
    let mut table = ClumpTable::default();
    let template = table.push(&members).unwrap();
    let bound = clump_bound(&members);
    (table, Shape::Clump { template, bound })
}

/// A dumbbell turned 90° about z above a sphere touches it with its lower member only,
/// at the gap between the member's and the sphere's surfaces, point 8·k_a + 0.
#[test]
fn a_standing_dumbbell_touches_a_sphere_below_with_its_lower_member() {
    let (table, shape) = dumbbell();
    let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let a = Placed {
        centre: Vec3::new(0.0, 0.0, 0.0),
        q,
        radius: 0.1,
        shape,
    };
    let b = Placed {
        centre: Vec3::new(0.0, -0.35, 0.0),
        q: Quat::IDENTITY,
        radius: 0.1,
        shape: Shape::Sphere,
    };
    let mut found = Vec::new();
    clump_pair_touches(&a, &b, &table, 0.1, |p, t| found.push((p, t)));
    assert_eq!(found.len(), 1, "{found:?}");
    let (p, t) = found[0];
    // Member 0 at R(−0.1, 0, 0) = (0, −0.1, 0): gap 0.25 − 0.2.
    assert_eq!(p, 0);
    assert!((t.phi - 0.05).abs() < 1e-6, "{t:?}");
    assert!((t.n - Vec3::Y).length() < 1e-6);
    assert!((t.pa - Vec3::new(0.0, -0.2, 0.0)).length() < 1e-6);
}

/// Two dumbbells side by side along y: each member meets the one beside it (points 0 and
/// 9), the crossed pairs are farther than the cutoff.
#[test]
fn parallel_dumbbells_touch_member_by_member() {
    let (table, shape) = dumbbell();
    let place = |y: f32| Placed {
        centre: Vec3::new(0.0, y, 0.0),
        q: Quat::IDENTITY,
        radius: 0.1,
        shape,
    };
    let mut found = Vec::new();
    clump_pair_touches(&place(0.0), &place(0.2), &table, 0.01, |p, t| {
        found.push((p, t))
    });
    let points: Vec<_> = found.iter().map(|f| f.0).collect();
    assert_eq!(points, [0, 9]);
    for (_, t) in found {
        assert!(
            t.phi.abs() < 1e-6 && (t.n + Vec3::Y).length() < 1e-6,
            "{t:?}"
        );
    }
}
