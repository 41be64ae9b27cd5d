//! The unit tests of `src/clump.rs`.

use grains::clump::{ClumpTemplate, INTEGRATION_TOLERANCE};
use grains::glam::{DVec3, Vec3, Vec4};
use std::f64::consts::PI;

fn rel(got: f64, want: f64) -> f64 {
    (got - want).abs() / want.abs()
}

/// One sphere: V = 4/3 π r³, centre at its centre, I = 2/5 ρV r² about every axis, to the
/// integration's [`INTEGRATION_TOLERANCE`].
#[test]
fn one_sphere_has_the_closed_form_mass_properties() {
    let r = 0.3f64;
    let t = ClumpTemplate::new(&[Vec4::new(0.5, -0.2, 1.0, r as f32)]).unwrap();
    let v = 4.0 / 3.0 * PI * r.powi(3);
    assert!(
        rel(t.volume(), v) < INTEGRATION_TOLERANCE,
        "{} vs {v}",
        t.volume()
    );
    assert!((t.centre() - Vec3::new(0.5, -0.2, 1.0)).length() < 1e-6);
    for k in 0..3 {
        let i = t.unit_moments()[k];
        assert!(rel(i, 0.4 * v * r * r) < INTEGRATION_TOLERANCE, "{i}");
    }
}

/// Two disjoint spheres a and b on a skew line: V = V_a + V_b, the centre at the
/// volume-weighted mean, and about it the tensor of each sphere (2/5 V r² E) moved by the
/// parallel-axis theorem, V (‖d‖² E − d dᵀ) for its offset d; the principal moments are the
/// closed-form tensor's eigenvalues: the axial one Σ 2/5 V r², the transverse ones that
/// plus V_a V_b/(V_a + V_b) ‖c_a − c_b‖².
#[test]
fn two_disjoint_spheres_follow_the_parallel_axis_theorem() {
    let (ra, rb) = (0.2f64, 0.1f64);
    let (ca, cb) = (DVec3::new(0.0, 0.0, 0.0), DVec3::new(0.3, 0.4, 0.0));
    let t = ClumpTemplate::new(&[
        ca.as_vec3().extend(ra as f32),
        cb.as_vec3().extend(rb as f32),
    ])
    .unwrap();
    let (va, vb) = (4.0 / 3.0 * PI * ra.powi(3), 4.0 / 3.0 * PI * rb.powi(3));
    assert!(rel(t.volume(), va + vb) < INTEGRATION_TOLERANCE);
    let c = (ca * va + cb * vb) / (va + vb);
    assert!((t.centre().as_dvec3() - c).length() < INTEGRATION_TOLERANCE * 0.5);
    let axial = 0.4 * (va * ra * ra + vb * rb * rb);
    let transverse = axial + va * vb / (va + vb) * (ca - cb).length_squared();
    let mut got = t.unit_moments().to_array();
    got.sort_by(f64::total_cmp);
    assert!(
        rel(got[0], axial) < INTEGRATION_TOLERANCE,
        "{got:?} vs {axial}"
    );
    assert!(
        rel(got[1], transverse) < INTEGRATION_TOLERANCE,
        "{got:?} vs {transverse}"
    );
    assert!(
        rel(got[2], transverse) < INTEGRATION_TOLERANCE,
        "{got:?} vs {transverse}"
    );
    // The members re-expressed: the line of centres is a principal axis, through the origin.
    let d = t.members()[0].truncate() - t.members()[1].truncate();
    assert!((d.length() as f64 - 0.5).abs() < 1e-6);
}

/// Two equal spheres of radius r whose centres are d < 2r apart: their union's volume is
/// 2 · 4/3 π r³ minus the lens π (4r + d)(2r − d)²/12.
#[test]
fn two_overlapping_spheres_lose_the_lens() {
    let (r, d) = (0.1f64, 0.12f64);
    let t = ClumpTemplate::rod(2, r as f32, d as f32).unwrap();
    let lens = PI * (4.0 * r + d) * (2.0 * r - d).powi(2) / 12.0;
    let v = 2.0 * 4.0 / 3.0 * PI * r.powi(3) - lens;
    assert!(
        rel(t.volume(), v) < INTEGRATION_TOLERANCE,
        "{} vs {v}",
        t.volume()
    );
    assert!(t.centre().length() < 1e-6);
}

/// Too many or bad spheres are refused, naming what is wrong.
#[test]
fn bad_templates_are_refused() {
    let nine = vec![Vec4::new(0.0, 0.0, 0.0, 1.0); 9];
    assert!(ClumpTemplate::new(&nine).unwrap_err().0.contains("1 to 8"));
    let bad = [Vec4::new(0.0, 0.0, 0.0, -1.0)];
    assert!(ClumpTemplate::new(&bad).unwrap_err().0.contains("sphere 0"));
    assert!(ClumpTemplate::rod(2, 0.1, 0.0).is_err());
}
