//! Materials and the friction coefficient of a pair.

use crate::error::BuildError;
use grains_kernels::FrictionTable;

/// Index of a material in its world.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MaterialId(pub u32);

/// A surface material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Coulomb friction coefficient μ (dimensionless, ≥ 0).
    pub friction: f32,
    /// Poisson restitution coefficient e ∈ [0, 1]: the share of a collision's normal
    /// compression impulse given back in decompression (0: perfectly plastic, the papers'
    /// scheme; 1: elastic).
    pub restitution: f32,
    /// Spinning length e_r (m, ≥ 0): the torsional semi-axis of the friction ellipsoid of
    /// trinkle eq. 1 / chakraborty eq. 5, ‖γ_t‖² + (γ_s/e_r)² ≤ (μ γn)², so that the moment about
    /// the contact normal is at most μ e_r γn, less what the sliding friction uses (0: no
    /// spinning friction, the default).
    pub spinning: f32,
    /// Rolling-resistance length e_roll (m, ≥ 0): the moment about the contact's tangents is
    /// at most e_roll γn (0: no rolling friction, the default).
    pub rolling: f32,
    /// Pull-off force c (N, ≥ 0) of each touching contact: its normal force may fall to −c and
    /// its friction bound is μ (F_n + c) (0: no cohesion, the default).
    pub cohesion: f32,
    /// Surface energy γ (J/m², ≥ 0): touching spheres of reduced radius R* pull off at the JKR
    /// force 3π γ R* (work of adhesion w = 2γ; 0: no adhesion, the default).
    pub surface_energy: f32,
    /// The liquid bridge its contacts carry (none by default).
    pub bridge: LiquidBridge,
}

/// A pendular liquid bridge at each contact of a wet material: a capillary pull across the gap
/// up to its rupture distance (see [`grains_kernels::cohesion`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LiquidBridge {
    /// Liquid volume V of one bridge (m³, ≥ 0; 0: dry).
    pub volume: f32,
    /// Surface tension γ of the liquid (N/m, ≥ 0).
    pub surface_tension: f32,
    /// Contact angle θ of the liquid on the solid (rad, in [0, π/2]).
    pub contact_angle: f32,
}

impl Material {
    /// A perfectly plastic material (e = 0) with Coulomb friction coefficient `friction`.
    pub fn new(friction: f32) -> Self {
        Material {
            friction,
            restitution: 0.0,
            spinning: 0.0,
            rolling: 0.0,
            cohesion: 0.0,
            surface_energy: 0.0,
            bridge: LiquidBridge::default(),
        }
    }

    /// The same material with restitution coefficient `e`.
    pub fn with_restitution(self, e: f32) -> Self {
        Material {
            restitution: e,
            ..self
        }
    }

    /// The same material with spinning length `e_r` (m): spinning (torsional) friction whose
    /// moment about the normal is bounded by e_r ((μ γn)² − ‖γ_t‖²)^½ (μ e_r γn without sliding
    /// friction).
    pub fn with_spinning(self, e_r: f32) -> Self {
        Material {
            spinning: e_r,
            ..self
        }
    }

    /// The same material with rolling-resistance length `e_roll` (m): a moment about the
    /// contact's tangents bounded by e_roll γn.
    pub fn with_rolling(self, e_roll: f32) -> Self {
        Material {
            rolling: e_roll,
            ..self
        }
    }

    /// The same material with pull-off force `c` (N) at each touching contact (see
    /// [`Material::cohesion`]).
    pub fn with_cohesion(self, c: f32) -> Self {
        Material {
            cohesion: c,
            ..self
        }
    }

    /// The same material with surface energy `gamma` (J/m²): JKR adhesion between spheres (see
    /// [`Material::surface_energy`]).
    pub fn with_surface_energy(self, gamma: f32) -> Self {
        Material {
            surface_energy: gamma,
            ..self
        }
    }

    /// The same material wetted: a liquid bridge of `volume` V (m³) of a liquid of surface
    /// tension `surface_tension` (N/m) and contact angle `contact_angle` (rad) at each contact
    /// (see [`LiquidBridge`]).
    pub fn with_bridge(self, volume: f32, surface_tension: f32, contact_angle: f32) -> Self {
        Material {
            bridge: LiquidBridge {
                volume,
                surface_tension,
                contact_angle,
            },
            ..self
        }
    }
}

/// Materials and per-pair overrides. Combine rules: a pair's μ is the smaller of the two
/// materials' μ (the smoother surface governs), unless an override names the pair; a pair's e
/// is the smaller of the two materials' e (the more dissipative surface governs); a pair's
/// spinning length e_r and rolling length e_roll are the smaller of the two materials' (the
/// smoother surface governs, as for μ); the spinning bound uses the pair's μ. A pair's pull-off
/// force is the geometric mean √(c_a c_b) of the materials' (none where either has none), and
/// its work of adhesion w = 2 √(γ_a γ_b) of their surface energies (the Berthelot rule; 2γ for
/// one material). A pair carries the liquid bridge of its wetter material (the larger volume;
/// none where both are dry).
#[derive(Clone, Debug, Default)]
pub struct Materials {
    /// The materials, indexed by [`MaterialId`].
    pub list: Vec<Material>,
    /// (a, b, μ): μ of the pair a–b, in either order, replacing the combine rule.
    pub overrides: Vec<(MaterialId, MaterialId, f32)>,
}

impl Materials {
    /// Checks every coefficient and builds the pair table the kernels read.
    pub fn table(&self) -> Result<FrictionTable, BuildError> {
        let bad = |material: usize, mu: f32| BuildError::Material {
            material,
            field: "friction",
            problem: format!("must be finite and ≥ 0, got {mu}"),
        };
        for (i, m) in self.list.iter().enumerate() {
            if !(m.friction.is_finite() && m.friction >= 0.0) {
                return Err(bad(i, m.friction));
            }
            if !(0.0..=1.0).contains(&m.restitution) {
                return Err(BuildError::Material {
                    material: i,
                    field: "restitution",
                    problem: format!("must lie in [0, 1], got {}", m.restitution),
                });
            }
            for (field, length) in [("spinning", m.spinning), ("rolling", m.rolling)] {
                if !(length.is_finite() && length >= 0.0) {
                    return Err(BuildError::Material {
                        material: i,
                        field,
                        problem: format!("must be a finite length ≥ 0 (m), got {length}"),
                    });
                }
            }
            let pulls = [
                ("cohesion", m.cohesion, "force ≥ 0 (N)"),
                ("surface_energy", m.surface_energy, "energy ≥ 0 (J/m²)"),
            ];
            let b = &m.bridge;
            let bridge = [
                ("bridge_volume", b.volume, "volume ≥ 0 (m³)"),
                ("surface_tension", b.surface_tension, "tension ≥ 0 (N/m)"),
            ];
            for (field, value, what) in pulls.into_iter().chain(bridge) {
                if !(value.is_finite() && value >= 0.0) {
                    return Err(BuildError::Material {
                        material: i,
                        field,
                        problem: format!("must be a finite {what}, got {value}"),
                    });
                }
            }
            if !(0.0..=std::f32::consts::FRAC_PI_2).contains(&b.contact_angle) {
                return Err(BuildError::Material {
                    material: i,
                    field: "contact_angle",
                    problem: format!(
                        "must lie in [0, π/2] rad (a liquid that wets the grains), got {}",
                        b.contact_angle
                    ),
                });
            }
        }
        let count = self.list.len().max(1);
        let mut mu = vec![0.0; count * count];
        let mut restitution = vec![0.0; count * count];
        let mut spinning = vec![0.0; count * count];
        let mut rolling = vec![0.0; count * count];
        let mut cohesion = vec![0.0; count * count];
        let mut adhesion = vec![0.0; count * count];
        let mut bridges = vec![[0.0; 3]; count * count];
        for (i, a) in self.list.iter().enumerate() {
            for (j, b) in self.list.iter().enumerate() {
                mu[i * count + j] = a.friction.min(b.friction);
                restitution[i * count + j] = a.restitution.min(b.restitution);
                spinning[i * count + j] = a.spinning.min(b.spinning);
                rolling[i * count + j] = a.rolling.min(b.rolling);
                cohesion[i * count + j] = a.cohesion.sqrt() * b.cohesion.sqrt();
                adhesion[i * count + j] = 2.0 * a.surface_energy.sqrt() * b.surface_energy.sqrt();
                let wetter = if a.bridge.volume >= b.bridge.volume {
                    a
                } else {
                    b
                };
                bridges[i * count + j] = wetter.bridge.pair_law();
            }
        }
        for &(a, b, m) in &self.overrides {
            for id in [a, b] {
                if id.0 as usize >= self.list.len() {
                    return Err(BuildError::Material {
                        material: id.0 as usize,
                        field: "override",
                        problem: format!(
                            "names a material that does not exist ({} defined)",
                            self.list.len()
                        ),
                    });
                }
            }
            if !(m.is_finite() && m >= 0.0) {
                return Err(bad(a.0 as usize, m));
            }
            mu[a.0 as usize * count + b.0 as usize] = m;
            mu[b.0 as usize * count + a.0 as usize] = m;
        }
        Ok(FrictionTable {
            count,
            mu,
            restitution,
            spinning,
            rolling,
            cohesion,
            adhesion,
            bridges,
        })
    }
}

impl LiquidBridge {
    /// The kernels' law of this bridge: (V, γ cos θ, rupture distance S_c), S_c = (1 + θ/2) V^⅓
    /// (Lian, Thornton and Adams 1993); zeros when dry.
    fn pair_law(&self) -> [f32; 3] {
        if self.volume == 0.0 {
            return [0.0; 3];
        }
        let rupture = (1.0 + 0.5 * self.contact_angle) * self.volume.cbrt();
        let pull = self.surface_tension * self.contact_angle.cos();
        [self.volume, pull, rupture]
    }
}
