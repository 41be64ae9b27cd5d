//! The unit tests of `src/packing.rs`.

use grains_kernels::layout::{ContactRow, NO_BODY};
use grains_kernels::packing::*;

/// Contact `i` between body i and a wall, with μ = i so that lanes are recognisable.
fn rows(n: usize) -> Vec<ContactRow> {
    (0..n)
        .map(|i| ContactRow {
            mu: i as f32,
            body_a: i as u32,
            body_b: NO_BODY,
            ..ContactRow::default()
        })
        .collect()
}

/// Three classes (5, 0 and 3 contacts, the last one contact per pack) in a given order: each
/// class starts a new pack, each contact sits in exactly one lane with its row, padding lanes
/// are empty, and the impulses go back to contact order unchanged.
#[test]
fn classes_pack_in_order_and_impulses_round_trip() {
    let rows = rows(8);
    let gamma: Vec<[f32; 4]> = (0..8)
        .map(|i| [i as f32, 10.0 + i as f32, 20.0 + i as f32, 0.0])
        .collect();
    let order = [7, 0, 2, 4, 6, 1, 3, 5];
    let mut packs = Packs::default();
    packs.build(
        &rows,
        &gamma,
        (Some(&order), &[0, 5, 5, 8]),
        Some(2),
        |b| b,
        None,
    );
    assert_eq!(packs.start, vec![0, 2, 2, 5]);
    assert_eq!(
        packs.lanes,
        [
            [7, 0, 2, 4],
            [6, PADDING, PADDING, PADDING],
            [1, PADDING, PADDING, PADDING],
            [3, PADDING, PADDING, PADDING],
            [5, PADDING, PADDING, PADDING],
        ]
        .concat()
    );
    for (p, pack) in packs.rows.iter().enumerate() {
        for k in 0..4 {
            let lane = packs.lanes[4 * p + k];
            if lane == PADDING {
                assert_eq!(pack.body_a[k], NO_BODY);
                assert_eq!(pack.mass_n[k], 0.0);
                assert_eq!(packs.gamma[p][0][k], 0.0);
            } else {
                assert_eq!(pack.mu[k], lane as f32);
                assert_eq!(pack.body_a[k], lane);
                assert_eq!(packs.gamma[p][1][k], 10.0 + lane as f32);
            }
        }
    }
    let mut back = vec![[-1.0; 4]; 8];
    packs.unpack_gamma(&mut back);
    assert_eq!(back, gamma);
}

/// Jacobi's layout, one class in contact order: ⌈n/4⌉ packs, the last one padded.
#[test]
fn one_class_in_contact_order() {
    let rows = rows(6);
    let mut packs = Packs::default();
    packs.build(&rows, &[[0.0; 4]; 6], (None, &[0, 6]), None, |b| b, None);
    assert_eq!(packs.start, vec![0, 2]);
    assert_eq!(packs.lanes, vec![0, 1, 2, 3, 4, 5, PADDING, PADDING]);
}
