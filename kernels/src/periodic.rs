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
    /// images' offset at the step's end; then x is wrapped as by [`Periodic::wrap`]. A y that
    /// rounds to hi in f32 (a grain a hair below hi, or one that left through lo by less than
    /// an ulp of hi) is the next period's lo: it takes one period more, with its shift along
    /// x and its velocity jump. (Setting it to lo alone, as the unsheared wrap does, would move
    /// the grain by Δ along x.) A y that rounds below lo is lo.
    #[inline(always)]
    pub fn wrap_sheared(&self, p: Vec3, v: Vec3, h: f32) -> (Vec3, Vec3) {
        let (lo, hi) = self.y.unwrap_or_default();
        let (_, ly) = self.periods();
        let mut n = ((p.y - lo) / ly).floor();
        let mut y = p.y - n * ly;
        if y >= hi {
            n += 1.0;
            y = lo;
        }
        let y = y.max(lo);
        let jump = self.shear_rate * ly;
        let end_offset = self.shear_offset + jump * h;
        let moved = Vec3::new(p.x - n * end_offset, y, p.z);
        let x_only = Periodic { y: None, ..*self };
        (x_only.wrap(moved), Vec3::new(v.x - n * jump, v.y, v.z))
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
