//! Stages 3, 5 and 6 of a distributed step: what the ranks of a domain-decomposed run agree on
//! while one of them steps its subdomain.
//!
//! Each rank holds the bodies it owns and ghost copies of the bodies of other ranks that its
//! contacts can reach. A contact is solved by exactly one rank ([`Interface::decides`]). In
//! each gather of the Jacobi and APGD solves (the warm start's and every sweep's), a body that
//! several ranks hold receives the sum, over those ranks in rank order, of their contacts'
//! impulses on it ([`Interface::sum_shared`]), so every copy of a body takes the same velocity
//! change, bit for bit. The sweep's residual and APGD's restart, step and energy sums are taken
//! over all ranks ([`Interface::reduce`], two per APGD sweep, one per Jacobi sweep), so every rank runs the same number
//! of sweeps with the same momentum: one Jacobi or APGD iteration of the whole bed, split by
//! contacts. Gauss–Seidel's sweep order cannot be split this way, and is refused by whoever
//! opens a distributed step.

use crate::layout::ContactRow;

/// The agreement of the ranks of a distributed step, seen from one rank. Implemented over a
/// message-passing library by the engine; the kernels only call it.
pub trait Interface: Send + Sync {
    /// Whether this rank owns local body `body` (its state is authoritative here).
    fn owns(&self, body: u32) -> bool;

    /// Whether this rank solves the contact `row` (exactly one rank holding its bodies does).
    fn decides(&self, row: &ContactRow) -> bool;

    /// The slot of local body `body` among the bodies other ranks also hold (in
    /// [`Interface::sum_shared`]'s order), or `None` when no other rank holds it.
    fn shared_slot(&self, body: u32) -> Option<usize>;

    /// Sums the impulses (Δp, ΔL) on the shared bodies over the ranks: this rank's on body b
    /// is `local(b)`; the sum of every holding rank's, added in rank order (the same bits on
    /// every rank), is then [`Interface::total`].
    fn sum_shared(&mut self, local: &dyn Fn(u32) -> [f32; 6]);

    /// The impulse (Δp, ΔL) on the shared body of `slot` summed by the last
    /// [`Interface::sum_shared`].
    fn total(&self, slot: usize) -> [f32; 6];

    /// In one exchange: the largest `max` over all ranks, and each of `sums` summed over all
    /// ranks, added in rank order.
    fn reduce(&mut self, max: f32, sums: [f64; 2]) -> (f32, [f64; 2]);

    /// Whether every rank's narrow phase found its contacts (this rank's is `found`), in one
    /// exchange before the solve: a rank that cannot take the step stops every rank with it,
    /// where it would otherwise leave them waiting in the solve's first exchange.
    fn all_found(&mut self, found: bool) -> bool;
}

/// Removes, in place and in order, the contacts this rank does not solve
/// ([`Interface::decides`]).
pub fn keep_decided(contacts: &mut crate::narrow_phase::Contacts, interface: &dyn Interface) {
    contacts.retain(|row| interface.decides(row));
}
