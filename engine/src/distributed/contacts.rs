//! The contacts of a distributed step gathered from the ranks: each rank's contacts (those it
//! solved) renumbered by the bodies' ids, and every rank receiving all of them in ascending
//! key order, as one process holds them. Each contact is solved by exactly one rank, so each
//! is gathered exactly once.

use super::ranks::Ranks;
use bytemuck::{Pod, Zeroable};
use grains_kernels::narrow_phase::Contacts;
use grains_kernels::{pair_key, ContactRow, NO_BODY};

/// One rank's solved contacts (local keys and rows), their impulses (γn, γt1, γt2, 0) and
/// moment impulses (one per contact, or none).
pub(crate) type SolvedContacts<'a> = (&'a Contacts, &'a [[f32; 4]], &'a [[f32; 4]]);

/// One contact as the ranks send it: its key and row over body ids, and its impulses.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct ContactRecord {
    key: u64,
    row: ContactRow,
    impulse: [f32; 4],
    moment: [f32; 4],
}

/// The contacts of one step of every rank, numbered by body id (the world's index).
#[derive(Default)]
pub(crate) struct GatheredContacts {
    /// The step they are of (`None` before the first gather).
    pub(crate) at: Option<u64>,
    /// Keys (ascending) and rows.
    pub(crate) contacts: Contacts,
    /// Impulses (γn, γt1, γt2), in the contacts' order.
    pub(crate) impulses: Vec<[f32; 4]>,
    /// Moment impulses in the contacts' order; empty without moment rows.
    pub(crate) moments: Vec<[f32; 4]>,
}

impl GatheredContacts {
    /// Gathers step `step`'s contacts from every rank (a collective call): this rank's are
    /// `contacts` with their `impulses` and `moments` (one per contact, or none), over local
    /// bodies whose ids are `ids`.
    ///
    /// A rank solves a contact whose lower-id body it owns, and its own bodies come before its
    /// ghosts, both in ascending id: so a contact's first local body has the lower id too, and
    /// renumbering keeps every key's and row's orientation.
    pub(crate) fn gather(
        &mut self,
        step: u64,
        (contacts, impulses, moments): SolvedContacts,
        ids: &[u64],
        ranks: &Ranks,
    ) {
        let id = |local: u32| match ids.get(local as usize) {
            Some(&id) => id as u32,
            None => local,
        };
        let mine: Vec<ContactRecord> = (contacts.keys.iter().zip(&contacts.rows))
            .enumerate()
            .map(|(k, (&key, row))| {
                let (a, b) = (id((key >> 32) as u32), id(key as u32));
                let row = ContactRow {
                    body_a: id(row.body_a),
                    body_b: if row.body_b == NO_BODY {
                        NO_BODY
                    } else {
                        id(row.body_b)
                    },
                    ..*row
                };
                ContactRecord {
                    key: pair_key(a, b),
                    row,
                    impulse: impulses[k],
                    moment: moments.get(k).copied().unwrap_or_default(),
                }
            })
            .collect();
        let mut all = ranks.all_gather(&mine);
        all.sort_by_key(|c| c.key);
        self.contacts.keys = all.iter().map(|c| c.key).collect();
        self.contacts.rows = all.iter().map(|c| c.row).collect();
        self.impulses = all.iter().map(|c| c.impulse).collect();
        self.moments = match moments.is_empty() {
            true => Vec::new(),
            false => all.iter().map(|c| c.moment).collect(),
        };
        self.at = Some(step);
    }
}
