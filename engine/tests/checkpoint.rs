//! Checkpoints (format 9) lose nothing and refuse what is wrong: the header names the format, a
//! checksum finds damage, the physics fingerprint names what changed, a distributed run's cuts
//! must be a tree of its ranks, and a restore checks every field before it replaces anything.
//! Every refusal is one line. Formats 4 (before shaped insertions), 5 (before the cuts), 6
//! (before the adaptive step's state), 7 (before the servo walls) and 8 (before the broken
//! bonds) are still read.

use grains::decomposition::{Bisection, NODE_BYTES};
use grains::snapshot::{seal, FORMAT};
use grains::{
    Insertion, Material, Rate, Region, Settings, SizeDistribution, Snapshot, SnapshotError, Solver,
    Vec3, WallDesc, World,
};

use crate::common;

/// The message of `e`, after checking it is one line.
fn one_line(e: &SnapshotError) -> String {
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "{msg}");
    msg
}

#[test]
fn the_header_names_format_9_and_formats_before_4_are_refused_by_name() {
    let (_, bytes) = common::checkpoint(1, 20, b"");
    assert_eq!(FORMAT, 9);
    assert_eq!(&bytes[..8], b"GRAINSV9");
    for (digit, word) in [
        (b'1', "older grains, format 1"),
        (b'2', "older grains, format 2"),
        (b'3', "older grains, format 3"),
    ] {
        let mut old = bytes.clone();
        old[7] = digit;
        let msg = one_line(&Snapshot::from_bytes(&old).unwrap_err());
        assert!(msg.contains(word), "{msg}");
        assert!(msg.contains("this version reads formats 4 to 9"), "{msg}");
    }
    let mut newer = bytes.clone();
    // The byte after '9' is format 10.
    newer[7] = b':';
    let msg = one_line(&Snapshot::from_bytes(&newer).unwrap_err());
    assert!(msg.contains("newer grains, format 10"), "{msg}");
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
    // The tenth to fourteenth counts (placing insertions, n; the cuts' ranks, 0; the adaptive
    // step's bytes, 0; the servo walls, 0; the broken bonds, 0) go, and the n u32 that end the
    // file.
    let mut old = bytes[..count_at(9)].to_vec();
    old.extend_from_slice(&bytes[count_at(14)..bytes.len() - 4 * n]);
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

/// Offset of count `k` (0: steps, …, 9: placing insertions, 10: the cuts' ranks, 11: the
/// adaptive step's bytes, 12: the servo walls).
fn count_at(k: usize) -> usize {
    12 + 8 * k
}

/// The snapshot of the box scene after 30 steps with the cuts of its bodies among `ranks`
/// ranks, as a distributed run on them would carry.
fn cut_box(ranks: usize) -> (Snapshot, Vec<u8>) {
    let (_, bytes) = common::checkpoint(1, 30, b"");
    let snap = Snapshot::from_bytes(&bytes).unwrap();
    assert_eq!(
        snap.cuts, None,
        "a single-process world's snapshot has no cuts"
    );
    let snap = common::with_cuts(snap, ranks);
    let bytes = snap.to_bytes();
    (snap, bytes)
}

/// The cuts of a distributed run come back from the bytes, after the counts say for how many
/// ranks; a single-process world restores the snapshot, ignoring them, and continues as from
/// the snapshot without them.
#[test]
fn the_cuts_come_back_and_a_single_process_world_ignores_them() {
    for ranks in [1, 2, 3, 4] {
        let (snap, bytes) = cut_box(ranks);
        let count = &bytes[count_at(10)..count_at(11)];
        assert_eq!(count, (ranks as u64).to_le_bytes(), "the cuts' ranks");
        let back = Snapshot::from_bytes(&bytes).unwrap();
        assert_eq!(back, snap);
        assert_eq!(back.cuts.as_ref().map(Bisection::ranks), Some(ranks));
    }
    let (snap, _) = cut_box(3);
    let without = Snapshot {
        cuts: None,
        ..snap.clone()
    };
    let (mut a, mut b) = (common::world(1), common::world(1));
    a.restore(&snap).unwrap();
    b.restore(&without).unwrap();
    a.run(20).unwrap();
    b.run(20).unwrap();
    assert_eq!(a.bodies(), b.bodies());
    assert_eq!(
        a.snapshot().unwrap().cuts,
        None,
        "a single process has no cuts"
    );
}

/// Cut bytes that end early, or that are no tree whose leaves are the ranks 0..K, are refused
/// by the reader in one line (sealed again, so the checksum does not find them).
#[test]
fn truncated_or_corrupt_cuts_are_refused_in_one_line() {
    // Three ranks: five nodes (a cut, rank 0's box, a cut, the boxes of ranks 1 and 2) end
    // the file.
    let (_, bytes) = cut_box(3);
    let cuts = bytes.len() - 5 * NODE_BYTES;
    let sealed = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut bad = bytes.clone();
        edit(&mut bad);
        seal(&mut bad);
        bad
    };
    // Node `k`'s word `w` (0: axis or LEAF, 1: coordinate or rank) set to `value`.
    let word = |(k, w): (usize, usize), value: u32| {
        let at = cuts + NODE_BYTES * k + 4 * w;
        sealed(&|b| b[at..at + 4].copy_from_slice(&value.to_le_bytes()))
    };
    let ranks =
        |k: u64| sealed(&|b| b[count_at(10)..count_at(11)].copy_from_slice(&k.to_le_bytes()));
    let cases = [
        (sealed(&|b| b.truncate(b.len() - 3)), "the data ends early"),
        (
            sealed(&|b| b.truncate(b.len() - NODE_BYTES)),
            "the data ends early",
        ),
        (ranks(u64::MAX), "truncated or corrupt"),
        (ranks(2), "the subdomains' cuts: a cut has a side missing"),
        (word((0, 0), 3), "node 0 cuts along axis 3"),
        (word((2, 1), f32::NAN.to_bits()), "node 2 cuts at NaN"),
        (word((4, 1), 1), "rank 1 has two boxes"),
        (word((4, 1), 7), "rank 7 is not below 3"),
    ];
    for (bad, words) in cases {
        let msg = one_line(&Snapshot::from_bytes(&bad).unwrap_err());
        assert!(msg.contains(words), "{words}: {msg}");
    }
}

/// Format-5 to 8 checkpoints (ten to thirteen counts: no cuts, no adaptive step's state, no
/// servo walls, no broken bonds) are still read, as snapshots without them.
#[test]
fn format_5_to_8_checkpoints_read_as_ones_without_cuts_step_control_servos_or_broken_bonds() {
    let (_, bytes) = common::checkpoint(2, 30, b"extra");
    for (format, counts) in [(b'5', 10), (b'6', 11), (b'7', 12), (b'8', 13)] {
        let mut old = bytes[..count_at(counts)].to_vec();
        old.extend_from_slice(&bytes[count_at(14)..]);
        old[7] = format;
        seal(&mut old);
        let snap = Snapshot::from_bytes(&old).unwrap();
        assert_eq!(snap, Snapshot::from_bytes(&bytes).unwrap());
        assert_eq!((snap.cuts.as_ref(), snap.step_control), (None, None));
        assert!(snap.servos.is_empty());
        common::world(2).restore(&snap).unwrap();
    }
}

/// A checkpoint's bytes are written into a buffer of their size, give or take the header's
/// slack, never one grown by doubling (which held up to twice a large world's checkpoint):
/// with cuts, the adaptive step's state absent, and extra bytes.
#[test]
fn a_checkpoint_is_written_into_a_buffer_of_its_size() {
    let (mut w, _) = common::checkpoint(1, 40, b"");
    let mut snap = common::with_cuts(w.snapshot().unwrap(), 3);
    snap.extra = vec![7; 1000];
    let bytes = snap.to_bytes();
    assert!(bytes.len() > 1000, "a checkpoint of some size");
    assert!(
        bytes.capacity() - bytes.len() <= 128,
        "{} bytes in a buffer of {}",
        bytes.len(),
        bytes.capacity()
    );
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

/// The bodies as built are kept as runs of consecutive ids that share their fixed properties
/// (scene 0: the fixed sphere, then six grains of one size, two runs): each body is checked
/// against its own run, so a grain given the fixed sphere's radius, or the fixed sphere a
/// grain's, is refused naming it.
#[test]
fn each_body_is_checked_against_its_own_as_built() {
    let (_, bytes) = common::checkpoint(0, 10, b"");
    let snap = Snapshot::from_bytes(&bytes).unwrap();
    refused(
        0,
        &snap,
        |s| s.bodies.pos_radius[3].w = 0.5,
        "body 3 radius",
    );
    refused(
        0,
        &snap,
        |s| s.bodies.pos_radius[6].w = 0.5,
        "body 6 radius",
    );
    refused(
        0,
        &snap,
        |s| s.bodies.pos_radius[0].w = 0.05,
        "body 0 radius",
    );
    refused(
        0,
        &snap,
        |s| s.bodies.kind[0] = s.bodies.kind[1],
        "body 0 kind",
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
