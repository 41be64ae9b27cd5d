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
//! # Lees–Edwards shear
//!
//! With both x and y periodic, a shear rate γ̇ ([`Periodic::shear_rate`]) shears the cell along
//! x with its gradient along y (simple shear without walls): the copy of the cell at image
//! index m across y (y + m L_y) is offset along x by m Δ(t), Δ(t) = γ̇ L_y t mod L_x
//! ([`Periodic::shear_offset`], set by the world before each step from its time, in f64), and
//! moves at m γ̇ L_y x̂ on top of its grains' velocities. So:
//!
//! * the minimum image ([`Periodic::minimum_image_sheared`]) takes m = round(d_y/L_y) first,
//!   d_y −= m L_y, d_x −= m Δ, then d_x's own minimum image along x;
//! * a pair whose b is seen through its copy m across y has b moving at v_b + m γ̇ L_y x̂: the
//!   narrow phase puts m γ̇ L_y x̂ into the row as it puts a wall's velocity
//!   ([`Periodic::image_velocity`]);
//! * the grid queries ([`Periodic::image_queries`]) look for partners of x across y around
//!   x + k_y Δ, and a partner is kept only around its sheared minimum-image index
//!   ([`Periodic::image_index_sheared`]);
//! * stage 7 ([`Periodic::wrap_sheared`]) moves a grain that left through y = hi (n = 1) or
//!   y = lo (n = −1) by y −= n L_y, x −= n Δ⁺, v_x −= n γ̇ L_y, with Δ⁺ = Δ + γ̇ L_y h the
//!   offset at the step's end (the time the new centres hold), then wraps x.
//!
//! This is not the grid's own [`crate::broad_phase::Grid::periodic`], a hashed wrap of the
//! grid's cell coordinates that bounds its size when grains are far apart and that neither
//! moves grains nor offsets pairs.

use glam::{IVec2, Vec3};

/// The periodic axes of a world: along each of x and y, `None` (bounded) or the range
/// `(lo, hi)` (m) the centres stay in, of period hi − lo; and the Lees–Edwards shear of the
/// cell (see the module's header).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Periodic {
    /// Range [lo, hi) along x, or `None`.
    pub x: Option<(f32, f32)>,
    /// Range [lo, hi) along y, or `None`.
    pub y: Option<(f32, f32)>,
    /// Lees–Edwards shear rate γ̇ (1/s; 0, the default, for none): the cell is sheared along x
    /// with its gradient along y, the images across y moving at ±γ̇ L_y along x. Needs both x
    /// and y periodic; finite.
    pub shear_rate: f32,
    /// The images' offset Δ (m) along x across y at the step's start, γ̇ L_y t mod L_x, in
    /// [0, L_x): the world sets it before each step from its time (computed in f64 from the
    /// step count, [`Periodic::offset_at`]); the value in the settings is not read.
    pub shear_offset: f32,
}

impl Periodic {
    /// No periodic axis.
    pub const NONE: Periodic = Periodic {
        x: None,
        y: None,
        shear_rate: 0.0,
        shear_offset: 0.0,
    };

    /// True when the cell is sheared (a nonzero [`Periodic::shear_rate`] with x and y
    /// periodic).
    #[inline(always)]
    pub fn is_sheared(&self) -> bool {
        self.shear_rate != 0.0 && self.x.is_some() && self.y.is_some()
    }

    /// The periods (L_x, L_y) (0 along a bounded axis).
    #[inline(always)]
    pub fn periods(&self) -> (f32, f32) {
        let period = |r: Option<(f32, f32)>| r.map_or(0.0, |(lo, hi)| hi - lo);
        (period(self.x), period(self.y))
    }

    /// The images' offset Δ(t) = γ̇ L_y t mod L_x (m, in [0, L_x)) at time `t` (s), computed in
    /// f64 so that it does not drift over a long run; 0 when the cell is not sheared.
    pub fn offset_at(&self, t: f64) -> f32 {
        if !self.is_sheared() {
            return 0.0;
        }
        let (lx, ly) = self.periods();
        let (lx, ly) = (lx as f64, ly as f64);
        let delta = (self.shear_rate as f64 * ly * t).rem_euclid(lx) as f32;
        if delta < lx as f32 {
            delta
        } else {
            0.0
        }
    }

    /// This cell with its offset set for time `t` ([`Periodic::offset_at`]).
    pub fn at_time(&self, t: f64) -> Periodic {
        Periodic {
            shear_offset: self.offset_at(t),
            ..*self
        }
    }

    /// The velocity jump γ̇ L_y (m/s) of the images one period up across y (0 when not
    /// sheared).
    #[inline(always)]
    pub fn jump_speed(&self) -> f32 {
        if self.is_sheared() {
            self.shear_rate * self.periods().1
        } else {
            0.0
        }
    }

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

    /// The minimum image of a separation `d` = x_a − x_b in a sheared cell, with the image index
    /// m = round(d_y/L_y) across y of b's copy nearest a (at x_b + m Δ, y_b + m L_y): d_y −=
    /// m L_y, d_x −= m Δ, then d_x − L_x round(d_x/L_x). Only for a sheared cell
    /// ([`Periodic::is_sheared`]).
    #[inline(always)]
    pub fn minimum_image_sheared(&self, d: Vec3) -> (Vec3, f32) {
        let (lx, ly) = self.periods();
        let m = (d.y / ly).round();
        let mut d = d;
        d.y -= ly * m;
        d.x -= m * self.shear_offset;
        d.x -= lx * (d.x / lx).round();
        (d, m)
    }

    /// The velocity m γ̇ L_y x̂ (m/s) of b's copy at image index `m` across y on top of b's own,
    /// for a pair measured by [`Periodic::minimum_image_sheared`]: the relative velocity of the
    /// pair is v_a − (v_b + m γ̇ L_y x̂).
    #[inline(always)]
    pub fn image_velocity(&self, m: f32) -> Vec3 {
        Vec3::new(m * self.shear_rate * self.periods().1, 0.0, 0.0)
    }

    /// The sheared minimum-image index of b seen from a: k_y = round((y_b − y_a)/L_y),
    /// k_x = round((x_b − k_y Δ − x_a)/L_x), so that b's copy nearest a lies at
    /// (x_b − k_y Δ − k_x L_x, y_b − k_y L_y). Only for a sheared cell.
    #[inline(always)]
    pub fn image_index_sheared(&self, a: Vec3, b: Vec3) -> IVec2 {
        let (lx, ly) = self.periods();
        let ky = ((b.y - a.y) / ly).round();
        let kx = ((b.x - ky * self.shear_offset - a.x) / lx).round();
        IVec2::new(kx as i32, ky as i32)
    }

    /// The points around which a centre `p` inside the ranges looks for partners (centres
    /// inside the ranges) within `reach`, each with the image index a partner found around it
    /// must have to be kept there ([`Periodic::image_index`], or
    /// [`Periodic::image_index_sheared`] in a sheared cell): `p` itself first; without shear
    /// p + k L for the shifts k of [`Periodic::image_shifts`]; in a sheared cell, for each
    /// shift k_y across y, the point q = p + k_y (Δ, L_y) with q_x wrapped into the x range
    /// (by s periods, q_x = p_x + k_y Δ + s L_x), and q and its images q ± L_x within reach of
    /// an x side, of index (s + k_x, k_y).
    #[inline(always)]
    pub fn image_queries(&self, p: Vec3, reach: f32) -> ([(Vec3, IVec2); 9], usize) {
        let (shifts, count) = self.image_shifts(p, reach);
        let mut out = [(p, IVec2::ZERO); 9];
        if !self.is_sheared() {
            for (o, &k) in out.iter_mut().zip(&shifts[..count]) {
                *o = (p + self.offset(k), k);
            }
            return (out, count);
        }
        let (lx, ly) = self.periods();
        let (xlo, _) = self.x.unwrap_or_default();
        let mut n = 0;
        let mut last_ky = None;
        for &k in &shifts[..count] {
            if last_ky == Some(k.y) {
                continue;
            }
            last_ky = Some(k.y);
            let raw = p.x + k.y as f32 * self.shear_offset;
            let periods = ((raw - xlo) / lx).floor();
            let q = Vec3::new(raw - lx * periods, p.y + k.y as f32 * ly, p.z);
            let q = if k.y == 0 { p } else { q };
            let s = if k.y == 0 { 0 } else { -(periods as i32) };
            let (xs, xn) = self.axis_shifts(0, q.x, reach);
            for &kx in &xs[..xn] {
                out[n] = (
                    q + Vec3::new(kx as f32 * lx, 0.0, 0.0),
                    IVec2::new(s + kx, k.y),
                );
                n += 1;
            }
        }
        (out, n)
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

    /// The shifts along `axis` (0 for x, 1 for y) of a coordinate `x` inside its range: 0, and
    /// +1 when x − lo ≤ reach, −1 when hi − x ≤ reach (0 alone along a bounded axis).
    #[inline(always)]
    fn axis_shifts(&self, axis: usize, x: f32, reach: f32) -> ([i32; 3], usize) {
        let mut out = [0i32; 3];
        let mut n = 1;
        if let Some((lo, hi)) = self.axes()[axis] {
            if x - lo <= reach {
                out[n] = 1;
                n += 1;
            }
            if hi - x <= reach {
                out[n] = -1;
                n += 1;
            }
        }
        (out, n)
    }

    /// Centre `p` and velocity `v` of a grain moved by a step of `h` in a sheared cell, wrapped
    /// into the ranges: n = ⌊(y − lo)/L_y⌋ periods across y (1 when it left through y = hi, −1
    /// through lo) give y −= n L_y, x −= n Δ⁺ and v_x −= n γ̇ L_y, with Δ⁺ = Δ + γ̇ L_y h the
    /// images' offset at the step's end; then x (and y, against round-off) are wrapped as by
    /// [`Periodic::wrap`].
    #[inline(always)]
    pub fn wrap_sheared(&self, p: Vec3, v: Vec3, h: f32) -> (Vec3, Vec3) {
        let (lo, _) = self.y.unwrap_or_default();
        let (_, ly) = self.periods();
        let n = ((p.y - lo) / ly).floor();
        if n == 0.0 {
            return (self.wrap(p), v);
        }
        let jump = self.shear_rate * ly;
        let end_offset = self.shear_offset + jump * h;
        let moved = Vec3::new(p.x - n * end_offset, p.y - n * ly, p.z);
        (self.wrap(moved), Vec3::new(v.x - n * jump, v.y, v.z))
    }

    /// The image indices k whose copies x + k L of a centre `p` inside the ranges can have a
    /// partner (a centre inside the ranges) within `reach`: k = 0 always, +1 along an axis where
    /// x − lo ≤ reach, −1 where hi − x ≤ reach, and their combinations (at most 9; `p` first).
    #[inline(always)]
    pub fn image_shifts(&self, p: Vec3, reach: f32) -> ([IVec2; 9], usize) {
        let (xs, xn) = self.axis_shifts(0, p.x, reach);
        let (ys, yn) = self.axis_shifts(1, p.y, reach);
        let (per_axis, count) = ([xs, ys], [xn, yn]);
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

#[cfg(test)]
mod tests {
    use super::*;

    const CELL: Periodic = Periodic {
        x: Some((-1.0, 3.0)),
        ..Periodic::NONE
    };

    /// A sheared cell 4 × 2 m with its images across y offset by 1.3 m.
    const SHEARED: Periodic = Periodic {
        x: Some((-1.0, 3.0)),
        y: Some((0.0, 2.0)),
        shear_rate: 0.5,
        shear_offset: 1.3,
    };

    /// A pseudo-random point of the sheared cell (z in [0, 1)).
    fn point(seed: u32) -> Vec3 {
        let u = |k: u32| {
            let x = (seed
                .wrapping_mul(2_654_435_761)
                .wrapping_add(k.wrapping_mul(40_503)))
            .rotate_left(13)
            .wrapping_mul(2_246_822_519);
            (x >> 8) as f32 / (1u32 << 24) as f32
        };
        Vec3::new(-1.0 + 4.0 * u(1), 2.0 * u(2), u(3))
    }

    /// In a sheared cell the minimum image of a pair within reach is a − the nearest of b's
    /// copies (x_b + m Δ + j L_x, y_b + m L_y), m its index across y; the image index names the
    /// copy the minimum image measures; the queries of a centre find every partner within
    /// reach around its index, once.
    #[test]
    fn sheared_minimum_image_is_nearest_copy() {
        let (reach, delta) = (0.6f32, SHEARED.shear_offset);
        let mut near = 0;
        for seed in 0..4000 {
            let (a, b) = (point(2 * seed), point(2 * seed + 1));
            let mut best = (f32::INFINITY, Vec3::ZERO, 0, 0);
            for m in -1..=1 {
                for j in -2..=2 {
                    let copy =
                        b + Vec3::new(m as f32 * delta + j as f32 * 4.0, m as f32 * 2.0, 0.0);
                    let d = a - copy;
                    if d.length() < best.0 {
                        best = (d.length(), d, m, j);
                    }
                }
            }
            // Only a copy within half a period along y is certain to be the one of least
            // |d_y|: the pairs within reach (less than half of either period) are.
            let (d, m) = SHEARED.minimum_image_sheared(a - b);
            let k = SHEARED.image_index_sheared(a, b);
            if best.0 <= reach {
                assert!(
                    (d - best.1).length() < 1e-5,
                    "{a} {b}: {d} against {}",
                    best.1
                );
                assert_eq!(m as i32, best.2);
                assert_eq!(k, IVec2::new(-best.3, -best.2), "{a} {b}");
            }
            // The image index always names the copy the minimum image measures.
            let copy = b - Vec3::new(k.y as f32 * delta + k.x as f32 * 4.0, k.y as f32 * 2.0, 0.0);
            assert!((a - copy - d).length() < 1e-5, "{a} {b} {k}: {d}");
            let (queries, n) = SHEARED.image_queries(a, reach);
            let found: Vec<_> = queries[..n].iter().filter(|q| q.1 == k).collect();
            if best.0 <= reach {
                near += 1;
                assert_eq!(found.len(), 1, "{a} {b} {k}: {:?}", &queries[..n]);
                let q = found[0].0;
                assert!(
                    (b - q).truncate().length() <= reach + 1e-4,
                    "{a} {b} around {q}"
                );
            }
            assert!(found.len() <= 1);
            let mut ks: Vec<_> = queries[..n].iter().map(|q| (q.1.x, q.1.y)).collect();
            ks.sort_unstable();
            ks.windows(2).for_each(|w| assert_ne!(w[0], w[1]));
        }
        assert!(near > 200, "{near} pairs within reach");
    }

    /// Leaving through y = hi a grain re-enters at lo shifted by −Δ⁺ along x and slowed by
    /// γ̇ L_y; through lo the opposite; inside the cell only x is wrapped.
    #[test]
    fn sheared_wrap_shifts_and_slows() {
        let h = 0.01;
        let end = SHEARED.shear_offset + 0.5 * 2.0 * h;
        let v = Vec3::new(0.2, 0.3, 0.0);
        let (p, w) = SHEARED.wrap_sheared(Vec3::new(0.5, 2.1, 0.2), v, h);
        assert!((p - Vec3::new(0.5 - end, 0.1, 0.2)).length() < 1e-6, "{p}");
        assert_eq!(w, Vec3::new(0.2 - 1.0, 0.3, 0.0));
        let (p, w) = SHEARED.wrap_sheared(Vec3::new(2.5, -0.1, 0.2), v, h);
        assert!(
            (p - Vec3::new(2.5 + end - 4.0, 1.9, 0.2)).length() < 1e-6,
            "{p}"
        );
        assert_eq!(w, Vec3::new(1.2, 0.3, 0.0));
        let (p, w) = SHEARED.wrap_sheared(Vec3::new(3.5, 1.0, 0.2), v, h);
        assert_eq!((p, w), (Vec3::new(-0.5, 1.0, 0.2), v));
    }

    /// The offset at time t is γ̇ L_y t mod L_x, without drift at a large t.
    #[test]
    fn offset_at_time_wraps_without_drift() {
        assert!((SHEARED.offset_at(1.5) - 1.5).abs() < 1e-6);
        assert!((SHEARED.offset_at(5.0) - 1.0).abs() < 1e-6);
        let t = 1e7 + 0.25; // 10⁷ m of shift, 2.5·10⁶ periods
        assert!((SHEARED.offset_at(t) - 0.25).abs() < 1e-6);
        assert_eq!(CELL.offset_at(3.0), 0.0);
    }

    /// Wrapping lands in [lo, hi) and moves by whole periods only.
    #[test]
    fn wrap_lands_in_range_by_whole_periods() {
        for x in [-1.0f32, -1.5, 3.0, 7.25, -9.0, 2.999_999_8, -1.000_000_1] {
            let w = CELL.wrap(Vec3::new(x, 5.0, 6.0));
            assert!((-1.0..3.0).contains(&w.x), "{x} → {}", w.x);
            assert_eq!((w.y, w.z), (5.0, 6.0));
            let periods = (x - w.x) / 4.0;
            assert!((periods - periods.round()).abs() < 1e-5, "{x} → {}", w.x);
        }
    }

    /// The minimum image is at most half a period and differs from d by whole periods; image
    /// indices are antisymmetric and consistent with it.
    #[test]
    fn minimum_image_is_nearest_copy() {
        let a = Vec3::new(-0.9, 0.0, 0.0);
        let b = Vec3::new(2.8, 1.0, 0.0);
        let d = CELL.minimum_image(a - b);
        assert!((d.x - 0.3).abs() < 1e-6, "{d}");
        assert_eq!(d.y, -1.0);
        assert_eq!(CELL.image_index(a, b), IVec2::new(1, 0));
        assert_eq!(CELL.image_index(b, a), IVec2::new(-1, 0));
        let via_offset = a - (b - CELL.offset(CELL.image_index(a, b)));
        assert!((via_offset - d).length() < 1e-6);
    }

    /// A centre near the lower side queries its image +1, near both sides of both axes all 9.
    #[test]
    fn image_shifts_follow_the_sides_within_reach() {
        let (k, n) = CELL.image_shifts(Vec3::new(-0.9, 0.0, 0.0), 0.2);
        assert_eq!(&k[..n], &[IVec2::ZERO, IVec2::X]);
        let (_, n) = CELL.image_shifts(Vec3::new(1.0, 0.0, 0.0), 0.2);
        assert_eq!(n, 1);
        let tiny = Periodic {
            x: Some((0.0, 1.0)),
            y: Some((0.0, 1.0)),
            ..Periodic::NONE
        };
        let (k, n) = tiny.image_shifts(Vec3::splat(0.5), 0.6);
        assert_eq!(n, 9);
        let mut k = k.map(|k| (k.x, k.y));
        k.sort_unstable();
        k.windows(2).for_each(|w| assert_ne!(w[0], w[1]));
    }
}
