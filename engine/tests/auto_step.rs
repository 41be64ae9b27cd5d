//! The adaptive step (`Settings::auto_step`, `h = "auto"` in scenes): a grain shot at 10 km/s
//! into a box's corner stays in the box where a fixed large step lets it through (the rigid
//! scheme at 2 ms), the
//! controller's choices land on the ticks and stay within [h_min, h_max], a run resumed from a
//! snapshot continues bit for bit, one and two threads give the same bits, and the settings it
//! cannot serve are refused at build naming both sides.

use grains::{sphere_mass, AutoStep, Body, BoxContainer, Check, Material, MaterialId};
use grains::{Fault, Settings, Snapshot, StepError, Vec3, Whereabouts, World};

const R: f32 = 0.005;
/// The bullet's speed (m/s).
const SPEED: f32 = 1e4;

/// The papers' rigid scheme at h = 2 ms.
fn fixed() -> Settings {
    Settings {
        h: 0.002,
        ..Settings::default()
    }
}

/// [`fixed`] with the adaptive step: h_max = 2 ms, h_min = 1e-8 s.
fn auto() -> Settings {
    Settings {
        auto_step: Some(AutoStep {
            h_min: 1e-8,
            ..AutoStep::new(0.002)
        }),
        ..fixed()
    }
}

/// A 0.1 m box with 16 grains on its floor and one shot from the middle at 10 km/s straight
/// into the corner (x, y = +0.05, z = 0), escapes and overlaps reported as warnings. With the rigid scheme
/// at a fixed 2 ms it passes the corner in its first step; with the adaptive step it takes 85
/// steps over 10 ticks (the shortest 2.5e-7 s, its reach) and rests in the corner.
fn corner_shot(mut settings: Settings) -> World {
    (settings.health.escape, settings.health.penetration) = (Check::Warn, Check::Warn);
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    b.container(&BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: 0.1,
        width_y: 0.1,
        height: 0.1,
        material: MaterialId(0),
        motion: None,
    });
    let m = sphere_mass(R, 2500.0);
    let dir = Vec3::new(1.0, 1.0, -1.0).normalize();
    b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), R, m).with_velocity(SPEED * dir));
    for k in 0..16 {
        let p = Vec3::new(
            -0.04 + 0.021 * (k % 4) as f32,
            -0.04 + 0.021 * (k / 4) as f32,
            R,
        );
        b.body(Body::sphere(p, R, m));
    }
    b.build().unwrap()
}

/// How far the bullet lies beyond the box's faces at the corner, in radii (≤ 0 inside).
fn beyond_the_corner(w: &World) -> f32 {
    let p = w.position(0);
    [p.x + R - 0.05, p.y + R - 0.05, R - p.z]
        .into_iter()
        .fold(f32::NEG_INFINITY, f32::max)
        / R
}

#[test]
fn a_ten_km_per_s_grain_stays_in_the_corner_with_auto_where_a_fixed_large_h_tunnels() {
    let mut through = corner_shot(fixed());
    through.run(10).unwrap();
    assert!(
        matches!(through.whereabouts(0), Whereabouts::Escaped { .. }),
        "at h = 2 ms the bullet goes through the corner; it ends at {}",
        through.position(0)
    );
    let mut w = corner_shot(auto());
    let budget = AutoStep::new(0.002).penetration;
    for _ in 0..10 {
        let st = w.step().unwrap();
        assert!(w.take_warnings().is_empty(), "at {}", w.position(0));
        assert!(
            st.max_penetration <= budget * R,
            "overlap {} r",
            st.max_penetration / R
        );
        assert!(
            beyond_the_corner(&w) <= budget,
            "{} r",
            beyond_the_corner(&w)
        );
    }
    assert_eq!(w.whereabouts(0), Whereabouts::Inside);
    let corner = Vec3::new(0.05 - R, 0.05 - R, R);
    assert!(
        (w.position(0) - corner).length() < 0.01 * R,
        "{}",
        w.position(0)
    );
    let c = w.step_control().unwrap();
    assert!(
        c.shortest < 1e-6 && c.longest == 0.002 && c.floored == 0,
        "{c:?}"
    );
    assert!(c.deepest <= budget * R, "{c:?}");
}

/// Each tick ends at its time (ticks × h_max), made of steps within [h_min, h_max] (one
/// shortened to land on it may be shorter); the world's `last_h` is the last step's, also
/// after new settings.
#[test]
fn the_steps_land_on_the_ticks_within_the_bounds() {
    let mut w = corner_shot(auto());
    let mut taken = 0;
    for tick in 1..=4u64 {
        w.step().unwrap();
        assert_eq!(w.time(), tick as f64 * 0.002_f32 as f64);
        let c = w.step_control().unwrap();
        assert!(c.taken > taken, "tick {tick}: {c:?}");
        taken = c.taken;
        assert!(
            c.longest <= 0.002 && c.next >= 1e-8 && c.next <= 0.002,
            "{c:?}"
        );
        assert_eq!(w.last_h(), c.last);
    }
    assert!((w.step_control().unwrap().sum - 0.008).abs() < 1e-9);
    // New settings keep the last step's h, which the contact forces divide by.
    let last = w.last_h();
    w.set_settings(*w.settings()).unwrap();
    assert_eq!(w.last_h(), last);
}

/// A snapshot carries the controller: the restored world continues with the same bits (bodies
/// and controller), also through the checkpoint bytes; one and two threads agree bit for bit.
#[test]
fn auto_resumes_bit_for_bit_and_does_not_depend_on_the_thread_count() {
    let mut a = corner_shot(auto());
    a.run(3).unwrap();
    let snap = Snapshot::from_bytes(&a.snapshot().unwrap().to_bytes()).unwrap();
    assert_eq!(snap.step_control, a.step_control());
    a.run(3).unwrap();
    let mut b = corner_shot(Settings {
        threads: 2,
        ..auto()
    });
    b.restore(&snap).unwrap();
    b.run(3).unwrap();
    assert!(a.bodies() == b.bodies(), "the resumed run's bodies differ");
    assert_eq!(a.step_control(), b.step_control());
    let mut c = corner_shot(Settings {
        threads: 2,
        ..auto()
    });
    c.run(6).unwrap();
    assert!(a.bodies() == c.bodies(), "2 threads differ from 1");
    assert_eq!(a.step_control(), c.step_control());
}

/// h_min above h_max, a negative or zero h_min, a budget of 0, and the GPU backend are refused
/// at build, each naming its field (the GPU: both sides of the support table's row).
#[test]
fn settings_the_adaptive_step_cannot_take_are_refused_at_build() {
    let with = |f: &dyn Fn(&mut AutoStep)| {
        let mut s = auto();
        f(s.auto_step.as_mut().unwrap());
        s.check().unwrap_err().to_string()
    };
    let e = with(&|a| a.h_min = 0.003);
    assert!(
        e.contains("h_min") && e.contains("above h_max = 0.002"),
        "{e}"
    );
    let e = with(&|a| a.h_min = -1e-6);
    assert!(e.contains("h_min") && e.contains("positive"), "{e}");
    let e = with(&|a| a.penetration = 0.0);
    assert!(e.contains("penetration_budget"), "{e}");
    let gpu = crate::common::on_the_gpu(auto());
    let e = gpu.check().unwrap_err().to_string();
    assert!(
        e.contains("adaptive step") && e.contains("GPU backend") && e.contains("h "),
        "{e}"
    );
}

/// With a step floor above what the bullet needs, the health check stops the run with the
/// fault (by default), or warns and goes on at h_min.
#[test]
fn a_step_wanted_below_h_min_is_reported_by_the_health_check() {
    let floored = |check| {
        let mut s = auto();
        s.auto_step.as_mut().unwrap().h_min = 1e-4;
        s.health.step_floor = check;
        corner_shot(s)
    };
    let e = floored(Check::Stop).step().unwrap_err();
    assert!(
        matches!(&e, StepError::Health { step: 1, .. }) && e.to_string().contains("below h_min"),
        "{e}"
    );
    let mut w = floored(Check::Warn);
    w.step().unwrap();
    let warnings = w.take_warnings();
    let floors = (warnings.iter())
        .filter(|(_, f)| matches!(f, Fault::StepFloor { .. }))
        .count();
    assert_eq!(floors, 1, "one fault for the tick: {warnings:?}");
    assert!(w.step_control().unwrap().floored > 0);
}
