//! A cubic lattice of centres, x fastest, then y, then z, with an optional seeded jitter in x
//! and y (the scene files' `lattice` generator).

use super::{finite, positive, FillError};
use glam::Vec3;
use grains_kernels::random::SplitMix64;

/// Sites `origin + spacing (i, j, k)` for i < nx, j < ny, k < nz, filled x fastest, then y,
/// then z; in planar mode in the plane y = 0 (ny = 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lattice {
    /// The first site (m); y = 0 in planar mode.
    pub origin: Vec3,
    /// Distance between neighbouring sites (m).
    pub spacing: f32,
    /// Sites along x, y and z, each at least 1 (ny = 1 in planar mode).
    pub counts: [usize; 3],
    /// Stop after this many sites (fewer than nx·ny·nz); `None`: every site.
    pub count: Option<usize>,
    /// Each site moves by up to `jitter` × r in x and in y, uniformly at random (a fraction of
    /// the radius r passed to [`Lattice::centres`]; at most spacing / (2 r), so each body stays
    /// in its own cell); 0: no jitter.
    pub jitter: f32,
    /// Seed of the jitter's random numbers (SplitMix64).
    pub seed: u64,
    /// Planar mode: the sites lie in the plane y = 0 and are not jittered in y.
    pub planar: bool,
}

impl Lattice {
    /// The `counts` = [nx, ny, nz] sites `spacing` apart from `origin`, every site, no jitter
    /// (seed 1, the scene files' default), 3-D.
    pub fn new(origin: Vec3, spacing: f32, counts: [usize; 3]) -> Self {
        Lattice {
            origin,
            spacing,
            counts,
            count: None,
            jitter: 0.0,
            seed: 1,
            planar: false,
        }
    }

    /// This lattice stopped after `n` sites.
    pub fn with_count(self, n: usize) -> Self {
        Lattice {
            count: Some(n),
            ..self
        }
    }

    /// This lattice with its sites moved by up to `jitter` × r in x and y, drawn from `seed`.
    pub fn with_jitter(self, jitter: f32, seed: u64) -> Self {
        Lattice {
            jitter,
            seed,
            ..self
        }
    }

    /// This lattice in planar mode (the plane y = 0).
    pub fn planar(self) -> Self {
        Lattice {
            planar: true,
            ..self
        }
    }

    /// The sites of the full lattice, nx·ny·nz (saturating).
    pub fn sites(&self) -> usize {
        let [nx, ny, nz] = self.counts;
        nx.saturating_mul(ny).saturating_mul(nz)
    }

    /// The centres it gives: [`Lattice::count`] or every site.
    pub fn len(&self) -> usize {
        self.count.unwrap_or(self.sites())
    }

    /// True when it gives no centre (never, once checked).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The error naming the first parameter out of range for bodies of radius `radius`.
    pub fn check(&self, radius: f32) -> Result<(), FillError> {
        finite("origin", self.origin)?;
        if self.planar && self.origin.y != 0.0 {
            return Err(FillError::new(
                "origin",
                format!(
                    "y = {} has no effect in planar mode (the lattice lies in the plane y = 0): give 0",
                    self.origin.y
                ),
            ));
        }
        positive("spacing", self.spacing)?;
        positive("radius", radius)?;
        let [nx, ny, nz] = self.counts;
        if nx < 1 || ny < 1 || nz < 1 || (self.planar && ny != 1) {
            return Err(FillError::new(
                "counts",
                format!(
                    "must be ≥ 1 each (y count 1 in planar mode), got {:?}",
                    self.counts
                ),
            ));
        }
        let sites = self.sites();
        match self.count {
            Some(0) => return Err(FillError::new("count", "must be at least 1, got 0")),
            Some(n) if n >= sites => {
                return Err(FillError::new(
                    "count",
                    format!(
                        "is {n} but the lattice has {sites} sites ({nx} × {ny} × {nz}): `count` stops the filling early and has no effect here; lower it or remove it"
                    ),
                ))
            }
            _ => {}
        }
        let d = self.spacing as f64;
        let jitter = self.jitter as f64;
        // A site moves at most half the spacing: each grain stays in its own cell.
        let most = d / (2.0 * radius as f64);
        if jitter.is_nan() || jitter < 0.0 {
            return Err(FillError::new(
                "jitter",
                format!("must be at least 0, got {jitter}"),
            ));
        }
        if jitter > most {
            return Err(FillError::new(
                "jitter",
                format!(
                    "must be at most spacing / (2 r) = {most:.4} (a site moves at most jitter × r in x and y, and at most half the spacing keeps each grain in its own cell), got {jitter}"
                ),
            ));
        }
        Ok(())
    }

    /// The centres for bodies of radius `radius` (which scales the jitter), in fill order;
    /// the error of [`Lattice::check`] if a parameter is out of range.
    pub fn centres(&self, radius: f32) -> Result<Vec<Vec3>, FillError> {
        self.check(radius)?;
        let [nx, ny, _] = self.counts;
        let (o, d, r) = (self.origin, self.spacing as f64, radius as f64);
        let jitter = self.jitter as f64;
        let mut rng = SplitMix64(self.seed);
        Ok((0..self.len())
            .map(|idx| {
                let (i, j, k) = (idx % nx, (idx / nx) % ny, idx / (nx * ny));
                let (mut jx, mut jy) = (0.0, 0.0);
                if jitter > 0.0 {
                    jx = jitter * r * (2.0 * rng.next_f64() - 1.0);
                    jy = jitter * r * (2.0 * rng.next_f64() - 1.0);
                }
                Vec3::new(
                    (o.x as f64 + d * i as f64 + jx) as f32,
                    if self.planar {
                        0.0
                    } else {
                        (o.y as f64 + d * j as f64 + jy) as f32
                    },
                    (o.z as f64 + d * k as f64) as f32,
                )
            })
            .collect())
    }
}
