//! The processor's instruction set, for the hot loops that are built twice: once for every
//! x86-64 processor (SSE2) and once with AVX2 (VEX-encoded three-operand instructions, fewer
//! register moves: about 16 % fewer instructions in the Gauss–Seidel sweep and 10 % in the
//! narrow phase), the latter run where the processor has it. Both builds do the same IEEE
//! operations in the same order, and no fused multiply-add is enabled, so they give the same
//! bits. The environment variable `GRAINS_ISA=sse2` keeps a process on the SSE2 build (to
//! compare the two, or to time the difference).

use std::sync::OnceLock;

/// Whether the hot loops run their AVX2 build: the processor has AVX, AVX2, BMI1, BMI2, LZCNT
/// and POPCNT (the features the builds enable) and `GRAINS_ISA` is not `sse2`. Decided once
/// per process.
pub fn avx2() -> bool {
    static AVX2: OnceLock<bool> = OnceLock::new();
    *AVX2.get_or_init(|| {
        std::env::var_os("GRAINS_ISA").is_none_or(|isa| isa != "sse2") && detected()
    })
}

/// Whether the processor has the AVX2 builds' features.
fn detected() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx")
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}
