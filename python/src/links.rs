//! Joints, springs, applied forces and the fluid added to a `WorldBuilder`, as the library's
//! `JointDesc`, `SpringDesc`, `AppliedForce` and `Fluid`.

use crate::builder::PyWorldBuilder;
use grains::fluid::{Drag, Fluid};
use grains::{AppliedForce, BondStiffness, BondStrength, JointDesc, JointKind, SpringDesc, Vec3};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A 3-tuple as a vector.
type V3 = (f32, f32, f32);

impl PyWorldBuilder {
    /// Where an anchor not given lies: the centre of body `body` (`None`: the world, which
    /// needs the anchor), `argument` naming it in errors.
    fn anchor_or_centre(
        &self,
        argument: &str,
        anchor: Option<V3>,
        body: Option<usize>,
    ) -> PyResult<Vec3> {
        if let Some(a) = anchor {
            return Ok(Vec3::from(a));
        }
        let bodies = self.builder.bodies();
        match body {
            Some(i) if i < bodies.len() => Ok(bodies[i].position),
            Some(i) => Err(PyValueError::new_err(format!(
                "{argument}: not given, and body {i} (whose centre it defaults to) does not exist yet ({} bodies)",
                bodies.len()
            ))),
            None => Err(PyValueError::new_err(format!(
                "{argument}: required where the other side is the world (b = None)"
            ))),
        }
    }
}

#[pymethods]
impl PyWorldBuilder {
    /// Adds a joint between body `a` and body `b` (None: the world), described at the bodies'
    /// starting poses, and returns its index. `kind`:
    /// "ball" (the `anchor`, a world point, stays common to both), "hinge" (a ball joint that
    /// keeps `axis` aligned: free rotation about it), "distance" (`anchor` on a and `anchor_b`
    /// on b keep their starting distance), "fixed" (the bodies move as one) or "prismatic"
    /// (relative orientation fixed; a's anchor slides along `axis`). `anchor` defaults to a's
    /// centre. `motor=(speed, max_force)` drives a hinge (rad/s, N m) or prismatic joint
    /// (m/s, N), max_force = math.inf for no bound. `stabilise=False` drops the Θ/h term (the
    /// drift then accumulates); `collide=False` stops a and b colliding (bodies built to
    /// overlap at the joint). Checked at build.
    #[pyo3(signature = (kind, a, b = None, *, anchor = None, anchor_b = None, axis = None, motor = None, stabilise = true, collide = true))]
    #[allow(clippy::too_many_arguments)]
    fn joint(
        &mut self,
        kind: &str,
        a: usize,
        b: Option<usize>,
        anchor: Option<V3>,
        anchor_b: Option<V3>,
        axis: Option<V3>,
        motor: Option<(f32, f32)>,
        stabilise: bool,
        collide: bool,
    ) -> PyResult<usize> {
        let joint_kind = JointKind::from_name(kind).ok_or_else(|| {
            PyValueError::new_err(format!(
                "kind {kind:?}: expected {}",
                JointKind::names_listed()
            ))
        })?;
        let at = self.anchor_or_centre("anchor", anchor, Some(a))?;
        let has_axis = matches!(joint_kind, JointKind::Hinge | JointKind::Prismatic);
        if axis.is_some() && !has_axis {
            return Err(PyValueError::new_err(format!(
                "axis: only a hinge or a prismatic joint takes an axis, not a {kind:?} joint"
            )));
        }
        if anchor_b.is_some() && joint_kind != JointKind::Distance {
            return Err(PyValueError::new_err(format!(
                "anchor_b: only a distance joint takes anchor_b, not a {kind:?} joint"
            )));
        }
        let axis = Vec3::from(axis.unwrap_or((0.0, 0.0, 1.0)));
        let mut j = match joint_kind {
            JointKind::Ball => JointDesc::ball(a, b, at),
            JointKind::Hinge => JointDesc::hinge(a, b, at, axis),
            JointKind::Fixed => JointDesc::fixed(a, b, at),
            JointKind::Prismatic => JointDesc::prismatic(a, b, at, axis),
            JointKind::Distance => {
                let other = self.anchor_or_centre("anchor_b", anchor_b, b)?;
                JointDesc::distance(a, b, at, other)
            }
        };
        if let Some((speed, max_force)) = motor {
            j = j.with_motor(speed, max_force);
        }
        if !stabilise {
            j = j.without_stabilisation();
        }
        if !collide {
            j = j.without_collision();
        }
        Ok(self.builder.joint(j))
    }

    /// Adds a spring–damper between the point `anchor_a` of body `a` (default its centre) and
    /// `anchor_b` of body `b` (default its centre; required when `b` is None, the world) and
    /// returns its index: the force −(k (‖p_a − p_b‖ − L) + δ d‖p_a − p_b‖/dt) along the line
    /// between them. `stiffness` k (N/m) and `damping` δ (N s/m), ≥ 0, not both 0;
    /// `rest_length` L (m; default the anchors' starting distance). `integration`:
    /// "implicit" (linearly implicit, stable for any stiffness and step; default) or
    /// "explicit". Checked at build.
    #[pyo3(signature = (a, b = None, *, anchor_a = None, anchor_b = None, stiffness = 0.0, damping = 0.0, rest_length = None, integration = "implicit"))]
    #[allow(clippy::too_many_arguments)]
    fn spring(
        &mut self,
        a: usize,
        b: Option<usize>,
        anchor_a: Option<V3>,
        anchor_b: Option<V3>,
        stiffness: f32,
        damping: f32,
        rest_length: Option<f32>,
        integration: &str,
    ) -> PyResult<usize> {
        let pa = self.anchor_or_centre("anchor_a", anchor_a, Some(a))?;
        let pb = self.anchor_or_centre("anchor_b", anchor_b, b)?;
        let mut s = SpringDesc::new(a, b, pa, pb)
            .with_stiffness(stiffness)
            .with_damping(damping);
        if let Some(l) = rest_length {
            s = s.with_rest_length(l);
        }
        match integration {
            "implicit" => {}
            "explicit" => s = s.explicit(),
            other => {
                return Err(PyValueError::new_err(format!(
                    "integration {other:?}: expected \"implicit\" or \"explicit\""
                )))
            }
        }
        Ok(self.builder.spring(s))
    }

    /// Adds the force f(t) = `force` · cos(ω t + φ) (N) on the centre of the dynamic body
    /// `body` (constant for ω = φ = 0), with `angular_frequency` ω (rad/s) and `phase` φ
    /// (rad), and returns its index. Checked at build.
    #[pyo3(signature = (body, force, *, angular_frequency = 0.0, phase = 0.0))]
    fn force(&mut self, body: usize, force: V3, angular_frequency: f32, phase: f32) -> usize {
        self.builder.force(AppliedForce::harmonic(
            body,
            Vec3::from(force),
            angular_frequency,
            phase,
        ))
    }

    /// Fills the world with a fluid of `density` (kg/m³) and `viscosity` (Pa s) moving at
    /// `velocity` (m/s): its buoyancy and its drag, by the `drag` law ("schiller_naumann",
    /// "stokes", or "di_felice" with the voidage counted in cubes of edge `voidage_cell` (m)),
    /// act on every dynamic sphere (CPU backend). Checked at build.
    #[pyo3(signature = (density, viscosity, *, velocity = (0.0, 0.0, 0.0), drag = "schiller_naumann", voidage_cell = None), text_signature = "($self, /, density, viscosity, *, velocity=(0.0, 0.0, 0.0), drag='schiller_naumann', voidage_cell=None)")]
    fn fluid(
        &mut self,
        density: f32,
        viscosity: f32,
        velocity: V3,
        drag: &str,
        voidage_cell: Option<f32>,
    ) -> PyResult<()> {
        let drag = match (drag, voidage_cell) {
            ("schiller_naumann", None) => Drag::SchillerNaumann,
            ("stokes", None) => Drag::Stokes,
            ("di_felice", Some(cell)) => Drag::DiFelice { cell },
            ("di_felice", None) => {
                return Err(PyValueError::new_err(
                    "drag \"di_felice\" needs voidage_cell, the edge (m) of the cells the voidage is counted in",
                ))
            }
            ("schiller_naumann" | "stokes", Some(_)) => {
                return Err(PyValueError::new_err(
                    "voidage_cell is read by drag \"di_felice\" only",
                ))
            }
            (other, _) => {
                return Err(PyValueError::new_err(format!(
                    "drag {other:?}: expected \"schiller_naumann\", \"stokes\" or \"di_felice\""
                )))
            }
        };
        self.builder.fluid(Fluid {
            density,
            viscosity,
            velocity: Vec3::from(velocity),
            drag,
        });
        Ok(())
    }

    /// Gives the fluid's velocity (m/s) on a grid of nodes from the first step, as
    /// `World.set_flow_field` takes it: `velocities` of shape (nx, ny, nz, 3), node [i, j, k] at
    /// `origin` + (i, j, k) times `spacing` (m, along x, y and z). Part of the physics
    /// fingerprint: a checkpoint resumes only into a world built with the same field. Checked
    /// at build (a world without fluid is refused).
    #[pyo3(signature = (velocities, origin = (0.0, 0.0, 0.0), spacing = None), text_signature = "($self, /, velocities, origin=(0.0, 0.0, 0.0), spacing=None)")]
    fn flow_field(
        &mut self,
        velocities: &Bound<'_, PyAny>,
        origin: (f32, f32, f32),
        spacing: Option<(f32, f32, f32)>,
    ) -> PyResult<()> {
        let field = crate::arrays::flow_field(velocities, origin, spacing)?;
        self.builder.flow_field(field);
        Ok(())
    }

    /// Bonds every pair of the bodies `bodies` ((start, stop), e.g. a group's range) whose
    /// surfaces are at most `gap` (m) apart with an elastic fixed joint at the middle of the gap:
    /// `stiffness` (N/m) and `damping` (N s/m) for each positional row, `angular_stiffness`
    /// (N m/rad) and `angular_damping` (N m s/rad) for each orientation row (a chain of spacing ℓ
    /// bends as a beam of E I = k_r ℓ); `shear_stiffness` (N/m) across the bond and
    /// `twisting_stiffness` (N m/rad) about it, when given, in place of `stiffness` and
    /// `angular_stiffness` on those rows. With any of `tensile_strength`, `shear_strength` (N),
    /// `bending_strength` or `twisting_strength` (N m) the bonds break for good after the first
    /// step whose load exceeds one of them (`World.broken_bonds`). Returns the number of bonds.
    /// Checked at build.
    #[pyo3(signature = (bodies, *, stiffness, angular_stiffness, gap = 0.0, damping = 0.0, angular_damping = 0.0, shear_stiffness = None, twisting_stiffness = None, tensile_strength = None, shear_strength = None, bending_strength = None, twisting_strength = None))]
    #[allow(clippy::too_many_arguments)]
    fn bond_neighbours(
        &mut self,
        bodies: (usize, usize),
        stiffness: f32,
        angular_stiffness: f32,
        gap: f32,
        damping: f32,
        angular_damping: f32,
        shear_stiffness: Option<f32>,
        twisting_stiffness: Option<f32>,
        tensile_strength: Option<f32>,
        shear_strength: Option<f32>,
        bending_strength: Option<f32>,
        twisting_strength: Option<f32>,
    ) -> PyResult<usize> {
        if !(gap.is_finite() && gap >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "gap: must be a finite gap ≥ 0 (m), got {gap}"
            )));
        }
        let n = self.builder.bodies().len();
        if bodies.0 > bodies.1 || bodies.1 > n {
            return Err(PyValueError::new_err(format!(
                "bodies: ({}, {}) is not a range of the {n} bodies added",
                bodies.0, bodies.1
            )));
        }
        let range = bodies.0..bodies.1;
        let stiffness = BondStiffness {
            linear: stiffness,
            shear: shear_stiffness.unwrap_or(stiffness),
            linear_damping: damping,
            angular: angular_stiffness,
            twisting: twisting_stiffness.unwrap_or(angular_stiffness),
            angular_damping,
        };
        let strengths = [
            tensile_strength,
            shear_strength,
            bending_strength,
            twisting_strength,
        ];
        let strength = strengths.iter().any(Option::is_some).then(|| {
            let [tensile, shear, bending, twisting] = strengths.map(|s| s.unwrap_or(f32::INFINITY));
            BondStrength {
                tensile,
                shear,
                bending,
                twisting,
            }
        });
        self.builder
            .breakable_bonds(range, gap, stiffness, strength)
            .map_err(crate::errors::build_error)
    }
}
