"""grains: rigid grains with hard contact and Coulomb friction, stepped by the cone
complementarity (CCP) time stepping of Anitescu and co-authors, on CPU threads or a GPU.

Build a world from a scene file (``load_scene``) or in code (``WorldBuilder``), step it with
``World.step(n)`` (the GIL is released; Ctrl-C stops it between steps) and read its state
through read-only NumPy views (``World.positions``, ``World.velocities``, ...), its contacts
(``World.contacts()``) and the loads on its walls. ``run`` does what the ``grains run``
command does. Every error is a ``GrainsError`` carrying the engine's message.
"""

from ._grains import *  # noqa: F401,F403
from ._grains import __version__  # noqa: F401
