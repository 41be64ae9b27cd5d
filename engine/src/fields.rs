//! Coarse-grained continuum fields of the grains: density, volume fraction, velocity, the
//! kinetic and contact stress tensors and the fabric tensor, on a regular grid or along a
//! profile, and each grain's own (Love–Weber) stress.
//!
//! The coarse graining of Goldhirsch (2010, Granular Matter 12, 239) in the form of Weinhart,
//! Thornton, Luding and Bokhove (2012, Granular Matter 14, 289), with a smoothing kernel φ of
//! unit integral ([`Kernel`]). At a point r, with grains i of mass m_i at x_i moving at v_i:
//!
//! * density ρ(r) = Σ_i m_i φ(r − x_i), volume fraction Σ_i V_i φ(r − x_i);
//! * velocity V(r) = Σ_i m_i v_i φ(r − x_i) / ρ(r), the grains' own velocities: in a sheared
//!   periodic cell (Lees–Edwards, [`crate::Periodic::shear_rate`]) this is the streaming
//!   velocity too (the profile γ̇ y is the user's to subtract), and an image across y at
//!   index m lies at x_i + m Δ and moves at v_i + m γ̇ L_y x̂;
//! * kinetic stress σᵏ(r) = Σ_i m_i v'_i ⊗ v'_i φ(r − x_i) with v'_i = v_i − V(r);
//! * contact stress σᶜ(r) = Σ_c f_c ⊗ b_c ∫₀¹ φ(r − x_i + s b_c) ds, over the contacts c of the
//!   last step, with f_c the mean force on grain i over the step and b_c the branch from the
//!   other side to x_i: x_i − x_j for two grains (the minimum image across periodic sides,
//!   with the images' offset Δ across y in a sheared cell),
//!   x_i − p_c for a wall, a mesh or a body that does not move by contact (p_c the contact
//!   point), so that the line integral runs along the segment from x_i to x_j or to p_c;
//! * fabric F(r) = Σ_c n_c ⊗ n_c ∫₀¹ φ(r − x_i + s b_c) ds.
//!
//! Stresses are compression-positive (σᵏ + σᶜ is the pressure tensor): a bed at rest under
//! gravity has σ_zz(z) = g ∫_z^∞ ρ dz', which is exact for these fields whatever the kernel
//! when every grain is in equilibrium (the profile test in `engine/tests/fields.rs`).
//! The tensors are 3 × 3 row-major, `[α][β]` = Σ f_α b_β. The line integrals are evaluated by
//! three-point Gauss–Legendre rules on pieces of the segment at most half the kernel's reach
//! long. Sums run in f64 in body and contact order: the same fields for any thread count. The
//! world's threads (`Settings::threads`) share the work, each spreading every source over its
//! own slab of the sample points (layers of a grid along z, points of a profile), the slabs cut
//! so that each holds about as many sources within the kernel's reach. The
//! world's threads (`Settings::threads`) share the work, each spreading every source over its
//! own slab of the sample points (layers of a grid along z, points of a profile), the slabs cut
//! so that each holds about as many sources within the kernel's reach.

use crate::world::World;
use crate::Touching;
use glam::{DVec3, Vec3};

/// The smoothing kernel φ of the coarse graining (unit integral over space, or over the profile's
/// axis for a [`Sampling::Profile`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// Lucy's polynomial of compact support `cutoff` c (m): φ ∝ 1 − 6 q² + 8 q³ − 3 q⁴ for
    /// q = |r| / c < 1 (105 / (16 π c³) in 3-D, 5 / (4 c) along a line).
    Lucy {
        /// The support's radius c (m); about twice a grain's diameter smooths a bed's layering.
        cutoff: f32,
    },
    /// A Gaussian of standard deviation `width` w (m), cut at 3 w and scaled to unit integral.
    Gaussian {
        /// The standard deviation w (m).
        width: f32,
    },
}

/// erf(3/√2): the share of a 1-D Gaussian within 3 standard deviations.
const ERF_3_OVER_SQRT2: f64 = 0.997_300_203_936_740;

impl Kernel {
    /// The radius beyond which φ is zero (m).
    pub fn reach(&self) -> f64 {
        match *self {
            Kernel::Lucy { cutoff } => cutoff as f64,
            Kernel::Gaussian { width } => 3.0 * width as f64,
        }
    }

    /// φ at distance² `r2` in `dims` dimensions (3, or 1 along a profile).
    fn value(&self, r2: f64, dims: u32) -> f64 {
        let reach = self.reach();
        if r2 >= reach * reach {
            return 0.0;
        }
        match *self {
            Kernel::Lucy { cutoff } => {
                let c = cutoff as f64;
                let q = r2.sqrt() / c;
                let shape = 1.0 + q * q * (-6.0 + q * (8.0 - 3.0 * q));
                let norm = match dims {
                    1 => 5.0 / (4.0 * c),
                    _ => 105.0 / (16.0 * std::f64::consts::PI * c * c * c),
                };
                norm * shape
            }
            Kernel::Gaussian { width } => {
                let w = width as f64;
                let tau = 2.0 * std::f64::consts::PI;
                // The share of the Gaussian inside 3 w: erf(3/√2) along a line; in 3-D the
                // chi distribution's, erf(3/√2) − √(2/π) 3 e^{−9/2}.
                let norm = match dims {
                    1 => (tau.sqrt() * w) * ERF_3_OVER_SQRT2,
                    _ => {
                        let inside = ERF_3_OVER_SQRT2
                            - (2.0 / std::f64::consts::PI).sqrt() * 3.0 * (-4.5f64).exp();
                        (tau * w * w).powf(1.5) * inside
                    }
                };
                (-r2 / (2.0 * w * w)).exp() / norm
            }
        }
    }

    fn check(&self) -> Result<(), FieldsError> {
        let (name, value) = match *self {
            Kernel::Lucy { cutoff } => ("Lucy cutoff", cutoff),
            Kernel::Gaussian { width } => ("Gaussian width", width),
        };
        match value.is_finite() && value > 0.0 {
            true => Ok(()),
            false => Err(FieldsError::Sampling(format!(
                "the kernel's {name} must be a positive length in metres, got {value}"
            ))),
        }
    }
}

/// Where the fields are sampled.
#[derive(Clone, Debug, PartialEq)]
pub enum Sampling {
    /// The nodes of a regular grid: `count[k]` nodes along axis k from `origin`, `spacing[k]`
    /// apart (the node (i, j, k) at origin + (i s_x, j s_y, k s_z), x fastest).
    Grid {
        /// The first node (m).
        origin: Vec3,
        /// The distance between neighbouring nodes along each axis (m).
        spacing: Vec3,
        /// Nodes along each axis.
        count: [usize; 3],
    },
    /// A profile along `axis` (0 = x, 1 = y, 2 = z): `count` points from `from`, `spacing`
    /// apart, each the average over the plane normal to the axis of area `area` (m²) that the
    /// grains fill (a periodic cell's cross-section, a box's inside): φ is the kernel along
    /// the axis divided by `area`, and every grain counts whatever its other coordinates.
    Profile {
        /// The axis: 0, 1 or 2.
        axis: usize,
        /// The first point's coordinate along the axis (m).
        from: f32,
        /// The distance between points (m).
        spacing: f32,
        /// Number of points.
        count: usize,
        /// The cross-section averaged over (m²).
        area: f32,
    },
}

impl Sampling {
    /// Number of sample points (`usize::MAX` where it does not fit).
    pub fn len(&self) -> usize {
        match self {
            Sampling::Grid { count, .. } => count.iter().fold(1, |n, &c| n.saturating_mul(c)),
            Sampling::Profile { count, .. } => *count,
        }
    }

    /// Whether there are no sample points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sample points (m): a profile's point k has its axis coordinate set and the others 0.
    pub fn points(&self) -> Vec<Vec3> {
        match *self {
            Sampling::Grid {
                origin,
                spacing,
                count,
            } => {
                let mut points = Vec::with_capacity(self.len());
                for k in 0..count[2] {
                    for j in 0..count[1] {
                        for i in 0..count[0] {
                            let at = Vec3::new(i as f32, j as f32, k as f32);
                            points.push(origin + spacing * at);
                        }
                    }
                }
                points
            }
            Sampling::Profile {
                axis,
                from,
                spacing,
                count,
                ..
            } => (0..count)
                .map(|k| {
                    let mut p = Vec3::ZERO;
                    p[axis] = from + spacing * k as f32;
                    p
                })
                .collect(),
        }
    }

    fn check(&self) -> Result<(), FieldsError> {
        let bad = |what: String| Err(FieldsError::Sampling(what));
        match *self {
            Sampling::Grid {
                origin, spacing, ..
            } => {
                if !origin.is_finite() {
                    return bad(format!("the grid's origin must be finite, got {origin}"));
                }
                if !(spacing.is_finite() && spacing.min_element() > 0.0) {
                    return bad(format!(
                        "the grid's spacing must be positive along every axis, got {spacing}"
                    ));
                }
            }
            Sampling::Profile {
                axis,
                from,
                spacing,
                area,
                ..
            } => {
                if axis > 2 {
                    return bad(format!(
                        "a profile's axis is 0, 1 or 2 (x, y, z), got {axis}"
                    ));
                }
                if !(from.is_finite() && spacing.is_finite() && spacing > 0.0) {
                    return bad(format!(
                        "a profile needs a finite start and a positive spacing, got from = {from}, spacing = {spacing}"
                    ));
                }
                if !(area.is_finite() && area > 0.0) {
                    return bad(format!(
                        "a profile's area must be a positive number of square metres, got {area}"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Why the fields could not be computed.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldsError {
    /// The sampling or the kernel is not valid (the message says which value).
    Sampling(String),
    /// The world is one rank of a distributed run: each rank holds only its own contacts.
    Distributed,
    /// A grain's stress needs its volume, known for spheres only: this body is not one.
    NotSphere(usize),
}

impl std::fmt::Display for FieldsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldsError::Sampling(what) => write!(f, "coarse graining: {what}"),
            FieldsError::Distributed => write!(
                f,
                "coarse graining: a rank of a distributed world holds only its own contacts; compute the fields in one process (a checkpoint of the run resumes there)"
            ),
            FieldsError::NotSphere(i) => write!(
                f,
                "grain stress: body {i} is not a sphere, and only a sphere's volume is known here"
            ),
        }
    }
}

impl std::error::Error for FieldsError {}

/// A 3 × 3 tensor, row-major.
pub type Tensor = [[f64; 3]; 3];

/// The coarse-grained fields at the points of a [`Sampling`] (index k is point k of
/// [`Sampling::points`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fields {
    /// The sample points (m).
    pub points: Vec<Vec3>,
    /// Mass density ρ of the dynamic bodies (kg/m³).
    pub density: Vec<f64>,
    /// Volume fraction of the dynamic bodies, or `None` when some dynamic body is not a
    /// sphere (only a sphere's volume is known here).
    pub volume_fraction: Option<Vec<f64>>,
    /// Velocity V = momentum density / ρ (m/s; zero where ρ is zero).
    pub velocity: Vec<[f64; 3]>,
    /// Kinetic stress σᵏ (Pa, compression-positive).
    pub kinetic_stress: Vec<Tensor>,
    /// Contact stress σᶜ (Pa, compression-positive).
    pub contact_stress: Vec<Tensor>,
    /// Fabric tensor F (contacts per m³ along the branches: its trace is the density of
    /// branch length, in contacts × m / m³, divided by the branches' length it is a count).
    pub fabric: Vec<Tensor>,
}

impl Fields {
    /// The total stress σᵏ + σᶜ at point `k` (Pa).
    pub fn stress(&self, k: usize) -> Tensor {
        let mut s = self.kinetic_stress[k];
        for (row, c) in s.iter_mut().zip(&self.contact_stress[k]) {
            for (x, y) in row.iter_mut().zip(c) {
                *x += y;
            }
        }
        s
    }
}

/// What a point source adds at the sample points: its weight times φ at each.
struct Smoother<'a> {
    sampling: &'a Sampling,
    kernel: Kernel,
    /// The periodic sides' lengths along x and y (0: not periodic).
    periods: [f64; 2],
    /// The layers of sample points this smoother adds to (a grid's z indices, a profile's
    /// points), so that each worker of [`coarse_grain`] fills its own slab.
    slab: std::ops::Range<usize>,
    /// In a sheared cell, the offset Δ along x of the images one period up across y (m, now).
    shear_offset: f64,
}

impl Smoother<'_> {
    /// Calls `add(k, φ, m)` for every sample point k within the kernel's reach of `x` (and of
    /// its periodic images: m is the image's index across y, whose copy in a sheared cell lies
    /// at x + m Δ, reduced to within half a period, and moves at m γ̇ L_y x̂ on top).
    fn spread(&self, x: DVec3, add: &mut impl FnMut(usize, f64, f64)) {
        let reach = self.kernel.reach();
        let images = |axis: usize| -> &'static [f64] {
            match axis < 2 && self.periods[axis] > 0.0 {
                true => &[-1.0, 0.0, 1.0],
                false => &[0.0],
            }
        };
        match *self.sampling {
            Sampling::Grid {
                origin,
                spacing,
                count,
            } => {
                let (o, s) = (origin.as_dvec3(), spacing.as_dvec3());
                for &ix in images(0) {
                    for &iy in images(1) {
                        let shear = match iy != 0.0 && self.shear_offset != 0.0 {
                            true => {
                                let (d, lx) = (iy * self.shear_offset, self.periods[0]);
                                d - lx * (d / lx).round()
                            }
                            false => 0.0,
                        };
                        let x =
                            x + DVec3::new(ix * self.periods[0] + shear, iy * self.periods[1], 0.0);
                        // The nodes along axis k within `r` of x: the rows of the ball of
                        // the kernel's reach, row by row (a hair wider than the ball, so that
                        // rounding leaves out no node the kernel's own test would keep).
                        let range = |k: usize, r: f64| {
                            let r = r * (1.0 + 1e-9);
                            let lo = ((x[k] - r - o[k]) / s[k]).ceil().max(0.0);
                            let hi = ((x[k] + r - o[k]) / s[k]).floor();
                            let hi = hi.min(count[k] as f64 - 1.0);
                            lo as usize..(hi + 1.0).max(lo) as usize
                        };
                        let across = |r2: f64, d: f64| (r2 - d * d).max(0.0).sqrt();
                        let reach2 = reach * reach;
                        let layers = range(2, reach);
                        let layers =
                            layers.start.max(self.slab.start)..layers.end.min(self.slab.end);
                        for k in layers {
                            let dz = o[2] + s[2] * k as f64 - x[2];
                            for j in range(1, across(reach2, dz)) {
                                let dy = o[1] + s[1] * j as f64 - x[1];
                                let left = reach2 - dz * dz;
                                for i in range(0, across(left, dy)) {
                                    let node = o + s * DVec3::new(i as f64, j as f64, k as f64);
                                    let phi = self.kernel.value((node - x).length_squared(), 3);
                                    if phi > 0.0 {
                                        add(i + count[0] * (j + count[1] * k), phi, iy);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            Sampling::Profile {
                axis,
                from,
                spacing,
                count,
                area,
            } => {
                let (from, spacing, area) = (from as f64, spacing as f64, area as f64);
                let period = if axis < 2 { self.periods[axis] } else { 0.0 };
                for &shift in images(axis) {
                    let x = x[axis] + shift * period;
                    let lo = ((x - reach - from) / spacing).ceil().max(0.0);
                    let hi = ((x + reach - from) / spacing)
                        .floor()
                        .min(count as f64 - 1.0);
                    let (lo, hi) = (lo as usize, (hi + 1.0).max(lo) as usize);
                    for k in lo.max(self.slab.start)..hi.min(self.slab.end) {
                        let d = from + spacing * k as f64 - x;
                        let phi = self.kernel.value(d * d, 1) / area;
                        if phi > 0.0 {
                            add(k, phi, if axis == 1 { shift } else { 0.0 });
                        }
                    }
                }
            }
        }
    }

    /// Calls `add(k, ∫₀¹ φ(r_k − a + s b) ds)` for the segment from `a` to `a − b`: three-point
    /// Gauss–Legendre rules on pieces at most half the kernel's reach long.
    fn spread_segment(&self, a: DVec3, b: DVec3, add: &mut impl FnMut(usize, f64)) {
        const NODES: [(f64, f64); 3] = [
            (-0.774_596_669_241_483_4, 5.0 / 18.0),
            (0.0, 8.0 / 18.0),
            (0.774_596_669_241_483_4, 5.0 / 18.0),
        ];
        let pieces = (2.0 * b.length() / self.kernel.reach()).ceil().max(1.0) as usize;
        let piece = 1.0 / pieces as f64;
        for p in 0..pieces {
            let mid = (p as f64 + 0.5) * piece;
            for (t, w) in NODES {
                let s = mid + 0.5 * piece * t;
                let weight = w * piece;
                self.spread(a - s * b, &mut |k, phi, _| add(k, weight * phi));
            }
        }
    }
}

/// The coarse-grained fields of `world`'s dynamic bodies and last step's contacts at the
/// points of `sampling`, smoothed by `kernel` (see the module's doc for the definitions).
/// On the GPU backend, call [`World::sync`] and [`World::sync_contacts`] first.
///
/// ```
/// use grains::fields::{coarse_grain, Kernel, Sampling};
/// use grains::{Body, Material, Settings, Vec3, WallDesc, World};
/// let mut b = World::builder(Settings::default());
/// b.material(Material::new(0.5));
/// b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
/// b.body(Body::sphere(Vec3::new(0.0, 0.0, 0.01), 0.01, 0.01));
/// let mut world = b.build().unwrap();
/// world.run(200).unwrap();
/// let profile = Sampling::Profile { axis: 2, from: 0.0, spacing: 0.005, count: 5, area: 1e-3 };
/// let fields = coarse_grain(&world, &profile, Kernel::Lucy { cutoff: 0.02 }).unwrap();
/// // The sphere's weight rests on the floor: at its centre's height, σ_zz = m g H(·) / area.
/// assert!(fields.contact_stress[2][2][2] > 0.0);
/// ```
pub fn coarse_grain(
    world: &World,
    sampling: &Sampling,
    kernel: Kernel,
) -> Result<Fields, FieldsError> {
    sampling.check()?;
    kernel.check()?;
    if world.owned_indices().is_some() {
        return Err(FieldsError::Distributed);
    }
    let periodic = world.periodic_now();
    let period = |r: Option<(f32, f32)>| r.map_or(0.0, |(lo, hi)| (hi - lo) as f64);
    let periods = [period(periodic.x), period(periodic.y)];
    let shear_offset = periodic.shear_offset as f64;
    let jump = periodic.jump_speed() as f64;
    let n = sampling.len();
    let bodies = world.bodies();
    let dynamic = |i: usize| bodies.is_dynamic(i);
    let spheres = (0..world.len()).all(|i| !dynamic(i) || world.shape(i).is_sphere());
    // The sources, read off the world once: each dynamic grain's centre, mass, velocity and
    // volume, and each contact's segment, force and normal.
    let grains: Vec<GrainSource> = (0..world.len())
        .filter(|&i| dynamic(i))
        .map(|i| GrainSource {
            centre: bodies.pos_radius[i].truncate().as_dvec3(),
            mass: world.mass(i) as f64,
            velocity: world.velocity(i).as_dvec3(),
            volume: sphere_volume(bodies.pos_radius[i].w as f64),
        })
        .collect();
    let contacts: Vec<ContactSource> = world
        .contacts()
        .filter_map(|c| {
            let (from, force, branch) = contact_branch(world, &c)?;
            let normal = c.normal.as_dvec3();
            Some(ContactSource {
                from,
                force,
                branch,
                normal,
            })
        })
        .collect();
    // The sample points in layers (a grid's z indices, a profile's points), split into one
    // slab a worker: each worker spreads every source over its own slab's points, in source
    // order, so that every point's sums are the same bits for any number of workers.
    let (layers, per_layer) = match *sampling {
        Sampling::Grid { count, .. } => (count[2], count[0] * count[1]),
        Sampling::Profile { count, .. } => (count, 1),
    };
    let workers = world.settings().threads.clamp(1, layers.max(1));
    let cuts = balanced_cuts(sampling, kernel, (&grains, &contacts), layers, workers);
    let slab = |w: usize| cuts[w]..cuts[w + 1];
    let sums = |layers: std::ops::Range<usize>| {
        let smoother = Smoother {
            sampling,
            kernel,
            periods,
            slab: layers.clone(),
            shear_offset,
        };
        let first = layers.start * per_layer;
        slab_sums(
            &smoother,
            (&grains, &contacts),
            (first, layers.len() * per_layer),
            (spheres, jump),
        )
    };
    let slabs: Vec<SlabSums> = match workers {
        1 => vec![sums(0..layers)],
        _ => std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    let sums = &sums;
                    scope.spawn(move || sums(slab(w)))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a coarse-graining worker panicked"))
                .collect()
        }),
    };
    let mut all = SlabSums::default();
    for s in slabs {
        all.density.extend(s.density);
        all.volume.extend(s.volume);
        all.momentum.extend(s.momentum);
        all.second.extend(s.second);
        all.contact_stress.extend(s.contact_stress);
        all.fabric.extend(s.fabric);
    }
    debug_assert_eq!(all.density.len(), n);
    let SlabSums {
        density,
        volume,
        momentum,
        second,
        contact_stress,
        fabric,
    } = all;
    let velocity: Vec<[f64; 3]> = density
        .iter()
        .zip(&momentum)
        .map(|(&rho, p)| match rho > 0.0 {
            true => p.map(|x| x / rho),
            false => [0.0; 3],
        })
        .collect();
    let kinetic_stress = second
        .iter()
        .zip(density.iter().zip(&velocity))
        .map(|(s, (&rho, v))| {
            let mut t = *s;
            for a in 0..3 {
                for b in 0..3 {
                    t[a][b] -= rho * v[a] * v[b];
                }
            }
            t
        })
        .collect();
    Ok(Fields {
        points: sampling.points(),
        density,
        volume_fraction: spheres.then_some(volume),
        velocity,
        kinetic_stress,
        contact_stress,
        fabric,
    })
}

/// A dynamic grain as a source of the fields.
struct GrainSource {
    centre: DVec3,
    mass: f64,
    velocity: DVec3,
    volume: f64,
}

/// A contact as a source of the stress and fabric: the segment from `from` to `from − branch`,
/// the force on the grain at `from`, and the contact's normal.
struct ContactSource {
    from: DVec3,
    force: DVec3,
    branch: DVec3,
    normal: DVec3,
}

/// The sums of one slab of sample points (or, joined slab after slab, of all).
#[derive(Default)]
struct SlabSums {
    density: Vec<f64>,
    /// Σ V φ (empty unless every grain is a sphere).
    volume: Vec<f64>,
    momentum: Vec<[f64; 3]>,
    /// Σ m v ⊗ v φ.
    second: Vec<Tensor>,
    contact_stress: Vec<Tensor>,
    fabric: Vec<Tensor>,
}

/// Where to cut the `layers` of sample points into `workers` slabs of about equal work: the
/// work of a layer is the number of sources (grains, contact segments) within the kernel's
/// reach of it, so a bed in the lower half of a grid is split within that half. Returns the
/// `workers + 1` boundaries, from 0 to `layers`.
fn balanced_cuts(
    sampling: &Sampling,
    kernel: Kernel,
    (grains, contacts): (&[GrainSource], &[ContactSource]),
    layers: usize,
    workers: usize,
) -> Vec<usize> {
    if workers == 1 {
        return vec![0, layers];
    }
    let (axis, from, spacing) = match *sampling {
        Sampling::Grid {
            origin, spacing, ..
        } => (2, origin.z as f64, spacing.z as f64),
        Sampling::Profile {
            axis,
            from,
            spacing,
            ..
        } => (axis, from as f64, spacing as f64),
    };
    // Each source adds one to the layers within reach of it (a difference array), a contact
    // over the span of its segment.
    let reach = kernel.reach();
    let mut change = vec![0i64; layers + 1];
    let mut add = |lo: f64, hi: f64| {
        let first = ((lo - reach - from) / spacing)
            .ceil()
            .clamp(0.0, layers as f64) as usize;
        let last = ((hi + reach - from) / spacing).floor() + 1.0;
        let last = last.clamp(first as f64, layers as f64) as usize;
        change[first] += 1;
        change[last] -= 1;
    };
    grains
        .iter()
        .for_each(|g| add(g.centre[axis], g.centre[axis]));
    for c in contacts {
        let (a, b) = (c.from[axis], c.from[axis] - c.branch[axis]);
        add(a.min(b), a.max(b));
    }
    let work: Vec<i64> = change[..layers]
        .iter()
        .scan(0, |sum, d| {
            *sum += d;
            Some(*sum + 1)
        })
        .collect();
    let total: i64 = work.iter().sum();
    let mut cuts = vec![0];
    let mut done = 0;
    for (k, w) in work.iter().enumerate() {
        done += w;
        let next = cuts.len() as i64;
        if cuts.len() < workers && done * workers as i64 >= next * total {
            cuts.push(k + 1);
        }
    }
    cuts.resize(workers, layers);
    cuts.push(layers);
    cuts
}

/// Spreads every source over the `len` sample points from `first` on (the smoother's slab):
/// the grains' mass, volume (where every grain is a sphere: `spheres`), momentum and second
/// moment of velocity, then the contacts' f ⊗ b and n ⊗ n along their segments, each in source
/// order. An image across a sheared seam moves at m `jump` x̂ on top of its grain (m its index
/// across y, `jump` = γ̇ L_y).
fn slab_sums(
    smoother: &Smoother,
    (grains, contacts): (&[GrainSource], &[ContactSource]),
    (first, len): (usize, usize),
    (spheres, jump): (bool, f64),
) -> SlabSums {
    let zero = [[0.0; 3]; 3];
    let mut s = SlabSums {
        density: vec![0.0; len],
        volume: vec![0.0; if spheres { len } else { 0 }],
        momentum: vec![[0.0; 3]; len],
        second: vec![zero; len],
        contact_stress: vec![zero; len],
        fabric: vec![zero; len],
    };
    for g in grains {
        let (m, v) = (g.mass, g.velocity);
        let mv = m * v;
        smoother.spread(g.centre, &mut |k, phi, image| {
            let k = k - first;
            s.density[k] += m * phi;
            if spheres {
                s.volume[k] += g.volume * phi;
            }
            let (v, mv) = match image != 0.0 && jump != 0.0 {
                true => {
                    let v = v + DVec3::new(image * jump, 0.0, 0.0);
                    (v, m * v)
                }
                false => (v, mv),
            };
            for (p, x) in s.momentum[k].iter_mut().zip(mv.to_array()) {
                *p += x * phi;
            }
            add_outer(&mut s.second[k], mv, v, phi);
        });
    }
    for c in contacts {
        smoother.spread_segment(c.from, c.branch, &mut |k, w| {
            let k = k - first;
            add_outer(&mut s.contact_stress[k], c.force, c.branch, w);
            add_outer(&mut s.fabric[k], c.normal, c.normal, w);
        });
    }
    s
}

/// A contact's segment and its weight: the dynamic grain's centre the segment starts from, the
/// mean force on that grain (N) and the branch b (from the other side to the grain: the segment
/// runs from the centre to the centre − b); `None` for a contact of no dynamic body.
fn contact_branch(world: &World, c: &crate::Contact) -> Option<(DVec3, DVec3, DVec3)> {
    let bodies = world.bodies();
    let dynamic = |i: usize| bodies.is_dynamic(i);
    let centre = |i: usize| bodies.pos_radius[i].truncate().as_dvec3();
    let force = c.force.as_dvec3();
    let ((a, arm_a), other) = contact_arms(world, c);
    match other {
        Some((b, arm_b)) if dynamic(a) && dynamic(b) => Some((centre(a), force, arm_b - arm_a)),
        Some((b, arm_b)) if dynamic(b) => Some((centre(b), -force, -arm_b)),
        _ if dynamic(a) => Some((centre(a), force, -arm_a)),
        _ => None,
    }
}

/// A body of a contact and its arm from its centre to the contact point (m).
type Side = (usize, DVec3);

/// A contact's sides with their arms: the first body's, and the second body's (none for a wall
/// or mesh contact), taken across periodic sides by the minimum image of the centres'
/// separation.
fn contact_arms(world: &World, c: &crate::Contact) -> (Side, Option<Side>) {
    let bodies = world.bodies();
    let first = c.touching.first_body();
    let arm_a = (c.point - bodies.pos_radius[first].truncate()).as_dvec3();
    let other = match c.touching {
        Touching::Bodies { b, .. } => {
            let (pa, pb) = (bodies.pos_radius[first], bodies.pos_radius[b]);
            let periodic = world.periodic_now();
            let d = pa.truncate() - pb.truncate();
            let d = match periodic.is_sheared() {
                true => periodic.minimum_image_sheared(d).0,
                false => periodic.minimum_image(d),
            };
            Some((b, d.as_dvec3() + arm_a))
        }
        Touching::Wall { .. } | Touching::Mesh { .. } => None,
    };
    ((first, arm_a), other)
}

/// Each body's Love–Weber stress (Pa, compression-positive, 3 × 3 row-major) from the last
/// step's contacts: σ_i = (1/V_i) Σ_c f_c ⊗ (x_i − p_c) over the contacts c of body i, with
/// f_c the mean force on it over the step, p_c the contact point and V_i its volume (zero for
/// a body that does not move by contact). Summed over the grains, V_i σ_i is the integral of
/// [`Fields::contact_stress`] over all space for contacts between grains. Only spheres have a
/// volume here: any other dynamic body is refused ([`FieldsError::NotSphere`]).
pub fn grain_stress(world: &World) -> Result<Vec<Tensor>, FieldsError> {
    if world.owned_indices().is_some() {
        return Err(FieldsError::Distributed);
    }
    let bodies = world.bodies();
    if let Some(i) = (0..world.len()).find(|&i| bodies.is_dynamic(i) && !world.shape(i).is_sphere())
    {
        return Err(FieldsError::NotSphere(i));
    }
    let mut moment = vec![[[0.0; 3]; 3]; world.len()];
    for c in world.contacts() {
        let f = c.force.as_dvec3();
        let ((a, arm_a), other) = contact_arms(world, &c);
        let sides = [Some((a, arm_a, f)), other.map(|(b, arm_b)| (b, arm_b, -f))];
        for (i, arm, f) in sides.into_iter().flatten() {
            if bodies.is_dynamic(i) {
                add_outer(&mut moment[i], f, arm, -1.0);
            }
        }
    }
    for (i, m) in moment.iter_mut().enumerate() {
        let volume = sphere_volume(bodies.pos_radius[i].w as f64);
        let scale = if bodies.is_dynamic(i) {
            1.0 / volume
        } else {
            0.0
        };
        m.iter_mut().flatten().for_each(|x| *x *= scale);
    }
    Ok(moment)
}

/// t ← t + w a ⊗ b, each component as (a_α b_β) w.
fn add_outer(t: &mut Tensor, a: DVec3, b: DVec3, w: f64) {
    for (row, a) in t.iter_mut().zip(a.to_array()) {
        for (x, b) in row.iter_mut().zip(b.to_array()) {
            *x += a * b * w;
        }
    }
}

/// The volume of a sphere of radius `r` (m³).
fn sphere_volume(r: f64) -> f64 {
    4.0 / 3.0 * std::f64::consts::PI * r * r * r
}

/// The time average of fields sampled at the same points over a window of steps (a steady
/// flow's statistics: the mean of N samples of the same [`Sampling`]).
///
/// Density, volume fraction, contact stress and fabric are averaged sample by sample. The
/// velocity is the mean momentum density over the mean density, V̄ = ⟨ρV⟩ / ⟨ρ⟩ (each sample's
/// momentum counted at its own density); the kinetic stress is taken about V̄, so that it holds
/// the fluctuations of the velocity from sample to sample as well as those within each:
/// ⟨σᵏ⟩ + ⟨ρ V ⊗ V⟩ − ⟨ρ⟩ V̄ ⊗ V̄ (Weinhart et al. 2012's time averaging). Every sum is in f64 in
/// sample order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldsAverage {
    /// Samples added.
    pub samples: u32,
    /// The sample points (m), as the first sample gave them.
    pub points: Vec<Vec3>,
    /// Σ ρ over the samples.
    pub density: Vec<f64>,
    /// Σ of the volume fraction, `None` once a sample had none.
    pub volume_fraction: Option<Vec<f64>>,
    /// Σ ρ V.
    pub momentum: Vec<[f64; 3]>,
    /// Σ ρ V ⊗ V.
    pub convection: Vec<Tensor>,
    /// Σ σᵏ (each sample's about its own V).
    pub kinetic_stress: Vec<Tensor>,
    /// Σ σᶜ.
    pub contact_stress: Vec<Tensor>,
    /// Σ F.
    pub fabric: Vec<Tensor>,
}

impl FieldsAverage {
    /// Adds one sample; a sample of other points than the first's is refused.
    pub fn add(&mut self, f: &Fields) -> Result<(), FieldsError> {
        let n = f.points.len();
        if self.samples == 0 {
            let zero = [[0.0; 3]; 3];
            *self = FieldsAverage {
                samples: 0,
                points: f.points.clone(),
                density: vec![0.0; n],
                volume_fraction: f.volume_fraction.as_ref().map(|_| vec![0.0; n]),
                momentum: vec![[0.0; 3]; n],
                convection: vec![zero; n],
                kinetic_stress: vec![zero; n],
                contact_stress: vec![zero; n],
                fabric: vec![zero; n],
            };
        } else if f.points != self.points {
            return Err(FieldsError::Sampling(format!(
                "a time average's samples must share their points: {} points where the first sample had {}",
                n,
                self.points.len()
            )));
        }
        self.samples += 1;
        let add = |sum: &mut Tensor, t: &Tensor, scale: f64| {
            for (row, t) in sum.iter_mut().zip(t) {
                for (x, y) in row.iter_mut().zip(t) {
                    *x += scale * y;
                }
            }
        };
        for k in 0..n {
            let (rho, v) = (f.density[k], f.velocity[k]);
            self.density[k] += rho;
            for (p, v) in self.momentum[k].iter_mut().zip(v) {
                *p += rho * v;
            }
            let v3 = DVec3::from_array(v);
            add_outer(&mut self.convection[k], v3, v3, rho);
            add(&mut self.kinetic_stress[k], &f.kinetic_stress[k], 1.0);
            add(&mut self.contact_stress[k], &f.contact_stress[k], 1.0);
            add(&mut self.fabric[k], &f.fabric[k], 1.0);
        }
        self.volume_fraction = match (self.volume_fraction.take(), &f.volume_fraction) {
            (Some(mut sum), Some(phi)) => {
                sum.iter_mut().zip(phi).for_each(|(s, p)| *s += p);
                Some(sum)
            }
            _ => None,
        };
        Ok(())
    }

    /// The averaged fields; `None` before the first sample.
    pub fn mean(&self) -> Option<Fields> {
        if self.samples == 0 {
            return None;
        }
        let per = 1.0 / f64::from(self.samples);
        let scaled = |t: &Tensor, s: f64| t.map(|row| row.map(|x| s * x));
        let velocity: Vec<[f64; 3]> = (self.momentum.iter().zip(&self.density))
            .map(|(p, &rho)| match rho > 0.0 {
                true => p.map(|x| x / rho),
                false => [0.0; 3],
            })
            .collect();
        let kinetic_stress = (0..self.points.len())
            .map(|k| {
                let mut s = scaled(&self.kinetic_stress[k], per);
                let (c, v) = (&self.convection[k], velocity[k]);
                let rho = per * self.density[k];
                for (a, row) in s.iter_mut().enumerate() {
                    for (b, x) in row.iter_mut().enumerate() {
                        *x += per * c[a][b] - rho * v[a] * v[b];
                    }
                }
                s
            })
            .collect();
        Some(Fields {
            points: self.points.clone(),
            density: self.density.iter().map(|x| per * x).collect(),
            volume_fraction: (self.volume_fraction.as_ref())
                .map(|v| v.iter().map(|x| per * x).collect()),
            velocity,
            kinetic_stress,
            contact_stress: self.contact_stress.iter().map(|t| scaled(t, per)).collect(),
            fabric: self.fabric.iter().map(|t| scaled(t, per)).collect(),
        })
    }
}
