//! Once its buffers have grown, a step allocates nothing that grows with the scene (counted by
//! a wrapping allocator): Jacobi nothing at all, Gauss–Seidel only the one job list of the
//! thread-pool broadcast that starts its workers.

use grains::Settings;
use grains_app::pour::PourScene;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn a_settled_step_allocates_nothing() {
    for solver in grains::SolverKind::ALL {
        let granular = Settings::granular(2e-3);
        let settings = Settings {
            threads: 2,
            solver: granular.solver.with_kind(solver).with_omega(
                if solver == grains::SolverKind::GaussSeidel {
                    1.0
                } else {
                    0.3
                },
            ),
            ..granular
        };
        let mut w = PourScene::new(1000).world(settings).unwrap();
        w.run(400).unwrap();
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        w.run(20).unwrap();
        let during = ALLOCATIONS.load(Ordering::Relaxed) - before;
        let allowed = if solver == grains::SolverKind::GaussSeidel {
            20
        } else {
            0
        };
        assert!(
            during <= allowed,
            "{solver:?}: 20 steps allocated {during} times"
        );
    }
}
