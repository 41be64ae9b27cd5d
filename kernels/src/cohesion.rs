//! Stage 5, prepare (only when some material pair coheres): the pull of cohesive contacts, a
//! known impulse applied before the solve.
//!
//! A touching contact (gap Φ ≤ [`TOUCHING`] times the smaller radius) of a cohesive pair may
//! carry a normal force down to −c, the pair's pull-off force: the constant c of its materials
//! plus, for spheres, the JKR pull-off of their work of adhesion w and reduced radius
//! R* = r_a r_b / (r_a + r_b) (R* = r_a against a wall, any wall counting as flat),
//!
//! ```text
//! c = c_const + (3/2) π w R*        (Johnson, Kendall & Roberts 1971)
//! ```
//!
//! In a step of length h the contact's normal impulse γn may fall to −s, s = c h, and its
//! friction cone widens to ‖γ_t‖ ≤ μ (γn + s). With γ′ = γn + s both are the ordinary cone of
//! the CCP, γ′ ≥ 0 ⊥ n·v⁺ + Φ/h ≥ 0 and ‖γ_t‖ ≤ μ γ′, at the free velocity
//!
//! ```text
//! v* ← v* − M⁻¹ Σ_k D_n,k s_k       (the pull of every touching cohesive contact)
//! ```
//!
//! so the solver and its warm start are unchanged (they carry γ′), and the step reports the
//! physical impulse γn = γ′ − s ([`Cohesion::report`]): negative where the contact holds in
//! tension. The pull acts only on touching contacts, never across the envelope's gap: a contact
//! torn open (Φ > tolerance) pulls nothing, so grains stick only where they touch, and a grain
//! loaded by more than c leaves.
//!
//! A pair whose wetter material carries a liquid bridge of volume V, surface tension γ_l and
//! contact angle θ also pulls across its gap S = max(Φ, 0) up to the rupture distance
//! S_c = (1 + θ/2) V^⅓ (Lian, Thornton & Adams 1993), by the closed form of Willett, Adams,
//! Johnson & Seville (2000) for spheres of harmonic-mean radius R = 2 r_a r_b / (r_a + r_b)
//! (R = 2 r_a against a wall, the sphere–plate limit):
//!
//! ```text
//! F = 2π R γ_l cos θ / (1 + 2.1 Ŝ + 10 Ŝ²),    Ŝ = (S/2) √(R/V),    S < S_c
//! ```
//!
//! added to s as F h: across a gap the contact's γ′ stays 0 (it is apart), so it reports the
//! bridge's tension −F h. A bridge has a history (the hysteresis of a real one): it forms when
//! the grains touch and stands, pulling, until their gap reaches S_c; grains that approach
//! each other dry feel nothing until they touch. Which contacts' bridges stand is kept with
//! the warm start ([`crate::warm_start::ImpulseCache::mark_bridges`]), so it survives a
//! checkpoint and the renumbering of grains that come and go. In a step that follows no step
//! with contacts (the first, or the first after the warm start was forgotten) a bridge stands on
//! every pair within S_c: a freshly wetted packing. (A pair cannot get a contact row inside S_c
//! without having had one the step before: ε̂ reaches S_c plus the pair's travel in a step.)

use crate::contact_update::apply_impulse;
use crate::inertia::PrincipalInertia;
use crate::layout::{key_wall, pair_materials, Bodies, ContactRow, FrictionTable, Wall, NO_BODY};
use crate::mesh::MeshWalls;
use crate::narrow_phase::Contacts;
use glam::Vec3;
use std::f32::consts::PI;

/// The gap, as a share of the smaller radius of the pair, up to which a contact counts as
/// touching: above the rounding of positions in f32 (a resting contact's Φ is 0 to about 1e-7
/// of its distance from the origin), far below any gap a grain leaves through.
pub const TOUCHING: f32 = 1e-3;

/// Each contact's pull s = c h of the last step (N s; 0 where the pair does not cohere or the
/// contact does not touch) and whether its liquid bridge stands.
#[derive(Default)]
pub struct Cohesion {
    /// s of each contact, in the contacts' order.
    pub pull: Vec<f32>,
    /// Whether each contact's liquid bridge stands, in the contacts' order.
    pub bridge: Vec<bool>,
    /// √(Σ |P_i|² / m_i) / h over the bodies of the pull impulses P_i the last step gave them
    /// (N/√kg): what the health check's energy check lets the pull supply, as it does an
    /// applied force.
    pub push: f64,
    /// Each body's pull impulse of the last step (N s), summed for `push`.
    impulse: Vec<Vec3>,
}

impl Cohesion {
    /// Computes every contact's pull s = c h and applies it to the free velocities of
    /// `bodies`: v ← v − M⁻¹ D_n s, one contact after another (the same bits for any thread
    /// count); anisotropic bodies turn by I_w⁻¹ of `inertia`. `last` is the warm start's
    /// memory of the last step (its keys, ascending, and impulses, whose fourth lane is 1
    /// where the contact's bridge stood).
    pub fn pull(
        &mut self,
        contacts: &Contacts,
        bodies: &mut Bodies,
        (walls, mesh, table): (&[Wall], &MeshWalls, &FrictionTable),
        inertia: &PrincipalInertia,
        (h, planar): (f32, bool),
        (last_keys, last): (&[u64], &[[f32; 4]]),
    ) {
        self.pull.clear();
        self.bridge.clear();
        self.impulse.clear();
        self.impulse.resize(bodies.len(), Vec3::ZERO);
        let fresh = last_keys.is_empty();
        let mut j = 0;
        for (row, &key) in contacts.rows.iter().zip(&contacts.keys) {
            while j < last_keys.len() && last_keys[j] < key {
                j += 1;
            }
            let stood = fresh || (j < last_keys.len() && last_keys[j] == key && last[j][3] == 1.0);
            let (c, bridge) = pull_force(row, key, bodies, (walls, mesh, table), stood);
            let s = c * h;
            self.pull.push(s);
            self.bridge.push(bridge);
            if s == 0.0 {
                continue;
            }
            let n = row.normal();
            let a = row.body_a as usize;
            let (pa, la) = (-s * n, Vec3::from_array(row.ra).cross(-s * n));
            apply_impulse(&mut bodies.motion[a], pa, la, planar);
            inertia.turn(a, &mut bodies.motion[a], la);
            self.impulse[a] += pa;
            if row.body_b != NO_BODY {
                let b = row.body_b as usize;
                let lb = Vec3::from_array(row.rb).cross(s * n);
                apply_impulse(&mut bodies.motion[b], s * n, lb, planar);
                inertia.turn(b, &mut bodies.motion[b], lb);
                self.impulse[b] += s * n;
            }
        }
        let sum: f64 = (self.impulse.iter().zip(&bodies.motion))
            .map(|(p, m)| p.length_squared() as f64 * m.inv_mass as f64)
            .sum();
        self.push = sum.sqrt() / h as f64;
    }

    /// γn ← γ′ − s: the solved impulses `gamma` (γ′, in the contacts' order) as the contacts'
    /// physical impulses, after the warm start has stored γ′.
    pub fn report(&self, gamma: &mut [[f32; 4]]) {
        for (g, &s) in gamma.iter_mut().zip(&self.pull) {
            g[0] -= s;
        }
    }
}

/// The pull (N) of the contact `row` with pair key `key`: where it touches (Φ ≤ [`TOUCHING`] r)
/// the pair's constant force plus (3/2) π w R*, and the liquid bridge's F below its rupture
/// distance where the bridge stands (it `stood` last step, or the grains touch); and whether
/// the bridge stands.
#[inline]
fn pull_force(
    row: &ContactRow,
    key: u64,
    bodies: &Bodies,
    (walls, mesh, table): (&[Wall], &MeshWalls, &FrictionTable),
    stood: bool,
) -> (f32, bool) {
    let ra = bodies.pos_radius[row.body_a as usize].w;
    let (reduced, smaller) = match row.body_b {
        NO_BODY => (ra, ra),
        b => {
            let rb = bodies.pos_radius[b as usize].w;
            (ra * rb / (ra + rb), ra.min(rb))
        }
    };
    // A mesh triangle's material is the triangle's; the other sides' are `pair_materials`'.
    let (material_a, material_b) = match mesh.triangle_of_wall(key_wall(key)) {
        Some(t) if row.body_b == NO_BODY && key_wall(key) >= walls.len() => (
            bodies.material[row.body_a as usize],
            mesh.triangles[t].material(),
        ),
        _ => pair_materials(row, key, bodies, walls),
    };
    let mut pull = 0.0;
    let touching = row.phi <= TOUCHING * smaller;
    if touching {
        let (constant, work) = table.cohesion(material_a, material_b);
        pull += constant + 1.5 * PI * work * reduced;
    }
    let [volume, tension, rupture] = table.bridge(material_a, material_b);
    let bridge = volume > 0.0 && row.phi < rupture && (touching || stood);
    if bridge {
        pull += bridge_force(2.0 * reduced, row.phi.max(0.0), volume, tension);
    }
    (pull, bridge)
}

/// Willett et al.'s capillary force (N) of a bridge of volume `volume` and γ_l cos θ `tension`
/// between spheres of harmonic-mean radius `radius` at gap `gap`:
/// 2π R γ_l cos θ / (1 + 2.1 Ŝ + 10 Ŝ²), Ŝ = (S/2) √(R/V).
#[inline]
pub fn bridge_force(radius: f32, gap: f32, volume: f32, tension: f32) -> f32 {
    let s = 0.5 * gap * (radius / volume).sqrt();
    2.0 * PI * radius * tension / (1.0 + 2.1 * s + 10.0 * s * s)
}
