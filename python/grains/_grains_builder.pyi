# Stubs of the builder half of grains._grains (Settings, Motion, WorldBuilder and the
# World.settings / World.set_settings members), to merge into _grains.pyi.

import math
from typing import Literal, Optional, Sequence, Tuple, TypedDict, Union

from numpy.typing import ArrayLike

Vec3 = Tuple[float, float, float]
MaterialRef = Union[int, str]
Range = Tuple[int, int]
Check = Literal["stop", "warn", "off"]

class PerPairEnvelope(TypedDict):
    floor: float
    speed_factor: float

class Settings:
    """How a world is stepped: step, gravity, solver, contact, backend, health, periodic."""

    def __init__(self) -> None:
        """The library default settings (the papers' plain scheme)."""

    @staticmethod
    def granular(h: float) -> Settings:
        """The preset for deep piles and pours at step h (s)."""
    h: float
    """Time step h (s), positive."""
    gravity: Vec3
    """Gravitational acceleration (m/s²)."""
    envelope: Union[None, float, PerPairEnvelope]
    """Collision envelope: None (default rule), a fixed ε̂ (m) or {"floor", "speed_factor"}."""
    solver: Literal["gauss_seidel", "jacobi"]
    """The projected iteration."""
    sweeps: int
    """Most sweeps per solve, at least 1."""
    tolerance: float
    """Residual (m/s) at which a solve stops, ≥ 0 (the GPU needs 0)."""
    omega: float
    """Over-relaxation ω in (0, 2)."""
    warm_start: float
    """Fraction of last step's impulse a persisting contact starts from, in [0, 1]."""
    contact_frequency: float
    """Natural frequency (Hz) of the compliant contact; math.inf for rigid contact."""
    coulomb_correction: int
    """Coulomb-correction passes per solve (0: off)."""
    planar: bool
    """Motion in the x–z plane only."""
    stabilise_contacts: bool
    """Keep the Φ/h term in the contacts' normal rows."""
    threads: int
    """CPU worker threads, at least 1."""
    backend: Literal["cpu", "gpu"]
    """Where the step runs."""
    sync_every: int
    """GPU: steps between read-backs, at least 1."""
    health_non_finite: Check
    """Health check on non-finite state."""
    health_penetration: Check
    """Health check on overlaps beyond health_max_penetration × the smallest radius."""
    health_energy: Check
    """Health check on unexplained kinetic energy growth."""
    health_max_penetration: float
    """Deepest overlap allowed, as a multiple of the smallest radius."""
    health_energy_growth: float
    """Factor of the energy check, at least 1."""
    periodic_x: Optional[Tuple[float, float]]
    """Periodic range (lo, hi) along x, or None."""
    periodic_y: Optional[Tuple[float, float]]
    """Periodic range (lo, hi) along y, or None."""
    def copy(self) -> Settings:
        """A copy of these settings."""

    def __eq__(self, other: object) -> bool: ...

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

class WorldBuilder:
    """Describes a world in code (materials, walls, bodies in bulk, joints...), then builds it."""

    def __init__(self, settings: Optional[Settings] = None) -> None:
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
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N capsules along their local x axes; returns their index range."""

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
        material: Union[MaterialRef, ArrayLike, None] = None,
        kind: BodyKind = "dynamic",
        motion: Optional[Motion] = None,
        group: Optional[str] = None,
    ) -> Range:
        """Adds N uniform ellipses (planar mode); returns their index range."""
    # Walls and meshes.
    def plane(
        self,
        point: Vec3,
        normal: Vec3,
        *,
        material: Optional[MaterialRef] = None,
        motion: Optional[Motion] = None,
        active_between: Optional[Tuple[float, float]] = None,
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
    # Insertion and sinks.
    def insert(
        self,
        *,
        box: Optional[Tuple[Vec3, Vec3]] = None,
        cylinder: Optional[Tuple[Vec3, float, float]] = None,
        disk: Optional[Tuple[Vec3, float]] = None,
        count_per_second: Optional[float] = None,
        kg_per_second: Optional[float] = None,
        radius: Union[float, Tuple[str, float, float], Tuple[str, Sequence[Tuple[float, float]]]],
        radius_range: Optional[Tuple[float, float]] = None,
        density: float = 2500.0,
        material: Optional[MaterialRef] = None,
        velocity: Vec3 = (0.0, 0.0, 0.0),
        start: float = 0.0,
        stop: float = math.inf,
        seed: int = 0,
        batch_steps: Optional[int] = None,
    ) -> int:
        """Adds an insertion region feeding spheres while the world steps; returns its index."""

    def sink(
        self,
        name: str,
        *,
        box: Optional[Tuple[Vec3, Vec3]] = None,
        half_space: Optional[Tuple[Vec3, Vec3]] = None,
    ) -> int:
        """Adds a sink removing the grains whose centres enter it; returns its index."""

class World:
    # Members added by the builder half (merge into the World class of _grains.pyi).
    @property
    def settings(self) -> Settings:
        """A copy of the settings the world steps with."""

    def set_settings(self, settings: Settings) -> None:
        """Replaces the settings from the next step (threads, backend, envelope, periodic kept)."""
