//! The unit tests of `src/colouring.rs`.

use grains_kernels::colouring::*;
use grains_kernels::layout::{BodyKind, ContactRow, NO_BODY};
use grains_kernels::random::Lcg;

/// A contact between `a` and `b` (`NO_BODY`: a wall).
fn contact(a: u32, b: u32) -> ContactRow {
    ContactRow {
        body_a: a,
        body_b: b,
        ..ContactRow::default()
    }
}

/// Checks the colouring of `rows`: every contact in exactly one class; no two contacts of a
/// class (the overflow, the last, apart) sharing a dynamic body; no two blocks of one pass
/// sharing a dynamic body; `COLOURS + 1` shared classes after the blocks' classes.
fn assert_valid(c: &Colouring, rows: &[ContactRow], kind: &[u32]) {
    let classes = c.start.len() - 1;
    assert_eq!(classes - c.blocks.shared(), COLOURS + 1);
    assert_eq!(c.start[classes] as usize, rows.len());
    let mut seen = c.order.clone();
    seen.sort_unstable();
    assert_eq!(seen, (0..rows.len() as u32).collect::<Vec<_>>());
    let dynamic = |b: u32| b != NO_BODY && kind[b as usize] == BodyKind::Dynamic as u32;
    let class = |k: usize| &c.order[c.start[k] as usize..c.start[k + 1] as usize];
    let bodies = |k: usize| {
        let pairs = class(k)
            .iter()
            .map(|&i| [rows[i as usize].body_a, rows[i as usize].body_b]);
        pairs.flatten().filter(|&b| dynamic(b)).collect::<Vec<_>>()
    };
    for k in 0..classes - 1 {
        let mut touched = std::collections::HashSet::new();
        for b in bodies(k) {
            assert!(touched.insert(b), "class {k}: body {b} in two contacts");
        }
    }
    let b = &c.blocks;
    for pass in [0..b.odd, b.odd..b.len()] {
        let mut owner = std::collections::HashMap::new();
        for block in pass {
            for k in b.class[block] as usize..b.class[block + 1] as usize {
                for body in bodies(k) {
                    let first = *owner.entry(body).or_insert(block);
                    assert_eq!(first, block, "body {body} in two blocks of a pass");
                }
            }
        }
    }
}

/// A random contact graph of 200 bodies (every tenth fixed, every tenth kinematic) with
/// body–body and wall contacts, in body order: a valid colouring in few shared colours,
/// ascending within each, with no blocks and no overflow.
#[test]
fn no_colour_shares_a_dynamic_body() {
    let mut random = Lcg::new(3);
    let kind: Vec<u32> = (0..200)
        .map(|i| match i % 10 {
            0 => BodyKind::Fixed as u32,
            5 => BodyKind::Kinematic as u32,
            _ => BodyKind::Dynamic as u32,
        })
        .collect();
    let mut pick = || (random.unit() * 200.0) as u32;
    let rows: Vec<ContactRow> = (0..1000)
        .map(|k| match k % 5 {
            0 => contact(pick(), NO_BODY),
            _ => {
                let (a, b) = (pick(), pick());
                contact(a.min(b), a.max(b) + u32::from(a == b))
            }
        })
        .filter(|r| r.body_b == NO_BODY || r.body_b < 200)
        .collect();
    let mut c = Colouring::default();
    c.build(&rows, &kind);
    assert_valid(&c, &rows, &kind);
    assert!(c.blocks.is_empty());
    assert_eq!(c.start[COLOURS], c.start[COLOURS + 1], "no overflow");
    for k in 0..COLOURS {
        let class = &c.order[c.start[k] as usize..c.start[k + 1] as usize];
        assert!(class.windows(2).all(|w| w[0] < w[1]), "colour {k}");
    }
}

/// Shuffles `items` in place (Fisher–Yates).
fn shuffle<T>(items: &mut [T], random: &mut Lcg) {
    for i in (1..items.len()).rev() {
        items.swap(i, (random.unit() * (i + 1) as f32) as usize % (i + 1));
    }
}

/// `rows` coloured in blocks by a team of `threads` workers, checked valid.
fn coloured_by_team(threads: usize, rows: &[ContactRow], kind: &[u32], slot: &[u32]) -> Colouring {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut c = Colouring::default();
    pool.install(|| c.build_in_blocks(rows, kind, slot));
    assert_valid(&c, rows, kind);
    c
}

/// The contacts of a cubic lattice of n × n × n bodies numbered along x, then y, then z:
/// each body with its neighbours of higher index, every bottom body with the floor.
fn lattice(n: u32) -> Vec<ContactRow> {
    let at = |x: u32, y: u32, z: u32| x + n * (y + n * z);
    let mut rows = Vec::new();
    for (x, y, z) in (0..n * n * n).map(|b| (b % n, b / n % n, b / (n * n))) {
        let b = at(x, y, z);
        for (near, there) in [(x + 1, at(x + 1, y, z)), (y + 1, at(x, y + 1, z))] {
            if near < n {
                rows.push(contact(b, there));
            }
        }
        if z + 1 < n {
            rows.push(contact(b, at(x, y, z + 1)));
        }
        if z == 0 {
            rows.push(contact(b, NO_BODY));
        }
    }
    rows
}

/// The blocks are coloured all at once, the rest in contact order: the same classes from
/// teams of 1, 2 and 5 workers (each run six times), for a lattice whose contacts come in a random order (so
/// that each block's greedy colours depend on the order its contacts are taken in).
#[test]
fn the_colours_do_not_depend_on_the_team() {
    let mut rows = lattice(20);
    let mut random = Lcg::new(9);
    shuffle(&mut rows, &mut random);
    let kind = vec![BodyKind::Dynamic as u32; 20 * 20 * 20];
    let identity: Vec<u32> = (0..20 * 20 * 20).collect();
    let coloured = |threads: usize| {
        let c = coloured_by_team(threads, &rows, &kind, &identity);
        assert!(c.blocks.len() >= 4, "{} blocks", c.blocks.len());
        (c.order, c.start, c.blocks)
    };
    let one = coloured(1);
    // Repeated, so that a race between blocks would show in some run.
    for _ in 0..6 {
        assert_eq!(coloured(2), one);
        assert_eq!(coloured(5), one);
    }
}

/// The contacts of a cubic lattice of 24 × 24 × 24 bodies (each with its six neighbours and
/// every bottom body with the floor), numbered along x, then y, then z as the grid's cells
/// are: cut into 16 blocks of slabs (whose contacts reach at most the next slab), every
/// contact in a block, each class sorted by the slot of its lower body. Numbered at random
/// instead, the contacts reach everywhere: no blocks, all in the shared colours.
#[test]
fn a_lattice_in_space_order_is_cut_into_slabs() {
    let n = 24u32;
    let rows = lattice(n);
    let kind = vec![BodyKind::Dynamic as u32; (n * n * n) as usize];
    let mut c = Colouring::default();
    let identity: Vec<u32> = (0..n * n * n).collect();
    c.build_in_blocks(&rows, &kind, &identity);
    assert_valid(&c, &rows, &kind);
    assert_eq!(c.blocks.len(), 16);
    assert_eq!(c.blocks.shared(), c.start.len() - 1 - (COLOURS + 1));
    assert_eq!(
        c.start[c.blocks.shared()] as usize,
        rows.len(),
        "all in blocks"
    );
    let lower = |i: u32| rows[i as usize].body_a;
    for k in 0..c.start.len() - 1 {
        let class = &c.order[c.start[k] as usize..c.start[k + 1] as usize];
        let key = |&i: &u32| (lower(i), i);
        assert!(
            class.windows(2).all(|w| key(&w[0]) < key(&w[1])),
            "class {k}"
        );
    }

    let mut random = Lcg::new(5);
    let mut slot: Vec<u32> = (0..n * n * n).collect();
    shuffle(&mut slot, &mut random);
    c.build_in_blocks(&rows, &kind, &slot);
    assert_valid(&c, &rows, &kind);
    assert!(c.blocks.is_empty());
    assert_eq!(c.start.len() - 1, COLOURS + 1);
}

/// A lattice in space order, with contacts reaching across the bed (far), one contact of
/// no dynamic body and a hub body with 140 wall contacts and 20 far ones, all in random
/// order: the same classes for teams of 1 and 3; every class, the shared ones and the
/// overflow (where the hub's near and far contacts meet) too, sorted by lower slot, then
/// index; the far contacts all shared.
#[test]
fn far_contacts_are_shared_and_every_class_is_in_slot_order() {
    let n = 16u32;
    let bodies = (n * n * n) as usize;
    let mut rows = lattice(n);
    let mut kind = vec![BodyKind::Dynamic as u32; bodies];
    kind[5] = BodyKind::Fixed as u32;
    kind[6] = BodyKind::Kinematic as u32;
    rows.push(contact(5, 6));
    let mut random = Lcg::new(11);
    let mut far_body = || 2000 + (random.unit() * 2000.0) as u32;
    let far: Vec<ContactRow> = (0..100).map(|k| contact(k * 7, far_body())).collect();
    rows.extend(far.iter().copied());
    rows.extend((0..140).map(|_| contact(0, NO_BODY)));
    rows.extend((0..20).map(|_| contact(0, far_body())));
    shuffle(&mut rows, &mut random);
    let identity: Vec<u32> = (0..bodies as u32).collect();
    let c = coloured_by_team(1, &rows, &kind, &identity);
    let three = coloured_by_team(3, &rows, &kind, &identity);
    assert_eq!((&three.order, &three.start), (&c.order, &c.start));
    assert!(c.blocks.len() >= 4, "{} blocks", c.blocks.len());
    let lower = |i: u32| slot_range(&rows[i as usize], &kind, &identity)[0];
    let classes = c.start.len() - 1;
    for k in 0..classes {
        let class = &c.order[c.start[k] as usize..c.start[k + 1] as usize];
        let key = |&i: &u32| (lower(i), i);
        assert!(
            class.windows(2).all(|w| key(&w[0]) < key(&w[1])),
            "class {k}"
        );
    }
    let shared = &c.order[c.start[c.blocks.shared()] as usize..];
    let reaching = |i: &&u32| {
        let r = &rows[**i as usize];
        r.body_b != NO_BODY && r.body_b >= 2000
    };
    assert_eq!(shared.iter().filter(reaching).count(), 120);
    let overflow = &c.order[c.start[classes - 1] as usize..];
    let hub_walls = overflow
        .iter()
        .filter(|&&i| rows[i as usize].body_b == NO_BODY);
    assert!(hub_walls.count() > 0 && overflow.iter().filter(reaching).count() > 0);
}

/// Contacts with fixed or kinematic bodies only do not constrain the colour: 100 contacts
/// of one fixed body with as many dynamic ones all take colour 0; 70 contacts of one dynamic
/// body take the 64 colours, then the overflow.
#[test]
fn only_dynamic_bodies_constrain_and_extra_contacts_overflow() {
    let mut kind = vec![BodyKind::Dynamic as u32; 101];
    kind[0] = BodyKind::Fixed as u32;
    let fan: Vec<ContactRow> = (1..101).map(|b| contact(0, b)).collect();
    let mut c = Colouring::default();
    c.build(&fan, &kind);
    assert_valid(&c, &fan, &kind);
    assert_eq!(c.start[1], 100, "all in colour 0");

    let hub: Vec<ContactRow> = (0..70).map(|_| contact(1, NO_BODY)).collect();
    c.build(&hub, &kind);
    assert_valid(&c, &hub, &kind);
    for colour in 0..COLOURS {
        assert_eq!(c.start[colour + 1] - c.start[colour], 1, "colour {colour}");
    }
    let overflow = &c.order[c.start[COLOURS] as usize..];
    assert_eq!(overflow, (64..70).collect::<Vec<_>>());
}
