//! The subdomains of a distributed run: recursive bisection of the bed on body counts.
//!
//! K ranks split the set of body centres in two along the longest axis of its bounding box,
//! with ⌊K/2⌋ ranks on the low side taking that share of the bodies; each side is split again
//! the same way until every rank has one axis-aligned box. The cuts are planes between two
//! bodies' centres, so a point's owner is found by walking down the cuts. Ties (equal
//! coordinates) are broken by id, so the same bodies give the same cuts on every rank.

use glam::Vec3;

/// The cuts of a recursive bisection and each rank's box.
#[derive(Clone, Debug, PartialEq)]
pub struct Bisection {
    /// The tree of cuts; the root is node 0.
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
        let mut b = Bisection {
            nodes: Vec::new(),
            boxes: vec![(Vec3::NEG_INFINITY, Vec3::INFINITY); ranks.max(1)],
        };
        let all = (Vec3::NEG_INFINITY, Vec3::INFINITY);
        b.split(centres, ids, &mut order, (0, ranks.max(1)), all);
        b
    }

    /// Adds the node splitting the bodies `order` among ranks `first..end` inside `bounds`;
    /// returns its index.
    fn split(
        &mut self,
        centres: &[Vec3],
        ids: &[u64],
        order: &mut [usize],
        (first, end): (usize, usize),
        bounds: (Vec3, Vec3),
    ) -> usize {
        let me = self.nodes.len();
        if end - first == 1 {
            self.nodes.push(Node::Leaf(first));
            self.boxes[first] = bounds;
            return me;
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
        self.nodes.push(Node::Leaf(usize::MAX));
        let (mut low_box, mut high_box) = (bounds, bounds);
        low_box.1[axis] = at;
        high_box.0[axis] = at;
        let (low_order, high_order) = order.split_at_mut(cut);
        let mid = first + low_ranks;
        let low = self.split(centres, ids, low_order, (first, mid), low_box);
        let high = self.split(centres, ids, high_order, (mid, end), high_box);
        self.nodes[me] = Node::Cut {
            axis,
            at,
            low,
            high,
        };
        me
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
