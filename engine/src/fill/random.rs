//! Random sequential placement: centres drawn uniformly in a region, each kept where its body
//! overlaps neither the bodies placed before it nor those given (the scene files'
//! `random_fill` generator).

use super::{finite, positive, FillError, FillRegion};
use glam::Vec3;
use grains_kernels::random::SplitMix64;
use std::collections::HashMap;

/// Bodies of radii uniform in [`RandomFill::radius`, `RandomFill::radius_max`] placed at random
/// in a region, none overlapping another by their bounding spheres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandomFill {
    /// Where the centres go.
    pub region: FillRegion,
    /// The smallest radius (m), the only one when `radius_max` equals it.
    pub radius: f32,
    /// The largest radius (m), at least `radius`.
    pub radius_max: f32,
    /// Seed of the random numbers (SplitMix64; the scene files' default is 1).
    pub seed: u64,
    /// Planar mode: centres in the plane y = 0 (a box region only).
    pub planar: bool,
}

impl RandomFill {
    /// Bodies of radius `radius` in `region`, seed 1, 3-D.
    pub fn new(region: FillRegion, radius: f32) -> Self {
        RandomFill {
            region,
            radius,
            radius_max: radius,
            seed: 1,
            planar: false,
        }
    }

    /// This fill with radii uniform in [radius, `radius_max`].
    pub fn with_radius_max(self, radius_max: f32) -> Self {
        RandomFill { radius_max, ..self }
    }

    /// This fill drawn from `seed`.
    pub fn with_seed(self, seed: u64) -> Self {
        RandomFill { seed, ..self }
    }

    /// This fill in planar mode (the plane y = 0).
    pub fn planar(self) -> Self {
        RandomFill {
            planar: true,
            ..self
        }
    }

    /// The error naming the first parameter out of range.
    pub fn check(&self) -> Result<(), FillError> {
        positive("radius", self.radius)?;
        if !self.radius_max.is_finite() || self.radius_max < self.radius {
            return Err(FillError::new("radius_max", "must be ≥ radius"));
        }
        match self.region {
            FillRegion::Box { min, max } => {
                finite("region_min", min)?;
                finite("region_max", max)?;
                if self.planar {
                    for (key, p) in [("region_min", min), ("region_max", max)] {
                        if p.y != 0.0 {
                            return Err(FillError::new(
                                key,
                                format!("y = {} has no effect in planar mode (the bodies are placed in the plane y = 0): give 0", p.y),
                            ));
                        }
                    }
                }
                if max.x <= min.x || max.z <= min.z || (!self.planar && max.y <= min.y) {
                    return Err(FillError::new(
                        "region_max",
                        "must exceed region_min in every axis",
                    ));
                }
            }
            FillRegion::Frustum { .. } if self.planar => {
                return Err(FillError::new(
                    "region",
                    "a cylinder or cone region needs 3-D: in planar mode give region_min and region_max",
                ))
            }
            FillRegion::Frustum { .. } => {}
        }
        Ok(())
    }

    /// How many bodies of the mean radius fill the region at packing fraction `phi` (of its
    /// volume; of its area in planar mode), at most 0.6, which random placement can reach.
    pub fn count_for(&self, phi: f64) -> Result<usize, FillError> {
        self.check()?;
        if phi.is_nan() || phi <= 0.0 {
            return Err(FillError::new(
                "packing_fraction",
                format!("must be above 0, got {phi}"),
            ));
        }
        if phi > 0.6 {
            return Err(FillError::new(
                "packing_fraction",
                format!("at most 0.6 can be reached by random placement, got {phi}"),
            ));
        }
        let rm = 0.5 * (self.radius + self.radius_max) as f64;
        Ok(self.region.bodies_at(phi, rm, self.planar))
    }

    /// Places `count` bodies: for each its centre and radius, in the order placed. A body of
    /// radius r counts as a sphere of radius `bounding(r)` (the radius itself for spheres and
    /// disks; a shaped body's bounding sphere) and goes where that sphere overlaps none of
    /// those placed before it nor any sphere (centre, radius) of `existing`. The error names
    /// `count` when fewer fit (after 2000 + 200 × count rejected draws), or the parameter out
    /// of range.
    pub fn place(
        &self,
        count: usize,
        bounding: impl Fn(f32) -> f32,
        existing: impl IntoIterator<Item = (Vec3, f32)>,
    ) -> Result<Vec<(Vec3, f32)>, FillError> {
        self.check()?;
        let placed = self.sequential(count, bounding, existing);
        if placed.len() < count {
            return Err(FillError::new(
                "count",
                format!("only {} of {count} bodies fit in the region without overlap; enlarge the region or ask for fewer", placed.len()),
            ));
        }
        Ok(placed)
    }

    /// Random sequential placement of up to `target` bodies with radii uniform in [r0, r1],
    /// centres in the region's bounds (y = 0 in planar mode) where the region holds their
    /// bounding spheres (radius `bound(r)`), which overlap neither each other nor `existing`.
    fn sequential(
        &self,
        target: usize,
        bound: impl Fn(f32) -> f32,
        existing: impl IntoIterator<Item = (Vec3, f32)>,
    ) -> Vec<(Vec3, f32)> {
        let (r0, r1, planar) = (self.radius, self.radius_max, self.planar);
        let (lo, hi) = self.region.bounds();
        let rng = &mut SplitMix64(self.seed);
        // Cells of 2 bound(r1) hold every body no larger than the new ones, so a new body can
        // only touch those in the 27 cells around it; the few larger bodies (a Brazil nut) are
        // checked one by one rather than making every cell as large as they are.
        let cell = 2.0 * bound(r1);
        let mut grid: HashMap<(i32, i32, i32), Vec<(Vec3, f32)>> = HashMap::new();
        let key = |p: Vec3| {
            (
                (p.x / cell).floor() as i32,
                (p.y / cell).floor() as i32,
                (p.z / cell).floor() as i32,
            )
        };
        let mut large = Vec::new();
        for (position, rb) in existing {
            if rb > bound(r1) {
                large.push((position, rb));
            } else {
                grid.entry(key(position)).or_default().push((position, rb));
            }
        }
        let mut placed = Vec::with_capacity(target);
        let mut failures = 0usize;
        let max_failures = 2000 + 200 * target;
        while placed.len() < target && failures < max_failures {
            let u = |rng: &mut SplitMix64, a: f32, b: f32| a + (b - a) * rng.next_f64() as f32;
            let r = if r1 > r0 { u(rng, r0, r1) } else { r0 };
            let p = Vec3::new(
                u(rng, lo.x, hi.x),
                if planar { 0.0 } else { u(rng, lo.y, hi.y) },
                u(rng, lo.z, hi.z),
            );
            let (k, rp) = (key(p), bound(r));
            if !self.region.holds(p, rp) {
                failures += 1;
                continue;
            }
            let mut free = large.iter().all(|(q, rq)| (p - *q).length() >= rp + rq);
            'scan: for dz in -1..=1 {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        if let Some(v) = grid.get(&(k.0 + dx, k.1 + dy, k.2 + dz)) {
                            if v.iter().any(|(q, rq)| (p - *q).length() < rp + rq) {
                                free = false;
                                break 'scan;
                            }
                        }
                    }
                }
            }
            if free {
                grid.entry(k).or_default().push((p, rp));
                placed.push((p, r));
            } else {
                failures += 1;
            }
        }
        placed
    }
}
