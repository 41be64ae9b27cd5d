//! Building small scenes for the stage tests: spheres, planes, one material, a step's settings.

use glam::{Quat, Vec3};
use grains_kernels::broad_phase::{Envelope, Grid};
use grains_kernels::mesh::MeshWalls;
use grains_kernels::narrow_phase::{find_contacts, Contacts};
use grains_kernels::{Bodies, BodyKind, FrictionTable, Motion, SolverKind, StepParams, Wall};

/// Adds a dynamic sphere of `mass` (kg) at rest, with the inertia 2/5 m r² of a solid ball.
pub fn sphere(bodies: &mut Bodies, centre: Vec3, radius: f32, mass: f32) {
    bodies.pos_radius.push(centre.extend(radius));
    bodies.orientation.push(Quat::IDENTITY);
    bodies.motion.push(Motion {
        inv_mass: 1.0 / mass,
        inv_inertia: 1.0 / (0.4 * mass * radius * radius),
        ..Motion::default()
    });
    bodies.material.push(0);
    bodies.kind.push(BodyKind::Dynamic as u32);
}

/// An unbounded wall through `origin` pushing along the unit `normal`, of material 0.
pub fn plane(origin: Vec3, normal: Vec3) -> Wall {
    let u = normal.any_orthonormal_vector();
    Wall {
        origin: origin.extend(0.0).to_array(),
        normal: normal.extend(0.0).to_array(),
        u: u.extend(f32::INFINITY).to_array(),
        v: normal.cross(u).extend(f32::INFINITY).to_array(),
        velocity: [0.0; 4],
    }
}

/// One material with friction coefficient `mu`, no restitution, no moment friction.
pub fn material(mu: f32) -> FrictionTable {
    FrictionTable {
        count: 1,
        mu: vec![mu],
        restitution: vec![0.0],
        ..FrictionTable::default()
    }
}

/// A step of h = 1 ms under g = 9.81 m/s² along −z with rigid, stabilised contacts, a fixed
/// envelope of 1 cm and `solver` run to convergence (ω = 0.3 for Jacobi and APGD, 1 for Gauss–Seidel).
pub fn settings(solver: SolverKind) -> StepParams {
    StepParams {
        h: 1e-3,
        gravity: Vec3::new(0.0, 0.0, -9.81),
        envelope: Envelope::Fixed(0.01),
        solver,
        max_iterations: 20_000,
        tolerance: 1e-9,
        omega: match solver {
            SolverKind::Jacobi | SolverKind::Apgd => 0.3,
            SolverKind::GaussSeidel => 1.0,
        },
        warm_start: 0.0,
        planar: false,
        contact_frequency: f32::INFINITY,
        max_give: 0.0,
        coulomb_correction: 0,
        periodic: grains_kernels::periodic::Periodic::NONE,
        stabilise_contacts: true,
        position_correction: 0,
        overlap_slop: 0.0,
    }
}

/// The grid and contacts of `bodies` (spheres, friction 0.5) and `walls` under step
/// parameters `p`.
pub fn sphere_contacts(bodies: &Bodies, walls: &[Wall], p: &StepParams) -> (Grid, Contacts) {
    let mut grid = Grid::default();
    grid.build(&bodies.pos_radius, &[], &bodies.motion, p.envelope, p.h);
    let mut contacts = Contacts::default();
    find_contacts(
        &grid,
        bodies,
        &[],
        &Default::default(),
        &[],
        walls,
        &MeshWalls::default(),
        &material(0.5),
        p,
        &mut contacts,
    )
    .unwrap();
    (grid, contacts)
}
