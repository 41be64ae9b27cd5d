//! The closest points of two convex implicit bodies at fixed poses (the minimum-distance
//! problem (7) of Chakraborty et al. through its conditions (9)), found by the semismooth
//! Newton solver from the support points of each body towards the other: the start state of
//! every contact of a step, and the exact gap after it.

use super::contact::{reference_axis, ContactGeometry};
use super::dense::DenseMatrix;
use super::semismooth::{
    central_differences, solve_semismooth, NewtonFailure, NewtonSettings, SemismoothSystem,
};
use super::step_ncp::ContactStart;
use glam::DVec3;

/// The six conditions of (9) in the unknowns (a₁, a₂), tangents from a fixed axis.
struct ClosestPointProblem<'a> {
    geometry: ContactGeometry<'a>,
    axis: DVec3,
}

impl ClosestPointProblem<'_> {
    fn conditions(&self, z: &[f64]) -> Vec<f64> {
        let a1 = DVec3::new(z[0], z[1], z[2]);
        let a2 = DVec3::new(z[3], z[4], z[5]);
        self.geometry
            .closest_point_conditions(a1, a2, self.axis)
            .0
            .to_vec()
    }
}

impl SemismoothSystem for ClosestPointProblem<'_> {
    fn dim(&self) -> usize {
        6
    }

    fn residual(&self, z: &[f64]) -> Vec<f64> {
        self.conditions(z)
    }

    fn residual_and_jacobian(&self, z: &[f64]) -> (Vec<f64>, DenseMatrix) {
        (
            self.conditions(z),
            central_differences(z, |p| self.conditions(p)),
        )
    }
}

/// The closest points of the two bodies of `geometry`, starting from `guess` (a₁, a₂) or, when
/// None, from the support point of each body towards the other's centre. Fails when Newton
/// does not converge or ends on a spurious root whose normals are not opposed.
pub fn closest_points(
    geometry: &ContactGeometry,
    guess: Option<(DVec3, DVec3)>,
    settings: NewtonSettings,
) -> Result<ContactStart, NewtonFailure> {
    let (ca, cb) = (geometry.pose_a.position, geometry.pose_b.position);
    let (a1, a2) = guess.unwrap_or_else(|| {
        (
            geometry
                .surface_a
                .support_point(&geometry.pose_a, cb - ca, cb),
            geometry
                .surface_b
                .support_point(&geometry.pose_b, ca - cb, ca),
        )
    });
    let axis = reference_axis(geometry.surface_a.unit_normal(&geometry.pose_a, a1));
    let problem = ClosestPointProblem {
        geometry: *geometry,
        axis,
    };
    let z0 = [a1.to_array(), a2.to_array()].concat();
    let (z, report) = solve_semismooth(&problem, z0, settings)?;
    let a1 = DVec3::new(z[0], z[1], z[2]);
    let a2 = DVec3::new(z[3], z[4], z[5]);
    let normal = geometry.surface_a.unit_normal(&geometry.pose_a, a1);
    let opposed = geometry.surface_b.unit_normal(&geometry.pose_b, a2);
    if normal.dot(opposed) > -0.5 {
        return Err(NewtonFailure::Stalled {
            iterations: report.iterations,
            residual: (normal + opposed).length(),
        });
    }
    Ok(ContactStart {
        a1,
        a2,
        normal,
        axis: reference_axis(normal),
        gap: normal.dot(a2 - a1),
    })
}
