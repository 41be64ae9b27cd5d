//! Bodies with the full inertia tensor (principal moments, [`Body::principal_moments`]): their
//! checks at build and the kernels' [`PrincipalInertia`] of a world.

use crate::body::{Body, BodyKind};
use crate::error::BuildError;
use crate::settings::Settings;
use glam::Vec3;
use grains_kernels::inertia::PrincipalInertia;
use grains_kernels::Bodies;

/// Slack of the triangle inequalities I_k ≤ I_i + I_j, relative to the sum: a flat plate has
/// I3 = I1 + I2 exactly, which f32 rounding of the three moments may break by a few ulps.
const TRIANGLE_SLACK: f32 = 1e-5;

/// Checks body `i`'s principal moments, if any: positive, finite and the triangle inequalities
/// of every mass distribution.
pub(crate) fn check_principal_moments(i: usize, b: &Body) -> Result<(), BuildError> {
    let Some(m) = b.principal_moments else {
        return Ok(());
    };
    let bad = |problem: String| {
        Err(BuildError::Body {
            body: i,
            field: "principal_moments",
            problem,
        })
    };
    if !(m.is_finite() && m.min_element() > 0.0) {
        return bad(format!("must be positive and finite, got {m}"));
    }
    let sum = m.element_sum();
    if m.max_element() > (sum - m.max_element()) + TRIANGLE_SLACK * sum {
        return bad(format!(
            "{m} break the triangle inequality (the largest moment exceeds the sum of the other two, which no mass distribution does)"
        ));
    }
    Ok(())
}

/// Refuses anisotropic bodies where the world cannot turn them with their tensor: in planar
/// mode (only the moment about y matters there: give it as `inertia`).
pub(crate) fn check_anisotropic_world(
    settings: &Settings,
    bodies: &[Body],
) -> Result<(), BuildError> {
    let anisotropic = |i: usize| {
        bodies
            .get(i)
            .is_some_and(|b| b.anisotropic_moments().is_some())
    };
    let Some(i) = (0..bodies.len()).find(|&i| anisotropic(i)) else {
        return Ok(());
    };
    let refuse = |why: &str| {
        Err(BuildError::Body {
            body: i,
            field: "principal_moments",
            problem: format!("(anisotropic inertia) {why}"),
        })
    };
    if settings.planar {
        return refuse("are 3-D only: in planar mode give the moment about y as the inertia");
    }
    Ok(())
}

/// The kernels' principal moments of `bodies`: each dynamic anisotropic body's, zero for the
/// others (empty when there is none).
pub(crate) fn principal_inertia(bodies: &[Body]) -> PrincipalInertia {
    PrincipalInertia::new(
        bodies
            .iter()
            .map(|b| match b.kind {
                BodyKind::Dynamic => b.anisotropic_moments().unwrap_or(Vec3::ZERO),
                _ => Vec3::ZERO,
            })
            .collect(),
    )
}

/// Refuses `settings` in planar mode for a world of `bodies` with anisotropic bodies (dynamic
/// bodies whose [`grains_kernels::Motion::inv_inertia`] is 0: their moments are in the
/// backend), as the builder does ([`World::set_settings`](crate::World::set_settings)).
pub(crate) fn check_planar_switch(settings: &Settings, bodies: &Bodies) -> Result<(), BuildError> {
    let anisotropic =
        (0..bodies.len()).find(|&i| bodies.is_dynamic(i) && bodies.motion[i].inv_inertia == 0.0);
    match anisotropic {
        Some(body) if settings.planar => Err(BuildError::Body {
            body,
            field: "principal_moments",
            problem: "(anisotropic inertia) are 3-D only: this world cannot switch to planar mode"
                .into(),
        }),
        _ => Ok(()),
    }
}
