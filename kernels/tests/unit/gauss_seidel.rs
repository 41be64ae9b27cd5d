//! The unit tests of `src/gauss_seidel.rs`.

use glam::Vec3;
use glam::Vec4;
use grains_kernels::contact_update::{Lanes3, RowPack, SweepParams};
use grains_kernels::gauss_seidel::*;
use grains_kernels::inertia::PrincipalInertia;
use grains_kernels::isa;
use grains_kernels::layout::Motion;
use grains_kernels::layout::{ContactRow, NO_BODY};
use grains_kernels::narrow_phase::tangent_frame;
use grains_kernels::packing::{PackRows, Packs};
use grains_kernels::parallel::Disjoint;
use grains_kernels::random::Lcg;
use grains_kernels::rolling::MomentPack;
use grains_kernels::step::SolverKind;

/// `n` bodies of random velocities and inverse masses from `r` (uniform on [0, 1)).
fn random_motion(n: usize, r: &mut impl FnMut() -> f32) -> Vec<Motion> {
    (0..n)
        .map(|_| Motion {
            linear: [r() - 0.5, r() - 0.5, r() - 0.5],
            inv_mass: 1e3 * (1.0 + r()),
            angular: [10.0 * r(), 10.0 * r(), 10.0 * r()],
            inv_inertia: 1e8 * (1.0 + r()),
        })
        .collect()
}

/// One Gauss–Seidel sweep of compliant rows (softness 0.2, a bounded give), ω = 1.
fn one_sweep(planar: bool, inertia: &PrincipalInertia) -> SweepParams<'_> {
    SweepParams {
        solver: SolverKind::GaussSeidel,
        max_iterations: 1,
        tolerance: 0.0,
        omega: 1.0,
        coulomb_correction: 0,
        planar,
        softness: 0.2,
        give_speed: 0.05,
        rigid_scale: 1.25,
        inertia,
    }
}

/// Two packs of one class with moment rows (eight contacts between sixteen distinct spheres,
/// random normals, velocities and impulses, some lanes on the cone): relaxed as a pair, they
/// leave the same impulses, moment impulses, velocities and residual, bit for bit, as two
/// single updates one after the other, in space and in the plane.
#[test]
fn a_pair_with_moment_rows_relaxes_as_two_single_packs() {
    let mut random = Lcg::new(5);
    let mut r = move || random.unit();
    for planar in [false, true] {
        let mut rows = [RowPack::default(); 2];
        let mut moment_rows = [MomentPack::default(); 2];
        let mut gamma = [[Vec4::ZERO; 3]; 2];
        let mut moment_gamma = [[Vec4::ZERO; 3]; 2];
        for (pk, pack) in rows.iter_mut().enumerate() {
            for k in 0..4 {
                let n = Vec3::new(r() - 0.5, r() - 0.5, r() + 0.1).normalize();
                let (t1, t2) = tangent_frame(n, planar);
                let (ra, rb) = (-n * (0.004 + 0.002 * r()), n * (0.004 + 0.002 * r()));
                let lane = |l: &mut Lanes3, v: Vec3| {
                    (l[0][k], l[1][k], l[2][k]) = (v.x, v.y, v.z);
                };
                for (l, v) in [(&mut pack.n, n), (&mut pack.t1, t1), (&mut pack.t2, t2)] {
                    lane(l, v);
                }
                for (l, v) in [(&mut pack.ra, ra), (&mut pack.rb, rb)] {
                    lane(l, v);
                }
                lane(&mut pack.bias, Vec3::new(-0.1 * r(), 0.0, 0.0));
                (pack.mu[k], pack.mass_n[k], pack.mass_t[k]) = (0.5, 1e-3 * (1.0 + r()), 8e-4);
                pack.s2[k] = pack.mass_n[k] / pack.mass_t[k];
                pack.body_a[k] = (8 * pk + 2 * k) as u32;
                pack.body_b[k] = (8 * pk + 2 * k + 1) as u32;
                let m = &mut moment_rows[pk];
                (m.spin[k], m.roll[k], m.mass[k], m.reach[k]) = (1e-3, 2e-3 * r(), 1e-8, 1e5 * r());
                let g = &mut gamma[pk];
                (g[0][k], g[1][k], g[2][k]) = (1e-3 * r(), 4e-4 * (r() - 0.5), 4e-4 * r());
                let g = &mut moment_gamma[pk];
                (g[0][k], g[1][k], g[2][k]) = (1e-6 * r(), 1e-6 * r(), 0.0);
            }
        }
        let motion = random_motion(16, &mut r);
        let inertia = PrincipalInertia::default();
        let p = one_sweep(planar, &inertia);
        let bits = |g: &[Lanes3; 2], mg: &[Lanes3; 2], m: &[Motion]| {
            let mut out: Vec<u32> = g
                .iter()
                .chain(mg)
                .flatten()
                .flat_map(|v| v.to_array().map(f32::to_bits))
                .collect();
            out.extend(
                m.iter()
                    .flat_map(|m| bytemuck::cast::<Motion, [u32; 8]>(*m)),
            );
            out
        };
        let (mut g1, mut mg1, mut m1) = (gamma, moment_gamma, motion.clone());
        let two = [&rows[0], &rows[1]];
        let paired = unsafe {
            let moments = (moment_rows.as_slice(), Disjoint::new(&mut mg1));
            let (g, m) = (Disjoint::new(&mut g1), Disjoint::new(&mut m1));
            match planar {
                false => relax_pair_moments::<false>(0, two, &g, &moments, &m, &p),
                true => relax_pair_moments::<true>(0, two, &g, &moments, &m, &p),
            }
        };
        let (mut g2, mut mg2, mut m2) = (gamma, moment_gamma, motion.clone());
        let single = unsafe {
            let moments = (moment_rows.as_slice(), Disjoint::new(&mut mg2));
            let (g, m) = (Disjoint::new(&mut g2), Disjoint::new(&mut m2));
            let first = relax_pack(0, &rows[0], &g, Some(&moments), &m, &p);
            first.max(relax_pack(1, &rows[1], &g, Some(&moments), &m, &p))
        };
        assert!(paired > 0.0, "the updates changed nothing");
        assert_eq!(
            paired.to_bits(),
            single.to_bits(),
            "residual (planar {planar})"
        );
        assert_ne!(bits(&g1, &mg1, &m1), bits(&gamma, &moment_gamma, &motion));
        assert_eq!(
            bits(&g1, &mg1, &m1),
            bits(&g2, &mg2, &m2),
            "planar {planar}"
        );
    }
}

/// Rows as the narrow phase builds them for spheres (arms −ρ_a n and ρ_b n, the tangent
/// frame of `tangent_frame`, walls on b's side with no arm), laid out as compact packs,
/// relax sweep after sweep to the same impulses, velocities and residuals, bit for bit, as
/// the same rows in full packs, in pairs and one by one (a class of one contact per pack,
/// so with padding lanes); one arm off its normal keeps the whole layout full. Where the
/// processor has AVX2 its build of the sweep gives the SSE2 build's bits, on both layouts.
#[test]
fn compact_sphere_packs_relax_as_the_full_ones() {
    let mut random = Lcg::new(11);
    let mut r = move || random.unit();
    let count = 24u32;
    let radius: Vec<Vec4> = (0..2 * count)
        .map(|_| Vec4::new(0.0, 0.0, 0.0, 0.004 + 0.002 * r()))
        .collect();
    let mut rows: Vec<ContactRow> = (0..count)
        .map(|i| {
            let (a, wall) = (2 * i, i % 3 == 0);
            let b = if wall { NO_BODY } else { a + 1 };
            let n = Vec3::new(r() - 0.5, r() - 0.5, r() - 0.5).normalize();
            let (t1, t2) = tangent_frame(n, false);
            let ra = -radius[a as usize].w * n;
            let rb = if wall {
                Vec3::ZERO
            } else {
                radius[b as usize].w * n
            };
            ContactRow {
                n: n.to_array(),
                phi: -1e-4 * r(),
                t1: t1.to_array(),
                mu: 0.5,
                t2: t2.to_array(),
                mass_n: 1e-3 * (1.0 + r()),
                ra: ra.to_array(),
                mass_t: 8e-4,
                rb: rb.to_array(),
                body_a: a,
                bias: [-0.1 * r(), 0.01 * (r() - 0.5), 0.0],
                body_b: b,
            }
        })
        .collect();
    let gamma: Vec<[f32; 4]> = (0..count)
        .map(|_| [1e-3 * r(), 4e-4 * (r() - 0.5), 4e-4 * r(), 0.0])
        .collect();
    let motion = random_motion(2 * count as usize, &mut r);
    let inertia = PrincipalInertia::default();
    let p = one_sweep(false, &inertia);
    let classes = [0, 16, count];
    // Five sweeps over the packs: the first class two packs at a time, the second (one
    // contact per pack) one by one; returns the impulses, velocities and residuals.
    let solve = |rows: &[ContactRow], spheres: Option<&[Vec4]>, compact: bool, avx2: bool| {
        let mut packs = Packs::default();
        packs.build(rows, &gamma, (None, &classes), Some(1), |b| b, spheres);
        assert_eq!(packs.compact, compact);
        let mut motion = motion.clone();
        let mut residuals = Vec::new();
        let (rows, start, gamma) = packs.split();
        let (g, m) = (Disjoint::new(gamma), Disjoint::new(&mut motion));
        for _ in 0..5 {
            for (c, paired) in [(0, true), (1, false)] {
                let packs = (start[c] as usize, start[c + 1] as usize, paired);
                let shared = (&g, None, &m, &p);
                // SAFETY: one thread; AVX2 only where `isa::avx2` finds it.
                let r = unsafe {
                    match rows {
                        PackRows::Full(rows) => relax_packs_on(avx2, rows, packs, shared),
                        PackRows::Compact(rows) => relax_packs_on(avx2, rows, packs, shared),
                    }
                };
                residuals.push(r.to_bits());
            }
        }
        let mut out: Vec<u32> = packs
            .gamma
            .iter()
            .flatten()
            .flat_map(|v| v.to_array().map(f32::to_bits))
            .collect();
        out.extend(
            motion
                .iter()
                .flat_map(|m| bytemuck::cast::<Motion, [u32; 8]>(*m)),
        );
        out.extend(residuals);
        out
    };
    let full = solve(&rows, None, false, false);
    // The first sweep's residual (of ten, at the end): the contacts were not at rest.
    assert!(
        f32::from_bits(full[full.len() - 10]) > 1e-3,
        "nothing to solve"
    );
    assert_eq!(solve(&rows, Some(&radius), true, false), full);
    if isa::avx2() {
        assert_eq!(solve(&rows, None, false, true), full, "AVX2, full packs");
        assert_eq!(
            solve(&rows, Some(&radius), true, true),
            full,
            "AVX2, compact"
        );
    }
    rows[5].ra[0] *= 1.0 + 1e-6;
    let full = solve(&rows, None, false, false);
    assert_eq!(solve(&rows, Some(&radius), false, false), full);
}
