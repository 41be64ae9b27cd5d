//! The library's own unit tests, run in this binary so that the library is not compiled a
//! second time for them (`[lib] test = false` in Cargo.toml): one module per source file,
//! named after its path (`shapes_ellipsoid` for `src/shapes/ellipsoid.rs`).

mod broad_phase;
mod colouring;
mod contact_update;
mod gauss_seidel;
mod geometric_dense;
mod geometric_semismooth;
mod geometric_surface;
mod inertia;
mod isa;
mod jacobi;
mod large_cells;
mod mesh;
mod narrow_phase;
mod packing;
mod pair_algorithms_ellipsoid_frustum;
mod pair_algorithms_ellipsoid_triangle;
mod pair_algorithms_polytope_triangle;
mod pair_algorithms_round;
mod pairs;
mod parallel;
mod periodic;
mod shapes_capsule;
mod shapes_clump;
mod shapes_cuboid;
mod shapes_ellipse;
mod shapes_ellipsoid;
mod space_order;
mod step;
mod traffic;
mod wall_contact;
mod warm_start;

use glam::Vec3;
use grains_kernels::shapes::ellipsoid::PlacedEllipsoid;

/// Points of an ellipsoid's surface, for the tests that check a contact against the surface
/// itself.
pub(crate) trait SurfaceSamples {
    /// About 320,000 points of the surface in world coordinates (polar angle θ in 400 steps,
    /// azimuth φ in 800).
    fn surface_samples(&self) -> impl Iterator<Item = Vec3> + '_;
}

impl SurfaceSamples for PlacedEllipsoid {
    fn surface_samples(&self) -> impl Iterator<Item = Vec3> + '_ {
        let pi = std::f32::consts::PI;
        (0..=400)
            .flat_map(move |i| {
                (0..800).map(move |j| (pi * i as f32 / 400.0, pi * j as f32 / 400.0))
            })
            .map(move |(t, p)| {
                let local =
                    self.semi_axes * Vec3::new(t.sin() * p.cos(), t.sin() * p.sin(), t.cos());
                self.centre + self.q * local
            })
    }
}
