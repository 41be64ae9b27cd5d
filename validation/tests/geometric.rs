//! The chakraborty paper's examples on the geometrically implicit stepper (V16–V20) and the free
//! rotation of an asymmetric body (V21): each case's measurement printed and held to its verdict.

use grains::geometric::GapModel;
use grains_validation::cases::free_rotation::{v21, V21};
use grains_validation::cases::geometric::{v16, v17, v18, v19_passes, v19_run, V19_STEPS};
use grains_validation::cases::polygon_disc::V20;
use grains_validation::{Case, Setup};

#[test]
fn v16_spinning_sphere_stops_at_the_analytic_time() {
    let m = v16().unwrap();
    println!("V16: {m:?}");
    assert!(m.passes(), "{m:?}");
}

#[test]
fn v17_disc_rolls_without_energy_loss() {
    let m = v17().unwrap();
    println!("V17: {m:?}");
    assert!(m.passes(), "{m:?}");
}

#[test]
fn v18_sphere_on_two_spheres_separates_as_in_the_paper() {
    let m = v18().unwrap();
    println!("V18: {m:?}");
    assert!(m.passes(), "{m:?}");
}

#[test]
fn v19_ellipsoids_end_steps_without_penetration_where_a_linearised_gap_penetrates() {
    let mut runs = Vec::new();
    for h in V19_STEPS {
        for model in [GapModel::GeometricallyImplicit, GapModel::Linearised] {
            let r = v19_run(h, model).unwrap();
            println!(
                "V19: h = {h}, {model:?}: deepest penetration {:.2e}, in contact {:.0} %, Newton its ≤ {}",
                r.deepest,
                100.0 * r.in_contact,
                r.most_iterations
            );
            runs.push(r);
        }
    }
    assert!(v19_passes(&runs), "{runs:?}");
}

#[test]
fn v20_polygonal_discs_lose_energy_where_the_implicit_disc_does_not() {
    let m = V20.run(&Setup::default()).unwrap();
    println!("V20: {}", V20.measured(&m));
    assert!(m.passes(), "{m:?}");
}

#[test]
fn v21_box_flips_about_its_middle_axis_with_the_elliptic_period() {
    for threads in [1, 2] {
        let m = v21(Some(threads)).unwrap();
        println!("V21 ({threads} threads): {}", V21.measured(&m));
        assert!(m.passes(), "{m:?}");
    }
}
