//! V4: the ellipse on a tabletop of hart-anitescu §3 (their Fig. 2), in planar mode on the line
//! z = 0: with the stabilising term Φ/h its penetration stays in a narrow band; without it the
//! penetration grows.

use crate::case::{About, Case, CaseError, Setup};
use crate::G;
use glam::Vec3;
use grains::body::Body;
use grains::error::BuildError;
use grains::geometry::WallDesc;
use grains::material::Material;
use grains::settings::{Envelope, Settings};
use grains::world::World;
use grains::Solver;
use grains::StepError;
use grains_kernels::shapes::ellipse::ellipse_support;

/// V4's ellipse: semi-axes a = 4, b = 2 (m; axes 8 and 4).
pub const V4_AXES: (f32, f32) = (4.0, 2.0);
/// V4's areal density (kg/m²).
pub const V4_DENSITY: f32 = 10.0;
/// V4's step h (s), duration (s) and envelope ε̂ (m).
pub const V4_H: f32 = 0.05;
/// V4's duration (s).
pub const V4_DURATION: f32 = 20.0;
/// V4's envelope ε̂ (m).
pub const V4_ENVELOPE: f32 = 0.3;

/// The V4 world: the ellipse of [`V4_AXES`] and mass ρπab, centre dropped from height 8 with
/// ω = 3 rad/s onto the line z = 0, μ = 0.3, h = 0.05, ε̂ = 0.3 (fixed), rigid contact, with or
/// without the Φ/h term, solved by Gauss–Seidel to 1e-7 m/s (or the iteration of
/// [`Setup::solver`]) on one thread (or `setup`'s).
pub fn v4_world(setup: &Setup, stabilise: bool) -> Result<World, BuildError> {
    let (a, b) = V4_AXES;
    let mass = V4_DENSITY * std::f32::consts::PI * a * b;
    let mut w = World::builder(Settings {
        h: V4_H,
        gravity: Vec3::new(0.0, 0.0, -G),
        envelope: Some(Envelope::Fixed(V4_ENVELOPE)),
        planar: true,
        stabilise_contacts: stabilise,
        solver: setup.solver_for(Solver::GaussSeidel {
            sweeps: 200,
            tolerance: 1e-7,
            omega: 1.0,
        }),
        threads: setup.threads.unwrap_or(1),
        ..Settings::default()
    });
    w.material(Material::new(0.3));
    w.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    w.body(
        Body::ellipse(Vec3::new(0.0, 0.0, 8.0), a, b, mass)
            .with_angular_velocity(Vec3::new(0.0, 3.0, 0.0)),
    );
    w.build()
}

/// The ellipse's gap to the line z = 0: the height of its lowest point, Φ = z_c + s_z with s
/// its support point in −ẑ.
pub fn ellipse_gap(w: &World, i: usize) -> f32 {
    let (a, b) = V4_AXES;
    w.position(i).z + ellipse_support(w.orientation(i), a, b, Vec3::NEG_Z).z
}

/// What one V4 run measured: the penetration max(0, −Φ) of the ellipse into the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EllipseDrop {
    /// Whether the Φ/h term was on.
    pub stabilised: bool,
    /// Penetration at the end (m).
    pub end: f32,
    /// Largest penetration over the run (m).
    pub max: f32,
    /// Smallest and largest penetration over the second half of the run (m).
    pub late_band: (f32, f32),
    /// Time of the first contact (Φ ≤ ε̂) (s).
    pub first_contact: f32,
}

/// V4 (hart-anitescu §3, their Fig. 2): steps the ellipse world for 20 s, tracking the
/// penetration into the table after every step.
pub fn v4(mut w: World, stabilised: bool) -> Result<EllipseDrop, StepError> {
    let steps = (V4_DURATION / V4_H).round() as u64;
    let mut r = EllipseDrop {
        stabilised,
        end: 0.0,
        max: 0.0,
        late_band: (f32::INFINITY, 0.0),
        first_contact: f32::NAN,
    };
    for step in 1..=steps {
        let s = w.step()?;
        if s.contacts > 0 && r.first_contact.is_nan() {
            r.first_contact = w.time() as f32;
        }
        let pen = (-ellipse_gap(&w, 0)).max(0.0);
        r.max = r.max.max(pen);
        if step > steps / 2 {
            r.late_band = (r.late_band.0.min(pen), r.late_band.1.max(pen));
        }
        r.end = pen;
    }
    Ok(r)
}

/// V4 passes when the stabilised run ends at least 100× less deep than the unstabilised one and
/// its late penetration stays within a narrow band (below 1 % of the short semi-axis).
pub fn v4_passes(with: &EllipseDrop, without: &EllipseDrop) -> bool {
    with.stabilised
        && !without.stabilised
        && without.end >= 100.0 * with.end
        && without.end > 0.0
        && with.late_band.1 <= 0.01 * V4_AXES.1
}

/// V4 (hart-anitescu §3, Fig. 2): the ellipse of [`v4_world`] dropped spinning onto the table,
/// with and without the Φ/h term.
pub struct V4;

impl Case for V4 {
    /// The runs with and without Φ/h.
    type Measured = (EllipseDrop, EllipseDrop);

    const ABOUT: About = About {
        id: "V4",
        title: "ellipse on a table: Φ/h",
        scenes: &[],
    };

    fn expected(&self) -> String {
        "ellipse: late penetration in a narrow band, ≥ 100× smaller at the end with Φ/h than \
         without"
            .into()
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        let run = |stabilise| -> Result<EllipseDrop, CaseError> {
            Ok(v4(v4_world(setup, stabilise)?, stabilise)?)
        };
        Ok((run(true)?, run(false)?))
    }

    fn verdict(&self, (with, without): &Self::Measured) -> bool {
        v4_passes(with, without)
    }

    fn key_figure(&self, (with, without): &Self::Measured) -> String {
        format!(
            "end penetration {:.2e} m with Φ/h, {:.2e} without",
            with.end, without.end
        )
    }

    fn measured(&self, (with, without): &Self::Measured) -> String {
        format!(
            "with Φ/h: end {:.2e} m, t ≥ 10 s band [{:.2e}, {:.2e}], max {:.2e}; without: end \
             {:.2e} m, max {:.2e} (×{:.0})",
            with.end,
            with.late_band.0,
            with.late_band.1,
            with.max,
            without.end,
            without.max,
            without.end / with.end.max(f32::MIN_POSITIVE),
        )
    }
}
