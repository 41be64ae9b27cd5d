//! What a rank of a distributed world sent the other ranks ([`World::rank_traffic`]): the
//! figures by which a run shows that its messages grow with a rank's share of the cuts'
//! surface (its ghosts), not with the bed.

use crate::world::World;

/// What one rank of a distributed world sent the other ranks since the world was distributed
/// (payload bytes, MPI's own headers aside), and the ghosts it held, over the steps it took.
/// Everything counts: the steps, the outputs' reductions and pieces' agreements, the
/// checkpoints'.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RankTraffic {
    /// Steps this rank took.
    pub steps: u64,
    /// Bytes sent in exchanges (point to point, and the `Alltoallv`s of the migration, the
    /// ghosts and the bodies near the cuts), each counted once, to the rank it went to.
    pub exchanged_bytes: u64,
    /// Bytes this rank put into collectives every rank receives (`Allgather`, `Allreduce`),
    /// each contribution counted once whatever the rank count.
    pub collective_bytes: u64,
    /// The largest payload one exchange sent one rank (bytes).
    pub largest_exchange_bytes: u64,
    /// The largest contribution to one collective (bytes).
    pub largest_contribution_bytes: u64,
    /// Ghosts this rank held, summed over its steps.
    pub ghosts: u64,
}

impl World {
    /// What this rank of a distributed world (feature `mpi`) sent the other ranks and the
    /// ghosts it held so far ([`RankTraffic`]); `None` in a world that steps every body
    /// itself. Not a collective call.
    pub fn rank_traffic(&self) -> Option<RankTraffic> {
        self.backend.rank_traffic()
    }
}
