//! ParaView frames in each encoding (`[output] frame_encoding`): a frame of grains and a frame
//! of contacts written as ASCII, raw binary and zlib read back by the small reader of
//! `vtk_reader.rs` give every array bit for bit; a run writes the same arrays in all three.

use crate::vtk_reader::{attr, read, VtkFile};
use grains::{Quat, Shape, Vec3};
use grains_app::output::contacts::{contacts_vtp, ContactFrame};
use grains_app::output::vtk::vtu;
use grains_app::output::writer::{FrameBounds, NO_GROUP};
use grains_app::output::{Frame, FrameEncoding};
use grains_app::runner::{run, RunOptions};
use grains_app::scene::Scene;

/// A reproducible stream of numbers in [-1, 1) (a linear congruential generator).
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32 / (1u64 << 23) as f32) - 1.0
    }
    fn vec3(&mut self) -> [f32; 3] {
        [self.next(), self.next(), self.next()]
    }
}

/// A frame of `n` grains with values of every kind: tiny and large, negative zeros, ids far
/// beyond 2³², and with `shapes` some bodies not spheres (with `orientation` also where
/// all are).
fn frame(n: usize, shapes: bool, orientation: bool) -> Frame {
    let mut r = Numbers(n as u64 + 7);
    let mut f = Frame {
        step: 1234,
        time: 0.1 + 1e-12,
        orientation,
        ..Frame::default()
    };
    for i in 0..n {
        let mut p = r.vec3();
        p[0] *= 1e-7;
        p[1] *= 1e5;
        if i % 7 == 0 {
            p[2] = -0.0;
        }
        f.positions.push(p);
        f.radii.push(1e-3 + r.next().abs() * 1e-2);
        f.velocities.push(r.vec3());
        f.angular_velocities.push(r.vec3().map(|x| x * 100.0));
        let q = Quat::from_xyzw(r.next(), r.next(), r.next(), 1.0).normalize();
        f.orientations.push(q.to_array());
        f.materials.push((i % 3) as u32);
        f.groups
            .push(if i % 5 == 0 { NO_GROUP } else { (i % 4) as u32 });
        f.ids.push((i as u64) << 35 | 3);
        if shapes {
            f.shapes.push(if i % 2 == 0 {
                Shape::Sphere
            } else {
                Shape::Ellipsoid {
                    semi_axes: Vec3::new(0.01, 0.02, 0.03),
                }
            });
            f.half_extents.push(r.vec3().map(|x| x.abs()));
        }
    }
    f
}

/// The little-endian bytes of `values`' components.
fn le<T: Copy, const C: usize>(values: &[[T; C]], bytes: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    values.iter().flatten().flat_map(|&v| bytes(v)).collect()
}

fn f32s<const C: usize>(v: &[[f32; C]]) -> Vec<u8> {
    le(v, |x: f32| x.to_le_bytes().to_vec())
}

fn i32s(v: impl IntoIterator<Item = i64>) -> Vec<u8> {
    v.into_iter()
        .flat_map(|x| (x as i32).to_le_bytes())
        .collect()
}

/// The little-endian bytes of `values` in the VTK integer type `ty`.
fn ints(ty: &str, values: impl IntoIterator<Item = i64>) -> Vec<u8> {
    let values = values.into_iter();
    match ty {
        "Int8" => values.flat_map(|x| (x as i8).to_le_bytes()).collect(),
        "UInt8" => values.flat_map(|x| (x as u8).to_le_bytes()).collect(),
        "Int16" => values.flat_map(|x| (x as i16).to_le_bytes()).collect(),
        "UInt16" => values.flat_map(|x| (x as u16).to_le_bytes()).collect(),
        "Int32" => values.flat_map(|x| (x as i32).to_le_bytes()).collect(),
        "UInt32" => values.flat_map(|x| (x as u32).to_le_bytes()).collect(),
        "Int64" => values.flat_map(|x| x.to_le_bytes()).collect(),
        "UInt64" => values.flat_map(|x| (x as u64).to_le_bytes()).collect(),
        other => panic!("not an integer type: {other}"),
    }
}

/// Checks that `file` holds `f`'s arrays, bit for bit, the integer arrays in the types named:
/// `(id, material, group)`.
fn check_frame(file: &VtkFile, f: &Frame, (id, material, group): (&str, &str, &str)) {
    let n = f.positions.len();
    assert_eq!(attr(&file.piece, "NumberOfPoints"), Some(&*n.to_string()));
    let time = file.array("TimeValue");
    assert_eq!(
        (time.ty.as_str(), &time.bytes[..]),
        ("Float64", &f.time.to_le_bytes()[..])
    );
    let want = [
        ("Points", "Float32", 3, f32s(&f.positions)),
        ("connectivity", "Int32", 1, i32s(0..n as i64)),
        ("offsets", "Int32", 1, i32s(1..=n as i64)),
        ("types", "UInt8", 1, vec![1; n]),
        (
            "radius",
            "Float32",
            1,
            f.radii.iter().flat_map(|r| r.to_le_bytes()).collect(),
        ),
        ("velocity", "Float32", 3, f32s(&f.velocities)),
        (
            "angular_velocity",
            "Float32",
            3,
            f32s(&f.angular_velocities),
        ),
        ("id", id, 1, ints(id, f.ids.iter().map(|&i| i as i64))),
        (
            "material",
            material,
            1,
            ints(material, f.materials.iter().map(|&m| m as i64)),
        ),
        (
            "group",
            group,
            1,
            ints(
                group,
                f.groups
                    .iter()
                    .map(|&g| if g == NO_GROUP { -1 } else { g as i64 }),
            ),
        ),
    ];
    for (name, ty, components, bytes) in want {
        let a = file.array(name);
        assert_eq!((a.ty.as_str(), a.components), (ty, components), "{name}");
        assert!(a.bytes == bytes, "{name}: the values differ");
    }
    let has = |name: &str| file.arrays.iter().any(|a| a.name == name);
    assert_eq!(
        has("orientation"),
        f.orientation || !f.shapes.is_empty(),
        "orientation written where some body is not a sphere, or when asked"
    );
    if has("orientation") {
        let a = file.array("orientation");
        assert_eq!((a.ty.as_str(), a.components), ("Float32", 4));
        assert!(a.bytes == f32s(&f.orientations), "orientation");
    }
    if f.shapes.is_empty() {
        assert!(file
            .arrays
            .iter()
            .all(|a| a.name != "shape" && a.name != "axes"));
    } else {
        let codes = i32s(f.shapes.iter().map(|&s| grains::shape_code(s) as i64));
        assert!(file.array("shape").bytes == codes, "shape");
        let axes: Vec<[f32; 9]> = (f.orientations.iter().zip(&f.half_extents))
            .map(|(q, e)| {
                let q = Quat::from_array(*q);
                let [x, y, z] = [Vec3::X * e[0], Vec3::Y * e[1], Vec3::Z * e[2]].map(|a| q * a);
                [x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z]
            })
            .collect();
        let a = file.array("axes");
        assert_eq!(a.components, 9);
        assert!(a.bytes == f32s(&axes), "axes");
    }
}

/// Each encoding's file of `f`, read back.
fn each_encoding(bytes: impl Fn(FrameEncoding) -> Vec<u8>) -> Vec<(FrameEncoding, VtkFile)> {
    FrameEncoding::ALL
        .into_iter()
        .map(|e| {
            let b = bytes(e);
            let is_binary = b.windows(13).any(|w| w == b"AppendedData ");
            assert_eq!(is_binary, e != FrameEncoding::Ascii, "{e:?}");
            (e, read(&b))
        })
        .collect()
}

/// Empty frames, one grain, a frame whose arrays end on a zlib block's end (8192 radii of 4
/// bytes: one 32 KiB block exactly) and one whose arrays end mid-block, with and without
/// shaped bodies, in all three encodings.
#[test]
fn grain_frames_read_back_bit_for_bit_in_every_encoding() {
    for (n, shapes, orientation) in [
        (0, false, false),
        (1, true, false),
        (8192, false, false),
        (5000, true, false),
        (300, false, true),
    ] {
        let f = frame(n, shapes, orientation);
        // The ids reach past 2³² from the second grain on.
        let id = if n > 1 { "UInt64" } else { "UInt32" };
        let types = (id, "UInt8", "Int8");
        for (e, file) in each_encoding(|e| vtu(&f, e)) {
            assert_eq!(attr(&file.root, "type"), Some("UnstructuredGrid"), "{e:?}");
            check_frame(&file, &f, types);
        }
    }
}

/// The integer arrays take the narrowest type that holds the frame's bounds (its own values,
/// or those the run gives for every piece of a frame): ids UInt32 below 2³², else UInt64;
/// materials UInt8, UInt16 or UInt32; groups Int8, Int16 or Int32 (−1 for none); a value
/// beyond its bound is clamped, never wrapped.
#[test]
fn integer_arrays_take_the_narrowest_type_that_holds_the_bounds() {
    let mut f = frame(40, false, false);
    f.ids = (0..40).map(|i| i * 1000).collect();
    f.materials = (0..40).map(|i| i % 5).collect();
    f.groups = (0..40)
        .map(|i| if i % 3 == 0 { NO_GROUP } else { i % 7 })
        .collect();
    let cases = [
        (None, ("UInt32", "UInt8", "Int8")),
        (Some((39_000, 255, 127)), ("UInt32", "UInt8", "Int8")),
        (Some((1 << 32, 256, 128)), ("UInt64", "UInt16", "Int16")),
        (
            Some((u32::MAX as u64, 65_536, 40_000)),
            ("UInt32", "UInt32", "Int32"),
        ),
    ];
    for (bounds, types) in cases {
        f.bounds = bounds.map(|(id, material, group)| FrameBounds {
            points: 40,
            id,
            material,
            group,
        });
        for (_, file) in each_encoding(|e| vtu(&f, e)) {
            check_frame(&file, &f, types);
        }
    }
    // Bounds below the values: the values are clamped to them.
    f.bounds = Some(FrameBounds {
        points: 40,
        id: 0,
        material: 2,
        group: 3,
    });
    let file = read(&vtu(&f, FrameEncoding::Binary));
    let material = &file.array("material").bytes;
    assert!(material.iter().all(|&m| m <= 2), "{material:?}");
    let group = &file.array("group").bytes;
    assert!(
        group.iter().all(|&g| (g as i8) >= -1 && (g as i8) <= 3),
        "{group:?}"
    );
}

/// A contact frame: a line per contact between body centres or to a wall's contact point,
/// with its force, normal force and gap, and each body's total force.
#[test]
fn contact_frames_read_back_bit_for_bit_in_every_encoding() {
    for (bodies, contacts) in [(0, 0), (3, 0), (4000, 9000)] {
        let mut r = Numbers(contacts as u64);
        let mut c = ContactFrame {
            step: 10,
            time: 0.02,
            points: (0..bodies).map(|_| r.vec3()).collect(),
            body_forces: (0..bodies).map(|_| r.vec3()).collect(),
            ..ContactFrame::default()
        };
        for k in 0..contacts {
            let a = k % bodies;
            let line = if k % 3 == 0 {
                c.points.push(r.vec3());
                [a, c.points.len() - 1]
            } else {
                [a, (k * 7 + 1) % bodies]
            };
            c.lines.push(line);
            c.forces.push(r.vec3());
            c.normal_forces.push(r.next().abs());
            c.gaps.push(r.next() * 1e-4);
        }
        let np = c.points.len();
        for (e, file) in each_encoding(|e| contacts_vtp(&c, e)) {
            assert_eq!(attr(&file.root, "type"), Some("PolyData"), "{e:?}");
            assert_eq!(attr(&file.piece, "NumberOfPoints"), Some(&*np.to_string()));
            assert_eq!(
                attr(&file.piece, "NumberOfLines"),
                Some(&*contacts.to_string())
            );
            let mut body_forces = c.body_forces.clone();
            body_forces.resize(np, [0.0; 3]);
            let flat = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
            let want = [
                ("Points", 3, f32s(&c.points)),
                (
                    "connectivity",
                    1,
                    i32s(c.lines.iter().flatten().map(|&i| i as i64)),
                ),
                ("offsets", 1, i32s((1..=contacts as i64).map(|k| 2 * k))),
                ("body_force", 3, f32s(&body_forces)),
                ("normal_force", 1, flat(&c.normal_forces)),
                ("force", 3, f32s(&c.forces)),
                ("gap", 1, flat(&c.gaps)),
            ];
            for (name, components, bytes) in want {
                let a = file.array(name);
                assert_eq!(a.components, components, "{e:?} {name}");
                assert!(a.bytes == bytes, "{e:?} {name}: the values differ");
            }
        }
    }
}

/// A run with `frame_encoding` set writes its frames in that encoding: the frames of a short
/// run in the three encodings hold the same arrays, zlib is the default and makes the smallest
/// files.
#[test]
fn a_run_writes_the_same_arrays_in_each_encoding() {
    let base = std::env::temp_dir().join(format!("grains-vtk-frames-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let scene = |encoding: Option<&str>| {
        let key = encoding.map_or(String::new(), |e| format!("frame_encoding = \"{e}\"\n"));
        let text = format!(
            "[scene]\nname = \"settle\"\nduration = 0.02\n\n[settings]\npreset = \"rigid\"\nh = 0.002\n\n\
             [[materials]]\nname = \"m\"\nfriction = 0.5\n\n[[containers]]\nkind = \"floor\"\nz = 0.0\n\n\
             [[bodies]]\ngenerator = \"lattice\"\nname = \"grains\"\nradius = 0.01\ndensity = 1000.0\n\
             origin = [0.0, 0.0, 0.011]\nspacing = 0.025\ncounts = [4, 3, 2]\n\n\
             [output]\nevery = 5\nformats = [\"vtu\", \"contacts\"]\n{key}"
        );
        let path = base.join(format!("{}.toml", encoding.unwrap_or("default")));
        std::fs::write(&path, text).unwrap();
        Scene::load(&path).unwrap()
    };
    let mut read_back = Vec::new();
    for encoding in [None, Some("zlib"), Some("binary"), Some("ascii")] {
        let out = base.join(encoding.unwrap_or("default"));
        let opts = RunOptions {
            threads: Some(1),
            progress: false,
            ..RunOptions::new(&out)
        };
        run(&scene(encoding), &opts).unwrap();
        let frame = std::fs::read(out.join("frames/frame_000000010.vtu")).unwrap();
        let contacts = std::fs::read(out.join("contacts/contacts_000000010.vtp")).unwrap();
        let pvd = std::fs::read_to_string(out.join("contacts.pvd")).unwrap();
        assert!(
            pvd.contains("file=\"contacts/contacts_000000010.vtp\""),
            "{pvd}"
        );
        read_back.push((encoding, frame, contacts));
    }
    let (_, default_frame, default_contacts) = &read_back[0];
    assert!(
        *default_frame == read_back[1].1 && *default_contacts == read_back[1].2,
        "the default is zlib"
    );
    let arrays = |b: &[u8]| -> Vec<(String, Vec<u8>)> {
        read(b)
            .arrays
            .into_iter()
            .map(|a| (a.name, a.bytes))
            .collect()
    };
    for (encoding, frame, contacts) in &read_back[2..] {
        assert_eq!(arrays(frame), arrays(default_frame), "{encoding:?}");
        assert_eq!(arrays(contacts), arrays(default_contacts), "{encoding:?}");
    }
    let sizes: Vec<usize> = read_back.iter().map(|(_, f, _)| f.len()).collect();
    assert!(
        sizes[1] < sizes[2],
        "zlib is smaller than binary: {sizes:?}"
    );
    let file = read(default_frame);
    assert_eq!(attr(&file.piece, "NumberOfPoints"), Some("24"));
    // Spheres: no orientation unless the scene asks for it (`frame_orientation`).
    assert!(file.arrays.iter().all(|a| a.name != "orientation"));
    std::fs::remove_dir_all(&base).unwrap();
}
