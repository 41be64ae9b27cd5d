//! The unit tests of `src/report.rs`.

use grains_validation::case::{CaseResult, Status};
use grains_validation::cases::CASES;
use grains_validation::report::*;

fn result(status: Status, details: &[&str]) -> CaseResult {
    CaseResult {
        id: "V99",
        title: "a sphere | a plane",
        scenes: &["v99_sphere"],
        expected: "|v| falls".into(),
        key_figure: "x".repeat(KEY_WIDTH),
        measured: "|v| fell".into(),
        status,
        details: details.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn every_title_fits_its_column_and_a_full_key_keeps_the_line_under_100_characters() {
    for case in CASES {
        let about = case.about();
        assert!(
            about.title.chars().count() <= TITLE_WIDTH,
            "{}: title `{}` is wider than {TITLE_WIDTH}",
            about.id,
            about.title
        );
        let line = short_line(&CaseResult {
            id: about.id,
            title: about.title,
            ..result(Status::Pass, &[])
        });
        assert!(line.chars().count() <= 100, "{line}");
    }
}

#[test]
fn the_total_counts_passes_and_failures() {
    let results = [
        result(Status::Pass, &[]),
        result(Status::Fail, &[]),
        result(Status::Pass, &[]),
    ];
    assert_eq!(total_line(&results), "validate: 2 passed, 1 failed");
}

#[test]
fn full_lines_indent_the_details_under_the_case() {
    let lines = full_lines(&result(Status::Fail, &["row 1", "row 2"]));
    assert_eq!(
        lines,
        [
            "V99  expected: |v| falls | measured: |v| fell | FAIL",
            "     row 1",
            "     row 2"
        ]
    );
}

#[test]
fn markdown_escapes_bars_in_cells_and_fences_the_details() {
    let page = markdown(&[result(Status::Pass, &["a | b"])]);
    assert!(
        page.contains("| V99 | \\|v\\| falls | \\|v\\| fell | PASS |"),
        "{page}"
    );
    assert!(page.contains("| V99 | a sphere \\| a plane | `scenes/v99_sphere.toml` |"));
    assert!(page.contains("```text\na | b\n```"), "{page}");
    assert!(page.contains("\nvalidate: 1 passed, 0 failed\n"), "{page}");
    assert!(page.contains(MARKDOWN_COMMAND));
}
