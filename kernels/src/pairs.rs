//! The pair table: which shapes meet which, and by which routine. One `match` on the pair of
//! shape kinds ([`pair_routine`]) and one on a shape kind and a wall kind ([`wall_support`])
//! answer either the routine the narrow phase runs or a typed refusal naming both sides. The
//! narrow phase dispatches body pairs through the first ([`crate::narrow_phase::pair_touches`]);
//! the world's build refuses every pair either one refuses, and the start-overlap checks
//! (the engine's body–wall depth, the scene's body–body overlap) measure only the pairs they
//! accept, so what is detected, what is checked and what is refused cannot disagree.
//!
//! | pair | routine |
//! |---|---|
//! | sphere–sphere | [`PairRoutine::Spheres`] |
//! | capsule–sphere | [`PairRoutine::CapsuleSphere`] |
//! | capsule–capsule | [`PairRoutine::Capsules`] |
//! | ellipse–sphere | [`PairRoutine::EllipseSphere`] |
//! | box–sphere, box–box | [`PairRoutine::Boxes`] |
//! | ellipsoid–sphere, ellipsoid–ellipsoid | [`PairRoutine::Ellipsoids`] |
//! | clump–sphere, clump–clump | [`PairRoutine::Clumps`] |
//! | polyhedron–sphere, polyhedron–polyhedron | [`PairRoutine::Polyhedra`] |
//!
//! Every other pair is [`UnsupportedPair`].

use crate::shapes::Shape;
use std::fmt;

/// The kind of a body's shape, without its dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShapeKind {
    /// [`Shape::Sphere`].
    Sphere,
    /// [`Shape::Capsule`].
    Capsule,
    /// [`Shape::Ellipse`].
    Ellipse,
    /// [`Shape::Cuboid`].
    Cuboid,
    /// [`Shape::Ellipsoid`].
    Ellipsoid,
    /// [`Shape::Clump`].
    Clump,
    /// [`Shape::Polyhedron`].
    Polyhedron,
}

impl ShapeKind {
    /// Every kind, in the order of [`Shape`]'s variants.
    pub const ALL: [ShapeKind; 7] = [
        ShapeKind::Sphere,
        ShapeKind::Capsule,
        ShapeKind::Ellipse,
        ShapeKind::Cuboid,
        ShapeKind::Ellipsoid,
        ShapeKind::Clump,
        ShapeKind::Polyhedron,
    ];

    /// The kind's name in messages and scene files ("sphere", "box", …).
    pub fn name(self) -> &'static str {
        match self {
            ShapeKind::Sphere => "sphere",
            ShapeKind::Capsule => "capsule",
            ShapeKind::Ellipse => "ellipse",
            ShapeKind::Cuboid => "box",
            ShapeKind::Ellipsoid => "ellipsoid",
            ShapeKind::Clump => "clump",
            ShapeKind::Polyhedron => "polyhedron",
        }
    }

    /// The kind's plural ("spheres", "boxes", "polyhedra").
    pub fn plural(self) -> &'static str {
        match self {
            ShapeKind::Sphere => "spheres",
            ShapeKind::Capsule => "capsules",
            ShapeKind::Ellipse => "ellipses",
            ShapeKind::Cuboid => "boxes",
            ShapeKind::Ellipsoid => "ellipsoids",
            ShapeKind::Clump => "clumps",
            ShapeKind::Polyhedron => "polyhedra",
        }
    }

    /// The name with its indefinite article ("a box", "an ellipsoid").
    pub fn with_article(self) -> String {
        let name = self.name();
        let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {name}")
    }

    /// The kinds this one meets ([`pair_routine`] answers a routine), in [`ShapeKind::ALL`]'s
    /// order, as a list in words ("spheres, clumps").
    pub fn partners(self) -> String {
        let met: Vec<&str> = ShapeKind::ALL
            .into_iter()
            .filter(|&k| pair_routine(self, k).is_ok())
            .map(ShapeKind::plural)
            .collect();
        met.join(", ")
    }
}

impl Shape {
    /// The shape's kind.
    #[inline(always)]
    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Sphere => ShapeKind::Sphere,
            Shape::Capsule { .. } => ShapeKind::Capsule,
            Shape::Ellipse { .. } => ShapeKind::Ellipse,
            Shape::Cuboid { .. } => ShapeKind::Cuboid,
            Shape::Ellipsoid { .. } => ShapeKind::Ellipsoid,
            Shape::Clump { .. } => ShapeKind::Clump,
            Shape::Polyhedron { .. } => ShapeKind::Polyhedron,
        }
    }
}

/// The routine that finds the contact points of a pair of bodies (see the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairRoutine {
    /// Two spheres: Φ = ‖p_a − p_b‖ − r_a − r_b ([`crate::pair_algorithms::round::contact_points`]).
    Spheres,
    /// A capsule's segment's point nearest the sphere's centre ([`crate::pair_algorithms::round::contact_points`]).
    CapsuleSphere,
    /// Two capsules' segments' nearest points and the ends of their overlap
    /// ([`crate::pair_algorithms::round::contact_points`]).
    Capsules,
    /// The ellipse's point nearest the sphere's centre ([`crate::pair_algorithms::round::contact_points`]).
    EllipseSphere,
    /// Boxes' corners and edge crossings ([`crate::shapes::cuboid::cuboid_pair_points`]).
    Boxes,
    /// An ellipsoid's nearest point to a sphere, or two ellipsoids' by support-function
    /// Newton ([`crate::shapes::ellipsoid::ellipsoid_pair_points`]).
    Ellipsoids,
    /// Member sphere against member sphere ([`crate::shapes::clump::clump_pair_touches`]).
    Clumps,
    /// Separating axes and clipped face manifolds ([`crate::shapes::polyhedron::polyhedron_pair_points`]).
    Polyhedra,
}

/// A pair of shape kinds no routine meets: the world's build refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedPair {
    /// The first body's kind.
    pub a: ShapeKind,
    /// The second body's kind.
    pub b: ShapeKind,
}

impl fmt::Display for UnsupportedPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = (self.a, self.b);
        write!(
            f,
            "the narrow phase has no {}–{} routine ({} meet {} and walls only",
            a.name(),
            b.name(),
            a.plural(),
            a.partners()
        )?;
        if b != a {
            write!(f, "; {} meet {} and walls only", b.plural(), b.partners())?;
        }
        write!(f, "; their other pairs are not detected)")?;
        if [a, b].contains(&ShapeKind::Cuboid) && [a, b].contains(&ShapeKind::Polyhedron) {
            write!(f, "; give the box as a polyhedron")?;
        }
        Ok(())
    }
}

/// The routine that meets bodies of kinds `a` and `b` (either order), or why none does: the
/// one table of body pairs.
#[inline(always)]
pub fn pair_routine(a: ShapeKind, b: ShapeKind) -> Result<PairRoutine, UnsupportedPair> {
    use ShapeKind::*;
    match (a, b) {
        (Sphere, Sphere) => Ok(PairRoutine::Spheres),
        (Capsule, Sphere) | (Sphere, Capsule) => Ok(PairRoutine::CapsuleSphere),
        (Capsule, Capsule) => Ok(PairRoutine::Capsules),
        (Ellipse, Sphere) | (Sphere, Ellipse) => Ok(PairRoutine::EllipseSphere),
        (Cuboid, Sphere | Cuboid) | (Sphere, Cuboid) => Ok(PairRoutine::Boxes),
        (Ellipsoid, Sphere | Ellipsoid) | (Sphere, Ellipsoid) => Ok(PairRoutine::Ellipsoids),
        (Clump, Sphere | Clump) | (Sphere, Clump) => Ok(PairRoutine::Clumps),
        (Polyhedron, Sphere | Polyhedron) | (Sphere, Polyhedron) => Ok(PairRoutine::Polyhedra),
        _ => Err(UnsupportedPair { a, b }),
    }
}

/// The kind of a wall as the narrow phase meets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WallKind {
    /// A plane, rectangle, disk or annulus.
    Flat,
    /// A cylinder or cone with the grains inside it.
    CurvedInside,
    /// A cylinder or cone with the grains outside it.
    CurvedOutside,
    /// The triangles of a mesh wall.
    Mesh,
}

impl WallKind {
    /// Every kind.
    pub const ALL: [WallKind; 4] = [
        WallKind::Flat,
        WallKind::CurvedInside,
        WallKind::CurvedOutside,
        WallKind::Mesh,
    ];

    /// The kind's name in the support table ("cylinder or cone, grains inside", …).
    pub fn name(self) -> &'static str {
        match self {
            WallKind::Flat => "flat walls",
            WallKind::CurvedInside => "cylinder, cone (grains inside)",
            WallKind::CurvedOutside => "cylinder, cone (grains outside)",
            WallKind::Mesh => "mesh walls",
        }
    }
}

/// A shape the narrow phase does not meet with a kind of wall: the world's build refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedWall {
    /// The body's kind.
    pub shape: ShapeKind,
    /// The wall's kind.
    pub wall: WallKind,
}

impl fmt::Display for UnsupportedWall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a_shape = self.shape.with_article();
        match self.wall {
            WallKind::CurvedOutside if wall_support(self.shape, WallKind::CurvedInside).is_ok() => {
                write!(f, "{a_shape} meets cylinder and cone walls only from inside (outside, a side of it can touch the mantle between the points the narrow phase tests)")
            }
            WallKind::CurvedInside | WallKind::CurvedOutside => write!(
                f,
                "{a_shape}'s contacts with cylinder and cone walls are not implemented"
            ),
            WallKind::Mesh => {
                let met: Vec<&str> = ShapeKind::ALL
                    .into_iter()
                    .filter(|&k| wall_support(k, WallKind::Mesh).is_ok())
                    .map(ShapeKind::plural)
                    .collect();
                let (last, rest) = met.split_last().expect("spheres meet mesh walls");
                write!(
                    f,
                    "only {} and {last} meet mesh walls ({a_shape}'s contacts with triangles are not implemented)",
                    rest.join(", ")
                )
            }
            WallKind::Flat => write!(
                f,
                "{a_shape}'s contacts with flat walls are not implemented"
            ),
        }
    }
}

/// Whether the narrow phase meets a body of kind `shape` with walls of kind `wall`: the one
/// table of body–wall pairs.
///
/// A clump meets every wall as its member spheres. Inside a cylinder or cone the wall's depth
/// (R(s) − ρ)/√(1 + k²) is a linear function less a convex one, so a convex polytope's deepest
/// point there is a vertex (the narrow phase's point contacts are exact), a capsule's lies on
/// one of its end spheres, and an ellipsoid's is a support point
/// ([`crate::pair_algorithms::ellipsoid_frustum`]); outside the mantle a face, an edge or the smooth side of a
/// body can touch it between those points, which the narrow phase does not seek. Boxes,
/// polyhedra and ellipsoids meet mesh triangles ([`crate::pair_algorithms::polytope_triangle`],
/// [`crate::pair_algorithms::ellipsoid_triangle`]); capsules (segment–triangle) and planar ellipses do not.
pub fn wall_support(shape: ShapeKind, wall: WallKind) -> Result<(), UnsupportedWall> {
    use ShapeKind::*;
    let met = match (shape, wall) {
        (_, WallKind::Flat) | (Sphere | Clump, _) => true,
        (Capsule | Cuboid | Polyhedron | Ellipsoid, WallKind::CurvedInside) => true,
        (Cuboid | Polyhedron | Ellipsoid, WallKind::Mesh) => true,
        (Ellipse, _) | (_, WallKind::CurvedOutside) | (Capsule, WallKind::Mesh) => false,
    };
    if met {
        Ok(())
    } else {
        Err(UnsupportedWall { shape, wall })
    }
}
