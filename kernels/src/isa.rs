//! The processor's instruction set, for the hot loops that are built twice: once for every
//! x86-64 processor (SSE2) and once with AVX2 (VEX-encoded three-operand instructions, fewer
//! register moves: about 16 % fewer instructions in the Gauss–Seidel sweep and 10 % in the
//! narrow phase), the latter run where the processor has it. Both builds do the same IEEE
//! operations in the same order, and no fused multiply-add is enabled, so they give the same
//! bits. The environment variable `GRAINS_ISA=sse2` keeps a process on the SSE2 build (to
//! compare the two, or to time the difference); `GRAINS_ISA=avx2`, or no value, takes the AVX2
//! build where the processor has it. Any other value, or `avx2` on a processor without it, is
//! said once on standard error with the build that runs.

use std::sync::OnceLock;

/// Whether the hot loops run their AVX2 build: the processor has AVX, AVX2, BMI1, BMI2, LZCNT
/// and POPCNT (the features the builds enable) and `GRAINS_ISA` is not `sse2`. Decided once
/// per process.
pub fn avx2() -> bool {
    static AVX2: OnceLock<bool> = OnceLock::new();
    *AVX2.get_or_init(|| {
        let isa = std::env::var("GRAINS_ISA").ok();
        let (avx2, warning) = choice(isa.as_deref(), detected());
        if let Some(warning) = warning {
            eprintln!("warning: {warning}");
        }
        avx2
    })
}

/// The build `GRAINS_ISA` = `isa` asks for on a processor that has (`detected`) the AVX2
/// build's features or not: whether it runs AVX2, and what to tell the user where the value
/// is not one this module knows or asks for what the processor lacks.
#[doc(hidden)] // pub for the unit tests (tests/unit/)
pub fn choice(isa: Option<&str>, detected: bool) -> (bool, Option<String>) {
    let sse2 = "the hot loops run their SSE2 build";
    let native = if detected {
        "the hot loops run their AVX2 build"
    } else {
        sse2
    };
    match isa.map(str::trim) {
        None | Some("") => (detected, None),
        Some(isa) if isa.eq_ignore_ascii_case("sse2") => (false, None),
        Some(isa) if isa.eq_ignore_ascii_case("avx2") && detected => (true, None),
        Some(isa) if isa.eq_ignore_ascii_case("avx2") => (
            false,
            Some(format!(
                "GRAINS_ISA=avx2, but this processor lacks AVX2 or one of AVX, BMI1, BMI2, \
                 LZCNT, POPCNT: {sse2}"
            )),
        ),
        Some(isa) => (
            detected,
            Some(format!(
                "GRAINS_ISA={isa:?} is neither \"sse2\" nor \"avx2\": {native}, as the \
                 processor allows"
            )),
        ),
    }
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
