//! Stage 5, prepare (Gauss–Seidel): greedy colouring of the contact graph: no two contacts of one
//! colour share a dynamic body, so a colour's contacts can be relaxed in parallel by Gauss–Seidel.

use crate::layout::{BodyKind, ContactRow, NO_BODY};
use crate::parallel::exclusive_scan;

/// Colours used before contacts go to the serial overflow class.
pub const COLOURS: usize = 64;

/// Contacts grouped by colour: colour c is `order[start[c]..start[c + 1]]`; the last class
/// (index [`COLOURS`]) is the overflow, relaxed one contact at a time.
#[derive(Default)]
pub struct Colouring {
    /// Contact indices grouped by colour, ascending within a colour.
    pub order: Vec<u32>,
    /// Offsets of the colour classes (length `COLOURS + 2`).
    pub start: Vec<u32>,
    colour: Vec<u8>,
    used: Vec<u64>,
    counts: Vec<u32>,
    cursor: Vec<u32>,
    /// The contacts sorted by the key of [`Self::order_classes_by`].
    by_key: Vec<u32>,
}

impl Colouring {
    /// Colours the contacts in order, each with the lowest colour free at both its bodies.
    pub fn build(&mut self, rows: &[ContactRow], kind: &[u32]) {
        self.used.clear();
        self.used.resize(kind.len(), 0);
        self.colour.clear();
        self.counts.clear();
        self.counts.resize(COLOURS + 1, 0);
        let dynamic = |b: u32| b != NO_BODY && kind[b as usize] == BodyKind::Dynamic as u32;
        for r in rows {
            let mut taken = 0u64;
            for b in [r.body_a, r.body_b] {
                if dynamic(b) {
                    taken |= self.used[b as usize];
                }
            }
            let c = (!taken).trailing_zeros() as usize;
            if c < COLOURS {
                for b in [r.body_a, r.body_b] {
                    if dynamic(b) {
                        self.used[b as usize] |= 1 << c;
                    }
                }
            }
            self.colour.push(c.min(COLOURS) as u8);
            self.counts[c.min(COLOURS)] += 1;
        }
        exclusive_scan(&self.counts, &mut self.start);
        self.order.resize(rows.len(), 0);
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.start);
        for (i, &c) in self.colour.iter().enumerate() {
            self.order[self.cursor[c as usize] as usize] = i as u32;
            self.cursor[c as usize] += 1;
        }
    }

    /// Sorts the contacts of each colour by their `key` (one per contact, each below `keys`),
    /// then by index, leaving the overflow class in contact order: a counting sort,
    /// O(contacts + keys). Within a colour no two contacts share a dynamic body, so the order in
    /// which a sweep relaxes them does not change its result; the overflow's contacts may, so
    /// its order stays.
    pub fn order_classes_by(&mut self, key: &[u32], keys: usize) {
        debug_assert_eq!(key.len(), self.colour.len());
        self.counts.clear();
        self.counts.resize(keys, 0);
        for &k in key {
            self.counts[k as usize] += 1;
        }
        exclusive_scan(&self.counts, &mut self.cursor);
        self.by_key.resize(key.len(), 0);
        for (c, &k) in key.iter().enumerate() {
            self.by_key[self.cursor[k as usize] as usize] = c as u32;
            self.cursor[k as usize] += 1;
        }
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.start);
        for &c in &self.by_key {
            let colour = self.colour[c as usize] as usize;
            if colour < COLOURS {
                self.order[self.cursor[colour] as usize] = c;
                self.cursor[colour] += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Lcg;

    /// A contact between `a` and `b` (`NO_BODY`: a wall).
    fn contact(a: u32, b: u32) -> ContactRow {
        ContactRow {
            body_a: a,
            body_b: b,
            ..ContactRow::default()
        }
    }

    /// Checks the colouring of `rows`: every contact in exactly one class, ascending within it,
    /// and no two contacts of a colour (the overflow class apart) sharing a dynamic body.
    fn assert_valid(c: &Colouring, rows: &[ContactRow], kind: &[u32]) {
        assert_eq!(c.start.len(), COLOURS + 2);
        assert_eq!(*c.start.last().unwrap() as usize, rows.len());
        let mut seen = c.order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..rows.len() as u32).collect::<Vec<_>>());
        for colour in 0..COLOURS {
            let class = &c.order[c.start[colour] as usize..c.start[colour + 1] as usize];
            assert!(class.windows(2).all(|w| w[0] < w[1]), "colour {colour}");
            let mut touched = std::collections::HashSet::new();
            for &i in class {
                let r = rows[i as usize];
                for b in [r.body_a, r.body_b] {
                    let dynamic = b != NO_BODY && kind[b as usize] == BodyKind::Dynamic as u32;
                    assert!(
                        !dynamic || touched.insert(b),
                        "colour {colour}: body {b} in two contacts"
                    );
                }
            }
        }
    }

    /// A random contact graph of 200 bodies (every tenth fixed, every tenth kinematic) with
    /// body–body and wall contacts: a valid colouring in few colours, with no overflow.
    #[test]
    fn no_colour_shares_a_dynamic_body() {
        let mut random = Lcg::new(3);
        let kind: Vec<u32> = (0..200)
            .map(|i| match i % 10 {
                0 => BodyKind::Fixed as u32,
                5 => BodyKind::Kinematic as u32,
                _ => BodyKind::Dynamic as u32,
            })
            .collect();
        let mut pick = || (random.unit() * 200.0) as u32;
        let rows: Vec<ContactRow> = (0..1000)
            .map(|k| match k % 5 {
                0 => contact(pick(), NO_BODY),
                _ => {
                    let (a, b) = (pick(), pick());
                    contact(a.min(b), a.max(b) + u32::from(a == b))
                }
            })
            .filter(|r| r.body_b == NO_BODY || r.body_b < 200)
            .collect();
        let mut c = Colouring::default();
        c.build(&rows, &kind);
        assert_valid(&c, &rows, &kind);
        assert_eq!(c.start[COLOURS], c.start[COLOURS + 1], "no overflow");
    }

    /// Sorting the classes by a key keeps each class's contacts (a valid colouring still),
    /// orders them by the key, and leaves the overflow in contact order.
    #[test]
    fn classes_sorted_by_a_key_keep_their_contacts_and_the_overflow_its_order() {
        let kind = vec![BodyKind::Dynamic as u32; 200];
        let mut rows: Vec<ContactRow> = (0..150).map(|b| contact(b, b + 1)).collect();
        rows.extend((0..70).map(|_| contact(199, NO_BODY)));
        let mut c = Colouring::default();
        c.build(&rows, &kind);
        let before = c.order.clone();
        let keys: Vec<u32> = rows.iter().map(|r| 1000 - r.body_a).collect();
        let key = |i: u32| keys[i as usize];
        c.order_classes_by(&keys, 1001);
        for colour in 0..=COLOURS {
            let range = c.start[colour] as usize..c.start[colour + 1] as usize;
            let (mut old, new) = (before[range.clone()].to_vec(), &c.order[range]);
            if colour == COLOURS {
                assert_eq!(new, old.as_slice(), "the overflow keeps its order");
                assert!(!new.is_empty());
                continue;
            }
            assert!(
                new.windows(2).all(|w| key(w[0]) <= key(w[1])),
                "colour {colour}"
            );
            old.sort_unstable_by_key(|&i| (key(i), i));
            assert_eq!(new, old.as_slice(), "colour {colour} keeps its contacts");
        }
    }

    /// Contacts with fixed or kinematic bodies only do not constrain the colour: 100 contacts
    /// of one fixed body with as many dynamic ones all take colour 0; 70 contacts of one dynamic
    /// body take the 64 colours, then the overflow.
    #[test]
    fn only_dynamic_bodies_constrain_and_extra_contacts_overflow() {
        let mut kind = vec![BodyKind::Dynamic as u32; 101];
        kind[0] = BodyKind::Fixed as u32;
        let fan: Vec<ContactRow> = (1..101).map(|b| contact(0, b)).collect();
        let mut c = Colouring::default();
        c.build(&fan, &kind);
        assert_valid(&c, &fan, &kind);
        assert_eq!(c.start[1], 100, "all in colour 0");

        let hub: Vec<ContactRow> = (0..70).map(|_| contact(1, NO_BODY)).collect();
        c.build(&hub, &kind);
        assert_valid(&c, &hub, &kind);
        for colour in 0..COLOURS {
            assert_eq!(c.start[colour + 1] - c.start[colour], 1, "colour {colour}");
        }
        let overflow = &c.order[c.start[COLOURS] as usize..];
        assert_eq!(overflow, (64..70).collect::<Vec<_>>());
    }
}
