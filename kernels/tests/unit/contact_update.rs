//! The unit tests of `src/contact_update.rs`.

use glam::Vec4;
use grains_kernels::contact_update::*;
use grains_kernels::layout::{ContactRow, Motion, NO_BODY};
use grains_kernels::random::Lcg;

/// A pack moved in by [`RowPack::from_rows`] holds, bit for bit, what [`RowPack::set_lane`]
/// writes lane by lane: random rows, one lane padding.
#[test]
fn packs_from_rows_match_the_lane_by_lane_writes() {
    let mut random = Lcg::new(3);
    let mut value = || 2.0 * random.unit() - 1.0;
    let mut row = |i: u32| ContactRow {
        n: [value(), value(), value()],
        phi: value(),
        t1: [value(), value(), value()],
        mu: value().abs(),
        t2: [value(), value(), value()],
        mass_n: value().abs(),
        ra: [value(), value(), value()],
        mass_t: 0.5 + value().abs(),
        rb: [value(), value(), value()],
        body_a: 2 * i,
        bias: [value(), value(), value()],
        body_b: if i == 1 { NO_BODY } else { 2 * i + 1 },
    };
    let rows = [row(0), row(1), row(2)];
    let lanes = [&rows[0], &PADDING_ROW, &rows[1], &rows[2]];
    let mut want = RowPack::default();
    for (k, r) in lanes.iter().enumerate() {
        if r.body_a != NO_BODY {
            want.set_lane(k, r);
        }
    }
    let got = RowPack::from_rows(lanes);
    assert_eq!(
        bytemuck::bytes_of(&got),
        bytemuck::bytes_of(&want),
        "the packs differ"
    );
}

/// A pack's lane-wise velocity update and write-back give, bit for bit, what
/// [`apply_impulse`] gives body by body, in space and in planar mode: four lanes with a wall
/// contact (b = NO_BODY), a padding lane, and a fixed body (1/m = 0, never written) beside
/// dynamic ones, random velocities and impulses. The moment rows' update that follows,
/// from the velocities kept in registers, writes what it would after writing and
/// reading them again.
#[test]
fn lane_wise_update_matches_the_body_by_body_one() {
    let mut random = Lcg::new(7);
    let mut value = || 2.0 * random.unit() - 1.0;
    let mut motion: Vec<Motion> = (0..8)
        .map(|i| Motion {
            linear: [value(), value(), value()],
            inv_mass: if i == 5 { 0.0 } else { 1.0 + value().abs() },
            angular: [value(), value(), value()],
            inv_inertia: if i == 5 { 0.0 } else { 10.0 + value().abs() },
        })
        .collect();
    let mut pack = RowPack {
        body_a: [0, 2, 4, NO_BODY],
        body_b: [1, NO_BODY, 5, NO_BODY],
        ..RowPack::default()
    };
    for lanes in [&mut pack.ra, &mut pack.rb] {
        for axis in lanes.iter_mut() {
            *axis = Vec4::new(value(), value(), value(), 0.0);
        }
    }
    let mut lanes3 = || [0; 3].map(|_| Vec4::new(value(), value(), value(), value()));
    let impulse = lanes3();
    let (la, lb) = impulse_moments(&pack, &impulse);
    for planar in [false, true] {
        let mut want = motion.clone();
        for k in 0..3 {
            let (a, b) = (pack.body_a[k] as usize, pack.body_b[k]);
            apply_impulse(&mut want[a], lane(&impulse, k), lane(&la, k), planar);
            if b != NO_BODY && want[b as usize].inv_mass > 0.0 {
                let m = &mut want[b as usize];
                apply_impulse(m, -lane(&impulse, k), -lane(&lb, k), planar);
            }
        }
        let vel = PackVelocities::gather(&pack, |i| &motion[i]);
        let mut got = motion.clone();
        vel.after_impulse(&impulse, &la, &lb, planar)
            .scatter(&pack, |i, m| got[i] = m);
        assert_eq!(got, want, "planar {planar}");
        let bits = |v: &PackVelocities| {
            [v.va, v.wa, v.vb, v.wb]
                .concat()
                .iter()
                .chain(&[v.inv_mass_a, v.inv_inertia_a, v.inv_mass_b, v.inv_inertia_b])
                .flat_map(|x| x.to_array().map(f32::to_bits))
                .collect::<Vec<u32>>()
        };
        // An infinite impulse on the lane of the fixed body makes its computed velocity
        // NaN, which the scatter never stores: the moment rows must read the one gathered.
        // A −0 impulse on bodies moving at −0 keeps their −0, which a's moment update
        // turns into +0.
        let mut wild = impulse;
        wild[0][2] = f32::INFINITY;
        let mut still = motion.clone();
        for m in &mut still {
            m.linear = [-0.0; 3];
        }
        let moment = lanes3();
        let body_bits = |m: &[Motion]| -> Vec<u32> {
            m.iter()
                .flat_map(|m| bytemuck::cast::<Motion, [u32; 8]>(*m))
                .collect()
        };
        for (motion, impulse) in [
            (&motion, impulse),
            (&motion, wild),
            (&still, [Vec4::splat(-0.0); 3]),
        ] {
            let vel = PackVelocities::gather(&pack, |i| &motion[i]);
            let (la, lb) = impulse_moments(&pack, &impulse);
            let after = vel.after_impulse(&impulse, &la, &lb, planar);
            let mut stored = motion.clone();
            after.scatter(&pack, |i, m| stored[i] = m);
            let read_back = PackVelocities::gather(&pack, |i| &stored[i]);
            let kept = after.spin_as_stored(&vel);
            assert_eq!(
                bits(&PackVelocities {
                    va: read_back.va,
                    vb: read_back.vb,
                    ..kept
                }),
                bits(&read_back),
                "spin_as_stored's ω is what a gather reads after the scatter, planar {planar}"
            );
            // The moment rows' update from the velocities kept against a write, a read
            // and the update of all six components.
            let mut want = stored.clone();
            read_back
                .after_impulse(&[Vec4::ZERO; 3], &moment, &moment, planar)
                .scatter(&pack, |i, m| want[i] = m);
            let mut got = motion.clone();
            kept.after_moment(&moment, planar)
                .scatter(&pack, |i, m| got[i] = m);
            assert_ne!(
                body_bits(&got),
                body_bits(&stored),
                "the moments changed nothing"
            );
            assert_eq!(body_bits(&got), body_bits(&want), "planar {planar}");
        }
        assert_eq!(got[5], motion[5], "the fixed body stays as it was");
        motion = got;
    }
}
