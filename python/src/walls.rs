//! Walls, box containers and triangle meshes added to a `WorldBuilder`.

use crate::arrays::rows;
use crate::builder::PyWorldBuilder;
use crate::motion::PyMotion;
use grains::{BoxContainer, MeshDesc, Servo, Vec3, WallDesc};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A 3-tuple as a vector.
type V3 = (f32, f32, f32);

/// Which ends of a cylinder or cone get a flat cap.
fn cap_ends(caps: Option<&str>) -> PyResult<&'static [bool]> {
    match caps {
        None | Some("none") => Ok(&[]),
        Some("low") => Ok(&[false]),
        Some("high") => Ok(&[true]),
        Some("both") => Ok(&[false, true]),
        Some(other) => Err(PyValueError::new_err(format!(
            "caps {other:?}: expected None, \"none\", \"low\", \"high\" or \"both\""
        ))),
    }
}

/// The servo of the keyword `servo={"force": …, "gain": …, "max_speed": …}`: exactly those
/// three keys (the build checks their values).
fn servo_of(keys: &std::collections::HashMap<String, f64>) -> PyResult<Servo> {
    const KEYS: [&str; 3] = ["force", "gain", "max_speed"];
    if let Some(other) = keys.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(PyValueError::new_err(format!(
            "servo: unknown key {other:?} (it takes force, gain and max_speed)"
        )));
    }
    let get = |k: &str| {
        keys.get(k).copied().ok_or_else(|| {
            PyValueError::new_err(format!(
                "servo: {k:?} is missing (it takes force, gain and max_speed)"
            ))
        })
    };
    Ok(Servo::new(get("force")?, get("gain")?, get("max_speed")?))
}

impl PyWorldBuilder {
    /// Adds `wall` with the options every wall takes and returns its index.
    fn add_wall(
        &mut self,
        wall: WallDesc,
        material: Option<&Bound<'_, PyAny>>,
        motion: Option<PyMotion>,
        active_between: Option<(f64, f64)>,
    ) -> PyResult<usize> {
        let wall = self.wall_options(wall, material, motion, active_between)?;
        Ok(self.builder.wall(wall))
    }

    /// `wall` with a material, a motion and a window of existence.
    fn wall_options(
        &self,
        wall: WallDesc,
        material: Option<&Bound<'_, PyAny>>,
        motion: Option<PyMotion>,
        active_between: Option<(f64, f64)>,
    ) -> PyResult<WallDesc> {
        let mut wall = wall.with_material(self.material_id("material", material)?);
        if let Some(m) = motion {
            wall = wall.moving(m.inner);
        }
        if let Some((from, until)) = active_between {
            wall = wall.active_between(from, until);
        }
        Ok(wall)
    }

    /// Adds a cylinder's or cone's mantle and the caps asked for; returns the mantle's index.
    #[allow(clippy::too_many_arguments)]
    fn add_round_wall(
        &mut self,
        mantle: WallDesc,
        angular_speed: f32,
        caps: Option<&str>,
        cap_hole: f32,
        material: Option<&Bound<'_, PyAny>>,
        motion: Option<PyMotion>,
        active_between: Option<(f64, f64)>,
    ) -> PyResult<usize> {
        let ends = cap_ends(caps)?;
        if ends.is_empty() && cap_hole != 0.0 {
            return Err(PyValueError::new_err(
                "cap_hole: only a capped cylinder or cone has a hole (give caps)",
            ));
        }
        let mantle = self.wall_options(
            mantle.rotating(angular_speed),
            material,
            motion,
            active_between,
        )?;
        let index = self.builder.wall(mantle);
        for &large_end in ends {
            if let Some(cap) = mantle.end_cap(large_end, cap_hole) {
                self.builder.wall(cap);
            }
        }
        Ok(index)
    }
}

#[pymethods]
impl PyWorldBuilder {
    /// Adds the infinite plane through `point` (m) with `normal` pointing to the grains (it
    /// bounds a solid half-space) and returns its wall index.
    ///
    /// Every wall takes `material` (index or name, default 0), `motion` (a `grains.Motion`: the
    /// wall translates along it; walls do not turn by a motion) and `active_between=(t0, t1)`
    /// (s): the wall exists for the steps starting at t0 ≤ t < t1 (a gate opening at t1, a lid
    /// closing at t0; use ±math.inf for no bound).
    ///
    /// A plane alone takes `servo={"force": F, "gain": k, "max_speed": v}` instead of a
    /// motion: it then moves along its normal to hold the normal force F (N) the grains push on
    /// it, retreating from them at clamp(k (load − F), −v, v) m/s with the load of the step
    /// before (the library's `grains::servo`; `World.servo_state` reads where it got to).
    #[pyo3(signature = (point, normal, *, material = None, motion = None, active_between = None, servo = None))]
    #[allow(clippy::too_many_arguments)]
    fn plane(
        &mut self,
        point: V3,
        normal: V3,
        material: Option<&Bound<'_, PyAny>>,
        motion: Option<PyMotion>,
        active_between: Option<(f64, f64)>,
        servo: Option<std::collections::HashMap<String, f64>>,
    ) -> PyResult<usize> {
        let mut wall = WallDesc::plane(Vec3::from(point), Vec3::from(normal));
        if let Some(keys) = servo {
            wall = wall.with_servo(servo_of(&keys)?);
        }
        self.add_wall(wall, material, motion, active_between)
    }

    /// Adds the rectangle `centre + s·u + t·(normal × u)`, |s| ≤ `half_u`, |t| ≤ `half_v` (m),
    /// pushing grains along `normal`, and returns its wall index. Its edges and corners are
    /// contacts too. Options as `plane`.
    #[pyo3(signature = (centre, normal, u, half_u, half_v, *, material = None, motion = None, active_between = None))]
    #[allow(clippy::too_many_arguments)]
    fn rectangle(
        &mut self,
        centre: V3,
        normal: V3,
        u: V3,
        half_u: f32,
        half_v: f32,
        material: Option<&Bound<'_, PyAny>>,
        motion: Option<PyMotion>,
        active_between: Option<(f64, f64)>,
    ) -> PyResult<usize> {
        let wall = WallDesc::rectangle(
            Vec3::from(centre),
            Vec3::from(normal),
            Vec3::from(u),
            half_u,
            half_v,
        );
        self.add_wall(wall, material, motion, active_between)
    }

    /// Adds the flat disk of `radius` (m) about `centre` facing `normal`, with a central hole of
    /// `inner_radius` (an annulus: an orifice plate), and returns its wall index. Its rims are
    /// edges grains rest on. Options as `plane`.
    #[pyo3(signature = (centre, normal, radius, *, inner_radius = 0.0, material = None, motion = None, active_between = None))]
    #[allow(clippy::too_many_arguments)]
    fn disk(
        &mut self,
        centre: V3,
        normal: V3,
        radius: f32,
        inner_radius: f32,
        material: Option<&Bound<'_, PyAny>>,
        motion: Option<PyMotion>,
        active_between: Option<(f64, f64)>,
    ) -> PyResult<usize> {
        let wall = WallDesc::disk(Vec3::from(centre), Vec3::from(normal), radius, inner_radius);
        self.add_wall(wall, material, motion, active_between)
    }

    /// Adds the open mantle of a cylinder of `radius` (m) about the axis through `centre` along
    /// `axis`, reaching `half_length` either side of `centre`, holding the grains `inside` it
    /// (a drum) or outside it, turning at `angular_speed` rad/s (right-handed about `axis`),
    /// and returns its wall index. `caps` ("low": the end at centre − half_length·axis,
    /// "high", "both") closes ends with flat disks facing the grains, each with a central hole
    /// of `cap_hole` (m); they are the next wall indices and do not turn. Spheres and disks
    /// only. Options as `plane`.
    #[pyo3(signature = (centre, axis, radius, half_length, *, inside = true, angular_speed = 0.0, caps = None, cap_hole = 0.0, material = None, motion = None, active_between = None))]
    #[allow(clippy::too_many_arguments)]
    fn cylinder(
        &mut self,
        centre: V3,
        axis: V3,
        radius: f32,
        half_length: f32,
        inside: bool,
        angular_speed: f32,
        caps: Option<&str>,
        cap_hole: f32,
        material: Option<&Bound<'_, PyAny>>,
        motion: Option<PyMotion>,
        active_between: Option<(f64, f64)>,
    ) -> PyResult<usize> {
        let mantle = WallDesc::cylinder(
            Vec3::from(centre),
            Vec3::from(axis),
            radius,
            half_length,
            inside,
        );
        self.add_round_wall(
            mantle,
            angular_speed,
            caps,
            cap_hole,
            material,
            motion,
            active_between,
        )
    }

    /// Adds the open mantle of a cone frustum about the axis through `centre` along `axis`: its
    /// radius grows from `small_radius` at centre − half_length·axis to `large_radius` at
    /// centre + half_length·axis (a hopper: axis up, the orifice at the small end), holding the
    /// grains `inside` it or outside; returns its wall index. `angular_speed`, `caps`,
    /// `cap_hole` and the options as `cylinder`.
    #[pyo3(signature = (centre, axis, small_radius, large_radius, half_length, *, inside = true, angular_speed = 0.0, caps = None, cap_hole = 0.0, material = None, motion = None, active_between = None))]
    #[allow(clippy::too_many_arguments)]
    fn cone(
        &mut self,
        centre: V3,
        axis: V3,
        small_radius: f32,
        large_radius: f32,
        half_length: f32,
        inside: bool,
        angular_speed: f32,
        caps: Option<&str>,
        cap_hole: f32,
        material: Option<&Bound<'_, PyAny>>,
        motion: Option<PyMotion>,
        active_between: Option<(f64, f64)>,
    ) -> PyResult<usize> {
        let mantle = WallDesc::cone(
            Vec3::from(centre),
            Vec3::from(axis),
            small_radius,
            large_radius,
            half_length,
            inside,
        );
        self.add_round_wall(
            mantle,
            angular_speed,
            caps,
            cap_hole,
            material,
            motion,
            active_between,
        )
    }

    /// Adds an open-top box: a floor whose top face is centred at `floor_centre` and four side
    /// walls `height` high, inner widths `width_x` and `width_y` (m); returns the range
    /// (start, stop) of its five wall indices (floor, −x, +x, −y, +y). The whole box moves along
    /// `motion` (a shaker). Options as `plane`.
    #[pyo3(signature = (width_x, width_y, height, *, floor_centre = (0.0, 0.0, 0.0), material = None, motion = None, active_between = None), text_signature = "($self, /, width_x, width_y, height, *, floor_centre=(0.0, 0.0, 0.0), material=None, motion=None, active_between=None)")]
    #[allow(clippy::too_many_arguments)]
    fn box_container(
        &mut self,
        width_x: f32,
        width_y: f32,
        height: f32,
        floor_centre: V3,
        material: Option<&Bound<'_, PyAny>>,
        motion: Option<PyMotion>,
        active_between: Option<(f64, f64)>,
    ) -> PyResult<(usize, usize)> {
        let material = self.material_id("material", material)?;
        let container = BoxContainer {
            floor_centre: Vec3::from(floor_centre),
            width_x,
            width_y,
            height,
            material,
            motion: motion.map(|m| m.inner),
        };
        let start = self.builder.walls().len();
        for w in container.walls() {
            let w = match active_between {
                Some((from, until)) => w.active_between(from, until),
                None => w,
            };
            self.builder.wall(w);
        }
        Ok((start, self.builder.walls().len()))
    }

    /// Adds a triangle-mesh wall and returns its mesh index. `triangles`: the vertices
    /// (a, b, c) of each triangle at rest (m), shape (T, 3, 3), float64, float32 or integers; the winding
    /// does not matter. The mesh translates along `motion` (a `grains.Motion` without
    /// rotation) and turns at `angular_speed` rad/s (right-handed) about the line through
    /// `axis_point` along `axis`. Not capsules or ellipses (the other shapes on the CPU only); no
    /// restitution, spinning or rolling friction (refused at build). `material` as `plane`.
    #[pyo3(signature = (triangles, *, material = None, motion = None, angular_speed = None, axis = (0.0, 0.0, 1.0), axis_point = (0.0, 0.0, 0.0)), text_signature = "($self, /, triangles, *, material=None, motion=None, angular_speed=None, axis=(0.0, 0.0, 1.0), axis_point=(0.0, 0.0, 0.0))")]
    fn mesh(
        &mut self,
        triangles: &Bound<'_, PyAny>,
        material: Option<&Bound<'_, PyAny>>,
        motion: Option<PyMotion>,
        angular_speed: Option<f32>,
        axis: V3,
        axis_point: V3,
    ) -> PyResult<usize> {
        let np = triangles.py().import("numpy")?;
        let a = np.call_method1("asarray", (triangles,))?;
        let shape: Vec<usize> = a.getattr("shape")?.extract()?;
        if !matches!(shape.as_slice(), [_, 3, 3]) {
            return Err(PyValueError::new_err(format!(
                "triangles: expected an array of shape (T, 3, 3), got shape {}",
                a.getattr("shape")?.str()?
            )));
        }
        let flat = a.call_method1("reshape", ((shape[0], 9),))?;
        let t = rows::<9>("triangles (flattened to T × 9)", &flat)?;
        let triangles = t
            .into_iter()
            .map(|v| {
                [
                    Vec3::new(v[0], v[1], v[2]),
                    Vec3::new(v[3], v[4], v[5]),
                    Vec3::new(v[6], v[7], v[8]),
                ]
            })
            .collect();
        let mut mesh =
            MeshDesc::new(triangles).with_material(self.material_id("material", material)?);
        if let Some(m) = motion {
            mesh = mesh.moving(m.inner);
        }
        if let Some(w) = angular_speed {
            mesh = mesh.rotating(Vec3::from(axis_point), Vec3::from(axis), w);
        }
        Ok(self.builder.mesh(mesh))
    }
}
