//! The unit tests of `src/decomposition.rs`.

use grains::decomposition::{Bisection, Reduce, LEAF, NODE_BYTES};
use grains::Vec3;

/// A 10 × 4 × 2 lattice of unit spacing.
fn slab() -> (Vec<Vec3>, Vec<u64>) {
    let mut c = Vec::new();
    for k in 0..2 {
        for j in 0..4 {
            for i in 0..10 {
                c.push(Vec3::new(i as f32, j as f32, k as f32));
            }
        }
    }
    let ids = (0..c.len() as u64).collect();
    (c, ids)
}

#[test]
fn counts_are_balanced_and_cuts_follow_the_longest_axes() {
    let (c, ids) = slab();
    for ranks in 1..=5 {
        let b = Bisection::new(&c, &ids, ranks);
        let mut counts = vec![0usize; ranks];
        for &p in &c {
            counts[b.owner(p)] += 1;
        }
        let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(hi - lo <= 8, "{ranks} ranks: counts {counts:?}");
        assert_eq!(counts.iter().sum::<usize>(), c.len());
    }
    // Two ranks: the first cut is across x, the longest side, between x = 4 and 5.
    let b = Bisection::new(&c, &ids, 2);
    assert_eq!(b.bounds(0).1.x, 4.5);
    assert_eq!(b.bounds(1).0.x, 4.5);
    assert_eq!(b.owner(Vec3::new(4.0, 0.0, 0.0)), 0);
    assert_eq!(b.owner(Vec3::new(5.0, 3.0, 1.0)), 1);
}

#[test]
fn distance_to_a_box_is_zero_inside_and_euclidean_outside() {
    let (c, ids) = slab();
    let b = Bisection::new(&c, &ids, 2);
    assert_eq!(b.distance(0, Vec3::new(1.0, 1.0, 1.0)), 0.0);
    assert_eq!(b.distance(0, Vec3::new(5.5, 0.0, 0.0)), 1.0);
    assert_eq!(b.distance(1, Vec3::new(0.5, 0.0, 0.0)), 4.0);
}

#[test]
fn one_rank_owns_everything_and_no_points_give_a_cut_at_zero() {
    let b = Bisection::new(&[], &[], 3);
    assert_eq!(b.ranks(), 3);
    assert_eq!(b.owner(Vec3::new(-1.0, 0.0, 0.0)), 0);
    let (c, ids) = slab();
    let one = Bisection::new(&c, &ids, 1);
    assert!(c.iter().all(|&p| one.owner(p) == 0));
}

#[test]
fn cuts_read_back_from_their_bytes_with_the_same_boxes() {
    let (c, ids) = slab();
    for ranks in 1..=7 {
        let b = Bisection::new(&c, &ids, ranks);
        let bytes = b.to_bytes();
        assert_eq!(bytes.len(), NODE_BYTES * (2 * ranks - 1));
        assert_eq!(Bisection::from_bytes(&bytes), Ok(b), "{ranks} ranks");
    }
}

/// `k` threads standing for ranks: each reduction adds (or takes the largest of) every
/// thread's slice, in lockstep.
struct Threads {
    barrier: std::sync::Barrier,
    values: std::sync::Mutex<Vec<u64>>,
}

impl Threads {
    fn combine(&self, mine: &mut [u64], f: fn(u64, u64) -> u64) {
        if self.barrier.wait().is_leader() {
            *self.values.lock().unwrap() = vec![0; mine.len()];
        }
        self.barrier.wait();
        for (a, &v) in self.values.lock().unwrap().iter_mut().zip(mine.iter()) {
            *a = f(*a, v);
        }
        self.barrier.wait();
        mine.copy_from_slice(&self.values.lock().unwrap());
    }
}

impl Reduce for Threads {
    fn sum_each(&self, values: &mut [u64]) {
        self.combine(values, |a, b| a + b);
    }
    fn max_each(&self, values: &mut [u64]) {
        self.combine(values, u64::max);
    }
}

/// The cuts found from the ranks' own bodies by reductions are those of the gathered bed,
/// bit for bit, on 1 to 7 ranks: for a lattice (whose equal coordinates the ids order), a
/// random cloud around the origin (negative coordinates, −0.0 and +0.0), a bed of a few
/// bodies (cuts with no body on a side) and none, each rank holding an arbitrary share.
#[test]
fn cuts_from_the_ranks_parts_are_the_gathered_cuts() {
    let mut seed = 12345u64;
    let mut unit = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let (lattice, lattice_ids) = slab();
    let mut cloud: Vec<Vec3> = (0..500)
        .map(|_| Vec3::new(unit() - 0.5, 2.0 * unit() - 1.0, 0.3 * unit() - 0.2))
        .collect();
    cloud[7] = Vec3::new(-0.0, 0.0, 0.0);
    cloud[8] = Vec3::new(0.0, -0.0, 0.0);
    let cloud_ids: Vec<u64> = (0..500u64).map(|i| i * 7919 % 100_003).collect();
    let few = vec![Vec3::new(1.0, 2.0, 3.0), Vec3::new(-1.0, 2.0, 0.5)];
    let beds = [
        (lattice, lattice_ids),
        (cloud, cloud_ids),
        (few, vec![4, 9]),
        (Vec::new(), Vec::new()),
    ];
    for (centres, ids) in &beds {
        for ranks in 1..=7 {
            let gathered = Bisection::new(centres, ids, ranks);
            let threads = Threads {
                barrier: std::sync::Barrier::new(ranks),
                values: std::sync::Mutex::new(Vec::new()),
            };
            let owner: Vec<usize> = (0..centres.len())
                .map(|i| (i * 31 + i / 3) % (ranks + 1) % ranks)
                .collect();
            let parts: Vec<Bisection> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..ranks)
                    .map(|q| {
                        let (threads, owner) = (&threads, &owner);
                        s.spawn(move || {
                            let mine = |i: &usize| owner[*i] == q;
                            let c: Vec<Vec3> = (0..centres.len())
                                .filter(mine)
                                .map(|i| centres[i])
                                .collect();
                            let d: Vec<u64> =
                                (0..centres.len()).filter(mine).map(|i| ids[i]).collect();
                            Bisection::from_parts(&c, &d, ranks, threads)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            for (q, part) in parts.iter().enumerate() {
                assert_eq!(
                    part.to_bytes(),
                    gathered.to_bytes(),
                    "{} bodies, {ranks} ranks, rank {q}",
                    centres.len()
                );
            }
        }
    }
}

/// The bytes of node `k` of `bytes` set to the words `first`, `second`.
fn with_node(bytes: &[u8], k: usize, (first, second): (u32, u32)) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[NODE_BYTES * k..NODE_BYTES * k + 4].copy_from_slice(&first.to_le_bytes());
    out[NODE_BYTES * k + 4..NODE_BYTES * (k + 1)].copy_from_slice(&second.to_le_bytes());
    out
}

#[test]
fn bytes_that_are_no_tree_of_the_ranks_are_refused_in_one_line() {
    let (c, ids) = slab();
    // Three ranks: a cut, rank 0's box, a cut, the boxes of ranks 1 and 2.
    let bytes = Bisection::new(&c, &ids, 3).to_bytes();
    let cases = [
        (bytes[..bytes.len() - 3].to_vec(), "not whole nodes"),
        (Vec::new(), "not whole nodes"),
        (bytes[..4 * NODE_BYTES].to_vec(), "a side missing"),
        (with_node(&bytes, 0, (3, 0)), "axis 3"),
        (with_node(&bytes, 2, (1, f32::NAN.to_bits())), "cuts at NaN"),
        (
            with_node(&bytes, 2, (0, f32::INFINITY.to_bits())),
            "cuts at inf",
        ),
        (with_node(&bytes, 4, (LEAF, 1)), "rank 1 has two boxes"),
        (with_node(&bytes, 4, (LEAF, 3)), "rank 3 is not below 3"),
        (with_node(&bytes, 0, (LEAF, 2)), "past the tree's end"),
    ];
    for (bad, word) in cases {
        let msg = Bisection::from_bytes(&bad).unwrap_err();
        assert!(msg.contains(word) && !msg.contains('\n'), "{word}: {msg}");
    }
}
