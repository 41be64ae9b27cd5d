//! The unit tests of `src/inertia.rs`.

use glam::{DVec3, Quat, Vec3};
use grains_kernels::inertia::*;
use grains_kernels::layout::{ContactRow, Motion};

/// The midpoint equation's root satisfies it (Newton converged) and keeps the energy and
/// |Π| of the step exactly, as the Cayley form Π⁺ = cay(hω̄)ᵀ Π says (to f64 rounding).
#[test]
fn midpoint_step_keeps_energy_and_momentum_magnitude() {
    let moments = DVec3::new(1.0, 2.0, 3.0);
    let wb = DVec3::new(0.3, 5.0, -0.7);
    let h = 0.01;
    let mid = midpoint_angular_velocity(moments, wb, h);
    let residual = moments * mid + 0.5 * h * mid.cross(moments * mid) - moments * wb;
    assert!(residual.length() < 1e-13, "residual {residual}");
    let w1 = 2.0 * mid - wb;
    let energy = |w: DVec3| 0.5 * w.dot(moments * w);
    let rel = (energy(w1) - energy(wb)).abs() / energy(wb);
    assert!(rel < 1e-14, "energy change {rel}");
    let rel = ((moments * w1).length() - (moments * wb).length()).abs();
    assert!(rel < 1e-13, "|Π| change {rel}");
    assert!((w1 - wb).length() > 1e-3, "the step turned ω: {wb} → {w1}");
}

/// Near-axisymmetric check of the elliptic period: for I1 = I2 < I3 (k = 0, K = π/2) the
/// body-frame ω precesses at Ω = (I3 − I1) ω3 / I1 (Euler's symmetric top); a tiny
/// asymmetry approaches it.
#[test]
fn elliptic_period_meets_the_symmetric_top() {
    let (i1, i3, w3) = (1.0, 3.0, 2.0);
    let moments = DVec3::new(i1, i1 * (1.0 + 1e-9), i3);
    let period = free_rotation_period(moments, DVec3::new(0.1, 0.0, w3));
    let top = 2.0 * std::f64::consts::PI / ((i3 - i1) * w3 / i1);
    assert!((period - top).abs() < 1e-6 * top, "{period} vs {top}");
}

/// A row's diagonal entry is the velocity change one unit impulse makes along it: with an
/// anisotropic body a (turned, moments (1, 2, 4)) against an isotropic body b, a unit
/// impulse along each of n, t1, t2 applied through [`PrincipalInertia::turn`] (and 1/m,
/// 1/I_b) changes the relative velocity along it by the entry
/// [`PrincipalInertia::add_rotational_weights`] put in the row (mean of t1 and t2).
#[test]
fn row_weights_are_the_velocity_change_of_a_unit_impulse() {
    let q = Quat::from_axis_angle(Vec3::new(0.3, -1.0, 0.5).normalize(), 1.1);
    let mut inertia = PrincipalInertia::new(vec![Vec3::new(1.0, 2.0, 4.0), Vec3::ZERO]);
    inertia.refresh(&[q, Quat::IDENTITY]);
    let (inv_mass, inv_ib) = ([0.5, 0.25], 3.0);
    let n = Vec3::new(0.2, 0.3, 1.0).normalize();
    let (t1, t2) = grains_kernels::narrow_phase::tangent_frame(n, false);
    let (ra, rb) = (Vec3::new(0.3, -0.2, -0.4), Vec3::new(-0.1, 0.2, 0.5));
    // The narrow phase's isotropic part: 1/m_a + 1/m_b + |r_b × e|² / I_b.
    let iso = |e: Vec3| inv_mass[0] + inv_mass[1] + inv_ib * rb.cross(e).length_squared();
    let mut rows = [ContactRow {
        n: n.to_array(),
        t1: t1.to_array(),
        t2: t2.to_array(),
        ra: ra.to_array(),
        rb: rb.to_array(),
        mass_n: 1.0 / iso(n),
        mass_t: 2.0 / (iso(t1) + iso(t2)),
        body_a: 0,
        body_b: 1,
        ..ContactRow::default()
    }];
    inertia.add_rotational_weights(&mut rows, 0.0);
    let change = |e: Vec3| {
        let mut a = Motion {
            inv_mass: inv_mass[0],
            ..Motion::default()
        };
        a.linear = (e * inv_mass[0]).to_array();
        inertia.turn(0, &mut a, ra.cross(e));
        let (vb, wb) = (-e * inv_mass[1], -rb.cross(e) * inv_ib);
        (a.v() + a.w().cross(ra) - vb - wb.cross(rb)).dot(e)
    };
    let rel = |got: f32, want: f32| (got - want).abs() / want;
    assert!(rel(1.0 / rows[0].mass_n, change(n)) < 1e-5);
    let mean = 0.5 * (change(t1) + change(t2));
    assert!(rel(1.0 / rows[0].mass_t, mean) < 1e-5);
    assert!(change(n) > iso(n) * 1.01, "the tensor term counts");
}

/// The world inverse inertia turns with the body: applied to the body's own x axis in world
/// axes it gives that axis over I1.
#[test]
fn world_inverse_inertia_follows_the_orientation() {
    let q = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.9);
    let moments = Vec3::new(1.0, 2.0, 4.0);
    let inv = world_inverse_inertia(moments, q);
    for (axis, i) in [(Vec3::X, 1.0), (Vec3::Y, 2.0), (Vec3::Z, 4.0)] {
        let e = q * axis;
        assert!((inv * e - e / i).length() < 1e-6, "axis {axis}");
    }
}
