//! The ranks of a distributed run as the engine talks to them: the MPI communicator and the
//! few collective operations the step uses, each over plain bytes of `Pod` records, with every
//! reduction added in rank order so that its bits do not depend on the MPI library's order.

use bytemuck::Pod;
use mpi::datatype::{Partition, PartitionMut};
use mpi::point_to_point::{Destination, Source};
use mpi::topology::Rank;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{CommunicatorCollectives, Equivalence};
use mpi::{Count, Tag};
use std::sync::atomic::{AtomicU64, Ordering};

/// The tag of the interface's messages ([`Ranks::exchange_with_neighbours`]).
const INTERFACE: Tag = 17;

/// One rank's communicator with the run's other ranks.
pub(crate) struct Ranks {
    comm: SimpleCommunicator,
    rank: usize,
    size: usize,
    /// What this rank sent.
    sent: Sent,
}

/// The payload bytes one rank sent ([`crate::RankTraffic`]).
#[derive(Default)]
struct Sent {
    /// In exchanges, to the ranks they went to.
    exchanged: AtomicU64,
    /// Into collectives, once each.
    collective: AtomicU64,
    /// The largest payload of one exchange to one rank.
    largest_exchange: AtomicU64,
    /// The largest contribution to one collective.
    largest_contribution: AtomicU64,
}

impl Sent {
    /// Counts exchanges of `bytes` to other ranks, each one message.
    fn exchange(&self, bytes: impl Iterator<Item = usize>) {
        for b in bytes {
            self.exchanged.fetch_add(b as u64, Ordering::Relaxed);
            self.largest_exchange.fetch_max(b as u64, Ordering::Relaxed);
        }
    }

    /// Counts one contribution of `bytes` to a collective.
    fn collective(&self, bytes: usize) {
        self.collective.fetch_add(bytes as u64, Ordering::Relaxed);
        self.largest_contribution
            .fetch_max(bytes as u64, Ordering::Relaxed);
    }
}

// SAFETY: the communicator is a handle that MPI lets any thread use when calls are serialized;
// the program initialises MPI with `Threading::Serialized` (`grains run` does, and
// `World::distribute` says so), and a world's step, the only user, runs one at a time (it
// takes `&mut World`), so no two threads call MPI through it at once.
unsafe impl Send for Ranks {}
// SAFETY: as for `Send`: every method that calls MPI is reached through `&mut` of the step or
// the serialized calls of one step.
unsafe impl Sync for Ranks {}

/// Displacements of consecutive blocks of `counts` elements.
fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect()
}

/// A byte count as MPI takes it; a message of 2 GiB or more is refused by the callers' sizes.
fn count(bytes: usize) -> Count {
    Count::try_from(bytes).unwrap_or(Count::MAX)
}

impl Ranks {
    /// The ranks of `comm`, seen from this one.
    pub(crate) fn new(comm: SimpleCommunicator) -> Ranks {
        let (rank, size) = (comm.rank() as usize, comm.size() as usize);
        Ranks {
            comm,
            rank,
            size,
            sent: Sent::default(),
        }
    }

    /// The payload bytes this rank sent so far: in exchanges and into collectives, and the
    /// largest of one exchange to one rank and of one contribution.
    pub(crate) fn sent(&self) -> [u64; 4] {
        let s = &self.sent;
        [
            &s.exchanged,
            &s.collective,
            &s.largest_exchange,
            &s.largest_contribution,
        ]
        .map(|a| a.load(Ordering::Relaxed))
    }

    /// The counts `counts` (one per rank) to the other ranks.
    fn others<'a>(&self, counts: &'a [Count]) -> impl Iterator<Item = usize> + 'a {
        let me = self.rank;
        (counts.iter().enumerate())
            .filter(move |&(q, _)| q != me)
            .map(|(_, &c)| c as usize)
    }

    /// This rank's number, 0..size.
    pub(crate) fn rank(&self) -> usize {
        self.rank
    }

    /// Number of ranks.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// Sends `send[q]` to every rank q and returns what every rank sent here, by rank.
    pub(crate) fn exchange<T: Pod>(&self, send: &[Vec<T>]) -> Vec<Vec<T>> {
        let size = std::mem::size_of::<T>();
        let send_counts: Vec<Count> = send.iter().map(|v| count(v.len() * size)).collect();
        let mut recv_counts = vec![0 as Count; self.size];
        self.sent
            .exchange((1..self.size).map(|_| size_of::<Count>()));
        self.comm
            .all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        let flat: Vec<u8> = send
            .iter()
            .flat_map(|v| bytemuck::cast_slice::<T, u8>(v).iter().copied())
            .collect();
        let mut recv = vec![0u8; recv_counts.iter().map(|&c| c as usize).sum()];
        self.exchange_known(&flat, &send_counts, &mut recv, &recv_counts);
        let displs = displacements(&recv_counts);
        (0..self.size)
            .map(|q| {
                let at = displs[q] as usize;
                bytemuck::pod_collect_to_vec(&recv[at..at + recv_counts[q] as usize])
            })
            .collect()
    }

    /// Sends consecutive blocks of `send` (`send_counts` bytes to each rank) and receives
    /// `recv_counts` bytes from each rank into consecutive blocks of `recv`.
    pub(crate) fn exchange_known(
        &self,
        send: &[u8],
        send_counts: &[Count],
        recv: &mut [u8],
        recv_counts: &[Count],
    ) {
        let (sd, rd) = (displacements(send_counts), displacements(recv_counts));
        // Empty buffers share one dangling address, which MPI takes for an aliased send and
        // receive buffer: give each a byte of its own (no count reaches it).
        let (send_pad, mut recv_pad) = ([0u8; 1], [0u8; 1]);
        let send = if send.is_empty() { &send_pad[..] } else { send };
        let recv = if recv.is_empty() {
            &mut recv_pad[..]
        } else {
            recv
        };
        self.sent.exchange(self.others(send_counts));
        let outgoing = Partition::new(send, send_counts, &sd[..]);
        let mut incoming = PartitionMut::new(recv, recv_counts, &rd[..]);
        self.comm.all_to_all_varcount_into(&outgoing, &mut incoming);
    }

    /// Sends consecutive blocks of `send`, `counts[q]` bytes to rank q, and receives as many
    /// bytes from each rank into consecutive blocks of `recv`: one message each way with every
    /// rank whose count is not zero (the neighbours), none with the others. For exchanges whose
    /// counts are the same both ways, as the interface's are.
    pub(crate) fn exchange_with_neighbours(&self, send: &[u8], recv: &mut [u8], counts: &[Count]) {
        self.sent.exchange(self.others(counts).filter(|&c| c > 0));
        mpi::request::scope(|scope| {
            let (mut outgoing, mut incoming) = (send, recv);
            let mut requests = Vec::new();
            for (q, &c) in counts.iter().enumerate() {
                let (to_q, rest) = outgoing.split_at(c as usize);
                outgoing = rest;
                let (from_q, rest) = std::mem::take(&mut incoming).split_at_mut(c as usize);
                incoming = rest;
                if c == 0 {
                    continue;
                }
                let process = self.comm.process_at_rank(q as Rank);
                requests.push(process.immediate_receive_into_with_tag(scope, from_q, INTERFACE));
                requests.push(process.immediate_send_with_tag(scope, to_q, INTERFACE));
            }
            for request in requests {
                request.wait();
            }
        });
    }

    /// Every rank's `mine`, concatenated in rank order, on every rank.
    pub(crate) fn all_gather<T: Pod>(&self, mine: &[T]) -> Vec<T> {
        let bytes = bytemuck::cast_slice::<T, u8>(mine);
        let mut counts = vec![0 as Count; self.size];
        self.sent.collective(size_of::<Count>());
        self.sent.collective(bytes.len());
        self.comm
            .all_gather_into(&count(bytes.len()), &mut counts[..]);
        let displs = displacements(&counts);
        let total = counts.iter().map(|&c| c as usize).sum::<usize>() / size_of::<T>();
        // Received in place (no second copy of what may be every body), into one record more
        // than needed, so that an empty gather's buffer does not alias an empty send.
        let mut recv = vec![T::zeroed(); total + 1];
        let send_pad = [0u8; 1];
        let bytes = if bytes.is_empty() {
            &send_pad[..0]
        } else {
            bytes
        };
        let into = bytemuck::cast_slice_mut::<T, u8>(&mut recv[..]);
        let mut incoming = PartitionMut::new(into, &counts[..], &displs[..]);
        self.comm.all_gather_varcount_into(bytes, &mut incoming);
        recv.truncate(total);
        recv
    }

    /// In one `Allgather`: the largest `max` over the ranks and each of `sums` summed over the
    /// ranks, added in rank order.
    pub(crate) fn reduce(&self, max: f32, sums: [f64; 2]) -> (f32, [f64; 2]) {
        let mine = [max as f64, sums[0], sums[1]];
        let mut all = vec![[0f64; 3]; self.size];
        let flat = bytemuck::cast_slice_mut::<[f64; 3], f64>(&mut all);
        self.sent.collective(size_of_val(&mine));
        self.comm.all_gather_into(&mine[..], flat);
        all.iter()
            .fold((f32::NEG_INFINITY, [0.0; 2]), |(m, [a, b]), r| {
                (m.max(r[0] as f32), [a + r[1], b + r[2]])
            })
    }

    /// Every rank's `x`, in rank order, on every rank (one `Allgather`, counted).
    fn each_of<T: Equivalence + Pod>(&self, x: T) -> Vec<T> {
        let mut all = vec![T::zeroed(); self.size];
        self.sent.collective(size_of::<T>());
        self.comm.all_gather_into(&x, &mut all[..]);
        all
    }

    /// The largest `x` over the ranks.
    pub(crate) fn max(&self, x: f32) -> f32 {
        self.each_of(x)
            .into_iter()
            .fold(f32::NEG_INFINITY, f32::max)
    }

    /// The sum of `x` over the ranks, added in rank order.
    pub(crate) fn sum(&self, x: f64) -> f64 {
        self.each_of(x).into_iter().fold(0.0, |s, v| s + v)
    }

    /// Each of `values` (as many on every rank) summed over the ranks in rank order, in
    /// place: rank 0's value, then each other rank's added in turn, so that every rank gets
    /// the same bits and one rank's sums are its own values unchanged. One `Allgather`, none
    /// on one rank or for no values.
    pub(crate) fn sum_each(&self, values: &mut [f64]) {
        self.fold_each(values, |a, b| a + b);
    }

    /// The ranks whose `failed` is true, bit q for rank q (the run has at most 64 ranks).
    pub(crate) fn which_fail(&self, failed: bool) -> u64 {
        (self.each_of(u8::from(failed)).iter())
            .enumerate()
            .fold(0, |mask, (q, &f)| mask | (u64::from(f) << q))
    }

    /// Every rank's `mine`, by rank, on every rank.
    pub(crate) fn gather_by_rank<T: Pod>(&self, mine: &[T]) -> Vec<Vec<T>> {
        let counts = self.all_gather(&[mine.len() as u64]);
        let all = self.all_gather(mine);
        let mut at = 0;
        counts
            .iter()
            .map(|&c| {
                let theirs = all[at..at + c as usize].to_vec();
                at += c as usize;
                theirs
            })
            .collect()
    }

    /// The lowest rank's `message` among the ranks that have one, with that rank's number, on
    /// every rank; `None` when no rank has one.
    pub(crate) fn first_message(&self, message: Option<&str>) -> Option<(usize, String)> {
        let bytes = message.map_or(&[][..], str::as_bytes);
        let all = self.gather_by_rank(bytes);
        let q = all.iter().position(|m| !m.is_empty())?;
        Some((q, String::from_utf8_lossy(&all[q]).into_owned()))
    }

    /// The sum of `x` over the ranks.
    pub(crate) fn sum_count(&self, x: u64) -> u64 {
        self.each_of(x).into_iter().sum()
    }
}

/// The reductions of a bisection found from the ranks' own bodies
/// ([`crate::decomposition::Bisection::from_parts`]): one `Allgather` each, none on one rank.
impl crate::decomposition::Reduce for Ranks {
    fn sum_each(&self, values: &mut [u64]) {
        self.fold_each(values, |a, b| a + b);
    }

    fn max_each(&self, values: &mut [u64]) {
        self.fold_each(values, u64::max);
    }
}

/// The bits of `x` as an unsigned number in [`f64::total_cmp`]'s order.
fn total_key(x: f64) -> u64 {
    let b = x.to_bits();
    match b >> 63 {
        1 => !b,
        _ => b | 1 << 63,
    }
}

/// The number whose [`total_key`] is `key`.
fn from_total_key(key: u64) -> f64 {
    f64::from_bits(match key >> 63 {
        1 => key & !(1 << 63),
        _ => !key,
    })
}

impl Ranks {
    /// Each of `values` the largest over the ranks ([`f64::max`]), in place.
    pub(crate) fn largest_each(&self, values: &mut [f64]) {
        self.fold_each(values, f64::max);
    }

    /// Each of `values` the largest over the ranks, in place: one `MPI_Allreduce` (its traffic
    /// grows with log K, not K, whatever the length), none on one rank.
    pub(crate) fn largest_keys(&self, values: &mut [u64]) {
        if self.size == 1 || values.is_empty() {
            return;
        }
        let mine = values.to_vec();
        self.sent.collective(size_of_val(values));
        self.comm
            .all_reduce_into(&mine[..], values, mpi::collective::SystemOperation::max());
    }

    /// The `k`th smallest (from 0, in [`f64::total_cmp`]'s order) of every rank's `values`
    /// together, `None` where they are no more than `k`: selected 8 bits of its order key a
    /// round from the counts of the values under each value of the next 8 bits, summed over
    /// the ranks (one `Allgather` of the count, then eight of 256 counts), nothing gathered.
    pub(crate) fn select(&self, values: &[f64], k: u64) -> Option<f64> {
        let keys: Vec<u64> = values.iter().map(|&x| total_key(x)).collect();
        if k >= self.sum_count(keys.len() as u64) {
            return None;
        }
        let (mut key, mut k) = (0u64, k);
        for shift in (0..64).step_by(8).rev() {
            let mut counts = [0u64; 256];
            // The keys that share the digits settled so far (none at the first round).
            let settled = |x: u64| shift == 56 || x >> (shift + 8) == key >> (shift + 8);
            for &x in keys.iter().filter(|&&x| settled(x)) {
                counts[(x >> shift & 255) as usize] += 1;
            }
            self.fold_each(&mut counts, |a, b| a + b);
            let mut digit = 0;
            while k >= counts[digit] {
                k -= counts[digit];
                digit += 1;
            }
            key |= (digit as u64) << shift;
        }
        Some(from_total_key(key))
    }

    /// Each of `values` folded over the ranks by `f` in rank order, in place: rank 0's value,
    /// then each other rank's folded in turn. One `Allgather`, none on one rank or for no values.
    fn fold_each<T: Pod>(&self, values: &mut [T], f: fn(T, T) -> T) {
        if self.size == 1 || values.is_empty() {
            return;
        }
        let (all, n) = (self.all_gather(values), values.len());
        for (k, v) in values.iter_mut().enumerate() {
            *v = (1..self.size).fold(all[k], |s, q| f(s, all[q * n + k]));
        }
    }
}
