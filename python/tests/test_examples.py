"""The examples run and say what their physics should."""

import csv
import subprocess
import sys

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
