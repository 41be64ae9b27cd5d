//! Stage 3, narrow phase, its collision filter (only when some joint says its bodies do not
//! collide): drops the contacts between
//! such pairs of bodies, so that bodies built to overlap at their joint (a paddle of spheres, a
//! chain of touching links) are held by the joint alone instead of also pushing each other
//! apart.

use crate::joints::Joint;
use crate::layout::NO_BODY;
use crate::narrow_phase::Contacts;

/// The body pairs (lower index first), sorted and without repeats, of the `joints` that exclude
/// collision between their two bodies (joints to the world and broken bonds exclude nothing).
pub fn non_colliding_pairs(joints: &[Joint]) -> Vec<(u32, u32)> {
    let mut pairs: Vec<(u32, u32)> = joints
        .iter()
        .filter(|j| !j.collide && !j.broken && j.body_b != NO_BODY)
        .map(|j| (j.body_a.min(j.body_b), j.body_a.max(j.body_b)))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// Removes, in place and in order, the contacts of `contacts` between the body pairs of
/// `excluded` (from [`non_colliding_pairs`]); wall contacts are kept.
pub fn drop_non_colliding(contacts: &mut Contacts, excluded: &[(u32, u32)]) {
    if excluded.is_empty() {
        return;
    }
    contacts.retain(|row| {
        let pair = (row.body_a.min(row.body_b), row.body_a.max(row.body_b));
        row.body_b == NO_BODY || excluded.binary_search(&pair).is_err()
    });
}
