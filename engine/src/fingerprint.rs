//! The physics fingerprint of a world: everything fixed at build that changes the physics, as
//! named items, so that a checkpoint restored into a world built differently is refused with
//! the names of what changed.

use crate::body::Body;
use crate::geometry::WallDesc;
use crate::insertion::Insertion;
use crate::joint::{AppliedForce, JointDesc, SpringDesc};
use crate::material::Materials;
use crate::motion::Prescribed;
use crate::settings::{Envelope, Settings};
use crate::sink::Sink;
use glam::Vec3;

/// A value text longer than this is stored as a hash (`#` and eight hex digits).
const MAX_VALUE_CHARS: usize = 64;

/// Named items (name → short value text, or `#` and a hash for a long value or a big table)
/// describing what changes a world's physics: the step settings (h, gravity, ε̂, solver, warm
/// start, contact frequency, Coulomb correction, planar mode, stabilisation, periodic ranges
/// and shear rate,
/// the integrator when not the CCP), the materials
/// and pair overrides, the walls and their motions and servos, the joints, springs and applied forces,
/// and each body's fixed properties (radius, shape, mass, inertia and principal moments,
/// material, kind, prescribed motion). The thread count, the backend, the read-back interval and the health checks are
/// left out: they do not change the results a checkpoint continues.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fingerprint {
    items: Vec<(String, String)>,
}

impl Fingerprint {
    /// The fingerprint of a world built from these parts, with ε̂ resolved to `envelope`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        settings: &Settings,
        envelope: Envelope,
        materials: &Materials,
        bodies: &[Body],
        walls: &[WallDesc],
        joints: &[JointDesc],
        springs: &[SpringDesc],
        forces: &[AppliedForce],
    ) -> Fingerprint {
        let mut f = Fingerprint::default();
        f.push_settings(settings, envelope);
        f.push("materials", materials.list.len());
        for (i, m) in materials.list.iter().enumerate() {
            f.push(&format!("material {i} friction"), m.friction);
            f.push(&format!("material {i} restitution"), m.restitution);
            f.push(&format!("material {i} spinning"), m.spinning);
            f.push(&format!("material {i} rolling"), m.rolling);
            // Only where there is one: a dry world keeps the items it had.
            let pulls = [
                ("cohesion", m.cohesion),
                ("surface_energy", m.surface_energy),
                ("bridge_volume", m.bridge.volume),
                ("surface_tension", m.bridge.surface_tension),
                ("contact_angle", m.bridge.contact_angle),
            ];
            for (name, value) in pulls.into_iter().filter(|p| p.1 != 0.0) {
                f.push(&format!("material {i} {name}"), value);
            }
        }
        let pairs: Vec<String> = (materials.overrides.iter())
            .map(|(a, b, mu)| format!("{}-{} {mu}", a.0, b.0))
            .collect();
        f.push("friction pairs", pairs.join(", "));
        f.push("walls", walls.len());
        for (i, w) in walls.iter().enumerate() {
            let at_rest = WallDesc {
                motion: None,
                servo: None,
                ..*w
            };
            f.push(&format!("wall {i}"), format!("{at_rest:?}"));
            f.push(&format!("wall {i} motion"), motion(w.motion));
            // Only where there is one: a world without servos keeps the items it had.
            if let Some(servo) = &w.servo {
                f.push(
                    &format!("wall {i} servo"),
                    format!(
                        "force {} gain {} max_speed {}",
                        servo.force, servo.gain, servo.max_speed
                    ),
                );
            }
        }
        f.push("bodies", bodies.len());
        f.push_table("body radii", bodies, |b| b.radius.to_string());
        f.push_table("body shapes", bodies, |b| format!("{:?}", b.shape));
        f.push_table("body masses", bodies, |b| b.mass.to_string());
        f.push_table("body inertias", bodies, |b| b.inertia.to_string());
        if bodies.iter().any(|b| b.principal_moments.is_some()) {
            f.push_table("body principal moments", bodies, |b| {
                b.principal_moments.map_or("-".into(), |m| m.to_string())
            });
        }
        f.push_table("body materials", bodies, |b| b.material.0.to_string());
        f.push_table("body kinds", bodies, |b| format!("{:?}", b.kind));
        f.push_table("body motions", bodies, |b| motion(b.prescribed));
        f.push("joints", joints.len());
        f.push_table("joint table", joints, |j| format!("{j:?}"));
        f.push("springs", springs.len());
        f.push_table("spring table", springs, |s| format!("{s:?}"));
        f.push("forces", forces.len());
        f.push_table("force table", forces, |a| format!("{a:?}"));
        f
    }

    /// Adds the polyhedra's hull table (vertices, faces), when there is one.
    pub(crate) fn push_hulls(&mut self, hulls: &[grains_kernels::shapes::polyhedron::Hull]) {
        if !hulls.is_empty() {
            self.push_table("hull table", hulls, |h| format!("{h:?}"));
        }
    }

    /// Adds the fluid, where there is one.
    pub(crate) fn push_fluid(&mut self, fluid: Option<&crate::fluid::Fluid>) {
        if let Some(fluid) = fluid {
            self.push("fluid", format!("{fluid:?}"));
        }
    }

    /// Adds the fluid's velocity on a grid given at build, where there is one: its grid, and
    /// its nodes' velocities (hashed).
    pub(crate) fn push_flow_field(&mut self, field: Option<&crate::fluid::FlowField>) {
        if let Some(f) = field {
            let grid = (f.origin, f.spacing, f.counts);
            self.push("flow field grid", format!("{grid:?}"));
            self.push_table("flow field velocities", &f.velocity, |v| format!("{v:?}"));
        }
    }

    /// Adds the mesh walls: their count, and each one's triangles (hashed), material and motions.
    pub(crate) fn push_meshes(&mut self, meshes: &[crate::mesh::MeshDesc]) {
        if meshes.is_empty() {
            return;
        }
        self.push("meshes", meshes.len());
        for (i, m) in meshes.iter().enumerate() {
            self.push_table(&format!("mesh {i} triangles"), &m.triangles, |t| {
                format!("{t:?}")
            });
            self.push(&format!("mesh {i} material"), m.material.0);
            self.push(&format!("mesh {i} motion"), motion(m.motion));
            self.push(&format!("mesh {i} rotation"), format!("{:?}", m.rotation));
        }
    }

    /// Adds the items of the insertions and sinks (see [`crate::lifecycle`]); none when the
    /// world has neither, so the fingerprints of worlds without them are as before.
    pub(crate) fn push_lifecycle(&mut self, insertions: &[Insertion], sinks: &[Sink]) {
        if insertions.is_empty() && sinks.is_empty() {
            return;
        }
        self.push("insertions", insertions.len());
        self.push_table("insertion table", insertions, |i| format!("{i:?}"));
        self.push("sinks", sinks.len());
        self.push_table("sink table", sinks, |s| format!("{s:?}"));
    }

    /// Replaces the step settings' items by those of `settings` with ε̂ resolved to
    /// `envelope` (when a world's settings change after build).
    pub(crate) fn set_settings(&mut self, settings: &Settings, envelope: Envelope) {
        let mut now = Fingerprint::default();
        now.push_settings(settings, envelope);
        for (name, value) in now.items {
            if let Some(item) = self.items.iter_mut().find(|(n, _)| *n == name) {
                item.1 = value;
            }
        }
    }

    /// Adds the items of the step settings.
    fn push_settings(&mut self, s: &Settings, envelope: Envelope) {
        self.push("h", s.h);
        self.push("gravity", vec3(s.gravity));
        self.push(
            "envelope",
            match envelope {
                Envelope::PerPair {
                    floor,
                    speed_factor,
                } => format!("per pair, floor {floor} m, speed factor {speed_factor}"),
                Envelope::Fixed(e) => format!("fixed {e} m"),
            },
        );
        self.push("solver", format!("{:?}", s.solver.kind()));
        self.push("sweeps", s.solver.sweeps());
        self.push("tolerance", s.solver.tolerance());
        self.push("omega", s.solver.omega());
        self.push("warm_start", s.warm_start);
        self.push("contact_frequency", s.contact_frequency);
        self.push("coulomb_correction", s.coulomb_correction);
        self.push("planar", s.planar);
        self.push("stabilise_contacts", s.stabilise_contacts);
        // Only when on, so the fingerprints of other worlds are as before.
        if s.position_correction > 0 {
            self.push("position_correction", s.position_correction);
        }
        // The ranges as the derived Debug of the two-field struct wrote them, so that the
        // fingerprints of periodic worlds are as before; the shear only when there is one.
        let p = &s.periodic;
        self.push(
            "periodic",
            format!("Periodic {{ x: {:?}, y: {:?} }}", p.x, p.y),
        );
        if p.shear_rate != 0.0 {
            self.push("periodic shear_rate", p.shear_rate);
        }
        // Only with the adaptive step, so the fingerprints of fixed-step worlds are as before.
        if let Some(a) = &s.auto_step {
            let (h_min, reach, budget) = (a.h_min, a.reach, a.penetration);
            self.push(
                "auto_step",
                format!("h_min {h_min} s, reach {reach}, penetration budget {budget}"),
            );
        }
        // Only when not the CCP, so the fingerprints of CCP worlds are as before.
        if s.integrator != crate::settings::Integrator::Ccp {
            self.push("integrator", s.integrator.name());
        }
    }

    /// Adds the clump templates' member spheres (nothing for a world without clumps, so that
    /// other worlds' fingerprints stay as they were).
    pub(crate) fn push_clumps(&mut self, clumps: &grains_kernels::shapes::clump::ClumpTable) {
        if clumps.is_empty() {
            return;
        }
        let templates: Vec<u32> = (0..clumps.len() as u32).collect();
        self.push_table("clump templates", &templates, |&t| {
            format!("{:?}", clumps.members(t))
        });
    }

    /// Adds the item `name` with the value text of `value` (hashed when long).
    fn push(&mut self, name: &str, value: impl ToString) {
        let text = value.to_string();
        let text = if text.chars().count() > MAX_VALUE_CHARS || text.starts_with('#') {
            hash(text.as_bytes())
        } else {
            text
        };
        self.items.push((name.to_string(), text));
    }

    /// Adds the item `name`: the hash of every element's text.
    fn push_table<T>(&mut self, name: &str, table: &[T], text: impl Fn(&T) -> String) {
        let mut all = String::new();
        for t in table {
            all.push_str(&text(t));
            all.push(';');
        }
        self.items.push((name.to_string(), hash(all.as_bytes())));
    }

    /// The items, in a fixed order.
    pub fn items(&self) -> impl Iterator<Item = (&str, &str)> {
        self.items.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// What differs from `then` (the fingerprint a checkpoint was written with), one entry per
    /// item: `h (0.001 → 0.002)`, or only the name where a value is a hash. Items that differ
    /// alike but for their index are named together: `wall 0, 1, 2 motion (… → …)`. Empty when
    /// equal.
    pub fn changes_since(&self, then: &Fingerprint) -> Vec<String> {
        let value = |f: &Fingerprint, name: &str| {
            f.items
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        let mut names: Vec<&str> = then.items.iter().map(|(n, _)| n.as_str()).collect();
        for (n, _) in &self.items {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
        let mut groups: Vec<Change> = Vec::new();
        for name in names {
            let (old, new) = (value(then, name), value(self, name));
            if old == new {
                continue;
            }
            let (head, index, tail) = split_index(name);
            match groups.iter_mut().find(|g| {
                (&g.0, &g.2, &g.3, &g.4) == (&head, &tail, &old, &new) && !index.is_empty()
            }) {
                Some(g) => g.1.push(index),
                None => groups.push((head, vec![index], tail, old, new)),
            }
        }
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
        let hashed = |v: &Option<String>| v.as_deref().is_some_and(|v| v.starts_with('#'));
        groups
            .into_iter()
            .map(|(head, indices, tail, old, new)| {
                let name = format!("{head}{}{tail}", indices.join(", "));
                if hashed(&old) || hashed(&new) {
                    name
                } else {
                    format!("{name} ({} → {})", show(&old), show(&new))
                }
            })
            .collect()
    }

    /// The items as text, one `name\tvalue` line each.
    pub(crate) fn to_text(&self) -> String {
        let mut out = String::new();
        for (n, v) in &self.items {
            out.push_str(n);
            out.push('\t');
            out.push_str(v);
            out.push('\n');
        }
        out
    }

    /// Reads what [`Self::to_text`] wrote; `None` when it is not such text.
    pub(crate) fn from_text(bytes: &[u8]) -> Option<Fingerprint> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut items = Vec::new();
        for line in text.split_terminator('\n') {
            let (n, v) = line.split_once('\t')?;
            if v.contains('\t') {
                return None;
            }
            items.push((n.to_string(), v.to_string()));
        }
        if !text.is_empty() && !text.ends_with('\n') {
            return None;
        }
        Some(Fingerprint { items })
    }
}

/// Items that changed alike: the name before the index, the indices, the name after it, the
/// old value and the new one (`None` where the item is absent).
type Change = (String, Vec<String>, String, Option<String>, Option<String>);

/// `name` cut around its first number: `wall 3 motion` → (`wall `, `3`, ` motion`); a name
/// without one is all head.
fn split_index(name: &str) -> (String, String, String) {
    match name.find(|c: char| c.is_ascii_digit()) {
        Some(start) => {
            let end = name[start..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(name.len(), |e| start + e);
            (
                name[..start].to_string(),
                name[start..end].to_string(),
                name[end..].to_string(),
            )
        }
        None => (name.to_string(), String::new(), String::new()),
    }
}

/// `[x, y, z]`, each to its shortest decimal.
fn vec3(v: Vec3) -> String {
    format!("[{}, {}, {}]", v.x, v.y, v.z)
}

/// A prescribed motion as short text (`none` without one).
fn motion(m: Option<Prescribed>) -> String {
    match m {
        None => "none".into(),
        Some(Prescribed::Constant { linear, angular }) => {
            format!("constant {} m/s, {} rad/s", vec3(linear), vec3(angular))
        }
        Some(Prescribed::Shake {
            axis,
            amplitude,
            frequency,
            phase,
        }) => format!(
            "shake {amplitude} m, {frequency} Hz, phase {phase}, axis {}",
            vec3(axis)
        ),
    }
}

/// `#` and the CRC-32 of `bytes` in hex.
fn hash(bytes: &[u8]) -> String {
    format!("#{:08x}", crc32fast::hash(bytes))
}
