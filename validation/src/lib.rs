//! The source papers' validation cases and the exact reference solvers they are checked against.
//!
//! Each case is one [`Case`] in its group's file under [`cases`]: its id, title and scene files,
//! what the papers expect, how it runs and how its measurement is judged. [`cases::CASES`] lists
//! them; [`run_case`] evaluates one into a [`CaseResult`], which [`report`] prints as a one-line
//! summary, in full, or as the Markdown table of `docs/validation.md`. A case's world comes from
//! its scene file in `scenes/` (so the program, the tests and a user all run the same thing) or,
//! for the papers' small systems compared step by step with an exact reference, from code.

#![warn(missing_docs)]

use grains_app::scene::{Scene, SceneError};
use std::path::{Path, PathBuf};

pub mod agreement;
pub mod case;
pub mod cases;
pub mod reference;
pub mod report;
pub mod repose;

pub use case::{Case, CaseResult, Registered, Setup, Status};
pub use cases::{find, run_case};

/// Gravity of the papers' examples (m/s²).
pub const G: f32 = 9.81;

/// The `scenes/` folder of this source tree.
pub fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("scenes")
}

/// Loads `scenes/<name>.toml` from `dir`.
pub fn load(dir: &Path, name: &str) -> Result<Scene, SceneError> {
    Scene::load(dir.join(format!("{name}.toml")))
}

/// Loads `scenes/<name>.toml` from `dir` after `edit` changes its TOML table (a variant of a
/// case: another friction, another stack size), checked like any scene file.
pub fn load_variant(
    dir: &Path,
    name: &str,
    edit: impl FnOnce(&mut toml::Table),
) -> Result<Scene, SceneError> {
    let path = dir.join(format!("{name}.toml"));
    let src = std::fs::read_to_string(&path).map_err(|e| SceneError::Read {
        file: path.clone(),
        reason: e.to_string(),
    })?;
    let mut table: toml::Table = src
        .parse()
        .map_err(|e: toml::de::Error| SceneError::Invalid {
            file: path.clone(),
            line: 0,
            key: String::new(),
            problem: e.to_string(),
        })?;
    edit(&mut table);
    Scene::parse(&path, &toml::to_string(&table).unwrap_or_default())
}
