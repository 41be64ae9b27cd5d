"""The Python package's overhead (issue 13), measured in one run on one machine.

1. `grains bench SCENE --steps N --json` (the Rust program) against `world.step(N)` from Python
   on the same scene, alternated `--pairs` times: the stepping wall time of each (the bench's
   `seconds`, Python's perf_counter around `step`) and the CPU seconds of each (the bench
   process's, and this process's around `step`, all threads).
2. Reading the positions of a large world (`--big`, default the 1M-grain pour): the view's
   address against the engine buffer's across a step, and the time to take the view against
   the time of a copy.

Run from the repository root after `pip install ./python` (or with the package on PYTHONPATH):

    python benches/python_overhead.py [--scene scenes/pour_27k.toml] [--steps 500] [--pairs 3]
"""

import argparse
import json
import os
import resource
import subprocess
import time
import timeit

import numpy as np

import grains


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def rust_bench(cli, scene, steps, threads):
    before = child_cpu()
    out = subprocess.run(
        [cli, "bench", scene, "--steps", str(steps), "--threads", str(threads), "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)["seconds"], child_cpu() - before


def python_step(scene, steps, threads):
    world = grains.load_scene(scene, threads=threads)
    cpu, wall = time.process_time(), time.perf_counter()
    world.step(steps)
    return time.perf_counter() - wall, time.process_time() - cpu


def overhead(args):
    rows = []
    for k in range(args.pairs):
        order = [("rust", rust_bench), ("python", python_step)]
        if k % 2:
            order.reverse()
        for name, f in order:
            if name == "rust":
                wall, cpu = f(args.cli, args.scene, args.steps, args.threads)
            else:
                wall, cpu = f(args.scene, args.steps, args.threads)
            rows.append((name, wall, cpu))
            print(f"pair {k + 1}: {name:6s} {wall:8.3f} s wall  {cpu:8.3f} s CPU")
    for what, col in (("wall", 1), ("CPU", 2)):
        rust = [r[col] for r in rows if r[0] == "rust"]
        py = [r[col] for r in rows if r[0] == "python"]
        print(
            f"{what}: grains bench median {np.median(rust):.3f} s, Python step median "
            f"{np.median(py):.3f} s, ratio {np.median(py) / np.median(rust):.4f} "
            f"(pairwise {', '.join(f'{p / r:.4f}' for p, r in zip(py, rust))})"
        )


def zero_copy(args):
    t0 = time.perf_counter()
    world = grains.load_scene(args.big, threads=args.threads, backend="cpu")
    print(f"{args.big}: {len(world):,} grains built in {time.perf_counter() - t0:.1f} s")
    view = world.positions
    address = view.__array_interface__["data"][0]
    world.step(1)
    again = world.positions
    print(
        f"view address {address:#x}, after a step {again.__array_interface__['data'][0]:#x}, "
        f"owns its data: {view.flags.owndata}; the first view shows the new state: "
        f"{np.array_equal(view, again)}"
    )
    n = 200
    take = timeit.timeit(lambda: world.positions, number=n) / n
    copy = timeit.timeit(lambda: world.positions.copy(), number=20) / 20
    print(
        f"taking the view: {take * 1e6:.1f} us; a copy of it: {copy * 1e3:.2f} ms "
        f"({view.nbytes / 1e6:.0f} MB)"
    )


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scene", default="scenes/pour_27k.toml")
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--pairs", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--big", default="scenes/pour_1m.toml")
    p.add_argument("--cli", default=os.path.join(here, "target", "release", "grains"))
    p.add_argument("--skip-overhead", action="store_true")
    args = p.parse_args()
    if not args.skip_overhead:
        overhead(args)
    zero_copy(args)


if __name__ == "__main__":
    main()
