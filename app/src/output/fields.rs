//! The files of `[fields]`: a grid's fields as a VTK XML image (`.vti`, point data on the
//! nodes), a profile's as CSV, one file per output step ([`crate::scene::FieldsOutput`]).

use super::vtk_xml::{FrameEncoding, VtkXml};
use grains::fields::{Fields, FieldsAverage, Sampling, Tensor};
use grains::Vec3;
use std::fmt::Write;

/// The tensors' components in the order their columns and arrays list them (row-major).
const COMPONENTS: [&str; 9] = ["xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz"];

/// A tensor's components, row-major.
pub(crate) fn flat(t: &Tensor) -> [f64; 9] {
    let mut out = [0.0; 9];
    for (o, v) in out.iter_mut().zip(t.iter().flatten()) {
        *o = *v;
    }
    out
}

/// The fields on a grid as a `.vti` at simulated time `time` (s), its arrays in `encoding`:
/// point data `density` (kg/m³), `volume_fraction` (where every grain is a sphere),
/// `velocity` (m/s), and the 3 × 3 tensors (row-major, Float64) `stress` (σᵏ + σᶜ, Pa,
/// compression-positive), `contact_stress`, `kinetic_stress` and `fabric`.
pub fn vti(fields: &Fields, sampling: &Sampling, time: f64, encoding: FrameEncoding) -> Vec<u8> {
    let Sampling::Grid {
        origin,
        spacing,
        count,
    } = sampling
    else {
        unreachable!("a profile is written as CSV")
    };
    let extent = format!("0 {} 0 {} 0 {}", count[0] - 1, count[1] - 1, count[2] - 1);
    let attributes = format!(
        " WholeExtent=\"{extent}\" Origin=\"{} {} {}\" Spacing=\"{} {} {}\"",
        origin.x, origin.y, origin.z, spacing.x, spacing.y, spacing.z
    );
    let n = fields.density.len();
    let mut f = VtkXml::with_attributes("ImageData", &attributes, encoding, 40 * n);
    f.tag("<FieldData>");
    f.field("TimeValue", time);
    f.tag("</FieldData>");
    f.tag(&format!("<Piece Extent=\"{extent}\">"));
    f.tag("<PointData Scalars=\"density\" Vectors=\"velocity\" Tensors=\"stress\">");
    f.array(Some("density"), fields.density.iter().map(|&d| [d]));
    if let Some(v) = &fields.volume_fraction {
        f.array(Some("volume_fraction"), v.iter().map(|&x| [x]));
    }
    f.array(Some("velocity"), fields.velocity.iter().copied());
    let total = (0..n).map(|k| flat(&fields.stress(k)));
    f.array(Some("stress"), total);
    for (name, tensors) in [
        ("contact_stress", &fields.contact_stress),
        ("kinetic_stress", &fields.kinetic_stress),
        ("fabric", &fields.fabric),
    ] {
        f.array(Some(name), tensors.iter().map(flat));
    }
    f.tag("</PointData>\n<CellData>\n</CellData>\n</Piece>");
    f.finish()
}

/// The fields along a profile as CSV: the coordinate along its axis (m), `density`,
/// `volume_fraction` (empty where some grain is not a sphere), the velocity's components,
/// then `stress`, `contact_stress`, `kinetic_stress` and `fabric`, nine components each.
pub fn profile_csv(fields: &Fields, sampling: &Sampling) -> String {
    let Sampling::Profile { axis, .. } = *sampling else {
        unreachable!("a grid is written as .vti")
    };
    let mut out = format!(
        "{}_m,density_kg_m3,volume_fraction,vx_m_s,vy_m_s,vz_m_s",
        ["x", "y", "z"][axis]
    );
    for name in ["stress", "contact_stress", "kinetic_stress"] {
        for c in COMPONENTS {
            let _ = write!(out, ",{name}_{c}_pa");
        }
    }
    for c in COMPONENTS {
        let _ = write!(out, ",fabric_{c}");
    }
    out.push('\n');
    for k in 0..fields.density.len() {
        let _ = write!(out, "{},{}", fields.points[k][axis], fields.density[k]);
        match &fields.volume_fraction {
            Some(v) => {
                let _ = write!(out, ",{}", v[k]);
            }
            None => out.push(','),
        }
        for v in fields.velocity[k] {
            let _ = write!(out, ",{v}");
        }
        let tensors = [
            fields.stress(k),
            fields.contact_stress[k],
            fields.kinetic_stress[k],
            fields.fabric[k],
        ];
        for t in &tensors {
            for v in flat(t) {
                let _ = write!(out, ",{v}");
            }
        }
        out.push('\n');
    }
    out
}

/// A time average in progress as the bytes a checkpoint keeps of it (little-endian: the sample
/// count and point count as u32, a flag for the volume fraction, then the points (f32) and the
/// sums (f64) field by field), so that a resumed run averages the same samples bit for bit.
pub fn average_to_bytes(a: &FieldsAverage) -> Vec<u8> {
    let n = a.points.len();
    let mut b = Vec::with_capacity(16 + n * (12 + 8 * 41));
    b.extend_from_slice(&a.samples.to_le_bytes());
    b.extend_from_slice(&(n as u32).to_le_bytes());
    b.push(u8::from(a.volume_fraction.is_some()));
    for x in a.points.iter().flat_map(|p| p.to_array()) {
        b.extend_from_slice(&x.to_le_bytes());
    }
    let tensors = |t: &[Tensor]| t.iter().flat_map(flat).collect::<Vec<_>>();
    let sums = a
        .density
        .iter()
        .copied()
        .chain(a.volume_fraction.iter().flatten().copied())
        .chain(a.momentum.iter().flatten().copied())
        .chain(
            [
                &a.convection,
                &a.kinetic_stress,
                &a.contact_stress,
                &a.fabric,
            ]
            .into_iter()
            .flat_map(|t| tensors(t)),
        );
    for x in sums {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b
}

/// Reads what [`average_to_bytes`] wrote; `None` where the bytes do not hold one whole.
pub fn average_from_bytes(b: &[u8]) -> Option<FieldsAverage> {
    let u32_at = |k: usize| Some(u32::from_le_bytes(b.get(k..k + 4)?.try_into().ok()?));
    let (samples, n) = (u32_at(0)?, u32_at(4)? as usize);
    let phi = match *b.get(8)? {
        0 => false,
        1 => true,
        _ => return None,
    };
    let values = 1 + usize::from(phi) + 3 + 4 * 9;
    let floats = 9usize.checked_add(n.checked_mul(12)?)?;
    if b.len() != floats.checked_add(n.checked_mul(8 * values)?)? {
        return None;
    }
    let f32_at = |k: usize| f32::from_le_bytes(b[k..k + 4].try_into().expect("4 bytes"));
    let points = (0..n)
        .map(|i| Vec3::new(f32_at(9 + 12 * i), f32_at(13 + 12 * i), f32_at(17 + 12 * i)))
        .collect();
    let mut at = floats;
    let mut take = |count: usize| -> Vec<f64> {
        let out = (0..count)
            .map(|i| f64::from_le_bytes(b[at + 8 * i..at + 8 * i + 8].try_into().expect("8")))
            .collect();
        at += 8 * count;
        out
    };
    let tensors = |v: Vec<f64>| -> Vec<Tensor> {
        v.chunks_exact(9)
            .map(|c| [[c[0], c[1], c[2]], [c[3], c[4], c[5]], [c[6], c[7], c[8]]])
            .collect()
    };
    let density = take(n);
    let volume_fraction = phi.then(|| take(n));
    let momentum = take(3 * n)
        .chunks_exact(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    Some(FieldsAverage {
        samples,
        points,
        density,
        volume_fraction,
        momentum,
        convection: tensors(take(9 * n)),
        kinetic_stress: tensors(take(9 * n)),
        contact_stress: tensors(take(9 * n)),
        fabric: tensors(take(9 * n)),
    })
}
