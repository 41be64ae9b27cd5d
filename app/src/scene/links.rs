//! `[[joints]]`, `[[springs]]` and `[[forces]]`: what ties a scene's bodies together, each body
//! named by its group and its index in the group. The engine checks the descriptions when the
//! world is built; the origin of each key lets its refusal be reported at its line.

use super::origin::{Origin, Origins};
use super::spec::{ForceSpec, JointSpec, SpringSpec, S, V3};
use super::values::{finite3, need, number, number_or, only, sp, Ctx};
use super::{Group, SceneError};
use glam::Vec3;
use grains::body::Body;
use grains::joint::{AppliedForce, JointDesc, JointKind, Motor, SpringDesc, SpringIntegration};
use grains::WorldBuilder;

/// Joints, springs and forces of a scene, in the order of the file.
pub(super) struct Links {
    joints: Vec<JointDesc>,
    springs: Vec<SpringDesc>,
    forces: Vec<AppliedForce>,
}

impl Links {
    /// Adds them all to `world`.
    pub(super) fn add_to(self, world: &mut WorldBuilder) {
        for j in self.joints {
            world.joint(j);
        }
        for s in self.springs {
            world.spring(s);
        }
        for f in self.forces {
            world.force(f);
        }
    }
}

/// Reads the three tables against the scene's `bodies` and their `groups`.
pub(super) fn links(
    cx: &Ctx,
    joints: &[JointSpec],
    springs: &[SpringSpec],
    forces: &[ForceSpec],
    bodies: &[Body],
    groups: &[Group],
    origins: &mut Origins,
) -> Result<Links, SceneError> {
    let at = Bodies { cx, bodies, groups };
    let mut links = Links {
        joints: Vec::new(),
        springs: Vec::new(),
        forces: Vec::new(),
    };
    for j in joints {
        links.joints.push(at.joint(j)?);
        origins.joints.push(
            Origin::new(cx, j.kind.span())
                .key_at(cx, "a", "a", Some(j.a.span()))
                .key(cx, "b", "b", &j.b)
                .key(cx, "anchor", "anchor", &j.anchor)
                .key(cx, "anchor_b", "anchor_b", &j.anchor_b)
                .key(cx, "axis", "axis", &j.axis)
                .key(cx, "motor", "motor_speed", &j.motor_speed)
                .key(cx, "collide", "collide", &j.collide),
        );
    }
    for s in springs {
        links.springs.push(at.spring(s)?);
        origins.springs.push(
            Origin::new(cx, s.a.span())
                .key_at(cx, "a", "a", Some(s.a.span()))
                .key(cx, "b", "b", &s.b)
                .key(cx, "anchor_a", "anchor_a", &s.anchor_a)
                .key(cx, "anchor_b", "anchor_b", &s.anchor_b)
                .key(cx, "stiffness", "stiffness", &s.stiffness)
                .key(cx, "damping", "damping", &s.damping)
                .key(cx, "rest_length", "rest_length", &s.rest_length),
        );
    }
    for f in forces {
        links.forces.push(at.force(f)?);
        origins.forces.push(
            Origin::new(cx, f.body.span())
                .key_at(cx, "body", "body", Some(f.body.span()))
                .key_at(cx, "force", "force", Some(f.force.span()))
                .key(
                    cx,
                    "angular_frequency",
                    "angular_frequency",
                    &f.angular_frequency,
                )
                .key(cx, "angular_frequency", "phase", &f.phase),
        );
    }
    Ok(links)
}

/// The scene's bodies as the tables refer to them.
struct Bodies<'a> {
    cx: &'a Ctx<'a>,
    bodies: &'a [Body],
    groups: &'a [Group],
}

impl Bodies<'_> {
    /// Body `index` of the group named `name` (`key` and `index_key` name them in errors).
    fn body(
        &self,
        name: &S<String>,
        index: &Option<S<i64>>,
        key: &str,
        index_key: &str,
    ) -> Result<usize, SceneError> {
        let cx = self.cx;
        let group = self
            .groups
            .iter()
            .find(|g| &g.name == name.get_ref())
            .ok_or_else(|| {
                cx.err(
                    name.span(),
                    key,
                    format!("no body group named \"{}\"", name.get_ref()),
                )
            })?;
        let len = group.range.len();
        match index {
            None if len == 1 => Ok(group.range.start),
            None => Err(cx.err(
                name.span(),
                index_key,
                format!(
                    "missing: group \"{}\" has {len} bodies; say which one (0 to {})",
                    name.get_ref(),
                    len - 1
                ),
            )),
            Some(i) if (0..len as i64).contains(i.get_ref()) => {
                Ok(group.range.start + *i.get_ref() as usize)
            }
            Some(i) => Err(cx.err(
                i.span(),
                index_key,
                format!(
                    "is {} but group \"{}\" has {len} bodies (0 to {})",
                    i.get_ref(),
                    name.get_ref(),
                    len - 1
                ),
            )),
        }
    }

    /// Body b of a joint or spring: the named body, or the world when `b` is omitted.
    fn other(
        &self,
        b: &Option<S<String>>,
        b_index: &Option<S<i64>>,
    ) -> Result<Option<usize>, SceneError> {
        match (b, b_index) {
            (Some(b), _) => self.body(b, b_index, "b", "b_index").map(Some),
            (None, Some(i)) => Err(self.cx.err(
                i.span(),
                "b_index",
                "given without `b` (omit both to join to the world)",
            )),
            (None, None) => Ok(None),
        }
    }

    /// A point: the value of `key` if given, else `default`; `None` for neither.
    fn point(
        &self,
        v: &Option<S<V3>>,
        key: &str,
        default: Option<Vec3>,
    ) -> Result<Option<Vec3>, SceneError> {
        match v {
            Some(v) => finite3(self.cx, v, key).map(Some),
            None => Ok(default),
        }
    }

    fn joint(&self, j: &JointSpec) -> Result<JointDesc, SceneError> {
        let cx = self.cx;
        let kind = match j.kind.get_ref().as_str() {
            "ball" => JointKind::Ball,
            "hinge" => JointKind::Hinge,
            "distance" => JointKind::Distance,
            "fixed" => JointKind::Fixed,
            "prismatic" => JointKind::Prismatic,
            other => {
                return Err(cx.err(
                    j.kind.span(),
                    "kind",
                    format!("joint kind must be \"ball\", \"hinge\", \"distance\", \"fixed\" or \"prismatic\", got \"{other}\""),
                ))
            }
        };
        let given = [
            ("anchor", sp(&j.anchor)),
            ("anchor_b", sp(&j.anchor_b)),
            ("axis", sp(&j.axis)),
            ("motor_speed", sp(&j.motor_speed)),
            ("motor_max_force", sp(&j.motor_max_force)),
        ];
        let allowed: &[&str] = match kind {
            JointKind::Ball | JointKind::Fixed => &["anchor"],
            JointKind::Distance => &["anchor", "anchor_b"],
            JointKind::Hinge | JointKind::Prismatic => {
                &["anchor", "axis", "motor_speed", "motor_max_force"]
            }
        };
        only(cx, &j.kind, &given, allowed)?;
        let a = self.body(&j.a, &j.a_index, "a", "a_index")?;
        let b = self.other(&j.b, &j.b_index)?;
        let centre_a = self.bodies[a].position;
        let centre_b = b.map(|b| self.bodies[b].position);
        let default_anchor = match kind {
            JointKind::Ball | JointKind::Hinge => None,
            JointKind::Fixed => Some(centre_b.map_or(centre_a, |c| 0.5 * (centre_a + c))),
            JointKind::Distance | JointKind::Prismatic => Some(centre_a),
        };
        let Some(anchor) = self.point(&j.anchor, "anchor", default_anchor)? else {
            return Err(cx.err(
                j.kind.span(),
                "anchor",
                format!("missing: required for `{}`", j.kind.get_ref()),
            ));
        };
        let mut d = JointDesc {
            kind,
            a,
            b,
            anchor,
            anchor_b: anchor,
            axis: Vec3::Z,
            motor: None,
            stabilise: j.stabilise.as_ref().is_none_or(|s| *s.get_ref()),
            collide: j.collide.as_ref().is_none_or(|c| *c.get_ref()),
        };
        if kind == JointKind::Distance {
            d.anchor_b = match self.point(&j.anchor_b, "anchor_b", centre_b)? {
                Some(p) => p,
                None => {
                    return Err(cx.err(
                        j.kind.span(),
                        "anchor_b",
                        "missing: required for a distance joint to the world",
                    ))
                }
            };
        }
        if matches!(kind, JointKind::Hinge | JointKind::Prismatic) {
            d.axis = finite3(cx, need(cx, &j.axis, "axis", &j.kind)?, "axis")?;
        }
        d.motor = match (&j.motor_speed, &j.motor_max_force) {
            (Some(s), bound) => Some(Motor {
                speed: number(cx, s, "motor_speed")?,
                max_force: match bound {
                    Some(f) => number(cx, f, "motor_max_force")?,
                    None => f32::INFINITY,
                },
            }),
            (None, Some(f)) => {
                return Err(cx.err(f.span(), "motor_max_force", "given without `motor_speed`"))
            }
            (None, None) => None,
        };
        Ok(d)
    }

    fn spring(&self, s: &SpringSpec) -> Result<SpringDesc, SceneError> {
        let cx = self.cx;
        let a = self.body(&s.a, &s.a_index, "a", "a_index")?;
        let b = self.other(&s.b, &s.b_index)?;
        let anchor_a = self
            .point(&s.anchor_a, "anchor_a", Some(self.bodies[a].position))?
            .unwrap_or_default();
        let anchor_b =
            match self.point(&s.anchor_b, "anchor_b", b.map(|b| self.bodies[b].position))? {
                Some(p) => p,
                None => {
                    return Err(cx.err(
                        s.a.span(),
                        "anchor_b",
                        "missing: required for a spring to the world",
                    ))
                }
            };
        let integration = match &s.integration {
            None => SpringIntegration::LinearlyImplicit,
            Some(i) => match i.get_ref().as_str() {
                "implicit" => SpringIntegration::LinearlyImplicit,
                "explicit" => SpringIntegration::Explicit,
                other => {
                    return Err(cx.err(
                        i.span(),
                        "integration",
                        format!("must be \"implicit\" or \"explicit\", got \"{other}\""),
                    ))
                }
            },
        };
        let stiffness = number_or(cx, &s.stiffness, "stiffness", 0.0)?;
        if let Some(l) = s.rest_length.as_ref().filter(|_| stiffness == 0.0) {
            return Err(cx.err(
                l.span(),
                "rest_length",
                "has no effect on a spring without `stiffness` (a pure damper): remove it",
            ));
        }
        Ok(SpringDesc {
            a,
            b,
            anchor_a,
            anchor_b,
            stiffness,
            damping: number_or(cx, &s.damping, "damping", 0.0)?,
            rest_length: match &s.rest_length {
                Some(l) => Some(number(cx, l, "rest_length")?),
                None => None,
            },
            integration,
        })
    }

    fn force(&self, f: &ForceSpec) -> Result<AppliedForce, SceneError> {
        let cx = self.cx;
        Ok(AppliedForce {
            body: self.body(&f.body, &f.index, "body", "index")?,
            force: finite3(cx, &f.force, "force")?,
            angular_frequency: number_or(cx, &f.angular_frequency, "angular_frequency", 0.0)?,
            phase: number_or(cx, &f.phase, "phase", 0.0)?,
        })
    }
}
