//! The solvers' convergence study (`grains bench SCENE --convergence DIR`): the residual of one
//! rigid step's CCP against sweeps and against wall time, cold and warm-started, for projected
//! Gauss–Seidel, projected Jacobi and APGD, all from the same settled state.
//!
//! The scene runs its full duration with rigid contact (`contact_frequency` = ∞), solved by APGD
//! with at most [`SETTLE_SWEEPS`] sweeps a step: the bed settles as a rigid bed (settling with
//! compliant contact and then switching would leave overlaps that the first rigid steps must
//! push out, a poor and hard start); that state, with its warm-start memory, is kept. Each curve then restores it and takes
//! one rigid step with one solver, cold (no warm start) or warm (last step's impulses), stopping
//! at a tenth of the target or the sweep cap, and records every sweep's residual (the projected
//! gradient W (γ − γ⁺)/ω of [`grains::Solver`], m/s) and time.

use crate::output::image::{log_plot, Curve};
use crate::output::write_atomic;
use crate::scene::Scene;
use grains::{Settings, SolverKind, SweepRecord, World};
use std::fmt::Write as _;
use std::path::Path;

/// Each solver's ω in the study: Gauss–Seidel's 1; Jacobi's 0.3, the largest that keeps it
/// stable on dense piles; APGD's starting step, the same 0.3 (it shortens it itself if needed).
pub const STUDY_OMEGA: [(SolverKind, f32); 3] = [
    (SolverKind::GaussSeidel, 1.0),
    (SolverKind::Jacobi, 0.3),
    (SolverKind::Apgd, 0.3),
];

/// Most APGD sweeps per step while the scene settles with rigid contact (enough to bring the
/// 27,000-grain pour to rest, [docs/solvers.md](../../docs/solvers.md)).
pub const SETTLE_SWEEPS: u32 = 100;

/// What the study measures.
#[derive(Clone, Copy, Debug)]
pub struct StudyOptions {
    /// Worker threads (`None`: the scene's).
    pub threads: Option<usize>,
    /// Most sweeps of a curve.
    pub max_sweeps: u32,
    /// The residual (m/s) the table reports sweeps and seconds to; curves run to a tenth of it.
    pub target: f32,
}

/// One solver's history from one start.
pub struct History {
    /// The solver.
    pub solver: SolverKind,
    /// Its ω.
    pub omega: f32,
    /// Warm-started from the last step's impulses (else from zero).
    pub warm: bool,
    /// Every sweep.
    pub sweeps: Vec<SweepRecord>,
}

impl History {
    /// "apgd, warm" and the like.
    pub fn label(&self) -> String {
        let start = if self.warm { "warm" } else { "cold" };
        format!("{}, {start}", self.solver.name())
    }

    /// The first sweep (1-based) whose residual is at most `level`, and its time.
    pub fn reached(&self, level: f32) -> Option<(usize, f64)> {
        self.sweeps
            .iter()
            .position(|s| s.residual <= level)
            .map(|k| (k + 1, self.sweeps[k].seconds))
    }
}

/// The study's result.
pub struct Study {
    /// The scene's name.
    pub scene: String,
    /// Bodies in the world.
    pub bodies: usize,
    /// Contacts of the studied step.
    pub contacts: usize,
    /// Worker threads.
    pub threads: usize,
    /// The options it ran with.
    pub options: StudyOptions,
    /// One history per solver and start.
    pub histories: Vec<History>,
}

/// Runs the study on `scene` (see the module's documentation); `progress` hears each phase.
pub fn convergence_study(
    scene: &Scene,
    options: StudyOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Study, String> {
    let mut world = scene.world(options.threads).map_err(|e| e.to_string())?;
    let rigid = Settings {
        contact_frequency: f32::INFINITY,
        warm_start: 1.0,
        solver: world
            .settings()
            .solver
            .with_kind(SolverKind::Apgd)
            .with_omega(0.3)
            .with_sweeps(SETTLE_SWEEPS)
            .with_tolerance(options.target / 10.0),
        ..*world.settings()
    };
    set(&mut world, &rigid)?;
    let steps = scene.total_steps();
    progress(&format!(
        "settling: {steps} steps of the scene with rigid contact, APGD at most {SETTLE_SWEEPS} sweeps ({} bodies)",
        world.bodies().len()
    ));
    for _ in 0..steps {
        world.step().map_err(|e| e.to_string())?;
    }
    let settled = world.snapshot().map_err(|e| e.to_string())?;
    let mut histories = Vec::new();
    let mut contacts = 0;
    for (solver, omega) in STUDY_OMEGA {
        for warm in [false, true] {
            progress(&format!(
                "{}, {}",
                solver.name(),
                if warm { "warm" } else { "cold" }
            ));
            set(&mut world, &rigid)?;
            world.restore(&settled).map_err(|e| e.to_string())?;
            let curve = Settings {
                warm_start: if warm { 1.0 } else { 0.0 },
                solver: rigid
                    .solver
                    .with_kind(solver)
                    .with_omega(omega)
                    .with_sweeps(options.max_sweeps),
                ..rigid
            };
            set(&mut world, &curve)?;
            let stats = world.step().map_err(|e| e.to_string())?;
            contacts = stats.contacts;
            histories.push(History {
                solver,
                omega,
                warm,
                sweeps: world.sweep_trace().to_vec(),
            });
        }
    }
    Ok(Study {
        scene: scene.name.clone(),
        bodies: world.bodies().len(),
        contacts,
        threads: world.settings().threads,
        options,
        histories,
    })
}

fn set(world: &mut World, settings: &Settings) -> Result<(), String> {
    world.set_settings(*settings).map_err(|e| e.to_string())
}

impl Study {
    /// The Markdown table: sweeps and seconds to reach 1e-4, the target and a tenth of it.
    pub fn table(&self) -> String {
        let t = self.options.target;
        let levels = [t * 10.0, t, t / 10.0];
        let mut out = format!(
            "{}: {} bodies, {} contacts, rigid contact, {} threads, at most {} sweeps\n\n\
             | solver, start | ω | sweeps to {:.0e} | to {:.0e} | to {:.0e} | seconds to {:.0e} | last residual (m/s) |\n\
             |---|---|---|---|---|---|---|\n",
            self.scene, self.bodies, self.contacts, self.threads, self.options.max_sweeps,
            levels[0], levels[1], levels[2], t
        );
        for h in &self.histories {
            let sweeps = levels.map(|l| match h.reached(l) {
                Some((k, _)) => k.to_string(),
                None => format!("> {}", h.sweeps.len()),
            });
            let seconds = match h.reached(t) {
                Some((_, s)) => format!("{s:.3}"),
                None => "–".into(),
            };
            let last = h.sweeps.last().map_or(f32::NAN, |s| s.residual);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {seconds} | {last:.2e} |",
                h.label(),
                h.omega,
                sweeps[0],
                sweeps[1],
                sweeps[2]
            );
        }
        out
    }

    /// Writes `convergence.csv` (one row per sweep), `convergence.md` (the table) and the plots
    /// `convergence_sweeps.png` and `convergence_time.png` into `dir` (created if missing).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let mut csv = String::from("scene,solver,omega,start,sweep,residual_m_per_s,seconds\n");
        for h in &self.histories {
            let start = if h.warm { "warm" } else { "cold" };
            for (k, s) in h.sweeps.iter().enumerate() {
                let _ = writeln!(
                    csv,
                    "{},{},{},{start},{},{:e},{:e}",
                    self.scene,
                    h.solver.name(),
                    h.omega,
                    k + 1,
                    s.residual,
                    s.seconds
                );
            }
        }
        write_atomic(&dir.join("convergence.csv"), csv.as_bytes())?;
        write_atomic(&dir.join("convergence.md"), self.table().as_bytes())?;
        let labels: Vec<String> = self.histories.iter().map(History::label).collect();
        let residuals: Vec<Vec<f64>> = self
            .histories
            .iter()
            .map(|h| h.sweeps.iter().map(|s| s.residual as f64).collect())
            .collect();
        let sweeps: Vec<Vec<f64>> = self
            .histories
            .iter()
            .map(|h| (1..=h.sweeps.len()).map(|k| k as f64).collect())
            .collect();
        let seconds: Vec<Vec<f64>> = self
            .histories
            .iter()
            .map(|h| h.sweeps.iter().map(|s| s.seconds).collect())
            .collect();
        let title = format!(
            "{}: {} bodies, {} contacts, rigid",
            self.scene, self.bodies, self.contacts
        );
        for (name, x_label, xs) in [
            ("convergence_sweeps.png", "sweeps", &sweeps),
            ("convergence_time.png", "wall time (s)", &seconds),
        ] {
            let curves: Vec<Curve> = labels
                .iter()
                .zip(xs.iter().zip(&residuals))
                .map(|(name, (x, y))| Curve { name, x, y })
                .collect();
            log_plot(&title, x_label, "residual (m/s)", &curves, 900, 560)?
                .save(&dir.join(name))?;
        }
        Ok(())
    }
}
