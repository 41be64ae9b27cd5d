//! Bodies as a user describes them.

use crate::material::MaterialId;
use crate::motion::Prescribed;
use glam::{Quat, Vec3};
use grains_kernels::{Bodies, Motion};

pub use grains_kernels::{BodyKind, Shape};

/// A rigid body as added to a world: a sphere (a disk in planar mode), a capsule, a cube, a box,
/// an ellipsoid or, in planar mode, an ellipse ([`Shape`]).
///
/// Inertia is one scalar I about every axis through the centre: exact for spheres; in planar mode
/// only the value about y matters, so it is exact for disks, bars and ellipses too; a capsule
/// in 3-D uses it as an isotropic approximation of its true (axisymmetric) inertia. A body with
/// [`Body::principal_moments`] (3-D, CPU backend) has the full inertia tensor instead:
/// diag(I1, I2, I3) about its local axes, turned with its orientation ([`Body::with_principal_moments`],
/// [`capsule_principal_moments`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Centre of mass (m).
    pub position: Vec3,
    /// Orientation (unit quaternion, body → world).
    pub orientation: Quat,
    /// Radius (m): of the sphere, or of the capsule about its segment; an ellipse's is its larger
    /// semi-axis (its bounding circle, used by outputs and the default envelope only).
    pub radius: f32,
    /// Shape (default [`Shape::Sphere`]).
    pub shape: Shape,
    /// Mass (kg); ignored for fixed and kinematic bodies but must still be positive.
    pub mass: f32,
    /// Moment of inertia about any axis through the centre (kg m²).
    pub inertia: f32,
    /// Principal moments of inertia (I1, I2, I3) about the body's local x, y and z axes
    /// (kg m²), when the inertia is not the same about every axis; `None`: `inertia` about
    /// every axis. When set, it replaces `inertia` (three equal moments are the isotropic body
    /// of inertia I1, bit for bit).
    pub principal_moments: Option<Vec3>,
    /// Linear velocity (m/s).
    pub velocity: Vec3,
    /// Angular velocity (rad/s).
    pub angular_velocity: Vec3,
    /// Surface material.
    pub material: MaterialId,
    /// Dynamic, fixed or kinematic.
    pub kind: BodyKind,
    /// The motion of a kinematic body (required for kinematic bodies, refused for the others).
    pub prescribed: Option<Prescribed>,
}

impl Body {
    /// A dynamic solid sphere of mass `mass`, inertia I = 2/5 m r².
    pub fn sphere(position: Vec3, radius: f32, mass: f32) -> Self {
        Body {
            position,
            orientation: Quat::IDENTITY,
            radius,
            shape: Shape::Sphere,
            mass,
            inertia: 0.4 * mass * radius * radius,
            principal_moments: None,
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            material: MaterialId(0),
            kind: BodyKind::Dynamic,
            prescribed: None,
        }
    }

    /// A dynamic uniform disk (for planar mode) of mass `mass`, inertia I = 1/2 m r².
    pub fn disk(position: Vec3, radius: f32, mass: f32) -> Self {
        Body {
            inertia: 0.5 * mass * radius * radius,
            ..Body::sphere(position, radius, mass)
        }
    }

    /// A dynamic capsule: the points within `radius` of the segment of half-length
    /// `half_length` along the body's local x axis, with the thin bar's inertia about its
    /// centre, I = m l²/12 for l = 2 `half_length` (a bar is a capsule of small radius); see
    /// [`Body::solid_capsule`] for its full tensor in 3-D.
    pub fn capsule(position: Vec3, radius: f32, half_length: f32, mass: f32) -> Self {
        let l = 2.0 * half_length;
        Body {
            shape: Shape::Capsule { half_length },
            inertia: mass * l * l / 12.0,
            ..Body::sphere(position, radius, mass)
        }
    }

    /// A dynamic solid capsule in 3-D with its full inertia tensor: [`Body::capsule`] with the
    /// principal moments of [`capsule_principal_moments`] (a cylinder and two hemispheres; the
    /// axial moment about local x, the transverse one about y and z). 3-D and the CPU backend
    /// only; in planar mode use [`Body::capsule`], whose scalar is the moment about y.
    pub fn solid_capsule(position: Vec3, radius: f32, half_length: f32, mass: f32) -> Self {
        Body::capsule(position, radius, half_length, mass)
            .with_principal_moments(capsule_principal_moments(radius, half_length, mass))
    }

    /// A dynamic uniform solid capsule of mass `mass` (weighed as [`capsule_mass`] weighs it)
    /// with its true inertia: in 3-D [`Body::solid_capsule`]'s principal moments, in planar
    /// mode the flat stadium's moment about y, [`stadium_moment`]. The scene files' and
    /// Python's capsules.
    pub fn uniform_capsule(
        position: Vec3,
        radius: f32,
        half_length: f32,
        mass: f32,
        planar: bool,
    ) -> Self {
        if planar {
            Body {
                inertia: stadium_moment(radius, half_length, mass),
                ..Body::capsule(position, radius, half_length, mass)
            }
        } else {
            Body::solid_capsule(position, radius, half_length, mass)
        }
    }

    /// A dynamic uniform ellipse (planar mode only) with semi-axes `a` along the body's local x
    /// and `b` along its local z, inertia about y I = m (a² + b²)/4.
    pub fn ellipse(position: Vec3, a: f32, b: f32, mass: f32) -> Self {
        Body {
            shape: Shape::Ellipse { a, b },
            inertia: 0.25 * mass * (a * a + b * b),
            ..Body::sphere(position, a.max(b), mass)
        }
    }

    /// A dynamic uniform cube of half-edge `half` (a [`Shape::Cuboid`] with equal
    /// half-extents), inertia I = 2/3 m `half`² about every axis (m (a² + b²)/3 with
    /// a = b = `half`); its radius is `half`, the inscribed sphere's (used by outputs, the
    /// default envelope and the overlap figures).
    pub fn cube(position: Vec3, half: f32, mass: f32) -> Self {
        Body {
            shape: Shape::Cuboid {
                half_extents: Vec3::splat(half),
            },
            inertia: 2.0 / 3.0 * mass * half * half,
            ..Body::sphere(position, half, mass)
        }
    }

    /// A dynamic uniform box with half-extents `half` = (a, b, c) along its local x, y and z
    /// (a [`Shape::Cuboid`]), with its principal moments m (b² + c²)/3, m (a² + c²)/3 and
    /// m (a² + b²)/3 ([`cuboid_principal_moments`]); its radius is the smallest half-extent, the
    /// inscribed sphere's.
    pub fn cuboid(position: Vec3, half: Vec3, mass: f32) -> Self {
        let moments = cuboid_principal_moments(half, mass);
        Body {
            shape: Shape::Cuboid { half_extents: half },
            inertia: moments.min_element(),
            ..Body::sphere(position, half.min_element(), mass)
        }
        .with_principal_moments(moments)
    }

    /// A dynamic uniform ellipsoid with semi-axes `semi_axes` = (a, b, c) along its local x, y
    /// and z (a [`Shape::Ellipsoid`]), with its principal moments m (b² + c²)/5, m (a² + c²)/5
    /// and m (a² + b²)/5 ([`ellipsoid_principal_moments`]); its radius is the smallest
    /// semi-axis, the inscribed sphere's.
    pub fn ellipsoid(position: Vec3, semi_axes: Vec3, mass: f32) -> Self {
        let moments = ellipsoid_principal_moments(semi_axes, mass);
        Body {
            shape: Shape::Ellipsoid { semi_axes },
            inertia: moments.min_element(),
            ..Body::sphere(position, semi_axes.min_element(), mass)
        }
        .with_principal_moments(moments)
    }

    /// This body with the principal moments of inertia `moments` = (I1, I2, I3) about its local
    /// x, y and z axes (kg m²), which must be positive and satisfy the triangle inequalities
    /// (each at most the sum of the other two, as for every mass distribution). 3-D and the
    /// CPU backend only.
    pub fn with_principal_moments(mut self, moments: Vec3) -> Self {
        self.principal_moments = Some(moments);
        self
    }

    /// The principal moments (I1, I2, I3) when they differ ([`Body::principal_moments`] with
    /// two unequal), `None` for a body with one moment about every axis.
    pub fn anisotropic_moments(&self) -> Option<Vec3> {
        self.principal_moments
            .filter(|m| !(m.x == m.y && m.y == m.z))
    }

    /// The moment of inertia about every axis of an isotropic body: the equal principal
    /// moments when they are given, else [`Body::inertia`].
    pub fn isotropic_inertia(&self) -> f32 {
        self.principal_moments.map_or(self.inertia, |m| m.x)
    }

    /// This body with orientation `q` (unit quaternion, body → world).
    pub fn with_orientation(mut self, q: Quat) -> Self {
        self.orientation = q;
        self
    }

    /// This body with linear velocity `v`.
    pub fn with_velocity(mut self, v: Vec3) -> Self {
        self.velocity = v;
        self
    }

    /// This body with angular velocity `w`.
    pub fn with_angular_velocity(mut self, w: Vec3) -> Self {
        self.angular_velocity = w;
        self
    }

    /// This body with material `m`.
    pub fn with_material(mut self, m: MaterialId) -> Self {
        self.material = m;
        self
    }

    /// This body fixed in place.
    pub fn fixed(mut self) -> Self {
        self.kind = BodyKind::Fixed;
        self
    }

    /// This body kinematic, moving along `motion` from its current position.
    pub fn kinematic(mut self, motion: Prescribed) -> Self {
        self.kind = BodyKind::Kinematic;
        self.prescribed = Some(motion);
        self
    }
}

/// The bodies of [`Body`]'s constructors made of a uniform material of density `density`
/// rather than of a given mass: each weighs its shape's volume (an area in planar mode) times
/// the density, with the mass functions of this module ([`sphere_mass`], [`disk_mass`],
/// [`capsule_mass`], [`ellipse_mass`], [`cube_mass`], [`cuboid_mass`], [`ellipsoid_mass`]), as
/// the scene files' `density` key and Python's `density=` weigh them. (A clump,
/// [`Body::clump`], takes its density already.)
impl Body {
    /// A dynamic solid sphere of density `density` (kg/m³): m = 4/3 π r³ ρ.
    pub fn sphere_of_density(position: Vec3, radius: f32, density: f32) -> Self {
        Body::sphere(position, radius, sphere_mass(radius, density))
    }

    /// A dynamic uniform disk (planar mode) of areal density `density` (kg/m²): m = π r² ρ.
    pub fn disk_of_density(position: Vec3, radius: f32, density: f32) -> Self {
        Body::disk(position, radius, disk_mass(radius, density))
    }

    /// A dynamic uniform solid capsule ([`Body::uniform_capsule`]) of density `density`
    /// (kg/m³; kg/m² in planar mode).
    pub fn capsule_of_density(
        position: Vec3,
        radius: f32,
        half_length: f32,
        density: f32,
        planar: bool,
    ) -> Self {
        let mass = capsule_mass(radius, half_length, density, planar);
        Body::uniform_capsule(position, radius, half_length, mass, planar)
    }

    /// A dynamic uniform ellipse (planar mode) of areal density `density` (kg/m²): m = π a b ρ.
    pub fn ellipse_of_density(position: Vec3, a: f32, b: f32, density: f32) -> Self {
        Body::ellipse(position, a, b, ellipse_mass(a, b, density))
    }

    /// A dynamic uniform cube of half-edge `half` and density `density` (kg/m³).
    pub fn cube_of_density(position: Vec3, half: f32, density: f32) -> Self {
        Body::cube(position, half, cube_mass(half, density))
    }

    /// A dynamic uniform box of half-extents `half` and density `density` (kg/m³).
    pub fn cuboid_of_density(position: Vec3, half: Vec3, density: f32) -> Self {
        Body::cuboid(position, half, cuboid_mass(half, density))
    }

    /// A dynamic uniform ellipsoid of semi-axes `semi_axes` and density `density` (kg/m³).
    pub fn ellipsoid_of_density(position: Vec3, semi_axes: Vec3, density: f32) -> Self {
        Body::ellipsoid(position, semi_axes, ellipsoid_mass(semi_axes, density))
    }
}

/// Mass of a solid sphere of radius `r` (m) and density `rho` (kg/m³).
pub fn sphere_mass(r: f32, rho: f32) -> f32 {
    4.0 / 3.0 * std::f32::consts::PI * r * r * r * rho
}

/// The principal moments of a uniform box of half-extents `half` = (a, b, c) and mass `mass`
/// about its local axes: m (b² + c²)/3, m (a² + c²)/3, m (a² + b²)/3.
pub fn cuboid_principal_moments(half: Vec3, mass: f32) -> Vec3 {
    let sq = half * half;
    Vec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) * (mass / 3.0)
}

/// Mass of a solid box of half-extents `half` = (a, b, c) (m) and density `rho` (kg/m³):
/// ρ 8abc.
pub fn cuboid_mass(half: Vec3, rho: f32) -> f32 {
    8.0 * half.x * half.y * half.z * rho
}

/// Mass of a solid cube of half-edge `half` (m) and density `rho` (kg/m³): ρ (2 half)³.
pub fn cube_mass(half: f32, rho: f32) -> f32 {
    (2.0 * half).powi(3) * rho
}

/// Mass of a uniform disk (planar mode) of radius `r` (m) and areal density `rho` (kg/m²).
pub fn disk_mass(r: f32, rho: f32) -> f32 {
    std::f32::consts::PI * r * r * rho
}

/// Mass of a solid capsule of radius `r` and half-length `half_length` (m) at density `rho`:
/// a cylinder and two hemispheres (kg/m³); in planar mode the flat stadium, a rectangle and two
/// half disks (kg/m²).
pub fn capsule_mass(r: f32, half_length: f32, rho: f32, planar: bool) -> f32 {
    use std::f32::consts::PI;
    if planar {
        (4.0 * r * half_length + PI * r * r) * rho
    } else {
        (PI * r * r * 2.0 * half_length) * rho + sphere_mass(r, rho)
    }
}

/// Principal moments of inertia (I_x, I_y = I_z) of a solid capsule of mass `mass`, radius `r`
/// and half-length `half_length` along its local x axis: a cylinder of length 2L (mass
/// m_c = m·2L/(2L + 4r/3)) and two hemispheres (together m_s = m − m_c), the masses in
/// proportion to the volumes, closed form:
///
/// I_x = m_c r²/2 + 2/5 m_s r²,
/// I_y = I_z = m_c (r²/4 + L²/3) + m_s (2/5 r² + L² + 3/4 L r),
///
/// the hemispheres' term by the parallel-axis theorem from their centroids 3r/8 off their flat
/// faces at ±L. L = 0 gives the sphere's 2/5 m r², r → 0 the thin bar's m (2L)²/12 about y.
pub fn capsule_principal_moments(r: f32, half_length: f32, mass: f32) -> Vec3 {
    let (r, l, m) = (r as f64, half_length as f64, mass as f64);
    let cylinder = m * 2.0 * l / (2.0 * l + 4.0 * r / 3.0);
    let spheres = m - cylinder;
    let axial = cylinder * r * r / 2.0 + 0.4 * spheres * r * r;
    let transverse =
        cylinder * (r * r / 4.0 + l * l / 3.0) + spheres * (0.4 * r * r + l * l + 0.75 * l * r);
    Vec3::new(axial as f32, transverse as f32, transverse as f32)
}

/// Moment of inertia about y (normal to the plane) of a uniform flat stadium of mass `mass`,
/// radius `r` and half-length `half_length` along x (planar mode's capsule): a rectangle
/// 2L × 2r (mass m_r = m·4rL/(4rL + πr²)) and two half disks (together m_d = m − m_r), the
/// masses in proportion to the areas, closed form:
///
/// I = m_r ((2L)² + (2r)²)/12 + m_d (r²/2 + L² + 8 L r/(3π)),
///
/// each half disk's term by the parallel-axis theorem through its centroid 4r/(3π) off its
/// flat side at ±L. L = 0 gives the disk's m r²/2, r → 0 the thin bar's m (2L)²/12.
pub fn stadium_moment(r: f32, half_length: f32, mass: f32) -> f32 {
    let (r, l, m) = (r as f64, half_length as f64, mass as f64);
    let pi = std::f64::consts::PI;
    let rectangle = m * 4.0 * r * l / (4.0 * r * l + pi * r * r);
    let disks = m - rectangle;
    let moment = rectangle * (4.0 * l * l + 4.0 * r * r) / 12.0
        + disks * (0.5 * r * r + l * l + 8.0 * l * r / (3.0 * pi));
    moment as f32
}

/// The number outputs give a body's shape (the `.vtu` frames' `shape`, Python's
/// `World.shape_codes`): 0 sphere (or disk), 1 capsule, 2 ellipse, 3 box (or cube),
/// 4 ellipsoid, 5 clump, 6 polyhedron.
pub fn shape_code(shape: Shape) -> i32 {
    match shape {
        Shape::Sphere => 0,
        Shape::Capsule { .. } => 1,
        Shape::Ellipse { .. } => 2,
        Shape::Cuboid { .. } => 3,
        Shape::Ellipsoid { .. } => 4,
        Shape::Clump { .. } => 5,
        Shape::Polyhedron { .. } => 6,
    }
}

/// A shape's name for messages: "sphere", "capsule", "ellipse", "box", "ellipsoid", "clump" or
/// "polyhedron".
pub fn shape_name(shape: Shape) -> &'static str {
    shape.kind().name()
}

/// The largest ratio of a box's half-extents or of an ellipsoid's semi-axes, the largest to the
/// smallest (1000): a longer needle or thinner plate is refused when the world is built (and by
/// a scene's `half_extents` and `semi_axes`), since single precision cannot place its contacts
/// and one such body far larger than the grains' spacing would make the start's overlap check
/// test every pair.
pub const MAX_ASPECT: f32 = 1000.0;

/// The ratio of the largest to the smallest of the three sizes `v` (the box's half-extents or
/// the ellipsoid's semi-axes), to compare with [`MAX_ASPECT`].
pub fn aspect(v: Vec3) -> f32 {
    v.max_element() / v.min_element()
}

/// Half-sizes along its own x, y and z axes of a body of shape `shape` and radius `r` (m): the
/// box about its centre, in its axes, that holds it. A sphere (r, r, r), a capsule (L + r, r, r),
/// a box its half-extents, an ellipsoid its semi-axes, a clump or a polyhedron (without its
/// template or hull at hand) its bounding sphere's radius; a planar ellipse (a, min(a, b), b), drawn as thick as its smaller
/// semi-axis. Outputs draw the bodies by it ([`crate::World::half_extents`]).
pub fn shape_half_extents(shape: Shape, r: f32) -> Vec3 {
    match shape {
        Shape::Sphere => Vec3::splat(r),
        Shape::Capsule { half_length } => Vec3::new(half_length + r, r, r),
        Shape::Ellipse { a, b } => Vec3::new(a, a.min(b), b),
        Shape::Cuboid { half_extents } => half_extents,
        Shape::Ellipsoid { semi_axes } => semi_axes,
        Shape::Clump { bound, .. } => Vec3::splat(bound),
        Shape::Polyhedron {
            bounding_radius, ..
        } => Vec3::splat(bounding_radius),
    }
}

/// Mass of a uniform ellipse (planar mode) of semi-axes `a` and `b` (m) and areal density `rho`
/// (kg/m²).
pub fn ellipse_mass(a: f32, b: f32, rho: f32) -> f32 {
    std::f32::consts::PI * a * b * rho
}

/// The principal moments of a uniform ellipsoid of semi-axes `semi_axes` = (a, b, c) and mass
/// `mass` about its local axes: m (b² + c²)/5, m (a² + c²)/5, m (a² + b²)/5.
pub fn ellipsoid_principal_moments(semi_axes: Vec3, mass: f32) -> Vec3 {
    let sq = semi_axes * semi_axes;
    Vec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) * (mass / 5.0)
}

/// Mass of a solid ellipsoid of semi-axes `semi_axes` = (a, b, c) (m) and density `rho`
/// (kg/m³): ρ 4/3 π abc.
pub fn ellipsoid_mass(semi_axes: Vec3, rho: f32) -> f32 {
    4.0 / 3.0 * std::f32::consts::PI * semi_axes.x * semi_axes.y * semi_axes.z * rho
}

/// Appends body `b` to the step's arrays: position and radius, orientation, velocities (zero
/// for a fixed body), 1/m and the scalar 1/I (both zero for a body that is not dynamic; 1/I
/// also for a body with principal moments, which the step keeps apart), material and kind.
pub(crate) fn push_body(bodies: &mut Bodies, b: &Body) {
    let dynamic = b.kind == BodyKind::Dynamic;
    bodies.pos_radius.push(b.position.extend(b.radius));
    bodies.orientation.push(b.orientation);
    bodies.motion.push(Motion {
        linear: if b.kind == BodyKind::Fixed {
            [0.0; 3]
        } else {
            b.velocity.to_array()
        },
        inv_mass: if dynamic { 1.0 / b.mass } else { 0.0 },
        angular: if b.kind == BodyKind::Fixed {
            [0.0; 3]
        } else {
            b.angular_velocity.to_array()
        },
        inv_inertia: if dynamic && b.anisotropic_moments().is_none() {
            1.0 / b.isotropic_inertia()
        } else {
            0.0
        },
    });
    bodies.material.push(b.material.0);
    bodies.kind.push(b.kind as u32);
}
