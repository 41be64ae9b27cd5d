//! The checks a world with periodic boundaries ([`Settings::periodic`]) must pass at build:
//! ranges of at least twice the largest pair reach, spheres only, every centre inside the
//! ranges at the start (bodies are not wrapped on build: one outside is refused), walls that
//! make sense in a periodic world, no joints or springs, and the CPU backend; a shear rate
//! (Lees–Edwards) only with both x and y periodic.

use crate::body::Body;
use crate::error::BuildError;
use crate::geometry::WallDesc;
use crate::settings::{Envelope, Settings};

pub use grains_kernels::periodic::Periodic;

/// A wall's normal may have at most this component along a periodic axis (a floor tilted by
/// float round-off stays a floor).
const ALONG_AXIS: f32 = 1e-6;

/// Checks the ranges themselves: finite, hi > lo; and a shear rate finite, with both x and y
/// periodic when not zero (called by [`Settings::check`]).
pub(crate) fn check_ranges(periodic: &Periodic) -> Result<(), BuildError> {
    let rate = periodic.shear_rate;
    let problem = if !rate.is_finite() {
        Some(format!("shear_rate must be finite, got {rate}"))
    } else if rate != 0.0 && (periodic.x.is_none() || periodic.y.is_none()) {
        Some(format!(
            "shear_rate {rate} 1/s shears the cell along x across y: it needs both x and y periodic"
        ))
    } else {
        None
    };
    if let Some(problem) = problem {
        return Err(BuildError::Settings {
            field: "periodic.shear_rate",
            problem,
        });
    }
    for (name, range) in ["x", "y"].into_iter().zip(periodic.axes()) {
        if let Some((lo, hi)) = range {
            if !(lo.is_finite() && hi.is_finite() && hi > lo) {
                return Err(BuildError::Settings {
                    field: "periodic",
                    problem: format!(
                        "range along {name} must be finite with hi > lo, got [{lo}, {hi})"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Checks a periodic world's parts against its ranges: the period against the pair reach, the
/// bodies' positions, and flat walls whose normal has a component along a periodic axis (a
/// side wall across the flow has no place in a periodic world) or whose rectangle is bounded
/// along one (it would end at a seam it cannot cross). What a periodic world does not combine
/// with (joints, springs, shapes other than spheres, round walls, meshes, insertions and
/// sinks, the GPU backend) is the support table's ([`crate::support`]).
pub(crate) fn check_world(
    settings: &Settings,
    envelope: Envelope,
    bodies: &[Body],
    walls: &[WallDesc],
) -> Result<(), BuildError> {
    let periodic = settings.periodic;
    if !periodic.is_on() {
        return Ok(());
    }
    let r_max = bodies.iter().map(|b| b.radius).fold(0.0f32, f32::max);
    let floor = match envelope {
        Envelope::PerPair { floor, .. } => floor,
        Envelope::Fixed(e) => e,
    };
    let pair_reach = 2.0 * r_max + floor;
    for (axis, (name, range)) in ["x", "y"].into_iter().zip(periodic.axes()).enumerate() {
        let Some((lo, hi)) = range else { continue };
        if hi - lo < 2.0 * pair_reach {
            return Err(BuildError::Settings {
                field: "periodic",
                problem: format!(
                    "period along {name} is {} m, under twice the largest pair reach 2 (2 r_max + ε̂) = {} m: a grain could touch another (or itself) across both seams",
                    hi - lo,
                    2.0 * pair_reach
                ),
            });
        }
        for (i, b) in bodies.iter().enumerate() {
            let x = b.position[axis];
            if !(lo..hi).contains(&x) {
                return Err(body_error(
                    i,
                    "position",
                    format!("{name} = {x} lies outside the periodic range [{lo}, {hi})"),
                ));
            }
        }
        for (w, wall) in walls.iter().enumerate() {
            check_wall(w, wall, axis, name)?;
        }
    }
    Ok(())
}

/// A flat wall (already normalised) whose normal is perpendicular to periodic `axis` and whose
/// rectangle is unbounded along it.
fn check_wall(w: usize, wall: &WallDesc, axis: usize, name: &str) -> Result<(), BuildError> {
    let err = |field, problem: String| {
        Err(BuildError::Wall {
            wall: w,
            field,
            problem,
        })
    };
    if wall.normal[axis].abs() > ALONG_AXIS {
        return err(
            "normal",
            format!(
                "{} has a component along the periodic axis {name}: a wall facing across a seam is refused",
                wall.normal
            ),
        );
    }
    let v = wall.normal.cross(wall.u);
    for (dir, half) in [(wall.u, wall.half_u), (v, wall.half_v)] {
        if dir[axis].abs() > ALONG_AXIS && half.is_finite() {
            return err(
                "extent",
                format!("is bounded along the periodic axis {name} (half extent {half} m): a wall in a periodic world must be unbounded along it"),
            );
        }
    }
    Ok(())
}

fn body_error(body: usize, field: &'static str, problem: String) -> BuildError {
    BuildError::Body {
        body,
        field,
        problem,
    }
}
