//! V25, a convex polyhedron at rest on a face (issue 16): an irregular pebble of seven points
//! (its convex hull, mass properties by signed tetrahedra, `grains::polyhedron`) dropped tilted
//! onto a floor comes to rest on one of its faces as statics says: that face level, the centre
//! of mass at the face's distance from it above the floor, held at the face's corners by normal
//! forces that add up to its weight and whose moments about the centre cancel, with no friction
//! force. The hull meets the floor at its vertices (`grains_kernels::shapes::polyhedron`) and turns
//! with its three principal moments.

use crate::case::{About, Case, CaseError, Setup};
use grains::{Body, Polyhedron, Quat, Vec3};

/// V25's point cloud (m): an irregular pebble about 8 cm across.
pub const V25_POINTS: [Vec3; 7] = [
    Vec3::new(0.04, 0.0, -0.01),
    Vec3::new(-0.035, 0.015, -0.012),
    Vec3::new(0.005, -0.03, -0.015),
    Vec3::new(0.0, 0.035, 0.0),
    Vec3::new(0.01, 0.0, 0.03),
    Vec3::new(-0.02, -0.02, 0.02),
    Vec3::new(0.025, 0.02, 0.015),
];
/// V25's density (kg/m³).
pub const V25_DENSITY: f32 = 2600.0;
/// V25's time step (s).
pub const V25_H: f32 = 1e-3;
/// V25's steps (6 s: the pebble lands, tips and comes to rest).
pub const V25_STEPS: u64 = 6000;
/// Gravity (m/s²).
const G: f32 = 9.81;

/// What V25 measured at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct PolyhedronAtRest {
    /// Height of the centre of mass above the floor (m).
    pub height: f32,
    /// The resting face's distance from the centre of mass (m): the height statics gives.
    pub face_offset: f32,
    /// Corners of the resting face.
    pub face_corners: usize,
    /// |1 + n_z| of the resting face's outward normal: how far it is from facing straight down.
    pub tilt: f32,
    /// Speed of the centre (m/s) and angular speed (rad/s).
    pub speeds: (f32, f32),
    /// Number of contacts.
    pub contacts: usize,
    /// Sum of the contact forces (N).
    pub force: Vec3,
    /// Sum of the contact forces' moments about the centre of mass (N m).
    pub moment: Vec3,
    /// The weight m g (N).
    pub weight: f32,
    /// The hull's bounding radius (m), the moments' scale.
    pub size: f32,
}

impl PolyhedronAtRest {
    /// |height − d| / d for the resting face's distance d.
    pub fn height_error(&self) -> f32 {
        (self.height - self.face_offset).abs() / self.face_offset
    }

    /// |F_z − m g| / (m g).
    pub fn weight_error(&self) -> f32 {
        (self.force.z - self.weight).abs() / self.weight
    }

    /// |F_xy| / (m g).
    pub fn friction_share(&self) -> f32 {
        self.force.truncate().length() / self.weight
    }

    /// |M| / (m g R).
    pub fn moment_share(&self) -> f32 {
        self.moment.length() / (self.weight * self.size)
    }

    /// At rest on a face at its height, the face level, one contact per corner of it, forces
    /// and moments that balance the weight, each to 1e-4 (issue 16's bound). The solve runs
    /// 3000 Gauss–Seidel sweeps: with the pebble's principal axes tilted against its resting
    /// face, 500 sweeps to a 1e-9 m/s tolerance left the normal forces 1.1e-4 above the weight.
    pub fn passes(&self) -> bool {
        self.height_error() <= 1e-4
            && self.tilt <= 1e-4
            && self.speeds.0 < 1e-4
            && self.speeds.1 < 1e-3
            && self.contacts == self.face_corners
            && self.weight_error() <= 1e-4
            && self.friction_share() <= 1e-4
            && self.moment_share() <= 1e-4
    }
}

/// Runs V25 on `threads` threads (None: one).
pub fn v25(threads: Option<usize>) -> Result<PolyhedronAtRest, CaseError> {
    let mut b = super::on_floor::floor_world(V25_H, threads, 3000, 0.0);
    let pebble = Polyhedron::from_points(&V25_POINTS)?;
    let mass = pebble.mass(V25_DENSITY);
    let id = b.hull(&pebble);
    let tilt = Quat::from_rotation_x(0.5) * Quat::from_rotation_y(0.3);
    b.body(Body::polyhedron(Vec3::new(0.0, 0.0, 0.12), id, mass).with_orientation(tilt));
    let mut w = b.build()?;
    for _ in 0..V25_STEPS {
        w.step()?;
    }
    let q = w.orientation(0);
    let hull = &pebble.hull;
    let face = (0..hull.faces.len())
        .min_by(|&f, &g| {
            (q * hull.faces[f].normal)
                .z
                .total_cmp(&(q * hull.faces[g].normal).z)
        })
        .expect("a hull has faces");
    let centre = w.position(0);
    let contacts: Vec<_> = w.contacts().collect();
    Ok(PolyhedronAtRest {
        height: centre.z,
        face_offset: hull.faces[face].offset,
        face_corners: hull.faces[face].count as usize,
        tilt: (1.0 + (q * hull.faces[face].normal).z).abs(),
        speeds: (w.velocity(0).length(), w.angular_velocity(0).length()),
        contacts: contacts.len(),
        force: contacts.iter().map(|c| c.force).sum(),
        moment: contacts
            .iter()
            .map(|c| (c.point - centre).cross(c.force))
            .sum(),
        weight: mass * G,
        size: hull.outer_radius,
    })
}

/// V25: a convex polyhedron at rest on a face.
pub struct V25;

impl Case for V25 {
    type Measured = PolyhedronAtRest;

    const ABOUT: About = About {
        id: "V25",
        title: "polyhedron rests on a face",
        scenes: &[],
    };

    fn expected(&self) -> String {
        "an irregular 7-point pebble (2600 kg/m³) dropped tilted rests on a face: centre at that face's distance d from the centre of mass, face level, one contact per corner, forces = weight, moments about the centre 0, friction 0 (each to 1e-4)".into()
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        v25(setup.threads)
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
            "after {:.1} s: centre at {:.6} m against d = {:.6} m (error {:.1e} relative), face of {} corners tilted {:.1e}, speed {:.1e} m/s, spin {:.1e} rad/s, {} contacts, F_z = {:.5} N against m g = {:.5} N (error {:.1e}), |F_xy| {:.1e} and |M| {:.1e} of the weight",
            V25_STEPS as f32 * V25_H,
            m.height,
            m.face_offset,
            m.height_error(),
            m.face_corners,
            m.tilt,
            m.speeds.0,
            m.speeds.1,
            m.contacts,
            m.force.z,
            m.weight,
            m.weight_error(),
            m.friction_share(),
            m.moment_share()
        )
    }
}
