//! Plain-old-data buffers shared by every stage (and, byte for byte, by a GPU backend).

use bytemuck::{Pod, Zeroable};
use glam::{Quat, Vec3, Vec4};

/// Body index meaning "no body": the other side of a contact with a wall.
pub const NO_BODY: u32 = u32::MAX;

/// How a body moves.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// Moved by forces and contact impulses.
    Dynamic = 0,
    /// Never moves (infinite mass, zero velocity).
    Fixed = 1,
    /// Moves with a prescribed velocity; contacts cannot push it (infinite mass).
    Kinematic = 2,
}

/// The hot per-body state every solver sweep reads and writes: 32 bytes.
///
/// Velocities are of the body's centre of mass; `inv_mass` = 1/m and `inv_inertia` = 1/I for
/// the isotropic inertia of a sphere or disk (both 0 for fixed and kinematic bodies).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Motion {
    /// Linear velocity v (m/s).
    pub linear: [f32; 3],
    /// 1/m (1/kg); 0 for bodies contacts cannot move.
    pub inv_mass: f32,
    /// Angular velocity ω (rad/s) in world axes.
    pub angular: [f32; 3],
    /// 1/I (1/(kg m²)); 0 for bodies contacts cannot turn.
    pub inv_inertia: f32,
}

impl Motion {
    /// Linear velocity as a vector.
    #[inline(always)]
    pub fn v(&self) -> Vec3 {
        Vec3::from_array(self.linear)
    }
    /// Angular velocity as a vector.
    #[inline(always)]
    pub fn w(&self) -> Vec3 {
        Vec3::from_array(self.angular)
    }
}

/// Structure-of-arrays storage of all bodies. Index `i` in every array is body `i`.
#[derive(Debug, Default, PartialEq)]
pub struct Bodies {
    /// Centre of mass (xyz, m) and radius (w, m).
    pub pos_radius: Vec<Vec4>,
    /// Orientation as a unit quaternion (body → world).
    pub orientation: Vec<Quat>,
    /// Hot solver state: velocities and inverse mass properties.
    pub motion: Vec<Motion>,
    /// Material index into the friction table.
    pub material: Vec<u32>,
    /// [`BodyKind`] as `u32`.
    pub kind: Vec<u32>,
}

impl Clone for Bodies {
    fn clone(&self) -> Self {
        Bodies {
            pos_radius: self.pos_radius.clone(),
            orientation: self.orientation.clone(),
            motion: self.motion.clone(),
            material: self.material.clone(),
            kind: self.kind.clone(),
        }
    }

    /// Copies field by field into the existing buffers, which keep their allocation when they
    /// are large enough (a restore into a world of the same size moves no buffer).
    fn clone_from(&mut self, source: &Self) {
        self.pos_radius.clone_from(&source.pos_radius);
        self.orientation.clone_from(&source.orientation);
        self.motion.clone_from(&source.motion);
        self.material.clone_from(&source.material);
        self.kind.clone_from(&source.kind);
    }
}

impl Bodies {
    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.pos_radius.len()
    }
    /// The smallest radius (m); infinite when there are no bodies.
    pub fn smallest_radius(&self) -> f32 {
        self.pos_radius
            .iter()
            .map(|p| p.w)
            .fold(f32::INFINITY, f32::min)
    }
    /// True when there are no bodies.
    pub fn is_empty(&self) -> bool {
        self.pos_radius.is_empty()
    }
    /// Whether contact impulses change the velocity of body `i`.
    #[inline(always)]
    pub fn is_dynamic(&self, i: usize) -> bool {
        self.kind[i] == BodyKind::Dynamic as u32
    }
}

/// A flat wall: the rectangle `origin + s·u + t·v` with |s| ≤ `half_u`, |t| ≤ `half_v`, pushing
/// spheres along `normal`. Infinite half-extents make it a half-space boundary (a plane).
///
/// Or, when `origin.w` ≠ 0, an open cylinder (see [`Wall::cylinder`]): the mantle at distance
/// R = |`origin.w`| from the axis through `origin` along `normal`, within `u.w` of `origin`
/// along the axis, holding grains inside it when `origin.w` > 0 and outside it when < 0,
/// turning about the axis at `v.w` rad/s; a cone frustum when its slope dR/ds `u.x` ≠ 0 (see
/// [`Wall::frustum`]). `velocity.w` holds the flags word of
/// [`crate::wall_contact`] (switched off, a disk or annulus, a rectangle's plane group).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Wall {
    /// A point on the wall's face (on a cylinder's axis) at the current time (m); w: 0 for a
    /// flat wall, the signed radius of a cylinder.
    pub origin: [f32; 4],
    /// Unit normal pointing into the region the grains occupy; w: friction material index.
    pub normal: [f32; 4],
    /// First in-face unit axis; w: half extent along it (m).
    pub u: [f32; 4],
    /// Second in-face unit axis; w: half extent along it (m).
    pub v: [f32; 4],
    /// Velocity of the wall over the current step (m/s); w: the flags word ([`Wall::flags`]).
    pub velocity: [f32; 4],
}

impl Wall {
    /// Unit normal.
    #[inline(always)]
    pub fn n(&self) -> Vec3 {
        Vec4::from_array(self.normal).truncate()
    }
    /// Point on the face.
    #[inline(always)]
    pub fn o(&self) -> Vec3 {
        Vec4::from_array(self.origin).truncate()
    }
    /// Material index of the wall.
    pub fn material(&self) -> u32 {
        self.normal[3] as u32
    }

    /// The open cylinder about the axis through `origin` along the unit `axis` (w: material),
    /// of radius |`signed_radius`| (positive: grains inside, a drum; negative: outside),
    /// reaching `half_length` either side of `origin`, turning at `angular_speed` (rad/s)
    /// about the axis while its axis moves at `velocity`.
    pub fn cylinder(
        origin: [f32; 4],
        axis: [f32; 4],
        signed_radius: f32,
        half_length: f32,
        angular_speed: f32,
        velocity: [f32; 4],
    ) -> Self {
        let [x, y, z, _] = origin;
        Wall {
            origin: [x, y, z, signed_radius],
            normal: axis,
            u: [0.0, 0.0, 0.0, half_length],
            v: [0.0, 0.0, 0.0, angular_speed],
            velocity,
        }
    }

    /// A unit vector normal to the unit axis `e`: e × x̂, or e × ŷ when e is near x̂ (the
    /// direction from a cylinder's axis to a sphere centred on it).
    pub fn axis_normal(e: Vec3) -> Vec3 {
        e.cross(if e.x.abs() < 0.9 { Vec3::X } else { Vec3::Y })
            .normalize()
    }

    /// How fast the surface moves against the wall's own motion: ω R on a turning cylinder
    /// (ω times the larger end radius on a cone), 0 on a flat wall.
    pub fn surface_speed(&self) -> f32 {
        if self.cylinder_radius() == 0.0 {
            0.0
        } else if self.u[0] == 0.0 {
            (self.v[3] * self.cylinder_radius()).abs()
        } else {
            (self.v[3] * (self.cylinder_radius().abs() + (self.u[0] * self.u[3]).abs())).abs()
        }
    }

    /// The signed radius of a cylinder wall (positive: grains inside), 0 for a flat wall.
    #[inline(always)]
    pub fn cylinder_radius(&self) -> f32 {
        self.origin[3]
    }
}

/// One ε̂-active contact's constant data for a step: the rows D = [n, t1, t2] with their arms.
///
/// The normal points from body b to body a; Φ is the signed gap (negative when overlapping).
/// `bias` = (Φ/h, 0, 0) − Dᵀ v_wall, the part of the relative velocity u = Dᵀv + bias that no
/// impulse changes. 96 bytes, 16-byte aligned rows.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactRow {
    /// Unit normal n (b → a).
    pub n: [f32; 3],
    /// Gap Φ at the start of the step (m).
    pub phi: f32,
    /// First tangent t1.
    pub t1: [f32; 3],
    /// Friction coefficient μ of the pair.
    pub mu: f32,
    /// Second tangent t2 = n × t1.
    pub t2: [f32; 3],
    /// 1 / W_nn, the inverse of the normal diagonal entry of Dᵀ M⁻¹ D.
    pub mass_n: f32,
    /// Lever arm from a's centre to the contact point.
    pub ra: [f32; 3],
    /// 1 / W_tt, the inverse of the mean tangential diagonal entry of Dᵀ M⁻¹ D.
    pub mass_t: f32,
    /// Lever arm from b's centre to the contact point (zero for walls).
    pub rb: [f32; 3],
    /// Body a.
    pub body_a: u32,
    /// Velocity-level bias (Φ/h − n·v_wall, −t1·v_wall, −t2·v_wall).
    pub bias: [f32; 3],
    /// Body b, or [`NO_BODY`] for a wall.
    pub body_b: u32,
}

impl ContactRow {
    /// Normal as a vector.
    #[inline(always)]
    pub fn normal(&self) -> Vec3 {
        Vec3::from_array(self.n)
    }
}

/// Key identifying a contact across steps for the warm start: (a, b) with walls as
/// `NO_BODY − wall`, so a body's wall contacts sort after its body contacts.
#[inline(always)]
pub fn pair_key(a: u32, b: u32) -> u64 {
    ((a as u64) << 32) | b as u64
}

/// Key of the contact of body `a` with wall `w`.
#[inline(always)]
pub fn wall_key(a: u32, w: u32) -> u64 {
    pair_key(a, NO_BODY - w)
}

/// The wall of a wall contact's key (the inverse of [`wall_key`]'s second half).
#[inline(always)]
pub fn key_wall(key: u64) -> usize {
    (NO_BODY - key as u32) as usize
}

/// The materials of a contact's two sides: body a's, and body b's or, for a wall contact, the
/// wall's (found through the contact's pair `key`).
#[inline(always)]
pub fn pair_materials(row: &ContactRow, key: u64, bodies: &Bodies, walls: &[Wall]) -> (u32, u32) {
    let b = if row.body_b == NO_BODY {
        walls[key_wall(key)].material()
    } else {
        bodies.material[row.body_b as usize]
    };
    (bodies.material[row.body_a as usize], b)
}

/// The contact coefficients of every material pair: friction μ, restitution e and the bounds of
/// the spinning and rolling moments, in row-major `count × count` tables.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrictionTable {
    /// Number of materials.
    pub count: usize,
    /// μ of the pair (i, j) at `i * count + j`.
    pub mu: Vec<f32>,
    /// Poisson restitution coefficient e ∈ [0, 1] of the pair (i, j) at `i * count + j`.
    pub restitution: Vec<f32>,
    /// Spinning length e_r of the pair (i, j) (m): the spin semi-axis of the friction ellipsoid
    /// of trinkle eq. 1, ‖γ_t‖² + (γ_s/e_r)² ≤ (μ γn)² (see [`crate::rolling`]). Empty: no
    /// spinning friction anywhere.
    pub spinning: Vec<f32>,
    /// Rolling-moment bound per unit normal impulse of the pair (i, j), e_roll (m):
    /// ‖γ_r‖ ≤ e_roll γn. Empty: no rolling friction anywhere.
    pub rolling: Vec<f32>,
    /// Constant pull-off force c of the pair (i, j) (N, ≥ 0): a touching contact's normal
    /// force may fall to −c (see [`crate::cohesion`]). Empty: no cohesion anywhere.
    pub cohesion: Vec<f32>,
    /// Work of adhesion w of the pair (i, j) (J/m², ≥ 0): a touching contact of spheres of
    /// reduced radius R* pulls off at the JKR force (3/2) π w R* (see [`crate::cohesion`]).
    /// Empty: no adhesion anywhere.
    pub adhesion: Vec<f32>,
    /// Liquid bridge of the pair (i, j): its volume V (m³), γ cos θ (N/m) and rupture distance
    /// S_c (m) (see [`crate::cohesion`]). Empty, or V = 0: no bridge.
    pub bridges: Vec<[f32; 3]>,
}

impl FrictionTable {
    /// μ of materials `i` and `j`.
    #[inline(always)]
    pub fn mu(&self, i: u32, j: u32) -> f32 {
        self.mu[i as usize * self.count + j as usize]
    }

    /// e of materials `i` and `j`.
    #[inline(always)]
    pub fn restitution(&self, i: u32, j: u32) -> f32 {
        self.restitution[i as usize * self.count + j as usize]
    }

    /// True when some pair restitutes (e > 0), so steps need the impact phase.
    pub fn any_restitution(&self) -> bool {
        self.restitution.iter().any(|&e| e > 0.0)
    }

    /// Spinning length e_r (m) of materials `i` and `j` (0 when the table has none).
    #[inline(always)]
    pub fn spinning(&self, i: u32, j: u32) -> f32 {
        self.spinning
            .get(i as usize * self.count + j as usize)
            .map_or(0.0, |&s| s)
    }

    /// Rolling-moment bound e_roll (m) of materials `i` and `j` (0 when the table has none).
    #[inline(always)]
    pub fn rolling(&self, i: u32, j: u32) -> f32 {
        self.rolling
            .get(i as usize * self.count + j as usize)
            .map_or(0.0, |&r| r)
    }

    /// True when some pair resists spinning or rolling (e_r > 0 or e_roll > 0), so steps need
    /// the moment rows of [`crate::rolling`].
    pub fn any_moment_friction(&self) -> bool {
        self.spinning.iter().chain(&self.rolling).any(|&c| c > 0.0)
    }

    /// The pull-off force c (N) and work of adhesion w (J/m²) of materials `i` and `j` (0 when
    /// the table has none).
    #[inline(always)]
    pub fn cohesion(&self, i: u32, j: u32) -> (f32, f32) {
        let k = i as usize * self.count + j as usize;
        let of = |table: &[f32]| table.get(k).map_or(0.0, |&c| c);
        (of(&self.cohesion), of(&self.adhesion))
    }

    /// The liquid bridge (V, γ cos θ, S_c) of materials `i` and `j` (zeros when dry).
    #[inline(always)]
    pub fn bridge(&self, i: u32, j: u32) -> [f32; 3] {
        let k = i as usize * self.count + j as usize;
        self.bridges.get(k).map_or([0.0; 3], |&b| b)
    }

    /// The longest rupture distance of any pair's liquid bridge (m; 0 when all are dry): the
    /// envelope must reach it, so that a bridge's gap has a contact row.
    pub fn longest_bridge(&self) -> f32 {
        self.bridges.iter().map(|b| b[2]).fold(0.0, f32::max)
    }

    /// True when some pair coheres (c > 0, w > 0 or a liquid bridge), so steps need
    /// [`crate::cohesion`]'s pull.
    pub fn any_cohesion(&self) -> bool {
        let bridged = self.bridges.iter().any(|b| b[0] > 0.0);
        bridged || self.cohesion.iter().chain(&self.adhesion).any(|&c| c > 0.0)
    }
}
