//! Scene files: a TOML description of a world (settings, materials, walls, shakers, bodies),
//! what to write while it runs and what to track. The format is documented in
//! `scenes/README.md`; [`Scene::load`] reads and checks a file, [`Scene::world`] builds it.

mod form;
mod links;
pub mod spec;

use crate::pour::{PourScene, SplitMix64};
use form::{Axis, Form};
use glam::{Quat, Vec3};
use grains::body::{sphere_mass, Body, BodyKind};
use grains::error::BuildError;
use grains::geometry::{BoxContainer, WallDesc};
use grains::joint::{AppliedForce, JointDesc, SpringDesc};
use grains::material::{Material, MaterialId};
use grains::motion::Prescribed;
use grains::settings::{Backend, Envelope, Settings};
use grains::world::World;
use grains::SolverKind;
use grains_kernels::shape::{contact_points, Placed};
use spec::*;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a scene file could not be used. Every variant names the file; those about a value also
/// give its line and key.
#[derive(Debug, Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("{file}: cannot read: {reason}")]
    Read {
        /// The scene file.
        file: PathBuf,
        /// The system's reason.
        reason: String,
    },
    /// A value is missing, unknown, of the wrong type or out of range.
    #[error("{file}:{line}: key `{key}`: {problem}")]
    Invalid {
        /// The scene file.
        file: PathBuf,
        /// 1-based line of the offending key or table.
        line: usize,
        /// The key (or table) at fault.
        key: String,
        /// What is wrong.
        problem: String,
    },
    /// The engine refused the world the file describes.
    #[error("{file}: {source}")]
    Build {
        /// The scene file.
        file: PathBuf,
        /// The engine's reason.
        source: BuildError,
    },
}

impl SceneError {
    /// The line the error points at, if any.
    pub fn line(&self) -> Option<usize> {
        match self {
            SceneError::Invalid { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// A group of bodies made by one generator.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// Name given in the file (or `bodies[i]`).
    pub name: String,
    /// Indices of its bodies in the world.
    pub range: Range<usize>,
}

/// The box the grains are meant to stay in: used for "escaped" and wall penetration figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Centre of the floor at rest (m).
    pub floor_centre: Vec3,
    /// Inner half width along x (m).
    pub half_x: f32,
    /// Inner half width along y (m); infinite in planar mode.
    pub half_y: f32,
    /// Motion of the box, if it is shaken.
    pub motion: Option<Prescribed>,
}

/// One time series to record.
#[derive(Clone, Debug, PartialEq)]
pub struct Observable {
    /// Column name in `observables.csv`.
    pub name: String,
    /// What it measures.
    pub kind: ObservableKind,
}

/// What an observable measures.
#[derive(Clone, Debug, PartialEq)]
pub enum ObservableKind {
    /// Mean centre height z of a group (m).
    Height(Range<usize>),
    /// Height of a group's mean centre above the floor as a fraction of the bed height z95 of
    /// all the other dynamic bodies (1 = at the top of the bed).
    RankFromTop(Range<usize>),
    /// Total kinetic energy, translational + rotational (J).
    KineticEnergy,
    /// Active contacts in the last step.
    Contacts,
    /// 95th percentile of the centre heights of dynamic bodies (m).
    BedHeight,
    /// Largest body speed (m/s).
    MaxSpeed,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Formats {
    /// ParaView `.vtu` frames plus a `.pvd` index.
    pub vtu: bool,
    /// `observables.csv`.
    pub csv: bool,
    /// PNG snapshots and plots.
    pub png: bool,
}

/// How grains are coloured in PNG snapshots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// By radius.
    Size,
    /// By speed.
    Speed,
}

/// What to write during a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Steps between frames.
    pub every: u64,
    /// Which files.
    pub formats: Formats,
    /// Frames between PNG snapshots.
    pub png_every: u64,
    /// Colouring of snapshots.
    pub colour: Colour,
    /// Steps between checkpoints.
    pub checkpoint_every: u64,
    /// Steps between observable samples.
    pub observe_every: u64,
    /// PNG width (px).
    pub image_width: u32,
    /// Height above the floor that snapshots show (m); None: 1.3 × the highest body at the start.
    pub view_height: Option<f32>,
    /// Snapshots show the section through the largest body rather than the projection.
    pub section: bool,
}

/// A checked scene: everything needed to build its world and run it.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The file it came from.
    pub path: PathBuf,
    /// The scene's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Simulated time to run (s).
    pub duration: f64,
    /// Settings (threads as written in the file; the runner may override).
    pub settings: Settings,
    /// Materials in order.
    pub materials: Vec<(String, Material)>,
    /// Pair overrides of μ.
    pub pairs: Vec<(MaterialId, MaterialId, f32)>,
    /// Walls.
    pub walls: Vec<WallDesc>,
    /// Bodies in order.
    pub bodies: Vec<Body>,
    /// Named groups of bodies.
    pub groups: Vec<Group>,
    /// Joints, in the order of the file.
    pub joints: Vec<JointDesc>,
    /// Spring–dampers.
    pub springs: Vec<SpringDesc>,
    /// Applied forces.
    pub forces: Vec<AppliedForce>,
    /// The box grains should stay in (the first box container), if any.
    pub bounds: Option<Bounds>,
    /// Time series to record.
    pub observables: Vec<Observable>,
    /// What to write.
    pub output: Output,
}

/// Context for error messages: the file, its text, and the span → line conversion.
struct Ctx<'a> {
    file: &'a Path,
    src: &'a str,
}

impl Ctx<'_> {
    fn line(&self, pos: usize) -> usize {
        self.src[..pos.min(self.src.len())].matches('\n').count() + 1
    }

    fn err(&self, span: Range<usize>, key: &str, problem: impl Into<String>) -> SceneError {
        SceneError::Invalid {
            file: self.file.to_path_buf(),
            line: self.line(span.start),
            key: key.to_string(),
            problem: problem.into(),
        }
    }

    /// A toml deserialisation error → line, key and message.
    fn toml_error(&self, e: &toml::de::Error) -> SceneError {
        let msg = e.message().trim().to_string();
        let span = e.span().unwrap_or(0..0);
        let line = self.line(span.start);
        // The key: the first `name` in backticks of the message (unknown / missing field), else
        // the text left of `=` on the offending line, else the span's text.
        let named = [
            "unknown field",
            "missing field",
            "duplicate key",
            "unknown variant",
        ]
        .iter()
        .any(|p| msg.starts_with(p));
        let key = named
            .then(|| msg.split('`').nth(1).map(str::to_string))
            .flatten()
            .or_else(|| {
                let text = self.src.lines().nth(line - 1).unwrap_or("");
                text.split_once('=')
                    .map(|(k, _)| k.trim().trim_matches('"').to_string())
            })
            .unwrap_or_else(|| {
                self.src
                    .get(span.clone())
                    .unwrap_or("")
                    .trim()
                    .chars()
                    .take(40)
                    .collect()
            });
        SceneError::Invalid {
            file: self.file.to_path_buf(),
            line,
            key,
            problem: msg,
        }
    }
}

fn v3(v: &V3) -> Vec3 {
    Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
}

impl Scene {
    /// Reads and checks the scene file at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<Scene, SceneError> {
        let path = path.as_ref();
        let src = std::fs::read_to_string(path).map_err(|e| SceneError::Read {
            file: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        Scene::parse(path, &src)
    }

    /// Checks the scene text `src`, reporting errors against the file name `path`.
    pub fn parse(path: &Path, src: &str) -> Result<Scene, SceneError> {
        let cx = Ctx { file: path, src };
        let spec: SceneSpec = toml::from_str(src).map_err(|e| cx.toml_error(&e))?;
        build(&cx, spec)
    }

    /// Builds the world with `threads` worker threads (None: as the file says).
    pub fn world(&self, threads: Option<usize>) -> Result<World, SceneError> {
        self.world_with(threads, None)
    }

    /// Builds the world with `threads` worker threads and on `backend` (None: as the file says).
    pub fn world_with(
        &self,
        threads: Option<usize>,
        backend: Option<Backend>,
    ) -> Result<World, SceneError> {
        let mut settings = self.settings;
        if let Some(t) = threads {
            settings.threads = t;
        }
        if let Some(b) = backend {
            settings.backend = b;
        }
        let mut b = World::builder(settings);
        for (_, m) in &self.materials {
            b.material(*m);
        }
        for &(a, c, mu) in &self.pairs {
            b.pair_friction(a, c, mu);
        }
        for w in &self.walls {
            b.wall(*w);
        }
        for body in &self.bodies {
            b.body(*body);
        }
        for j in &self.joints {
            b.joint(*j);
        }
        for s in &self.springs {
            b.spring(*s);
        }
        for f in &self.forces {
            b.force(*f);
        }
        b.build().map_err(|source| SceneError::Build {
            file: self.path.clone(),
            source,
        })
    }

    /// Index range of the group called `name`.
    pub fn group(&self, name: &str) -> Option<Range<usize>> {
        self.groups
            .iter()
            .find(|g| g.name == name)
            .map(|g| g.range.clone())
    }

    /// Steps the run takes: duration / h, rounded.
    pub fn total_steps(&self) -> u64 {
        (self.duration / self.settings.h as f64).round().max(0.0) as u64
    }
}

fn positive(cx: &Ctx, v: &S<f64>, key: &str) -> Result<f32, SceneError> {
    let x = *v.get_ref();
    if x.is_finite() && x > 0.0 {
        Ok(x as f32)
    } else {
        Err(cx.err(
            v.span(),
            key,
            format!("must be positive and finite, got {x}"),
        ))
    }
}

fn non_negative(cx: &Ctx, v: &S<f64>, key: &str) -> Result<f32, SceneError> {
    let x = *v.get_ref();
    if x.is_finite() && x >= 0.0 {
        Ok(x as f32)
    } else {
        Err(cx.err(v.span(), key, format!("must be finite and ≥ 0, got {x}")))
    }
}

fn count(cx: &Ctx, v: &S<i64>, key: &str, min: i64) -> Result<u64, SceneError> {
    let x = *v.get_ref();
    if x >= min {
        Ok(x as u64)
    } else {
        Err(cx.err(v.span(), key, format!("must be at least {min}, got {x}")))
    }
}

/// A count that must fit a `u32` (sweeps, passes).
fn count_u32(cx: &Ctx, v: &S<i64>, key: &str, min: i64) -> Result<u32, SceneError> {
    u32::try_from(count(cx, v, key, min)?).map_err(|_| {
        cx.err(
            v.span(),
            key,
            format!("must be at most {}, got {}", u32::MAX, v.get_ref()),
        )
    })
}

fn finite3(cx: &Ctx, v: &S<V3>, key: &str) -> Result<Vec3, SceneError> {
    let x = v.get_ref();
    if x.iter().all(|c| c.is_finite()) {
        Ok(v3(x))
    } else {
        Err(cx.err(v.span(), key, format!("must be finite, got {x:?}")))
    }
}

fn need<'a, T>(
    cx: &Ctx,
    v: &'a Option<S<T>>,
    key: &str,
    owner: &S<String>,
) -> Result<&'a S<T>, SceneError> {
    v.as_ref().ok_or_else(|| {
        cx.err(
            owner.span(),
            key,
            format!("missing: required for `{}`", owner.get_ref()),
        )
    })
}

/// Fails when a key that `kind` does not use is given.
fn only(
    cx: &Ctx,
    kind: &S<String>,
    given: &[(&str, Option<Range<usize>>)],
    allowed: &[&str],
) -> Result<(), SceneError> {
    for (key, span) in given {
        if let Some(span) = span {
            if !allowed.contains(key) {
                return Err(cx.err(
                    span.clone(),
                    key,
                    format!(
                        "not used by `{}` (it takes: {})",
                        kind.get_ref(),
                        allowed.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn sp<T>(v: &Option<S<T>>) -> Option<Range<usize>> {
    v.as_ref().map(|s| s.span())
}

fn build(cx: &Ctx, spec: SceneSpec) -> Result<Scene, SceneError> {
    // [scene]
    let meta = &spec.scene;
    if let Some(u) = &meta.units {
        if u.get_ref() != "SI" {
            return Err(cx.err(
                u.span(),
                "units",
                format!(
                    "only \"SI\" (m, kg, s) is supported, got \"{}\"",
                    u.get_ref()
                ),
            ));
        }
    }
    let duration = non_negative(cx, &meta.duration, "duration")? as f64;
    let tol = match &meta.overlap_tolerance {
        Some(t) => non_negative(cx, t, "overlap_tolerance")?,
        None => 0.01,
    };

    // [settings]
    let s = &spec.settings;
    let h = positive(cx, &s.h, "h")?;
    let mut settings = match s.preset.get_ref().as_str() {
        "rigid" => Settings {
            h,
            ..Settings::default()
        },
        "granular" => Settings::granular(h),
        other => {
            return Err(cx.err(
                s.preset.span(),
                "preset",
                format!("must be \"rigid\" or \"granular\", got \"{other}\""),
            ))
        }
    };
    if let Some(g) = &s.gravity {
        settings.gravity = finite3(cx, g, "gravity")?;
    }
    if let Some(e) = &s.envelope {
        settings.envelope = Some(match e.kind.get_ref().as_str() {
            "per_pair" => {
                only(
                    cx,
                    &e.kind,
                    &[("value", sp(&e.value))],
                    &["floor", "speed_factor"],
                )?;
                Envelope::PerPair {
                    floor: non_negative(cx, need(cx, &e.floor, "floor", &e.kind)?, "floor")?,
                    speed_factor: non_negative(
                        cx,
                        need(cx, &e.speed_factor, "speed_factor", &e.kind)?,
                        "speed_factor",
                    )?,
                }
            }
            "fixed" => {
                only(
                    cx,
                    &e.kind,
                    &[
                        ("floor", sp(&e.floor)),
                        ("speed_factor", sp(&e.speed_factor)),
                    ],
                    &["value"],
                )?;
                Envelope::Fixed(non_negative(
                    cx,
                    need(cx, &e.value, "value", &e.kind)?,
                    "value",
                )?)
            }
            other => {
                return Err(cx.err(
                    e.kind.span(),
                    "kind",
                    format!("envelope kind must be \"per_pair\" or \"fixed\", got \"{other}\""),
                ))
            }
        });
    }
    if let Some(v) = &s.solver {
        settings.solver = settings.solver.with_kind(match v.get_ref().as_str() {
            "gauss_seidel" => SolverKind::GaussSeidel,
            "jacobi" => SolverKind::Jacobi,
            other => {
                return Err(cx.err(
                    v.span(),
                    "solver",
                    format!("must be \"gauss_seidel\" or \"jacobi\", got \"{other}\""),
                ))
            }
        });
    }
    if let Some(v) = &s.max_iterations {
        settings.solver = settings
            .solver
            .with_sweeps(count_u32(cx, v, "max_iterations", 1)?);
    }
    if let Some(v) = &s.tolerance {
        settings.solver = settings
            .solver
            .with_tolerance(non_negative(cx, v, "tolerance")?);
    }
    if let Some(v) = &s.omega {
        settings.solver = settings.solver.with_omega(positive(cx, v, "omega")?);
    }
    if let Some(v) = &s.warm_start {
        settings.warm_start = non_negative(cx, v, "warm_start")?;
    }
    if let Some(v) = &s.contact_frequency {
        settings.contact_frequency = match v.get_ref() {
            toml::Value::String(t) if t == "inf" || t == "rigid" => f32::INFINITY,
            toml::Value::Float(f) if *f > 0.0 => *f as f32,
            toml::Value::Integer(i) if *i > 0 => *i as f32,
            other => {
                return Err(cx.err(
                    v.span(),
                    "contact_frequency",
                    format!("must be a positive number (Hz) or \"inf\", got {other}"),
                ))
            }
        };
    }
    if let Some(v) = &s.coulomb_correction {
        settings.coulomb_correction = count_u32(cx, v, "coulomb_correction", 0)?;
    }
    if let Some(p) = s.planar {
        settings.planar = p;
    }
    if let Some(v) = &s.threads {
        settings.threads = count(cx, v, "threads", 1)? as usize;
    }
    if let Some(v) = &s.backend {
        settings.backend = match v.get_ref().as_str() {
            "cpu" => Backend::Cpu,
            "gpu" => Backend::Gpu,
            other => {
                return Err(cx.err(
                    v.span(),
                    "backend",
                    format!("must be \"cpu\" or \"gpu\", got \"{other}\""),
                ))
            }
        };
    }
    if let Some(v) = &s.sync_every {
        settings.sync_every = count(cx, v, "sync_every", 1)?.min(u32::MAX as u64) as u32;
    }
    settings.check().map_err(|e| {
        let field = match &e {
            BuildError::Settings { field, .. } => *field,
            _ => "settings",
        };
        cx.err(s.preset.span(), field, e.to_string())
    })?;

    // [[materials]]
    let mut materials = Vec::new();
    for m in &spec.materials {
        if materials.iter().any(|(n, _)| n == m.name.get_ref()) {
            return Err(cx.err(m.name.span(), "name", "material defined twice"));
        }
        let mut material = Material::new(non_negative(cx, &m.friction, "friction")?);
        if let Some(e) = &m.restitution {
            if !(0.0..=1.0).contains(e.get_ref()) {
                return Err(cx.err(
                    e.span(),
                    "restitution",
                    format!("must lie in [0, 1], got {}", e.get_ref()),
                ));
            }
            material = material.with_restitution(*e.get_ref() as f32);
        }
        if let Some(e_r) = &m.spinning {
            material = material.with_spinning(non_negative(cx, e_r, "spinning")?);
        }
        if let Some(e_roll) = &m.rolling {
            material = material.with_rolling(non_negative(cx, e_roll, "rolling")?);
        }
        materials.push((m.name.get_ref().clone(), material));
    }
    if materials.is_empty() {
        materials.push(("default".to_string(), Material::new(0.5)));
    }
    let material = |name: &Option<S<String>>| -> Result<MaterialId, SceneError> {
        match name {
            None => Ok(MaterialId(0)),
            Some(n) => materials
                .iter()
                .position(|(m, _)| m == n.get_ref())
                .map(|i| MaterialId(i as u32))
                .ok_or_else(|| {
                    cx.err(
                        n.span(),
                        "material",
                        format!("no material named \"{}\"", n.get_ref()),
                    )
                }),
        }
    };
    let mut pairs = Vec::new();
    for p in &spec.friction_pairs {
        pairs.push((
            material(&Some(p.a.clone()))?,
            material(&Some(p.b.clone()))?,
            non_negative(cx, &p.friction, "friction")?,
        ));
    }

    // [[shakers]]
    let mut shakers: Vec<(String, Prescribed)> = Vec::new();
    for sh in &spec.shakers {
        let given = [
            ("axis", sp(&sh.axis)),
            ("amplitude", sp(&sh.amplitude)),
            ("frequency", sp(&sh.frequency)),
            ("phase", sp(&sh.phase)),
            ("linear", sp(&sh.linear)),
            ("angular", sp(&sh.angular)),
        ];
        let p = match sh.kind.get_ref().as_str() {
            "shake" => {
                only(
                    cx,
                    &sh.kind,
                    &given,
                    &["axis", "amplitude", "frequency", "phase"],
                )?;
                let axis = match &sh.axis {
                    Some(a) => {
                        let v = finite3(cx, a, "axis")?;
                        if v.length() == 0.0 {
                            return Err(cx.err(a.span(), "axis", "must not be zero"));
                        }
                        v.normalize()
                    }
                    None => Vec3::Z,
                };
                Prescribed::Shake {
                    axis,
                    amplitude: non_negative(
                        cx,
                        need(cx, &sh.amplitude, "amplitude", &sh.kind)?,
                        "amplitude",
                    )?,
                    frequency: positive(
                        cx,
                        need(cx, &sh.frequency, "frequency", &sh.kind)?,
                        "frequency",
                    )?,
                    phase: match &sh.phase {
                        Some(p) => *p.get_ref() as f32,
                        None => 0.0,
                    },
                }
            }
            "constant" => {
                only(cx, &sh.kind, &given, &["linear", "angular"])?;
                Prescribed::Constant {
                    linear: match &sh.linear {
                        Some(v) => finite3(cx, v, "linear")?,
                        None => Vec3::ZERO,
                    },
                    angular: match &sh.angular {
                        Some(v) => finite3(cx, v, "angular")?,
                        None => Vec3::ZERO,
                    },
                }
            }
            other => {
                return Err(cx.err(
                    sh.kind.span(),
                    "kind",
                    format!("shaker kind must be \"shake\" or \"constant\", got \"{other}\""),
                ))
            }
        };
        shakers.push((sh.name.get_ref().clone(), p));
    }
    let shaker = |name: &Option<S<String>>| -> Result<Option<Prescribed>, SceneError> {
        match name {
            None => Ok(None),
            Some(n) => shakers
                .iter()
                .find(|(s, _)| s == n.get_ref())
                .map(|(_, p)| Some(*p))
                .ok_or_else(|| {
                    cx.err(
                        n.span(),
                        "shaker",
                        format!("no shaker named \"{}\"", n.get_ref()),
                    )
                }),
        }
    };

    // [[containers]]
    let mut walls = Vec::new();
    let mut bounds = None;
    for c in &spec.containers {
        let given = [
            ("floor_centre", sp(&c.floor_centre)),
            ("width_x", sp(&c.width_x)),
            ("width_y", sp(&c.width_y)),
            ("height", sp(&c.height)),
            ("n", sp(&c.n)),
            ("z", sp(&c.z)),
            ("point", sp(&c.point)),
            ("normal", sp(&c.normal)),
            ("centre", sp(&c.centre)),
            ("u", sp(&c.u)),
            ("half_u", sp(&c.half_u)),
            ("half_v", sp(&c.half_v)),
        ];
        let mat = material(&c.material)?;
        let motion = shaker(&c.shaker)?;
        let with = |w: WallDesc| WallDesc {
            material: mat,
            motion,
            ..w
        };
        match c.kind.get_ref().as_str() {
            "box" | "pour_box" => {
                let bx = if c.kind.get_ref() == "box" {
                    only(
                        cx,
                        &c.kind,
                        &given,
                        &["floor_centre", "width_x", "width_y", "height"],
                    )?;
                    BoxContainer {
                        floor_centre: match &c.floor_centre {
                            Some(v) => finite3(cx, v, "floor_centre")?,
                            None => Vec3::ZERO,
                        },
                        width_x: positive(cx, need(cx, &c.width_x, "width_x", &c.kind)?, "width_x")?,
                        width_y: positive(cx, need(cx, &c.width_y, "width_y", &c.kind)?, "width_y")?,
                        height: positive(cx, need(cx, &c.height, "height", &c.kind)?, "height")?,
                        material: mat,
                        motion,
                    }
                } else {
                    only(cx, &c.kind, &given, &["n"])?;
                    let n = count(cx, need(cx, &c.n, "n", &c.kind)?, "n", 1)? as usize;
                    let ps = PourScene::new(n);
                    BoxContainer {
                        floor_centre: Vec3::ZERO,
                        width_x: ps.width as f32,
                        width_y: ps.width as f32,
                        height: ps.wall_height as f32,
                        material: mat,
                        motion,
                    }
                };
                if bounds.is_none() {
                    bounds = Some(Bounds {
                        floor_centre: bx.floor_centre,
                        half_x: 0.5 * bx.width_x,
                        half_y: if settings.planar {
                            f32::INFINITY
                        } else {
                            0.5 * bx.width_y
                        },
                        motion,
                    });
                }
                if settings.planar {
                    // In the x–z plane the ±y walls would only touch disks at y = 0 edge-on.
                    walls.extend(bx.walls()[..3].iter().copied());
                } else {
                    walls.extend(bx.walls());
                }
            }
            "floor" => {
                only(cx, &c.kind, &given, &["z"])?;
                let z = match &c.z {
                    Some(z) => *z.get_ref() as f32,
                    None => 0.0,
                };
                walls.push(with(WallDesc::plane(Vec3::new(0.0, 0.0, z), Vec3::Z)));
            }
            "plane" => {
                only(cx, &c.kind, &given, &["point", "normal"])?;
                let p = finite3(cx, need(cx, &c.point, "point", &c.kind)?, "point")?;
                let nn = need(cx, &c.normal, "normal", &c.kind)?;
                let n = finite3(cx, nn, "normal")?;
                if n.length() == 0.0 {
                    return Err(cx.err(nn.span(), "normal", "must not be zero"));
                }
                walls.push(with(WallDesc::plane(p, n.normalize())));
            }
            "rectangle" => {
                only(
                    cx,
                    &c.kind,
                    &given,
                    &["centre", "normal", "u", "half_u", "half_v"],
                )?;
                let p = finite3(cx, need(cx, &c.centre, "centre", &c.kind)?, "centre")?;
                let nn = need(cx, &c.normal, "normal", &c.kind)?;
                let n = finite3(cx, nn, "normal")?;
                if n.length() == 0.0 {
                    return Err(cx.err(nn.span(), "normal", "must not be zero"));
                }
                let u = finite3(cx, need(cx, &c.u, "u", &c.kind)?, "u")?;
                let hu = positive(cx, need(cx, &c.half_u, "half_u", &c.kind)?, "half_u")?;
                let hv = positive(cx, need(cx, &c.half_v, "half_v", &c.kind)?, "half_v")?;
                walls.push(with(WallDesc::rectangle(p, n.normalize(), u, hu, hv)));
            }
            other => {
                return Err(cx.err(
                    c.kind.span(),
                    "kind",
                    format!(
                        "container kind must be \"box\", \"pour_box\", \"floor\", \"plane\" or \"rectangle\", got \"{other}\""
                    ),
                ))
            }
        }
    }

    // [[bodies]]
    let mut bodies: Vec<Body> = Vec::new();
    let mut groups = Vec::new();
    let mut origin_of: Vec<usize> = Vec::new(); // generator index of each body
    for (gi, g) in spec.bodies.iter().enumerate() {
        let start = bodies.len();
        generate(cx, g, settings.planar, &material, &shaker, &mut bodies)?;
        origin_of.resize(bodies.len(), gi);
        let name = match &g.name {
            Some(n) => {
                if groups.iter().any(|x: &Group| &x.name == n.get_ref()) {
                    return Err(cx.err(n.span(), "name", "two body groups share this name"));
                }
                n.get_ref().clone()
            }
            None => format!("bodies[{gi}]"),
        };
        groups.push(Group {
            name,
            range: start..bodies.len(),
        });
    }
    if bodies.is_empty() {
        return Err(SceneError::Invalid {
            file: cx.file.to_path_buf(),
            line: 1,
            key: "bodies".into(),
            problem: "the scene has no bodies: add at least one [[bodies]] generator".into(),
        });
    }
    if let Some((i, j, overlap)) = worst_overlap(&bodies, tol) {
        let g = &spec.bodies[origin_of[j]];
        return Err(cx.err(
            g.generator.span(),
            "bodies",
            format!(
                "bodies {i} and {j} overlap by {overlap:.3e} m at the start (more than {tol} of the smaller radius); body {j} comes from this generator, body {i} from the one on line {}",
                cx.line(spec.bodies[origin_of[i]].generator.span().start)
            ),
        ));
    }
    let links = links::links(
        cx,
        &spec.joints,
        &spec.springs,
        &spec.forces,
        &bodies,
        &groups,
    )?;

    // [output]
    let o = &spec.output;
    let total = (duration / h as f64).round().max(1.0) as u64;
    let every = match &o.every {
        Some(v) => count(cx, v, "every", 1)?,
        None => (total / 100).max(1),
    };
    let mut formats = Formats {
        vtu: true,
        csv: true,
        png: true,
    };
    if let Some(f) = &o.formats {
        formats = Formats {
            vtu: false,
            csv: false,
            png: false,
        };
        for name in f.get_ref() {
            match name.as_str() {
                "vtu" => formats.vtu = true,
                "csv" => formats.csv = true,
                "png" => formats.png = true,
                other => {
                    return Err(cx.err(
                        f.span(),
                        "formats",
                        format!("unknown format \"{other}\" (use \"vtu\", \"csv\", \"png\")"),
                    ))
                }
            }
        }
    }
    let frames = total.div_ceil(every).max(1);
    let output = Output {
        every,
        formats,
        png_every: match &o.png_every {
            Some(v) => count(cx, v, "png_every", 1)?,
            None => (frames / 10).max(1),
        },
        colour: match &o.colour {
            None => Colour::Size,
            Some(c) => match c.get_ref().as_str() {
                "size" => Colour::Size,
                "speed" => Colour::Speed,
                other => {
                    return Err(cx.err(
                        c.span(),
                        "colour",
                        format!("must be \"size\" or \"speed\", got \"{other}\""),
                    ))
                }
            },
        },
        checkpoint_every: match &o.checkpoint_every {
            Some(v) => count(cx, v, "checkpoint_every", 1)?,
            None => (total / 10).max(1),
        },
        observe_every: match &o.observe_every {
            Some(v) => count(cx, v, "observe_every", 1)?,
            None => every,
        },
        image_width: match &o.image_width {
            Some(v) => count(cx, v, "image_width", 64)?.min(8192) as u32,
            None => 800,
        },
        view_height: match &o.view_height {
            Some(v) => Some(positive(cx, v, "view_height")?),
            None => None,
        },
        section: match &o.view {
            None => !settings.planar,
            Some(v) => match v.get_ref().as_str() {
                "section" => true,
                "side" => false,
                other => {
                    return Err(cx.err(
                        v.span(),
                        "view",
                        format!("must be \"section\" or \"side\", got \"{other}\""),
                    ))
                }
            },
        },
    };

    // [[observables]]
    let mut observables = Vec::new();
    for ob in &spec.observables {
        let group = |ob: &ObservableSpec| -> Result<(String, Range<usize>), SceneError> {
            let b = need(cx, &ob.body, "body", &ob.kind)?;
            groups
                .iter()
                .find(|g| &g.name == b.get_ref())
                .map(|g| (g.name.clone(), g.range.clone()))
                .ok_or_else(|| {
                    cx.err(
                        b.span(),
                        "body",
                        format!("no body group named \"{}\"", b.get_ref()),
                    )
                })
        };
        let no_body = |ob: &ObservableSpec| match &ob.body {
            Some(b) => Err(cx.err(
                b.span(),
                "body",
                format!("not used by `{}`", ob.kind.get_ref()),
            )),
            None => Ok(()),
        };
        let (default_name, kind) = match ob.kind.get_ref().as_str() {
            "height" => {
                let (n, r) = group(ob)?;
                (format!("height_{n}_m"), ObservableKind::Height(r))
            }
            "rank_from_top" => {
                let (n, r) = group(ob)?;
                (format!("rank_{n}"), ObservableKind::RankFromTop(r))
            }
            "kinetic_energy" => {
                no_body(ob)?;
                ("kinetic_energy_J".into(), ObservableKind::KineticEnergy)
            }
            "contacts" => {
                no_body(ob)?;
                ("contacts".into(), ObservableKind::Contacts)
            }
            "bed_height" => {
                no_body(ob)?;
                ("bed_height_m".into(), ObservableKind::BedHeight)
            }
            "max_speed" => {
                no_body(ob)?;
                ("max_speed_m_per_s".into(), ObservableKind::MaxSpeed)
            }
            other => {
                return Err(cx.err(
                    ob.kind.span(),
                    "kind",
                    format!("observable kind must be \"height\", \"rank_from_top\", \"kinetic_energy\", \"contacts\", \"bed_height\" or \"max_speed\", got \"{other}\""),
                ))
            }
        };
        let name = ob
            .name
            .as_ref()
            .map(|n| n.get_ref().clone())
            .unwrap_or(default_name);
        if name.is_empty() || name.contains([',', '"', '\n', '/', '\\']) {
            let span = ob.name.as_ref().map(|n| n.span()).unwrap_or(ob.kind.span());
            return Err(cx.err(span, "name", "must be non-empty, without , \" / \\"));
        }
        observables.push(Observable { name, kind });
    }

    let scene = Scene {
        path: cx.file.to_path_buf(),
        name: meta.name.get_ref().clone(),
        description: meta.description.clone().unwrap_or_default(),
        duration,
        settings,
        materials,
        pairs,
        walls,
        bodies,
        groups,
        joints: links.joints,
        springs: links.springs,
        forces: links.forces,
        bounds,
        observables,
        output,
    };
    // Let the engine check everything else (masses, walls, …) now rather than at run time.
    scene.world(Some(1))?;
    Ok(scene)
}

/// Mass of a body of `form` and radius `r` from the generator's `mass` or `density`.
fn mass_of(cx: &Ctx, g: &BodySpec, r: f32, form: Form) -> Result<f32, SceneError> {
    match (&g.mass, &g.density) {
        (Some(m), None) => positive(cx, m, "mass"),
        (None, Some(d)) => Ok(form.mass(r, positive(cx, d, "density")?)),
        (Some(m), Some(_)) => {
            Err(cx.err(m.span(), "mass", "give either mass or density, not both"))
        }
        (None, None) => Err(cx.err(
            g.generator.span(),
            "density",
            "missing: give `density` (kg/m³, kg/m² for disks) or `mass` (kg)",
        )),
    }
}

type MatFn<'a> = dyn Fn(&Option<S<String>>) -> Result<MaterialId, SceneError> + 'a;
type ShakeFn<'a> = dyn Fn(&Option<S<String>>) -> Result<Option<Prescribed>, SceneError> + 'a;

fn generate(
    cx: &Ctx,
    g: &BodySpec,
    planar: bool,
    material: &MatFn,
    shaker: &ShakeFn,
    out: &mut Vec<Body>,
) -> Result<(), SceneError> {
    let kind = &g.generator;
    let given = [
        ("shape", sp(&g.shape)),
        ("radius", sp(&g.radius)),
        ("radius_max", sp(&g.radius_max)),
        ("density", sp(&g.density)),
        ("mass", sp(&g.mass)),
        ("inertia", sp(&g.inertia)),
        ("kind", sp(&g.kind)),
        ("shaker", sp(&g.shaker)),
        ("count", sp(&g.count)),
        ("packing_fraction", sp(&g.packing_fraction)),
        ("seed", sp(&g.seed)),
        ("position", sp(&g.position)),
        ("velocity", sp(&g.velocity)),
        ("angular_velocity", sp(&g.angular_velocity)),
        ("origin", sp(&g.origin)),
        ("spacing", sp(&g.spacing)),
        ("counts", sp(&g.counts)),
        ("jitter", sp(&g.jitter)),
        ("region_min", sp(&g.region_min)),
        ("region_max", sp(&g.region_max)),
        ("rows", sp(&g.rows)),
        ("centre_x", sp(&g.centre_x)),
        ("list", g.list.as_ref().map(|_| kind.span())),
        ("half_length", sp(&g.half_length)),
        ("a", sp(&g.a)),
        ("b", sp(&g.b)),
        ("axis", sp(&g.axis)),
    ];
    const COMMON: [&str; 12] = [
        "shape",
        "half_length",
        "a",
        "b",
        "axis",
        "density",
        "mass",
        "kind",
        "shaker",
        "velocity",
        "angular_velocity",
        "radius",
    ];
    fn allow<'a>(extra: &[&'a str]) -> Vec<&'a str> {
        COMMON
            .iter()
            .copied()
            .chain(extra.iter().copied())
            .collect()
    }
    let allowed = match kind.get_ref().as_str() {
        "single" => allow(&["position", "inertia"]),
        "list" => allow(&["list", "inertia"]),
        "pour_lattice" => vec!["count", "velocity", "angular_velocity", "kind", "shaker"],
        "lattice" => allow(&["origin", "spacing", "counts", "count", "jitter", "seed"]),
        "random_fill" => allow(&[
            "region_min",
            "region_max",
            "count",
            "packing_fraction",
            "seed",
            "radius_max",
        ]),
        "cannonball" => allow(&["rows", "centre_x"]),
        other => {
            return Err(cx.err(
                kind.span(),
                "generator",
                format!("must be \"single\", \"list\", \"lattice\", \"random_fill\", \"pour_lattice\" or \"cannonball\", got \"{other}\""),
            ))
        }
    };
    only(cx, kind, &given, &allowed)?;
    let form = Form::read(cx, g, planar)?;
    let mut axis = Axis::read(cx, g, form, planar, seed(g))?;
    let mat = material(&g.material)?;
    let motion = shaker(&g.shaker)?;
    let velocity = match &g.velocity {
        Some(v) => finite3(cx, v, "velocity")?,
        None => Vec3::ZERO,
    };
    let omega = match &g.angular_velocity {
        Some(v) => finite3(cx, v, "angular_velocity")?,
        None => Vec3::ZERO,
    };
    let inertia = match &g.inertia {
        Some(v) => Some(positive(cx, v, "inertia")?),
        None => None,
    };
    let body_kind = g
        .kind
        .as_ref()
        .map(|k| k.get_ref().as_str())
        .unwrap_or("dynamic");
    let make = |p: Vec3, r: f32, m: f32, v: Vec3, w: Vec3, q: Quat| -> Result<Body, SceneError> {
        let b = form.body(p, r, m);
        let b = Body {
            inertia: inertia.unwrap_or(b.inertia),
            ..b
        }
        .with_orientation(q)
        .with_material(mat)
        .with_velocity(v)
        .with_angular_velocity(w);
        match body_kind {
            "dynamic" => Ok(b),
            "fixed" => Ok(b.fixed()),
            "kinematic" => match motion {
                Some(m) => Ok(b.kinematic(m)),
                None => Err(cx.err(
                    kind.span(),
                    "shaker",
                    "missing: a kinematic body needs a `shaker`",
                )),
            },
            other => Err(cx.err(
                g.kind.as_ref().map(|k| k.span()).unwrap_or(kind.span()),
                "kind",
                format!("must be \"dynamic\", \"fixed\" or \"kinematic\", got \"{other}\""),
            )),
        }
    };
    let radius = |key_owner: &S<String>| form.radius(cx, &g.radius, key_owner);
    let mut turn = |entry: &Option<S<V3>>| axis.next(cx, entry, form, planar);
    // A body of radius r at p with the generator's mass, velocities and axis.
    let mut each = |p: Vec3, r: f32| -> Result<Body, SceneError> {
        make(
            p,
            r,
            mass_of(cx, g, r, form)?,
            velocity,
            omega,
            turn(&None)?,
        )
    };
    match kind.get_ref().as_str() {
        "single" => {
            let r = radius(kind)?;
            let p = finite3(cx, need(cx, &g.position, "position", kind)?, "position")?;
            out.push(each(p, r)?);
        }
        "list" => {
            let list = g
                .list
                .as_ref()
                .ok_or_else(|| cx.err(kind.span(), "list", "missing: required for `list`"))?;
            for e in list {
                let r = match &e.radius {
                    Some(_) => form.radius(cx, &e.radius, kind)?,
                    None => radius(kind)?,
                };
                let p = finite3(cx, &e.position, "position")?;
                let v = match &e.velocity {
                    Some(v) => finite3(cx, v, "velocity")?,
                    None => velocity,
                };
                let w = match &e.angular_velocity {
                    Some(v) => finite3(cx, v, "angular_velocity")?,
                    None => omega,
                };
                out.push(make(p, r, mass_of(cx, g, r, form)?, v, w, turn(&e.axis)?)?);
            }
        }
        "pour_lattice" => {
            if form == Form::Disk {
                return Err(cx.err(kind.span(), "generator", "the pour lattice is 3-D"));
            }
            let n = count(cx, need(cx, &g.count, "count", kind)?, "count", 1)? as usize;
            let mass = sphere_mass(crate::pour::RADIUS, crate::pour::DENSITY);
            for c in PourScene::new(n).centres() {
                out.push(make(
                    c,
                    crate::pour::RADIUS,
                    mass,
                    velocity,
                    omega,
                    Quat::IDENTITY,
                )?);
            }
        }
        "lattice" => {
            let r = radius(kind)?;
            let o = finite3(cx, need(cx, &g.origin, "origin", kind)?, "origin")?;
            let d = positive(cx, need(cx, &g.spacing, "spacing", kind)?, "spacing")? as f64;
            let cs = need(cx, &g.counts, "counts", kind)?;
            let [nx, ny, nz] = *cs.get_ref();
            if nx < 1 || ny < 1 || nz < 1 || (planar && ny != 1) {
                return Err(cx.err(
                    cs.span(),
                    "counts",
                    format!(
                        "must be ≥ 1 each (y count 1 in planar mode), got {:?}",
                        cs.get_ref()
                    ),
                ));
            }
            let (nx, ny, nz) = (nx as usize, ny as usize, nz as usize);
            let limit = match &g.count {
                Some(c) => count(cx, c, "count", 1)? as usize,
                None => nx * ny * nz,
            };
            let jitter = match &g.jitter {
                Some(j) => non_negative(cx, j, "jitter")? as f64,
                None => 0.0,
            };
            let mut rng = SplitMix64(seed(g));
            let m = mass_of(cx, g, r, form)?;
            for idx in 0..limit.min(nx * ny * nz) {
                let (i, j, k) = (idx % nx, (idx / nx) % ny, idx / (nx * ny));
                let mut jx = 0.0;
                let mut jy = 0.0;
                if jitter > 0.0 {
                    jx = jitter * r as f64 * (2.0 * rng.next_f64() - 1.0);
                    jy = jitter * r as f64 * (2.0 * rng.next_f64() - 1.0);
                }
                let p = Vec3::new(
                    (o.x as f64 + d * i as f64 + jx) as f32,
                    if planar {
                        0.0
                    } else {
                        (o.y as f64 + d * j as f64 + jy) as f32
                    },
                    (o.z as f64 + d * k as f64) as f32,
                );
                out.push(make(p, r, m, velocity, omega, turn(&None)?)?);
            }
        }
        "random_fill" => {
            let r0 = radius(kind)?;
            let r1 = match &g.radius_max {
                Some(v) => {
                    let r1 = positive(cx, v, "radius_max")?;
                    if r1 < r0 {
                        return Err(cx.err(v.span(), "radius_max", "must be ≥ radius"));
                    }
                    r1
                }
                None => r0,
            };
            let lo = finite3(
                cx,
                need(cx, &g.region_min, "region_min", kind)?,
                "region_min",
            )?;
            let hi_s = need(cx, &g.region_max, "region_max", kind)?;
            let hi = finite3(cx, hi_s, "region_max")?;
            if hi.x <= lo.x || hi.z <= lo.z || (!planar && hi.y <= lo.y) {
                return Err(cx.err(
                    hi_s.span(),
                    "region_max",
                    "must exceed region_min in every axis",
                ));
            }
            let target = match (&g.count, &g.packing_fraction) {
                (Some(c), None) => count(cx, c, "count", 1)? as usize,
                (None, Some(f)) if !form.is_round() => {
                    return Err(cx.err(
                        f.span(),
                        "packing_fraction",
                        "used only by spheres and disks: give `count`",
                    ))
                }
                (None, Some(f)) => {
                    let phi = positive(cx, f, "packing_fraction")? as f64;
                    if phi > 0.6 {
                        return Err(cx.err(
                            f.span(),
                            "packing_fraction",
                            format!("at most 0.6 can be reached by random placement, got {phi}"),
                        ));
                    }
                    let rm = 0.5 * (r0 + r1) as f64;
                    let e = (hi - lo).as_dvec3();
                    if planar {
                        (phi * e.x * e.z / (std::f64::consts::PI * rm * rm)).round() as usize
                    } else {
                        (phi * e.x * e.y * e.z / (4.0 / 3.0 * std::f64::consts::PI * rm.powi(3)))
                            .round() as usize
                    }
                }
                _ => {
                    return Err(cx.err(
                        kind.span(),
                        "count",
                        "give exactly one of `count` and `packing_fraction`",
                    ))
                }
            };
            let mut rng = SplitMix64(seed(g));
            let bound = |r: f32| form.bounding_radius(r);
            let placed = random_fill(&mut rng, lo, hi, (r0, r1), bound, target, planar, out);
            if placed.len() < target {
                return Err(cx.err(
                    kind.span(),
                    "count",
                    format!("only {} of {target} bodies fit in the region without overlap; enlarge the region or ask for fewer", placed.len()),
                ));
            }
            for (p, r) in placed {
                out.push(each(p, r)?);
            }
        }
        "cannonball" => {
            if !form.is_round() {
                return Err(cx.err(
                    g.shape.as_ref().map_or(kind.span(), |s| s.span()),
                    "shape",
                    "`cannonball` stacks spheres or disks",
                ));
            }
            let r = radius(kind)?;
            let rows = count(cx, need(cx, &g.rows, "rows", kind)?, "rows", 1)? as usize;
            let cxo = g
                .centre_x
                .as_ref()
                .map(|c| *c.get_ref() as f32)
                .unwrap_or(0.0);
            let m = mass_of(cx, g, r, form)?;
            let x0 = cxo - (rows as f32 - 1.0) * r;
            for row in 0..rows {
                for k in 0..rows - row {
                    let x = x0 + 2.0 * r * k as f32 + r * row as f32;
                    let z = r + row as f32 * 2.0 * r * (3.0f32).sqrt() / 2.0;
                    out.push(make(
                        Vec3::new(x, 0.0, z),
                        r,
                        m,
                        velocity,
                        omega,
                        Quat::IDENTITY,
                    )?);
                }
            }
        }
        _ => unreachable!("the generator's name was checked with its keys"),
    }
    Ok(())
}

fn seed(g: &BodySpec) -> u64 {
    g.seed.as_ref().map(|s| *s.get_ref() as u64).unwrap_or(1)
}

/// Random sequential placement of up to `target` bodies with radii uniform in `radii` = [r0, r1],
/// centres in [lo, hi] (y = 0 in planar mode), whose bounding spheres (radius `bound(r)`) do not
/// overlap each other nor those of `existing`.
#[allow(clippy::too_many_arguments)]
fn random_fill(
    rng: &mut SplitMix64,
    lo: Vec3,
    hi: Vec3,
    (r0, r1): (f32, f32),
    bound: impl Fn(f32) -> f32,
    target: usize,
    planar: bool,
    existing: &[Body],
) -> Vec<(Vec3, f32)> {
    // Cells of 2 bound(r1) hold every body no larger than the new ones, so a new body can only
    // touch those in the 27 cells around it; the few larger bodies (a Brazil nut) are checked
    // one by one rather than making every cell as large as they are.
    let cell = 2.0 * bound(r1);
    let mut grid: HashMap<(i32, i32, i32), Vec<(Vec3, f32)>> = HashMap::new();
    let key = |p: Vec3| {
        (
            (p.x / cell).floor() as i32,
            (p.y / cell).floor() as i32,
            (p.z / cell).floor() as i32,
        )
    };
    let mut large = Vec::new();
    for b in existing {
        let rb = b.shape.bounding_radius(b.radius);
        if rb > bound(r1) {
            large.push((b.position, rb));
        } else {
            grid.entry(key(b.position))
                .or_default()
                .push((b.position, rb));
        }
    }
    let mut placed = Vec::with_capacity(target);
    let mut failures = 0usize;
    let max_failures = 2000 + 200 * target;
    while placed.len() < target && failures < max_failures {
        let u = |rng: &mut SplitMix64, a: f32, b: f32| a + (b - a) * rng.next_f64() as f32;
        let r = if r1 > r0 { u(rng, r0, r1) } else { r0 };
        let p = Vec3::new(
            u(rng, lo.x, hi.x),
            if planar { 0.0 } else { u(rng, lo.y, hi.y) },
            u(rng, lo.z, hi.z),
        );
        let (k, rp) = (key(p), bound(r));
        let mut free = large.iter().all(|(q, rq)| (p - *q).length() >= rp + rq);
        'scan: for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    if let Some(v) = grid.get(&(k.0 + dx, k.1 + dy, k.2 + dz)) {
                        if v.iter().any(|(q, rq)| (p - *q).length() < rp + rq) {
                            free = false;
                            break 'scan;
                        }
                    }
                }
            }
        }
        if free {
            grid.entry(k).or_default().push((p, rp));
            placed.push((p, r));
        } else {
            failures += 1;
        }
    }
    placed
}

/// The pair of bodies overlapping most beyond `tol` × the smaller radius: (i, j, overlap in m),
/// the overlap being −Φ of their nearest points ([`contact_points`]; pairs the narrow phase does
/// not detect never overlap). Pairs of bodies that cannot move (fixed or kinematic) are skipped:
/// they never touch, so fixed spheres may intersect to make one rigid surface (V12's two
/// spheres).
fn worst_overlap(bodies: &[Body], tol: f32) -> Option<(usize, usize, f32)> {
    let reach = |b: &Body| b.shape.bounding_radius(b.radius);
    let rmax = bodies.iter().map(reach).fold(0.0f32, f32::max);
    let cell = (2.0 * rmax).max(1e-9);
    let mut grid: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
    let key = |p: Vec3| {
        (
            (p.x / cell).floor() as i64,
            (p.y / cell).floor() as i64,
            (p.z / cell).floor() as i64,
        )
    };
    for (i, b) in bodies.iter().enumerate() {
        grid.entry(key(b.position)).or_default().push(i);
    }
    let placed = |b: &Body| Placed {
        centre: b.position,
        q: b.orientation,
        radius: b.radius,
        shape: b.shape,
    };
    let mut worst: Option<(usize, usize, f32)> = None;
    for (j, b) in bodies.iter().enumerate() {
        let k = key(b.position);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let Some(v) = grid.get(&(k.0 + dx, k.1 + dy, k.2 + dz)) else {
                        continue;
                    };
                    let moves = |b: &Body| b.kind == BodyKind::Dynamic;
                    for &i in v.iter().filter(|&&i| i < j) {
                        let a = &bodies[i];
                        if !(moves(a) || moves(b)) {
                            continue;
                        }
                        let overlap = contact_points(&placed(a), &placed(b))
                            .into_iter()
                            .flatten()
                            .map(|t| -t.phi)
                            .fold(f32::NEG_INFINITY, f32::max);
                        if overlap > tol * a.radius.min(b.radius)
                            && worst.is_none_or(|w| overlap > w.2)
                        {
                            worst = Some((i, j, overlap));
                        }
                    }
                }
            }
        }
    }
    worst
}
