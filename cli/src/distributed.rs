//! `mpirun -np K grains run SCENE` and `grains bench SCENE` (feature `mpi`): when the program
//! was started by an MPI launcher, MPI is initialised and the run is one rank of a distributed
//! run; rank 0 writes the outputs and prints, the others step with it and write their
//! pieces of the frames and checkpoints. Started without a launcher, the program runs in one
//! process as ever.

use crate::launcher::launched_by_mpi;
use grains::distributed::mpi;
use grains::distributed::mpi::collective::{CommunicatorCollectives, SystemOperation};
use grains::distributed::mpi::topology::{Communicator, SimpleCommunicator};
use grains::World;
use grains_app::runner::Distribute;

/// Steps between rebalances of the subdomains.
pub const REBALANCE_EVERY: u64 = 100;

/// The MPI job this process is a rank of.
pub struct Job {
    /// Kept alive until the program ends (its drop finalises MPI).
    _universe: mpi::environment::Universe,
    /// This rank's number.
    pub rank: usize,
    /// Number of ranks.
    pub size: usize,
}

/// Starts MPI when an MPI launcher started this process (with serialized threading, which the
/// distributed solve needs); `Ok(None)` otherwise. Fails when MPI cannot give that threading.
pub fn start() -> Result<Option<Job>, String> {
    if !launched_by_mpi() {
        return Ok(None);
    }
    let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Serialized)
        .ok_or("MPI was already initialised")?;
    if threading < mpi::Threading::Serialized {
        return Err(format!(
            "the MPI library gives {threading:?} threading; a distributed run needs Serialized"
        ));
    }
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    Ok(Some(Job {
        _universe: universe,
        rank,
        size,
    }))
}

/// [`start`], saying why on standard error when MPI cannot start.
pub fn start_or_say() -> Result<Option<Job>, std::process::ExitCode> {
    start().map_err(|e| {
        eprintln!("error: {e}");
        std::process::ExitCode::FAILURE
    })
}

/// Makes `world` this rank's share of the job's distributed run.
pub fn split(world: &mut World) -> Result<(), grains::BuildError> {
    world.distribute(SimpleCommunicator::world(), REBALANCE_EVERY)
}

/// Tells every rank whether this one `failed` and returns the lowest rank that did, if any: a
/// collective call (every rank of the job makes it at the same point), so that a failure of
/// one rank alone ends every rank, each by itself, instead of leaving the others waiting for
/// it in the next collective.
pub fn first_failed(failed: bool) -> Option<usize> {
    let world = SimpleCommunicator::world();
    let mine = if failed { world.rank() } else { world.size() };
    let mut first = mine;
    world.all_reduce_into(&mine, &mut first, SystemOperation::min());
    (first < world.size()).then_some(first as usize)
}

/// Every rank's `mine` (as many values on every rank), concatenated in rank order, on every
/// rank: a collective call.
pub fn all_gather(mine: &[u64]) -> Vec<u64> {
    let world = SimpleCommunicator::world();
    let mut all = vec![0u64; mine.len() * world.size() as usize];
    world.all_gather_into(mine, &mut all[..]);
    all
}

impl Job {
    /// How the runner makes this rank's share: rank 0 writes.
    pub fn distribute(&self) -> Distribute {
        Distribute {
            split,
            rank: self.rank,
            ranks: self.size,
            writes: self.rank == 0,
            first_failed,
            all_gather,
        }
    }

    /// Warns, on rank 0, when this rank steps on more worker threads than the CPUs it may run
    /// on: Open MPI binds each rank to one core by default (with 2 ranks or fewer; to a socket
    /// with more), where its `threads` workers would take turns on it.
    pub fn warn_if_bound(&self, threads: usize) {
        let cpus = std::thread::available_parallelism().map_or(threads, |n| n.get());
        if self.rank == 0 && threads > cpus {
            eprintln!(
                "warning: each rank steps on {threads} worker threads, but mpirun bound rank 0 \
                 to {cpus} CPU{}: start it with `--bind-to none` or `--map-by slot:PE={threads}`, \
                 or use --threads {cpus}",
                if cpus == 1 { "" } else { "s" }
            );
        }
    }

    /// Ends every rank of the job with status `code` (after an error on this one, so that the
    /// others do not wait for it forever).
    pub fn abort(&self, code: i32) -> ! {
        SimpleCommunicator::world().abort(code)
    }
}
