//! PNG pictures drawn pixel by pixel: a side view of the grains (the x–z plane seen from −y) and
//! line plots of observables against time, labelled with a tiny built-in digit font.

use super::writer::Frame;
use crate::scene::Colour;
use std::io;
use std::path::Path;

/// An RGB image in memory.
pub struct Canvas {
    /// Width (px).
    pub width: u32,
    /// Height (px).
    pub height: u32,
    /// Row-major RGB bytes, top row first.
    pub pixels: Vec<u8>,
}

/// 3×5 glyphs of `0-9 . - e + ` (bit 2 = left column), rows top to bottom.
fn glyph(c: char) -> [u8; 5] {
    match c {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 1, 2, 2],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        '.' => [0, 0, 0, 0, 2],
        '-' => [0, 0, 7, 0, 0],
        '+' => [0, 2, 7, 2, 0],
        'e' => [0, 7, 7, 4, 7],
        _ => [0; 5],
    }
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

    /// Sets pixel (x, y), ignoring those off the canvas.
    pub fn put(&mut self, x: i64, y: i64, c: [u8; 3]) {
        // Compared as i64: a cast to u32 first would wrap a far coordinate onto the canvas.
        if (0..self.width as i64).contains(&x) && (0..self.height as i64).contains(&y) {
            let i = (y as usize * self.width as usize + x as usize) * 3;
            self.pixels[i..i + 3].copy_from_slice(&c);
        }
    }

    /// A filled disk of centre (cx, cy) and radius r (px); only its part on the canvas is
    /// visited, so a huge or far disk costs no more than the canvas, and a non-finite one is
    /// not drawn.
    pub fn disk(&mut self, cx: f32, cy: f32, r: f32, c: [u8; 3]) {
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

    /// Writes `text` (digits, `.`, `-`, `+`, `e`) with its top-left corner at (x, y), each font
    /// pixel `scale` × `scale` screen pixels.
    pub fn text(&mut self, x: i64, y: i64, text: &str, scale: i64, c: [u8; 3]) {
        for (k, ch) in text.chars().enumerate() {
            let g = glyph(ch);
            for (row, bits) in g.iter().enumerate() {
                for col in 0..3 {
                    if bits & (4 >> col) != 0 {
                        for dy in 0..scale {
                            for dx in 0..scale {
                                self.put(
                                    x + (k as i64 * 4 + col) * scale + dx,
                                    y + row as i64 * scale + dy,
                                    c,
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Width in pixels of `text` at `scale`.
    pub fn text_width(text: &str, scale: i64) -> i64 {
        text.chars().count() as i64 * 4 * scale
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

/// Side view of a frame: grains projected on the x–z plane seen from −y, nearest drawn last
/// (or, with `section = Some(y)`, only their cuts by the plane at that y, which shows what is
/// inside a 3-D bed), coloured by size or speed; the box outline (if any) in grey, shifted by
/// its displacement.
pub fn snapshot(
    frame: &Frame,
    view: View,
    width: u32,
    colour: Colour,
    box_outline: Option<(f32, f32, f32)>,
    section: Option<f32>,
) -> Canvas {
    let scale = width as f32 / (view.x1 - view.x0);
    let height = ((view.z1 - view.z0) * scale).ceil().clamp(16.0, 8192.0) as u32;
    let mut c = Canvas::new(width, height, [255, 255, 255]);
    let px = |x: f32| (x - view.x0) * scale;
    let pz = |z: f32| height as f32 - (z - view.z0) * scale;
    let n = frame.positions.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| frame.positions[b][1].total_cmp(&frame.positions[a][1]));
    let values: Vec<f32> = match colour {
        Colour::Size => frame.radii.clone(),
        Colour::Speed => frame
            .velocities
            .iter()
            .map(|v| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt())
            .collect(),
    };
    // By size, bodies over 1.5 × the median radius (a Brazil nut) are drawn red and the rest
    // spread over blue → green by their own range, so a narrow size spread stays visible.
    let mut sorted = frame.radii.clone();
    sorted.sort_by(f32::total_cmp);
    let big = colour == Colour::Size && !sorted.is_empty();
    let big_limit = if big {
        1.5 * sorted[sorted.len() / 2]
    } else {
        f32::INFINITY
    };
    let in_range = |i: &usize| frame.radii[*i] <= big_limit;
    let lo = (0..n)
        .filter(in_range)
        .map(|i| values[i])
        .fold(f32::INFINITY, f32::min);
    let hi = (0..n)
        .filter(in_range)
        .map(|i| values[i])
        .fold(f32::NEG_INFINITY, f32::max);
    for i in order {
        let p = frame.positions[i];
        let t = if hi > lo {
            (values[i] - lo) / (hi - lo)
        } else {
            0.0
        };
        // In a section, each sphere is drawn as its cut by the plane y = y_cut.
        let r = match section {
            Some(y) => {
                let (r, dy) = (frame.radii[i], p[1] - y);
                if dy.abs() >= r {
                    continue;
                }
                (r * r - dy * dy).sqrt()
            }
            None => frame.radii[i],
        };
        let rgb = if frame.radii[i] > big_limit {
            [220, 40, 30]
        } else if colour == Colour::Size {
            colour_map(0.1 + 0.5 * t)
        } else {
            colour_map(t)
        };
        c.disk(px(p[0]), pz(p[2]), r * scale, rgb);
    }
    if let Some((x0, x1, z0)) = box_outline {
        let grey = [90, 90, 90];
        let (a, b, f) = (px(x0), px(x1), pz(z0 + frame.box_shift));
        c.line(a, f, b, f, grey);
        c.line(a, f, a, 0.0, grey);
        c.line(b, f, b, 0.0, grey);
    }
    c
}

/// Short label of a number for an axis: 3 significant digits.
pub fn label(v: f64) -> String {
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

/// Line plot of `values` against `times`, with the axis ranges written at the corners.
pub fn plot(times: &[f64], values: &[f64], width: u32, height: u32) -> Canvas {
    let mut c = Canvas::new(width, height, [255, 255, 255]);
    let (ml, mr, mt, mb) = (90.0f32, 20.0f32, 20.0f32, 40.0f32);
    let (w, h) = (width as f32 - ml - mr, height as f32 - mt - mb);
    let black = [0, 0, 0];
    c.line(ml, mt, ml, mt + h, black);
    c.line(ml, mt + h, ml + w, mt + h, black);
    let (t0, t1) = finite_range(times);
    let (mut v0, mut v1) = finite_range(values);
    if !(t0.is_finite() && v0.is_finite()) {
        return c;
    }
    if v1 <= v0 {
        v0 -= 0.5 * v0.abs().max(1e-12);
        v1 += 0.5 * v1.abs().max(1e-12);
    }
    let t1 = if t1 > t0 { t1 } else { t0 + 1.0 };
    let x = |t: f64| ml + ((t - t0) / (t1 - t0)) as f32 * w;
    let y = |v: f64| mt + h - ((v - v0) / (v1 - v0)) as f32 * h;
    // Light grid at quarter ranges.
    for k in 1..4 {
        let f = k as f32 / 4.0;
        c.line(ml + f * w, mt, ml + f * w, mt + h, [225, 225, 225]);
        c.line(ml, mt + f * h, ml + w, mt + f * h, [225, 225, 225]);
    }
    let blue = [20, 70, 200];
    let mut last: Option<(f32, f32)> = None;
    for (&t, &v) in times.iter().zip(values) {
        if !(t.is_finite() && v.is_finite()) {
            last = None;
            continue;
        }
        let p = (x(t), y(v));
        if let Some(q) = last {
            c.line(q.0, q.1, p.0, p.1, blue);
            c.line(q.0, q.1 + 1.0, p.0, p.1 + 1.0, blue);
        }
        last = Some(p);
    }
    let s = 2;
    let (l0, l1) = (label(v0), label(v1));
    c.text(
        ml as i64 - 8 - Canvas::text_width(&l1, s),
        mt as i64,
        &l1,
        s,
        black,
    );
    c.text(
        ml as i64 - 8 - Canvas::text_width(&l0, s),
        (mt + h) as i64 - 10,
        &l0,
        s,
        black,
    );
    let (a, b) = (label(t0), label(t1));
    c.text(ml as i64, (mt + h) as i64 + 8, &a, s, black);
    c.text(
        (ml + w) as i64 - Canvas::text_width(&b, s),
        (mt + h) as i64 + 8,
        &b,
        s,
        black,
    );
    c
}

/// Smallest and largest finite value of `v` ((∞, −∞) when there is none).
fn finite_range(v: &[f64]) -> (f64, f64) {
    v.iter()
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn red_pixels(c: &Canvas) -> usize {
        c.pixels.chunks(3).filter(|p| p == &[255, 0, 0]).count()
    }

    #[test]
    fn far_coordinates_do_not_wrap_onto_the_canvas() {
        let mut c = Canvas::new(10, 10, [0, 0, 0]);
        // 2^32 + 3 wraps to 3 as u32: it must stay off the canvas, not index past its end.
        c.put((1i64 << 32) + 3, 5, [255, 0, 0]);
        c.put(3, (1i64 << 32) + 5, [255, 0, 0]);
        c.put(-1, 5, [255, 0, 0]);
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
    fn a_frame_with_far_and_non_finite_bodies_draws() {
        let frame = Frame {
            positions: vec![[0.0, 0.0, 0.5], [0.8, 0.0, -1e12], [f32::NAN, 0.0, 0.0]],
            radii: vec![0.1, 20.0, 0.1],
            velocities: vec![[0.0; 3], [0.0, 0.0, -1e20], [f32::NAN; 3]],
            angular_velocities: vec![[0.0; 3]; 3],
            ..Frame::default()
        };
        let view = View {
            x0: -1.0,
            x1: 1.0,
            z0: 0.0,
            z1: 1.0,
        };
        let t = Instant::now();
        for colour in [Colour::Size, Colour::Speed] {
            let c = snapshot(&frame, view, 800, colour, Some((-1.0, 1.0, -1e12)), None);
            assert_eq!(c.pixels.len(), (c.width * c.height * 3) as usize);
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "took {:?}",
            t.elapsed()
        );
    }
}
