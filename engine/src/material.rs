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
}

impl Material {
    /// A material with Coulomb friction coefficient `friction`.
    pub fn new(friction: f32) -> Self {
        Material { friction }
    }
}

/// Materials and per-pair overrides. Combine rule: a pair's μ is the smaller of the two
/// materials' μ (the smoother surface governs), unless an override names the pair.
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
        }
        let count = self.list.len().max(1);
        let mut mu = vec![0.0; count * count];
        for i in 0..self.list.len() {
            for j in 0..self.list.len() {
                mu[i * count + j] = self.list[i].friction.min(self.list[j].friction);
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
        Ok(FrictionTable { count, mu })
    }
}
