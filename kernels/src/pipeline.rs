//! The CPU backend: the stages of one step in order, on a private thread pool, with every
//! buffer kept between steps (no allocation inside a step once sizes have settled).

use crate::broad_phase::Grid;
use crate::cohesion::Cohesion;
use crate::collision_filter::{drop_non_colliding, non_colliding_pairs};
use crate::colouring::Colouring;
use crate::contact_update::{impulse_vectors, SweepParams};
use crate::coulomb_correction::correct_normal_bias;
use crate::fluid::{FlowField, Fluid};
use crate::forces::{apply_forces, apply_loads, Actuation, Load};
use crate::gauss_seidel::{apply_warm_start, solve_gauss_seidel};
use crate::inertia::PrincipalInertia;
use crate::integrate::integrate_positions;
use crate::interface::{keep_decided, Interface};
use crate::jacobi::{body_gather, solve_jacobi, BodyContacts, JacobiScratch};
use crate::joint_rows::JointRows;
use crate::joints::Joint;
use crate::layout::{Bodies, ContactRow, FrictionTable, Motion, Wall};
use crate::mesh::MeshWalls;
use crate::narrow_phase::{find_contacts, Contacts, TooManyContacts};
use crate::observe::{kinetic_energy_of_rigid_bodies, max_penetration};
use crate::packing::{Packs, COMPACT_FROM};
use crate::parallel::TeamChoice;
use crate::position_correction::PositionCorrection;
use crate::restitution::Impacts;
use crate::rolling::{MomentPacks, Moments};
use crate::shapes::clump::ClumpTable;
use crate::shapes::polyhedron::Hull;
use crate::shapes::Shape;
use crate::space_order::SpaceOrder;
use crate::springs::{apply_spring_forces, Spring, SpringForceRows};
use crate::step::{SolverKind, StageTimes, StepParams, StepStats};
use crate::trace::{SweepRecord, Trace};
use crate::voidage::Voidage;
use crate::warm_start::ImpulseCache;
use glam::{Vec3, Vec4};
use std::time::Instant;

/// CPU backend: a private thread pool and the step's buffers.
pub struct CpuPipeline {
    pool: rayon::ThreadPool,
    work: Workspace,
}

/// Every buffer of the step, kept between steps.
#[derive(Default)]
struct Workspace {
    /// Shape of each body (empty: all spheres).
    shapes: Vec<Shape>,
    /// The clump templates of the [`Shape::Clump`] bodies (empty: no clump).
    clumps: ClumpTable,
    /// The convex hulls the polyhedra name (empty: no polyhedron).
    hulls: Vec<Hull>,
    /// Principal moments of the anisotropic bodies (empty: every body isotropic).
    inertia: PrincipalInertia,
    grid: Grid,
    contacts: Contacts,
    cache: ImpulseCache,
    gamma: Vec<[f32; 4]>,
    /// Moment rows and impulses of the contacts (only kept when some pair has spinning or
    /// rolling friction).
    moments: Moments,
    solver: SolverLayout,
    /// The bodies in space order for the Gauss–Seidel solve, and their motion in that order
    /// (see [`crate::space_order`]).
    space: SpaceOrder,
    space_motion: Vec<Motion>,
    impacts: Impacts,
    /// Each contact's cohesive pull (only kept when some pair coheres).
    cohesion: Cohesion,
    /// The position correction's rows and pseudo-velocities (only kept when it is on).
    correction: PositionCorrection,
    non_contact: NonContact,
    /// Velocities before this step's forces, v⁻ (only kept when some pair restitutes).
    pre_force: Vec<Motion>,
    energy_blocks: Vec<f64>,
    times: StageTimes,
}

/// What acts on the bodies besides contact: joints, springs and applied loads, with the rows
/// they give each step (stage 1 applies the forces among them, with gravity and the drives).
#[derive(Default)]
struct NonContact {
    joints: Vec<Joint>,
    /// Body pairs whose joint excludes their contacts (sorted).
    non_colliding: Vec<(u32, u32)>,
    springs: Vec<Spring>,
    loads: Vec<Load>,
    /// The fluid's buoyancy and drag (none: no fluid), and each body's drag rate h β/m.
    fluid: Option<Fluid>,
    /// The fluid's velocity on a grid (none: the fluid's uniform velocity).
    flow: Option<FlowField>,
    drag_rates: Vec<f32>,
    /// Each body's voidage, where the drag law reads one, and its grid's scratch.
    voidage: Vec<f32>,
    voidage_grid: Voidage,
    /// The joints' rows and the implicit springs' soft rows, with their impulses.
    rows: JointRows,
    /// The explicit springs' rows and impulses of stage 1.
    explicit: SpringForceRows,
    /// The joints' rows in the impact of stage 4.
    impact: JointRows,
}

impl NonContact {
    /// Stage 1: v* = v + h M⁻¹ f for the explicit springs, the applied loads and gravity, then
    /// the kinematic bodies' drives (the anisotropic bodies of `inertia` turned by I_w⁻¹), then
    /// the fluid's buoyancy and drag.
    fn apply_forces(
        &mut self,
        bodies: &mut Bodies,
        drives: &[Actuation],
        (p, inertia): (&StepParams, &PrincipalInertia),
    ) {
        let shapes = (bodies.kind.as_slice(), bodies.pos_radius.as_slice());
        if let Some(fluid) = &self.fluid {
            self.voidage.clear();
            if let Some(cell) = fluid.drag.voidage_cell() {
                let grid = &mut self.voidage_grid;
                grid.of_bodies(&bodies.pos_radius, cell, &p.periodic, &mut self.voidage);
            }
            let (voidage, flow) = (self.voidage.as_slice(), self.flow.as_ref());
            fluid.drag_rates(
                flow,
                &bodies.motion,
                shapes,
                voidage,
                p.h,
                &mut self.drag_rates,
            );
        }
        apply_spring_forces(&self.springs, bodies, (p, inertia), &mut self.explicit);
        apply_loads(&mut bodies.motion, &self.loads, p, inertia);
        apply_forces(&mut bodies.motion, &bodies.kind, drives, p);
        if let Some(fluid) = &self.fluid {
            let shapes = (bodies.kind.as_slice(), bodies.pos_radius.as_slice());
            let flow = self.flow.as_ref();
            fluid.apply(flow, &mut bodies.motion, shapes, &self.drag_rates, p);
        }
    }
}

/// The solver's view of a set of contact rows: colouring and packs (Gauss–Seidel) or body index
/// and packs (Jacobi), with the Jacobi impulse scratch, and the moment rows on the same packs
/// when they were loaded with them.
#[derive(Default)]
struct SolverLayout {
    jacobi: JacobiScratch,
    trace: Trace,
    index: BodyContacts,
    colouring: Colouring,
    packs: Packs,
    /// The bodies' centres and radii in the solver's space order, for compact packs.
    slot_radius: Vec<Vec4>,
    moment_packs: MomentPacks,
    with_moments: bool,
    /// Barrier waits of one worker in the Gauss–Seidel solves, summed over steps.
    barrier_waits: u64,
    /// How many workers the Gauss–Seidel sweeps run on (fewer when the cores are busy).
    team: TeamChoice,
}

impl CpuPipeline {
    /// A pipeline running on `threads` worker threads (results do not depend on the count).
    pub fn new(threads: usize) -> Result<Self, rayon::ThreadPoolBuildError> {
        Ok(CpuPipeline {
            pool: rayon::ThreadPoolBuilder::new()
                .num_threads(threads.max(1))
                .build()?,
            work: Workspace::default(),
        })
    }

    /// Worker threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Forgets the warm-start impulses (after bodies were moved by hand).
    pub fn reset_warm_start(&mut self) {
        self.work.cache.clear();
        self.work.non_contact.rows.clear();
    }

    /// Replaces the joints and springs the following steps enforce (forgetting the joints'
    /// impulses). Joints and implicit springs are rows of every step's CCP; explicit springs
    /// are forces of stage 1.
    pub fn set_links(&mut self, joints: Vec<Joint>, springs: Vec<Spring>) {
        let non_contact = &mut self.work.non_contact;
        non_contact.non_colliding = non_colliding_pairs(&joints);
        non_contact.joints = joints;
        non_contact.springs = springs;
        non_contact.rows = JointRows::default();
    }

    /// Replaces the joints (keeping the springs), as when bonds broke, and the joint rows'
    /// impulses by `impulses`, in the rows' order for the new joints.
    pub fn set_joints(&mut self, joints: Vec<Joint>, impulses: &[f32]) {
        let springs = std::mem::take(&mut self.work.non_contact.springs);
        self.set_links(joints, springs);
        self.restore_joint_impulses(impulses);
    }

    /// What the last step's cohesive pull may have supplied, as the health check's energy
    /// check counts an applied force ([`crate::cohesion::Cohesion::push`]; 0 in a world that
    /// does not cohere).
    pub fn cohesive_push(&self) -> f64 {
        self.work.cohesion.push
    }

    /// Sets the bodies' shapes, one per body in body order (empty: every body a sphere).
    pub fn set_shapes(&mut self, shapes: Vec<Shape>) {
        self.work.shapes = shapes;
    }

    /// Sets the clump templates the [`Shape::Clump`] bodies name.
    pub fn set_clumps(&mut self, clumps: ClumpTable) {
        self.work.clumps = clumps;
    }

    /// Sets the hull table the polyhedra's [`Shape::Polyhedron`] index.
    pub fn set_hulls(&mut self, hulls: Vec<Hull>) {
        self.work.hulls = hulls;
    }

    /// Sets the principal moments of the anisotropic bodies ([`PrincipalInertia`]), in body
    /// order; their [`Motion::inv_inertia`] must be 0.
    pub fn set_inertia(&mut self, inertia: PrincipalInertia) {
        self.work.inertia = inertia;
    }

    /// Sets the fluid the bodies move in (`None`: none).
    pub fn set_fluid(&mut self, fluid: Option<Fluid>) {
        self.work.non_contact.fluid = fluid;
    }

    /// Sets the fluid's velocity on a grid for the following steps (`None`: the fluid's uniform
    /// velocity again). False, the field dropped, where there is no fluid.
    pub fn set_flow_field(&mut self, field: Option<FlowField>) -> bool {
        let work = &mut self.work.non_contact;
        work.flow = field.filter(|_| work.fluid.is_some());
        work.fluid.is_some()
    }

    /// Replaces the applied forces of the following steps.
    pub fn set_loads(&mut self, loads: &[Load]) {
        self.work.non_contact.loads.clear();
        self.work.non_contact.loads.extend_from_slice(loads);
    }

    /// The joint rows' impulses of the last step (N s), in row order: each joint's rows in joint
    /// order, then the implicit springs' rows.
    pub fn joint_impulses(&self) -> &[f32] {
        &self.work.non_contact.rows.gamma
    }

    /// Restores the joint impulses saved by [`Self::joint_impulses`] (the next step warm-starts
    /// from them).
    pub fn restore_joint_impulses(&mut self, gamma: &[f32]) {
        let rows = &mut self.work.non_contact.rows;
        rows.gamma.clear();
        rows.gamma.extend_from_slice(gamma);
    }

    /// The warm-start memory: pair keys and last step's impulse vectors.
    pub fn warm_start_state(&self) -> (&[u64], &[[f32; 4]]) {
        self.work.cache.state()
    }

    /// Restores the warm-start memory saved by [`Self::warm_start_state`] (without moments).
    pub fn restore_warm_start(&mut self, keys: &[u64], impulse: &[[f32; 4]]) {
        self.work.cache.restore(keys, impulse);
    }

    /// Restores the warm-start memory from one list of entries (pair key, ascending; impulse
    /// and moment impulse vectors as [`Self::warm_start_state`] and
    /// [`Self::warm_start_moments`] give them), the moments only where `moments`.
    pub fn restore_warm_start_entries(
        &mut self,
        entries: &[(u64, [f32; 4], [f32; 4])],
        moments: bool,
    ) {
        self.work.cache.restore_entries(entries, moments);
    }

    /// The warm-start memory of the moment impulses: one world-space vector per key of
    /// [`Self::warm_start_state`], or none when the last step had no spinning or rolling
    /// friction.
    pub fn warm_start_moments(&self) -> &[[f32; 4]] {
        self.work.cache.moment_state()
    }

    /// Restores the moment memory saved by [`Self::warm_start_moments`], after
    /// [`Self::restore_warm_start`].
    pub fn restore_warm_start_moments(&mut self, moment: &[[f32; 4]]) {
        self.work.cache.restore_moments(moment);
    }

    /// Seconds spent per stage since creation.
    pub fn times(&self) -> StageTimes {
        StageTimes {
            barrier_waits: self.work.solver.barrier_waits,
            ..self.work.times
        }
    }

    /// The contacts of the last step.
    pub fn contacts(&self) -> &Contacts {
        &self.work.contacts
    }

    /// The impulses (γn, γt1, γt2) of the last step's contacts, in the contacts' order.
    pub fn impulses(&self) -> &[[f32; 4]] {
        &self.work.gamma
    }

    /// The moment impulses (γ_s, γ_r1, γ_r2) of the last step's contacts about their (n, t1, t2),
    /// in the contacts' order; empty when no pair has spinning or rolling friction.
    pub fn moment_impulses(&self) -> &[[f32; 4]] {
        if self.work.solver.with_moments {
            &self.work.moments.gamma
        } else {
            &[]
        }
    }

    /// Every sweep of the last step's solves (impact, CCP, Coulomb-correction passes): its
    /// residual and when it was reached.
    pub fn sweep_trace(&self) -> &[SweepRecord] {
        self.work.solver.trace.sweeps()
    }

    /// Whether the last step's Gauss–Seidel solve read compact sphere packs
    /// ([`crate::sphere_pack`]).
    pub fn solved_compact_rows(&self) -> bool {
        self.work.solver.packs.compact
    }

    /// Advances `bodies` by one step against `walls` and the `mesh` walls (already placed for
    /// this step). Fails,
    /// with the forces of the step applied to the velocities and nothing else done, when the
    /// contacts exceed [`crate::narrow_phase::MAX_CONTACTS_PER_BODY`] per body.
    pub fn step(
        &mut self,
        bodies: &mut Bodies,
        walls: &[Wall],
        mesh: &MeshWalls,
        drives: &[Actuation],
        friction: &FrictionTable,
        p: &StepParams,
    ) -> Result<StepStats, TooManyContacts> {
        let work = &mut self.work;
        let inputs = (walls, mesh, drives, friction);
        self.pool.install(|| work.step(bodies, inputs, p, None))
    }

    /// [`Self::step`] for one rank of a distributed run: the contacts this rank does not solve
    /// are dropped after stage 3, and every gather of the Jacobi or APGD solve sums the shared
    /// bodies' impulses over the ranks through `interface` (see [`crate::interface`]). The
    /// statistics are this rank's (its contacts, its bodies' energy, ghosts included). The
    /// caller refuses Gauss–Seidel, restitution and joints, which this coupling does not cover.
    /// Fails on every rank, before the solve, when any rank's narrow phase found too many
    /// contacts ([`Interface::all_found`]).
    #[allow(clippy::too_many_arguments)]
    pub fn step_distributed(
        &mut self,
        bodies: &mut Bodies,
        walls: &[Wall],
        mesh: &MeshWalls,
        drives: &[Actuation],
        friction: &FrictionTable,
        p: &StepParams,
        interface: &mut (dyn Interface + 'static),
    ) -> Result<StepStats, TooManyContacts> {
        let work = &mut self.work;
        let inputs = (walls, mesh, drives, friction);
        self.pool
            .install(|| work.step(bodies, inputs, p, Some(interface)))
    }
}

/// What a step reads besides the bodies and parameters: the walls, the mesh walls, the drives
/// and the friction table.
type StepInputs<'a> = (
    &'a [Wall],
    &'a MeshWalls,
    &'a [Actuation],
    &'a FrictionTable,
);

impl Workspace {
    fn step(
        &mut self,
        bodies: &mut Bodies,
        (walls, mesh, drives, friction): StepInputs,
        p: &StepParams,
        mut interface: Option<&mut (dyn Interface + 'static)>,
    ) -> Result<StepStats, TooManyContacts> {
        let mut clock = Instant::now();
        let mut lap = |slot: &mut f64| {
            let now = Instant::now();
            *slot += (now - clock).as_secs_f64();
            clock = now;
        };
        let mut t = self.times;
        self.solver.trace.begin();
        let restitutes = friction.any_restitution();
        let rolls = friction.any_moment_friction();
        let coheres = friction.any_cohesion();
        if restitutes {
            // v⁻: the drives without any force (the impact takes no time).
            let weightless = StepParams {
                gravity: Vec3::ZERO,
                ..*p
            };
            self.pre_force.clone_from(&bodies.motion);
            apply_forces(&mut self.pre_force, &bodies.kind, drives, &weightless);
        }
        self.inertia.refresh(&bodies.orientation);
        let inertia = &self.inertia;
        self.non_contact.apply_forces(bodies, drives, (p, inertia));
        lap(&mut t.forces);

        self.grid.build(
            &bodies.pos_radius,
            &self.shapes,
            &bodies.motion,
            p.envelope,
            p.h,
        );
        lap(&mut t.broad);

        let found = find_contacts(
            &self.grid,
            bodies,
            &self.shapes,
            &self.clumps,
            &self.hulls,
            walls,
            mesh,
            friction,
            p,
            &mut self.contacts,
        );
        if let Some(shared) = interface.as_deref_mut() {
            if !shared.all_found(found.is_ok()) {
                return Err(TooManyContacts);
            }
        }
        found?;
        drop_non_colliding(&mut self.contacts, &self.non_contact.non_colliding);
        if let Some(shared) = interface.as_deref() {
            keep_decided(&mut self.contacts, shared);
        }
        if self.inertia.any() {
            let rows = &mut self.contacts.rows;
            self.inertia
                .add_rotational_weights(rows, p.softness_ratio());
        }
        if rolls {
            self.moments
                .build(&self.contacts, (bodies, &self.inertia), walls, friction);
        }
        lap(&mut t.narrow);

        let impact_sweeps =
            if restitutes && self.impacts.select(&self.contacts, bodies, walls, friction) {
                self.impact(bodies, drives, p)
            } else {
                0
            };
        lap(&mut t.impact);

        if coheres {
            let inputs = (walls, mesh, friction);
            let (h, planar) = (p.h, p.planar);
            let last = self.cache.state();
            self.cohesion.pull(
                &self.contacts,
                bodies,
                inputs,
                &self.inertia,
                (h, planar),
                last,
            );
        }
        let rows = &self.contacts.rows;
        let non_contact = &mut self.non_contact;
        let (joints, springs) = (&non_contact.joints, &non_contact.springs);
        // Gauss–Seidel solves a copy of the motion in space order, unless bilateral rows or
        // anisotropic bodies (which index the bodies' own arrays) take part.
        let in_space = p.solver == SolverKind::GaussSeidel
            && joints.is_empty()
            && springs.is_empty()
            && !self.inertia.any();
        if in_space {
            self.space.build(&self.grid);
            self.space.gather(&bodies.motion, &mut self.space_motion);
        }
        let space = in_space.then_some(&self.space);
        // The warm start and the colouring read the rows, each writing its own arrays: at
        // once, so that one's serial parts overlap the other's work.
        self.gamma.resize(rows.len(), [0.0; 4]);
        let (cache, gamma, keys) = (&self.cache, &mut self.gamma, &self.contacts.keys);
        let solver = &mut self.solver;
        rayon::join(
            || cache.warm_start(keys, rows, gamma, p.warm_start),
            || solver.colour(rows, &bodies.kind, p.solver, space),
        );
        if rolls {
            self.cache.warm_start_moments(
                &self.contacts.keys,
                rows,
                &self.moments.rows,
                &self.gamma,
                &mut self.moments.gamma,
                p.warm_start,
            );
        }
        let moments = rolls.then_some(&self.moments);
        let sweep = SweepParams::step(p, &self.inertia);
        let motion = match in_space {
            true => &mut self.space_motion,
            false => &mut bodies.motion,
        };
        let coupled = (rows.as_slice(), self.gamma.as_slice(), moments);
        let shared = interface.as_deref_mut();
        self.solver.load(
            coupled,
            (&bodies.kind, &bodies.pos_radius),
            motion,
            &sweep,
            shared,
            space,
        );
        non_contact
            .rows
            .build((joints, springs), bodies, &self.inertia, p);
        non_contact.rows.apply_warm_start(&mut bodies.motion);
        lap(&mut t.prepare);

        let motion = match in_space {
            true => &mut self.space_motion,
            false => &mut bodies.motion,
        };
        let (iterations, residual) =
            self.solver
                .solve_corrected(rows, &mut non_contact.rows, motion, &sweep, interface);
        if in_space {
            self.space.scatter(&self.space_motion, &mut bodies.motion);
        }
        lap(&mut t.solve);

        integrate_positions(
            &mut bodies.pos_radius,
            &mut bodies.orientation,
            &mut bodies.motion,
            &bodies.kind,
            &self.inertia,
            p.h,
            &p.periodic,
        );
        lap(&mut t.integrate);

        self.solver.packs.unpack_gamma(&mut self.gamma);
        let rows = &self.contacts.rows;
        self.cache.store(&self.contacts.keys, rows, &self.gamma);
        if rolls {
            let solver = &self.solver;
            solver
                .moment_packs
                .unpack_gamma(&solver.packs.lanes, &mut self.moments.gamma);
            self.cache.store_moments(rows, &self.moments.gamma);
        }
        if coheres {
            self.cache.mark_bridges(&self.cohesion.bridge);
            self.cohesion.report(&mut self.gamma);
        }
        let correction_sweeps = match p.position_correction {
            0 => 0,
            _ => {
                lap(&mut t.observe);
                let sweeps = self.correct_positions(bodies, p, in_space);
                // Timed with the solve, as its sweeps count with the step's.
                lap(&mut t.solve);
                sweeps
            }
        };
        let rows = &self.contacts.rows;
        let stats = StepStats {
            contacts: rows.len(),
            iterations: impact_sweeps + iterations + correction_sweeps,
            residual,
            max_penetration: max_penetration(rows),
            kinetic_energy: kinetic_energy_of_rigid_bodies(
                &bodies.motion,
                &bodies.kind,
                (&bodies.orientation, &self.inertia),
                &mut self.energy_blocks,
            ),
        };
        lap(&mut t.observe);
        self.times = t;
        Ok(stats)
    }

    /// The position correction of [`crate::position_correction`] after the step's solve left
    /// v⁺ in `bodies` and its positions were advanced by h v⁺: the frictionless CCP of the
    /// pseudo-velocities v_c from rest, by the step's iteration with `p.position_correction`
    /// sweeps (in the space order of the step's Gauss–Seidel solve when `in_space`), then the
    /// positions advanced by h v_c. Returns its sweeps.
    fn correct_positions(&mut self, bodies: &mut Bodies, p: &StepParams, in_space: bool) -> u32 {
        let correction = &mut self.correction;
        correction.build(&self.contacts.rows, &bodies.motion, (p.h, p.overlap_slop));
        let pseudo = StepParams {
            max_iterations: p.position_correction,
            coulomb_correction: 0,
            ..*p
        };
        let sweep = SweepParams::impact(&pseudo, &self.inertia);
        let space = in_space.then_some(&self.space);
        let motion = match space {
            Some(space) => {
                space.gather(&correction.motion, &mut correction.space_motion);
                &mut correction.space_motion
            }
            None => &mut correction.motion,
        };
        let solver = &mut self.solver;
        // The step's moment impulses stay reported (the correction has no moment rows).
        let with_moments = solver.with_moments;
        solver.colour(&correction.rows, &bodies.kind, p.solver, space);
        let loaded = (
            correction.rows.as_slice(),
            correction.gamma.as_slice(),
            None,
        );
        let shapes = (bodies.kind.as_slice(), bodies.pos_radius.as_slice());
        solver.load(loaded, shapes, motion, &sweep, None, space);
        let joints = &mut correction.joints;
        let (sweeps, _) = solver.solve_corrected(&correction.rows, joints, motion, &sweep, None);
        solver.with_moments = with_moments;
        if let Some(space) = space {
            space.scatter(&correction.space_motion, &mut correction.motion);
        }
        integrate_positions(
            &mut bodies.pos_radius,
            &mut bodies.orientation,
            &mut correction.motion,
            &bodies.kind,
            &self.inertia,
            p.h,
            &p.periodic,
        );
        sweeps
    }

    /// The Poisson impact of [`crate::restitution`] on the colliding contacts selected into
    /// `self.impacts`, with the joints holding their velocity constraints through it:
    /// compression and decompression from the pre-force velocities, then v ← v⁺ + h M⁻¹ f for
    /// the step's CCP. Returns the sweeps of both solves.
    fn impact(&mut self, bodies: &mut Bodies, drives: &[Actuation], p: &StepParams) -> u32 {
        let impacts = &mut self.impacts;
        let v = &mut self.pre_force;
        let joints = &mut self.non_contact.impact;
        joints.build_impact(&self.non_contact.joints, bodies, &self.inertia, p);
        let sweep = SweepParams::impact(p, &self.inertia);
        let solver = &mut self.solver;
        let kind = (bodies.kind.as_slice(), bodies.pos_radius.as_slice());
        solver.colour(&impacts.rows, &bodies.kind, p.solver, None);
        let loaded = (impacts.rows.as_slice(), impacts.gamma.as_slice(), None);
        solver.load(loaded, kind, v, &sweep, None, None);
        let (compression, _) = solver.solve_corrected(&impacts.rows, joints, v, &sweep, None);
        solver.packs.unpack_gamma(&mut impacts.gamma);
        impacts.restitute();
        joints.gamma.fill(0.0);
        let loaded = (impacts.rows.as_slice(), impacts.gamma.as_slice(), None);
        solver.load(loaded, kind, v, &sweep, None, None);
        solver.packs.gamma.fill([Vec4::ZERO; 3]);
        let (decompression, _) = solver.solve_corrected(&impacts.rows, joints, v, &sweep, None);
        bodies.motion.copy_from_slice(v);
        let inertia = &self.inertia;
        self.non_contact.apply_forces(bodies, drives, (p, inertia));
        compression + decompression
    }
}

impl SolverLayout {
    /// Colours `rows` for `solver` when it is Gauss–Seidel (in the blocks of `space`, if
    /// given); the other solvers need no colouring. [`Self::load`] lays out these classes.
    fn colour(
        &mut self,
        rows: &[ContactRow],
        kind: &[u32],
        solver: SolverKind,
        space: Option<&SpaceOrder>,
    ) {
        if solver == SolverKind::GaussSeidel {
            match space {
                Some(space) => self.colouring.build_in_blocks(rows, kind, space.slots()),
                None => self.colouring.build(rows, kind),
            }
        }
    }

    /// Lays out `rows` for `p.solver` (for Gauss–Seidel in the classes [`Self::colour`] gave
    /// them) with the starting impulses `gamma` (and the moment rows
    /// and impulses of `moments`, if given) and applies them, v ← v + M⁻¹ D γ (summed over the
    /// ranks through `interface` in a distributed step). With `space` (Gauss–Seidel only),
    /// `motion` is in its slot order and the packs' bodies are renumbered into it.
    fn load(
        &mut self,
        (rows, gamma, moments): (&[ContactRow], &[[f32; 4]], Option<&Moments>),
        (kind, pos_radius): (&[u32], &[Vec4]),
        motion: &mut [Motion],
        p: &SweepParams,
        interface: Option<&mut (dyn Interface + 'static)>,
        space: Option<&SpaceOrder>,
    ) {
        self.with_moments = moments.is_some();
        match p.solver {
            SolverKind::GaussSeidel => {
                let classes = &self.colouring.start;
                let order = Some(self.colouring.order.as_slice());
                let body = |b: u32| space.map_or(b, |s| s.slot(b));
                let packs = &mut self.packs;
                let overflow = classes.len() - 2;
                // Compact packs where the sweep reads nothing but the sliding rows, and they
                // are many.
                let plain =
                    moments.is_none() && !p.planar && !p.inertia.any() && p.coulomb_correction == 0;
                let spheres = (plain && rows.len() >= COMPACT_FROM).then(|| match space {
                    // The radii in the solver's order, as the packs name the bodies: read
                    // pack after pack, near one another rather than scattered.
                    Some(space) => {
                        space.gather(pos_radius, &mut self.slot_radius);
                        self.slot_radius.as_slice()
                    }
                    None => pos_radius,
                });
                packs.build(rows, gamma, (order, classes), Some(overflow), body, spheres);
                if let Some(m) = moments {
                    self.moment_packs.build(m, &self.packs.lanes);
                }
                let moment_packs = self.with_moments.then_some(&self.moment_packs);
                let blocks = &self.colouring.blocks;
                apply_warm_start(&self.packs, blocks, moment_packs, motion, p);
            }
            SolverKind::Jacobi | SolverKind::Apgd => {
                self.index.build(rows, kind);
                let impulse = &mut self.jacobi.impulse;
                impulse_vectors(rows, gamma, impulse);
                if let Some(m) = moments {
                    impulse_vectors(rows, &m.gamma, &mut self.moment_packs.impulse);
                }
                let moment_impulse = self
                    .with_moments
                    .then_some(self.moment_packs.impulse.as_slice());
                let index = &self.index;
                body_gather(impulse, moment_impulse, motion, index, None, p, interface);
                let one_class = (None, [0, rows.len() as u32]);
                let packs = &mut self.packs;
                packs.build(rows, gamma, (one_class.0, &one_class.1), None, |b| b, None);
                if let Some(m) = moments {
                    self.moment_packs.build(m, &self.packs.lanes);
                }
            }
        }
    }

    /// Solves the CCP of the loaded `rows` and the bilateral `joints` from the packed γ and the
    /// joints' impulses, then runs `p.coulomb_correction` passes of [`correct_normal_bias`],
    /// each followed by a solve from the last γ; returns the sweeps of all solves and the last
    /// residual (m/s). `p` is a step's CCP ([`SweepParams::step`]: the normal rows carry the
    /// step's implicit spring) or an impact's ([`SweepParams::impact`]: rigid rows). In a
    /// distributed step the Jacobi and APGD solves are coupled through `interface`.
    fn solve_corrected(
        &mut self,
        rows: &[ContactRow],
        joints: &mut JointRows,
        motion: &mut [Motion],
        p: &SweepParams,
        mut interface: Option<&mut (dyn Interface + 'static)>,
    ) -> (u32, f32) {
        let shared = interface.as_deref_mut();
        let (mut sweeps, mut residual) = self.solve(joints, motion, p, shared);
        for _ in 0..p.coulomb_correction {
            correct_normal_bias(&mut self.packs, rows, motion);
            let shared = interface.as_deref_mut();
            let (more, last) = self.solve(joints, motion, p, shared);
            sweeps += more;
            residual = last;
        }
        (sweeps, residual)
    }

    fn solve(
        &mut self,
        joints: &mut JointRows,
        motion: &mut [Motion],
        p: &SweepParams,
        interface: Option<&mut (dyn Interface + 'static)>,
    ) -> (u32, f32) {
        let moments = self.with_moments.then_some(&mut self.moment_packs);
        match p.solver {
            SolverKind::Jacobi | SolverKind::Apgd => solve_jacobi(
                &mut self.packs,
                joints,
                moments,
                &mut self.jacobi,
                motion,
                &self.index,
                p.solver == SolverKind::Apgd,
                &mut self.trace,
                p,
                interface,
            ),
            SolverKind::GaussSeidel => {
                let (packs, trace) = (&mut self.packs, &mut self.trace);
                let blocks = &self.colouring.blocks;
                let pack_count = packs.len() as f64;
                let team = self.team.team(rayon::current_num_threads());
                let start = Instant::now();
                let out =
                    solve_gauss_seidel(packs, blocks, joints, moments, motion, trace, p, team);
                let seconds = start.elapsed().as_secs_f64();
                let work = f64::from(out.sweeps) * pack_count;
                self.team.record(team, seconds, work, out.waiting);
                self.barrier_waits += u64::from(out.barrier_waits);
                (out.sweeps, out.residual)
            }
        }
    }
}
