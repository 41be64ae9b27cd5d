//! What started this process: an MPI launcher (Open MPI's `mpirun`, or a PMI/PMIx launcher such
//! as MPICH's or Slurm's) tells each process it starts through environment variables.

/// Whether an MPI launcher started this process.
#[cfg(feature = "mpi")]
pub fn launched_by_mpi() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// The number of processes the MPI launcher that started this one started, where it says
/// (Open MPI's `OMPI_COMM_WORLD_SIZE`, PMI's `PMI_SIZE`); `None` otherwise. A build without
/// the `mpi` feature refuses to run as one of several.
#[cfg(not(feature = "mpi"))]
pub fn launched_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}
