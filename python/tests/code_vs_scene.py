"""The world of ``data/code_vs_scene.toml``, reproduced in code, and the script that wrote that
file (``python code_vs_scene.py`` rewrites it).

The grains sit on a lattice with a jitter made of integer arithmetic and one division, so every
coordinate is the same float64 on any machine; the file holds each one in ``repr`` form (which
reads back to the same float64), and both the scene reader and ``WorldBuilder.add_spheres``
round float64 to the engine's float32 the same way.
"""

from pathlib import Path

import numpy as np

SCENE = Path(__file__).parent / "data" / "code_vs_scene.toml"

#: Grains per group: glass first, then steel.
COUNT = 162
#: Lattice sites per row and spacing (m); rows of 6 × 6 sites, layers upwards.
SIDE, SPACING = 6, 0.012
#: Radii (m) and densities (kg/m³) of the two groups.
GLASS = dict(radius=0.004, density=2500.0, friction=0.5)
STEEL = dict(radius=0.003, density=7800.0, friction=0.3)
#: Box container (m).
WIDTH, HEIGHT = 0.1, 0.15
H = 1e-3


def positions(first, count):
    """Lattice sites ``first .. first + count``, each jittered by up to 1 mm."""
    k = np.arange(first, first + count)
    ix, iy, iz = k % SIDE, (k // SIDE) % SIDE, k // (SIDE * SIDE)
    jitter = lambda mult: ((k * mult) % 101) / 101.0 * 0.001  # noqa: E731
    x = -0.03 + SPACING * ix + jitter(7919)
    y = -0.03 + SPACING * iy + jitter(104729)
    z = 0.006 + SPACING * iz + jitter(1299709)
    return np.stack([x, y, z], axis=1)


def steel_velocities(count):
    """An initial velocity (m/s) for each steel grain: exact binary fractions."""
    k = np.arange(count)
    return np.stack([(k % 5 - 2) * 0.125, (k % 3 - 1) * 0.25, -(k % 4) * 0.0625], axis=1)


def build(grains):
    """The scene's world, built in code with the ``grains`` package."""
    settings = grains.Settings.granular(H)
    b = grains.WorldBuilder(settings)
    b.material(GLASS["friction"], name="glass")
    b.material(STEEL["friction"], name="steel")
    b.box_container(WIDTH, WIDTH, HEIGHT, material="steel")
    b.add_spheres(
        positions(0, COUNT),
        GLASS["radius"],
        density=GLASS["density"],
        material="glass",
        group="glass",
    )
    b.add_spheres(
        positions(COUNT, COUNT),
        STEEL["radius"],
        steel_velocities(COUNT),
        density=STEEL["density"],
        material="steel",
        group="steel",
    )
    return b.build()


def _entries(p, v=None):
    def vec(r):
        return "[" + ", ".join(repr(float(x)) for x in r) + "]"

    rows = []
    for i, q in enumerate(p):
        pos = f"position = {vec(q)}"
        if v is not None:
            pos += f", velocity = {vec(v[i])}"
        rows.append(f"    {{ {pos} }},")
    return "\n".join(rows)


def write_scene(path=SCENE):
    """Writes the scene file from the same numbers as ``build``."""
    text = f"""# Written by python/tests/code_vs_scene.py: the same world as its build(), {2 * COUNT}
# spheres of two materials in a box. test_builder.py checks that the two step alike to the bit.
[scene]
name = "code_vs_scene"
duration = 0.1

[settings]
preset = "granular"
h = {H!r}

[[materials]]
name = "glass"
friction = {GLASS["friction"]!r}

[[materials]]
name = "steel"
friction = {STEEL["friction"]!r}

[[containers]]
kind = "box"
width_x = {WIDTH!r}
width_y = {WIDTH!r}
height = {HEIGHT!r}
material = "steel"

[[bodies]]
generator = "list"
name = "glass"
shape = "sphere"
material = "glass"
radius = {GLASS["radius"]!r}
density = {GLASS["density"]!r}
list = [
{_entries(positions(0, COUNT))}
]

[[bodies]]
generator = "list"
name = "steel"
shape = "sphere"
material = "steel"
radius = {STEEL["radius"]!r}
density = {STEEL["density"]!r}
list = [
{_entries(positions(COUNT, COUNT), steel_velocities(COUNT))}
]
"""
    path.write_text(text)


if __name__ == "__main__":
    write_scene()
