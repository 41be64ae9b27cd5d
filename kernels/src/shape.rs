//! Body shapes other than spheres, kept beside [`crate::Bodies`] as one more per-body array.
//!
//! A body's `pos_radius.w` stays its radius: the sphere's radius, the capsule's radius about its
//! segment. Non-sphere bodies never enter the uniform grid: like the large bodies they query the
//! cells their bounding sphere covers (see [`crate::broad_phase`]).

use glam::{Quat, Vec3};

/// The shape of one body, in the body's own axes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Shape {
    /// A sphere (a disk in planar mode) of the body's radius.
    #[default]
    Sphere,
    /// The points within the body's radius of the segment from −`half_length` to +`half_length`
    /// along the body's local x axis (a bar when the radius is small).
    Capsule {
        /// Half the length of the segment (m).
        half_length: f32,
    },
    /// Planar mode only: the ellipse (x/a)² + (z/b)² ≤ 1 in the body's local x–z plane.
    Ellipse {
        /// Semi-axis along the body's local x (m).
        a: f32,
        /// Semi-axis along the body's local z (m).
        b: f32,
    },
    /// A box with sharp edges, |x| ≤ a, |y| ≤ b, |z| ≤ c in the body's axes (see
    /// [`crate::cuboid`]); the body's radius is not part of its surface.
    Cuboid {
        /// Half-extents (a, b, c) along the body's local x, y and z (m).
        half_extents: Vec3,
    },
    /// A 3-D ellipsoid x²/a² + y²/b² + z²/c² ≤ 1 in the body's axes (see
    /// [`crate::ellipsoid`]); the body's radius is not part of its surface.
    Ellipsoid {
        /// Semi-axes (a, b, c) along the body's local x, y and z (m).
        semi_axes: Vec3,
    },
    /// A clump of overlapping spheres: template `template` of the world's
    /// [`crate::clump::ClumpTable`] (see [`crate::clump`]); the body's radius is its smallest
    /// member's.
    Clump {
        /// The template's number in the world's clump table.
        template: u32,
        /// Radius of the smallest sphere about the centre that holds every member (m), the
        /// template's [`crate::clump::clump_bound`].
        bound: f32,
    },
    /// A convex polyhedron with sharp edges: hull `hull` of the world's hull table (see
    /// [`crate::polyhedron`]), in the body's axes; the body's radius is not part of its
    /// surface.
    Polyhedron {
        /// Index into the hull table.
        hull: u32,
        /// The distance from the centre to the hull's farthest vertex (m).
        bounding_radius: f32,
    },
}

impl Shape {
    /// Radius of the smallest sphere about the centre that holds the shape, for a body of
    /// radius `r`.
    #[inline(always)]
    pub fn bounding_radius(&self, r: f32) -> f32 {
        match *self {
            Shape::Sphere => r,
            Shape::Capsule { half_length } => r + half_length,
            Shape::Ellipse { a, b } => a.max(b),
            Shape::Cuboid { half_extents } => half_extents.length(),
            Shape::Ellipsoid { semi_axes } => semi_axes.max_element(),
            Shape::Clump { bound, .. } => bound,
            Shape::Polyhedron {
                bounding_radius, ..
            } => bounding_radius,
        }
    }

    /// True for [`Shape::Sphere`].
    #[inline(always)]
    pub fn is_sphere(&self) -> bool {
        matches!(self, Shape::Sphere)
    }
}

/// The shape of body `i` of `shapes` (an empty slice means every body is a sphere).
#[inline(always)]
pub fn shape_of(shapes: &[Shape], i: usize) -> Shape {
    shapes.get(i).copied().unwrap_or_default()
}

/// The two end points of a capsule's segment, c ± R(q)·(L, 0, 0), in world coordinates.
#[inline(always)]
pub fn capsule_ends(centre: Vec3, q: Quat, half_length: f32) -> [Vec3; 2] {
    let axis = q * Vec3::X * half_length;
    [centre + axis, centre - axis]
}

/// The point of a capsule's segment closest to `p`: c + s R x̂ with s = clamp((p − c)·R x̂, ±L).
#[inline(always)]
pub fn closest_on_segment(centre: Vec3, q: Quat, half_length: f32, p: Vec3) -> Vec3 {
    let axis = q * Vec3::X;
    centre + axis * (p - centre).dot(axis).clamp(-half_length, half_length)
}

/// Support point of the ellipse (x/a)² + (z/b)² ≤ 1 (body axes, orientation `q`) in world
/// direction `d`, relative to the centre: s = R (a² d_x, 0, b² d_z) / √(a² d_x² + b² d_z²) with
/// d in body axes. The point of an ellipse nearest a plane of normal n is its support point in
/// −n, in closed form, so the ellipse–plane gap needs no iteration.
#[inline(always)]
pub fn ellipse_support(q: Quat, a: f32, b: f32, d: Vec3) -> Vec3 {
    let local = q.inverse() * d;
    let (ax, bz) = (a * a * local.x, b * b * local.z);
    let norm = (ax * local.x + bz * local.z).sqrt();
    if norm > 0.0 {
        q * Vec3::new(ax / norm, 0.0, bz / norm)
    } else {
        Vec3::ZERO
    }
}

/// The root in [`lo`, `hi`] of a decreasing `f` (positive at `lo`, negative at `hi`): the
/// nearest-point equations' F(t) of an ellipse or ellipsoid (Eberly), halving the bracket until
/// it cannot shrink (f64: about 60 halvings).
pub(crate) fn decreasing_root(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    let (mut lo, mut hi) = (lo, hi);
    let mut t = lo;
    for _ in 0..200 {
        t = 0.5 * (lo + hi);
        if t <= lo || t >= hi {
            break;
        }
        let ft = f(t);
        if ft > 0.0 {
            lo = t;
        } else if ft < 0.0 {
            hi = t;
        } else {
            break;
        }
    }
    t
}

/// The point of the ellipse (x/a)² + (z/b)² = 1 nearest (p_x, p_z), both in the ellipse's axes:
/// x = a² p_x/(t + a²), z = b² p_z/(t + b²) with t the root of F(t) = (a p_x/(t + a²))² +
/// (b p_z/(t + b²))² − 1 on t > −min(a², b²), found by bisection (Eberly's distance to an ellipse).
///
/// F decreases there, so its root is bracketed by t = β p_β − β² (F ≥ 0) and
/// t = ‖(a p_x, b p_z)‖ − β², β the smaller semi-axis; a point inside gives t < 0. The points
/// on an axis are in closed form: on the smaller axis the vertex, on the larger one the vertex
/// or, nearer the centre than the centre of curvature, the foot x = a² p_x/(a² − b²).
pub fn closest_on_ellipse(a: f32, b: f32, px: f32, pz: f32) -> (f32, f32) {
    // The first quadrant, larger semi-axis first: (e0, y0) along it, (e1, y1) along the other.
    let swap = b > a;
    let (e0, e1, y0, y1) = if swap {
        (b as f64, a as f64, pz.abs() as f64, px.abs() as f64)
    } else {
        (a as f64, b as f64, px.abs() as f64, pz.abs() as f64)
    };
    let (x0, x1) = if y1 > 0.0 && y0 > 0.0 {
        let f =
            |t: f64| (e0 * y0 / (t + e0 * e0)).powi(2) + (e1 * y1 / (t + e1 * e1)).powi(2) - 1.0;
        let t = decreasing_root(f, e1 * y1 - e1 * e1, (e0 * y0).hypot(e1 * y1) - e1 * e1);
        (e0 * e0 * y0 / (t + e0 * e0), e1 * e1 * y1 / (t + e1 * e1))
    } else if y1 > 0.0 {
        (0.0, e1)
    } else if e0 * y0 < e0 * e0 - e1 * e1 {
        let x0 = e0 * e0 * y0 / (e0 * e0 - e1 * e1);
        (x0, e1 * (1.0 - (x0 / e0).powi(2)).max(0.0).sqrt())
    } else {
        (e0, 0.0)
    };
    let (x, z) = if swap { (x1, x0) } else { (x0, x1) };
    ((x as f32).copysign(px), (z as f32).copysign(pz))
}

/// The point e of an ellipse (centre `centre`, orientation `q`, semi-axes `a` along local x
/// and `b` along local z) nearest `p` in the body's x–z plane, with the outward normal there,
/// n ∝ R (x/a², 0, z/b²): the signed distance of p is (p − e)·n, negative inside.
pub fn ellipse_nearest(centre: Vec3, q: Quat, a: f32, b: f32, p: Vec3) -> (Vec3, Vec3) {
    let local = q.inverse() * (p - centre);
    let (x, z) = closest_on_ellipse(a, b, local.x, local.z);
    let n = Vec3::new(x / (a * a), 0.0, z / (b * b)).normalize();
    (centre + q * Vec3::new(x, 0.0, z), q * n)
}

/// Parameters (s, t) of the nearest points c₁ + s u₁ and c₂ + t u₂ of two segments
/// (|s| ≤ l₁, |t| ≤ l₂, unit axes): the lines' minimiser s = (b e − d)/(1 − b²) with
/// b = u₁·u₂, d = u₁·(c₁ − c₂), e = u₂·(c₁ − c₂), clamped; then t = e + b s clamped, and s
/// again for that t when t was clamped. Parallel axes (1 − b² ≈ 0) take s at the start of the
/// overlap of the two segments along u₁.
pub fn closest_between_segments(
    c1: Vec3,
    u1: Vec3,
    l1: f32,
    c2: Vec3,
    u2: Vec3,
    l2: f32,
) -> (f32, f32) {
    let r = c1 - c2;
    let (b, d, e) = (u1.dot(u2), u1.dot(r), u2.dot(r));
    let denom = 1.0 - b * b;
    let s = if denom > PARALLEL_EPS {
        ((b * e - d) / denom).clamp(-l1, l1)
    } else {
        overlap_along(b, d, l1, l2).0.min(l1)
    };
    let t = e + b * s;
    if t.abs() > l2 {
        let t = t.clamp(-l2, l2);
        ((b * t - d).clamp(-l1, l1), t)
    } else {
        (s, t)
    }
}

/// 1 − (u₁·u₂)² below which two segments count as parallel.
const PARALLEL_EPS: f32 = 1e-6;

/// The interval [lo, hi] of s ∈ [−l₁, l₁] that segment 2's projection on segment 1's axis
/// covers, −d ± |b| l₂ (b = u₁·u₂, d = u₁·(c₁ − c₂)); empty when lo > hi.
#[inline(always)]
pub fn overlap_along(b: f32, d: f32, l1: f32, l2: f32) -> (f32, f32) {
    let half = b.abs() * l2;
    ((-d - half).max(-l1), (-d + half).min(l1))
}

/// One body's shape where it stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    /// Centre (m).
    pub centre: Vec3,
    /// Orientation (body → world).
    pub q: Quat,
    /// The body's radius: the sphere's, the capsule's about its segment (unused by ellipses).
    pub radius: f32,
    /// Shape in the body's axes.
    pub shape: Shape,
}

/// The nearest points of two bodies' surfaces, a and b.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    /// Unit normal from b towards a.
    pub n: Vec3,
    /// Gap Φ along n (m), negative when the bodies overlap.
    pub phi: f32,
    /// The point of a's surface.
    pub pa: Vec3,
    /// The point of b's surface.
    pub pb: Vec3,
}

impl Touch {
    /// The same touch seen from b: n → −n, the points swapped.
    #[inline(always)]
    pub(crate) fn swapped(self) -> Touch {
        Touch {
            n: -self.n,
            phi: self.phi,
            pa: self.pb,
            pb: self.pa,
        }
    }
}

/// The contact points of bodies a and b of the pairs [`crate::pairs::PairRoutine::Spheres`],
/// [`crate::pairs::PairRoutine::CapsuleSphere`], [`crate::pairs::PairRoutine::Capsules`] and
/// [`crate::pairs::PairRoutine::EllipseSphere`] route here: their surfaces' nearest points and,
/// for two capsules whose segments overlap along a's axis, the two ends of the overlap (see
/// `capsules_touch`).
pub fn contact_points(a: &Placed, b: &Placed) -> [Option<Touch>; 3] {
    match (a.shape, b.shape) {
        (Shape::Sphere, Shape::Sphere) => [
            Some(spheres_touch(a.centre, a.radius, b.centre, b.radius)),
            None,
            None,
        ],
        (Shape::Capsule { half_length }, Shape::Sphere) => {
            let p = closest_on_segment(a.centre, a.q, half_length, b.centre);
            [
                Some(spheres_touch(p, a.radius, b.centre, b.radius)),
                None,
                None,
            ]
        }
        (Shape::Sphere, Shape::Capsule { .. }) | (Shape::Sphere, Shape::Ellipse { .. }) => {
            contact_points(b, a).map(|t| t.map(Touch::swapped))
        }
        (Shape::Capsule { half_length: la }, Shape::Capsule { half_length: lb }) => {
            capsules_touch(a, la, b, lb)
        }
        (Shape::Ellipse { a: ea, b: eb }, Shape::Sphere) => {
            let (e, n) = ellipse_nearest(a.centre, a.q, ea, eb, b.centre);
            let touch = Touch {
                n: -n,
                phi: (b.centre - e).dot(n) - b.radius,
                pa: e,
                pb: b.centre - b.radius * n,
            };
            [Some(touch), None, None]
        }
        (a, b) => unreachable!("{a:?}–{b:?} is not a pair of contact_points' (crate::pairs)"),
    }
}

/// Two spheres of radii `ra`, `rb` about the points `pa`, `pb`: n = (pa − pb)/‖·‖,
/// Φ = ‖pa − pb‖ − r_a − r_b.
#[inline(always)]
pub(crate) fn spheres_touch(pa: Vec3, ra: f32, pb: Vec3, rb: f32) -> Touch {
    let d = pa - pb;
    let dist = d.length();
    let n = if dist > 0.0 { d / dist } else { Vec3::Z };
    Touch {
        n,
        phi: dist - ra - rb,
        pa: pa - ra * n,
        pb: pb + rb * n,
    }
}

/// Capsule–capsule: the spheres of the capsules' radii about their segments' nearest points
/// ([`closest_between_segments`]), Φ = ‖p_a − p_b‖ − r_a − r_b; and, where b's segment covers a
/// stretch of a's axis, each end of that stretch more than the smaller radius from the first
/// point, against b's segment. Every such pair of points must stay r_a + r_b apart, so these
/// rows are as valid as the first: they hold capsules lying side by side the way a capsule's two
/// ends hold it on a wall, and keep nearly parallel rods that turn within a step (their nearest
/// points slide along them) from passing into each other at either end.
fn capsules_touch(a: &Placed, la: f32, b: &Placed, lb: f32) -> [Option<Touch>; 3] {
    let (ua, ub) = (a.q * Vec3::X, b.q * Vec3::X);
    let (s, t) = closest_between_segments(a.centre, ua, la, b.centre, ub, lb);
    let at =
        |s: f32, t: f32| spheres_touch(a.centre + ua * s, a.radius, b.centre + ub * t, b.radius);
    let (lo, hi) = overlap_along(ua.dot(ub), ua.dot(a.centre - b.centre), la, lb);
    let end = |e: f32| {
        (hi > lo && (e - s).abs() > a.radius.min(b.radius))
            .then(|| at(e, (a.centre + ua * e - b.centre).dot(ub).clamp(-lb, lb)))
    };
    [Some(at(s, t)), end(lo), end(hi)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ellipse_support_reaches_the_semi_axes() {
        let q = Quat::from_rotation_y(0.3);
        let s = ellipse_support(q, 4.0, 2.0, q * Vec3::NEG_Z);
        assert!((s - q * Vec3::new(0.0, 0.0, -2.0)).length() < 1e-5, "{s}");
        let s = ellipse_support(q, 4.0, 2.0, q * Vec3::X);
        assert!((s - q * Vec3::new(4.0, 0.0, 0.0)).length() < 1e-5, "{s}");
    }

    #[test]
    fn ellipse_support_lies_on_the_ellipse_and_maximises_the_direction() {
        let (a, b) = (4.0f32, 2.0f32);
        let d = Vec3::new(0.6, 0.0, -0.8);
        let s = ellipse_support(Quat::IDENTITY, a, b, d);
        assert!(((s.x / a).powi(2) + (s.z / b).powi(2) - 1.0).abs() < 1e-5);
        for k in 0..360 {
            let t = (k as f32).to_radians();
            let p = Vec3::new(a * t.cos(), 0.0, b * t.sin());
            assert!(p.dot(d) <= s.dot(d) + 1e-5);
        }
    }

    #[test]
    fn closest_point_clamps_to_the_segment() {
        let c = Vec3::new(1.0, 0.0, 0.0);
        let p = closest_on_segment(c, Quat::IDENTITY, 0.5, Vec3::new(5.0, 0.0, 3.0));
        assert_eq!(p, Vec3::new(1.5, 0.0, 0.0));
        let p = closest_on_segment(c, Quat::IDENTITY, 0.5, Vec3::new(1.2, 0.0, 3.0));
        assert!((p - Vec3::new(1.2, 0.0, 0.0)).length() < 1e-6);
    }

    /// Distance from (px, pz) to the ellipse by sampling its boundary at `n` angles.
    fn sampled_distance(a: f32, b: f32, px: f32, pz: f32, n: usize) -> f64 {
        (0..n)
            .map(|k| {
                let t = std::f64::consts::TAU * k as f64 / n as f64;
                let (x, z) = (a as f64 * t.cos(), b as f64 * t.sin());
                (x - px as f64).hypot(z - pz as f64)
            })
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn closest_on_ellipse_matches_sampling_of_the_boundary() {
        for (a, b) in [
            (4.0f32, 2.0f32),
            (1.0, 3.0),
            (2.0, 1.99),
            (1.0, 1.0),
            (5.0, 0.2),
        ] {
            for i in -12..=12 {
                for k in -12..=12 {
                    let (px, pz) = (0.61 * i as f32 * a / 6.0, 0.53 * k as f32 * b / 6.0);
                    let (x, z) = closest_on_ellipse(a, b, px, pz);
                    let on = (x / a).powi(2) + (z / b).powi(2) - 1.0;
                    assert!(on.abs() < 1e-5, "({x}, {z}) off the ellipse by {on}");
                    let d = ((x - px) as f64).hypot((z - pz) as f64);
                    let sampled = sampled_distance(a, b, px, pz, 20_000);
                    // Sampling only overestimates, by at most half a sample's arc.
                    let step = std::f64::consts::TAU * a.max(b) as f64 / 20_000.0;
                    assert!(
                        d <= sampled + 1e-5 && d >= sampled - 0.5 * step - 1e-5,
                        "a {a} b {b} p ({px}, {pz}): {d} vs sampled {sampled}"
                    );
                }
            }
        }
    }

    #[test]
    fn closest_on_ellipse_on_the_axes_is_in_closed_form() {
        let (a, b) = (4.0f32, 2.0f32);
        // Outside on either axis: the vertex.
        assert_eq!(closest_on_ellipse(a, b, 7.0, 0.0), (4.0, 0.0));
        assert_eq!(closest_on_ellipse(a, b, 0.0, -5.0), (0.0, -2.0));
        // Inside on the minor axis, and the centre: the minor vertex, at distance b − |p_z|.
        assert_eq!(closest_on_ellipse(a, b, 0.0, 0.5), (0.0, 2.0));
        assert_eq!(closest_on_ellipse(a, b, 0.0, 0.0).1.abs(), 2.0);
        // Inside on the major axis, nearer the centre than the centre of curvature
        // (a² − b²)/a = 3: the foot x = a² p_x/(a² − b²), z = b √(1 − (x/a)²).
        let (x, z) = closest_on_ellipse(a, b, -1.5, 0.0);
        assert!(
            (x + 2.0).abs() < 1e-6 && (z - 3.0f32.sqrt()).abs() < 1e-6,
            "({x}, {z})"
        );
        // Beyond the centre of curvature: the vertex.
        assert_eq!(closest_on_ellipse(a, b, 3.5, 0.0), (4.0, 0.0));
        // A circle: the radial point.
        let (x, z) = closest_on_ellipse(2.0, 2.0, 3.0, 4.0);
        assert!(
            (x - 1.2).abs() < 1e-6 && (z - 1.6).abs() < 1e-6,
            "({x}, {z})"
        );
    }

    #[test]
    fn ellipse_nearest_gives_the_signed_distance_along_the_outward_normal() {
        let (a, b) = (4.0f32, 2.0f32);
        let q = Quat::from_rotation_y(0.4);
        let c = Vec3::new(1.0, 0.0, -2.0);
        for (p, distance) in [
            (Vec3::new(0.0, 0.0, 3.0), 1.0),
            (Vec3::new(0.0, 0.0, 1.5), -0.5),
        ] {
            let (e, n) = ellipse_nearest(c, q, a, b, c + q * p);
            assert!(
                (e - (c + q * Vec3::new(0.0, 0.0, 2.0))).length() < 1e-5,
                "{e}"
            );
            assert!((n - q * Vec3::Z).length() < 1e-6, "{n}");
            assert!(((c + q * p - e).dot(n) - distance).abs() < 1e-5);
        }
    }

    fn assert_close(got: Vec3, want: Vec3) {
        assert!((got - want).length() < 1e-6, "{got} vs {want}");
    }

    /// A capsule of half-length 0.5 and radius 0.1.
    fn rod(centre: Vec3, q: Quat) -> Placed {
        capsule(centre, q, 0.5, 0.1)
    }

    fn capsule(centre: Vec3, q: Quat, half_length: f32, radius: f32) -> Placed {
        Placed {
            centre,
            q,
            radius,
            shape: Shape::Capsule { half_length },
        }
    }

    #[test]
    fn crossing_capsules_touch_at_their_axes_nearest_points() {
        // Along x at z = 0 and along y at z = 0.5, crossing above (0.2, −0.3).
        let a = capsule(Vec3::new(0.0, 0.0, 0.0), Quat::IDENTITY, 1.0, 0.1);
        let b = capsule(
            Vec3::new(0.2, 0.4, 0.5),
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            1.0,
            0.15,
        );
        let [t, lo, hi] = contact_points(&a, &b);
        let t = t.unwrap();
        assert!(
            lo.is_none() && hi.is_none(),
            "crossing at right angles: one point"
        );
        assert!(
            (t.phi - 0.25).abs() < 1e-6,
            "Φ = 0.5 − 0.1 − 0.15: {}",
            t.phi
        );
        assert!((t.n - Vec3::NEG_Z).length() < 1e-6, "{}", t.n);
        assert_close(t.pa, Vec3::new(0.2, 0.0, 0.1));
        assert_close(t.pb, Vec3::new(0.2, 0.0, 0.35));
    }

    #[test]
    fn skew_segments_in_3d_match_sampling() {
        let (c1, u1, l1) = (
            Vec3::new(0.1, -0.2, 0.3),
            Vec3::new(1.0, 2.0, -0.5).normalize(),
            0.7,
        );
        let (c2, u2, l2) = (
            Vec3::new(0.4, 0.5, -0.6),
            Vec3::new(-0.3, 0.2, 1.0).normalize(),
            0.4,
        );
        let (s, t) = closest_between_segments(c1, u1, l1, c2, u2, l2);
        let d = (c1 + u1 * s - c2 - u2 * t).length();
        let mut best = f32::INFINITY;
        for i in 0..=400 {
            for k in 0..=400 {
                let (si, tk) = (l1 * (i as f32 / 200.0 - 1.0), l2 * (k as f32 / 200.0 - 1.0));
                best = best.min((c1 + u1 * si - c2 - u2 * tk).length());
            }
        }
        assert!(d <= best + 1e-6 && d > best - 1e-3, "{d} vs sampled {best}");
    }

    #[test]
    fn end_to_end_capsules_touch_at_their_ends() {
        // Collinear along x, the gap between the ends 0.3: Φ = 0.3 − 2r.
        let a = rod(Vec3::ZERO, Quat::IDENTITY);
        let b = rod(Vec3::new(1.3, 0.0, 0.0), Quat::from_rotation_z(0.0));
        let [t, lo, hi] = contact_points(&a, &b);
        let t = t.unwrap();
        assert!(
            lo.is_none() && hi.is_none(),
            "no overlap along the axes: one contact"
        );
        assert!((t.phi - 0.1).abs() < 1e-6, "{}", t.phi);
        assert!((t.n - Vec3::NEG_X).length() < 1e-6);
        // T-shape: b's end against the middle of a's side.
        let b = rod(
            Vec3::new(0.2, 0.0, 0.8),
            Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        );
        let t = contact_points(&a, &b)[0].unwrap();
        assert!((t.phi - 0.1).abs() < 1e-6, "{}", t.phi);
        assert_close(t.pa, Vec3::new(0.2, 0.0, 0.1));
    }

    /// The x of a's contact points with b, ascending.
    fn points_along_x(a: &Placed, b: &Placed) -> Vec<f32> {
        let mut xs: Vec<f32> = contact_points(a, b)
            .iter()
            .flatten()
            .map(|t| t.pa.x)
            .collect();
        xs.sort_by(f32::total_cmp);
        xs
    }

    #[test]
    fn parallel_capsules_side_by_side_touch_at_both_ends_of_their_overlap() {
        // Along x, b shifted by 0.4 along x and 0.25 along y: the overlap is s ∈ [−0.1, 0.5].
        let a = rod(Vec3::ZERO, Quat::IDENTITY);
        let b = rod(Vec3::new(0.4, 0.25, 0.0), Quat::IDENTITY);
        let xs = points_along_x(&a, &b);
        assert_eq!(xs.len(), 2, "{xs:?}");
        assert!(
            (xs[0] + 0.1).abs() < 1e-6 && (xs[1] - 0.5).abs() < 1e-6,
            "{xs:?}"
        );
        for t in contact_points(&a, &b).iter().flatten() {
            assert!((t.phi - 0.05).abs() < 1e-6, "Φ = 0.25 − 0.2: {}", t.phi);
            assert_close(t.n, Vec3::NEG_Y);
        }
        // Antiparallel axes give the same two points.
        let flipped = rod(b.centre, Quat::from_rotation_z(std::f32::consts::PI));
        let fx = points_along_x(&a, &flipped);
        assert_eq!(fx.len(), 2, "{fx:?}");
        assert!(
            (fx[0] - xs[0]).abs() < 1e-5 && (fx[1] - xs[1]).abs() < 1e-5,
            "{fx:?}"
        );
    }

    #[test]
    fn capsules_crossing_at_a_small_angle_touch_in_the_middle_and_at_both_ends() {
        // b lies 0.25 above a, turned by 0.1 rad about z: nearest at the centres (Φ = 0.05); b
        // covers s ∈ ±0.5 cos 0.1 of a's axis, whose ends lie 0.5 cos 0.1 sin 0.1 aside from
        // b's axis: Φ = √(0.25² + (0.5 cos 0.1 sin 0.1)²) − 0.2.
        let a = rod(Vec3::ZERO, Quat::IDENTITY);
        let b = rod(Vec3::new(0.0, 0.0, 0.25), Quat::from_rotation_z(0.1));
        let [mid, lo, hi] = contact_points(&a, &b);
        let mid = mid.unwrap();
        assert!(
            (mid.phi - 0.05).abs() < 1e-6 && mid.pa.x.abs() < 1e-6,
            "{mid:?}"
        );
        let far = (0.25f32.powi(2) + (0.5 * 0.1f32.cos() * 0.1f32.sin()).powi(2)).sqrt() - 0.2;
        let x = 0.5 * 0.1f32.cos();
        for (end, x) in [(lo.unwrap(), -x), (hi.unwrap(), x)] {
            let core = end.pa + 0.1 * end.n;
            assert!((core.x - x).abs() < 1e-6 && core.y.abs() < 1e-6, "{end:?}");
            assert!((end.phi - far).abs() < 1e-5, "{} vs {far}", end.phi);
        }
    }

    #[test]
    fn sphere_against_an_ellipse_from_either_side() {
        let ellipse = Placed {
            centre: Vec3::ZERO,
            q: Quat::IDENTITY,
            radius: 4.0,
            shape: Shape::Ellipse { a: 4.0, b: 2.0 },
        };
        let ball = Placed {
            centre: Vec3::new(0.0, 0.0, 2.5),
            q: Quat::IDENTITY,
            radius: 1.0,
            shape: Shape::Sphere,
        };
        let t = contact_points(&ellipse, &ball)[0].unwrap();
        assert!((t.phi + 0.5).abs() < 1e-6, "overlap 0.5: {}", t.phi);
        assert!(
            (t.n - Vec3::NEG_Z).length() < 1e-6,
            "from the ball to the ellipse"
        );
        let u = contact_points(&ball, &ellipse)[0].unwrap();
        assert_eq!((u.n, u.phi, u.pa, u.pb), (-t.n, t.phi, t.pb, t.pa));
        // Centre inside the ellipse: still the outward normal, Φ = −(b − z) − r.
        let inside = Placed {
            centre: Vec3::new(0.0, 0.0, 1.5),
            ..ball
        };
        let t = contact_points(&inside, &ellipse)[0].unwrap();
        assert!((t.phi + 1.5).abs() < 1e-6, "{}", t.phi);
        assert!((t.n - Vec3::Z).length() < 1e-6, "{}", t.n);
    }
}
