//! V26, shaped grains at rest at the bottom of a drum (issue 16): a clump, an ellipsoid, a box,
//! the same box as a convex polyhedron and a capsule, each alone in a horizontal cylinder wall
//! of radius R (not turning), laid just above its lowest line (the capsule across the axis, the
//! others along it), come to rest at the bottom with the depth of their centre
//! below the axis in closed form and their contact forces adding up to their weight:
//! * a dumbbell clump (two member spheres of radius r along the axis): each member touches the
//!   mantle at distance R − r from the axis (`grains_kernels::wall_contact::sphere_frustum`);
//! * an ellipsoid (a along the axis, b across, c vertical): its cross-section's radius of
//!   curvature at the bottom, b²/c, is below R, so it touches at its lowest point only, the
//!   centre R − c below the axis (`grains_kernels::pair_algorithms::ellipsoid_frustum`: the support point in the
//!   outward radial direction that reaches farthest);
//! * a box of half-extents (a, b, c), a along the axis, c vertical: its four bottom corners
//!   lie on the mantle, √(b² + (depth + c)²) = R, so the centre is √(R² − b²) − c below the axis
//!   (a convex polytope's deepest point inside the mantle is a vertex); the polyhedron of its
//!   eight corners (whose principal axes are the box's) rests there too;
//! * a solid capsule of radius r and half-length L laid across the axis: its end spheres touch
//!   the mantle (the clearance of its core segment is least at an end), each centre R − r from
//!   the axis, so the centre is √((R − r)² − L²) below it.

use crate::case::{About, Case, CaseError, Setup};
use grains::{
    Body, ClumpTemplate, Material, Polyhedron, Quat, Settings, Solver, Vec3, WallDesc, World,
};

/// V26's drum radius (m).
pub const V26_RADIUS: f32 = 0.5;
/// V26's time step (s).
pub const V26_H: f32 = 1e-3;
/// V26's steps (2 s: each body drops 1 mm and settles).
pub const V26_STEPS: u64 = 2000;
/// Gravity (m/s²).
const G: f32 = 9.81;
/// The dumbbell's member radius and spacing (m).
const MEMBER: (f32, f32) = (0.05, 0.08);
/// The ellipsoid's semi-axes (m) and mass (kg).
const ELLIPSOID: (Vec3, f32) = (Vec3::new(0.06, 0.04, 0.03), 0.5);
/// The box's half-extents (m) and mass (kg).
const BOX: (Vec3, f32) = (Vec3::new(0.06, 0.05, 0.04), 0.5);
/// The capsule's radius and half-length (m) and mass (kg).
const CAPSULE: (f32, f32, f32) = (0.03, 0.1, 0.5);

/// One body's rest in the drum.
#[derive(Clone, Debug, PartialEq)]
pub struct DrumRest {
    /// The body's shape.
    pub shape: &'static str,
    /// Depth of its centre below the axis (m).
    pub depth: f32,
    /// The closed form's depth (m).
    pub expected: f32,
    /// Its centre's offset across the axis, |y| (m).
    pub offset: f32,
    /// The sum of its contact forces (N).
    pub force: Vec3,
    /// Its weight (N).
    pub weight: f32,
    /// Number of contacts.
    pub contacts: usize,
}

impl DrumRest {
    /// |depth − expected| / (R − expected), the error against the gap between the centre and
    /// the mantle's lowest line.
    pub fn depth_error(&self) -> f32 {
        (self.depth - self.expected).abs() / (V26_RADIUS - self.expected)
    }

    /// |Σ F − m g ẑ| / (m g).
    pub fn force_error(&self) -> f32 {
        (self.force - self.weight * Vec3::Z).length() / self.weight
    }

    /// At rest at the closed-form depth, on the vertical through the axis, the forces the
    /// weight, each to 1e-4 (issue 16's bound).
    pub fn passes(&self) -> bool {
        self.depth_error() <= 1e-4
            && self.offset <= 1e-4 * (V26_RADIUS - self.expected)
            && self.force_error() <= 1e-4
    }
}

/// The drum world: the cylinder of radius [`V26_RADIUS`] and length 1 m about the x axis,
/// friction 0.5, rigid contact solved by Gauss–Seidel to 1e-9 m/s, on `threads` threads.
fn drum(threads: Option<usize>) -> grains::WorldBuilder {
    let mut b = World::builder(Settings {
        h: V26_H,
        threads: threads.unwrap_or(1),
        solver: Solver::GaussSeidel {
            sweeps: 500,
            tolerance: 1e-9,
            omega: 1.0,
        },
        ..Settings::default()
    });
    b.material(Material::new(0.5));
    b.wall(WallDesc::cylinder(
        Vec3::ZERO,
        Vec3::X,
        V26_RADIUS,
        0.5,
        true,
    ));
    b
}

/// Settles the one body `add` puts into the drum and measures its rest against the closed
/// form `expected`.
fn rest(
    shape: &'static str,
    expected: f32,
    threads: Option<usize>,
    add: impl Fn(&mut grains::WorldBuilder, Vec3),
) -> Result<DrumRest, CaseError> {
    let mut b = drum(threads);
    add(&mut b, Vec3::new(0.0, 0.0, -expected + 0.001));
    let mut w = b.build()?;
    w.run(V26_STEPS)?;
    let p = w.position(0);
    let contacts: Vec<_> = w.contacts().collect();
    Ok(DrumRest {
        shape,
        depth: -p.z,
        expected,
        offset: p.y.abs(),
        force: contacts.iter().map(|c| c.force).sum(),
        weight: w.mass(0) * G,
        contacts: contacts.len(),
    })
}

/// Runs V26 on `threads` threads (None: one): the clump, the ellipsoid, the box, the
/// polyhedron and the capsule.
pub fn v26(threads: Option<usize>) -> Result<Vec<DrumRest>, CaseError> {
    let (r, spacing) = MEMBER;
    let rod = ClumpTemplate::rod(2, r, spacing)?;
    let (semi, m_e) = ELLIPSOID;
    let (half, m_b) = BOX;
    let corners: Vec<Vec3> = (0..8)
        .map(|k| {
            let s = |i: u32| if k >> i & 1 == 1 { 1.0 } else { -1.0 };
            half * Vec3::new(s(0), s(1), s(2))
        })
        .collect();
    let hull = Polyhedron::from_points(&corners)?;
    let box_depth = (V26_RADIUS * V26_RADIUS - half.y * half.y).sqrt() - half.z;
    let (r_c, half_c, m_c) = CAPSULE;
    let capsule_depth = ((V26_RADIUS - r_c).powi(2) - half_c * half_c).sqrt();
    Ok(vec![
        rest("clump", V26_RADIUS - r, threads, |b, at| {
            let c = b.clump_template(&rod);
            b.body(Body::clump(at, Quat::IDENTITY, &c, 1000.0));
        })?,
        rest("ellipsoid", V26_RADIUS - semi.z, threads, |b, at| {
            b.body(Body::ellipsoid(at, semi, m_e));
        })?,
        rest("box", box_depth, threads, |b, at| {
            b.body(Body::cuboid(at, half, m_b));
        })?,
        rest("polyhedron", box_depth, threads, |b, at| {
            let id = b.hull(&hull);
            b.body(Body::polyhedron(at, id, m_b));
        })?,
        rest("capsule", capsule_depth, threads, |b, at| {
            let across = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
            b.body(Body::solid_capsule(at, r_c, half_c, m_c).with_orientation(across));
        })?,
    ])
}

/// V26: shaped grains at rest at the bottom of a drum.
pub struct V26;

impl Case for V26 {
    type Measured = Vec<DrumRest>;

    const ABOUT: About = About {
        id: "V26",
        title: "shaped grains rest in a drum",
        scenes: &[],
    };

    fn expected(&self) -> String {
        format!(
            "a dumbbell clump, an ellipsoid, a box and a box polyhedron laid along a drum's axis (R = {V26_RADIUS} m), and a capsule across it, rest at its bottom: centre depth R − r, R − c, √(R² − b²) − c and √((R − r)² − L²) below the axis, on the vertical, contact forces = weight (each to 1e-4)"
        )
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        v26(setup.threads)
    }

    fn verdict(&self, m: &Self::Measured) -> bool {
        m.iter().all(DrumRest::passes)
    }

    fn key_figure(&self, m: &Self::Measured) -> String {
        let worst = |f: fn(&DrumRest) -> f32| m.iter().map(f).fold(0.0, f32::max);
        format!(
            "depth err {:.0e}, F err {:.0e}",
            worst(DrumRest::depth_error),
            worst(DrumRest::force_error)
        )
    }

    fn measured(&self, m: &Self::Measured) -> String {
        let each: Vec<String> = m
            .iter()
            .map(|r| {
                format!(
                    "{}: depth {:.6} m against {:.6} m (error {:.1e}), {} contacts, F = {:.5} N against m g = {:.5} N (error {:.1e})",
                    r.shape,
                    r.depth,
                    r.expected,
                    r.depth_error(),
                    r.contacts,
                    r.force.z,
                    r.weight,
                    r.force_error()
                )
            })
            .collect();
        format!(
            "after {:.1} s: {}",
            V26_STEPS as f32 * V26_H,
            each.join("; ")
        )
    }
}
