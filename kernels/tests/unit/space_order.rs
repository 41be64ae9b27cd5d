//! The unit tests of `src/space_order.rs`.

use glam::Vec4;
use grains_kernels::broad_phase::Envelope;
use grains_kernels::broad_phase::Grid;
use grains_kernels::layout::{Motion, NO_BODY};
use grains_kernels::random::Lcg;
use grains_kernels::space_order::*;

/// A random cloud of spheres with one large sphere: the order is a permutation, slots and
/// bodies are inverse, the motion round-trips bit for bit, and consecutive slots of the
/// grid's bodies lie in the same or a later cell.
#[test]
fn the_space_order_is_a_permutation_in_cell_order() {
    let mut random = Lcg::new(7);
    let mut pos: Vec<Vec4> = (0..500)
        .map(|_| Vec4::new(random.unit(), random.unit(), random.unit(), 0.01))
        .collect();
    pos[17].w = 0.1;
    let motion: Vec<Motion> = (0..500)
        .map(|i| Motion {
            linear: [i as f32, random.unit(), -1.0],
            inv_mass: 1.0,
            ..Motion::default()
        })
        .collect();
    let mut grid = Grid::default();
    grid.build(&pos, &[], &motion, Envelope::Fixed(1e-3), 1e-3);
    let mut order = SpaceOrder::default();
    order.build(&grid);
    let mut local = Vec::new();
    order.gather(&motion, &mut local);
    let mut seen: Vec<u32> = order.body.clone();
    seen.sort_unstable();
    assert_eq!(seen, (0..500).collect::<Vec<_>>());
    for (s, &b) in order.body.iter().enumerate() {
        assert_eq!(order.slot(b), s as u32);
        assert_eq!(local[s], motion[b as usize]);
    }
    assert_eq!(*order.body.last().unwrap(), 17, "the large body comes last");
    let cells: Vec<u32> = grid
        .bodies
        .iter()
        .map(|&b| grid.cell_of[b as usize])
        .collect();
    assert!(cells.windows(2).all(|w| w[0] <= w[1]));
    let mut back = vec![Motion::default(); 500];
    order.scatter(&local, &mut back);
    assert_eq!(back, motion);
    assert_eq!(order.slot(NO_BODY), NO_BODY);
}
