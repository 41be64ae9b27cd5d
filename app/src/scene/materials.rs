//! `[[materials]]` (named surfaces: friction μ, restitution, spinning and rolling lengths,
//! cohesion, surface energy and liquid bridges) and
//! `[[friction_pairs]]` (μ of a pair of materials). The engine checks the coefficients when
//! the world is built.

use super::origin::{Origin, Origins};
use super::spec::{MaterialSpec, PairSpec, S};
use super::values::{non_negative, number, Ctx};
use super::SceneError;
use grains::material::{Material, MaterialId};
use grains::WorldBuilder;

/// The surface tension of water at 20 °C (N/m): a bridge's liquid where the scene names none.
const WATER_TENSION: f32 = 0.072;

/// The materials' names, in the order of their ids.
pub(super) struct MaterialNames(Vec<String>);

impl MaterialNames {
    /// The names, in the order of the materials' ids.
    pub(super) fn list(&self) -> &[String] {
        &self.0
    }

    /// The id of the material called `name`; none given: the first material.
    pub(super) fn id(&self, cx: &Ctx, name: &Option<S<String>>) -> Result<MaterialId, SceneError> {
        match name {
            None => Ok(MaterialId(0)),
            Some(n) => self
                .0
                .iter()
                .position(|m| m == n.get_ref())
                .map(|i| MaterialId(i as u32))
                .ok_or_else(|| {
                    cx.err(
                        n.span(),
                        "material",
                        format!("no material named \"{}\"", n.get_ref()),
                    )
                }),
        }
    }
}

/// Adds the file's materials (or one default material of μ = 0.5 if it has none) and its
/// friction pairs to `world`.
pub(super) fn materials(
    cx: &Ctx,
    materials: &[MaterialSpec],
    pairs: &[PairSpec],
    world: &mut WorldBuilder,
    origins: &mut Origins,
) -> Result<MaterialNames, SceneError> {
    let mut names = Vec::new();
    for m in materials {
        if names.contains(m.name.get_ref()) {
            return Err(cx.err(m.name.span(), "name", "material defined twice"));
        }
        let mut material = Material::new(number(cx, &m.friction, "friction")?);
        if let Some(e) = &m.restitution {
            material = material.with_restitution(number(cx, e, "restitution")?);
        }
        if let Some(e_r) = &m.spinning {
            material = material.with_spinning(number(cx, e_r, "spinning")?);
        }
        if let Some(e_roll) = &m.rolling {
            material = material.with_rolling(number(cx, e_roll, "rolling")?);
        }
        if let Some(c) = &m.cohesion {
            material = material.with_cohesion(number(cx, c, "cohesion")?);
        }
        if let Some(gamma) = &m.surface_energy {
            material = material.with_surface_energy(number(cx, gamma, "surface_energy")?);
        }
        if let Some(volume) = &m.bridge_volume {
            let tension = match &m.surface_tension {
                Some(t) => number(cx, t, "surface_tension")?,
                None => WATER_TENSION,
            };
            let angle = match &m.contact_angle_degrees {
                Some(a) => number(cx, a, "contact_angle_degrees")?.to_radians(),
                None => 0.0,
            };
            let volume = number(cx, volume, "bridge_volume")?;
            material = material.with_bridge(volume, tension, angle);
        } else if let Some(key) = [&m.surface_tension, &m.contact_angle_degrees]
            .into_iter()
            .flatten()
            .next()
        {
            return Err(cx.err(
                key.span(),
                "bridge_volume",
                "a liquid's surface tension or contact angle needs the bridge's volume (bridge_volume, m³)",
            ));
        }
        world.material(material);
        names.push(m.name.get_ref().clone());
        origins.materials.push(
            Origin::new(cx, m.name.span())
                .key_at(cx, "friction", "friction", Some(m.friction.span()))
                .key(cx, "restitution", "restitution", &m.restitution)
                .key(cx, "spinning", "spinning", &m.spinning)
                .key(cx, "rolling", "rolling", &m.rolling)
                .key(cx, "cohesion", "cohesion", &m.cohesion)
                .key(cx, "surface_energy", "surface_energy", &m.surface_energy)
                .key(cx, "bridge_volume", "bridge_volume", &m.bridge_volume)
                .key(cx, "surface_tension", "surface_tension", &m.surface_tension)
                .key(
                    cx,
                    "contact_angle",
                    "contact_angle_degrees",
                    &m.contact_angle_degrees,
                ),
        );
    }
    if names.is_empty() {
        world.material(Material::new(0.5));
        names.push("default".to_string());
        origins.materials.push(Origin::unwritten());
    }
    let names = MaterialNames(names);
    for p in pairs {
        // The engine names a bad pair μ by one of its materials, not by the pair: checked here.
        world.pair_friction(
            names.id(cx, &Some(p.a.clone()))?,
            names.id(cx, &Some(p.b.clone()))?,
            non_negative(cx, &p.friction, "friction")?,
        );
    }
    Ok(names)
}
