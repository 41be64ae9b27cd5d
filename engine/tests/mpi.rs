//! Distributed runs over MPI (feature `mpi`): each test launches itself under `mpirun` with K
//! ranks (`GRAINS_MPI_RANKS` set in the children) and the children step the world together.
//! The pour's figures of each K are compared with one process's run; the children check that
//! no grain is lost or held twice at any step.

use grains::distributed::mpi;
use grains::motion::Prescribed;
use grains::{sphere_mass, Body, BoxContainer, Material, Settings, Solver, Vec3, World};
use std::process::Command;
use std::sync::OnceLock;

/// The environment variable telling a child its rank count.
const CHILD: &str = "GRAINS_MPI_RANKS";
/// The environment variable telling a child its worker threads.
const THREADS: &str = "GRAINS_MPI_THREADS";

/// A child's worker threads (1 unless the parent said otherwise).
fn child_threads() -> usize {
    std::env::var(THREADS)
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1)
}

/// Seconds a launch may take before `timeout` ends it: a run that leaves its ranks waiting
/// for each other fails instead of hanging the suite.
const LAUNCH_LIMIT: &str = "600";

/// Runs test `name` of this binary under `mpirun -np ranks`, each rank on `threads` worker
/// threads, with `out` as the children's result file; panics with their output if they fail
/// or do not end within [`LAUNCH_LIMIT`].
fn launch(name: &str, layout: (usize, usize), out: &std::path::Path) {
    launch_from(name, layout, out, None);
}

/// Open MPI's setting that a rank waiting for a message yields its core instead of polling:
/// the tests run side by side, each launch's ranks oversubscribing the cores (4 ranks, or 2
/// beside another test's, on 2 cores), and the GPU ranks' waits (the host's round trips) would
/// otherwise take the cores the other rank's software device needs. Only the timing changes:
/// the ranks' arithmetic, and so their bits, do not depend on it.
const YIELD_WHEN_IDLE: [&str; 3] = ["--mca", "mpi_yield_when_idle", "1"];

/// The environment variable naming, for a child, the file of the snapshot it starts from.
const START: &str = "GRAINS_MPI_START";

/// [`launch`], the children starting from the snapshot in the file `start` where given (see
/// [`started`]).
fn launch_from(
    name: &str,
    layout: (usize, usize),
    out: &std::path::Path,
    start: Option<&std::path::Path>,
) {
    launch_env(name, layout, out, start, &[]);
}

/// [`launch_from`], the children's environment with the variables `env` besides.
fn launch_env(
    name: &str,
    (ranks, threads): (usize, usize),
    out: &std::path::Path,
    start: Option<&std::path::Path>,
    env: &[(&str, &str)],
) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut command = Command::new("timeout");
    command
        .args(["--kill-after=10", LAUNCH_LIMIT, "mpirun"])
        .args(YIELD_WHEN_IDLE)
        .args(["--allow-run-as-root", "--oversubscribe", "-np"])
        .arg(ranks.to_string())
        .arg(exe)
        // The test itself in each child, also where it is one of the `--ignored` studies.
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .arg("--include-ignored")
        .env(CHILD, ranks.to_string())
        .env(THREADS, threads.to_string())
        .env("GRAINS_MPI_OUT", out)
        .envs(env.iter().copied());
    if let Some(start) = start {
        command.env(START, start);
    }
    let run = command
        .output()
        .expect("mpirun (openmpi-bin) must be installed for the MPI tests");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(
        run.status.success(),
        "mpirun -np {ranks} {name} failed:\n{}\n{}",
        text(&run.stdout),
        text(&run.stderr)
    );
}

/// The texts each of `ranks` ranks wrote beside `file` (`FILE.rK`, rank K's `what`), each file
/// removed once read.
fn rank_files(file: &std::path::Path, ranks: usize, what: &str) -> Vec<String> {
    (0..ranks)
        .map(|rank| {
            let at = format!("{}.r{rank}", file.display());
            let text = std::fs::read_to_string(&at)
                .unwrap_or_else(|e| panic!("rank {rank}'s file of {what}, {at}: {e}"));
            let _ = std::fs::remove_file(&at);
            text
        })
        .collect()
}

/// Writes `world`'s snapshot to a file for the children of test `test` to start from
/// ([`launch_from`]); returns its path.
fn start_file(world: &mut World, test: &str) -> std::path::PathBuf {
    let name = format!("grains-mpi-{}-{test}-start", std::process::id());
    let file = std::env::temp_dir().join(name);
    let bytes = world.snapshot().expect("a snapshot").to_bytes();
    std::fs::write(&file, bytes).expect("the snapshot is written");
    file
}

/// In a child: the snapshot the parent wrote ([`start_file`]).
fn start_snapshot() -> grains::Snapshot {
    let file = std::env::var(START).expect("the parent named the snapshot");
    let bytes = std::fs::read(file).expect("the parent wrote the snapshot");
    grains::Snapshot::from_bytes(&bytes).expect("the snapshot reads back")
}

/// In a child: `world` (built as the parent built the world it snapshotted) restored from the
/// snapshot the parent wrote ([`start_file`]), which continues as the parent's world does.
fn started(mut world: World) -> World {
    world
        .restore(&start_snapshot())
        .expect("the snapshot restores");
    world
}

/// In a child: MPI started, the world communicator and this rank's number.
fn child() -> Option<(
    mpi::environment::Universe,
    mpi::topology::SimpleCommunicator,
)> {
    std::env::var(CHILD).ok()?;
    let (universe, threading) =
        mpi::initialize_with_threading(mpi::Threading::Serialized).expect("MPI starts once");
    assert!(
        threading >= mpi::Threading::Serialized,
        "MPI gives {threading:?}"
    );
    let world = universe.world();
    Some((universe, world))
}

/// Grain radius (m) of the pour.
const R: f32 = 0.005;

/// The pour: `side`³ spheres (r = 5 mm, 2500 kg/m³, μ = 0.5) in a 2.2 r lattice with a fixed
/// jitter, falling into an open box; APGD, h = 2 ms, the host copy gathered every step.
fn pour(side: usize, threads: usize) -> World {
    pour_of(side, threads, Material::new(0.5))
}

/// [`pour`] with the grains and walls of `material`.
fn pour_of(side: usize, threads: usize, material: Material) -> World {
    let mut b = World::builder(settings(threads));
    let m = b.material(material);
    fill_box(&mut b, (side, m), (6.0 * R, None));
    b.build().expect("the pour builds")
}

/// The pours' settings: APGD (100 sweeps, tolerance 1e-5 m/s), h = 2 ms, `threads` worker
/// threads, the host copy gathered every step.
fn settings(threads: usize) -> Settings {
    let mut settings = Settings::granular(0.002);
    settings.threads = threads;
    settings.solver = Solver::Apgd {
        sweeps: 100,
        tolerance: 1e-5,
        omega: 1.0,
    };
    settings.sync_every = 1;
    settings
}

/// Adds the pour's open box, `headroom` (m) taller than the lattice and moving by `motion`,
/// and the `side`³ grains of material `m` in its 2.2 r lattice with the seeded jitter.
fn fill_box(
    b: &mut grains::WorldBuilder,
    (side, m): (usize, grains::MaterialId),
    (headroom, motion): (f32, Option<Prescribed>),
) {
    let width = (side as f32 - 1.0) * 2.2 * R + 4.0 * R;
    b.container(&BoxContainer {
        floor_centre: Vec3::ZERO,
        width_x: width,
        width_y: width,
        height: 2.2 * R * side as f32 + headroom,
        material: m,
        motion,
    });
    let mass = sphere_mass(R, 2500.0);
    let mut jitter = grains_jitter(12345);
    let x0 = -width / 2.0 + 2.0 * R;
    for k in 0..side {
        for j in 0..side {
            for i in 0..side {
                let (jx, jy) = (jitter(), jitter());
                let c = Vec3::new(
                    x0 + 2.2 * R * i as f32 + jx,
                    x0 + 2.2 * R * j as f32 + jy,
                    2.0 * R + 2.2 * R * k as f32,
                );
                b.body(Body::sphere(c, R, mass).with_material(m));
            }
        }
    }
}

/// A seeded jitter of ±0.05 r (SplitMix64, the pour benchmark's generator).
fn grains_jitter(seed: u64) -> impl FnMut() -> f32 {
    let mut rng = grains_kernels::random::SplitMix64(seed);
    move || 0.05 * R * (2.0 * rng.next_f64() as f32 - 1.0)
}

/// The end state's figures: bed height (the 95th percentile of the centres' z plus r, m),
/// contacts, deepest overlap (m), largest speed (m/s), and a hash of every body's bits.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Figures {
    bed: f64,
    contacts: usize,
    penetration: f32,
    speed: f32,
    bits: u64,
}

impl Figures {
    /// Asserts that these figures of a run on `ranks` ranks match one process's `reference`:
    /// bed height within a quarter radius, contacts within the fraction `contacts`.
    fn assert_like(&self, reference: &Figures, ranks: usize, contacts: f64) {
        println!("{ranks} ranks: {self:?}");
        assert!(
            (self.bed - reference.bed).abs() < 0.25 * R as f64,
            "{ranks} ranks: bed {} m, one process {} m",
            self.bed,
            reference.bed
        );
        let off = (self.contacts as f64 - reference.contacts as f64).abs();
        assert!(
            off < contacts * reference.contacts as f64,
            "{ranks} ranks: {} contacts, one process {} ({:.3} %)",
            self.contacts,
            reference.contacts,
            100.0 * off / reference.contacts as f64
        );
    }

    fn of(world: &World) -> Figures {
        let b = world.bodies();
        let mut z: Vec<f32> = b.pos_radius.iter().map(|p| p.z).collect();
        z.sort_by(f32::total_cmp);
        let bed = z[(z.len() * 95) / 100] as f64 + R as f64;
        let speed = b.motion.iter().map(|m| m.v().length()).fold(0.0, f32::max);
        let mut bits = 0xcbf2_9ce4_8422_2325u64;
        for (p, m) in b.pos_radius.iter().zip(&b.motion) {
            for x in p.to_array().into_iter().chain(m.linear).chain(m.angular) {
                bits = (bits ^ x.to_bits() as u64).wrapping_mul(0x100_0000_01b3);
            }
        }
        let last = world.last_stats();
        Figures {
            bed,
            contacts: last.contacts,
            penetration: last.max_penetration,
            speed,
            bits,
        }
    }

    fn to_line(self) -> String {
        format!(
            "{} {} {} {} {}",
            self.bed, self.contacts, self.penetration, self.speed, self.bits
        )
    }

    fn from_line(line: &str) -> Figures {
        let v: Vec<&str> = line.split_whitespace().collect();
        Figures {
            bed: v[0].parse().expect("bed"),
            contacts: v[1].parse().expect("contacts"),
            penetration: v[2].parse().expect("penetration"),
            speed: v[3].parse().expect("speed"),
            bits: v[4].parse().expect("bits"),
        }
    }
}

/// The pour's size (grains per side) and steps: 8,000 grains, 1 s.
const SIDE: usize = 20;
const STEPS: u64 = 500;

/// A child: `world` stepped `steps` steps on K ranks, every step's owners checked, the end
/// figures written by rank 0.
fn pour_child_of(comm: mpi::topology::SimpleCommunicator, mut world: World, steps: u64) {
    use mpi::topology::Communicator;
    let rank = comm.rank();
    world.distribute(comm, 25).expect("the pour distributes");
    for _ in 0..steps {
        world.step().expect("a distributed step");
        check_owners(&world);
    }
    world.sync().expect("the bodies gathered");
    if rank == 0 {
        let out = std::env::var("GRAINS_MPI_OUT").expect("the result file");
        std::fs::write(out, Figures::of(&world).to_line()).expect("the result file is written");
    }
}

/// Checks that every grain of the distributed `world` is owned by one rank, and that every rank
/// owns some.
fn check_owners(world: &World) {
    let by_rank = world.rank_ids().expect("a distributed world");
    let n = world.len();
    let mut seen = vec![0u8; n];
    for ids in &by_rank {
        assert!(
            !ids.is_empty(),
            "step {}: a rank owns no grain",
            world.steps()
        );
        for &id in ids {
            seen[id as usize] += 1;
        }
    }
    let wrong: Vec<usize> = (0..n).filter(|&i| seen[i] != 1).collect();
    assert!(
        wrong.is_empty(),
        "step {}: grains lost or held twice: {:?}",
        world.steps(),
        &wrong[..wrong.len().min(10)]
    );
}

/// Runs `test`'s children on `ranks` ranks of one worker thread each and returns the figures
/// rank 0 wrote.
fn figures_on(test: &str, ranks: usize, tag: &str) -> Figures {
    figures_with(test, (ranks, 1), tag)
}

/// Runs `test`'s children on `ranks` ranks of `threads` worker threads each and returns the
/// figures rank 0 wrote.
fn figures_with(test: &str, (ranks, threads): (usize, usize), tag: &str) -> Figures {
    // One file per test and tag: the tests of this binary run side by side in one process.
    let name = format!("grains-mpi-{}-{test}-{tag}-{ranks}", std::process::id());
    let file = std::env::temp_dir().join(name);
    launch(test, (ranks, threads), &file);
    let text = std::fs::read_to_string(&file).expect("rank 0 wrote its figures");
    let _ = std::fs::remove_file(&file);
    Figures::from_line(&text)
}

/// The environment variable telling a child of the shared pour ([`shared_pour_child`]) to go
/// on to [`LOADS_STEPS`] instead of stopping at [`REPEAT_STEPS`].
const FULL: &str = "GRAINS_MPI_FULL";

/// The step at which the shared pour's figures are compared: 0.4 s.
const REPEAT_STEPS: u64 = 200;

/// The step the resumed pour's snapshot is taken at: not a multiple of the rebalance interval
/// (25), so that the resumed run must split the bed by the snapshot's cuts to continue as the
/// uninterrupted one does.
const CUT_AT: u64 = 110;
/// The resumed pour's last step: three rebalances after the snapshot.
const RESUMED_TO: u64 = 190;

/// Steps of the momentum test: the 1,000-grain pour landing and settling.
const LOADS_STEPS: u64 = 300;

/// A child of the shared pour, which three tests read (one launch per rank and thread count
/// instead of one per test): the 1,000-grain pour on K ranks, every step's owners checked
/// ([`check_owners`]). In the launches of 1 thread a rank, at step [`CUT_AT`] the ranks'
/// checkpoint pieces, each taken without gathering anything and joined through their bytes
/// and an index ([`joined_pieces`]), must hold its gathered snapshot bit for bit, and are
/// restored into a
/// world freshly built and distributed on as many ranks, which must continue bit for bit like
/// the pour: the same owners at the next step, and every body's centre, orientation and
/// velocities and the step's figures at [`RESUMED_TO`]. Rank 0 writes the figures of step
/// [`REPEAT_STEPS`]; where [`FULL`] is set, the pour goes on to [`LOADS_STEPS`], its last
/// step's contacts copied on every rank, and rank 0 writes their [`momentum_line`] on a
/// second line.
fn shared_pour_child(comm: mpi::topology::SimpleCommunicator) {
    use mpi::topology::Communicator;
    let rank = comm.rank();
    let mut again = Some(comm.duplicate());
    let test_comm = comm.duplicate();
    let full = std::env::var(FULL).is_ok();
    let last = if full { LOADS_STEPS } else { REPEAT_STEPS };
    // The launches of 2 threads a rank take no snapshot: their bits, compared with those of 1
    // thread, show that the snapshot and the resumed world beside did not change the pour.
    let resume = child_threads() == 1;
    let mut straight = pour(10, child_threads());
    straight.distribute(comm, 25).expect("the pour distributes");
    let mut resumed: Option<World> = None;
    let (mut figures, mut before) = (String::new(), Vec::new());
    while straight.steps() < last {
        if straight.steps() == CUT_AT && resume {
            // Each rank's piece, taken before anything is gathered, then the gathered snapshot.
            let piece = straight
                .snapshot_piece()
                .expect("a distributed world's piece");
            let bytes = straight.snapshot().expect("a snapshot").to_bytes();
            let snap = grains::Snapshot::from_bytes(&bytes).expect("the snapshot reads back");
            assert!(
                snap.cuts.is_some(),
                "a distributed world's snapshot has its cuts"
            );
            let piece = piece.to_bytes();
            // Written beside the rank's whole pipeline, the piece's buffer is its size exactly.
            assert_eq!(
                piece.capacity(),
                piece.len(),
                "the piece's buffer is its size"
            );
            let joined = joined_pieces(&straight, &test_comm, &piece);
            assert!(
                joined == snap,
                "the pieces do not hold the gathered snapshot, bit for bit"
            );
            let mut world = pour(10, child_threads());
            let again = again.take().expect("one resume");
            world.distribute(again, 25).expect("the pour distributes");
            world.restore(&joined).expect("the joined pieces restore");
            resumed = Some(world);
        }
        if straight.steps() + 1 == LOADS_STEPS {
            straight.sync().expect("the bodies gathered");
            before = (0..straight.len()).map(|i| straight.velocity(i)).collect();
        }
        straight.step().expect("a distributed step");
        check_owners(&straight);
        if let Some(world) = resumed.as_mut() {
            world.step().expect("a step of the resumed pour");
            if world.steps() == CUT_AT + 1 {
                assert_eq!(
                    world.rank_ids(),
                    straight.rank_ids(),
                    "the ranks own other bodies after the restore"
                );
            }
            if world.steps() == RESUMED_TO {
                straight.sync().expect("the bodies gathered");
                world.sync().expect("the bodies gathered");
                let (a, b) = (state_bits(&straight), state_bits(world));
                if let Some(k) = (0..a.len()).find(|&k| a[k] != b[k]) {
                    panic!(
                        "step {RESUMED_TO}: body {} differs after the restore",
                        k / 14
                    );
                }
                assert_eq!(world.last_stats(), straight.last_stats());
                resumed = None;
            }
        }
        if straight.steps() == REPEAT_STEPS {
            check_own_bodies(&mut straight);
            figures = Figures::of(&straight).to_line();
        }
    }
    assert!(
        resumed.is_none(),
        "the resumed pour reached step {RESUMED_TO}"
    );
    if full {
        straight.sync_contacts().expect("the contacts copied");
        figures = figures + "\n" + &momentum_line(&straight, &before);
    }
    if rank == 0 {
        let out = std::env::var("GRAINS_MPI_OUT").expect("the result file");
        std::fs::write(out, figures).expect("the result file is written");
    }
}

/// Checks, at a step of the distributed `world` (of `sync_every` 1), that its read-backs did
/// not gather the bodies (the host copy holds an earlier step), that the bodies it owns
/// ([`World::own_bodies`]) are then, bit for bit, those the host copy holds once gathered
/// ([`World::sync`]), and that order statistics of their heights selected over the ranks
/// ([`World::select_over_ranks`]) are those of the gathered heights sorted. Leaves the host
/// copy gathered.
fn check_own_bodies(world: &mut World) {
    assert_eq!(world.settings().sync_every, 1);
    assert!(
        world.synced_at() < world.steps(),
        "step {}: the read-backs gathered the bodies",
        world.steps()
    );
    let (indices, own) = world.own_bodies().expect("a distributed world");
    let mut z: Vec<f64> = own.pos_radius.iter().map(|p| p.z as f64).collect();
    let n = world.len() as u64;
    let picked: Vec<Option<f64>> = [0, n / 2, (n * 95).div_ceil(100) - 1, n - 1, n]
        .iter()
        .map(|&k| world.select_over_ranks(&mut z, k))
        .collect();
    world.sync().expect("the bodies gathered");
    let b = world.bodies();
    for (k, &i) in indices.iter().enumerate() {
        let bits = |b: &grains_kernels::Bodies, j: usize| {
            let m = &b.motion[j];
            (b.pos_radius[j].to_array().into_iter())
                .chain(b.orientation[j].to_array())
                .chain(m.linear)
                .chain(m.angular)
                .map(f32::to_bits)
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&own, k), bits(b, i), "body {i}: its owner's state");
    }
    let mut all: Vec<f64> = b.pos_radius.iter().map(|p| p.z as f64).collect();
    all.sort_by(f64::total_cmp);
    let sorted = [0, n / 2, (n * 95).div_ceil(100) - 1, n - 1, n]
        .map(|k| all.get(k as usize).copied())
        .to_vec();
    assert_eq!(picked, sorted, "heights selected over the ranks");
}

/// The snapshot that every rank's `piece` (its [`World::snapshot_piece`]'s bytes, exchanged
/// here by the test over `comm`) and the index of `world` naming them hold together, each read
/// back from its bytes and checked against the index.
fn joined_pieces(
    world: &World,
    comm: &mpi::topology::SimpleCommunicator,
    piece: &[u8],
) -> grains::Snapshot {
    use grains::{PieceEntry, SnapshotIndex};
    use mpi::collective::CommunicatorCollectives;
    use mpi::datatype::PartitionMut;
    use mpi::topology::Communicator;
    let mut sizes = vec![0i32; comm.size() as usize];
    comm.all_gather_into(&(piece.len() as i32), &mut sizes[..]);
    let starts: Vec<i32> = (sizes.iter())
        .scan(0, |at, &n| {
            *at += n;
            Some(*at - n)
        })
        .collect();
    let mut all = vec![0u8; sizes.iter().map(|&n| n as usize).sum()];
    let mut into = PartitionMut::new(&mut all[..], &sizes[..], &starts[..]);
    comm.all_gather_varcount_into(piece, &mut into);
    let bytes: Vec<&[u8]> = (starts.iter().zip(&sizes))
        .map(|(&at, &n)| &all[at as usize..(at + n) as usize])
        .collect();
    let entries = (bytes.iter().enumerate())
        .map(|(k, b)| PieceEntry::of(format!("piece {k}"), b))
        .collect();
    let index = SnapshotIndex::from_bytes(&world.snapshot_index(entries).to_bytes())
        .expect("the index reads back");
    let pieces = (bytes.iter().enumerate())
        .map(|(k, b)| index.open_piece(k, b).expect("a piece opens"))
        .collect();
    index.assemble(pieces).expect("the pieces join")
}

/// What rank 0 of a launch of the shared pour wrote: the figures of step [`REPEAT_STEPS`],
/// and, for a full launch, the [`momentum_line`] of step [`LOADS_STEPS`].
struct SharedPour {
    figures: Figures,
    momentum: Option<String>,
}

/// The launch of the shared pour ([`shared_pour_child`]) on `ranks` ranks of `threads` worker
/// threads, made once by the first test that asks for it. The launches on 2 and on 4 ranks of
/// one thread go on to [`LOADS_STEPS`] for the momentum test.
fn shared_pour(ranks: usize, threads: usize) -> &'static SharedPour {
    const LAYOUTS: [(usize, usize); 5] = [(1, 1), (2, 1), (2, 2), (4, 1), (4, 2)];
    static RUNS: [OnceLock<SharedPour>; 5] = [const { OnceLock::new() }; 5];
    let k =
        (LAYOUTS.iter().position(|&l| l == (ranks, threads))).expect("a layout of the shared pour");
    RUNS[k].get_or_init(|| {
        let full = ranks > 1 && threads == 1;
        let name = format!("grains-mpi-{}-shared-{ranks}-{threads}", std::process::id());
        let file = std::env::temp_dir().join(name);
        let env: &[(&str, &str)] = if full { &[(FULL, "1")] } else { &[] };
        launch_env(SHARED, (ranks, threads), &file, None, env);
        let text = std::fs::read_to_string(&file).expect("rank 0 wrote its figures");
        let _ = std::fs::remove_file(&file);
        let mut lines = text.lines();
        let figures = Figures::from_line(lines.next().expect("the figures"));
        let momentum = lines.next().map(str::to_string);
        assert_eq!(momentum.is_some(), full, "{ranks} ranks: {text}");
        SharedPour { figures, momentum }
    })
}

/// The 1,000-grain pour in one process (1 worker thread), as three tests read it: its snapshot
/// at step [`SETTLE`], its figures at step [`REPEAT_STEPS`] and the [`momentum_line`] of its
/// step [`LOADS_STEPS`].
struct OneProcessPour {
    settled: grains::Snapshot,
    figures: Figures,
    momentum: String,
}

/// [`pour`] of 1,000 grains in one process, stepped once to [`LOADS_STEPS`] by the first test
/// that asks for it (one run instead of three: the repeat's, the momentum balance's and the
/// one-step solve's).
fn one_process_pour() -> &'static OneProcessPour {
    static ONE: OnceLock<OneProcessPour> = OnceLock::new();
    ONE.get_or_init(|| {
        let mut world = pour(10, 1);
        world.run(SETTLE).expect("one process's pour");
        let settled = world.snapshot().expect("a snapshot");
        world
            .run(REPEAT_STEPS - SETTLE)
            .expect("one process's pour");
        let figures = Figures::of(&world);
        let momentum = last_step_momentum(world);
        OneProcessPour {
            settled,
            figures,
            momentum,
        }
    })
}

/// The test whose children run the shared pour (each of the three tests reading it runs
/// [`shared_pour_child`] in a child).
const SHARED: &str = "a_pour_repeats_bit_for_bit_for_a_given_rank_count";

/// A pour of 1,000 grains (0.4 s) on one rank is one process's, bit for bit; it repeats bit
/// for bit on 2 ranks and on 4, whatever each rank's thread count, and its bits depend on the
/// rank count. The repeat is two runs on as many ranks, one of 1 and one of 2 worker threads a
/// rank: equal bits show both that a run repeats and that the thread count does not matter (a
/// third run, of the same threads as the first, showed the repeat alone). The runs are the
/// shared pour's ([`shared_pour`]), one process's is [`one_process_pour`] (whose snapshot at
/// step [`SETTLE`], taken on the way, must leave its bits as they are).
#[test]
fn a_pour_repeats_bit_for_bit_for_a_given_rank_count() {
    if let Some((_universe, comm)) = child() {
        return shared_pour_child(comm);
    }
    assert_eq!(
        shared_pour(1, 1).figures,
        one_process_pour().figures,
        "one rank steps as one process does"
    );
    let mut bits = Vec::new();
    for ranks in [2, 4] {
        let a = shared_pour(ranks, 1).figures;
        let threaded = shared_pour(ranks, 2).figures;
        assert_eq!(
            a, threaded,
            "{ranks} ranks twice, of 1 and of 2 threads: different figures or bits"
        );
        bits.push(a.bits);
    }
    assert_ne!(
        bits[0], bits[1],
        "2 and 4 ranks add in other orders: other bits"
    );
}

/// What a rank holds of the bodies after its steps, as its child writes it: the world's count,
/// the bodies it owns, whether the host copy (every body) can be read, how many it holds
/// after a gather, and whether the next step released it again.
fn holdings(world: &mut World) -> String {
    let readable = |w: &World| {
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (w.bodies().len(), w.centres().len())
        }));
        std::panic::set_hook(quiet);
        read.ok()
    };
    let (_, own) = world.own_bodies().expect("a distributed world");
    let between = readable(world);
    world.sync().expect("the bodies gathered");
    let gathered = readable(world);
    world.step().expect("a distributed step");
    let after = readable(world);
    format!(
        "{} {} {between:?} {gathered:?} {after:?}",
        world.len(),
        own.len()
    )
}

/// A rank of a distributed world holds the bodies it owns (and, while it steps, their ghosts),
/// never a copy of every body: the split releases the host copy the world was built with, a
/// gather ([`World::sync`]) fills it on demand, and the next step releases it again. Reading
/// the host copy in between panics (it never hands a part of the bodies off as all of them);
/// [`World::len`] still counts every body. On 4 ranks the pour of 1,000 grains leaves each rank
/// under half of them.
#[test]
fn a_rank_holds_its_own_bodies_not_a_copy_of_every_body() {
    const RANKS: usize = 4;
    if let Some((_universe, comm)) = child() {
        use mpi::topology::Communicator;
        let rank = comm.rank();
        let mut world = pour(10, child_threads());
        assert_eq!(world.bodies().len(), 1000, "built whole on every rank");
        world.distribute(comm, 25).expect("the pour distributes");
        for _ in 0..3 {
            world.step().expect("a distributed step");
        }
        let line = holdings(&mut world);
        let out = std::env::var("GRAINS_MPI_OUT").expect("the result file");
        std::fs::write(format!("{out}.r{rank}"), line).expect("written");
        return;
    }
    let out = std::env::temp_dir().join(format!("grains-mpi-{}-holdings", std::process::id()));
    launch(
        "a_rank_holds_its_own_bodies_not_a_copy_of_every_body",
        (RANKS, 1),
        &out,
    );
    let lines = rank_files(&out, RANKS, "holdings");
    let mut owned = 0;
    for (rank, line) in lines.iter().enumerate() {
        let fields: Vec<&str> = line.splitn(3, ' ').collect();
        let (n, own): (usize, usize) = (fields[0].parse().unwrap(), fields[1].parse().unwrap());
        assert_eq!(n, 1000, "rank {rank}: the world counts every body: {line}");
        assert!(
            own > 0 && own < n / 2,
            "rank {rank} owns {own} of {n} bodies: {line}"
        );
        owned += own;
        assert_eq!(
            fields[2], "None Some((1000, 1000)) None",
            "rank {rank}: the host copy must be released after a step, whole after a gather: \
             {line}"
        );
    }
    assert_eq!(owned, 1000, "every body owned once: {lines:?}");
}

/// Every body's centre, radius, orientation and velocities, as bits.
fn state_bits(world: &World) -> Vec<u32> {
    let b = world.bodies();
    let body = |i: usize| {
        let m = &b.motion[i];
        let p = b.pos_radius[i].to_array().into_iter();
        let q = b.orientation[i].to_array().into_iter();
        p.chain(q).chain(m.linear).chain(m.angular)
    };
    (0..b.len()).flat_map(body).map(f32::to_bits).collect()
}

/// The 1,000-grain pour on 2 ranks and on 4, snapshotted at step [`CUT_AT`] and restored,
/// through the snapshot's bytes, into a world freshly built and distributed on as many ranks,
/// continues bit for bit like the pour left uninterrupted: the same owners at the next step,
/// and every body's centre, orientation and velocities at step [`RESUMED_TO`]. The children of
/// the shared pour check it ([`shared_pour_child`]), in every launch of 1 thread a rank (also
/// that of 1 rank).
#[test]
fn a_resumed_pour_continues_bit_for_bit_on_as_many_ranks() {
    if let Some((_universe, comm)) = child() {
        return shared_pour_child(comm);
    }
    for ranks in [2, 4] {
        let f = shared_pour(ranks, 1).figures;
        println!("{ranks} ranks, resumed at step {CUT_AT}: {f:?}");
    }
}

/// The body of a test comparing distributed runs with one process's: in a child, `make()`
/// stepped `steps` steps on the ranks (owners checked every step); in the parent, `make()`
/// stepped in one process, then on each of the rank counts `ranks`, each compared with it (bed
/// within r/4, contacts within the fraction `contacts`). Returns, in the parent, one process's
/// world and the ranks' figures, for the test's own checks.
fn compare_with_one_process(
    test: &str,
    make: fn() -> World,
    (steps, ranks): (u64, &[usize]),
    contacts: f64,
) -> Option<(World, Figures, Vec<Figures>)> {
    if let Some((_universe, comm)) = child() {
        pour_child_of(comm, make(), steps);
        return None;
    }
    let mut one = make();
    one.run(steps).expect("one process's run");
    let reference = Figures::of(&one);
    println!("1 process: {reference:?}");
    let distributed = (ranks.iter())
        .map(|&ranks| {
            let f = figures_on(test, ranks, "compared");
            f.assert_like(&reference, ranks, contacts);
            f
        })
        .collect();
    Some((one, reference, distributed))
}

/// The pour of 8,000 grains on 2 and 4 ranks ends like one process's: the same bed height
/// (within a quarter grain radius), contacts within 0.5 %, the deepest overlap within 0.1 r of
/// it and at rest. A study of minutes on 2 cores (three runs of 8,000 grains, 4 ranks
/// oversubscribed): `cargo test --release -p grains --features mpi --test mpi -- --ignored`;
/// CI runs the same checks on 1,728 grains ([`a_pour_of_1728_matches_one_process`]).
#[test]
#[ignore = "a study of minutes; CI runs a_pour_of_1728_matches_one_process"]
fn pour_matches_one_process() {
    pour_settles_like_one_process(
        "pour_matches_one_process",
        || pour(SIDE, child_threads()),
        STEPS,
    );
}

/// [`pour_matches_one_process`] on 12³ = 1,728 grains (the bed 12 grains deep, so that the
/// cuts of 4 ranks pass through the bed's depth as well): the same checks and tolerances, after
/// 400 steps (0.8 s; in one process its grains are below 0.05 m/s from step 325 and its
/// contacts within 0.1 % of step 500's).
#[test]
fn a_pour_of_1728_matches_one_process() {
    let test = "a_pour_of_1728_matches_one_process";
    pour_settles_like_one_process(test, || pour(12, child_threads()), 400);
}

/// The body of the pour tests: `make()` stepped `steps` steps in one process and on 2 and on
/// 4 ranks ends with the same bed height (within r/4), contacts within 0.5 %, the deepest
/// overlap within 0.1 r of one process's and every grain at rest.
fn pour_settles_like_one_process(test: &str, make: fn() -> World, steps: u64) {
    let Some((_, reference, distributed)) =
        compare_with_one_process(test, make, (steps, &[2, 4]), 0.005)
    else {
        return;
    };
    for (f, ranks) in distributed.iter().zip([2, 4]) {
        assert!(
            (f.penetration - reference.penetration).abs() < 0.1 * R,
            "{ranks} ranks: deepest overlap {} m, one process {} m",
            f.penetration,
            reference.penetration
        );
        assert!(
            f.speed < 0.05 && reference.speed < 0.05,
            "not at rest: {} m/s on {ranks} ranks, {} m/s in one process",
            f.speed,
            reference.speed
        );
    }
}

/// A field of 64 resting grains 4 r apart and one grain shot along x beside them, with no
/// gravity and no walls: nothing touches the shot grain.
fn shot() -> World {
    let mut settings = Settings::granular(0.002);
    settings.solver = Solver::Jacobi {
        sweeps: 50,
        tolerance: 1e-6,
        omega: 0.3,
    };
    settings.gravity = Vec3::ZERO;
    settings.sync_every = 1;
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    let mass = sphere_mass(R, 2500.0);
    let shot =
        Body::sphere(Vec3::new(-0.1, -0.02, 0.0), R, mass).with_velocity(Vec3::new(1.5, 0.01, 0.0));
    b.body(shot);
    for i in 0..64 {
        let c = Vec3::new(
            -0.07 + 4.0 * R * (i % 8) as f32,
            4.0 * R * (i / 8) as f32,
            0.0,
        );
        b.body(Body::sphere(c, R, mass));
    }
    b.build().expect("the shot builds")
}

/// Steps of the shot: 0.2 m at 1.5 m/s.
const SHOT_STEPS: u64 = 70;

/// The shot grain's velocity, angular velocity and centre, as bits.
fn shot_bits(world: &World) -> Vec<u32> {
    let b = world.bodies();
    let m = &b.motion[0];
    m.linear
        .into_iter()
        .chain(m.angular)
        .chain(b.pos_radius[0].to_array())
        .map(f32::to_bits)
        .collect()
}

/// A grain shot across the boundary between two ranks keeps its momentum exactly: its
/// velocities and path are one process's bit for bit, and it changes owner on the way.
#[test]
fn a_shot_grain_keeps_its_momentum_across_ranks() {
    if let Some((_universe, comm)) = child() {
        use mpi::topology::Communicator;
        let rank = comm.rank();
        let mut world = shot();
        world.distribute(comm, 1000).expect("the shot distributes");
        world.step().expect("a distributed step");
        let owner = |w: &World| {
            let by_rank = w.rank_ids().expect("distributed");
            by_rank
                .iter()
                .position(|ids| ids.contains(&0))
                .expect("someone owns it")
        };
        let first = owner(&world);
        world.run(SHOT_STEPS - 1).expect("distributed steps");
        let last = owner(&world);
        let out = std::env::var("GRAINS_MPI_OUT").expect("the result file");
        let bits: Vec<String> = shot_bits(&world).iter().map(u32::to_string).collect();
        std::fs::write(&out, format!("{first} {last} {}", bits.join(" "))).expect("written");
        // A fault of the shot grain, on rank 1: every rank's step returns the same error.
        world
            .set_velocity(0, Vec3::NAN, Vec3::ZERO)
            .expect("an edit");
        let verdict = match world.step() {
            Ok(_) => "no fault".to_string(),
            Err(e) => e.to_string(),
        };
        std::fs::write(format!("{out}.r{rank}"), verdict).expect("written");
        return;
    }
    let mut one = shot();
    one.run(SHOT_STEPS).expect("one process's steps");
    let v0 = Vec3::new(1.5, 0.01, 0.0);
    assert_eq!(one.velocity(0), v0, "nothing touches the shot grain");
    let expected: Vec<String> = shot_bits(&one).iter().map(u32::to_string).collect();
    let file = std::env::temp_dir().join(format!("grains-mpi-{}-shot", std::process::id()));
    launch(
        "a_shot_grain_keeps_its_momentum_across_ranks",
        (2, 1),
        &file,
    );
    let text = std::fs::read_to_string(&file).expect("rank 0 wrote its result");
    let _ = std::fs::remove_file(&file);
    let fields: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(
        (fields[0], fields[1]),
        ("0", "1"),
        "the grain starts on rank 0 and ends on rank 1"
    );
    assert_eq!(
        fields[2..],
        expected.iter().map(String::as_str).collect::<Vec<_>>()[..]
    );
    let verdicts = rank_files(&file, 2, "its verdict");
    let fault = format!("step {}: body 0: position is not finite", SHOT_STEPS + 1);
    assert!(
        verdicts.iter().all(|v| v.starts_with(&fault)),
        "every rank's error must be {fault:?}…: {verdicts:?}"
    );
}

/// 200 grains at rest 4 r apart on the low side of x (nothing touches), and 200 more heaped
/// within 0.2 r of one point on the high side: every heaped grain touches every other, 199
/// contacts each, more than a rank's narrow phase keeps. No gravity.
fn heaped(gpu: bool) -> Result<World, grains::BuildError> {
    let mut settings = Settings::granular(0.002);
    settings.gravity = Vec3::ZERO;
    settings.solver = Solver::Jacobi {
        sweeps: 50,
        tolerance: if gpu { 0.0 } else { 1e-6 },
        omega: 0.3,
    };
    if gpu {
        settings.backend = grains::Backend::Gpu;
    }
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    let mass = sphere_mass(R, 2500.0);
    for i in 0..200 {
        let c = Vec3::new(
            -0.5 + 4.0 * R * (i % 20) as f32,
            4.0 * R * (i / 20) as f32,
            0.0,
        );
        b.body(Body::sphere(c, R, mass));
    }
    let mut jitter = grains_jitter(11);
    for _ in 0..200 {
        let c = Vec3::new(0.5, 0.0, 0.0) + 2.0 * Vec3::new(jitter(), jitter(), jitter());
        b.body(Body::sphere(c, R, mass));
    }
    b.build()
}

/// A step that one rank cannot take (its narrow phase finds too many contacts) stops every
/// rank: each returns the step's error, where the others used to wait for that rank in the
/// solve's first exchange until the launch was killed. The rank holding the heap says what is
/// wrong with its figures; the other names that rank and its message. So on CPU ranks and on
/// GPU ranks (where the heap overflows the partner slots of a body), where there is an adapter.
#[test]
fn a_rank_that_cannot_take_a_step_stops_every_rank() {
    const TEST: &str = "a_rank_that_cannot_take_a_step_stops_every_rank";
    if let Some((_universe, comm)) = child() {
        use mpi::topology::Communicator;
        let rank = comm.rank();
        let out = std::env::var("GRAINS_MPI_OUT").expect("the result file");
        let mut world = heaped(out.ends_with("gpu")).expect("the heap builds");
        world.distribute(comm, 100).expect("the heap distributes");
        let error = world
            .step()
            .expect_err("the heap's rank cannot take the step");
        let heap_owner = world.rank_ids().expect("distributed")[1].contains(&399);
        let line = format!("{heap_owner} {error}");
        std::fs::write(format!("{out}-{rank}"), line).expect("written");
        return;
    }
    for (backend, fault) in [
        ("cpu", "active contacts per body"),
        ("gpu", "partner slots of one body"),
    ] {
        if let Err(grains::BuildError::NoGpuAdapter(why)) = heaped(backend == "gpu") {
            eprintln!("GPU ranks skipped: no GPU adapter ({why})");
            continue;
        }
        let name = format!("grains-mpi-{}-heap-{backend}", std::process::id());
        let file = std::env::temp_dir().join(name);
        launch(TEST, (2, 1), &file);
        let said = |rank: usize| {
            let f = format!("{}-{rank}", file.display());
            let text = std::fs::read_to_string(&f).unwrap_or_else(|_| panic!("rank {rank} wrote"));
            let _ = std::fs::remove_file(&f);
            text
        };
        let (low, high) = (said(0), said(1));
        println!("{backend} ranks: rank 0 said {low:?}, rank 1 {high:?}");
        assert!(low.starts_with("true "), "rank 1 owns the heap: {low}");
        assert!(
            high.contains(fault) && !high.contains("rank 1"),
            "rank 1 says what is wrong: {high}"
        );
        assert!(
            low.contains("rank 1 could not take the step") && low.contains(fault),
            "rank 0 names rank 1 and its fault: {low}"
        );
    }
}

/// Momentum over the last step of `world` whose velocities before it were `before`, from three
/// sides (N): Σ m Δv / h − M g, the Σ of [`World::body_contact_forces`] (the pairs between
/// bodies cancel) and minus the Σ of [`World::wall_loads`] and [`World::mesh_loads`]; with the
/// count of the contacts the world holds, the step's contact count and whether the keys ascend
/// strictly. In a distributed world (where every rank calls it) each rank holds the contacts
/// it solved and the forces on the bodies it owns: the counts and the forces are summed over
/// the ranks, the keys ascend on every rank, and the wall loads are the whole bed's already.
fn momentum_line(world: &World, before: &[Vec3]) -> String {
    let h = f64::from(world.settings().h);
    let g = world.settings().gravity.as_dvec3();
    let mut change = grains::glam::DVec3::ZERO;
    for (i, v) in before.iter().enumerate() {
        let m = f64::from(world.mass(i));
        change += m * ((world.velocity(i) - *v).as_dvec3() / h - g);
    }
    let bodies: grains::glam::DVec3 = world.body_contact_forces().iter().sum();
    let walls: grains::glam::DVec3 = (world.wall_loads(Vec3::ZERO).iter())
        .chain(&world.mesh_loads(Vec3::ZERO))
        .map(|l| -l.force)
        .sum();
    let keys = &world.contact_rows().keys;
    let descending = keys.windows(2).filter(|k| k[0] >= k[1]).count();
    let mut sums = [world.contacts().len() as f64, descending as f64, bodies.z];
    world.sum_over_ranks(&mut sums);
    let weight = world.dynamic_mass() * g.length();
    format!(
        "{} {} {} {} {} {} {}",
        sums[0],
        world.last_stats().contacts,
        sums[1] == 0.0,
        change.z,
        sums[2],
        walls.z,
        weight
    )
}

/// Checks a [`momentum_line`] of run `run`: the ranks' contacts are the step's, more than
/// 1,000, with keys ascending, and the bodies' contact forces and the wall loads both balance
/// the bodies' change of momentum within 1e-5 of the bed's weight; returns the wall loads (N).
fn check_momentum_line(line: &str, run: &str) -> f64 {
    let v: Vec<&str> = line.split_whitespace().collect();
    let num = |k: usize| v[k].parse::<f64>().expect("a number");
    assert_eq!(
        num(0),
        num(1),
        "{run}: the ranks' contacts against the step's: {line}"
    );
    assert!(num(0) > 1000.0, "{run}: a bed in contact: {line}");
    assert_eq!(v[2], "true", "{run}: keys ascend strictly");
    let (change, bodies, walls, weight) = (num(3), num(4), num(5), num(6));
    for (what, f) in [("bodies' contact forces", bodies), ("wall loads", walls)] {
        assert!(
            (f - change).abs() < 1e-5 * weight,
            "{run}: Σ {what} {f} N against Σ m Δv / h − M g = {change} N (weight {weight} N)"
        );
    }
    walls
}

/// `world` (a [`pour`] of 1,000 grains, at most [`LOADS_STEPS`] − 1 steps in) stepped to step
/// [`LOADS_STEPS`] − 1 and one more, its contacts copied ([`World::sync_contacts`]):
/// [`momentum_line`] of the last step.
fn last_step_momentum(mut world: World) -> String {
    world.run(LOADS_STEPS - 1 - world.steps()).expect("steps");
    world.sync().expect("the bodies gathered");
    let before: Vec<Vec3> = (0..world.len()).map(|i| world.velocity(i)).collect();
    world.step().expect("the last step");
    world.sync_contacts().expect("the contacts copied");
    momentum_line(&world, &before)
}

/// The contacts the ranks hold are the whole bed's, each once: on 2 and on 4 ranks their
/// count, summed over the ranks, is the step's, their keys ascend on every rank, and the wall
/// loads and the bodies' contact forces they give, reduced over the ranks, balance the bodies'
/// change of momentum over the step (Σ m Δv / h = M g + Σ F) as one process's do, within 1e-5
/// of the bed's weight. A contact lost or counted twice, or a shared body's force left
/// without the other ranks' share, would be off by its force, about m g = 0.013 N on a
/// resting grain (1e-3 of the weight). The ranks' runs are the shared pour's launches of one
/// thread a rank, which go on to step [`LOADS_STEPS`] ([`shared_pour`]).
#[test]
fn the_ranks_contacts_balance_the_bed_momentum() {
    if let Some((_universe, comm)) = child() {
        return shared_pour_child(comm);
    }
    let check = check_momentum_line;
    let one = check(&one_process_pour().momentum, "one process");
    for ranks in [2, 4] {
        let line = (shared_pour(ranks, 1).momentum.as_deref()).expect("a full launch");
        let walls = check(line, &format!("{ranks} ranks"));
        eprintln!("{ranks} ranks: {line}; wall loads {walls} N, one process's {one} N");
    }
}

/// The rough pour: 1,000 grains with rolling and spinning friction (0.1 mm), whose moment rows
/// go through the distributed gather and warm start, thrown sideways at up to 0.5 m/s (seeded)
/// so that their columns fall over instead of standing on their rolling resistance.
fn rough() -> World {
    let material = Material::new(0.5)
        .with_rolling(0.0001)
        .with_spinning(0.0001);
    let mut world = pour_of(10, child_threads(), material);
    let mut rng = grains_kernels::random::SplitMix64(7);
    let mut speed = || 0.5 * (2.0 * rng.next_f64() as f32 - 1.0);
    let throw: Vec<Vec3> = (0..world.len())
        .map(|_| Vec3::new(speed(), speed(), 0.0))
        .collect();
    world
        .set_velocities(&throw, None)
        .expect("a CPU world takes velocities");
    world
}

/// The rough pour on 2 ranks ends like one process's: bed height within r/4, contacts within
/// 0.5 %, at rest. On 2 ranks only: the moment rows cross the one cut as they cross any, and
/// the cuts of 4 ranks are the 1,728-grain pour's and the stirred pour's to check (the 4-rank
/// run was 45 % of the test's 35 CPU s).
#[test]
fn a_rough_pour_matches_one_process() {
    let test = "a_rough_pour_matches_one_process";
    if let Some((_, _, distributed)) = compare_with_one_process(test, rough, (400, &[2]), 0.005) {
        assert!(
            distributed.iter().all(|f| f.speed < 0.05),
            "at rest: {distributed:?}"
        );
    }
}

/// The trough pour: the 1,000-grain pour into a box whose floor is a triangle mesh, a
/// trough of two 10° slopes meeting along the y axis (64 triangles a side), under the
/// Coulomb correction (2 passes): the grains slide and roll down both slopes towards the
/// ranks' cut, and the mesh walls are placed and solved on every rank that holds a grain
/// near them.
fn trough() -> World {
    let mut settings = settings(child_threads());
    settings.coulomb_correction = 2;
    trough_of(settings, Material::new(0.5)).expect("the trough builds")
}

/// The trough pour with `settings` and grains and walls of `material`.
fn trough_of(settings: Settings, material: Material) -> Result<World, grains::BuildError> {
    let mut b = World::builder(settings);
    let m = b.material(material);
    let side = 10;
    let width = (side as f32 - 1.0) * 2.2 * R + 4.0 * R;
    let lift = (width / 2.0) * 10f32.to_radians().tan();
    let walls = BoxContainer {
        floor_centre: Vec3::new(0.0, 0.0, -lift),
        width_x: width,
        width_y: width,
        height: 2.2 * R * side as f32 + 6.0 * R + lift,
        material: m,
        motion: None,
    }
    .walls();
    for w in &walls[1..] {
        b.wall(*w);
    }
    let (half, cells) = (width / 2.0, 8);
    let z = |x: f32| x.abs() / half * lift - lift;
    let at = |x: f32, y: f32| Vec3::new(x, y, z(x));
    let mut triangles = Vec::new();
    let step = width / cells as f32;
    for i in 0..cells {
        for j in 0..cells {
            let (x0, y0) = (-half + step * i as f32, -half + step * j as f32);
            let (x1, y1) = (x0 + step, y0 + step);
            triangles.push([at(x0, y0), at(x1, y0), at(x1, y1)]);
            triangles.push([at(x0, y0), at(x1, y1), at(x0, y1)]);
        }
    }
    b.mesh(grains::MeshDesc::new(triangles).with_material(m));
    let mass = sphere_mass(R, 2500.0);
    let mut jitter = grains_jitter(99);
    let x0 = -width / 2.0 + 2.0 * R;
    for k in 0..side {
        for j in 0..side {
            for i in 0..side {
                let c = Vec3::new(
                    x0 + 2.2 * R * i as f32 + jitter(),
                    x0 + 2.2 * R * j as f32 + jitter(),
                    2.0 * R + 2.2 * R * k as f32,
                );
                b.body(Body::sphere(c, R, mass).with_material(m));
            }
        }
    }
    b.build()
}

/// A stream: grains fed at 1 m/s downwards (no gravity, no walls) into a box region (one
/// layer per batch, 400 grains/s, r = 5 mm) and removed by a sink 0.4 m below; all move
/// alike, so no two ever touch, and every step takes one process's arithmetic.
fn stream() -> World {
    let mut settings = settings(child_threads());
    settings.gravity = Vec3::ZERO;
    let mut b = World::builder(settings);
    b.material(Material::new(0.5));
    let region = grains::Region::Box {
        min: Vec3::new(-0.1, -0.03, 0.2),
        max: Vec3::new(0.1, 0.03, 0.24),
    };
    let mut feed = grains::Insertion::new(
        region,
        grains::Rate::CountPerSecond(400.0),
        grains::SizeDistribution::fixed(R),
        2500.0,
    );
    feed.velocity = Vec3::new(0.0, 0.0, -1.0);
    feed.seed = 5;
    b.insert(feed);
    b.sink(grains::Sink::new(
        "outlet",
        grains::SinkShape::HalfSpace {
            point: Vec3::new(0.0, 0.0, -0.2),
            normal: Vec3::NEG_Z,
        },
    ));
    b.build().expect("the stream builds")
}

/// Steps of the stream: 0.8 s, the first grains leave after 0.4 s.
const STREAM_STEPS: u64 = 400;

/// The stream's end state: steps, grains placed and removed, then every body's id, centre and
/// velocity as bits.
fn stream_bits(world: &World) -> String {
    let state = world.lifecycle_state();
    let (placed, removed) = (state.insertions[0].placed, state.sinks[0].removed);
    let b = world.bodies();
    let mut words = vec![world.steps(), placed, removed];
    for (i, &id) in world.ids().iter().enumerate() {
        words.push(id);
        let p = b.pos_radius[i].to_array();
        let v = b.motion[i].linear;
        words.extend(p.iter().chain(&v).map(|x| u64::from(x.to_bits())));
    }
    let text: Vec<String> = words.iter().map(u64::to_string).collect();
    text.join(" ")
}

/// Grains fed in and taken out by a sink while the run is distributed: on 2 and 4 ranks
/// every step's grains are owned once each (checked every step), no pass of the feed and the
/// sink gathers the bed (the host copy stays released through it), and the stream ends with
/// one process's grains, ids and counters, bit for bit.
#[test]
fn a_feed_and_a_sink_run_like_one_process() {
    const TEST: &str = "a_feed_and_a_sink_run_like_one_process";
    if let Some((_universe, comm)) = child() {
        use mpi::topology::Communicator;
        let rank = comm.rank();
        let mut world = stream();
        world.distribute(comm, 25).expect("the stream distributes");
        for _ in 0..STREAM_STEPS {
            // The pass the step would begin with (a second call in the step finds nothing
            // more to do): the ranks make it on their own grains.
            world
                .change_bodies()
                .expect("the pass of the feed and the sink");
            assert!(
                world.steps() == 0 || !world.holds_every_body(),
                "step {}: the pass gathered the bed",
                world.steps()
            );
            world.step().expect("a distributed step");
            let mut owned: Vec<u64> = world.rank_ids().expect("distributed").concat();
            owned.sort_unstable();
            let all: Vec<u64> = (0..world.len() as u64).collect();
            assert_eq!(owned, all, "step {}: every grain once", world.steps());
        }
        world.sync().expect("the end state gathered");
        if rank == 0 {
            let out = std::env::var("GRAINS_MPI_OUT").expect("the result file");
            std::fs::write(out, stream_bits(&world)).expect("written");
        }
        return;
    }
    let mut one = stream();
    one.run(STREAM_STEPS).expect("one process's run");
    let expected = stream_bits(&one);
    let counts: Vec<&str> = expected.split(' ').take(3).collect();
    println!(
        "1 process: steps, placed, removed {counts:?}; {} grains",
        one.len()
    );
    assert!(
        counts[2].parse::<u64>().expect("a count") > 20,
        "grains left"
    );
    for ranks in [2, 4] {
        let name = format!("grains-mpi-{}-stream-{ranks}", std::process::id());
        let file = std::env::temp_dir().join(name);
        launch(TEST, (ranks, 1), &file);
        let text = std::fs::read_to_string(&file).expect("rank 0 wrote its result");
        let _ = std::fs::remove_file(&file);
        assert!(
            text == expected,
            "{ranks} ranks: the stream differs from one process's"
        );
    }
}

/// The 1,000-grain pour with an outlet: a sink over the box's −x, −y corner (3 r by 3 r, up
/// to 6 r above the floor) takes the grains that reach it, with their contacts' warm start.
fn drained() -> World {
    let mut world = World::builder(settings(child_threads()));
    let m = world.material(Material::new(0.5));
    fill_box(&mut world, (10, m), (6.0 * R, None));
    let corner = -(9.0 * 2.2 * R + 4.0 * R) / 2.0;
    world.sink(grains::Sink::new(
        "outlet",
        grains::SinkShape::Box {
            min: Vec3::new(corner, corner, 0.0),
            max: Vec3::new(corner + 3.0 * R, corner + 3.0 * R, 6.0 * R),
        },
    ));
    world.build().expect("the drained pour builds")
}

/// A pour drained by a sink: on one rank under mpirun (every body its own, the sink's
/// passes splitting the bed again with the warm start remapped) it is one process's run bit
/// for bit; on 2 ranks every grain is owned once at every step. 150 steps (0.3 s): the first
/// grains reach the outlet by step 50 and 28 have left by step 150 (18 by step 100, 43 by
/// step 300), removed over many of the steps.
#[test]
fn a_drained_pour_on_one_rank_is_one_process_bit_for_bit() {
    const TEST: &str = "a_drained_pour_on_one_rank_is_one_process_bit_for_bit";
    const STEPS: u64 = 150;
    if let Some((_universe, comm)) = child() {
        pour_child_of(comm, drained(), STEPS);
        return;
    }
    let mut one = drained();
    one.run(STEPS).expect("one process's run");
    let left = one.len();
    assert!(left <= 980, "the outlet drains: {left} grains left");
    let reference = Figures::of(&one);
    let on_one = figures_on(TEST, 1, "drained");
    assert_eq!(
        on_one.bits, reference.bits,
        "1 rank: {on_one:?}, one process {reference:?}"
    );
    let on_two = figures_on(TEST, 2, "drained");
    println!("1 process: {left} grains left, {reference:?}; 2 ranks: {on_two:?}");
}

/// The drained pour on 2 ranks, snapshotted before the first pass of its sink after step 50
/// that takes grains out and restored, through the snapshot's bytes, into a world freshly
/// built and distributed on as many ranks: 20 steps on, every body's state is the
/// uninterrupted pour's bit for bit. The pass right after the restore remaps the restored
/// warm start (until 2026-12-02 it took the fresh ranks' own, which is empty, and the resumed
/// pour went its own way).
#[test]
fn a_drained_pour_resumed_before_a_pass_continues_bit_for_bit() {
    const TEST: &str = "a_drained_pour_resumed_before_a_pass_continues_bit_for_bit";
    if let Some((_universe, comm)) = child() {
        use mpi::topology::Communicator;
        let again = comm.duplicate();
        let mut straight = drained();
        straight
            .distribute(comm, 25)
            .expect("the drained pour distributes");
        let mut resumed: Option<World> = None;
        let mut cut = None;
        while straight.steps() < 300
            && resumed
                .as_ref()
                .is_none_or(|w| w.steps() < 20 + cut.unwrap_or(0))
        {
            let at = straight.steps();
            let due = at >= 50 && at.is_multiple_of(grains::lifecycle::SINK_STEPS) && cut.is_none();
            let before = due.then(|| straight.snapshot().expect("a snapshot").to_bytes());
            let removed = straight.lifecycle_state().sinks[0].removed;
            straight.step().expect("a distributed step");
            if let Some(bytes) =
                before.filter(|_| straight.lifecycle_state().sinks[0].removed > removed)
            {
                let snap = grains::Snapshot::from_bytes(&bytes).expect("the snapshot reads back");
                let mut world = drained();
                world
                    .distribute(again.duplicate(), 25)
                    .expect("the drained pour distributes");
                world.restore(&snap).expect("the snapshot restores");
                world.step().expect("the resumed pour's first step");
                (cut, resumed) = (Some(at), Some(world));
                continue;
            }
            if let Some(world) = resumed.as_mut() {
                world.step().expect("a step of the resumed pour");
            }
        }
        let (mut world, at) = (resumed.expect("a pass took grains out"), cut.unwrap_or(0));
        straight.sync().expect("the bodies gathered");
        world.sync().expect("the bodies gathered");
        assert_eq!(world.steps(), straight.steps());
        assert!(
            state_bits(&world) == state_bits(&straight) && world.ids() == straight.ids(),
            "resumed at step {at}, the pour differs from the uninterrupted one at step {}",
            world.steps()
        );
        if again.rank() == 0 {
            let out = std::env::var("GRAINS_MPI_OUT").expect("the result file");
            std::fs::write(out, format!("{at} {}", world.len())).expect("written");
        }
        return;
    }
    let name = format!("grains-mpi-{}-drained-resume", std::process::id());
    let file = std::env::temp_dir().join(name);
    launch(TEST, (2, 1), &file);
    let text = std::fs::read_to_string(&file).expect("rank 0 wrote its result");
    let _ = std::fs::remove_file(&file);
    println!("2 ranks: resumed at step, grains left: {text}");
}

/// The stirred pour: the 1,000-grain pour in a box shaken
/// vertically (1 mm at 10 Hz, Γ = 0.4), with a kinematic sphere (r = 15 mm) driven down into
/// the bed and across it through the ranks' boundary: moving walls and a driven body, held
/// by every rank its reach touches.
fn stirred() -> World {
    let mut b = World::builder(settings(child_threads()));
    let m = b.material(Material::new(0.5));
    let shake = Prescribed::vertical_shake(0.001, 10.0);
    fill_box(&mut b, (10, m), (12.0 * R, Some(shake)));
    let stirrer = Body::sphere(Vec3::new(-0.02, 0.0, 0.135), 0.015, 1.0)
        .with_material(m)
        .kinematic(Prescribed::Constant {
            linear: Vec3::new(0.05, 0.0, -0.12),
            angular: Vec3::ZERO,
        });
    b.body(stirrer);
    b.build().expect("the stirred pour builds")
}

/// The stirred pour on 2 and 4 ranks stays like one process's: bed height within r/4 and
/// contacts within 2 % after 0.6 s of shaking and stirring (the bed is in motion, so its
/// contacts fluctuate from step to step; the stirrer ends on the other side of the cut).
#[test]
fn a_shaken_and_stirred_pour_matches_one_process() {
    let test = "a_shaken_and_stirred_pour_matches_one_process";
    if let Some((one, _, _)) = compare_with_one_process(test, stirred, (300, &[2, 4]), 0.02) {
        let stirrer = one.position(one.len() - 1);
        let through = stirrer.x > 0.005 && stirrer.z < 0.07;
        assert!(through, "the stirrer went through: {stirrer}");
    }
}

/// Steps of the pour before the compared step, taken in one process on every rank.
const SETTLE: u64 = 150;

/// `world` set to solve tightly (APGD up to 5,000 sweeps, tolerance 1e-6 m/s).
fn tight(mut world: World) -> World {
    let mut tight = *world.settings();
    tight.solver = Solver::Apgd {
        sweeps: 5000,
        tolerance: 1e-6,
        omega: 1.0,
    };
    world.set_settings(tight).expect("APGD settings");
    world
}

/// The 1,000-grain pour, before its first step.
fn fresh_pour() -> World {
    pour(10, child_threads())
}

/// [`fresh_pour`] after [`SETTLE`] steps in one process: restored from [`one_process_pour`]'s
/// snapshot.
fn settled_pour() -> World {
    let mut world = fresh_pour();
    world
        .restore(&one_process_pour().settled)
        .expect("the snapshot restores");
    world
}

/// [`trough`] after [`SETTLE`] steps in one process.
fn settled_trough() -> World {
    let mut world = trough();
    world.run(SETTLE).expect("the first steps");
    world
}

/// Every body's velocity (m/s), as text, one body a line.
fn velocities(world: &World) -> String {
    let lines: Vec<String> = world
        .bodies()
        .motion
        .iter()
        .map(|m| format!("{} {} {}", m.linear[0], m.linear[1], m.linear[2]))
        .collect();
    lines.join("\n")
}

/// The numbers of a text of [`velocities`], in order.
fn numbers(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .map(|x| x.parse().expect("a number"))
        .collect()
}

/// The largest difference between the velocities `text` (of [`velocities`]) and `reference`
/// (m/s), which must be as many.
fn largest_difference(text: &str, reference: &[f64]) -> f64 {
    let v = numbers(text);
    assert_eq!(v.len(), reference.len());
    v.iter()
        .zip(reference)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

/// Test `test`: from the same state, `make()` after [`SETTLE`] steps in one process
/// (`settled()`), one step solved tightly (to 1e-6 m/s, [`tight`]) on 2 and on 4 ranks gives
/// one process's velocities to within 2e-6 m/s. The parent takes the first steps and the
/// children start from its snapshot ([`started`]). Returns, in the parent, one process's world
/// after the step.
fn one_step_like_one_process(
    test: &str,
    make: fn() -> World,
    settled: fn() -> World,
) -> Option<World> {
    if let Some((_universe, comm)) = child() {
        use mpi::topology::Communicator;
        let rank = comm.rank();
        let mut world = started(tight(make()));
        world.distribute(comm, 25).expect("the pour distributes");
        world.step().expect("the compared step");
        world.sync_contacts().expect("the contacts copied");
        let out = std::env::var("GRAINS_MPI_OUT").expect("the result file");
        let owned = world.owned_indices().expect("a distributed world");
        std::fs::write(format!("{out}.r{rank}"), contact_lines(&world, &owned)).expect("written");
        if rank == 0 {
            std::fs::write(out, velocities(&world)).expect("written");
        }
        return None;
    }
    let one = settled();
    assert_eq!(one.steps(), SETTLE, "the pour settled for {SETTLE} steps");
    let mut one = tight(one);
    let start = start_file(&mut one, test);
    let stats = one.step().expect("one process's step");
    assert!(
        stats.residual <= 1e-6,
        "one process converged: {}",
        stats.residual
    );
    assert!(
        stats.contacts > 500,
        "a step with contacts: {}",
        stats.contacts
    );
    println!(
        "1 process: {} contacts, {} sweeps",
        stats.contacts, stats.iterations
    );
    let reference = numbers(&velocities(&one));
    for ranks in [2, 4] {
        let name = format!("grains-mpi-{}-{test}", std::process::id());
        let file = std::env::temp_dir().join(name);
        launch_from(test, (ranks, 1), &file, Some(&start));
        let text = std::fs::read_to_string(&file).expect("rank 0 wrote the velocities");
        let _ = std::fs::remove_file(&file);
        let worst = largest_difference(&text, &reference);
        println!("{ranks} ranks: largest velocity difference {worst:.3e} m/s");
        assert!(
            worst < 2e-6,
            "{ranks} ranks: velocities differ by {worst} m/s"
        );
        let pieces = rank_files(&file, ranks, "its contacts");
        check_contact_pieces(&one, &pieces, &format!("{ranks} ranks"));
    }
    let _ = std::fs::remove_file(&start);
    Some(one)
}

/// What a rank holds of the contacts of `world`'s last step, as text for
/// [`check_contact_pieces`]: a line `c KEY γn γt1 γt2` for each of its contacts (key over body
/// ids), `f ID fx fy fz` for each body of `bodies` (its contact force), then `w fx fy fz` for
/// each wall and mesh (its load). In a distributed world every rank calls it together.
fn contact_lines(world: &World, bodies: &[usize]) -> String {
    let mut lines = Vec::new();
    for (key, g) in world.contact_rows().keys.iter().zip(world.impulses()) {
        lines.push(format!("c {key} {} {} {}", g[0], g[1], g[2]));
    }
    let forces = world.body_contact_forces();
    for &i in bodies {
        let f = forces[i];
        lines.push(format!("f {i} {} {} {}", f.x, f.y, f.z));
    }
    let loads = world.wall_loads(Vec3::ZERO);
    for l in loads.iter().chain(&world.mesh_loads(Vec3::ZERO)) {
        lines.push(format!("w {} {} {}", l.force.x, l.force.y, l.force.z));
    }
    lines.join("\n")
}

/// Checks the contacts the ranks held after one step from one process's state (`pieces`,
/// [`contact_lines`] of each rank, of the bodies it owns) against one process's after the
/// same step (`one`): together the same contacts, each on one rank only, with one process's
/// impulses (within 1e-3 of the largest); every body's contact force on exactly one rank,
/// one process's within 1e-3 of a grain's weight; and on every rank the same wall and mesh
/// loads, one process's within 1e-5 of the bed's weight (a contact or a shared body's share
/// left out would be off by about a grain's weight, 1e-3 of the bed's).
fn check_contact_pieces(one: &World, pieces: &[String], run: &str) {
    let lines = |kind: &str| -> Vec<Vec<f64>> {
        let mut all = Vec::new();
        for piece in pieces {
            for line in piece.lines().filter(|l| l.starts_with(kind)) {
                all.push(numbers(&line[2..]));
            }
        }
        all
    };
    let mut theirs: Vec<(u64, [f64; 3])> = (pieces.iter())
        .flat_map(|p| p.lines().filter_map(|l| l.strip_prefix("c ")))
        .map(|l| {
            let (key, g) = l.split_once(' ').expect("a key and impulses");
            let g = numbers(g);
            (key.parse().expect("a key"), [g[0], g[1], g[2]])
        })
        .collect();
    theirs.sort_by_key(|c| c.0);
    let keys: Vec<u64> = theirs.iter().map(|c| c.0).collect();
    let mine = one.contact_rows().keys.clone();
    assert_eq!(
        keys.len(),
        mine.len(),
        "{run}: the ranks' contacts, one process's"
    );
    assert!(
        keys == mine,
        "{run}: other pairs than one process's, or one twice"
    );
    let largest = (one.impulses().iter())
        .map(|g| f64::from(g[0]))
        .fold(0.0, f64::max);
    let worst = (theirs.iter().zip(one.impulses()))
        .flat_map(|(c, g)| (0..3).map(move |k| (c.1[k] - f64::from(g[k])).abs()))
        .fold(0.0, f64::max);
    println!(
        "{run}: {} contacts, impulses within {worst:.2e} N s (largest {largest:.2e})",
        keys.len()
    );
    assert!(
        worst < 1e-3 * largest,
        "{run}: impulses differ by {worst} N s"
    );
    let forces = one.body_contact_forces();
    let mut seen = vec![0; one.len()];
    let grain = f64::from(one.mass(0)) * 9.81;
    let mut worst = 0.0f64;
    for f in lines("f ") {
        let i = f[0] as usize;
        seen[i] += 1;
        let want = forces[i];
        worst = worst.max(
            (f[1] - want.x)
                .abs()
                .max((f[2] - want.y).abs())
                .max((f[3] - want.z).abs()),
        );
    }
    assert!(
        seen.iter().all(|&n| n == 1),
        "{run}: a body's force on one rank only"
    );
    println!("{run}: bodies' contact forces within {worst:.2e} N (a grain weighs {grain:.2e})");
    assert!(
        worst < 1e-3 * grain,
        "{run}: a body's contact force differs by {worst} N"
    );
    let walls = |piece: &str| -> Vec<String> {
        piece
            .lines()
            .filter(|l| l.starts_with("w "))
            .map(str::to_string)
            .collect()
    };
    assert!(
        pieces.iter().all(|p| walls(p) == walls(&pieces[0])),
        "{run}: the ranks' wall loads differ"
    );
    let loads = one.wall_loads(Vec3::ZERO);
    let want: Vec<f64> = (loads.iter().chain(&one.mesh_loads(Vec3::ZERO)))
        .flat_map(|l| l.force.to_array())
        .collect();
    let have: Vec<f64> = walls(&pieces[0])
        .iter()
        .flat_map(|l| numbers(&l[2..]))
        .collect();
    assert_eq!(have.len(), want.len(), "{run}: a load a wall and a mesh");
    let weight = one.dynamic_mass() * 9.81;
    let worst = (have.iter().zip(&want))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("{run}: wall loads within {worst:.2e} N (the bed weighs {weight:.2} N)");
    assert!(
        worst < 1e-5 * weight,
        "{run}: the wall loads differ by {worst} N"
    );
}

/// From the same state (the pour as it lands), one step solved tightly on 2 and on 4 ranks
/// gives one process's velocities: the distributed solve converges to the same CCP.
#[test]
fn one_step_solves_the_same_ccp_as_one_process() {
    one_step_like_one_process(
        "one_step_solves_the_same_ccp_as_one_process",
        fresh_pour,
        settled_pour,
    );
}

/// The same with mesh walls (the trough's floor, which the step's grains touch) and the
/// Coulomb correction's 2 passes.
#[test]
fn a_step_into_a_mesh_trough_with_the_coulomb_correction_solves_the_same_ccp() {
    let Some(world) = one_step_like_one_process(
        "a_step_into_a_mesh_trough_with_the_coulomb_correction_solves_the_same_ccp",
        trough,
        settled_trough,
    ) else {
        return;
    };
    let on_mesh = world
        .contacts()
        .filter(|c| matches!(c.touching, grains::Touching::Mesh { .. }))
        .count();
    println!("1 process: {on_mesh} contacts with the mesh");
    assert!(on_mesh > 50, "grains on the mesh: {on_mesh}");
}

/// The 1,000-grain pour solved by projected Jacobi (ω = 0.3, 100 sweeps a step).
fn jacobi_pour() -> World {
    let mut jacobi = settings(child_threads());
    jacobi.solver = Solver::Jacobi {
        sweeps: 100,
        tolerance: 1e-5,
        omega: 0.3,
    };
    let mut b = World::builder(jacobi);
    let m = b.material(Material::new(0.5));
    fill_box(&mut b, (10, m), (6.0 * R, None));
    b.build().expect("the Jacobi pour builds")
}

/// The pour solved by projected Jacobi on 2 ranks ends like one process's after 350 steps
/// (0.7 s): bed height within r/4, contacts within 1.5 %, at rest (on 2 ranks only, as the
/// rough pour). In one process its largest speed is 0.005 m/s from step 325 on (0.004 at step
/// 350, against the 0.05 asked; 0.15 at step 250, 0.011 at 300), and its bed and contacts at
/// step 350 are step 500's (2,836 contacts). Jacobi's 100 sweeps do not converge on this
/// bed, so its end packing depends on the path more than APGD's: in one process, five jitter
/// seeds of the lattice gave 2,810 to 2,873 contacts (±1.1 %), and the ranks' rounding is a
/// smaller change than another seed.
#[test]
fn a_jacobi_pour_matches_one_process() {
    let test = "a_jacobi_pour_matches_one_process";
    if let Some((_, _, distributed)) =
        compare_with_one_process(test, jacobi_pour, (350, &[2]), 0.015)
    {
        assert!(
            distributed.iter().all(|f| f.speed < 0.05),
            "at rest: {distributed:?}"
        );
    }
}

/// Steps the GPU ranks take after the compared one, every step's owners checked.
const GPU_STEPS: u64 = 10;

/// The pour of the GPU ranks' test on `backend`: the trough pour solved by projected Jacobi
/// (200 sweeps, ω = 0.3) with two Coulomb-correction passes (a mesh floor); or, where `apgd`,
/// the 1,000-grain pour in the box solved by APGD (100 sweeps), the grains with rolling and
/// spinning friction (0.1 mm, the moment rows; mesh walls have none). The GPU runs exactly
/// these sweeps (tolerance 0).
fn gpu_pour(apgd: bool, backend: grains::Backend) -> Result<World, grains::BuildError> {
    let mut s = settings(1);
    s.backend = backend;
    if !apgd {
        s.solver = Solver::Jacobi {
            sweeps: 200,
            tolerance: 0.0,
            omega: 0.3,
        };
        s.coulomb_correction = 2;
        return trough_of(s, Material::new(0.5));
    }
    s.solver = Solver::Apgd {
        sweeps: 100,
        tolerance: 0.0,
        omega: 1.0,
    };
    let mut b = World::builder(s);
    let rough = Material::new(0.5)
        .with_rolling(0.0001)
        .with_spinning(0.0001);
    let m = b.material(rough);
    fill_box(&mut b, (10, m), (6.0 * R, None));
    b.build()
}

/// The snapshot of [`gpu_pour`] (`apgd`) after [`SETTLE`] steps in one process on the CPU.
fn settled_on_the_cpu(apgd: bool) -> grains::Snapshot {
    let mut cpu = gpu_pour(apgd, grains::Backend::Cpu).expect("the CPU pour builds");
    cpu.run(SETTLE).expect("the first steps");
    cpu.snapshot().expect("a snapshot")
}

/// [`gpu_pour`] (`apgd`) on the GPU, carried to the state of `snapshot` (of
/// [`settled_on_the_cpu`]); `None` where there is no GPU adapter (not even a software one).
fn settled_on_a_gpu(apgd: bool, snapshot: &grains::Snapshot) -> Option<World> {
    let mut world = match gpu_pour(apgd, grains::Backend::Gpu) {
        Ok(w) => w,
        Err(grains::BuildError::NoGpuAdapter(why)) => {
            eprintln!("skipped: no GPU adapter ({why})");
            return None;
        }
        Err(e) => panic!("the GPU pour builds: {e}"),
    };
    world
        .restore(snapshot)
        .expect("the CPU's snapshot restores");
    Some(world)
}

/// The settled pour (APGD where the result file's name ends in `apgd`, else Jacobi) stepped
/// on the GPU ranks: one step, whose velocities rank 0 writes, then [`GPU_STEPS`] more with every step's
/// owners checked, whose figures rank 0 writes beside, with the [`momentum_line`] of the last
/// step's contacts, each rank's own.
fn gpu_ranks_child(comm: mpi::topology::SimpleCommunicator) {
    use mpi::topology::Communicator;
    let rank = comm.rank();
    let apgd = std::env::var("GRAINS_MPI_OUT").is_ok_and(|o| o.ends_with("apgd"));
    let mut world = settled_on_a_gpu(apgd, &start_snapshot()).expect("the parent found an adapter");
    let out = std::env::var("GRAINS_MPI_OUT").expect("the result file");
    world
        .distribute(comm, 25)
        .expect("the GPU pour distributes");
    world.step().expect("the compared step");
    world.sync().expect("the bodies gathered");
    if rank == 0 {
        std::fs::write(&out, velocities(&world)).expect("written");
    }
    let mut before = Vec::new();
    for k in 0..GPU_STEPS {
        if k + 1 == GPU_STEPS {
            world.sync().expect("the bodies gathered");
            before = (0..world.len()).map(|i| world.velocity(i)).collect();
        }
        world.step().expect("a distributed GPU step");
        let mut seen = vec![0u8; world.len()];
        let ids = world.rank_ids().expect("a distributed world");
        for id in ids.iter().flatten() {
            seen[*id as usize] += 1;
        }
        assert!(
            seen.iter().all(|&s| s == 1),
            "step {}: grains lost or held twice",
            world.steps()
        );
    }
    world.sync_contacts().expect("the contacts copied");
    let momentum = momentum_line(&world, &before);
    if rank == 0 {
        let figures = Figures::of(&world).to_line();
        std::fs::write(format!("{out}.figures"), figures + "\n" + &momentum).expect("written");
    }
}

/// Ranks stepping on their GPUs take the steps of one GPU process, with projected Jacobi (200
/// sweeps) and the Coulomb correction in the trough of mesh walls, and with APGD (100 sweeps)
/// and the moment rows in the box: from the same settled pour, one step on 2 ranks gives
/// one GPU process's velocities to within 1e-5 m/s (the same sweeps, in another order of f32
/// additions), the next 10 steps keep every grain owned once and end with one process's bed
/// and contacts (within 1 %), the last step's contacts held by the ranks balance the
/// bed's momentum (as `the_ranks_contacts_balance_the_bed_momentum` asks), and two Jacobi runs
/// on 2 ranks are the same bit for bit.
#[test]
fn gpu_ranks_take_the_steps_of_one_gpu() {
    const TEST: &str = "gpu_ranks_take_the_steps_of_one_gpu";
    if let Some((_universe, comm)) = child() {
        return gpu_ranks_child(comm);
    }
    for (apgd, solver) in [(false, "jacobi"), (true, "apgd")] {
        let snapshot = settled_on_the_cpu(apgd);
        let Some(mut one) = settled_on_a_gpu(apgd, &snapshot) else {
            return;
        };
        let start = std::env::temp_dir().join(format!(
            "grains-mpi-{}-{TEST}-{solver}-start",
            std::process::id()
        ));
        std::fs::write(&start, snapshot.to_bytes()).expect("the snapshot is written");
        let stats = one.step().expect("one GPU process's step");
        assert!(stats.contacts > 500, "a step with contacts: {stats:?}");
        let reference = numbers(&velocities(&one));
        one.run(GPU_STEPS).expect("one GPU process's steps");
        let figures = Figures::of(&one);
        println!(
            "1 GPU process ({solver}): {} contacts, then {figures:?}",
            stats.contacts
        );
        // Jacobi twice, to compare the bits.
        let runs: Vec<Figures> = (0..2 - apgd as usize)
            .map(|run| {
                let name = format!("grains-mpi-{}-{TEST}-{run}-{solver}", std::process::id());
                let file = std::env::temp_dir().join(name);
                launch_from(TEST, (2, 1), &file, Some(&start));
                let text = std::fs::read_to_string(&file).expect("rank 0 wrote the velocities");
                let figures_file = format!("{}.figures", file.display());
                let line =
                    std::fs::read_to_string(&figures_file).expect("rank 0 wrote its figures");
                let _ = (
                    std::fs::remove_file(&file),
                    std::fs::remove_file(&figures_file),
                );
                let worst = largest_difference(&text, &reference);
                println!("2 GPU ranks ({solver}): largest velocity difference {worst:.3e} m/s");
                assert!(
                    worst < 1e-5,
                    "2 GPU ranks ({solver}): velocities differ by {worst} m/s"
                );
                let (line, momentum) = line.split_once('\n').expect("two lines");
                check_momentum_line(momentum, &format!("2 GPU ranks ({solver})"));
                println!("2 GPU ranks ({solver}): last step's contacts and momentum: {momentum}");
                let f = Figures::from_line(line);
                f.assert_like(&figures, 2, 0.01);
                f
            })
            .collect();
        let _ = std::fs::remove_file(&start);
        if let [a, b] = &runs[..] {
            assert_eq!(a, b, "2 GPU ranks twice: different bits");
        }
    }
}
