//! Stage 6, solve: the per-contact work of every CCP sweep, four contacts at a time: relative
//! velocity, projected impulse update and the impulse each body receives (anitescu-2006 eq. 5.5
//! solved by a projected iteration). Lanes are independent contacts; the arithmetic is SIMD-wide.

use crate::cone::project_cone_scaled4;
use crate::forces::planar_mask;
use crate::inertia::PrincipalInertia;
use crate::layout::{ContactRow, Motion, NO_BODY};
use crate::parallel::BLOCK;
use crate::step::{SolverKind, StepParams};
use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec4};
use rayon::prelude::*;

/// The solver's view of the step's settings: what laying out, warm-starting and sweeping the
/// rows need, built once per solve kind from [`StepParams`] ([`Self::step`], [`Self::impact`]).
#[derive(Clone, Copy, Debug)]
pub struct SweepParams<'a> {
    /// Which projected iteration runs the sweeps.
    pub solver: SolverKind,
    /// Most sweeps per solve.
    pub max_iterations: u32,
    /// Stop when the max-norm residual falls to this (m/s).
    pub tolerance: f32,
    /// Over-relaxation ω of the projected step.
    pub omega: f32,
    /// Coulomb-correction passes after each solve (each followed by a solve from the last γ).
    pub coulomb_correction: u32,
    /// Planar mode: bodies keep v_y = 0 and ω ∥ ŷ.
    pub planar: bool,
    /// Share of the softened normal diagonal that is compliance, ε·mass_n (0 = rigid).
    pub softness: f32,
    /// δ/h, the spring's largest give as a velocity ([`StepParams::max_give`]).
    pub give_speed: f32,
    /// 1 + ε/w_n, so that mass_n × `rigid_scale` = 1/w_n, the rigid row's inverse diagonal.
    pub rigid_scale: f32,
    /// The anisotropic bodies, whose moment impulses turn them through I_w⁻¹
    /// ([`PrincipalInertia::turn`]).
    pub inertia: &'a PrincipalInertia,
}

impl<'a> SweepParams<'a> {
    /// The sweeps of a step's CCP: the normal rows carry the step's implicit spring,
    /// softness = (ε/w_n) / (1 + ε/w_n).
    pub fn step(p: &StepParams, inertia: &'a PrincipalInertia) -> Self {
        SweepParams {
            softness: p.softness_ratio() / (1.0 + p.softness_ratio()),
            give_speed: p.give_speed(),
            rigid_scale: 1.0 + p.softness_ratio(),
            ..Self::impact(p, inertia)
        }
    }

    /// The sweeps of an impact, which takes no time: rigid normal rows (softness 0).
    pub fn impact(p: &StepParams, inertia: &'a PrincipalInertia) -> Self {
        SweepParams {
            solver: p.solver,
            max_iterations: p.max_iterations,
            tolerance: p.tolerance,
            omega: p.omega,
            coulomb_correction: p.coulomb_correction,
            planar: p.planar,
            softness: 0.0,
            give_speed: 0.0,
            rigid_scale: 1.0,
            inertia,
        }
    }
}

/// A 3-vector per lane: x, y and z of four contacts.
pub type Lanes3 = [Vec4; 3];

/// Four contact rows in structure-of-arrays form (the solver's layout). A padding lane has
/// `body_a = NO_BODY` and zero mass, so its impulse stays zero.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RowPack {
    /// Normals.
    pub n: Lanes3,
    /// First tangents.
    pub t1: Lanes3,
    /// Second tangents.
    pub t2: Lanes3,
    /// Arms from a's centre.
    pub ra: Lanes3,
    /// Arms from b's centre.
    pub rb: Lanes3,
    /// Biases (normal, t1, t2).
    pub bias: Lanes3,
    /// Friction coefficients.
    pub mu: Vec4,
    /// 1 / W_nn.
    pub mass_n: Vec4,
    /// 1 / W_tt.
    pub mass_t: Vec4,
    /// s² = w_t / w_n = `mass_n / mass_t`, the tangents' weight in the cone projection's
    /// metric (computed once per step rather than once per sweep).
    pub s2: Vec4,
    /// Bodies a ([`NO_BODY`] in padding lanes).
    pub body_a: [u32; 4],
    /// Bodies b ([`NO_BODY`] for walls and padding).
    pub body_b: [u32; 4],
}

impl Default for RowPack {
    fn default() -> Self {
        RowPack {
            mass_t: Vec4::ONE,
            body_a: [NO_BODY; 4],
            body_b: [NO_BODY; 4],
            ..Zeroable::zeroed()
        }
    }
}

/// The row a padding lane holds: no bodies, no mass (so no impulse), a unit tangential mass.
pub const PADDING_ROW: ContactRow = ContactRow {
    n: [0.0; 3],
    phi: 0.0,
    t1: [0.0; 3],
    mu: 0.0,
    t2: [0.0; 3],
    mass_n: 0.0,
    ra: [0.0; 3],
    mass_t: 1.0,
    rb: [0.0; 3],
    body_a: NO_BODY,
    bias: [0.0; 3],
    body_b: NO_BODY,
};

impl RowPack {
    /// The pack of four rows, lane k from `rows[k]` ([`PADDING_ROW`] for a padding lane):
    /// what [`Self::set_lane`] writes lane by lane, bit for bit, moved as six 4×4 transposes
    /// of the rows' 16-byte quarters instead of 24 single values per lane.
    #[inline(always)]
    pub fn from_rows(rows: [&ContactRow; 4]) -> Self {
        let quarters: [[[f32; 4]; 6]; 4] = rows.map(|r| bytemuck::cast(*r));
        let column = |q: usize| transpose(quarters.map(|r| Vec4::from_array(r[q])));
        let three = |c: [Vec4; 4]| [c[0], c[1], c[2]];
        let (n, t1, t2, ra) = (column(0), column(1), column(2), column(3));
        let (rb, bias) = (column(4), column(5));
        let (mass_n, mass_t) = (t2[3], ra[3]);
        RowPack {
            n: three(n),
            t1: three(t1),
            t2: three(t2),
            ra: three(ra),
            rb: three(rb),
            bias: three(bias),
            mu: t1[3],
            mass_n,
            mass_t,
            s2: mass_n / mass_t,
            body_a: rows.map(|r| r.body_a),
            body_b: rows.map(|r| r.body_b),
        }
    }

    /// Writes `row` into lane `k`.
    pub fn set_lane(&mut self, k: usize, row: &ContactRow) {
        let put = |l: &mut Lanes3, v: [f32; 3]| {
            for (axis, x) in l.iter_mut().zip(v) {
                axis[k] = x;
            }
        };
        put(&mut self.n, row.n);
        put(&mut self.t1, row.t1);
        put(&mut self.t2, row.t2);
        put(&mut self.ra, row.ra);
        put(&mut self.rb, row.rb);
        put(&mut self.bias, row.bias);
        self.mu[k] = row.mu;
        self.mass_n[k] = row.mass_n;
        self.mass_t[k] = row.mass_t;
        self.s2[k] = row.mass_n / row.mass_t;
        self.body_a[k] = row.body_a;
        self.body_b[k] = row.body_b;
    }
}

/// Per-lane dot product.
#[inline(always)]
pub(crate) fn dot(a: &Lanes3, b: &Lanes3) -> Vec4 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
fn cross(a: &Lanes3, b: &Lanes3) -> Lanes3 {
    [
        a[1] * b[2] - b[1] * a[2],
        a[2] * b[0] - b[2] * a[0],
        a[0] * b[1] - b[0] * a[1],
    ]
}

#[inline(always)]
fn add(a: &Lanes3, b: &Lanes3) -> Lanes3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline(always)]
fn scale(a: &Lanes3, s: Vec4) -> Lanes3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// The velocities of the four lanes' bodies a and b (zero for walls and padding), with their
/// inverse mass and inertia (the lanes' M⁻¹, zero for walls, padding and bodies contacts cannot
/// move).
#[derive(Clone, Copy, Debug, Default)]
pub struct PackVelocities {
    /// Linear velocity of a.
    pub va: Lanes3,
    /// Angular velocity of a.
    pub wa: Lanes3,
    /// Linear velocity of b.
    pub vb: Lanes3,
    /// Angular velocity of b.
    pub wb: Lanes3,
    /// 1/m of a.
    pub inv_mass_a: Vec4,
    /// 1/I of a.
    pub inv_inertia_a: Vec4,
    /// 1/m of b.
    pub inv_mass_b: Vec4,
    /// 1/I of b.
    pub inv_inertia_b: Vec4,
}

/// A body's [`Motion`] as two 4-vectors, (v, 1/m) and (ω, 1/I) (zero for [`NO_BODY`]), loaded
/// straight from the body's memory (its layout is these two rows).
#[inline(always)]
fn motion_rows<'m>(body: u32, read: &impl Fn(usize) -> &'m Motion) -> [Vec4; 2] {
    if body == NO_BODY {
        return [Vec4::ZERO; 2];
    }
    let [v, w]: &[[f32; 4]; 2] = bytemuck::cast_ref(read(body as usize));
    [Vec4::from_array(*v), Vec4::from_array(*w)]
}

/// The 4×4 transpose: four bodies' (x, y, z, w) rows to the lanes' x, y, z and w columns (its own
/// inverse), so that a pack's bodies load and store as whole vectors. On x86-64 it is four
/// unpacks and four moves between registers: written lane by lane, the compiler may build it
/// through the stack, whose overlapping loads stall on the stores just made.
#[inline(always)]
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn transpose(r: [Vec4; 4]) -> [Vec4; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128, _mm_movehl_ps, _mm_movelh_ps, _mm_unpackhi_ps, _mm_unpacklo_ps,
        };
        // SAFETY: SSE is part of every x86-64 CPU.
        unsafe {
            let [a, b, c, d] = r.map(__m128::from);
            let (ab_low, cd_low) = (_mm_unpacklo_ps(a, b), _mm_unpacklo_ps(c, d));
            let (ab_high, cd_high) = (_mm_unpackhi_ps(a, b), _mm_unpackhi_ps(c, d));
            [
                _mm_movelh_ps(ab_low, cd_low),
                _mm_movehl_ps(cd_low, ab_low),
                _mm_movelh_ps(ab_high, cd_high),
                _mm_movehl_ps(cd_high, ab_high),
            ]
            .map(Vec4::from)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    [
        Vec4::new(r[0].x, r[1].x, r[2].x, r[3].x),
        Vec4::new(r[0].y, r[1].y, r[2].y, r[3].y),
        Vec4::new(r[0].z, r[1].z, r[2].z, r[3].z),
        Vec4::new(r[0].w, r[1].w, r[2].w, r[3].w),
    ]
}

/// Lanes x, y and z and lane w of transposed rows.
#[inline(always)]
fn split_lanes(c: [Vec4; 4]) -> (Lanes3, Vec4) {
    ([c[0], c[1], c[2]], c[3])
}

/// One side's velocities kicked by an impulse (linear or angular) `d` of sign `sign`:
/// u ← u ± M⁻¹ d, lane by lane, `inv` the lanes' 1/m or I⁻¹ (isotropic).
#[inline(always)]
fn kick(u: &Lanes3, d: &Lanes3, inv: Vec4, sign: f32) -> Lanes3 {
    let s = Vec4::splat(sign);
    [0, 1, 2].map(|axis| u[axis] + (d[axis] * s) * inv)
}

impl PackVelocities {
    /// Gathers the bodies of `pack` through `read` (a body index → its motion).
    #[inline(always)]
    pub fn gather<'m>(pack: &RowPack, read: impl Fn(usize) -> &'m Motion) -> Self {
        let a = pack.body_a.map(|b| motion_rows(b, &read));
        let b = pack.body_b.map(|b| motion_rows(b, &read));
        let (va, inv_mass_a) = split_lanes(transpose(a.map(|m| m[0])));
        let (wa, inv_inertia_a) = split_lanes(transpose(a.map(|m| m[1])));
        let (vb, inv_mass_b) = split_lanes(transpose(b.map(|m| m[0])));
        let (wb, inv_inertia_b) = split_lanes(transpose(b.map(|m| m[1])));
        PackVelocities {
            va,
            wa,
            vb,
            wb,
            inv_mass_a,
            inv_inertia_a,
            inv_mass_b,
            inv_inertia_b,
        }
    }

    /// The velocities after the lanes' impulses: v ← v + M⁻¹ (P, L) with a receiving
    /// (P, `la`) and b (−P, −`lb`), lane by lane as [`apply_impulse`] does it body by body
    /// (the same bits); in planar mode v_y = 0 and ω ∥ ŷ afterwards.
    #[inline(always)]
    pub fn after_impulse(&self, impulse: &Lanes3, la: &Lanes3, lb: &Lanes3, planar: bool) -> Self {
        let mut out = PackVelocities {
            va: kick(&self.va, impulse, self.inv_mass_a, 1.0),
            wa: kick(&self.wa, la, self.inv_inertia_a, 1.0),
            vb: kick(&self.vb, impulse, self.inv_mass_b, -1.0),
            wb: kick(&self.wb, lb, self.inv_inertia_b, -1.0),
            ..*self
        };
        if planar {
            for (v, w) in [(&mut out.va, &mut out.wa), (&mut out.vb, &mut out.wb)] {
                v[1] = Vec4::ZERO;
                w[0] = Vec4::ZERO;
                w[2] = Vec4::ZERO;
            }
        }
        out
    }

    /// What a gather would read of the angular velocities after [`Self::scatter`] of these
    /// velocities, `before` being those gathered before them: these for the lanes' bodies that
    /// contacts can move (the ones scatter writes), `before`'s for the others (walls, padding,
    /// fixed and kinematic bodies), bit for bit, without the write and the read: what the moment
    /// rows read ([`crate::rolling::update_moment_pack`]). The linear velocities stay these:
    /// [`Self::after_moment`] and [`Self::scatter`] read them only for the bodies the scatter
    /// writes.
    #[inline(always)]
    pub fn spin_as_stored(&self, before: &PackVelocities) -> Self {
        let pick = |moves: glam::BVec4A, now: &Lanes3, then: &Lanes3| -> Lanes3 {
            [0, 1, 2].map(|axis| Vec4::select(moves, now[axis], then[axis]))
        };
        PackVelocities {
            wa: pick(self.inv_mass_a.cmpgt(Vec4::ZERO), &self.wa, &before.wa),
            wb: pick(self.inv_mass_b.cmpgt(Vec4::ZERO), &self.wb, &before.wb),
            ..*self
        }
    }

    /// The velocities after moment impulses `moment` alone (a gets +L, b gets −L),
    /// ω ← ω ± I⁻¹ L: for every body [`Self::scatter`] writes, [`Self::after_impulse`] with no
    /// linear impulse, bit for bit, from velocities a sliding update left (planar ones already
    /// masked). The linear velocities skip what adds nothing: b's v + (−0)·(1/m) is v itself,
    /// a's v + (+0)·(1/m) is v + 0 (which turns −0 into +0).
    #[inline(always)]
    pub fn after_moment(&self, moment: &Lanes3, planar: bool) -> Self {
        let mut out = PackVelocities {
            va: self.va.map(|v| v + Vec4::ZERO),
            wa: kick(&self.wa, moment, self.inv_inertia_a, 1.0),
            wb: kick(&self.wb, moment, self.inv_inertia_b, -1.0),
            ..*self
        };
        if planar {
            for w in [&mut out.wa, &mut out.wb] {
                w[0] = Vec4::ZERO;
                w[2] = Vec4::ZERO;
            }
        }
        out
    }

    /// Writes the lanes' bodies back through `write` (a body index and its motion), only the
    /// bodies contacts can move (1/m > 0), each once per lane it holds.
    #[inline(always)]
    pub fn scatter(&self, pack: &RowPack, mut write: impl FnMut(usize, Motion)) {
        let rows = |v: &Lanes3, last: Vec4| transpose([v[0], v[1], v[2], last]);
        let (va, wa) = (
            rows(&self.va, self.inv_mass_a),
            rows(&self.wa, self.inv_inertia_a),
        );
        let (vb, wb) = (
            rows(&self.vb, self.inv_mass_b),
            rows(&self.wb, self.inv_inertia_b),
        );
        for k in 0..4 {
            for (body, v, w) in [
                (pack.body_a[k], va[k], wa[k]),
                (pack.body_b[k], vb[k], wb[k]),
            ] {
                if body != NO_BODY && v.w > 0.0 {
                    let motion: Motion = bytemuck::cast([v.to_array(), w.to_array()]);
                    write(body as usize, motion);
                }
            }
        }
    }
}

/// The four lanes' relative velocities u = Dᵀv + bias = (u_n, u_t1, u_t2) (anitescu-2006 eq.
/// 5.5's constraint argument, with the row's Φ/h and wall terms in the bias).
#[inline(always)]
pub fn relative_velocity(pack: &RowPack, vel: &PackVelocities) -> Lanes3 {
    let at_a = add(&vel.va, &cross(&vel.wa, &pack.ra));
    let at_b = add(&vel.vb, &cross(&vel.wb, &pack.rb));
    let vr = [at_a[0] - at_b[0], at_a[1] - at_b[1], at_a[2] - at_b[2]];
    [
        dot(&vr, &pack.n) + pack.bias[0],
        dot(&vr, &pack.t1) + pack.bias[1],
        dot(&vr, &pack.t2) + pack.bias[2],
    ]
}

/// One projected update of four contacts: u = Dᵀv + bias, γ⁺ = Π_K(γ − ω W⁻¹ u) projected in
/// W's metric (W = diag(Dᵀ M⁻¹ D), with the compliant term ε γn when soft); returns the impulse
/// change D Δγ acting on a (b receives its negative) and the residual
/// max(w_n |Δγn|, w_t |Δγt1|, w_t |Δγt2|) / ω in m/s (zero in padding lanes): the projected
/// gradient W (γ − γ⁺) / ω, the CCP's optimality residual in velocity units, whatever ω is
/// (zero exactly when γ solves the contact's local problem with the others held).
#[inline(always)]
pub fn update_pack(
    pack: &RowPack,
    gamma: &mut Lanes3,
    vel: &PackVelocities,
    p: &SweepParams,
) -> (Lanes3, Vec4) {
    let [un, u1, u2] = relative_velocity(pack, vel);
    let omega = Vec4::splat(p.omega);
    let gn = gamma[0] - omega * bounded_spring_step(pack.mass_n, un, gamma[0], p);
    let g1 = gamma[1] - omega * pack.mass_t * u1;
    let g2 = gamma[2] - omega * pack.mass_t * u2;
    let [n, t1, t2] = project_cone_scaled4(gn, g1, g2, pack.mu, pack.s2);
    let d = [n - gamma[0], t1 - gamma[1], t2 - gamma[2]];
    *gamma = [n, t1, t2];
    let residual = (d[0].abs() / pack.mass_n).max(d[1].abs().max(d[2].abs()) / pack.mass_t) / omega;
    let active = glam::BVec4A::from_array(pack.body_a.map(|a| a != NO_BODY));
    let impulse = pack_impulse(pack, &d);
    (impulse, Vec4::select(active, residual, Vec4::ZERO))
}

/// The normal row's local step Δγn (before ω) of a compliant contact whose spring gives at most
/// δ in the step: u_n + Φ/h + min(ε γn, δ/h) ≥ 0 (u_n here includes the bias Φ/h), with
/// ε = softness / mass_n. Its residual min(u_n + ε γn, u_n + δ/h) is the smaller of the spring's
/// and the rigid row's, both increasing in γn, so the exact local root is the larger of theirs:
/// γn − min(mass_n (u_n + ε γn), (u_n + δ/h) / w_n) with 1/w_n = mass_n (1 + ε/w_n). Below the
/// bound it is the plain implicit spring, bit for bit; for rigid rows (ε = 0) it is mass_n u_n.
#[inline(always)]
fn bounded_spring_step(mass_n: Vec4, un: Vec4, gn: Vec4, p: &SweepParams) -> Vec4 {
    let spring = mass_n * un + Vec4::splat(p.softness) * gn;
    let rigid = (un + Vec4::splat(p.give_speed)) * (mass_n * Vec4::splat(p.rigid_scale));
    spring.min(rigid)
}

/// World-space impulse vectors D γ of the four lanes for impulses `g` (acting on a).
#[inline(always)]
pub fn pack_impulse(pack: &RowPack, g: &Lanes3) -> Lanes3 {
    add(
        &add(&scale(&pack.n, g[0]), &scale(&pack.t1, g[1])),
        &scale(&pack.t2, g[2]),
    )
}

/// The moment arms' torques r × P of an impulse for bodies a and b of every lane.
#[inline(always)]
pub fn impulse_moments(pack: &RowPack, impulse: &Lanes3) -> (Lanes3, Lanes3) {
    (cross(&pack.ra, impulse), cross(&pack.rb, impulse))
}

/// v ← v + M⁻¹ (P, L): one body's share of an impulse P with moment L about its centre.
#[inline(always)]
pub fn apply_impulse(m: &mut Motion, p: Vec3, l: Vec3, planar: bool) {
    m.linear = (m.v() + p * m.inv_mass).to_array();
    m.angular = (m.w() + l * m.inv_inertia).to_array();
    if planar {
        planar_mask(m);
    }
}

/// Lane `k` of a lane vector.
#[inline(always)]
pub fn lane(v: &Lanes3, k: usize) -> Vec3 {
    Vec3::new(v[0][k], v[1][k], v[2][k])
}

/// World-space impulse vector D γ of one contact row (acting on a).
#[inline(always)]
pub fn impulse_vector(row: &ContactRow, g: [f32; 4]) -> Vec3 {
    Vec3::from_array(row.n) * g[0]
        + Vec3::from_array(row.t1) * g[1]
        + Vec3::from_array(row.t2) * g[2]
}

/// World-space vectors γ₀ n + γ₁ t1 + γ₂ t2 of per-contact components `gamma` (impulses, or
/// the moment impulses of [`crate::rolling`]) in the rows' frames, into `out`.
pub fn impulse_vectors(rows: &[ContactRow], gamma: &[[f32; 4]], out: &mut Vec<[f32; 4]>) {
    out.resize(rows.len(), [0.0; 4]);
    out.par_iter_mut()
        .zip(rows.par_iter().zip(gamma.par_iter()))
        .with_min_len(BLOCK)
        .for_each(|(o, (row, g))| *o = impulse_vector(row, *g).extend(0.0).to_array());
}
