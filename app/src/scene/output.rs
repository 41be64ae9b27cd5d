//! `[output]` (what to write while the scene runs) and `[[observables]]` (the time series to
//! record).

use super::loads::{
    contact_force_observable, mean_velocity_observable, refuse_wall_keys, surface_angle_observable,
    wall_observable, Component, NamedWalls,
};
use super::spec::{ObservableSpec, OutputSpec};
use super::values::{count, need, number, positive, sp, Ctx};
use super::{Group, SceneError};
use crate::output::FrameEncoding;
use glam::Vec3;
use std::ops::Range;

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
    /// One component of the force the contacts of the last step put on the walls (indices in
    /// the order walls were added), summed (N).
    WallForce {
        /// The walls.
        walls: Range<usize>,
        /// The mesh walls (indices in the order meshes were added).
        meshes: Range<usize>,
        /// Which component.
        component: Component,
    },
    /// The torque the contacts of the last step put on the walls about `point`, projected on
    /// the unit `axis` (N m).
    WallTorque {
        /// The walls.
        walls: Range<usize>,
        /// The mesh walls (indices in the order meshes were added).
        meshes: Range<usize>,
        /// The point the torque is taken about (m).
        point: Vec3,
        /// The unit axis.
        axis: Vec3,
    },
    /// One component of the total force the contacts of the last step put on a group of
    /// bodies (N).
    ContactForce {
        /// The bodies.
        bodies: Range<usize>,
        /// Which component.
        component: Component,
    },
    /// The tilt of a group's free surface in a turning drum (degrees): the angle, about the
    /// drum's unit `axis`, from the downward vertical to the group's mean centre seen from the
    /// axis through `point`. For a bed whose surface is a flat chord of the drum's circle the
    /// centroid of the circular segment lies on the chord's perpendicular through the axis, so
    /// this angle equals the surface's inclination: the dynamic angle of repose.
    SurfaceAngle {
        /// The bodies.
        bodies: Range<usize>,
        /// A point on the drum's axis (m).
        point: Vec3,
        /// The drum's unit axis; the angle is positive in the right-handed sense about it.
        axis: Vec3,
    },
    /// Dynamic grains in the world; with a sink (its index), the grains it removed so far.
    GrainCount(Option<usize>),
    /// Mass a sink (its index; all sinks for `None`) removed so far (kg).
    OutflowMass(Option<usize>),
    /// Mass a sink (all sinks for `None`) removed per second over the sample interval (kg/s).
    OutflowRate(Option<usize>),
    /// Bonds broken so far.
    BondsBroken,
    /// One component of the mean velocity of a group's bodies, Σ v / n (m/s): a chute's
    /// mean flow velocity.
    MeanVelocity {
        /// The bodies.
        bodies: Range<usize>,
        /// Which component.
        component: Component,
    },
}

impl ObservableKind {
    /// Whether sampling it reads the last step's contacts (which the GPU backend must copy
    /// back first, `World::sync_contacts`).
    pub fn reads_contacts(&self) -> bool {
        matches!(
            self,
            ObservableKind::WallForce { .. }
                | ObservableKind::WallTorque { .. }
                | ObservableKind::ContactForce { .. }
        )
    }

    /// What it measures, in a few words (a plot's title and y axis).
    pub fn quantity(&self) -> &'static str {
        match self {
            ObservableKind::Height(_) => "mean centre height",
            ObservableKind::RankFromTop(_) => "rank from top",
            ObservableKind::KineticEnergy => "kinetic energy",
            ObservableKind::Contacts => "active contacts",
            ObservableKind::BedHeight => "bed height (95th percentile)",
            ObservableKind::MaxSpeed => "largest speed",
            ObservableKind::WallForce { .. } => "force on the walls",
            ObservableKind::WallTorque { .. } => "torque on the walls",
            ObservableKind::ContactForce { .. } => "contact force on the group",
            ObservableKind::SurfaceAngle { .. } => "surface angle in the drum",
            ObservableKind::GrainCount(None) => "grains in the system",
            ObservableKind::GrainCount(Some(_)) => "grains removed by the sink",
            ObservableKind::OutflowMass(_) => "mass out through the sinks",
            ObservableKind::OutflowRate(_) => "outflow rate through the sinks",
            ObservableKind::MeanVelocity { .. } => "mean velocity of the group",
            ObservableKind::BondsBroken => "bonds broken",
        }
    }

    /// Its unit (`"count"` for a number of things, `"1 = top of bed"` for the rank).
    pub fn unit(&self) -> &'static str {
        match self {
            ObservableKind::Height(_) | ObservableKind::BedHeight => "m",
            ObservableKind::RankFromTop(_) => "1 = top of bed",
            ObservableKind::KineticEnergy => "J",
            ObservableKind::Contacts => "count",
            ObservableKind::MaxSpeed | ObservableKind::MeanVelocity { .. } => "m/s",
            ObservableKind::WallForce { .. } | ObservableKind::ContactForce { .. } => "N",
            ObservableKind::WallTorque { .. } => "N m",
            ObservableKind::SurfaceAngle { .. } => "degrees",
            ObservableKind::GrainCount(_) | ObservableKind::BondsBroken => "count",
            ObservableKind::OutflowMass(_) => "kg",
            ObservableKind::OutflowRate(_) => "kg/s",
        }
    }
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
    /// ParaView `.vtu` frames of the contacts (force chains) plus their `.pvd` index.
    pub contacts: bool,
    /// ParaView `.vtp` frames of the mesh triangles' loads and wear plus their `.pvd` index.
    pub meshes: bool,
}

impl Formats {
    /// Whether some file is written at each frame (every `every` steps).
    pub fn frames(&self) -> bool {
        self.vtu || self.png || self.contacts || self.meshes
    }
}

/// How grains are coloured in PNG snapshots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// By radius.
    Size,
    /// By speed.
    Speed,
    /// By material, a colour each, with a legend of their names.
    Material,
    /// By group (the `[[bodies]]` table a body came from), a colour each, with a legend.
    Group,
}

/// The region snapshots show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewExtent {
    /// Fixed from the start state: the box (or the bodies) across, from the floor to
    /// `view_height` (default 1.3 × the highest body top).
    Start,
    /// The bodies' extent in each frame, with a margin.
    Bodies,
}

/// What to write during a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Steps between frames.
    pub every: u64,
    /// Which files.
    pub formats: Formats,
    /// The line of the `formats` key (1 without one), for refusals after the scene is read.
    pub formats_line: usize,
    /// How the ParaView frames (`"vtu"`, `"contacts"`) store their arrays.
    pub frame_encoding: FrameEncoding,
    /// The grains' frames carry each grain's orientation where every body is a sphere or disk
    /// too (where some body is not, they always do).
    pub frame_orientation: bool,
    /// The grains' frames carry each sphere's Love–Weber stress (`grains::fields::grain_stress`).
    pub frame_stress: bool,
    /// The line of the `frame_stress` key (1 without one), for refusals after the scene is read.
    pub frame_stress_line: usize,
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
    /// Snapshots show a section rather than the projection.
    pub section: bool,
    /// The section plane's y (m); None: through the largest body in each frame.
    pub section_y: Option<f32>,
    /// The region snapshots show.
    pub view_extent: ViewExtent,
}

/// The widest PNG image (px).
const MAX_IMAGE_WIDTH: u64 = 8192;

/// Reads `[output]`; the defaults depend on the run's `steps` and on `planar`. A key whose
/// files are not written (the snapshot keys without `"png"`, `observe_every` without `"csv"`,
/// `every` without frames) has no effect and is refused.
pub(super) fn output(
    cx: &Ctx,
    o: &OutputSpec,
    steps: u64,
    planar: bool,
) -> Result<Output, SceneError> {
    let every = match &o.every {
        Some(v) => count(cx, v, "every", 1)?,
        None => (steps / 100).max(1),
    };
    let mut formats = Formats {
        vtu: true,
        csv: true,
        png: true,
        contacts: false,
        meshes: false,
    };
    if let Some(f) = &o.formats {
        formats = Formats {
            vtu: false,
            csv: false,
            png: false,
            contacts: false,
            meshes: false,
        };
        for name in f.get_ref() {
            match name.as_str() {
                "vtu" => formats.vtu = true,
                "csv" => formats.csv = true,
                "png" => formats.png = true,
                "contacts" => formats.contacts = true,
                "meshes" => formats.meshes = true,
                other => {
                    return Err(cx.err(
                        f.span(),
                        "formats",
                        format!(
                        "unknown format \"{other}\" (use \"vtu\", \"csv\", \"png\", \"contacts\", \"meshes\")"
                    ),
                    ))
                }
            }
        }
    }
    unused_without_format(cx, o, formats)?;
    let frame_encoding = match &o.frame_encoding {
        None => FrameEncoding::default(),
        Some(v) => FrameEncoding::from_name(v.get_ref()).ok_or_else(|| {
            cx.err(
                v.span(),
                "frame_encoding",
                format!(
                    "must be \"binary\", \"zlib\" or \"ascii\", got \"{}\"",
                    v.get_ref()
                ),
            )
        })?,
    };
    let frames = steps.div_ceil(every).max(1);
    let section = match &o.view {
        None => !planar,
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
    };
    let view_extent = match &o.view_extent {
        None => ViewExtent::Start,
        Some(v) => match v.get_ref().as_str() {
            "start" => ViewExtent::Start,
            "bodies" => ViewExtent::Bodies,
            other => {
                return Err(cx.err(
                    v.span(),
                    "view_extent",
                    format!("must be \"start\" or \"bodies\", got \"{other}\""),
                ))
            }
        },
    };
    if let (ViewExtent::Bodies, Some(v)) = (view_extent, &o.view_height) {
        return Err(cx.err(
            v.span(),
            "view_height",
            "has no effect: `view_extent = \"bodies\"` sizes each snapshot to the bodies; remove it",
        ));
    }
    let section_y = match &o.section_y {
        Some(v) if !section => {
            return Err(cx.err(
                v.span(),
                "section_y",
                "has no effect: the snapshots are side views (`view = \"side\"`, the default in planar mode); remove it or set `view = \"section\"`",
            ))
        }
        Some(v) => Some(number(cx, v, "section_y")?),
        None => None,
    };
    Ok(Output {
        every,
        formats,
        formats_line: o.formats.as_ref().map_or(1, |f| cx.line(f.span().start)),
        frame_encoding,
        frame_orientation: o.frame_orientation.as_ref().is_some_and(|v| *v.get_ref()),
        frame_stress: o.frame_stress.as_ref().is_some_and(|v| *v.get_ref()),
        frame_stress_line: o
            .frame_stress
            .as_ref()
            .map_or(1, |v| cx.line(v.span().start)),
        png_every: match &o.png_every {
            Some(v) => count(cx, v, "png_every", 1)?,
            None => (frames / 10).max(1),
        },
        colour: match &o.colour {
            None => Colour::Size,
            Some(c) => match c.get_ref().as_str() {
                "size" => Colour::Size,
                "speed" => Colour::Speed,
                "material" => Colour::Material,
                "group" => Colour::Group,
                other => {
                    return Err(cx.err(
                        c.span(),
                        "colour",
                        format!(
                        "must be \"size\", \"speed\", \"material\" or \"group\", got \"{other}\""
                    ),
                    ))
                }
            },
        },
        checkpoint_every: match &o.checkpoint_every {
            Some(v) => count(cx, v, "checkpoint_every", 1)?,
            None => (steps / 10).max(1),
        },
        observe_every: match &o.observe_every {
            Some(v) => count(cx, v, "observe_every", 1)?,
            None => every,
        },
        image_width: match &o.image_width {
            Some(v) => {
                let w = count(cx, v, "image_width", 64)?;
                if w > MAX_IMAGE_WIDTH {
                    return Err(cx.err(
                        v.span(),
                        "image_width",
                        format!("must be at most {MAX_IMAGE_WIDTH}, got {w}"),
                    ));
                }
                w as u32
            }
            None => 800,
        },
        view_height: match &o.view_height {
            Some(v) => Some(positive(cx, v, "view_height")?),
            None => None,
        },
        section,
        section_y,
        view_extent,
    })
}

/// Fails for a key of `o` that acts only on files `formats` does not write.
fn unused_without_format(cx: &Ctx, o: &OutputSpec, formats: Formats) -> Result<(), SceneError> {
    let mut unused = Vec::new();
    if !formats.png {
        let why = "it sets the PNG snapshots and plots, and `formats` has no \"png\"";
        unused.extend([
            ("png_every", sp(&o.png_every), why),
            ("colour", sp(&o.colour), why),
            ("image_width", sp(&o.image_width), why),
            ("view", sp(&o.view), why),
            ("view_height", sp(&o.view_height), why),
            ("view_extent", sp(&o.view_extent), why),
            ("section_y", sp(&o.section_y), why),
        ]);
    }
    if !formats.csv {
        let why = "it sets the rows of observables.csv, and `formats` has no \"csv\"";
        unused.push(("observe_every", sp(&o.observe_every), why));
    }
    if !(formats.vtu || formats.contacts || formats.meshes) {
        let why = "it sets the ParaView frames, and `formats` has none of \"vtu\", \"contacts\", \"meshes\"";
        unused.push(("frame_encoding", sp(&o.frame_encoding), why));
    }
    if !formats.vtu {
        let why = "it sets the grains' ParaView frames, and `formats` has no \"vtu\"";
        unused.push(("frame_orientation", sp(&o.frame_orientation), why));
        unused.push(("frame_stress", sp(&o.frame_stress), why));
    }
    // Without frames, `every` still sets the csv rows when `observe_every` is not given.
    let sets_rows = formats.csv && o.observe_every.is_none();
    if !(formats.frames() || sets_rows) {
        let why = "it sets the frames, and `formats` has none of \"vtu\", \"png\", \"contacts\", \"meshes\"";
        unused.push(("every", sp(&o.every), why));
    }
    for (key, span, why) in unused {
        if let Some(span) = span {
            return Err(cx.err(span, key, format!("has no effect: {why}; remove it")));
        }
    }
    Ok(())
}

/// Reads the observables, naming bodies by their `groups` and walls by the `named` containers.
pub(super) fn observables(
    cx: &Ctx,
    observables: &[ObservableSpec],
    groups: &[Group],
    named: &[NamedWalls],
    sinks: &[String],
) -> Result<Vec<Observable>, SceneError> {
    let mut read = Vec::new();
    for ob in observables {
        let kind = ob.kind.get_ref().as_str();
        let outflow = ["grain_count", "outflow_mass", "outflow_rate"].contains(&kind);
        let sink = match (&ob.sink, outflow) {
            (Some(s), false) => {
                return Err(cx.err(
                    s.span(),
                    "sink",
                    format!("not used by `{kind}` (only `grain_count`, `outflow_mass` and `outflow_rate` take it)"),
                ))
            }
            (Some(s), true) => Some((s.get_ref().clone(), super::lifecycle::sink_index(cx, sinks, s)?)),
            (None, _) => None,
        };
        if outflow && sinks.is_empty() && kind != "grain_count" {
            return Err(cx.err(
                ob.kind.span(),
                "kind",
                format!("`{kind}` needs a [[sink]], and the scene has none"),
            ));
        }
        let sink_name = sink.as_ref().map_or("all".to_string(), |s| s.0.clone());
        let sink = sink.map(|s| s.1);
        if ![
            "wall_force",
            "wall_torque",
            "contact_force",
            "surface_angle",
            "mean_velocity",
        ]
        .contains(&kind)
        {
            refuse_wall_keys(cx, ob)?;
        }
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
            "wall_force" | "wall_torque" => {
                no_body(ob)?;
                wall_observable(cx, ob, named)?
            }
            "contact_force" => {
                let (n, r) = group(ob)?;
                contact_force_observable(cx, ob, &n, r)?
            }
            "surface_angle" => {
                let (n, r) = group(ob)?;
                surface_angle_observable(cx, ob, &n, r)?
            }
            "grain_count" => {
                no_body(ob)?;
                let name = match sink {
                    Some(_) => format!("grains_out_{sink_name}"),
                    None => "grains".into(),
                };
                (name, ObservableKind::GrainCount(sink))
            }
            "outflow_mass" => {
                no_body(ob)?;
                (format!("outflow_{sink_name}_kg"), ObservableKind::OutflowMass(sink))
            }
            "outflow_rate" => {
                no_body(ob)?;
                (
                    format!("outflow_rate_{sink_name}_kg_per_s"),
                    ObservableKind::OutflowRate(sink),
                )
            }
            "mean_velocity" => {
                let (n, r) = group(ob)?;
                mean_velocity_observable(cx, ob, &n, r)?
            }
            "bonds_broken" => {
                no_body(ob)?;
                ("bonds_broken".into(), ObservableKind::BondsBroken)
            }
            other => {
                return Err(cx.err(
                    ob.kind.span(),
                    "kind",
                    format!("observable kind must be \"height\", \"rank_from_top\", \"kinetic_energy\", \"contacts\", \"bed_height\", \"max_speed\", \"wall_force\", \"wall_torque\", \"contact_force\", \"surface_angle\", \"mean_velocity\", \"grain_count\", \"outflow_mass\", \"outflow_rate\" or \"bonds_broken\", got \"{other}\""),
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
        read.push(Observable { name, kind });
    }
    Ok(read)
}
