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
use std::ops::Range;

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
        let named = at.pairs(
            Names {
                a: &j.a,
                a_index: &j.a_index,
                b: &j.b,
                b_index: &j.b_index,
                chain: &j.chain,
                ring: &j.ring,
            },
            &[("anchor", sp(&j.anchor)), ("anchor_b", sp(&j.anchor_b))],
            j.kind.span(),
        )?;
        for &(a, b) in &named.pairs {
            links.joints.push(at.joint(j, a, b, named.bulk)?);
            origins.joints.push(
                Origin::new(cx, j.kind.span())
                    .key_at(cx, "a", named.key, Some(named.span.clone()))
                    .key_at(cx, "b", named.key, named.bulk.then(|| named.span.clone()))
                    .key(cx, "b", "b", &j.b)
                    .key(cx, "anchor", "anchor", &j.anchor)
                    .key(cx, "anchor_b", "anchor_b", &j.anchor_b)
                    .key(cx, "axis", "axis", &j.axis)
                    .key(cx, "motor", "motor_speed", &j.motor_speed)
                    .key(cx, "collide", "collide", &j.collide),
            );
        }
    }
    for s in springs {
        let table = [&s.a, &s.chain, &s.ring, &s.b]
            .into_iter()
            .flatten()
            .map(|k| k.span())
            .next()
            .unwrap_or_default();
        let named = at.pairs(
            Names {
                a: &s.a,
                a_index: &s.a_index,
                b: &s.b,
                b_index: &s.b_index,
                chain: &s.chain,
                ring: &s.ring,
            },
            &[("anchor_a", sp(&s.anchor_a)), ("anchor_b", sp(&s.anchor_b))],
            table,
        )?;
        for &(a, b) in &named.pairs {
            links.springs.push(at.spring(s, a, b, named.span.clone())?);
            origins.springs.push(
                Origin::new(cx, named.span.clone())
                    .key_at(cx, "a", named.key, Some(named.span.clone()))
                    .key_at(cx, "b", named.key, named.bulk.then(|| named.span.clone()))
                    .key(cx, "b", "b", &s.b)
                    .key(cx, "anchor_a", "anchor_a", &s.anchor_a)
                    .key(cx, "anchor_b", "anchor_b", &s.anchor_b)
                    .key(cx, "stiffness", "stiffness", &s.stiffness)
                    .key(cx, "damping", "damping", &s.damping)
                    .key(cx, "rest_length", "rest_length", &s.rest_length),
            );
        }
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

/// The keys of a `[[joints]]` or `[[springs]]` table that name its bodies: one pair (`a`, `b`
/// and their indices), or every neighbouring pair of a group (`chain`, `ring`).
struct Names<'a> {
    a: &'a Option<S<String>>,
    a_index: &'a Option<S<i64>>,
    b: &'a Option<S<String>>,
    b_index: &'a Option<S<i64>>,
    chain: &'a Option<S<String>>,
    ring: &'a Option<S<String>>,
}

/// The pairs of bodies one table ties, (a, b) with b `None` for the world.
struct Pairs {
    pairs: Vec<(usize, Option<usize>)>,
    /// Whether they come from `chain` or `ring`.
    bulk: bool,
    /// The key that named body a (`a`, `chain` or `ring`), and where.
    key: &'static str,
    span: Range<usize>,
}

/// The scene's bodies as the tables refer to them.
struct Bodies<'a> {
    cx: &'a Ctx<'a>,
    bodies: &'a [Body],
    groups: &'a [Group],
}

impl Bodies<'_> {
    /// The bodies a table ties: `a` (and `b`) for one pair; for `chain = "g"` body k + 1 of
    /// group g (as a) to body k (as b), k = 0 … N − 2, and for `ring` also body 0 to body
    /// N − 1. A bulk table refuses the keys that name one body or one point (`points`);
    /// `table` is where the table starts.
    fn pairs(
        &self,
        n: Names,
        points: &[(&str, Option<Range<usize>>)],
        table: Range<usize>,
    ) -> Result<Pairs, SceneError> {
        let cx = self.cx;
        let (group, key, ring) = match (n.chain, n.ring) {
            (Some(_), Some(r)) => {
                return Err(cx.err(
                    r.span(),
                    "ring",
                    "given with `chain`: a table makes either a chain or a ring",
                ))
            }
            (Some(c), None) => (c, "chain", false),
            (None, Some(r)) => (r, "ring", true),
            (None, None) => {
                let a = n.a.as_ref().ok_or_else(|| {
                    cx.err(
                        table.clone(),
                        "a",
                        "missing: name body a's group (or use `chain` or `ring` for a group's neighbours)",
                    )
                })?;
                return Ok(Pairs {
                    pairs: vec![(
                        self.body(a, n.a_index, "a", "a_index")?,
                        self.other(n.b, n.b_index)?,
                    )],
                    bulk: false,
                    key: "a",
                    span: a.span(),
                });
            }
        };
        let single = [
            ("a", sp(n.a)),
            ("a_index", sp(n.a_index)),
            ("b", sp(n.b)),
            ("b_index", sp(n.b_index)),
        ];
        for (k, span) in single.iter().chain(points) {
            if let Some(span) = span {
                return Err(cx.err(
                    span.clone(),
                    k,
                    format!("names one body or point: `{key}` ties each body of its group to the next at the midpoint of their centres (remove it)"),
                ));
            }
        }
        let g = self.group(group, key)?;
        let (start, len) = (g.range.start, g.range.len());
        let least = if ring { 3 } else { 2 };
        if len < least {
            return Err(cx.err(
                group.span(),
                key,
                format!(
                    "group \"{}\" has {len} {}; a {key} needs at least {least}",
                    group.get_ref(),
                    if len == 1 { "body" } else { "bodies" }
                ),
            ));
        }
        let mut pairs: Vec<_> = (0..len - 1)
            .map(|k| (start + k + 1, Some(start + k)))
            .collect();
        if ring {
            pairs.push((start, Some(start + len - 1)));
        }
        Ok(Pairs {
            pairs,
            bulk: true,
            key,
            span: group.span(),
        })
    }

    /// The group named `name` (`key` names it in errors).
    fn group(&self, name: &S<String>, key: &str) -> Result<&Group, SceneError> {
        self.groups
            .iter()
            .find(|g| &g.name == name.get_ref())
            .ok_or_else(|| {
                self.cx.err(
                    name.span(),
                    key,
                    format!("no body group named \"{}\"", name.get_ref()),
                )
            })
    }

    /// Body `index` of the group named `name` (`key` and `index_key` name them in errors).
    fn body(
        &self,
        name: &S<String>,
        index: &Option<S<i64>>,
        key: &str,
        index_key: &str,
    ) -> Result<usize, SceneError> {
        let cx = self.cx;
        let group = self.group(name, key)?;
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

    /// The joint of table `j` between bodies `a` and `b` (`None`: the world); for a `chain` or
    /// `ring` (`bulk`) the anchor of ball and hinge joints defaults to the midpoint of the
    /// centres, as that of fixed joints always does.
    fn joint(
        &self,
        j: &JointSpec,
        a: usize,
        b: Option<usize>,
        bulk: bool,
    ) -> Result<JointDesc, SceneError> {
        let cx = self.cx;
        let name = j.kind.get_ref().as_str();
        let kind = JointKind::from_name(name).ok_or_else(|| {
            cx.err(
                j.kind.span(),
                "kind",
                format!(
                    "joint kind must be {}, got \"{name}\"",
                    JointKind::names_listed()
                ),
            )
        })?;
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
        let centre_a = self.bodies[a].position;
        let centre_b = b.map(|b| self.bodies[b].position);
        let midpoint = centre_b.map_or(centre_a, |c| 0.5 * (centre_a + c));
        let default_anchor = match kind {
            JointKind::Ball | JointKind::Hinge => bulk.then_some(midpoint),
            JointKind::Fixed => Some(midpoint),
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
            bond: None,
            strength: None,
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

    /// The spring of table `s` between bodies `a` and `b` (`None`: the world); `table` is where
    /// the table names them.
    fn spring(
        &self,
        s: &SpringSpec,
        a: usize,
        b: Option<usize>,
        table: Range<usize>,
    ) -> Result<SpringDesc, SceneError> {
        let cx = self.cx;
        let anchor_a = self
            .point(&s.anchor_a, "anchor_a", Some(self.bodies[a].position))?
            .unwrap_or_default();
        let anchor_b =
            match self.point(&s.anchor_b, "anchor_b", b.map(|b| self.bodies[b].position))? {
                Some(p) => p,
                None => {
                    return Err(cx.err(
                        table,
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
