"""The World: views, stepping, contacts, snapshots, errors, the GIL and Ctrl-C."""

import _thread
import ast
import inspect
import os
import pathlib
import pickle
import random
import select
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import grains
from conftest import ROOT


def test_a_scene_steps_bit_for_bit_as_the_rust_library(pile_scene, grains_cli, tmp_path):
    # The `grains` program (Rust, the library's own stepping) runs 100 steps and writes its
    # checkpoint; the same scene stepped from Python must hold the same bits.
    out = tmp_path / "rust"
    subprocess.run(
        [grains_cli, "run", pile_scene, "--steps", "100", "--out", out],
        check=True,
        capture_output=True,
    )
    rust = grains.load_scene(pile_scene)
    rust.restore((out / "checkpoint.bin").read_bytes())
    assert rust.steps == 100
    world = grains.load_scene(pile_scene)
    world.step(100)
    for name in ("positions", "velocities", "angular_velocities", "orientations", "radii"):
        a, b = getattr(world, name), getattr(rust, name)
        assert np.array_equal(a, b), f"{name} differ after 100 steps"
    # A thread count changes no bit.
    one = grains.load_scene(pile_scene, threads=1)
    one.step(100)
    assert np.array_equal(one.positions, world.positions)


def test_views_are_read_only_views_that_follow_the_state(pile_scene):
    world = grains.load_scene(pile_scene)
    p, v = world.positions, world.velocities
    assert p.shape == (216, 3) and p.dtype == np.float32
    assert not p.flags.writeable
    with pytest.raises(ValueError):
        p[0, 0] = 1.0
    z0 = p[:, 2].copy()
    world.step(20)
    # The same view now shows the state after the steps: the grains fell.
    assert np.all(p[:, 2] < z0)
    assert np.all(v[:, 2] < 0.0)
    assert np.array_equal(p, world.positions)
    # Both views point into the same engine buffer: no copy was made.
    addr = p.__array_interface__["data"][0]
    assert world.positions.__array_interface__["data"][0] == addr
    assert world.radii.__array_interface__["data"][0] == addr + 12
    assert np.all(world.radii == np.float32(0.005))
    assert np.array_equal(world.ids, np.arange(216, dtype=np.uint64))
    # Masses: 4/3 pi r^3 rho.
    m = 4.0 / 3.0 * np.pi * 0.005**3 * 2500.0
    assert np.allclose(world.masses, m, rtol=1e-6)
    # A view keeps its world alive.
    del world
    assert np.isfinite(p).all()


def test_set_velocities_and_positions(pile_scene):
    world = grains.load_scene(pile_scene)
    n = len(world)
    v = np.zeros((n, 3))
    v[:, 0] = 0.25
    world.set_velocities(v)
    assert np.all(world.velocities[:, 0] == np.float32(0.25))
    world.set_velocities(np.ones((n, 3), dtype=np.int32))  # integers are numbers too
    assert np.all(world.velocities == 1.0)
    world.set_velocities(v)
    p = world.positions.copy()
    p[:, 2] += 0.01
    world.set_positions(p)
    assert np.array_equal(world.positions, p)
    world.step(1)
    assert np.isfinite(world.positions).all()


@pytest.mark.parametrize(
    "value, error, words",
    [
        (np.zeros((216, 2)), ValueError, "shape (N, 3)"),
        (np.zeros((215, 3)), ValueError, "216 rows"),
        (np.zeros((216, 3), dtype=bool), TypeError, "numbers"),
        (np.full((216, 3), np.nan), ValueError, "finite"),
        ("fast", TypeError, "numbers"),
    ],
)
def test_bad_arrays_raise_clear_errors(pile_scene, value, error, words):
    world = grains.load_scene(pile_scene)
    with pytest.raises(error) as e:
        world.set_velocities(value)
    assert "velocities" in str(e.value) and words in str(e.value)


def test_the_contact_forces_of_a_resting_pile_sum_to_its_weight(pile_scene):
    world = grains.load_scene(pile_scene)
    world.step(1500)  # 3 s: the pour lands by 0.5 s and the bed comes to rest
    stats = world.step(1)
    # At rest: mean kinetic energy per grain below 1e-8 J (the bar of the rigid-contact issue).
    assert stats["kinetic_energy"] / len(world) < 1e-8, stats
    weight = world.masses.sum() * 9.81
    c = world.contacts()
    on_walls = c["body_b"] < 0
    # Grain-grain forces cancel in pairs; what holds the pile up is the walls' push.
    lift = c["force"][on_walls, 2].sum()
    assert abs(lift - weight) < 1e-3 * weight, (lift, weight)
    # The same from the loads on the walls (the floor and the sides) and per body.
    loads = world.wall_loads()
    assert abs(-loads["force"][:, 2].sum() - weight) < 1e-3 * weight
    assert loads["contacts"].sum() == on_walls.sum()
    per_body = world.body_contact_forces()
    assert abs(per_body[:, 2].sum() - weight) < 1e-3 * weight
    # Each contact's force is its impulse over h, split into normal and tangential parts.
    assert np.allclose(c["force"], c["impulse"] / world.h)
    recombined = c["normal_impulse"][:, None] * c["normal"] + c["tangential_impulse"]
    assert np.allclose(recombined, c["impulse"], atol=1e-9)
    assert np.all(c["normal_impulse"] >= 0.0)


def test_a_snapshot_round_trip_is_bit_identical(pile_scene):
    world = grains.load_scene(pile_scene)
    world.step(30)
    snap = pickle.loads(pickle.dumps(world.snapshot()))
    assert snap.steps == 30 and len(snap) == 216
    assert bytes(snap) == world.snapshot().to_bytes()
    world.step(40)
    after = world.positions.copy(), world.velocities.copy()
    other = grains.load_scene(pile_scene)
    other.restore(grains.Snapshot.from_bytes(bytes(snap)))
    other.step(40)
    assert np.array_equal(other.positions, after[0])
    assert np.array_equal(other.velocities, after[1])
    # Restoring into the same world moves no buffer: its views stay valid.
    view = world.positions
    world.restore(snap)
    assert world.steps == 30
    world.step(40)
    assert np.array_equal(view, after[0])


def test_a_damaged_or_foreign_snapshot_is_refused(pile_scene, tmp_path):
    world = grains.load_scene(pile_scene)
    data = bytearray(world.snapshot().to_bytes())
    data[100] ^= 0xFF
    with pytest.raises(grains.SnapshotError):
        grains.Snapshot.from_bytes(bytes(data))
    other = tmp_path / "other.toml"
    other.write_text(pile_scene.read_text().replace("friction = 0.5", "friction = 0.4"))
    with pytest.raises(grains.SnapshotError, match="friction"):
        grains.load_scene(other).restore(world.snapshot())
    with pytest.raises(TypeError):
        world.restore(42)


def test_step_releases_the_gil(pile_scene):
    world = grains.load_scene(pile_scene, threads=1)
    world.step(1)
    counts = []
    done = threading.Event()

    def count():
        n = 0
        while not done.is_set():
            n += 1
        counts.append(n)

    stepping = threading.Thread(target=lambda: (world.step(300), done.set()))
    t0 = time.perf_counter()
    stepping.start()
    # Count in this thread while the other steps: with the GIL held by `step`, this loop
    # would not run at all until it returned.
    count()
    stepping.join()
    elapsed = time.perf_counter() - t0
    assert world.steps == 301
    assert elapsed > 0.05, "the run was too short to tell"
    assert counts[0] > 1000, counts


@pytest.fixture
def ctrl_c():
    """Ctrl-C (`_thread.interrupt_main`) raises KeyboardInterrupt for the test's duration, also
    where the suite started with SIGINT ignored (a background job of a shell without job
    control), where Python installs no handler and interrupt_main does nothing."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_ctrl_c_stops_a_long_step_between_steps(pile_scene, ctrl_c):
    world = grains.load_scene(pile_scene, threads=1)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        world.step(1_000_000)
    timer.join()
    # It stopped early, on a whole step, and the world goes on from there.
    steps = world.steps
    assert 0 < steps < 1_000_000
    world.step(2)
    assert world.steps == steps + 2
    assert np.isfinite(world.positions).all()


# A child that steps a world on two threads (so that the solver's workers meet at its barrier)
# for ever, `tries` times: it says "stepping" before each `step(10**12)` and "stopped" when
# KeyboardInterrupt ends it. On the odd tries a thread of its own sends the SIGINT (as a
# `threading.Timer` does); on the even ones the test does, from outside, like a terminal.
INTERRUPTED_CHILD = """
import os, random, signal, sys, threading
import grains
signal.signal(signal.SIGINT, signal.default_int_handler)
world = grains.load_scene(sys.argv[1], threads=2)
rng = random.Random(7)
for k in range(int(sys.argv[2])):
    try:
        if k % 2:
            delay = rng.uniform(0.0, 0.3)
            threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT)).start()
        print("stepping", flush=True)
        world.step(10**12)
        print("returned", flush=True)
    except KeyboardInterrupt:
        print("stopped", world.steps, flush=True)
"""


class Lines:
    """The lines a child prints, read as they come, with a deadline that counts only the time
    this process ran (a pause of the whole machine, SIGSTOP, does not use it up)."""

    def __init__(self, child):
        self.child, self.buffer = child, b""

    def next(self, seconds):
        waited = 0.0
        while b"\n" not in self.buffer:
            if waited > seconds:
                return None
            start = time.monotonic()
            ready, _, _ = select.select([self.child.stdout], [], [], 0.1)
            if ready:
                chunk = os.read(self.child.stdout.fileno(), 4096)
                if not chunk:
                    return None
                self.buffer += chunk
            waited += min(time.monotonic() - start, 0.2)
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()


def test_ctrl_c_stops_step_every_time_within_seconds(pile_scene):
    # 20 SIGINTs at random instants of a world.step(10**12) on two threads, half from outside,
    # half from a thread of the stepping process: each ends the step with KeyboardInterrupt
    # within 10 s (it takes about 50 ms), and the world steps on after each.
    tries = 20
    child = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED_CHILD, str(pile_scene), str(tries)],
        stdout=subprocess.PIPE,
        bufsize=0,
    )
    lines, rng = Lines(child), random.Random(11)
    try:
        for k in range(tries):
            line = lines.next(120 if k == 0 else 10)
            assert line == "stepping", f"try {k}: {line!r} instead of stepping"
            if k % 2 == 0:
                time.sleep(rng.uniform(0.0, 0.3))
                child.send_signal(signal.SIGINT)
            line = lines.next(10)
            assert line is not None, f"try {k}: the step went on 10 s after SIGINT"
            assert line.startswith("stopped"), f"try {k}: {line!r}"
        assert child.wait(timeout=60) == 0
    finally:
        child.kill()
        child.wait()


def test_scene_errors_carry_file_line_and_key(pile_scene, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(pile_scene.read_text().replace("h = 0.002", "h = -0.002"))
    with pytest.raises(grains.SceneError) as e:
        grains.load_scene(bad)
    line = pile_scene.read_text().splitlines().index("h = 0.002") + 1
    assert e.value.line == line and e.value.key == "h" and e.value.file == str(bad)
    assert f"bad.toml:{line}" in str(e.value)
    with pytest.raises(grains.SceneError, match="cannot read"):
        grains.load_scene(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match="backend"):
        grains.load_scene(bad, backend="tpu")
    # A typo's thread count is refused, not a million threads started.
    with pytest.raises(grains.SceneError, match="threads must be at most 1024"):
        grains.load_scene(pile_scene, threads=10**6)
    assert issubclass(grains.SceneError, grains.GrainsError)


def test_a_run_of_no_step_or_of_more_steps_than_can_be_counted_is_refused(pile_scene, tmp_path):
    for bad in (dict(until=1e-9), dict(until=float("nan")), dict(until=1e300), dict(steps=2**60)):
        with pytest.raises(ValueError) as e:
            grains.run(pile_scene, tmp_path / "never", progress=False, **bad)
        assert next(iter(bad)) in str(e.value), e.value
    assert not (tmp_path / "never").exists()


def test_run_writes_what_grains_run_writes_and_resumes(pile_scene, tmp_path):
    out = tmp_path / "run"
    summary = grains.run(pile_scene, out, steps=50, progress=False)
    assert summary["steps"] == 50 and summary["bodies"] == 216
    assert (out / "summary.json").exists() and (out / "observables.csv").exists()
    summary = grains.run(pile_scene, out, resume=True, progress=False)
    assert summary["steps"] == 100 and summary["resumed_from_step"] == 50
    once = grains.run(pile_scene, tmp_path / "once", progress=False)
    a = grains.load_scene(pile_scene)
    a.restore((out / "checkpoint.bin").read_bytes())
    b = grains.load_scene(pile_scene)
    b.restore((tmp_path / "once" / "checkpoint.bin").read_bytes())
    assert once["steps"] == 100 and np.array_equal(a.positions, b.positions)


def test_snapshot_load_reads_a_run_folders_checkpoint_and_names_what_is_wrong(pile_scene, tmp_path):
    out = tmp_path / "run"
    grains.run(pile_scene, out, steps=30, progress=False)
    snap = grains.Snapshot.load(out)
    assert snap.steps == 30 and len(snap) == 216
    assert snap.to_bytes() == (out / "checkpoint.bin").read_bytes()
    world = grains.load_scene(pile_scene)
    world.restore(snap)
    assert world.steps == 30
    with pytest.raises(grains.SnapshotError, match="missing.*checkpoint.bin"):
        grains.Snapshot.load(tmp_path / "missing")
    (out / "checkpoint.bin").write_bytes(b"not a checkpoint")
    with pytest.raises(grains.SnapshotError, match="run: checkpoint.bin"):
        grains.Snapshot.load(out)


def test_snapshot_load_joins_the_pieces_of_a_distributed_checkpoint(pile_scene, tmp_path, grains_cli):
    # The program of the workspace's test build has MPI (.ci/run); a build without it, or a
    # machine without mpirun, cannot write a distributed checkpoint.
    # A distributed run takes Jacobi or APGD, not Gauss-Seidel (Jacobi at the preset's omega 1
    # diverges on this pile).
    scene = tmp_path / "pile_apgd.toml"
    text = pile_scene.read_text().replace("threads = 2", 'threads = 1\nsolver = "apgd"')
    scene.write_text(text)
    out = tmp_path / "ranks"
    launch = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2"]
    args = [str(grains_cli), "run", str(scene), "--out", str(out), "--steps", "30"]
    try:
        done = subprocess.run(launch + args, capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        pytest.skip("no mpirun")
    if done.returncode != 0 and "without MPI" in done.stderr:
        pytest.skip("the grains program was built without MPI")
    assert done.returncode == 0, done.stderr
    pieces = sorted(p.name for p in out.glob("checkpoint_*_r*.bin"))
    assert len(pieces) == 2, pieces
    snap = grains.Snapshot.load(out)
    assert snap.steps == 30 and len(snap) == 216
    world = grains.load_scene(scene)
    world.restore(snap)
    assert world.steps == 30 and np.isfinite(world.positions).all()
    damaged = out / pieces[1]
    damaged.write_bytes(damaged.read_bytes()[:-1])
    with pytest.raises(grains.SnapshotError, match=pieces[1]):
        grains.Snapshot.load(out)


def test_ctrl_c_stops_a_run_which_then_resumes_bit_identically(pile_scene, tmp_path, ctrl_c):
    out, once = tmp_path / "cut", tmp_path / "once"
    timer = threading.Timer(0.4, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt, match="resume=True"):
        grains.run(pile_scene, out, steps=3000, threads=1, progress=False)
    timer.join()
    cut = grains.load_scene(pile_scene)
    cut.restore((out / "checkpoint.bin").read_bytes())
    assert 0 < cut.steps < 3000, "the checkpoint is written where the run stopped"
    summary = grains.run(pile_scene, out, steps=3000, resume=True, progress=False)
    assert summary["resumed_from_step"] == cut.steps and summary["steps"] == 3000
    grains.run(pile_scene, once, steps=3000, progress=False)
    a, b = grains.load_scene(pile_scene), grains.load_scene(pile_scene)
    a.restore((out / "checkpoint.bin").read_bytes())
    b.restore((once / "checkpoint.bin").read_bytes())
    assert np.array_equal(a.positions, b.positions)


def gpu_scene(pile_scene, tmp_path):
    """The pile with the GPU's solver (projected Jacobi, fixed sweeps)."""
    path = tmp_path / "gpu.toml"
    path.write_text(
        pile_scene.read_text().replace(
            'preset = "granular"',
            'preset = "granular"\nsolver = "jacobi"\nomega = 0.3\nmax_iterations = 50\ntolerance = 0.0',
        )
    )
    return path


def test_the_gpu_backend_is_selected_as_on_the_command_line(pile_scene, tmp_path):
    # The pile's Gauss-Seidel solver is refused by the GPU, with the key to change.
    with pytest.raises(grains.SceneError, match="solver"):
        grains.load_scene(pile_scene, backend="gpu")
    try:
        world = grains.load_scene(gpu_scene(pile_scene, tmp_path), backend="gpu")
    except grains.SceneError as e:
        if "no GPU adapter" in str(e):
            pytest.skip(f"no GPU adapter: {e}")
        raise
    assert world.backend == "gpu" and world.adapter
    cpu = grains.load_scene(gpu_scene(pile_scene, tmp_path))
    p = world.positions
    world.step(50)
    cpu.step(50)
    # The view shows the state read back at the end of step(n), and it moved the grains as
    # the CPU's Jacobi solve did within the bar of docs/gpu.md's agreement suite, 1e-5 r
    # (the grains are still falling at 0.1 s: the float rounding of the two backends differs).
    assert world.steps == 50
    assert np.abs(p - cpu.positions).max() < 1e-5 * 0.005
    assert len(world.contacts()["gap"]) == world.stats()["contacts"]


def test_a_gpu_world_opened_without_xdg_runtime_dir_prints_no_loader_lines(pile_scene, tmp_path):
    # Mesa's device-selection layer asks Wayland for the display's GPU; without
    # XDG_RUNTIME_DIR, libwayland printed two `error: XDG_RUNTIME_DIR …` lines for every GPU
    # world built. What else the process writes to stderr meanwhile still comes out, in order.
    code = (
        "import sys, grains\n"
        "print('before', file=sys.stderr, flush=True)\n"
        f"w = grains.load_scene({str(gpu_scene(pile_scene, tmp_path))!r}, backend='gpu')\n"
        "w.step(2)\n"
        "print('after', file=sys.stderr, flush=True)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "WAYLAND_SOCKET")}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if "no GPU adapter" in run.stderr:
        pytest.skip("no GPU adapter")
    assert run.returncode == 0, run.stderr
    assert run.stderr.split() == ["before", "after"], run.stderr


def test_in_a_world_whose_grains_come_and_go_the_state_properties_are_copies():
    world = grains.load_scene(ROOT / "scenes" / "feed_and_sink.toml")
    assert len(world) == 0
    world.step(200)
    before = world.positions
    assert len(before) == len(world) > 0 and before.flags.owndata
    world.step(100)
    # More grains now; the copy taken before still holds the old count and values.
    assert len(world.positions) == len(world) > len(before)
    # Ids stay with their grains: removal keeps the order, new grains get new ids.
    ids = world.ids.astype(np.int64)
    assert len(ids) == len(world) and np.all(np.diff(ids) > 0) and ids[-1] >= len(before)


def test_the_stubs_name_every_public_function_class_and_member():
    stubs = pathlib.Path(grains.__file__).parent / "_grains.pyi"
    tree = ast.parse(stubs.read_text())
    stubbed = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            stubbed[node.name] = {
                n.name if isinstance(n, ast.FunctionDef) else n.target.id
                for n in node.body
                if isinstance(n, ast.FunctionDef)
                or (isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name))
            }
        elif isinstance(node, ast.FunctionDef):
            stubbed[node.name] = set()
    native = grains._grains
    for name in (n for n in dir(native) if not n.startswith("_")):
        obj = getattr(native, name)
        assert name in stubbed, f"grains.{name} has no stub"
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for member in (m for m in dir(obj) if not m.startswith("_")):
                assert member in stubbed[name], f"grains.{name}.{member} has no stub"
                assert getattr(obj, member).__doc__, f"grains.{name}.{member} has no docstring"


def test_a_world_stepping_in_another_thread_refuses_other_calls_clearly(pile_scene):
    world = grains.load_scene(pile_scene, threads=1)
    started = threading.Event()
    stepping = threading.Thread(target=lambda: (started.set(), world.step(3000)))
    stepping.start()
    started.wait()
    time.sleep(0.1)
    assert stepping.is_alive(), "the run was too short to tell"
    with pytest.raises(RuntimeError, match="stepping in another thread"):
        world.positions
    with pytest.raises(RuntimeError, match="borrowed"):
        world.step(1)
    stepping.join()
    assert world.steps == 3000 and np.isfinite(world.positions).all()


def test_apgd_solves_the_pile_in_fewer_sweeps_and_the_trace_shows_each_sweep(pile_scene):
    # The same settled pile's next step solved to 1e-6 m/s by Gauss–Seidel and by APGD: the
    # trace has one falling-to-tolerance record per sweep, and APGD needs fewer sweeps.
    sweeps = {}
    for solver, omega in (("gauss_seidel", 1.0), ("apgd", 0.3)):
        world = grains.load_scene(pile_scene)
        world.step(200)
        s = world.settings
        s.solver, s.omega, s.tolerance, s.sweeps = solver, omega, 1e-6, 5000
        world.set_settings(s)
        stats = world.step()
        trace = world.sweep_trace()
        assert len(trace["residual"]) == stats["sweeps"] == len(trace["seconds"])
        assert trace["residual"][-1] == pytest.approx(stats["residual"])
        assert trace["residual"][-1] <= 1e-6 < trace["residual"][0]
        assert np.all(np.diff(trace["seconds"]) >= 0)
        sweeps[solver] = stats["sweeps"]
    assert sweeps["apgd"] < sweeps["gauss_seidel"], sweeps
