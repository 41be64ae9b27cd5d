//! The loads the contacts of the last step put on the walls and the bodies: what a user
//! measures on a silo's floor, a drum's shell or a blade.
//!
//! Each contact carries the impulse γ of the step over its length h; its force is the mean
//! γ / h over the step ([`Contact::force`](crate::Contact::force)). A contact's force acts on
//! its first body and, opposite, on the second side (a body or a wall), so the force on a wall
//! is minus the sum of the forces its contacts put on the bodies. Sums run in contact order (pair keys ascending)
//! in f64, so they are the same for any thread count. A rank of a distributed run holds the
//! contacts it solved: its sums are its share, added over the ranks in rank order (the same
//! bits for a given rank count; on one rank, one process's).

use crate::contact::Touching;
use crate::world::World;
use glam::{DVec3, Vec3};

/// The force and torque the contacts of the last step put on one wall.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WallLoad {
    /// Total force on the wall (N): −Σ [`Contact::force`](crate::Contact::force) over the
    /// wall's contacts, the mean over the step.
    pub force: DVec3,
    /// Total torque on the wall about the point given to [`World::wall_loads`] (N m):
    /// Σ (contact point − point) × (−force), plus minus the contacts' moments of spinning and
    /// rolling friction (where some pair has them), each over h.
    pub torque: DVec3,
    /// Contacts of the wall in the step.
    pub contacts: usize,
}

impl WallLoad {
    /// The sum of the loads of `walls` (the walls of one container, say).
    pub fn total<'a>(walls: impl IntoIterator<Item = &'a WallLoad>) -> WallLoad {
        walls
            .into_iter()
            .fold(WallLoad::default(), |acc, w| WallLoad {
                force: acc.force + w.force,
                torque: acc.torque + w.torque,
                contacts: acc.contacts + w.contacts,
            })
    }
}

/// The moment impulse of a contact on its first body (N m s): γ_s n + γ_r1 t1 + γ_r2 t2, or 0
/// when the step had no moment rows.
fn moment_on_first_body(frame: [Vec3; 3], moment: Option<&[f32; 4]>) -> DVec3 {
    moment.map_or(DVec3::ZERO, |m| {
        (m[0] * frame[0] + m[1] * frame[1] + m[2] * frame[2]).as_dvec3()
    })
}

impl World {
    /// The force and torque on each wall over the last step (GPU: as of the last
    /// [`World::sync_contacts`]), one entry per wall in the order the walls were added; the
    /// torque is about `point` (m).
    ///
    /// In a distributed world (feature `mpi`) a call every rank makes together, after
    /// [`World::sync_contacts`]: each rank sums the contacts it solved, and the ranks' sums of
    /// each wall are added in rank order ([`World::sum_over_ranks`]), so every rank gets the
    /// whole bed's loads.
    ///
    /// A sphere of mass m resting on a floor presses on it with m g:
    ///
    /// ```
    /// use grains::{Body, Material, Settings, Vec3, WallDesc, World};
    /// let mut b = World::builder(Settings::default());
    /// b.material(Material::new(0.5));
    /// b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    /// b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.05), 0.05, 2.0));
    /// let mut world = b.build().unwrap();
    /// world.run(200).unwrap();
    /// let floor = world.wall_loads(Vec3::ZERO)[0];
    /// assert!((floor.force.z + 2.0 * 9.81).abs() < 1e-3, "{}", floor.force);
    /// ```
    pub fn wall_loads(&self, point: Vec3) -> Vec<WallLoad> {
        self.side_loads(self.wall_descs().len(), point, |touching| match touching {
            Touching::Wall { wall, .. } => Some(wall),
            _ => None,
        })
    }

    /// The loads on `count` sides (walls or meshes) about `point`: each contact whose second
    /// side `side` names adds its force and torque to that side's entry; in a distributed
    /// world, this rank's contacts' sums added over the ranks.
    pub(crate) fn side_loads(
        &self,
        count: usize,
        point: Vec3,
        side: impl Fn(Touching) -> Option<usize>,
    ) -> Vec<WallLoad> {
        let mut loads = vec![WallLoad::default(); count];
        let point = point.as_dvec3();
        let h = f64::from(self.params.h);
        let rows = &self.contact_rows().rows;
        let moments = self.moment_impulses();
        for (k, c) in self.contacts().enumerate() {
            let Some(wall) = side(c.touching) else {
                continue;
            };
            let row = &rows[k];
            let frame = [c.normal, Vec3::from_array(row.t1), Vec3::from_array(row.t2)];
            let on_wall = -c.impulse.as_dvec3() / h;
            let moment = -moment_on_first_body(frame, moments.get(k)) / h;
            let load = &mut loads[wall];
            load.force += on_wall;
            load.torque += (c.point.as_dvec3() - point).cross(on_wall) + moment;
            load.contacts += 1;
        }
        let mut sums: Vec<f64> = (loads.iter())
            .flat_map(|l| [l.force.to_array(), l.torque.to_array()].concat())
            .chain(loads.iter().map(|l| l.contacts as f64))
            .collect();
        self.sum_over_ranks(&mut sums);
        let (vectors, counts) = sums.split_at(6 * count);
        for ((load, v), &n) in loads.iter_mut().zip(vectors.chunks_exact(6)).zip(counts) {
            load.force = DVec3::from_slice(&v[..3]);
            load.torque = DVec3::from_slice(&v[3..]);
            load.contacts = n as usize;
        }
        loads
    }

    /// Sums each of `values` over the ranks of a distributed world (feature `mpi`), in place:
    /// rank 0's value, then each other rank's added in rank order, so that every rank gets the
    /// same bits. A call every rank makes together, with as many values on each; in a world
    /// that steps every body itself (and on one rank) the values stay as they are.
    ///
    /// A rank's contact figures ([`World::contacts`], [`World::body_contact_forces`]) are its
    /// share of the bed's: this adds such shares up.
    pub fn sum_over_ranks(&self, values: &mut [f64]) {
        self.backend.sum_over_ranks(values);
    }

    /// Each of `values` the largest over the ranks of a distributed world, in place (as
    /// [`f64::max`]: a NaN gives way to a number). A call every rank makes together, with as
    /// many values on each; in a world that steps every body itself the values stay as they
    /// are.
    pub fn max_over_ranks(&self, values: &mut [f64]) {
        self.backend.max_over_ranks(values);
    }

    /// Each of `values` the largest over the ranks of a distributed world, in place, by one
    /// `MPI_Allreduce` (for long lists: an image's pixels, say; [`World::max_over_ranks`]
    /// gathers every rank's list). A call every rank makes together, with as many values on
    /// each; in a world that steps every body itself the values stay as they are.
    pub fn max_keys_over_ranks(&self, values: &mut [u64]) {
        self.backend.max_keys_over_ranks(values);
    }

    /// The `k`th smallest (from 0, in [`f64::total_cmp`]'s order) of the values of every rank
    /// of a distributed world together, each rank giving `values` (its own bodies' figures,
    /// say), or `None` where they are no more than `k`: the same number on every rank, exactly
    /// the one sorting the values gathered would give, found by counts reduced over the ranks
    /// (eight `Allgather`s of 2 kB, whatever the number of values). A call every rank makes
    /// together; in a world that steps every body itself, of `values` alone (which it
    /// reorders).
    pub fn select_over_ranks(&self, values: &mut [f64], k: u64) -> Option<f64> {
        self.backend.select_over_ranks(values, k)
    }

    /// The total contact force on each body over the last step (N), in body order (GPU: as of
    /// the last [`World::sync_contacts`]): Σ [`Contact::force`](crate::Contact::force) over
    /// the contacts where it is the first body, minus the same over those where it is the
    /// second. Gravity, springs, joints and applied forces are not included; a body at rest on
    /// a floor gets +m g up.
    ///
    /// In a distributed world (feature `mpi`) a call every rank makes together, after
    /// [`World::sync_contacts`]: the totals of the bodies this rank owns (its contacts' forces,
    /// and on a body other ranks hold too, theirs, exchanged with those ranks only and added in
    /// rank order), zero for the others; so the ranks' vectors together hold each body's total
    /// once ([`World::sum_over_ranks`] adds sums of them up).
    pub fn body_contact_forces(&self) -> Vec<DVec3> {
        let mut forces = vec![DVec3::ZERO; self.len()];
        for (a, b, f) in self.contact_force_pairs() {
            forces[a] += f;
            if let Some(b) = b {
                forces[b] -= f;
            }
        }
        self.backend.total_contact_forces(&mut forces);
        forces
    }

    /// [`World::body_contact_forces`] of the bodies this rank of a distributed world owns, in
    /// ascending index ([`World::owned_indices`]), without a list of every body: the same
    /// totals, bit for bit. A call every rank makes together; `None` in a world that steps
    /// every body itself, and on every rank before the first step after its bodies were split
    /// (a restore, a pass of the insertions and sinks).
    pub fn own_contact_forces(&self) -> Option<Vec<DVec3>> {
        self.backend
            .own_contact_forces(&mut self.contact_force_pairs())
    }

    /// Each contact's first body, its second (none for a wall or mesh) and the mean force on
    /// the first over the last step (N).
    fn contact_force_pairs(&self) -> impl Iterator<Item = (usize, Option<usize>, DVec3)> + '_ {
        let h = f64::from(self.params.h);
        self.contacts().map(move |c| {
            let f = c.impulse.as_dvec3() / h;
            match c.touching {
                Touching::Bodies { a, b } => (a, Some(b), f),
                Touching::Wall { body, .. } | Touching::Mesh { body, .. } => (body, None, f),
            }
        })
    }
}
