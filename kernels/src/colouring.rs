//! Stage 5, prepare (Gauss–Seidel): greedy colouring of the contact graph: no two contacts of one
//! colour share a dynamic body, so a colour's contacts can be relaxed in parallel by Gauss–Seidel.
//!
//! The classes the sweep runs in order are (chunk, colour) pairs: the contacts whose first body
//! lies in one chunk of [`CHUNK_BODIES`] consecutive bodies, colour by colour, then the next
//! chunk's. A colour of the whole bed would stream every body's velocities through the cache
//! once per colour; a chunk's bodies (and their neighbours in index order) stay in the core's
//! cache across its colours. Scenes of up to [`CHUNK_BODIES`] bodies have one chunk.

use crate::layout::{BodyKind, ContactRow, NO_BODY};
use crate::parallel::exclusive_scan;

/// Colours used before contacts go to the serial overflow class.
pub const COLOURS: usize = 64;

/// Bodies per chunk of the sweep order (see the module's notes): 32,768 bodies' velocities
/// ([`crate::layout::Motion`], 32 bytes each) are 1 MiB, half a core's L2 cache here.
pub const CHUNK_BODIES: usize = 32_768;

/// Contacts grouped by class, (chunk k, colour c) being class `k · COLOURS + c`, its contacts
/// `order[start[class]..start[class + 1]]`; the last class (index [`Colouring::overflow`]) is the
/// overflow of every chunk, relaxed one contact at a time.
#[derive(Default)]
pub struct Colouring {
    /// Contact indices grouped by class, ascending within a class.
    pub order: Vec<u32>,
    /// Offsets of the classes (length `chunks · COLOURS + 2`).
    pub start: Vec<u32>,
    /// Class of each contact.
    class: Vec<u32>,
    used: Vec<u64>,
    counts: Vec<u32>,
    cursor: Vec<u32>,
}

impl Colouring {
    /// The overflow class's index: after every chunk's colours.
    pub fn overflow(&self) -> usize {
        self.start.len() - 2
    }

    /// Colours the contacts in order, each with the lowest colour free at both its bodies, and
    /// groups them by chunk of their first body and colour.
    pub fn build(&mut self, rows: &[ContactRow], kind: &[u32]) {
        self.used.clear();
        self.used.resize(kind.len(), 0);
        self.class.clear();
        self.counts.clear();
        let overflow = kind.len().div_ceil(CHUNK_BODIES) * COLOURS;
        self.counts.resize(overflow + 1, 0);
        let dynamic = |b: u32| b != NO_BODY && kind[b as usize] == BodyKind::Dynamic as u32;
        for r in rows {
            let mut taken = 0u64;
            for b in [r.body_a, r.body_b] {
                if dynamic(b) {
                    taken |= self.used[b as usize];
                }
            }
            let c = (!taken).trailing_zeros() as usize;
            let class = if c < COLOURS {
                for b in [r.body_a, r.body_b] {
                    if dynamic(b) {
                        self.used[b as usize] |= 1 << c;
                    }
                }
                r.body_a as usize / CHUNK_BODIES * COLOURS + c
            } else {
                overflow
            };
            self.class.push(class as u32);
            self.counts[class] += 1;
        }
        exclusive_scan(&self.counts, &mut self.start);
        self.order.resize(rows.len(), 0);
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.start);
        for (i, &c) in self.class.iter().enumerate() {
            self.order[self.cursor[c as usize] as usize] = i as u32;
            self.cursor[c as usize] += 1;
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
    /// in the class of its first body's chunk, and no two contacts of a class (the overflow
    /// apart) sharing a dynamic body.
    fn assert_valid(c: &Colouring, rows: &[ContactRow], kind: &[u32]) {
        assert_eq!(
            c.start.len(),
            kind.len().div_ceil(CHUNK_BODIES) * COLOURS + 2
        );
        assert_eq!(*c.start.last().unwrap() as usize, rows.len());
        let mut seen = c.order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..rows.len() as u32).collect::<Vec<_>>());
        for colour in 0..c.overflow() {
            let class = &c.order[c.start[colour] as usize..c.start[colour + 1] as usize];
            for &i in class {
                let chunk = rows[i as usize].body_a as usize / CHUNK_BODIES;
                assert_eq!(chunk, colour / COLOURS, "contact {i} in class {colour}");
            }
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
        let overflow = &c.order[c.start[c.overflow()] as usize..];
        assert_eq!(overflow, (64..70).collect::<Vec<_>>());
    }

    /// Contacts of bodies in three chunks, given in scrambled order: the classes run chunk by
    /// chunk, each chunk's contacts coloured validly, and a contact across a chunk boundary
    /// belongs to its first body's chunk.
    #[test]
    fn classes_run_chunk_by_chunk() {
        let n = 2 * CHUNK_BODIES + 100;
        let kind = vec![BodyKind::Dynamic as u32; n];
        let mut random = Lcg::new(7);
        let mut rows: Vec<ContactRow> = (0..3000)
            .map(|_| {
                let a = (random.unit() * (n - 50) as f32) as u32;
                let b = a + 1 + (random.unit() * 40.0) as u32;
                contact(a, b)
            })
            .collect();
        rows.push(contact(CHUNK_BODIES as u32 - 1, CHUNK_BODIES as u32));
        let mut c = Colouring::default();
        c.build(&rows, &kind);
        assert_valid(&c, &rows, &kind);
        let chunks: Vec<usize> = (0..c.overflow())
            .filter(|&k| c.start[k] < c.start[k + 1])
            .map(|k| k / COLOURS)
            .collect();
        assert!(chunks.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(chunks.first(), Some(&0));
        assert_eq!(chunks.last(), Some(&2));
        let across = rows.len() as u32 - 1;
        let class = (0..c.overflow())
            .find(|&k| c.order[c.start[k] as usize..c.start[k + 1] as usize].contains(&across))
            .unwrap();
        assert_eq!(
            class / COLOURS,
            0,
            "the boundary contact goes with its first body"
        );
    }
}
