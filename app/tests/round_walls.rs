//! The scene keys of cones, disks and annuli, caps, active windows and fills into cylinders
//! and cones: a hopper scene reads into the walls it describes with its grains inside the cone,
//! and every bad value is refused at its line and key.

use grains::{WallShape, World};
use grains_app::scene::Scene;
use std::path::Path;

/// A hopper (small radius 0.05 m at z = 0 to 0.25 m at z = 0.4) with an orifice plate at its
/// small end, a gate disk under the orifice that opens at 0.5 s, an annulus below, 60 grains
/// drawn at random inside the cone, and the force on the hopper (mantle and cap) and the torque
/// on the gate as observables.
const HOPPER: &str = r#"[scene]
name = "hopper"
duration = 0.01

[settings]
preset = "rigid"
h = 0.001

[[materials]]
name = "grain"
friction = 0.5

[[containers]]
kind = "cone"
name = "hopper"
centre = [0.0, 0.0, 0.2]
axis = [0.0, 0.0, 1.0]
small_radius = 0.05
large_radius = 0.25
length = 0.4
caps = "low"
cap_hole = 0.02

[[containers]]
kind = "disk"
name = "gate"
centre = [0.0, 0.0, -0.01]
normal = [0.0, 0.0, 1.0]
radius = 0.05
active_until = 0.5

[[containers]]
kind = "annulus"
centre = [0.0, 0.0, -0.3]
normal = [0.0, 0.0, 1.0]
radius = 0.5
inner_radius = 0.1

[[bodies]]
generator = "random_fill"
name = "fill"
region = "cone"
region_centre = [0.0, 0.0, 0.2]
region_axis = [0.0, 0.0, 1.0]
region_small_radius = 0.05
region_large_radius = 0.25
region_length = 0.4
radius = 0.01
density = 2500.0
count = 60

[[observables]]
kind = "wall_force"
wall = "hopper"

[[observables]]
kind = "wall_torque"
wall = "gate"
point = [0.0, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]
"#;

#[test]
fn a_hopper_scene_reads_into_its_cone_cap_gate_and_annulus_with_the_grains_inside() {
    let s = Scene::parse(Path::new("hopper.toml"), HOPPER).unwrap();
    let walls = s.builder().walls();
    assert_eq!(walls.len(), 4);
    assert!(matches!(
        walls[0].shape,
        WallShape::Cone { small_radius, large_radius, half_length, inside: true, .. }
            if small_radius == 0.05 && large_radius == 0.25 && half_length == 0.2
    ));
    // The cap closes the small end (z = 0) facing up into the hopper, with its orifice.
    assert_eq!(
        walls[1].shape,
        WallShape::Disk {
            outer: 0.05,
            inner: 0.02
        }
    );
    assert!(walls[1].origin.z.abs() < 1e-6 && walls[1].normal.z > 0.99);
    assert_eq!(walls[2].active.until, 0.5);
    assert!(walls[2].active.from.is_infinite());
    assert_eq!(
        walls[3].shape,
        WallShape::Disk {
            outer: 0.5,
            inner: 0.1
        }
    );
    let bodies = s.builder().bodies();
    assert_eq!(bodies.len(), 60);
    for b in bodies {
        // Inside the cone, clear of the mantle: ρ + r √(1 + k²) ≤ R(z), k = 0.5.
        let p = b.position;
        let rho = p.truncate().length();
        let radius = 0.05 + 0.5 * p.z;
        assert!(
            rho + b.radius * 1.25f32.sqrt() <= radius + 1e-6 && p.z >= b.radius,
            "{p} outside"
        );
    }
    let mut world: World = s.world(None).unwrap();
    world.run(5).unwrap();
}

/// Parses HOPPER with `from` replaced by `to`; asserts the error is at `needle`'s line, `key`.
fn refused(from: &str, to: &str, needle: &str, key: &str) {
    let at = HOPPER.find(from).unwrap_or_else(|| panic!("{from}"));
    let text = HOPPER.replacen(from, to, 1);
    // The needle's first place at or after the change, else its last before it (the table's
    // kind line, for a key that is missing).
    let place = text[at..]
        .find(needle)
        .map(|k| at + k)
        .or_else(|| text[..at].rfind(needle))
        .unwrap_or_else(|| panic!("{needle}"));
    let line = text[..place].matches('\n').count() + 1;
    let Err(e) = Scene::parse(Path::new("s.toml"), &text) else {
        panic!("accepted: {to}");
    };
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("s.toml:{line}: key `{key}`")),
        "{msg} (expected line {line}, key {key})"
    );
}

#[test]
fn bad_cones_disks_caps_windows_and_round_fills_are_refused_at_their_key() {
    refused(
        "small_radius = 0.05",
        "small_radius = -0.05",
        "small_radius",
        "small_radius",
    );
    refused(
        "large_radius = 0.25",
        "large_radius = 0.04",
        "large_radius",
        "large_radius",
    );
    refused("length = 0.4", "length = 0.0", "length", "length");
    refused("cap_hole = 0.02", "cap_hole = 0.05", "cap_hole", "cap_hole");
    refused("caps = \"low\"", "caps = \"top\"", "caps", "caps");
    refused(
        "caps = \"low\"\ncap_hole = 0.02",
        "cap_hole = 0.02",
        "cap_hole",
        "cap_hole",
    );
    refused(
        "radius = 0.05\nactive_until",
        "radius = -0.05\nactive_until",
        "radius",
        "radius",
    );
    refused(
        "active_until = 0.5",
        "active_from = 1.0\nactive_until = 0.5",
        "active_until",
        "active_until",
    );
    refused(
        "active_until = 0.5",
        "active_until = -1.0",
        "active_until",
        "active_until",
    );
    refused(
        "inner_radius = 0.1",
        "",
        "kind = \"annulus\"",
        "inner_radius",
    );
    refused(
        "inner_radius = 0.1",
        "inner_radius = 0.6",
        "inner_radius",
        "inner_radius",
    );
    refused(
        "radius = 0.05\nactive_until",
        "radius = 0.05\ncaps = \"both\"\nactive_until",
        "caps = \"both\"",
        "caps",
    );
    refused(
        "region_large_radius = 0.25",
        "region_large_radius = 0.01",
        "region_large_radius",
        "region_large_radius",
    );
    refused(
        "region = \"cone\"",
        "region = \"sphere\"",
        "region",
        "region",
    );
    refused(
        "wall = \"hopper\"",
        "wall = \"hopper\"\npart = \"floor\"",
        "part",
        "part",
    );
    refused(
        "region_length = 0.4",
        "region_length = 0.4\nregion_radius = 0.1",
        "region_radius",
        "region_radius",
    );
}
