//! What a validation case is: its description ([`About`]), what the papers expect, how it runs
//! and how its measurement is judged ([`Case`]), and what `grains validate` reports of it
//! ([`CaseResult`]). [`crate::cases::run_case`] looks a case up in the registry,
//! [`crate::cases::CASES`].

use crate::{load, load_variant};
use grains::settings::Backend;
use grains::world::World;
use grains::{Solver, SolverKind};
use grains_app::scene::{Scene, SceneError};
use std::error::Error;
use std::path::PathBuf;

/// A case's name and where its worlds come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct About {
    /// Case id (V1 … V26).
    pub id: &'static str,
    /// A few words saying what the case is, for the one-line summary.
    pub title: &'static str,
    /// The scene files (names in `scenes/`, without `.toml`) its worlds come from; empty where
    /// the case builds its small system in code to compare it step by step with an exact
    /// reference.
    pub scenes: &'static [&'static str],
}

/// Where the cases run: the folder of their scene files, the worker threads, the backend and
/// the solver.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// Folder with the scene files (normally [`crate::scenes_dir`]).
    pub scenes: PathBuf,
    /// Worker threads (None: each world's default).
    pub threads: Option<usize>,
    /// Backend for the cases that run a scene file as it stands (None: each scene's own).
    pub backend: Option<Backend>,
    /// The iteration that solves every case's CCP in place of the case's own (None: each case's
    /// own): it keeps the case's sweeps, tolerance and ω (see [`Setup::solver_for`]). Cases that
    /// compare named iterations (V2's Coulomb correction) keep them.
    pub solver: Option<SolverKind>,
}

impl Setup {
    /// The iteration a case whose own is `own` runs: the override [`Setup::solver`], else `own`.
    pub fn solver_kind(&self, own: SolverKind) -> SolverKind {
        self.solver.unwrap_or(own)
    }

    /// The solver a case whose own is `own` runs: `own`'s sweeps, tolerance and ω on
    /// [`Setup::solver_kind`]. Every case that runs the engine's CCP takes its solver from here,
    /// whether its world comes from a scene file ([`Setup::scene`], [`Setup::variant`]) or
    /// from code.
    pub fn solver_for(&self, own: Solver) -> Solver {
        own.with_kind(self.solver_kind(own.kind()))
    }

    /// `scenes/<name>.toml` after `edit` changes its TOML table (a variant of a case: another
    /// friction, another stack size; see [`load_variant`]), with the solver of
    /// [`Setup::solver_for`] on the scene's own backend.
    pub fn variant(
        &self,
        name: &str,
        edit: impl FnOnce(&mut toml::Table),
    ) -> Result<Scene, SceneError> {
        let mut scene = load_variant(&self.scenes, name, edit)?;
        self.override_solver(&mut scene);
        Ok(scene)
    }

    /// Gives `scene` the solver of [`Setup::solver_for`].
    fn override_solver(&self, scene: &mut Scene) {
        scene.settings_mut().solver = self.solver_for(scene.settings().solver);
    }

    /// `scenes/<name>.toml`, with the solver of [`Setup::solver_for`] on the chosen backend. On
    /// the GPU backend the scene runs at tolerance 0 (exactly its `max_iterations` sweeps,
    /// with its ω) by APGD when [`Setup::solver`] asks for it, else by projected Jacobi: the
    /// GPU has no Gauss–Seidel.
    pub fn scene(&self, name: &str) -> Result<Scene, SceneError> {
        let mut scene = load(&self.scenes, name)?;
        self.override_solver(&mut scene);
        if let Some(backend) = self.backend {
            scene.settings_mut().backend = backend;
        }
        if self.backend == Some(Backend::Gpu) {
            scene.settings_mut().solver = scene
                .settings()
                .solver
                .with_kind(match self.solver {
                    Some(SolverKind::Apgd) => SolverKind::Apgd,
                    _ => SolverKind::Jacobi,
                })
                .with_tolerance(0.0);
        }
        Ok(scene)
    }

    /// The world of `scenes/<name>.toml` on the chosen backend, and the scene's step count.
    pub fn scene_run(&self, name: &str) -> Result<(World, u64), SceneError> {
        let scene = self.scene(name)?;
        Ok((scene.world(self.threads)?, scene.total_steps()))
    }
}

impl Default for Setup {
    /// The cases' own scene files, each world's threads, each scene's backend and each case's
    /// solver.
    fn default() -> Self {
        Setup {
            scenes: crate::scenes_dir(),
            threads: None,
            backend: None,
            solver: None,
        }
    }
}

/// Why a case could not be measured: a scene file, a world or a reference computation failed.
pub type CaseError = Box<dyn Error>;

/// One validation case. Implemented once per case, in its group's file under
/// [`crate::cases`], and listed in [`crate::cases::CASES`].
pub trait Case: Sync {
    /// What a run measures.
    type Measured;

    /// Its id, title and scene files.
    const ABOUT: About;

    /// What the papers expect, in one line.
    fn expected(&self) -> String;

    /// Runs the case's worlds (and references) and measures them.
    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError>;

    /// Whether the measurement meets the expectation.
    fn verdict(&self, measured: &Self::Measured) -> bool;

    /// The figure the verdict mostly rests on, in a few words.
    fn key_figure(&self, measured: &Self::Measured) -> String;

    /// Everything measured, in one line.
    fn measured(&self, measured: &Self::Measured) -> String;

    /// Further lines (a table, one line per run) printed under the case; none by default.
    fn details(&self, _measured: &Self::Measured) -> Vec<String> {
        Vec::new()
    }
}

/// A case as the registry holds it, whatever it measures.
pub trait Registered: Sync {
    /// Its id, title and scene files.
    fn about(&self) -> About;

    /// Runs it in `setup` and judges the measurement.
    fn evaluate(&self, setup: &Setup) -> CaseResult;
}

impl<C: Case> Registered for C {
    fn about(&self) -> About {
        C::ABOUT
    }

    fn evaluate(&self, setup: &Setup) -> CaseResult {
        let about = C::ABOUT;
        let expected = self.expected();
        match self.run(setup) {
            Ok(m) => CaseResult {
                id: about.id,
                title: about.title,
                scenes: about.scenes,
                expected,
                key_figure: self.key_figure(&m),
                measured: self.measured(&m),
                status: if self.verdict(&m) {
                    Status::Pass
                } else {
                    Status::Fail
                },
                details: self.details(&m),
            },
            Err(e) => {
                let error = format!("error: {e}");
                CaseResult {
                    id: about.id,
                    title: about.title,
                    scenes: about.scenes,
                    expected,
                    key_figure: error.clone(),
                    measured: error,
                    status: Status::Fail,
                    details: Vec::new(),
                }
            }
        }
    }
}

/// Verdict of a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Status {
    /// The measurement meets the expectation.
    Pass,
    /// It does not, or the case could not run.
    Fail,
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
        })
    }
}

/// What `grains validate` reports of one case.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CaseResult {
    /// Case id (V1 … V26).
    pub id: &'static str,
    /// What the case is, in a few words.
    pub title: &'static str,
    /// Its scene files (empty: built in code).
    pub scenes: &'static [&'static str],
    /// What the papers expect.
    pub expected: String,
    /// The figure the verdict mostly rests on (or the error).
    pub key_figure: String,
    /// Everything measured (or the error).
    pub measured: String,
    /// Verdict.
    pub status: Status,
    /// Further lines (a table) printed under the case; empty for most cases.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}
