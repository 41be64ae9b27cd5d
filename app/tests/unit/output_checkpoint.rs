//! The unit tests of `src/output/checkpoint.rs`.

use grains_app::output::checkpoint::*;

#[test]
fn piece_names_read_back_and_nothing_else_does() {
    assert_eq!(parse_piece_name(&piece_name(120, 3)), Some((120, 3)));
    let tmp = format!("{}.tmp", piece_name(7, 0));
    assert_eq!(parse_piece_name(&tmp), Some((7, 0)));
    for other in [
        "checkpoint.bin",
        "checkpoint_120_r1.bin",
        "checkpoint_000000120_r.bin",
        "checkpoint_000000120_r1.binx",
        "checkpoint_00000012x_r1.bin",
    ] {
        assert_eq!(parse_piece_name(other), None, "{other}");
    }
}
