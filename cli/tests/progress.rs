//! Progress in a log: a `grains run` whose stdout and stderr go to a file says what it runs
//! (on stdout) within 2 s of its start, then writes a status line at least every `--status-every` seconds
//! (30 in a real run; 1 here, so the test takes seconds), also when 10 % of the steps take far
//! longer than that.

use crate::common;
use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_grains");

/// The status period asked for, and the lateness allowed on top of it (the runner looks at
/// the clock every 0.2 s, after the step in progress; the test polls every 20 ms; the machine
/// may be busy).
const EVERY: Duration = Duration::from_secs(1);
const LATE: Duration = Duration::from_millis(1500);

/// The lines of the file at `path` as they appear, with the instant each was first seen, until
/// `done` says to stop.
fn watch(path: &Path, done: impl Fn(&[(Instant, String)]) -> bool) -> Vec<(Instant, String)> {
    let mut lines: Vec<(Instant, String)> = Vec::new();
    while !done(&lines) {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let now = Instant::now();
        // Only whole lines: a line being written has no newline yet.
        let whole = text.rsplit_once('\n').map_or("", |(head, _)| head);
        for line in whole.lines().skip(lines.len()) {
            lines.push((now, line.to_string()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    lines
}

#[test]
fn a_run_into_a_log_says_what_it_runs_then_how_far_it_is_every_period() {
    let dir = std::env::temp_dir().join(format!("grains-progress-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A long run of quick steps: 100,000 steps, of which 10 % take far longer than the test.
    let scene = dir.join("long.toml");
    let text = common::fixture("resting_lattice.toml")
        .replace("max_iterations = 20000", "max_iterations = 20");
    std::fs::write(&scene, text).unwrap();
    let log = dir.join("log.txt");
    let file = File::create(&log).unwrap();
    let start = Instant::now();
    let mut child = Command::new(EXE)
        .arg("run")
        .arg(&scene)
        .arg("--out")
        .arg(dir.join("out"))
        .args(["--threads", "1", "--status-every", "1"])
        .stdout(Stdio::from(file.try_clone().unwrap()))
        .stderr(Stdio::from(file))
        .spawn()
        .unwrap();
    // Watch for 6 s after the first line (or 10 s in all, if none comes).
    let lines = watch(&log, |lines| {
        lines
            .first()
            .map_or(start.elapsed() > Duration::from_secs(10), |(t, _)| {
                t.elapsed() > Duration::from_secs(6)
            })
    });
    // SAFETY: a signal to our own child, not yet waited for (its pid is not reused).
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let status = child.wait().unwrap();
    let all = std::fs::read_to_string(&log).unwrap();
    assert_eq!(status.code(), Some(130), "the run's output: {all}");

    let (first_at, first) = lines.first().unwrap_or_else(|| panic!("no line: {all}"));
    let first_after = first_at.duration_since(start);
    assert!(
        first_after < Duration::from_secs(2),
        "the first line came {first_after:?} after the start: {first}"
    );
    assert!(
        first.starts_with("resting_lattice: 1000 bodies, 100000 steps of h = 0.01 s")
            && first.ends_with("CPU, 1 thread"),
        "the first line does not say what runs: {first}"
    );
    let steps: Vec<&(Instant, String)> = lines
        .iter()
        .filter(|(_, l)| l.starts_with("step "))
        .collect();
    assert!(
        steps.len() >= 4,
        "{} status lines in 6 s with one due every {EVERY:?}: {all}",
        steps.len()
    );
    for pair in lines.windows(2) {
        let gap = pair[1].0.duration_since(pair[0].0);
        assert!(
            gap <= EVERY + LATE,
            "{gap:?} between `{}` and `{}`",
            pair[0].1,
            pair[1].1
        );
    }
    // Each status line: the step, the percentage, the time, the rate and a time left that
    // agrees with them (10 % of the steps is minutes away, so it is not seconds).
    for (_, line) in &steps {
        let field = |before: &str, after: &str| -> f64 {
            let rest = &line[line.find(before).unwrap() + before.len()..];
            rest[..rest.find(after).unwrap()].trim().parse().unwrap()
        };
        let (step, rate) = (field("step ", "/"), field("s, ", " steps/s"));
        assert!(step > 0.0 && rate > 0.0, "{line}");
        let eta = line.rsplit_once("ETA ").unwrap().1;
        let secs = match eta.split_once('m') {
            Some((m, s)) => {
                let (h, m) = m
                    .split_once('h')
                    .map_or((0.0, m), |(h, m)| (h.parse().unwrap(), m));
                h * 3600.0
                    + m.parse::<f64>().unwrap() * 60.0
                    + s.trim_end_matches('s').parse::<f64>().unwrap()
            }
            None => eta.trim_end_matches('s').parse().unwrap(),
        };
        let expected = (100_000.0 - step) / rate;
        assert!(
            (secs - expected).abs() <= 1.0 + 0.01 * expected,
            "ETA {eta} where {} steps left at {rate} steps/s take {expected:.0} s: {line}",
            100_000.0 - step
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
