//! How `grains validate` prints its results: one short line per case ([`short_line`]), the full
//! lines with everything measured ([`full_lines`]), or the Markdown page of `docs/validation.md`
//! ([`markdown`]); and the closing total ([`total_line`]).

use crate::case::{CaseResult, Status};

/// Width of the short line's title column (characters).
pub const TITLE_WIDTH: usize = 30;

/// Width of the short line's key-figure column (characters): with the id and the verdict a
/// short line is 99 characters.
pub const KEY_WIDTH: usize = 58;

/// The command that writes `docs/validation.md`.
pub const MARKDOWN_COMMAND: &str =
    "cargo run --release -- validate --markdown > docs/validation.md";

/// One line: the id, the title, the key figure and the verdict, in columns.
pub fn short_line(r: &CaseResult) -> String {
    format!(
        "{:<4} {:<TITLE_WIDTH$} {:<KEY_WIDTH$} {}",
        r.id, r.title, r.key_figure, r.status
    )
}

/// The case's line with what is expected and everything measured, then its details indented.
pub fn full_lines(r: &CaseResult) -> Vec<String> {
    let mut lines = vec![format!(
        "{:<4} expected: {} | measured: {} | {}",
        r.id, r.expected, r.measured, r.status
    )];
    lines.extend(r.details.iter().map(|line| format!("     {line}")));
    lines
}

/// `validate: N passed, M failed`.
pub fn total_line(results: &[CaseResult]) -> String {
    let passed = results.iter().filter(|r| r.status == Status::Pass).count();
    format!(
        "validate: {passed} passed, {} failed",
        results.len() - passed
    )
}

/// A table cell: `|` escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The Markdown page of the results: the table `| id | expected | measured | status |`, the
/// total, each case's title and scene files, and the cases' details.
pub fn markdown(results: &[CaseResult]) -> String {
    let mut page = vec![
        format!("<!-- Written by `{MARKDOWN_COMMAND}`; edit the cases in validation/src/cases/, not this file. -->"),
        String::new(),
        "# Validation".into(),
        String::new(),
        "The source papers' validation cases as `grains validate` runs them: what each case".into(),
        "expects, what this build measured and the verdict. `grains validate` prints one line per"
            .into(),
        "case, `grains validate --verbose` the lines of this table and the tables below;".into(),
        "`grains validate --solver apgd` (or `jacobi`) solves every case with that iteration in"
            .into(),
        "place of its own Gauss–Seidel, keeping its sweeps, tolerance and ω.".into(),
        "Wall-clock seconds depend on the machine. Regenerate this page with:".into(),
        String::new(),
        format!("    {MARKDOWN_COMMAND}"),
        String::new(),
        "| id | expected | measured | status |".into(),
        "|---|---|---|---|".into(),
    ];
    page.extend(results.iter().map(|r| {
        format!(
            "| {} | {} | {} | {} |",
            r.id,
            cell(&r.expected),
            cell(&r.measured),
            r.status
        )
    }));
    page.extend([
        String::new(),
        total_line(results),
        String::new(),
        "## The cases".into(),
        String::new(),
        "| id | case | scene files |".into(),
        "|---|---|---|".into(),
    ]);
    page.extend(results.iter().map(|r| {
        let scenes = if r.scenes.is_empty() {
            "none: a small system built in code, stepped beside an exact reference or a closed form"
                .into()
        } else {
            r.scenes
                .iter()
                .map(|s| format!("`scenes/{s}.toml`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!("| {} | {} | {scenes} |", r.id, cell(r.title))
    }));
    for r in results.iter().filter(|r| !r.details.is_empty()) {
        page.extend([
            String::new(),
            format!("## {}: {}", r.id, r.title),
            String::new(),
            "```text".into(),
        ]);
        page.extend(r.details.iter().cloned());
        page.push("```".into());
    }
    page.push(String::new());
    page.join("\n")
}
