//! The seed validation cases of `VALIDATION.md` that the engine can run so far, each as a
//! function that builds the case, runs it and returns the measured figures.

use crate::body::Body;
use crate::geometry::WallDesc;
use crate::material::Material;
use crate::settings::{Envelope, Settings};
use crate::world::World;
use glam::Vec3;

/// Gravity of the papers' examples (m/s²).
pub const G: f32 = 9.81;

/// What V9 measured: a sphere released sliding on a plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideToRoll {
    /// First time (s) the contact point's slip |v_x − ω_y r| is below 1e-4 m/s.
    pub t_roll: f64,
    /// v_x at the end (m/s).
    pub v_end: f32,
    /// ω_y r at the end (m/s).
    pub omega_r_end: f32,
    /// Largest |v_y|, |ω_x|, |ω_z| seen (all should stay 0).
    pub off_axis: f32,
}

/// V9 (trinkle §4.1.3): unit sphere, m = 1, I = 0.4, on a plane, v_x = 2, ω = 0, μ = 0.2, step
/// `h`, run for 1 s. Expected: rolling from t* = 2v₀/(7μg) = 0.291 s with v = ω r = 5v₀/7.
pub fn v9_slide_to_roll(h: f32) -> SlideToRoll {
    let mut b = World::builder(Settings {
        h,
        ..Settings::default()
    });
    b.material(Material::new(0.2));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(
        Body::sphere(Vec3::new(0.0, 0.0, 1.0), 1.0, 1.0).with_velocity(Vec3::new(2.0, 0.0, 0.0)),
    );
    let mut w = b.build().expect("V9 scene is valid");
    let mut t_roll = f64::INFINITY;
    let mut off_axis = 0.0f32;
    while w.time() < 1.0 {
        w.step();
        let (v, om) = (w.velocity(0), w.angular_velocity(0));
        off_axis = off_axis.max(v.y.abs()).max(om.x.abs()).max(om.z.abs());
        if t_roll.is_infinite() && (v.x - om.y).abs() < 1e-4 {
            t_roll = w.time();
        }
    }
    SlideToRoll {
        t_roll,
        v_end: w.velocity(0).x,
        omega_r_end: w.angular_velocity(0).y,
        off_axis,
    }
}

/// What V11 measured: a disk rolling on a line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RollingDisk {
    /// Kinetic energy at the start (J).
    pub ke_start: f64,
    /// Largest |KE(t) − KE(0)| / KE(0) over the run.
    pub max_relative_drift: f64,
}

/// V11 (chakraborty ex. 1): disk r = 1, m = 1 (I = ½), rolling without slip on a line at
/// ν = (−3, 0, 3) in the paper's (v_x, v_y, ω_z); in this engine's x–z plane that is
/// v_x = −3, ω_y = −3. μ = 0.4, h = 0.01, 10 s, planar mode.
pub fn v11_rolling_disk() -> RollingDisk {
    let mut b = World::builder(Settings {
        h: 0.01,
        planar: true,
        ..Settings::default()
    });
    b.material(Material::new(0.4));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    b.body(
        Body::disk(Vec3::new(0.0, 0.0, 1.0), 1.0, 1.0)
            .with_velocity(Vec3::new(-3.0, 0.0, 0.0))
            .with_angular_velocity(Vec3::new(0.0, -3.0, 0.0)),
    );
    let mut w = b.build().expect("V11 scene is valid");
    let ke = |w: &World| {
        let (v, om) = (w.velocity(0), w.angular_velocity(0));
        0.5 * v.length_squared() as f64 + 0.5 * 0.5 * om.length_squared() as f64
    };
    let ke_start = ke(&w);
    let mut max_relative_drift: f64 = 0.0;
    for _ in 0..1000 {
        w.step();
        max_relative_drift = max_relative_drift.max((ke(&w) - ke_start).abs() / ke_start);
    }
    RollingDisk {
        ke_start,
        max_relative_drift,
    }
}

/// What V5 measured at the end of the cannonball collapse.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cannonball {
    /// Smallest gap between two disks at the end (m); positive when all are separated.
    pub min_gap: f32,
    /// Largest height of a disk's lowest point above the tabletop at the end (m).
    pub max_lift: f32,
    /// Disks whose lowest point is within `touch` of the tabletop.
    pub on_table: usize,
    /// Disks in the stack.
    pub disks: usize,
    /// Tolerance used for "touches the tabletop" (m): the envelope ε̂.
    pub touch: f32,
}

/// V5 (hart-anitescu §3): 21 disks of radius 3 in a cannonball stack (6 at the bottom) at rest
/// on a tabletop between two walls slanted 45° outwards, the bottom corners 75 from the centre.
/// μ = 0.2, h = 0.05, ε̂ = 0.3, 20 s, planar mode.
pub fn v5_cannonball() -> Cannonball {
    let (r, h) = (3.0f32, 0.05f32);
    let mut b = World::builder(Settings {
        h,
        planar: true,
        envelope: Some(Envelope::Fixed(0.3)),
        ..Settings::default()
    });
    b.material(Material::new(0.2));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    let s = std::f32::consts::FRAC_1_SQRT_2;
    b.wall(WallDesc::plane(
        Vec3::new(-75.0, 0.0, 0.0),
        Vec3::new(s, 0.0, s),
    ));
    b.wall(WallDesc::plane(
        Vec3::new(75.0, 0.0, 0.0),
        Vec3::new(-s, 0.0, s),
    ));
    for row in 0..6 {
        for k in 0..6 - row {
            let x = -15.0 + 2.0 * r * k as f32 + r * row as f32;
            let z = r + row as f32 * 2.0 * r * (3.0f32).sqrt() / 2.0;
            b.body(Body::disk(Vec3::new(x, 0.0, z), r, 1.0));
        }
    }
    let mut w = b.build().expect("V5 scene is valid");
    w.run((20.0 / h).round() as u64);
    let n = w.len();
    let mut min_gap = f32::INFINITY;
    for i in 0..n {
        for j in i + 1..n {
            min_gap = min_gap.min((w.position(i) - w.position(j)).length() - 2.0 * r);
        }
    }
    let lift: Vec<f32> = (0..n).map(|i| w.position(i).z - r).collect();
    Cannonball {
        min_gap,
        max_lift: lift.iter().copied().fold(f32::MIN, f32::max),
        on_table: lift.iter().filter(|&&l| l.abs() <= 0.3).count(),
        disks: n,
        touch: 0.3,
    }
}
