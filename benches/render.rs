//! Set-of-Marks rendering: layout + draw + encode of two real Chromium
//! captures (benches/data) and of synthetic screenshots at 1280×720 with 50,
//! 200 and 500 marks, and a 1920×1080 DPR-2 image. Each iteration is one full
//! `render` call (decode → draw → encode).
use std::hint::black_box;
use std::io::Cursor;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use image::{ImageFormat, Rgb, RgbImage};
use pinpoint::model::{Mark, MarkKind, Rect};
use pinpoint::render::{layout, reading_order, reading_order_in, render, RenderRequest, Style};

/// A page-like screenshot: light background with text-ish stripes.
fn screenshot(w: u32, h: u32) -> Vec<u8> {
    let img = RgbImage::from_fn(w, h, |x, y| {
        if (y / 18) % 2 == 0 && (x / 7) % 9 != 0 && x % 640 < 420 {
            Rgb([60, 64, 72])
        } else {
            Rgb([250, 250, 252])
        }
    });
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png).unwrap();
    out.into_inner()
}

/// `n` marks on a grid of rows (like links, buttons and inputs of a dense page).
fn marks(n: usize, w: f64, h: f64) -> Vec<Mark> {
    let cols = ((n as f64).sqrt() * w / h).ceil().max(1.0) as usize;
    let rows = n.div_ceil(cols);
    let cw = w / cols as f64;
    let rh = h / rows as f64;
    (0..n)
        .map(|i| {
            let (c, r) = (i % cols, i / cols);
            let kind = [
                MarkKind::Link,
                MarkKind::Button,
                MarkKind::TextInput,
                MarkKind::Choice,
            ][i % 4];
            Mark {
                rect: Rect::new(
                    c as f64 * cw + 4.0,
                    r as f64 * rh + 3.0,
                    (cw - 8.0).max(6.0),
                    (rh - 6.0).max(6.0),
                ),
                ref_: format!("@e{i:06}"),
                kind,
                color: None,
                region: None,
            }
        })
        .collect()
}

/// A real Chromium capture (`Page.captureScreenshot`, PNG, optimizeForSpeed)
/// of a fixture page at 1280×720, kept in `benches/data/`.
fn capture(name: &str) -> Vec<u8> {
    let path = format!("{}/benches/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn bench(c: &mut Criterion) {
    let style = Style::default();
    let mut g = c.benchmark_group("render_1280x720_capture");
    for page in ["demo", "sidebar"] {
        let png = capture(&format!("capture-{page}.png"));
        for n in [50usize, 200] {
            let m = marks(n, 1280.0, 720.0);
            g.bench_with_input(
                BenchmarkId::new(format!("{page}_layout_draw_encode"), n),
                &m,
                |b, m| b.iter(|| black_box(render(&RenderRequest::new(&png, m, &style)).unwrap())),
            );
        }
    }
    g.finish();
    // The parts of one render on a real capture: decode, and PNG encode with
    // each filter (fdeflate; sizes printed), which chose Paeth for `encode`.
    let mut g = c.benchmark_group("render_1280x720_parts");
    for page in ["demo", "sidebar"] {
        let png = capture(&format!("capture-{page}.png"));
        let mut buf = Vec::new();
        g.bench_function(format!("{page}_decode"), |b| {
            b.iter(|| {
                let img = pinpoint::render::decode(&png, std::mem::take(&mut buf)).unwrap();
                buf = black_box(img).into_raw();
            })
        });
        let img = pinpoint::render::decode(&png, Vec::new()).unwrap();
        let (w, h) = img.dimensions();
        for (name, filter) in [
            ("sub", png::Filter::Sub),
            ("up", png::Filter::Up),
            ("paeth", png::Filter::Paeth),
            ("adaptive", png::Filter::Adaptive),
        ] {
            let mut out = Vec::new();
            let enc = |out: &mut Vec<u8>| {
                out.clear();
                let mut e = png::Encoder::new(&mut *out, w, h);
                e.set_color(png::ColorType::Rgb);
                e.set_compression(png::Compression::Fast);
                e.set_filter(filter);
                let mut wr = e.write_header().unwrap();
                wr.write_image_data(&img).unwrap();
            };
            enc(&mut out);
            println!("{page}: PNG with filter {name}: {} bytes", out.len());
            g.bench_function(format!("{page}_encode_{name}"), |b| {
                b.iter(|| enc(&mut out))
            });
        }
        // What `render` uses: Paeth + fdeflate on two threads (two bands joined).
        let ours = pinpoint::render::encode(&img, pinpoint::render::OutputFormat::Png).unwrap();
        println!("{page}: two-thread PNG (Paeth): {} bytes", ours.len());
        g.bench_function(format!("{page}_encode_paeth_two_threads"), |b| {
            b.iter(|| {
                black_box(
                    pinpoint::render::encode(&img, pinpoint::render::OutputFormat::Png).unwrap(),
                )
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("render_1280x720");
    let png = screenshot(1280, 720);
    for n in [50usize, 200, 500] {
        let m = marks(n, 1280.0, 720.0);
        g.bench_with_input(BenchmarkId::new("layout_draw_encode", n), &m, |b, m| {
            b.iter(|| black_box(render(&RenderRequest::new(&png, m, &style)).unwrap()))
        });
        let boxes: Vec<Rect> = m.iter().map(|m| m.rect).collect();
        let sizes = vec![(22.0, 16.0); n];
        g.bench_with_input(BenchmarkId::new("layout_only", n), &boxes, |b, boxes| {
            b.iter(|| black_box(layout(boxes, &sizes, (1280, 720))))
        });
        g.bench_with_input(BenchmarkId::new("reading_order", n), &boxes, |b, boxes| {
            b.iter(|| black_box(reading_order(boxes)))
        });
        // The same grid as a page: its top row a banner, its first column a
        // sidebar, the rest main (rows line up across all three).
        let regions: Vec<Option<u64>> = boxes
            .iter()
            .map(|r| {
                Some(if r.y < boxes[0].bottom() {
                    1
                } else if r.x < boxes[0].right() {
                    2
                } else {
                    3
                })
            })
            .collect();
        g.bench_with_input(
            BenchmarkId::new("reading_order_regions", n),
            &boxes,
            |b, boxes| b.iter(|| black_box(reading_order_in(boxes, &regions))),
        );
    }
    // A crowded viewport: 2,000 and 5,000 marks (a spreadsheet's cells) where
    // most badges find no room; the last resort's budget bounds the work.
    for n in [2000usize, 5000] {
        let boxes: Vec<Rect> = marks(n, 1280.0, 720.0).iter().map(|m| m.rect).collect();
        let sizes = vec![(22.0, 16.0); n];
        g.bench_with_input(
            BenchmarkId::new("layout_only_crowded", n),
            &boxes,
            |b, boxes| b.iter(|| black_box(layout(boxes, &sizes, (1280, 720)))),
        );
    }
    g.finish();
    let mut g = c.benchmark_group("render_1920x1080_dpr2");
    let png = screenshot(3840, 2160);
    let m = marks(50, 1920.0, 1080.0);
    g.bench_function("layout_draw_encode_50_uncapped", |b| {
        b.iter(|| {
            let mut req = RenderRequest::new(&png, &m, &style);
            req.device_scale_factor = 2.0;
            req.max_size = None;
            black_box(render(&req).unwrap())
        })
    });
    g.bench_function("layout_draw_encode_50_capped_1920", |b| {
        b.iter(|| {
            let mut req = RenderRequest::new(&png, &m, &style);
            req.device_scale_factor = 2.0;
            black_box(render(&req).unwrap())
        })
    });
    // Not a whole-number ratio (bilinear): a DPR-2 capture of 1280×720 that
    // a caller hands over uncapped.
    let png1440 = screenshot(2560, 1440);
    g.bench_function("layout_draw_encode_50_capped_from_2560x1440", |b| {
        b.iter(|| {
            let mut req = RenderRequest::new(&png1440, &m, &style);
            req.device_scale_factor = 2.0;
            black_box(render(&req).unwrap())
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
