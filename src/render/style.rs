//! Mark styling: colours, the BAP `AnnotationOptions` style object, label formats,
//! and the WCAG contrast computation that picks readable badge text.
//!
//! Everything here is plain data and validation; no drawing and no I/O.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::MarkKind;

/// An opaque sRGB colour, written `#rrggbb` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Color {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

impl Color {
    pub const BLACK: Color = Color::rgb(0, 0, 0);
    pub const WHITE: Color = Color::rgb(255, 255, 255);

    pub const fn rgb(r: u8, g: u8, b: u8) -> Color {
        Color { r, g, b }
    }

    /// Parse `#rgb`, `#rrggbb`, `#rrggbbaa` (alpha ignored), `rgb(r, g, b)` or a
    /// basic CSS colour name. Returns `None` for anything else.
    pub fn parse(s: &str) -> Option<Color> {
        let t = s.trim().to_ascii_lowercase();
        if let Some(hex) = t.strip_prefix('#') {
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let v = |i: usize, n: usize| u8::from_str_radix(hex.get(i..i + n)?, 16).ok();
            return match hex.len() {
                3 | 4 => Some(Color::rgb(v(0, 1)? * 17, v(1, 1)? * 17, v(2, 1)? * 17)),
                6 | 8 => Some(Color::rgb(v(0, 2)?, v(2, 2)?, v(4, 2)?)),
                _ => None,
            };
        }
        if let Some(inner) = t
            .strip_prefix("rgb(")
            .or_else(|| t.strip_prefix("rgba("))
            .and_then(|r| r.strip_suffix(')'))
        {
            let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
            if parts.len() != 3 && parts.len() != 4 {
                return None;
            }
            let c = |p: &str| p.parse::<u8>().ok();
            return Some(Color::rgb(c(parts[0])?, c(parts[1])?, c(parts[2])?));
        }
        let named = match t.as_str() {
            "black" => (0, 0, 0),
            "white" => (255, 255, 255),
            "red" => (255, 0, 0),
            "green" => (0, 128, 0),
            "lime" => (0, 255, 0),
            "blue" => (0, 0, 255),
            "yellow" => (255, 255, 0),
            "orange" => (255, 165, 0),
            "purple" => (128, 0, 128),
            "magenta" | "fuchsia" => (255, 0, 255),
            "cyan" | "aqua" => (0, 255, 255),
            "gray" | "grey" => (128, 128, 128),
            "pink" => (255, 192, 203),
            "teal" => (0, 128, 128),
            "navy" => (0, 0, 128),
            "maroon" => (128, 0, 0),
            _ => return None,
        };
        Some(Color::rgb(named.0, named.1, named.2))
    }

    /// WCAG 2.x relative luminance (0 = black, 1 = white).
    pub fn luminance(self) -> f64 {
        fn lin(c: u8) -> f64 {
            let s = f64::from(c) / 255.0;
            if s <= 0.04045 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            }
        }
        0.2126 * lin(self.r) + 0.7152 * lin(self.g) + 0.0722 * lin(self.b)
    }

    /// WCAG contrast ratio between two colours (1..=21).
    pub fn contrast(self, other: Color) -> f64 {
        let (a, b) = (self.luminance(), other.luminance());
        let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
        (hi + 0.05) / (lo + 0.05)
    }

    /// Black or white, whichever contrasts more with `self` (≥ 4.58:1 for any colour).
    pub fn best_text(self) -> Color {
        if self.contrast(Color::WHITE) >= self.contrast(Color::BLACK) {
            Color::WHITE
        } else {
            Color::BLACK
        }
    }

    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }
}

impl TryFrom<String> for Color {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        Color::parse(&s).ok_or_else(|| format!("not a colour: {s:?} (use #rrggbb)"))
    }
}

impl From<Color> for String {
    fn from(c: Color) -> String {
        c.hex()
    }
}

/// Default colour of a mark by kind (one distinct hue each).
pub fn kind_color(kind: MarkKind) -> Color {
    match kind {
        MarkKind::Button => Color::rgb(0xdc, 0x26, 0x26), // red
        MarkKind::Link => Color::rgb(0x25, 0x63, 0xeb),   // blue
        MarkKind::TextInput => Color::rgb(0x15, 0x80, 0x3d), // green
        MarkKind::Choice => Color::rgb(0x93, 0x33, 0xea), // purple
        MarkKind::Other => Color::rgb(0x0f, 0x76, 0x6e),  // teal
        MarkKind::Pin => Color::rgb(0xf5, 0x9e, 0x0b),    // amber
    }
}

/// How a badge's text is built from the mark's number and ref.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelFormat {
    /// `1`, `2`, …
    #[default]
    Number,
    /// The ref itself (`@checkout-submit`).
    Ref,
    /// `1:@checkout-submit`.
    Both,
}

impl LabelFormat {
    pub fn label(self, n: usize, ref_: &str) -> String {
        match self {
            LabelFormat::Number => n.to_string(),
            LabelFormat::Ref => ref_.to_string(),
            LabelFormat::Both => format!("{n}:{ref_}"),
        }
    }
}

/// Solid or dashed box outlines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LineStyle {
    #[default]
    Solid,
    Dashed,
}

/// `style.badge` of BAP `AnnotationOptions`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BadgeStyle {
    /// Fill colour; `None` = colour by mark kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<Color>,
    /// Text colour; `None` = black or white, whichever contrasts more with the fill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_color: Option<Color>,
    /// Badge height in px at scale 1 (10..=96); `None` = 16. The font is ¾ of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<f64>,
    /// A CSS font shorthand. Only a `<n>px` size in it is honoured (the family is
    /// always the bundled DejaVu Sans Bold).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub font: Option<String>,
}

/// `style.box` of BAP `AnnotationOptions`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BoxStyle {
    /// Stroke colour; `None` = colour by mark kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<Color>,
    /// Stroke width in px at scale 1 (1..=16); `None` = 2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    pub style: LineStyle,
}

/// How marks are drawn: BAP `AnnotationOptions.style` plus `labelFormat` and `maxLabels`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Style {
    pub badge: BadgeStyle,
    #[serde(rename = "box")]
    pub box_: BoxStyle,
    pub show_bounding_box: bool,
    /// Opacity of box strokes and badge fills, 0..=1 (badge text stays opaque).
    pub opacity: f64,
    pub label_format: LabelFormat,
    /// At most this many element marks get a label (pins are not counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_labels: Option<usize>,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            badge: BadgeStyle::default(),
            box_: BoxStyle::default(),
            show_bounding_box: true,
            opacity: 1.0,
            label_format: LabelFormat::Number,
            max_labels: None,
        }
    }
}

/// Resolved sizes for one render (all in output pixels).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Metrics {
    pub badge_h: f64,
    pub font_px: f64,
    pub pad_x: f64,
    pub stroke: f64,
}

pub(crate) const DEFAULT_BADGE: f64 = 16.0;
const MIN_FONT: f64 = 10.0;

impl Style {
    /// Check ranges of a `Style` built in code or deserialised with serde.
    pub fn validate(&self) -> Result<()> {
        if let Some(s) = self.badge.size {
            if !(10.0..=96.0).contains(&s) {
                return Err(Error::invalid_field(
                    "style.badge.size",
                    format!("badge size must be between 10 and 96 px, got {s}"),
                ));
            }
        }
        if let Some(f) = &self.badge.font {
            font_px(f)?;
        }
        if let Some(w) = self.box_.width {
            if !(1.0..=16.0).contains(&w) {
                return Err(Error::invalid_field(
                    "style.box.width",
                    format!("box width must be between 1 and 16 px, got {w}"),
                ));
            }
        }
        if !(0.0..=1.0).contains(&self.opacity) {
            return Err(Error::invalid_field(
                "style.opacity",
                format!("opacity must be between 0 and 1, got {}", self.opacity),
            ));
        }
        if self.max_labels == Some(0) {
            return Err(Error::invalid_field(
                "maxLabels",
                "maxLabels must be at least 1",
            ));
        }
        Ok(())
    }

    /// Sizes at an output scale (`dpr × downscale`, badges never shrink below scale 1).
    pub(crate) fn metrics(&self, scale: f64) -> Metrics {
        let k = if scale.is_finite() {
            scale.max(1.0)
        } else {
            1.0
        };
        let size = self.badge.size.unwrap_or(DEFAULT_BADGE);
        let font = self
            .badge
            .font
            .as_deref()
            .and_then(|f| font_px(f).ok().flatten())
            .unwrap_or(size * 0.75)
            .max(MIN_FONT);
        let badge_h = size.max(font + 4.0);
        Metrics {
            badge_h: (badge_h * k).round(),
            font_px: (font * k).round(),
            pad_x: (3.0 * k).round(),
            stroke: (self.box_.width.unwrap_or(2.0) * k).round().max(1.0),
        }
    }

    /// The badge fill of a mark (pins use their own colour when given).
    pub fn badge_color(&self, kind: MarkKind, mark_color: Option<&str>) -> Color {
        if kind == MarkKind::Pin {
            return mark_color
                .and_then(Color::parse)
                .unwrap_or(kind_color(kind));
        }
        self.badge.color.unwrap_or(kind_color(kind))
    }

    /// The box stroke colour of a mark.
    pub fn box_color(&self, kind: MarkKind, mark_color: Option<&str>) -> Color {
        if kind == MarkKind::Pin {
            return self.badge_color(kind, mark_color);
        }
        self.box_.color.unwrap_or(kind_color(kind))
    }

    /// Text colour for a badge fill: the caller's, else black/white by contrast.
    pub fn text_color(&self, fill: Color, kind: MarkKind) -> Color {
        match self.badge.text_color {
            Some(c) if kind != MarkKind::Pin => c,
            _ => fill.best_text(),
        }
    }

    /// Parse BAP's `annotateScreenshot` value: `true`/`false` or an
    /// `AnnotationOptions` object. Returns `None` when annotation is disabled.
    /// Errors name the failing field (`annotateScreenshot.style.opacity`).
    pub fn from_json(v: &Value) -> Result<Option<Style>> {
        const ROOT: &str = "annotateScreenshot";
        let obj = match v {
            Value::Null | Value::Bool(false) => return Ok(None),
            Value::Bool(true) => return Ok(Some(Style::default())),
            Value::Object(o) => o,
            _ => {
                return Err(Error::invalid_field(
                    ROOT,
                    "annotateScreenshot must be a boolean or an object",
                ))
            }
        };
        for k in obj.keys() {
            if !matches!(
                k.as_str(),
                "enabled" | "style" | "maxLabels" | "labelFormat" | "useStableRefs"
            ) {
                return Err(Error::invalid_field(
                    format!("{ROOT}.{k}"),
                    format!("unknown field {k:?}"),
                ));
            }
        }
        match obj.get("enabled") {
            Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => return Ok(None),
            Some(_) => {
                return Err(Error::invalid_field(
                    format!("{ROOT}.enabled"),
                    "enabled must be a boolean",
                ))
            }
            None => {
                return Err(Error::invalid_field(
                    format!("{ROOT}.enabled"),
                    "enabled is required in the object form",
                ))
            }
        }
        if let Some(u) = obj.get("useStableRefs") {
            if !u.is_boolean() {
                return Err(Error::invalid_field(
                    format!("{ROOT}.useStableRefs"),
                    "useStableRefs must be a boolean",
                ));
            }
        }
        let mut style = Style::default();
        if let Some(m) = obj.get("maxLabels") {
            let n = m.as_u64().filter(|n| *n >= 1).ok_or_else(|| {
                Error::invalid_field(
                    format!("{ROOT}.maxLabels"),
                    format!("maxLabels must be a positive integer, got {m}"),
                )
            })?;
            style.max_labels = Some(usize::try_from(n).unwrap_or(usize::MAX));
        }
        if let Some(f) = obj.get("labelFormat") {
            style.label_format = match f.as_str() {
                Some("number") => LabelFormat::Number,
                Some("ref") => LabelFormat::Ref,
                Some("both") => LabelFormat::Both,
                _ => {
                    return Err(Error::invalid_field(
                        format!("{ROOT}.labelFormat"),
                        format!("labelFormat must be \"number\", \"ref\" or \"both\", got {f}"),
                    ))
                }
            };
        }
        if let Some(s) = obj.get("style") {
            parse_style_object(s, &format!("{ROOT}.style"), &mut style)?;
        }
        style.validate().map_err(|e| match e {
            Error::InvalidInput {
                message,
                field: Some(f),
            } => Error::InvalidInput {
                message,
                field: Some(if f.starts_with("style.") {
                    format!("{ROOT}.{f}")
                } else {
                    f
                }),
            },
            other => other,
        })?;
        Ok(Some(style))
    }
}

/// The `<n>px` of a CSS font shorthand, if any (10..=72).
fn font_px(font: &str) -> Result<Option<f64>> {
    for word in font.split_whitespace() {
        if let Some(n) = word.strip_suffix("px").and_then(|n| n.parse::<f64>().ok()) {
            if !(10.0..=72.0).contains(&n) {
                return Err(Error::invalid_field(
                    "style.badge.font",
                    format!("font size must be between 10 and 72 px, got {n}"),
                ));
            }
            return Ok(Some(n));
        }
    }
    Ok(None)
}

fn obj_of<'a>(v: &'a Value, path: &str) -> Result<&'a serde_json::Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| Error::invalid_field(path, format!("{path} must be an object")))
}

fn check_keys(o: &serde_json::Map<String, Value>, path: &str, allowed: &[&str]) -> Result<()> {
    match o.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(Error::invalid_field(
            format!("{path}.{k}"),
            format!(
                "unknown field {k:?} (expected one of {})",
                allowed.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

fn color_at(o: &serde_json::Map<String, Value>, key: &str, path: &str) -> Result<Option<Color>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Color::parse(s).map(Some).ok_or_else(|| {
            Error::invalid_field(
                format!("{path}.{key}"),
                format!("not a colour: {s:?} (use #rrggbb)"),
            )
        }),
        Some(other) => Err(Error::invalid_field(
            format!("{path}.{key}"),
            format!("{key} must be a colour string, got {other}"),
        )),
    }
}

fn number_at(o: &serde_json::Map<String, Value>, key: &str, path: &str) -> Result<Option<f64>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_f64().map(Some).ok_or_else(|| {
            Error::invalid_field(
                format!("{path}.{key}"),
                format!("{key} must be a number, got {v}"),
            )
        }),
    }
}

fn parse_style_object(v: &Value, path: &str, style: &mut Style) -> Result<()> {
    let o = obj_of(v, path)?;
    check_keys(o, path, &["badge", "box", "showBoundingBox", "opacity"])?;
    if let Some(b) = o.get("badge") {
        let p = format!("{path}.badge");
        let bo = obj_of(b, &p)?;
        check_keys(bo, &p, &["color", "textColor", "size", "font"])?;
        style.badge.color = color_at(bo, "color", &p)?;
        style.badge.text_color = color_at(bo, "textColor", &p)?;
        style.badge.size = number_at(bo, "size", &p)?;
        style.badge.font = match bo.get("font") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                return Err(Error::invalid_field(
                    format!("{p}.font"),
                    format!("font must be a string, got {other}"),
                ))
            }
        };
    }
    if let Some(b) = o.get("box") {
        let p = format!("{path}.box");
        let bo = obj_of(b, &p)?;
        check_keys(bo, &p, &["color", "width", "style"])?;
        style.box_.color = color_at(bo, "color", &p)?;
        style.box_.width = number_at(bo, "width", &p)?;
        style.box_.style = match bo.get("style") {
            None | Some(Value::Null) => LineStyle::Solid,
            Some(s) => match s.as_str() {
                Some("solid") => LineStyle::Solid,
                Some("dashed") => LineStyle::Dashed,
                _ => {
                    return Err(Error::invalid_field(
                        format!("{p}.style"),
                        format!("box style must be \"solid\" or \"dashed\", got {s}"),
                    ))
                }
            },
        };
    }
    if let Some(s) = o.get("showBoundingBox") {
        style.show_bounding_box = s.as_bool().ok_or_else(|| {
            Error::invalid_field(
                format!("{path}.showBoundingBox"),
                "showBoundingBox must be a boolean",
            )
        })?;
    }
    if let Some(op) = number_at(o, "opacity", path)? {
        style.opacity = op;
    }
    Ok(())
}
