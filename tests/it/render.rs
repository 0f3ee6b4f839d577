//! Golden-image tests for the Set-of-Marks renderer on synthetic pages drawn in
//! code (white page, grey "text" bars, boxes where controls would be).
//!
//! Each case renders, runs the layout checker, and compares the decoded output
//! pixel-exactly with `fixtures/golden/<name>.png`. Regenerate the goldens with
//! `PINPOINT_REGEN_GOLDEN=1 cargo test --test it render`; a missing golden fails.

use std::path::PathBuf;

use image::{Rgb, RgbImage};
use pinpoint::model::{Mark, MarkKind, Point, Rect};
use pinpoint::render::{self, check_layout, OutputFormat, RenderRequest, Rendered, Style};

const TEXT: Rgb<u8> = Rgb([200, 203, 208]);
const HEADING: Rgb<u8> = Rgb([120, 124, 130]);
const LINK: Rgb<u8> = Rgb([120, 160, 230]);
const FIELD_BORDER: Rgb<u8> = Rgb([150, 155, 165]);
const BUTTON: Rgb<u8> = Rgb([40, 90, 200]);
const IMAGE: Rgb<u8> = Rgb([228, 232, 238]);

/// A synthetic page in CSS px, drawn at a device scale factor.
struct Page {
    img: RgbImage,
    dpr: u32,
    marks: Vec<Mark>,
    redact: Vec<Rect>,
}

impl Page {
    fn new(css_w: u32, css_h: u32, dpr: u32) -> Page {
        Page {
            img: RgbImage::from_pixel(css_w * dpr, css_h * dpr, Rgb([255, 255, 255])),
            dpr,
            marks: Vec::new(),
            redact: Vec::new(),
        }
    }

    fn fill(&mut self, x: f64, y: f64, w: f64, h: f64, c: Rgb<u8>) {
        let d = f64::from(self.dpr);
        let (iw, ih) = (f64::from(self.img.width()), f64::from(self.img.height()));
        let x0 = (x * d).round().clamp(0.0, iw) as u32;
        let y0 = (y * d).round().clamp(0.0, ih) as u32;
        let x1 = ((x + w) * d).round().clamp(0.0, iw) as u32;
        let y1 = ((y + h) * d).round().clamp(0.0, ih) as u32;
        for yy in y0..y1 {
            for xx in x0..x1 {
                self.img.put_pixel(xx, yy, c);
            }
        }
    }

    fn text(&mut self, x: f64, y: f64, w: f64) {
        self.fill(x, y + 4.0, w, 8.0, TEXT);
    }

    fn paragraph(&mut self, x: f64, y: f64, w: f64, lines: usize) {
        for i in 0..lines {
            let lw = if i + 1 == lines {
                w * 0.6
            } else {
                w - (i % 3) as f64 * 14.0
            };
            self.text(x, y + i as f64 * 18.0, lw);
        }
    }

    fn mark(&mut self, x: f64, y: f64, w: f64, h: f64, r: &str, kind: MarkKind) {
        self.marks.push(Mark {
            rect: Rect::new(x, y, w, h),
            ref_: r.to_string(),
            kind,
            color: None,
            region: None,
        });
    }

    fn link(&mut self, x: f64, y: f64, w: f64, h: f64, r: &str) {
        self.fill(x, y + (h - 8.0) / 2.0, w, 8.0, LINK);
        self.mark(x, y, w, h, r, MarkKind::Link);
    }

    fn input(&mut self, x: f64, y: f64, w: f64, h: f64, r: &str) {
        self.fill(x, y, w, h, FIELD_BORDER);
        self.fill(x + 1.0, y + 1.0, w - 2.0, h - 2.0, Rgb([255, 255, 255]));
        self.mark(x, y, w, h, r, MarkKind::TextInput);
    }

    fn checkbox(&mut self, x: f64, y: f64, r: &str) {
        self.fill(x, y, 14.0, 14.0, FIELD_BORDER);
        self.fill(x + 2.0, y + 2.0, 10.0, 10.0, Rgb([255, 255, 255]));
        self.mark(x, y, 14.0, 14.0, r, MarkKind::Choice);
    }

    fn button(&mut self, x: f64, y: f64, w: f64, h: f64, r: &str) {
        self.fill(x, y, w, h, BUTTON);
        self.fill(
            x + 12.0,
            y + h / 2.0 - 4.0,
            w - 24.0,
            8.0,
            Rgb([230, 236, 250]),
        );
        self.mark(x, y, w, h, r, MarkKind::Button);
    }

    fn png(&self) -> Vec<u8> {
        render::encode(&self.img, OutputFormat::Png).unwrap_or_default()
    }
}

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/golden")
        .join(format!("{name}.png"))
}

/// Compare with (or, with PINPOINT_REGEN_GOLDEN=1, rewrite) the golden image.
fn assert_golden(name: &str, r: &Rendered) {
    let path = golden_path(name);
    if std::env::var("PINPOINT_REGEN_GOLDEN").as_deref() == Ok("1") {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&path, &r.data).unwrap_or_else(|e| panic!("{e}"));
        return;
    }
    let Ok(golden) = std::fs::read(&path) else {
        panic!(
            "golden image {} is missing; regenerate with PINPOINT_REGEN_GOLDEN=1 cargo test --test it render",
            path.display()
        );
    };
    let want = image::load_from_memory(&golden)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_rgb8();
    let got = image::load_from_memory(&r.data)
        .unwrap_or_else(|e| panic!("output: {e}"))
        .into_rgb8();
    if want.dimensions() != got.dimensions() || want.as_raw() != got.as_raw() {
        let actual = std::env::temp_dir().join(format!("pinpoint-golden-actual-{name}.png"));
        let _ = std::fs::write(&actual, &r.data);
        let diff = want
            .pixels()
            .zip(got.pixels())
            .filter(|(a, b)| a != b)
            .count();
        panic!(
            "{name}: output differs from {} ({:?} vs {:?}, {diff} pixels differ); actual written to {}; \
             if the change is intended, regenerate with PINPOINT_REGEN_GOLDEN=1 cargo test --test it render",
            path.display(),
            got.dimensions(),
            want.dimensions(),
            actual.display()
        );
    }
}

/// Render, check the layout's hard rules, and compare with the golden.
fn run(
    name: &str,
    page: &Page,
    configure: impl FnOnce(&mut RenderRequest),
) -> (Rendered, render::LayoutReport) {
    let png = page.png();
    let style = Style::default();
    let mut req = RenderRequest::new(&png, &page.marks, &style);
    req.device_scale_factor = f64::from(page.dpr);
    req.redact = &page.redact;
    configure(&mut req);
    let r = render::render(&req).unwrap_or_else(|e| panic!("{name}: {e}"));
    let rep = check_layout(&r.boxes, &r.placements, (r.width, r.height));
    eprintln!(
        "{name}: {}x{} drawn={} clipped={} dropped={} over_limit={} {rep:?}",
        r.width, r.height, r.drawn, r.clipped, r.dropped, r.over_limit
    );
    assert_eq!(rep.badge_overlaps, 0, "{name}: {rep:?}");
    assert_eq!(rep.outside_image, 0, "{name}: {rep:?}");
    assert_eq!(rep.unplaced, 0, "{name}: {rep:?}");
    assert_eq!(rep.detached_without_leader, 0, "{name}: {rep:?}");
    assert_eq!((r.not_labelled, r.notice), (0, None), "{name}");
    assert_eq!(r.annotation_map.len(), r.drawn);
    for m in &r.annotation_map {
        assert!(m.position.x >= 0.0 && m.position.y >= 0.0, "{name}: {m:?}");
        assert!(
            m.position.x < f64::from(r.width) && m.position.y < f64::from(r.height),
            "{name}: {m:?}"
        );
    }
    assert_golden(name, &r);
    (r, rep)
}

/// A sign-in form in CSS px (640×420).
fn form_page(dpr: u32) -> Page {
    let mut p = Page::new(640, 420, dpr);
    p.fill(40.0, 24.0, 220.0, 18.0, HEADING);
    p.paragraph(40.0, 56.0, 520.0, 2);
    p.text(40.0, 104.0, 60.0);
    p.input(40.0, 124.0, 320.0, 32.0, "@email");
    p.text(40.0, 168.0, 80.0);
    p.input(40.0, 188.0, 320.0, 32.0, "@password");
    p.redact.push(Rect::new(44.0, 194.0, 120.0, 20.0));
    p.link(380.0, 196.0, 120.0, 16.0, "@forgot-password");
    p.checkbox(40.0, 238.0, "@remember-me");
    p.text(62.0, 237.0, 110.0);
    p.input(40.0, 270.0, 200.0, 32.0, "@country");
    if let Some(m) = p.marks.last_mut() {
        m.kind = MarkKind::Choice;
    }
    p.button(40.0, 326.0, 140.0, 40.0, "@sign-in");
    p.link(200.0, 338.0, 150.0, 16.0, "@create-account");
    p
}

#[test]
fn golden_simple_form() {
    let page = form_page(1);
    let (r, rep) = run("simple_form", &page, |_| {});
    assert_eq!((r.drawn, r.dropped, r.clipped), (7, 0, 0));
    assert_eq!(rep.covering_other_marks, 0, "{rep:?}");
    let labels: Vec<(&str, &str)> = r
        .annotation_map
        .iter()
        .map(|m| (m.label.as_str(), m.ref_.as_str()))
        .collect();
    assert_eq!(
        labels,
        [
            ("1", "@email"),
            ("2", "@password"),
            ("3", "@forgot-password"),
            ("4", "@remember-me"),
            ("5", "@country"),
            ("6", "@sign-in"),
            ("7", "@create-account"),
        ]
    );
}

/// Six identical product cards (3×2), each with a title link and "Add to cart".
fn cards_page() -> Page {
    let mut p = Page::new(1280, 720, 1);
    p.fill(0.0, 0.0, 1280.0, 56.0, Rgb([245, 246, 248]));
    p.link(32.0, 20.0, 90.0, 16.0, "@home");
    p.link(1150.0, 20.0, 90.0, 16.0, "@cart");
    for i in 0..6 {
        let x = 40.0 + (i % 3) as f64 * 410.0;
        let y = 80.0 + (i / 3) as f64 * 310.0;
        p.fill(x, y, 380.0, 290.0, Rgb([236, 238, 242]));
        p.fill(x + 1.0, y + 1.0, 378.0, 288.0, Rgb([255, 255, 255]));
        p.fill(x + 16.0, y + 16.0, 348.0, 140.0, IMAGE);
        p.link(
            x + 16.0,
            y + 172.0,
            200.0,
            18.0,
            &format!("@product-{}", i + 1),
        );
        p.text(x + 16.0, y + 196.0, 90.0);
        p.button(
            x + 16.0,
            y + 230.0,
            130.0,
            40.0,
            &format!("@add-to-cart-{}", i + 1),
        );
    }
    p
}

#[test]
fn golden_product_cards() {
    let page = cards_page();
    let (r, rep) = run("product_cards", &page, |_| {});
    assert_eq!((r.drawn, r.dropped), (14, 0));
    assert_eq!(rep.covering_other_marks, 0, "{rep:?}");
    // Reading order: header row, then each card row's titles, then its buttons.
    let refs: Vec<&str> = r.annotation_map.iter().map(|m| m.ref_.as_str()).collect();
    assert_eq!(
        &refs[..8],
        [
            "@home",
            "@cart",
            "@product-1",
            "@product-2",
            "@product-3",
            "@add-to-cart-1",
            "@add-to-cart-2",
            "@add-to-cart-3"
        ]
    );
    // Every badge touches its own box (no leader needed on this page).
    assert!(r.placements.iter().all(|p| p.leader.is_none()));
}

/// A dense link index: 300 links in 4 columns of 75 rows, 16-px rows.
fn dense_page() -> Page {
    let mut p = Page::new(1280, 1240, 1);
    p.fill(16.0, 8.0, 300.0, 16.0, HEADING);
    for i in 0..300 {
        let col = i / 75;
        let row = i % 75;
        let w = 60.0 + ((i * 37) % 140) as f64;
        p.link(
            16.0 + col as f64 * 250.0,
            32.0 + row as f64 * 16.0,
            w,
            16.0,
            &format!("@fn-{i}"),
        );
    }
    p.paragraph(1030.0, 32.0, 230.0, 40);
    p
}

#[test]
fn golden_dense_sidebar() {
    let page = dense_page();
    let (r, rep) = run("dense_sidebar", &page, |req| req.max_size = None);
    assert_eq!((r.drawn, r.dropped), (300, 0));
    eprintln!("dense: covering_other_marks={}", rep.covering_other_marks);
    // Row-major reading order across the four columns.
    assert_eq!(r.annotation_map[0].ref_, "@fn-0");
    assert_eq!(r.annotation_map[1].ref_, "@fn-75");
    assert_eq!(r.annotation_map[4].ref_, "@fn-1");
}

#[test]
fn golden_dpr2_form() {
    let page = form_page(2);
    let (r, rep) = run("dpr2_form", &page, |_| {});
    assert_eq!((r.width, r.height), (1280, 840));
    assert_eq!(r.drawn, 7);
    assert_eq!(rep.covering_other_marks, 0, "{rep:?}");
    // Badge of @email sits above its box at 2× size (box top 124 CSS px = 248
    // device px), right-aligned: the left corner would cover the label text.
    let email = r.annotation_map.iter().find(|m| m.ref_ == "@email");
    assert_eq!(
        email.map(|m| m.position),
        Some(Point { x: 688.0, y: 216.0 })
    );
}

#[test]
fn golden_scoped_capture() {
    // The capture is the page area from (200, 180), 560×400 CSS px.
    let page = cards_page();
    let scoped = image::imageops::crop_imm(&page.img, 200, 180, 560, 400).to_image();
    let png = render::encode(&scoped, OutputFormat::Png).unwrap_or_default();
    let style = Style::default();
    let mut req = RenderRequest::new(&png, &page.marks, &style);
    req.origin = Point { x: 200.0, y: 180.0 };
    let r = render::render(&req).unwrap_or_else(|e| panic!("{e}"));
    let rep = check_layout(&r.boxes, &r.placements, (r.width, r.height));
    assert_eq!(
        (
            rep.badge_overlaps,
            rep.outside_image,
            rep.unplaced,
            rep.detached_without_leader
        ),
        (0, 0, 0, 0),
        "{rep:?}"
    );
    assert_eq!(rep.covering_other_marks, 0, "{rep:?}");
    // Visible: card 2 (title + button) and card 5's title whole; the titles of
    // cards 1 and 4 cut by the left edge; everything else is outside.
    let refs: Vec<&str> = r.annotation_map.iter().map(|m| m.ref_.as_str()).collect();
    assert_eq!(
        refs,
        [
            "@product-1",
            "@product-2",
            "@add-to-cart-2",
            "@product-4",
            "@product-5"
        ]
    );
    assert_eq!((r.drawn, r.clipped, r.dropped), (5, 2, 9));
    // The clipped box starts at the image edge.
    assert_eq!(r.boxes.iter().map(|b| b.x).fold(f64::MAX, f64::min), 0.0);
    assert_golden("scoped_capture", &r);
}

#[test]
fn golden_tall_full_page() {
    // 1280×4000 full page with sections of forms and link lists; no size cap.
    let mut p = Page::new(1280, 4000, 1);
    for s in 0..8 {
        let y = 40.0 + s as f64 * 490.0;
        p.fill(40.0, y, 400.0, 22.0, HEADING);
        p.paragraph(40.0, y + 40.0, 760.0, 6);
        for j in 0..6 {
            p.link(
                40.0 + j as f64 * 130.0,
                y + 160.0,
                110.0,
                18.0,
                &format!("@s{s}-link{j}"),
            );
        }
        p.input(40.0, y + 210.0, 360.0, 34.0, &format!("@s{s}-search"));
        p.button(420.0, y + 207.0, 120.0, 40.0, &format!("@s{s}-go"));
        p.paragraph(40.0, y + 270.0, 1100.0, 8);
        p.fill(860.0, y + 40.0, 360.0, 200.0, IMAGE);
    }
    let (r, rep) = run("tall_full_page", &p, |req| req.max_size = None);
    assert_eq!((r.width, r.height), (1280, 4000));
    assert_eq!((r.drawn, r.dropped, r.clipped), (64, 0, 0));
    assert_eq!(rep.covering_other_marks, 0, "{rep:?}");
    // With the default cap the same page is fit into 1920×1080: 346×1080.
    let png = p.png();
    let style = Style::default();
    let r = render::render(&RenderRequest::new(&png, &p.marks, &style))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((r.width, r.height, r.original_height), (346, 1080, 4000));
    let rep = check_layout(&r.boxes, &r.placements, (r.width, r.height));
    assert_eq!((rep.badge_overlaps, rep.outside_image), (0, 0));
}

#[test]
fn pins_are_numbered_separately_and_listed() {
    let mut page = form_page(1);
    page.marks.push(Mark {
        rect: Rect::new(40.0, 326.0, 140.0, 40.0),
        ref_: "@sign-in".into(),
        kind: MarkKind::Pin,
        color: Some("#e11d48".into()),
        region: None,
    });
    page.marks.push(Mark {
        rect: Rect::new(40.0, 124.0, 320.0, 32.0),
        ref_: "@email".into(),
        kind: MarkKind::Pin,
        color: None,
        region: None,
    });
    let (r, _) = run("form_with_pins", &page, |_| {});
    let tail: Vec<(&str, &str)> = r.annotation_map[7..]
        .iter()
        .map(|m| (m.label.as_str(), m.ref_.as_str()))
        .collect();
    assert_eq!(tail, [("P1", "@email"), ("P2", "@sign-in")]);
}

/// Real Chromium captures of every fixture (and a 400-element page): the
/// layout rules hold, and numbering reads down a sidebar before the content
/// beside it.
#[test]
fn real_captures_keep_the_layout_rules_and_read_by_column() {
    use crate::harness::*;
    use pinpoint::app::shot::ShotOptions;
    run(async {
        let s = session().await;
        let pages = crate::observe::FIXTURES
            .iter()
            .copied()
            .chain(["many.html?n=400"]);
        for f in pages {
            let p = open(f).await;
            let shot = s.shot(&p, &ShotOptions::default()).await.unwrap();
            let rep = check_layout(&shot.boxes, &shot.placements, (shot.width, shot.height));
            assert_eq!(rep.badge_overlaps, 0, "{f}: {rep:?}");
            assert_eq!(rep.outside_image, 0, "{f}: {rep:?}");
            assert_eq!(rep.detached_without_leader, 0, "{f}: {rep:?}");
            assert_eq!(rep.unplaced, 0, "{f}: {rep:?}");
            assert!(shot.drawn > 0, "{f}");
            // Label → element name, in label order.
            let names: Vec<String> = shot
                .annotation_map
                .iter()
                .map(|m| {
                    let e = shot.observation.elements.iter().find(|e| e.ref_ == m.ref_);
                    e.map(|e| e.name.clone()).unwrap_or_default()
                })
                .collect();
            if f == "sidebar.html" {
                // 45 sidebar links in view, numbered top to bottom, then the table.
                let side = names.iter().take_while(|n| n.contains('.')).count();
                assert_eq!(side, 45, "{names:?}");
                assert_eq!(names[0], "Introduction 1.1");
                assert_eq!(names[1], "Installation 1.2");
                assert_eq!(names[45], "abs()", "{names:?}");
                assert_eq!(names[46], "all()", "{names:?}");
            }
            if f == "regions.html" {
                // Landmark regions stay together although the sidebar's rows
                // line up with the table's: the banner (Home, then its nav),
                // the Guide sidebar down, the table row by row, the footer.
                let mut want: Vec<String> =
                    ["Home", "Docs", "Blog", "About"].map(String::from).to_vec();
                want.extend((1..=12).map(|i| format!("Guide {i}")));
                for i in 1..=12 {
                    want.push(format!("fn_a{i}()"));
                    want.push(format!("fn_b{i}()"));
                }
                want.extend(["Privacy", "Terms"].map(String::from));
                assert_eq!(names, want);
                // Geometry alone reads the sidebar and the table as one table
                // (and cuts the header's nav off to the right of it).
                let bounds: Vec<pinpoint::model::Rect> = shot
                    .annotation_map
                    .iter()
                    .map(|m| {
                        let e = shot.observation.elements.iter().find(|e| e.ref_ == m.ref_);
                        e.unwrap().bounds
                    })
                    .collect();
                let geometric: Vec<&str> = pinpoint::render::reading_order(&bounds)
                    .into_iter()
                    .map(|k| names[k].as_str())
                    .collect();
                assert_eq!(
                    &geometric[1..4],
                    &["Guide 1", "fn_a1()", "fn_b1()"],
                    "{geometric:?}"
                );
                // One region per landmark: the header's nav is the banner's.
                let region = |n: &str| {
                    let e = shot.observation.elements.iter().find(|e| e.name == n);
                    e.and_then(|e| e.region)
                };
                assert!(region("Home").is_some());
                assert_eq!(region("Home"), region("About"));
                assert_eq!(region("Guide 1"), region("Guide 12"));
                assert_eq!(region("fn_a1()"), region("fn_b12()"));
                assert_eq!(region("Privacy"), region("Terms"));
                let distinct: std::collections::HashSet<_> =
                    ["Home", "Guide 1", "fn_a1()", "Privacy"].map(region).into();
                assert_eq!(distinct.len(), 4);
            }
            if f == "shop.html" {
                // The filter column (four checkboxes, "Clear filters") comes in one run.
                let at = |n: &str| names.iter().position(|x| x == n).unwrap_or(usize::MAX);
                let bags = at("Bags");
                assert_eq!(
                    [
                        at("Bottles"),
                        at("Stoves"),
                        at("Jackets"),
                        at("Clear filters")
                    ],
                    [bags + 1, bags + 2, bags + 3, bags + 4],
                    "{names:?}"
                );
            }
            s.close_page(&p.id).await.unwrap();
        }
    })
}

/// A DPR-2 viewport over the default size cap is drawn smaller by Chromium
/// (no resize here): 1920×1080 out of 2560×1440, marks where the elements are.
#[test]
fn a_capped_dpr2_capture_is_scaled_by_chromium_and_marks_line_up() {
    use crate::harness::*;
    use pinpoint::app::shot::ShotOptions;
    run(async {
        let s = session().await;
        let vp = pinpoint::browser::Viewport {
            dpr: 2.0,
            ..Default::default()
        };
        let p = open_with("many.html?n=400", vp).await;
        js(&p, "window.scrollTo(0, 300); 1").await;
        let shot = s.shot(&p, &ShotOptions::default()).await.unwrap();
        assert_eq!((shot.width, shot.height), (1920, 1080));
        assert_eq!((shot.original_width, shot.original_height), (2560, 1440));
        assert_eq!(
            shot.area,
            pinpoint::model::Rect::new(0.0, 300.0, 1280.0, 720.0)
        );
        let rep = check_layout(&shot.boxes, &shot.placements, (shot.width, shot.height));
        assert_eq!((rep.badge_overlaps, rep.outside_image), (0, 0), "{rep:?}");
        // Every laid-out box is its element's bounds × 1.5, less the scroll.
        let mut checked = 0;
        for e in &shot.observation.elements {
            let want = pinpoint::model::Rect::new(
                e.bounds.x * 1.5,
                (e.bounds.y - 300.0) * 1.5,
                e.bounds.width * 1.5,
                e.bounds.height * 1.5,
            );
            if !(want.y > 10.0 && want.bottom() < 1070.0 && e.tag == "button") {
                continue;
            }
            let b = shot
                .boxes
                .iter()
                .find(|b| (b.x - want.x).abs() < 1.0 && (b.y - want.y).abs() < 1.0);
            assert!(b.is_some(), "no laid-out box at {want:?}");
            checked += 1;
        }
        assert!(checked > 5, "{checked}");
        // The image is the visible area at that scale: close to a full-size
        // capture resized here (only resampling differs).
        let plain = ShotOptions {
            marks: false,
            ..Default::default()
        };
        let small = s.shot(&p, &plain).await.unwrap();
        let small = pinpoint::render::decode(&small.data, Vec::new()).unwrap();
        let full = p.page.screenshot(&Default::default()).await.unwrap();
        let full = pinpoint::render::decode(&full, Vec::new()).unwrap();
        assert_eq!(full.dimensions(), (2560, 1440));
        let mean = mean_diff_to_resized(&full, &small);
        assert!(mean < 8.0, "mean abs difference {mean}");
        s.close_page(&p.id).await.unwrap();
    })
}
