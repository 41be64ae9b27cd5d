//! The contacts one rank of a distributed step solved, as its world reads them: renumbered by
//! the bodies' ids and in ascending key order, as one process holds its own. Nothing is
//! gathered: each contact is solved by exactly one rank (the owner of its lower-id body, or of
//! the body of a wall or mesh contact), so the ranks' contacts together are the step's, each
//! once, and what reads them (wall loads, contact forces, contact frames) is each rank's
//! share, summed over the ranks where a figure of the whole bed is wanted.

use grains_kernels::narrow_phase::Contacts;
use grains_kernels::{pair_key, ContactRow, NO_BODY};

/// One rank's solved contacts (local keys and rows), their impulses (γn, γt1, γt2, 0) and
/// moment impulses (one per contact, or none).
pub(crate) type SolvedContacts<'a> = (&'a Contacts, &'a [[f32; 4]], &'a [[f32; 4]]);

/// The contacts this rank solved in one step, numbered by body id (the world's index).
#[derive(Default)]
pub(crate) struct RankContacts {
    /// The step they are of (`None`: none copied since the last step).
    pub(crate) at: Option<u64>,
    /// Keys (ascending) and rows.
    pub(crate) contacts: Contacts,
    /// Impulses (γn, γt1, γt2), in the contacts' order.
    pub(crate) impulses: Vec<[f32; 4]>,
    /// Moment impulses in the contacts' order; empty without moment rows.
    pub(crate) moments: Vec<[f32; 4]>,
}

impl RankContacts {
    /// Forgets the contacts held (a step was taken, or the bodies were split again).
    pub(crate) fn clear(&mut self) {
        self.at = None;
        self.contacts.keys.clear();
        self.contacts.rows.clear();
        self.impulses.clear();
        self.moments.clear();
    }

    /// Holds step `step`'s contacts of this rank: `contacts` with their `impulses` and
    /// `moments` (one per contact, or none), over local bodies whose ids are `ids`.
    ///
    /// A rank solves a contact whose lower-id body it owns, and its own bodies come before its
    /// ghosts, both in ascending id: so a contact's first local body has the lower id too, and
    /// renumbering keeps every key's and row's orientation.
    pub(crate) fn renumber(
        &mut self,
        step: u64,
        (contacts, impulses, moments): SolvedContacts,
        ids: &[u64],
    ) {
        let id = |local: u32| match ids.get(local as usize) {
            Some(&id) => id as u32,
            None => local,
        };
        let mut order: Vec<(u64, usize)> = (contacts.keys.iter())
            .enumerate()
            .map(|(k, &key)| (pair_key(id((key >> 32) as u32), id(key as u32)), k))
            .collect();
        order.sort_unstable_by_key(|&(key, _)| key);
        self.clear();
        for &(key, k) in &order {
            let row = &contacts.rows[k];
            self.contacts.keys.push(key);
            self.contacts.rows.push(ContactRow {
                body_a: id(row.body_a),
                body_b: match row.body_b {
                    NO_BODY => NO_BODY,
                    b => id(b),
                },
                ..*row
            });
            self.impulses.push(impulses[k]);
            if !moments.is_empty() {
                self.moments.push(moments[k]);
            }
        }
        self.at = Some(step);
    }
}
