//! In-place drawing primitives on an RGB8 buffer: blended rectangles, strokes,
//! dashed outlines, rounded badges, leader lines and text from the bundled font.
//!
//! Everything clips to the image; coordinates may be any finite or non-finite
//! value without panicking. Blending uses integer arithmetic so output is
//! byte-for-byte deterministic.

use std::collections::HashMap;

use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont};
use image::RgbImage;

use super::style::Color;
use crate::error::{Error, Result};

static FONT_BYTES: &[u8] = include_bytes!("../../fonts/DejaVuSans-Bold.ttf");

/// Integer pixel rectangle, half-open: `[x0, x1) × [y0, y1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IRect {
    pub x0: i64,
    pub y0: i64,
    pub x1: i64,
    pub y1: i64,
}

impl IRect {
    /// Round a float rectangle outwards to whole pixels (non-finite → empty).
    pub fn outer(x: f64, y: f64, w: f64, h: f64) -> IRect {
        let c = |v: f64| {
            if v.is_finite() {
                v.clamp(-1e9, 1e9) as i64
            } else {
                0
            }
        };
        if !(x.is_finite() && y.is_finite() && w.is_finite() && h.is_finite()) {
            return IRect {
                x0: 0,
                y0: 0,
                x1: 0,
                y1: 0,
            };
        }
        IRect {
            x0: c(x.floor()),
            y0: c(y.floor()),
            x1: c((x + w).ceil()),
            y1: c((y + h).ceil()),
        }
    }
    /// Round a float rectangle to the nearest whole pixels.
    pub fn round(x: f64, y: f64, w: f64, h: f64) -> IRect {
        IRect::outer(
            x.round(),
            y.round(),
            (x + w).round() - x.round(),
            (y + h).round() - y.round(),
        )
    }
    fn is_empty(&self) -> bool {
        self.x1 <= self.x0 || self.y1 <= self.y0
    }
}

#[inline]
fn mix(dst: u8, src: u8, a: u32) -> u8 {
    ((u32::from(src) * a + u32::from(dst) * (256 - a) + 128) >> 8) as u8
}

/// Opacity 0..=1 as a 0..=256 blend weight.
pub(crate) fn alpha(op: f64) -> u32 {
    if op.is_finite() {
        (op.clamp(0.0, 1.0) * 256.0).round() as u32
    } else {
        256
    }
}

/// Fill `r` (clipped to the image) with `c` at blend weight `a` (0..=256).
pub(crate) fn fill(img: &mut RgbImage, r: IRect, c: Color, a: u32) {
    let (w, h) = (i64::from(img.width()), i64::from(img.height()));
    let x0 = r.x0.clamp(0, w) as usize;
    let x1 = r.x1.clamp(0, w) as usize;
    let y0 = r.y0.clamp(0, h) as usize;
    let y1 = r.y1.clamp(0, h) as usize;
    if x1 <= x0 || y1 <= y0 || a == 0 {
        return;
    }
    let stride = w as usize * 3;
    let buf: &mut [u8] = img;
    for y in y0..y1 {
        let row = &mut buf[y * stride + x0 * 3..y * stride + x1 * 3];
        if a >= 256 {
            for px in row.chunks_exact_mut(3) {
                px[0] = c.r;
                px[1] = c.g;
                px[2] = c.b;
            }
        } else {
            for px in row.chunks_exact_mut(3) {
                px[0] = mix(px[0], c.r, a);
                px[1] = mix(px[1], c.g, a);
                px[2] = mix(px[2], c.b, a);
            }
        }
    }
}

/// Blend one pixel (ignored when outside the image).
fn put(img: &mut RgbImage, x: i64, y: i64, c: Color, a: u32) {
    if x < 0 || y < 0 || x >= i64::from(img.width()) || y >= i64::from(img.height()) {
        return;
    }
    let p = img.get_pixel_mut(x as u32, y as u32);
    p.0 = [
        mix(p.0[0], c.r, a),
        mix(p.0[1], c.g, a),
        mix(p.0[2], c.b, a),
    ];
}

/// Stroke the inside of `r` with a band `t` pixels wide; dashed when `dash` is set.
/// `sides` (top, bottom, left, right) leaves open the edges where a box was clipped.
pub(crate) fn stroke(
    img: &mut RgbImage,
    r: IRect,
    t: i64,
    c: Color,
    a: u32,
    dash: bool,
    sides: [bool; 4],
) {
    if r.is_empty() {
        return;
    }
    let t = t
        .max(1)
        .min((r.x1 - r.x0 + 1) / 2)
        .min((r.y1 - r.y0 + 1) / 2)
        .max(1);
    let bands = [
        IRect { y1: r.y0 + t, ..r }, // top
        IRect { y0: r.y1 - t, ..r }, // bottom
        IRect {
            x1: r.x0 + t,
            y0: r.y0 + t,
            y1: r.y1 - t,
            ..r
        }, // left
        IRect {
            x0: r.x1 - t,
            y0: r.y0 + t,
            y1: r.y1 - t,
            ..r
        }, // right
    ];
    if !dash {
        for (b, on) in bands.iter().zip(sides) {
            if on {
                fill(img, *b, c, a);
            }
        }
        return;
    }
    let on = 3 * t + 3;
    let period = on + 2 * t + 2;
    for (i, b) in bands.iter().enumerate() {
        if !sides[i] {
            continue;
        }
        let horizontal = i < 2;
        let (start, end) = if horizontal {
            (r.x0, r.x1)
        } else {
            (r.y0, r.y1)
        };
        let mut s = start;
        while s < end {
            let e = (s + on).min(end);
            let seg = if horizontal {
                IRect {
                    x0: s.max(b.x0),
                    x1: e.min(b.x1),
                    ..*b
                }
            } else {
                IRect {
                    y0: s.max(b.y0),
                    y1: e.min(b.y1),
                    ..*b
                }
            };
            if !seg.is_empty() {
                fill(img, seg, c, a);
            }
            s += period;
        }
    }
}

/// A filled badge with a 1-px border; `round` makes a pill/circle.
pub(crate) fn badge(
    img: &mut RgbImage,
    r: IRect,
    fill_c: Color,
    fill_a: u32,
    border: Color,
    round: bool,
) {
    if r.is_empty() {
        return;
    }
    let h = r.y1 - r.y0;
    let w = r.x1 - r.x0;
    if !round {
        fill(
            img,
            IRect {
                x0: r.x0 + 1,
                y0: r.y0 + 1,
                x1: r.x1 - 1,
                y1: r.y1 - 1,
            },
            fill_c,
            fill_a,
        );
        stroke(img, r, 1, border, 256, false, [true; 4]);
        return;
    }
    // Pill: each row is inset by the circle of radius h/2 at both ends.
    let rad = (h.min(w) as f64) / 2.0;
    for dy in 0..h {
        let yc = dy as f64 + 0.5 - h as f64 / 2.0;
        let inner = (rad * rad - yc * yc).max(0.0).sqrt();
        let inset = (rad - inner).round() as i64;
        let (x0, x1) = (r.x0 + inset, r.x1 - inset);
        if x1 <= x0 {
            continue;
        }
        let y = r.y0 + dy;
        fill(
            img,
            IRect {
                x0,
                y0: y,
                x1,
                y1: y + 1,
            },
            border,
            256,
        );
        // Interior: one pixel in from the outline, horizontally and vertically.
        let yi = dy as f64 + 0.5 - h as f64 / 2.0;
        let ri = rad - 1.0;
        if ri > 0.0 && yi.abs() < ri {
            let inner_i = (ri * ri - yi * yi).sqrt();
            let inset_i = (rad - inner_i).round() as i64;
            fill(
                img,
                IRect {
                    x0: r.x0 + inset_i,
                    y0: y,
                    x1: r.x1 - inset_i,
                    y1: y + 1,
                },
                fill_c,
                fill_a,
            );
        }
    }
}

/// A 1-px line from `p0` to `p1` (Bresenham), clipped to the image.
pub(crate) fn line(img: &mut RgbImage, p0: (f64, f64), p1: (f64, f64), c: Color) {
    let ok = |v: f64| v.is_finite() && v.abs() < 1e6;
    if !(ok(p0.0) && ok(p0.1) && ok(p1.0) && ok(p1.1)) {
        return;
    }
    let (mut x0, mut y0) = (p0.0.floor() as i64, p0.1.floor() as i64);
    let (x1, y1) = (p1.0.floor() as i64, p1.1.floor() as i64);
    let dx = (x1 - x0).abs();
    let dy = -(y1 - y0).abs();
    let sx = if x0 < x1 { 1 } else { -1 };
    let sy = if y0 < y1 { 1 } else { -1 };
    let mut err = dx + dy;
    loop {
        put(img, x0, y0, c, 256);
        if x0 == x1 && y0 == y1 {
            break;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x0 += sx;
        }
        if e2 <= dx {
            err += dx;
            y0 += sy;
        }
    }
    fill(
        img,
        IRect {
            x0: x1 - 1,
            y0: y1 - 1,
            x1: x1 + 2,
            y1: y1 + 2,
        },
        c,
        256,
    );
}

struct GlyphBitmap {
    left: i64,
    top: i64,
    w: usize,
    h: usize,
    cov: Vec<u8>,
}

/// The bundled font at one pixel size, with a per-render glyph cache.
pub(crate) struct Text {
    font: FontRef<'static>,
    scale: PxScale,
    ascent: f32,
    descent: f32,
    cache: HashMap<GlyphId, Option<GlyphBitmap>>,
}

impl Text {
    pub fn new(px: f64) -> Result<Text> {
        let font = FontRef::try_from_slice(FONT_BYTES)
            .map_err(|e| Error::Internal(format!("bundled font: {e}")))?;
        let scale = PxScale::from(px as f32);
        let sf = font.as_scaled(scale);
        let (ascent, descent) = (sf.ascent(), sf.descent());
        Ok(Text {
            font,
            scale,
            ascent,
            descent,
            cache: HashMap::new(),
        })
    }

    /// Glyph ids and whole-pixel x offsets of `s`, and its advance width.
    fn shape(&self, s: &str) -> (Vec<(GlyphId, i64)>, f64) {
        let sf = self.font.as_scaled(self.scale);
        let mut caret = 0.0f32;
        let mut prev: Option<GlyphId> = None;
        let mut out = Vec::with_capacity(s.len());
        for ch in s.chars() {
            let id = self.font.glyph_id(ch);
            if let Some(p) = prev {
                caret += sf.kern(p, id);
            }
            out.push((id, caret.round() as i64));
            caret += sf.h_advance(id);
            prev = Some(id);
        }
        (out, f64::from(caret).ceil())
    }

    /// Advance width of `s` in pixels.
    pub fn width(&self, s: &str) -> f64 {
        self.shape(s).1
    }

    fn glyph(&mut self, id: GlyphId) -> Option<&GlyphBitmap> {
        let (font, scale, ascent) = (&self.font, self.scale, self.ascent);
        self.cache
            .entry(id)
            .or_insert_with(|| {
                let g = id.with_scale_and_position(scale, ab_glyph::point(0.0, ascent));
                let og = font.outline_glyph(g)?;
                let b = og.px_bounds();
                let (w, h) = (b.width() as usize, b.height() as usize);
                let mut cov = vec![0u8; w * h];
                og.draw(|x, y, c| {
                    if let Some(p) = cov.get_mut(y as usize * w + x as usize) {
                        *p = (c.clamp(0.0, 1.0) * 255.0).round() as u8;
                    }
                });
                Some(GlyphBitmap {
                    left: b.min.x as i64,
                    top: b.min.y as i64,
                    w,
                    h,
                    cov,
                })
            })
            .as_ref()
    }

    /// Draw `s` centred in `r`.
    pub fn draw_centered(&mut self, img: &mut RgbImage, r: IRect, s: &str, c: Color) {
        let (glyphs, width) = self.shape(s);
        let text_h = f64::from(self.ascent - self.descent);
        let x = r.x0 + (((r.x1 - r.x0) as f64 - width) / 2.0).round() as i64;
        let y = r.y0 + (((r.y1 - r.y0) as f64 - text_h) / 2.0).round() as i64;
        for (id, off) in glyphs {
            let Some(g) = self.glyph(id) else { continue };
            let (gx, gy) = (x + off + g.left, y + g.top);
            for yy in 0..g.h {
                for xx in 0..g.w {
                    let a = u32::from(g.cov[yy * g.w + xx]);
                    if a > 0 {
                        put(img, gx + xx as i64, gy + yy as i64, c, a + (a >> 7));
                    }
                }
            }
        }
    }
}
