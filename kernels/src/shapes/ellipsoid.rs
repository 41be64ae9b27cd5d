//! Ellipsoids: x²/a² + y²/b² + z²/c² ≤ 1 in the body's axes, smooth and strictly convex, so
//! every pair meets at one point:
//! * against a flat wall, the support point in −n ([`ellipsoid_support`], closed form);
//! * against a sphere, the ellipsoid's point nearest the sphere's centre
//!   ([`closest_on_ellipsoid`], Eberly's root of a monotone secular function, inside or out);
//! * against another ellipsoid, the common normal that maximises the separation of the two
//!   support functions ([`ellipsoids_touch`]): the signed distance of two convex bodies is
//!   Φ = max over unit n of g(n) = n·(c_a − c_b) − h_a(n) − h_b(n), with h(n) = √(nᵀ R A² Rᵀ n)
//!   an ellipsoid's support function about its centre; positive it is their distance, negative
//!   the depth of the least translation that separates them, and the support points in ∓n are
//!   the contact points.

use crate::shapes::ellipse::closest_on_ellipse;
use crate::shapes::{Placed, Shape, Touch};
use glam::{DMat3, DVec3, Quat, Vec3};

/// Support point of the ellipsoid x²/a² + y²/b² + z²/c² ≤ 1 (body axes, orientation `q`) in
/// world direction `d`, relative to its centre: s = R A² d_l / √(d_lᵀ A² d_l), d_l = Rᵀ d the
/// direction in body axes and A = diag(a, b, c). An ellipsoid's point nearest a plane of
/// normal n is its support point in −n, so the ellipsoid–plane gap is in closed form.
#[inline(always)]
pub fn ellipsoid_support(q: Quat, semi_axes: Vec3, d: Vec3) -> Vec3 {
    let local = q.inverse() * d;
    let scaled = semi_axes * semi_axes * local;
    let norm = scaled.dot(local).sqrt();
    if norm > 0.0 {
        q * (scaled / norm)
    } else {
        Vec3::ZERO
    }
}

/// The support point of a smooth convex shape (an ellipse or an ellipsoid) in world direction
/// `d` relative to its centre, `None` for the other shapes.
pub fn smooth_support(shape: Shape, q: Quat, d: Vec3) -> Option<Vec3> {
    match shape {
        Shape::Ellipse { a, b } => Some(crate::shapes::ellipse::ellipse_support(q, a, b, d)),
        Shape::Ellipsoid { semi_axes } => Some(ellipsoid_support(q, semi_axes, d)),
        _ => None,
    }
}

/// The point of the ellipsoid surface Σ x_i²/e_i² = 1 nearest `p`, both in the ellipsoid's
/// axes (Eberly's distance from a point to an ellipsoid). With the axes ordered e₀ ≥ e₁ ≥ e₂
/// and p reflected into the first octant (y_i = |p_i|):
/// * y₂ > 0: x_i = e_i² y_i/(t + e_i²), t the root on t > −e₂² of the decreasing
///   F(t) = Σ (e_i y_i/(t + e_i²))² − 1, bracketed by t = e₂ y₂ − e₂² (F ≥ 0) and
///   t = ‖(e_i y_i)‖ − e₂² (F ≤ 0) and found by bisection; a point inside gives t < 0.
/// * y₂ = 0 (p in the plane of the two larger axes): inside the evolute, where
///   (e₀ y₀/(e₀² − e₂²))² + (e₁ y₁/(e₁² − e₂²))² < 1, the nearest point leaves the plane,
///   x_i = e_i² y_i/(e_i² − e₂²) (i = 0, 1), x₂ = e₂ √(1 − (x₀/e₀)² − (x₁/e₁)²); else it is
///   the plane's ellipse's nearest point ([`closest_on_ellipse`]).
pub fn closest_on_ellipsoid(semi_axes: Vec3, p: Vec3) -> Vec3 {
    // Axes by decreasing semi-axis; among equal ones the larger |p_i| last, so that y₂ = 0
    // only when every axis as short as e₂ has y = 0.
    let (e, y) = (semi_axes.to_array(), p.abs().to_array());
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| e[j].total_cmp(&e[i]).then(y[i].total_cmp(&y[j])));
    let e = order.map(|i| e[i] as f64);
    let y = order.map(|i| y[i] as f64);
    let x = if y[2] > 0.0 {
        let f = |t: f64| {
            (0..3)
                .map(|i| (e[i] * y[i] / (t + e[i] * e[i])).powi(2))
                .sum::<f64>()
                - 1.0
        };
        let ey = DVec3::new(e[0] * y[0], e[1] * y[1], e[2] * y[2]);
        let e2 = e[2] * e[2];
        let t = crate::shapes::ellipse::decreasing_root(f, ey.z - e2, ey.length() - e2);
        std::array::from_fn(|i| e[i] * e[i] * y[i] / (t + e[i] * e[i]))
    } else {
        in_plane_nearest(e, y)
    };
    let mut out = [0.0f32; 3];
    for (k, &i) in order.iter().enumerate() {
        out[i] = (x[k] as f32).copysign(p[i]);
    }
    Vec3::from_array(out)
}

/// [`closest_on_ellipsoid`] for a point in the plane of the two larger axes (y₂ = 0): the
/// foot off the plane inside the evolute, else the plane ellipse's nearest point.
fn in_plane_nearest(e: [f64; 3], y: [f64; 3]) -> [f64; 3] {
    let e2 = e[2] * e[2];
    // x_i/e_i of the foot; none when the point lies beyond the centre of curvature on axis i.
    let ratio = |i: usize| {
        let denom = e[i] * e[i] - e2;
        if y[i] == 0.0 {
            Some(0.0)
        } else {
            (e[i] * y[i] < denom).then(|| e[i] * y[i] / denom)
        }
    };
    if let (Some(r0), Some(r1)) = (ratio(0), ratio(1)) {
        let rest = 1.0 - r0 * r0 - r1 * r1;
        if rest > 0.0 {
            return [e[0] * r0, e[1] * r1, e[2] * rest.sqrt()];
        }
    }
    let (x0, x1) = closest_on_ellipse(e[0] as f32, e[1] as f32, y[0] as f32, y[1] as f32);
    [x0 as f64, x1 as f64, 0.0]
}

/// The point e of an ellipsoid (centre `centre`, orientation `q`, `semi_axes`) nearest `p`,
/// with the outward normal there, n ∝ R (x/a², y/b², z/c²): the signed distance of p is
/// (p − e)·n, negative inside.
pub fn ellipsoid_nearest(centre: Vec3, q: Quat, semi_axes: Vec3, p: Vec3) -> (Vec3, Vec3) {
    let x = closest_on_ellipsoid(semi_axes, q.inverse() * (p - centre));
    let n = (x / (semi_axes * semi_axes)).normalize();
    (centre + q * x, q * n)
}

/// Ellipsoid a against the sphere of radius `r` about `p` (body b): the ellipsoid's point e
/// nearest p and its outward normal n ([`ellipsoid_nearest`]); the normal from b to a is −n,
/// Φ = (p − e)·n − r.
pub fn ellipsoid_sphere(a: &Placed, semi_axes: Vec3, p: Vec3, r: f32) -> Touch {
    let (e, n) = ellipsoid_nearest(a.centre, a.q, semi_axes, p);
    Touch {
        n: -n,
        phi: (p - e).dot(n) - r,
        pa: e,
        pb: p - r * n,
    }
}

/// An ellipsoid placed in the world: centre, orientation and semi-axes (body axes).
#[derive(Clone, Copy, Debug)]
pub struct PlacedEllipsoid {
    /// Centre (m).
    pub centre: Vec3,
    /// Orientation of the body axes.
    pub q: Quat,
    /// Semi-axes along the body's x, y, z (m).
    pub semi_axes: Vec3,
}

impl PlacedEllipsoid {
    /// The signed distance of `y` (negative inside), the ellipsoid's point nearest it and the
    /// outward normal there ([`ellipsoid_nearest`]).
    #[inline(always)]
    pub fn signed_distance(&self, y: Vec3) -> (f32, Vec3, Vec3) {
        let (e, n) = ellipsoid_nearest(self.centre, self.q, self.semi_axes, y);
        ((y - e).dot(n), e, n)
    }
}

/// The argument of the least on [`lo`, `hi`] of a function with one least there (a convex one,
/// say), from its derivative `slope`: `lo` when the slope there is ≥ 0, `hi` when it is < 0
/// there, else where it turns from negative to non-negative, by bisection to the f32
/// resolution of the argument (the sign of a slope stays sharp where the function itself is
/// too flat for its values to tell the least apart).
pub fn least_by_bisection(slope: impl Fn(f32) -> f32, lo: f32, hi: f32) -> f32 {
    if slope(lo) >= 0.0 {
        return lo;
    }
    if slope(hi) < 0.0 {
        return hi;
    }
    let (mut lo, mut hi) = (lo, hi);
    for _ in 0..BISECTIONS {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if slope(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The most halvings of [`least_by_bisection`]: f32 has 24 bits of mantissa, and a bracket
/// about zero halves through the exponents too before its ends meet; 64 halvings shrink any
/// bracket of order 1 below 10⁻¹⁹.
const BISECTIONS: usize = 64;

/// One ellipsoid for [`ellipsoids_touch`]: M = R A² Rᵀ, whose support offset in n is
/// M n/√(nᵀ M n).
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub struct Metric(DMat3);

impl Metric {
    pub fn of(q: Quat, semi_axes: Vec3) -> Self {
        let r = DMat3::from_quat(q.as_dquat());
        let a2 = semi_axes.as_dvec3() * semi_axes.as_dvec3();
        Metric(r * DMat3::from_diagonal(a2) * r.transpose())
    }

    /// h(n) = √(nᵀ M n), the support function about the centre.
    fn support(&self, n: DVec3) -> f64 {
        n.dot(self.0 * n).max(0.0).sqrt()
    }
}

/// The separation g(n) = n·d − h_a(n) − h_b(n) of two ellipsoids along unit n (d = c_a − c_b).
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn separation(d: DVec3, ma: &Metric, mb: &Metric, n: DVec3) -> f64 {
    n.dot(d) - ma.support(n) - mb.support(n)
}

/// Two unit vectors spanning the plane normal to unit `n`.
fn tangents(n: DVec3) -> (DVec3, DVec3) {
    let helper = if n.x.abs() < 0.6 { DVec3::X } else { DVec3::Y };
    let t1 = n.cross(helper).normalize();
    (t1, n.cross(t1))
}

/// Newton's method for the maximum of g on the unit sphere from `n`: in the tangent plane
/// (t₁, t₂) the gradient is tᵢ·(d − u_a − u_b), u = M n/h(n) the support offsets, and the
/// Hessian tᵢᵀ H tⱼ − g δᵢⱼ with H = −Σ (M − u uᵀ)/h (the sphere's curvature term, −(n·∇g) =
/// −g by Euler's identity for the homogeneous g). Where that Hessian is not negative definite
/// (deep overlap of elongated bodies) the step is along the gradient instead; every step is
/// halved until g does not fall. Returns (g, n) at convergence and whether the last step was
/// Newton's (a strict local maximum: the Hessian negative definite there).
fn maximise_separation(d: DVec3, ma: &Metric, mb: &Metric, mut n: DVec3) -> (f64, DVec3, bool) {
    let scale = ma.support(DVec3::X).max(mb.support(DVec3::X)) + d.length();
    let mut g = separation(d, ma, mb, n);
    let mut newton = false;
    for _ in 0..NEWTON_ITERATIONS {
        let (ha, hb) = (ma.support(n), mb.support(n));
        let (ua, ub) = (ma.0 * n / ha, mb.0 * n / hb);
        let grad = d - ua - ub;
        let (t1, t2) = tangents(n);
        let (g1, g2) = (t1.dot(grad), t2.dot(grad));
        if g1 * g1 + g2 * g2 <= (CONVERGED * scale).powi(2) {
            break;
        }
        let (ma1, ma2, mb1, mb2) = (ma.0 * t1, ma.0 * t2, mb.0 * t1, mb.0 * t2);
        let (a1, a2, b1, b2) = (t1.dot(ua), t2.dot(ua), t1.dot(ub), t2.dot(ub));
        let (k11, k12, k22) = (
            -(t1.dot(ma1) - a1 * a1) / ha - (t1.dot(mb1) - b1 * b1) / hb - g,
            -(t1.dot(ma2) - a1 * a2) / ha - (t1.dot(mb2) - b1 * b2) / hb,
            -(t2.dot(ma2) - a2 * a2) / ha - (t2.dot(mb2) - b2 * b2) / hb - g,
        );
        let det = k11 * k22 - k12 * k12;
        newton = k11 < 0.0 && det > 0.0;
        let (mut s1, mut s2) = if newton {
            ((k12 * g2 - k22 * g1) / det, (k12 * g1 - k11 * g2) / det)
        } else {
            (g1 / scale, g2 / scale)
        };
        let mut improved = false;
        for _ in 0..LINE_SEARCH_HALVINGS {
            let next = (n + s1 * t1 + s2 * t2).normalize();
            let gn = separation(d, ma, mb, next);
            if gn >= g {
                (n, g, improved) = (next, gn, true);
                break;
            }
            (s1, s2) = (0.5 * s1, 0.5 * s2);
        }
        if !improved {
            break;
        }
    }
    (g, n, newton)
}

/// Overlaps of two ellipsoids below this fraction of the shortest semi-axis are maximised from
/// one start ([`ellipsoids_within`]).
const SHALLOW: f64 = 0.05;

/// The most Newton steps of [`ellipsoids_touch`] per start (it converges in a few).
const NEWTON_ITERATIONS: usize = 40;

/// The tangent gradient, relative to the pair's size, at which the normal has converged: the
/// normal is then within about 1e-9 rad of the maximum's (the f32 contact needs 1e-7), the gap
/// within its square.
const CONVERGED: f64 = 1e-9;

/// The most halvings of one step of [`ellipsoids_touch`]: 2⁻²⁰ of a Newton step no longer
/// changes the f32 contact, and where rounding keeps g from rising the search stops there.
const LINE_SEARCH_HALVINGS: usize = 20;

/// Ellipsoid a against ellipsoid b: Φ = max over unit n of g(n) = n·(c_a − c_b) − h_a(n) −
/// h_b(n) (see the module), as [`ellipsoids_within`] with no cutoff.
pub fn ellipsoids_touch(a: &Placed, sa: Vec3, b: &Placed, sb: Vec3) -> Touch {
    ellipsoids_within(a, sa, b, sb, f32::INFINITY).expect("no cutoff")
}

/// Ellipsoid a against ellipsoid b, `None` when their gap is surely above `cutoff`: Φ = max
/// over unit n of g(n) by Newton's method on the sphere, started from the better of the centres'
/// direction and (M_a + M_b)⁻¹ (c_a − c_b) (exact for equal, equally turned ellipsoids). Any
/// g(n) bounds Φ from below, so a start above `cutoff` settles the pair. g is concave and
/// positively homogeneous, so a local maximum on the sphere with g > 0 is the global one (the
/// chord to a higher point, pushed out onto the sphere, rises all the way). An overlapping pair
/// is also maximised from the other start, keeping the larger maximum, unless the first ended
/// at a strict local maximum less than 5 % of the smaller body's shortest semi-axis
/// deep: the maximum moves continuously from the touching configuration, where it is unique,
/// so a shallow contact's is the one found from the better start. n points from b
/// to a; the points are a's support point in −n and b's in n, p_a − p_b = Φ n at the optimum.
pub fn ellipsoids_within(a: &Placed, sa: Vec3, b: &Placed, sb: Vec3, cutoff: f32) -> Option<Touch> {
    let d = (a.centre - b.centre).as_dvec3();
    let (ma, mb) = (Metric::of(a.q, sa), Metric::of(b.q, sb));
    let first = d.try_normalize().unwrap_or(DVec3::Z);
    let sum = DMat3::from_cols(
        ma.0.x_axis + mb.0.x_axis,
        ma.0.y_axis + mb.0.y_axis,
        ma.0.z_axis + mb.0.z_axis,
    );
    let second = (sum.inverse() * d).try_normalize().unwrap_or(first);
    let (g1, g2) = (
        separation(d, &ma, &mb, first),
        separation(d, &ma, &mb, second),
    );
    if g1.max(g2) > cutoff as f64 {
        return None;
    }
    let (best, other) = if g2 > g1 {
        (second, first)
    } else {
        (first, second)
    };
    let (mut g, mut n, strict) = maximise_separation(d, &ma, &mb, best);
    let shallow = strict && -g < SHALLOW * sa.min_element().min(sb.min_element()) as f64;
    if g <= 0.0 && !shallow {
        let (g_other, n_other, _) = maximise_separation(d, &ma, &mb, other);
        if g_other > g {
            (g, n) = (g_other, n_other);
        }
    }
    let nf = n.as_vec3();
    Some(Touch {
        n: nf,
        phi: g as f32,
        pa: a.centre + ellipsoid_support(a.q, sa, -nf),
        pb: b.centre + ellipsoid_support(b.q, sb, nf),
    })
}

/// The contact of an ellipsoid–ellipsoid or ellipsoid–sphere pair, the pairs
/// [`crate::pairs::PairRoutine::Ellipsoids`] routes here: `None` for two ellipsoids surely
/// more than `cutoff` apart ([`ellipsoids_within`]), else [`ellipsoid_pair`]'s touch.
pub fn ellipsoid_pair_points(a: &Placed, b: &Placed, cutoff: f32) -> Option<Touch> {
    match (a.shape, b.shape) {
        (Shape::Ellipsoid { semi_axes: sa }, Shape::Ellipsoid { semi_axes: sb }) => {
            ellipsoids_within(a, sa, b, sb, cutoff)
        }
        _ => ellipsoid_pair(a, b),
    }
}

/// The contact of bodies a and b when either is an ellipsoid and the other a sphere or an
/// ellipsoid (n from b to a); `None` for the other pairs.
pub fn ellipsoid_pair(a: &Placed, b: &Placed) -> Option<Touch> {
    match (a.shape, b.shape) {
        (Shape::Ellipsoid { semi_axes }, Shape::Sphere) => {
            Some(ellipsoid_sphere(a, semi_axes, b.centre, b.radius))
        }
        (Shape::Sphere, Shape::Ellipsoid { semi_axes }) => {
            Some(ellipsoid_sphere(b, semi_axes, a.centre, a.radius).swapped())
        }
        (Shape::Ellipsoid { semi_axes: sa }, Shape::Ellipsoid { semi_axes: sb }) => {
            Some(ellipsoids_touch(a, sa, b, sb))
        }
        _ => None,
    }
}
