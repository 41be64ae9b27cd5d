//! The scene file as written: TOML tables deserialised with the position of every value, so
//! that a bad value can be reported with its line. The meaning of every key is documented in
//! `scenes/README.md`.

use serde::Deserialize;
use toml::Spanned;

/// A value with its byte range in the scene file.
pub type S<T> = Spanned<T>;

/// A 3-vector as written in the file, `[x, y, z]` (m, m/s, rad/s, … by context).
pub type V3 = [f64; 3];

/// The whole scene file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneSpec {
    /// `[scene]`: name, units, duration.
    pub scene: MetaSpec,
    /// `[settings]`: the time stepping and the solver.
    pub settings: SettingsSpec,
    /// `[[materials]]`: named surface materials (friction μ, restitution, spinning and rolling
    /// friction).
    #[serde(default)]
    pub materials: Vec<MaterialSpec>,
    /// `[[friction_pairs]]`: μ for a given pair of materials, overriding the smaller-μ rule.
    #[serde(default)]
    pub friction_pairs: Vec<PairSpec>,
    /// `[[shakers]]`: named prescribed motions shared by walls and kinematic bodies.
    #[serde(default)]
    pub shakers: Vec<ShakerSpec>,
    /// `[[containers]]`: walls.
    #[serde(default)]
    pub containers: Vec<ContainerSpec>,
    /// `[[meshes]]`: triangle-mesh walls read from STL files.
    #[serde(default)]
    pub meshes: Vec<MeshSpec>,
    /// `[[bodies]]`: body generators, applied in order.
    #[serde(default)]
    pub bodies: Vec<BodySpec>,
    /// `[[joints]]`: joints between bodies of the groups, or a body and the world.
    #[serde(default)]
    pub joints: Vec<JointSpec>,
    /// `[[bonds]]`: elastic bonds between the touching grains of a body group.
    #[serde(default)]
    pub bonds: Vec<BondSpec>,
    /// `[[springs]]`: spring–dampers between bodies, or a body and the world.
    #[serde(default)]
    pub springs: Vec<SpringSpec>,
    /// `[[forces]]`: applied forces F cos(ω t + φ) on bodies.
    #[serde(default)]
    pub forces: Vec<ForceSpec>,
    /// `[output]`: frames, images, checkpoints.
    #[serde(default)]
    pub output: OutputSpec,
    /// `[[observables]]`: time series to record.
    #[serde(default)]
    pub observables: Vec<ObservableSpec>,
    /// `[[insert]]`: grains fed in while the run goes.
    #[serde(default)]
    pub insert: Vec<InsertSpec>,
    /// `[[sink]]`: regions that take grains out.
    #[serde(default)]
    pub sink: Vec<SinkSpec>,
    /// `[periodic]`: periodic boundaries along x and/or y.
    pub periodic: Option<S<PeriodicSpec>>,
    /// `[fields]`: coarse-grained continuum fields written while the run goes.
    pub fields: Option<S<FieldsSpec>>,
    /// `[fluid]`: a fluid's buoyancy and drag on the spheres.
    pub fluid: Option<S<FluidSpec>>,
    /// `[clumps.NAME]`: clump templates by name.
    #[serde(default)]
    pub clumps: std::collections::BTreeMap<String, S<ClumpSpec>>,
}

/// `[scene]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetaSpec {
    /// Short name of the scene (used in file names and summaries).
    pub name: S<String>,
    /// Free text: what the scene shows and where its parameters come from.
    pub description: Option<String>,
    /// Unit system; only `"SI"` (m, kg, s) is accepted.
    pub units: Option<S<String>>,
    /// Simulated time to run (s).
    pub duration: S<f64>,
    /// Largest overlap of two bodies at the start, as a fraction of the smaller radius.
    pub overlap_tolerance: Option<S<f64>>,
}

/// `[settings]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsSpec {
    /// `"rigid"` (the papers' scheme) or `"granular"` (tuned for deep beds); other keys override.
    pub preset: S<String>,
    /// Time step h (s), or `"auto"`: the adaptive step, within [`h_min`, `h_max`].
    pub h: S<toml::Value>,
    /// With `h = "auto"`: the smallest step (s).
    pub h_min: Option<S<f64>>,
    /// With `h = "auto"`: the largest step (s), the tick outputs count in.
    pub h_max: Option<S<f64>>,
    /// With `h = "auto"`: the farthest the fastest grain moves in a step, over the smallest
    /// radius.
    pub reach: Option<S<f64>>,
    /// With `h = "auto"`: the deepest overlap (and residual × h) allowed, over the smallest
    /// radius.
    pub penetration_budget: Option<S<f64>>,
    /// Gravitational acceleration vector (m/s²).
    pub gravity: Option<S<V3>>,
    /// Collision envelope ε̂ rule.
    pub envelope: Option<EnvelopeSpec>,
    /// `"gauss_seidel"` or `"jacobi"`.
    pub solver: Option<S<String>>,
    /// Most sweeps per step.
    pub max_iterations: Option<S<i64>>,
    /// Residual (m/s) at which the sweeps stop.
    pub tolerance: Option<S<f64>>,
    /// Relaxation ω.
    pub omega: Option<S<f64>>,
    /// Warm-start fraction in [0, 1].
    pub warm_start: Option<S<f64>>,
    /// Natural frequency (Hz) of compliant contact, or `"inf"` for rigid contact.
    pub contact_frequency: Option<S<toml::Value>>,
    /// Coulomb-correction passes per solve (0 = off).
    pub coulomb_correction: Option<S<i64>>,
    /// Sweeps of the position correction of overlaps (0 = off; rigid contact).
    pub position_correction: Option<S<i64>>,
    /// Motion restricted to the x–z plane (disks).
    pub planar: Option<bool>,
    /// Worker threads (the command line's `--threads` wins).
    pub threads: Option<S<i64>>,
    /// `"cpu"` or `"gpu"` (the command line's `--backend` wins).
    pub backend: Option<S<String>>,
    /// GPU: steps between read-backs of the state to the host.
    pub sync_every: Option<S<i64>>,
    /// `"ccp"` (default) or `"geometrically_implicit"`.
    pub integrator: Option<S<String>>,
    /// `[settings.health]`: what the health checks do.
    pub health: Option<HealthSpec>,
}

/// `[settings.health]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HealthSpec {
    /// Grains that leave the domain: `"stop"` (default), `"warn"` or `"off"` (an open domain).
    pub escape: Option<S<String>>,
    /// The adaptive step wanted less than h_min: `"stop"` (default), `"warn"` or `"off"`.
    pub step_floor: Option<S<String>>,
}

/// `[settings.envelope]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeSpec {
    /// `"per_pair"` or `"fixed"`.
    pub kind: S<String>,
    /// Per pair: smallest ε̂ (m).
    pub floor: Option<S<f64>>,
    /// Per pair: ε̂ grows by this factor × h × approach speed.
    pub speed_factor: Option<S<f64>>,
    /// Fixed: ε̂ (m).
    pub value: Option<S<f64>>,
}

/// `[[materials]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialSpec {
    /// Name other tables refer to.
    pub name: S<String>,
    /// Coulomb friction coefficient μ ≥ 0.
    pub friction: S<f64>,
    /// Poisson restitution coefficient e ∈ [0, 1] (default 0).
    pub restitution: Option<S<f64>>,
    /// Spinning length e_r ≥ 0 (m; default 0): spin moment ≤ e_r ((μ γn)² − ‖γ_t‖²)^½.
    pub spinning: Option<S<f64>>,
    /// Rolling-resistance length e_roll ≥ 0 (m; default 0): rolling moment ≤ e_roll γn.
    pub rolling: Option<S<f64>>,
    /// Pull-off force c ≥ 0 of a touching contact (N; default 0).
    pub cohesion: Option<S<f64>>,
    /// Surface energy γ ≥ 0 (J/m²; default 0): spheres pull off at 3π γ R*.
    pub surface_energy: Option<S<f64>>,
    /// Liquid volume V ≥ 0 of the bridge at each contact (m³; default 0: dry).
    pub bridge_volume: Option<S<f64>>,
    /// The bridging liquid's surface tension ≥ 0 (N/m; default 0.072, water).
    pub surface_tension: Option<S<f64>>,
    /// The liquid's contact angle on the grains, 0–90 (degrees; default 0).
    pub contact_angle_degrees: Option<S<f64>>,
}

/// `[[friction_pairs]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairSpec {
    /// First material.
    pub a: S<String>,
    /// Second material.
    pub b: S<String>,
    /// μ of the pair.
    pub friction: S<f64>,
}

/// `[[shakers]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShakerSpec {
    /// Name walls and bodies refer to.
    pub name: S<String>,
    /// `"shake"` (A sin(2πft + φ) along an axis) or `"constant"` (constant velocity).
    pub kind: S<String>,
    /// Shake: unit direction (default +z).
    pub axis: Option<S<V3>>,
    /// Shake: amplitude A (m).
    pub amplitude: Option<S<f64>>,
    /// Shake: frequency f (Hz).
    pub frequency: Option<S<f64>>,
    /// Shake: phase φ (rad).
    pub phase: Option<S<f64>>,
    /// Constant: linear velocity (m/s).
    pub linear: Option<S<V3>>,
    /// Constant: angular velocity (rad/s).
    pub angular: Option<S<V3>>,
}

/// `[[containers]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContainerSpec {
    /// `"box"`, `"pour_box"`, `"floor"`, `"plane"`, `"rectangle"`, `"cylinder"`, `"cone"`,
    /// `"disk"` or `"annulus"`.
    pub kind: S<String>,
    /// Name that `wall_force` and `wall_torque` observables refer to.
    pub name: Option<S<String>>,
    /// Surface material name (default: the first material).
    pub material: Option<S<String>>,
    /// Name of the shaker that moves it.
    pub shaker: Option<S<String>>,
    /// Box: centre of the floor's top face (m).
    pub floor_centre: Option<S<V3>>,
    /// Box: inner width along x (m).
    pub width_x: Option<S<f64>>,
    /// Box: inner width along y (m).
    pub width_y: Option<S<f64>>,
    /// Box: height of the side walls (m).
    pub height: Option<S<f64>>,
    /// Pour box: number of grains N of the pour benchmark (docs/benchmark.md) the box is sized for.
    pub n: Option<S<i64>>,
    /// Floor: height of the floor (m).
    pub z: Option<S<f64>>,
    /// Plane: a point on it (m).
    pub point: Option<S<V3>>,
    /// Plane/rectangle: normal pointing towards the grains.
    pub normal: Option<S<V3>>,
    /// Rectangle, cylinder: centre (m).
    pub centre: Option<S<V3>>,
    /// Rectangle: first in-face axis.
    pub u: Option<S<V3>>,
    /// Rectangle: half extent along u (m).
    pub half_u: Option<S<f64>>,
    /// Rectangle: half extent along n × u (m).
    pub half_v: Option<S<f64>>,
    /// Cylinder: direction of its axis.
    pub axis: Option<S<V3>>,
    /// Cylinder: radius of the mantle (m).
    pub radius: Option<S<f64>>,
    /// Cylinder: length of the mantle along the axis (m), centred on `centre`.
    pub length: Option<S<f64>>,
    /// Cylinder: true (default) when the grains are inside it (a drum), false when outside.
    pub inside: Option<S<bool>>,
    /// Cylinder: rate of turning about its axis (rad/s, right-handed; default 0).
    pub angular_velocity: Option<S<f64>>,
    /// Cone: radius at its small end, `centre − length/2 · axis` (m, ≥ 0).
    pub small_radius: Option<S<f64>>,
    /// Cone: radius at its large end, `centre + length/2 · axis` (m).
    pub large_radius: Option<S<f64>>,
    /// Disk/annulus: radius of its central hole (m).
    pub inner_radius: Option<S<f64>>,
    /// Cylinder/cone: the ends closed by flat caps, `"none"` (default), `"low"` (at
    /// `centre − length/2 · axis`, a cone's small end), `"high"` or `"both"`.
    pub caps: Option<S<String>>,
    /// Cylinder/cone: radius of a central hole in each cap (m; default 0), an orifice.
    pub cap_hole: Option<S<f64>>,
    /// Any container: time its walls appear (s; default: from the start).
    pub active_from: Option<S<f64>>,
    /// Any container: time its walls disappear (s; default: never), a gate that opens.
    pub active_until: Option<S<f64>>,
    /// Plane, floor: the servo that moves it along its normal to hold a normal force.
    pub servo: Option<S<ServoSpec>>,
}

/// `servo = { force = F, gain = k, max_speed = v }`: a plane moved along its normal to hold
/// the normal force F (N) the grains push on it, retreating at clamp(k (load − F), −v, v)
/// (`grains::servo`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServoSpec {
    /// The target normal force (N), ≥ 0.
    pub force: S<f64>,
    /// The gain (m/s per N), > 0.
    pub gain: S<f64>,
    /// The largest speed (m/s), > 0.
    pub max_speed: S<f64>,
}

/// `[[meshes]]`: a triangle-mesh wall read from an STL file, placed x ↦ translate +
/// R(rotate) (scale · x), fixed, moved by a shaker, or turning about an axis.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshSpec {
    /// The STL file (ASCII or binary), relative to the scene file.
    pub file: S<String>,
    /// Name that `wall_force` and `wall_torque` observables refer to.
    pub name: Option<S<String>>,
    /// Surface material name (default: the first material).
    pub material: Option<S<String>>,
    /// Name of the shaker that moves it (a translation).
    pub shaker: Option<S<String>>,
    /// Factor on the file's coordinates (default 1; 0.001 reads a file in millimetres).
    pub scale: Option<S<f64>>,
    /// Axis of the turn placing the mesh (with `rotate_degrees`).
    pub rotate_axis: Option<S<V3>>,
    /// Angle of the turn placing the mesh (degrees, right-handed about `rotate_axis`).
    pub rotate_degrees: Option<S<f64>>,
    /// Offset added after scaling and turning (m).
    pub translate: Option<S<V3>>,
    /// Rate of turning about `axis` through `axis_point` while the run goes (rad/s).
    pub angular_speed: Option<S<f64>>,
    /// Direction of the axis it turns about.
    pub axis: Option<S<V3>>,
    /// A point of the axis it turns about, in the placed (world) coordinates (m).
    pub axis_point: Option<S<V3>>,
}

/// `[[bodies]]`: one generator.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// `"single"`, `"list"`, `"lattice"`, `"random_fill"`, `"pour_lattice"` or `"cannonball"`.
    pub generator: S<String>,
    /// Name of the group (observables refer to it).
    pub name: Option<S<String>>,
    /// `"sphere"`, `"disk"`, `"capsule"` or `"ellipse"` (default: disk in planar mode, sphere
    /// otherwise).
    pub shape: Option<S<String>>,
    /// Capsule: half the length of its segment (m).
    pub half_length: Option<S<f64>>,
    /// Ellipse: semi-axis along the body's x axis (m).
    pub a: Option<S<f64>>,
    /// Ellipse: semi-axis along the body's z axis (m).
    pub b: Option<S<f64>>,
    /// Box: half-extents along the body's x, y and z axes (m).
    pub half_extents: Option<S<V3>>,
    /// Ellipsoid: semi-axes along the body's x, y and z axes (m).
    pub semi_axes: Option<S<V3>>,
    /// Clump: the name of its `[clumps.NAME]` template.
    pub clump: Option<S<String>>,
    /// Polyhedron: the points whose convex hull is the body's shape (m).
    pub vertices: Option<S<Vec<V3>>>,
    /// Capsule and ellipse: the direction of the body's x axis (the segment, the semi-axis a),
    /// `[x, y, z]`, or `"random"` (drawn from `seed`).
    pub axis: Option<S<toml::Value>>,
    /// Material name (default: the first material).
    pub material: Option<S<String>>,
    /// Radius (m).
    pub radius: Option<S<f64>>,
    /// Random fill: largest radius (m); radii uniform in [radius, radius_max].
    pub radius_max: Option<S<f64>>,
    /// Density (kg/m³, or kg/m² for disks).
    pub density: Option<S<f64>>,
    /// Mass (kg), instead of density.
    pub mass: Option<S<f64>>,
    /// Single and list: moment of inertia (kg m²), instead of that of a solid sphere or disk.
    pub inertia: Option<S<f64>>,
    /// `"dynamic"` (default), `"fixed"` or `"kinematic"` (then `shaker` is required).
    pub kind: Option<S<String>>,
    /// Kinematic bodies: the shaker that drives them.
    pub shaker: Option<S<String>>,
    /// Number of bodies (pour lattice: N; lattice: stop after this many; random fill: target).
    pub count: Option<S<i64>>,
    /// Random fill: target packing fraction (volume, or area in planar mode), instead of count.
    pub packing_fraction: Option<S<f64>>,
    /// Random seed (random fill, lattice jitter).
    pub seed: Option<S<i64>>,
    /// Single body: centre (m).
    pub position: Option<S<V3>>,
    /// Initial velocity (m/s).
    pub velocity: Option<S<V3>>,
    /// Initial angular velocity (rad/s).
    pub angular_velocity: Option<S<V3>>,
    /// Lattice: centre of the first site (m).
    pub origin: Option<S<V3>>,
    /// Lattice: distance between sites (m).
    pub spacing: Option<S<f64>>,
    /// Lattice: number of sites along x, y, z.
    pub counts: Option<S<[i64; 3]>>,
    /// Lattice: jitter of each site in x and y, as a fraction of the radius.
    pub jitter: Option<S<f64>>,
    /// Random fill: lower corner of the region the centres lie in (m).
    pub region_min: Option<S<V3>>,
    /// Random fill: upper corner (m).
    pub region_max: Option<S<V3>>,
    /// Random fill: `"box"` (default; `region_min`, `region_max`), `"cylinder"` or `"cone"`.
    pub region: Option<S<String>>,
    /// Random fill into a cylinder or cone: centre of its axial range (m).
    pub region_centre: Option<S<V3>>,
    /// Random fill into a cylinder or cone: direction of its axis (a cone's small end first).
    pub region_axis: Option<S<V3>>,
    /// Random fill into a cylinder: its radius (m).
    pub region_radius: Option<S<f64>>,
    /// Random fill into a cone: radius at `region_centre − region_length/2 · region_axis` (m).
    pub region_small_radius: Option<S<f64>>,
    /// Random fill into a cone: radius at the other end (m).
    pub region_large_radius: Option<S<f64>>,
    /// Random fill into a cylinder or cone: its length along the axis (m).
    pub region_length: Option<S<f64>>,
    /// Cannonball: number of rows (bottom row has `rows` disks).
    pub rows: Option<S<i64>>,
    /// Cannonball: x of the stack's centre line (m).
    pub centre_x: Option<S<f64>>,
    /// List: the bodies.
    pub list: Option<Vec<ListBodySpec>>,
}

/// One entry of a `list` generator.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListBodySpec {
    /// Centre (m).
    pub position: S<V3>,
    /// Radius (m), default the generator's.
    pub radius: Option<S<f64>>,
    /// Initial velocity (m/s).
    pub velocity: Option<S<V3>>,
    /// Initial angular velocity (rad/s).
    pub angular_velocity: Option<S<V3>>,
    /// Capsule and ellipse: the direction of the body's x axis, default the generator's.
    pub axis: Option<S<V3>>,
    /// Capsule: half the length of its segment (m), default the generator's.
    pub half_length: Option<S<f64>>,
    /// Ellipse: semi-axis along the body's x axis (m), default the generator's.
    pub a: Option<S<f64>>,
    /// Ellipse: semi-axis along the body's z axis (m), default the generator's.
    pub b: Option<S<f64>>,
    /// Box: half-extents along the body's x, y and z axes (m), default the generator's.
    pub half_extents: Option<S<V3>>,
    /// Ellipsoid: semi-axes along the body's x, y and z axes (m), default the generator's.
    pub semi_axes: Option<S<V3>>,
}

/// `[[joints]]`: one joint.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointSpec {
    /// `"ball"`, `"hinge"`, `"distance"`, `"fixed"` or `"prismatic"`.
    pub kind: S<String>,
    /// Body group of body a (one joint; instead of `chain` and `ring`).
    pub a: Option<S<String>>,
    /// Body group whose every body is jointed to the one before it (N − 1 joints).
    pub chain: Option<S<String>>,
    /// Body group jointed as a closed chain: `chain`, and the first body to the last (N joints).
    pub ring: Option<S<String>>,
    /// Index of body a in its group (required when the group has more than one body).
    pub a_index: Option<S<i64>>,
    /// Body group of body b; omitted: the world.
    pub b: Option<S<String>>,
    /// Index of body b in its group.
    pub b_index: Option<S<i64>>,
    /// Joint point (m); for a distance joint the anchor on a.
    pub anchor: Option<S<V3>>,
    /// Distance joint: the anchor on b (m).
    pub anchor_b: Option<S<V3>>,
    /// Hinge and prismatic: axis.
    pub axis: Option<S<V3>>,
    /// Hinge and prismatic: motor speed (rad/s or m/s).
    pub motor_speed: Option<S<f64>>,
    /// Hinge and prismatic: largest motor torque (N m) or force (N); omitted: no bound.
    pub motor_max_force: Option<S<f64>>,
    /// The Θ/h stabilisation (default true).
    pub stabilise: Option<S<bool>>,
    /// Whether a and b still collide with each other (default true).
    pub collide: Option<S<bool>>,
}

/// `[[springs]]`: one spring–damper.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpringSpec {
    /// Body group of body a (one spring; instead of `chain` and `ring`).
    pub a: Option<S<String>>,
    /// Body group whose every body is tied by a spring to the one before it (N − 1 springs).
    pub chain: Option<S<String>>,
    /// Body group tied as a closed chain: `chain`, and the first body to the last (N springs).
    pub ring: Option<S<String>>,
    /// Index of body a in its group.
    pub a_index: Option<S<i64>>,
    /// Body group of body b; omitted: the world.
    pub b: Option<S<String>>,
    /// Index of body b in its group.
    pub b_index: Option<S<i64>>,
    /// Anchor on a (m); default a's centre.
    pub anchor_a: Option<S<V3>>,
    /// Anchor on b (m); default b's centre (required with the world).
    pub anchor_b: Option<S<V3>>,
    /// Stiffness k (N/m).
    pub stiffness: Option<S<f64>>,
    /// Damping δ (N s/m).
    pub damping: Option<S<f64>>,
    /// Rest length (m); default the anchors' starting distance.
    pub rest_length: Option<S<f64>>,
    /// `"implicit"` (default) or `"explicit"`.
    pub integration: Option<S<String>>,
}

/// `[[forces]]`: one applied force.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForceSpec {
    /// Body group.
    pub body: S<String>,
    /// Index of the body in its group.
    pub index: Option<S<i64>>,
    /// Amplitude F (N).
    pub force: S<V3>,
    /// ω (rad/s) of F cos(ω t + φ) (default 0).
    pub angular_frequency: Option<S<f64>>,
    /// φ (rad) (default 0).
    pub phase: Option<S<f64>>,
}

/// `[output]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Steps between frames (default: about 100 frames per run).
    pub every: Option<S<i64>>,
    /// Any of `"vtu"`, `"csv"`, `"png"`, `"contacts"` (default the first three).
    pub formats: Option<S<Vec<String>>>,
    /// How the ParaView frames' arrays are stored: `"zlib"` (default), `"binary"` or `"ascii"`.
    pub frame_encoding: Option<S<String>>,
    /// Write each grain's orientation in the frames of spheres and disks too (default false;
    /// frames with other shapes always have it).
    pub frame_orientation: Option<S<bool>>,
    /// `true`: the grains' frames carry each sphere's Love–Weber stress.
    pub frame_stress: Option<S<bool>>,
    /// Every how many frames a PNG snapshot is drawn (default: 10 snapshots per run).
    pub png_every: Option<S<i64>>,
    /// Colour grains by `"size"`, `"speed"`, `"material"` or `"group"`.
    pub colour: Option<S<String>>,
    /// Steps between checkpoints (default: 10 per run).
    pub checkpoint_every: Option<S<i64>>,
    /// Steps between observable samples (default: 1 per frame).
    pub observe_every: Option<S<i64>>,
    /// Width of PNG images in pixels.
    pub image_width: Option<S<i64>>,
    /// Height of the region snapshots show, above the floor (m).
    pub view_height: Option<S<f64>>,
    /// Snapshot style: `"section"` (the cut by the plane y = const through the largest body;
    /// default in 3-D)
    /// or `"side"` (every grain projected; default in planar mode).
    pub view: Option<S<String>>,
    /// The region snapshots show: `"start"` (fixed from the start state, the default) or
    /// `"bodies"` (the bodies' extent in each frame).
    pub view_extent: Option<S<String>>,
    /// The y (m) of the section plane, fixed; default: through the largest body in each frame.
    pub section_y: Option<S<f64>>,
}

/// `[[observables]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObservableSpec {
    /// Column name (default: the kind, with the body group).
    pub name: Option<S<String>>,
    /// `"height"` (mean centre z of a group), `"kinetic_energy"`, `"contacts"`, `"bed_height"`
    /// (95th percentile of centre heights), `"max_speed"`, `"rank_from_top"`, `"wall_force"`,
    /// `"wall_torque"`, `"contact_force"`.
    pub kind: S<String>,
    /// Body group (the `name` of a generator) for `height`, `rank_from_top` and `contact_force`.
    pub body: Option<S<String>>,
    /// `wall_force`, `wall_torque`: the container (its `name`).
    pub wall: Option<S<String>>,
    /// `wall_force`, `wall_torque` on a box: `"all"`, `"floor"`, `"sides"`, `"x_min"`,
    /// `"x_max"`, `"y_min"` or `"y_max"`.
    pub part: Option<S<String>>,
    /// `wall_force`, `contact_force`: `"x"`, `"y"`, `"z"` or `"magnitude"`.
    pub component: Option<S<String>>,
    /// `wall_torque`: the point the torque is taken about (m).
    pub point: Option<S<V3>>,
    /// `wall_torque`: the axis the torque is projected on.
    pub axis: Option<S<V3>>,
    /// `grain_count`, `outflow_mass`, `outflow_rate`: the sink (its `name`; default: all
    /// grains for `grain_count`, all sinks for the outflows).
    pub sink: Option<S<String>>,
}

/// `[clumps.NAME]`: one template, given as spheres or generated from a rod (one of the two).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClumpSpec {
    /// The member spheres `[x, y, z, r]` in the template's axes (m), 1 to 8 of them.
    pub spheres: Option<S<Vec<[f64; 4]>>>,
    /// A rod of equal spheres along the template's x axis.
    pub rod: Option<S<RodSpec>>,
}

/// `rod = { spheres = k, radius = r, spacing = d }`: k spheres of radius r along x, centres d
/// apart.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RodSpec {
    /// Number of spheres (1 to 8).
    pub spheres: S<i64>,
    /// Their radius (m).
    pub radius: S<f64>,
    /// Distance between neighbouring centres (m).
    pub spacing: S<f64>,
}

/// `[[insert]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InsertSpec {
    /// `"box"`, `"cylinder"` (vertical axis) or `"disk"` (horizontal).
    pub region: S<String>,
    /// Box: lower corner (m).
    pub min: Option<S<V3>>,
    /// Box: upper corner (m).
    pub max: Option<S<V3>>,
    /// Cylinder, disk: centre (m).
    pub centre: Option<S<V3>>,
    /// Cylinder, disk: radius of the region (m).
    pub region_radius: Option<S<f64>>,
    /// Cylinder: half its height (m).
    pub half_height: Option<S<f64>>,
    /// Grains per second (or `kg_per_second`).
    pub count_per_second: Option<S<f64>>,
    /// Kilograms per second (or `count_per_second`).
    pub kg_per_second: Option<S<f64>>,
    /// Time the feed starts (s; default 0).
    pub start: Option<S<f64>>,
    /// Time the feed stops (s; default: never).
    pub stop: Option<S<f64>>,
    /// Grain radius: a number, or `{ uniform = [a, b] }`, `{ normal = [mean, sd] }`,
    /// `{ lognormal = [median, sigma] }`, `{ table = [[r, fraction], …] }`; shaped grains: a
    /// number, for capsules and cubes only.
    pub radius: Option<S<toml::Value>>,
    /// `"sphere"` (default), `"capsule"`, `"cube"`, `"box"`, `"ellipsoid"`, `"clump"` or
    /// `"polyhedron"`, with the dimensions a `[[bodies]]` generator of that shape takes.
    pub shape: Option<S<String>>,
    /// Capsule: half the length of its segment (m).
    pub half_length: Option<S<f64>>,
    /// Box: half-extents along the grain's x, y and z axes (m).
    pub half_extents: Option<S<V3>>,
    /// Ellipsoid: semi-axes along the grain's x, y and z axes (m).
    pub semi_axes: Option<S<V3>>,
    /// Clump: the name of its `[clumps.NAME]` template.
    pub clump: Option<S<String>>,
    /// Polyhedron: the points whose convex hull is the grain (m).
    pub vertices: Option<S<Vec<V3>>>,
    /// Smallest radius kept (m; default by the law).
    pub min_radius: Option<S<f64>>,
    /// Largest radius kept (m; default by the law).
    pub max_radius: Option<S<f64>>,
    /// Density (kg/m³).
    pub density: S<f64>,
    /// Material name (default: the first).
    pub material: Option<S<String>>,
    /// Velocity when placed (m/s; default 0).
    pub velocity: Option<S<V3>>,
    /// Seed of the placements (default 0).
    pub seed: Option<S<i64>>,
    /// Steps between batches (default: one layer per batch).
    pub batch_steps: Option<S<i64>>,
}

/// `[[sink]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkSpec {
    /// Name the observables refer to.
    pub name: S<String>,
    /// `"box"` or `"half_space"`.
    pub shape: S<String>,
    /// Box: lower corner (m).
    pub min: Option<S<V3>>,
    /// Box: upper corner (m).
    pub max: Option<S<V3>>,
    /// Half-space: a point on its plane (m).
    pub point: Option<S<V3>>,
    /// Half-space: the normal, pointing into the sink.
    pub normal: Option<S<V3>>,
}

/// `[fields]` as written: a grid (`min`, `max`, `spacing`) or a profile (`axis`, `from`, `to`,
/// `spacing`, `area`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldsSpec {
    /// Steps between outputs (default: the frames' `every`).
    pub every: Option<S<i64>>,
    /// Steps between the samples each output averages (default: `every`, one sample).
    pub average_every: Option<S<i64>>,
    /// `"lucy"` (default) or `"gaussian"`.
    pub kernel: Option<S<String>>,
    /// Lucy's cutoff or the Gaussian's standard deviation (m).
    pub width: Option<S<f64>>,
    /// A grid's lowest corner (m).
    pub min: Option<S<V3>>,
    /// A grid's highest corner (m).
    pub max: Option<S<V3>>,
    /// The distance between nodes or points (m).
    pub spacing: Option<S<f64>>,
    /// A profile's axis: `"x"`, `"y"` or `"z"`.
    pub axis: Option<S<String>>,
    /// A profile's first coordinate (m).
    pub from: Option<S<f64>>,
    /// A profile's last coordinate (m), or the last point before it.
    pub to: Option<S<f64>>,
    /// The cross-section a profile averages over (m²).
    pub area: Option<S<f64>>,
}

/// `[[bonds]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BondSpec {
    /// The body group whose grains are bonded.
    pub group: S<String>,
    /// Largest gap between two grains' surfaces that gets a bond (m, default 0: touching).
    pub gap: Option<S<f64>>,
    /// Stiffness of the positional row along the bond (N/m).
    pub stiffness: S<f64>,
    /// Stiffness of each orientation row across the bond: bending (N m/rad).
    pub angular_stiffness: S<f64>,
    /// Stiffness of each positional row across the bond (N/m, default `stiffness`).
    pub shear_stiffness: Option<S<f64>>,
    /// Stiffness of the orientation row about the bond: twisting (N m/rad, default
    /// `angular_stiffness`).
    pub twisting_stiffness: Option<S<f64>>,
    /// Damping of each positional row (N s/m, default 0).
    pub damping: Option<S<f64>>,
    /// Damping of each orientation row (N m s/rad, default 0).
    pub angular_damping: Option<S<f64>>,
    /// Largest tension before a bond breaks (N, default: never).
    pub tensile_strength: Option<S<f64>>,
    /// Largest force across a bond before it breaks (N, default: never).
    pub shear_strength: Option<S<f64>>,
    /// Largest bending moment before a bond breaks (N m, default: never).
    pub bending_strength: Option<S<f64>>,
    /// Largest twisting moment before a bond breaks (N m, default: never).
    pub twisting_strength: Option<S<f64>>,
}

/// `[fluid]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FluidSpec {
    /// Density ρ_f (kg/m³).
    pub density: S<f64>,
    /// Dynamic viscosity μ_f (Pa s).
    pub viscosity: S<f64>,
    /// Velocity of the fluid (m/s, default at rest).
    pub velocity: Option<S<V3>>,
    /// `"schiller_naumann"` (default), `"stokes"` or `"di_felice"`.
    pub drag: Option<S<String>>,
    /// Edge (m) of the cells Di Felice's drag counts the voidage in.
    pub voidage_cell: Option<S<f64>>,
    /// `[fluid.field]`: the fluid's velocity on a grid of nodes, from a file.
    pub field: Option<S<FlowFieldSpec>>,
}

/// `[fluid.field]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowFieldSpec {
    /// The file of the nodes' velocities (one node a line, x fastest), relative to the scene
    /// file.
    pub file: S<String>,
    /// The position of node (0, 0, 0) (m).
    pub origin: S<V3>,
    /// The distance between nodes, the same along x, y and z (m).
    pub spacing: S<f64>,
    /// The number of nodes along x, y and z.
    pub counts: S<[i64; 3]>,
}

/// `[periodic]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeriodicSpec {
    /// `[lo, hi]` (m): the range the centres stay in along x, of period hi − lo.
    pub x: Option<S<[f64; 2]>>,
    /// `[lo, hi]` (m): the range along y.
    pub y: Option<S<[f64; 2]>>,
    /// γ̇ (1/s): Lees–Edwards shear along x with its gradient along y (needs both x and y).
    pub shear_rate: Option<S<f64>>,
}
