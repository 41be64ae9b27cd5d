//! Stages 5–6, prepare and solve (Gauss–Seidel): four contact rows whose arms lie along the
//! normal, in 240 bytes instead of a [`RowPack`]'s 384. A sphere's contact point with a sphere
//! or a plane is r_a = −ρ_a n from its centre (ρ_a its radius; on a wall's side r_b = 0), and
//! its tangents are `tangent_frame(n)`'s, so the pack keeps n, the arms' lengths ρ and the
//! tangent frame's one quotient a = −1/(sign n_z + n_z), and the sweep rebuilds
//! t₁ = (1 + sign n_x² a, sign n_x n_y a, −sign n_x), t₂ = (n_x n_y a, sign + n_y² a, −n_y),
//! r_a = ρ_a n and r_b = ρ_b n with the narrow phase's own operations, so bit for bit. A pack
//! is kept compact only when that rebuild gives back its rows exactly ([`SpherePack::of`]);
//! the sweep then reads 60 bytes a contact instead of 96 (the solve of a large bed is bound by
//! that stream).

use crate::contact_update::{Lanes3, RowPack};
use crate::layout::NO_BODY;
use bytemuck::{Pod, Zeroable};
use glam::Vec4;

/// Four contact rows with arms along their normals, in structure-of-arrays form.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SpherePack {
    /// Normals.
    pub n: Lanes3,
    /// Biases (normal, t1, t2).
    pub bias: Lanes3,
    /// The tangent frame's quotient a = −1/(sign n_z + n_z).
    pub frame: Vec4,
    /// ρ_a: the arm from a's centre is ρ_a n.
    pub arm_a: Vec4,
    /// ρ_b: the arm from b's centre is ρ_b n (0 against a wall).
    pub arm_b: Vec4,
    /// Friction coefficients.
    pub mu: Vec4,
    /// 1 / W_nn.
    pub mass_n: Vec4,
    /// 1 / W_tt.
    pub mass_t: Vec4,
    /// s² = `mass_n / mass_t`.
    pub s2: Vec4,
    /// Bodies a ([`NO_BODY`] in padding lanes).
    pub body_a: [u32; 4],
    /// Bodies b ([`NO_BODY`] for walls and padding).
    pub body_b: [u32; 4],
}

impl Default for SpherePack {
    fn default() -> Self {
        SpherePack {
            mass_t: Vec4::ONE,
            body_a: [NO_BODY; 4],
            body_b: [NO_BODY; 4],
            ..Zeroable::zeroed()
        }
    }
}

impl SpherePack {
    /// The compact form of `full` with arm lengths `radii` = (−ρ_a, ρ_b) candidates per lane
    /// (ρ_b = 0 where b is a wall or padding), if it rebuilds `full` bit for bit.
    #[inline(always)]
    pub fn of(full: &RowPack, [arm_a, arm_b]: [Vec4; 2]) -> Option<Self> {
        let [_, _, z] = full.n;
        let sign = Vec4::ONE.copysign(z);
        let compact = SpherePack {
            n: full.n,
            bias: full.bias,
            frame: -Vec4::ONE / (sign + z),
            arm_a,
            arm_b,
            mu: full.mu,
            mass_n: full.mass_n,
            mass_t: full.mass_t,
            s2: full.s2,
            body_a: full.body_a,
            body_b: full.body_b,
        };
        let rebuilt = compact.expand();
        // Padding lanes (no body a) act on nothing whatever their frame. On a wall's side (no
        // body b) the arm r_b meets only zero velocities and moves nothing: the stored one is
        // zero, and 0 n may differ from it in the sign of a zero.
        let real = full.body_a.map(|a| a != NO_BODY);
        let two_bodies = std::array::from_fn(|k| real[k] && full.body_b[k] != NO_BODY);
        let walls_zero = (0..4).all(|k| two_bodies[k] || full.rb.iter().all(|r| r[k] == 0.0));
        let same = same_bits(real, &full.t1, &rebuilt.t1)
            && same_bits(real, &full.t2, &rebuilt.t2)
            && same_bits(real, &full.ra, &rebuilt.ra)
            && same_bits(two_bodies, &full.rb, &rebuilt.rb)
            && walls_zero;
        same.then_some(compact)
    }

    /// The pack's rows in full: tangents and arms rebuilt as `tangent_frame` and the narrow
    /// phase build them (see the module's header).
    #[inline(always)]
    pub fn expand(&self) -> RowPack {
        let [x, y, z] = self.n;
        let sign = Vec4::ONE.copysign(z);
        let a = self.frame;
        let b = x * y * a;
        let along = |s: Vec4| [s * x, s * y, s * z];
        RowPack {
            n: self.n,
            t1: [Vec4::ONE + sign * x * x * a, sign * b, -sign * x],
            t2: [b, sign + y * y * a, -y],
            ra: along(self.arm_a),
            rb: along(self.arm_b),
            bias: self.bias,
            mu: self.mu,
            mass_n: self.mass_n,
            mass_t: self.mass_t,
            s2: self.s2,
            body_a: self.body_a,
            body_b: self.body_b,
        }
    }
}

/// Whether lane vectors `a` and `b` hold the same bits in the lanes of `mask` (a float
/// comparison would take −0 for 0), compared as integers four lanes at once.
#[inline(always)]
fn same_bits(mask: [bool; 4], a: &Lanes3, b: &Lanes3) -> bool {
    let mask = mask.map(|m| if m { u32::MAX } else { 0 });
    let differ = a.iter().zip(b).fold([0u32; 4], |acc, (a, b)| {
        let (a, b): ([u32; 4], [u32; 4]) = (bytemuck::cast(*a), bytemuck::cast(*b));
        std::array::from_fn(|k| acc[k] | (a[k] ^ b[k]))
    });
    (0..4).all(|k| differ[k] & mask[k] == 0)
}
