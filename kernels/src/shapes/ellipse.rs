//! Ellipses (planar mode): the support point and the nearest point of (x/a)² + (z/b)² ≤ 1 in
//! the body's x–z plane.

use glam::{Quat, Vec3};

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
