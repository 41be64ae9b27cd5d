"""What insertions and sinks counted, read from Python (World.lifecycle_counts), and the
PlacementWarning when grains due found no place (World.step and grains.run)."""

import math
import warnings

import numpy as np
import pytest

import grains


def feed(rate, floor=False):
    """Grains of r = 3 mm fed at `rate` grains/s from a 5 × 5 × 2 cm region falling into a sink
    below z = 0, or with `floor` piling up on a floor at the region's bottom, which fills it."""
    b = grains.WorldBuilder(grains.Settings.granular(1e-3))
    b.material(0.5)
    if floor:
        b.plane((0.0, 0.0, 0.1), (0.0, 0.0, 1.0))
    b.insert(
        box=((-0.025, -0.025, 0.1), (0.025, 0.025, 0.12)),
        count_per_second=rate,
        radius=0.003,
        density=2000.0,
        seed=3,
    )
    b.sink("below", half_space=((0.0, 0.0, 0.0), (0.0, 0.0, -1.0)))
    return b.build()


def test_the_counts_balance_the_grains_and_their_mass():
    world = feed(800.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", grains.PlacementWarning)
        world.step(300)
    c = world.lifecycle_counts()
    assert c["inserted"] > 0 and c["removed"] > 0 and c["missed"] == 0
    assert c["inserted"] - c["removed"] == len(world)
    grain = 4.0 / 3.0 * math.pi * 0.003**3 * 2000.0
    assert c["inserted_mass"] == pytest.approx(c["inserted"] * grain, rel=1e-5)
    assert c["removed_mass"] == pytest.approx(c["removed"] * grain, rel=1e-5)
    assert np.sum(world.masses) == pytest.approx(c["inserted_mass"] - c["removed_mass"], rel=1e-5)
    assert c["insertions"] == [{"placed": c["inserted"], "missed": 0, "mass": c["inserted_mass"]}]
    assert c["sinks"] == [{"name": "below", "removed": c["removed"], "mass": c["removed_mass"]}]


def test_missed_placements_warn_with_their_counts():
    world = feed(1300.0, floor=True)
    with pytest.warns(grains.PlacementWarning, match="found no place") as caught:
        world.step(400)
    c = world.lifecycle_counts()
    assert c["missed"] > 0
    assert f"{c['missed']} grains due" in str(caught[0].message)
    # No new miss, no warning: a step that places no batch.
    with warnings.catch_warnings():
        warnings.simplefilter("error", grains.PlacementWarning)
        world.step(1)
    assert world.lifecycle_counts()["missed"] == c["missed"]
    assert issubclass(grains.PlacementWarning, RuntimeWarning)


def test_a_world_without_insertions_counts_nothing(pile_scene):
    c = grains.load_scene(pile_scene, threads=1).lifecycle_counts()
    assert (c["inserted"], c["missed"], c["removed"]) == (0, 0, 0)
    assert c["insertions"] == [] and c["sinks"] == []


def test_a_run_that_missed_placements_warns(tmp_path):
    scene = tmp_path / "flood.toml"
    scene.write_text(
        '[scene]\nname = "flood"\nduration = 0.4\n[settings]\npreset = "granular"\nh = 0.001\n'
        '[[materials]]\nname = "g"\nfriction = 0.5\n'
        '[[containers]]\nkind = "box"\nfloor_centre = [0.0, 0.0, 0.1]\n'
        "width_x = 0.1\nwidth_y = 0.1\nheight = 0.1\n"
        '[[insert]]\nregion = "box"\nmin = [-0.025, -0.025, 0.1]\nmax = [0.025, 0.025, 0.12]\n'
        "count_per_second = 1300\nradius = 0.003\ndensity = 2500\n"
        '[output]\nformats = ["csv"]\n'
    )
    with pytest.warns(grains.PlacementWarning, match=r"grains_missed"):
        summary = grains.run(scene, tmp_path / "out", progress=False)
    assert summary["grains_missed"] > 0
    assert summary["grains_inserted_kg"] == pytest.approx(
        summary["grains_inserted"] * 4.0 / 3.0 * math.pi * 0.003**3 * 2500.0, rel=1e-5
    )
