//! Triangle-mesh walls: a surface of triangles (an STL file's, say) placed in the world, fixed
//! or moved by a prescribed translation and a rotation about an axis (a drum, a mixer's blade,
//! a screw). Spheres touch its faces, edges and vertices with one contact per touching point
//! (see `grains_kernels::mesh`), and so do a clump's member spheres, ellipsoids, boxes and
//! polyhedra (on the CPU, `grains_kernels::pair_algorithms::ellipsoid_triangle`,
//! `grains_kernels::pair_algorithms::polytope_triangle`); capsules and ellipses do not meet meshes (refused at
//! build, `crate::wall_partners`).

use crate::error::{finite3, BuildError};
use crate::loads::WallLoad;
use crate::material::MaterialId;
use crate::motion::Prescribed;
use crate::world::World;
use glam::{DQuat, Quat, Vec3};
use grains_kernels::mesh::{MeshMotion, MeshWalls, Triangle, TriangleGrid};

/// A rotation about a fixed axis at a constant rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rotation {
    /// A point of the axis at rest (m); it moves with the mesh's translation.
    pub axis_point: Vec3,
    /// Direction of the axis (normalised on build; must not be zero).
    pub axis: Vec3,
    /// Rate of rotation ω (rad/s, right-handed about `axis`).
    pub angular_speed: f32,
}

/// A triangle-mesh wall as a user describes it: its triangles at rest in world coordinates,
/// its material and its motion. At time t a vertex x₀ is at
/// x(t) = x_axis + d(t) + R(ω t)(x₀ − x_axis), with d(t) the translation and R(ω t) the turn
/// about the axis, and moves at v(t) + ω × (x − x_axis − d(t)).
#[derive(Clone, Debug, PartialEq)]
pub struct MeshDesc {
    /// Vertices (a, b, c) of each triangle at rest (m). Spheres are pushed away from whichever
    /// side they are on, so the winding does not matter.
    pub triangles: Vec<[Vec3; 3]>,
    /// Surface material.
    pub material: MaterialId,
    /// Translation of the mesh, if it moves ([`Prescribed::Constant`]'s angular velocity must
    /// be zero: rotations are given by `rotation`).
    pub motion: Option<Prescribed>,
    /// Rotation about an axis, if it turns.
    pub rotation: Option<Rotation>,
}

impl MeshDesc {
    /// A fixed mesh of `triangles` of material 0.
    pub fn new(triangles: Vec<[Vec3; 3]>) -> Self {
        MeshDesc {
            triangles,
            material: MaterialId(0),
            motion: None,
            rotation: None,
        }
    }

    /// This mesh with material `m`.
    pub fn with_material(mut self, m: MaterialId) -> Self {
        self.material = m;
        self
    }

    /// This mesh translated along `motion`.
    pub fn moving(mut self, motion: Prescribed) -> Self {
        self.motion = Some(motion);
        self
    }

    /// This mesh turning about the axis through `axis_point` along `axis` at `angular_speed`
    /// (rad/s, right-handed).
    pub fn rotating(mut self, axis_point: Vec3, axis: Vec3, angular_speed: f32) -> Self {
        self.rotation = Some(Rotation {
            axis_point,
            axis,
            angular_speed,
        });
        self
    }

    /// True when the mesh moves or turns.
    pub fn is_moving(&self) -> bool {
        self.motion.is_some() || self.rotation.is_some_and(|r| r.angular_speed != 0.0)
    }

    /// Checks the mesh (index `mesh`) against `materials` materials: some triangles, finite
    /// vertices, no zero-area triangle (area below 10⁻¹² of its longest edge squared), a known
    /// material, a valid motion; returns it with a unit rotation axis.
    pub(crate) fn checked(&self, mesh: usize, materials: usize) -> Result<MeshDesc, BuildError> {
        let err = |triangle: Option<usize>, field: &'static str, problem: String| {
            Err(BuildError::Mesh {
                mesh,
                triangle,
                field,
                problem,
            })
        };
        if self.triangles.is_empty() {
            return err(
                None,
                "triangles",
                "are empty: the mesh has no triangle".into(),
            );
        }
        for (t, v) in self.triangles.iter().enumerate() {
            if let Some(problem) = triangle_problem(*v) {
                return err(Some(t), "vertices", problem);
            }
        }
        if self.material.0 as usize >= materials {
            return err(
                None,
                "material",
                format!(
                    "is {} but only {materials} materials exist",
                    self.material.0
                ),
            );
        }
        if let Some(m) = self.motion {
            if let Some(p) = m.problem() {
                return err(None, "motion", p);
            }
            if let Prescribed::Constant { angular, .. } = m {
                if angular != Vec3::ZERO {
                    return err(None, "motion", format!("must not turn (angular velocity {angular}): give a mesh's rotation with its axis (MeshDesc::rotating)"));
                }
            }
        }
        let mut out = self.clone();
        if let Some(r) = &mut out.rotation {
            if !(finite3(r.axis_point.to_array()) && r.angular_speed.is_finite()) {
                return err(
                    None,
                    "rotation",
                    format!(
                        "axis point and angular speed must be finite, got {} and {}",
                        r.axis_point, r.angular_speed
                    ),
                );
            }
            let len = r.axis.length();
            if !(len.is_finite() && len > 0.0) {
                return err(
                    None,
                    "rotation",
                    format!("axis must be a non-zero finite vector, got {}", r.axis),
                );
            }
            r.axis /= len;
        }
        Ok(out)
    }

    /// The fastest any point of the mesh moves (m/s): the largest translation speed plus
    /// |ω| times the farthest vertex's distance from the axis.
    fn max_speed(&self) -> f32 {
        let linear = match self.motion {
            Some(Prescribed::Constant { linear, .. }) => linear.length(),
            Some(Prescribed::Shake {
                amplitude,
                frequency,
                ..
            }) => std::f32::consts::TAU * frequency * amplitude.abs(),
            None => 0.0,
        };
        let turning = self.rotation.map_or(0.0, |r| {
            let far = self
                .triangles
                .iter()
                .flatten()
                .map(|p| (*p - r.axis_point).cross(r.axis).length())
                .fold(0.0, f32::max);
            r.angular_speed.abs() * far
        });
        linear + turning
    }
}

/// Why the triangle (a, b, c) cannot be a wall, if it cannot: a vertex that is not finite, or
/// zero area (twice the area at most 10⁻¹² of its longest edge squared: a degenerate triangle).
pub fn triangle_problem(v: [Vec3; 3]) -> Option<String> {
    if let Some(p) = v.iter().find(|p| !finite3(p.to_array())) {
        return Some(format!("must be finite, got a vertex {p}"));
    }
    let [a, b, c] = v.map(|p| p.as_dvec3());
    let twice_area = (b - a).cross(c - a).length();
    let longest = (b - a)
        .length_squared()
        .max((c - b).length_squared())
        .max((a - c).length_squared());
    (twice_area <= 1e-12 * longest || longest == 0.0)
        .then(|| format!("have zero area ({a}, {b}, {c}): a degenerate triangle"))
}

/// The mesh walls of a world: their descriptions and their triangles as placed for the step.
#[derive(Clone, Debug, Default)]
pub(crate) struct Meshes {
    /// The checked descriptions, in the order they were added.
    pub(crate) descs: Vec<MeshDesc>,
    /// The triangles placed for the current step, the meshes' motions and the grid.
    pub(crate) placed: MeshWalls,
    /// The grid's smallest cell (m).
    cell: f32,
}

impl Meshes {
    /// The meshes `descs` (checked), behind `walls` flat and cylinder walls, with a triangle grid
    /// of cells at least `cell` wide, placed at t = 0.
    pub(crate) fn new(descs: Vec<MeshDesc>, walls: usize, cell: f32) -> Self {
        let mut m = Meshes {
            placed: MeshWalls {
                first_wall: walls as u32,
                max_speed: descs.iter().map(MeshDesc::max_speed).fold(0.0, f32::max),
                ..Default::default()
            },
            descs,
            cell,
        };
        m.place(0.0, 1.0, true);
        m
    }

    /// Places every moving mesh's triangles at time `t` with its motion over [t, t + h], and
    /// rebuilds the grid when some mesh moved (or when `first` placing).
    pub(crate) fn place(&mut self, t: f64, h: f32, first: bool) {
        if !first && !self.descs.iter().any(MeshDesc::is_moving) {
            return;
        }
        let placed = &mut self.placed;
        placed.triangles.clear();
        placed.motions.clear();
        for (i, d) in self.descs.iter().enumerate() {
            let (offset, velocity) = d.motion.map_or((Vec3::ZERO, Vec3::ZERO), |m| {
                (m.displacement(t), m.step_velocity(t, h).0)
            });
            let r = d.rotation.unwrap_or(Rotation {
                axis_point: Vec3::ZERO,
                axis: Vec3::Z,
                angular_speed: 0.0,
            });
            let turn = DQuat::from_axis_angle(r.axis.as_dvec3(), f64::from(r.angular_speed) * t);
            let turn = Quat::from_array(turn.to_array().map(|x| x as f32));
            let centre = r.axis_point + offset;
            placed.motions.push(MeshMotion {
                velocity: velocity.extend(0.0).to_array(),
                angular: (r.angular_speed * r.axis).extend(0.0).to_array(),
                axis_point: centre.extend(0.0).to_array(),
            });
            let material = d.material.0;
            placed.triangles.extend(d.triangles.iter().map(|v| {
                let v = v.map(|p| centre + turn * (p - r.axis_point));
                Triangle::new(v, material, i as u32)
            }));
        }
        placed.grid = TriangleGrid::build(&placed.triangles, self.cell);
    }
}

impl World {
    /// The mesh wall descriptions, in the order they were added.
    pub fn mesh_descs(&self) -> &[MeshDesc] {
        &self.meshes.descs
    }

    /// The triangles of all meshes as placed for the last step, mesh after mesh.
    pub fn mesh_triangles(&self) -> &[Triangle] {
        &self.meshes.placed.triangles
    }

    /// The force and torque on each mesh wall over the last step (GPU: as of the last
    /// [`World::sync_contacts`]), one entry per mesh in the order they were added; the torque is
    /// about `point` (m). The same sums as [`World::wall_loads`] (in a distributed world, a
    /// call every rank makes together, likewise).
    pub fn mesh_loads(&self, point: Vec3) -> Vec<WallLoad> {
        self.side_loads(self.meshes.descs.len(), point, |touching| match touching {
            crate::Touching::Mesh { mesh, .. } => Some(mesh),
            _ => None,
        })
    }

    /// The load on each mesh triangle over the last step, in the order of
    /// [`World::mesh_triangles`] (GPU: as of the last [`World::sync_contacts`]): its total force
    /// (the same sums as [`World::mesh_loads`], triangle by triangle; in a distributed world a
    /// call every rank makes together), split along the triangle's unit normal n = (b − a) ×
    /// (c − a) / |…| and across it, and the normal force over the triangle's area.
    ///
    /// ```
    /// use grains::{Body, Material, MeshDesc, Settings, Vec3, World};
    /// let p = |x: f32, y: f32| Vec3::new(x, y, 0.0);
    /// let floor = vec![[p(-1.0, -1.0), p(1.0, -1.0), p(1.0, 1.0)], [p(-1.0, -1.0), p(1.0, 1.0), p(-1.0, 1.0)]];
    /// let mut b = World::builder(Settings::default());
    /// b.material(Material::new(0.5));
    /// b.mesh(MeshDesc::new(floor));
    /// b.body(Body::sphere(Vec3::new(0.3, -0.2, 0.05), 0.05, 2.0));
    /// let mut world = b.build().unwrap();
    /// world.run(200).unwrap();
    /// let loads = world.triangle_loads();
    /// // The sphere rests on the first triangle: it presses with its weight, 2 m² of area.
    /// assert!((loads[0].normal_force - 2.0 * 9.81).abs() < 1e-3 && loads[1].contacts == 0);
    /// assert!((loads[0].pressure - 9.81).abs() < 1e-3);
    /// ```
    pub fn triangle_loads(&self) -> Vec<TriangleLoad> {
        let triangles = &self.meshes.placed.triangles;
        let loads = self.side_loads(triangles.len(), Vec3::ZERO, |touching| match touching {
            crate::Touching::Mesh { triangle, .. } => Some(triangle),
            _ => None,
        });
        let powers = self.triangle_sliding_powers();
        loads
            .iter()
            .zip(triangles)
            .zip(powers)
            .map(|((load, t), sliding_power)| {
                let [a, b, c] = t.vertices().map(|v| v.as_dvec3());
                let cross = (b - a).cross(c - a);
                let (area, n) = (0.5 * cross.length(), cross.normalize_or_zero());
                let normal_force = -load.force.dot(n);
                TriangleLoad {
                    force: load.force,
                    normal_force,
                    shear_force: (load.force + normal_force * n).length(),
                    pressure: if area > 0.0 { normal_force / area } else { 0.0 },
                    contacts: load.contacts,
                    sliding_power,
                }
            })
            .collect()
    }

    /// Archard's wear rate of each mesh triangle over the last step, before the material's
    /// factor (W), in the order of [`World::mesh_triangles`]: Σ over the triangle's contacts of
    /// the normal force γn/h times the slip speed ‖u_T‖ at the contact after the step, with
    /// u_T = (tᵢ · (v⁺ + ω⁺ × r) − tᵢ · v_wall)ᵢ₌₁,₂ the grain's velocity at its lever arm r
    /// against the triangle's own there (the contact row's tangents and wall terms). Archard's
    /// law V = K F_n s / H makes the volume worn per second (K/H) × this; integrated over a
    /// run it is the triangle's F_n s, the normal load times the distance slid under it (N m).
    /// Sums in contact order in f64; in a distributed world a call every rank makes together
    /// (each rank's share added in rank order).
    pub fn triangle_sliding_powers(&self) -> Vec<f64> {
        let mut powers = vec![0.0; self.meshes.placed.triangles.len()];
        let (rows, impulses) = (self.contact_rows(), self.impulses());
        let motion = &self.bodies.motion;
        for (k, (&key, row)) in rows.keys.iter().zip(&rows.rows).enumerate() {
            if row.body_b != grains_kernels::layout::NO_BODY {
                continue;
            }
            let wall = grains_kernels::layout::key_wall(key);
            let Some(triangle) = self.meshes.placed.triangle_of_wall(wall) else {
                continue;
            };
            let m = &motion[row.body_a as usize];
            let at_arm = m.v() + m.w().cross(Vec3::from_array(row.ra));
            let slip =
                |i: usize, t: [f32; 3]| f64::from(Vec3::from_array(t).dot(at_arm) + row.bias[i]);
            let speed = slip(1, row.t1).hypot(slip(2, row.t2));
            powers[triangle] += f64::from(impulses[k][0]) * speed;
        }
        let h = f64::from(self.params.h);
        powers.iter_mut().for_each(|p| *p /= h);
        self.sum_over_ranks(&mut powers);
        powers
    }
}

/// The load on one mesh triangle over the last step ([`World::triangle_loads`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TriangleLoad {
    /// Total force on the triangle (N): −Σ of its contacts' forces on the bodies.
    pub force: glam::DVec3,
    /// Its part against the triangle's normal, −force · n (N): positive where grains press on
    /// the face the normal points out of.
    pub normal_force: f64,
    /// The size of its part in the triangle's plane (N).
    pub shear_force: f64,
    /// `normal_force` over the triangle's area (Pa).
    pub pressure: f64,
    /// The triangle's contacts in the step.
    pub contacts: usize,
    /// Σ normal force × slip speed over its contacts (W): Archard's wear rate before the
    /// material's factor K/H ([`World::triangle_sliding_powers`]).
    pub sliding_power: f64,
}
