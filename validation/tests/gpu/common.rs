//! What both halves of the suite share: the skip message, and the comparisons of the two
//! backends' bodies and contact sets.

use grains_kernels::Bodies;
use std::collections::BTreeSet;

/// Says why a test is skipped where no adapter exists (no GPU and no software Vulkan device).
pub fn skipped(why: &str) {
    eprintln!(
        "skipped: no GPU adapter ({why}); install mesa-vulkan-drivers for the software device"
    );
}

/// The smallest body radius (m).
pub fn smallest_radius(bodies: &Bodies) -> f32 {
    bodies
        .pos_radius
        .iter()
        .map(|p| p.w)
        .fold(f32::INFINITY, f32::min)
}

/// Largest distance between the two sets' body centres, in units of `a`'s smallest radius.
pub fn max_position_difference(a: &Bodies, b: &Bodies) -> f32 {
    a.pos_radius
        .iter()
        .zip(&b.pos_radius)
        .map(|(p, q)| (p.truncate() - q.truncate()).length())
        .fold(0.0, f32::max)
        / smallest_radius(a)
}

/// Contact pairs as (body a, body b or wall key).
pub type Pairs = Vec<(u64, u64)>;

/// The contact pairs only in `a`'s keys and only in `b`'s.
pub fn contact_difference(a: &[u64], b: &[u64]) -> (Pairs, Pairs) {
    let (a, b): (BTreeSet<u64>, BTreeSet<u64>) =
        (a.iter().copied().collect(), b.iter().copied().collect());
    let pair = |k: &u64| (k >> 32, k & 0xffff_ffff);
    (
        a.difference(&b).map(pair).collect(),
        b.difference(&a).map(pair).collect(),
    )
}

/// Panics with the pairs found by one backend only when the active contact sets differ, or
/// when a backend lists a contact twice.
pub fn assert_same_contacts(cpu: &[u64], gpu: &[u64], what: &str) {
    let (only_cpu, only_gpu) = contact_difference(cpu, gpu);
    assert!(
        only_cpu.is_empty() && only_gpu.is_empty(),
        "{what}: {} contacts on the CPU, {} on the GPU; (body a, body b or wall key) only on the \
         CPU: {only_cpu:?}; only on the GPU: {only_gpu:?}",
        cpu.len(),
        gpu.len()
    );
    assert_eq!(cpu.len(), gpu.len(), "{what}: a contact found twice");
}
