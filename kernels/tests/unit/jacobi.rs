//! The unit tests of `src/jacobi.rs`.

use glam::Vec3;
use grains_kernels::contact_update::SweepParams;
use grains_kernels::inertia::PrincipalInertia;
use grains_kernels::jacobi::*;
use grains_kernels::layout::{BodyKind, ContactRow, Motion, NO_BODY};
use grains_kernels::step::SolverKind;

/// A dynamic body of mass 2 kg and moment 0.5 kg m² at rest.
fn body() -> Motion {
    Motion {
        inv_mass: 0.5,
        inv_inertia: 2.0,
        ..Motion::default()
    }
}

/// Two contacts on body 1 (b of the first, a of the second) and one on body 0 against a
/// wall: each body takes v += P/m and ω += (r × P)/I summed over its contacts, with its own
/// arm (r_a on side a, r_b and −P on side b); the wall takes nothing.
#[test]
fn each_body_turns_by_its_own_arms() {
    let kind = [BodyKind::Dynamic as u32; 2];
    let contact = |a, b, ra: [f32; 3], rb: [f32; 3]| ContactRow {
        body_a: a,
        body_b: b,
        ra,
        rb,
        ..ContactRow::default()
    };
    let rows = [
        contact(0, 1, [0.0, 0.0, -1.0], [0.0, 0.0, 1.0]),
        contact(1, NO_BODY, [1.0, 0.0, 0.0], [0.0; 3]),
        contact(0, NO_BODY, [0.0, 2.0, 0.0], [0.0; 3]),
    ];
    let impulse = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 3.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    let mut index = BodyContacts::default();
    index.build(&rows, &kind);
    let mut motion = [body(), body()];
    let inertia = PrincipalInertia::default();
    let p = SweepParams {
        solver: SolverKind::Jacobi,
        max_iterations: 1,
        tolerance: 0.0,
        omega: 1.0,
        coulomb_correction: 0,
        planar: false,
        softness: 0.0,
        give_speed: 0.0,
        rigid_scale: 1.0,
        inertia: &inertia,
    };
    body_gather(&impulse, None, &mut motion, &index, None, &p, None);
    let (p0, p1, p2) = (Vec3::X, 3.0 * Vec3::Z, Vec3::Z);
    let arm = |c: usize, side: usize| Vec3::from_array([rows[c].ra, rows[c].rb][side]);
    let dl0 = arm(0, 0).cross(p0) + arm(2, 0).cross(p2);
    let dl1 = arm(0, 1).cross(-p0) + arm(1, 0).cross(p1);
    assert_eq!(motion[0].v(), 0.5 * (p0 + p2));
    assert_eq!(motion[0].w(), 2.0 * dl0);
    assert_eq!(motion[1].v(), 0.5 * (p1 - p0));
    assert_eq!(motion[1].w(), 2.0 * dl1);
    assert_ne!(dl1, arm(0, 0).cross(-p0) + arm(1, 0).cross(p1));
}
