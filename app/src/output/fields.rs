//! The files of `[fields]`: a grid's fields as a VTK XML image (`.vti`, point data on the
//! nodes), a profile's as CSV, one file per output step ([`crate::scene::FieldsOutput`]).

use super::vtk_xml::{FrameEncoding, VtkXml};
use grains::fields::{Fields, Sampling, Tensor};
use std::fmt::Write;

/// The tensors' components in the order their columns and arrays list them (row-major).
const COMPONENTS: [&str; 9] = ["xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz"];

fn flat(t: &Tensor) -> [f64; 9] {
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
