//! Greedy colouring of the contact graph: no two contacts of one colour share a dynamic body,
//! so a colour's contacts can be relaxed in parallel by Gauss–Seidel.

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
}
