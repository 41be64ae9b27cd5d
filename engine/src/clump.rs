//! Clumps: rigid bodies made of overlapping spheres (see [`grains_kernels::shapes::clump`] for their
//! contacts).
//!
//! A [`ClumpTemplate`] is a list of up to [`MAX_CLUMP_MEMBERS`] member spheres, given one by one
//! ([`ClumpTemplate::new`]) or generated from a shape ([`ClumpTemplate::rod`]). Its mass
//! properties are those of the union of the spheres at uniform density, found by a
//! deterministic integration that is exact along z and converged over x–y
//! ([`union_moments`]); the members are then re-expressed in the principal axes with the centre
//! of mass at the origin, so that a clump body's orientation is its principal frame and its
//! inertia the diagonal of [`Body::with_principal_moments`].
//!
//! Library use: register a template on the builder ([`crate::WorldBuilder::clump_template`]), which
//! returns a [`Clump`] handle, and add bodies with [`Body::clump`]:
//!
//! ```
//! use grains::{Body, ClumpTemplate, Material, Quat, Settings, Vec3, WallDesc, World};
//!
//! let mut builder = World::builder(Settings::default());
//! builder.material(Material::new(0.5));
//! builder.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
//! let rod = builder.clump_template(&ClumpTemplate::rod(3, 0.01, 0.015).unwrap());
//! builder.body(Body::clump(Vec3::new(0.0, 0.0, 0.02), Quat::IDENTITY, &rod, 2500.0));
//! let mut world = builder.build().unwrap();
//! world.run(500).unwrap();
//! assert!((world.position(0).z - 0.01).abs() < 1e-3); // lying on its three members
//! ```

use crate::body::{Body, Shape};
use crate::error::BuildError;
use glam::{DMat3, DQuat, DVec3, Quat, Vec3, Vec4};
use grains_kernels::shapes::clump::{clump_bound, ClumpTable};

pub use grains_kernels::shapes::clump::MAX_CLUMP_MEMBERS;

/// Columns per side of the x–y grid of [`union_moments`]: the volume and moments of one sphere
/// come out within about 1e-6 relative of the closed forms at this resolution (the tests allow
/// [`INTEGRATION_TOLERANCE`]), far inside the 1e-4 of the statics the clumps are checked against.
pub const COLUMNS: usize = 1024;

/// The relative error the tests allow [`union_moments`] at [`COLUMNS`]: the midpoint rule over
/// the rim, where the chord √(r² − ρ²) has an unbounded slope, converges as h^1.5, about
/// 1.1e-6 for a sphere spanning the grid, 5.3e-6 for the moments of two spheres whose smaller
/// one spans a third of it (measured); 2e-5 leaves room for other placements on the grid.
pub const INTEGRATION_TOLERANCE: f64 = 2e-5;

/// Why a clump template is refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ClumpError(pub String);

/// The volume, centre and second moments of a union of spheres (uniform unit density), in the
/// axes the spheres are given in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnionMoments {
    /// Volume V = ∫ dV (m³).
    pub volume: f64,
    /// Centre of volume c = ∫ r dV / V (m).
    pub centre: DVec3,
    /// Inertia tensor per unit density about the centre, ∫ (‖r'‖² E − r' r'ᵀ) dV with
    /// r' = r − c (m⁵).
    pub inertia: DMat3,
}

/// Volume, centre and inertia per unit density of the union of `spheres` (x, y, z, r), by a
/// deterministic column integration: the x–y extent cut into [`COLUMNS`]² cells, and along each
/// cell's central vertical line the union of the spheres' chords [c_z − s, c_z + s],
/// s = √(r² − ρ²), merged into disjoint intervals and integrated exactly (∫ dz, ∫ z dz,
/// ∫ z² dz); over x–y the midpoint rule, with the cell's own ∫ x² over its width (h²/12).
/// Overlaps count once however many spheres share them. f64 throughout; the same input gives
/// the same bits.
pub fn union_moments(spheres: &[Vec4]) -> UnionMoments {
    let s: Vec<[f64; 4]> = spheres
        .iter()
        .map(|m| [m.x as f64, m.y as f64, m.z as f64, m.w as f64])
        .collect();
    let lo = |a: usize| s.iter().map(|m| m[a] - m[3]).fold(f64::INFINITY, f64::min);
    let hi = |a: usize| {
        s.iter()
            .map(|m| m[a] + m[3])
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let (x0, y0) = (lo(0), lo(1));
    let (hx, hy) = ((hi(0) - x0) / COLUMNS as f64, (hi(1) - y0) / COLUMNS as f64);
    let area = hx * hy;
    // Σ over cells of ∫ 1, x, y, z, x², y², z², xy, xz, yz dV.
    let mut m = [0.0f64; 10];
    let mut chords = Vec::with_capacity(s.len());
    for i in 0..COLUMNS {
        let x = x0 + (i as f64 + 0.5) * hx;
        for j in 0..COLUMNS {
            let y = y0 + (j as f64 + 0.5) * hy;
            chords.clear();
            for sp in &s {
                let rho2 = (x - sp[0]).powi(2) + (y - sp[1]).powi(2);
                if rho2 < sp[3] * sp[3] {
                    let half = (sp[3] * sp[3] - rho2).sqrt();
                    chords.push((sp[2] - half, sp[2] + half));
                }
            }
            if chords.is_empty() {
                continue;
            }
            let (l, z1, z2) = merged_chord_moments(&mut chords);
            let a = area;
            m[0] += a * l;
            m[1] += a * x * l;
            m[2] += a * y * l;
            m[3] += a * z1;
            m[4] += a * (x * x + hx * hx / 12.0) * l;
            m[5] += a * (y * y + hy * hy / 12.0) * l;
            m[6] += a * z2;
            m[7] += a * x * y * l;
            m[8] += a * x * z1;
            m[9] += a * y * z1;
        }
    }
    let volume = m[0];
    let c = DVec3::new(m[1], m[2], m[3]) / volume;
    // Second moments about the centre, C = ∫ r' r'ᵀ dV = ∫ r rᵀ dV − V c cᵀ.
    let second = DMat3::from_cols(
        DVec3::new(m[4], m[7], m[8]),
        DVec3::new(m[7], m[5], m[9]),
        DVec3::new(m[8], m[9], m[6]),
    ) - volume * DMat3::from_cols(c * c.x, c * c.y, c * c.z);
    let trace = second.x_axis.x + second.y_axis.y + second.z_axis.z;
    UnionMoments {
        volume,
        centre: c,
        inertia: DMat3::from_diagonal(DVec3::splat(trace)) - second,
    }
}

/// ∫ dz, ∫ z dz and ∫ z² dz over the union of the intervals `chords` (sorted and merged in
/// place, so that overlapping chords count once).
fn merged_chord_moments(chords: &mut [(f64, f64)]) -> (f64, f64, f64) {
    chords.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let (mut l, mut z1, mut z2) = (0.0, 0.0, 0.0);
    let mut add = |(a, b): (f64, f64)| {
        l += b - a;
        z1 += (b * b - a * a) / 2.0;
        z2 += (b * b * b - a * a * a) / 3.0;
    };
    let mut open = chords[0];
    for &(a, b) in &chords[1..] {
        if a <= open.1 {
            open.1 = open.1.max(b);
        } else {
            add(open);
            open = (a, b);
        }
    }
    add(open);
    (l, z1, z2)
}

/// The eigenvalues of symmetric `m` and a right-handed rotation whose columns are the
/// eigenvectors (cyclic Jacobi rotations until the off-diagonal vanishes to rounding).
fn principal_axes(m: DMat3) -> (DVec3, DMat3) {
    let mut a = m.to_cols_array_2d();
    let mut v = DMat3::IDENTITY.to_cols_array_2d();
    for _ in 0..64 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let scale = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off <= 1e-15 * scale {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // The rotation in the p–q plane that zeroes a_pq of Rᵀ A R: tan 2θ = 2 a_pq/(a_pp − a_qq).
            let theta = 0.5 * (2.0 * a[p][q]).atan2(a[p][p] - a[q][q]);
            let (sn, cs) = theta.sin_cos();
            let mut rot = [[0.0; 3]; 3];
            for (k, row) in rot.iter_mut().enumerate() {
                row[k] = 1.0;
            }
            rot[p][p] = cs;
            rot[q][q] = cs;
            rot[p][q] = sn;
            rot[q][p] = -sn;
            let r = DMat3::from_cols_array_2d(&rot);
            let am = r.transpose() * DMat3::from_cols_array_2d(&a) * r;
            a = am.to_cols_array_2d();
            v = (DMat3::from_cols_array_2d(&v) * r).to_cols_array_2d();
        }
    }
    let mut axes = DMat3::from_cols_array_2d(&v);
    if axes.determinant() < 0.0 {
        axes.z_axis = -axes.z_axis;
    }
    (DVec3::new(a[0][0], a[1][1], a[2][2]), axes)
}

/// A clump template: its member spheres in its principal axes about its centre of volume, and
/// its mass properties per unit density.
#[derive(Clone, Debug, PartialEq)]
pub struct ClumpTemplate {
    members: Vec<Vec4>,
    volume: f64,
    moments: DVec3,
    centre: Vec3,
    frame: Quat,
}

impl ClumpTemplate {
    /// The clump of the member spheres `spheres` (x, y, z, r): 1 to [`MAX_CLUMP_MEMBERS`] of
    /// them, finite centres, positive finite radii. Its volume, centre and principal moments
    /// are those of the spheres' union ([`union_moments`]).
    pub fn new(spheres: &[Vec4]) -> Result<Self, ClumpError> {
        if spheres.is_empty() || spheres.len() > MAX_CLUMP_MEMBERS {
            return Err(ClumpError(format!(
                "needs 1 to {MAX_CLUMP_MEMBERS} spheres, got {} (a pair's contacts are numbered by member, at most 8 × 8 in a pair key)",
                spheres.len()
            )));
        }
        for (k, m) in spheres.iter().enumerate() {
            if !(m.truncate().is_finite() && m.w.is_finite() && m.w > 0.0) {
                return Err(ClumpError(format!(
                    "sphere {k} needs a finite centre and a positive finite radius, got [{}, {}, {}, {}]",
                    m.x, m.y, m.z, m.w
                )));
            }
        }
        let union = union_moments(spheres);
        let (moments, axes) = principal_axes(union.inertia);
        let frame = DQuat::from_mat3(&axes).normalize();
        let members = spheres
            .iter()
            .map(|m| {
                let local = frame.inverse() * (m.truncate().as_dvec3() - union.centre);
                local.as_vec3().extend(m.w)
            })
            .collect();
        Ok(ClumpTemplate {
            members,
            volume: union.volume,
            moments,
            centre: union.centre.as_vec3(),
            frame: frame.as_quat(),
        })
    }

    /// A rod of `count` equal spheres of radius `radius` along the template's x axis, centres
    /// `spacing` apart (overlapping when `spacing` < 2 `radius`): a clump generated from a
    /// capsule-like shape.
    pub fn rod(count: usize, radius: f32, spacing: f32) -> Result<Self, ClumpError> {
        // Before the spheres are made: a count of 2^63 is refused, not allocated.
        if !(1..=MAX_CLUMP_MEMBERS).contains(&count) {
            return Err(ClumpError(format!(
                "a rod needs 1 to {MAX_CLUMP_MEMBERS} spheres, got {count}"
            )));
        }
        if !(spacing.is_finite() && spacing > 0.0) {
            return Err(ClumpError(format!(
                "rod spacing must be positive and finite, got {spacing}"
            )));
        }
        let first = -0.5 * (count as f32 - 1.0) * spacing;
        let spheres: Vec<Vec4> = (0..count)
            .map(|k| Vec4::new(first + k as f32 * spacing, 0.0, 0.0, radius))
            .collect();
        ClumpTemplate::new(&spheres)
    }

    /// The member spheres (x, y, z, r) in the principal axes, the centre of volume at the
    /// origin.
    pub fn members(&self) -> &[Vec4] {
        &self.members
    }

    /// Volume of the union of the members (m³).
    pub fn volume(&self) -> f64 {
        self.volume
    }

    /// Principal moments of inertia per unit density (m⁵), about the principal axes.
    pub fn unit_moments(&self) -> DVec3 {
        self.moments
    }

    /// Centre of volume in the axes the spheres were given in (m).
    pub fn centre(&self) -> Vec3 {
        self.centre
    }

    /// The principal axes as a rotation from the principal frame to the axes the spheres were
    /// given in.
    pub fn frame(&self) -> Quat {
        self.frame
    }
}

/// A clump template registered on a builder ([`crate::WorldBuilder::clump_template`]): what
/// [`Body::clump`] needs to make a body of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clump {
    /// The body shape, [`Shape::Clump`] with the template's number and bound.
    pub shape: Shape,
    /// Volume (m³).
    pub volume: f32,
    /// Principal moments per unit density (m⁵).
    pub unit_moments: Vec3,
    /// Centre of volume in the template's given axes (m).
    pub centre: Vec3,
    /// Principal frame → given axes.
    pub frame: Quat,
    /// The smallest member's radius (m), the body's radius.
    pub radius: f32,
}

impl Body {
    /// A dynamic clump of template `clump` at uniform density `density` (kg/m³), the
    /// template's origin at `position` and its given axes turned by `orientation`: the body's
    /// centre is the centre of mass, position + orientation · c, its orientation its principal
    /// frame, orientation · R, with mass ρ V and the principal moments ρ I/ρ
    /// ([`Body::with_principal_moments`]); its radius is the smallest member's.
    pub fn clump(position: Vec3, orientation: Quat, clump: &Clump, density: f32) -> Self {
        let moments = clump.unit_moments * density;
        Body {
            shape: clump.shape,
            orientation: (orientation * clump.frame).normalize(),
            inertia: moments.min_element(),
            ..Body::sphere(
                position + orientation * clump.centre,
                clump.radius,
                clump.volume * density,
            )
        }
        .with_principal_moments(moments)
    }
}

/// Checks the clumps of a world: each names a template of `table` with its bound, carries its
/// principal moments and lives in 3-D (which shapes it may share the world with is the pair
/// table's, checked by the builder).
pub(crate) fn check_clumps(
    bodies: &[Body],
    table: &ClumpTable,
    planar: bool,
) -> Result<(), BuildError> {
    let bad = |i: usize, problem: String| {
        Err(BuildError::Body {
            body: i,
            field: "shape",
            problem,
        })
    };
    for (i, b) in bodies.iter().enumerate() {
        let Shape::Clump { template, bound } = b.shape else {
            continue;
        };
        if planar {
            return bad(i, "a clump is a 3-D body and planar mode has none".into());
        }
        if template as usize >= table.len() {
            return bad(i, format!(
                "names clump template {template} but the builder has {} (register it with WorldBuilder::clump_template)",
                table.len()
            ));
        }
        if bound != clump_bound(table.members(template)) {
            return bad(i, format!(
                "bound {bound} is not that of clump template {template}, {} (use the handle of WorldBuilder::clump_template)",
                clump_bound(table.members(template))
            ));
        }
        if b.principal_moments.is_none() {
            return bad(
                i,
                "a clump needs its principal moments (Body::clump gives them)".into(),
            );
        }
    }
    Ok(())
}
