//! Insertion regions: grains added while a run goes, at a rate, with a size distribution,
//! placed without overlap.
//!
//! An [`Insertion`] adds dynamic spheres of one material and density inside a [`Region`] at a
//! [`Rate`] between its start and stop times. The grains are placed in batches, one every
//! [`Insertion::batch_steps`] steps: by default the time a grain released at the start velocity
//! takes to fall through the region's height plus one largest diameter under gravity, so that
//! each batch is one layer and the last one has left the region when the next is placed. Each
//! grain's radius is drawn from a [`SizeDistribution`] and its centre uniformly from the region
//! (so that the whole grain lies in it; a [`Region::Disk`]'s grains are centred on its plane);
//! a centre that overlaps a grain already in the world, one placed before it or a wall is drawn
//! again, up to [`PLACEMENT_TRIES`] times; a grain that still does not fit is not placed and is
//! counted as missed ([`InsertionCounters::missed`]): a region the heap has grown into feeds
//! less, and the program says so rather than stopping. A rate that can never be placed (a
//! region smaller than its grains, or more grains per batch than the region holds) is refused
//! when the world is built.
//!
//! Random numbers come from one [`SplitMix64`] per insertion, seeded by [`Insertion::seed`],
//! whose state goes into checkpoints: a run places the same grains on any thread count and
//! backend, and continues bit-identically from a checkpoint.
//!
//! # Shaped grains
//!
//! An insertion made with [`Insertion::shaped`] places copies of one template [`Body`] (a box,
//! an ellipsoid, a clump, a convex polyhedron, a capsule): each grain has the template's shape,
//! radius, mass, inertia and principal moments, at the template's fixed size (the size
//! distribution is fixed at the template's bounding radius), and an orientation drawn
//! uniformly over the rotations from the insertion's own random numbers, drawn again with the
//! centre on each try. The test against other grains is conservative, by bounding spheres: a
//! place is taken only where the new grain's bounding sphere clears every other body's (its
//! [`crate::Shape::bounding_radius`]); against walls it is the build's start check of the grain as
//! it lies (its corners, members or support point, `wall_depth::depth_in_wall`). The
//! grains' shapes and moments follow their ids to the backend, and checkpoints keep which
//! insertion placed each body ([`crate::LifecycleState::placed_by`]). A shape the world cannot
//! hold (on the GPU backend, beside bodies or walls the narrow phase does not meet it with) is
//! refused at build, naming the insertion.

use crate::body::{sphere_mass, Body, BodyKind};
use crate::error::{finite3, BuildError};
use crate::geometry::WallDesc;
use crate::material::MaterialId;
use glam::{DQuat, Quat, Vec3};
use grains_kernels::random::SplitMix64;
use grains_kernels::shapes::clump::ClumpTable;
use grains_kernels::shapes::polyhedron::Hull;
use std::f64::consts::PI;

/// Draws of a centre for one grain before it is counted as missed.
pub const PLACEMENT_TRIES: u32 = 50;

/// Volume fraction of a region that one batch may fill: below the jamming limit of random
/// sequential addition of equal spheres (0.38, the densest a placement by random tries
/// reaches), so that a batch that asks for no more than this fits in [`PLACEMENT_TRIES`] tries
/// per grain with room to spare.
pub const BATCH_FILL: f64 = 0.3;

/// Where grains are inserted; axes are the world's, with z up (against gravity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Region {
    /// An axis-aligned box from `min` to `max` (m); grains lie wholly inside it.
    Box {
        /// Lower corner (m).
        min: Vec3,
        /// Upper corner (m).
        max: Vec3,
    },
    /// A cylinder with a vertical (z) axis through `centre`; grains lie wholly inside it.
    Cylinder {
        /// Centre of the axis (m).
        centre: Vec3,
        /// Radius (m).
        radius: f32,
        /// Half its height (m).
        half_height: f32,
    },
    /// A horizontal disk at `centre`: grains are centred on its plane and lie within its radius.
    Disk {
        /// Centre (m).
        centre: Vec3,
        /// Radius (m).
        radius: f32,
    },
}

impl Region {
    /// Height (m) of the region grains may occupy (0 for a disk).
    fn height(&self) -> f32 {
        match *self {
            Region::Box { min, max } => max.z - min.z,
            Region::Cylinder { half_height, .. } => 2.0 * half_height,
            Region::Disk { .. } => 0.0,
        }
    }

    /// Volume (m³) a batch may fill; a disk's is its area times the diameter `d`.
    fn volume(&self, d: f64) -> f64 {
        match *self {
            Region::Box { min, max } => (max - min).as_dvec3().element_product(),
            Region::Cylinder {
                radius,
                half_height,
                ..
            } => PI * (radius as f64).powi(2) * 2.0 * half_height as f64,
            Region::Disk { radius, .. } => PI * (radius as f64).powi(2) * d,
        }
    }

    /// The largest radius of a grain that fits in the region.
    fn largest_grain(&self) -> f32 {
        match *self {
            Region::Box { min, max } => 0.5 * (max - min).min_element(),
            Region::Cylinder {
                radius,
                half_height,
                ..
            } => radius.min(half_height),
            Region::Disk { radius, .. } => radius,
        }
    }

    /// The centre and points on the region's boundary (corners, rim) that must all lie inside
    /// the domain the walls bound.
    pub(crate) fn outline(&self) -> Vec<Vec3> {
        let mut points = Vec::new();
        match *self {
            Region::Box { min, max } => {
                points.push(0.5 * (min + max));
                for k in 0..8 {
                    let pick = |bit: usize, lo: f32, hi: f32| if k & bit == 0 { lo } else { hi };
                    points.push(Vec3::new(
                        pick(1, min.x, max.x),
                        pick(2, min.y, max.y),
                        pick(4, min.z, max.z),
                    ));
                }
            }
            Region::Cylinder {
                centre,
                radius,
                half_height,
            } => {
                points.push(centre);
                for dz in [-half_height, half_height] {
                    points.extend(rim(centre + Vec3::Z * dz, radius));
                }
            }
            Region::Disk { centre, radius } => {
                points.push(centre);
                points.extend(rim(centre, radius));
            }
        }
        points
    }

    /// A centre drawn uniformly among those where a grain of radius `r` lies in the region.
    fn draw_centre(&self, r: f32, rng: &mut SplitMix64) -> Vec3 {
        let mut u = || rng.next_f64() as f32;
        match *self {
            Region::Box { min, max } => {
                let lo = min + Vec3::splat(r);
                let span = (max - min - Vec3::splat(2.0 * r)).max(Vec3::ZERO);
                lo + span * Vec3::new(u(), u(), u())
            }
            Region::Cylinder {
                centre,
                radius,
                half_height,
            } => {
                let (x, y) = in_circle(radius - r, &mut u);
                let z = (2.0 * u() - 1.0) * (half_height - r).max(0.0);
                centre + Vec3::new(x, y, z)
            }
            Region::Disk { centre, radius } => {
                let (x, y) = in_circle(radius - r, &mut u);
                centre + Vec3::new(x, y, 0.0)
            }
        }
    }

    /// Lower and upper corners of the region's bounding box (m).
    pub fn bounds(&self) -> (Vec3, Vec3) {
        match *self {
            Region::Box { min, max } => (min, max),
            Region::Cylinder {
                centre,
                radius,
                half_height,
            } => {
                let e = Vec3::new(radius, radius, half_height);
                (centre - e, centre + e)
            }
            Region::Disk { centre, radius } => {
                let e = Vec3::new(radius, radius, 0.0);
                (centre - e, centre + e)
            }
        }
    }

    /// The first problem with the region's extents.
    fn problem(&self) -> Option<String> {
        let fine = |x: f32| x.is_finite() && x > 0.0;
        match *self {
            Region::Box { min, max } => {
                if !(finite3(min.to_array()) && finite3(max.to_array())) {
                    Some(format!("box corners must be finite, got {min} and {max}"))
                } else if !(max - min).cmpgt(Vec3::ZERO).all() {
                    Some(format!(
                        "box max {max} must exceed min {min} along every axis"
                    ))
                } else {
                    None
                }
            }
            Region::Cylinder {
                centre,
                radius,
                half_height,
            } => (!(finite3(centre.to_array()) && fine(radius) && fine(half_height))).then(|| {
                format!("cylinder needs a finite centre and positive radius and half height, got {centre}, {radius}, {half_height}")
            }),
            Region::Disk { centre, radius } => (!(finite3(centre.to_array()) && fine(radius)))
                .then(|| {
                    format!("disk needs a finite centre and a positive radius, got {centre}, {radius}")
                }),
        }
    }
}

/// Eight points on the horizontal circle of radius `r` about `c`.
fn rim(c: Vec3, r: f32) -> impl Iterator<Item = Vec3> {
    (0..8).map(move |k| {
        let a = k as f32 * std::f32::consts::FRAC_PI_4;
        c + r * Vec3::new(a.cos(), a.sin(), 0.0)
    })
}

/// A point uniform in the disk of radius `r` (≥ 0) about the origin: r √u at angle 2π u'.
fn in_circle(r: f32, u: &mut impl FnMut() -> f32) -> (f32, f32) {
    let rho = r.max(0.0) * u().sqrt();
    let a = std::f32::consts::TAU * u();
    (rho * a.cos(), rho * a.sin())
}

/// How fast grains are added.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate {
    /// Grains per second.
    CountPerSecond(f64),
    /// Kilograms per second, turned into grains per second by the distribution's mean grain
    /// mass (so the mass fed fluctuates about it as the drawn sizes do).
    KgPerSecond(f64),
}

/// The law grain radii are drawn from (before truncation to [`SizeDistribution::min`],
/// [`SizeDistribution::max`]).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeLaw {
    /// Every grain this radius (m).
    Fixed(f32),
    /// Uniform between two radii (m).
    Uniform(f32, f32),
    /// Normal with a mean and standard deviation (m).
    Normal {
        /// Mean radius (m).
        mean: f32,
        /// Standard deviation (m).
        sd: f32,
    },
    /// Log-normal: ln r normal with mean ln `median` and standard deviation `sigma`.
    LogNormal {
        /// Median radius (m).
        median: f32,
        /// Standard deviation of ln r.
        sigma: f32,
    },
    /// Radii with the fraction of grains (by number) of each; the fractions are normalised.
    Table(Vec<(f32, f32)>),
}

/// Grain radii: a [`SizeLaw`] truncated to [min, max] (a radius drawn outside is drawn again).
#[derive(Clone, Debug, PartialEq)]
pub struct SizeDistribution {
    /// The law.
    pub law: SizeLaw,
    /// Smallest radius (m).
    pub min: f32,
    /// Largest radius (m).
    pub max: f32,
}

/// Radius draws before a truncated law gives up and takes the nearest bound (the build refuses
/// laws with less than [`MIN_KEPT`] of their probability in [min, max], so this is reached with
/// probability below 0.99^64 ≈ 0.5).
const RADIUS_TRIES: u32 = 64;

/// The least probability a law may keep in its truncation interval.
const MIN_KEPT: f64 = 0.01;

/// Steps of the quadrature of the laws' densities.
const QUADRATURE: usize = 4096;

impl SizeDistribution {
    /// Every grain of radius `r`.
    pub fn fixed(r: f32) -> Self {
        Self::truncated(SizeLaw::Fixed(r), r, r)
    }

    /// Uniform between `a` and `b`.
    pub fn uniform(a: f32, b: f32) -> Self {
        Self::truncated(SizeLaw::Uniform(a, b), a, b)
    }

    /// Normal, truncated to mean ± 3 sd (and above 0).
    pub fn normal(mean: f32, sd: f32) -> Self {
        let lo = (mean - 3.0 * sd).max(0.01 * mean);
        Self::truncated(SizeLaw::Normal { mean, sd }, lo, mean + 3.0 * sd)
    }

    /// Log-normal, truncated to median · e^(±3σ).
    pub fn lognormal(median: f32, sigma: f32) -> Self {
        Self::truncated(
            SizeLaw::LogNormal { median, sigma },
            median * (-3.0 * sigma).exp(),
            median * (3.0 * sigma).exp(),
        )
    }

    /// A table of radii and number fractions, truncated to its smallest and largest radius.
    pub fn table(entries: Vec<(f32, f32)>) -> Self {
        let lo = entries.iter().map(|e| e.0).fold(f32::INFINITY, f32::min);
        let hi = entries
            .iter()
            .map(|e| e.0)
            .fold(f32::NEG_INFINITY, f32::max);
        Self::truncated(SizeLaw::Table(entries), lo, hi)
    }

    /// `law` truncated to [min, max].
    pub fn truncated(law: SizeLaw, min: f32, max: f32) -> Self {
        SizeDistribution { law, min, max }
    }

    /// The first problem with the parameters: (field, problem).
    fn problem(&self) -> Option<(&'static str, String)> {
        let fine = |x: f32| x.is_finite() && x > 0.0;
        let bad = |p: String| Some(("radius", p));
        match &self.law {
            SizeLaw::Fixed(r) if !fine(*r) => return bad(format!("must be positive, got {r}")),
            SizeLaw::Uniform(a, b) if !(fine(*a) && fine(*b) && a < b) => {
                return bad(format!(
                    "uniform bounds must be positive with a < b, got [{a}, {b}]"
                ))
            }
            SizeLaw::Normal { mean, sd } if !(fine(*mean) && fine(*sd)) => {
                return bad(format!(
                    "normal mean and sd must be positive, got [{mean}, {sd}]"
                ))
            }
            SizeLaw::LogNormal { median, sigma } if !(fine(*median) && fine(*sigma)) => {
                return bad(format!(
                    "lognormal median and sigma must be positive, got [{median}, {sigma}]"
                ))
            }
            SizeLaw::Table(t) if t.is_empty() => return bad("table has no entry".into()),
            SizeLaw::Table(t) => {
                if let Some((r, f)) = t
                    .iter()
                    .find(|(r, f)| !(fine(*r) && f.is_finite() && *f >= 0.0))
                {
                    return bad(format!(
                        "table entry [{r}, {f}] needs a positive radius and a fraction ≥ 0"
                    ));
                }
                if t.iter().all(|e| e.1 == 0.0) {
                    return bad("table fractions are all 0".into());
                }
            }
            _ => {}
        }
        if !(fine(self.min) && fine(self.max) && self.min <= self.max) {
            return Some((
                "min",
                format!(
                    "and max must be positive with min ≤ max, got {} and {}",
                    self.min, self.max
                ),
            ));
        }
        let kept = self.moments().0;
        if kept < MIN_KEPT {
            return bad(format!(
                "keeps only {:.2e} of its probability in [{}, {}] (at least {MIN_KEPT} needed)",
                kept, self.min, self.max
            ));
        }
        None
    }

    /// The probability the law keeps in [min, max], and the truncated law's mean r³ (m³).
    fn moments(&self) -> (f64, f64) {
        let (lo, hi) = (self.min as f64, self.max as f64);
        let inside = |r: f64| r >= lo && r <= hi;
        let discrete = |t: &[(f64, f64)]| {
            let total: f64 = t.iter().map(|e| e.1).sum();
            let kept: f64 = t.iter().filter(|e| inside(e.0)).map(|e| e.1).sum();
            let r3: f64 = t
                .iter()
                .filter(|e| inside(e.0))
                .map(|e| e.1 * e.0.powi(3))
                .sum();
            let r3 = r3 / kept.max(f64::MIN_POSITIVE);
            (kept / total, r3)
        };
        let density: &dyn Fn(f64) -> f64 = match &self.law {
            SizeLaw::Fixed(r) => return discrete(&[(*r as f64, 1.0)]),
            SizeLaw::Table(t) => {
                let t: Vec<(f64, f64)> = t.iter().map(|&(r, f)| (r as f64, f as f64)).collect();
                return discrete(&t);
            }
            &SizeLaw::Uniform(a, b) => &move |r: f64| {
                if r >= a as f64 && r <= b as f64 {
                    1.0 / (b - a) as f64
                } else {
                    0.0
                }
            },
            &SizeLaw::Normal { mean, sd } => &move |r: f64| {
                let z = (r - mean as f64) / sd as f64;
                (-0.5 * z * z).exp() / (sd as f64 * (2.0 * PI).sqrt())
            },
            &SizeLaw::LogNormal { median, sigma } => &move |r: f64| {
                let z = (r / median as f64).ln() / sigma as f64;
                (-0.5 * z * z).exp() / (r * sigma as f64 * (2.0 * PI).sqrt())
            },
        };
        if hi == lo {
            return (if density(lo) > 0.0 { 1.0 } else { 0.0 }, lo.powi(3));
        }
        let dr = (hi - lo) / QUADRATURE as f64;
        let (mut kept, mut r3) = (0.0, 0.0);
        for k in 0..QUADRATURE {
            let r = lo + (k as f64 + 0.5) * dr;
            let p = density(r) * dr;
            kept += p;
            r3 += p * r.powi(3);
        }
        (kept.min(1.0), r3 / kept.max(f64::MIN_POSITIVE))
    }

    /// One radius: the law's draws until one lies in [min, max] (at most [`RADIUS_TRIES`],
    /// then the last clamped).
    fn draw(&self, rng: &mut SplitMix64) -> f32 {
        let mut r = self.min;
        for _ in 0..RADIUS_TRIES {
            r = match &self.law {
                SizeLaw::Fixed(r) => *r,
                SizeLaw::Uniform(a, b) => a + (b - a) * rng.next_f64() as f32,
                SizeLaw::Normal { mean, sd } => mean + sd * standard_normal(rng),
                SizeLaw::LogNormal { median, sigma } => {
                    median * (sigma * standard_normal(rng)).exp()
                }
                SizeLaw::Table(t) => {
                    let total: f32 = t.iter().map(|e| e.1).sum();
                    let mut u = rng.next_f64() as f32 * total;
                    let mut pick = t[t.len() - 1].0;
                    for &(r, f) in t {
                        if u < f {
                            pick = r;
                            break;
                        }
                        u -= f;
                    }
                    pick
                }
            };
            if r >= self.min && r <= self.max {
                return r;
            }
        }
        r.clamp(self.min, self.max)
    }
}

/// A standard normal number by the Box–Muller transform of two uniform draws.
fn standard_normal(rng: &mut SplitMix64) -> f32 {
    let u1 = 1.0 - rng.next_f64(); // in (0, 1]
    let u2 = rng.next_f64();
    ((-2.0 * u1.ln()).sqrt() * (2.0 * PI * u2).cos()) as f32
}

/// A source of grains: where, how fast, how large, of what, moving how, from when to when.
#[derive(Clone, PartialEq)]
pub struct Insertion {
    /// Where grains are placed.
    pub region: Region,
    /// How fast.
    pub rate: Rate,
    /// Their radii.
    pub sizes: SizeDistribution,
    /// Their material.
    pub material: MaterialId,
    /// Their density (kg/m³).
    pub density: f32,
    /// Their velocity when placed (m/s).
    pub velocity: Vec3,
    /// Time the feed starts (s).
    pub start: f64,
    /// Time the feed stops (s; infinite: never).
    pub stop: f64,
    /// Seed of the insertion's random numbers.
    pub seed: u64,
    /// Steps between batches; `None`: one layer per batch (see the module's documentation).
    pub batch_steps: Option<u64>,
    /// The grain every placement copies, turned at random ([`Insertion::shaped`]): its shape,
    /// radius, mass, inertia and principal moments (its position, orientation, velocities,
    /// material and kind are not used); `None`: solid spheres of radii `sizes` and density
    /// `density`.
    pub template: Option<Body>,
}

/// As derived, with `template` listed only when set: the physics fingerprint names an
/// insertion by this text, so that sphere feeds keep the fingerprint they had before shaped
/// grains came.
impl std::fmt::Debug for Insertion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Insertion");
        d.field("region", &self.region)
            .field("rate", &self.rate)
            .field("sizes", &self.sizes)
            .field("material", &self.material)
            .field("density", &self.density)
            .field("velocity", &self.velocity)
            .field("start", &self.start)
            .field("stop", &self.stop)
            .field("seed", &self.seed)
            .field("batch_steps", &self.batch_steps);
        if let Some(t) = &self.template {
            d.field("template", t);
        }
        d.finish()
    }
}

impl Insertion {
    /// A feed into `region` at `rate` of grains of radii `sizes` and density `density`, of
    /// material 0, at rest, from t = 0 on, seed 0, one layer per batch.
    pub fn new(region: Region, rate: Rate, sizes: SizeDistribution, density: f32) -> Self {
        Insertion {
            region,
            rate,
            sizes,
            material: MaterialId(0),
            density,
            velocity: Vec3::ZERO,
            start: 0.0,
            stop: f64::INFINITY,
            seed: 0,
            batch_steps: None,
            template: None,
        }
    }

    /// A feed into `region` at `rate` of copies of `template` (see the module's notes on
    /// shaped grains), of material 0, at rest, from t = 0 on, seed 0, one layer per batch.
    /// The sizes are fixed at the template's bounding radius R (the region, the batches and
    /// the placement test read it) and the density is its mass over the bounding sphere's
    /// volume, m / (4/3 π R³), so that the figures of a sphere feed read the same for it; the
    /// grains weigh the template's mass.
    pub fn shaped(region: Region, rate: Rate, template: Body) -> Self {
        let bound = template.shape.bounding_radius(template.radius);
        Insertion {
            template: Some(template),
            ..Insertion::new(
                region,
                rate,
                SizeDistribution::fixed(bound),
                template.mass / sphere_mass(bound, 1.0),
            )
        }
    }

    /// The smallest radius of a grain placed (the template's for shaped grains).
    pub(crate) fn smallest_radius(&self) -> f32 {
        self.template.map_or(self.sizes.min, |t| t.radius)
    }

    /// Mean mass of a grain (kg): ρ 4/3 π E[r³] of the truncated law, or the template's.
    fn mean_grain_mass(&self) -> f64 {
        match &self.template {
            Some(t) => t.mass as f64,
            None => self.density as f64 * 4.0 / 3.0 * PI * self.sizes.moments().1,
        }
    }

    /// Grains per second.
    pub(crate) fn count_rate(&self) -> f64 {
        match self.rate {
            Rate::CountPerSecond(n) => n,
            Rate::KgPerSecond(kg) => kg / self.mean_grain_mass(),
        }
    }

    /// Grains due by time `t` since the start: ⌊rate · (min(t, stop) − start)⌋.
    pub(crate) fn due(&self, t: f64) -> u64 {
        let active = t.min(self.stop) - self.start;
        if active <= 0.0 {
            0
        } else {
            (self.count_rate() * active).floor() as u64
        }
    }

    /// Checks the insertion (index `i`) against the world's `materials` and settings (step `h`,
    /// `gravity`) and returns its batch interval in steps.
    pub(crate) fn check(
        &self,
        i: usize,
        materials: usize,
        h: f32,
        gravity: Vec3,
        walls: &[WallDesc],
    ) -> Result<u64, BuildError> {
        let err = |field: &'static str, problem: String| BuildError::Insert {
            insert: i,
            field,
            problem,
        };
        if let Some(p) = self.region.problem() {
            return Err(err("region", p));
        }
        let rate = match self.rate {
            Rate::CountPerSecond(x) | Rate::KgPerSecond(x) => x,
        };
        if !(rate.is_finite() && rate > 0.0) {
            return Err(err(
                "rate",
                format!("must be positive and finite, got {rate}"),
            ));
        }
        if let Some((field, p)) = self.sizes.problem() {
            return Err(err(field, p));
        }
        if let Some(t) = &self.template {
            let bound = t.shape.bounding_radius(t.radius);
            if self.sizes != SizeDistribution::fixed(bound) {
                return Err(err(
                    "radius",
                    format!("of a shaped insertion's grains is the template's: the sizes must be fixed at its bounding radius {bound} m (Insertion::shaped sets them)"),
                ));
            }
        }
        if !(self.density.is_finite() && self.density > 0.0) {
            return Err(err(
                "density",
                format!("must be positive and finite, got {}", self.density),
            ));
        }
        if self.material.0 as usize >= materials {
            return Err(err(
                "material",
                format!(
                    "is {} but only {materials} materials exist",
                    self.material.0
                ),
            ));
        }
        if !finite3(self.velocity.to_array()) {
            return Err(err(
                "velocity",
                format!("must be finite, got {}", self.velocity),
            ));
        }
        if !(self.start.is_finite() && self.start >= 0.0 && self.stop > self.start) {
            return Err(err(
                "start",
                format!(
                    "must be ≥ 0 and below stop, got start {} and stop {}",
                    self.start, self.stop
                ),
            ));
        }
        if let Some(p) = outside_domain(&self.region, walls) {
            return Err(err("region", p));
        }
        let r_max = self.sizes.max;
        if r_max > self.region.largest_grain() {
            return Err(err(
                "region",
                format!(
                    "is too small for its grains: the largest radius {r_max} m does not fit in it (at most {} m)",
                    self.region.largest_grain()
                ),
            ));
        }
        let steps = match self.batch_steps {
            Some(0) => return Err(err("batch_steps", "must be at least 1".into())),
            Some(k) => k,
            None => self.layer_steps(h, gravity).ok_or_else(|| {
                err(
                    "velocity",
                    "is 0 and gravity does not pull grains out of the region: they would never leave it (give a start velocity or batch_steps)".into(),
                )
            })?,
        };
        let per_batch = self.count_rate() * steps as f64 * h as f64;
        let d_mean = 2.0 * self.sizes.moments().1.cbrt();
        let holds =
            BATCH_FILL * self.region.volume(d_mean) / (4.0 / 3.0 * PI * self.sizes.moments().1);
        if per_batch > holds.max(1.0) {
            return Err(err(
                "rate",
                format!(
                    "cannot be placed: it needs {per_batch:.1} grains every {steps} steps but the region holds at most {:.1} ({} % of its volume); enlarge the region, raise the start speed or lower the rate",
                    holds,
                    100.0 * BATCH_FILL
                ),
            ));
        }
        Ok(steps)
    }

    /// Steps for a grain released at the start velocity to fall the region's height plus its
    /// largest diameter under gravity: d = u T + ½ g T², u and g the downward speed and
    /// gravity; `None` when neither moves it down.
    fn layer_steps(&self, h: f32, gravity: Vec3) -> Option<u64> {
        let d = (self.region.height() + 2.0 * self.sizes.max) as f64;
        let u = (-self.velocity.z).max(0.0) as f64;
        let g = (-gravity.z).max(0.0) as f64;
        let t = if g > 0.0 {
            (-u + (u * u + 2.0 * g * d).sqrt()) / g
        } else if u > 0.0 {
            d / u
        } else {
            return None;
        };
        Some(((t / h as f64).ceil() as u64).max(1))
    }

    /// Draws one grain and a place for it clear of `nearby` (bodies as centre and bounding
    /// radius) and `walls` (placed at the current time; a shaped grain's clump members and
    /// hull vertices from `tables`); `None` when [`PLACEMENT_TRIES`] draws all overlap.
    pub(crate) fn draw_grain(
        &self,
        rng: &mut SplitMix64,
        nearby: &[(Vec3, f32)],
        walls: &[WallDesc],
        tables: (&ClumpTable, &[Hull]),
    ) -> Option<Body> {
        // A shaped grain's bounding radius: its sizes are fixed at it.
        let r = self.sizes.draw(rng);
        for _ in 0..PLACEMENT_TRIES {
            let p = self.region.draw_centre(r, rng);
            let clear = nearby.iter().all(|&(q, rq)| p.distance(q) >= r + rq);
            let body = match &self.template {
                None => Body::sphere(p, r, sphere_mass(r, self.density))
                    .with_material(self.material)
                    .with_velocity(self.velocity),
                Some(t) => self.copy_of(t, p, uniform_rotation(rng)),
            };
            if clear
                && walls
                    .iter()
                    .all(|w| crate::wall_depth::depth_in_wall(&body, w, tables) <= 0.0)
            {
                return Some(body);
            }
        }
        None
    }

    /// A grain of template `t` at `p`, turned by `q` from the template's orientation: the
    /// template's shape, radius, mass, inertia and principal moments, dynamic, of the
    /// insertion's material, at its start velocity, not spinning.
    #[doc(hidden)] // pub for the unit tests (tests/unit/)
    pub fn copy_of(&self, t: &Body, p: Vec3, q: Quat) -> Body {
        Body {
            position: p,
            orientation: (q * t.orientation).normalize(),
            angular_velocity: Vec3::ZERO,
            kind: BodyKind::Dynamic,
            prescribed: None,
            ..*t
        }
        .with_material(self.material)
        .with_velocity(self.velocity)
    }

    /// The bounding box of the region grown by the largest (bounding) radius: bodies whose
    /// bounding spheres lie outside it cannot overlap a new grain.
    pub(crate) fn reach(&self) -> (Vec3, Vec3) {
        let (lo, hi) = self.region.bounds();
        let r = Vec3::splat(self.sizes.max);
        (lo - r, hi + r)
    }
}

/// A rotation drawn uniformly over all rotations from three uniform numbers (Shoemake's
/// method: the unit quaternion (√(1−u₁) sin 2πu₂, √(1−u₁) cos 2πu₂, √u₁ sin 2πu₃, √u₁ cos 2πu₃)
/// is uniform on the 3-sphere), in f64 and normalised in f32.
fn uniform_rotation(rng: &mut SplitMix64) -> Quat {
    let (u1, u2, u3) = (rng.next_f64(), rng.next_f64(), rng.next_f64());
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let (t2, t3) = (2.0 * PI * u2, 2.0 * PI * u3);
    DQuat::from_xyzw(a * t2.sin(), a * t2.cos(), b * t3.sin(), b * t3.cos())
        .as_quat()
        .normalize()
}

/// Why `region` is not inside the domain the walls bound, if it is not: a point of its outline
/// behind a plane, behind a rectangle or disk whose face it lies over (outside a box
/// container), or outside a cylinder or cone that holds grains inside, within its length.
fn outside_domain(region: &Region, walls: &[WallDesc]) -> Option<String> {
    for p in region.outline() {
        for (w, wall) in walls.iter().enumerate() {
            if behind_wall(p, wall) {
                return Some(format!(
                    "is outside the domain: its point {p} lies behind wall {w}"
                ));
            }
        }
    }
    None
}

/// True when the point `p` is on the solid side of `wall` at rest, however far: behind a plane;
/// behind a rectangle's or disk's face within its outline; beyond a cylinder's or cone's mantle
/// (outside it when it holds grains inside, inside it when outside) within its length.
fn behind_wall(p: Vec3, wall: &WallDesc) -> bool {
    let placed = wall.placed(
        wall.motion.map_or(Vec3::ZERO, |m| m.displacement(0.0)),
        Vec3::ZERO,
    );
    let (rel, e) = (p - placed.o(), placed.n());
    if placed.cylinder_radius() != 0.0 {
        let s = rel.dot(e);
        let rho = (rel - s * e).length();
        let radius = placed.cylinder_radius().abs() + placed.slope() * s;
        let inside = placed.cylinder_radius() > 0.0;
        return s.abs() <= placed.u[3] && if inside { rho > radius } else { rho < radius };
    }
    rel.dot(e) < 0.0 && (wall.is_plane() || placed.covers(p))
}

/// The running counts of an insertion, saved in checkpoints.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InsertionCounters {
    /// State of the insertion's random numbers.
    pub rng: u64,
    /// Grains placed.
    pub placed: u64,
    /// Grains due that found no place (see the module's documentation).
    pub missed: u64,
    /// Mass placed (kg).
    pub mass: f64,
}
