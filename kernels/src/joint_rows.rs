//! The bilateral rows of a step (stage 5, prepare, builds them; stage 6, solve, relaxes them):
//! one [`JointRow`] per scalar constraint of [`crate::joints`] at q⁽ˡ⁾, every joint's rows in
//! joint order (a motor's row after its joint's), then the soft rows of the implicit springs of
//! [`crate::springs`]. The unbounded rows of each set of joints and springs connected through
//! dynamic bodies are solved as one block, exactly, through the Cholesky factor of their
//! K = J M⁻¹ Jᵀ (+ diag ε), factored once per step in f64; a motor's bounded row is relaxed on
//! its own with its effective mass *through* that block, so that the block solve which follows
//! leaves it exact too. Relaxing joints one by one instead converges far too slowly whenever a
//! light body carries heavy ones on long arms (a paddle's hub sphere holding eight arm spheres by
//! fixed joints needs thousands of block Gauss–Seidel sweeps; a pendulum bob on a 1 m arm gives
//! even a single joint's 3 rows a K of condition 1000). A set of more than
//! [`MAX_GROUP_ROWS`] rows (a long chain) is solved joint by joint instead, to bound the cost.
//!
//! The sweeps relax the joint rows together with the contacts: Gauss–Seidel once after each
//! sweep's colour classes, Jacobi after each per-body gather, always serially in order on one
//! thread. Joints are few next to contacts, so the serial pass costs little, needs no colouring
//! of the joint graph, and keeps the result independent of the thread count. The impulses are
//! warm-started by row index (a joint's rows keep their place while the joint list is fixed).

use crate::bilateral_row::{apply_row_impulses, JointRow};
use crate::inertia::PrincipalInertia;
use crate::joints::{Gradient, Joint};
use crate::layout::{Bodies, Motion, NO_BODY};
use crate::springs::{soft_row, Spring};
use crate::step::StepParams;

/// Most unbounded rows solved as one dense block: a connected set of joints with more rows is
/// solved joint by joint instead (each joint's rows exactly, the joints by block Gauss–Seidel).
pub const MAX_GROUP_ROWS: usize = 192;

/// Rows solved together: the unbounded rows `members` of a connected set of joints and
/// springs, exactly through the Cholesky factor of their K = J M⁻¹ Jᵀ + diag(ε), and the bounded
/// rows attached to them, relaxed one by one with their effective mass through the group.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Group {
    /// Range of the group's unbounded rows in `JointRows::members`.
    members: (u32, u32),
    /// Range of its bounded rows in `JointRows::bounded`.
    bounded: (u32, u32),
    /// Offset of its packed lower factor L (L_ij at i(i+1)/2 + j) in `JointRows::factors`.
    factor: u32,
}

/// A bounded row and its effective mass 1/(J M̃⁻¹ Jᵀ) through its group's constraints.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Bounded {
    row: u32,
    mass: f32,
}

/// Packed index of L_ij, j ≤ i.
#[inline(always)]
fn tri(i: usize, j: usize) -> usize {
    i * (i + 1) / 2 + j
}

/// Solves L Lᵀ x = b in place for the packed factor `l` of order b.len(); rows with a zero
/// pivot (dependent on earlier ones, or unable to act) get x = 0.
fn cholesky_solve(l: &[f64], b: &mut [f64]) {
    let n = b.len();
    for i in 0..n {
        let d = l[tri(i, i)];
        b[i] = if d > 0.0 {
            (b[i] - (0..i).map(|m| l[tri(i, m)] * b[m]).sum::<f64>()) / d
        } else {
            0.0
        };
    }
    for i in (0..n).rev() {
        let d = l[tri(i, i)];
        b[i] = if d > 0.0 {
            (b[i] - (i + 1..n).map(|m| l[tri(m, i)] * b[m]).sum::<f64>()) / d
        } else {
            0.0
        };
    }
}

/// A step's bilateral rows and their impulses c (N s), kept between steps for the warm start,
/// with the grouping the sweeps solve them in (fixed while the joints are) and its factors.
#[derive(Clone, Debug, Default)]
pub struct JointRows {
    /// Every joint's rows in joint order, then one soft row per implicit spring.
    pub rows: Vec<JointRow>,
    /// Impulse of each row.
    pub gamma: Vec<f32>,
    groups: Vec<Group>,
    members: Vec<u32>,
    bounded: Vec<Bounded>,
    factors: Vec<f64>,
    /// Whether the rows were built for planar motion (their impulses then keep it).
    planar: bool,
    /// The anisotropic bodies' inertia at the step's start (a copy, empty when none).
    inertia: PrincipalInertia,
}

/// The part of [`JointRows`] a sweep reads (the impulses are written apart).
#[derive(Clone, Copy, Debug)]
pub struct JointSystem<'a> {
    planar: bool,
    inertia: &'a PrincipalInertia,
    rows: &'a [JointRow],
    groups: &'a [Group],
    members: &'a [u32],
    bounded: &'a [Bounded],
    factors: &'a [f64],
}

impl JointRows {
    /// Rebuilds the rows at the bodies' present poses q⁽ˡ⁾ for the step `p`, factors each
    /// group's K (inverse masses from `bodies`) and starts each impulse from `p.warm_start` ×
    /// last step's (zero when the row layout changed); the anisotropic bodies of `inertia` take
    /// their tensor.
    pub fn build(
        &mut self,
        (joints, springs): (&[Joint], &[Spring]),
        bodies: &Bodies,
        inertia: &PrincipalInertia,
        p: &StepParams,
    ) {
        self.inertia.clone_from(inertia);
        self.push_joint_rows(joints, bodies, p, false);
        for s in springs.iter().filter(|s| s.implicit) {
            self.rows.push(soft_row(s, bodies, p));
        }
        self.prepare(joints, bodies, p.warm_start);
    }

    /// Rebuilds the rows of an impact, which takes no time (the slides' Poisson impact): the
    /// joints' velocity constraints J v⁺ = 0 without Θ/h (positions do not move), each motor's
    /// J v⁺ = s with the impulse a force bound gives in no time (none; an unbounded motor
    /// holds), no springs (a finite force gives no impulse); impulses from zero.
    pub fn build_impact(
        &mut self,
        joints: &[Joint],
        bodies: &Bodies,
        inertia: &PrincipalInertia,
        p: &StepParams,
    ) {
        self.inertia.clone_from(inertia);
        self.push_joint_rows(joints, bodies, p, true);
        self.prepare(joints, bodies, 0.0);
    }

    /// Replaces the rows by the joints' constraint and motor rows for the step `p`, or for an
    /// impact (which takes no time).
    fn push_joint_rows(&mut self, joints: &[Joint], bodies: &Bodies, p: &StepParams, impact: bool) {
        let (h, planar) = ((!impact).then_some(p.h), p.planar);
        self.planar = planar;
        self.rows.clear();
        let mut g = [Gradient::default(); 6];
        for j in joints {
            let pair = (j.body_a, j.body_b);
            let n = j.constraints(bodies, &mut g);
            for (k, r) in g[..n].iter().enumerate() {
                let (bias, compliance) = match (h, j.bond) {
                    // A bond's row: the implicit spring's bias k θ/(h k + δ) and ε = 1/(h (h k + δ)).
                    (Some(h), Some(b)) => {
                        let (stiffness, damping) = b.row(k);
                        let resistance = h * stiffness + damping;
                        (stiffness * r.theta / resistance, 1.0 / (h * resistance))
                    }
                    (Some(h), None) if j.stabilise => (r.theta / h, 0.0),
                    _ => (0.0, 0.0),
                };
                let row = JointRow::new(*r, pair, planar, (bias, compliance, f32::INFINITY));
                self.rows.push(row);
            }
            if let Some(m) = j.motor {
                let g = j.motor_gradient(bodies);
                let bound = match h {
                    Some(h) => m.max_force * h,
                    None if m.max_force == f32::INFINITY => f32::INFINITY,
                    None => 0.0,
                };
                let row = JointRow::new(g, pair, planar, (-m.speed, 0.0, bound));
                self.rows.push(row);
            }
        }
    }

    /// Starts each impulse from `warm_start` × the last one (zero when the row layout
    /// changed), groups the rows when their layout changed and factors each group.
    fn prepare(&mut self, joints: &[Joint], bodies: &Bodies, warm_start: f32) {
        if self.gamma.len() == self.rows.len() {
            self.gamma.iter_mut().for_each(|g| *g *= warm_start);
        } else {
            self.gamma.clear();
            self.gamma.resize(self.rows.len(), 0.0);
        }
        for (g, r) in self.gamma.iter_mut().zip(&self.rows) {
            *g = g.clamp(r.lower, r.upper);
        }
        if self.members.len() + self.bounded.len() != self.rows.len() {
            self.group(joints, &bodies.motion);
        }
        self.factor(&bodies.motion);
    }

    /// Groups the rows (once: the grouping lasts while the joints do): the unbounded rows of
    /// each set of joints and springs connected through dynamic bodies form one group, or one
    /// group per joint (per spring) when the set has more than [`MAX_GROUP_ROWS`] rows; each
    /// bounded row joins the group of its joint's first row.
    fn group(&mut self, joints: &[Joint], motion: &[Motion]) {
        let movable = |b: u32| b != NO_BODY && motion[b as usize].inv_mass > 0.0;
        let mut parent: Vec<u32> = (0..motion.len() as u32).collect();
        fn root(parent: &mut [u32], mut b: u32) -> u32 {
            while parent[b as usize] != b {
                parent[b as usize] = parent[parent[b as usize] as usize];
                b = parent[b as usize];
            }
            b
        }
        for r in &self.rows {
            if movable(r.body_a) && movable(r.body_b) {
                let (x, y) = (root(&mut parent, r.body_a), root(&mut parent, r.body_b));
                parent[x.max(y) as usize] = x.min(y);
            }
        }
        // The joint (or, after the joints, the spring) each row belongs to.
        let owner: Vec<usize> = joints
            .iter()
            .enumerate()
            .flat_map(|(j, joint)| std::iter::repeat_n(j, joint.row_count()))
            .chain(joints.len()..)
            .take(self.rows.len())
            .collect();
        let mut sets: Vec<(u32, Vec<u32>)> = Vec::new();
        for (i, r) in self.rows.iter().enumerate() {
            let body = if movable(r.body_a) {
                r.body_a
            } else {
                r.body_b
            };
            let key = if movable(body) {
                root(&mut parent, body)
            } else {
                NO_BODY
            };
            match sets.iter_mut().find(|(k, _)| *k == key && key != NO_BODY) {
                Some((_, rows)) => rows.push(i as u32),
                None => sets.push((key, vec![i as u32])),
            }
        }
        self.groups.clear();
        self.members.clear();
        self.bounded.clear();
        let mut parts: Vec<Vec<u32>> = Vec::new();
        for (_, rows) in sets {
            let unbounded = rows
                .iter()
                .filter(|&&i| !self.rows[i as usize].bounded())
                .count();
            if unbounded <= MAX_GROUP_ROWS {
                parts.push(rows);
            } else {
                for r in rows {
                    match parts.last_mut() {
                        Some(p) if owner[p[0] as usize] == owner[r as usize] => p.push(r),
                        _ => parts.push(vec![r]),
                    }
                }
            }
        }
        let mut factor = 0;
        for rows in parts {
            let start = (self.members.len() as u32, self.bounded.len() as u32);
            for &i in &rows {
                if self.rows[i as usize].bounded() {
                    self.bounded.push(Bounded { row: i, mass: 0.0 });
                } else {
                    self.members.push(i);
                }
            }
            let n = self.members.len() - start.0 as usize;
            self.groups.push(Group {
                members: (start.0, self.members.len() as u32),
                bounded: (start.1, self.bounded.len() as u32),
                factor,
            });
            factor += (n * (n + 1) / 2) as u32;
        }
        self.factors.resize(factor as usize, 0.0);
    }

    /// Factors every group's K = J M⁻¹ Jᵀ + diag(ε) (f64 Cholesky; a pivot below 1e-9 of its
    /// diagonal marks a dependent row) and gives each bounded row its effective mass through
    /// its group, 1/(J_b M⁻¹ J_bᵀ − yᵀ K⁻¹ y) with y = J M⁻¹ J_bᵀ.
    fn factor(&mut self, motion: &[Motion]) {
        let rows = &self.rows;
        for g in &self.groups {
            let members = &self.members[g.members.0 as usize..g.members.1 as usize];
            let n = members.len();
            let l = &mut self.factors[g.factor as usize..g.factor as usize + n * (n + 1) / 2];
            for (i, &ri) in members.iter().enumerate() {
                let ri = &rows[ri as usize];
                for (j, &rj) in members[..=i].iter().enumerate() {
                    let k = ri.coupling(&rows[rj as usize], motion, &self.inertia)
                        + if i == j { ri.compliance as f64 } else { 0.0 };
                    let s = k - (0..j).map(|m| l[tri(i, m)] * l[tri(j, m)]).sum::<f64>();
                    l[tri(i, j)] = if i != j {
                        if l[tri(j, j)] > 0.0 {
                            s / l[tri(j, j)]
                        } else {
                            0.0
                        }
                    } else if s > 1e-9 * k {
                        s.sqrt()
                    } else {
                        0.0
                    };
                }
            }
            let mut y = [0.0f64; MAX_GROUP_ROWS];
            for b in &mut self.bounded[g.bounded.0 as usize..g.bounded.1 as usize] {
                let rb = &rows[b.row as usize];
                for (yi, &ri) in y.iter_mut().zip(members) {
                    *yi = rows[ri as usize].coupling(rb, motion, &self.inertia);
                }
                let mut x = y;
                cholesky_solve(l, &mut x[..n]);
                let through: f64 = y[..n].iter().zip(&x[..n]).map(|(a, b)| a * b).sum();
                let w = rb.coupling(rb, motion, &self.inertia) + rb.compliance as f64 - through;
                b.mass = if w > 0.0 { (1.0 / w) as f32 } else { 0.0 };
            }
        }
    }

    /// The rows and their grouping for the sweeps, and the impulses they update.
    pub fn split(&mut self) -> (JointSystem<'_>, &mut [f32]) {
        (
            JointSystem {
                planar: self.planar,
                inertia: &self.inertia,
                rows: &self.rows,
                groups: &self.groups,
                members: &self.members,
                bounded: &self.bounded,
                factors: &self.factors,
            },
            &mut self.gamma,
        )
    }

    /// Applies the starting impulses, v ← v + M⁻¹ Jᵀ c.
    pub fn apply_warm_start(&self, motion: &mut [Motion]) {
        apply_row_impulses(&self.rows, &self.gamma, motion, self.planar, &self.inertia);
    }

    /// Forgets the impulses (the next step starts cold).
    pub fn clear(&mut self) {
        self.gamma.clear();
    }
}

impl JointSystem<'_> {
    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// One pass over the groups in order, the velocities updated at once: each bounded row
    /// c ← clamp(c − m̃ (J v + bias + ε c), lower, upper) with its effective mass m̃ through the
    /// group, then the group's unbounded rows exactly, Δc = −K⁻¹ (J v + bias + ε c); returns the
    /// residual, the largest |J v + bias + ε c| before the update (m/s, rad/s).
    pub fn relax(&self, gamma: &mut [f32], motion: &mut [Motion]) -> f32 {
        let planar = self.planar;
        let mut residual = 0.0f32;
        let mut u = [0.0f64; MAX_GROUP_ROWS];
        for g in self.groups {
            for b in &self.bounded[g.bounded.0 as usize..g.bounded.1 as usize] {
                let (r, c) = (&self.rows[b.row as usize], &mut gamma[b.row as usize]);
                if b.mass == 0.0 {
                    continue;
                }
                let next = (*c - b.mass * (r.rate(motion) + r.bias + r.compliance * *c))
                    .clamp(r.lower, r.upper);
                let delta = next - *c;
                *c = next;
                r.apply(delta, motion, planar, self.inertia);
                residual = residual.max(delta.abs() / b.mass);
            }
            let members = &self.members[g.members.0 as usize..g.members.1 as usize];
            let n = members.len();
            if n == 0 {
                continue;
            }
            for (ui, &i) in u.iter_mut().zip(members) {
                let r = &self.rows[i as usize];
                let error = r.rate(motion) + r.bias + r.compliance * gamma[i as usize];
                residual = residual.max(error.abs());
                *ui = -error as f64;
            }
            let l = &self.factors[g.factor as usize..g.factor as usize + n * (n + 1) / 2];
            cholesky_solve(l, &mut u[..n]);
            for (&du, &i) in u.iter().zip(members) {
                gamma[i as usize] += du as f32;
                self.rows[i as usize].apply(du as f32, motion, planar, self.inertia);
            }
        }
        residual
    }
}
