//! V23, a clump at rest on a plane (issue 16): a clump of three overlapping spheres of radius r
//! (an uneven triangle) dropped tilted onto a floor comes to rest lying on all three members, as
//! statics says: its centre of mass r above the floor, level, held at one contact per member
//! below the member's centre, the three vertical forces F_k the barycentric coordinates of the
//! centre of mass in the triangle of the members' centres times m g (the only forces that
//! balance both the weight and its moment), with no friction force. The clump's mass
//! properties come from `grains::clump::union_moments`; its members meet the floor as spheres
//! (`grains_kernels::shapes::clump`).

use crate::case::{About, Case, CaseError, Setup};
use grains::{Body, ClumpTemplate, Quat, Vec3, Vec4, World, WorldBuilder};

/// V23's member radius (m).
pub const V23_RADIUS: f32 = 0.04;
/// V23's member centres in the template's axes (m): an uneven triangle whose sides (0.07,
/// 0.075, 0.085 m) are all under 2r, so each pair of members overlaps.
pub const V23_CENTRES: [Vec3; 3] = [
    Vec3::new(-0.035, 0.0, 0.0),
    Vec3::new(0.035, 0.0, 0.0),
    Vec3::new(0.012, 0.074, 0.0),
];
/// V23's density (kg/m³).
pub const V23_DENSITY: f32 = 2500.0;
/// V23's time step (s).
pub const V23_H: f32 = 1e-3;
/// V23's steps (3 s: the clump lands, tips over and comes to rest).
pub const V23_STEPS: u64 = 3000;
/// Gravity (m/s²).
const G: f32 = 9.81;

/// V23's template.
pub fn v23_template() -> ClumpTemplate {
    let spheres = V23_CENTRES.map(|c| c.extend(V23_RADIUS));
    ClumpTemplate::new(&spheres).expect("three spheres")
}

/// The vertical forces statics gives each member of a clump resting level on its members'
/// lowest points below `centres` (world, a horizontal triangle) with its centre of mass above
/// `com`: m g times the barycentric coordinates of com's projection in the triangle.
pub fn resting_shares(centres: [Vec3; 3], com: Vec3, weight: f32) -> [f32; 3] {
    let flat = |p: Vec3| glam::DVec2::new(p.x as f64, p.y as f64);
    let [a, b, c] = centres.map(flat);
    let p = flat(com);
    let area = |u: glam::DVec2, v: glam::DVec2, w: glam::DVec2| (v - u).perp_dot(w - u);
    let whole = area(a, b, c);
    [area(p, b, c), area(a, p, c), area(a, b, p)].map(|s| (s / whole * weight as f64) as f32)
}

/// What V23 measured at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct ClumpAtRest {
    /// Mass (kg).
    pub mass: f32,
    /// Height of the centre of mass above the floor (m).
    pub height: f32,
    /// Largest height of a member's centre above r (m): how far the clump is from level.
    pub tilt: f32,
    /// Speed of the centre (m/s) and angular speed (rad/s).
    pub speeds: (f32, f32),
    /// Each member's contact force (N), in member order (zero for a member without contact).
    pub forces: Vec<Vec3>,
    /// Each member's force from statics (N).
    pub shares: [f32; 3],
    /// Number of contacts.
    pub contacts: usize,
}

impl ClumpAtRest {
    /// |height − r| / r.
    pub fn height_error(&self) -> f32 {
        (self.height - V23_RADIUS).abs() / V23_RADIUS
    }

    /// The largest |F_k,z − share_k| / (m g).
    pub fn force_error(&self) -> f32 {
        let weight = self.mass * G;
        (self.forces.iter().zip(&self.shares))
            .map(|(f, s)| (f.z - s).abs() / weight)
            .fold(0.0, f32::max)
    }

    /// |Σ F_xy| / (m g).
    pub fn friction_share(&self) -> f32 {
        let sum: Vec3 = self.forces.iter().sum();
        sum.truncate().length() / (self.mass * G)
    }

    /// At rest on its three members at the right height, level, with each member's force its
    /// statics share of the weight and no friction force, each to 1e-4 (issue 16's bound; the
    /// solve converges to 1e-9 m/s, so the forces are exact but for f32 rounding).
    pub fn passes(&self) -> bool {
        self.height_error() <= 1e-4
            && self.tilt <= 1e-4 * V23_RADIUS
            && self.speeds.0 < 1e-4
            && self.speeds.1 < 1e-3
            && self.contacts == 3
            && self.force_error() <= 1e-4
            && self.friction_share() <= 1e-4
    }
}

/// Runs V23 on `threads` threads (None: one).
pub fn v23(threads: Option<usize>) -> Result<ClumpAtRest, CaseError> {
    v23_in(super::on_floor::floor_world(V23_H, threads, 500, 1e-9))
}

/// Runs V23 in the floor world of `b` (a plane z = 0 and friction 0.5, step V23_H: the
/// backend and solver are the caller's).
pub fn v23_in(b: WorldBuilder) -> Result<ClumpAtRest, CaseError> {
    v23_steps_in(b, V23_STEPS)
}

/// [`v23_in`] stepped `steps` steps instead of V23's [`V23_STEPS`].
pub fn v23_steps_in(b: WorldBuilder, steps: u64) -> Result<ClumpAtRest, CaseError> {
    let mut w = v23_world(b)?;
    for _ in 0..steps {
        w.step()?;
    }
    v23_measure(&mut w)
}

/// V23's clump dropped tilted into the floor world of `b`, built.
fn v23_world(mut b: WorldBuilder) -> Result<World, CaseError> {
    let clump = b.clump_template(&v23_template());
    let tilt = Quat::from_rotation_x(0.3) * Quat::from_rotation_y(0.2);
    b.body(Body::clump(
        Vec3::new(0.0, 0.0, 0.12),
        tilt,
        &clump,
        V23_DENSITY,
    ));
    Ok(b.build()?)
}

/// What V23 measures of the clump in `w` (a world of [`v23_world`]) now.
fn v23_measure(w: &mut World) -> Result<ClumpAtRest, CaseError> {
    let template = v23_template();
    w.sync_contacts()?;
    let (p, q) = (w.position(0), w.orientation(0));
    let centres: Vec<Vec3> = template
        .members()
        .iter()
        .map(|m: &Vec4| p + q * m.truncate())
        .collect();
    let mass = template.volume() as f32 * V23_DENSITY;
    // Each contact belongs to the member whose lowest point it is nearest.
    let mut forces = vec![Vec3::ZERO; 3];
    let mut contacts = 0;
    for c in w.contacts() {
        let k = (0..3)
            .min_by(|&i, &j| {
                let d = |k: usize| (centres[k] - V23_RADIUS * Vec3::Z).distance(c.point);
                d(i).total_cmp(&d(j))
            })
            .unwrap_or(0);
        forces[k] += c.force;
        contacts += 1;
    }
    let shares = resting_shares([centres[0], centres[1], centres[2]], p, mass * G);
    Ok(ClumpAtRest {
        mass,
        height: p.z,
        tilt: centres
            .iter()
            .map(|c| (c.z - V23_RADIUS).abs())
            .fold(0.0, f32::max),
        speeds: (w.velocity(0).length(), w.angular_velocity(0).length()),
        forces,
        shares,
        contacts,
    })
}

/// V23: a clump at rest on a plane.
pub struct V23;

impl Case for V23 {
    type Measured = ClumpAtRest;

    const ABOUT: About = About {
        id: "V23",
        title: "clump rests on a plane",
        scenes: &[],
    };

    fn expected(&self) -> String {
        format!(
            "three overlapping spheres (r = {} m, an uneven triangle) dropped tilted rest on all three: centre of mass r up, level, one contact per member carrying its statics share of m g (barycentric), friction 0 (each to 1e-4)",
            V23_RADIUS
        )
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        v23(setup.threads)
    }

    fn verdict(&self, m: &Self::Measured) -> bool {
        m.passes()
    }

    fn key_figure(&self, m: &Self::Measured) -> String {
        format!(
            "z err {:.0e}, F err {:.0e}",
            m.height_error(),
            m.force_error()
        )
    }

    fn measured(&self, m: &Self::Measured) -> String {
        format!(
            "after {:.1} s: centre at {:.6} m (error {:.1e} relative), members level to {:.1e} m, speed {:.1e} m/s, spin {:.1e} rad/s, {} contacts, F_z = {:.5}, {:.5}, {:.5} N against statics {:.5}, {:.5}, {:.5} N (largest error {:.1e} of m g), |F_xy| {:.1e} of the weight",
            V23_STEPS as f32 * V23_H,
            m.height,
            m.height_error(),
            m.tilt,
            m.speeds.0,
            m.speeds.1,
            m.contacts,
            m.forces[0].z,
            m.forces[1].z,
            m.forces[2].z,
            m.shares[0],
            m.shares[1],
            m.shares[2],
            m.force_error(),
            m.friction_share()
        )
    }
}
