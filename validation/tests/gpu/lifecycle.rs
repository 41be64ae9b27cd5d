//! Grains that come and go on the GPU: `feed_and_sink` (spheres) and `clump_feed` (rods of three
//! spheres) with their feeds moved down so that grains reach the sink within 120 steps, stepped
//! on the GPU; before each step the CPU world takes the GPU's state (bodies, ids, counters, warm
//! start), so both make the same pass (the same grains removed, the same placed) and step from
//! the same input. The counts must be equal at every step and the positions within the suite's
//! one-step tolerance.

use super::common::max_position_difference;
use super::{jacobi, on_gpu, POSITION_TOLERANCE_R};
use grains_validation::{load_variant, scenes_dir};

#[test]
fn a_feed_and_sink_agrees_with_cpu_jacobi_while_the_count_changes() {
    feed_in_lockstep("feed_and_sink");
}

/// The same with a feed of clumps: the GPU takes each placed clump's template (its clumps'
/// buffer grows with the grains) and meets them member by member as the CPU does.
#[test]
fn a_clump_feed_and_sink_agrees_with_cpu_jacobi_while_the_count_changes() {
    feed_in_lockstep("clump_feed");
}

/// The lockstep above for scene `name`, its first insertion's region moved down to 1–4 cm above
/// the floor, the grains thrown down at 1 m/s.
fn feed_in_lockstep(name: &str) {
    let low = load_variant(&scenes_dir(), name, |t| {
        if let Some(toml::Value::Array(ins)) = t.get_mut("insert") {
            if let Some(toml::Value::Table(i)) = ins.first_mut() {
                let corner =
                    |z: f64, xy: f64| toml::Value::Array(vec![xy.into(), xy.into(), z.into()]);
                i.insert("min".into(), corner(0.01, -0.045));
                i.insert("max".into(), corner(0.04, 0.045));
                i.insert("velocity".into(), corner(-1.0, 0.0));
            }
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let scene = jacobi(low, 30);
    let Some(mut gpu) = on_gpu(&scene) else {
        return;
    };
    let mut cpu = scene.world(None).unwrap();
    let mut worst = 0.0f32;
    for step in 1..=120u64 {
        cpu.restore(&gpu.snapshot().unwrap()).unwrap();
        cpu.step().unwrap();
        gpu.step().unwrap();
        let (c, g) = (cpu.lifecycle_state(), gpu.lifecycle_state());
        assert_eq!(c, g, "step {step}: the same grains placed and removed");
        assert_eq!(cpu.len(), gpu.len(), "step {step}");
        assert_eq!(cpu.ids(), gpu.ids(), "step {step}");
        let placed: u64 = g.insertions.iter().map(|i| i.placed).sum();
        let removed: u64 = g.sinks.iter().map(|s| s.removed).sum();
        assert_eq!(gpu.len() as u64, placed - removed, "step {step}");
        worst = worst.max(max_position_difference(cpu.bodies(), gpu.bodies()));
    }
    let s = gpu.lifecycle_state();
    assert!(s.sinks[0].removed > 0, "grains left through the sink");
    eprintln!(
        "{name} (low feed): {} placed, {} removed; max one-step |Δposition| = {worst:.3e} r",
        s.insertions[0].placed, s.sinks[0].removed
    );
    assert!(
        worst <= POSITION_TOLERANCE_R,
        "positions differ by {worst} r (tolerance {POSITION_TOLERANCE_R} r)"
    );
}
