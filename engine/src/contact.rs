//! A readable view of one contact of the last step: who touches whom, where, and the impulse
//! and force it carried.

use glam::Vec3;
use grains_kernels::mesh::MeshWalls;
use grains_kernels::narrow_phase::Contacts;
use grains_kernels::{key_wall, ContactRow, NO_BODY};

/// The two sides of a contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Touching {
    /// Two bodies (indices in the order they were added).
    Bodies {
        /// The first body.
        a: usize,
        /// The second body.
        b: usize,
    },
    /// A body and a wall (index in the order walls were added).
    Wall {
        /// The body.
        body: usize,
        /// The wall.
        wall: usize,
    },
    /// A body and a triangle of a mesh wall.
    Mesh {
        /// The body.
        body: usize,
        /// The mesh (index in the order meshes were added).
        mesh: usize,
        /// The triangle, among all meshes' triangles (mesh after mesh).
        triangle: usize,
    },
}

impl Touching {
    /// The body whose side [`Contact::normal`] points to and [`Contact::impulse`] acts on: `a`,
    /// or the body of a wall or mesh contact.
    pub fn first_body(&self) -> usize {
        match *self {
            Touching::Bodies { a, .. } => a,
            Touching::Wall { body, .. } | Touching::Mesh { body, .. } => body,
        }
    }
}

/// One contact of the last step, in world terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// The two sides.
    pub touching: Touching,
    /// Where the contact acts (m): the first body's centre now plus the lever arm to the
    /// contact found at the start of the step.
    pub point: Vec3,
    /// Unit normal, from the second side (body `b` or the wall) towards the first body.
    pub normal: Vec3,
    /// Gap Φ at the start of the step (m; negative when overlapping).
    pub gap: f32,
    /// Impulse on the first body over the step (N s): γn n + γt1 t1 + γt2 t2; the second
    /// body takes its opposite.
    pub impulse: Vec3,
    /// Mean force on the first body over the step (N): the impulse divided by h.
    pub force: Vec3,
}

impl Contact {
    /// The view of contact `row` with pair `key` and impulses `gamma` (γn, γt1, γt2, ·) of a
    /// step of length `h`, among bodies at `centres`, with the `mesh` walls numbered after the
    /// flat and cylinder walls.
    pub(crate) fn new(
        row: &ContactRow,
        key: u64,
        gamma: [f32; 4],
        h: f32,
        (centre, mesh): (&impl Fn(usize) -> Vec3, &MeshWalls),
    ) -> Self {
        let a = row.body_a as usize;
        let touching = if row.body_b == NO_BODY {
            let wall = key_wall(key);
            match mesh.triangle_of_wall(wall) {
                Some(triangle) => Touching::Mesh {
                    body: a,
                    mesh: mesh.triangles[triangle].mesh() as usize,
                    triangle,
                },
                None => Touching::Wall { body: a, wall },
            }
        } else {
            Touching::Bodies {
                a,
                b: row.body_b as usize,
            }
        };
        let impulse = gamma[0] * row.normal()
            + gamma[1] * Vec3::from_array(row.t1)
            + gamma[2] * Vec3::from_array(row.t2);
        Contact {
            touching,
            point: centre(a) + Vec3::from_array(row.ra),
            normal: row.normal(),
            gap: row.phi,
            impulse,
            force: impulse / h,
        }
    }
}

/// The contacts of `contacts` with their `impulses`, as [`Contact`]s, the first body of each
/// at `centre(its index)`.
pub(crate) fn view<'a>(
    contacts: &'a Contacts,
    impulses: &'a [[f32; 4]],
    h: f32,
    (centre, mesh): (impl Fn(usize) -> Vec3 + 'a, &'a MeshWalls),
) -> impl ExactSizeIterator<Item = Contact> + 'a {
    contacts
        .rows
        .iter()
        .zip(&contacts.keys)
        .zip(impulses)
        .map(move |((row, &key), &gamma)| Contact::new(row, key, gamma, h, (&centre, mesh)))
}
