"""The fill generators (grains.lattice, random_fill, pour_lattice): the library's, the same
the scene files' [[bodies]] tables use, so a world filled in code equals the scene's bit for
bit."""

import numpy as np
import pytest

import grains

SCENE = """
[scene]
name = "fills"
duration = 0.01

[settings]
preset = "granular"
h = 0.001

[[materials]]
name = "glass"
friction = 0.5

[[bodies]]
name = "lattice"
generator = "lattice"
radius = 0.004
density = 2500
origin = [-0.03, -0.03, 0.01]
spacing = 0.011
counts = [6, 5, 3]
count = 80
jitter = 0.3
seed = 11

[[bodies]]
name = "drum"
generator = "random_fill"
region = "cylinder"
region_centre = [0.0, 0.0, 0.12]
region_axis = [0.0, 1.0, 1.0]
region_radius = 0.04
region_length = 0.06
radius = 0.003
radius_max = 0.004
count = 60
density = 2500
seed = 4

[[bodies]]
name = "hopper"
generator = "random_fill"
region = "cone"
region_centre = [0.0, 0.0, 0.25]
region_axis = [0.0, 0.0, 1.0]
region_small_radius = 0.01
region_large_radius = 0.05
region_length = 0.06
radius = 0.003
packing_fraction = 0.2
density = 2500
seed = 5

[[bodies]]
name = "box"
generator = "random_fill"
region_min = [-0.04, -0.04, 0.32]
region_max = [0.04, 0.04, 0.4]
radius = 0.003
count = 50
density = 2500
"""


def test_the_fills_give_the_scene_files_bodies_to_the_bit(tmp_path):
    path = tmp_path / "fills.toml"
    path.write_text(SCENE)
    world = grains.load_scene(path, threads=1)
    groups = dict(world.groups)
    lattice = grains.lattice(
        (-0.03, -0.03, 0.01), 0.011, (6, 5, 3), count=80, jitter=0.3, radius=0.004, seed=11
    )
    got = [lattice]
    avoid = (lattice, np.full(len(lattice), 0.004))
    for region, rest in [
        ({"cylinder": ((0, 0, 0.12), (0, 1, 1), 0.04, 0.06)}, dict(count=60, radius_max=0.004, seed=4)),
        ({"cone": ((0, 0, 0.25), (0, 0, 1), 0.01, 0.05, 0.06)}, dict(packing_fraction=0.2, seed=5)),
        ({"box": ((-0.04, -0.04, 0.32), (0.04, 0.04, 0.4))}, dict(count=50)),
    ]:
        p, r = grains.random_fill(radius=0.003, avoid=avoid, **region, **rest)
        got.append(p)
        avoid = (np.concatenate([avoid[0], p]), np.concatenate([avoid[1], r]))
    for (name, (start, stop)), p in zip(
        sorted(groups.items(), key=lambda g: g[1][0]), got
    ):
        assert len(p) == stop - start, name
        assert np.array_equal(world.positions[start:stop], p.astype(np.float32)), name
    assert np.array_equal(world.radii, avoid[1].astype(np.float32))


def test_random_fills_keep_clear_of_each_other_and_of_what_they_avoid():
    bed = grains.lattice((0.0, 0.0, 0.005), 0.011, (5, 5, 1))
    p, r = grains.random_fill(
        120, radius=0.003, radius_max=0.005, box=((0, 0, 0), (0.05, 0.05, 0.04)),
        avoid=(bed, 0.005),
    )
    assert p.shape == (120, 3) and r.shape == (120,)
    assert ((r >= 0.003) & (r <= 0.005)).all()
    everyone = np.concatenate([bed, p])
    radii = np.concatenate([np.full(len(bed), 0.005), r])
    gaps = np.linalg.norm(everyone[:, None] - everyone[None], axis=2) - radii[:, None] - radii[None]
    np.fill_diagonal(gaps, 1.0)
    assert gaps.min() >= -1e-7


def test_fills_name_the_argument_they_refuse():
    with pytest.raises(ValueError, match="only .* of 1000 bodies fit"):
        grains.random_fill(1000, radius=0.005, box=((0, 0, 0), (0.02, 0.02, 0.02)))
    with pytest.raises(ValueError, match="exactly one of box, cylinder and cone"):
        grains.random_fill(10, radius=0.005)
    with pytest.raises(ValueError, match="exactly one of count and packing_fraction"):
        grains.random_fill(radius=0.005, box=((0, 0, 0), (1, 1, 1)))
    with pytest.raises(ValueError, match="packing_fraction: at most 0.6"):
        grains.random_fill(radius=0.005, box=((0, 0, 0), (1, 1, 1)), packing_fraction=0.7)
    with pytest.raises(ValueError, match="region_axis: must not be zero"):
        grains.random_fill(5, radius=0.005, cylinder=((0, 0, 0), (0, 0, 0), 0.1, 0.1))
    with pytest.raises(ValueError, match="jitter: must be at most"):
        grains.lattice((0, 0, 0), 0.01, (2, 2, 2), jitter=1.5, radius=0.005)
    with pytest.raises(ValueError, match="radius: the jitter is a fraction"):
        grains.lattice((0, 0, 0), 0.01, (2, 2, 2), jitter=0.5)
    with pytest.raises(ValueError, match="count: is 8 but the lattice has 8 sites"):
        grains.lattice((0, 0, 0), 0.01, (2, 2, 2), count=8)


def test_the_pour_lattice_is_the_pour_scenes(tmp_path):
    path = tmp_path / "pour.toml"
    path.write_text(
        '[scene]\nname = "p"\nduration = 0.01\n[settings]\npreset = "granular"\nh = 0.001\n'
        '[[materials]]\nname = "g"\nfriction = 0.5\n'
        '[[containers]]\nkind = "pour_box"\nn = 300\n'
        '[[bodies]]\ngenerator = "pour_lattice"\ncount = 300\n'
    )
    world = grains.load_scene(path, threads=1)
    assert np.array_equal(world.positions, grains.pour_lattice(300).astype(np.float32))
    width, height = grains.pour_box(300)
    # 7 × 7 sites 2.2 r apart with 2 r to each wall; 7 layers, the top one 2 r + 4 r below the rim.
    assert width == pytest.approx(6 * 2.2 * 0.005 + 4 * 0.005)
    assert height == pytest.approx(2 * 0.005 + 2.2 * 0.005 * 6 + 4 * 0.005)
