//! The unit tests of `src/large_cells.rs`.

use glam::Vec3;
use grains_kernels::large_cells::*;

/// Every pair of large bodies whose bounding spheres (centre distance ≤ reach_a + reach_b)
/// meet is found, over a random cloud with mixed reaches and a far outlier.
#[test]
fn near_holds_every_body_within_reach() {
    let mut rng = grains_kernels::random::SplitMix64(7);
    let mut u = || rng.next_f64() as f32;
    let mut pos = Vec::new();
    let mut reach = Vec::new();
    for _ in 0..400 {
        let p = Vec3::new(u(), u(), u() * 0.3);
        pos.push(p.extend(0.01));
        reach.push(0.005 + 0.03 * u());
    }
    pos.push(Vec3::new(50.0, 0.0, 0.0).extend(0.01));
    reach.push(0.01);
    let large: Vec<u32> = (0..pos.len() as u32).collect();
    let mut cells = LargeCells::default();
    cells.build(&large, &pos, &reach);
    let mut found = 0;
    for a in 0..pos.len() {
        let near: Vec<u32> = cells.near(pos[a].truncate(), reach[a]).collect();
        for b in 0..pos.len() {
            let d = (pos[a] - pos[b]).truncate().length();
            if d <= reach[a] + reach[b] {
                assert!(near.contains(&(b as u32)), "pair ({a}, {b}) missed");
                found += 1;
            }
        }
    }
    assert!(found > pos.len(), "the cloud has pairs: {found}");
    let cells_used = cells.start.len() - 1;
    assert!(
        cells_used <= CELLS_PER_BODY * pos.len(),
        "{cells_used} cells"
    );
}
