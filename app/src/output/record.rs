//! The run's record, stored in each checkpoint beside the world's state (as the snapshot's
//! `extra` bytes): the running sums that `summary.json` reports over the whole run, every
//! session of a resumed run included, and the output cadence the files already written follow.

use crate::output::fields::{average_from_bytes, average_to_bytes};
use crate::scene::Scene;
use grains::fields::FieldsAverage;

/// Running sums of a run and the output cadence it was started with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunRecord {
    /// Steps taken up to the checkpoint, over all sessions.
    pub taken: u64,
    /// Wall-clock seconds those steps took.
    pub wall_seconds: f64,
    /// Sessions that stepped the run up to the checkpoint (the first run and each resume).
    pub sessions: u64,
    /// Sum of the solver sweeps of the steps whose statistics were read (every step on the
    /// CPU, the read-back steps on the GPU).
    pub iterations: u64,
    /// Sum of the ε̂-active contacts of the same steps.
    pub contacts: u64,
    /// Steps whose statistics were read.
    pub counted: u64,
    /// The output cadence: `name=value` items that must not change on resume.
    pub outputs: Vec<(String, String)>,
    /// Per `outflow_rate` observable, the step and outflow mass (kg) of its last two samples
    /// (earlier step, mass, later step, mass): the rate is their difference over the interval.
    pub outflow: Vec<[f64; 4]>,
    /// With `"meshes"` frames, each mesh triangle's Archard F_n s so far (N m), in the order of
    /// the world's mesh triangles ([`crate::output::mesh_loads::LoadDistance`]).
    pub load_distance: Vec<f64>,
    /// With `[fields] average_every`, the time average in progress: the samples since the
    /// last output (stored after the text, past a NUL byte, as
    /// [`crate::output::fields::average_to_bytes`] writes it).
    pub fields_average: Option<FieldsAverage>,
}

impl RunRecord {
    /// A new run's record: no steps yet, the output cadence of `scene`.
    pub fn new(scene: &Scene) -> RunRecord {
        RunRecord {
            outputs: cadence(scene),
            ..RunRecord::default()
        }
    }

    /// The record as the text stored in a checkpoint: one `name=value` line each.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut s = format!(
            "taken={}\nwall_seconds={}\nsessions={}\niterations={}\ncontacts={}\ncounted={}\n",
            self.taken,
            self.wall_seconds,
            self.sessions,
            self.iterations,
            self.contacts,
            self.counted
        );
        for (n, v) in &self.outputs {
            s.push_str(&format!("output.{n}={v}\n"));
        }
        for m in &self.outflow {
            // Rust's shortest round-trip text: the numbers come back bit for bit.
            s.push_str(&format!("outflow={},{},{},{}\n", m[0], m[1], m[2], m[3]));
        }
        if !self.load_distance.is_empty() {
            let values: Vec<String> = self.load_distance.iter().map(f64::to_string).collect();
            s.push_str(&format!("load_distance={}\n", values.join(",")));
        }
        let mut bytes = s.into_bytes();
        if let Some(a) = self.fields_average.as_ref().filter(|a| a.samples > 0) {
            bytes.push(0);
            bytes.extend(average_to_bytes(a));
        }
        bytes
    }

    /// Reads what [`Self::to_bytes`] wrote; the error says what is missing or unreadable.
    pub fn from_bytes(bytes: &[u8]) -> Result<RunRecord, String> {
        let (text, average) = match bytes.iter().position(|&b| b == 0) {
            Some(k) => (&bytes[..k], Some(&bytes[k + 1..])),
            None => (bytes, None),
        };
        let text = std::str::from_utf8(text).map_err(|_| "its run record is not text")?;
        let mut r = RunRecord {
            fields_average: match average {
                Some(b) => Some(
                    average_from_bytes(b)
                        .ok_or("its run record's fields average is truncated or corrupt")?,
                ),
                None => None,
            },
            ..RunRecord::default()
        };
        let mut seen = 0;
        for line in text.lines() {
            let (n, v) = line
                .split_once('=')
                .ok_or("its run record has a line without '='")?;
            let int = |v: &str| {
                v.parse::<u64>()
                    .map_err(|_| format!("its run record's {n} is not a count"))
            };
            match n {
                "taken" => r.taken = int(v)?,
                "sessions" => r.sessions = int(v)?,
                "iterations" => r.iterations = int(v)?,
                "contacts" => r.contacts = int(v)?,
                "counted" => r.counted = int(v)?,
                "wall_seconds" => {
                    r.wall_seconds = v
                        .parse()
                        .map_err(|_| "its run record's wall_seconds is not a number")?
                }
                "load_distance" => {
                    let values: Result<Vec<f64>, _> = v.split(',').map(str::parse).collect();
                    r.load_distance =
                        values.map_err(|_| "its run record's load_distance is not numbers")?;
                    continue;
                }
                "outflow" => {
                    let m: Vec<f64> = v.split(',').filter_map(|x| x.parse().ok()).collect();
                    let m: [f64; 4] = m
                        .try_into()
                        .map_err(|_| "its run record's outflow is not four numbers")?;
                    r.outflow.push(m);
                    continue;
                }
                _ => match n.strip_prefix("output.") {
                    Some(o) => {
                        r.outputs.push((o.to_string(), v.to_string()));
                        continue;
                    }
                    None => return Err(format!("its run record has an unknown item {n}")),
                },
            }
            seen += 1;
        }
        if seen != 6 {
            return Err("its run record is incomplete".into());
        }
        Ok(r)
    }

    /// What differs between the output cadence of the checkpoint and that of `scene`:
    /// `every (10 → 20)`, one entry per item. Empty when they agree.
    pub fn cadence_changes(&self, scene: &Scene) -> Vec<String> {
        let now = cadence(scene);
        let mut out = Vec::new();
        for ((n, then), (_, v)) in self.outputs.iter().zip(&now) {
            if then != v {
                out.push(format!("{n} ({then} → {v})"));
            }
        }
        if self.outputs.len() != now.len() {
            out.push("the output items".into());
        }
        out
    }
}

/// The output settings the files already written follow: frame and sample intervals, the
/// formats and the observables' columns.
fn cadence(scene: &Scene) -> Vec<(String, String)> {
    let o = &scene.output;
    let f = o.formats;
    let columns: Vec<&str> = scene.observables.iter().map(|o| o.name.as_str()).collect();
    vec![
        ("every".into(), o.every.to_string()),
        ("observe_every".into(), o.observe_every.to_string()),
        (
            "formats".into(),
            // The contact and mesh frames are named only when written, so that the checkpoints
            // of runs from before them resume.
            format!(
                "vtu {}, csv {}, png {}{}{}",
                f.vtu,
                f.csv,
                f.png,
                if f.contacts { ", contacts true" } else { "" },
                if f.meshes { ", meshes true" } else { "" }
            ),
        ),
        ("observables".into(), columns.join(" ")),
    ]
    .into_iter()
    // The fields' averaging is named only where it averages, so that the checkpoints of runs
    // from before it resume: a resumed average must go on with the samples it was taking.
    .chain(
        scene
            .fields
            .as_ref()
            .filter(|f| f.average_every != f.every)
            .map(|f| {
                let cadence = format!("every {}, average_every {}", f.every, f.average_every);
                ("fields".into(), cadence)
            }),
    )
    .collect()
}
