//! Scene files: a TOML description of a world (settings, materials, walls, shakers, bodies),
//! what to write while it runs and what to track. The format is documented in
//! `scenes/README.md`; [`Scene::load`] reads a file, [`Scene::world`] builds its world.
//!
//! One file per table or group of tables: `settings` (`[scene]`, `[settings]`), `materials`
//! (`[[materials]]`, `[[friction_pairs]]`), `walls` (`[[shakers]]`, `[[containers]]`), `meshes`
//! (`[[meshes]]`), `bodies`,
//! `generators`, `form` and `placement` (`[[bodies]]`), `links` (`[[joints]]`, `[[springs]]`,
//! `[[forces]]`), `output` (`[output]`, `[[observables]]`), `loads` (the walls that
//! `wall_force` and `wall_torque` observables name), `lifecycle` (`[[insert]]`, `[[sink]]`). The file is read into a [`WorldBuilder`]; the engine
//! checks it once, when the world is built, and `origin` reports a refusal at the line and
//! key that caused it.

mod bodies;
mod bonds;
mod clumps;
mod fields;
mod fluid;
mod form;
mod generators;
mod lifecycle;
mod links;
mod loads;
mod materials;
mod meshes;
mod origin;
mod output;
mod periodic;
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub mod placement;
mod polyhedra;
mod round_fill;
mod round_walls;
mod settings;
pub mod spec;
mod values;
mod walls;

pub use crate::bounds::Bounds;
pub use fields::FieldsOutput;
pub use loads::Component;
pub use output::{Colour, Formats, Observable, ObservableKind, Output, ViewExtent};

use crate::one_line::path_shown;
use grains::error::BuildError;
use grains::settings::{Backend, Settings};
use grains::world::World;
use grains::WorldBuilder;
use origin::Origins;
use spec::SceneSpec;
use std::ops::Range;
use std::path::{Path, PathBuf};
use thiserror::Error;
use values::Ctx;

/// The most bodies a scene may make, all generators together (a larger `count`, `counts`,
/// `rows`, `n` or list is refused before anything is allocated).
pub const MAX_BODIES: usize = 100_000_000;

/// The most worker threads a scene's `threads` may ask for: the engine's bound.
pub use grains::settings::MAX_THREADS;

/// The largest scene file read, in bytes (16 MiB); a larger one is refused.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Why a scene file could not be used. Every variant names the file; those about a value also
/// give its line and key.
#[derive(Debug, Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error(
        "{}: cannot read: {}",
        path_shown(file),
        crate::one_line::shown(reason, usize::MAX)
    )]
    Read {
        /// The scene file.
        file: PathBuf,
        /// The system's reason.
        reason: String,
    },
    /// A value is missing, unknown, of the wrong type or out of range.
    #[error("{}:{line}: key `{key}`: {problem}", path_shown(file))]
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
    /// The engine refused the world the file describes for a reason no key of the file gives
    /// (the worker threads, the GPU).
    #[error("{}: {source}", path_shown(file))]
    Build {
        /// The scene file.
        file: PathBuf,
        /// The engine's reason.
        source: BuildError,
    },
}

/// A scene file's path for an error line: its control characters written as escapes.
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

/// A read scene: the world it describes, not yet built, and what the app needs to run it.
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
    /// The world: settings (threads as written in the file; the runner may override),
    /// materials, walls, bodies, joints, springs and forces.
    builder: WorldBuilder,
    /// Where each item of `builder` was written, to report the engine's refusals.
    origins: Origins,
    /// Named groups of bodies.
    pub groups: Vec<Group>,
    /// The materials' names, in the order of their ids.
    pub material_names: Vec<String>,
    /// The box grains should stay in (the first box container), if any.
    pub bounds: Option<Bounds>,
    /// Every box container, in the scene's order (the first is `bounds`): the floors and
    /// side walls of the quality figures' overlaps.
    pub boxes: Vec<Bounds>,
    /// Time series to record.
    pub observables: Vec<Observable>,
    /// What to write.
    pub output: Output,
    /// The coarse-grained fields to write (`[fields]`), if any.
    pub fields: Option<FieldsOutput>,
    /// The text the scene was parsed from, which a run copies into its folder as it was
    /// read (the file is read once: a change to it after [`Scene::load`] is not copied).
    source: String,
}

impl Scene {
    /// Reads the scene file at `path` and checks what the file format knows (see
    /// [`Scene::parse`]).
    pub fn load(path: impl AsRef<Path>) -> Result<Scene, SceneError> {
        let path = path.as_ref();
        let unreadable = |reason: String| SceneError::Read {
            file: path.to_path_buf(),
            reason,
        };
        // A FIFO (no writer: `open` would block for ever), a device or a folder is refused
        // before it is opened.
        let bytes =
            crate::input::read_regular(path, MAX_FILE_BYTES, "a scene file").map_err(unreadable)?;
        let src =
            String::from_utf8(bytes).map_err(|e| unreadable(format!("not UTF-8 text ({e})")))?;
        Scene::parse(path, &src)
    }

    /// Checks the scene text `src`, reporting errors against the file name `path`. The values
    /// the engine checks are checked when the world is built ([`Scene::world`]). `src` is
    /// kept ([`Scene::source`]); `path` need not exist.
    pub fn parse(path: &Path, src: &str) -> Result<Scene, SceneError> {
        let cx = Ctx { file: path, src };
        let spec: SceneSpec = toml::from_str(src).map_err(|e| cx.toml_error(&e))?;
        build(&cx, spec)
    }

    /// The text the scene was parsed from (what a run writes as its folder's `scene.toml`).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The world the scene describes, before it is built.
    pub fn builder(&self) -> &WorldBuilder {
        &self.builder
    }

    /// Frees the scene's bodies once its world is built ([`grains::WorldBuilder::forget_bodies`]):
    /// the world holds them (a rank of a distributed one, its own), so a run keeps no second
    /// copy of every body. A world built from the scene after this has no bodies.
    pub fn forget_bodies(&mut self) {
        self.builder.forget_bodies();
    }

    /// The settings the world will be built with.
    pub fn settings(&self) -> &Settings {
        self.builder.settings()
    }

    /// The settings, to change before the world is built.
    pub fn settings_mut(&mut self) -> &mut Settings {
        self.builder.settings_mut()
    }

    /// Builds the world with `threads` worker threads (None: as the file says).
    pub fn world(&self, threads: Option<usize>) -> Result<World, SceneError> {
        self.world_with(threads, None)
    }

    /// Builds the world with `threads` worker threads and on `backend` (None: as the file says).
    /// A value the engine refuses is reported at its line and key.
    pub fn world_with(
        &self,
        threads: Option<usize>,
        backend: Option<Backend>,
    ) -> Result<World, SceneError> {
        let mut world = self.builder.clone();
        let settings = world.settings_mut();
        if let Some(t) = threads {
            settings.threads = t;
        }
        if let Some(b) = backend {
            settings.backend = b;
        }
        world
            .build()
            .map_err(|e| self.origins.refusal(&self.path, e))
    }

    /// The scene error for `e`, a refusal of a world built from this scene (naming the file,
    /// line and key where the error names an item of it).
    pub fn refusal(&self, e: grains::BuildError) -> SceneError {
        self.origins.refusal(&self.path, e)
    }

    /// The refusal of `[fields]` where a run cannot write them (`problem`).
    pub fn fields_refusal(&self, problem: &str) -> SceneError {
        let line = self.fields.as_ref().map_or(1, |f| f.line);
        self.invalid_at("fields", line, problem)
    }

    /// The refusal of `"meshes"` frames where a run cannot write them (`problem`).
    pub fn meshes_refusal(&self, problem: &str) -> SceneError {
        self.invalid_at("formats", self.output.formats_line, problem)
    }

    /// The refusal of `frame_stress` where a run cannot write it (`problem`).
    pub fn frame_stress_refusal(&self, problem: &str) -> SceneError {
        self.invalid_at("frame_stress", self.output.frame_stress_line, problem)
    }

    /// The error "`key` at `line` of this scene's file: `problem`".
    fn invalid_at(&self, key: &str, line: usize, problem: &str) -> SceneError {
        SceneError::Invalid {
            file: self.path.clone(),
            line,
            key: key.into(),
            problem: problem.into(),
        }
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
        steps_in(self.duration, self.settings().h)
    }

    /// Makes the run `n` steps long instead of the scene's duration; more than [`MAX_STEPS`] is
    /// refused with the reason.
    pub fn run_for_steps(&mut self, n: u64) -> Result<(), String> {
        if n > MAX_STEPS {
            return Err(format!(
                "more than the {MAX_STEPS} steps a run counts exactly"
            ));
        }
        self.duration = n as f64 * self.settings().h as f64;
        Ok(())
    }

    /// Makes the run end at time `t` (s) instead of the scene's duration; a time shorter than
    /// half a step, which leaves nothing to run, or one of more steps than a run counts exactly
    /// ([`MAX_STEPS`]) is refused with the reason.
    pub fn run_until(&mut self, t: f64) -> Result<(), String> {
        let h = self.settings().h;
        if steps_in(t, h) == 0 {
            return Err(format!(
                "shorter than half a step (h = {h} s); nothing to run"
            ));
        }
        if t / h as f64 > MAX_STEPS as f64 {
            return Err(format!(
                "{:.3e} steps of h = {h} s, more than the {MAX_STEPS} a run counts exactly",
                t / h as f64
            ));
        }
        self.duration = t;
        Ok(())
    }
}

/// The most steps a run may take: 2^53, below which the simulated time steps × h is exact in
/// f64 and the step count converts without rounding.
pub const MAX_STEPS: u64 = 1 << 53;

/// The steps of length `h` in `duration`, rounded.
fn steps_in(duration: f64, h: f32) -> u64 {
    (duration / h as f64).round().max(0.0) as u64
}

/// Reads the tables in order: each one may refer to those before it by name.
fn build(cx: &Ctx, spec: SceneSpec) -> Result<Scene, SceneError> {
    let meta = settings::meta(cx, &spec.scene)?;
    let (mut settings, settings_origin) = settings::settings(cx, &spec.settings)?;
    settings.periodic = periodic::periodic(cx, &spec.periodic)?;
    let mut origins = Origins {
        settings: fluid::origin(
            cx,
            &spec.fluid,
            periodic::origin(cx, &spec.periodic, settings_origin),
        ),
        ..Origins::default()
    };
    let mut world = WorldBuilder::new(settings);
    let materials = materials::materials(
        cx,
        &spec.materials,
        &spec.friction_pairs,
        &mut world,
        &mut origins,
    )?;
    fluid::fluid(cx, &spec.fluid, &mut world)?;
    if let Some(field) = fluid::flow_field(cx, &spec.fluid)? {
        world.flow_field(field);
    }
    let shakers = walls::shakers(cx, &spec.shakers)?;
    let clumps = clumps::clumps(cx, &spec.clumps, &mut world)?;
    let (boxes, mut named_walls) = walls::containers(
        cx,
        &spec.containers,
        &materials,
        &shakers,
        &mut world,
        &mut origins,
    )?;
    meshes::meshes(
        cx,
        &spec.meshes,
        (&materials, &shakers),
        &mut world,
        &mut origins,
        &mut named_walls,
    )?;
    let (bodies, groups, hulls) = bodies::bodies(
        cx,
        &spec.bodies,
        settings.planar,
        meta.overlap_tolerance,
        (&materials, &clumps),
        &shakers,
        &mut origins,
    )?;
    periodic::check_seams(
        cx,
        &spec.periodic,
        &settings.periodic,
        &bodies,
        meta.overlap_tolerance,
    )?;
    if bodies.is_empty() && spec.insert.is_empty() {
        return Err(SceneError::Invalid {
            file: cx.file.to_path_buf(),
            line: 1,
            key: "bodies".into(),
            problem:
                "the scene has no bodies: add at least one [[bodies]] generator or [[insert]] table"
                    .into(),
        });
    }
    for h in &hulls {
        world.hull(h);
    }
    for b in bodies {
        world.body(b);
    }
    let links = links::links(
        cx,
        &spec.joints,
        &spec.springs,
        &spec.forces,
        world.bodies(),
        &groups,
        &mut origins,
    )?;
    links.add_to(&mut world);
    bonds::bonds(cx, &spec.bonds, &groups, &mut world, &mut origins)?;
    let sinks = lifecycle::lifecycle(
        cx,
        (&spec.insert, &spec.sink),
        (&materials, &clumps),
        &mut world,
        &mut origins,
    )?;
    let steps = (meta.duration / settings.h as f64).round();
    if steps < 1.0 {
        return Err(cx.err(
            spec.scene.duration.span(),
            "duration",
            format!(
                "{} s is less than half a step of h = {} s: the run would take no step",
                meta.duration, settings.h
            ),
        ));
    }
    if steps > MAX_STEPS as f64 {
        return Err(cx.err(
            spec.scene.duration.span(),
            "duration",
            format!(
                "{:?} s is {steps:.3e} steps of h = {} s, more than the {MAX_STEPS} a run counts exactly",
                meta.duration, settings.h
            ),
        ));
    }
    let steps = steps as u64;
    let output = output::output(cx, &spec.output, steps, settings.planar)?;
    let observables = output::observables(cx, &spec.observables, &groups, &named_walls, &sinks)?;
    let fields = fields::fields(cx, &spec.fields, output.every)?;
    Ok(Scene {
        path: cx.file.to_path_buf(),
        name: spec.scene.name.get_ref().clone(),
        description: spec.scene.description.clone().unwrap_or_default(),
        duration: meta.duration,
        builder: world,
        origins,
        groups,
        material_names: materials.list().to_vec(),
        bounds: boxes.first().copied(),
        boxes,
        observables,
        output,
        fields,
        source: cx.src.to_string(),
    })
}
