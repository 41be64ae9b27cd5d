//! `scenes/mixer.toml`: a paddle of nine steel spheres, eight arms held to a hub by fixed joints,
//! on a hinge whose motor turns it at 2 rad/s through a bed of 2000 glass spheres.

use grains_app::output::Quality;
use grains_validation::{load, scenes_dir};

#[test]
fn the_mixer_paddle_turns_at_the_motor_speed_through_a_bed_that_stays_in_its_box() {
    let s = load(&scenes_dir(), "mixer").unwrap();
    let (hub, arms, bed) = (
        s.group("hub").unwrap().start,
        s.group("arms").unwrap(),
        s.group("bed").unwrap(),
    );
    assert_eq!(
        (arms.len(), bed.len(), s.builder().joints().len()),
        (8, 2000, 9)
    );
    let motor = s.builder().joints()[0]
        .motor
        .expect("the hinge has a motor")
        .speed;
    let mut w = s.world(None).unwrap();
    let radius: Vec<f32> = arms
        .clone()
        .map(|i| w.position(i).truncate().length())
        .collect();
    let height = w.position(hub).z;
    let angle_of = |w: &grains::World, i: usize| w.position(i).y.atan2(w.position(i).x);
    let start: Vec<f32> = arms.clone().map(|i| angle_of(&w, i)).collect();
    let steps = 300;
    for _ in 0..steps {
        w.step().unwrap();
        // The motor row is exact after each sweep's joint pass; only the contact updates of the
        // last sweep (grains pushing on the arms) move the hub off it, by a fraction of a per
        // cent here.
        let spin = w.angular_velocity(hub).z;
        assert!((spin - motor).abs() <= 0.02 * motor, "hub at {spin} rad/s");
        for (k, i) in arms.clone().enumerate() {
            let p = w.position(i);
            // Fixed joints: each arm keeps its radius and height to the O(h²) of one step.
            assert!(
                (p.truncate().length() - radius[k]).abs() < 1e-4,
                "arm {k} at {p}"
            );
            assert!((p.z - height).abs() < 1e-4, "arm {k} at {p}");
        }
    }
    // Turned angle of every arm over the run (less than a half turn: no wrapping).
    let t = w.time() as f32;
    for (k, i) in arms.clone().enumerate() {
        let turned = (angle_of(&w, i) - start[k]).rem_euclid(std::f32::consts::TAU);
        let rate = turned / t;
        assert!(
            (rate - motor).abs() <= 0.005 * motor,
            "arm {k} turned at {rate} rad/s, motor {motor}"
        );
    }
    let q = Quality::measure(&w, s.bounds.as_ref());
    assert_eq!((q.non_finite, q.escaped), (0, 0), "{q:?}");
    let fastest = bed.map(|i| w.velocity(i).length()).fold(0.0f32, f32::max);
    assert!(fastest < 1.5, "a grain flies at {fastest} m/s");
}
