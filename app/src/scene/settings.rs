//! `[scene]` (name, units, duration) and `[settings]` (the time stepping and the solver).
//! The engine checks the settings when the world is built; here only what the file format
//! knows is checked: the preset's and the choices' names, counts that must be whole.

use super::origin::Origin;
use super::spec::S;
use super::spec::{EnvelopeSpec, MetaSpec, SettingsSpec};
use super::values::{count, count_u32, finite3, need, non_negative, only, positive, sp, Ctx};
use super::{SceneError, MAX_THREADS};
use grains::settings::{AutoStep, Backend, Envelope, Integrator, Settings};
use grains::Check;
use grains::SolverKind;

/// What `[scene]` says.
pub(super) struct Meta {
    /// Simulated time to run (s).
    pub(super) duration: f64,
    /// Largest overlap of two bodies at the start, as a fraction of the smaller radius.
    pub(super) overlap_tolerance: f32,
}

/// Reads `[scene]`: the unit system and the run's duration.
pub(super) fn meta(cx: &Ctx, meta: &MetaSpec) -> Result<Meta, SceneError> {
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
    folder_name(cx, &meta.name)?;
    Ok(Meta {
        duration: positive(cx, &meta.duration, "duration")? as f64,
        overlap_tolerance: match &meta.overlap_tolerance {
            Some(t) => non_negative(cx, t, "overlap_tolerance")?,
            None => 0.01,
        },
    })
}

/// The longest scene name, in bytes (a file name's limit on common file systems).
const MAX_NAME_BYTES: usize = 255;

/// Checks that the scene's `name`, the default output folder `results/<name>`, is one plain
/// path component: not empty, no `/` or `\`, no leading `.` (so neither `.` nor `..`), no
/// control character, at most [`MAX_NAME_BYTES`] bytes.
fn folder_name(cx: &Ctx, name: &S<String>) -> Result<(), SceneError> {
    let n = name.get_ref();
    let problem = if n.is_empty() {
        "must not be empty"
    } else if n.len() > MAX_NAME_BYTES {
        "must be at most 255 bytes long"
    } else if n.starts_with('.') {
        "must not start with `.`"
    } else if n.contains(['/', '\\']) {
        "must not contain `/` or `\\`"
    } else if n.chars().any(char::is_control) {
        "must not contain control characters"
    } else {
        return Ok(());
    };
    Err(cx.err(
        name.span(),
        "name",
        format!("{problem}: the name is the output folder `results/<name>`, one plain folder name"),
    ))
}

/// Reads `[settings]`: the preset, then each key that overrides it; with the origin of each
/// key for the engine's checks.
pub(super) fn settings(cx: &Ctx, s: &SettingsSpec) -> Result<(Settings, Origin), SceneError> {
    let (h, auto_step) = step(cx, s)?;
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
    settings.auto_step = auto_step;
    if let Some(g) = &s.gravity {
        settings.gravity = finite3(cx, g, "gravity")?;
    }
    if let Some(e) = &s.envelope {
        settings.envelope = Some(envelope(cx, e)?);
    }
    if let Some(v) = &s.solver {
        let name = v.get_ref().as_str();
        let kind = SolverKind::from_name(name).ok_or_else(|| {
            cx.err(
                v.span(),
                "solver",
                format!("must be {}, got \"{name}\"", SolverKind::names_listed()),
            )
        })?;
        settings.solver = settings.solver.with_kind(kind);
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
            toml::Value::Float(f) if (f32::MIN_POSITIVE as f64..=f32::MAX as f64).contains(f) => {
                *f as f32
            }
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
    if let Some(v) = &s.position_correction {
        settings.position_correction = count_u32(cx, v, "position_correction", 0)?;
    }
    if let Some(p) = s.planar {
        settings.planar = p;
    }
    if let Some(v) = &s.threads {
        settings.threads = count(cx, v, "threads", 1)? as usize;
        if settings.threads > MAX_THREADS {
            return Err(cx.err(
                v.span(),
                "threads",
                format!("must be at most {MAX_THREADS}, got {}", v.get_ref()),
            ));
        }
    }
    if let Some(v) = &s.backend {
        let name = v.get_ref().as_str();
        settings.backend = Backend::from_name(name).ok_or_else(|| {
            cx.err(
                v.span(),
                "backend",
                format!("must be \"cpu\" or \"gpu\", got \"{name}\""),
            )
        })?;
    }
    if let Some(v) = &s.sync_every {
        settings.sync_every = count_u32(cx, v, "sync_every", 1)?;
    }
    if let Some(v) = &s.integrator {
        settings.integrator = integrator(cx, v, s)?;
    }
    if let Some(v) = s.health.as_ref().and_then(|hs| hs.escape.as_ref()) {
        settings.health.escape = check(cx, v, "escape", " (an open domain)")?;
    }
    if let Some(v) = s.health.as_ref().and_then(|hs| hs.step_floor.as_ref()) {
        settings.health.step_floor = check(cx, v, "step_floor", "")?;
    }
    // With `h = "auto"` the engine's `h` is h_max: its refusals name `h_max` where written.
    let (h_key, h_span) = match (&settings.auto_step, &s.h_max) {
        (Some(_), Some(v)) => ("h_max", v.span()),
        _ => ("h", s.h.span()),
    };
    let origin = Origin::new(cx, s.preset.span())
        .defaults_by("preset")
        .key_at(cx, "h", h_key, Some(h_span))
        .key(cx, "h_min", "h_min", &s.h_min)
        .key(cx, "reach", "reach", &s.reach)
        .key(
            cx,
            "penetration_budget",
            "penetration_budget",
            &s.penetration_budget,
        )
        .key(cx, "gravity", "gravity", &s.gravity)
        .key_at(
            cx,
            "envelope",
            "envelope",
            s.envelope.as_ref().map(|e| e.kind.span()),
        )
        .key(cx, "solver", "solver", &s.solver)
        .key(cx, "sweeps", "max_iterations", &s.max_iterations)
        .key(cx, "tolerance", "tolerance", &s.tolerance)
        .key(cx, "omega", "omega", &s.omega)
        .key(cx, "warm_start", "warm_start", &s.warm_start)
        .key(
            cx,
            "contact_frequency",
            "contact_frequency",
            &s.contact_frequency,
        )
        .key(cx, "threads", "threads", &s.threads)
        .key(cx, "sync_every", "sync_every", &s.sync_every)
        .key(
            cx,
            "coulomb_correction",
            "coulomb_correction",
            &s.coulomb_correction,
        )
        .key(
            cx,
            "position_correction",
            "position_correction",
            &s.position_correction,
        )
        .key(cx, "integrator", "integrator", &s.integrator)
        .key(cx, "backend", "backend", &s.backend);
    Ok((settings, origin))
}

/// The default h_max of `h = "auto"` (s): the library's default step.
pub const DEFAULT_H_MAX: f32 = 1e-3;

/// Reads `h`: a step (s), or `"auto"` with `h_min`, `h_max`, `reach` and `penetration_budget`
/// (each with its default, [`DEFAULT_H_MAX`] and [`AutoStep::new`]'s); returns the engine's
/// `h` (h_max with `"auto"`) and the adaptive step. The keys of `"auto"` beside a fixed step
/// would have no effect and are refused.
fn step(cx: &Ctx, s: &SettingsSpec) -> Result<(f32, Option<AutoStep>), SceneError> {
    let h = match s.h.get_ref() {
        toml::Value::Float(x) => *x,
        toml::Value::Integer(i) => *i as f64,
        toml::Value::String(a) if a == "auto" => {
            return auto_step(cx, s).map(|(h_max, auto)| (h_max, Some(auto)))
        }
        other => {
            return Err(cx.err(
                s.h.span(),
                "h",
                format!("must be a positive step (s) or \"auto\", got {other}"),
            ))
        }
    };
    let auto_keys = [
        ("h_min", sp(&s.h_min)),
        ("h_max", sp(&s.h_max)),
        ("reach", sp(&s.reach)),
        ("penetration_budget", sp(&s.penetration_budget)),
    ];
    if let Some((key, Some(span))) = auto_keys.into_iter().find(|(_, span)| span.is_some()) {
        return Err(cx.err(
            span,
            key,
            "has no effect with a fixed step: it is a key of h = \"auto\"; remove it or set h = \"auto\"",
        ));
    }
    Ok((positive(cx, &S::new(s.h.span(), h), "h")?, None))
}

/// Reads the keys of `h = "auto"`: h_max (the engine's `h`) and the adaptive step.
fn auto_step(cx: &Ctx, s: &SettingsSpec) -> Result<(f32, AutoStep), SceneError> {
    let h_max = match &s.h_max {
        Some(v) => positive(cx, v, "h_max")?,
        None => DEFAULT_H_MAX,
    };
    let mut auto = AutoStep::new(h_max);
    if let Some(v) = &s.h_min {
        auto.h_min = positive(cx, v, "h_min")?;
    }
    if let Some(v) = &s.reach {
        auto.reach = positive(cx, v, "reach")?;
    }
    if let Some(v) = &s.penetration_budget {
        auto.penetration = positive(cx, v, "penetration_budget")?;
    }
    Ok((h_max, auto))
}

/// Reads a health check's setting `key`: `"stop"`, `"warn"` or `"off"` (`off_note` after
/// `"off"` in the refusal).
fn check(cx: &Ctx, v: &S<String>, key: &str, off_note: &str) -> Result<Check, SceneError> {
    match v.get_ref().as_str() {
        "stop" => Ok(Check::Stop),
        "warn" => Ok(Check::Warn),
        "off" => Ok(Check::Off),
        other => Err(cx.err(
            v.span(),
            key,
            format!("must be \"stop\", \"warn\" or \"off\"{off_note}, got \"{other}\""),
        )),
    }
}

/// Reads `integrator`: `"ccp"` or `"geometrically_implicit"`. The implicit stepper has rigid
/// contact and no projected sweeps, so with it the `"granular"` preset and the CCP solver's
/// keys (which would have no effect) are refused.
fn integrator(cx: &Ctx, v: &S<String>, s: &SettingsSpec) -> Result<Integrator, SceneError> {
    let name = v.get_ref().as_str();
    let integrator = Integrator::from_name(name).ok_or_else(|| {
        cx.err(
            v.span(),
            "integrator",
            format!("must be \"ccp\" or \"geometrically_implicit\", got \"{name}\""),
        )
    })?;
    if integrator == Integrator::Ccp {
        return Ok(integrator);
    }
    if s.preset.get_ref() != "rigid" {
        return Err(cx.err(
            s.preset.span(),
            "preset",
            "must be \"rigid\" with integrator = \"geometrically_implicit\": its contact is rigid (no compliant contact) and it has no solver sweeps to tune",
        ));
    }
    let ccp_keys = [
        ("solver", sp(&s.solver)),
        ("max_iterations", sp(&s.max_iterations)),
        ("tolerance", sp(&s.tolerance)),
        ("omega", sp(&s.omega)),
        ("warm_start", sp(&s.warm_start)),
        ("coulomb_correction", sp(&s.coulomb_correction)),
        ("position_correction", sp(&s.position_correction)),
        ("contact_frequency", sp(&s.contact_frequency)),
    ];
    for (key, span) in ccp_keys {
        if let Some(span) = span {
            return Err(cx.err(
                span,
                key,
                "has no effect with integrator = \"geometrically_implicit\" (a key of the CCP's solver); remove it",
            ));
        }
    }
    Ok(integrator)
}

/// Reads `envelope = { kind = "per_pair", floor, speed_factor }` or `{ kind = "fixed", value }`.
fn envelope(cx: &Ctx, e: &EnvelopeSpec) -> Result<Envelope, SceneError> {
    match e.kind.get_ref().as_str() {
        "per_pair" => {
            only(
                cx,
                &e.kind,
                &[("value", sp(&e.value))],
                &["floor", "speed_factor"],
            )?;
            Ok(Envelope::PerPair {
                floor: non_negative(cx, need(cx, &e.floor, "floor", &e.kind)?, "floor")?,
                speed_factor: non_negative(
                    cx,
                    need(cx, &e.speed_factor, "speed_factor", &e.kind)?,
                    "speed_factor",
                )?,
            })
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
            Ok(Envelope::Fixed(non_negative(
                cx,
                need(cx, &e.value, "value", &e.kind)?,
                "value",
            )?))
        }
        other => Err(cx.err(
            e.kind.span(),
            "kind",
            format!("envelope kind must be \"per_pair\" or \"fixed\", got \"{other}\""),
        )),
    }
}
