"""The examples run and say what their physics should."""

import csv
import re
import subprocess
import sys

import numpy as np

from conftest import ROOT


def test_the_friction_sweep_finds_that_friction_loosens_the_bed(tmp_path):
    subprocess.run(
        [sys.executable, ROOT / "python" / "examples" / "friction_sweep.py",
         "--mu", "0", "0.5", "--grains", "2000", "--out", tmp_path],
        check=True,
    )
    rows = list(csv.DictReader(open(tmp_path / "friction_sweep.csv")))
    assert [float(r["mu"]) for r in rows] == [0.0, 0.5]
    smooth, rough = ({k: float(v) for k, v in r.items()} for r in rows)
    for r in (smooth, rough):
        assert r["ke_per_grain_J"] < 1e-8 and r["core_grains"] > 200, r
    # Frictionless spheres settle near random close packing and the isostatic six contacts;
    # at mu = 0.5 the bed is looser (phi near 0.58-0.60) with near four (Silbert, Soft Matter
    # 6, 2010). The bounds leave room for the small bed's walls and rattlers.
    assert 0.60 < smooth["packing_fraction"] < 0.66 and 5.5 < smooth["coordination"] < 6.5
    assert 0.55 < rough["packing_fraction"] < smooth["packing_fraction"] - 0.02
    assert 3.8 < rough["coordination"] < 5.2
    assert rough["bed_height_m"] > smooth["bed_height_m"]


def test_the_docs_example_of_a_world_built_in_code_runs():
    text = (ROOT / "docs" / "python.md").read_text()
    section = text[text.index("## A world built in code") : text.index("## Stepping")]
    code = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    scope = {}
    exec(code, scope)
    world = scope["world"]
    assert len(world) == 2000 and world.steps == 500
    # The grains fell into the box and stayed in it.
    p = world.positions
    assert p[:, 2].max() < 0.4 and np.all(np.abs(p[:, :2]) < 0.1)
