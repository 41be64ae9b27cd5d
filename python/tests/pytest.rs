//! Runs the Python package's tests (`python/tests/test_*.py`) from `cargo test`, so that the
//! README's one test command covers them.
//!
//! The extension is the `_grains` library this build made (`target/<profile>/deps/lib_grains.so`
//! on Linux):
//! it is copied beside the package's Python files into a temporary folder put first on
//! `PYTHONPATH` (building it again with maturin from inside `cargo test` would wait forever on
//! cargo's lock of the target folder). The interpreter is `GRAINS_PYTHON`, else a virtual
//! environment `target/pytest-venv` made here with `python3 -m venv` and NumPy, pytest and
//! (optional: its one test skips without it) meshio from PyPI (once). The `grains` program the
//! tests compare against is the one this build made.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The folder of this build's outputs (`target/release` or `target/debug`).
fn build_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    // target/<profile>/deps/pytest-…
    exe.parent()
        .and_then(Path::parent)
        .expect("the test runs from target/<profile>/deps")
        .to_path_buf()
}

/// An interpreter with NumPy and pytest.
fn python(target: &Path) -> PathBuf {
    if let Some(p) = std::env::var_os("GRAINS_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = target.join("pytest-venv");
    let py = if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    };
    if !py.exists() {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status();
        assert!(
            made.is_ok_and(|s| s.success()),
            "the Python package's tests need python3 (3.9 or later) with its venv module; \
             install it, or point GRAINS_PYTHON at an interpreter that has numpy and pytest"
        );
    }
    let ready = Command::new(&py)
        .args(["-c", "import numpy, pytest"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ready {
        let installed = Command::new(&py)
            .args(["-m", "pip", "install", "--quiet", "numpy", "pytest"])
            .status();
        assert!(
            installed.is_ok_and(|s| s.success()),
            "could not install numpy and pytest into {} (is PyPI reachable?)",
            venv.display()
        );
    }
    // meshio, an independent reader of the binary frames (tests/test_frames.py): optional, the
    // check skips without it, so a failed install is no failure.
    let meshio = Command::new(&py)
        .args(["-c", "import meshio"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !meshio {
        let _ = Command::new(&py)
            .args(["-m", "pip", "install", "--quiet", "meshio"])
            .status();
    }
    py
}

/// The Python test files that [`the_python_package_passes_its_example_tests`] runs;
/// [`the_python_package_passes_its_other_tests`] runs every other `test_*.py` (a new file among
/// them). Two pytest sessions that libtest runs side by side: run as one, they left one core of
/// two idle most of the time (most of their worlds step on one thread, and the Ctrl-C tests
/// wait on signals); split, the other files run beside the examples' friction sweep (2,000
/// grains on two threads).
const FIRST_HALF: [&str; 1] = ["test_examples.py"];

/// What both halves need, made once: the interpreter, the folder put on `PYTHONPATH` (the
/// package as maturin lays it out) and the `grains` program.
struct Prepared {
    root: PathBuf,
    py: PathBuf,
    site: PathBuf,
    cli: PathBuf,
}

fn prepared() -> &'static Prepared {
    static PREPARED: std::sync::OnceLock<Prepared> = std::sync::OnceLock::new();
    PREPARED.get_or_init(prepare)
}

fn prepare() -> Prepared {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("python/ lies in the repository")
        .to_path_buf();
    let build = build_dir();
    // cargo leaves the cdylib it builds for the tests in deps/ (it copies it up only on build).
    let library = build.join("deps").join(format!(
        "{}_grains{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(
        library.exists(),
        "{} is missing: build the workspace (cargo test --workspace builds it)",
        library.display()
    );
    let cli = build.join("grains");
    assert!(
        cli.exists(),
        "{} is missing: build the workspace (cargo test --workspace builds it)",
        cli.display()
    );
    let target = build.parent().expect("target/<profile>").to_path_buf();
    let py = python(&target);

    // The package as maturin lays it out: the Python files and the extension.
    let site = target.join("pytest-site");
    let package = site.join("grains");
    let _ = std::fs::remove_dir_all(&site);
    std::fs::create_dir_all(&package).expect("a temporary package folder");
    for entry in std::fs::read_dir(root.join("python").join("grains")).expect("python/grains") {
        let path = entry.expect("a package file").path();
        let name = path.file_name().expect("a file name").to_owned();
        let keep = path
            .extension()
            .is_some_and(|e| e == "py" || e == "pyi" || e == "typed");
        if keep {
            std::fs::copy(&path, package.join(name)).expect("copy a package file");
        }
    }
    // The name CPython imports an extension module by (Windows: .pyd; elsewhere .abi3.so).
    let module = if cfg!(windows) {
        "_grains.pyd"
    } else {
        "_grains.abi3.so"
    };
    std::fs::copy(&library, package.join(module)).expect("copy the extension");

    Prepared {
        root,
        py,
        site,
        cli,
    }
}

/// Runs pytest on the test files of python/tests named by `files`, or (`files` empty) on every
/// one but those in `skip`.
fn run_pytest(files: &[&str], skip: &[&str]) {
    let Prepared {
        root,
        py,
        site,
        cli,
    } = prepared();
    let tests = root.join("python").join("tests");
    let mut command = Command::new(py);
    command.args(["-m", "pytest", "-q", "-p", "no:cacheprovider"]);
    if files.is_empty() {
        command.arg(&tests);
    } else {
        command.args(files.iter().map(|f| tests.join(f)));
    }
    for f in skip {
        command.arg(format!("--ignore={}", tests.join(f).display()));
    }
    let status = command
        .current_dir(root)
        .env("PYTHONPATH", site)
        .env("GRAINS_BIN", cli)
        .status()
        .expect("run pytest");
    assert!(
        status.success(),
        "the Python package's tests failed (output above)"
    );
}

/// The Python package's tests of [`FIRST_HALF`]: its examples.
#[test]
fn the_python_package_passes_its_example_tests() {
    run_pytest(&FIRST_HALF, &[]);
}

/// The Python package's other tests.
#[test]
fn the_python_package_passes_its_other_tests() {
    run_pytest(&[], &FIRST_HALF);
}
