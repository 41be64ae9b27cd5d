//! Poisson restitution (the impact model of the anitescu slides): compression and decompression
//! impulses on the colliding contacts, before the step's CCP.

use glam::Vec3;
use grains::{Body, Material, Settings, SolverKind, WallDesc, World};

const R: f32 = 0.05;

/// The papers' rigid scheme at h = 1e-4 with `solver`.
fn rigid(solver: SolverKind) -> Settings {
    Settings {
        h: 1e-4,
        solver: Settings::default().solver.with_kind(solver),
        ..Settings::default()
    }
}

/// A floor of material `floor` (index 0) and spheres of material `ball` (index 1) at `centres`.
fn world(floor: Material, ball: Material, settings: Settings, centres: &[Vec3]) -> World {
    let mut b = World::builder(settings);
    let floor = b.material(floor);
    let ball = b.material(ball);
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z).with_material(floor));
    for &c in centres {
        b.body(Body::sphere(c, R, 1.0).with_material(ball));
    }
    b.build().unwrap()
}

/// Highest centre height of body `i` after its first upward velocity, over `steps` steps.
fn rebound_centre(w: &mut World, i: usize, steps: usize) -> f32 {
    let mut top = f32::NAN;
    for _ in 0..steps {
        w.step().unwrap();
        if w.velocity(i).z > 0.0 || !top.is_nan() {
            top = top.max(w.position(i).z);
        }
    }
    top
}

#[test]
fn a_resting_sphere_stays_at_rest_however_elastic() {
    let elastic = Material::new(0.3).with_restitution(1.0);
    let mut w = world(
        elastic,
        elastic,
        rigid(SolverKind::GaussSeidel),
        &[Vec3::new(0.0, 0.0, R)],
    );
    for _ in 0..5000 {
        w.step().unwrap();
        assert_eq!(
            w.position(0).z,
            R,
            "the resting sphere moved at t = {}",
            w.time()
        );
        assert_eq!(w.velocity(0), Vec3::ZERO);
    }
}

/// Pairs take the smaller e: a sphere of e = 0.9 on a floor of e = 0.5 rebounds to 0.25 H.
#[test]
fn a_pair_restitutes_with_the_smaller_coefficient() {
    let h_drop = 0.5;
    let mut w = world(
        Material::new(0.3).with_restitution(0.5),
        Material::new(0.3).with_restitution(0.9),
        rigid(SolverKind::GaussSeidel),
        &[Vec3::new(0.0, 0.0, R + h_drop)],
    );
    let rebound = rebound_centre(&mut w, 0, 6000) - R;
    assert!(
        (rebound / (0.25 * h_drop) - 1.0).abs() < 0.01,
        "rebound {rebound} m, expected 0.25 H = {}",
        0.25 * h_drop
    );
}

/// The impact is rigid whatever the step's contact: with the granular tuning (compliant contact
/// at f = 1.2/h, 30 sweeps) the rebound is still e² H.
#[test]
fn a_compliant_contact_rebounds_as_high() {
    let (e, h_drop) = (0.5f32, 0.5f32);
    let m = Material::new(0.3).with_restitution(e);
    let mut w = world(
        m,
        m,
        Settings::granular(1e-4),
        &[Vec3::new(0.0, 0.0, R + h_drop)],
    );
    let rebound = rebound_centre(&mut w, 0, 6000) - R;
    assert!(
        (rebound / (e * e * h_drop) - 1.0).abs() < 0.01,
        "rebound {rebound} m, expected e² H = {}",
        e * e * h_drop
    );
}

/// Poisson on a chain: a sphere dropped on a sphere resting on the floor gets back e of its
/// compression impulse from the upper contact, the lower sphere gets e of the same impulse from
/// each side and does not move; the upper one rebounds to e² H, with either solver.
#[test]
fn a_sphere_dropped_on_a_resting_sphere_rebounds_to_e_squared_h() {
    let (e, h_drop) = (0.9f32, 0.5f32);
    let m = Material::new(0.3).with_restitution(e);
    for solver in SolverKind::ALL {
        let lower = Vec3::new(0.0, 0.0, R);
        let upper = Vec3::new(0.0, 0.0, 3.0 * R + h_drop);
        let mut w = world(m, m, rigid(solver), &[lower, upper]);
        let rebound = rebound_centre(&mut w, 1, 8000) - 3.0 * R;
        assert!(
            (rebound / (e * e * h_drop) - 1.0).abs() < 0.01,
            "{solver:?}: rebound {rebound} m, expected e² H = {}",
            e * e * h_drop
        );
        assert_eq!(w.position(0), lower, "{solver:?}: the lower sphere moved");
    }
}

/// A rigid dumbbell (two spheres of mass 1 fixed to each other, centres L = 0.3 m apart, tilted
/// α = 30°) falls at v = 2 m/s without gravity onto a frictionless floor with e = 0.5 and lands on
/// its lower sphere. The joints hold through the impact, so the pair rebounds as one rigid body
/// (Newton's impact with Poisson's hypothesis, which agree for one frictionless contact): the
/// impulse J = m_eff (1 + e) v with 1/m_eff = 1/M + d²/I, d = (L/2) cos α the contact's lever
/// arm, I = 2 m (L/2)² + 2 · (2/5) m r², so the centre of mass leaves at −v + J/M, the pair spins
/// at ω = J d / I and the contact point leaves at e v. Were the joints left out of the impact,
/// the lower sphere would rebound alone and the joint would then merge the pair inelastically:
/// its centre of mass would move at −v (1 − e)/2 = −0.5 m/s instead of −0.254. Every solver
/// (the joints are an outer Gauss–Seidel split of Jacobi's and APGD's sweeps).
#[test]
fn a_jointed_pair_rebounds_as_one_rigid_body() {
    use grains::JointDesc;
    let (l, alpha, v, e) = (0.3f32, 30f32.to_radians(), 2.0f32, 0.5f32);
    let half = 0.5 * l * Vec3::new(alpha.cos(), 0.0, alpha.sin());
    let centre = Vec3::new(0.0, 0.0, half.z + R + 1e-4);
    for solver in SolverKind::ALL {
        let mut settings = rigid(solver);
        settings.gravity = Vec3::ZERO;
        settings.solver = settings.solver.with_sweeps(500).with_tolerance(1e-8);
        let mut b = World::builder(settings);
        let smooth = b.material(Material::new(0.0).with_restitution(e));
        b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z).with_material(smooth));
        for c in [centre - half, centre + half] {
            b.body(
                Body::sphere(c, R, 1.0)
                    .with_material(smooth)
                    .with_velocity(Vec3::new(0.0, 0.0, -v)),
            );
        }
        b.joint(JointDesc::fixed(0, Some(1), centre));
        let mut w = b.build().unwrap();
        w.step().unwrap();
        assert_eq!(w.contacts().len(), 1, "one contact: the lower sphere's");
        let (m, inertia) = (2.0, 2.0 * (0.5 * l).powi(2) + 2.0 * 0.4 * R * R);
        let d = 0.5 * l * alpha.cos();
        let m_eff = 1.0 / (1.0 / m + d * d / inertia);
        let impulse = m_eff * (1.0 + e) * v;
        let v_cm = 0.5 * (w.velocity(0) + w.velocity(1));
        let spin = w.angular_velocity(0);
        let contact = w.velocity(0) + spin.cross(Vec3::new(0.0, 0.0, -R));
        for (what, got, want) in [
            ("centre of mass z velocity", v_cm.z, -v + impulse / m),
            ("spin about y", spin.y, impulse * d / inertia),
            ("contact point z velocity", contact.z, e * v),
            (
                "second sphere's spin",
                w.angular_velocity(1).y,
                impulse * d / inertia,
            ),
        ] {
            assert!(
                (got - want).abs() <= 2e-3 * want.abs().max(1.0),
                "{solver:?}: {what}: {got}, closed form {want}"
            );
        }
        assert!(
            v_cm.x.abs() < 1e-4,
            "frictionless: no sideways motion, {v_cm}"
        );
    }
}
