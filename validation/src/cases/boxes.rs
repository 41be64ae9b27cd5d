//! V22, a box at rest on a face (issue 16): a slab dropped tilted onto a floor tips over onto its
//! largest face and rests there as statics says: its centre at its smallest half-extent above
//! the floor, the face level, held at its four lower corners by normal forces that add up to its
//! weight, with no friction force (a body at rest on a level floor). The box meets the floor at
//! its corners (`grains_kernels::shapes::cuboid`) and turns with its principal moments.

use crate::case::{About, Case, CaseError, Setup};
use grains::{Body, Quat, Vec3};

/// V22's half-extents (m).
pub const V22_HALF: Vec3 = Vec3::new(0.1, 0.05, 0.02);
/// V22's mass (kg).
pub const V22_MASS: f32 = 1.5;
/// V22's time step (s).
pub const V22_H: f32 = 1e-3;
/// V22's steps (4 s: the box lands, tips and comes to rest).
pub const V22_STEPS: u64 = 4000;
/// Gravity (m/s²).
const G: f32 = 9.81;

/// What V22 measured at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxAtRest {
    /// Height of the centre above the floor (m).
    pub height: f32,
    /// 1 − |ẑ_body · ẑ|: how far the largest face is from level.
    pub tilt: f32,
    /// Speed of the centre (m/s) and angular speed (rad/s).
    pub speeds: (f32, f32),
    /// Number of contacts.
    pub contacts: usize,
    /// Sum of the contact forces (N).
    pub force: Vec3,
}

impl BoxAtRest {
    /// |height − c| / c.
    pub fn height_error(&self) -> f32 {
        (self.height - V22_HALF.z).abs() / V22_HALF.z
    }

    /// |F_z − m g| / (m g).
    pub fn weight_error(&self) -> f32 {
        (self.force.z - V22_MASS * G).abs() / (V22_MASS * G)
    }

    /// |F_xy| / (m g).
    pub fn friction_share(&self) -> f32 {
        self.force.truncate().length() / (V22_MASS * G)
    }

    /// At rest on its largest face at the right height, level, on four corners, with forces that
    /// balance the weight, each to 1e-4 (issue 16's bound; the solve converges to 1e-9 m/s, so
    /// the forces are exact but for f32 rounding).
    pub fn passes(&self) -> bool {
        self.height_error() <= 1e-4
            && self.tilt <= 1e-4
            && self.speeds.0 < 1e-4
            && self.speeds.1 < 1e-3
            && self.contacts == 4
            && self.weight_error() <= 1e-4
            && self.friction_share() <= 1e-4
    }
}

/// Runs V22 on `threads` threads (None: one).
pub fn v22(threads: Option<usize>) -> Result<BoxAtRest, CaseError> {
    let mut b = super::on_floor::floor_world(V22_H, threads, 500, 1e-9);
    let tilt = Quat::from_rotation_x(0.3) * Quat::from_rotation_y(0.2);
    b.body(Body::cuboid(Vec3::new(0.0, 0.0, 0.15), V22_HALF, V22_MASS).with_orientation(tilt));
    let mut w = b.build()?;
    for _ in 0..V22_STEPS {
        w.step()?;
    }
    let forces: Vec<Vec3> = w.contacts().map(|c| c.force).collect();
    Ok(BoxAtRest {
        height: w.position(0).z,
        tilt: 1.0 - (w.orientation(0) * Vec3::Z).z.abs(),
        speeds: (w.velocity(0).length(), w.angular_velocity(0).length()),
        contacts: forces.len(),
        force: forces.iter().sum(),
    })
}

/// V22: a box at rest on a face.
pub struct V22;

impl Case for V22 {
    type Measured = BoxAtRest;

    const ABOUT: About = About {
        id: "V22",
        title: "box rests on its face",
        scenes: &[],
    };

    fn expected(&self) -> String {
        format!(
            "a {}×{}×{} m slab dropped tilted rests on its largest face: centre c = {} m up, level, four corner contacts, forces = weight, friction 0 (each to 1e-4)",
            2.0 * V22_HALF.x,
            2.0 * V22_HALF.y,
            2.0 * V22_HALF.z,
            V22_HALF.z
        )
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        v22(setup.threads)
    }

    fn verdict(&self, m: &Self::Measured) -> bool {
        m.passes()
    }

    fn key_figure(&self, m: &Self::Measured) -> String {
        format!(
            "z err {:.0e}, F err {:.0e}",
            m.height_error(),
            m.weight_error()
        )
    }

    fn measured(&self, m: &Self::Measured) -> String {
        format!(
            "after {} s: centre at {:.6} m (error {:.1e} relative), tilt {:.1e}, speed {:.1e} m/s, spin {:.1e} rad/s, {} contacts, F_z = {:.5} N against m g = {:.5} N (error {:.1e}), |F_xy| {:.1e} of the weight",
            V22_STEPS as f32 * V22_H,
            m.height,
            m.height_error(),
            m.tilt,
            m.speeds.0,
            m.speeds.1,
            m.contacts,
            m.force.z,
            V22_MASS * G,
            m.weight_error(),
            m.friction_share()
        )
    }
}
