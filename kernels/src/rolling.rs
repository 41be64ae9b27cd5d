//! Spinning and rolling friction (only when some material pair has either): moment impulses as
//! extra cones of each contact in the same CCP sweeps; their rows are built in stage 3 (narrow
//! phase), warm-started in stage 5 (prepare) and relaxed in stage 6 (solve).
//!
//! At a contact with normal n (b → a) and tangents t1, t2 the relative angular velocity
//! ω_a − ω_b splits into a spin u_s = n·(ω_a − ω_b) and a rolling part
//! u_r = (t1·(ω_a − ω_b), t2·(ω_a − ω_b)). The contact transmits a moment impulse
//! γ_s n + γ_r1 t1 + γ_r2 t2 (on a; b receives its negative) within bounds set by its impulses
//! (γn, γ_t) of the sliding cone:
//!
//! ```text
//! spinning  |γ_s| ≤ e_r ((μ γn)² − ‖γ_t‖²)^½   the friction ellipsoid of trinkle eq. 1 and
//!                                              chakraborty eq. 5, ‖γ_t‖² + (γ_s/e_r)² ≤ (μ γn)²,
//!                                              with the sliding friction served first
//! rolling   ‖γ_r‖ ≤ e_roll γn                   rolling resistance
//! ```
//!
//! e_r and e_roll are lengths. The spin bound is μ e_r γn at a contact without sliding friction
//! (trinkle's sphere spinning in place) and 0 at a contact whose friction is on the cone: the
//! papers' maximal dissipation on the ellipsoid would share the budget in the ratio of slip to
//! e_r² × spin, which at a sliding contact gives the spin a few per cent of it.
//!
//! Both solvers update a contact's moments right after its sliding update, with the same
//! projected step γ ← Π(γ − ω w_m⁻¹ u) in the metric of the moment rows' diagonal
//! w_m = 1/I_a + 1/I_b (isotropic, so the projection is the Euclidean one: a clamp for the spin,
//! a disk for the rolling moment). For a body with the full inertia tensor
//! ([`crate::inertia`]) the rows' block (n, t1, t2)ᵀ I_w⁻¹ (n, t1, t2) is not a multiple of the
//! identity; its share of w_m is then the block's largest eigenvalue 1/I_min (the smallest
//! principal moment), so the scalar step still bounds the block and the projection stays
//! Euclidean. A scalar step changes how fast the iteration gets there, not where: γ = Π(γ − s u)
//! for any s > 0 is the same variational inequality. The impulses turn such a body by I_w⁻¹ L. The bounds take the contact's (γn, γ_t) as they stand after
//! its sliding update, so the moment rows feed nothing back into the normal rows: unlike the
//! sliding cone of the relaxation they add no normal velocity. The data live in their own
//! arrays indexed like the contact rows ([`Moments`]) and like the solver's packs
//! ([`MomentPacks`]); nothing here runs when no pair has either friction. The GPU backend does the
//! same in projected Jacobi's order (its `rolling.wgsl`).

use crate::contact_update::{dot, pack_impulse, Lanes3, PackVelocities, RowPack};
use crate::inertia::PrincipalInertia;
use crate::layout::{pair_materials, Bodies, FrictionTable, Wall, NO_BODY};
use crate::narrow_phase::Contacts;
use crate::packing::{pack_lanes, unpack_lanes, PADDING};
use crate::parallel::BLOCK;
use glam::{Vec3, Vec4};
use rayon::prelude::*;

/// One contact's constants of the moment rows for a step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MomentRow {
    /// Spinning length e_r (m).
    pub spin: f32,
    /// Rolling bound per unit normal impulse, e_roll (m).
    pub roll: f32,
    /// 1 / w_m, w_m = 1/I_a + 1/I_b: the inverse of the moment rows' diagonal entry of
    /// Dᵀ M⁻¹ D (kg m²); 1/I_min for a body with principal moments (the module's bound).
    pub mass: f32,
    /// w_m |r_a|: turns a moment-impulse change into the speed change it makes at the contact
    /// point, for the residual (m/(kg m²)).
    pub reach: f32,
}

/// The moment rows of a step's contacts and their impulses (γ_s, γ_r1, γ_r2, 0), both in the
/// contacts' order.
#[derive(Default)]
pub struct Moments {
    /// Constants of each contact.
    pub rows: Vec<MomentRow>,
    /// Moment impulses of each contact (N m s).
    pub gamma: Vec<[f32; 4]>,
}

impl Moments {
    /// Builds the moment rows of `contacts`: the pair's bounds from `table`, the diagonal from
    /// the bodies' inverse inertias, 1/I_min for those with principal moments in `inertia`
    /// (walls and bodies contacts cannot turn add nothing).
    pub fn build(
        &mut self,
        contacts: &Contacts,
        (bodies, inertia): (&Bodies, &PrincipalInertia),
        walls: &[Wall],
        table: &FrictionTable,
    ) {
        self.rows.resize(contacts.len(), MomentRow::default());
        self.gamma.resize(contacts.len(), [0.0; 4]);
        self.rows
            .par_iter_mut()
            .zip(contacts.rows.par_iter().zip(contacts.keys.par_iter()))
            .with_min_len(BLOCK)
            .for_each(|(out, (row, &key))| {
                let (ma, mb) = pair_materials(row, key, bodies, walls);
                let turn = |b: u32| match b {
                    NO_BODY => 0.0,
                    b => inertia
                        .of(b as usize)
                        .map_or(bodies.motion[b as usize].inv_inertia, |moments| {
                            1.0 / moments.min_element()
                        }),
                };
                let w = turn(row.body_a) + turn(row.body_b);
                *out = MomentRow {
                    spin: table.spinning(ma, mb),
                    roll: table.rolling(ma, mb),
                    mass: if w > 0.0 { 1.0 / w } else { 0.0 },
                    reach: w * Vec3::from_array(row.ra).length(),
                };
            });
    }
}

/// Four contacts' moment constants, lane by lane like a [`RowPack`] (zero in padding lanes).
#[derive(Clone, Copy, Debug, Default)]
pub struct MomentPack {
    /// e_r.
    pub spin: Vec4,
    /// e_roll.
    pub roll: Vec4,
    /// 1 / w_m.
    pub mass: Vec4,
    /// w_m |r_a|.
    pub reach: Vec4,
}

/// The moment rows in the solver's packs: pack p here belongs to pack p of the
/// [`crate::packing::Packs`] it was built from, lane for lane.
#[derive(Default)]
pub struct MomentPacks {
    /// Constants of each pack.
    pub rows: Vec<MomentPack>,
    /// Moment impulses (γ_s, γ_r1, γ_r2) of each pack.
    pub gamma: Vec<Lanes3>,
    /// Projected Jacobi's scratch: each lane's moment-impulse change (world vector, on a) of
    /// the sweep, for the per-body gather; indexed like the packs' lanes.
    pub impulse: Vec<[f32; 4]>,
}

impl MomentPacks {
    /// Packs `moments` into the lanes of the solver's packs (`lanes`: contact of lane k of pack
    /// p at `4 p + k`, [`PADDING`] for none).
    pub fn build(&mut self, moments: &Moments, lanes: &[u32]) {
        let packs = lanes.len() / 4;
        self.rows.resize(packs, MomentPack::default());
        self.gamma.resize(packs, [Vec4::ZERO; 3]);
        self.rows
            .par_iter_mut()
            .zip(self.gamma.par_iter_mut())
            .enumerate()
            .with_min_len(BLOCK / 4)
            .for_each(|(p, (pack, g))| {
                *pack = MomentPack::default();
                for (k, &c) in lanes[4 * p..4 * p + 4].iter().enumerate() {
                    if c != PADDING {
                        let m = &moments.rows[c as usize];
                        pack.spin[k] = m.spin;
                        pack.roll[k] = m.roll;
                        pack.mass[k] = m.mass;
                        pack.reach[k] = m.reach;
                    }
                }
                *g = pack_lanes(lanes, p, &moments.gamma);
            });
    }

    /// Copies the packed moment impulses back to contact order.
    pub fn unpack_gamma(&self, lanes: &[u32], gamma: &mut [[f32; 4]]) {
        unpack_lanes(lanes, &self.gamma, gamma);
    }
}

/// The four lanes' relative angular velocities about (n, t1, t2): (u_s, u_r1, u_r2) (rad/s).
#[inline(always)]
pub fn relative_spin_and_roll(pack: &RowPack, vel: &PackVelocities) -> Lanes3 {
    let w = [
        vel.wa[0] - vel.wb[0],
        vel.wa[1] - vel.wb[1],
        vel.wa[2] - vel.wb[2],
    ];
    [dot(&w, &pack.n), dot(&w, &pack.t1), dot(&w, &pack.t2)]
}

/// Projects moment impulses onto the spinning and rolling cones of the lanes' impulses `slide`
/// (γn, γt1, γt2) with friction `mu`: γ_s clamped to ±e_r ((μ γn)² − ‖γ_t‖²)^½, the spin axis
/// of the friction ellipsoid left by the sliding friction, (γ_r1, γ_r2) scaled onto the disk of
/// radius e_roll γn.
#[inline(always)]
pub fn project_moment_cones(g: Lanes3, m: &MomentPack, slide: &Lanes3, mu: Vec4) -> Lanes3 {
    let [gn, t1, t2] = *slide;
    let left = (mu * mu * gn * gn - t1 * t1 - t2 * t2).max(Vec4::ZERO);
    let spin = m.spin * Vec4::from_array(left.to_array().map(f32::sqrt));
    let roll = m.roll * gn;
    let norm = Vec4::from_array((g[1] * g[1] + g[2] * g[2]).to_array().map(f32::sqrt));
    let scale = Vec4::select(norm.cmple(roll), Vec4::ONE, roll / norm);
    [g[0].max(-spin).min(spin), g[1] * scale, g[2] * scale]
}

/// One projected update of four contacts' moment rows after their sliding update:
/// γ_m⁺ = Π(γ_m − ω w_m⁻¹ u_m) with u_m = (n, t1, t2)ᵀ(ω_a − ω_b) and Π onto the cones left by
/// the lanes' impulses `slide` = (γn, γt1, γt2). Returns the moment-impulse change Δγ_s n + Δγ_r1 t1 + Δγ_r2 t2
/// acting on a (b receives its negative) and the residual w_m |r_a| max|Δγ_m| / ω in m/s.
#[inline(always)]
pub fn update_moment_pack(
    pack: &RowPack,
    m: &MomentPack,
    gamma: &mut Lanes3,
    slide: &Lanes3,
    vel: &PackVelocities,
    omega: f32,
) -> (Lanes3, Vec4) {
    let u = relative_spin_and_roll(pack, vel);
    let step = Vec4::splat(omega) * m.mass;
    let trial = [
        gamma[0] - step * u[0],
        gamma[1] - step * u[1],
        gamma[2] - step * u[2],
    ];
    let next = project_moment_cones(trial, m, slide, pack.mu);
    let d = [next[0] - gamma[0], next[1] - gamma[1], next[2] - gamma[2]];
    *gamma = next;
    let residual = d[0].abs().max(d[1].abs()).max(d[2].abs()) * m.reach / omega;
    (pack_impulse(pack, &d), residual)
}
