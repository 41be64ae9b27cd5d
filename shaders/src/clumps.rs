//! Clumps on the device (`clump_shapes.wgsl`): each body's clump word and the templates' member
//! spheres in one buffer, written at upload. The broad phase reaches a clump's bounding radius,
//! the narrow phase pairs its members (`narrow_phase.wgsl`), and the solve reads the full rows
//! (`solver_row_full.wgsl`) whose arms run to the members' surface points.

use crate::buffers::MAX_PAIRS;
use grains_kernels::shapes::clump::ClumpTable;
use grains_kernels::support::{device_refusal, Feature};
use grains_kernels::{GpuError, Shape};

/// A body's word when it is a sphere (`NOT_CLUMP` in `clump_shapes.wgsl`).
pub const NOT_CLUMP: u32 = u32::MAX;

/// The clump templates of a world and each body's template (or [`NOT_CLUMP`]).
#[derive(Clone, Debug, Default)]
pub struct ClumpShapes {
    pub table: ClumpTable,
    pub templates: Vec<u32>,
    /// The clump bodies' members together (kept with `templates`, so that the step's check of
    /// the buffers' sizes does not count them again).
    placed: u64,
}

impl ClumpShapes {
    /// The templates of `shapes`' clumps in `table`; refuses the shapes the support table
    /// refuses on the GPU (all but spheres and clumps).
    pub fn new(table: ClumpTable, shapes: &[Shape]) -> Result<Self, GpuError> {
        for s in shapes {
            device_refusal(Feature::GpuBackend, Feature::Shape(s.kind()))?;
        }
        let mut shapes_of = ClumpShapes {
            table,
            ..ClumpShapes::default()
        };
        shapes_of.set_bodies(shapes);
        Ok(shapes_of)
    }

    /// Each body's template after bodies came or went (`shapes` as [`ClumpShapes::new`]
    /// checked them: spheres and clumps of the same table).
    pub fn set_bodies(&mut self, shapes: &[Shape]) {
        self.templates = shapes
            .iter()
            .map(|s| match *s {
                Shape::Clump { template, .. } => template,
                _ => NOT_CLUMP,
            })
            .collect();
        self.placed = (self.templates.iter())
            .filter(|&&t| t != NOT_CLUMP)
            .map(|&t| self.table.members(t).len() as u64)
            .sum();
    }

    /// Words of the clumps' buffer for `n` bodies (see [`ClumpShapes::words`]), and the most
    /// members of one template.
    pub fn sizes(&self, n: usize) -> (u64, u64) {
        let counts = (0..self.table.len() as u32).map(|t| self.table.members(t).len() as u64);
        let words = 2 + 2 * n as u64 + 4 * (counts.clone().sum::<u64>() + self.placed);
        (words + mask_words(n), counts.max().unwrap_or(0))
    }

    /// The buffer's words for `n` bodies (`ClumpData` in `clump_shapes.wgsl`): where the placed
    /// members and the partner masks start; body i's word, NOT_CLUMP (a sphere, also where no
    /// shapes were given) or (first placed member << 3 | members − 1); body i's template's first
    /// member (NOT_CLUMP for a sphere); every template's members (x, y, z, r) as bits; and room
    /// for the clumps' members placed each step and the partner slots' contact masks (zero).
    pub fn words(&self, n: usize) -> Vec<u32> {
        let mut first = Vec::with_capacity(self.table.len());
        let mut members = Vec::new();
        for t in 0..self.table.len() as u32 {
            first.push((members.len() / 4) as u32);
            let list = self.table.members(t);
            members.extend(list.iter().flat_map(|m| m.to_array().map(f32::to_bits)));
        }
        let template = |i: usize| self.templates.get(i).copied().unwrap_or(NOT_CLUMP);
        let mut placed = 0u32;
        let mut bodies = Vec::with_capacity(n);
        for i in 0..n {
            bodies.push(match template(i) {
                NOT_CLUMP => NOT_CLUMP,
                t => {
                    let count = self.table.members(t).len() as u32;
                    placed += count;
                    (placed - count) << 3 | (count - 1)
                }
            });
        }
        let placed_at = (2 * n + members.len()) as u32;
        let masks_at = placed_at + 4 * placed;
        let firsts = (0..n).map(|i| match template(i) {
            NOT_CLUMP => NOT_CLUMP,
            t => first[t as usize],
        });
        let mut words = vec![placed_at, masks_at];
        words.extend(bodies);
        words.extend(firsts);
        words.extend(members);
        words.resize(
            words.len() + 4 * placed as usize + mask_words(n) as usize,
            0,
        );
        words
    }
}

/// Words of the partner slots' contact masks of `n` bodies: two per slot.
fn mask_words(n: usize) -> u64 {
    2 * MAX_PAIRS * n as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec4;
    use grains_kernels::pairs::ShapeKind;

    /// The GPU takes spheres and clumps; every other kind is refused by the support table's row
    /// (GPU backend × that shape), named as the table names it.
    #[test]
    fn every_other_shape_is_refused_by_the_support_table() {
        let others = [
            Shape::Capsule { half_length: 1.0 },
            Shape::Ellipse { a: 1.0, b: 0.5 },
            Shape::Cuboid {
                half_extents: glam::Vec3::ONE,
            },
            Shape::Ellipsoid {
                semi_axes: glam::Vec3::ONE,
            },
            Shape::Polyhedron {
                hull: 0,
                bounding_radius: 1.0,
            },
        ];
        let mut kinds: Vec<_> = others.iter().map(|s| s.kind()).collect();
        kinds.extend([ShapeKind::Sphere, ShapeKind::Clump]);
        assert!(
            ShapeKind::ALL.iter().all(|k| kinds.contains(k)),
            "every kind"
        );
        for s in others {
            match ClumpShapes::new(ClumpTable::default(), &[Shape::Sphere, s]) {
                Err(GpuError::Unsupported(what)) => assert_eq!(what, s.kind().plural()),
                other => panic!("{s:?}: {other:?}"),
            }
        }
    }

    /// Two templates: body words number each clump's placed members with their count, the
    /// template words point at its template's first member, the members follow as bits, and
    /// room for the placed members ends the buffer.
    #[test]
    fn words_point_at_each_template_s_members() {
        let mut table = ClumpTable::default();
        let rod = [
            Vec4::new(-1.0, 0.0, 0.0, 0.5),
            Vec4::new(1.0, 0.0, 0.0, 0.5),
        ];
        let tri = [Vec4::X, Vec4::Y, Vec4::Z];
        let a = table.push(&rod).unwrap();
        let b = table.push(&tri).unwrap();
        let clump = |template| Shape::Clump {
            template,
            bound: 1.5,
        };
        let shapes = [clump(b), Shape::Sphere, clump(a)];
        let s = ClumpShapes::new(table, &shapes).unwrap();
        let w = s.words(3);
        // Header, 2 × 3 body words, 5 template members, 3 + 2 placed members, 32 × 3 masks.
        assert_eq!(s.sizes(3), (w.len() as u64, 3));
        assert_eq!(w.len(), 2 + 6 + 4 * 5 + 4 * 5 + 2 * 32 * 3);
        assert_eq!(
            w[..2],
            [6 + 4 * 5, 6 + 4 * 5 + 4 * 5],
            "counted after the header"
        );
        assert_eq!(w[2..5], [2, NOT_CLUMP, 3 << 3 | 1]);
        assert_eq!(w[5..8], [2, NOT_CLUMP, 0]);
        let member =
            |m: usize| Vec4::from_array(std::array::from_fn(|k| f32::from_bits(w[8 + 4 * m + k])));
        assert_eq!([member(0), member(1)], rod);
        assert_eq!([member(2), member(3), member(4)], tri);
    }
}
