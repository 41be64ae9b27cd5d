//! Checkpoints (format 5) lose nothing and refuse what is wrong: the header names the format, a
//! checksum finds damage, the physics fingerprint names what changed, and a restore checks every
//! field before it replaces anything. Every refusal is one line. Format 4 (before shaped
//! insertions) is still read.

use grains::snapshot::{seal, FORMAT};
use grains::{
    Insertion, Material, Rate, Region, Settings, SizeDistribution, Snapshot, SnapshotError, Solver,
    Vec3, WallDesc, World,
};

mod common;

/// The message of `e`, after checking it is one line.
fn one_line(e: &SnapshotError) -> String {
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "{msg}");
    msg
}

#[test]
fn the_header_names_format_5_and_formats_before_4_are_refused_by_name() {
    let (_, bytes) = common::checkpoint(1, 20, b"");
    assert_eq!(FORMAT, 5);
    assert_eq!(&bytes[..8], b"GRAINSV5");
    for (digit, word) in [
        (b'1', "older grains, format 1"),
        (b'2', "older grains, format 2"),
        (b'3', "older grains, format 3"),
    ] {
        let mut old = bytes.clone();
        old[7] = digit;
        let msg = one_line(&Snapshot::from_bytes(&old).unwrap_err());
        assert!(msg.contains(word), "{msg}");
        assert!(msg.contains("this version reads formats 4 to 5"), "{msg}");
    }
    let mut newer = bytes.clone();
    newer[7] = b'6';
    let msg = one_line(&Snapshot::from_bytes(&newer).unwrap_err());
    assert!(msg.contains("newer grains, format 6"), "{msg}");
    let msg = one_line(&Snapshot::from_bytes(b"PNG not a checkpoint").unwrap_err());
    assert!(msg.contains("bad header"), "{msg}");
}

/// A sphere feed on a floor (format 4 held no placing insertions: its grains were spheres).
fn sphere_feed() -> World {
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.4));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    let mut ins = Insertion::new(
        Region::Box {
            min: Vec3::new(-0.05, -0.05, 0.1),
            max: Vec3::new(0.05, 0.05, 0.15),
        },
        Rate::CountPerSecond(1000.0),
        SizeDistribution::uniform(0.003, 0.004),
        2500.0,
    );
    ins.velocity = Vec3::new(0.0, 0.0, -0.5);
    b.insert(ins);
    b.build().unwrap()
}

/// A checkpoint of a sphere feed rewritten as format 4 wrote it (nine counts, no placing
/// insertions at the end) is read and resumes to the same bits as the run it was taken from.
#[test]
fn a_format_4_checkpoint_of_a_sphere_feed_resumes_bit_identically() {
    let mut w = sphere_feed();
    w.run(300).unwrap();
    let bytes = w.snapshot().unwrap().to_bytes();
    let n = w.len();
    assert!(n > 100, "{n} grains placed");
    // The tenth count (placing insertions, n) goes, and the n u32 that end the file.
    let mut old = bytes[..12 + 9 * 8].to_vec();
    old.extend_from_slice(&bytes[12 + 10 * 8..bytes.len() - 4 * n]);
    old[7] = b'4';
    seal(&mut old);
    let snap = Snapshot::from_bytes(&old).unwrap();
    assert!(snap.lifecycle.placed_by.is_empty());
    let mut resumed = sphere_feed();
    resumed.restore(&snap).unwrap();
    w.run(200).unwrap();
    resumed.run(200).unwrap();
    assert_eq!(w.ids(), resumed.ids());
    assert!(w.bodies() == resumed.bodies(), "the bodies differ");
    assert_eq!(w.lifecycle_state(), resumed.lifecycle_state());
}

#[test]
fn the_checksum_finds_a_changed_byte_and_the_extra_bytes_come_back() {
    let (w, bytes) = common::checkpoint(2, 30, b"the caller's own bytes");
    let snap = Snapshot::from_bytes(&bytes).unwrap();
    assert_eq!(snap.extra, b"the caller's own bytes");
    assert_eq!(&snap.fingerprint, w.fingerprint());
    assert!(!snap.warm_moments.is_empty(), "the scene has moment rows");
    for at in [12, 40, bytes.len() / 2, bytes.len() - 1] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        let e = Snapshot::from_bytes(&bad).unwrap_err();
        assert_eq!(e, SnapshotError::Checksum, "byte {at}");
        assert!(one_line(&e).contains("damaged"));
    }
}

#[test]
fn a_count_larger_than_the_file_is_refused_before_allocating() {
    let (_, bytes) = common::checkpoint(0, 10, b"");
    // The counts follow the 12 header bytes: steps, bodies, keys, moments, joints, text, extra.
    for (k, huge) in [(1, u64::MAX), (1, 1 << 40), (2, 1 << 59), (5, u64::MAX / 2)] {
        let mut bad = bytes.clone();
        bad[12 + 8 * k..20 + 8 * k].copy_from_slice(&huge.to_le_bytes());
        seal(&mut bad);
        let msg = one_line(&Snapshot::from_bytes(&bad).unwrap_err());
        assert!(msg.contains("truncated or corrupt"), "{msg}");
    }
}

#[test]
fn a_world_with_other_physics_is_refused_naming_each_change() {
    let (_, bytes) = common::checkpoint(0, 20, b"");
    let snap = Snapshot::from_bytes(&bytes).unwrap();
    let other = Settings {
        h: 0.002,
        solver: Solver::GaussSeidel {
            sweeps: 50,
            tolerance: 1e-6,
            omega: 1.0,
        },
        ..Settings::default()
    };
    let mut w = common::world_with(0, other);
    let msg = one_line(&w.restore(&snap).unwrap_err());
    assert!(
        msg.starts_with("the scene's physics changed since the checkpoint: "),
        "{msg}"
    );
    assert!(msg.contains("h (0.001 → 0.002)"), "{msg}");
    assert!(msg.contains("sweeps (100 → 50)"), "{msg}");
    assert!(!msg.contains("gravity"), "{msg}");
    assert_eq!(w.steps(), 0, "a refused restore changes nothing");

    // A material's friction: the world is built by hand with another μ.
    let mut b = World::builder(Settings::default());
    b.material(Material::new(0.3));
    b.body(grains::Body::sphere(grains::Vec3::ZERO, 0.5, 1.0).fixed());
    let mut w = b.build().unwrap();
    let msg = one_line(&w.restore(&snap).unwrap_err());
    assert!(msg.contains("material 0 friction (0.4 → 0.3)"), "{msg}");
    assert!(msg.contains("bodies (7 → 1)"), "{msg}");
    assert!(msg.contains("body radii"), "{msg}");
}

#[test]
fn threads_and_the_read_back_interval_are_not_physics() {
    let (mut straight, bytes) = common::checkpoint(1, 40, b"");
    let snap = Snapshot::from_bytes(&bytes).unwrap();
    straight.run(40).unwrap();
    let mut w = common::world_with(
        1,
        Settings {
            threads: 2,
            sync_every: 7,
            ..Settings::default()
        },
    );
    w.restore(&snap).unwrap();
    w.run(40).unwrap();
    assert_eq!(w.bodies(), straight.bodies(), "the resumed run differs");
}

/// `snap` with `edit` applied must be refused by scene `k`'s world with a message containing
/// `word`, and the world must be left as it was.
fn refused(k: usize, snap: &Snapshot, edit: impl Fn(&mut Snapshot), word: &str) {
    let mut bad = snap.clone();
    edit(&mut bad);
    let mut w = common::world(k);
    let before = w.bodies().clone();
    let msg = one_line(&w.restore(&bad).unwrap_err());
    assert!(msg.contains(word), "{word}: {msg}");
    assert_eq!(w.bodies(), &before, "{word}: the world changed");
    assert_eq!(w.steps(), 0);
    // Through bytes (sealed again), a refusal too (by the reader where the lengths disagree).
    if let Ok(again) = Snapshot::from_bytes(&bad.to_bytes()) {
        assert!(w.restore(&again).is_err(), "{word}");
    }
}

#[test]
fn restore_checks_every_field_against_the_world() {
    let (_, bytes) = common::checkpoint(1, 40, b"");
    let snap = Snapshot::from_bytes(&bytes).unwrap();
    assert!(snap.warm_keys.len() >= 2, "the box scene has contacts");
    refused(
        1,
        &snap,
        |s| s.bodies.pos_radius[3].w = 0.03,
        "body 3 radius",
    );
    refused(
        1,
        &snap,
        |s| s.bodies.motion[2].inv_mass *= 2.0,
        "body 2 mass",
    );
    refused(1, &snap, |s| s.bodies.material[4] = 7, "body 4 material");
    refused(1, &snap, |s| s.bodies.kind[0] = 9, "body 0 kind");
    refused(
        1,
        &snap,
        |s| s.bodies.pos_radius[5].x = f32::NAN,
        "body 5 position",
    );
    refused(
        1,
        &snap,
        |s| s.bodies.motion[1].angular[2] = f32::INFINITY,
        "body 1 velocity",
    );
    refused(
        1,
        &snap,
        |s| s.bodies.orientation[6].w = 2.0,
        "unit quaternion",
    );
    refused(
        1,
        &snap,
        |s| {
            s.bodies.kind.pop();
        },
        "bodies but",
    );
    refused(1, &snap, |s| s.warm_keys.swap(0, 1), "warm-start key 1");
    refused(
        1,
        &snap,
        |s| *s.warm_keys.last_mut().unwrap() = 99 << 32,
        "names no pair",
    );
    refused(
        1,
        &snap,
        |s| s.warm_keys[0] = (s.warm_keys[0] >> 32) * 0x1_0000_0001,
        "names no pair",
    );
    refused(1, &snap, |s| s.warm_impulses[1][0] = f32::NAN, "not finite");
    refused(
        1,
        &snap,
        |s| s.warm_moments = vec![[0.0; 4]],
        "moment impulses",
    );
    refused(
        1,
        &snap,
        |s| s.joint_impulses = vec![0.0; 3],
        "joint impulses",
    );
    refused(
        1,
        &snap,
        |s| {
            s.warm_impulses.pop();
        },
        "warm-start impulses",
    );
}

#[test]
fn joint_impulses_are_checked_against_the_joint_rows() {
    let (_, bytes) = common::checkpoint(3, 30, b"");
    let snap = Snapshot::from_bytes(&bytes).unwrap();
    assert_eq!(
        snap.joint_impulses.len(),
        4 * 3 + 1,
        "four ball joints and a spring"
    );
    refused(
        3,
        &snap,
        |s| {
            s.joint_impulses.pop();
        },
        "joint impulses",
    );
    refused(
        3,
        &snap,
        |s| s.joint_impulses[2] = f32::NEG_INFINITY,
        "not finite",
    );
    let mut w = common::world(3);
    w.restore(&snap).unwrap();
}

#[test]
fn settings_changed_after_build_are_in_the_fingerprint() {
    let mut w = common::world(1);
    w.run(10).unwrap();
    let coarse = Settings {
        h: 0.002,
        ..*w.settings()
    };
    w.set_settings(coarse).unwrap();
    w.run(10).unwrap();
    let snap = w.snapshot().unwrap();
    let msg = one_line(&common::world(1).restore(&snap).unwrap_err());
    assert!(msg.contains("h (0.002 → 0.001)"), "{msg}");
    common::world_with(1, coarse).restore(&snap).unwrap();
}
