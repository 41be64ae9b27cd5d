//! Bonds made at build from a distance rule ([`WorldBuilder::bond_neighbours`]): every pair of
//! spheres of a range of bodies whose gap is at most a given distance gets a
//! [`JointDesc::bond`] at the middle of its gap. The bond law is the kernels'
//! ([`grains_kernels::joints::BondStiffness`]).

use crate::builder::WorldBuilder;
use crate::error::BuildError;
use crate::joint::{BondStiffness, BondStrength, JointDesc};
use std::collections::HashMap;
use std::ops::Range;

/// The gap, as a share of the smaller radius, within which two grains count as touching and
/// are bonded whatever the `gap` asked for.
pub const TOUCHING: f32 = 1e-4;

impl WorldBuilder {
    /// Bonds every pair of the bodies `bodies` (indices, added before) whose surfaces are at
    /// most `gap` (m) apart, or touch to within 1e-4 of the smaller radius (`TOUCHING`: the
    /// rounding of centres written in decimals), measured between their spheres of radius
    /// `Body::radius`,
    /// each with `stiffness` at the middle of the gap on the line between the centres; returns
    /// the number of bonds added. Pairs are bonded in ascending order (a, b), a < b, whatever the
    /// order the bodies were placed in, so a world is the same for any machine. Bonds are
    /// joints: what joints combine with (docs/support.md) bonds do. Refuses, adding nothing, a
    /// gap that is not a finite number ≥ 0 and a range beyond the bodies added
    /// (`BuildError::Settings`, field `gap` or `bodies`).
    pub fn bond_neighbours(
        &mut self,
        bodies: Range<usize>,
        gap: f32,
        stiffness: BondStiffness,
    ) -> Result<usize, BuildError> {
        self.breakable_bonds(bodies, gap, stiffness, None)
    }

    /// [`Self::bond_neighbours`] with bonds that break at `strength`
    /// ([`JointDesc::breaking_at`]; `None`: never).
    pub fn breakable_bonds(
        &mut self,
        bodies: Range<usize>,
        gap: f32,
        stiffness: BondStiffness,
        strength: Option<BondStrength>,
    ) -> Result<usize, BuildError> {
        let refuse = |field, problem| Err(BuildError::Settings { field, problem });
        if !(gap.is_finite() && gap >= 0.0) {
            return refuse("gap", format!("must be a finite gap ≥ 0 (m), got {gap}"));
        }
        let n = self.bodies().len();
        if bodies.start > bodies.end || bodies.end > n {
            let problem = format!("{bodies:?} is not a range of the {n} bodies added");
            return refuse("bodies", problem);
        }
        let pairs = neighbour_pairs(self.bodies(), bodies, gap);
        for &(a, b) in &pairs {
            let (pa, pb) = (&self.bodies()[a], &self.bodies()[b]);
            let d = pb.position - pa.position;
            let n = d.normalize_or_zero();
            let between = d.length() - pa.radius - pb.radius;
            let anchor = pa.position + n * (pa.radius + 0.5 * between);
            let bond = JointDesc::bond(a, Some(b), anchor, stiffness);
            self.joint(JointDesc { strength, ..bond });
        }
        Ok(pairs.len())
    }
}

/// The pairs (a, b), a < b, of `range` whose bounding spheres are at most `gap` apart, in
/// ascending order, found through a grid of cells one reach wide.
fn neighbour_pairs(bodies: &[crate::Body], range: Range<usize>, gap: f32) -> Vec<(usize, usize)> {
    let r_max = bodies[range.clone()]
        .iter()
        .map(|b| b.radius)
        .fold(0.0f32, f32::max);
    let reach = (2.0 + TOUCHING) * r_max + gap;
    if range.is_empty() || !(reach.is_finite() && reach > 0.0) {
        return Vec::new();
    }
    let cell = |i: usize| (bodies[i].position / reach).floor().as_ivec3();
    let mut cells: HashMap<glam::IVec3, Vec<usize>> = HashMap::new();
    for i in range.clone() {
        cells.entry(cell(i)).or_default().push(i);
    }
    let mut pairs = Vec::new();
    for a in range {
        let c = cell(a);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(near) = cells.get(&(c + glam::IVec3::new(dx, dy, dz))) else {
                        continue;
                    };
                    for &b in near.iter().filter(|&&b| b > a) {
                        let (pa, pb) = (&bodies[a], &bodies[b]);
                        let apart = (pb.position - pa.position).length() - pa.radius - pb.radius;
                        if apart <= gap.max(TOUCHING * pa.radius.min(pb.radius)) {
                            pairs.push((a, b));
                        }
                    }
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs
}
