"""The geometrically implicit integrator from Python: `Settings.integrator`."""

import numpy as np
import pytest

import grains

G = 9.81


def implicit_settings(h=0.005):
    s = grains.Settings()
    s.h = h
    s.integrator = "geometrically_implicit"
    return s


def sliding_sphere(settings, mu=0.3, v0=1.0):
    """A sphere (r = 0.05 m, 1 kg) on the floor z = 0 sliding at v0 along x without spin."""
    b = grains.WorldBuilder(settings)
    b.material(mu)
    b.plane((0, 0, 0), (0, 0, 1))
    b.add_spheres([[0.0, 0.0, 0.05]], 0.05, velocities=[[v0, 0.0, 0.0]], masses=1.0)
    return b


def test_integrator_names():
    s = grains.Settings()
    assert s.integrator == "ccp"
    s.integrator = "geometrically_implicit"
    assert s.integrator == "geometrically_implicit"
    assert "integrator='geometrically_implicit'" in repr(s)
    with pytest.raises(ValueError, match="integrator"):
        s.integrator = "rk4"


def test_sliding_sphere_starts_to_roll_at_the_analytic_time():
    # Slide to roll (V9): friction μ m g slows the centre and spins the sphere up until
    # v = ω r at t* = 2 v0 / (7 μ g) = 0.0971 s, then it rolls at 5/7 v0. The implicit step
    # solves this to its Newton tolerance, so the only errors are h (the step that holds t*
    # ends the slide) and the f32 state (1e-7 relative).
    mu, v0 = 0.3, 1.0
    w = sliding_sphere(implicit_settings(), mu, v0).build()
    t_star = 2 * v0 / (7 * mu * G)
    w.step(10)  # t = 0.05 s < t*: still sliding, v = v0 − μ g t
    assert w.velocities[0, 0] == pytest.approx(v0 - mu * G * 0.05, abs=1e-5)
    w.step(30)  # t = 0.2 s > t*
    assert w.time > t_star
    assert w.velocities[0, 0] == pytest.approx(5 / 7 * v0, abs=1e-5)
    assert w.angular_velocities[0, 1] * 0.05 == pytest.approx(w.velocities[0, 0], abs=1e-5)
    # The contact holds at the end of every step: the sphere stays on the plane to the
    # stepper's tolerance plus the f32 rounding of z = 0.05 (3.7e-9 m).
    assert abs(w.positions[0, 2] - 0.05) < 1e-8
    assert w.contacts()["normal_force"][0] == pytest.approx(G, rel=1e-4)


def test_refusals_and_fixed_at_build():
    b = sliding_sphere(implicit_settings())
    b.add_capsules([[1.0, 0.0, 0.05]], 0.05, 0.1, masses=1.0)
    with pytest.raises(grains.BuildError, match="spheres only"):
        b.build()
    b = sliding_sphere(implicit_settings())
    b.add_spheres(np.array([[0.2 * i, 1.0, 0.05] for i in range(16)]), 0.05, masses=1.0)
    with pytest.raises(grains.BuildError, match="at most 16"):
        b.build()
    s = implicit_settings()
    s.backend = "gpu"
    with pytest.raises(grains.BuildError, match="CPU only"):
        sliding_sphere(s).build()
    w = sliding_sphere(implicit_settings()).build()
    back = w.settings
    back.integrator = "ccp"
    with pytest.raises(ValueError, match="cannot change integrator"):
        w.set_settings(back)


def test_snapshot_resumes_bit_identically():
    straight = sliding_sphere(implicit_settings()).build()
    straight.step(30)
    half = sliding_sphere(implicit_settings()).build()
    half.step(13)
    data = half.snapshot().to_bytes()
    resumed = sliding_sphere(implicit_settings()).build()
    resumed.restore(data)
    resumed.step(17)
    assert resumed.steps == 30
    assert np.array_equal(resumed.positions, straight.positions)
    assert np.array_equal(resumed.velocities, straight.velocities)
    assert np.array_equal(resumed.angular_velocities, straight.angular_velocities)
    assert np.array_equal(resumed.orientations, straight.orientations)
