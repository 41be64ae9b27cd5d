//! Physical periodic boundaries along x and/or y (stages 2, 3 and 7): a chute, a shear cell, a
//! bed without side walls. Along a periodic axis of period L = hi − lo the world repeats, so a
//! grain near one side touches the grains near the other side, and a grain leaving through one
//! side re-enters through the other with its velocity.
//!
//! * Stage 7 wraps each moved centre back into [lo, hi): x ← x − L ⌊(x − lo)/L⌋
//!   ([`Periodic::wrap`]).
//! * Stage 3 measures every pair by its minimum image: d = x_a − x_b − L round((x_a − x_b)/L)
//!   ([`Periodic::minimum_image`]), so the gap, the normal and the lever arms are those of the
//!   nearest copies of the two grains.
//! * Stage 2's grid holds the wrapped centres only; the narrow phase also visits the cells around
//!   the images x ± L of a grain within reach of a side ([`Periodic::image_shifts`]) and keeps a
//!   partner j found around the image k only when k = round((x_j − x_i)/L) is the pair's
//!   minimum-image index ([`Periodic::image_index`]), so each pair is found exactly once.
//!
//! Each pair has a single minimum image when no pair reaches over half a period: the world's
//! build refuses a period under twice the largest pair reach (2 (2 r_max + ε̂)).
//!
//! This is not the grid's own [`crate::broad_phase::Grid::periodic`], a hashed wrap of the
//! grid's cell coordinates that bounds its size when grains are far apart and that neither
//! moves grains nor offsets pairs.

use glam::{IVec2, Vec3};

/// The periodic axes of a world: along each of x and y, `None` (bounded) or the range
/// `(lo, hi)` (m) the centres stay in, of period hi − lo.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Periodic {
    /// Range [lo, hi) along x, or `None`.
    pub x: Option<(f32, f32)>,
    /// Range [lo, hi) along y, or `None`.
    pub y: Option<(f32, f32)>,
}

impl Periodic {
    /// No periodic axis.
    pub const NONE: Periodic = Periodic { x: None, y: None };

    /// True when some axis is periodic.
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        self.x.is_some() || self.y.is_some()
    }

    /// The ranges along x (index 0) and y (index 1).
    #[inline(always)]
    pub fn axes(&self) -> [Option<(f32, f32)>; 2] {
        [self.x, self.y]
    }

    /// The minimum image of a separation `d` = x_a − x_b: d − L round(d / L) along each periodic
    /// axis (unchanged along the others, and at once without periodic sides).
    #[inline(always)]
    pub fn minimum_image(&self, d: Vec3) -> Vec3 {
        if !self.is_on() {
            return d;
        }
        let mut d = d;
        for (axis, range) in self.axes().into_iter().enumerate() {
            if let Some((lo, hi)) = range {
                let period = hi - lo;
                d[axis] -= period * (d[axis] / period).round();
            }
        }
        d
    }

    /// The minimum-image index of b seen from a: k = round((x_b − x_a)/L) along x and y (0
    /// along a bounded axis), so that b's copy nearest a lies at x_b − k L.
    #[inline(always)]
    pub fn image_index(&self, a: Vec3, b: Vec3) -> IVec2 {
        let mut k = IVec2::ZERO;
        for (axis, range) in self.axes().into_iter().enumerate() {
            if let Some((lo, hi)) = range {
                k[axis] = ((b[axis] - a[axis]) / (hi - lo)).round() as i32;
            }
        }
        k
    }

    /// The offset k L of image index `k` (zero along z).
    #[inline(always)]
    pub fn offset(&self, k: IVec2) -> Vec3 {
        let mut s = Vec3::ZERO;
        for (axis, range) in self.axes().into_iter().enumerate() {
            if let Some((lo, hi)) = range {
                s[axis] = k[axis] as f32 * (hi - lo);
            }
        }
        s
    }

    /// Centre `p` wrapped into [lo, hi) along each periodic axis: x − L ⌊(x − lo)/L⌋ (a result
    /// that rounds up to hi is taken as lo).
    #[inline(always)]
    pub fn wrap(&self, p: Vec3) -> Vec3 {
        let mut p = p;
        for (axis, range) in self.axes().into_iter().enumerate() {
            if let Some((lo, hi)) = range {
                let x = p[axis];
                if !(lo..hi).contains(&x) {
                    let w = x - (hi - lo) * ((x - lo) / (hi - lo)).floor();
                    p[axis] = if (lo..hi).contains(&w) { w } else { lo };
                }
            }
        }
        p
    }

    /// The image indices k whose copies x + k L of a centre `p` inside the ranges can have a
    /// partner (a centre inside the ranges) within `reach`: k = 0 always, +1 along an axis where
    /// x − lo ≤ reach, −1 where hi − x ≤ reach, and their combinations (at most 9; `p` first).
    #[inline(always)]
    pub fn image_shifts(&self, p: Vec3, reach: f32) -> ([IVec2; 9], usize) {
        let mut per_axis = [[0i32; 3]; 2];
        let mut count = [1usize; 2];
        for (axis, range) in self.axes().into_iter().enumerate() {
            if let Some((lo, hi)) = range {
                if p[axis] - lo <= reach {
                    per_axis[axis][count[axis]] = 1;
                    count[axis] += 1;
                }
                if hi - p[axis] <= reach {
                    per_axis[axis][count[axis]] = -1;
                    count[axis] += 1;
                }
            }
        }
        let mut out = [IVec2::ZERO; 9];
        let mut n = 0;
        for &ky in &per_axis[1][..count[1]] {
            for &kx in &per_axis[0][..count[0]] {
                out[n] = IVec2::new(kx, ky);
                n += 1;
            }
        }
        (out, n)
    }
}
