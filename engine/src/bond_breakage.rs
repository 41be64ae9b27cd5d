//! Bonds that break ([`crate::JointDesc::breaking_at`]): after each step, every intact bond
//! with a strength whose load in that step ([`BondLoad`]: tension, shear, bending and twisting
//! at its anchor, from its rows' impulses) exceeds one of its strengths breaks for good. A
//! broken bond adds no rows from the next step on and its grains collide again, so it becomes
//! an ordinary contact; the other joints keep their warm start. Which bonds are broken is part
//! of a snapshot.

use crate::snapshot::{Snapshot, SnapshotError};
use crate::world::World;
use grains_kernels::joints::{BondLoad, Joint};

impl World {
    /// The indices (in the order the joints were added) of the bonds that have broken.
    pub fn broken_bonds(&self) -> Vec<usize> {
        let broken = self.joints.iter().enumerate().filter(|(_, j)| j.broken);
        broken.map(|(i, _)| i).collect()
    }

    /// For each body, how many of its bonds have broken; empty in a world without breakable
    /// bonds (what a frame's `broken_bonds` array shows: the cracks).
    pub fn broken_bond_counts(&self) -> Vec<u32> {
        if self.joints.iter().all(|j| j.strength.is_none()) {
            return Vec::new();
        }
        let mut counts = vec![0u32; self.bodies.len()];
        for j in self.joints.iter().filter(|j| j.broken) {
            for body in [j.body_a, j.body_b] {
                if let Some(c) = counts.get_mut(body as usize) {
                    *c += 1;
                }
            }
        }
        counts
    }

    /// What bond `joint` carried in the last step ([`BondLoad`]); `None` for a joint that is
    /// not a bond, a broken bond, a joint index out of range, and before the first step.
    pub fn bond_load(&self, joint: usize) -> Option<BondLoad> {
        let j = self.joints.get(joint)?;
        let row: usize = self.joints[..joint].iter().map(Joint::row_count).sum();
        let gamma = self.backend.joint_impulses().get(row..row + 6)?;
        let bond = j.bond.is_some() && !j.broken;
        bond.then(|| Joint::bond_load(gamma.try_into().expect("six rows"), self.params.h))
    }

    /// After a step of length `h`: breaks the intact bonds whose load exceeded their strength
    /// and hands the backend the joints left, with the impulses of their rows as the next
    /// step's warm start.
    pub(crate) fn break_bonds(&mut self, h: f32) {
        let gamma = self.backend.joint_impulses();
        let mut row = 0;
        let mut breaking = Vec::new();
        for (i, j) in self.joints.iter().enumerate() {
            let rows = gamma.get(row..row + j.row_count()).unwrap_or_default();
            row += j.row_count();
            if let (Some(strength), Ok(six)) = (j.strength, rows.try_into()) {
                if strength.broken_by(&Joint::bond_load(six, h)) {
                    breaking.push((i, row - 6..row));
                }
            }
        }
        if breaking.is_empty() {
            return;
        }
        // The impulses of every row but the broken bonds', in order.
        let mut kept = gamma.to_vec();
        for (_, rows) in breaking.iter().rev() {
            kept.drain(rows.clone());
        }
        for (i, _) in breaking {
            self.joints[i].broken = true;
        }
        self.joint_rows = kept.len();
        self.backend.set_joints(self.joints.clone(), &kept);
    }

    /// The joint rows (and implicit springs' rows) there are when the bonds `broken` (joint
    /// indices) are broken and the others hold.
    pub(crate) fn joint_rows_with(&self, broken: &[u32]) -> usize {
        let springs = self.joint_rows - self.joints.iter().map(Joint::row_count).sum::<usize>();
        let holding = self.joints.iter().enumerate().map(|(i, j)| {
            let broken = broken.binary_search(&(i as u32)).is_ok();
            Joint { broken, ..*j }.row_count()
        });
        springs + holding.sum::<usize>()
    }

    /// Refuses a snapshot whose broken bonds are not ascending joint indices of breakable
    /// bonds of this world.
    pub(crate) fn check_broken_bonds(&self, snap: &Snapshot) -> Result<(), SnapshotError> {
        let list = &snap.broken_bonds;
        if let Some(k) = list.windows(2).position(|w| w[0] >= w[1]) {
            return Err(SnapshotError::Invalid(format!(
                "broken bond {} is not above the one before",
                k + 1
            )));
        }
        let breakable = |&i: &u32| {
            self.joints
                .get(i as usize)
                .is_some_and(|j| j.strength.is_some())
        };
        match list.iter().find(|i| !breakable(i)) {
            Some(i) => Err(SnapshotError::Invalid(format!(
                "broken bond {i} is not a breakable bond of this world"
            ))),
            None => Ok(()),
        }
    }

    /// Sets which bonds are broken to `broken` (joint indices, from a snapshot), with the
    /// joint rows' impulses `impulses` (in the row order those bonds leave, or none).
    pub(crate) fn set_broken_bonds(&mut self, broken: &[u32], impulses: &[f32]) {
        let unchanged = self
            .joints
            .iter()
            .enumerate()
            .all(|(i, j)| j.broken == broken.binary_search(&(i as u32)).is_ok());
        if unchanged {
            return;
        }
        self.joint_rows = self.joint_rows_with(broken);
        for (i, j) in self.joints.iter_mut().enumerate() {
            j.broken = broken.binary_search(&(i as u32)).is_ok();
        }
        self.backend.set_joints(self.joints.clone(), impulses);
    }
}
