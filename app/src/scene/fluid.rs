//! `[fluid]`: a fluid filling the world (`density`, `viscosity`, `velocity`, `drag`, and for
//! Di Felice's drag `voidage_cell`), whose buoyancy and drag act on every dynamic sphere, and
//! `[fluid.field]`, its velocity on a grid of nodes read from a file. The engine checks the
//! values at build.

use super::origin::Origin;
use super::spec::{FlowFieldSpec, FluidSpec, S};
use super::values::{finite3, number, positive, Ctx};
use super::SceneError;
use grains::fluid::{Drag, FlowField, Fluid};
use grains::{Vec3, WorldBuilder};

/// The drag laws by their scene names (Di Felice's cell edge is `voidage_cell`'s).
const DRAGS: [(&str, Drag); 3] = [
    ("stokes", Drag::Stokes),
    ("schiller_naumann", Drag::SchillerNaumann),
    ("di_felice", Drag::DiFelice { cell: 0.0 }),
];

/// Adds the scene's fluid to `world` (nothing when the table is absent).
pub(super) fn fluid(
    cx: &Ctx,
    spec: &Option<S<FluidSpec>>,
    world: &mut WorldBuilder,
) -> Result<(), SceneError> {
    let Some(spec) = spec else { return Ok(()) };
    let f = spec.get_ref();
    let drag = match &f.drag {
        None => Drag::SchillerNaumann,
        Some(name) => DRAGS
            .iter()
            .find(|d| d.0 == name.get_ref())
            .map(|d| d.1)
            .ok_or_else(|| {
                cx.err(
                    name.span(),
                    "fluid.drag",
                    format!(
                        "unknown drag law \"{}\": use \"stokes\", \"schiller_naumann\" or \"di_felice\"",
                        name.get_ref()
                    ),
                )
            })?,
    };
    let drag = match (drag, &f.voidage_cell) {
        (Drag::DiFelice { .. }, Some(cell)) => Drag::DiFelice {
            cell: number(cx, cell, "fluid.voidage_cell")?,
        },
        (Drag::DiFelice { .. }, None) => {
            return Err(cx.err(
                spec.span(),
                "fluid.voidage_cell",
                "drag = \"di_felice\" needs voidage_cell, the edge (m) of the cells the voidage is counted in (a few grains wide)",
            ))
        }
        (_, Some(cell)) => {
            return Err(cx.err(
                cell.span(),
                "fluid.voidage_cell",
                "voidage_cell is read by drag = \"di_felice\" only",
            ))
        }
        (drag, None) => drag,
    };
    let velocity = match &f.velocity {
        None => Vec3::ZERO,
        Some(v) => finite3(cx, v, "fluid.velocity")?,
    };
    world.fluid(Fluid {
        density: number(cx, &f.density, "fluid.density")?,
        viscosity: number(cx, &f.viscosity, "fluid.viscosity")?,
        velocity,
        drag,
    });
    Ok(())
}

/// The most bytes a flow field's file may hold (some millions of nodes' lines).
const MAX_FIELD_BYTES: u64 = 128 << 20;

/// The most nodes a flow field may have.
const MAX_FIELD_NODES: u64 = 1 << 24;

/// `[fluid.field]`'s grid with the velocities of its file: one node a line, `ux uy uz` (m/s,
/// separated by commas or blanks), x fastest, then y, then z; blank lines and text after `#`
/// are skipped. An unreadable file, a line that is not three finite numbers, or more or fewer
/// nodes than `counts` give is reported with the scene's line, and the file's line where it
/// has one.
pub(super) fn flow_field(
    cx: &Ctx,
    spec: &Option<S<FluidSpec>>,
) -> Result<Option<FlowField>, SceneError> {
    let Some(field) = spec.as_ref().and_then(|f| f.get_ref().field.as_ref()) else {
        return Ok(None);
    };
    let f: &FlowFieldSpec = field.get_ref();
    let origin = finite3(cx, &f.origin, "fluid.field.origin")?;
    let spacing = positive(cx, &f.spacing, "fluid.field.spacing")?;
    let given = *f.counts.get_ref();
    if let Some(&c) = given.iter().find(|&&c| c < 1) {
        return Err(cx.err(
            f.counts.span(),
            "fluid.field.counts",
            format!("each must be at least 1 node, got {c}"),
        ));
    }
    let nodes = given.iter().fold(1u64, |n, &c| n.saturating_mul(c as u64));
    if nodes > MAX_FIELD_NODES {
        return Err(cx.err(
            f.counts.span(),
            "fluid.field.counts",
            format!("{nodes} nodes, more than the {MAX_FIELD_NODES} a field may have"),
        ));
    }
    let path = cx.beside(f.file.get_ref());
    let bad = |problem: String| cx.err(f.file.span(), "fluid.field.file", problem);
    let shown = path.display();
    let bytes = crate::input::read_regular(&path, MAX_FIELD_BYTES, "a flow field")
        .map_err(|e| bad(format!("{shown}: {e}")))?;
    let text =
        String::from_utf8(bytes).map_err(|e| bad(format!("{shown}: not UTF-8 text ({e})")))?;
    let mut velocity = Vec::with_capacity(nodes as usize);
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        let words: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            continue;
        }
        let at = |problem: String| bad(format!("{shown}, line {}: {problem}", i + 1));
        if velocity.len() as u64 == nodes {
            return Err(at(format!(
                "a node more than the {nodes} that counts {given:?} give"
            )));
        }
        let values: Vec<f32> = words
            .iter()
            .map(|w| w.parse::<f32>().ok().filter(|x| x.is_finite()))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                at(format!(
                    "\"{}\" is not three finite velocities ux uy uz (m/s)",
                    line.trim()
                ))
            })?;
        let [ux, uy, uz] = values[..] else {
            return Err(at(format!(
                "{} numbers where a node has three, ux uy uz (m/s)",
                values.len()
            )));
        };
        velocity.push(Vec3::new(ux, uy, uz));
    }
    if (velocity.len() as u64) < nodes {
        return Err(bad(format!(
            "{shown}: {} nodes where counts {given:?} give {nodes}",
            velocity.len()
        )));
    }
    let counts = given.map(|c| c as usize);
    Ok(Some(FlowField {
        origin,
        spacing: Vec3::splat(spacing),
        counts,
        velocity,
    }))
}

/// The settings' origin with the `[fluid]` keys that set the engine's `fluid` fields.
pub(super) fn origin(cx: &Ctx, spec: &Option<S<FluidSpec>>, settings: Origin) -> Origin {
    let Some(spec) = spec else { return settings };
    let f = spec.get_ref();
    settings
        .key_at(cx, "fluid.density", "fluid.density", Some(f.density.span()))
        .key_at(
            cx,
            "fluid.viscosity",
            "fluid.viscosity",
            Some(f.viscosity.span()),
        )
        .key(cx, "fluid.velocity", "fluid.velocity", &f.velocity)
        .key(
            cx,
            "fluid.voidage_cell",
            "fluid.voidage_cell",
            &f.voidage_cell,
        )
        .key(cx, "flow_field", "fluid.field", &f.field)
        .key_at(cx, "fluid", "fluid", Some(spec.span()))
}
