//! The unit tests of `src/geometric/surface.rs`.

use glam::{DQuat, DVec3};
use grains_kernels::geometric::surface::*;

/// Gradient and Hessian against central differences of the value (and of the gradient) at
/// a rotated, shifted pose: agreement to 10⁻⁷ (difference step 10⁻⁵, truncation 10⁻¹⁰).
#[test]
fn gradient_and_hessian_match_central_differences() {
    let pose = Pose {
        position: DVec3::new(0.3, -1.0, 2.0),
        orientation: DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 0.5).normalize(), 0.7),
    };
    let x = DVec3::new(0.9, -0.2, 2.4);
    for surface in [
        ImplicitSurface::Ellipsoid {
            semi_axes: DVec3::new(1.0, 0.5, 0.3),
        },
        ImplicitSurface::HalfSpace {
            normal: DVec3::new(0.0, 0.6, 0.8),
        },
    ] {
        let eps = 1e-5;
        let g = surface.gradient(&pose, x);
        let hess = surface.hessian(&pose, x);
        for k in 0..3 {
            let mut e = DVec3::ZERO;
            e[k] = eps;
            let dv = (surface.value(&pose, x + e) - surface.value(&pose, x - e)) / (2.0 * eps);
            assert!((dv - g[k]).abs() < 1e-7, "{surface:?}: ∂f/∂x{k}");
            let dg =
                (surface.gradient(&pose, x + e) - surface.gradient(&pose, x - e)) / (2.0 * eps);
            assert!((dg - hess.col(k)).length() < 1e-7, "{surface:?}: ∂∇f/∂x{k}");
        }
    }
}

#[test]
fn support_point_lies_on_the_surface_with_its_normal_along_the_direction() {
    let pose = Pose {
        position: DVec3::new(1.0, 2.0, 3.0),
        orientation: DQuat::from_rotation_z(0.4),
    };
    let surface = ImplicitSurface::Ellipsoid {
        semi_axes: DVec3::new(2.0, 1.0, 0.5),
    };
    let d = DVec3::new(0.3, -1.0, 0.2).normalize();
    let p = surface.support_point(&pose, d, DVec3::ZERO);
    assert!(surface.value(&pose, p).abs() < 1e-12);
    assert!((surface.unit_normal(&pose, p) - d).length() < 1e-12);
}
