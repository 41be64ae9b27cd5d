//! The subdomains of a distributed run: recursive bisection of the bed on body counts.
//!
//! K ranks split the set of body centres in two along the longest axis of its bounding box,
//! with ⌊K/2⌋ ranks on the low side taking that share of the bodies; each side is split again
//! the same way until every rank has one axis-aligned box. The cuts are planes between two
//! bodies' centres, so a point's owner is found by walking down the cuts. Ties (equal
//! coordinates) are broken by id, so the same bodies give the same cuts on every rank.
//!
//! A checkpoint of a distributed run carries its cuts ([`Bisection::to_bytes`]), so that a run
//! resumed on as many ranks splits the bed as the run left uninterrupted did. Their bytes
//! are the tree's nodes in pre-order (a cut, then its low side's nodes, then its high side's),
//! 8 each, little-endian: a cut is its axis (`u32`: 0, 1 or 2) and its coordinate (`f32`), a
//! rank's box is [`LEAF`] (`u32`) and the rank (`u32`).

use glam::Vec3;

/// The first word of a rank's box (a leaf of the tree) in [`Bisection::to_bytes`].
pub const LEAF: u32 = u32::MAX;
/// Bytes of one node in [`Bisection::to_bytes`].
pub const NODE_BYTES: usize = 8;

/// The cuts of a recursive bisection and each rank's box.
#[derive(Clone, Debug, PartialEq)]
pub struct Bisection {
    /// The tree of cuts in pre-order (a cut, its low side's nodes, its high side's); the root
    /// is node 0.
    nodes: Vec<Node>,
    /// Each rank's box: lowest and highest corner (infinite where no cut bounds it).
    boxes: Vec<(Vec3, Vec3)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Node {
    /// Points with coordinate `axis` below `at` go to node `low`, the others to `high`.
    Cut {
        axis: usize,
        at: f32,
        low: usize,
        high: usize,
    },
    /// A rank's subdomain.
    Leaf(usize),
}

impl Bisection {
    /// Splits the bodies at `centres` (with their `ids`, which order equal coordinates) among
    /// `ranks` ranks (at least 1) by recursive bisection on counts along the longest axes.
    pub fn new(centres: &[Vec3], ids: &[u64], ranks: usize) -> Bisection {
        let mut order: Vec<usize> = (0..centres.len()).collect();
        let mut nodes = Vec::new();
        split(&mut nodes, centres, ids, &mut order, (0, ranks.max(1)));
        Bisection::with_boxes(nodes, ranks.max(1))
    }

    /// The bisection of the tree `nodes` (in pre-order, whose leaves are the ranks
    /// `0..ranks`), with each rank's box: everything, cut down by the cuts above its leaf.
    fn with_boxes(nodes: Vec<Node>, ranks: usize) -> Bisection {
        let all = (Vec3::NEG_INFINITY, Vec3::INFINITY);
        let mut boxes = vec![all; ranks];
        let mut todo = vec![(0, all)];
        while let Some((node, bounds)) = todo.pop() {
            match nodes[node] {
                Node::Leaf(rank) => boxes[rank] = bounds,
                Node::Cut {
                    axis,
                    at,
                    low,
                    high,
                } => {
                    let (mut low_box, mut high_box) = (bounds, bounds);
                    low_box.1[axis] = at;
                    high_box.0[axis] = at;
                    todo.extend([(low, low_box), (high, high_box)]);
                }
            }
        }
        Bisection { nodes, boxes }
    }

    /// The cuts as bytes (see the module's documentation): what a checkpoint carries.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(NODE_BYTES * self.nodes.len());
        for node in &self.nodes {
            let words = match *node {
                Node::Cut { axis, at, .. } => [axis as u32, at.to_bits()],
                Node::Leaf(rank) => [LEAF, rank as u32],
            };
            for w in words {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        out
    }

    /// Reads what [`Self::to_bytes`] wrote, refusing, with a one-line reason, bytes that are
    /// not whole nodes, a cut along no axis or at a coordinate that is not finite, and nodes
    /// that do not make one tree (a cut with a side missing, nodes after the tree's end) whose
    /// leaves are the ranks 0..K each once.
    pub fn from_bytes(bytes: &[u8]) -> Result<Bisection, String> {
        if bytes.is_empty() || !bytes.len().is_multiple_of(NODE_BYTES) {
            return Err(format!("{} bytes are not whole nodes", bytes.len()));
        }
        let count = bytes.len() / NODE_BYTES;
        // A tree of K leaves has K − 1 cuts.
        let ranks = count.div_ceil(2);
        let mut nodes = Vec::with_capacity(count);
        let mut seen = vec![false; ranks];
        // The cuts whose sides are not all read yet, innermost last.
        let mut open: Vec<usize> = Vec::new();
        for (k, node) in bytes.chunks_exact(NODE_BYTES).enumerate() {
            let word = |i: usize| u32::from_le_bytes(node[4 * i..4 * i + 4].try_into().unwrap());
            let (first, second) = (word(0), word(1));
            nodes.push(match first {
                LEAF => {
                    let rank = second as usize;
                    match seen.get_mut(rank) {
                        Some(s) if !*s => *s = true,
                        Some(_) => return Err(format!("rank {rank} has two boxes")),
                        None => return Err(format!("rank {rank} is not below {ranks}")),
                    }
                    Node::Leaf(rank)
                }
                axis @ 0..3 => {
                    let at = f32::from_bits(second);
                    if !at.is_finite() {
                        return Err(format!("node {k} cuts at {at}"));
                    }
                    Node::Cut {
                        axis: axis as usize,
                        at,
                        low: 0,
                        high: 0,
                    }
                }
                other => return Err(format!("node {k} cuts along axis {other}")),
            });
            if k > 0 {
                let Some(&parent) = open.last() else {
                    return Err(format!("node {k} is past the tree's end"));
                };
                if let Node::Cut { low, high, .. } = &mut nodes[parent] {
                    if *low == 0 {
                        *low = k;
                    } else {
                        *high = k;
                        open.pop();
                    }
                }
            }
            if matches!(nodes[k], Node::Cut { .. }) {
                open.push(k);
            }
        }
        if !open.is_empty() {
            return Err("a cut has a side missing".into());
        }
        Ok(Bisection::with_boxes(nodes, ranks))
    }

    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        self.boxes.len()
    }

    /// The rank whose box holds point `p` (a point on a cut belongs to the high side).
    pub fn owner(&self, p: Vec3) -> usize {
        let mut node = 0;
        loop {
            match self.nodes[node] {
                Node::Leaf(rank) => return rank,
                Node::Cut {
                    axis,
                    at,
                    low,
                    high,
                } => node = if p[axis] < at { low } else { high },
            }
        }
    }

    /// Distance (m) from point `p` to rank `rank`'s box (0 inside it).
    pub fn distance(&self, rank: usize, p: Vec3) -> f32 {
        let (lo, hi) = self.boxes[rank];
        let outside = (lo - p).max(p - hi).max(Vec3::ZERO);
        outside.length()
    }

    /// Rank `rank`'s box: lowest and highest corner (infinite where no cut bounds it).
    pub fn bounds(&self, rank: usize) -> (Vec3, Vec3) {
        self.boxes[rank]
    }
}

/// The reductions over the ranks that [`Bisection::from_parts`] needs, each elementwise over
/// a slice that has the same length on every rank (one collective call each).
pub trait Reduce {
    /// Each of `values` summed over the ranks, in place.
    fn sum_each(&self, values: &mut [u64]);
    /// Each of `values` the largest over the ranks, in place.
    fn max_each(&self, values: &mut [u64]);
}

/// The bits of a coordinate as an unsigned number in [`f32::total_cmp`]'s order.
fn ordered(x: f32) -> u32 {
    let b = x.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 1 << 31
    }
}

/// The coordinate of [`ordered`]'s number.
fn unordered(o: u32) -> f32 {
    f32::from_bits(if o >> 31 == 1 { o & !(1 << 31) } else { !o })
}

/// The place of a body in a cut's order (its coordinate, then its id) as one number.
fn order_key(coordinate: f32, id: u64) -> u128 {
    u128::from(ordered(coordinate)) << 64 | u128::from(id)
}

/// Digits of [`order_key`]'s 96 bits that a selection round settles (8 bits: 256 counts a cut).
const DIGIT_BITS: u32 = 8;
/// The digits of a key: 4 of the coordinate, then 8 of the id.
const DIGITS: u32 = 96 / DIGIT_BITS;
/// The digits of the coordinate alone.
const COORDINATE_DIGITS: u32 = 32 / DIGIT_BITS;

/// One cut being found by [`Bisection::from_parts`]: the ranks it splits, its bodies, its
/// axis and where its selection stands.
struct Pending {
    ranks: (usize, usize),
    count: u64,
    axis: usize,
    /// The place in order of the first body of the high side.
    cut: u64,
    /// The key digits selected so far (the rest 0), and how many bodies of the same digits
    /// come before the one sought.
    prefix: u128,
    rank_left: u64,
    /// The bodies that share the selected digits (1: the rest of the key decides nothing).
    sharing: u64,
}

impl Bisection {
    /// The bisection [`Bisection::new`] makes of all the ranks' bodies, the same cuts bit for
    /// bit, from this rank's own `centres` and `ids` and reductions over the ranks: level by
    /// level of the tree, each cut's body count and bounding box (two reductions), then the
    /// key (coordinate, id) of the first body of its high side, selected 8 bits a round from
    /// the counts of the bodies under each digit (four rounds for the coordinate, eight more
    /// for the id only where bodies share the cut's coordinate), then the coordinate of the
    /// last body of its low side (one reduction). No rank gathers the bed: a round moves
    /// 256 counts a cut, against 24 bytes a body for a gather.
    pub fn from_parts(
        centres: &[Vec3],
        ids: &[u64],
        ranks: usize,
        reduce: &impl Reduce,
    ) -> Bisection {
        let ranks = ranks.max(1);
        // The cut (first rank, last rank + 1) each body lies under at the level.
        let mut under = vec![(0, ranks); centres.len()];
        let mut found: Vec<((usize, usize), usize, f32)> = Vec::new();
        let mut level = vec![(0, ranks)];
        while !level.is_empty() {
            let slot = |r: (usize, usize)| level.binary_search(&r).ok();
            let m = level.len();
            // Each body's cut at this level (none once it lies in one rank's box).
            let slots: Vec<Option<usize>> = under.iter().map(|&r| slot(r)).collect();
            let mut counts = vec![0u64; m];
            // Per cut: the largest ordered coordinate along x, y, z, then the largest of their
            // complements (the smallest coordinate).
            let mut highest = vec![0u64; 6 * m];
            for (p, s) in centres.iter().zip(&slots) {
                let Some(s) = *s else { continue };
                counts[s] += 1;
                for a in 0..3 {
                    let o = u64::from(ordered(p[a]));
                    highest[6 * s + a] = highest[6 * s + a].max(o);
                    highest[6 * s + 3 + a] = highest[6 * s + 3 + a].max(u64::from(u32::MAX) - o);
                }
            }
            reduce.sum_each(&mut counts);
            reduce.max_each(&mut highest);
            let mut pending: Vec<Pending> = level
                .iter()
                .enumerate()
                .map(|(s, &(first, end))| {
                    let count = counts[s];
                    let corner = |at: usize, flip: bool| {
                        Vec3::from_array([0, 1, 2].map(|a| {
                            let o = highest[6 * s + at + a];
                            unordered(if flip { u64::from(u32::MAX) - o } else { o } as u32)
                        }))
                    };
                    let axis = match count {
                        0 => 0,
                        _ => longest_axis([corner(3, true), corner(0, false)].into_iter()),
                    };
                    let cut = count * ((end - first) / 2) as u64 / (end - first) as u64;
                    Pending {
                        ranks: (first, end),
                        count,
                        axis,
                        cut,
                        prefix: 0,
                        rank_left: cut,
                        sharing: count,
                    }
                })
                .collect();
            // Each body's cut and its key along that cut's axis.
            let keyed: Vec<Option<(usize, u128)>> = slots
                .iter()
                .enumerate()
                .map(|(i, s)| s.map(|s| (s, order_key(centres[i][pending[s].axis], ids[i]))))
                .collect();
            // The key of each cut's first high body, digit by digit from the top.
            for d in 0..DIGITS {
                if d == COORDINATE_DIGITS && pending.iter().all(|c| c.sharing <= 1) {
                    break;
                }
                // Digit d holds key bits shift..shift + 8; the digits above it are settled.
                let shift = 96 - DIGIT_BITS * (d + 1);
                let mut histogram = vec![0u64; 256 * m];
                for &(s, key) in keyed.iter().flatten() {
                    if key >> (shift + DIGIT_BITS) == pending[s].prefix >> (shift + DIGIT_BITS) {
                        histogram[256 * s + (key >> shift & 0xff) as usize] += 1;
                    }
                }
                reduce.sum_each(&mut histogram);
                for (s, c) in pending.iter_mut().enumerate() {
                    if c.rank_left >= c.count {
                        continue;
                    }
                    for (digit, &n) in histogram[256 * s..256 * (s + 1)].iter().enumerate() {
                        if c.rank_left < n {
                            c.prefix |= (digit as u128) << shift;
                            c.sharing = n;
                            break;
                        }
                        c.rank_left -= n;
                    }
                }
            }
            // The coordinate of each cut's last low body: the largest below its key (stored
            // plus one, so that 0 says the low side is empty).
            let mut low_top = vec![0u64; m];
            for &(s, key) in keyed.iter().flatten() {
                if key < pending[s].prefix {
                    low_top[s] = low_top[s].max((key >> 64) as u64 + 1);
                }
            }
            reduce.max_each(&mut low_top);
            let halves = |(first, end): (usize, usize)| {
                let mid = first + (end - first) / 2;
                ((first, mid), (mid, end))
            };
            let mut next = Vec::new();
            for (c, &top) in pending.iter().zip(&low_top) {
                let high = (c.cut < c.count).then(|| unordered((c.prefix >> 64) as u32));
                let low = (top > 0).then(|| unordered((top - 1) as u32));
                let at = match (low, high) {
                    (Some(l), Some(h)) => 0.5 * (l + h),
                    (None, Some(h)) => h,
                    (Some(l), None) => l,
                    (None, None) => 0.0,
                };
                found.push((c.ranks, c.axis, at));
                let (low_half, high_half) = halves(c.ranks);
                next.extend([low_half, high_half].into_iter().filter(|(f, e)| e - f > 1));
            }
            for (r, k) in under.iter_mut().zip(&keyed) {
                let Some((s, key)) = *k else { continue };
                let (low_half, high_half) = halves(pending[s].ranks);
                *r = if key < pending[s].prefix {
                    low_half
                } else {
                    high_half
                };
            }
            next.sort_unstable();
            level = next;
        }
        found.sort_unstable_by_key(|f| f.0);
        let mut nodes = Vec::with_capacity(2 * ranks - 1);
        pre_order(&mut nodes, &found, (0, ranks));
        Bisection::with_boxes(nodes, ranks)
    }
}

/// Adds to `nodes` (in pre-order) the node of ranks `first..end` and the nodes below it, with
/// the cuts `found` (by their ranks, sorted).
fn pre_order(
    nodes: &mut Vec<Node>,
    found: &[((usize, usize), usize, f32)],
    (first, end): (usize, usize),
) {
    if end - first == 1 {
        nodes.push(Node::Leaf(first));
        return;
    }
    let k = found
        .binary_search_by_key(&(first, end), |f| f.0)
        .expect("every cut of two or more ranks is found");
    let (_, axis, at) = found[k];
    let me = nodes.len();
    nodes.push(Node::Leaf(usize::MAX));
    let mid = first + (end - first) / 2;
    pre_order(nodes, found, (first, mid));
    let high = nodes.len();
    pre_order(nodes, found, (mid, end));
    nodes[me] = Node::Cut {
        axis,
        at,
        low: me + 1,
        high,
    };
}

/// Adds to `nodes` (in pre-order) the node splitting the bodies `order` among ranks
/// `first..end`, and the nodes below it.
fn split(
    nodes: &mut Vec<Node>,
    centres: &[Vec3],
    ids: &[u64],
    order: &mut [usize],
    (first, end): (usize, usize),
) {
    if end - first == 1 {
        nodes.push(Node::Leaf(first));
        return;
    }
    let axis = longest_axis(order.iter().map(|&i| centres[i]));
    order.sort_by(|&i, &j| {
        centres[i][axis]
            .total_cmp(&centres[j][axis])
            .then(ids[i].cmp(&ids[j]))
    });
    let low_ranks = (end - first) / 2;
    let cut = order.len() * low_ranks / (end - first);
    let at = match (cut.checked_sub(1).map(|k| order[k]), order.get(cut)) {
        (Some(l), Some(&h)) => 0.5 * (centres[l][axis] + centres[h][axis]),
        (None, Some(&h)) => centres[h][axis],
        (Some(l), None) => centres[l][axis],
        (None, None) => 0.0,
    };
    let me = nodes.len();
    nodes.push(Node::Leaf(usize::MAX));
    let (low_order, high_order) = order.split_at_mut(cut);
    let mid = first + low_ranks;
    split(nodes, centres, ids, low_order, (first, mid));
    let high = nodes.len();
    split(nodes, centres, ids, high_order, (mid, end));
    nodes[me] = Node::Cut {
        axis,
        at,
        low: me + 1,
        high,
    };
}

/// The axis (0, 1, 2) along which the points' bounding box is longest (x on ties and for no
/// points).
fn longest_axis(points: impl Iterator<Item = Vec3>) -> usize {
    let (lo, hi) = points.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
        (lo.min(p), hi.max(p))
    });
    let e = (hi - lo).max(Vec3::ZERO);
    if e.x >= e.y && e.x >= e.z {
        0
    } else if e.y >= e.z {
        1
    } else {
        2
    }
}
