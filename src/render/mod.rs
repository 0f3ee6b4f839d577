//! Set-of-Marks rendering on decoded screenshots (pure).
//!
//! One call, [`render`], turns an encoded screenshot plus a list of [`Mark`]s
//! into an annotated PNG/JPEG and the BAP `annotationMap`:
//! decode once → downscale to the size cap (before drawing, so badges keep their
//! pixel size) → redact → draw boxes → lay badges out → draw leaders and badges →
//! encode once.
//!
//! Coordinates: marks and redactions are page CSS px; the output pixel of a CSS
//! point `p` is `(p − origin) × device_scale_factor × downscale`. Badges and
//! strokes are sized for output scale 1 and grow with `dpr × downscale` when it
//! is above 1 (an uncapped DPR-2 capture gets 2× badges).
//!
//! Architecture invariant: this module imports only `crate::model`,
//! `crate::error`, `image`, `png`, `ab_glyph` and `serde`/`serde_json`; it does no I/O
//! (the font is `include_bytes!`-ed) and never panics on input.

mod draw;
mod layout;
mod png_encode;
mod style;

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::{ExtendedColorType, ImageEncoder, RgbImage};

pub use layout::{check_layout, layout, reading_order, reading_order_in, LayoutReport, Placement};
pub use style::{kind_color, BadgeStyle, BoxStyle, Color, LabelFormat, LineStyle, Style};

use crate::error::{Error, Result};
use crate::model::{AnnotationMapping, Element, Mark, MarkKind, Point, Rect};
use draw::{alpha, IRect, Text};

/// Output encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// PNG with fast compression.
    #[default]
    Png,
    /// JPEG at `quality` 1..=100.
    Jpeg { quality: u8 },
}

impl OutputFormat {
    /// BAP's `screenshot.format` string.
    pub fn as_str(&self) -> &'static str {
        match self {
            OutputFormat::Png => "png",
            OutputFormat::Jpeg { .. } => "jpeg",
        }
    }
}

/// The default size cap: fit within 1920×1080, keeping the aspect ratio.
pub const DEFAULT_MAX_SIZE: (u32, u32) = (1920, 1080);

/// Colour of redaction boxes.
const REDACT: Color = Color::rgb(0x33, 0x33, 0x33);

/// Everything one render needs.
#[derive(Debug, Clone)]
pub struct RenderRequest<'a> {
    /// Encoded PNG or JPEG screenshot.
    pub image: &'a [u8],
    pub marks: &'a [Mark],
    pub style: &'a Style,
    /// CSS px → screenshot px (0.5..=4; Chromium uses 1..=3).
    pub device_scale_factor: f64,
    /// Page CSS px of the image's top-left (scroll offset or scope origin).
    pub origin: Point,
    /// Page CSS px areas covered by opaque boxes (sensitive inputs).
    pub redact: &'a [Rect],
    /// Fit the output within this size, keeping the aspect ratio; `None` = no cap.
    pub max_size: Option<(u32, u32)>,
    pub format: OutputFormat,
}

impl<'a> RenderRequest<'a> {
    /// A request with the defaults: DPR 1, origin (0,0), no redaction, 1920×1080 cap, PNG.
    pub fn new(image: &'a [u8], marks: &'a [Mark], style: &'a Style) -> Self {
        RenderRequest {
            image,
            marks,
            style,
            device_scale_factor: 1.0,
            origin: Point::default(),
            redact: &[],
            max_size: Some(DEFAULT_MAX_SIZE),
            format: OutputFormat::Png,
        }
    }
}

/// The annotated image and what was drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub data: Vec<u8>,
    pub format: OutputFormat,
    pub width: u32,
    pub height: u32,
    /// Size of the decoded screenshot before the size cap.
    pub original_width: u32,
    pub original_height: u32,
    /// One entry per drawn badge: element marks by number, then pins (`P1`, …).
    pub annotation_map: Vec<AnnotationMapping>,
    /// Marks drawn with a badge (pins included).
    pub drawn: usize,
    /// Of `drawn`, marks partly outside the image, drawn clipped.
    pub clipped: usize,
    /// Marks outside the image, zero-size or non-finite, or whose badge found no room.
    pub dropped: usize,
    /// Element marks beyond `maxLabels` (in input order).
    pub over_limit: usize,
    /// Of `dropped`, marks inside the image whose badge found no room (a
    /// crowded image): the number the image's "+N not labelled" notice gives.
    pub not_labelled: usize,
    /// The clipped boxes (output px) of the marks that were laid out, and their
    /// badge placements, in the same order: feed them to [`check_layout`].
    pub boxes: Vec<Rect>,
    pub placements: Vec<Placement>,
    /// Where the "+N not labelled" notice was drawn (image px), when some
    /// marks found no room for a badge (a crowded image) and the notice did.
    pub notice: Option<Rect>,
    /// Where the time went (ms).
    pub timings: RenderTimings,
}

/// Milliseconds spent in each phase of one [`render`].
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderTimings {
    pub decode_ms: f64,
    /// Size cap, redaction, layout and drawing.
    pub draw_ms: f64,
    pub encode_ms: f64,
}

/// The mark for an observed element, coloured by its role.
pub fn mark_for(element: &Element) -> Mark {
    Mark {
        rect: element.bounds,
        ref_: element.ref_.clone(),
        kind: MarkKind::from_role(&element.role),
        color: None,
        region: element.region,
    }
}

fn validate(req: &RenderRequest) -> Result<()> {
    req.style.validate()?;
    let dpr = req.device_scale_factor;
    if !(dpr.is_finite() && (0.5..=4.0).contains(&dpr)) {
        return Err(Error::invalid_field(
            "deviceScaleFactor",
            format!("device scale factor must be between 0.5 and 4, got {dpr}"),
        ));
    }
    if !(req.origin.x.is_finite() && req.origin.y.is_finite()) {
        return Err(Error::invalid_field("origin", "origin must be finite"));
    }
    if let Some((w, h)) = req.max_size {
        if w == 0 || h == 0 {
            return Err(Error::invalid_field(
                "maxSize",
                format!("size cap must be positive, got {w}x{h}"),
            ));
        }
    }
    if let OutputFormat::Jpeg { quality } = req.format {
        if !(1..=100).contains(&quality) {
            return Err(Error::invalid_field(
                "quality",
                format!("JPEG quality must be between 1 and 100, got {quality}"),
            ));
        }
    }
    Ok(())
}

/// Output size under the cap (never upscales).
fn fit(w: u32, h: u32, cap: Option<(u32, u32)>) -> (u32, u32) {
    let Some((mw, mh)) = cap else { return (w, h) };
    if w <= mw && h <= mh {
        return (w, h);
    }
    let s = (f64::from(mw) / f64::from(w)).min(f64::from(mh) / f64::from(h));
    let nw = ((f64::from(w) * s).round() as u32).clamp(1, mw);
    let nh = ((f64::from(h) * s).round() as u32).clamp(1, mh);
    (nw, nh)
}

/// Downscale (fast_image_resize, SIMD): an area average (box filter, the
/// exact n×n mean when the ratio is a whole number n), else a bilinear
/// filter. 2560×1440 → 1920×1080 takes ~7 ms (the `image` crate's triangle
/// filter: ~160 ms); 3840×2160 → 1920×1080 ~7 ms (benches/render.rs).
fn downscale(img: &RgbImage, nw: u32, nh: u32) -> Result<RgbImage> {
    use fast_image_resize as fr;
    let (w, h) = img.dimensions();
    let bad = |e: &dyn std::fmt::Display| Error::Image(format!("cannot resize screenshot: {e}"));
    let src =
        fr::images::ImageRef::new(w, h, img.as_raw(), fr::PixelType::U8x3).map_err(|e| bad(&e))?;
    let mut dst = fr::images::Image::new(nw, nh, fr::PixelType::U8x3);
    let whole = w % nw == 0 && h % nh == 0 && w / nw == h / nh;
    let filter = if whole {
        fr::FilterType::Box
    } else {
        fr::FilterType::Bilinear
    };
    let opts = fr::ResizeOptions::new().resize_alg(fr::ResizeAlg::Convolution(filter));
    fr::Resizer::new()
        .resize(&src, &mut dst, &opts)
        .map_err(|e| bad(&e))?;
    RgbImage::from_raw(nw, nh, dst.into_vec()).ok_or_else(|| bad(&"buffer size"))
}

/// One mark that survived clipping.
struct Item {
    mark: usize,
    rect: Rect,
    /// Which edges (top, bottom, left, right) are the mark's own, not the image's.
    sides: [bool; 4],
    clipped: bool,
    pin: bool,
    label: String,
}

/// Decode, annotate and encode one screenshot.
pub fn render(req: &RenderRequest) -> Result<Rendered> {
    render_with(req, &mut Vec::new())
}

/// [`render`], decoding into `pixels` (a buffer kept between calls saves
/// faulting in a fresh one each time: ~0.2 ms at 1280×720). `pixels` is
/// given back, its contents unspecified, when the call returns.
pub fn render_with(req: &RenderRequest, pixels: &mut Vec<u8>) -> Result<Rendered> {
    validate(req)?;
    let t0 = std::time::Instant::now();
    let mut img = decode(req.image, std::mem::take(pixels))?;
    let t_decoded = std::time::Instant::now();
    let (ow, oh) = img.dimensions();
    if ow == 0 || oh == 0 {
        return Err(Error::Image("screenshot is empty".into()));
    }
    let (w, h) = fit(ow, oh, req.max_size);
    if (w, h) != (ow, oh) {
        img = downscale(&img, w, h)?;
    }
    let dpr = req.device_scale_factor;
    let kx = dpr * f64::from(w) / f64::from(ow);
    let ky = dpr * f64::from(h) / f64::from(oh);
    let (fw, fh) = (f64::from(w), f64::from(h));
    let image_rect = Rect::new(0.0, 0.0, fw, fh);
    let to_image = |r: &Rect| {
        Rect::new(
            (r.x - req.origin.x) * kx,
            (r.y - req.origin.y) * ky,
            r.width * kx,
            r.height * ky,
        )
    };
    let style = req.style;

    // Classify marks: dropped, over the label limit, or kept (maybe clipped).
    let mut dropped = 0;
    let mut over_limit = 0;
    let mut n_elements = 0;
    let mut items: Vec<Item> = Vec::new();
    for (i, m) in req.marks.iter().enumerate() {
        let r = to_image(&m.rect);
        let finite =
            r.x.is_finite() && r.y.is_finite() && r.width.is_finite() && r.height.is_finite();
        let clip = if finite && !r.is_empty() {
            r.intersection(&image_rect)
                .filter(|c| c.width >= 1.0 && c.height >= 1.0)
        } else {
            None
        };
        let Some(c) = clip else {
            dropped += 1;
            continue;
        };
        let pin = m.kind == MarkKind::Pin;
        if !pin {
            if style.max_labels.is_some_and(|max| n_elements >= max) {
                over_limit += 1;
                continue;
            }
            n_elements += 1;
        }
        let clipped = r.x < -0.5 || r.y < -0.5 || r.right() > fw + 0.5 || r.bottom() > fh + 0.5;
        items.push(Item {
            mark: i,
            rect: c,
            sides: [
                r.y >= -0.5,
                r.bottom() <= fh + 0.5,
                r.x >= -0.5,
                r.right() <= fw + 0.5,
            ],
            clipped,
            pin,
            label: String::new(),
        });
    }

    // Number elements and pins separately, in reading order.
    let label = |pin: bool, n: usize, ref_: &str| {
        if pin {
            format!("P{n}")
        } else {
            style.label_format.label(n, ref_)
        }
    };
    let mut numbers = vec![0usize; items.len()];
    for pin in [false, true] {
        let idx: Vec<usize> = (0..items.len()).filter(|&i| items[i].pin == pin).collect();
        let rects: Vec<Rect> = idx.iter().map(|&i| items[i].rect).collect();
        let regions: Vec<Option<u64>> = idx
            .iter()
            .map(|&i| req.marks[items[i].mark].region)
            .collect();
        for (n, k) in reading_order_in(&rects, &regions).into_iter().enumerate() {
            let i = idx[k];
            numbers[i] = n + 1;
            items[i].label = label(pin, n + 1, &req.marks[items[i].mark].ref_);
        }
    }

    // Badge sizes and layout.
    let metrics = style.metrics(kx);
    let mut text = Text::new(metrics.font_px)?;
    let sizes: Vec<(f64, f64)> = items
        .iter()
        .map(|it| {
            let tw = text.width(&it.label) + 2.0 * metrics.pad_x;
            (tw.max(metrics.badge_h), metrics.badge_h)
        })
        .collect();
    let rects: Vec<Rect> = items.iter().map(|it| it.rect).collect();
    // Badges avoid page content (read before anything is drawn).
    let lum = |x: u32, y: u32| {
        let p = img.get_pixel(x, y).0;
        ((u32::from(p[0]) * 77 + u32::from(p[1]) * 150 + u32::from(p[2]) * 29) >> 8) as u8
    };
    let busy = |r: &Rect| layout::busy_fraction(r, (w, h), lum);
    let mut places = layout::layout_with(&rects, &sizes, (w, h), Some(&busy));

    // Marks that found no room (a crowded image) get no badge: the image
    // says so in its bottom right corner, so that a reader does not take an
    // unlabelled control for no control. The badges under that corner give
    // way (a few, in an image already too full for all).
    let mut notice = None;
    let mut not_labelled = places.iter().filter(|p| !p.placed).count();
    if not_labelled > 0 {
        let text_of = |n: usize| format!("+{n} not labelled");
        let width_of = |msg: &str| (text.width(msg) + 2.0 * metrics.pad_x).ceil();
        // Room for the largest count there can be.
        let (nw, nh) = (width_of(&text_of(items.len())), metrics.badge_h.ceil());
        if nw + 4.0 <= fw && nh + 4.0 <= fh {
            let spot = Rect::new(fw - 2.0 - nw, fh - 2.0 - nh, nw, nh);
            for p in places
                .iter_mut()
                .filter(|p| p.placed && p.rect.intersects(&spot))
            {
                p.placed = false;
            }
            not_labelled = places.iter().filter(|p| !p.placed).count();
            let msg = text_of(not_labelled);
            let w1 = width_of(&msg);
            notice = Some((Rect::new(spot.right() - w1, spot.y, w1, nh), msg));
        }
    }

    // Marks that found no room (a crowded image) are dropped: number the
    // rest again without gaps, in the same order. A label only gets shorter,
    // so it still fits its badge (drawn at its laid-out size).
    if places.iter().any(|p| !p.placed) {
        for pin in [false, true] {
            let mut idx: Vec<usize> = (0..items.len())
                .filter(|&i| items[i].pin == pin && places[i].placed)
                .collect();
            idx.sort_by_key(|&i| numbers[i]);
            for (n, i) in idx.into_iter().enumerate() {
                numbers[i] = n + 1;
                items[i].label = label(pin, n + 1, &req.marks[items[i].mark].ref_);
            }
        }
    }

    // Redactions first, so marks stay visible on top of them.
    for r in req.redact {
        let r = to_image(r);
        fill_rect(&mut img, IRect::outer(r.x, r.y, r.width, r.height), REDACT);
    }

    // Boxes, then leaders, then badges (badges always on top).
    let op = alpha(style.opacity);
    let stroke_w = metrics.stroke as i64;
    for (it, p) in items.iter().zip(&places) {
        if !p.placed {
            continue;
        }
        let m = &req.marks[it.mark];
        let r = it.rect;
        let ir = IRect::round(r.x, r.y, r.width, r.height);
        if it.pin {
            let c = style.box_color(m.kind, m.color.as_deref());
            draw::stroke(&mut img, ir, stroke_w, c, op, true, it.sides);
        } else if style.show_bounding_box {
            let c = style.box_color(m.kind, m.color.as_deref());
            let dashed = style.box_.style == LineStyle::Dashed;
            draw::stroke(&mut img, ir, stroke_w, c, op, dashed, it.sides);
        }
    }
    for (it, p) in items.iter().zip(&places) {
        if let (true, Some((a, b))) = (p.placed, p.leader) {
            let m = &req.marks[it.mark];
            let c = style.box_color(m.kind, m.color.as_deref());
            draw::line(&mut img, (a.x, a.y), (b.x, b.y), c);
        }
    }
    let mut map_elements: Vec<(usize, AnnotationMapping)> = Vec::new();
    let mut map_pins: Vec<(usize, AnnotationMapping)> = Vec::new();
    let mut drawn = 0;
    let mut clipped = 0;
    for ((it, p), n) in items.iter().zip(&places).zip(&numbers) {
        if !p.placed {
            dropped += 1;
            continue;
        }
        let m = &req.marks[it.mark];
        let fill_c = style.badge_color(m.kind, m.color.as_deref());
        let text_c = style.text_color(fill_c, m.kind);
        let br = IRect::round(p.rect.x, p.rect.y, p.rect.width, p.rect.height);
        draw::badge(&mut img, br, fill_c, op, text_c, it.pin);
        text.draw_centered(&mut img, br, &it.label, text_c);
        drawn += 1;
        clipped += usize::from(it.clipped);
        let entry = AnnotationMapping {
            label: it.label.clone(),
            ref_: m.ref_.clone(),
            position: Point {
                x: br.x0 as f64,
                y: br.y0 as f64,
            },
        };
        if it.pin {
            map_pins.push((*n, entry));
        } else {
            map_elements.push((*n, entry));
        }
    }
    if let Some((r, msg)) = &notice {
        let br = IRect::round(r.x, r.y, r.width, r.height);
        let white = Color::rgb(0xff, 0xff, 0xff);
        draw::badge(&mut img, br, NOTICE, 256, white, false);
        text.draw_centered(&mut img, br, msg, white);
    }
    map_elements.sort_by_key(|(n, _)| *n);
    map_pins.sort_by_key(|(n, _)| *n);
    let annotation_map = map_elements
        .into_iter()
        .chain(map_pins)
        .map(|(_, e)| e)
        .collect();

    let t_drawn = std::time::Instant::now();
    let data = encode_sized(&img, req.format, req.image.len())?;
    *pixels = img.into_raw();
    let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1000.0;
    let timings = RenderTimings {
        decode_ms: ms(t0, t_decoded),
        draw_ms: ms(t_decoded, t_drawn),
        encode_ms: ms(t_drawn, std::time::Instant::now()),
    };
    Ok(Rendered {
        data,
        format: req.format,
        width: w,
        height: h,
        original_width: ow,
        original_height: oh,
        annotation_map,
        drawn,
        clipped,
        dropped,
        over_limit,
        not_labelled,
        boxes: rects,
        placements: places,
        notice: notice.map(|(r, _)| r),
        timings,
    })
}

/// Colour of the "+N not labelled" notice.
const NOTICE: Color = Color::rgb(0x22, 0x22, 0x22);

fn fill_rect(img: &mut RgbImage, r: IRect, c: Color) {
    draw::fill(img, r, c, 256);
}

/// Decode a PNG (directly, into `buf`) or any other supported format to RGB8;
/// alpha is dropped, grey is widened.
pub fn decode(bytes: &[u8], mut buf: Vec<u8>) -> Result<RgbImage> {
    const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    let bad = |e: &dyn std::fmt::Display| Error::Image(format!("cannot decode screenshot: {e}"));
    if !bytes.starts_with(PNG_SIGNATURE) {
        let decoded = image::load_from_memory(bytes).map_err(|e| bad(&e))?;
        return Ok(decoded.into_rgb8());
    }
    // The same allocation cap as the `image` crate's default.
    let limits = png::Limits { bytes: 512 << 20 };
    let mut d = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
    d.set_transformations(png::Transformations::normalize_to_color8());
    let mut r = d.read_info().map_err(|e| bad(&e))?;
    let (w, h) = (r.info().width, r.info().height);
    let (color, _) = r.output_color_type();
    let channels = color.samples();
    let rgb_len = (w as usize) * (h as usize) * 3;
    let size = r
        .output_buffer_size()
        .filter(|&n| n <= limits.bytes)
        .ok_or_else(|| Error::Image(format!("screenshot too large to decode: {w}x{h}")))?;
    buf.clear();
    buf.resize(size, 0);
    let info = r.next_frame(&mut buf).map_err(|e| bad(&e))?;
    let stride = info.line_size;
    if channels != 3 || stride != w as usize * 3 {
        // Grey is widened and alpha dropped (as `into_rgb8` does), into a new buffer.
        let src = std::mem::take(&mut buf);
        let mut out = Vec::with_capacity(rgb_len);
        for row in src.chunks_exact(stride).take(h as usize) {
            for px in row[..w as usize * channels].chunks_exact(channels) {
                match channels {
                    1 | 2 => out.extend_from_slice(&[px[0], px[0], px[0]]),
                    _ => out.extend_from_slice(&px[..3]),
                }
            }
        }
        buf = out;
    } else {
        buf.truncate(rgb_len);
    }
    RgbImage::from_raw(w, h, buf).ok_or_else(|| Error::Image("screenshot buffer size".into()))
}

/// Encode an RGB image (PNG with fast compression, or JPEG).
pub fn encode(img: &RgbImage, format: OutputFormat) -> Result<Vec<u8>> {
    let (w, h) = img.dimensions();
    encode_sized(img, format, (w as usize * h as usize) / 4)
}

/// [`encode`] with a guess of the output size (the input's encoded size is a good one).
fn encode_sized(img: &RgbImage, format: OutputFormat, guess: usize) -> Result<Vec<u8>> {
    let (w, h) = img.dimensions();
    let mut out = Vec::with_capacity(guess + guess / 2 + 1024);
    match format {
        OutputFormat::Png => {
            if png_encode::encode_rgb(img, w, h, &mut out)? {
                return Ok(out);
            }
            // Paeth alone with fdeflate: on Chromium captures at 1280×720,
            // 0.96–1.28 ms and 91–185 KB; Up/Sub are 0.7–0.9 ms but 150–240
            // KB, adaptive 1.2–1.9 ms for 88–169 KB (benches/render.rs).
            let mut e = png::Encoder::new(&mut out, w, h);
            e.set_color(png::ColorType::Rgb);
            e.set_depth(png::BitDepth::Eight);
            e.set_compression(png::Compression::Fast);
            e.set_filter(png::Filter::Paeth);
            let bad = |e: png::EncodingError| Error::Image(format!("cannot encode PNG: {e}"));
            let mut wr = e.write_header().map_err(bad)?;
            wr.write_image_data(img).map_err(bad)?;
            wr.finish().map_err(bad)?;
        }
        OutputFormat::Jpeg { quality } => {
            JpegEncoder::new_with_quality(Cursor::new(&mut out), quality.clamp(1, 100))
                .write_image(img, w, h, ExtendedColorType::Rgb8)?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
