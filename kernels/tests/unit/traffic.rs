//! The unit tests of `src/traffic.rs`.

use grains_kernels::step::SolverKind;
use grains_kernels::traffic::*;

/// Gauss–Seidel touches every body of a contact twice (read and write) with no separate
/// gather; Jacobi adds a gather per body; APGD's extra pass makes it costlier than Jacobi.
#[test]
fn counts_follow_the_passes() {
    let gs = cpu_sweep_traffic(SolverKind::GaussSeidel, false);
    let compact = cpu_sweep_traffic(SolverKind::GaussSeidel, true);
    let jacobi = cpu_sweep_traffic(SolverKind::Jacobi, false);
    let apgd = cpu_sweep_traffic(SolverKind::Apgd, false);
    assert_eq!(gs.per_contact - compact.per_contact, (384 - 240) / 4);
    assert_eq!(gs.per_body, 0);
    assert_eq!(jacobi.per_body, 4 + 2 * MOTION);
    assert!(apgd.per_contact > jacobi.per_contact);
    assert_eq!(apgd.per_body, jacobi.per_body);
    // Per contact-sweep, the body share is spread over the contacts.
    let b = jacobi.per_contact_sweep(4.0, 1.0);
    assert_eq!(b, jacobi.per_contact as f64 + jacobi.per_body as f64 / 4.0);
    assert_eq!(jacobi.per_contact_sweep(0.0, 1.0), 0.0);
}
