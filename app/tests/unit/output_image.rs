//! The unit tests of `src/output/image.rs`.

use grains_app::output::image::*;
use grains_app::output::Frame;
use grains_app::scene::Colour;
use std::time::{Duration, Instant};

fn red_pixels(c: &Canvas) -> usize {
    c.pixels.chunks(3).filter(|p| p == &[255, 0, 0]).count()
}

/// Pixels in the rectangle (x0, y0)–(x1, y1) (exclusive) that are not white.
fn inked(c: &Canvas, x0: u32, y0: u32, x1: u32, y1: u32) -> usize {
    (y0..y1.min(c.height))
        .flat_map(|y| (x0..x1.min(c.width)).map(move |x| (x, y)))
        .filter(|&(x, y)| c.get(x, y) != [255, 255, 255])
        .count()
}

fn style(colour: Colour) -> Style {
    Style {
        width: 400,
        colour,
        extent: Extent::Fixed(View {
            x0: -1.0,
            x1: 1.0,
            z0: 0.0,
            z1: 1.0,
        }),
        section: Section::None,
        time_decimals: 3,
        material_names: vec!["glass".into(), "steel".into()],
        group_names: vec!["small".into(), "nut".into()],
    }
}

fn two_bodies(time: f64) -> Frame {
    Frame {
        time,
        positions: vec![[-0.5, 0.0, 0.5], [0.5, 0.0, 0.5]],
        radii: vec![0.2, 0.2],
        velocities: vec![[0.0; 3], [1.0, 0.0, 0.0]],
        angular_velocities: vec![[0.0; 3]; 2],
        materials: vec![0, 1],
        groups: vec![0, 0],
        ..Frame::default()
    }
}

/// The colour at the centre of body `i` of a snapshot of `frame` drawn with `style`.
fn centre_colour(c: &Canvas, frame: &Frame, style: &Style, i: usize) -> [u8; 3] {
    let Extent::Fixed(v) = style.extent else {
        unreachable!()
    };
    let scale = style.width as f32 / (v.x1 - v.x0);
    let p = frame.positions[i];
    let x = ((p[0] - v.x0) * scale) as u32;
    let band = header_height(style.width) as f32;
    let y = (c.height as f32 - band - (p[2] - v.z0) * scale) as u32;
    c.get(x, y)
}

#[test]
fn far_coordinates_do_not_wrap_onto_the_canvas() {
    let mut c = Canvas::new(10, 10, [0, 0, 0]);
    // 2^32 + 3 wraps to 3 as u32: it must stay off the canvas, not index past its end.
    c.put((1i64 << 32) + 3, 5, [255, 0, 0]);
    c.put(3, (1i64 << 32) + 5, [255, 0, 0]);
    c.put(-1, 5, [255, 0, 0]);
    c.rect(-(1 << 40), -5, -1, 20, [255, 0, 0]);
    c.text(1 << 40, -(1 << 40), "far", 12.0, [255, 0, 0])
        .unwrap();
    assert_eq!(red_pixels(&c), 0);
}

#[test]
fn huge_far_and_non_finite_disks_and_lines_are_clipped_in_time() {
    let t = Instant::now();
    let mut c = Canvas::new(400, 300, [0, 0, 0]);
    // A body of radius 20 m at 1e5 px/m, one at −1e12 m, and non-finite ones.
    c.disk(200.0, 150.0, 2e6, [255, 0, 0]);
    assert_eq!(
        red_pixels(&c),
        400 * 300,
        "the disk covers the whole canvas"
    );
    let mut c = Canvas::new(400, 300, [0, 0, 0]);
    c.disk(-1e12, 150.0, 1e9, [255, 0, 0]);
    c.disk(f32::NAN, 150.0, 5.0, [255, 0, 0]);
    c.disk(10.0, f32::INFINITY, 5.0, [255, 0, 0]);
    c.disk(10.0, 10.0, f32::NAN, [255, 0, 0]);
    c.line(-1e12, 5.0, 1e12, 5.0, [255, 0, 0]);
    c.line(0.0, 0.0, f32::NAN, 5.0, [255, 0, 0]);
    c.line(-1e12, -1e12, -1e12, 1e12, [255, 0, 0]);
    assert_eq!(
        red_pixels(&c),
        400,
        "only the horizontal line's visible part is drawn"
    );
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t.elapsed()
    );
}

#[test]
fn a_frame_with_far_and_non_finite_bodies_draws_in_every_style() {
    let frame = Frame {
        positions: vec![[0.0, 0.0, 0.5], [0.8, 0.0, -1e12], [f32::NAN, 0.0, 0.0]],
        radii: vec![0.1, 20.0, 0.1],
        velocities: vec![[0.0; 3], [0.0, 0.0, -1e20], [f32::NAN; 3]],
        angular_velocities: vec![[0.0; 3]; 3],
        materials: vec![0, 1, 7],
        groups: vec![0, 1, grains_app::output::writer::NO_GROUP],
        walls: vec![grains_kernels::Wall {
            origin: [0.0, 0.0, -1e12, 0.0],
            normal: [0.0, 0.0, 1.0, 0.0],
            u: [1.0, 0.0, 0.0, 1.0],
            v: [0.0, 1.0, 0.0, 1.0],
            velocity: [0.0; 4],
        }],
        ..Frame::default()
    };
    let t = Instant::now();
    for colour in [Colour::Size, Colour::Speed, Colour::Material, Colour::Group] {
        for extent in [style(colour).extent, Extent::Bodies] {
            for section in [Section::None, Section::Largest, Section::At(0.05)] {
                let s = Style {
                    width: 800,
                    extent,
                    section,
                    ..style(colour)
                };
                let c = snapshot(&frame, &s).unwrap();
                assert_eq!(c.pixels.len(), (c.width * c.height * 3) as usize);
                assert!(c.height <= 8192 + 2 * header_height(800));
            }
        }
    }
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "took {:?}",
        t.elapsed()
    );
}

#[test]
fn snapshots_at_two_times_differ_only_in_the_time_stamp() {
    for colour in [Colour::Size, Colour::Speed, Colour::Material] {
        let s = style(colour);
        let a = snapshot(&two_bodies(1.25), &s).unwrap();
        let b = snapshot(&two_bodies(2.5), &s).unwrap();
        assert_eq!((a.width, a.height), (b.width, b.height));
        let (x0, y0, x1, y1) = time_stamp_region(s.width);
        let mut inside = 0;
        for y in 0..a.height {
            for x in 0..a.width {
                if a.get(x, y) != b.get(x, y) {
                    let within = (x0..x1).contains(&x) && (y0..y1).contains(&y);
                    assert!(
                        within,
                        "{colour:?}: pixel ({x}, {y}) differs outside the stamp"
                    );
                    inside += 1;
                }
            }
        }
        assert!(
            inside > 20,
            "{colour:?}: the time stamps look the same ({inside} px)"
        );
        assert!(inked(&a, x0, y0, x1, y1) > 50, "no time stamp drawn");
    }
}

#[test]
fn grains_past_the_region_shown_stay_out_of_the_header_and_footer() {
    let s = style(Colour::Material);
    let a = snapshot(&two_bodies(0.5), &s).unwrap();
    let mut frame = two_bodies(0.5);
    // Across the top edge and across the bottom edge of the region shown.
    for z in [1.0, 0.0] {
        frame.positions.push([-0.9, 0.0, z]);
        frame.radii.push(0.3);
        frame.velocities.push([0.0; 3]);
        frame.angular_velocities.push([0.0; 3]);
        frame.materials.push(0);
        frame.groups.push(0);
    }
    let b = snapshot(&frame, &s).unwrap();
    let band = header_height(s.width);
    for y in (0..band).chain(a.height - band..a.height) {
        for x in 0..a.width {
            assert_eq!(a.get(x, y), b.get(x, y), "pixel ({x}, {y})");
        }
    }
    assert_ne!(a.pixels, b.pixels, "the new grains are drawn");
}

#[test]
fn colour_by_material_and_group_tells_the_bodies_apart() {
    let frame = two_bodies(0.0);
    let s = style(Colour::Material);
    let c = snapshot(&frame, &s).unwrap();
    let (a, b) = (
        centre_colour(&c, &frame, &s, 0),
        centre_colour(&c, &frame, &s, 1),
    );
    assert_eq!(a, category_colour(0));
    assert_eq!(b, category_colour(1));
    assert_ne!(a, b, "two materials, two colours");
    // Both bodies are in group 0: one colour.
    let s = style(Colour::Group);
    let c = snapshot(&frame, &s).unwrap();
    assert_eq!(
        centre_colour(&c, &frame, &s, 0),
        centre_colour(&c, &frame, &s, 1)
    );
}

#[test]
fn a_snapshot_by_speed_has_a_colour_scale_and_a_scale_bar() {
    let frame = two_bodies(0.0);
    let s = style(Colour::Speed);
    let c = snapshot(&frame, &s).unwrap();
    let band = header_height(s.width);
    // The colour scale spans the colour map from blue to red right of the time stamp.
    let row: Vec<[u8; 3]> = (s.width / 3..s.width).map(|x| c.get(x, band / 2)).collect();
    assert!(row.contains(&colour_map(0.0)), "no blue end of the scale");
    assert!(row.contains(&colour_map(1.0)), "no red end of the scale");
    // The scale bar and its length at the footer's left, the view at its right.
    let foot = c.height - band;
    assert!(inked(&c, 0, foot + 1, s.width / 2, c.height) > 50);
    assert!(inked(&c, s.width / 2, foot + 1, s.width, c.height) > 50);
    // The slow body is blue, the fast one red.
    assert_eq!(centre_colour(&c, &frame, &s, 0), colour_map(0.0));
    assert_eq!(centre_colour(&c, &frame, &s, 1), colour_map(1.0));
}

#[test]
fn the_bodies_extent_follows_the_bodies() {
    let mut frame = two_bodies(0.0);
    let v = View::of_bodies(&frame).unwrap();
    assert!(v.x0 < -0.7 && v.x1 > 0.7 && v.z0 < 0.3 && v.z1 > 0.7);
    frame.positions[1][2] = 10.0;
    assert!(View::of_bodies(&frame).unwrap().z1 > 10.2);
    frame.positions = vec![[f32::NAN; 3]; 2];
    assert_eq!(View::of_bodies(&frame), None);
}

#[test]
fn a_plot_has_a_title_axis_labels_and_a_legend_when_several_series_share_it() {
    let times: Vec<f64> = (0..50).map(|k| k as f64 * 0.1).collect();
    let a: Vec<f64> = times.iter().map(|t| t.sin()).collect();
    let b: Vec<f64> = times.iter().map(|t| t.cos()).collect();
    let one = [Series {
        name: "a",
        values: &a,
    }];
    let bare = plot("", "", &times, &one, 800, 400).unwrap();
    let full = plot("a: height", "height (m)", &times, &one, 800, 400).unwrap();
    // The title band on top, the y label at the left edge, the x label at the bottom.
    let regions = [
        ("title", 200, 0, 600, 30),
        ("y label", 0, 100, 25, 300),
        ("x label", 300, 368, 500, 400),
    ];
    for (what, x0, y0, x1, y1) in regions {
        let (with, without) = (inked(&full, x0, y0, x1, y1), inked(&bare, x0, y0, x1, y1));
        assert!(
            with > 30 && without == 0,
            "{what}: {with} px with, {without} without"
        );
    }
    // Tick labels: ink left of the plotting area, beside the y axis, in both.
    assert!(inked(&bare, 40, 60, 90, 330) > 50);
    // A legend box (its border) only when two series share the plot.
    let two = [
        Series {
            name: "a",
            values: &a,
        },
        Series {
            name: "b",
            values: &b,
        },
    ];
    let shared = plot("heights", "height (m)", &times, &two, 800, 400).unwrap();
    let border = |c: &Canvas| c.pixels.chunks(3).filter(|p| p == &[90, 90, 160]).count();
    assert_eq!(border(&full), 0);
    assert!(border(&shared) > 40, "no legend");
}

#[test]
fn a_saved_plot_decodes_as_a_png_of_its_size() {
    let dir = std::env::temp_dir().join(format!("grains-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plot.png");
    let times = [0.0, 1.0, f64::NAN, 3.0];
    let values = [1.0, f64::INFINITY, 2.0, 3.0];
    let series = [Series {
        name: "x",
        values: &values,
    }];
    let c = plot(
        "x: contacts",
        "active contacts (count)",
        &times,
        &series,
        800,
        400,
    )
    .unwrap();
    c.save(&path).unwrap();
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (800, 400));
    assert_eq!(&buf[..info.buffer_size()], &c.pixels[..]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plots_without_finite_values_still_draw() {
    let times = [f64::NAN, f64::NAN];
    let series = [Series {
        name: "x",
        values: &[f64::NAN, f64::NAN],
    }];
    plot("x", "y (m)", &times, &series, 800, 400).unwrap();
    plot("x", "y (m)", &[], &[], 800, 400).unwrap();
    let flat = [Series {
        name: "x",
        values: &[2.0, 2.0],
    }];
    plot("x", "y (m)", &[0.0, 1.0], &flat, 800, 400).unwrap();
}

/// Threads standing for the ranks of a distributed run, for [`snapshot_of_parts`]: each
/// reduction is every thread's values deposited in turn, then, once all have, folded and read.
struct Threads {
    gate: std::sync::Barrier,
    floats: std::sync::Mutex<Vec<Vec<f64>>>,
    keys: std::sync::Mutex<Vec<Vec<u64>>>,
}

impl Threads {
    fn new(parts: usize) -> Threads {
        Threads {
            gate: std::sync::Barrier::new(parts),
            floats: std::sync::Mutex::new(Vec::new()),
            keys: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Every thread's `values` together: deposited, then read once all have, then cleared.
    fn all<T: Clone>(&self, store: &std::sync::Mutex<Vec<Vec<T>>>, values: &[T]) -> Vec<Vec<T>> {
        store.lock().unwrap().push(values.to_vec());
        self.gate.wait();
        let all = store.lock().unwrap().clone();
        if self.gate.wait().is_leader() {
            store.lock().unwrap().clear();
        }
        self.gate.wait();
        all
    }
}

impl Parts for Threads {
    fn max(&self, values: &mut [f64]) {
        for other in self.all(&self.floats, values) {
            for (v, o) in values.iter_mut().zip(other) {
                *v = v.max(o);
            }
        }
    }
    fn sum(&self, values: &mut [f64]) {
        let all = self.all(&self.floats, values);
        for (k, v) in values.iter_mut().enumerate() {
            *v = all.iter().map(|a| a[k]).sum();
        }
    }
    fn select(&self, values: &mut [f64], k: u64) -> Option<f64> {
        let mut every: Vec<f64> = self.all(&self.floats, values).concat();
        every.sort_by(f64::total_cmp);
        every.get(k as usize).copied()
    }
    fn max_keys(&self, values: &mut [u64]) {
        for other in self.all(&self.keys, values) {
            for (v, o) in values.iter_mut().zip(other) {
                *v = (*v).max(o);
            }
        }
    }
}

/// A bed of 600 overlapping grains of three sizes (a few large ones) and two materials, with
/// bodies at equal depths, dealt out at random to `parts` parts (each part's grains anywhere in
/// the bed, so that most pixels are contested between parts).
fn dealt(parts: usize) -> (Frame, Vec<Frame>) {
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as f32 / (1u64 << 31) as f32
    };
    let mut whole = Frame {
        time: 0.25,
        png: true,
        ..Frame::default()
    };
    for i in 0..600u64 {
        let y = if i % 7 == 0 { 0.0 } else { next() - 0.5 };
        whole.positions.push([2.0 * next() - 1.0, y, next()]);
        whole
            .radii
            .push([0.03, 0.05, 0.05, 0.05, 0.2][i as usize % 5]);
        whole.velocities.push([next(), 0.0, next()]);
        whole.materials.push((i % 2) as u32);
        whole.groups.push((i % 3 == 0) as u32);
        whole.ids.push(i);
    }
    let mut pieces = vec![whole.clone(); parts];
    for p in &mut pieces {
        (p.positions, p.radii, p.velocities) = (Vec::new(), Vec::new(), Vec::new());
        (p.materials, p.groups, p.ids) = (Vec::new(), Vec::new(), Vec::new());
    }
    for i in 0..whole.ids.len() {
        let p = &mut pieces[(next() * parts as f32) as usize % parts];
        p.positions.push(whole.positions[i]);
        p.radii.push(whole.radii[i]);
        p.velocities.push(whole.velocities[i]);
        p.materials.push(whole.materials[i]);
        p.groups.push(whole.groups[i]);
        p.ids.push(whole.ids[i]);
    }
    (whole, pieces)
}

/// Parts that each paint their own grains and composite them draw the snapshot of the whole
/// bed pixel for pixel, in every colouring, with the region shown set by the bodies, and in a
/// section through the largest grain: 3 parts, the bed's 600 grains dealt out at random. One
/// part's picture alone differs (the check can fail).
#[test]
fn parts_composited_draw_the_whole_beds_snapshot() {
    let (whole, pieces) = dealt(3);
    for colour in [Colour::Size, Colour::Speed, Colour::Material, Colour::Group] {
        for (extent, section) in [
            (style(colour).extent, Section::None),
            (Extent::Bodies, Section::None),
            (Extent::Bodies, Section::Largest),
        ] {
            let style = Style {
                extent,
                section,
                ..style(colour)
            };
            let alone = snapshot(&whole, &style).unwrap();
            let threads = Threads::new(pieces.len());
            let pictures: Vec<Option<Canvas>> = std::thread::scope(|s| {
                let runs: Vec<_> = (pieces.iter().enumerate())
                    .map(|(k, p)| {
                        let (style, threads) = (&style, &threads);
                        s.spawn(move || snapshot_of_parts(p, style, threads, k == 0).unwrap())
                    })
                    .collect();
                runs.into_iter().map(|r| r.join().unwrap()).collect()
            });
            assert!(pictures[1..].iter().all(Option::is_none), "one picture");
            let joined = pictures[0].as_ref().expect("the first part's picture");
            let what = format!("{colour:?}, {extent:?}, {section:?}");
            assert_eq!(
                (joined.width, joined.height),
                (alone.width, alone.height),
                "{what}"
            );
            assert!(joined.pixels == alone.pixels, "{what}: the pictures differ");
            let one = snapshot(&pieces[0], &style).unwrap();
            assert!(
                one.pixels != alone.pixels,
                "{what}: one part draws the whole bed"
            );
        }
    }
}
