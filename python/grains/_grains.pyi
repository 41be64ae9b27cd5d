"""Type stubs of the native module grains._grains (re-exported by the grains package)."""

from os import PathLike
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

class GrainsError(Exception):
    """The base of every error the engine raises."""

class SceneError(GrainsError):
    """A scene file is unreadable or invalid; `file`, `line` and `key` say where."""

    file: str
    line: Optional[int]
    key: Optional[str]

class BuildError(GrainsError):
    """The engine refused to build a world: the message names the item and field."""

class StepError(GrainsError):
    """A step failed: a health check (the world holds the failed state) or the GPU."""

class SnapshotError(GrainsError):
    """A snapshot is damaged or belongs to another world; the message says what differs."""

class RunError(GrainsError):
    """A run (`grains.run`) failed: its output folder, its resume, a health check or the GPU."""

StrPath = Union[str, "PathLike[str]"]

def load_scene(
    path: StrPath, threads: Optional[int] = None, backend: Optional[str] = None
) -> World:
    """Reads a scene file and builds its world (threads and backend "cpu"/"gpu" override the
    file's); raises SceneError with the file, line and key of the value at fault."""

def run(
    path: StrPath,
    out: Optional[StrPath] = None,
    *,
    threads: Optional[int] = None,
    backend: Optional[str] = None,
    resume: bool = False,
    steps: Optional[int] = None,
    until: Optional[float] = None,
    progress: bool = True,
) -> Dict[str, Any]:
    """Runs a scene file as `grains run` does (outputs, checkpoints, progress on stderr) and
    returns its summary; Ctrl-C stops it after a checkpoint and raises KeyboardInterrupt."""

class Snapshot:
    """A saved world state; pickles; `bytes(snapshot)` gives the checkpoint bytes."""

    @property
    def steps(self) -> int:
        """Steps taken when the snapshot was made."""
    def to_bytes(self) -> bytes:
        """The snapshot's bytes (with a checksum and the world's physics fingerprint)."""
    def __bytes__(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> Snapshot:
        """Reads a snapshot from its bytes; SnapshotError if damaged or of another format."""
    def __len__(self) -> int:
        """Number of bodies."""

class World:
    """A world of grains: `step(n)` advances it with the GIL released, the state properties
    are read-only NumPy views of the engine's buffers (copies in worlds with insertions or
    sinks)."""

    def step(self, n: int = 1) -> Dict[str, Any]:
        """Advances `n` steps (GIL released; Ctrl-C stops between steps) and returns the last
        step's statistics: step, time, contacts, sweeps, residual, max_penetration,
        kinetic_energy, bodies."""
    def stats(self) -> Dict[str, Any]:
        """The statistics of the last step, as `step` returns them."""
    def stage_times(self) -> Optional[Dict[str, float]]:
        """Seconds spent in each stage of the step since the world was built."""
    @property
    def time(self) -> float:
        """Simulated time (s)."""
    @property
    def steps(self) -> int:
        """Steps taken."""
    @property
    def h(self) -> float:
        """The time step (s)."""
    @property
    def backend(self) -> str:
        """"cpu" or "gpu"."""
    @property
    def adapter(self) -> Optional[str]:
        """The GPU adapter's name; None on the CPU backend."""
    @property
    def groups(self) -> List[Tuple[str, Tuple[int, int]]]:
        """Named groups of bodies with their index ranges (start, stop)."""
    @property
    def material_names(self) -> List[str]:
        """The materials' names in the order of their indices."""
    def __len__(self) -> int:
        """Number of bodies."""
    @property
    def positions(self) -> npt.NDArray[np.float32]:
        """Centres (m), (N, 3), a read-only view."""
    @property
    def radii(self) -> npt.NDArray[np.float32]:
        """Radii (m), (N,), a read-only view."""
    @property
    def velocities(self) -> npt.NDArray[np.float32]:
        """Linear velocities (m/s), (N, 3), a read-only view."""
    @property
    def angular_velocities(self) -> npt.NDArray[np.float32]:
        """Angular velocities (rad/s, world axes), (N, 3), a read-only view."""
    @property
    def orientations(self) -> npt.NDArray[np.float32]:
        """Unit quaternions (x, y, z, w), body to world, (N, 4), a read-only view."""
    @property
    def ids(self) -> npt.NDArray[np.uint64]:
        """Stable ids, (N,), a read-only view."""
    @property
    def materials(self) -> npt.NDArray[np.uint32]:
        """Material index of each body, (N,), a read-only view."""
    @property
    def kinds(self) -> npt.NDArray[np.uint32]:
        """0 dynamic, 1 fixed, 2 kinematic, (N,), a read-only view."""
    @property
    def masses(self) -> npt.NDArray[np.float64]:
        """Masses (kg), (N,), a copy; infinite for fixed and kinematic bodies."""
    def set_velocities(
        self, velocities: npt.ArrayLike, angular_velocities: Optional[npt.ArrayLike] = None
    ) -> None:
        """Sets every body's velocity (N, 3) and, if given, angular velocity (N, 3)."""
    def set_positions(
        self, positions: npt.ArrayLike, orientations: Optional[npt.ArrayLike] = None
    ) -> None:
        """Moves every body's centre (N, 3) and, if given, sets its orientation (N, 4)."""
    def contacts(self) -> Dict[str, npt.NDArray[Any]]:
        """The last step's contacts as arrays: body_a, body_b, wall, mesh, triangle, point,
        normal, gap, impulse, normal_impulse, tangential_impulse, force, normal_force,
        tangential_force."""
    def wall_loads(self, point: Tuple[float, float, float] = (0.0, 0.0, 0.0)) -> Dict[str, npt.NDArray[Any]]:
        """Force (W, 3), torque about `point` (W, 3) and contact count (W,) of each wall."""
    def mesh_loads(self, point: Tuple[float, float, float] = (0.0, 0.0, 0.0)) -> Dict[str, npt.NDArray[Any]]:
        """The same sums for each triangle-mesh wall."""
    def body_contact_forces(self) -> npt.NDArray[np.float64]:
        """The total contact force on each body over the last step (N), (N, 3)."""
    def momentum(self) -> Tuple[float, float, float]:
        """Total linear momentum of the dynamic bodies (kg m/s)."""
    def snapshot(self) -> Snapshot:
        """The world's state, to restore bit-identically."""
    def restore(self, snapshot: Union[Snapshot, bytes]) -> None:
        """Puts the world back in a snapshot's state (of a world built the same way)."""
