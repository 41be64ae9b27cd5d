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
    /// About 320,000 points of the surface in world coordinates (polar angle θ in 400 steps,
    /// azimuth φ in 800), for tests that check a contact against the surface itself.
    #[cfg(test)]
    pub(crate) fn surface_samples(&self) -> impl Iterator<Item = Vec3> + '_ {
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
struct Metric(DMat3);

impl Metric {
    fn of(q: Quat, semi_axes: Vec3) -> Self {
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
fn separation(d: DVec3, ma: &Metric, mb: &Metric, n: DVec3) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The surface point of `semi` at polar angle θ and azimuth φ (x along a).
    fn surface(semi: Vec3, theta: f64, phi: f64) -> DVec3 {
        let s = semi.as_dvec3();
        DVec3::new(
            s.x * theta.sin() * phi.cos(),
            s.y * theta.sin() * phi.sin(),
            s.z * theta.cos(),
        )
    }

    /// The surface of `semi` sampled at about `n`² points, with the largest distance between
    /// neighbouring samples (an upper bound on how far any surface point is from a sample).
    fn samples(semi: Vec3, n: usize) -> (Vec<DVec3>, f64) {
        let pi = std::f64::consts::PI;
        let pts = (0..=n)
            .flat_map(|i| {
                (0..2 * n)
                    .map(move |k| surface(semi, pi * i as f64 / n as f64, pi * k as f64 / n as f64))
            })
            .collect();
        (pts, semi.max_element() as f64 * pi / n as f64 * 2f64.sqrt())
    }

    fn on_surface(semi: Vec3, x: Vec3) -> f32 {
        (x / semi).length_squared() - 1.0
    }

    #[test]
    fn support_reaches_the_semi_axes_and_maximises_the_direction() {
        let semi = Vec3::new(0.3, 0.2, 0.1);
        let q = Quat::from_rotation_x(0.4) * Quat::from_rotation_z(1.1);
        for (axis, len) in [(Vec3::X, 0.3), (Vec3::NEG_Y, 0.2), (Vec3::Z, 0.1)] {
            let s = ellipsoid_support(q, semi, q * axis);
            assert!((s - q * axis * len).length() < 1e-6, "{s}");
        }
        let (pts, _) = samples(semi, 200);
        let d = Vec3::new(0.3, -0.5, 0.8).normalize();
        let s = ellipsoid_support(Quat::IDENTITY, semi, d);
        assert!(on_surface(semi, s).abs() < 1e-5);
        let best = pts
            .iter()
            .map(|p| p.dot(d.as_dvec3()))
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(s.dot(d) as f64 >= best - 1e-6, "{} < {best}", s.dot(d));
    }

    /// The nearest point lies on the surface and is no farther than any of 80,000 samples of
    /// it, nor nearer than the nearest sample less the samples' spacing; for points inside
    /// and outside, on the axes and the symmetry planes, and ellipsoids with equal axes.
    #[test]
    fn closest_on_ellipsoid_matches_sampling_of_the_surface() {
        for semi in [
            Vec3::new(0.4, 0.3, 0.2),
            Vec3::new(0.2, 0.3, 0.4),
            Vec3::new(0.3, 0.3, 0.1),
            Vec3::new(0.1, 0.3, 0.3),
            Vec3::splat(0.25),
        ] {
            let (pts, spacing) = samples(semi, 200);
            for i in -3..=3 {
                for j in -2..=2 {
                    for k in -2..=2 {
                        let p = Vec3::new(0.13 * i as f32, 0.11 * j as f32, 0.09 * k as f32);
                        let x = closest_on_ellipsoid(semi, p);
                        assert!(on_surface(semi, x).abs() < 1e-5, "{semi} {p}: {x}");
                        let d = (x - p).length() as f64;
                        let sampled = pts
                            .iter()
                            .map(|s| (*s - p.as_dvec3()).length())
                            .fold(f64::INFINITY, f64::min);
                        assert!(
                            d <= sampled + 1e-5 && d >= sampled - spacing,
                            "{semi} {p}: {d} vs sampled {sampled}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn closest_on_ellipsoid_inside_on_the_long_axis_leaves_the_plane() {
        // Semi-axes (4, 3, 2), p = (1, 0, 0): inside the evolute x = a² p/(a² − c²) = 4/3,
        // z = c √(1 − (x/a)²) = 2 √(8/9).
        let x = closest_on_ellipsoid(Vec3::new(4.0, 3.0, 2.0), Vec3::new(1.0, 0.0, 0.0));
        let want = Vec3::new(4.0 / 3.0, 0.0, 2.0 * (8.0f32 / 9.0).sqrt());
        assert!((x.x - want.x).abs() < 1e-6 && x.y == 0.0 && (x.z.abs() - want.z).abs() < 1e-6);
    }

    fn placed(centre: Vec3, q: Quat, semi: Vec3) -> Placed {
        Placed {
            centre,
            q,
            radius: semi.min_element(),
            shape: Shape::Ellipsoid { semi_axes: semi },
        }
    }

    #[test]
    fn equal_axes_touch_as_spheres() {
        let a = placed(
            Vec3::new(0.1, 0.2, 0.3),
            Quat::from_rotation_y(0.7),
            Vec3::splat(0.2),
        );
        for (offset, rb) in [
            (Vec3::new(0.3, 0.2, -0.1), 0.1),
            (Vec3::new(0.1, -0.1, 0.2), 0.15),
        ] {
            let b = placed(
                a.centre + offset,
                Quat::from_rotation_x(1.3),
                Vec3::splat(rb),
            );
            let t = ellipsoids_touch(&a, Vec3::splat(0.2), &b, Vec3::splat(rb));
            let want = offset.length() - 0.2 - rb;
            assert!((t.phi - want).abs() < 1e-6, "{} vs {want}", t.phi);
            assert!((t.n + offset.normalize()).length() < 1e-5, "{}", t.n);
            assert!((t.pa - t.pb - t.phi * t.n).length() < 1e-6);
        }
    }

    /// Separated ellipsoids in general orientation: Φ is the least distance between their
    /// surfaces, found independently as the least over 80,000 samples of a's surface of the
    /// distance to b's nearest point ([`closest_on_ellipsoid`], checked against sampling
    /// above), so within a's sample spacing of it.
    #[test]
    fn separated_ellipsoids_gap_matches_the_sampled_distance() {
        let (sa, sb) = (Vec3::new(0.3, 0.15, 0.08), Vec3::new(0.2, 0.2, 0.05));
        let cases = [
            (
                Vec3::new(0.45, 0.1, 0.2),
                Quat::from_rotation_z(0.8),
                Quat::from_rotation_x(0.5),
            ),
            (
                Vec3::new(0.0, 0.15, 0.4),
                Quat::from_rotation_y(1.2),
                Quat::from_rotation_z(-0.4),
            ),
            (
                Vec3::new(0.5, -0.2, 0.0),
                Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.9, 1.7),
                Quat::IDENTITY,
            ),
        ];
        let (pa, spa) = samples(sa, 200);
        for (offset, qa, qb) in cases {
            let a = placed(Vec3::ZERO, qa, sa);
            let b = placed(offset, qb, sb);
            let t = ellipsoids_touch(&a, sa, &b, sb);
            let sampled = pa
                .iter()
                .map(|p| {
                    let w = qa * p.as_vec3();
                    let local = qb.inverse() * (w - offset);
                    let inside = (local / sb).length_squared() < 1.0;
                    assert!(!inside, "{offset}: the bodies overlap");
                    (closest_on_ellipsoid(sb, local) - local).length() as f64
                })
                .fold(f64::INFINITY, f64::min);
            let phi = t.phi as f64;
            assert!(
                phi <= sampled + 1e-6 && phi >= sampled - spa,
                "{offset}: {phi} vs sampled {sampled}"
            );
            assert!((t.pa - t.pb - t.phi * t.n).length() < 1e-5, "{t:?}");
            assert!(on_surface(sa, qa.inverse() * (t.pa - a.centre)).abs() < 1e-5);
        }
    }

    /// Two equal ellipsoids (0.05, 0.1, 0.2) side by side along their shortest axis x, 0.09
    /// apart: the least separating translation is 0.1 − 0.09 along x (every other direction
    /// n has h_a(n) + h_b(n) ≥ 2·0.05 ≥ the overlap of centres n·d ≤ 0.09).
    #[test]
    fn overlapping_ellipsoids_depth_along_their_shortest_axis() {
        let semi = Vec3::new(0.05, 0.1, 0.2);
        let q = Quat::from_rotation_z(0.3);
        let a = placed(q * Vec3::new(0.09, 0.0, 0.0), q, semi);
        let b = placed(Vec3::ZERO, q, semi);
        let t = ellipsoids_touch(&a, semi, &b, semi);
        assert!((t.phi + 0.01).abs() < 1e-6, "{}", t.phi);
        assert!((t.n - q * Vec3::X).length() < 1e-5, "{}", t.n);
    }

    /// Overlapping and separated pairs in scattered orientations: Φ is the maximum over unit n
    /// of g(n) (the definition), so it is no less than g at any of 80,000 sampled directions,
    /// and no more than their best plus the sampling's reach (g is smooth at its maximum, so
    /// the nearest sample falls short by O(spacing²) of the pair's size).
    #[test]
    fn the_gap_is_the_global_maximum_of_the_separation_over_sampled_normals() {
        let (sa, sb) = (Vec3::new(0.3, 0.15, 0.08), Vec3::new(0.2, 0.12, 0.05));
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let pi = std::f64::consts::PI;
        let normals: Vec<DVec3> = (0..=200)
            .flat_map(|i| {
                (0..400).map(move |k| {
                    let (t, p) = (pi * i as f64 / 200.0, pi * k as f64 / 200.0);
                    DVec3::new(t.sin() * p.cos(), t.sin() * p.sin(), t.cos())
                })
            })
            .collect();
        let mut overlapping = 0;
        for case in 0..12 {
            let mut quat = || {
                Quat::from_euler(
                    glam::EulerRot::XYZ,
                    (6.0 * next()) as f32,
                    (6.0 * next()) as f32,
                    (6.0 * next()) as f32,
                )
            };
            let (qa, qb) = (quat(), quat());
            // Centres 0.15 to 0.5 apart: from deep overlap to separated.
            let dir = DVec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize();
            let offset = (dir * (0.15 + 0.35 * next())).as_vec3();
            let (a, b) = (placed(offset, qa, sa), placed(Vec3::ZERO, qb, sb));
            let t = ellipsoids_touch(&a, sa, &b, sb);
            let (ma, mb) = (Metric::of(qa, sa), Metric::of(qb, sb));
            let d = offset.as_dvec3();
            let sampled = normals
                .iter()
                .map(|&n| separation(d, &ma, &mb, n))
                .fold(f64::NEG_INFINITY, f64::max);
            let phi = t.phi as f64;
            overlapping += usize::from(phi < 0.0);
            assert!(
                phi >= sampled - 1e-6 && phi <= sampled + 2e-3,
                "case {case}: Φ {phi} vs sampled max {sampled}"
            );
        }
        assert!(
            (3..=9).contains(&overlapping),
            "{overlapping} of 12 overlap"
        );
    }
}
