"""World.coarse_grain and World.grain_stress: the library's coarse-grained fields and
Love-Weber stresses as NumPy arrays, checked on a stack of three spheres at rest on a floor."""

import numpy as np
import pytest

import grains

G, R, M = 9.81, 0.01, 0.1


@pytest.fixture(scope="module")
def stack():
    b = grains.WorldBuilder()
    b.material(0.5)
    b.plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    b.add_spheres([[0.0, 0.0, R], [0.0, 0.0, 3 * R], [0.0, 0.0, 5 * R]], R, masses=[M] * 3)
    world = b.build()
    world.step(300)
    return world


def test_each_spheres_love_weber_stress_carries_the_weight_above_it(stack):
    # The bottom sphere: the floor pushes 3 m g at r below its centre, the middle one 2 m g at r
    # above: σ_zz V = 5 m g r; the middle one 3 m g r, the top one m g r.
    s = stack.grain_stress()
    assert s.shape == (3, 3, 3) and s.dtype == np.float64
    volume = 4.0 / 3.0 * np.pi * R**3
    for i, loads in enumerate([5, 3, 1]):
        expected = loads * M * G * R / volume
        assert s[i, 2, 2] == pytest.approx(expected, rel=1e-2), (i, s[i])
        assert np.all(np.abs(s[i, :2, :]) < 1e-2 * expected)


def test_a_profile_carries_the_weight_above_each_height(stack):
    area, width = 0.01, 3 * R
    fine = stack.coarse_grain(width, profile=("z", -width, 1e-4, 1400, area))
    dz = 1e-4
    # The weight above each fine point: trapezoids summed from the top down.
    slabs = (fine["density"][1:] + fine["density"][:-1]) * dz / 2
    above = np.append(np.cumsum(slabs[::-1])[::-1], 0.0) * G
    assert above[0] * area == pytest.approx(3 * M * G, rel=1e-3)
    coarse = stack.coarse_grain(width, profile=(2, -width, 25 * dz, 40, area))
    assert coarse["points"].shape == (40, 3) and coarse["contact_stress"].shape == (40, 3, 3)
    stress = coarse["kinetic_stress"] + coarse["contact_stress"]
    checked = 0
    for k, z in enumerate(coarse["points"][:, 2]):
        if z < width or above[25 * k] < 0.2 * above[0]:
            continue
        assert stress[k, 2, 2] == pytest.approx(above[25 * k], rel=1e-2), z
        checked += 1
    assert checked >= 5
    assert coarse["volume_fraction"] is not None and np.all(coarse["volume_fraction"] >= 0)


def test_a_grid_holds_the_mass_and_bad_arguments_are_named(stack):
    h = 0.004
    nodes = ((-0.04, -0.04, -0.04), (h, h, h), (21, 21, 31))
    grid = stack.coarse_grain(0.01, kernel="gaussian", grid=nodes)
    assert grid["density"].sum() * h**3 == pytest.approx(3 * M, rel=1e-3)
    assert grid["fabric"].shape == (21 * 21 * 31, 3, 3)
    with pytest.raises(ValueError, match="one of grid"):
        stack.coarse_grain(0.02)
    with pytest.raises(ValueError, match="kernel"):
        stack.coarse_grain(0.02, kernel="box", profile=(2, 0.0, 0.01, 3, 1.0))
    with pytest.raises(ValueError, match="axis"):
        stack.coarse_grain(0.02, profile=("w", 0.0, 0.01, 3, 1.0))
    with pytest.raises(ValueError, match="area"):
        stack.coarse_grain(0.02, profile=(2, 0.0, 0.01, 3, 0.0))


def test_a_time_average_holds_the_velocity_change_between_samples_as_kinetic_stress():
    # One free grain sampled moving at v1, then at v2: each sample's kinetic stress is zero,
    # the average's velocity is (v1 + v2)/2 and its kinetic stress rho/4 (v1 - v2)(v1 - v2).
    settings = grains.Settings()
    settings.gravity = (0.0, 0.0, 0.0)
    b = grains.WorldBuilder(settings)
    b.material(0.5)
    b.add_spheres([[0.0, 0.0, 0.0]], R, masses=M)
    w = b.build()
    a = grains.FieldsAverage()
    assert a.samples == 0 and a.mean() is None
    profile = ("x", -2 * R, R / 2, 9, 1e-3)
    v1, v2 = np.array([1.0, -2.0, 0.5]), np.array([-0.5, 1.0, 3.0])
    for v in (v1, v2):
        w.set_velocities([v])
        f = w.coarse_grain(3 * R, profile=profile, average=a)
        assert np.abs(f["kinetic_stress"]).max() < 1e-9 * f["density"].max()
    m = a.mean()
    assert a.samples == 2
    inside = m["density"] > 1e-6 * m["density"].max()
    assert inside.sum() >= 5
    np.testing.assert_allclose(m["velocity"][inside], np.tile((v1 + v2) / 2, (inside.sum(), 1)), atol=1e-9)
    want = m["density"][inside, None, None] / 4 * np.outer(v1 - v2, v1 - v2)
    np.testing.assert_allclose(m["kinetic_stress"][inside], want, rtol=1e-9, atol=1e-9 * want.max())
    # A sample of other points is refused.
    with pytest.raises(ValueError, match="share their points"):
        w.coarse_grain(3 * R, profile=("x", 0.0, R, 4, 1e-3), average=a)
