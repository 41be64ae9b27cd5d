"""help() and inspect.signature show every default as its value (no Ellipsis), and the state
reads of a World are properties (World.time, as the Rust library's World::time() method)."""

import inspect
import math

import grains


def callables():
    """Every public function, class constructor and method of the package."""
    for name in dir(grains._grains):
        obj = getattr(grains._grains, name)
        if name.startswith("_") or (inspect.isclass(obj) and issubclass(obj, BaseException)):
            continue
        if inspect.isclass(obj):
            for member in dir(obj):
                attr = inspect.getattr_static(obj, member)
                if not member.startswith("_") and not inspect.isdatadescriptor(attr):
                    yield f"{name}.{member}", getattr(obj, member)
        elif callable(obj):
            yield name, obj


def test_no_signature_shows_an_ellipsis_default():
    checked = 0
    for name, f in callables():
        try:
            sig = inspect.signature(f)
        except ValueError:
            continue
        checked += 1
        for p in sig.parameters.values():
            assert p.default is not Ellipsis, f"{name}: {p.name} shows Ellipsis in {sig}"
    assert checked > 50
    insert = inspect.signature(grains.WorldBuilder.insert).parameters
    assert insert["velocity"].default == (0.0, 0.0, 0.0)
    assert insert["stop"].default == math.inf
    assert inspect.signature(grains.Motion.constant).parameters["angular"].default == (0.0, 0.0, 0.0)


def test_a_worlds_state_reads_are_properties(pile_scene):
    world = grains.load_scene(pile_scene, threads=1)
    world.step(3)
    for name in ["time", "steps", "h", "backend", "positions", "radii", "velocities", "ids"]:
        assert inspect.isdatadescriptor(inspect.getattr_static(grains.World, name)), name
    assert world.time == 3 * world.h and world.steps == 3
