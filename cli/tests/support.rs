//! docs/support.md is the output of `grains support --markdown`, so the page cannot drift
//! from the tables the world's build checks.

use std::process::Command;

#[test]
fn the_support_page_is_the_commands_output() {
    let out = Command::new(env!("CARGO_BIN_EXE_grains"))
        .args(["support", "--markdown"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/support.md"))
        .unwrap();
    assert!(
        String::from_utf8(out.stdout).unwrap() == page,
        "docs/support.md differs from `grains support --markdown`: regenerate it with \
         `cargo run --release -- support --markdown > docs/support.md`"
    );
}
