"""The adaptive step from Python: `Settings.auto_step`, `Settings.health_step_floor` and
`World.step_sizes` (the engine's own tests cover the controller)."""

import math

import pytest

import grains


def test_auto_step_is_none_or_a_dict_checked_by_the_engine():
    s = grains.Settings()
    assert s.auto_step is None and s.health_step_floor == "stop"
    s.h = 0.002
    s.auto_step = {"h_min": 1e-8}
    assert s.auto_step == pytest.approx({"h_min": 1e-8, "reach": 0.5, "penetration_budget": 0.02})
    assert "auto_step={'h_min'" in repr(s)
    with pytest.raises(ValueError, match="h_min"):
        s.auto_step = {"h_min": 0.01}
    with pytest.raises(ValueError, match="unknown key"):
        s.auto_step = {"hmin": 1e-8}
    with pytest.raises(ValueError):
        s.h = 1e-9  # below h_min
    s.health_step_floor = "warn"
    assert s.health_step_floor == "warn"
    s.auto_step = None
    assert s.auto_step is None


def test_a_fast_grain_in_a_box_is_stepped_in_ticks_of_h():
    s = grains.Settings()
    s.h = 0.002
    s.auto_step = {"h_min": 1e-8}
    b = grains.WorldBuilder(s)
    b.material(0.5)
    b.box_container(0.1, 0.1, 0.1)
    v = 1e4 / math.sqrt(3.0)
    b.add_spheres([[0.0, 0.0, 0.05]], 0.005, velocities=[[v, v, -v]], density=2500.0)
    world = b.build()
    assert world.step_sizes["steps"] == 0
    world.step(5)
    assert world.time == pytest.approx(5 * world.h)
    z = world.step_sizes
    # From the bullet's reach (0.5 r / 10 km/s) up by 1.2 a step once it rests in the corner.
    assert z["steps"] > 5 and z["h_min"] < 1e-6 and 0.0 < z["h_max"] <= 0.002
    assert z["h_mean"] == pytest.approx(world.time / z["steps"])
    assert world.positions[0] == pytest.approx([0.045, 0.045, 0.005], abs=1e-4)
