//! The unit tests of `src/isa.rs`.

use grains_kernels::isa::choice;

#[test]
fn grains_isa_picks_the_build_and_names_a_value_it_does_not_know() {
    for detected in [false, true] {
        assert_eq!(choice(None, detected), (detected, None));
        assert_eq!(choice(Some(""), detected), (detected, None));
        assert_eq!(choice(Some("sse2"), detected), (false, None));
        assert_eq!(choice(Some("SSE2"), detected), (false, None));
        let (avx2, warning) = choice(Some("sse"), detected);
        assert_eq!(avx2, detected, "a typo runs as the processor allows");
        let warning = warning.expect("a typo is named");
        assert!(
            warning.contains("\"sse\"") && warning.contains("sse2"),
            "{warning}"
        );
    }
    assert_eq!(choice(Some("avx2"), true), (true, None));
    let (avx2, warning) = choice(Some("avx2"), false);
    assert!(!avx2 && warning.is_some_and(|w| w.contains("lacks AVX2")));
}
