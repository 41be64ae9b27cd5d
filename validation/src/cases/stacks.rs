//! Cannonball stacks of disks collapsing on a tabletop between two slanted walls: V5 (the 21-disk
//! stack of hart-anitescu §3 ends with every disk separated and on the table) and V6 (the
//! anitescu slides' table of stacks of 10 to 210 disks at three frictions: every run completes).

use crate::case::{About, Case, CaseError, Setup};
use crate::load;
use grains::settings::Envelope;
use grains::world::World;
use grains::StepError;
use std::time::Instant;

/// What V5 (and each V6 run) measured at the end of a cannonball collapse.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cannonball {
    /// Smallest gap between two disks at the end (m); positive when all are separated.
    pub min_gap: f32,
    /// Largest height of a disk's lowest point above the tabletop at the end (m).
    pub max_lift: f32,
    /// Disks whose lowest point is within `touch` of the tabletop.
    pub on_table: usize,
    /// Disks in the stack.
    pub disks: usize,
    /// Tolerance used for "touches the tabletop" (m): the envelope ε̂ if fixed, else 5 % of r.
    pub touch: f32,
    /// Disks with a non-finite position or velocity.
    pub non_finite: usize,
    /// Active contacts of the first step (the slides' table counts a stack's contacts).
    pub contacts_start: usize,
    /// Solver sweeps per step, averaged over the run.
    pub mean_sweeps: f64,
    /// Steps whose solve stopped at the sweep cap with the residual above the tolerance.
    pub unconverged_steps: u64,
    /// Wall-clock seconds of the stepping.
    pub seconds: f64,
}

/// V5 (hart-anitescu §3), world from `scenes/v5_cannonball.toml` (a cannonball stack on a
/// tabletop z = 0 between two slanted walls): runs `steps` steps and measures the separation of
/// the disks and their distance to the tabletop.
pub fn cannonball(mut w: World, steps: u64) -> Result<Cannonball, StepError> {
    let tolerance = w.settings().solver.tolerance();
    let (mut contacts_start, mut sweeps, mut unconverged_steps) = (0, 0u64, 0);
    let clock = Instant::now();
    for k in 0..steps {
        let s = w.step()?;
        if k == 0 {
            contacts_start = s.contacts;
        }
        sweeps += s.iterations as u64;
        unconverged_steps += u64::from(s.residual > tolerance);
    }
    let seconds = clock.elapsed().as_secs_f64();
    let n = w.len();
    let mut min_gap = f32::INFINITY;
    for i in 0..n {
        for j in i + 1..n {
            min_gap =
                min_gap.min((w.position(i) - w.position(j)).length() - w.radius(i) - w.radius(j));
        }
    }
    let touch = match w.envelope() {
        Envelope::Fixed(e) => e,
        _ => 0.05 * w.radius(0),
    };
    let lift: Vec<f32> = (0..n).map(|i| w.position(i).z - w.radius(i)).collect();
    let non_finite = (0..n)
        .filter(|&i| !(w.position(i).is_finite() && w.velocity(i).is_finite()))
        .count();
    Ok(Cannonball {
        min_gap,
        max_lift: lift.iter().copied().fold(f32::MIN, f32::max),
        on_table: lift.iter().filter(|&&l| l.abs() <= touch).count(),
        disks: n,
        touch,
        non_finite,
        contacts_start,
        mean_sweeps: sweeps as f64 / steps.max(1) as f64,
        unconverged_steps,
        seconds,
    })
}

/// One row of the anitescu slides' table "Simulations for the cannonball arrangement,
/// h = 0.05": disks, contacts, μ and the CPU seconds of their LCP solver (None: it failed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperStack {
    /// Disks in the stack.
    pub disks: usize,
    /// Contacts the slides count.
    pub contacts: usize,
    /// Friction coefficient.
    pub mu: f32,
    /// CPU seconds of the LCP solver of the time; None where it failed.
    pub seconds: Option<f64>,
}

/// The slides' table, problems 1–11.
pub const V6_PAPER: [PaperStack; 11] = {
    const fn row(disks: usize, contacts: usize, mu: f32, seconds: Option<f64>) -> PaperStack {
        PaperStack {
            disks,
            contacts,
            mu,
            seconds,
        }
    }
    [
        row(10, 21, 0.2, Some(0.04)),
        row(10, 21, 0.8, Some(0.03)),
        row(21, 52, 0.2, Some(0.28)),
        row(21, 52, 0.8, Some(0.20)),
        row(36, 93, 0.2, Some(0.81)),
        row(36, 93, 0.8, Some(0.82)),
        row(55, 146, 0.2, Some(2.10)),
        row(55, 146, 0.8, Some(2.07)),
        row(210, 574, 0.0, Some(0.80)),
        row(210, 574, 0.2, Some(174.29)),
        row(210, 574, 0.8, None),
    ]
};

/// Bottom rows of V6's stacks: 10, 21, 36, 55 and 210 disks.
pub const V6_ROWS: [u32; 5] = [4, 6, 8, 10, 20];

/// V6's friction coefficients: every stack at each (a superset of the slides' table).
pub const V6_FRICTION: [f32; 3] = [0.0, 0.2, 0.8];

/// One V6 run: the stack of `scenes/v6_cannonball.toml` with `rows` in its bottom row and
/// friction `mu`, stepped for the scene's duration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackRun {
    /// Friction coefficient.
    pub mu: f32,
    /// What the collapse measured.
    pub result: Cannonball,
    /// The slides' row for the same stack and μ, if it has one.
    pub paper: Option<PaperStack>,
}

/// Runs V6: every stack of [`V6_ROWS`] at every μ of [`V6_FRICTION`], from the scene files of
/// `setup` (its variants, [`Setup::variant`]).
pub fn v6_table(setup: &Setup) -> Result<Vec<StackRun>, String> {
    let mut runs = Vec::new();
    for rows in V6_ROWS {
        for mu in V6_FRICTION {
            let scene = setup
                .variant("v6_cannonball", |t| {
                    if let Some(toml::Value::Array(b)) = t.get_mut("bodies") {
                        if let Some(toml::Value::Table(g)) = b.first_mut() {
                            g.insert("rows".into(), toml::Value::Integer(rows.into()));
                        }
                    }
                    if let Some(toml::Value::Array(m)) = t.get_mut("materials") {
                        if let Some(toml::Value::Table(g)) = m.first_mut() {
                            g.insert("friction".into(), toml::Value::Float(mu.into()));
                        }
                    }
                })
                .map_err(|e| e.to_string())?;
            let world = scene.world(setup.threads).map_err(|e| e.to_string())?;
            let result = cannonball(world, scene.total_steps()).map_err(|e| e.to_string())?;
            let paper = V6_PAPER
                .iter()
                .find(|p| p.disks == result.disks && p.mu == mu)
                .copied();
            runs.push(StackRun { mu, result, paper });
        }
    }
    Ok(runs)
}

/// V6's verdict: all 15 runs complete: the stacks have 10, 21, 36, 55 and 210 disks, every
/// position and velocity stays finite and no disk leaves the container (lowest point below
/// 200, the height of the slanted walls' reach).
pub fn v6_passes(runs: &[StackRun]) -> bool {
    let disks: Vec<usize> = V6_ROWS
        .iter()
        .map(|&r| (r * (r + 1) / 2) as usize)
        .collect();
    runs.len() == V6_ROWS.len() * V6_FRICTION.len()
        && runs
            .chunks(V6_FRICTION.len())
            .zip(&disks)
            .all(|(c, &n)| c.iter().all(|r| r.result.disks == n))
        && runs
            .iter()
            .all(|r| r.result.non_finite == 0 && r.result.max_lift < 200.0)
}

/// V6's table for `grains validate`: a header and one line per run.
pub fn v6_details(runs: &[StackRun]) -> Vec<String> {
    let line = |cells: [String; 9]| {
        let widths = [7, 5, 17, 3, 11, 17, 7, 15, 8];
        cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect::<Vec<_>>()
            .join("  ")
    };
    let header = [
        "problem",
        "disks",
        "contacts (slides)",
        "μ",
        "sweeps/step",
        "unconverged steps",
        "wall s",
        "(slides' LCP s)",
        "on table",
    ];
    let mut lines = vec![line(header.map(String::from))];
    for r in runs {
        let c = &r.result;
        let problem = V6_PAPER
            .iter()
            .position(|p| Some(*p) == r.paper)
            .map_or("-".to_string(), |i| (i + 1).to_string());
        let (contacts, paper_seconds) = match r.paper {
            Some(p) => (
                p.contacts.to_string(),
                p.seconds.map_or("FAIL".into(), |t| format!("{t:.2}")),
            ),
            None => ("-".into(), "-".into()),
        };
        lines.push(line([
            problem,
            c.disks.to_string(),
            format!("{} ({contacts})", c.contacts_start),
            r.mu.to_string(),
            format!("{:.1}", c.mean_sweeps),
            c.unconverged_steps.to_string(),
            format!("{:.3}", c.seconds),
            format!("({paper_seconds})"),
            format!("{}/{}", c.on_table, c.disks),
        ]));
    }
    lines
}

/// V5 (hart-anitescu §3), `scenes/v5_cannonball.toml`: a stack of 21 disks collapses between
/// two slanted walls.
pub struct V5;

impl Case for V5 {
    type Measured = Cannonball;

    const ABOUT: About = About {
        id: "V5",
        title: "cannonball collapse, 21 disks",
        scenes: &["v5_cannonball"],
    };

    fn expected(&self) -> String {
        "all 21 disks separated and on the table".into()
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        let (w, steps) = setup.scene_run("v5_cannonball")?;
        Ok(cannonball(w, steps)?)
    }

    fn verdict(&self, r: &Self::Measured) -> bool {
        r.on_table == r.disks && r.disks == 21 && r.min_gap > 0.0
    }

    fn key_figure(&self, r: &Self::Measured) -> String {
        format!(
            "{}/{} on table, min gap {:.4}",
            r.on_table, r.disks, r.min_gap
        )
    }

    fn measured(&self, r: &Self::Measured) -> String {
        format!(
            "{}/{} on table (max lift {:.2e}), min gap {:.4}",
            r.on_table, r.disks, r.max_lift, r.min_gap
        )
    }
}

/// What V6 measured: its runs and the scene's step count.
#[derive(Clone, Debug, PartialEq)]
pub struct StackTable {
    /// The runs of [`v6_table`].
    pub runs: Vec<StackRun>,
    /// Steps of each run.
    pub steps: u64,
}

/// V6 (anitescu slides, "Simulations for the cannonball arrangement"),
/// `scenes/v6_cannonball.toml` with every stack of [`V6_ROWS`] at every μ of [`V6_FRICTION`].
pub struct V6;

impl Case for V6 {
    type Measured = StackTable;

    const ABOUT: About = About {
        id: "V6",
        title: "cannonball stacks × friction",
        scenes: &["v6_cannonball"],
    };

    fn expected(&self) -> String {
        "every run of 10, 21, 36, 55, 210 disks × μ 0, 0.2, 0.8 completes (the slides' LCP took \
         174 s at 210 disks, μ = 0.2, and failed at μ = 0.8); how many disks end on the table is \
         shown, not judged: at most 25 fit side by side on the 150-wide table, and friction can \
         hold a stack partly or wholly up (at μ = 0.8 the 10-disk stack stands as built, only \
         its bottom row of 4 on the table)"
            .into()
    }

    fn run(&self, setup: &Setup) -> Result<Self::Measured, CaseError> {
        Ok(StackTable {
            runs: v6_table(setup)?,
            steps: load(&setup.scenes, "v6_cannonball")?.total_steps(),
        })
    }

    fn verdict(&self, m: &Self::Measured) -> bool {
        v6_passes(&m.runs)
    }

    fn key_figure(&self, m: &Self::Measured) -> String {
        format!(
            "{} runs of {} steps, {} with a non-finite state",
            m.runs.len(),
            m.steps,
            non_finite_runs(&m.runs)
        )
    }

    fn measured(&self, m: &Self::Measured) -> String {
        let total: f64 = m.runs.iter().map(|r| r.result.seconds).sum();
        let slowest = m
            .runs
            .iter()
            .max_by(|a, b| a.result.seconds.total_cmp(&b.result.seconds));
        format!(
            "{} runs of {} steps, {} with a non-finite state; wall {total:.2} s in all, slowest {}",
            m.runs.len(),
            m.steps,
            non_finite_runs(&m.runs),
            slowest.map_or(String::new(), |r| format!(
                "{:.3} s ({} disks, μ = {})",
                r.result.seconds, r.result.disks, r.mu
            )),
        )
    }

    fn details(&self, m: &Self::Measured) -> Vec<String> {
        v6_details(&m.runs)
    }
}

/// Runs with a non-finite position or velocity at the end.
fn non_finite_runs(runs: &[StackRun]) -> usize {
    runs.iter().filter(|r| r.result.non_finite > 0).count()
}
