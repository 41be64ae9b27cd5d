//! Stage 4, impact (only when some material pair restitutes): the Poisson impact of the anitescu
//! slides ("Impact Model"), run before the step's CCP.
//!
//! The colliding contacts C are those whose CCP row the free velocity v* = v⁻ + h M⁻¹ f
//! violates, u_n(v*) = n·v*_rel + Φ/h − n·v_wall < 0: the linearised Φ(q + h v*) < 0 of the
//! slides' collision detection. On C, from the velocities v⁻ the step started with (a collision
//! takes no time, so neither forces nor Φ/h enter), two cone complementarity problems follow:
//!
//! ```text
//! compression    v^c = v⁻ + M⁻¹ D γ_c,                      0 ≤ γ_c,n ⊥ n·v^c_rel − n·v_wall ≥ 0
//! decompression  v⁺  = v^c + M⁻¹ Σ_j e_j n_j γ_c,n,j + M⁻¹ D γ_x,  0 ≤ γ_x,n ⊥ n·v⁺_rel − n·v_wall ≥ 0
//! ```
//!
//! with γ_c, γ_x in the friction cones: Poisson's hypothesis restitutes the share e_j of each
//! contact's normal compression impulse, and the extra impulse γ_x keeps the decompressed
//! velocities from closing any contact of C. The step's CCP then starts from v⁺ + h M⁻¹ f.

use crate::contact_update::{relative_velocity, PackVelocities, RowPack};
use crate::layout::{key_wall, pair_materials, Bodies, ContactRow, FrictionTable, Wall, NO_BODY};
use crate::narrow_phase::Contacts;
use glam::Vec3;

/// The colliding contacts of a step and their impulses, kept between steps.
#[derive(Default)]
pub struct Impacts {
    /// Rows of the colliding contacts, with the impact's normal bias −n·v_wall (no Φ/h).
    pub rows: Vec<ContactRow>,
    /// Restitution coefficient e of each colliding contact.
    pub restitution: Vec<f32>,
    /// Impulses (γn, γt1, γt2) of each colliding contact.
    pub gamma: Vec<[f32; 4]>,
}

impl Impacts {
    /// Collects the colliding contacts C of `contacts` at the free velocities of `bodies`
    /// (u_n(v*) < 0), with their pair's restitution; returns whether one of them restitutes.
    pub fn select(
        &mut self,
        contacts: &Contacts,
        bodies: &Bodies,
        walls: &[Wall],
        table: &FrictionTable,
    ) -> bool {
        self.rows.clear();
        self.restitution.clear();
        for (rows, keys) in contacts.rows.chunks(4).zip(contacts.keys.chunks(4)) {
            let mut pack = RowPack::default();
            for (k, row) in rows.iter().enumerate() {
                pack.set_lane(k, row);
            }
            let vel = PackVelocities::gather(&pack, |i| &bodies.motion[i]);
            let [un, _, _] = relative_velocity(&pack, &vel);
            for (k, (row, &key)) in rows.iter().zip(keys).enumerate() {
                if un[k] >= 0.0 {
                    continue;
                }
                let (material_a, material_b) = pair_materials(row, key, bodies, walls);
                let wall_velocity = if row.body_b == NO_BODY {
                    glam::Vec4::from_array(walls[key_wall(key)].velocity).truncate()
                } else {
                    Vec3::ZERO
                };
                let mut impact = *row;
                impact.bias[0] = -row.normal().dot(wall_velocity);
                self.rows.push(impact);
                self.restitution
                    .push(table.restitution(material_a, material_b));
            }
        }
        self.gamma.clear();
        self.gamma.resize(self.rows.len(), [0.0; 4]);
        self.restitution.iter().any(|&e| e > 0.0)
    }

    /// Poisson's hypothesis: replaces each contact's compression impulse γ_c by the impulse its
    /// decompression restitutes, (e γ_c,n, 0, 0).
    pub fn restitute(&mut self) {
        for (g, &e) in self.gamma.iter_mut().zip(&self.restitution) {
            *g = [e * g[0], 0.0, 0.0, 0.0];
        }
    }
}
