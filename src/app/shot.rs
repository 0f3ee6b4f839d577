//! The annotated-screenshot pipeline: capture and discovery run concurrently,
//! then the pure renderer draws the marks (server-side) in one decode/encode.

use super::{ObserveOptions, PageState, Session};
use crate::browser::{ScreenshotFormat, ScreenshotRequest};
use crate::error::{Error, Result};
use crate::model::{AnnotationMapping, Mark, MarkKind, Observation, Point, Rect};
use crate::render::{self, OutputFormat, RenderRequest, Style};
use std::time::Instant;

/// Chromium cannot capture taller surfaces in one piece.
pub const MAX_CAPTURE_PX: f64 = 16_384.0;

/// What part of the page to capture.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Area {
    #[default]
    Viewport,
    FullPage,
    /// The bounding box of the first element matching a CSS selector.
    Selector(String),
    /// A rectangle in page CSS px.
    Rect(Rect),
}

/// Options of one annotated capture.
#[derive(Debug, Clone)]
pub struct ShotOptions {
    pub area: Area,
    /// Draw marks (otherwise a plain screenshot, sensitive inputs still covered).
    pub marks: bool,
    pub style: Style,
    pub format: OutputFormat,
    /// Fit within this size (`None` = no cap).
    pub max_size: Option<(u32, u32)>,
    /// Cover sensitive inputs with opaque boxes.
    pub redact: bool,
    /// Extra marks drawn on top (annotation pins).
    pub pins: Vec<Mark>,
    /// Draw the page's open review annotations (needs a store on the session) as pins.
    pub draw_annotations: bool,
    pub observe: ObserveOptions,
}

impl Default for ShotOptions {
    fn default() -> Self {
        ShotOptions {
            area: Area::Viewport,
            marks: true,
            style: Style::default(),
            format: OutputFormat::Png,
            max_size: Some(render::DEFAULT_MAX_SIZE),
            redact: true,
            pins: Vec::new(),
            draw_annotations: true,
            observe: ObserveOptions::default(),
        }
    }
}

/// An annotated screenshot and the observation it was drawn from.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shot {
    #[serde(skip)]
    pub data: Vec<u8>,
    pub format: &'static str,
    pub width: u32,
    pub height: u32,
    pub original_width: u32,
    pub original_height: u32,
    /// The captured area in page CSS px.
    pub area: Rect,
    pub annotated: bool,
    pub annotation_map: Vec<AnnotationMapping>,
    /// Marks that were drawn, clipped at the edge, dropped, or over `maxLabels`.
    pub drawn: usize,
    pub clipped: usize,
    pub dropped: usize,
    pub over_limit: usize,
    /// Of `dropped`, marks in the image whose badge found no room (a crowded
    /// viewport); the image's "+N not labelled" notice gives the number.
    pub not_labelled: usize,
    pub redacted: usize,
    pub screenshot_ms: f64,
    pub render_ms: f64,
    /// The render's phases (decode / draw / encode).
    pub render_timings: render::RenderTimings,
    /// The laid-out boxes and badges (image px), for [`render::check_layout`].
    #[serde(skip)]
    pub boxes: Vec<Rect>,
    #[serde(skip)]
    pub placements: Vec<render::Placement>,
    pub observation: Observation,
}

impl Session {
    /// Capture (viewport, full page or a scope) and draw the marks.
    pub async fn shot(&self, page: &PageState, opts: &ShotOptions) -> Result<Shot> {
        let vp = page.page.viewport();
        let dpr = vp.dpr;
        // The capture area must be known before a full-page or scoped capture;
        // a viewport capture runs concurrently with discovery. A capture larger
        // than the size cap is drawn smaller by Chromium (`scale`), not
        // captured big and resized here (DPR 2 at 1280×720 → 1920×1080: 60–80
        // ms instead of a 100 ms capture, a 4× larger decode and a 7 ms resize).
        let (png, obs, area, shot_ms, scale) = match &opts.area {
            Area::Viewport => {
                let scale = cap_scale(
                    f64::from(vp.width),
                    f64::from(vp.height),
                    dpr,
                    opts.max_size,
                );
                // A scaled capture is a clip, in page coordinates: it needs
                // the scroll offset first.
                let clip = if scale < 1.0 {
                    Some(visible_area(page).await?)
                } else {
                    None
                };
                let req = ScreenshotRequest {
                    format: ScreenshotFormat::Png,
                    clip,
                    beyond_viewport: false,
                    scale,
                    default_encoding: false,
                };
                let shot = async {
                    let t = Instant::now();
                    let r = page.page.screenshot(&req).await;
                    (r, t.elapsed().as_secs_f64() * 1000.0)
                };
                // The capture needs one frame from the renderer's main
                // thread; discovery waits for that frame and then runs while
                // the frame is rasterised, read back and encoded. The capture
                // is asked for first: with discovery's evaluate sent first,
                // over a quarter of captures missed a frame (36–38 ms instead
                // of ~19; probe `browser::probe_capture_slowdown_sources`).
                let ((png, ms), obs) =
                    tokio::join!(shot, self.observe_gated(page, &opts.observe, true));
                let obs = obs?;
                let v = obs.viewport;
                let area = clip.unwrap_or(Rect::new(v.scroll_x, v.scroll_y, v.width, v.height));
                (png?, obs, area, ms, scale)
            }
            other => {
                let obs = self.observe(page, &opts.observe).await?;
                let area = match other {
                    Area::FullPage => Rect::new(0.0, 0.0, obs.page_width, obs.page_height),
                    Area::Selector(sel) => scope_rect(page, sel).await?,
                    Area::Rect(r) => *r,
                    Area::Viewport => Rect::new(
                        obs.viewport.scroll_x,
                        obs.viewport.scroll_y,
                        obs.viewport.width,
                        obs.viewport.height,
                    ),
                };
                if area.is_empty() || !area.x.is_finite() || !area.y.is_finite() {
                    return Err(Error::invalid_field(
                        "scope",
                        format!("the capture area is empty: {area:?}"),
                    ));
                }
                if area.height * dpr > MAX_CAPTURE_PX || area.width * dpr > MAX_CAPTURE_PX {
                    return Err(Error::ResourceLimit {
                        resource: "capture height/width (device px)".into(),
                        limit: MAX_CAPTURE_PX as u64,
                        current: (area.height.max(area.width) * dpr) as u64,
                    });
                }
                let scale = cap_scale(area.width, area.height, dpr, opts.max_size);
                let req = ScreenshotRequest {
                    format: ScreenshotFormat::Png,
                    clip: Some(area),
                    beyond_viewport: true,
                    scale,
                    default_encoding: false,
                };
                let t = Instant::now();
                let png = page.page.screenshot(&req).await?;
                (png, obs, area, t.elapsed().as_secs_f64() * 1000.0, scale)
            }
        };
        let t1 = Instant::now();
        let mut marks: Vec<Mark> = Vec::new();
        if opts.marks {
            for e in &obs.elements {
                if !e.visible || e.occluded || e.bounds.intersection(&area).is_none() {
                    continue;
                }
                let mut m = render::mark_for(e);
                if e.editable && m.kind == MarkKind::Other {
                    m.kind = MarkKind::TextInput;
                }
                marks.push(m);
            }
        }
        marks.extend(opts.pins.iter().cloned());
        if opts.draw_annotations {
            marks.extend(super::pin::pins(&obs.annotations));
        }
        let redact: Vec<Rect> = if opts.redact {
            obs.elements
                .iter()
                .filter(|e| e.sensitive)
                .map(|e| e.bounds)
                .collect()
        } else {
            Vec::new()
        };
        let req = RenderRequest {
            image: &png,
            marks: &marks,
            style: &opts.style,
            device_scale_factor: dpr * scale,
            origin: Point {
                x: area.x,
                y: area.y,
            },
            redact: &redact,
            max_size: opts.max_size,
            format: opts.format,
        };
        let mut pixels = self.take_pixel_buffer();
        let out = render::render_with(&req, &mut pixels);
        self.give_pixel_buffer(pixels);
        let out = out?;
        let render_ms = t1.elapsed().as_secs_f64() * 1000.0;
        let mut observation = obs;
        observation.timings.screenshot_ms = Some(shot_ms);
        observation.timings.render_ms = Some(render_ms);
        // Before the size cap, whether Chromium or the renderer applied it.
        let (original_width, original_height) = if scale < 1.0 {
            let px = |css: f64| (css * dpr).round() as u32;
            (px(area.width), px(area.height))
        } else {
            (out.original_width, out.original_height)
        };
        Ok(Shot {
            format: out.format.as_str(),
            width: out.width,
            height: out.height,
            original_width,
            original_height,
            area,
            annotated: out.drawn > 0,
            annotation_map: out.annotation_map,
            drawn: out.drawn,
            clipped: out.clipped,
            dropped: out.dropped,
            over_limit: out.over_limit,
            not_labelled: out.not_labelled,
            redacted: redact.len(),
            screenshot_ms: shot_ms,
            render_ms,
            render_timings: out.timings,
            boxes: out.boxes,
            placements: out.placements,
            data: out.data,
            observation,
        })
    }
}

/// The scale at which a capture of `w`×`h` CSS px at `dpr` fits the size cap
/// (1 when it fits already). Slightly under the exact ratio, so that
/// Chromium's rounding never lands a pixel over the cap (which would mean a
/// resize here).
fn cap_scale(w: f64, h: f64, dpr: f64, cap: Option<(u32, u32)>) -> f64 {
    let Some((mw, mh)) = cap else { return 1.0 };
    let (dw, dh) = (w * dpr, h * dpr);
    if !(dw > 0.0 && dh > 0.0) || (dw <= f64::from(mw) && dh <= f64::from(mh)) {
        return 1.0;
    }
    let s = (f64::from(mw) / dw).min(f64::from(mh) / dh) * (1.0 - 1e-9);
    s.clamp(0.01, 1.0)
}

/// The visible area in page CSS px (scroll offset and viewport size).
async fn visible_area(page: &PageState) -> Result<Rect> {
    let v = page
        .page
        .eval("[scrollX, scrollY, innerWidth, innerHeight]")
        .await?;
    let n: Vec<f64> = v
        .as_array()
        .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
        .unwrap_or_default();
    match n[..] {
        [x, y, w, h] if w > 0.0 && h > 0.0 => Ok(Rect::new(x, y, w, h)),
        _ => Err(Error::Internal(format!("viewport metrics unreadable: {v}"))),
    }
}

/// Pixel buffers up to this size are kept for the next render (a 1920×1080
/// capture at DPR 2 is 24.9 MB).
const KEEP_PIXEL_BUFFER: usize = 32 << 20;

impl Session {
    fn take_pixel_buffer(&self) -> Vec<u8> {
        self.pixel_buffers
            .lock()
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_default()
    }

    /// Keep a buffer for the next render: at most two (concurrent shots on two pages).
    fn give_pixel_buffer(&self, buf: Vec<u8>) {
        if buf.capacity() == 0 || buf.capacity() > KEEP_PIXEL_BUFFER {
            return;
        }
        if let Ok(mut v) = self.pixel_buffers.lock() {
            if v.len() < 2 {
                v.push(buf);
            }
        }
    }
}

/// Page CSS px rectangle of the first element matching `sel` (shadow roots not pierced).
async fn scope_rect(page: &PageState, sel: &str) -> Result<Rect> {
    let js = format!(
        "(() => {{ let el; try {{ el = document.querySelector({s}); }} catch (e) {{ return 'bad'; }} if (!el) return null; const r = el.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }})()",
        s = serde_json::to_string(sel)?
    );
    match page.page.eval(&js).await? {
        serde_json::Value::Array(v) if v.len() == 4 => {
            let n: Vec<f64> = v.iter().map(|x| x.as_f64().unwrap_or(0.0)).collect();
            Ok(Rect::new(n[0], n[1], n[2], n[3]))
        }
        serde_json::Value::String(s) if s == "bad" => Err(Error::invalid_field(
            "scope",
            format!("{sel:?} is not a valid CSS selector"),
        )),
        _ => Err(Error::ElementNotFound {
            target: sel.to_string(),
            stale: false,
        }),
    }
}
