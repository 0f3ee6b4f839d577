//! Unit tests for the renderer: style parsing, contrast, coordinates, counts,
//! determinism and robustness against hostile input.

use super::*;
use serde_json::json;

fn png(w: u32, h: u32) -> Vec<u8> {
    let img = RgbImage::from_pixel(w, h, image::Rgb([255, 255, 255]));
    encode(&img, OutputFormat::Png).unwrap_or_default()
}

fn mark(x: f64, y: f64, w: f64, h: f64, r: &str, kind: MarkKind) -> Mark {
    Mark {
        rect: Rect::new(x, y, w, h),
        ref_: r.to_string(),
        kind,
        color: None,
        region: None,
    }
}

fn field_of(e: Error) -> String {
    match e {
        Error::InvalidInput { field, .. } => field.unwrap_or_default(),
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

#[test]
fn contrast_matches_wcag_reference_values() {
    assert!((Color::BLACK.contrast(Color::WHITE) - 21.0).abs() < 1e-9);
    assert!((Color::WHITE.contrast(Color::WHITE) - 1.0).abs() < 1e-9);
    // #777777 on white is the classic 4.48:1 just-failing grey.
    let grey = Color::rgb(0x77, 0x77, 0x77);
    assert!((grey.contrast(Color::WHITE) - 4.48).abs() < 0.01);
    // Automatic text colour reaches 4.5:1 on every default kind colour.
    for kind in [
        MarkKind::Button,
        MarkKind::Link,
        MarkKind::TextInput,
        MarkKind::Choice,
        MarkKind::Other,
        MarkKind::Pin,
    ] {
        let c = kind_color(kind);
        assert!(c.contrast(c.best_text()) >= 4.5, "{kind:?} {}", c.hex());
    }
    assert_eq!(Color::rgb(255, 255, 0).best_text(), Color::BLACK);
    assert_eq!(Color::rgb(0, 0, 128).best_text(), Color::WHITE);
}

#[test]
fn colours_parse_in_css_forms() {
    assert_eq!(Color::parse("#FF0000"), Some(Color::rgb(255, 0, 0)));
    assert_eq!(Color::parse("#0f0"), Some(Color::rgb(0, 255, 0)));
    assert_eq!(
        Color::parse("#11223344"),
        Some(Color::rgb(0x11, 0x22, 0x33))
    );
    assert_eq!(Color::parse("rgb(1, 2, 3)"), Some(Color::rgb(1, 2, 3)));
    assert_eq!(Color::parse("Blue"), Some(Color::rgb(0, 0, 255)));
    for bad in [
        "",
        "#12",
        "#ggg",
        "rgb(1,2)",
        "rgb(300,0,0)",
        "blurple",
        "#ffé",
    ] {
        assert_eq!(Color::parse(bad), None, "{bad}");
    }
}

#[test]
fn style_from_json_accepts_bap_forms() {
    assert_eq!(
        Style::from_json(&json!(true)).ok().flatten(),
        Some(Style::default())
    );
    assert_eq!(Style::from_json(&json!(false)).ok().flatten(), None);
    assert_eq!(
        Style::from_json(&json!({"enabled": false, "maxLabels": 5}))
            .ok()
            .flatten(),
        None
    );
    let s = Style::from_json(&json!({
        "enabled": true,
        "maxLabels": 10,
        "labelFormat": "both",
        "useStableRefs": true,
        "style": {
            "badge": {"color": "#FF0000", "textColor": "#FFFFFF", "size": 20, "font": "bold 14px sans-serif"},
            "box": {"color": "#00ff00", "width": 3, "style": "dashed"},
            "showBoundingBox": false,
            "opacity": 0.8
        }
    }))
    .ok()
    .flatten()
    .unwrap_or_default();
    assert_eq!(s.max_labels, Some(10));
    assert_eq!(s.label_format, LabelFormat::Both);
    assert_eq!(s.badge.color, Some(Color::rgb(255, 0, 0)));
    assert_eq!(s.badge.text_color, Some(Color::WHITE));
    assert_eq!(s.badge.size, Some(20.0));
    assert_eq!(s.box_.style, LineStyle::Dashed);
    assert_eq!(s.box_.width, Some(3.0));
    assert!(!s.show_bounding_box);
    assert_eq!(s.opacity, 0.8);
    let m = s.metrics(1.0);
    assert_eq!((m.badge_h, m.font_px, m.stroke), (20.0, 14.0, 3.0));
    // Serde round trip in camelCase.
    let v = serde_json::to_value(&s).unwrap_or_default();
    assert_eq!(v["style"], serde_json::Value::Null);
    assert_eq!(v["box"]["style"], "dashed");
    assert_eq!(v["badge"]["textColor"], "#ffffff");
    assert_eq!(v["labelFormat"], "both");
    let back: Style = serde_json::from_value(v).unwrap_or_default();
    assert_eq!(back, s);
}

#[test]
fn style_errors_name_the_field() {
    let cases = [
        (
            json!({"enabled": true, "style": {"badge": {"color": "reddish"}}}),
            "annotateScreenshot.style.badge.color",
        ),
        (
            json!({"enabled": true, "style": {"box": {"style": "dotted"}}}),
            "annotateScreenshot.style.box.style",
        ),
        (
            json!({"enabled": true, "style": {"opacity": 2}}),
            "annotateScreenshot.style.opacity",
        ),
        (
            json!({"enabled": true, "style": {"badge": {"size": 0}}}),
            "annotateScreenshot.style.badge.size",
        ),
        (
            json!({"enabled": true, "style": {"box": {"width": 100}}}),
            "annotateScreenshot.style.box.width",
        ),
        (
            json!({"enabled": true, "style": {"badge": {"font": "bold 4px x"}}}),
            "annotateScreenshot.style.badge.font",
        ),
        (
            json!({"enabled": true, "labelFormat": "roman"}),
            "annotateScreenshot.labelFormat",
        ),
        (
            json!({"enabled": true, "maxLabels": 0}),
            "annotateScreenshot.maxLabels",
        ),
        (
            json!({"enabled": true, "maxLabels": -3}),
            "annotateScreenshot.maxLabels",
        ),
        (json!({"enabled": "yes"}), "annotateScreenshot.enabled"),
        (json!({"style": {}}), "annotateScreenshot.enabled"),
        (
            json!({"enabled": true, "colour": 1}),
            "annotateScreenshot.colour",
        ),
        (
            json!({"enabled": true, "style": {"badge": {"colour": "red"}}}),
            "annotateScreenshot.style.badge.colour",
        ),
        (
            json!({"enabled": true, "style": {"badge": 3}}),
            "annotateScreenshot.style.badge",
        ),
        (json!(42), "annotateScreenshot"),
    ];
    for (v, field) in cases {
        let e = Style::from_json(&v).err();
        assert!(e.is_some(), "{v} should fail");
        if let Some(e) = e {
            assert_eq!(e.code(), "invalid_input");
            assert_eq!(field_of(e), field, "{v}");
        }
    }
    // Styles built in code are validated by render too.
    let s = Style {
        opacity: f64::NAN,
        ..Style::default()
    };
    let img = png(10, 10);
    let e = render(&RenderRequest::new(&img, &[], &s)).err();
    assert_eq!(e.map(field_of).as_deref(), Some("style.opacity"));
}

#[test]
fn request_validation_errors() {
    let img = png(10, 10);
    let s = Style::default();
    let mut r = RenderRequest::new(&img, &[], &s);
    r.device_scale_factor = 0.0;
    assert_eq!(
        render(&r).err().map(field_of).as_deref(),
        Some("deviceScaleFactor")
    );
    r.device_scale_factor = 1.0;
    r.origin.x = f64::INFINITY;
    assert_eq!(render(&r).err().map(field_of).as_deref(), Some("origin"));
    r.origin.x = 0.0;
    r.max_size = Some((0, 10));
    assert_eq!(render(&r).err().map(field_of).as_deref(), Some("maxSize"));
    r.max_size = None;
    r.format = OutputFormat::Jpeg { quality: 0 };
    assert_eq!(render(&r).err().map(field_of).as_deref(), Some("quality"));
}

#[test]
fn decode_widens_grey_drops_alpha_and_reads_jpeg() {
    use image::{DynamicImage, GrayImage, ImageFormat, Luma, Rgba, RgbaImage};
    let enc = |img: DynamicImage, f: ImageFormat| {
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, f).unwrap_or_else(|e| panic!("{e}"));
        out.into_inner()
    };
    let grey = enc(
        DynamicImage::ImageLuma8(GrayImage::from_pixel(3, 2, Luma([77]))),
        ImageFormat::Png,
    );
    let rgba = enc(
        DynamicImage::ImageRgba8(RgbaImage::from_pixel(3, 2, Rgba([10, 20, 30, 40]))),
        ImageFormat::Png,
    );
    let jpeg = enc(
        DynamicImage::ImageRgb8(RgbImage::from_pixel(8, 8, image::Rgb([200, 100, 50]))),
        ImageFormat::Jpeg,
    );
    // A used buffer of another size is reused without leaking old pixels.
    let used = vec![9u8; 1000];
    let g = decode(&grey, used).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((g.width(), g.height()), (3, 2));
    assert!(g.pixels().all(|p| p.0 == [77, 77, 77]));
    let a = decode(&rgba, Vec::new()).unwrap_or_else(|e| panic!("{e}"));
    assert!(a.pixels().all(|p| p.0 == [10, 20, 30]));
    let j = decode(&jpeg, Vec::new()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((j.width(), j.height()), (8, 8));
    assert!(j
        .pixels()
        .all(|p| p.0[0].abs_diff(200) < 8 && p.0[2].abs_diff(50) < 8));
    // The direct PNG path and the `image` crate agree on a real capture.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/capture-sidebar.png"
    );
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let ours = decode(&bytes, Vec::new()).unwrap_or_else(|e| panic!("{e}"));
    let theirs = image::load_from_memory(&bytes)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_rgb8();
    assert!(ours == theirs);
}

#[test]
fn a_huge_png_header_is_refused_before_allocating() {
    // Signature + IHDR claiming 100,000 × 100,000 RGB (30 GB) + an empty IEND.
    fn crc(data: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in data {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, body) in [
        (&b"IHDR"[..], {
            let mut b = 100_000u32.to_be_bytes().to_vec();
            b.extend(100_000u32.to_be_bytes());
            b.extend([8, 2, 0, 0, 0]);
            b
        }),
        (&b"IEND"[..], Vec::new()),
    ] {
        bytes.extend((body.len() as u32).to_be_bytes());
        let mut chunk = kind.to_vec();
        chunk.extend(&body);
        bytes.extend(&chunk);
        bytes.extend(crc(&chunk).to_be_bytes());
    }
    let e = render(&RenderRequest::new(&bytes, &[], &Style::default())).err();
    assert!(matches!(e, Some(Error::Image(_))), "{e:?}");
}

#[test]
fn unreadable_image_is_an_image_error() {
    let s = Style::default();
    for bytes in [
        &b""[..],
        &b"not a png"[..],
        &b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"[..],
    ] {
        let e = render(&RenderRequest::new(bytes, &[], &s)).err();
        assert!(matches!(e, Some(Error::Image(_))), "{e:?}");
    }
}

#[test]
fn a_crowded_image_numbers_the_drawn_marks_without_gaps() {
    // 3,000 marks tile a 1280×720 image: many find no room for a badge and
    // are dropped; the drawn ones are numbered 1..n in reading order.
    let img = png(1280, 720);
    let (cols, rows) = (100, 30);
    let marks: Vec<Mark> = (0..cols * rows)
        .map(|k| {
            let (c, r) = ((k % cols) as f64, (k / cols) as f64);
            mark(
                12.8 * c + 3.0,
                24.0 * r + 4.0,
                6.0,
                16.0,
                &format!("@m{k}"),
                MarkKind::Link,
            )
        })
        .collect();
    let s = Style::default();
    let r = render(&RenderRequest::new(&img, &marks, &s)).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.drawn > 1000 && r.dropped > 0, "{} {}", r.drawn, r.dropped);
    assert_eq!(r.drawn + r.dropped, marks.len());
    // All in the image: every dropped mark is one without room.
    assert_eq!(r.not_labelled, r.dropped);
    let labels: Vec<&str> = r.annotation_map.iter().map(|m| m.label.as_str()).collect();
    let want: Vec<String> = (1..=r.drawn).map(|n| n.to_string()).collect();
    assert_eq!(labels, want);
    // Still in reading order: each drawn mark's index (row-major here) grows.
    let index = |m: &AnnotationMapping| m.ref_[2..].parse::<usize>().unwrap();
    let order: Vec<usize> = r.annotation_map.iter().map(index).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    let rep = check_layout(&r.boxes, &r.placements, (r.width, r.height));
    assert_eq!((rep.badge_overlaps, rep.outside_image), (0, 0), "{rep:?}");
    // The image says that some marks have no badge: a dark notice inside
    // the image, clear of every badge.
    let n = r.notice.expect("a notice for the unlabelled marks");
    assert!(
        n.x >= 0.0 && n.y >= 0.0 && n.right() <= 1280.0 && n.bottom() <= 720.0,
        "{n:?}"
    );
    assert!(r
        .placements
        .iter()
        .filter(|p| p.placed)
        .all(|p| !p.rect.intersects(&n)));
    let out = decode(&r.data, Vec::new()).unwrap();
    let (cx, cy) = ((n.x + 3.0) as u32, (n.y + 2.0) as u32);
    assert_eq!(out.get_pixel(cx, cy).0, [0x22, 0x22, 0x22], "{n:?}");
}

#[test]
fn a_notice_only_when_marks_found_no_room() {
    let img = png(400, 200);
    let s = Style::default();
    let marks = [
        mark(20.0, 20.0, 60.0, 20.0, "@a", MarkKind::Button),
        // Off the image: dropped, but not for lack of room.
        mark(900.0, 20.0, 60.0, 20.0, "@b", MarkKind::Button),
    ];
    let r = render(&RenderRequest::new(&img, &marks, &s)).unwrap();
    assert_eq!(
        (r.drawn, r.dropped, r.not_labelled, r.notice),
        (1, 1, 0, None)
    );
    // An image too small for the notice still renders.
    let tiny = png(24, 24);
    let marks: Vec<Mark> = (0..8)
        .map(|k| {
            mark(
                2.0 * k as f64,
                2.0,
                2.0,
                20.0,
                &format!("@t{k}"),
                MarkKind::Link,
            )
        })
        .collect();
    let r = render(&RenderRequest::new(&tiny, &marks, &s)).unwrap();
    assert!(
        r.not_labelled > 0 && r.notice.is_none(),
        "{} {:?}",
        r.not_labelled,
        r.notice
    );
}

#[test]
fn labels_follow_reading_order_and_format() {
    let img = png(400, 200);
    // Given out of order: row 2 first, then row 1 right-to-left.
    let marks = [
        mark(20.0, 120.0, 60.0, 20.0, "@d", MarkKind::Link),
        mark(250.0, 40.0, 60.0, 20.0, "@c", MarkKind::Button),
        mark(140.0, 42.0, 60.0, 16.0, "@b", MarkKind::TextInput),
        mark(20.0, 40.0, 60.0, 20.0, "@a", MarkKind::Choice),
        mark(200.0, 150.0, 20.0, 20.0, "@pin2", MarkKind::Pin),
        mark(300.0, 100.0, 20.0, 20.0, "@pin1", MarkKind::Pin),
    ];
    let mut s = Style::default();
    let r = render(&RenderRequest::new(&img, &marks, &s)).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(String, String)> = r
        .annotation_map
        .iter()
        .map(|m| (m.label.clone(), m.ref_.clone()))
        .collect();
    let want = [
        ("1", "@a"),
        ("2", "@b"),
        ("3", "@c"),
        ("4", "@d"),
        ("P1", "@pin1"),
        ("P2", "@pin2"),
    ];
    assert_eq!(got.len(), want.len());
    for ((l, r_), (wl, wr)) in got.iter().zip(want) {
        assert_eq!((l.as_str(), r_.as_str()), (wl, wr));
    }
    assert_eq!(r.drawn, 6);
    s.label_format = LabelFormat::Both;
    let r = render(&RenderRequest::new(&img, &marks, &s)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.annotation_map[0].label, "1:@a");
    assert_eq!(r.annotation_map[4].label, "P1");
    s.label_format = LabelFormat::Ref;
    let r = render(&RenderRequest::new(&img, &marks, &s)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.annotation_map[1].label, "@b");
}

#[test]
fn clipping_dropping_and_limit_counts() {
    let img = png(200, 100);
    let marks = [
        mark(10.0, 10.0, 40.0, 20.0, "@in", MarkKind::Button),
        mark(-20.0, 10.0, 40.0, 20.0, "@left-clipped", MarkKind::Button),
        mark(180.0, 90.0, 50.0, 50.0, "@corner-clipped", MarkKind::Link),
        mark(300.0, 10.0, 40.0, 20.0, "@outside", MarkKind::Link),
        mark(50.0, 50.0, 0.0, 20.0, "@zero", MarkKind::Link),
        mark(50.0, 50.0, 30.0, -20.0, "@negative", MarkKind::Link),
        mark(f64::NAN, 50.0, 30.0, 20.0, "@nan", MarkKind::Link),
        mark(100.0, 40.0, 30.0, 20.0, "@over", MarkKind::Link),
        mark(140.0, 60.0, 10.0, 10.0, "@pin", MarkKind::Pin),
    ];
    let s = Style {
        max_labels: Some(3),
        ..Style::default()
    };
    let r = render(&RenderRequest::new(&img, &marks, &s)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.dropped, 4);
    assert_eq!(r.over_limit, 1);
    assert_eq!(r.drawn, 4);
    assert_eq!(r.clipped, 2);
    let refs: Vec<&str> = r.annotation_map.iter().map(|m| m.ref_.as_str()).collect();
    assert!(refs.contains(&"@pin") && !refs.contains(&"@over") && !refs.contains(&"@outside"));
}

#[test]
fn coordinates_use_dpr_origin_and_cap() {
    // 800×400 screenshot at DPR 2 of a 400×200 CSS area scrolled to (100, 50),
    // capped to 400×200: net scale 1, so CSS (150, 100) lands at (50, 50).
    let img = png(800, 400);
    let marks = [mark(150.0, 100.0, 40.0, 20.0, "@x", MarkKind::Button)];
    let s = Style::default();
    let mut req = RenderRequest::new(&img, &marks, &s);
    req.device_scale_factor = 2.0;
    req.origin = Point { x: 100.0, y: 50.0 };
    req.max_size = Some((400, 300));
    let r = render(&req).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (r.width, r.height, r.original_width, r.original_height),
        (400, 200, 800, 400)
    );
    // Badge above-left of the box: x = 50, y = 50 - 16.
    assert_eq!(r.annotation_map[0].position, Point { x: 50.0, y: 34.0 });
    let out = image::load_from_memory(&r.data)
        .map(|i| i.into_rgb8())
        .unwrap_or_default();
    // The box stroke (button red) sits on the box's left edge, inside it.
    assert_eq!(out.get_pixel(50, 60).0, [0xdc, 0x26, 0x26]);
    assert_eq!(out.get_pixel(48, 60).0, [255, 255, 255]);
}

#[test]
fn redaction_covers_the_area() {
    let img = png(100, 100);
    let s = Style::default();
    let mut req = RenderRequest::new(&img, &[], &s);
    let red = [Rect::new(10.2, 10.2, 20.0, 20.0)];
    req.redact = &red;
    let r = render(&req).unwrap_or_else(|e| panic!("{e}"));
    let out = image::load_from_memory(&r.data)
        .map(|i| i.into_rgb8())
        .unwrap_or_default();
    assert_eq!(out.get_pixel(10, 10).0, [0x33, 0x33, 0x33]);
    assert_eq!(out.get_pixel(30, 30).0, [0x33, 0x33, 0x33]);
    assert_eq!(out.get_pixel(9, 9).0, [255, 255, 255]);
}

#[test]
fn rendering_is_deterministic() {
    let img = png(640, 480);
    let marks: Vec<Mark> = (0..120)
        .map(|i| {
            mark(
                (i % 8) as f64 * 80.0 + 5.0,
                (i / 8) as f64 * 30.0 + 5.0,
                50.0 + (i % 3) as f64 * 7.0,
                18.0,
                &format!("@e{i}"),
                MarkKind::Link,
            )
        })
        .collect();
    let s = Style::default();
    let a = render(&RenderRequest::new(&img, &marks, &s)).unwrap_or_else(|e| panic!("{e}"));
    let mut b = render(&RenderRequest::new(&img, &marks, &s)).unwrap_or_else(|e| panic!("{e}"));
    b.timings = a.timings;
    assert_eq!(a, b);
    let mut req = RenderRequest::new(&img, &marks, &s);
    req.format = OutputFormat::Jpeg { quality: 80 };
    let j = render(&req).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&j.data[..2], &[0xff, 0xd8]);
}

#[test]
fn hostile_rects_do_not_panic() {
    let img = png(64, 64);
    let big = f64::MAX;
    let marks = [
        mark(
            f64::NAN,
            f64::NAN,
            f64::NAN,
            f64::NAN,
            "@a",
            MarkKind::Other,
        ),
        mark(-big, -big, big, big, "@b", MarkKind::Other),
        mark(0.0, 0.0, big, big, "@c", MarkKind::Other),
        mark(-1e300, 0.0, 2e300, 10.0, "@d", MarkKind::Other),
        mark(f64::INFINITY, 0.0, 10.0, 10.0, "@e", MarkKind::Other),
        mark(10.0, 10.0, -1e9, -1e9, "@f", MarkKind::Other),
        mark(1.0, 1.0, 1e-9, 1e-9, "@g", MarkKind::Other),
    ];
    let red = [
        Rect::new(f64::NAN, 0.0, big, big),
        Rect::new(-big, -big, big, big),
    ];
    let s = Style::default();
    for origin in [Point::default(), Point { x: big, y: -big }] {
        let mut req = RenderRequest::new(&img, &marks, &s);
        req.redact = &red;
        req.origin = origin;
        let r = render(&req).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.drawn + r.dropped, marks.len());
    }
    // A badge wider than a tiny image: counted, not drawn, no panic.
    let tiny = png(4, 4);
    let m = [mark(0.0, 0.0, 4.0, 4.0, "@t", MarkKind::Button)];
    let r = render(&RenderRequest::new(&tiny, &m, &s)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((r.drawn, r.dropped), (0, 1));
}

#[test]
fn whole_number_downscale_averages_each_block_and_channel() {
    // 4×2 → 2×1: each output pixel is the rounded mean of a 2×2 block, per channel.
    let img = RgbImage::from_fn(4, 2, |x, y| {
        image::Rgb([(x * 10 + y) as u8, (x * 40) as u8, 200 + y as u8])
    });
    let out = downscale(&img, 2, 1).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.dimensions(), (2, 1));
    // Block 0: x 0..2 → r (0+10+1+11)/4 = 5.5 → 6, g (0+40+0+40)/4 = 20, b 200.5 → 201.
    assert_eq!(out.get_pixel(0, 0).0, [6, 20, 201]);
    assert_eq!(out.get_pixel(1, 0).0, [26, 100, 201]);
}

#[test]
fn fractional_downscale_keeps_flat_colour_and_edges() {
    // 8×6 → 6×4 (ratio 4/3): a flat colour stays exact; a left/right split
    // stays dark on the left and light on the right, blended only in between.
    let flat = RgbImage::from_pixel(8, 6, image::Rgb([10, 120, 250]));
    let out = downscale(&flat, 6, 4).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.dimensions(), (6, 4));
    assert!(out.pixels().all(|p| p.0 == [10, 120, 250]));
    let split = RgbImage::from_fn(8, 6, |x, _| {
        if x < 4 {
            image::Rgb([0, 0, 0])
        } else {
            image::Rgb([255, 255, 255])
        }
    });
    let out = downscale(&split, 6, 4).unwrap_or_else(|e| panic!("{e}"));
    for y in 0..4 {
        assert_eq!(out.get_pixel(0, y).0, [0, 0, 0]);
        assert_eq!(out.get_pixel(5, y).0, [255, 255, 255]);
        let row: Vec<u8> = (0..6).map(|x| out.get_pixel(x, y).0[0]).collect();
        assert!(row.windows(2).all(|w| w[0] <= w[1]), "{row:?}");
    }
}
