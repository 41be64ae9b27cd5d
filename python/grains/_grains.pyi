"""Type stubs of the native module grains._grains (re-exported by the grains package)."""

import math
from os import PathLike
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, TypedDict, Union, final

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

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

class PlacementWarning(RuntimeWarning):
    """Grains due from an insertion found no place in its region: `World.step` and
    `grains.run` warn with the counts."""

StrPath = Union[str, "PathLike[str]"]

Vec3 = Tuple[float, float, float]
MaterialRef = Union[int, str]
Range = Tuple[int, int]
Check = Literal["stop", "warn", "off"]

class PerPairEnvelope(TypedDict):
    floor: float
    speed_factor: float

@final
class Settings:
    """How a world is stepped: step, gravity, solver, contact, backend, health, periodic, integrator."""

    def __new__(cls) -> Settings:
        """The library default settings (the papers' plain scheme)."""

    @staticmethod
    def granular(h: float) -> Settings:
        """The preset for deep piles and pours at step h (s)."""
    h: float
    """Time step h (s), positive; with auto_step, the largest step h_max."""
    auto_step: Optional[Dict[str, float]]
    """The adaptive step: None, or {"h_min", "reach", "penetration_budget"} (h is then h_max)."""
    gravity: Vec3
    """Gravitational acceleration (m/s²)."""
    envelope: Union[None, float, PerPairEnvelope]
    """Collision envelope: None (default rule), a fixed ε̂ (m) or {"floor", "speed_factor"}."""
    solver: Literal["gauss_seidel", "jacobi", "apgd"]
    """The projected iteration."""
    sweeps: int
    """Most sweeps per solve, at least 1."""
    tolerance: float
    """Residual (m/s) at which a solve stops, ≥ 0 (the GPU needs 0)."""
    omega: float
    """Over-relaxation ω in (0, 2) (APGD: its starting step)."""
    warm_start: float
    """Fraction of last step's impulse a persisting contact starts from, in [0, 1]."""
    contact_frequency: float
    """Natural frequency (Hz) of the compliant contact; math.inf for rigid contact."""
    coulomb_correction: int
    """Coulomb-correction passes per solve (0: off)."""
    position_correction: int
    """Sweeps of the position correction of overlaps after each solve (0: off; rigid contact)."""
    planar: bool
    """Motion in the x–z plane only."""
    stabilise_contacts: bool
    """Keep the Φ/h term in the contacts' normal rows."""
    threads: int
    """CPU worker threads, at least 1."""
    backend: Literal["cpu", "gpu"]
    """Where the step runs."""
    integrator: Literal["ccp", "geometrically_implicit"]
    """How each step is taken: the CCP, or the geometrically implicit stepper (small worlds)."""
    sync_every: int
    """GPU: steps between read-backs, at least 1."""
    health_non_finite: Check
    """Health check on non-finite state."""
    health_penetration: Check
    """Health check on overlaps beyond health_max_penetration × the smallest radius."""
    health_energy: Check
    """Health check on unexplained energy growth."""
    health_escape: Check
    """Health check on grains that leave the domain ("off": an open domain)."""
    health_step_floor: Check
    """Health check on the adaptive step wanting a step below its h_min."""
    health_max_penetration: float
    """Deepest overlap allowed, as a multiple of the smallest radius."""
    health_energy_growth: float
    """Factor of the energy check, at least 1."""
    periodic_x: Optional[Tuple[float, float]]
    """Periodic range (lo, hi) along x, or None."""
    periodic_y: Optional[Tuple[float, float]]
    """Periodic range (lo, hi) along y, or None."""
    periodic_shear_rate: float
    """Lees-Edwards shear rate (1/s) along x across y of a cell periodic along both (0: none)."""
    def copy(self) -> Settings:
        """A copy of these settings."""

    def __eq__(self, other: object, /) -> bool: ...

@final
class Motion:
    """A prescribed motion for walls, box containers, meshes and kinematic bodies."""

    @staticmethod
    def shake(
        amplitude: float, frequency: float, *, axis: Vec3 = (0.0, 0.0, 1.0), phase: float = 0.0
    ) -> Motion:
        """The shake d(t) = amplitude · sin(2π frequency t + phase) along the unit axis."""

    @staticmethod
    def constant(linear: Vec3 = (0.0, 0.0, 0.0), angular: Vec3 = (0.0, 0.0, 0.0)) -> Motion:
        """A constant linear (m/s) and angular (rad/s) velocity."""

    def displacement(self, t: float) -> Vec3:
        """The displacement (m) from the rest position at time t (s)."""

BodyKind = Literal["dynamic", "fixed", "kinematic"]

@final
class WorldBuilder:
    """Describes a world in code (materials, walls, bodies in bulk, joints...), then builds it."""

    def __new__(cls, settings: Optional[Settings] = None) -> WorldBuilder:
        """A builder with these settings (default Settings())."""
    settings: Settings
    """A copy of the settings the world will be built with; assign to replace them."""
    @property
    def material_names(self) -> list[Optional[str]]:
        """The materials' names in index order."""

    @property
    def groups(self) -> list[Tuple[str, Range]]:
        """The named groups of bodies: (name, (start, stop))."""

    def __len__(self) -> int:
        """Number of bodies added so far."""

    def material(
        self,
        friction: float,
        *,
        restitution: float = 0.0,
        spinning: float = 0.0,
        rolling: float = 0.0,
        cohesion: float = 0.0,
        surface_energy: float = 0.0,
        bridge_volume: float = 0.0,
        surface_tension: float = 0.072,
        contact_angle: float = 0.0,
        name: Optional[str] = None,
    ) -> int:
        """Adds a material and returns its index."""

    def pair_friction(self, a: MaterialRef, b: MaterialRef, mu: float) -> None:
        """Sets μ of one pair of materials."""

    def build(self) -> World:
        """Checks everything and builds the World (BuildError with the engine's message)."""
    # Bodies, in bulk.
    def add_spheres(
        self,
        positions: ArrayLike,
        radii: ArrayLike,
        velocities: Optional[ArrayLike] = None,
        angular_velocities: Optional[ArrayLike] = None,
        *,
        orientations: Optional[ArrayLike] = None,
        masses: Optional[ArrayLike] = None,
        density: Optional[ArrayLike] = None,
        inertias: Optional[ArrayLike] = None,
        principal_moments: Optional[ArrayLike] = None,
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N solid spheres from (N, 3) centres; returns their index range."""

    def add_disks(
        self,
        positions: ArrayLike,
        radii: ArrayLike,
        velocities: Optional[ArrayLike] = None,
        angular_velocities: Optional[ArrayLike] = None,
        *,
        orientations: Optional[ArrayLike] = None,
        masses: Optional[ArrayLike] = None,
        density: Optional[ArrayLike] = None,
        inertias: Optional[ArrayLike] = None,
        principal_moments: Optional[ArrayLike] = None,
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N uniform disks (planar mode); returns their index range."""

    def add_capsules(
        self,
        positions: ArrayLike,
        radii: ArrayLike,
        half_lengths: ArrayLike,
        velocities: Optional[ArrayLike] = None,
        angular_velocities: Optional[ArrayLike] = None,
        *,
        orientations: Optional[ArrayLike] = None,
        masses: Optional[ArrayLike] = None,
        density: Optional[ArrayLike] = None,
        inertias: Optional[ArrayLike] = None,
        principal_moments: Optional[ArrayLike] = None,
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N solid capsules along their local x axes (their principal moments in 3-D, the
        flat stadium's moment about y in planar mode); returns their index range."""

    def add_cubes(
        self,
        positions: ArrayLike,
        half_edges: ArrayLike,
        velocities: Optional[ArrayLike] = None,
        angular_velocities: Optional[ArrayLike] = None,
        *,
        orientations: Optional[ArrayLike] = None,
        masses: Optional[ArrayLike] = None,
        density: Optional[ArrayLike] = None,
        inertias: Optional[ArrayLike] = None,
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N solid cubes of half-edge `half_edges`; returns their index range."""

    def add_boxes(
        self,
        positions: ArrayLike,
        half_extents: ArrayLike,
        velocities: Optional[ArrayLike] = None,
        angular_velocities: Optional[ArrayLike] = None,
        *,
        orientations: Optional[ArrayLike] = None,
        masses: Optional[ArrayLike] = None,
        density: Optional[ArrayLike] = None,
        inertias: Optional[ArrayLike] = None,
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N solid boxes with half-extents (N, 3) and their principal moments; returns their index range."""

    def add_ellipsoids(
        self,
        positions: ArrayLike,
        semi_axes: ArrayLike,
        velocities: Optional[ArrayLike] = None,
        angular_velocities: Optional[ArrayLike] = None,
        *,
        orientations: Optional[ArrayLike] = None,
        masses: Optional[ArrayLike] = None,
        density: Optional[ArrayLike] = None,
        inertias: Optional[ArrayLike] = None,
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N solid ellipsoids with semi-axes (N, 3) and their principal moments; returns their index range."""

    def add_polyhedra(
        self,
        positions: ArrayLike,
        vertices: ArrayLike,
        velocities: Optional[ArrayLike] = None,
        angular_velocities: Optional[ArrayLike] = None,
        *,
        orientations: Optional[ArrayLike] = None,
        masses: Optional[ArrayLike] = None,
        density: Optional[ArrayLike] = None,
        inertias: Optional[ArrayLike] = None,
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N solid convex polyhedra, the convex hull of the points `vertices` (V, 3) with its principal moments (centre of mass at each position); returns their index range."""

    def add_ellipses(
        self,
        positions: ArrayLike,
        a: ArrayLike,
        b: ArrayLike,
        velocities: Optional[ArrayLike] = None,
        angular_velocities: Optional[ArrayLike] = None,
        *,
        orientations: Optional[ArrayLike] = None,
        masses: Optional[ArrayLike] = None,
        density: Optional[ArrayLike] = None,
        inertias: Optional[ArrayLike] = None,
        principal_moments: Optional[ArrayLike] = None,
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N uniform ellipses (planar mode); returns their index range."""
    def add_clumps(
        self,
        positions: ArrayLike,
        spheres: ArrayLike,
        velocities: Optional[ArrayLike] = None,
        angular_velocities: Optional[ArrayLike] = None,
        *,
        orientations: Optional[ArrayLike] = None,
        masses: Optional[ArrayLike] = None,
        density: Optional[ArrayLike] = None,
        inertias: Optional[ArrayLike] = None,
        principal_moments: Optional[ArrayLike] = None,
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N clumps of the member spheres (K, 4) [x, y, z, r] at their centres of mass, with the union's mass and principal moments; returns their index range."""
    # Walls and meshes.
    def plane(
        self,
        point: Vec3,
        normal: Vec3,
        *,
        material: Optional[MaterialRef] = None,
        motion: Optional[Motion] = None,
        active_between: Optional[Tuple[float, float]] = None,
        servo: Optional[Dict[str, float]] = None,
    ) -> int:
        """Adds an infinite plane; returns its wall index."""

    def rectangle(
        self,
        centre: Vec3,
        normal: Vec3,
        u: Vec3,
        half_u: float,
        half_v: float,
        *,
        material: Optional[MaterialRef] = None,
        motion: Optional[Motion] = None,
        active_between: Optional[Tuple[float, float]] = None,
    ) -> int:
        """Adds a rectangle; returns its wall index."""

    def disk(
        self,
        centre: Vec3,
        normal: Vec3,
        radius: float,
        *,
        inner_radius: float = 0.0,
        material: Optional[MaterialRef] = None,
        motion: Optional[Motion] = None,
        active_between: Optional[Tuple[float, float]] = None,
    ) -> int:
        """Adds a flat disk or annulus; returns its wall index."""

    def cylinder(
        self,
        centre: Vec3,
        axis: Vec3,
        radius: float,
        half_length: float,
        *,
        inside: bool = True,
        angular_speed: float = 0.0,
        caps: Optional[Literal["none", "low", "high", "both"]] = None,
        cap_hole: float = 0.0,
        material: Optional[MaterialRef] = None,
        motion: Optional[Motion] = None,
        active_between: Optional[Tuple[float, float]] = None,
    ) -> int:
        """Adds an open cylinder mantle (caps follow it); returns the mantle's wall index."""

    def cone(
        self,
        centre: Vec3,
        axis: Vec3,
        small_radius: float,
        large_radius: float,
        half_length: float,
        *,
        inside: bool = True,
        angular_speed: float = 0.0,
        caps: Optional[Literal["none", "low", "high", "both"]] = None,
        cap_hole: float = 0.0,
        material: Optional[MaterialRef] = None,
        motion: Optional[Motion] = None,
        active_between: Optional[Tuple[float, float]] = None,
    ) -> int:
        """Adds an open cone-frustum mantle (caps follow it); returns the mantle's wall index."""

    def box_container(
        self,
        width_x: float,
        width_y: float,
        height: float,
        *,
        floor_centre: Vec3 = (0.0, 0.0, 0.0),
        material: Optional[MaterialRef] = None,
        motion: Optional[Motion] = None,
        active_between: Optional[Tuple[float, float]] = None,
    ) -> Range:
        """Adds an open-top box (floor, −x, +x, −y, +y); returns its wall index range."""

    def mesh(
        self,
        triangles: ArrayLike,
        *,
        material: Optional[MaterialRef] = None,
        motion: Optional[Motion] = None,
        angular_speed: Optional[float] = None,
        axis: Vec3 = (0.0, 0.0, 1.0),
        axis_point: Vec3 = (0.0, 0.0, 0.0),
    ) -> int:
        """Adds a triangle-mesh wall from (T, 3, 3) vertices; returns its mesh index."""
    # Joints, springs, forces.
    def joint(
        self,
        kind: Literal["ball", "hinge", "distance", "fixed", "prismatic"],
        a: int,
        b: Optional[int] = None,
        *,
        anchor: Optional[Vec3] = None,
        anchor_b: Optional[Vec3] = None,
        axis: Optional[Vec3] = None,
        motor: Optional[Tuple[float, float]] = None,
        stabilise: bool = True,
        collide: bool = True,
    ) -> int:
        """Adds a joint between body a and body b (None: the world); returns its index."""

    def spring(
        self,
        a: int,
        b: Optional[int] = None,
        *,
        anchor_a: Optional[Vec3] = None,
        anchor_b: Optional[Vec3] = None,
        stiffness: float = 0.0,
        damping: float = 0.0,
        rest_length: Optional[float] = None,
        integration: Literal["implicit", "explicit"] = "implicit",
    ) -> int:
        """Adds a spring–damper; returns its index."""

    def force(
        self, body: int, force: Vec3, *, angular_frequency: float = 0.0, phase: float = 0.0
    ) -> int:
        """Adds the force force · cos(ω t + φ) on a body's centre; returns its index."""
    def bond_neighbours(
        self,
        bodies: Range,
        *,
        stiffness: float,
        angular_stiffness: float,
        gap: float = 0.0,
        damping: float = 0.0,
        angular_damping: float = 0.0,
        shear_stiffness: Optional[float] = None,
        twisting_stiffness: Optional[float] = None,
        tensile_strength: Optional[float] = None,
        shear_strength: Optional[float] = None,
        bending_strength: Optional[float] = None,
        twisting_strength: Optional[float] = None,
    ) -> int:
        """Bonds the pairs of bodies within gap of each other, breaking at the strengths
        given (N, N m); returns how many."""
    def fluid(
        self,
        density: float,
        viscosity: float,
        *,
        velocity: Vec3 = (0.0, 0.0, 0.0),
        drag: str = "schiller_naumann",
        voidage_cell: Optional[float] = None,
    ) -> None:
        """Fills the world with a fluid: buoyancy and drag on every dynamic sphere."""
    def flow_field(
        self,
        velocities: npt.ArrayLike,
        origin: Vec3 = (0.0, 0.0, 0.0),
        spacing: Optional[Vec3] = None,
    ) -> None:
        """Gives the fluid's velocity on a grid of nodes (nx, ny, nz, 3) from the first step."""
    # Insertion and sinks.
    def insert(
        self,
        *,
        box: Optional[Tuple[Vec3, Vec3]] = None,
        cylinder: Optional[Tuple[Vec3, float, float]] = None,
        disk: Optional[Tuple[Vec3, float]] = None,
        count_per_second: Optional[float] = None,
        kg_per_second: Optional[float] = None,
        radius: Optional[
            Union[float, Tuple[str, float, float], Tuple[str, Sequence[Tuple[float, float]]]]
        ] = None,
        radius_range: Optional[Tuple[float, float]] = None,
        grain: Optional[Tuple[Any, ...]] = None,
        density: float = 2500.0,
        material: Optional[MaterialRef] = None,
        velocity: Vec3 = (0.0, 0.0, 0.0),
        start: float = 0.0,
        stop: float = math.inf,
        seed: int = 0,
        batch_steps: Optional[int] = None,
    ) -> int:
        """Adds an insertion region feeding spheres (radius) or copies of one shaped grain
        turned at random (grain: ("capsule", r, half_length), ("cube", half_edge),
        ("box", (a, b, c)), ("ellipsoid", (a, b, c)), ("clump", spheres) or
        ("polyhedron", vertices)) while the world steps; returns its index."""

    def sink(
        self,
        name: str,
        *,
        box: Optional[Tuple[Vec3, Vec3]] = None,
        half_space: Optional[Tuple[Vec3, Vec3]] = None,
    ) -> int:
        """Adds a sink removing the grains whose centres enter it; returns its index."""

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
    frame_encoding: Optional[str] = None,
) -> Dict[str, Any]:
    """Runs a scene file as `grains run` does (outputs, checkpoints, progress) and
    returns its summary; frame_encoding ("binary", "zlib" or "ascii") overrides the file's
    `[output] frame_encoding`; Ctrl-C stops it after a checkpoint and raises KeyboardInterrupt."""

def lattice(
    origin: Vec3,
    spacing: float,
    counts: Tuple[int, int, int],
    *,
    count: Optional[int] = None,
    jitter: float = 0.0,
    radius: Optional[float] = None,
    seed: int = 1,
    planar: bool = False,
) -> npt.NDArray[np.float64]:
    """The (N, 3) centres of a cubic lattice, x fastest, optionally stopped after `count`
    sites and jittered in x and y by up to jitter × radius (the scene files' `lattice`)."""

def random_fill(
    count: Optional[int] = None,
    *,
    radius: float,
    radius_max: Optional[float] = None,
    box: Optional[Tuple[Vec3, Vec3]] = None,
    cylinder: Optional[Tuple[Vec3, Vec3, float, float]] = None,
    cone: Optional[Tuple[Vec3, Vec3, float, float, float]] = None,
    packing_fraction: Optional[float] = None,
    seed: int = 1,
    avoid: Optional[Tuple[ArrayLike, ArrayLike]] = None,
    planar: bool = False,
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(positions (N, 3), radii (N,)) of grains placed at random without overlap in a box,
    cylinder (centre, axis, radius, length) or cone (centre, axis, small_radius,
    large_radius, length), clear of the spheres `avoid` (the scene files' `random_fill`)."""

def pour_lattice(count: int) -> npt.NDArray[np.float64]:
    """The (N, 3) centres of the `pour` benchmark's jittered lattice (r = 5 mm)."""

def pour_box(count: int) -> Tuple[float, float]:
    """The inner width and wall height (m) of the `pour` benchmark's box for `count` grains."""

@final
class FieldsAverage:
    """The time average of coarse-grained fields sampled at the same points: pass it to
    `World.coarse_grain(..., average=a)` at each sample; `mean()` gives the averaged fields
    (the velocity as mean momentum over mean density, the kinetic stress about it)."""

    def __new__(cls) -> FieldsAverage: ...
    @property
    def samples(self) -> int:
        """Samples added."""
    def mean(self) -> Optional[Dict[str, Any]]:
        """The averaged fields in `World.coarse_grain`'s dict, or None before any sample."""

@final
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
    @staticmethod
    def load(folder: StrPath) -> Snapshot:
        """Reads a run folder's checkpoint: its `checkpoint.bin`, or a distributed run's index
        and the ranks' pieces beside it, checked and joined; SnapshotError names the file and
        what is wrong."""
    def __len__(self) -> int:
        """Number of bodies."""

@final
class World:
    """A world of grains: `step(n)` advances it with the GIL released, the state properties
    are read-only NumPy views of the engine's buffers (copies in worlds with insertions or
    sinks)."""

    def step(self, n: int = 1) -> Dict[str, Any]:
        """Advances `n` steps (GIL released; Ctrl-C stops between steps) and returns the last
        step's statistics: step, time, contacts, sweeps, residual, max_penetration,
        kinetic_energy, bodies; warns with a PlacementWarning when grains due found no place."""
    def stats(self) -> Dict[str, Any]:
        """The statistics of the last step, as `step` returns them."""
    def stage_times(self) -> Optional[Dict[str, float]]:
        """Seconds spent in each stage of the step since the world was built."""
    def sweep_trace(self) -> Dict[str, npt.NDArray[np.float64]]:
        """Every sweep of the last step's solves: arrays `residual` (m/s) and `seconds`
        (since the step's solving began). CPU only; empty arrays on the GPU."""
    def lifecycle_counts(self) -> Dict[str, Any]:
        """What the insertions and sinks counted: totals `inserted`, `missed`, `removed`,
        `inserted_mass`, `removed_mass` (kg), and per item `insertions` (`placed`, `missed`,
        `mass`) and `sinks` (`name`, `removed`, `mass`)."""
    @property
    def time(self) -> float:
        """Simulated time (s): a property, as every state read (the Rust library's
        `World::time()`)."""
    @property
    def steps(self) -> int:
        """Steps taken."""
    @property
    def h(self) -> float:
        """The time step (s); with Settings.auto_step, h_max (the tick each step advances)."""
    @property
    def step_sizes(self) -> Optional[Dict[str, float]]:
        """The adaptive step's figures (steps, h_min, h_mean, h_max, floored, next, last); None with a fixed step."""
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
    def shape_codes(self) -> npt.NDArray[np.int32]:
        """Each body's shape: 0 sphere or disk, 1 capsule, 2 ellipse, 3 box or cube, 4 ellipsoid, 5 clump, 6 polyhedron; (N,), a copy."""
    @property
    def half_extents(self) -> npt.NDArray[np.float64]:
        """Half-sizes along each body's own axes (m), (N, 3), a copy."""
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
    def set_external_loads(
        self, forces: npt.ArrayLike, torques: Optional[npt.ArrayLike] = None
    ) -> None:
        """Sets every body's force (N, 3) and, if given, moment (N, 3) for the steps that follow."""
    def set_flow_field(
        self,
        velocities: Optional[npt.ArrayLike],
        origin: Vec3 = (0.0, 0.0, 0.0),
        spacing: Optional[Vec3] = None,
    ) -> None:
        """Sets the fluid's velocity on a grid of nodes (nx, ny, nz, 3); None: its uniform one."""
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
    def broken_bonds(self) -> List[int]:
        """The indices of the joints that were bonds and have broken."""
    def bond_load(self, joint: int) -> Optional[Dict[str, float]]:
        """Tension, shear (N), bending and twisting (N m) bond `joint` carried in the last
        step, or None for a joint that is not an intact bond."""
    def servo_state(self, wall: int) -> Optional[Dict[str, float]]:
        """The servo's advance (m) and last load (N) of wall `wall`, or None without a servo."""
    def mesh_loads(self, point: Tuple[float, float, float] = (0.0, 0.0, 0.0)) -> Dict[str, npt.NDArray[Any]]:
        """The same sums for each triangle-mesh wall."""
    def triangle_loads(self) -> Dict[str, npt.NDArray[Any]]:
        """Force (T, 3), normal_force, shear_force (N), pressure (Pa), contacts (T,) and
        sliding_power (W, Archard's normal force x slip speed) of each mesh triangle."""
    def body_contact_forces(self) -> npt.NDArray[np.float64]:
        """The total contact force on each body over the last step (N), (N, 3)."""
    def coarse_grain(
        self,
        width: float,
        kernel: str = "lucy",
        grid: Optional[Tuple[Tuple[float, float, float], Tuple[float, float, float], Tuple[int, int, int]]] = None,
        profile: Optional[Tuple[Union[int, str], float, float, int, float]] = None,
        average: Optional[FieldsAverage] = None,
    ) -> Dict[str, Any]:
        """Coarse-grained density, volume fraction, velocity, kinetic and contact stress and
        fabric at a grid's nodes or along a profile (stresses (K, 3, 3) in Pa, compression-positive);
        added to `average` too when given."""
    def grain_stress(self) -> npt.NDArray[np.float64]:
        """Each sphere's Love-Weber stress from the last step's contacts (Pa), (N, 3, 3)."""
    def momentum(self) -> Tuple[float, float, float]:
        """Total linear momentum of the dynamic bodies (kg m/s)."""
    def snapshot(self) -> Snapshot:
        """The world's state, to restore bit-identically."""
    def restore(self, snapshot: Union[Snapshot, bytes]) -> None:
        """Puts the world back in a snapshot's state (of a world built the same way)."""
    @property
    def settings(self) -> Settings:
        """A copy of the settings the world steps with."""

    def set_settings(self, settings: Settings) -> None:
        """Replaces the settings from the next step (changing threads, backend, envelope, periodic or integrator is a ValueError)."""
