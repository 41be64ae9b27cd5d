//! PNG pictures: snapshots of the grains (the x–z plane seen from −y, or a section of it) with
//! the simulated time, a colour scale and a scale bar, and plots of observables against time
//! with a title, labelled axes and a legend. Disks and lines are drawn pixel by pixel, clipped to
//! the canvas; text, axes and legends are drawn by `plotters` in DejaVu Sans, which the program
//! carries (the `dejavu` crate), so no system font is needed.

use super::outline::{triangle_section, wall_section};
use super::writer::Frame;
use crate::scene::Colour;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::io;
use std::path::Path;
use std::sync::Once;

/// An RGB image in memory.
pub struct Canvas {
    /// Width (px).
    pub width: u32,
    /// Height (px).
    pub height: u32,
    /// Row-major RGB bytes, top row first.
    pub pixels: Vec<u8>,
}

/// The family name the embedded font is registered under.
const FONT: &str = "grains-sans";

/// The embedded font at `size` px, registered with `plotters` on first use.
fn font(size: f64) -> TextStyle<'static> {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The bytes are the DejaVu Sans file the crate carries; a font that failed to load
        // would make every text draw fail, which the tests of this file catch.
        let _ = register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
    });
    (FONT, size).into_font().into()
}

/// An error of `plotters` as an I/O error, so that a failed picture fails the run's write.
fn drawing<E: std::fmt::Display>(e: E) -> io::Error {
    io::Error::other(format!("drawing a picture: {e}"))
}

impl Canvas {
    /// A canvas filled with `bg`.
    pub fn new(width: u32, height: u32, bg: [u8; 3]) -> Canvas {
        let mut pixels = Vec::with_capacity((width * height * 3) as usize);
        for _ in 0..width * height {
            pixels.extend_from_slice(&bg);
        }
        Canvas {
            width,
            height,
            pixels,
        }
    }

    /// The canvas as a `plotters` drawing area (for text, axes and legends).
    fn area(&mut self) -> DrawingArea<BitMapBackend<'_>, plotters::coord::Shift> {
        BitMapBackend::with_buffer(&mut self.pixels, (self.width, self.height)).into_drawing_area()
    }

    /// Sets pixel (x, y), ignoring those off the canvas.
    pub fn put(&mut self, x: i64, y: i64, c: [u8; 3]) {
        // Compared as i64: a cast to u32 first would wrap a far coordinate onto the canvas.
        if (0..self.width as i64).contains(&x) && (0..self.height as i64).contains(&y) {
            let i = (y as usize * self.width as usize + x as usize) * 3;
            self.pixels[i..i + 3].copy_from_slice(&c);
        }
    }

    /// The colour of pixel (x, y), which must be on the canvas.
    pub fn get(&self, x: u32, y: u32) -> [u8; 3] {
        let i = (y as usize * self.width as usize + x as usize) * 3;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
    }

    /// Fills the rectangle of pixels from (x0, y0) to (x1, y1), exclusive, clipped to the canvas.
    pub fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: [u8; 3]) {
        for y in y0.max(0)..y1.min(self.height as i64) {
            for x in x0.max(0)..x1.min(self.width as i64) {
                self.put(x, y, c);
            }
        }
    }

    /// A filled disk of centre (cx, cy) and radius r (px); only its part on the canvas is
    /// visited, so a huge or far disk costs no more than the canvas, and a non-finite one is
    /// not drawn.
    pub fn disk(&mut self, cx: f32, cy: f32, r: f32, c: [u8; 3]) {
        self.disk_marked(cx, cy, r, c, |_| {});
    }

    /// [`Canvas::disk`], calling `mark` with the index (y × width + x) of every pixel it sets.
    fn disk_marked(&mut self, cx: f32, cy: f32, r: f32, c: [u8; 3], mut mark: impl FnMut(usize)) {
        if !(cx.is_finite() && cy.is_finite() && r.is_finite()) {
            return;
        }
        let r = r.max(0.7);
        let (x0, x1) = clip_span(cx - r, cx + r, self.width);
        let (y0, y1) = clip_span(cy - r, cy + r, self.height);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
                let d2 = dx * dx + dy * dy;
                if d2 <= r * r {
                    // Darker rim so touching grains stay distinct.
                    let shade = if d2 > (r - 1.0).max(0.0).powi(2) && r > 2.5 {
                        0.6
                    } else {
                        1.0
                    };
                    self.put(x, y, c.map(|v| (v as f32 * shade) as u8));
                    mark(y as usize * self.width as usize + x as usize);
                }
            }
        }
    }

    /// A straight line from (x0, y0) to (x1, y1) (px), cut to the canvas first (so a far end
    /// costs nothing); a line with a non-finite end is not drawn.
    pub fn line(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, c: [u8; 3]) {
        let Some((x0, y0, x1, y1)) = self.clip_line(x0, y0, x1, y1) else {
            return;
        };
        let n = (x1 - x0).abs().max((y1 - y0).abs()).ceil().max(1.0) as i64;
        for k in 0..=n {
            let t = k as f32 / n as f32;
            self.put(
                (x0 + t * (x1 - x0)).round() as i64,
                (y0 + t * (y1 - y0)).round() as i64,
                c,
            );
        }
    }

    /// The part of the segment (x0, y0)–(x1, y1) within a pixel of the canvas
    /// (Liang–Barsky), or `None` when it misses the canvas or an end is not finite.
    fn clip_line(&self, x0: f32, y0: f32, x1: f32, y1: f32) -> Option<(f32, f32, f32, f32)> {
        if ![x0, y0, x1, y1].iter().all(|v| v.is_finite()) {
            return None;
        }
        // In f64, so that cutting a far end does not lose the near one to rounding.
        let (x0, y0, x1, y1) = (x0 as f64, y0 as f64, x1 as f64, y1 as f64);
        let (dx, dy) = (x1 - x0, y1 - y0);
        let (w, h) = (self.width as f64 + 1.0, self.height as f64 + 1.0);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [(-dx, x0 + 1.0), (dx, w - x0), (-dy, y0 + 1.0), (dy, h - y0)] {
            if p == 0.0 {
                if q < 0.0 {
                    return None;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
            }
        }
        let at = |t: f64| ((x0 + t * dx) as f32, (y0 + t * dy) as f32);
        let ((a, b), (c, d)) = (at(t0), at(t1));
        (t0 <= t1).then_some((a, b, c, d))
    }

    /// Writes `text` in the embedded font, `size` px high, with its top-left corner at (x, y);
    /// returns its width (px). What falls off the canvas is not drawn.
    pub fn text(&mut self, x: i64, y: i64, text: &str, size: f64, c: [u8; 3]) -> io::Result<i64> {
        let colour = RGBColor(c[0], c[1], c[2]);
        let style = font(size).color(&colour);
        let area = self.area();
        let (w, _) = area.estimate_text_size(text, &style).map_err(drawing)?;
        let clamp = |v: i64| v.clamp(-(1 << 20), 1 << 20) as i32;
        area.draw_text(text, &style, (clamp(x), clamp(y)))
            .map_err(drawing)?;
        area.present().map_err(drawing)?;
        Ok(w as i64)
    }

    /// Width (px) of `text` in the embedded font at `size` px.
    pub fn text_width(&mut self, text: &str, size: f64) -> io::Result<i64> {
        let (w, _) = self
            .area()
            .estimate_text_size(text, &font(size))
            .map_err(drawing)?;
        Ok(w as i64)
    }

    /// Saves the canvas as an 8-bit RGB PNG.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        let mut bytes = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut bytes, self.width, self.height);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().map_err(io::Error::other)?;
            w.write_image_data(&self.pixels).map_err(io::Error::other)?;
        }
        super::write_atomic(path, &bytes)
    }
}

/// The pixels from `lo` to `hi` (px, inclusive, rounded outwards) that lie on a canvas side of
/// `len` pixels; an empty span (first > last) when none do.
fn clip_span(lo: f32, hi: f32, len: u32) -> (i64, i64) {
    let a = lo.floor().max(0.0);
    let b = hi.ceil().min(len as f32 - 1.0);
    (a as i64, b as i64)
}

/// Colour map from blue (t = 0) through green to red (t = 1).
pub fn colour_map(t: f32) -> [u8; 3] {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let r = (1.5 - (4.0 * t - 3.0).abs()).clamp(0.0, 1.0);
    let g = (1.5 - (4.0 * t - 2.0).abs()).clamp(0.0, 1.0);
    let b = (1.5 - (4.0 * t - 1.0).abs()).clamp(0.0, 1.0);
    [(r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8]
}

/// Ten well-separated colours for materials, groups and plot series, used in turn.
const PALETTE: [[u8; 3]; 10] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [127, 127, 127],
    [188, 189, 34],
    [23, 190, 207],
];

/// The palette's colour for category `k` (a material or group index).
pub fn category_colour(k: usize) -> [u8; 3] {
    PALETTE[k % PALETTE.len()]
}

/// The region of the x–z plane a snapshot shows (m): x from `x0` to `x1`, z from `z0` to `z1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Left edge (m).
    pub x0: f32,
    /// Right edge (m).
    pub x1: f32,
    /// Bottom edge (m).
    pub z0: f32,
    /// Top edge (m).
    pub z1: f32,
}

impl View {
    /// The bodies' extent in x and z (their finite centres ± radii) with a margin of 5 % of its
    /// width on every side; `None` when no body is finite.
    pub fn of_bodies(frame: &Frame) -> Option<View> {
        View::of_parts(frame, &Whole)
    }

    /// [`View::of_bodies`] of every part's bodies together, each part giving its `frame`.
    fn of_parts(frame: &Frame, parts: &dyn Parts) -> Option<View> {
        let mut v = [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        for (p, &r) in frame.positions.iter().zip(&frame.radii) {
            if !(p[0].is_finite() && p[2].is_finite() && r.is_finite()) {
                continue;
            }
            v = [
                v[0].min(p[0] - r),
                v[1].max(p[0] + r),
                v[2].min(p[2] - r),
                v[3].max(p[2] + r),
            ];
        }
        let mut far = [-v[0] as f64, v[1] as f64, -v[2] as f64, v[3] as f64];
        parts.max(&mut far);
        let [x0, x1, z0, z1] = [-far[0] as f32, far[1] as f32, -far[2] as f32, far[3] as f32];
        if x0 > x1 {
            return None;
        }
        let m = 0.05 * (x1 - x0).max(z1 - z0).max(1e-6);
        Some(View {
            x0: x0 - m,
            x1: x1 + m,
            z0: z0 - m,
            z1: z1 + m,
        })
    }
}

/// The reductions a snapshot takes over the parts the bodies are held in (the ranks of a
/// distributed run, each giving the frame of its own bodies), each a call every part makes
/// together; [`Whole`] where one frame holds every body.
pub trait Parts {
    /// Each of `values` the largest over the parts, in place.
    fn max(&self, values: &mut [f64]);
    /// Each of `values` summed over the parts, in place.
    fn sum(&self, values: &mut [f64]);
    /// The `k`th smallest (from 0, in [`f64::total_cmp`]'s order) of every part's `values`
    /// together; `None` where they are no more than `k`.
    fn select(&self, values: &mut [f64], k: u64) -> Option<f64>;
    /// Each of `values` the largest over the parts, in place, by a reduction whose traffic does
    /// not grow with the number of parts (an image's pixels).
    fn max_keys(&self, values: &mut [u64]);
}

/// The ranks of a distributed world, each giving the frame of the bodies it owns; a world that
/// steps every body itself is one part.
impl Parts for grains::world::World {
    fn max(&self, values: &mut [f64]) {
        self.max_over_ranks(values);
    }
    fn sum(&self, values: &mut [f64]) {
        self.sum_over_ranks(values);
    }
    fn select(&self, values: &mut [f64], k: u64) -> Option<f64> {
        self.select_over_ranks(values, k)
    }
    fn max_keys(&self, values: &mut [u64]) {
        self.max_keys_over_ranks(values);
    }
}

/// One frame holding every body: the reductions leave the values as they are.
pub struct Whole;

impl Parts for Whole {
    fn max(&self, _values: &mut [f64]) {}
    fn sum(&self, _values: &mut [f64]) {}
    fn select(&self, values: &mut [f64], k: u64) -> Option<f64> {
        values.sort_by(f64::total_cmp);
        values.get(usize::try_from(k).ok()?).copied()
    }
    fn max_keys(&self, _values: &mut [u64]) {}
}

/// The region snapshots show.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Extent {
    /// The same region in every snapshot, set from the start state.
    Fixed(View),
    /// The bodies' extent in each frame ([`View::of_bodies`]).
    Bodies,
}

/// Which grains a snapshot draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Section {
    /// All of them, projected on the x–z plane (nearest drawn last).
    None,
    /// Their cuts by the plane y = const through the largest body's centre in each frame.
    Largest,
    /// Their cuts by the plane at this y (m).
    At(f32),
}

/// How snapshots are drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Style {
    /// Width (px).
    pub width: u32,
    /// Colouring.
    pub colour: Colour,
    /// The region shown.
    pub extent: Extent,
    /// Projection or section.
    pub section: Section,
    /// Decimals of the time stamp (at least 3; more when h needs them).
    pub time_decimals: usize,
    /// Names of the materials, by index.
    pub material_names: Vec<String>,
    /// Names of the body groups (the `[[bodies]]` tables), by index.
    pub group_names: Vec<String>,
}

/// The height (px) of a snapshot's header band, which holds the time stamp and the colour
/// scale, and of its footer band, which holds the scale bar and what the view shows, for an
/// image `width` px wide.
pub fn header_height(width: u32) -> u32 {
    (width / 25).max(20)
}

/// The rectangle (x0, y0, x1, y1, exclusive, px) in which a snapshot `width` px wide writes its
/// time stamp: the left third of the header band. Snapshots of the same bodies at different
/// times differ only there.
pub fn time_stamp_region(width: u32) -> (u32, u32, u32, u32) {
    (0, 0, width / 3, header_height(width))
}

/// Body `i`'s id in `frame`: its `ids` entry, or its index in a frame without ids (one that
/// holds every body in id order).
fn id_of(frame: &Frame, i: usize) -> u64 {
    frame.ids.get(i).copied().unwrap_or(i as u64)
}

/// The height (m) of the largest body's centre (the first of equal ones by id) among every
/// part's bodies, each part giving its `frame`; `None` without bodies.
fn largest_y(frame: &Frame, parts: &dyn Parts) -> Option<f32> {
    let n = frame.radii.len();
    let local = (0..n).max_by(|&a, &b| frame.radii[a].total_cmp(&frame.radii[b]).then(b.cmp(&a)));
    let mut r = [local.map_or(f64::NEG_INFINITY, |i| frame.radii[i] as f64)];
    parts.max(&mut r);
    // The lowest id among the largest bodies, then the height of that body's centre.
    let first = local.filter(|&i| frame.radii[i] as f64 == r[0]);
    let mut id = [first.map_or(f64::NEG_INFINITY, |i| -(id_of(frame, i) as f64))];
    parts.max(&mut id);
    let mine = first.filter(|&i| -(id_of(frame, i) as f64) == id[0]);
    let mut y = [mine.map_or(f64::NEG_INFINITY, |i| frame.positions[i][1] as f64)];
    parts.max(&mut y);
    y[0].is_finite().then_some(y[0] as f32)
}

/// What of a snapshot depends on every body: the region shown, the section's plane and the
/// colour scheme's range; with the canvas's layout.
struct Plan {
    view: View,
    scale: f32,
    band: u32,
    body_h: u32,
    section: Option<f32>,
    scheme: Scheme,
}

impl Plan {
    /// The plan of a snapshot of every part's bodies together, each part giving its `frame`.
    fn of(frame: &Frame, style: &Style, parts: &dyn Parts) -> Plan {
        let width = style.width;
        let view = match style.extent {
            Extent::Fixed(v) => v,
            Extent::Bodies => View::of_parts(frame, parts).unwrap_or(View {
                x0: -1.0,
                x1: 1.0,
                z0: -1.0,
                z1: 1.0,
            }),
        };
        let scale = width as f32 / (view.x1 - view.x0);
        let section = match style.section {
            Section::None => None,
            Section::Largest => Some(largest_y(frame, parts).unwrap_or(0.0)),
            Section::At(y) => Some(y),
        };
        Plan {
            view,
            scale,
            band: header_height(width),
            body_h: ((view.z1 - view.z0) * scale).ceil().clamp(16.0, 8192.0) as u32,
            section,
            scheme: Scheme::new(frame, style, parts),
        }
    }

    /// A blank canvas of the snapshot's size.
    fn canvas(&self, style: &Style) -> Canvas {
        Canvas::new(
            style.width,
            self.band + self.body_h + self.band,
            [255, 255, 255],
        )
    }

    /// Draws `frame`'s bodies on `c`, farthest first (in y, then by id; each one's cut by the
    /// section's plane in a section), calling `mark(body, pixel)` for every pixel drawn.
    fn paint(&self, c: &mut Canvas, frame: &Frame, mut mark: impl FnMut(usize, usize)) {
        let (view, scale) = (self.view, self.scale);
        let px = |x: f32| (x - view.x0) * scale;
        let pz = |z: f32| (self.band + self.body_h) as f32 - (z - view.z0) * scale;
        let mut order: Vec<usize> = (0..frame.positions.len()).collect();
        order.sort_by(|&a, &b| frame.positions[b][1].total_cmp(&frame.positions[a][1]));
        for i in order {
            let p = frame.positions[i];
            // In a section, each sphere is drawn as its cut by the plane y = y_cut.
            let r = match self.section {
                Some(y) => {
                    let (r, dy) = (frame.radii[i], p[1] - y);
                    if dy.abs() >= r {
                        continue;
                    }
                    (r * r - dy * dy).sqrt()
                }
                None => frame.radii[i],
            };
            let colour = self.scheme.colour(frame, i);
            c.disk_marked(px(p[0]), pz(p[2]), r * scale, colour, |pixel| {
                mark(i, pixel)
            });
        }
    }

    /// The walls' cuts, the bands with the time stamp and the scale, on a canvas whose bodies
    /// are drawn.
    fn finish(&self, c: &mut Canvas, frame: &Frame, style: &Style) -> io::Result<()> {
        let (view, scale, band) = (self.view, self.scale, self.band);
        let px = |x: f32| (x - view.x0) * scale;
        let pz = |z: f32| (band + self.body_h) as f32 - (z - view.z0) * scale;
        // The walls where they cut the section's plane (y = 0 in a side view), in grey;
        // unbounded ones as far as a few views across (the canvas cuts them anyway).
        let reach = 4.0 * (view.x1 - view.x0).max(view.z1 - view.z0)
            + [view.x0, view.x1, view.z0, view.z1]
                .map(f32::abs)
                .into_iter()
                .fold(0.0, f32::max);
        let y_cut = self.section.unwrap_or(0.0);
        let cuts = frame
            .walls
            .iter()
            .flat_map(|w| wall_section(w, y_cut, reach))
            .chain(
                frame
                    .triangles
                    .iter()
                    .filter_map(|t| triangle_section(t, y_cut)),
            );
        for (a, b) in cuts {
            c.line(px(a.x), pz(a.y), px(b.x), pz(b.y), [90, 90, 90]);
        }
        // Grains reaching past the region shown are cut at its edges.
        let (w, b, h) = (style.width as i64, band as i64, c.height as i64);
        c.rect(0, 0, w, b, [255, 255, 255]);
        c.rect(0, h - b, w, h, [255, 255, 255]);
        header(c, frame.time, style, &self.scheme)?;
        let seen = match self.section {
            Some(y) => format!("section at y = {} m", tick(y as f64)),
            None => "side view, seen from −y".to_string(),
        };
        footer(c, scale, &seen)
    }
}

/// A snapshot of a frame: the grains in the x–z plane seen from −y, coloured as `style` says,
/// with the walls' cuts by the view's plane in grey (see [`wall_section`]); above them a header band
/// with the simulated time and the colour scale or the legend of materials or groups, below
/// them a footer band with a scale bar in metres and the view (side, or the section's y). Drawing is clipped to the canvas, so a huge or far body costs no more than the
/// canvas.
pub fn snapshot(frame: &Frame, style: &Style) -> io::Result<Canvas> {
    let plan = Plan::of(frame, style, &Whole);
    let mut c = plan.canvas(style);
    plan.paint(&mut c, frame, |_, _| {});
    plan.finish(&mut c, frame, style)?;
    Ok(c)
}

/// Pixels a reduction of [`snapshot_of_parts`] takes at a time (8 bytes each).
const PIXELS_A_REDUCTION: usize = 1 << 16;

/// The [`snapshot`] of every part's bodies together, each part giving the `frame` of its own
/// (and the same walls), drawn without gathering them: a call every part makes together, which
/// returns the picture on the part that `finishes` (`None` on the others). Each part paints its
/// bodies; a pixel is then the colour of the body drawn there last over all the parts (the
/// lowest in y, then the highest id, as one painter's order of them all), found by three
/// reductions of each band of the canvas's pixels (the winners' heights, their ids, their
/// colours): the same picture, pixel for pixel, as of the parts' frames joined.
pub fn snapshot_of_parts(
    frame: &Frame,
    style: &Style,
    parts: &dyn Parts,
    finishes: bool,
) -> io::Result<Option<Canvas>> {
    let plan = Plan::of(frame, style, parts);
    let mut c = plan.canvas(style);
    let mut drawn = vec![u32::MAX; c.pixels.len() / 3];
    plan.paint(&mut c, frame, |body, pixel| drawn[pixel] = body as u32);
    let body = |p: usize| (drawn[p] != u32::MAX).then_some(drawn[p] as usize);
    // A height as a key that orders like f32::total_cmp, reversed (the lowest the largest), + 1
    // (0: no body drawn there).
    let low = |i: usize| {
        let b = frame.positions[i][1].to_bits();
        let ordered = if b >> 31 == 1 { !b } else { b | 1 << 31 };
        (!ordered) as u64 + 1
    };
    let colour = |p: usize| {
        let [r, g, b] = [c.pixels[3 * p], c.pixels[3 * p + 1], c.pixels[3 * p + 2]];
        u64::from_be_bytes([0, 0, 0, 0, 1, r, g, b])
    };
    let mut out = finishes.then(|| plan.canvas(style));
    // Band by band of pixels, so that the reductions' lists stay small whatever the picture's
    // size (each part's canvas is the same size: the plan is the same on every part).
    for start in (0..drawn.len()).step_by(PIXELS_A_REDUCTION) {
        let span = start..(start + PIXELS_A_REDUCTION).min(drawn.len());
        let mut heights: Vec<u64> = span.clone().map(|p| body(p).map_or(0, low)).collect();
        parts.max_keys(&mut heights);
        let won = |p: usize| body(p).filter(|&i| low(i) == heights[p - start]);
        let mut ids: Vec<u64> = (span.clone())
            .map(|p| won(p).map_or(0, |i| id_of(frame, i) + 1))
            .collect();
        parts.max_keys(&mut ids);
        let mut colours: Vec<u64> = (span.clone())
            .map(|p| {
                let last = won(p).filter(|&i| id_of(frame, i) + 1 == ids[p - start]);
                last.map_or(0, |_| colour(p))
            })
            .collect();
        parts.max_keys(&mut colours);
        if let Some(out) = &mut out {
            for (p, &k) in span.zip(&colours).filter(|(_, &k)| k != 0) {
                let [.., r, g, b] = k.to_be_bytes();
                out.pixels[3 * p..3 * p + 3].copy_from_slice(&[r, g, b]);
            }
        }
    }
    let Some(mut out) = out else {
        return Ok(None);
    };
    plan.finish(&mut out, frame, style)?;
    Ok(Some(out))
}

/// How a snapshot colours its grains, and what its colour scale or legend shows.
enum Scheme {
    /// A quantity (radius, speed) over [lo, hi] mapped onto part of the colour map; bodies
    /// above `big` (a Brazil nut among small grains, by size) drawn red.
    Scale {
        /// The quantity and its unit, as the scale's label.
        label: &'static str,
        /// The quantity of each body.
        values: Vec<f32>,
        /// The range of the quantity the colour map spans.
        lo: f32,
        /// Its top.
        hi: f32,
        /// The part [a, b] of the colour map used.
        map: (f32, f32),
        /// Bodies whose radius exceeds this are drawn red.
        big: f32,
        /// Whether any body does.
        any_big: bool,
    },
    /// A colour per category (material or group), with the names for the legend.
    Categories {
        /// The category of each body (out-of-range ones grey).
        of: Vec<usize>,
        /// The categories' names.
        names: Vec<String>,
        /// Whether some body is of each category (over every part's bodies).
        present: Vec<bool>,
    },
}

/// The red of bodies above the size scale.
const BIG: [u8; 3] = [220, 40, 30];

impl Scheme {
    /// The scheme of every part's bodies together, each part giving its `frame`.
    fn new(frame: &Frame, style: &Style, parts: &dyn Parts) -> Scheme {
        let n = frame.radii.len();
        // `floor`: the scale starts at or below it (0 for speeds, ∞ for the values' own least).
        let scale = |label, values: Vec<f32>, map, big: f32, floor: f32| {
            let in_range = |i: &usize| frame.radii[*i] <= big && values[*i].is_finite();
            let lo = (0..n)
                .filter(in_range)
                .map(|i| values[i])
                .fold(floor, f32::min);
            let hi = (0..n)
                .filter(in_range)
                .map(|i| values[i])
                .fold(f32::NEG_INFINITY, f32::max);
            let any_big = frame.radii.iter().any(|&r| r > big);
            let mut range = [-lo as f64, hi as f64, any_big as u8 as f64];
            parts.max(&mut range);
            Scheme::Scale {
                label,
                lo: -range[0] as f32,
                hi: range[1] as f32,
                map,
                big,
                any_big: range[2] > 0.0,
                values,
            }
        };
        // Colours by category (of each body among `names`), with the categories some body is
        // of over the parts for the legend.
        let categories = |of: Vec<usize>, names: &[String]| {
            let mut present = vec![0.0; names.len()];
            for &k in &of {
                if let Some(p) = present.get_mut(k) {
                    *p = 1.0;
                }
            }
            parts.max(&mut present);
            Scheme::Categories {
                present: present.into_iter().map(|p| p > 0.0).collect(),
                of,
                names: names.to_vec(),
            }
        };
        match style.colour {
            // By size, bodies over 1.5 × the median radius (a Brazil nut) are drawn red and the
            // rest spread over blue → green by their own range, so a narrow size spread shows.
            Colour::Size => {
                let mut radii: Vec<f64> = frame.radii.iter().map(|&r| r as f64).collect();
                let mut count = [n as f64];
                parts.sum(&mut count);
                let median = parts.select(&mut radii, count[0] as u64 / 2);
                let big = median.map_or(f32::INFINITY, |m| 1.5 * m as f32);
                scale(
                    "radius (m)",
                    frame.radii.clone(),
                    (0.1, 0.6),
                    big,
                    f32::INFINITY,
                )
            }
            Colour::Speed => {
                let speeds = frame
                    .velocities
                    .iter()
                    .map(|v| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt())
                    .collect();
                scale("speed (m/s)", speeds, (0.0, 1.0), f32::INFINITY, 0.0)
            }
            Colour::Material => categories(
                frame.materials.iter().map(|&m| m as usize).collect(),
                &style.material_names,
            ),
            Colour::Group => categories(
                frame.groups.iter().map(|&g| g as usize).collect(),
                &style.group_names,
            ),
        }
    }

    /// The colour of body `i`.
    fn colour(&self, frame: &Frame, i: usize) -> [u8; 3] {
        match self {
            Scheme::Scale {
                values,
                lo,
                hi,
                map,
                big,
                ..
            } => {
                if frame.radii[i] > *big {
                    return BIG;
                }
                let t = if hi > lo {
                    (values[i] - lo) / (hi - lo)
                } else {
                    0.0
                };
                colour_map(map.0 + (map.1 - map.0) * t)
            }
            Scheme::Categories { of, names, .. } => match of.get(i) {
                Some(&k) if k < names.len() => category_colour(k),
                _ => [160, 160, 160],
            },
        }
    }
}

/// Draws the header band of a snapshot: the time stamp in the left third, the colour scale or
/// legend right-aligned after it.
fn header(c: &mut Canvas, time: f64, style: &Style, scheme: &Scheme) -> io::Result<()> {
    let w = c.width as i64;
    let band = header_height(c.width) as i64;
    let size = band as f64 * 0.6;
    let small = size * 0.8;
    // The top of text of `size` px whose middle is the band's.
    let top = |size: f64| ((band as f64 - size) / 2.0) as i64;
    let black = [0, 0, 0];
    c.rect(0, band - 1, w, band, [200, 200, 200]);
    let stamp = format!("t = {time:.0$} s", style.time_decimals);
    c.text(band / 3, top(size), &stamp, size, black)?;
    // The colour scale or legend, right-aligned, as a row of items laid out left to right.
    let mut items = Vec::new();
    match scheme {
        Scheme::Scale {
            label,
            lo,
            hi,
            map,
            big,
            any_big,
            ..
        } => {
            if lo.is_finite() && hi.is_finite() {
                items.push(Item::Text(tick(*lo as f64)));
                items.push(Item::Gradient(*map, (w / 8).max(8)));
                items.push(Item::Text(tick(*hi as f64)));
                items.push(Item::Text(label.to_string()));
                if *any_big {
                    items.push(Item::Swatch(BIG));
                    items.push(Item::Text(format!("> {}", tick(*big as f64))));
                }
            }
        }
        Scheme::Categories { names, present, .. } => {
            for (k, name) in names.iter().enumerate().filter(|(k, _)| present[*k]) {
                items.push(Item::Swatch(category_colour(k)));
                items.push(Item::Text(name.clone()));
            }
        }
    }
    let gap = band / 5;
    let mut total = 0;
    for item in &items {
        total += gap
            + match item {
                Item::Text(t) => c.text_width(t, small)?,
                Item::Gradient(_, len) => *len,
                Item::Swatch(_) => band / 2,
            };
    }
    let mut at = (w - total - band / 3).max(w / 3);
    let (y0, y1) = (band / 4, band - band / 4);
    for item in &items {
        at += match item {
            Item::Text(t) => c.text(at, top(small), t, small, black)?,
            Item::Gradient((a, b), len) => {
                for k in 0..*len {
                    let t = a + (b - a) * k as f32 / (len - 1).max(1) as f32;
                    c.rect(at + k, y0, at + k + 1, y1, colour_map(t));
                }
                *len
            }
            Item::Swatch(colour) => {
                c.rect(at, y0, at + band / 2, y1, *colour);
                band / 2
            }
        } + gap;
    }
    Ok(())
}

/// Draws the footer band of a snapshot `scale` px/m: a scale bar at the left, a round length
/// (1, 2 or 5 × 10^k m) near a sixth of the width, and `seen` (what the view shows) at the
/// right.
fn footer(c: &mut Canvas, scale: f32, seen: &str) -> io::Result<()> {
    let w = c.width as i64;
    let band = header_height(c.width) as i64;
    let y0 = c.height as i64 - band;
    let size = band as f64 * 0.5;
    let text_top = y0 + ((band as f64 - size) / 2.0) as i64;
    let black = [0, 0, 0];
    c.rect(0, y0, w, y0 + 1, [200, 200, 200]);
    let target = (w as f32 / 6.0) / scale;
    if target.is_finite() && target > 0.0 {
        let p = 10f32.powf(target.log10().floor());
        let len = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|k| k * p)
            .min_by(|a, b| (a - target).abs().total_cmp(&(b - target).abs()))
            .unwrap_or(p);
        let bar = (len * scale) as i64;
        let (x0, y) = (band / 3, y0 + band / 2);
        c.rect(x0, y - 1, x0 + bar, y + 2, black);
        c.rect(x0, y - band / 5, x0 + 2, y + band / 5, black);
        c.rect(x0 + bar - 2, y - band / 5, x0 + bar, y + band / 5, black);
        let label = format!("{} m", tick(len as f64));
        c.text(x0 + bar + band / 4, text_top, &label, size, black)?;
    }
    let width = c.text_width(seen, size)?;
    c.text(w - width - band / 3, text_top, seen, size, black)?;
    Ok(())
}

/// One piece of a snapshot's colour scale or legend.
enum Item {
    /// A label.
    Text(String),
    /// The part (a, b) of the colour map, `len` px long.
    Gradient((f32, f32), i64),
    /// A square of one colour.
    Swatch([u8; 3]),
}

/// A number for an axis or a scale: 3 significant digits, in exponent form outside
/// [0.01, 10⁴).
pub fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if (1e-2..1e4).contains(&a) {
        let s = format!("{v:.3}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        format!("{v:.2e}")
    }
}

/// One line of a plot: its name in the legend and its values at the plot's times.
pub struct Series<'a> {
    /// Name in the legend.
    pub name: &'a str,
    /// Values, one per time (non-finite ones leave a gap).
    pub values: &'a [f64],
}

/// A line plot of `series` against `times` (s): the title on top, "time (s)" under the x axis,
/// `y_label` (the quantity and its unit) beside the y axis, tick labels, and a legend when
/// there is more than one series. An empty title or label is not drawn.
pub fn plot(
    title: &str,
    y_label: &str,
    times: &[f64],
    series: &[Series],
    width: u32,
    height: u32,
) -> io::Result<Canvas> {
    let mut c = Canvas::new(width, height, [255, 255, 255]);
    let (t0, t1) = finite_range(times);
    let (mut v0, mut v1) = series
        .iter()
        .map(|s| finite_range(s.values))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (c, d)| {
            (a.min(c), b.max(d))
        });
    let (t0, t1) = if t0.is_finite() {
        (t0, if t1 > t0 { t1 } else { t0 + 1.0 })
    } else {
        (0.0, 1.0)
    };
    if !v0.is_finite() {
        (v0, v1) = (0.0, 1.0);
    } else if v1 <= v0 {
        v0 -= 0.5 * v0.abs().max(1e-12);
        v1 += 0.5 * v1.abs().max(1e-12);
    } else {
        let pad = 0.05 * (v1 - v0);
        (v0, v1) = (v0 - pad, v1 + pad);
    }
    {
        let root = c.area();
        let mut chart = ChartBuilder::on(&root);
        chart.margin(12).x_label_area_size(48).y_label_area_size(84);
        // An empty title keeps its band, so that the plot's layout does not depend on it.
        chart.caption(if title.is_empty() { " " } else { title }, font(20.0));
        let mut chart = chart.build_cartesian_2d(t0..t1, v0..v1).map_err(drawing)?;
        let x_tick = |t: &f64| tick(snap_zero(*t, t1 - t0));
        let y_tick = |v: &f64| tick(snap_zero(*v, v1 - v0));
        let mut mesh = chart.configure_mesh();
        mesh.label_style(font(13.0))
            .axis_desc_style(font(15.0))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(215, 215, 215))
            .max_light_lines(4)
            .x_label_formatter(&x_tick)
            .y_label_formatter(&y_tick);
        if !y_label.is_empty() {
            mesh.x_desc("time (s)").y_desc(y_label);
        }
        mesh.draw().map_err(drawing)?;
        for (k, s) in series.iter().enumerate() {
            let [r, g, b] = category_colour(k);
            let colour = RGBColor(r, g, b);
            // Runs of finite points, so a non-finite value leaves a gap.
            let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
            for (&t, &v) in times.iter().zip(s.values) {
                if t.is_finite() && v.is_finite() {
                    if let Some(run) = runs.last_mut() {
                        run.push((t, v));
                    }
                } else if runs.last().is_some_and(|r| !r.is_empty()) {
                    runs.push(Vec::new());
                }
            }
            // A lone sample (the first row of a run, or one between gaps) shows as a dot.
            let dots = runs.iter().filter(|r| r.len() == 1).map(|r| r[0]);
            chart
                .draw_series(dots.map(|p| Circle::new(p, 3, colour.filled())))
                .map_err(drawing)?;
            chart
                .draw_series(
                    runs.into_iter()
                        .map(|run| PathElement::new(run, colour.stroke_width(2))),
                )
                .map_err(drawing)?
                .label(s.name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
        }
        if series.len() > 1 {
            draw_legend(&mut chart)?;
        }
        root.present().map_err(drawing)?;
    }
    Ok(c)
}

/// One curve of a [`log_plot`]: its points (x, y); points with y ≤ 0 or not finite are left out.
pub struct Curve<'a> {
    /// Name in the legend.
    pub name: &'a str,
    /// Abscissae.
    pub x: &'a [f64],
    /// Ordinates (drawn on a logarithmic axis).
    pub y: &'a [f64],
}

/// A line plot of `curves` with a logarithmic y axis (convergence histories: residual against
/// sweeps or seconds), each curve with its own abscissae.
pub fn log_plot(
    title: &str,
    x_label: &str,
    y_label: &str,
    curves: &[Curve],
    width: u32,
    height: u32,
) -> io::Result<Canvas> {
    let mut c = Canvas::new(width, height, [255, 255, 255]);
    let points = |k: &Curve| -> Vec<(f64, f64)> {
        k.x.iter()
            .zip(k.y)
            .filter(|(x, y)| x.is_finite() && y.is_finite() && **y > 0.0)
            .map(|(&x, &y)| (x, y))
            .collect()
    };
    let all: Vec<(f64, f64)> = curves.iter().flat_map(points).collect();
    let x1 = all.iter().map(|p| p.0).fold(0.0f64, f64::max).max(1e-12);
    let y0 = all.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let y1 = all.iter().map(|p| p.1).fold(0.0f64, f64::max);
    let (y0, y1) = if y0 < y1 {
        (y0 / 1.5, y1 * 1.5)
    } else {
        (1e-9, 1.0)
    };
    {
        let root = c.area();
        let mut chart = ChartBuilder::on(&root);
        chart.margin(12).x_label_area_size(48).y_label_area_size(84);
        chart.caption(if title.is_empty() { " " } else { title }, font(20.0));
        let mut chart = chart
            .build_cartesian_2d(0.0..x1, (y0..y1).log_scale())
            .map_err(drawing)?;
        let x_tick = |t: &f64| tick(snap_zero(*t, x1));
        let y_tick = |v: &f64| format!("{v:.0e}");
        chart
            .configure_mesh()
            .label_style(font(13.0))
            .axis_desc_style(font(15.0))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(215, 215, 215))
            .x_label_formatter(&x_tick)
            .y_label_formatter(&y_tick)
            .x_desc(x_label)
            .y_desc(y_label)
            .draw()
            .map_err(drawing)?;
        for (k, curve) in curves.iter().enumerate() {
            let [r, g, b] = category_colour(k);
            let colour = RGBColor(r, g, b);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    points(curve),
                    colour.stroke_width(2),
                )))
                .map_err(drawing)?
                .label(curve.name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
        }
        draw_legend(&mut chart)?;
        root.present().map_err(drawing)?;
    }
    Ok(c)
}

/// The legend box of a chart's labelled series, in its upper right corner.
fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> io::Result<()> {
    chart
        .configure_series_labels()
        .label_font(font(13.0))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(90, 90, 160))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(drawing)
}

/// `v`, or 0 when it is within rounding of 0 on an axis spanning `span` (a tick at
/// −2.2e−16 is the tick at 0).
fn snap_zero(v: f64, span: f64) -> f64 {
    if v.abs() <= 1e-9 * span.abs() {
        0.0
    } else {
        v
    }
}

/// Smallest and largest finite value of `v` ((∞, −∞) when there is none).
fn finite_range(v: &[f64]) -> (f64, f64) {
    v.iter()
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}
