//! The builder of a world: collects its parts, checks each one and picks the backend.

use crate::auto_step::StepControl;
use crate::backend::{self, Parts};
use crate::body::{aspect, push_body, Body, BodyKind, Shape, MAX_ASPECT};
use crate::clump::{check_clumps, Clump, ClumpTemplate};
use crate::domain::{whereabouts, Domain, Whereabouts};
use crate::error::{finite3, BuildError};
use crate::fingerprint::Fingerprint;
use crate::fluid::{check_fluid, FlowField, Fluid};
use crate::geometry::{BoxContainer, WallDesc};
use crate::health::{corner, Check, Links, Monitor};
use crate::insertion::Insertion;
use crate::joint::{AppliedForce, JointDesc, SpringDesc};
use crate::lifecycle::Lifecycle;
use crate::material::{Material, MaterialId, Materials};
use crate::mesh::{MeshDesc, Meshes};
use crate::plane_groups::plane_groups;
use crate::polyhedron::{HullId, Polyhedron};
use crate::reach::Reach;
use crate::settings::{Envelope, Settings};
use crate::sink::Sink;
use crate::support::{Feature, Item, Present};
use crate::wall_depth::depth_in_wall;
use crate::world::World;
use glam::Quat;
use grains_kernels::narrow_phase::MAX_BODIES;
use grains_kernels::pairs::{pair_routine, ShapeKind};
use grains_kernels::shapes::clump::{clump_bound, ClumpTable};
use grains_kernels::shapes::polyhedron::Hull;
use grains_kernels::{Bodies, StepStats};
use std::sync::Arc;

/// The most a compliant contact may give within one step, as a fraction of the smallest radius
/// ([`grains_kernels::StepParams::max_give`]). A grain arriving at v gives about
/// h v / (2π f h)² in its first step, so the bound binds only above v ≈ 0.1 r (2π f h)² / h
/// (14 m/s for the pour's r = 5 mm, h = 2 ms, 2π f h = 7.5), far above a bed's impacts and
/// static overlap F/k; without it the spring lets a fast grain through a wall.
const MAX_GIVE: f32 = 0.1;

/// The overlap the position correction leaves, as a fraction of the smallest radius
/// ([`grains_kernels::StepParams::overlap_slop`]): far above what a solve's last residual leaves
/// in a step (h × 1e-5 m/s is 1e-5 r at h = 5 ms, r = 5 mm) and far below what a bed shows.
const OVERLAP_SLOP: f32 = 1e-3;

/// Collects materials, bodies, walls, joints, springs and applied forces, then checks them all
/// in [`WorldBuilder::build`].
#[derive(Clone, Debug, Default)]
pub struct WorldBuilder {
    settings: Settings,
    materials: Materials,
    /// Shared between clones until one adds a body: a caller that clones the builder to build
    /// with other settings copies no body (at a million bodies, 144 MB beside the world's).
    bodies: Arc<Vec<Body>>,
    walls: Vec<WallDesc>,
    meshes: Vec<MeshDesc>,
    joints: Vec<JointDesc>,
    springs: Vec<SpringDesc>,
    forces: Vec<AppliedForce>,
    insertions: Vec<Insertion>,
    sinks: Vec<Sink>,
    /// The clump templates ([`WorldBuilder::clump_template`]).
    pub(crate) clumps: ClumpTable,
    /// The convex hulls of the polyhedra ([`WorldBuilder::hull`]).
    pub(crate) hulls: Vec<crate::polyhedron::Polyhedron>,
    /// The fluid the bodies move in ([`WorldBuilder::fluid`]).
    fluid: Option<Fluid>,
    /// The fluid's velocity on a grid from the first step ([`WorldBuilder::flow_field`]).
    flow_field: Option<FlowField>,
}

impl World {
    /// Starts describing a world.
    pub fn builder(settings: Settings) -> WorldBuilder {
        WorldBuilder::new(settings)
    }
}

impl WorldBuilder {
    /// An empty world with the given settings.
    pub fn new(settings: Settings) -> Self {
        WorldBuilder {
            settings,
            ..Default::default()
        }
    }

    /// Adds a material and returns its id (the first material is id 0, the default of bodies
    /// and walls).
    pub fn material(&mut self, m: Material) -> MaterialId {
        self.materials.list.push(m);
        MaterialId(self.materials.list.len() as u32 - 1)
    }

    /// Sets the friction coefficient of the pair (a, b), replacing the min rule for it.
    pub fn pair_friction(&mut self, a: MaterialId, b: MaterialId, mu: f32) -> &mut Self {
        self.materials.overrides.push((a, b, mu));
        self
    }

    /// Adds a body and returns its index.
    pub fn body(&mut self, b: Body) -> usize {
        let bodies = Arc::make_mut(&mut self.bodies);
        bodies.push(b);
        bodies.len() - 1
    }

    /// The clump templates registered so far, as the narrow phase reads them.
    pub fn clump_table(&self) -> &ClumpTable {
        &self.clumps
    }

    /// Registers a clump template (once: the same members give the same template) and
    /// returns the handle [`Body::clump`] makes bodies of.
    pub fn clump_template(&mut self, t: &ClumpTemplate) -> Clump {
        let table = &mut self.clumps;
        let found = (0..table.len() as u32).find(|&k| table.members(k) == t.members());
        let template = found.unwrap_or_else(|| {
            table
                .push(t.members())
                .expect("a template holds 1 to MAX_CLUMP_MEMBERS spheres")
        });
        Clump {
            shape: Shape::Clump {
                template,
                bound: clump_bound(t.members()),
            },
            volume: t.volume() as f32,
            unit_moments: t.unit_moments().as_vec3(),
            centre: t.centre(),
            frame: t.frame(),
            radius: t
                .members()
                .iter()
                .map(|m| m.w)
                .fold(f32::INFINITY, f32::min),
        }
    }

    /// Adds the hull of `p` to the world's hull table, for bodies made with
    /// [`Body::polyhedron`].
    pub fn hull(&mut self, p: &Polyhedron) -> HullId {
        self.hulls.push(p.clone());
        HullId::new(self.hulls.len() as u32 - 1, p)
    }

    /// The hulls added so far ([`WorldBuilder::hull`]), in order.
    pub fn hulls(&self) -> &[Polyhedron] {
        &self.hulls
    }

    /// Adds a wall and returns its index.
    pub fn wall(&mut self, w: WallDesc) -> usize {
        self.walls.push(w);
        self.walls.len() - 1
    }

    /// Adds a triangle-mesh wall and returns its index among the meshes.
    pub fn mesh(&mut self, m: MeshDesc) -> usize {
        self.meshes.push(m);
        self.meshes.len() - 1
    }

    /// Adds a joint between bodies added before or after it (checked at build) and returns its
    /// index.
    pub fn joint(&mut self, j: JointDesc) -> usize {
        self.joints.push(j);
        self.joints.len() - 1
    }

    /// Adds a spring–damper and returns its index.
    pub fn spring(&mut self, s: SpringDesc) -> usize {
        self.springs.push(s);
        self.springs.len() - 1
    }

    /// Fills the world with `fluid`: its buoyancy and drag act on every dynamic sphere (see
    /// [`grains_kernels::fluid`]; CPU backend, spheres only).
    pub fn fluid(&mut self, fluid: Fluid) {
        self.fluid = Some(fluid);
    }

    /// Gives the fluid's velocity on a grid of nodes from the first step: the world is built
    /// with [`World::set_flow_field`]`(Some(field))` already called (refused as that call
    /// refuses it, at build), and the field is part of the physics fingerprint, so a checkpoint
    /// is resumed only into a world built with the same one. A field set later by
    /// [`World::set_flow_field`] is the program's own, as it is not in the checkpoints.
    pub fn flow_field(&mut self, field: FlowField) {
        self.flow_field = Some(field);
    }

    /// Adds an applied force and returns its index.
    pub fn force(&mut self, f: AppliedForce) -> usize {
        self.forces.push(f);
        self.forces.len() - 1
    }

    /// Adds an insertion region (see [`crate::insertion`]) and returns its index.
    pub fn insert(&mut self, i: Insertion) -> usize {
        self.insertions.push(i);
        self.insertions.len() - 1
    }

    /// Adds a sink (see [`crate::sink`]) and returns its index.
    pub fn sink(&mut self, s: Sink) -> usize {
        self.sinks.push(s);
        self.sinks.len() - 1
    }

    /// Adds the five walls of an open box.
    pub fn container(&mut self, c: &BoxContainer) -> &mut Self {
        for w in c.walls() {
            self.wall(w);
        }
        self
    }

    /// Number of bodies added so far.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Checks everything and builds the world.
    pub fn build(&self) -> Result<World, BuildError> {
        self.settings.check()?;
        let mut materials = self.materials.clone();
        if materials.list.is_empty() {
            return Err(BuildError::Material {
                material: 0,
                field: "friction",
                problem: "is undefined: the world has no material (add one before building)".into(),
            });
        }
        let friction = materials.table()?;
        let mut present = Present::of_settings(&self.settings);
        present.materials(&materials.list);
        present.bodies(&self.bodies);
        present.walls(&self.walls);
        present.lifecycle(&self.insertions, self.sinks.len());
        let counts = (self.meshes.len(), self.joints.len(), self.springs.len());
        present.parts((counts.0, counts.1, counts.2, self.forces.len()));
        present.add(
            self.fluid.is_some(),
            Feature::Fluid,
            Item::Settings("fluid"),
        );
        present.check()?;
        if let Some(fluid) = &self.fluid {
            let largest = self.bodies.iter().map(|b| b.radius).fold(0.0, f32::max);
            check_fluid(fluid, largest)?;
        }
        crate::polyhedron::check_polyhedra(&self.settings, &self.bodies, &self.hulls)?;
        if self.bodies.len() > MAX_BODIES {
            return Err(BuildError::Body {
                body: MAX_BODIES,
                field: "count",
                problem: format!(
                    "a world holds at most {MAX_BODIES} bodies (2^28), this one has {}",
                    self.bodies.len()
                ),
            });
        }
        self.check_shapes_together(&self.bodies)?;
        crate::wall_partners::check_wall_partners(
            &self.bodies,
            &self.walls,
            !self.meshes.is_empty(),
        )?;
        materials.list.shrink_to_fit();
        let mut bodies = Bodies::default();
        let mut drives = Vec::new();
        for (i, b) in self.bodies.iter().enumerate() {
            check_body(i, b, materials.list.len())?;
            check_shape(i, b, self.settings.planar)?;
            crate::inertia::check_principal_moments(i, b)?;
            push_body(&mut bodies, b);
            if let Some(m) = b.prescribed {
                drives.push((i as u32, m));
            }
        }
        let walls = self
            .walls
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let w = w.normalised(i)?;
                if w.material.0 as usize >= materials.list.len() {
                    return Err(BuildError::Wall {
                        wall: i,
                        field: "material",
                        problem: format!(
                            "is {} but only {} materials exist",
                            w.material.0,
                            materials.list.len()
                        ),
                    });
                }
                Ok(w)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let hulls: Vec<_> = self.hulls.iter().map(|p| p.hull.clone()).collect();
        check_bodies_outside_walls(&self.bodies, &hulls, &walls, &self.clumps, self.settings.h)?;
        crate::implicit::check_world(&self.settings, &self.bodies, &walls)?;
        let meshes = self.checked_meshes(materials.list.len())?;
        let joints = self
            .joints
            .iter()
            .enumerate()
            .map(|(i, j)| j.to_kernel(i, &bodies))
            .collect::<Result<Vec<_>, _>>()?;
        let springs = self
            .springs
            .iter()
            .enumerate()
            .map(|(i, s)| s.to_kernel(i, &bodies))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, f) in self.forces.iter().enumerate() {
            f.check(i, &bodies)?;
        }
        let links = self.links(&joints, &springs);
        let shapes = self
            .bodies
            .iter()
            .any(|b| !b.shape.is_sphere())
            .then(|| self.bodies.iter().map(|b| b.shape).collect());
        let joint_rows = joints.iter().map(|j| j.row_count()).sum::<usize>()
            + springs.iter().filter(|s| s.implicit).count();
        crate::inertia::check_anisotropic_world(&self.settings, &self.bodies)?;
        self.check_inserted_shapes(materials.list.len())?;
        let parts = Parts {
            joints: joints.clone(),
            springs,
            shapes,
            hulls: hulls.clone(),
            inertia: crate::inertia::principal_inertia(&self.bodies),
            clumps: self.clumps.clone(),
            fluid: self.fluid,
        };
        let lifecycle = Lifecycle::new(
            &self.insertions,
            &self.sinks,
            &self.settings,
            materials.list.len(),
            &walls,
            &bodies,
            (&drives, &self.forces),
            (parts.shapes.as_deref(), &parts.inertia.moments),
        )?;
        let r_min = bodies
            .smallest_radius()
            .min(Lifecycle::smallest_radius(&self.insertions));
        // A wet world's envelope reaches its longest liquid bridge, so that every bridge's gap
        // has a contact row.
        let envelope = (self.settings.envelope)
            .unwrap_or(Envelope::PerPair {
                floor: if r_min.is_finite() { 0.05 * r_min } else { 0.0 },
                speed_factor: 1.5,
            })
            .reaching(friction.longest_bridge());
        crate::periodic::check_world(&self.settings, envelope, &self.bodies, &walls)?;
        let shapes = parts.shapes.clone().unwrap_or_default();
        let backend = backend::open(&self.settings, parts, &friction)?;
        let (max_give, slop) = match r_min.is_finite() {
            true => (MAX_GIVE * r_min, OVERLAP_SLOP * r_min),
            false => (0.0, 0.0),
        };
        let mut monitor = Monitor::new(&bodies, links);
        monitor.domain = self.domain(&walls, &bodies)?;
        let mut fingerprint = Fingerprint::new(
            &self.settings,
            envelope,
            &materials,
            &self.bodies,
            &walls,
            &self.joints,
            &self.springs,
            &self.forces,
        );
        let r_max = bodies.pos_radius.iter().map(|p| p.w).fold(0.0, f32::max);
        let meshes = Meshes::new(meshes, walls.len(), 2.0 * r_max);
        monitor.mesh_speed = meshes.placed.max_speed;
        monitor.seam_speed = self.settings.periodic.jump_speed().abs();
        monitor.flow_speed = self.fluid.map_or(0.0, |f| f.velocity.length());
        fingerprint.push_meshes(&meshes.descs);
        fingerprint.push_lifecycle(&self.insertions, &self.sinks);
        fingerprint.push_clumps(&self.clumps);
        fingerprint.push_hulls(&hulls);
        fingerprint.push_fluid(self.fluid.as_ref());
        fingerprint.push_flow_field(self.flow_field.as_ref());
        // Forces, joints and springs can speed bodies without a bound the reach check knows.
        let energy_bounded =
            self.forces.is_empty() && self.joints.is_empty() && self.springs.is_empty();
        let reach = Reach::new(
            &self.bodies,
            &self.insertions,
            &walls,
            // A sheared cell's images move at ±γ̇ L_y, as a wall would.
            meshes
                .placed
                .max_speed
                .max(self.settings.periodic.jump_speed().abs()),
            energy_bounded,
        );
        let servos = crate::servo::servo_walls(&walls);
        let mut world = World {
            settings: self.settings,
            params: self.settings.step_params(envelope, (max_give, slop)),
            bodies,
            wall_groups: plane_groups(&walls),
            wall_descs: walls,
            walls: Vec::new(),
            servos,
            meshes,
            drives,
            drive_buf: Vec::new(),
            joints,
            forces: self.forces.clone(),
            external: Vec::new(),
            load_buf: Vec::new(),
            friction,
            backend,
            steps: 0,
            last: StepStats::default(),
            monitor,
            fingerprint,
            joint_rows,
            lifecycle,
            shapes,
            clumps: self.clumps.clone(),
            hulls,
            reach,
            control: (self.settings.auto_step).map(|_| StepControl::new(self.settings.h)),
        };
        world.place_walls(0.0);
        if let Some(field) = &self.flow_field {
            world.set_flow_field(Some(field.clone()))?;
        }
        Ok(world)
    }
}

impl WorldBuilder {
    /// What the energy check allows the forces, motors, joints and springs to supply or store
    /// (see [`Fault::Energy`](crate::Fault::Energy)), from the bodies as built.
    fn links(
        &self,
        joints: &[grains_kernels::joints::Joint],
        springs: &[grains_kernels::springs::Spring],
    ) -> Links {
        // Each body's mass and smallest moment, infinite for one that does not move.
        let inertia = |i: usize| -> (f64, f64) {
            let b = &self.bodies[i];
            if b.kind != BodyKind::Dynamic {
                return (f64::INFINITY, f64::INFINITY);
            }
            let moment = b
                .anisotropic_moments()
                .map_or(b.isotropic_inertia(), |m| m.min_element());
            (b.mass as f64, moment as f64)
        };
        let mut push2 = 0.0f64;
        for f in &self.forces {
            push2 += (f.force.length() as f64).powi(2) / inertia(f.body).0;
        }
        let mut free_motors = Vec::new();
        for (k, j) in self.joints.iter().enumerate() {
            let Some(motor) = j.motor else { continue };
            let turns = j.kind == crate::joint::JointKind::Hinge;
            if motor.max_force.is_infinite() {
                free_motors.push((k, motor.speed, turns));
                continue;
            }
            for body in std::iter::once(j.a).chain(j.b) {
                let (m, moment) = inertia(body);
                push2 += (motor.max_force as f64).powi(2) / if turns { moment } else { m };
            }
        }
        let stabilised = joints.iter().zip(&self.joints).map(|(kernel, j)| {
            kernel.stabilise.then(|| {
                let (ma, ia) = inertia(j.a);
                let (mb, ib) = j.b.map_or((f64::INFINITY, f64::INFINITY), inertia);
                (ma.min(mb), ia.min(ib))
            })
        });
        Links {
            push: push2.sqrt(),
            external_push: 0.0,
            springs: springs.to_vec(),
            joints: stabilised.collect(),
            free_motors,
        }
    }

    /// The world's domain (see [`crate::domain`]) with the walls `walls` (normalised), and,
    /// when the escape check stops the run, a refusal of a dynamic body of `bodies` that
    /// starts outside it.
    fn domain(&self, walls: &[WallDesc], bodies: &Bodies) -> Result<Option<Domain>, BuildError> {
        let domain = Domain::of_world(
            walls,
            &self.meshes,
            (&self.insertions, &self.sinks),
            &self.settings,
        );
        if let (Some(d), Check::Stop) = (domain, self.settings.health.escape) {
            for (i, p) in bodies.pos_radius.iter().enumerate() {
                let place = whereabouts(Some(&d), Check::Stop, p.truncate(), p.w);
                if let (true, Whereabouts::Escaped { distance: out }) =
                    (bodies.is_dynamic(i), place)
                {
                    return Err(BuildError::Body {
                        body: i,
                        field: "position",
                        problem: format!(
                            "is ({}, {}, {}) m, {out:.3e} m beyond its radius outside the box the walls enclose, from ({}) to ({}) m: place the grains inside the walls, or set health escape = \"off\" for an open domain",
                            p.x,
                            p.y,
                            p.z,
                            corner(d.lo),
                            corner(d.hi)
                        ),
                    });
                }
            }
        }
        Ok(domain)
    }

    /// Refuses an insertion of shaped grains ([`Insertion::shaped`]) this world cannot hold,
    /// naming the insertion (the support table, [`crate::support`], refuses its shape beside
    /// the backend and modes that do not take it): beside a cylinder, cone or mesh
    /// wall its shape does not meet ([`crate::wall_partners`]), a template that would be
    /// refused as a body, or a shape the
    /// narrow phase does not meet with the bodies built or the grains of the insertions before
    /// it (the checks of the built bodies, run on them with the templates added).
    fn check_inserted_shapes(&self, materials: usize) -> Result<(), BuildError> {
        let n = self.bodies.len();
        // The built bodies are copied only where a template joins them.
        let mut all = None;
        for (i, ins) in self.insertions.iter().enumerate() {
            let Some(t) = ins.template else { continue };
            let all = all.get_or_insert_with(|| self.bodies.to_vec());
            let shape = crate::body::shape_name(t.shape);
            let refuse = |problem: String| BuildError::Insert {
                insert: i,
                field: "shape",
                problem,
            };
            let meshes = !self.meshes.is_empty();
            let one = std::slice::from_ref(&t);
            if let Err(e) = crate::wall_partners::check_wall_partners(one, &self.walls, meshes) {
                let problem = match e {
                    BuildError::Body { field, problem, .. } => format!("{field} {problem}"),
                    e => e.to_string(),
                };
                return Err(refuse(format!("of its grains: {problem}")));
            }
            let k = all.len();
            all.push(ins.copy_of(&t, t.position, Quat::IDENTITY));
            let planar = self.settings.planar;
            let checked = check_body(k, &all[k], materials)
                .and_then(|_| check_shape(k, &all[k], planar))
                .and_then(|_| crate::inertia::check_principal_moments(k, &all[k]))
                .and_then(|_| crate::polyhedron::check_polyhedra(&self.settings, all, &self.hulls))
                .and_then(|_| self.check_shapes_together(all))
                .and_then(|_| crate::inertia::check_anisotropic_world(&self.settings, all));
            if let Err(e) = checked {
                let problem = match e {
                    BuildError::Body {
                        body,
                        field,
                        problem,
                    } if body >= n => format!("{field} {problem}"),
                    BuildError::Body { body, problem, .. } => {
                        format!("(a {shape}) cannot join body {body}: {problem}")
                    }
                    e => e.to_string(),
                };
                return Err(refuse(format!("of its grains: {problem}")));
            }
        }
        Ok(())
    }

    /// Refuses `bodies` with a pair of shapes the pair table does not meet ([`check_pairs`]),
    /// and clumps the clump table does not hold.
    fn check_shapes_together(&self, bodies: &[Body]) -> Result<(), BuildError> {
        check_pairs(bodies)?;
        check_clumps(bodies, &self.clumps, self.settings.planar)
    }

    /// The meshes checked ([`MeshDesc`]'s checks; what they do not combine with is the
    /// support table's, [`crate::support`], and the shapes they do not meet the pair
    /// table's, [`crate::wall_partners`]).
    fn checked_meshes(&self, materials: usize) -> Result<Vec<MeshDesc>, BuildError> {
        self.meshes
            .iter()
            .enumerate()
            .map(|(i, m)| m.checked(i, materials))
            .collect()
    }
}

fn check_body(i: usize, b: &Body, materials: usize) -> Result<(), BuildError> {
    let err = |field, problem: String| {
        Err(BuildError::Body {
            body: i,
            field,
            problem,
        })
    };
    if !finite3(b.position.to_array()) {
        return err("position", format!("must be finite, got {}", b.position));
    }
    if !(b.radius.is_finite() && b.radius > 0.0) {
        return err(
            "radius",
            format!("must be positive and finite, got {}", b.radius),
        );
    }
    if !(b.mass.is_finite() && b.mass > 0.0) {
        return err(
            "mass",
            format!("must be positive and finite, got {}", b.mass),
        );
    }
    if !(b.inertia.is_finite() && b.inertia > 0.0) {
        return err(
            "inertia",
            format!("must be positive and finite, got {}", b.inertia),
        );
    }
    let q = b.orientation;
    if !(q.is_finite() && (q.length() - 1.0).abs() <= 1e-4) {
        return err(
            "orientation",
            format!("must be a unit quaternion, got {q} (length {})", q.length()),
        );
    }
    if !finite3(b.velocity.to_array()) {
        return err("velocity", format!("must be finite, got {}", b.velocity));
    }
    if !finite3(b.angular_velocity.to_array()) {
        return err(
            "angular_velocity",
            format!("must be finite, got {}", b.angular_velocity),
        );
    }
    if b.material.0 as usize >= materials {
        return err(
            "material",
            format!("is {} but only {materials} materials exist", b.material.0),
        );
    }
    match (b.kind, &b.prescribed) {
        (BodyKind::Kinematic, None) => err("prescribed", "is required for a kinematic body".into()),
        (BodyKind::Kinematic, Some(m)) => match m.problem() {
            Some(p) => err("prescribed", p),
            None => Ok(()),
        },
        (_, Some(_)) => err("prescribed", "is only allowed for kinematic bodies".into()),
        _ => Ok(()),
    }
}

/// Checks a body's shape: positive finite dimensions, ellipses in planar mode only.
fn check_shape(i: usize, b: &Body, planar: bool) -> Result<(), BuildError> {
    let bad = |problem: String| {
        Err(BuildError::Body {
            body: i,
            field: "shape",
            problem,
        })
    };
    let positive = |x: f32| x.is_finite() && x > 0.0;
    match b.shape {
        Shape::Sphere => Ok(()),
        Shape::Capsule { half_length } if !positive(half_length) => bad(format!(
            "capsule half_length must be positive and finite, got {half_length}"
        )),
        Shape::Ellipse { a, b: bb } if !(positive(a) && positive(bb)) => bad(format!(
            "ellipse semi-axes must be positive and finite, got a = {a}, b = {bb}"
        )),
        Shape::Ellipse { .. } if !planar => {
            bad("ellipse needs planar mode (settings.planar = true)".into())
        }
        Shape::Cuboid { half_extents: h } if !(positive(h.x) && positive(h.y) && positive(h.z)) => {
            bad(format!(
                "cuboid half-extents must be positive and finite, got {h}"
            ))
        }
        Shape::Cuboid { .. } if planar => {
            bad("a cuboid is a 3-D body and planar mode has none (use a capsule or an ellipse)".into())
        }
        Shape::Cuboid { half_extents: h }
            if (h.x != h.y || h.y != h.z) && b.principal_moments.is_none() =>
        {
            bad(format!(
                "a box with unequal half-extents {h} needs its principal moments (Body::cuboid gives them; one scalar inertia is exact for a cube only)"
            ))
        }
        Shape::Ellipsoid { semi_axes: s }
            if !(positive(s.x) && positive(s.y) && positive(s.z)) =>
        {
            bad(format!(
                "ellipsoid semi-axes must be positive and finite, got {s}"
            ))
        }
        Shape::Cuboid { half_extents: s } | Shape::Ellipsoid { semi_axes: s }
            if aspect(s) > MAX_ASPECT =>
        {
            bad(format!(
                "{} {s}: the largest is {:.3e} × the smallest, beyond {MAX_ASPECT} (body::MAX_ASPECT)",
                match b.shape {
                    Shape::Cuboid { .. } => "box half-extents",
                    _ => "ellipsoid semi-axes",
                },
                aspect(s)
            ))
        }
        Shape::Ellipsoid { .. } if planar => bad(
            "an ellipsoid is a 3-D body and planar mode has none (use an ellipse)".into(),
        ),
        Shape::Ellipsoid { semi_axes: s }
            if (s.x != s.y || s.y != s.z) && b.principal_moments.is_none() =>
        {
            bad(format!(
                "an ellipsoid with unequal semi-axes {s} needs its principal moments (Body::ellipsoid gives them; one scalar inertia is exact for a sphere only)"
            ))
        }
        _ => Ok(()),
    }
}

/// Refuses a world with two bodies whose kinds of shape the pair table refuses
/// ([`pair_routine`]), naming the later body, the first body of the other kind and why: the
/// narrow phase meets every pair this lets through. O(bodies × kinds).
fn check_pairs(bodies: &[Body]) -> Result<(), BuildError> {
    // The first body of each kind met so far.
    let mut firsts: Vec<(ShapeKind, usize)> = Vec::new();
    for (i, b) in bodies.iter().enumerate() {
        let kind = b.shape.kind();
        for &(other, first) in &firsts {
            if let Err(e) = pair_routine(other, kind) {
                return Err(BuildError::Body {
                    body: i,
                    field: "shape",
                    problem: format!(
                        "is {}, and body {first} is {}: {e}",
                        kind.with_article(),
                        other.with_article()
                    ),
                });
            }
        }
        if firsts.iter().all(|f| f.0 != kind) {
            firsts.push((kind, i));
        }
    }
    Ok(())
}

/// How deep a body may start inside a wall, as a fraction of its radius: the same 1 % the scene
/// files allow between bodies. The first step drives an overlap Φ out at −Φ/h (40 m/s for 4 cm
/// at h = 1 ms), so a body placed by mistake inside a wall would be shot out of it; at 1 % of r
/// the push is 0.01 r/h (2.5 cm/s for the pour's r = 5 mm, h = 2 ms), while bodies placed
/// exactly on a wall (overlap of rounding size) pass. The envelope is no measure of it: it is
/// how far apart a pair may still be a contact, not how deep it may overlap.
const START_DEPTH_TOLERANCE: f32 = 0.01;

/// Refuses a dynamic body that starts more than [`START_DEPTH_TOLERANCE`] × its radius inside a
/// wall, naming the body, the wall, the depth and the speed depth/h it would be ejected at. The
/// depth is −Φ of the points the narrow phase tests against the wall (a sphere's centre, a
/// capsule's ends, each with the radius, against the face, edges and rims; an ellipse's support
/// point), Φ = (p − o)·n − r where p lies within a flat wall's face. A plane
/// bounds a solid half-space, so a body behind it is inside it however far; a rectangle is a
/// thin face, so a body wholly behind it (its centre more than its bounding radius behind) is
/// on its far side. Walls start at their displacement at t = 0. O(bodies × walls).
fn check_bodies_outside_walls(
    bodies: &[Body],
    hulls: &[Hull],
    walls: &[WallDesc],
    clumps: &ClumpTable,
    h: f32,
) -> Result<(), BuildError> {
    for (i, b) in bodies.iter().enumerate() {
        if b.kind != BodyKind::Dynamic {
            continue;
        }
        for (w, wall) in walls.iter().enumerate() {
            let depth = depth_in_wall(b, wall, (clumps, hulls));
            if depth > START_DEPTH_TOLERANCE * b.radius {
                let kind = wall.kind_name();
                return Err(BuildError::Body {
                    body: i,
                    field: "position",
                    problem: format!(
                        "is {depth:.3e} m inside wall {w} (a {kind}) at the start, more than {} % of its radius {} m: the first step would shoot it out at {:.3e} m/s",
                        100.0 * START_DEPTH_TOLERANCE,
                        b.radius,
                        depth / h
                    ),
                });
            }
        }
    }
    Ok(())
}

/// What the builder holds so far, for a program that describes a world before building it
/// (e.g. a scene file read into a builder).
impl WorldBuilder {
    /// The settings the world will be built with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The settings, to change before building (e.g. the thread count or the backend).
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    /// The materials added so far and the pair overrides of μ.
    pub fn materials(&self) -> &Materials {
        &self.materials
    }

    /// The bodies added so far, in order.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// Frees the bodies added so far, once a world has been built of them (the world holds
    /// its own copy): what a caller that builds one world and keeps the builder for its other
    /// parts (materials, insertions, settings) calls so as not to hold every body twice. A
    /// world built after this has no bodies.
    pub fn forget_bodies(&mut self) {
        self.bodies = Arc::default();
    }

    /// The insertions added so far, in order.
    pub fn insertions(&self) -> &[Insertion] {
        &self.insertions
    }

    /// The walls added so far, in order.
    pub fn walls(&self) -> &[WallDesc] {
        &self.walls
    }

    /// The joints added so far, in order.
    pub fn joints(&self) -> &[JointDesc] {
        &self.joints
    }
}
